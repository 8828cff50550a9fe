//! A run's progress for people, without the drawing: where it is shown
//! ([`Feedback`]: a terminal, plain lines for a log, or nothing), what a
//! line says ([`Progress::status`]: the time, the work done of the total,
//! the rate and the time left) and when plain lines come (at growing
//! intervals — 1 s, 2 s, 5 s, 10 s, 30 s, then every minute — so that the
//! log of a long run stays short). The callback of
//! [`Run::observe`](crate::Run::observe) gets the [`Snapshot`]s.
//!
//! ```
//! use std::time::Duration;
//! use treelb_run::Snapshot;
//! use treelb_run::progress::Progress;
//!
//! let mut progress = Progress::new(Some(2_000_000), "nodes");
//! let snap = Snapshot { elapsed: Duration::from_secs(1), work_units: 1_000_000 };
//! assert!(progress.line_due(&snap));
//! assert_eq!(progress.status(&snap), "1.0 s: 1.00 M/2.00 M nodes (1.00 M/s, eta 1 s)");
//! assert!(!progress.line_due(&snap)); // the next one at 2 s
//! ```

use treelb_files::text::human_rate;

use crate::Snapshot;

/// When the plain lines come, in seconds since the start; after the last,
/// every minute.
const LINE_TIMES: [u64; 6] = [1, 2, 5, 10, 30, 60];

/// Where a run shows its progress while it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feedback {
    /// Nothing: asked for silence, or the output is not a terminal.
    Off,
    /// A display that redraws itself: the output is a terminal.
    Terminal,
    /// Plain lines that a log keeps: asked for where the output is not a
    /// terminal.
    Lines,
}

impl Feedback {
    /// Progress on a terminal only, as cargo and ripgrep do, unless
    /// `silent`; plain lines where the output is no terminal if `asked`.
    ///
    /// ```
    /// use treelb_run::progress::Feedback;
    /// assert_eq!(Feedback::decide(false, false, true), Feedback::Terminal);
    /// assert_eq!(Feedback::decide(false, true, false), Feedback::Lines);
    /// assert_eq!(Feedback::decide(true, true, true), Feedback::Off);
    /// ```
    pub fn decide(silent: bool, asked: bool, terminal: bool) -> Feedback {
        match (silent, asked, terminal) {
            (true, _, _) => Feedback::Off,
            (false, _, true) => Feedback::Terminal,
            (false, true, false) => Feedback::Lines,
            (false, false, false) => Feedback::Off,
        }
    }

    /// Whether anything is shown.
    pub fn on(self) -> bool {
        self != Feedback::Off
    }
}

/// The progress of one run of `total` units (where known) of `unit`.
#[derive(Clone, Debug)]
pub struct Progress {
    total: Option<u64>,
    unit: &'static str,
    /// The time of the next plain line, in seconds.
    next_line: u64,
}

impl Progress {
    /// The progress of a run of `total` units (if known) of `unit`.
    pub fn new(total: Option<u64>, unit: &'static str) -> Self {
        Progress { total, unit, next_line: LINE_TIMES[0] }
    }

    /// The total, if known.
    pub fn total(&self) -> Option<u64> {
        self.total
    }

    /// The unit of work.
    pub fn unit(&self) -> &'static str {
        self.unit
    }

    /// The line that says a run of this many units started on `pes` PEs
    /// under `strategy`: `started a run of 4130071 nodes on 2 PEs
    /// (random-polling)`.
    pub fn started(&self, pes: usize, strategy: impl std::fmt::Display) -> String {
        let total = self.total.map_or_else(String::new, |t| format!(" of {t} {}", self.unit));
        format!("started a run{total} on {pes} {} ({strategy})", if pes == 1 { "PE" } else { "PEs" })
    }

    /// Whether a plain line is due at `snap`; if so, the next one is
    /// scheduled.
    pub fn line_due(&mut self, snap: &Snapshot) -> bool {
        let secs = snap.elapsed.as_secs();
        if secs < self.next_line {
            return false;
        }
        let i = LINE_TIMES.iter().position(|&t| t > secs);
        self.next_line = i.map_or(secs / 60 * 60 + 60, |i| LINE_TIMES[i]);
        true
    }

    /// `12.0 s: 4.13 M/4.13 M nodes (3.40 M/s, eta 0 s)`.
    pub fn status(&self, snap: &Snapshot) -> String {
        let secs = snap.elapsed.as_secs_f64();
        let done = human_rate(snap.work_units as f64);
        let total = self.total.map_or_else(String::new, |t| format!("/{}", human_rate(t as f64)));
        format!("{secs:.1} s: {done}{total} {} ({})", self.unit, self.rate(snap))
    }

    /// The rate over the whole run, and the time left where the total is
    /// known: `3.40 M/s, eta 12 s`.
    pub fn rate(&self, snap: &Snapshot) -> String {
        let rate = snap.work_units as f64 / snap.elapsed.as_secs_f64().max(1e-9);
        let eta = match self.total {
            Some(total) if rate > 0.0 && total > snap.work_units => {
                format!(", eta {:.0} s", (total - snap.work_units) as f64 / rate)
            }
            _ => String::new(),
        };
        format!("{}/s{eta}", human_rate(rate))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn plain_lines_come_at_growing_intervals_then_every_minute() {
        let mut p = Progress::new(None, "nodes");
        let at = |secs| Snapshot { elapsed: Duration::from_secs(secs), work_units: 0 };
        let due: Vec<u64> = (0..200).filter(|&s| p.line_due(&at(s))).collect();
        assert_eq!(due, [1, 2, 5, 10, 30, 60, 120, 180]);
        assert_eq!(p.status(&at(4)), "4.0 s: 0 nodes (0/s)");
        assert_eq!(p.started(1, "max-load"), "started a run on 1 PE (max-load)");
    }

    #[test]
    fn feedback_is_shown_on_a_terminal_or_when_asked() {
        assert_eq!(Feedback::decide(false, false, true), Feedback::Terminal);
        assert_eq!(Feedback::decide(false, false, false), Feedback::Off);
        assert_eq!(Feedback::decide(false, true, false), Feedback::Lines);
        assert_eq!(Feedback::decide(false, true, true), Feedback::Terminal);
        assert_eq!(Feedback::decide(true, false, true), Feedback::Off);
        assert!(!Feedback::Off.on() && Feedback::Lines.on());
    }
}
