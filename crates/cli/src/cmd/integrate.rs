//! `treelb integrate NAME`: adaptive Gauss–Kronrod integration of a test
//! integrand, checked against its closed form (and, with `--compare-seq`,
//! against the sequential run to 1e-12 relative).

use std::io::Write;
use std::time::Instant;

use serde::Serialize;
use treelb::SplitPolicy;
use treelb_apps::integrate::{INTEGRANDS, SEQUENTIAL_AGREEMENT, TestIntegrand};
use treelb_mpi::wire::StateCodec;

use super::Status;
use crate::args::IntegrateArgs;
use crate::config::{Error, RunConfig, err};

use crate::report::{Line, report, write};

/// Looks a test integrand up by name.
fn integrand(name: &str) -> Result<&'static TestIntegrand, Error> {
    TestIntegrand::find(name).ok_or_else(|| {
        let names: Vec<_> = INTEGRANDS.iter().map(|t| t.name).collect();
        err!("unknown integrand `{name}` (known: {})", names.join(", "))
    })
}

/// Parses `--tol`: a positive, finite number.
fn tolerance(value: &str) -> Result<f64, Error> {
    value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|t| t.is_finite() && *t > 0.0)
        .ok_or_else(|| err!("--tol expects a positive number such as 1e-10, got `{value}`"))
}

#[derive(Serialize)]
struct Instance {
    integrand: &'static str,
    description: &'static str,
    a: f64,
    b: f64,
    tolerance: f64,
    max_depth: u32,
}

/// The same integral computed sequentially.
#[derive(Serialize)]
struct Sequential {
    wall_secs: f64,
    value: f64,
    /// |parallel − sequential| / |sequential|.
    relative_difference: f64,
}

#[derive(Serialize)]
struct Answer {
    value: f64,
    /// The sum of the accepted intervals' error estimates |K15 − G7|.
    error_estimate: f64,
    /// The error estimate is within the tolerance (otherwise the exit code
    /// is 1).
    converged: bool,
    /// The integral in closed form.
    exact: f64,
    /// value − exact.
    difference: f64,
    evaluated: u64,
    accepted: u64,
    /// Accepted above their share of the tolerance (depth limit, rounding
    /// level or noise floor of f).
    at_depth_limit: u64,
    max_depth: u32,
    sequential: Option<Sequential>,
}

pub(crate) fn run(args: &IntegrateArgs, out: &mut impl Write) -> Result<Status, Error> {
    if args.list {
        for t in &INTEGRANDS {
            writeln!(out, "{:<12} [{}, {}]  {}", t.name, t.a, t.b, t.description)?;
        }
        return Ok(Status::Done);
    }
    if args.run.split_policy.is_some_and(|p| p.0 != SplitPolicy::OldestHalf) {
        return Err(err!(
            "--split-policy: integrate always gives away the oldest half of its interval list (oldest-half)"
        ));
    }
    let cfg = RunConfig::with_defaults(&args.run, crate::config::app("integrate").defaults)?;
    cfg.refuse_deterministic("integrate")?;
    cfg.refuse_checkpoint("integrate")?;
    let t = integrand(args.integrand.as_deref().unwrap_or_default())?;
    let tol = tolerance(&args.tol)?;
    let max_depth = args.max_depth;
    let integral = t
        .integral(tol)
        .map_err(|e| err!("--tol: {e}"))?
        .with_max_depth(max_depth)
        .map_err(|e| err!("--max-depth: {e}"))?;

    let seq = args.compare_seq.then(|| {
        let start = Instant::now();
        let (estimate, _) = treelb::seq::run_work(integral.work());
        (start.elapsed().as_secs_f64(), estimate.value())
    });
    let Some(outcome) = crate::run::work(&StateCodec(&integral), integral.work(), &cfg, None, "intervals")?
    else {
        return Ok(Status::Done); // an MPI rank other than 0: rank 0 reports
    };
    let e = outcome.output;
    let (interrupted, units, stopped) = (outcome.interrupted(), outcome.stats.work_units(), outcome.stopped);
    let (value, exact) = (e.value(), (t.exact)());
    let difference = value - exact;
    if !e.is_finite() {
        // No report: a NaN or infinite value is no answer.
        eprintln!(
            "treelb: error: integrate {}: the value is {value} and the error estimate {}: the integrand was not \
             finite at a point the rule evaluated",
            t.name,
            e.error()
        );
        return Ok(Status::Failed);
    }

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

    let (a, b) = integral.bounds();
    let title = format!("Adaptive Gauss–Kronrod (7, 15) — {}: {}, tolerance {tol:e}", t.name, t.description);
    let instance =
        Instance { integrand: t.name, description: t.description, a, b, tolerance: tol, max_depth };
    let answer = Answer {
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
    };
    let seq_secs = answer.sequential.as_ref().map(|s| s.wall_secs);
    let report =
        report("integrate", title, instance, answer, lines, "intervals", &cfg, outcome.stats, stopped)
            .with_sequential(seq_secs);
    write(&report, cfg.json, out)?;
    if interrupted {
        return Ok(super::interrupted(&cfg, stopped, units, "intervals"));
    }
    if !e.converged(tol) {
        ok = false;
        eprintln!(
            "treelb: error: integrate {}: did not converge: the error estimate {:.2e} is above the tolerance \
             {tol:e} ({} intervals accepted above their share at the depth limit {max_depth} or the noise \
             floor of f; raise --max-depth or --tol)",
            t.name,
            e.error(),
            e.at_depth_limit
        );
    } else if !ok {
        eprintln!(
            "treelb: error: the value differs from the sequential run by more than {SEQUENTIAL_AGREEMENT:e} \
             relative"
        );
    }
    Ok(ok.into())
}
