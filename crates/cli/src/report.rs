//! The report of a run: a human-readable summary with a per-PE table, or the
//! same content as JSON.

use std::io::{self, Write};
use std::time::Duration;

use comfy_table::{Cell, CellAlignment, Table, presets::UTF8_FULL_CONDENSED};
use serde::Serialize;
use treelb::limit::StopReason;
use treelb::{MIN_MEASURED_WALL, PeStats, RunStats};
use treelb_apps::input::escape_text;
use treelb_bench::host::Processor;

use crate::config::RunConfig;

/// How the run was configured, as reported.
#[derive(Debug, Serialize)]
pub(crate) struct RunSetup {
    pub(crate) runtime: &'static str,
    pub(crate) threads: usize,
    pub(crate) budget: u64,
    pub(crate) strategy: String,
    pub(crate) init: String,
    pub(crate) split_policy: String,
    pub(crate) seed: u64,
    /// `--max-nodes`: the limit on the units of work, if any.
    pub(crate) max_nodes: Option<u64>,
    /// `--time-limit`, in seconds, if any.
    pub(crate) time_limit_secs: Option<f64>,
    /// `--deterministic` (branch and bound).
    pub(crate) deterministic: bool,
}

impl RunSetup {
    pub(crate) fn new(cfg: &RunConfig) -> Self {
        let c = &cfg.spec;
        RunSetup {
            runtime: cfg.kind.name(),
            threads: cfg.threads,
            budget: c.budget.get(),
            strategy: c.strategy.to_string(),
            init: c.init.to_string(),
            split_policy: cfg.split_policy.to_string(),
            seed: c.seed,
            max_nodes: cfg.max_nodes,
            time_limit_secs: cfg.time_limit.map(|t| t.as_secs_f64()),
            deterministic: cfg.deterministic,
        }
    }
}

/// One line of the answer: a label and a value (and an optional note).
#[derive(Debug, Serialize)]
pub(crate) struct Line {
    pub(crate) label: &'static str,
    pub(crate) value: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) note: Option<String>,
}

impl Line {
    pub(crate) fn new(label: &'static str, value: impl ToString) -> Self {
        Line { label, value: value.to_string(), note: None }
    }

    pub(crate) fn note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }
}

/// Everything a run reports.
#[derive(Debug, Serialize)]
pub(crate) struct Report<I: Serialize, A: Serialize> {
    /// The application: "uts", "nqueens".
    pub(crate) app: &'static str,
    /// A one-line description of the instance.
    pub(crate) title: String,
    /// The instance's parameters.
    pub(crate) instance: I,
    /// The answer, as data.
    pub(crate) answer: A,
    /// The answer, as lines for people (not in the JSON).
    #[serde(skip)]
    pub(crate) lines: Vec<Line>,
    /// The unit of work ("nodes").
    pub(crate) unit: &'static str,
    /// `--max-nodes`, `--time-limit` or a signal stopped the run before its
    /// work was done: the answer is partial.
    pub(crate) interrupted: bool,
    /// What stopped it, if it was interrupted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) stopped_by: Option<String>,
    pub(crate) setup: RunSetup,
    pub(crate) wall_secs: f64,
    pub(crate) work_units: u64,
    pub(crate) units_per_sec: f64,
    /// The PEs' utilization, Σ CPU time while busy / (P · wall)
    /// ([`RunStats::utilization`]).
    pub(crate) utilization: f64,
    /// Whether the run lasted long enough for `utilization` to mean
    /// something ([`RunStats::measurable`]); a shorter run's text report
    /// says "too short to measure" instead.
    pub(crate) measurable: bool,
    pub(crate) pes: Vec<PeStats>,
    /// `--compare-seq`: the sequential run's wall time, in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) sequential_secs: Option<f64>,
    /// `--compare-seq`: T_seq / T_P (`null` where either run was too short
    /// to measure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) speedup: Option<Option<f64>>,
    /// The processor of the process that printed the report (with MPI,
    /// rank 0's). A run resumed from a checkpoint reports its last
    /// segment's; each segment stopped by a signal printed its own.
    pub(crate) machine: Processor,
}

