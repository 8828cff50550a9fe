//! Static assignment ([Lecture, load balancing] "Static Load Balancing"; the Mandelbrot
//! example's "static load balancing superior, if done at random"): the root
//! is cut into parts before the run, each part goes to one PE once, and
//! nothing moves afterwards.
//!
//! The cut is selective initialization's ([`crate::init::selective_shares`]):
//! [`STATIC_PARTS_PER_PE`] parts per PE or more, a power of two, so that the
//! parts are the leaves of one splitting tree; they are assigned in
//! contiguous blocks, round robin, or uniformly at random
//! ([`StaticAssignment`]). Every driver cuts the same way (the MPI ranks
//! each cut their own copy of the root identically), and each PE keeps its
//! parts in its pool and works them oldest first.

use crate::Strategy;
use crate::rng::SplitMix64;

use super::{Action, Actions, Balance, Event, Tally, emit};

/// Parts per PE that static assignment cuts the root into (at least; the
/// number of parts is a power of two).
pub const STATIC_PARTS_PER_PE: usize = 16;

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
    /// use treelb::strategy::static_assign::StaticAssignment;
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
                let mut rng = SplitMix64::stream(seed, 0, 0x5747_1C0F);
                (0..pieces).map(|_| rng.below(p as u64) as usize).collect()
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

    /// [`shares_of`](Self::shares_of) every PE of `0..p` at once, in one
    /// pass over the parts (O(parts), where asking PE by PE costs
    /// O(p · parts)).
    ///
    /// ```
    /// use treelb::Strategy;
    /// use treelb::strategy::static_assign::StaticAssignment;
    /// let cyclic = StaticAssignment::new(Strategy::StaticCyclic, 3, 2, 0);
    /// let all = cyclic.shares_by_pe(3);
    /// for pe in 0..3 {
    ///     assert_eq!(all[pe], cyclic.shares_of(pe));
    /// }
    /// ```
    pub fn shares_by_pe(&self, p: usize) -> Vec<Vec<usize>> {
        let mut all = vec![Vec::new(); p];
        for (j, &pe) in self.owner.iter().enumerate() {
            if let Some(list) = all.get_mut(pe) {
                list.push(self.reverse(j));
            }
        }
        all
    }

    fn reverse(&self, j: usize) -> usize {
        if self.bits == 0 { 0 } else { j.reverse_bits() >> (usize::BITS - self.bits) }
    }
}

/// The machine of static assignment: nothing to decide at run time.
#[derive(Clone, Debug, Default)]
pub struct Static {
    tally: Tally,
}

impl Static {
    /// A PE's machine.
    pub fn new() -> Self {
        Static::default()
    }
}

impl Balance for Static {
    fn on(&mut self, event: Event, out: &mut Actions) {
        match event {
            // Nobody asks under static assignment; answer anyway.
            Event::Request { from, .. } => {
                self.tally.requests_received += 1;
                emit(out, &mut self.tally, Action::Refuse { to: from });
            }
            Event::LoadQuery { from } => emit(out, &mut self.tally, Action::ReplyLoad { to: from }),
            _ => {}
        }
    }

    fn tally(&self) -> Tally {
        self.tally
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_shares_partition_the_parts() {
        for strategy in [Strategy::StaticBlock, Strategy::StaticCyclic, Strategy::StaticRandom] {
            for p in 1..12 {
                let a = StaticAssignment::new(strategy, p, 4, 9);
                assert!(a.pieces().is_power_of_two() && a.pieces() >= 4 * p);
                let mut all: Vec<usize> = (0..p).flat_map(|pe| a.shares_of(pe)).collect();
                let by_pe: Vec<usize> = a.shares_by_pe(p).into_iter().flatten().collect();
                all.sort_unstable();
                let mut sorted = by_pe.clone();
                sorted.sort_unstable();
                assert_eq!(sorted, all);
                assert_eq!(all, (0..a.pieces()).collect::<Vec<_>>());
            }
        }
    }
}
