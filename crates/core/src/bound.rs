//! The proven bound of a branch and bound stopped early.
//!
//! A branch and bound that a deadline, a cap on its work or a signal stops
//! has a best solution (its [`Incumbent`]) but no proof that it is
//! optimal. What it did not explore lies in the subtrees of the nodes that
//! were still open when it stopped; a search whose nodes carry a bound
//! ([`NodeBound`]) bounds everything in them. The best of those bounds and
//! the incumbent is a *proven* bound on the optimum, and the gap between it
//! and the incumbent says how far from optimal the answer can be.
//!
//! [`Watched`] wraps a search's piece of work and records, when the piece is
//! dropped with open nodes after the run's [`Limit`] was reached, the bounds
//! of those nodes in an [`OpenBounds`]; [`OpenBounds::prove`] then gives the
//! [`ProvenBound`] of the run.
//!
//! **Why the recorded bound is proven.** Every node of the tree is
//! expanded, pruned (its bound could not beat the incumbent of the time,
//! which only improves), or lies in the subtree of a node that some piece
//! held open when the run stopped. Every piece ends by being dropped —
//! worked to exhaustion (then it holds no node), or dropped with its nodes
//! by a stopped PE, a pool, a mailbox or a rank's drain; a piece sent to
//! another process is emptied ([`Watched::take`]) and rebuilt there, where
//! it is watched again. So every node open at the stop is recorded by a
//! drop, and every solution is either no better than the incumbent or no
//! better than a recorded bound. Drops before the limit is reached are
//! copies (the root after the initial cut) and record nothing; a copy
//! recorded after the stop can only loosen the bound, never make it wrong.
//!
//! ```
//! use std::sync::Mutex;
//! use treelb::bound::{NodeBound, OpenBounds, Watched};
//! use treelb::limit::{Limit, Limited};
//! use treelb::search::{Children, DfsWork, Search, SplitPolicy};
//! use treelb::{Incumbent, Sense, Work};
//!
//! /// The largest sum of a subset of `items` within `cap`, by branching on
//! /// each item in turn; a node's bound is its sum plus all that is left.
//! struct SubsetSum { items: Vec<i64>, cap: i64, best: Incumbent<()> }
//! impl Search for SubsetSum {
//!     type Node = (usize, i64); // the next item, the sum so far
//!     type Output = u64;
//!     fn root(&self) -> (usize, i64) { (0, 0) }
//!     fn expand(&self, (i, sum): (usize, i64), nodes: &mut u64, c: &mut Children<'_, (usize, i64)>) {
//!         *nodes += 1;
//!         self.best.offer(sum, || ());
//!         if i < self.items.len() && self.best.can_improve(self.node_bound(&(i, sum)).unwrap()) {
//!             c.push((i + 1, sum));
//!             if sum + self.items[i] <= self.cap { c.push((i + 1, sum + self.items[i])); }
//!         }
//!     }
//! }
//! impl NodeBound for SubsetSum {
//!     fn node_bound(&self, &(i, sum): &(usize, i64)) -> Option<i64> {
//!         Some((sum + self.items[i..].iter().sum::<i64>()).min(self.cap))
//!     }
//! }
//!
//! let items: Vec<i64> = (0..40).map(|k| 1_000_003 * k % 999_983 + 1).collect();
//! let search = SubsetSum { cap: items.iter().sum::<i64>() / 2 - 1, items, best: Incumbent::new(Sense::Maximize) };
//! let open = OpenBounds::new(Sense::Maximize);
//! let limit = Limit::new(1_000); // stop after about 1,000 nodes
//! // Limited counts the nodes against the limit and stops the piece there;
//! // Watched records the bounds of what is left open when it is dropped.
//! let mut piece = Limited::new(Watched::new(DfsWork::new(&search, SplitPolicy::OldestHalf), &open, &limit), &limit);
//! let mut nodes = 0;
//! while !piece.should_stop() && piece.work(100, &mut nodes) == treelb::Progress::Pending {}
//! assert!(limit.interrupted()); // the search was stopped with nodes open
//! drop(piece); // the open nodes record their bounds
//! let proof = open.prove(search.best.best(), limit.interrupted());
//! let best = search.best.best().unwrap();
//! let bound = proof.bound.unwrap();
//! assert!(best <= bound && bound <= search.cap);
//! assert_eq!(proof.proven_optimal, best == bound);
//! ```

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

