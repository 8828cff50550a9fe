//! What the branch-and-bound applications ([`crate::clique`],
//! [`crate::knapsack`], [`crate::tsp`]) count while they search.
//!
//! Their answer lives in the search's [`treelb::Incumbent`]; the output that
//! the runtime merges over the PEs is only these counters. A node taken off
//! the stack is either *branched* (it was expanded: it pushed children or
//! offered a solution) or *pruned* (its bound — inherited from its parent,
//! or computed when it was taken — could not beat the incumbent, or its
//! constraints admit no solution). Both are one unit of work for the
//! runtime, so `branched + pruned` equals the run's work units.
//!
//! The counts depend on the schedule (the search anomalies described in
//! [`treelb::incumbent`]): a parallel run may branch on more or fewer nodes
//! than the sequential one. The optimum does not.

use std::fmt;

use serde::{Deserialize, Serialize};
use treelb::Reduce;

/// A branch-and-bound search whose open nodes carry a bound: the library's
/// trait (see [`treelb::bound`] for what a stopped run proves with it).
pub use treelb::bound::NodeBound;

/// Node counters of a branch-and-bound run, merged by addition.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BnbStats {
    /// Nodes that were expanded: their bound could beat the incumbent when
    /// they were taken off the stack.
    pub branched: u64,
    /// Nodes discarded when taken off the stack: their bound could not beat
    /// the incumbent, they admit no solution, or the decision was already
    /// made.
    pub pruned: u64,
}

impl BnbStats {
    /// All nodes taken off the stack: branched and pruned.
    pub fn nodes(&self) -> u64 {
        self.branched + self.pruned
    }
}

impl Reduce for BnbStats {
    #[inline]
    fn merge(&mut self, other: Self) {
        self.branched += other.branched;
        self.pruned += other.pruned;
    }
}

impl fmt::Display for BnbStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} nodes branched, {} pruned", self.branched, self.pruned)
    }
}
