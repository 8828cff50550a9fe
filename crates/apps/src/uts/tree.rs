//! The UTS tree as a [`Search`]: nodes, the number of children of a node, and
//! the counts the benchmark reports.

use std::fmt;

use serde::Serialize;
use treelb::Reduce;
use treelb::search::{Children, Search};

use super::params::{GeoShape, MAX_NUM_CHILDREN, Params, ParamsError, TreeType};
use super::rng::{RngState, Spawner, rng_init, rng_rand, to_prob};

/// The largest depth for which [`Uts`] caches the geometric distribution's
/// parameter; deeper nodes compute it on the fly (with the same result).
const GEO_TABLE_MAX_LEN: u32 = 4096;

/// The depths below which [`Uts`] also keeps the thresholds that decide the
/// number of geometric children without a logarithm ([`GeoThresholds`]).
const GEO_THRESHOLD_DEPTHS: usize = 256;

/// The child counts that [`GeoThresholds`] decides; larger counts (a
/// probability below 10⁻³ at the sample trees' branching of 4) take the
/// logarithm.
const GEO_THRESHOLD_COUNT: usize = 32;

/// The relative margin around each threshold inside which the logarithm
/// decides (see [`GeoThresholds`]).
const GEO_MARGIN: f64 = 1e-9;

/// The number of geometric children without a logarithm, for one depth.
///
/// The reference computes `floor(ln(1 - u) / ln(1 - p))`. With
/// `L = ln(1 - p) < 0` and `v = 1 - u`, that is at least `k` exactly when
/// `v <= e^(kL)` in real numbers. The computed quotient differs from the
/// real one by a few units in the last place (relative 10⁻¹⁵), and so does
/// the computed `e^(kL)`; a margin of 10⁻⁹ relative around each threshold
/// is a million times wider than both. So `v <= e^(kL)·(1 - 10⁻⁹)` proves
/// that the reference's count is at least `k`, `v >= e^(kL)·(1 + 10⁻⁹)`
/// proves it is below `k`, and a `v` between the two — a few of the 2³¹
/// possible values — takes the reference's own computation. The counts are
/// thus the reference's, bit for bit, at the price of one or two
/// comparisons for most nodes instead of a logarithm.
#[derive(Clone, Debug)]
struct GeoThresholds {
    /// `e^(kL)·(1 - margin)` for `k = 1 ..= GEO_THRESHOLD_COUNT`.
    at_least: [f64; GEO_THRESHOLD_COUNT],
    /// `e^(kL)·(1 + margin)` for the same `k`.
    below: [f64; GEO_THRESHOLD_COUNT],
}

impl GeoThresholds {
    /// The thresholds for `L = log_1mp`, if `L` is finite and negative (the
    /// other cases take the logarithm).
    fn new(log_1mp: f64) -> Option<GeoThresholds> {
        if !(log_1mp.is_finite() && log_1mp < 0.0) {
            return None;
        }
        let mut at_least = [0.0; GEO_THRESHOLD_COUNT];
        let mut below = [0.0; GEO_THRESHOLD_COUNT];
        for (k, (lo, hi)) in (1u32..).zip(at_least.iter_mut().zip(below.iter_mut())) {
            let e = (f64::from(k) * log_1mp).exp();
            *lo = e * (1.0 - GEO_MARGIN);
            *hi = e * (1.0 + GEO_MARGIN);
        }
        Some(GeoThresholds { at_least, below })
    }

    /// The number of children for `v = 1 - u`, or `None` where only the
    /// logarithm decides (next to a threshold, or more than
    /// `GEO_THRESHOLD_COUNT` children).
    #[inline]
    fn children(&self, v: f64) -> Option<u32> {
        let mut k = 0;
        while k < GEO_THRESHOLD_COUNT && v <= self.at_least[k] {
            k += 1;
        }
        if k == GEO_THRESHOLD_COUNT || v < self.below[k] {
            return None;
        }
        Some(k as u32)
    }
}

/// A node of a UTS tree: its random state and its height (the root has height
/// 0). Everything about the node's subtree follows from these.
///
/// Hybrid trees need no node type: whether a node is geometric or binomial
/// depends only on its height.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
pub struct UtsNode {
    state: RngState,
    height: u32,
}

impl UtsNode {
    /// The node's random state.
    #[inline]
    pub fn state(&self) -> &RngState {
        &self.state
    }

    /// The node's height: its distance from the root.
    #[inline]
    pub fn height(&self) -> u32 {
        self.height
    }
}

/// What UTS reports about a tree: the numbers of nodes and leaves and the
/// largest height of a node. Merged by sum, sum and maximum.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
pub struct UtsResult {
    /// The number of nodes, the root included.
    pub nodes: u64,
    /// The number of nodes without children.
    pub leaves: u64,
    /// The largest height of a node (the reference's "tree depth").
    pub max_depth: u64,
}

