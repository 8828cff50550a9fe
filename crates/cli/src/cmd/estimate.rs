//! `treelb clique FILE --estimate DURATION`: how big is the search tree,
//! and how long would a sequential search take? Answered without
//! searching, from random root-to-leaf probes
//! ([`treelb::search::estimate`], Knuth's estimator).
//!
//! The probing — from the best solution the heuristics know, setting
//! aside the probes made before an improvement of the incumbent — is the
//! library's [`treelb::search::estimate::probe_for`]; this module adds the
//! command's progress indicator, its signals and its report.
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

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use treelb::search::Search;
use treelb::search::estimate::{Mean, TreeEstimate, probe_for};
use treelb::{Incumbent, Sense};

use super::Status;
use crate::config::{Error, RunConfig, Runtime, err};
use crate::report::Line;

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

/// A mean and its standard error, as reported.
#[derive(Debug, Serialize)]
struct Stat {
    mean: f64,
    std_error: f64,
}

impl From<&Mean> for Stat {
    fn from(m: &Mean) -> Self {
        Stat { mean: m.mean(), std_error: m.std_error() }
    }
}

/// The estimate, as data.
#[derive(Debug, Serialize)]
struct Answer {
    /// Probes counted in the estimate.
    probes: u64,
    /// Probes set aside because the incumbent improved after them.
    probes_set_aside: u64,
    /// Seconds spent probing (all probes).
    probing_secs: f64,
    /// Estimated nodes of the tree.
    nodes: Stat,
    /// Estimated work units.
    work_units: Stat,
    /// Estimated seconds of a sequential search (each expansion's measured
    /// time, weighted like the nodes).
    sequential_secs: Stat,
    /// The deepest probe, in levels below the root.
    max_depth: u32,
    /// The incumbent's value that prunes the estimated tree.
    incumbent: Option<i64>,
    /// What else prunes it (a decision's floor), if anything.
    pruning: Option<Pruning>,
    /// The root has no children: the one probe measured the tree exactly.
    exact: bool,
    /// Seed of the probes' choices.
    seed: u64,
    /// A signal stopped the probing before its time was up.
    interrupted: bool,
}

/// What prunes the tree besides the incumbent: `value` (`bound ≤ 29`) and
/// why (`note`).
#[derive(Debug, Serialize)]
pub(crate) struct Pruning {
    pub(crate) value: String,
    pub(crate) note: String,
}

/// The whole report.
#[derive(Debug, Serialize)]
struct Report<I: Serialize> {
    app: &'static str,
    title: String,
    instance: I,
    unit: &'static str,
    estimate: Answer,
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
    crate::run::catch_signals();
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
    let found =
        probe_for(search, Some(incumbent), duration, seed, crate::run::signalled, |estimate, elapsed| {
            if show && elapsed >= SHOW_AFTER && shown.elapsed() >= Duration::from_millis(100) {
                shown = Instant::now();
                let bar = bar.get_or_insert_with(|| {
                    let bar = ProgressBar::with_draw_target(
                        Some(duration.as_millis() as u64),
                        ProgressDrawTarget::stderr(),
                    );
                    bar.set_style(
                        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] probing: {msg}")
                            .expect("valid template"),
                    );
                    bar
                });
                bar.set_position(elapsed.as_millis() as u64);
                bar.set_message(format!(
                    "{} probes, {} nodes ± {:.0} %",
                    estimate.probes(),
                    sci(estimate.nodes.mean()),
                    100.0 * estimate.nodes.relative_error()
                ));
            }
        });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let estimate = found.estimate;
    let interrupted = found.stopped || crate::run::signalled();
    let answer = Answer {
        probes: estimate.probes(),
        probes_set_aside: found.set_aside,
        probing_secs: found.probing_secs,
        nodes: (&estimate.nodes).into(),
        work_units: (&estimate.units).into(),
        sequential_secs: (&estimate.seconds).into(),
        max_depth: estimate.max_depth,
        incumbent: found.incumbent,
        pruning,
        exact: found.exact,
        seed,
        interrupted,
    };
    let sense = incumbent.sense();
    let report =
        Report { app, title: format!("Tree-size estimate — {title}"), instance, unit, estimate: answer };
    if cfg.json {
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        write_text(&report, &estimate, found.rough(), sense, out)?;
    }
    if interrupted && !cfg.quiet {
        eprintln!(
            "treelb: probing stopped by a signal after {} probes: the estimate rests on these",
            estimate.probes()
        );
        return Ok(Status::Interrupted);
    }
    Ok(Status::Done)
}

