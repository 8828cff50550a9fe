//! A report for people: [`Report::text`], the summary `treelb` prints
//! without `--json`.

use std::fmt::Write as _;

use comfy_table::{Cell, CellAlignment, Table, presets::UTF8_FULL_CONDENSED};
use serde::Serialize;
use treelb::{MIN_MEASURED_WALL, PeStats};

use super::Report;
use crate::input::escape_text;
use treelb_files::text::human_rate;

impl<I: Serialize, A: Serialize> Report<I, A> {
    /// The report as text: the title, the answer's lines (and, first, a
    /// line saying the run was interrupted), the time, the rate, the
    /// speedup, the utilization, the run's setup, the machine and a table
    /// of what each PE did ([`pe_table`]).
    ///
    /// A title, value or note may hold a name or a path from a command
    /// line or a file: control characters are shown escaped.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{}", escape_text(&self.title));
        let width = self.lines.iter().map(|l| l.label.len()).max().unwrap_or(0).max(12);
        let mut line = |label: &str, value: &str, note: Option<&str>| {
            let value = escape_text(value);
            let _ = match note.map(escape_text) {
                Some(note) => writeln!(out, "  {label:<width$}  {value}  ({note})"),
                None => writeln!(out, "  {label:<width$}  {value}"),
            };
        };
        if self.interrupted {
            let by = self.stopped_by.as_deref().unwrap_or("a stop");
            let note = format!(
                "stopped by {by} after {} {}: every answer below is partial",
                self.work_units, self.unit
            );
            line("INTERRUPTED", "yes", Some(&note));
        }
        for l in &self.lines {
            line(l.label, &l.value, l.note.as_deref());
        }
        line("wall time", &format!("{:.3} s", self.wall_secs), None);
        line(&format!("{}/s", self.unit), &human_rate(self.units_per_sec), None);
        match self.speedup {
            Some(Some(speedup)) => line(
                "speedup",
                &format!("{speedup:.3}"),
                Some("T_seq / T_P: the sequential run's time over this one's"),
            ),
            Some(None) => line(
                "speedup",
                "too short to measure",
                Some(&format!("T_seq or T_P under {} ms", MIN_MEASURED_WALL.as_millis())),
            ),
            None => {}
        }
        if self.measurable {
            line("utilization", &format!("{:.3}", self.utilization), Some("CPU time busy / (P × wall time)"));
        } else {
            let note = format!(
                "under {} ms, starting and stopping the PEs weigh too much",
                MIN_MEASURED_WALL.as_millis()
            );
            line("utilization", "too short to measure", Some(&note));
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
        );
        line("machine", &self.machine.to_string(), None);
        let _ = writeln!(out);
        let _ = writeln!(out, "{}", pe_table(&self.pes, self.unit));
        out
    }
}

/// The statistics of each PE as a table, counting work in `unit`s, with a
/// total row where there are several PEs.
pub fn pe_table(pes: &[PeStats], unit: &str) -> String {
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
    table.to_string()
}

#[cfg(test)]
mod tests {
    use treelb::{RunSpec, RunStats, SplitPolicy};

    use super::*;
    use crate::report::{Answered, Line, RunSetup};

    #[test]
    fn an_interrupted_report_says_so_before_its_lines() {
        let answered = Answered {
            title: "a tree".to_owned(),
            instance: (),
            answer: 7,
            lines: vec![Line::new("nodes", 7).note("partial")],
            ok: true,
        };
        let setup = RunSetup::new("threads", 1, &RunSpec::default(), SplitPolicy::default());
        let stats = RunStats { wall: std::time::Duration::ZERO, pes: vec![PeStats::default()] };
        let report = Report::new("uts", answered, "nodes", setup, stats, Some("--max-nodes 5".to_owned()));
        let text = report.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "a tree");
        assert_eq!(
            lines[1],
            "  INTERRUPTED   yes  (stopped by --max-nodes 5 after 0 nodes: every answer below is partial)"
        );
        assert_eq!(lines[2], "  nodes         7  (partial)");
        assert!(text.contains("  utilization   too short to measure"), "{text}");
        assert!(text.contains("│ PE ┆ nodes ┆"), "{text}");
    }
}