use crate::limit::Limit;
use crate::search::{DfsWork, Search};
use crate::{Incumbent, Progress, Sense, Work};

/// A branch-and-bound search whose open nodes carry a bound on the
/// solutions of their subtrees. When a run is stopped early, the open nodes
/// it drops bound everything it did not explore: the best of their bounds
/// and the incumbent is a proven bound on the optimum (the optimality gap of
/// the partial answer).
pub trait NodeBound: Search {
    /// An optimistic bound on the value of every solution in `node`'s
    /// subtree, in the objective's own units (an upper bound when
    /// maximizing, a lower bound when minimizing); `None` if the node has
    /// none yet (the root of a search that bounds a node only when it
    /// expands it).
    fn node_bound(&self, node: &Self::Node) -> Option<i64>;
}

/// What a branch and bound proved: whether its value is the optimum, and
/// otherwise the best bound on the optimum and the gap to it.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ProvenBound {
    /// The value is the optimum: the search ran to its end, or every open
    /// node it dropped when stopped had a bound no better than it.
    pub proven_optimal: bool,
    /// The best bound on the optimum proven by the run (an upper bound when
    /// maximizing, a lower bound when minimizing): the value itself when it
    /// is proven optimal; `None` when a dropped node had no bound yet.
    pub bound: Option<i64>,
    /// |bound − value| / |value|, as a fraction (0 when proven optimal);
    /// `None` without a value or a bound.
    pub gap: Option<f64>,
}

/// The best bound of the open nodes dropped when a run was stopped, as a
/// key (larger is better; `i64::MIN`: none), and whether one had no bound.
/// Shared by every [`Watched`] piece of the run (or, across processes, one
/// per process, combined with [`OpenBounds::parts`] and
/// [`OpenBounds::set_parts`]).
#[derive(Debug)]
pub struct OpenBounds {
    sense: Sense,
    key: AtomicI64,
    unbounded: AtomicBool,
}

impl OpenBounds {
    /// No bound recorded yet, for a search that maximizes or minimizes.
    pub fn new(sense: Sense) -> Self {
        OpenBounds { sense, key: AtomicI64::new(i64::MIN), unbounded: AtomicBool::new(false) }
    }

    /// The key of a value: larger is better whatever the sense.
    fn key_of(&self, value: i64) -> i64 {
        match self.sense {
            Sense::Maximize => value,
            Sense::Minimize => value.checked_neg().unwrap_or(i64::MAX),
        }
    }

    /// Records the bound of one open node (`None`: it had none).
    pub fn record(&self, bound: Option<i64>) {
        match bound {
            Some(b) => {
                self.key.fetch_max(self.key_of(b), Ordering::Relaxed);
            }
            None => self.unbounded.store(true, Ordering::Relaxed),
        }
    }

    /// Records that the open nodes of the run are not known (a run whose
    /// pieces were not watched): a stopped run then proves no bound.
    pub fn record_unknown(&self) {
        self.unbounded.store(true, Ordering::Relaxed);
    }

    /// The key of the best bound recorded and whether a node had none: what
    /// the processes of a run combine (the largest key, any "none").
    pub fn parts(&self) -> (i64, bool) {
        (self.key.load(Ordering::Relaxed), self.unbounded.load(Ordering::Relaxed))
    }

    /// Replaces the parts by those combined over all processes.
    pub fn set_parts(&self, key: i64, unbounded: bool) {
        self.key.store(key, Ordering::Relaxed);
        self.unbounded.store(unbounded, Ordering::Relaxed);
    }

