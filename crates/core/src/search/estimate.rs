//! How big is a search tree? Knuth's estimate from random probes.
//!
//! A *probe* walks from the root to a leaf, expanding one node per level and
//! following one of its children chosen uniformly at random. If the nodes on
//! the path have `k₀, k₁, …` children, the probe reports
//!
//! ```text
//! 1 + k₀ + k₀k₁ + k₀k₁k₂ + …
//! ```
//!
//! nodes: each node on the path stands for the `k₀k₁…` nodes of its depth
//! that the probe could have reached with the same probability. That sum is
//! an *unbiased* estimate of the tree's size (D. E. Knuth, "Estimating the
//! efficiency of backtrack programs", Math. Comp. 29, 1975): a node at depth
//! `d` lies on the probe's path with probability `1 / (k₀k₁…k_{d−1})` over
//! the ancestors that lead to it, and is then counted with exactly that
//! product as its weight, so its expected contribution is 1. The same holds
//! for any cost of a node, counted with the same weights: the work units of
//! [`Search::cost`] and the measured time of each expansion, which make an
//! estimate of the whole search's sequential time.
//!
//! The estimate is unbiased, not precise: on the unbalanced trees of branch
//! and bound most probes end early, and the rare deep ones carry the sum, so
//! the standard error of the mean over the probes is part of the answer. For
//! a branch-and-bound search the tree is the one the incumbent *at the time*
//! prunes: the tree of a proof once the incumbent is optimal.
//!
//! ```
//! use treelb::rng::SplitMix64;
//! use treelb::search::BinaryTree;
//! use treelb::search::estimate::TreeEstimate;
//!
//! // Every probe of a complete tree gives its exact size.
//! let mut rng = SplitMix64::new(1);
//! let mut estimate = TreeEstimate::default();
//! for _ in 0..10 {
//!     estimate.add(&treelb::search::estimate::probe(&BinaryTree(12), &mut 0, |k| rng.below(k as u64) as usize));
//! }
//! assert_eq!(estimate.nodes.mean(), BinaryTree(12).nodes() as f64);
//! assert_eq!(estimate.nodes.std_error(), 0.0);
//! ```

use std::time::{Duration, Instant};

use serde::Serialize;

use super::{Children, Search};
use crate::Incumbent;
use crate::rng::SplitMix64;

/// What one probe reports: its estimates of the tree's nodes, work units
/// and sequential time, and the depth it reached.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Probe {
    /// Estimated nodes of the whole tree (`1 + k₀ + k₀k₁ + …`).
    pub nodes: f64,
    /// Estimated work units ([`Search::cost`]) of the whole tree.
    pub units: f64,
    /// Estimated seconds to expand every node of the tree, one after the
    /// other, from the measured time of each expansion on the path.
    pub seconds: f64,
    /// Nodes on the probe's path below the root (0: the root is a leaf).
    pub depth: u32,
    /// Seconds the probe took.
    pub elapsed: f64,
}

/// Walks one random path from `search`'s root to a leaf (see the [module
/// documentation](self)). `pick(k)` chooses the child to follow among `k ≥
/// 1`: a uniform choice in `0..k` makes the estimate unbiased. The nodes on
/// the path fold their contributions into `acc`, as a run would.
pub fn probe<S: Search>(search: &S, acc: &mut S::Output, mut pick: impl FnMut(usize) -> usize) -> Probe {
    let clock = Instant::now();
    let mut out = Probe::default();
    let mut weight = 1.0f64;
    let mut stack = Vec::new();
    let mut node = search.root();
    loop {
        out.nodes += weight;
        out.units += weight * search.cost(&node) as f64;
        let start = Instant::now();
        search.expand(node, acc, &mut Children::new(&mut stack));
        out.seconds += weight * start.elapsed().as_secs_f64();
        let k = stack.len();
        if k == 0 || search.should_stop() {
            break;
        }
        let i = pick(k);
        assert!(i < k, "pick({k}) chose child {i}");
        weight *= k as f64;
        node = stack.swap_remove(i).node;
        stack.clear();
        out.depth += 1;
    }
    out.elapsed = clock.elapsed().as_secs_f64();
    out
}

/// A running mean and its standard error (Welford's update: no loss of
/// precision when the values are large and close).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Mean {
    count: u64,
    mean: f64,
    /// The sum of squared deviations from the mean.
    m2: f64,
}

impl Mean {
    /// Adds one value.
    pub fn add(&mut self, x: f64) {
        self.count += 1;
        let delta = x - self.mean;
        self.mean += delta / self.count as f64;
        self.m2 += delta * (x - self.mean);
    }

