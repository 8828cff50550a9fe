//! Progress on stderr while a run runs.
//!
//! On a terminal, a bar (or a counter) that redraws itself, once the run
//! has taken a second, and is cleared before the report. Where stderr is
//! not a terminal, nothing, unless `--progress` asks for plain lines: one
//! when the run starts, then one at growing intervals (1 s, 2 s, 5 s, 10 s,
//! 30 s, then every minute), so that a log of a long run stays short
//! ([`treelb_run::progress`] says what and when). What stderr gets is
//! decided once, in [`Feedback`]. The simulator's long
//! commands show their phases instead ([`Phases`]).

use std::io::Write;
use std::sync::Once;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use treelb_sim::sweep::Observer;
use treelb_threads::Snapshot;

use treelb_run::progress::Feedback;

use crate::config::RunConfig;

const SHOW_AFTER: Duration = Duration::from_secs(1);

/// A bar (of `length` steps, or a spinner) drawn on stderr by `template`.
pub(crate) fn bar(length: Option<u64>, template: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(length, ProgressDrawTarget::stderr());
    bar.set_style(ProgressStyle::with_template(template).expect("valid template"));
    bar
}

/// Shows work done so far: a bar when the total is known, else a counter.
pub(crate) struct Progress {
    feedback: Feedback,
    /// What to say, and when ([`treelb_run::progress`]).
    text: treelb_run::progress::Progress,
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A progress indicator for a run of `total` units (if known) of `unit`.
    pub(crate) fn new(feedback: Feedback, total: Option<u64>, unit: &'static str) -> Self {
        Progress { feedback, text: treelb_run::progress::Progress::new(total, unit), bar: None }
    }

    /// Says, in plain lines, that the run has started (its signal handler is
    /// installed): once per process, not once per checkpointed segment.
    pub(crate) fn started(&self, cfg: &RunConfig) {
        static ONCE: Once = Once::new();
        if self.feedback != Feedback::Lines {
            return;
        }
        ONCE.call_once(|| {
            let line = self.text.started(cfg.threads, cfg.spec.strategy);
            let _ = writeln!(std::io::stderr(), "treelb: {line}");
        });
    }

    /// Updates the display from a snapshot of the run.
    pub(crate) fn update(&mut self, snap: &Snapshot) {
        match self.feedback {
            Feedback::Off => {}
            Feedback::Terminal => self.draw(snap),
            Feedback::Lines => {
                if self.text.line_due(snap) {
                    let _ = writeln!(std::io::stderr(), "treelb: {}", self.text.status(snap));
                }
            }
        }
    }

    /// The bar on a terminal, from the first second on.
    fn draw(&mut self, snap: &Snapshot) {
        if snap.elapsed < SHOW_AFTER {
            return;
        }
        let (total, unit) = (self.text.total(), self.text.unit());
        let bar = self.bar.get_or_insert_with(|| {
            let (length, template) = match total {
                Some(total) => (
                    Some(total),
                    format!("{{elapsed_precise}} [{{bar:30}}] {{human_pos}}/{{human_len}} {unit} {{msg}}"),
                ),
                None => (None, format!("{{elapsed_precise}} {{spinner}} {{human_pos}} {unit} {{msg}}")),
            };
            bar(length, &template).with_elapsed(snap.elapsed)
        });
        // The rate over the whole run: indicatif's own estimate would start
        // when the bar appears, a second into the run.
        bar.set_position(snap.work_units);
        bar.set_message(format!("({})", self.text.rate(snap)));
    }

    /// Removes the indicator before the report is printed.
    pub(crate) fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

/// A bar on stderr for the phases of a long simulator command (`treelb
/// sim reproduce`, `treelb sim ybwc`), and the lines of the sections it
/// finishes; the bar only where `enabled` (a terminal).
pub(crate) struct Phases {
    bar: Option<ProgressBar>,
    enabled: bool,
}

impl Phases {
    /// Bars if `enabled`; the sections' lines in any case.
    pub(crate) fn new(enabled: bool) -> Self {
        Phases { bar: None, enabled }
    }

    /// Removes the bar before the report is printed.
    pub(crate) fn finish(mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}

impl Observer for Phases {
    fn phase(&mut self, label: &str, total: u64) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
        if self.enabled {
            let b = bar(Some(total), "{elapsed_precise} {msg:>16} [{bar:30}] {pos}/{len}");
            b.set_message(label.to_owned());
            self.bar = Some(b);
        }
    }

    fn step(&mut self) {
        if let Some(b) = &self.bar {
            b.inc(1);
        }
    }

    fn section(&mut self, name: &str, wall: f64, cpu: Option<f64>) {
        let cpu = cpu.map_or(String::new(), |c| format!(", {c:.1} s CPU"));
        let line = format!("{wall:>7.1} s{cpu}  {name}");
        match &self.bar {
            Some(b) => b.println(line),
            None => eprintln!("{line}"),
        }
    }
}
