//! Where work goes, for the strategies that do not steal at random: the
//! producer tree of the multi-level scheme (`001_…`), the choice among `d`
//! candidates of two-choice and always-go-left placement (`002_…`), and
//! static assignment of the root's pieces (block, cyclic, random).
//!
//! Plain functions and data, no threads: every driver places work by them.

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::Strategy;

/// The tree of producers of the multi-level producer/consumer scheme
/// (Furuichi et al., analysed by Kimura and Ichiyoshi, `001_…`): PE 0 is the
/// root producer; the PEs of level `i` each serve `fanout[i]` PEs of level
/// `i + 1`; the PEs of the last level are consumers. PEs are numbered level
/// by level, so a PE's parent has a smaller index.
///
/// ```
/// use treelb::placement::ProducerTree;
/// let tree = ProducerTree::new(7, &[2, 2]);
/// assert_eq!(tree.parent(0), None);
/// assert_eq!((tree.parent(1), tree.parent(2)), (Some(0), Some(0)));
/// assert_eq!((tree.parent(3), tree.parent(4), tree.parent(5), tree.parent(6)),
///            (Some(1), Some(1), Some(2), Some(2)));
/// assert_eq!(tree.levels(), 3);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProducerTree {
    parent: Vec<Option<usize>>,
    level: Vec<u32>,
    fanout: Vec<usize>,
}

impl ProducerTree {
    /// The tree of `p` PEs with the given fan-out per level. Levels beyond
    /// the list repeat its last fan-out; a fan-out of 0 counts as 1. PEs are
    /// placed level by level until all `p` have a place.
    pub fn new(p: usize, fanout: &[usize]) -> Self {
        let fanout: Vec<usize> = if fanout.is_empty() { vec![1] } else { fanout.to_vec() };
        let mut parent = Vec::with_capacity(p);
        let mut level = Vec::with_capacity(p);
        if p > 0 {
            parent.push(None);
            level.push(0);
        }
        let mut first = 0; // the first PE of the current level
        let mut depth = 0usize;
        while parent.len() < p {
            let width = parent.len() - first;
            let d = fanout[depth.min(fanout.len() - 1)].max(1);
            let next = parent.len();
            'level: for producer in first..first + width {
                for _ in 0..d {
                    if parent.len() == p {
                        break 'level;
                    }
                    parent.push(Some(producer));
                    level.push(depth as u32 + 1);
                }
            }
            first = next;
            depth += 1;
        }
        ProducerTree { parent, level, fanout }
    }

    /// The tree for `p` PEs with `levels` levels of producers and the
    /// fan-outs of [`default_fanout`].
    pub fn with_levels(p: usize, levels: u32) -> Self {
        ProducerTree::new(p, &default_fanout(p, levels))
    }

    /// The producer that serves PE `pe` (`None` for the root).
    #[inline]
    pub fn parent(&self, pe: usize) -> Option<usize> {
        self.parent[pe]
    }

    /// The level of PE `pe` (0 for the root).
    pub fn level(&self, pe: usize) -> u32 {
        self.level[pe]
    }

    /// The number of levels (producers and consumers).
    pub fn levels(&self) -> u32 {
        self.level.iter().max().map_or(0, |l| l + 1)
    }

    /// The fan-outs the tree was built with.
    pub fn fanout(&self) -> &[usize] {
        &self.fanout
    }
}

/// The fan-out per level of `levels` producer levels for `p` PEs: the root's
/// degree after Kimura and Ichiyoshi's Theorem 4,
/// `d₀ ≈ p^(1/ℓ) · (ln p)^((ℓ−1)/2)`, capped at `p − 1`, and the levels below
/// it uniform, so that the tree holds `p` PEs.
///
/// ```
/// use treelb::placement::default_fanout;
/// assert_eq!(default_fanout(8, 1), vec![7]);
/// let f = default_fanout(1024, 2);
/// assert_eq!(f.len(), 2);
/// assert!(f[0] > 32, "the root is wider than √p: {f:?}");
/// ```
pub fn default_fanout(p: usize, levels: u32) -> Vec<usize> {
    let levels = levels.max(1);
    if p < 2 {
        return vec![1];
    }
    let pf = p as f64;
    let l = f64::from(levels);
    let root = (pf.powf(1.0 / l) * pf.ln().max(1.0).powf((l - 1.0) / 2.0)).round() as usize;
    let root = root.clamp(1, p - 1);
    let mut fanout = vec![root];
    if levels > 1 {
        // PEs below the root, spread over levels − 1 uniform levels.
        let per_root = (pf - 1.0) / root as f64;
        let d = per_root.powf(1.0 / (l - 1.0)).ceil().max(1.0) as usize;
        fanout.extend(std::iter::repeat_n(d, levels as usize - 1));
    }
    fanout
}

/// The default number of producer levels for `p` PEs: one up to 16 PEs,
/// then one more per factor of 16.
pub fn default_levels(p: usize) -> u32 {
    let mut levels = 1;
    let mut reach = 16usize;
    while p > reach {
        levels += 1;
        reach = reach.saturating_mul(16);
    }
    levels
}

