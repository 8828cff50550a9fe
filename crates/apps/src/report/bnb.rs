//! What a branch-and-bound run reports besides its answer: whether the
//! answer is proven optimal, or the proven bound and gap of a stopped run
//! ([`Proof`]); the improvements of the incumbent over time
//! ([`Timeline`]); the node counts, and those of a sequential run of the
//! same search for comparison (search anomalies: [`Sequential`]).

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;
use treelb::bound::ProvenBound;
use treelb::{Incumbent, Search, Sense};

use super::Line;
use crate::bnb::BnbStats;

/// Whether the answer of a branch and bound is proven, the bound and gap of
/// an interrupted run, and the timeline of improvements.
#[derive(Debug, Serialize)]
pub struct Proof {
    /// The value is the optimum: the search ran to its end, or every open
    /// node it dropped when stopped had a bound no better than it.
    pub proven_optimal: bool,
    /// The best bound on the optimum proven by the run (an upper bound when
    /// maximizing, a lower bound when minimizing); `None` when a dropped
    /// node had no bound yet.
    pub bound: Option<i64>,
    /// |bound − value| / |value|, as a fraction (0 when proven optimal).
    pub gap: Option<f64>,
    /// Ties were broken by the smallest witness
    /// ([`Incumbent::break_ties`]).
    pub deterministic: bool,
    /// Every improvement of the incumbent, in order: seconds since the
    /// search started and the value (the first at 0 s is the heuristic's
    /// starting solution, if any).
    pub improvements: Vec<Improvement>,
}

/// One improvement of the incumbent.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Improvement {
    /// Seconds since the search started.
    pub secs: f64,
    /// The new value.
    pub value: i64,
}

impl Proof {
    /// The proof `bound` of a run (`treelb_run::Outcome::bound`), whose
    /// incumbent improved as `improvements` say; `deterministic`: it broke
    /// ties by the witness.
    pub fn new(bound: ProvenBound, deterministic: bool, improvements: Vec<Improvement>) -> Self {
        let ProvenBound { proven_optimal, bound, gap } = bound;
        Proof { proven_optimal, bound, gap, deterministic, improvements }
    }

    /// The proof of a minimization stopped before its search began, its
    /// root alone open with the bound `root` (`None`: unknown): what
    /// `incumbent` holds is proven against it; `initial`, the value of a
    /// solution found before the search, counts as found at 0 s.
    pub fn of_root<T>(
        root: Option<i64>,
        incumbent: &Incumbent<T>,
        deterministic: bool,
        initial: Option<i64>,
    ) -> Self {
        let open = treelb::bound::OpenBounds::new(Sense::Minimize);
        open.record(root);
        let improvements = initial.map(|value| Improvement { secs: 0.0, value }).into_iter().collect();
        Proof::new(open.prove_incumbent(incumbent, true), deterministic, improvements)
    }

    /// The line of the answer's value: `name value`, noted as proven or as
    /// "best found … (not proven optimal; bound ≤ …, gap …)".
    ///
    /// ```
    /// use treelb::Sense;
    /// use treelb::bound::ProvenBound;
    /// use treelb_apps::report::bnb::Proof;
    ///
    /// let open = ProvenBound { proven_optimal: false, bound: Some(30), gap: Some(0.25) };
    /// let line = Proof::new(open, false, Vec::new()).value_line("ω", Some(24), Sense::Maximize);
    /// assert_eq!(line.value, "best found 24");
    /// assert_eq!(line.note.as_deref(), Some("not proven optimal; bound ≤ 30, gap 25.0000 %"));
    /// ```
    pub fn value_line(&self, name: &'static str, value: Option<i64>, sense: Sense) -> Line {
        let shown = value.map_or_else(|| "none".to_owned(), |v| v.to_string());
        if self.proven_optimal {
            return Line::new(name, shown);
        }
        let rel = if sense == Sense::Maximize { "≤" } else { "≥" };
        let note = match (self.bound, self.gap) {
            (Some(b), Some(g)) => format!("not proven optimal; bound {rel} {b}, gap {:.4} %", 100.0 * g),
            (Some(b), None) => format!("not proven optimal; bound {rel} {b}"),
            _ => "not proven optimal; no bound: the search stopped before bounding the root".to_owned(),
        };
        Line::new(name, format!("best found {shown}")).note(note)
    }
}

/// The improvements of an incumbent over time, from when the timeline was
/// made: a clone shares them.
#[derive(Clone, Debug)]
pub struct Timeline {
    start: Instant,
    improvements: Arc<Mutex<Vec<Improvement>>>,
}

