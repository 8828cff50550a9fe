//! Adaptive integration: closed forms of the test integrands, agreement
//! with the sequential run to 1e-12 relative for every P and every strategy
//! of the threads runtime, the work contract (splits lose and duplicate nothing), and the
//! argument checks.

use treelb::RunSpec;
use treelb::{Init, Reduce, Work, seq};
use treelb_apps::integrate::{CompensatedSum, Estimate, INTEGRANDS, Integral, IntegralError, TestIntegrand};
use treelb_threads::{Config, run};

const PES: [usize; 5] = [1, 2, 3, 4, 8];

/// The accuracy each test integrand reaches at tolerance 1e-10: the
/// singular ones are limited by the depth limit, the others by the
/// tolerance (with the error estimate's usual pessimism).
fn accuracy(t: &TestIntegrand) -> f64 {
    match t.name {
        "inv-sqrt" => 1e-6,
        _ => 1e-9,
    }
}

#[test]
fn closed_forms_sequentially() {
    for t in &INTEGRANDS {
        let integral = t.integral(1e-10).unwrap();
        let (estimate, units) = seq::run_work(integral.work());
        assert_eq!(units, estimate.evaluated);
        let exact = (t.exact)();
        let error = (estimate.value() - exact).abs();
        assert!(error <= accuracy(t), "{}: {} vs {exact}: error {error:e}", t.name, estimate.value());
        assert!(
            estimate.accepted >= 1 && estimate.evaluated == 2 * estimate.accepted - 1,
            "{}: a binary tree",
            t.name
        );
        if t.name != "inv-sqrt" && t.name != "log" {
            assert_eq!(estimate.at_depth_limit, 0, "{}", t.name);
            assert!(estimate.error() <= 1e-10, "{}: error estimate {}", t.name, estimate.error());
        }
    }
}

#[test]
fn tighter_tolerances_give_tighter_results() {
    for name in ["sqrt", "sin-recip", "peak", "x-sin-recip"] {
        let t = TestIntegrand::find(name).unwrap();
        let exact = (t.exact)();
        let mut evaluated = 0;
        for tol in [1e-4, 1e-7, 1e-10, 1e-12] {
            let (e, _) = seq::run_work(t.integral(tol).unwrap().work());
            assert!((e.value() - exact).abs() <= 10.0 * tol, "{name} at {tol}: {e}");
            assert!(e.evaluated >= evaluated, "{name}: more work for a tighter tolerance");
            evaluated = e.evaluated;
        }
    }
}

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(f64::MIN_POSITIVE)
}

#[test]
fn every_p_agrees_with_the_sequential_run_to_1e_12() {
    for t in &INTEGRANDS {
        let integral = t.integral(1e-11).unwrap();
        let (sequential, _) = seq::run_work(integral.work());
        for (j, p) in PES.into_iter().enumerate() {
            for init in Init::ALL {
                let config = Config {
                    threads: p,
                    spec: RunSpec {
                        init,
                        budget: treelb::spec::Budget::of(1 + (j as u64 % 3) * 7),
                        ..RunSpec::default()
                    },
                    ..Config::default()
                };
                let outcome = run(integral.work(), &config).unwrap();
                let e = outcome.output;
                let what = format!("{}, P = {p}, init {init}", t.name);
                assert!(relative(e.value(), sequential.value()) <= 1e-12, "{what}: {e} vs {sequential}");
                assert!(relative(e.error(), sequential.error()) <= 1e-9, "{what}: error estimates");
                // The same intervals were accepted.
                assert_eq!(
                    (e.accepted, e.evaluated, e.max_depth),
                    (sequential.accepted, sequential.evaluated, sequential.max_depth),
                    "{what}"
                );
                assert_eq!(outcome.stats.work_units(), sequential.evaluated, "{what}");
            }
        }
    }
}

#[test]
fn a_long_oscillating_integral_spreads_over_the_pes() {
    // f = sin(1/x)/x² oscillates ~1600 times on [1e-4, 1]; near 1e-4 its
    // evaluation loses digits, which the stall test must absorb (without it
    // bisection never ends). Thousands of intervals: every P does the same.
    let integral = Integral::new(|x: f64| (1.0 / x).sin() / (x * x), 1e-4, 1.0, 1e-12).unwrap();
    let exact = 1f64.cos() - 10_000f64.cos();
    let (sequential, _) = seq::run_work(integral.work());
    assert!((sequential.value() - exact).abs() < 1e-8, "{sequential}");
    assert!(sequential.evaluated > 5_000, "{sequential}");
    assert!(sequential.at_depth_limit > 0, "the noise floor is reached: {sequential}");
    for p in [2, 4] {
        let outcome = run(
            integral.work(),
            &Config {
                threads: p,
                spec: RunSpec { budget: treelb::spec::Budget::of(16), ..RunSpec::default() },
                ..Config::default()
            },
        )
        .unwrap();
        assert!(relative(outcome.output.value(), sequential.value()) <= 1e-12);
        // Accepting an interval depends on the interval alone: the same
        // intervals are evaluated whatever the schedule.
        assert_eq!(outcome.output.evaluated, sequential.evaluated, "P = {p}");
        assert_eq!(outcome.output.accepted, sequential.accepted, "P = {p}");
        assert_eq!(outcome.stats.work_units(), sequential.evaluated, "P = {p}");
    }
}