    /// The number of values.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The mean of the values (0 without any).
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// The standard error of the mean: the sample standard deviation over
    /// √count (0 with fewer than two values).
    pub fn std_error(&self) -> f64 {
        if self.count < 2 {
            return 0.0;
        }
        (self.m2 / (self.count - 1) as f64 / self.count as f64).sqrt()
    }

    /// The standard error as a fraction of the mean (0 when the mean is 0).
    pub fn relative_error(&self) -> f64 {
        if self.mean == 0.0 { 0.0 } else { self.std_error() / self.mean.abs() }
    }
}

/// The probes so far, summed up: the mean of their estimates with its
/// standard error, for the nodes, the work units and the sequential time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct TreeEstimate {
    /// Estimated nodes.
    pub nodes: Mean,
    /// Estimated work units.
    pub units: Mean,
    /// Estimated seconds of a sequential search.
    pub seconds: Mean,
    /// The deepest probe.
    pub max_depth: u32,
    /// Seconds spent probing.
    pub elapsed: f64,
}

impl TreeEstimate {
    /// Adds one probe.
    pub fn add(&mut self, probe: &Probe) {
        self.nodes.add(probe.nodes);
        self.units.add(probe.units);
        self.seconds.add(probe.seconds);
        self.max_depth = self.max_depth.max(probe.depth);
        self.elapsed += probe.elapsed;
    }

    /// The number of probes.
    pub fn probes(&self) -> u64 {
        self.nodes.count()
    }
}

/// What [`probe_for`] found: the estimate of the tree the final incumbent
/// prunes, and how it was reached.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Estimated {
    /// The probes counted, summed up.
    pub estimate: TreeEstimate,
    /// Probes set aside because the incumbent improved after them (they
    /// measured a larger tree than the one the final incumbent prunes).
    pub set_aside: u64,
    /// Seconds spent probing, the probes set aside included.
    pub probing_secs: f64,
    /// The root has no children: the one probe measured the tree exactly.
    pub exact: bool,
    /// The incumbent's value that prunes the estimated tree (`None` without
    /// an incumbent, or before any solution).
    pub incumbent: Option<i64>,
    /// `stop` ended the probing before its time was up.
    pub stopped: bool,
}

impl Estimated {
    /// Whether the estimate is rough: not exact, and resting on fewer than
    /// 100 probes or with a standard error above half the mean. The rare
    /// deep probes that carry the sum may not have come up yet.
    pub fn rough(&self) -> bool {
        !self.exact && (self.estimate.probes() < 100 || self.estimate.nodes.relative_error() > 0.5)
    }
}

