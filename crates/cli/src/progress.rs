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
            let (length, template) = match self.total {
                Some(total) => (
                    Some(total),
                    format!(
                        "{{elapsed_precise}} [{{bar:30}}] {{human_pos}}/{{human_len}} {} {{msg}}",
                        self.unit
                    ),
                ),
                None => {
                    (None, format!("{{elapsed_precise}} {{spinner}} {{human_pos}} {} {{msg}}", self.unit))
                }
            };
            let bar = ProgressBar::with_draw_target(length, ProgressDrawTarget::stderr())
                .with_elapsed(snap.elapsed);
            bar.set_style(ProgressStyle::with_template(&template).expect("valid template"));
            bar
        });
        // The rate over the whole run: indicatif's own estimate would start
        // when the bar appears, a second into the run.
        let secs = snap.elapsed.as_secs_f64();
        let rate = snap.work_units as f64 / secs;
        let eta = match self.total {
            Some(total) if rate > 0.0 && total > snap.work_units => {
                format!(", eta {:.0} s", (total - snap.work_units) as f64 / rate)
            }
            _ => String::new(),
        };
        bar.set_position(snap.work_units);
        bar.set_message(format!("({}/s{eta})", crate::report::human_rate(rate)));
    }

    /// Removes the indicator before the report is printed.
    pub(crate) fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}
