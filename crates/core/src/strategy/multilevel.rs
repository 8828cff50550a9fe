//! The multi-level producer/consumer scheme (Furuichi et al., analysed by
//! Kimura and Ichiyoshi, [Kimura & Ichiyoshi 1992] §2.5, §5): the PEs form a tree of
//! producers, and a PE asks for work only its producer, its parent in the
//! tree. The root producer holds the whole task; a producer splits its
//! piece for the children that ask; the PEs of the last level are consumers.
//! The fan-out of each level is a parameter (`--fanout 4,2`); by default the
//! root's degree follows Kimura and Ichiyoshi's Theorem 4.
//!
//! On machines with fewer cores than PEs a producer that only split would
//! waste a core, so producers also work their pieces: the tree only decides
//! *whom* a PE asks. Over message passing (MPI, the simulator) this is
//! [Kimura & Ichiyoshi 1992]'s design: requests travel only along tree edges, and a request
//! *waits* at its producer until the producer has work (Definition 1 of
//! [Kimura & Ichiyoshi 1992]): an idle producer holds its children's requests — asking its
//! own producer meanwhile — and serves them, one per slice, once it works
//! again. (Answering "no work" instead would make every child ask again at
//! once, and its only victim is idle: on 4096 simulated PEs that was 6.7
//! billion messages for one run.)
//!
//! **Granularity control** ([Kimura & Ichiyoshi 1992] §2.5: a producer of level i cuts
//! its task into pieces of its level's grain): a producer hands its
//! children pieces of a fixed generation per level
//! ([`grain_generation`], [`Multilevel::with_grain`]), cut from the piece it
//! holds and kept cut in its pool until asked for ([`Action::Produce`],
//! [`crate::pe::cut`]), rather than whatever one split of its piece gives:
//! one split after another halves the producer's piece, so without it the
//! first child of a wide root gets half the work and its 300th nothing.
//! On by default ([`crate::spec::DEFAULT_GRAIN`]); `grain` 0 turns it off.
//! A generation stands for a size only where splits cut alike: on a UTS
//! tree a piece of a late generation may still hold a large subtree, and a
//! consumer that holds it has no one to share it with.

use super::{Action, Actions, Balance, Event, Tally, answer_request, emit};

