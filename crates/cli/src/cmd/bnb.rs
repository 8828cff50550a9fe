//! What the branch-and-bound subcommands (`clique`, `knapsack`, `tsp`)
//! share: node-count lines, and the optional sequential run whose node count
//! and time are reported beside the parallel ones (search anomalies).

use std::time::Instant;

use serde::Serialize;
use serde::de::DeserializeOwned;
use treelb::{Incumbent, Search};
use treelb_apps::bnb::BnbStats;

use crate::config::{Error, RunConfig};
use crate::report::Line;

/// Runs a branch-and-bound search whose answer is in `incumbent` (a field of
/// the search): on the threads runtime, or across MPI ranks with `--runtime
/// mpi`, where the ranks broadcast improvements and rank 0's `incumbent`
/// ends up holding the best of all ranks. `None` on the other ranks, which
/// print nothing.
pub(crate) fn run<S>(
    search: &S,
    incumbent: &Incumbent<Vec<u32>>,
    cfg: &RunConfig,
) -> Result<Option<super::Ran<BnbStats>>, Error>
where
    S: Search<Output = BnbStats>,
    S::Node: Clone + Serialize + DeserializeOwned,
{
    super::run_resumable(search, Some(incumbent), cfg, None, "nodes")
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