fn write_text<I: Serialize>(
    report: &Report<I>,
    estimate: &TreeEstimate,
    rough: bool,
    sense: Sense,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let a = &report.estimate;
    let pm = |m: &Mean| format!("{} ± {}", sci(m.mean()), percent(m));
    let mut lines = vec![
        Line::new("probes", format!("{} in {:.1} s", a.probes, a.probing_secs)).note(format!(
            "random root-to-leaf paths on one thread, seed {}{}",
            a.seed,
            if a.probes_set_aside > 0 {
                format!(
                    "; {} more set aside, made before the incumbent's last improvement",
                    a.probes_set_aside
                )
            } else {
                String::new()
            }
        )),
        if a.exact {
            Line::new("nodes", "1").note("exact: the root has no children")
        } else {
            Line::new("nodes", pm(&estimate.nodes)).note("mean ± standard error over the probes")
        },
    ];
    if estimate.units.mean() != estimate.nodes.mean() {
        lines.push(Line::new("work units", pm(&estimate.units)).note(report.unit));
    }
    lines.push(
        Line::new(
            "sequential",
            format!("{} ± {}", human_secs(estimate.seconds.mean()), percent(&estimate.seconds)),
        )
        .note("each expansion's measured time, weighted like the nodes"),
    );
    lines.push(Line::new("deepest probe", format!("{} levels", a.max_depth)));
    lines.push(match (a.incumbent, &a.pruning) {
        (None, Some(p)) => Line::new("pruning", &p.value).note(p.note.clone()),
        (Some(v), _) => Line::new("incumbent", v).note(format!(
            "the estimated tree is the one this {} prunes",
            if sense == Sense::Maximize {
                "lower bound on the maximum"
            } else {
                "upper bound on the minimum"
            }
        )),
        (None, None) => {
            Line::new("incumbent", "none").note("no solution known: the tree is pruned by the bounds alone")
        }
    });
    if rough {
        lines.push(Line::new("caution", "rough").note(
            "few probes or a large standard error: the rare deep probes that carry the sum may not have come up yet; probe longer",
        ));
    }
    writeln!(out, "{}", report.title)?;
    let width = lines.iter().map(|l| l.label.len()).max().unwrap_or(0);
    for l in &lines {
        match &l.note {
            Some(note) => writeln!(out, "  {:<width$}  {}  ({note})", l.label, l.value)?,
            None => writeln!(out, "  {:<width$}  {}", l.label, l.value)?,
        }
    }
    Ok(())
}

/// A count in scientific notation with three significant digits
/// (`3.22e9`), or plainly below 10⁶.
fn sci(x: f64) -> String {
    if x < 1e6 { format!("{x:.0}") } else { format!("{x:.2e}") }
}

/// The standard error as a percentage of the mean.
fn percent(m: &Mean) -> String {
    format!("{:.1} %", 100.0 * m.relative_error())
}

/// Seconds as `6741 s (1 h 52 min)`.
fn human_secs(s: f64) -> String {
    let whole = s.round() as u64;
    match whole {
        0..60 => format!("{s:.3} s"),
        60..3600 => format!("{s:.0} s ({} min {} s)", whole / 60, whole % 60),
        _ => format!("{s:.0} s ({} h {} min)", whole / 3600, whole % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_for_people() {
        assert_eq!(sci(12_345.4), "12345");
        assert_eq!(sci(3.2196e9), "3.22e9");
        assert_eq!(human_secs(0.0862), "0.086 s");
        assert_eq!(human_secs(754.0), "754 s (12 min 34 s)");
        assert_eq!(human_secs(6741.0), "6741 s (1 h 52 min)");
    }
}