    /// What a run proved, given its best value (`None`: no solution found)
    /// and whether it was interrupted (its pieces dropped open nodes).
    pub fn prove(&self, value: Option<i64>, interrupted: bool) -> ProvenBound {
        let (open_key, unbounded) = self.parts();
        let best_key = value.map_or(i64::MIN, |v| self.key_of(v));
        let proven_optimal = !interrupted || (!unbounded && open_key <= best_key);
        let bound = if !interrupted {
            value
        } else if unbounded {
            None
        } else {
            let k = open_key.max(best_key);
            (k != i64::MIN).then(|| match self.sense {
                Sense::Maximize => k,
                Sense::Minimize => k.checked_neg().unwrap_or(i64::MAX),
            })
        };
        let gap = match (value, bound) {
            (Some(v), Some(b)) if v != 0 => Some(((b - v) as f64 / v as f64).abs()),
            (Some(_), Some(_)) => Some(0.0),
            _ => None,
        };
        ProvenBound { proven_optimal, bound, gap }
    }

    /// [`prove`](Self::prove) for the value of `incumbent`.
    pub fn prove_incumbent<T>(&self, incumbent: &Incumbent<T>, interrupted: bool) -> ProvenBound {
        self.prove(incumbent.best(), interrupted)
    }
}

/// A piece of a branch-and-bound search that, when it is dropped with open
/// nodes after the run's limit was reached (the run is being stopped),
/// records their bounds in an [`OpenBounds`] (see the module's
/// documentation for why the result is a proven bound).
pub struct Watched<'a, S: NodeBound> {
    inner: DfsWork<'a, S>,
    open: &'a OpenBounds,
    limit: &'a Limit,
}

impl<'a, S: NodeBound> Watched<'a, S> {
    /// `inner`, watched for `limit`, recording into `open`.
    pub fn new(inner: DfsWork<'a, S>, open: &'a OpenBounds, limit: &'a Limit) -> Self {
        Watched { inner, open, limit }
    }

    /// The piece's nodes, leaving it empty (its drop then records nothing):
    /// for a piece that travels to another process, where it is watched
    /// again.
    pub fn take(mut self) -> DfsWork<'a, S> {
        let empty = DfsWork::from_nodes(self.inner.search(), Vec::new(), 0, self.inner.policy());
        std::mem::replace(&mut self.inner, empty)
    }
}

impl<S: NodeBound> Drop for Watched<'_, S> {
    fn drop(&mut self) {
        if self.inner.open_nodes() > 0 && self.limit.reached() {
            let search = self.inner.search();
            for node in self.inner.nodes() {
                self.open.record(search.node_bound(node));
            }
        }
    }
}

impl<S: NodeBound> Clone for Watched<'_, S>
where
    S::Node: Clone,
{
    fn clone(&self) -> Self {
        Watched { inner: self.inner.clone(), open: self.open, limit: self.limit }
    }
}

impl<S: NodeBound> Work for Watched<'_, S> {
    type Output = S::Output;

    #[inline]
    fn work(&mut self, budget: u64, acc: &mut S::Output) -> Progress {
        self.inner.work(budget, acc)
    }

    fn split(&mut self) -> Option<Self> {
        self.inner.split().map(|inner| Watched { inner, open: self.open, limit: self.limit })
    }

    fn generation(&self) -> u32 {
        self.inner.generation()
    }

    fn load(&self) -> u64 {
        self.inner.load()
    }

    #[inline]
    fn should_stop(&self) -> bool {
        self.inner.should_stop()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_proof_takes_the_better_of_the_open_bounds_and_the_value() {
        let max = OpenBounds::new(Sense::Maximize);
        assert_eq!(
            max.prove(Some(10), false),
            ProvenBound { proven_optimal: true, bound: Some(10), gap: Some(0.0) }
        );
        max.record(Some(12));
        max.record(Some(11));
        let p = max.prove(Some(10), true);
        assert_eq!((p.proven_optimal, p.bound), (false, Some(12)));
        assert!((p.gap.unwrap() - 0.2).abs() < 1e-12);
        // Open nodes no better than the value: proven.
        let min = OpenBounds::new(Sense::Minimize);
        min.record(Some(7));
        assert!(min.prove(Some(7), true).proven_optimal);
        assert_eq!(min.prove(Some(9), true).bound, Some(7));
        min.record(None);
        assert_eq!(min.prove(Some(9), true), ProvenBound { proven_optimal: false, bound: None, gap: None });
        // Nothing found and nothing open with a bound: no bound.
        assert_eq!(OpenBounds::new(Sense::Maximize).prove(None, true).bound, None);
    }
}