#[test]
fn splits_lose_and_duplicate_nothing() {
    let t = TestIntegrand::find("sin-recip").unwrap();
    let integral = t.integral(1e-12).unwrap();
    let (whole, _) = seq::run_work(integral.work());
    // Work a little, split repeatedly, finish every piece.
    let mut first = integral.work();
    let mut acc = Estimate::default();
    assert!(first.split().is_none(), "a single interval is atomic");
    first.work(5, &mut acc);
    let mut pieces = vec![first];
    for round in 0..6 {
        let mut next = Vec::new();
        for mut piece in pieces {
            piece.work(3, &mut acc);
            let generation = piece.generation();
            if let Some(other) = piece.split() {
                assert_eq!(piece.generation(), generation + 1, "round {round}");
                assert_eq!(other.generation(), generation + 1);
                next.push(other);
            }
            next.push(piece);
        }
        pieces = next;
    }
    assert!(pieces.len() > 8);
    for piece in pieces {
        acc.merge(seq::run_work(piece).0);
    }
    assert_eq!((acc.accepted, acc.evaluated), (whole.accepted, whole.evaluated));
    assert!(relative(acc.value(), whole.value()) <= 1e-14);
}

#[test]
fn initial_pieces() {
    let t = TestIntegrand::find("cos50").unwrap();
    let integral = t.integral(1e-12).unwrap();
    let work = integral.work_in_pieces(7);
    assert_eq!(work.intervals().len(), 7);
    assert_eq!(work.intervals()[6].a, 0.0);
    assert_eq!(work.intervals()[0].b, 1.0);
    let (e, _) = seq::run_work(work);
    assert!((e.value() - (t.exact)()).abs() < 1e-11);
}

#[test]
fn compensated_sums_do_not_depend_on_the_order() {
    let values: Vec<f64> = (0..10_000)
        .map(|k| {
            ((k * 7919) % 10007) as f64 * 1e-3 * if k % 2 == 0 { 1.0 } else { -1.0 }
                + 1e8 * ((k % 3) as f64 - 1.0)
        })
        .collect();
    let mut forward = CompensatedSum::default();
    values.iter().for_each(|&x| forward.add(x));
    let mut backward = CompensatedSum::default();
    values.iter().rev().for_each(|&x| backward.add(x));
    // In chunks, merged.
    let mut merged = CompensatedSum::default();
    for chunk in values.chunks(77) {
        let mut part = CompensatedSum::default();
        chunk.iter().for_each(|&x| part.add(x));
        merged.merge(part);
    }
    assert!(relative(forward.value(), backward.value()) <= 1e-15);
    assert!(relative(forward.value(), merged.value()) <= 1e-15);
}

#[test]
fn bad_arguments() {
    let f = |x: f64| x;
    assert_eq!(Integral::new(f, 1.0, 1.0, 1e-9).unwrap_err(), IntegralError::BadInterval { a: 1.0, b: 1.0 });
    assert!(matches!(Integral::new(f, 0.0, f64::INFINITY, 1e-9), Err(IntegralError::BadInterval { .. })));
    assert!(matches!(Integral::new(f, f64::NAN, 1.0, 1e-9), Err(IntegralError::BadInterval { .. })));
    assert_eq!(Integral::new(f, 0.0, 1.0, 0.0).unwrap_err(), IntegralError::BadTolerance(0.0));
    assert!(matches!(Integral::new(f, 0.0, 1.0, f64::NAN), Err(IntegralError::BadTolerance(_))));
    assert_eq!(
        Integral::new(f, 2.0, 1.0, 1e-9).unwrap_err().to_string(),
        "the interval [2, 1] must have finite endpoints with a < b"
    );
    // The depth limit stops refinement of a non-integrable spike.
    let spike = Integral::new(|x: f64| 1.0 / x, 0.0, 1.0, 1e-9).unwrap().with_max_depth(20).unwrap();
    let (e, _) = seq::run_work(spike.work());
    assert!(e.at_depth_limit >= 1 && e.max_depth == 20);
    assert!(TestIntegrand::find("no-such").is_none());
    // Past the depth at which the width underflows, the rule's nodes fall
    // on the endpoints (1/√0 = ∞, the sum NaN): refused.
    let inv_sqrt = TestIntegrand::find("inv-sqrt").unwrap().integral(1e-10).unwrap();
    assert_eq!(inv_sqrt.depth_limit(), 1022);
    assert_eq!(
        inv_sqrt.clone().with_max_depth(1100).unwrap_err(),
        IntegralError::TooDeep { depth: 1100, limit: 1022 }
    );
    let (deepest, _) = seq::run_work(inv_sqrt.with_max_depth(1022).unwrap().work());
    assert!(deepest.value().is_finite() && deepest.error().is_finite(), "{deepest}");
}

#[test]
fn every_strategy_agrees_with_the_sequential_run() {
    // The strategies of the threads runtime (the list grows as they land).
    for name in ["sin-recip", "peak", "sqrt"] {
        let integral = TestIntegrand::find(name).unwrap().integral(1e-11).unwrap();
        let (sequential, _) = seq::run_work(integral.work());
        for &strategy in treelb_threads::SUPPORTED_STRATEGIES.iter() {
            for (j, p) in PES.into_iter().enumerate() {
                let config = Config {
                    threads: p,
                    spec: RunSpec {
                        strategy,
                        init: Init::ALL[j % 2],
                        budget: treelb::spec::Budget::of(4),
                        ..RunSpec::default()
                    },
                    ..Config::default()
                };
                let e = run(integral.work(), &config).unwrap().output;
                let what = format!("{name}, P = {p}, {strategy}");
                assert!(relative(e.value(), sequential.value()) <= 1e-12, "{what}: {e} vs {sequential}");
                assert_eq!((e.accepted, e.evaluated), (sequential.accepted, sequential.evaluated), "{what}");
            }
        }
    }
}