/// The index among `candidates` of the one to place work on: the least
/// loaded; ties broken at random (`left = false`: two-choice) or to the
/// leftmost candidate (`left = true`: always-go-left, whose candidates come
/// one from each group, left group first).
///
/// ```
/// use treelb::placement::least_loaded;
/// let mut rng = rand::SeedableRng::seed_from_u64(1);
/// assert_eq!(least_loaded(&[3, 1, 2], true, &mut rng), 1);
/// assert_eq!(least_loaded(&[1, 4, 1], true, &mut rng), 0);
/// ```
pub fn least_loaded(loads: &[u64], left: bool, rng: &mut SmallRng) -> usize {
    let min = loads.iter().copied().min().expect("at least one candidate");
    if left {
        return loads.iter().position(|&l| l == min).expect("the minimum is there");
    }
    let ties = loads.iter().filter(|&&l| l == min).count();
    let pick = if ties > 1 { rng.random_range(0..ties) } else { 0 };
    loads.iter().enumerate().filter(|&(_, &l)| l == min).nth(pick).map(|(i, _)| i).expect("pick < ties")
}

/// Candidates of always-go-left placement: one PE at random from each of `d`
/// equal groups of `0..p` (left group first), never `me` (a group holding
/// only `me` offers nothing).
pub fn group_candidates(me: usize, p: usize, d: usize, rng: &mut SmallRng) -> Vec<usize> {
    let d = d.clamp(1, p.max(1));
    let mut out = Vec::with_capacity(d);
    for g in 0..d {
        let (lo, hi) = (g * p / d, (g + 1) * p / d);
        let size = hi - lo - usize::from((lo..hi).contains(&me));
        if size == 0 {
            continue;
        }
        let mut v = lo + rng.random_range(0..size);
        if (lo..hi).contains(&me) && v >= me {
            v += 1;
        }
        out.push(v);
    }
    out
}

/// Static assignment (`static-block`, `static-cyclic`, `static-random`): the
/// root is cut into `pieces` parts — a power of two, so that part `j` in
/// tree order is the selective-initialization share with index
/// `bit_reverse(j)` (see [`crate::init::selective`]) — and each part goes to
/// one PE, once, for good.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaticAssignment {
    bits: u32,
    /// For every part in tree order, its PE.
    owner: Vec<usize>,
}

impl StaticAssignment {
    /// The assignment of `strategy` (one of the three static ones; any other
    /// is treated as `static-block`) for `p` PEs with at least
    /// `per_pe · p` parts.
    ///
    /// ```
    /// use treelb::Strategy;
    /// use treelb::placement::StaticAssignment;
    /// let block = StaticAssignment::new(Strategy::StaticBlock, 2, 2, 0);
    /// assert_eq!(block.owners(), &[0, 0, 1, 1]);
    /// let cyclic = StaticAssignment::new(Strategy::StaticCyclic, 2, 2, 0);
    /// assert_eq!(cyclic.owners(), &[0, 1, 0, 1]);
    /// // The shares of PE 0 under cyclic assignment, as selective indices:
    /// assert_eq!(cyclic.shares_of(0), vec![0, 1]);
    /// ```
    pub fn new(strategy: Strategy, p: usize, per_pe: usize, seed: u64) -> Self {
        let p = p.max(1);
        let pieces = (p * per_pe.max(1)).next_power_of_two();
        let bits = pieces.trailing_zeros();
        let owner = match strategy {
            Strategy::StaticCyclic => (0..pieces).map(|j| j % p).collect(),
            Strategy::StaticRandom => {
                let mut rng = SmallRng::seed_from_u64(seed ^ 0x5747_1C0F);
                (0..pieces).map(|_| rng.random_range(0..p)).collect()
            }
            _ => (0..pieces).map(|j| j * p / pieces).collect(),
        };
        StaticAssignment { bits, owner }
    }

    /// The number of parts.
    pub fn pieces(&self) -> usize {
        self.owner.len()
    }

    /// The PE of every part, in tree order.
    pub fn owners(&self) -> &[usize] {
        &self.owner
    }

    /// The selective-initialization indices (`pe` arguments of
    /// [`crate::init::selective`] with `p = pieces()`) of the parts that PE
    /// `pe` owns, in tree order.
    pub fn shares_of(&self, pe: usize) -> Vec<usize> {
        (0..self.owner.len()).filter(|&j| self.owner[j] == pe).map(|j| self.reverse(j)).collect()
    }

    fn reverse(&self, j: usize) -> usize {
        if self.bits == 0 { 0 } else { j.reverse_bits() >> (usize::BITS - self.bits) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn producer_trees_place_every_pe_once() {
        for p in 1..100 {
            for levels in 1..4 {
                let tree = ProducerTree::with_levels(p, levels);
                for pe in 1..p {
                    let parent = tree.parent(pe).unwrap();
                    assert!(parent < pe);
                    assert_eq!(tree.level(pe), tree.level(parent) + 1);
                }
                assert!(tree.levels() <= levels + 1 || p <= 2, "p {p} levels {levels}: {tree:?}");
            }
        }
    }

    #[test]
    fn static_shares_partition_the_parts() {
        for strategy in [Strategy::StaticBlock, Strategy::StaticCyclic, Strategy::StaticRandom] {
            for p in 1..12 {
                let a = StaticAssignment::new(strategy, p, 4, 9);
                assert!(a.pieces().is_power_of_two() && a.pieces() >= 4 * p);
                let mut all: Vec<usize> = (0..p).flat_map(|pe| a.shares_of(pe)).collect();
                all.sort_unstable();
                assert_eq!(all, (0..a.pieces()).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn group_candidates_come_from_each_group_and_skip_me() {
        let mut rng = SmallRng::seed_from_u64(3);
        for _ in 0..1000 {
            let c = group_candidates(1, 8, 2, &mut rng);
            assert_eq!(c.len(), 2);
            assert!(c[0] < 4 && c[0] != 1 && c[1] >= 4);
        }
        assert!(group_candidates(0, 1, 2, &mut rng).is_empty());
    }
}
