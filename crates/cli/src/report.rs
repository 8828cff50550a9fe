//! The report of a run ([`treelb_apps::report::Report`], made from the
//! command's options and the library's outcome) written as a
//! human-readable summary with a per-PE table, or as JSON.

use std::io::{self, Write};
use std::time::Duration;

use comfy_table::{Cell, CellAlignment, Table, presets::UTF8_FULL_CONDENSED};
use serde::Serialize;
use treelb::limit::StopReason;
use treelb::{MIN_MEASURED_WALL, PeStats, RunStats};
use treelb_apps::input::escape_text;
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
    // A title, value or note may hold a name or a path from the
    // command line or a file: control characters are shown escaped.
    writeln!(out, "{}", escape_text(&report.title))?;
    let width = report.lines.iter().map(|l| l.label.len()).max().unwrap_or(0).max(12);
    let mut line = |label: &str, value: &str, note: Option<&str>| -> io::Result<()> {
        let value = escape_text(value);
        match note.map(escape_text) {
            Some(note) => writeln!(out, "  {label:<width$}  {value}  ({note})"),
            None => writeln!(out, "  {label:<width$}  {value}"),
        }
    };
    if report.interrupted {
        let by = report.stopped_by.as_deref().unwrap_or("a stop");
        let note = format!(
            "stopped by {by} after {} {}: every answer below is partial",
            report.work_units, report.unit
        );
        line("INTERRUPTED", "yes", Some(&note))?;
    }
    for l in &report.lines {
        line(l.label, &l.value, l.note.as_deref())?;
    }
    line("wall time", &format!("{:.3} s", report.wall_secs), None)?;
    line(&format!("{}/s", report.unit), &human_rate(report.units_per_sec), None)?;
    match report.speedup {
        Some(Some(speedup)) => line(
            "speedup",
            &format!("{speedup:.3}"),
            Some("T_seq / T_P: the sequential run's time over this one's"),
        )?,
        Some(None) => line(
            "speedup",
            "too short to measure",
            Some(&format!("T_seq or T_P under {} ms", MIN_MEASURED_WALL.as_millis())),
        )?,
        None => {}
    }
    if report.measurable {
        line("utilization", &format!("{:.3}", report.utilization), Some("CPU time busy / (P × wall time)"))?;
    } else {
        let note = format!(
            "under {} ms, starting and stopping the PEs weigh too much",
            MIN_MEASURED_WALL.as_millis()
        );
        line("utilization", "too short to measure", Some(&note))?;
    }
    let s = &report.setup;
    line(
        "run",
        &format!(
            "{} {} · Δt {} · {} · init {} · split {} · seed {}",
            s.threads,
            if s.runtime == "mpi" { "MPI PEs" } else { "threads" },
            s.budget,
            s.strategy,
            s.init,
            s.split_policy,
            s.seed
        ),
        None,
    )?;
    line("machine", &report.machine.to_string(), None)?;
    writeln!(out)?;
    writeln!(out, "{}", pe_table(&report.pes, report.unit))
}

/// A rate like `4.91 M`.
pub(crate) fn human_rate(x: f64) -> String {
    match x {
        x if x >= 1e9 => format!("{:.2} G", x / 1e9),
        x if x >= 1e6 => format!("{:.2} M", x / 1e6),
        x if x >= 1e3 => format!("{:.2} k", x / 1e3),
        x => format!("{x:.0}"),
    }
}

/// The per-PE statistics table, with a total row.
pub(crate) fn pe_table(pes: &[PeStats], unit: &str) -> Table {
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED);
    table.set_header([
        "PE",
        unit,
        "busy %",
        "req sent",
        "req failed",
        "req recv",
        "splits",
        "pieces sent",
        "pieces recv",
        "busy s",
        "cpu s",
        "idle s",
    ]);
    let mut total = PeStats::default();
    let row = |name: String, p: &PeStats| {
        [
            name,
            p.work_units.to_string(),
            format!("{:.1}", 100.0 * p.busy_fraction()),
            p.requests_sent.to_string(),
            p.requests_failed.to_string(),
            p.requests_received.to_string(),
            p.splits.to_string(),
            p.pieces_sent.to_string(),
            p.pieces_received.to_string(),
            format!("{:.3}", p.busy.as_secs_f64()),
            format!("{:.3}", p.cpu.as_secs_f64()),
            format!("{:.3}", p.idle.as_secs_f64()),
        ]
        .map(|s| Cell::new(s).set_alignment(CellAlignment::Right))
    };
    for p in pes {
        table.add_row(row(p.pe.to_string(), p));
        total.add(p);
    }
    if pes.len() > 1 {
        table.add_row(row("all".to_owned(), &total));
    }
    table
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
