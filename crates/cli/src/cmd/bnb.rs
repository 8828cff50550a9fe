//! What the branch-and-bound subcommands (`clique`, `knapsack`, `tsp`)
//! share: node-count lines, and the optional sequential run whose node count
//! and time are reported beside the parallel ones (search anomalies).

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;
use serde::de::DeserializeOwned;
use treelb::bound::{NodeBound, ProvenBound};
use treelb::{Incumbent, Search, Sense};
use treelb_apps::bnb::BnbStats;

use crate::config::{Error, RunConfig};
use crate::report::Line;

/// What a branch-and-bound run reports besides its answer: whether the
/// answer is proven optimal, the proven bound and gap of an interrupted
/// run, and the timeline of improvements.
#[derive(Debug, Serialize)]
pub(crate) struct Proof {
    /// The value is the optimum: the search ran to its end, or every open
    /// node it dropped when stopped had a bound no better than it.
    pub(crate) proven_optimal: bool,
    /// The best bound on the optimum proven by the run (an upper bound when
    /// maximizing, a lower bound when minimizing); `None` when a dropped
    /// node had no bound yet.
    pub(crate) bound: Option<i64>,
    /// |bound − value| / |value|, as a fraction (0 when proven optimal).
    pub(crate) gap: Option<f64>,
    /// `--deterministic`: ties were broken by the smallest witness.
    pub(crate) deterministic: bool,
    /// Every improvement of the incumbent, in order: seconds since the
    /// search started and the value (the first at 0 s is the heuristic's
    /// starting solution, if any).
    pub(crate) improvements: Vec<Improvement>,
}

/// One improvement of the incumbent.
#[derive(Clone, Copy, Debug, Serialize)]
pub(crate) struct Improvement {
    pub(crate) secs: f64,
    pub(crate) value: i64,
}

impl Proof {
    /// The line of the answer's value: `name value`, noted as proven or as
    /// "best found … (not proven optimal; bound ≤ …, gap …)".
    pub(crate) fn value_line(&self, name: &'static str, value: Option<i64>, sense: Sense) -> Line {
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

/// The live display of improvements: one line on stderr per improvement
/// (unless `--json` or `--no-progress`), and the timeline for the report.
#[derive(Clone)]
pub(crate) struct Live {
    start: Instant,
    print: bool,
    timeline: Arc<Mutex<Vec<Improvement>>>,
}

impl Live {
    fn new(cfg: &RunConfig) -> Self {
        Live { start: Instant::now(), print: cfg.feedback.on(), timeline: Arc::default() }
    }

    /// Records `value` if it improves on the last one recorded (observers
    /// run on the PEs' threads, and improvements made at about the same
    /// time may arrive out of order).
    fn seen(&self, value: i64, sense: Sense) {
        let secs = self.start.elapsed().as_secs_f64();
        let mut timeline = self.timeline.lock().unwrap_or_else(|e| e.into_inner());
        let better = timeline.last().is_none_or(|last| match sense {
            Sense::Maximize => value > last.value,
            Sense::Minimize => value < last.value,
        });
        if better {
            timeline.push(Improvement { secs, value });
            if self.print {
                eprintln!("treelb: incumbent {value} at {secs:.3} s");
            }
        }
    }

    /// Starts watching `incumbent`: its current value, then every
    /// improvement.
    pub(crate) fn watch<T>(&self, incumbent: &Incumbent<T>) {
        let sense = incumbent.sense();
        if let Some(v) = incumbent.best() {
            self.seen(v, sense);
        }
        let me = self.clone();
        incumbent.observe(move |v| me.seen(v, sense));
    }

    fn timeline(&self) -> Vec<Improvement> {
        self.timeline.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// The end of a branch-and-bound run: the runtime's and the proof.
pub(crate) struct BnbRan {
    pub(crate) ran: crate::run::Ran<BnbStats>,
    pub(crate) proof: Proof,
}

/// Runs a branch-and-bound search whose answer is in `incumbent` (a field of
/// the search): on the threads runtime, or across MPI ranks with `--runtime
/// mpi`, where the ranks broadcast improvements and rank 0's `incumbent`
/// ends up holding the best of all ranks. `None` on the other ranks, which
/// print nothing.
///
/// With `--deterministic` the incumbent breaks ties by the witness (see
/// [`treelb::incumbent`]); improvements are shown as they happen (on MPI,
/// at rank 0 as they reach it); a stopped run reports the proven bound.
/// `unit` names the search's units of work ([`Search::cost`]) in
/// the progress line.
pub(crate) fn run<S>(
    search: &S,
    incumbent: &Incumbent<Vec<u32>>,
    cfg: &RunConfig,
    unit: &'static str,
) -> Result<Option<BnbRan>, Error>
where
    S: NodeBound<Output = BnbStats>,
    S::Node: Clone + Serialize + DeserializeOwned,
{
    if cfg.deterministic {
        incumbent.break_ties();
    }
    let live = Live::new(cfg);
    // The process that prints the report shows the improvements as they
    // come (across ranks, as they reach rank 0).
    let Some((ran, bound)) = crate::run::bnb(search, incumbent, cfg, unit, || live.watch(incumbent))? else {
        return Ok(None);
    };
    let ProvenBound { proven_optimal, bound, gap } = bound;
    let proof =
        Proof { proven_optimal, bound, gap, deterministic: cfg.deterministic, improvements: live.timeline() };
    Ok(Some(BnbRan { ran, proof }))
}

/// A sequential run of the same search, for comparison.
#[derive(Debug, Serialize)]
pub(crate) struct Sequential {
    pub(crate) wall_secs: f64,
    pub(crate) branched: u64,
    pub(crate) pruned: u64,
}

/// Runs `search` with `treelb::seq::run_search` and times it.
pub(crate) fn sequential<S: Search<Output = BnbStats>>(search: &S) -> Sequential {
    let start = Instant::now();
    let (stats, _) = treelb::seq::run_search(search);
    Sequential { wall_secs: start.elapsed().as_secs_f64(), branched: stats.branched, pruned: stats.pruned }
}

/// The node counts of the run, and of the sequential run if there was one.
pub(crate) fn node_lines(stats: &BnbStats, seq: Option<&Sequential>) -> Vec<Line> {
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

/// A list of 1-based numbers, space-separated.
pub(crate) fn one_based(items: &[u32]) -> String {
    items.iter().map(|v| (v + 1).to_string()).collect::<Vec<_>>().join(" ")
}