/// Probes `search` from its root for `duration` (see the [module
/// documentation](self)), choosing children with a [`SplitMix64`] seeded
/// with `seed`, and returns the estimate of the tree that the final
/// incumbent prunes.
///
/// A branch-and-bound search's tree depends on the incumbent that prunes
/// it, and a probe may improve the incumbent: the tree is then a smaller
/// one, so the probes made before the last improvement are set aside
/// ([`Estimated::set_aside`]) and the estimate starts over. A root without
/// children is the whole tree: the first probe is then exact and the
/// probing stops. `stop` is asked after every probe (a signal, a user's
/// stop button); `observe` sees the estimate so far and the time spent
/// after every probe (a progress indicator).
///
/// ```
/// use std::time::Duration;
/// use treelb::search::BinaryTree;
/// use treelb::search::estimate::probe_for;
///
/// let e = probe_for(&BinaryTree(12), None::<&treelb::Incumbent<()>>, Duration::from_millis(5), 7, || false, |_, _| {});
/// assert_eq!(e.estimate.nodes.mean(), BinaryTree(12).nodes() as f64);
/// assert!(e.estimate.probes() >= 1 && !e.exact && !e.stopped);
/// ```
pub fn probe_for<S: Search, T>(
    search: &S,
    incumbent: Option<&Incumbent<T>>,
    duration: Duration,
    seed: u64,
    stop: impl Fn() -> bool,
    mut observe: impl FnMut(&TreeEstimate, Duration),
) -> Estimated {
    let best = || incumbent.and_then(Incumbent::best);
    let mut rng = SplitMix64::new(seed);
    let mut out = Estimated { incumbent: best(), ..Estimated::default() };
    let mut acc = S::Output::default();
    let clock = Instant::now();
    loop {
        let p = probe(search, &mut acc, |k| rng.below(k as u64) as usize);
        out.probing_secs += p.elapsed;
        if best() == out.incumbent {
            out.estimate.add(&p);
        } else {
            // A better incumbent prunes a smaller tree: start over on it.
            out.incumbent = best();
            out.set_aside += out.estimate.probes() + 1;
            out.estimate = TreeEstimate::default();
        }
        if p.depth == 0 {
            // A probe stops at the root only if the root has no children:
            // the root is the whole tree, measured exactly, whatever prunes.
            out.exact = true;
            if out.estimate.probes() == 0 {
                out.estimate.add(&p);
            }
            return out;
        }
        let elapsed = clock.elapsed();
        if elapsed >= duration {
            return out;
        }
        if stop() {
            out.stopped = true;
            return out;
        }
        observe(&out.estimate, elapsed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;
    use crate::search::BinaryTree;

    /// An irregular tree: node `(depth, label)` has `label % 4` children
    /// below depth 9, labelled by a hash.
    struct Ragged;

    impl Search for Ragged {
        type Node = (u32, u64);
        type Output = u64;

        fn root(&self) -> (u32, u64) {
            (0, 3)
        }

        fn expand(&self, (depth, label): (u32, u64), acc: &mut u64, children: &mut Children<'_, (u32, u64)>) {
            *acc += 1;
            if depth < 9 {
                for i in 0..label % 4 {
                    children.push((depth + 1, crate::rng::mix(label.wrapping_mul(31).wrapping_add(i))));
                }
            }
        }

        fn cost(&self, node: &(u32, u64)) -> u64 {
            1 + node.0 as u64 % 3
        }
    }

    /// The exact expectation of a probe's estimate, by enumerating every
    /// path with its probability: the tree's size (and its units).
    fn expectation<S: Search>(search: &S, node: S::Node, weight: f64) -> (f64, f64)
    where
        S::Node: Clone,
        S::Output: Default,
    {
        let children = super::super::expand_one(search, node.clone(), &mut S::Output::default());
        let k = children.len() as f64;
        let (mut nodes, mut units) = (weight, weight * search.cost(&node) as f64);
        for child in children {
            // Each child is followed with probability 1/k, with weight · k.
            let (n, u) = expectation(search, child, weight * k);
            nodes += n / k;
            units += u / k;
        }
        (nodes, units)
    }

    #[test]
    fn the_expectation_is_the_size() {
        let (nodes, _) = crate::seq::run_search(&Ragged);
        let units: u64 = {
            let mut total = 0;
            let mut open = vec![Ragged.root()];
            while let Some(n) = open.pop() {
                total += Ragged.cost(&n);
                open.extend(super::super::expand_one(&Ragged, n, &mut 0));
            }
            total
        };
        assert!(nodes > 100, "a tree worth estimating: {nodes} nodes");
        let (e_nodes, e_units) = expectation(&Ragged, Ragged.root(), 1.0);
        assert!((e_nodes - nodes as f64).abs() < 1e-6 * nodes as f64, "{e_nodes} vs {nodes}");
        assert!((e_units - units as f64).abs() < 1e-6 * units as f64, "{e_units} vs {units}");
    }

    #[test]
    fn random_probes_converge_on_the_size() {
        let (nodes, _) = crate::seq::run_search(&Ragged);
        let mut rng = SplitMix64::new(5);
        let mut estimate = TreeEstimate::default();
        for _ in 0..20_000 {
            estimate.add(&probe(&Ragged, &mut 0, |k| rng.below(k as u64) as usize));
        }
        let (mean, err) = (estimate.nodes.mean(), estimate.nodes.std_error());
        assert!(err > 0.0 && err < 0.1 * mean, "{mean} ± {err}");
        assert!((mean - nodes as f64).abs() < 4.0 * err, "{mean} ± {err} vs {nodes}");
        assert_eq!(estimate.probes(), 20_000);
        assert!(estimate.max_depth <= 9);
    }

    #[test]
    fn a_complete_tree_is_measured_exactly() {
        let tree = BinaryTree(7);
        let p = probe(&tree, &mut 0, |k| k - 1);
        assert_eq!((p.nodes, p.units, p.depth), (tree.nodes() as f64, tree.nodes() as f64, 7));
        let mut acc = 0;
        probe(&tree, &mut acc, |_| 0);
        assert_eq!(acc, 8, "the nodes on the path are expanded");
    }

    #[test]
    fn mean_and_error() {
        let mut m = Mean::default();
        assert_eq!((m.mean(), m.std_error(), m.relative_error()), (0.0, 0.0, 0.0));
        for x in [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0] {
            m.add(x);
        }
        assert_eq!(m.mean(), 5.0);
        // Sample variance 32/7; standard error √(32/7/8).
        assert!((m.std_error() - (32.0f64 / 7.0 / 8.0).sqrt()).abs() < 1e-12);
        let mut big = Mean::default();
        for x in [1e15 + 1.0, 1e15 + 3.0] {
            big.add(x);
        }
        assert_eq!(big.mean(), 1e15 + 2.0);
        assert!((big.std_error() - 1.0).abs() < 1e-9);
    }
}
