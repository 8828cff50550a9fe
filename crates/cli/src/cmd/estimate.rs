//! `treelb clique FILE --estimate DURATION`: how big is the search tree,
//! and how long would a sequential search take? Answered without
//! searching, from random root-to-leaf probes
//! ([`treelb::search::estimate`], Knuth's estimator).
//!
//! The probing — from the best solution the heuristics know, setting
//! aside the probes made before an improvement of the incumbent — is the
//! library's [`treelb::search::estimate::probe_for`], and its report
//! [`treelb_apps::report::estimate::Report`]; this module adds the
//! command's progress indicator and its signals, and prints the report.
//!
//! Only `clique` offers it: its trees are wide and shallow (colour-ordered
//! branching, a few dozen levels), where the estimate came within a few
//! per cent of the real node counts. On the deep binary trees of the
//! knapsack and the TSP the probes almost never reach the few deep
//! subtrees that hold most nodes, and the estimate fell short by factors of
//! 2.3 (pr76) to 2,600 (a strongly correlated knapsack) while its standard
//! error claimed 8–35 % (docs/benchmarks/2026-11-25-estimate/; the guide:
//! docs/cli.md, "How big is the tree?").

use std::io::Write;
use std::time::{Duration, Instant};

use indicatif::ProgressBar;
use serde::Serialize;
use treelb::Incumbent;
use treelb::search::Search;
use treelb::search::estimate::probe_for;
pub(crate) use treelb_apps::report::estimate::Pruning;
use treelb_apps::report::estimate::{Report, sci};

use super::Status;
use crate::config::{Error, RunConfig, Runtime, err};

/// The progress indicator appears after this long, on a terminal only.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Refuses the options that do not go with `--estimate`, which runs no
/// search: the runtime's options (MPI, a trace, checkpoints, limits) and
/// the command's own, `extra` (`--compare-seq`, a check of the answer):
/// each a flag and whether it was given.
pub(crate) fn check(cfg: &RunConfig, extra: &[(&'static str, bool)]) -> Result<(), Error> {
    let runtime = [
        (cfg.kind == Runtime::Mpi, "--runtime mpi"),
        (cfg.trace.is_some(), "--trace"),
        (cfg.checkpoint.is_some(), "--checkpoint"),
        (cfg.max_nodes.is_some(), "--max-nodes"),
        (cfg.time_limit.is_some(), "--time-limit"),
    ];
    let refused = runtime.iter().copied().chain(extra.iter().map(|&(flag, given)| (given, flag)));
    match refused.into_iter().find(|(given, _)| *given) {
        Some((_, flag)) => Err(err!(
            "--estimate probes the tree on one thread for the time it is given and runs no search: \
             {flag} does not go with it"
        )),
        None => Ok(()),
    }
}

/// Probes `search` for `duration` (see the module documentation) and
/// writes the estimate, as text or as JSON (`cfg.json`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run<S: Search, I: Serialize>(
    app: &'static str,
    title: String,
    instance: I,
    search: &S,
    incumbent: &Incumbent<Vec<u32>>,
    pruning: Option<Pruning>,
    duration: Duration,
    cfg: &RunConfig,
    unit: &'static str,
    out: &mut impl Write,
) -> Result<Status, Error> {
    treelb_run::signals::catch();
    if cfg.feedback.on() {
        eprintln!(
            "treelb: probing the tree for {} on one thread (Ctrl-C reports the estimate so far)",
            humantime::format_duration(duration)
        );
    }
    if cfg.deterministic {
        incumbent.break_ties();
    }
    let seed = cfg.spec.seed;
    let mut bar: Option<ProgressBar> = None;
    let show = cfg.feedback == crate::config::Feedback::Terminal;
    let mut shown = Instant::now();
    let found = probe_for(
        search,
        Some(incumbent),
        duration,
        seed,
        treelb_run::signals::caught,
        |estimate, elapsed| {
            if show && elapsed >= SHOW_AFTER && shown.elapsed() >= Duration::from_millis(100) {
                shown = Instant::now();
                let bar = bar.get_or_insert_with(|| {
                    let length = Some(duration.as_millis() as u64);
                    crate::progress::bar(length, "{elapsed_precise} [{bar:30}] probing: {msg}")
                });
                bar.set_position(elapsed.as_millis() as u64);
                bar.set_message(format!(
                    "{} probes, {} nodes ± {:.0} %",
                    estimate.probes(),
                    sci(estimate.nodes.mean()),
                    100.0 * estimate.nodes.relative_error()
                ));
            }
        },
    );
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let interrupted = found.stopped || treelb_run::signals::caught();
    let report =
        Report::new(app, &title, instance, unit, found, pruning, seed, incumbent.sense(), interrupted);
    if cfg.json {
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", report.text())?;
    }
    if interrupted && !cfg.quiet {
        eprintln!(
            "treelb: probing stopped by a signal after {} probes: the estimate rests on these",
            report.estimate.probes
        );
        return Ok(Status::Interrupted);
    }
    Ok(Status::Done)
}