impl Default for Timeline {
    fn default() -> Self {
        Self::new()
    }
}

impl Timeline {
    /// An empty timeline whose clock starts now.
    pub fn new() -> Self {
        Timeline { start: Instant::now(), improvements: Arc::default() }
    }

    /// Starts watching `incumbent` (its one observer,
    /// [`Incumbent::observe`]): its current value, then every improvement,
    /// each also given to `seen` (to show it as it comes).
    ///
    /// ```
    /// use treelb::{Incumbent, Sense};
    /// use treelb_apps::report::bnb::Timeline;
    ///
    /// let best = Incumbent::with_solution(Sense::Maximize, 3, ());
    /// let timeline = Timeline::new();
    /// timeline.watch(&best, |_| {});
    /// best.offer(5, || ());
    /// let values: Vec<i64> = timeline.improvements().iter().map(|i| i.value).collect();
    /// assert_eq!(values, [3, 5]);
    /// ```
    pub fn watch<T>(&self, incumbent: &Incumbent<T>, seen: impl Fn(Improvement) + Send + Sync + 'static) {
        let sense = incumbent.sense();
        if let Some(v) = incumbent.best() {
            self.seen(v, sense, &seen);
        }
        let me = self.clone();
        incumbent.observe(move |v| me.seen(v, sense, &seen));
    }

    /// Records `value` if it improves on the last one recorded (observers
    /// run on the PEs' threads, and improvements made at about the same
    /// time may arrive out of order).
    fn seen(&self, value: i64, sense: Sense, seen: &impl Fn(Improvement)) {
        let secs = self.start.elapsed().as_secs_f64();
        let mut timeline = self.improvements.lock().unwrap_or_else(|e| e.into_inner());
        let better = timeline.last().is_none_or(|last| match sense {
            Sense::Maximize => value > last.value,
            Sense::Minimize => value < last.value,
        });
        if better {
            let improvement = Improvement { secs, value };
            timeline.push(improvement);
            seen(improvement);
        }
    }

    /// The improvements so far, in order.
    pub fn improvements(&self) -> Vec<Improvement> {
        self.improvements.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// A sequential run of the same search, for comparison.
#[derive(Debug, Serialize)]
pub struct Sequential {
    /// Its wall time.
    pub wall_secs: f64,
    /// The nodes it expanded.
    pub branched: u64,
    /// The nodes it pruned.
    pub pruned: u64,
}

impl Sequential {
    /// Runs `search` with [`treelb::seq::run_search`] and times it.
    pub fn run<S: Search<Output = BnbStats>>(search: &S) -> Self {
        let start = Instant::now();
        let (stats, _) = treelb::seq::run_search(search);
        Sequential {
            wall_secs: start.elapsed().as_secs_f64(),
            branched: stats.branched,
            pruned: stats.pruned,
        }
    }
}

/// The node counts of the run, and of the sequential run if there was one.
pub fn node_lines(stats: &BnbStats, seq: Option<&Sequential>) -> Vec<Line> {
    let mut lines = vec![
        Line::new("branched", stats.branched).note("nodes expanded"),
        Line::new("pruned", stats.pruned).note("nodes whose bound could not beat the incumbent"),
    ];
    if let Some(s) = seq {
        lines.push(
            Line::new("sequential", format!("{:.3} s", s.wall_secs))
                .note(format!("{} branched, {} pruned; the same search on one core", s.branched, s.pruned)),
        );
    }
    lines
}

/// A list of 0-based numbers (vertices, items, cities) written 1-based,
/// space-separated.
///
/// ```
/// assert_eq!(treelb_apps::report::bnb::one_based(&[0, 4, 2]), "1 5 3");
/// ```
pub fn one_based(items: &[u32]) -> String {
    items.iter().map(|v| (v + 1).to_string()).collect::<Vec<_>>().join(" ")
}

/// What a branch-and-bound run found besides its best solution: its node
/// counts, its proof, a sequential run's counts if one was made, and
/// whether a stop cut it short.
#[derive(Debug)]
pub struct Searched {
    /// The nodes branched and pruned by all PEs.
    pub stats: BnbStats,
    /// Whether the best solution is proven optimal, and the bound.
    pub proof: Proof,
    /// The sequential run of the same search, if one was made.
    pub sequential: Option<Sequential>,
    /// A limit or a signal stopped the run: the answer is partial.
    pub interrupted: bool,
}