impl<I: Serialize, A: Serialize> Report<I, A> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        app: &'static str,
        title: String,
        instance: I,
        answer: A,
        lines: Vec<Line>,
        unit: &'static str,
        cfg: &RunConfig,
        stats: RunStats,
        stopped: Option<StopReason>,
    ) -> Self {
        let interrupted = stopped.is_some();
        Report {
            app,
            title,
            instance,
            answer,
            lines,
            unit,
            interrupted,
            stopped_by: interrupted.then(|| stop_reason(cfg, stopped)),
            // The PEs that ran (with MPI: ranks × threads per rank).
            setup: RunSetup { threads: stats.pes.len(), ..RunSetup::new(cfg) },
            wall_secs: stats.wall.as_secs_f64(),
            work_units: stats.work_units(),
            units_per_sec: stats.units_per_sec(),
            utilization: stats.utilization(),
            measurable: stats.measurable(),
            pes: stats.pes,
            sequential_secs: None,
            speedup: None,
            machine: Processor::detect(),
        }
    }

    /// The report of a run whose sequential time is known (`--compare-seq`):
    /// it gives the speedup T_seq / T_P too, where both runs lasted at least
    /// [`MIN_MEASURED_WALL`].
    pub(crate) fn with_sequential(mut self, seq_secs: Option<f64>) -> Self {
        if let Some(seq) = seq_secs {
            let measurable = seq.min(self.wall_secs) >= MIN_MEASURED_WALL.as_secs_f64();
            self.sequential_secs = Some(seq);
            self.speedup = Some(measurable.then(|| seq / self.wall_secs));
        }
        self
    }

    /// Writes the report as JSON (`json`) or as text for people.
    pub(crate) fn write(&self, json: bool, out: &mut impl Write) -> io::Result<()> {
        if json {
            serde_json::to_writer_pretty(&mut *out, self)?;
            return writeln!(out);
        }
        // A title, value or note may hold a name or a path from the
        // command line or a file: control characters are shown escaped.
        writeln!(out, "{}", escape_text(&self.title))?;
        let width = self.lines.iter().map(|l| l.label.len()).max().unwrap_or(0).max(12);
        let mut line = |label: &str, value: &str, note: Option<&str>| -> io::Result<()> {
            let value = escape_text(value);
            match note.map(escape_text) {
                Some(note) => writeln!(out, "  {label:<width$}  {value}  ({note})"),
                None => writeln!(out, "  {label:<width$}  {value}"),
            }
        };
        if self.interrupted {
            let by = self.stopped_by.as_deref().unwrap_or("a stop");
            let note = format!(
                "stopped by {by} after {} {}: every answer below is partial",
                self.work_units, self.unit
            );
            line("INTERRUPTED", "yes", Some(&note))?;
        }
        for l in &self.lines {
            line(l.label, &l.value, l.note.as_deref())?;
        }
        line("wall time", &format!("{:.3} s", self.wall_secs), None)?;
        line(&format!("{}/s", self.unit), &human_rate(self.units_per_sec), None)?;
        match self.speedup {
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
        if self.measurable {
            line(
                "utilization",
                &format!("{:.3}", self.utilization),
                Some("CPU time busy / (P × wall time)"),
            )?;
        } else {
            let note = format!(
                "under {} ms, starting and stopping the PEs weigh too much",
                MIN_MEASURED_WALL.as_millis()
            );
            line("utilization", "too short to measure", Some(&note))?;
        }
        let s = &self.setup;
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
        line("machine", &self.machine.to_string(), None)?;
        writeln!(out)?;
        writeln!(out, "{}", pe_table(&self.pes, self.unit))
    }
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
