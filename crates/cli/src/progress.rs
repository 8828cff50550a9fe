//! A progress indicator on stderr for runs longer than a second.
//!
//! It appears only when stderr is a terminal, and only once a run has taken
//! a second, so short runs and redirected output stay clean.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use treelb_threads::Snapshot;

const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Shows work done so far: a bar when the total is known, else a counter.
pub(crate) struct Progress {
    enabled: bool,
    total: Option<u64>,
    unit: &'static str,
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A progress indicator for a run of `total` units (if known) of `unit`.
    pub(crate) fn new(wanted: bool, total: Option<u64>, unit: &'static str) -> Self {
        Progress { enabled: wanted && std::io::stderr().is_terminal(), total, unit, bar: None }
    }

    /// Updates the display from a snapshot of the run.
    pub(crate) fn update(&mut self, snap: &Snapshot) {
        if !self.enabled || snap.elapsed < SHOW_AFTER {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let (bar, template) = match self.total {
                Some(total) => (
                    ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr()),
                    format!("{{elapsed_precise}} [{{bar:30}}] {{human_pos}}/{{human_len}} {} ({{per_sec}}, eta {{eta}})", self.unit),
                ),
                None => (
                    ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
                    format!("{{elapsed_precise}} {{spinner}} {{human_pos}} {} ({{per_sec}})", self.unit),
                ),
            };
            bar.set_style(ProgressStyle::with_template(&template).expect("valid template"));
            bar
        });
        bar.set_position(snap.work_units);
    }

    /// Removes the indicator before the report is printed.
    pub(crate) fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}
