//! The report of an adaptive integration of a test integrand, checked
//! against its closed form and, where one was run, against the sequential
//! run.

use serde::Serialize;

use super::{Answered, Line};
use crate::integrate::{Estimate, SEQUENTIAL_AGREEMENT, TestIntegrand};

/// The instance.
#[derive(Debug, Serialize)]
pub struct Instance {
    /// The integrand, by name.
    pub integrand: &'static str,
    /// The integrand, in words.
    pub description: &'static str,
    /// The lower bound of the interval.
    pub a: f64,
    /// The upper bound.
    pub b: f64,
    /// The tolerance on the error estimate.
    pub tolerance: f64,
    /// The deepest bisection allowed.
    pub max_depth: u32,
}

/// The same integral computed sequentially.
#[derive(Debug, Serialize)]
pub struct Sequential {
    /// Its wall time.
    pub wall_secs: f64,
    /// Its value.
    pub value: f64,
    /// |parallel − sequential| / |sequential|.
    pub relative_difference: f64,
}

/// The answer.
#[derive(Debug, Serialize)]
pub struct Answer {
    /// The integral.
    pub value: f64,
    /// The sum of the accepted intervals' error estimates |K15 − G7|.
    pub error_estimate: f64,
    /// The error estimate is within the tolerance.
    pub converged: bool,
    /// The integral in closed form.
    pub exact: f64,
    /// value − exact.
    pub difference: f64,
    /// Intervals evaluated.
    pub evaluated: u64,
    /// Intervals accepted.
    pub accepted: u64,
    /// Accepted above their share of the tolerance (depth limit, rounding
    /// level or noise floor of f).
    pub at_depth_limit: u64,
    /// The deepest bisection.
    pub max_depth: u32,
    /// The sequential run, if one was made.
    pub sequential: Option<Sequential>,
}

/// The estimate `e` of the integral of `t` over `bounds` to the tolerance
/// `tol` bisecting at most `max_depth` times, checked against the closed
/// form and the sequential run's `(wall seconds, value)` if one was made,
/// unless `interrupted` (a partial sum). `ok` is false where the value
/// differs from the sequential one by more than [`SEQUENTIAL_AGREEMENT`];
/// whether the estimate converged is [`Answer::converged`].
pub fn answer(
    t: &TestIntegrand,
    bounds: (f64, f64),
    (tol, max_depth): (f64, u32),
    e: &Estimate,
    seq: Option<(f64, f64)>,
    interrupted: bool,
) -> Answered<Instance, Answer> {
    let (value, exact) = (e.value(), (t.exact)());
    let difference = value - exact;
    let mut ok = true;
    let mut lines = vec![
        Line::new("value", value).note(if interrupted {
            "partial: Σ of the intervals accepted before the interruption"
        } else {
            "Σ of the accepted 15-point Kronrod estimates, compensated"
        }),
        Line::new("error estimate", format!("{:.2e}", e.error())).note(if e.converged(tol) {
            format!("Σ |K15 − G7| over the accepted intervals; tolerance {tol:e} ✓")
        } else {
            format!("Σ |K15 − G7| over the accepted intervals; NOT CONVERGED: above the tolerance {tol:e}")
        }),
        Line::new("closed form", exact).note(t.description),
        Line::new("difference", format!("{difference:.2e}")).note(if difference.abs() <= tol {
            "value − closed form; within the tolerance ✓".to_owned()
        } else if e.at_depth_limit > 0 {
            format!(
                "value − closed form; above the tolerance: {} intervals accepted at the depth limit \
                 or the noise floor of f",
                e.at_depth_limit
            )
        } else {
            "value − closed form; above the tolerance".to_owned()
        }),
        Line::new("intervals", format!("{} evaluated, {} accepted", e.evaluated, e.accepted)).note(format!(
            "deepest bisection {}; {} accepted above their share of the tolerance",
            e.max_depth, e.at_depth_limit
        )),
    ];
    let sequential = seq.map(|(wall_secs, seq_value)| {
        let relative = e.relative_difference(seq_value);
        let agrees = relative <= SEQUENTIAL_AGREEMENT;
        ok &= agrees;
        lines.push(Line::new("sequential", format!("{wall_secs:.3} s")).note(if interrupted {
            format!("value {seq_value}; not compared with the partial value")
        } else if agrees {
            format!("value {seq_value}; relative difference {relative:.1e} ≤ 1e-12 ✓")
        } else {
            format!("value {seq_value}; MISMATCH: relative difference {relative:.1e} > 1e-12")
        }));
        Sequential { wall_secs, value: seq_value, relative_difference: relative }
    });
    let (a, b) = bounds;
    Answered {
        title: format!("Adaptive Gauss–Kronrod (7, 15) — {}: {}, tolerance {tol:e}", t.name, t.description),
        instance: Instance { integrand: t.name, description: t.description, a, b, tolerance: tol, max_depth },
        answer: Answer {
            value,
            error_estimate: e.error(),
            converged: e.converged(tol),
            exact,
            difference,
            evaluated: e.evaluated,
            accepted: e.accepted,
            at_depth_limit: e.at_depth_limit,
            max_depth: e.max_depth,
            sequential,
        },
        lines,
        ok,
    }
}