/// The tree of producers of the multi-level producer/consumer scheme
/// (Furuichi et al., analysed by Kimura and Ichiyoshi, [Kimura & Ichiyoshi 1992]): PE 0 is the
/// root producer; the PEs of level `i` each serve `fanout[i]` PEs of level
/// `i + 1`; the PEs of the last level are consumers. PEs are numbered level
/// by level, so a PE's parent has a smaller index.
///
/// ```
/// use treelb::strategy::multilevel::ProducerTree;
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

    /// The tree of a run on `p` PEs: the given fan-outs, or (empty) the
    /// [`default_levels`] of `p` with the fan-outs of [`default_fanout`].
    ///
    /// ```
    /// use treelb::strategy::multilevel::ProducerTree;
    /// assert_eq!(ProducerTree::for_run(8, &[]).levels(), 2); // one producer, 7 consumers
    /// assert_eq!(ProducerTree::for_run(8, &[2]).parent(3), Some(1));
    /// ```
    pub fn for_run(p: usize, fanout: &[usize]) -> Self {
        if fanout.is_empty() {
            ProducerTree::with_levels(p, default_levels(p))
        } else {
            ProducerTree::new(p, fanout)
        }
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

/// The constant of the root's degree, `d₀ = c · p^(1/ℓ) · (ln p)^((ℓ−1)/2)`:
/// Kimura and Ichiyoshi's Theorem 4 gives the shape, not the constant. It is
/// fitted to the simulated optima of their model (two levels, exponential
/// subtasks): the best root fan-out between the grid points is 2.27, 2.42
/// and 2.15 times √(p ln p) at p = 2^8, 2^10 and 2^12, geometric mean 2.28
/// (`docs/reproductions/`, section 4, where the default tree is checked
/// against the best one).
pub const ROOT_DEGREE_CONSTANT: f64 = 2.28;

/// The fan-out per level of `levels` producer levels for `p` PEs: the root's
/// degree after Kimura and Ichiyoshi's Theorem 4,
/// `d₀ = c · p^(1/ℓ) · (ln p)^((ℓ−1)/2)` with `c` =
/// [`ROOT_DEGREE_CONSTANT`], capped at `p − 1`, and the levels below it
/// uniform, so that the tree holds `p` PEs.
///
/// ```
/// use treelb::strategy::multilevel::default_fanout;
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
    let root =
        (ROOT_DEGREE_CONSTANT * pf.powf(1.0 / l) * pf.ln().max(1.0).powf((l - 1.0) / 2.0)).round() as usize;
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

/// The generation of the pieces that a producer of `level` hands out
/// under granularity control ([`Multilevel::with_grain`]): each level
/// cuts `pieces` times its fan-out pieces from the piece it got,
/// `Σ_{i ≤ level} ⌈log₂(pieces · fᵢ)⌉` splits below the root, a split
/// standing for a halving. The grain of level ℓ is then about
/// `W / Π_{i ≤ ℓ} (pieces · fᵢ)`: [Kimura & Ichiyoshi 1992]'s grains, each level's
/// pieces a fixed number per PE of the level below, so that every producer
/// has pieces for each child and then some for the children that finish
/// first.
///
/// ```
/// use treelb::strategy::multilevel::{ProducerTree, grain_generation};
/// let tree = ProducerTree::new(1 + 16 + 64, &[16, 4]);
/// assert_eq!(grain_generation(&tree, 0, 2), 5); // 32 pieces for 16 children
/// assert_eq!(grain_generation(&tree, 1, 2), 5 + 3); // then 8 for 4 each
/// ```
pub fn grain_generation(tree: &ProducerTree, level: u32, pieces: u32) -> u32 {
    let fanout = tree.fanout();
    (0..=level as usize)
        .map(|i| {
            let f = fanout[i.min(fanout.len() - 1)].max(1) as u64;
            (u64::from(pieces.max(1)) * f).next_power_of_two().trailing_zeros()
        })
        .sum()
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

/// The most PEs a fan-out may name (a wider node serves too many children
/// to be a producer).
pub const MAX_FANOUT: usize = 4096;

/// The machine of the multi-level scheme: an idle PE asks its producer (the
/// root producer, which has none, waits for the end); a busy PE splits for
/// a child that asks; an idle one holds the child's request and serves it
/// after its next slice of work.
///
/// ```
/// use treelb::strategy::{Action, Actions, Balance, Event};
/// use treelb::strategy::multilevel::{Multilevel, ProducerTree};
/// let tree = ProducerTree::new(7, &[2, 2]);
/// let mut m = Multilevel::new(&tree, 2);
/// let mut out = Actions::new();
/// m.on(Event::Idle { local_work: false }, &mut out);
/// assert_eq!(out.to_vec(), [Action::Request { to: 0 }]);
/// out.clear();
/// m.on(Event::Request { from: 5, busy: false }, &mut out); // held, not refused
/// assert!(out.is_empty());
/// m.on(Event::Answer { from: 0, work: true }, &mut out);
/// m.on(Event::Slice { load: 9 }, &mut out); // working again: serve it
/// assert_eq!(out.to_vec(), [Action::Give { to: 5 }]);
/// ```
#[derive(Clone, Debug)]
pub struct Multilevel {
    parent: Option<usize>,
    /// Granularity control: the least generation of the pieces this PE
    /// hands its children ([`Action::Produce`]); `None`: the parts as the
    /// work splits them ([`Action::Give`]).
    grain: Option<u32>,
    pending: bool,
    /// Children's requests held while this PE had nothing to give, oldest
    /// first.
    held: std::collections::VecDeque<usize>,
    /// The run is over: refuse instead of holding.
    over: bool,
    tally: Tally,
}

impl Multilevel {
    /// PE `me`'s machine in `tree`, without granularity control: a child
    /// gets the part its producer's piece splits off.
    pub fn new(tree: &ProducerTree, me: usize) -> Self {
        Multilevel::with_grain(tree, me, 0)
    }

    /// PE `me`'s machine in `tree` with [Kimura & Ichiyoshi 1992]'s
    /// granularity control: a producer of level ℓ hands out pieces of its
    /// level's grain, [`grain_generation`]`(tree, ℓ, pieces)` — its
    /// children's pieces about `pieces` times smaller than its own, for
    /// each of them. `pieces` = 0: no control ([`new`](Self::new)).
    ///
    /// ```
    /// use treelb::strategy::{Action, Actions, Balance, Event};
    /// use treelb::strategy::multilevel::{Multilevel, ProducerTree};
    /// let tree = ProducerTree::new(7, &[2, 2]);
    /// let mut root = Multilevel::with_grain(&tree, 0, 4);
    /// let mut out = Actions::new();
    /// root.on(Event::Request { from: 1, busy: true }, &mut out);
    /// assert_eq!(out.to_vec(), [Action::Produce { to: 1, generation: 3 }]); // ⌈log₂(4·2)⌉
    /// ```
    pub fn with_grain(tree: &ProducerTree, me: usize, pieces: u32) -> Self {
        Multilevel {
            parent: tree.parent(me),
            grain: (pieces > 0).then(|| grain_generation(tree, tree.level(me), pieces)),
            pending: false,
            held: Default::default(),
            over: false,
            tally: Tally::default(),
        }
    }
}

impl Balance for Multilevel {
    fn on(&mut self, event: Event, out: &mut Actions) {
        match event {
            Event::Idle { .. } => {
                if !self.pending
                    && let Some(to) = self.parent
                {
                    self.pending = true;
                    emit(out, &mut self.tally, Action::Request { to });
                }
            }
            Event::Request { from, busy } if busy || self.over => match self.grain {
                Some(generation) if busy => {
                    self.tally.requests_received += 1;
                    emit(out, &mut self.tally, Action::Produce { to: from, generation });
                }
                _ => answer_request(from, busy, out, &mut self.tally),
            },
            Event::Request { from, .. } => {
                self.tally.requests_received += 1;
                self.held.push_back(from);
            }
            Event::Slice { .. } | Event::Exhausted => match self.grain {
                // Under granularity control the pieces wait cut in the
                // pool: a slice serves as many held requests as it can,
                // and so does the end of a piece, before the next one from
                // the pool (a piece worked out within one slice would
                // leave them waiting; with nothing left to give the answer
                // is "no work" and the child asks again).
                Some(generation) => {
                    for _ in 0..Actions::CAPACITY / 2 {
                        let Some(to) = self.held.pop_front() else { break };
                        emit(out, &mut self.tally, Action::Produce { to, generation });
                    }
                }
                None if event == Event::Exhausted => {}
                None => {
                    if let Some(to) = self.held.pop_front() {
                        emit(out, &mut self.tally, Action::Give { to });
                    }
                }
            },
            Event::Over => {
                self.over = true;
                for _ in 0..Actions::CAPACITY {
                    let Some(to) = self.held.pop_front() else { break };
                    emit(out, &mut self.tally, Action::Refuse { to });
                }
            }
            Event::Answer { work, .. } => {
                self.pending = false;
                self.tally.requests_failed += u64::from(!work);
            }
            Event::LoadQuery { from } => emit(out, &mut self.tally, Action::ReplyLoad { to: from }),
            _ => {}
        }
    }

    /// Held requests are served after a slice.
    fn wants_slices(&self) -> bool {
        true
    }

    fn tally(&self) -> Tally {
        self.tally
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
}