impl Reduce for UtsResult {
    #[inline]
    fn merge(&mut self, other: Self) {
        self.nodes += other.nodes;
        self.leaves += other.leaves;
        self.max_depth = self.max_depth.max(other.max_depth);
    }
}

impl fmt::Display for UtsResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tree size = {}, tree depth = {}, num leaves = {}", self.nodes, self.max_depth, self.leaves)
    }
}

/// The Unbalanced Tree Search benchmark: the tree that the reference
/// implementation (`uts.c`) generates from the given [`Params`], node for node.
///
/// ```
/// use treelb_apps::uts::{Params, Uts};
/// let uts = Uts::new(Params::default()).unwrap();
/// let (result, expanded) = treelb::seq::run_search(&uts);
/// assert_eq!((result.nodes, result.leaves, expanded), (1732, 1050, 1732));
/// ```
#[derive(Clone, Debug)]
pub struct Uts {
    params: Params,
    root_state: RngState,
    /// `ln(1 - p)` of the geometric distribution of the number of children, by
    /// depth, for the depths at which nodes may be geometric (capped).
    geo_log_1mp: Vec<f64>,
    /// The thresholds of [`GeoThresholds`] for the first depths of
    /// `geo_log_1mp` (`None` where `ln(1 - p)` is not finite and negative).
    geo_thresholds: Vec<Option<GeoThresholds>>,
    /// Hybrid trees: nodes of smaller height are geometric.
    hybrid_shift: f64,
}

impl Uts {
    /// The tree of the given parameters, if they are [valid](Params::validate).
    pub fn new(params: Params) -> Result<Uts, ParamsError> {
        params.validate()?;
        let hybrid_shift = params.shift_depth * f64::from(params.gen_mx);
        let geo_depths = match params.tree_type {
            TreeType::Binomial | TreeType::Balanced => 0,
            // Geometric only at heights below shift_depth * gen_mx <= gen_mx.
            TreeType::Hybrid => params.gen_mx,
            TreeType::Geometric => match params.shape {
                // b_i = 0 at depth gen_mx: no deeper nodes.
                GeoShape::Linear | GeoShape::Fixed => params.gen_mx.saturating_add(1),
                // b_i = 0 below depth 5 * gen_mx: no nodes deeper than 5 * gen_mx + 1.
                GeoShape::Cyclic => params.gen_mx.saturating_mul(5).saturating_add(2),
                GeoShape::ExpDec => GEO_TABLE_MAX_LEN,
            },
        };
        let geo_log_1mp: Vec<f64> =
            (0..geo_depths.min(GEO_TABLE_MAX_LEN)).map(|d| geo_log_1mp(&params, d)).collect();
        let geo_thresholds =
            geo_log_1mp.iter().take(GEO_THRESHOLD_DEPTHS).map(|&l| GeoThresholds::new(l)).collect();
        Ok(Uts { params, root_state: rng_init(params.root_seed), geo_log_1mp, geo_thresholds, hybrid_shift })
    }

    /// The parameters of the tree.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The root of the tree.
    #[inline]
    pub fn root_node(&self) -> UtsNode {
        UtsNode { state: self.root_state, height: 0 }
    }

    /// The number of children of `node`, computed from its own state
    /// (`uts_numChildren` of the reference, truncation included).
    #[inline]
    pub fn num_children(&self, node: &UtsNode) -> u32 {
        let p = &self.params;
        let height = node.height;
        match p.tree_type {
            // The root of a binomial tree has floor(b0) children, which is
            // below the truncation at ceil(b0).
            TreeType::Binomial if height == 0 => p.b0 as u32,
            TreeType::Binomial => self.binomial_children(node),
            TreeType::Geometric => self.geometric_children(node),
            TreeType::Hybrid if f64::from(height) < self.hybrid_shift => self.geometric_children(node),
            TreeType::Hybrid => self.binomial_children(node),
            // No truncation for balanced trees.
            TreeType::Balanced if height < p.gen_mx => p.b0 as u32,
            TreeType::Balanced => 0,
        }
    }

    /// Child `i` of `node` (`i < num_children(node)`): its state is spawned from
    /// the parent's `granularity` times, as in the reference.
    #[inline]
    pub fn child(&self, node: &UtsNode, i: u32) -> UtsNode {
        self.spawn_child(&mut Spawner::new(&node.state), node.height + 1, i)
    }

    #[inline]
    fn spawn_child(&self, spawner: &mut Spawner, height: u32, i: u32) -> UtsNode {
        for _ in 1..self.params.granularity {
            // Extra work only: the same state each time.
            std::hint::black_box(spawner.spawn(i));
        }
        UtsNode { state: spawner.spawn(i), height }
    }

    /// `uts_numChildren_bin` of the reference: `m` children with probability
    /// `q`, else none.
    #[inline]
    fn binomial_children(&self, node: &UtsNode) -> u32 {
        let d = to_prob(rng_rand(&node.state));
        if d < self.params.q { self.params.m.min(MAX_NUM_CHILDREN) } else { 0 }
    }

