//! `treelb integrate NAME`: adaptive Gauss–Kronrod integration of a test
//! integrand, checked against its closed form (and, with `--compare-seq`,
//! against the sequential run to 1e-12 relative).

use std::io::Write;
use std::time::Instant;

use treelb::SplitPolicy;
use treelb_apps::integrate::{INTEGRANDS, SEQUENTIAL_AGREEMENT, TestIntegrand};
use treelb_apps::report::integrate;
use treelb_mpi::wire::StateCodec;

use super::Status;
use crate::args::IntegrateArgs;
use crate::config::{Error, RunConfig, err};

use crate::report::{report, write};

/// Parses `--tol`: a positive, finite number.
fn tolerance(value: &str) -> Result<f64, Error> {
    value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|t| t.is_finite() && *t > 0.0)
        .ok_or_else(|| err!("--tol expects a positive number such as 1e-10, got `{value}`"))
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
    let t = TestIntegrand::named(args.integrand.as_deref().unwrap_or_default()).map_err(|e| err!("{e}"))?;
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
    let (interrupted, units, stopped) =
        (outcome.stopped.is_some(), outcome.stats.work_units(), outcome.stopped);
    let value = e.value();
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

    let answered = integrate::answer(t, integral.bounds(), (tol, max_depth), &e, seq, interrupted);
    let mut ok = answered.ok;
    let seq_secs = seq.map(|(wall_secs, _)| wall_secs);
    let report =
        report("integrate", answered, "intervals", &cfg, outcome.stats, stopped).with_sequential(seq_secs);
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
