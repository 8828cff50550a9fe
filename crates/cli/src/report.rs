//! The report of a run ([`treelb_apps::report::Report`], made from the
//! command's options and the library's outcome) written as a
//! human-readable summary with a per-PE table ([`Report::text`]), or as
//! JSON.

use std::io::{self, Write};
use std::time::Duration;

use serde::Serialize;
use treelb::RunStats;
use treelb::limit::StopReason;
use treelb_apps::report::{Answered, Report, RunSetup};

use crate::config::RunConfig;

/// How the run of `cfg` was configured, as reported.
pub(crate) fn setup(cfg: &RunConfig) -> RunSetup {
    RunSetup {
        max_nodes: cfg.max_nodes,
        time_limit_secs: cfg.time_limit.map(|t| t.as_secs_f64()),
        deterministic: cfg.deterministic,
        ..RunSetup::new(cfg.kind.name(), cfg.threads, &cfg.spec, cfg.split_policy)
    }
}

/// The report of a run of `cfg` that `answered` (see [`Report::new`]),
/// stopped by `stopped` if anything stopped it.
pub(crate) fn report<I: Serialize, A: Serialize>(
    app: &'static str,
    answered: Answered<I, A>,
    unit: &'static str,
    cfg: &RunConfig,
    stats: RunStats,
    stopped: Option<StopReason>,
) -> Report<I, A> {
    let stopped_by = stopped.is_some().then(|| stop_reason(cfg, stopped));
    Report::new(app, answered, unit, setup(cfg), stats, stopped_by)
}

/// Writes `report` as JSON (`json`) or as text for people.
pub(crate) fn write<I: Serialize, A: Serialize>(
    report: &Report<I, A>,
    json: bool,
    out: &mut impl Write,
) -> io::Result<()> {
    if json {
        serde_json::to_writer_pretty(&mut *out, report)?;
        return writeln!(out);
    }
    write!(out, "{}", report.text())
}

/// What stopped an interrupted run, for its report, in the command line's
/// words: a signal, the time limit, or the cap on the units of work.
pub(crate) fn stop_reason(cfg: &RunConfig, stopped: Option<StopReason>) -> String {
    match stopped {
        Some(StopReason::Signal) => "a signal (Ctrl-C or SIGTERM)".to_owned(),
        Some(StopReason::Deadline) => {
            cfg.time_limit.map_or("the deadline".to_owned(), |t| format!("--time-limit {}", seconds(t)))
        }
        Some(StopReason::WorkCap) => {
            cfg.max_nodes.map_or("the cap on the work".to_owned(), |n| format!("--max-nodes {n}"))
        }
        Some(StopReason::Requested) | None => "a stop".to_owned(),
    }
}

/// A duration as seconds, e.g. `0.25 s`.
fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}