    /// `uts_numChildren_geo` of the reference: the number of children drawn by
    /// inverting the geometric distribution's cumulative density at a uniform
    /// random number.
    #[inline]
    fn geometric_children(&self, node: &UtsNode) -> u32 {
        let log_1mp = match self.geo_log_1mp.get(node.height as usize) {
            Some(&cached) => cached,
            None => geo_log_1mp(&self.params, node.height),
        };
        if log_1mp == f64::NEG_INFINITY {
            // p = 1 (branching 0: the depth limit of a fixed or cyclic
            // shape). The reference's quotient ln(1 - u) / ln(0) is then
            // -0.0 or +0.0 for every u in [0, 1): no children, without the
            // logarithm that would cost most of the nodes of such a tree.
            return 0;
        }
        let u = to_prob(rng_rand(&node.state));
        if let Some(Some(thresholds)) = self.geo_thresholds.get(node.height as usize)
            && let Some(n) = thresholds.children(1.0 - u)
        {
            return n;
        }
        let n = (1.0 - u).ln() / log_1mp;
        // The reference takes `(int) floor(n)` and truncates it to
        // MAX_NUM_CHILDREN; a negative count means no children. Truncation
        // towards zero (`as`, which also saturates and maps NaN to 0) agrees
        // with `floor` on non-negative numbers and, after clamping, on negative
        // ones, and saves a call to `floor`.
        (n as i64).clamp(0, i64::from(MAX_NUM_CHILDREN)) as u32
    }
}

/// `ln(1 - p)` for the geometric distribution of the number of children at
/// `depth`, where `p = 1 / (1 + b_i)` makes its expected value the shape
/// function's `b_i`, computed as the reference does.
fn geo_log_1mp(params: &Params, depth: u32) -> f64 {
    let p = 1.0 / (1.0 + params.geometric_branching(depth));
    (1.0 - p).ln()
}

impl Search for Uts {
    type Node = UtsNode;
    type Output = UtsResult;

    #[inline]
    fn root(&self) -> UtsNode {
        self.root_node()
    }

    #[inline]
    fn expand(&self, node: UtsNode, acc: &mut UtsResult, children: &mut Children<'_, UtsNode>) {
        acc.nodes += 1;
        acc.max_depth = acc.max_depth.max(u64::from(node.height));
        let n = self.num_children(&node);
        if n == 0 {
            acc.leaves += 1;
            return;
        }
        let mut spawner = Spawner::new(&node.state);
        let height = node.height + 1;
        if self.params.granularity == 1 {
            // The siblings' hashes are independent: hashed together.
            spawner.spawn_each(0, n, |state| children.push(UtsNode { state, height }));
        } else {
            for i in 0..n {
                children.push(self.spawn_child(&mut spawner, height, i));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference's computation, as `geometric_children` does it without
    /// thresholds.
    fn by_logarithm(u: f64, log_1mp: f64) -> u32 {
        let n = (1.0 - u).ln() / log_1mp;
        (n as i64).clamp(0, i64::from(MAX_NUM_CHILDREN)) as u32
    }

    #[test]
    fn thresholds_agree_with_the_logarithm_next_to_every_threshold() {
        for b in [0.001f64, 0.5, 1.0, 2.0, 3.0, 4.0, 4.5, 7.0, 19.0, 2000.0] {
            let log_1mp = (1.0 - 1.0 / (1.0 + b)).ln();
            let thresholds = GeoThresholds::new(log_1mp).expect("finite and negative");
            // Every r whose u = r / 2^31 lies within 64 steps of a threshold
            // u = 1 - e^(kL), and a stride through the whole range.
            let near = (1..=GEO_THRESHOLD_COUNT as i32 + 1).flat_map(|k| {
                let r = ((1.0 - (f64::from(k) * log_1mp).exp()) * 2_147_483_648.0) as i64;
                (r - 64..=r + 64).filter(|r| (0..1 << 31).contains(r))
            });
            let stride = (0..1i64 << 31).step_by(9_973);
            let (mut strided, mut decided) = (0u64, 0u64);
            for (r, on_stride) in near.map(|r| (r, false)).chain(stride.map(|r| (r, true))) {
                let u = to_prob(r as u32);
                let expected = by_logarithm(u, log_1mp);
                let fast = thresholds.children(1.0 - u);
                if let Some(n) = fast {
                    assert_eq!(n, expected, "b = {b}, r = {r}");
                }
                strided += u64::from(on_stride);
                decided += u64::from(on_stride && fast.is_some());
            }
            // At the sample trees' branching factors nearly every value is
            // decided without the logarithm.
            if b <= 4.0 {
                assert!(decided * 1000 > strided * 998, "b = {b}: {decided} of {strided}");
            }
        }
    }

    #[test]
    fn no_thresholds_where_the_logarithm_is_not_finite_and_negative() {
        for l in [0.0, -0.0, f64::NEG_INFINITY, f64::NAN, 0.5] {
            assert!(GeoThresholds::new(l).is_none(), "{l}");
        }
    }
}
