//! Initial distribution of the root problem.
//!
//! * [`Init::Root`]: PE 0 starts with the root, every other PE starts idle and
//!   gets work by balancing ([Sanders 1999], Figure 1).
//! * [`Init::Selective`]: selective initialization ([Sanders 1994] §6). The root is
//!   broadcast to every PE and each PE splits it ⌈log₂ P⌉ times on its own,
//!   keeping at split `k` the half that bit `k` of its index selects. No
//!   message carries work, and after the broadcast all PEs are busy at once,
//!   instead of after the Θ(log P) rounds of doubling that random polling needs
//!   from a single root.
//!
//! [`selective`] computes the piece of one PE. It relies on the determinism of
//! [`Work`]: every PE that holds the same piece splits it the same way. When a
//! piece is atomic it first does single units of work on it until it splits;
//! all PEs sharing that piece do the same units, and only one of them — the
//! group's lowest index — keeps their output, so nothing is counted twice. When
//! `P` is not a power of two, a group without any member whose bit `k` is set
//! does not split at level `k`, so no half is left without an owner.

use std::fmt;
use std::str::FromStr;

use crate::{Progress, Reduce, Work};

/// How the root problem reaches the PEs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Init {
    /// PE 0 holds the root; the others start idle.
    #[default]
    Root,
    /// Every PE splits a copy of the root by the bits of its index.
    Selective,
}

impl Init {
    /// Every initialization, in documentation order.
    pub const ALL: [Init; 2] = [Init::Root, Init::Selective];

    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Init::Root => "root",
            Init::Selective => "selective",
        }
    }

    /// What it does, in one line (for listings such as `--help`).
    pub fn description(self) -> &'static str {
        match self {
            Init::Root => "PE 0 starts with the root; the others steal",
            Init::Selective => "the root is split by the bits of the PE index before the run",
        }
    }
}

impl fmt::Display for Init {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Init {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Init::ALL
            .into_iter()
            .find(|i| i.name() == s)
            .ok_or_else(|| format!("unknown initialization `{s}` (expected one of: root, selective)"))
    }
}

/// One PE's share of the root after selective initialization.
#[derive(Debug)]
pub struct Share<W: Work> {
    /// The piece this PE starts with, or `None` if nothing is left for it.
    pub piece: Option<W>,
    /// The output of the work done to make atomic pieces splittable, if this PE
    /// is the one that keeps it.
    pub output: W::Output,
    /// The work units behind `output`.
    pub units: u64,
}

/// The piece that PE `pe` of `p` starts with under selective initialization.
///
/// The shares of PEs `0..p` partition the root: working every share to the
/// end gives exactly the output of working the root alone.
///
/// ```
/// use treelb::init::selective;
/// use treelb::search::{BinaryTree, DfsWork, SplitPolicy};
/// use treelb::{seq, Reduce};
///
/// let tree = BinaryTree(12);
/// let root = DfsWork::new(&tree, SplitPolicy::OldestHalf);
/// let mut total = 0u64;
/// for pe in 0..5 {
///     let share = selective(&root, pe, 5);
///     total.merge(share.output);
///     if let Some(piece) = share.piece {
///         total.merge(seq::run_work(piece).0);
///     }
/// }
/// assert_eq!(total, (1 << 13) - 1);
/// ```
pub fn selective<W: Work + Clone>(root: &W, pe: usize, p: usize) -> Share<W> {
    assert!(pe < p, "PE index {pe} out of range for {p} PEs");
    let mut piece = root.clone();
    let mut output = W::Output::default();
    let mut units = 0;
    let mut span = 1usize; // 2^k at level k
    while span < p {
        // The PEs sharing `piece` agree on the low k bits; the lowest of them is `low`.
        let low = pe & (span - 1);
        if low + span < p {
            let other = loop {
                if let Some(other) = piece.split() {
                    break Some(other);
                }
                let mut scratch = W::Output::default();
                let progress = piece.work(1, &mut scratch);
                if pe == low {
                    output.merge(scratch);
                    units += progress.used(1);
                }
                if let Progress::Exhausted { .. } = progress {
                    break None;
                }
            };
            match other {
                None => return Share { piece: None, output, units },
                Some(other) if pe & span != 0 => piece = other,
                Some(_) => {}
            }
        }
        span <<= 1;
    }
    Share { piece: Some(piece), output, units }
}

/// A pending subtree of [`selective_shares`]: the piece (`None` once
/// exhausted), its lowest index, the span, and the output and units credited
/// so far to that lowest index.
type Subtree<W> = (Option<W>, usize, usize, <W as Work>::Output, u64);

/// The shares of several indices at once: for each index in `wanted` (each
/// below `p`), the share [`selective`] gives it, computed in one descent of
/// the splitting tree instead of one descent per index. A PE that owns many
/// parts of a static assignment splits the root's upper levels once, and a
/// root that must be worked before it splits (an atomic piece) is worked
/// once per level, not once per part. Indices are returned in the order of
/// `wanted`; duplicates are answered once.
///
/// ```
/// use treelb::init::{selective, selective_shares};
/// use treelb::search::{BinaryTree, DfsWork, SplitPolicy};
///
/// let tree = BinaryTree(10);
/// let root = DfsWork::new(&tree, SplitPolicy::OldestHalf);
/// let shares = selective_shares(&root, &[1, 4, 6], 8);
/// assert_eq!(shares.len(), 3);
/// for (index, share) in shares {
///     let one = selective(&root, index, 8);
///     assert_eq!((share.output, share.units), (one.output, one.units));
/// }
/// ```
pub fn selective_shares<W: Work + Clone>(root: &W, wanted: &[usize], p: usize) -> Vec<(usize, Share<W>)> {
    assert!(wanted.iter().all(|&i| i < p), "share indices must be below {p}");
    let mut wanted: Vec<usize> = wanted.to_vec();
    wanted.sort_unstable();
    wanted.dedup();
    let mut is_wanted = vec![false; p];
    for &i in &wanted {
        is_wanted[i] = true;
    }
    let everyone = wanted.len() == p;
    // The indices of the subtree (low, span): i ≡ low (mod span), i < p.
    // Checking them costs p / span, so a whole descent costs O(p log p).
    let members = move |low: usize, span: usize| (low..p).step_by(span);
    let any_wanted = |low: usize, span: usize| {
        if everyone { low < p } else { members(low, span).any(|i| is_wanted[i]) }
    };
    let mut found: Vec<(usize, Share<W>)> = Vec::with_capacity(wanted.len());
    // Pending subtrees: the piece, its lowest index, the span, and the
    // output and units credited so far to that lowest index.
    let mut stack: Vec<Subtree<W>> = Vec::new();
    if !wanted.is_empty() {
        stack.push((Some(root.clone()), 0, 1, W::Output::default(), 0));
    }
    while let Some((piece, low, mut span, mut output, mut units)) = stack.pop() {
        let Some(mut piece) = piece else {
            // An exhausted subtree: its lowest index keeps the credit, the
            // others get nothing.
            for i in members(low, span).filter(|&i| is_wanted[i]) {
                let (output, units) =
                    if i == low { (std::mem::take(&mut output), units) } else { (W::Output::default(), 0) };
                found.push((i, Share { piece: None, output, units }));
            }
            continue;
        };
        // Levels with no second index below p do not split.
        while span < p && low + span >= p {
            span <<= 1;
        }
        if span >= p {
            found.push((low, Share { piece: Some(piece), output, units }));
            continue;
        }
        let other = loop {
            if let Some(other) = piece.split() {
                break Some(other);
            }
            let progress = piece.work(1, &mut output);
            units += progress.used(1);
            if let Progress::Exhausted { .. } = progress {
                break None;
            }
        };
        let next = span << 1;
        match other {
            Some(other) => {
                if any_wanted(low + span, next) {
                    stack.push((Some(other), low + span, next, W::Output::default(), 0));
                }
                if any_wanted(low, next) {
                    stack.push((Some(piece), low, next, output, units));
                }
            }
            None => stack.push((None, low, span, output, units)),
        }
    }
    // Only wanted indices were produced (a leaf's index is its subtree's
    // only one, and it was wanted or the subtree was not pushed).
    found.retain(|(i, _)| wanted.binary_search(i).is_ok());
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{Children, DfsWork, Search, SplitPolicy};
    use crate::seq;

    /// A path of `n` nodes whose last node has `fan` leaf children: the root is
    /// atomic for a long time, so selective initialization must work first.
    struct Broom {
        n: u32,
        fan: u32,
    }

    impl Search for Broom {
        type Node = u32;
        type Output = u64;
        fn root(&self) -> u32 {
            0
        }
        fn expand(&self, d: u32, acc: &mut u64, c: &mut Children<'_, u32>) {
            *acc += u64::from(d) + 1;
            if d + 1 < self.n {
                c.push(d + 1);
            } else if d + 1 == self.n {
                for _ in 0..self.fan {
                    c.push(self.n + 7);
                }
            }
        }
    }

    #[test]
    fn shares_partition_the_root_for_every_p() {
        for fan in [0, 1, 3, 40] {
            let tree = Broom { n: 9, fan };
            let (expected, nodes) = seq::run_search(&tree);
            for policy in SplitPolicy::ALL {
                let root = DfsWork::new(&tree, policy);
                for p in 1..=17 {
                    let mut total = 0u64;
                    let mut units = 0;
                    for pe in 0..p {
                        let share = selective(&root, pe, p);
                        total.merge(share.output);
                        units += share.units;
                        if let Some(piece) = share.piece {
                            let (out, u) = seq::run_work(piece);
                            total.merge(out);
                            units += u;
                        }
                    }
                    assert_eq!((total, units), (expected, nodes), "fan {fan}, {policy}, p = {p}");
                }
            }
        }
    }

    #[test]
    fn shares_of_many_indices_equal_the_shares_one_by_one() {
        for fan in [0, 1, 3, 40] {
            let tree = Broom { n: 9, fan };
            for policy in SplitPolicy::ALL {
                let root = DfsWork::new(&tree, policy);
                for p in 1..=17 {
                    for stride in 1..=3 {
                        let wanted: Vec<usize> = (0..p).step_by(stride).collect();
                        let many = selective_shares(&root, &wanted, p);
                        assert_eq!(many.len(), wanted.len(), "fan {fan}, {policy}, p = {p}");
                        for (index, share) in many {
                            let one = selective(&root, index, p);
                            let what = format!("fan {fan}, {policy}, p = {p}, index {index}");
                            assert_eq!((share.output, share.units), (one.output, one.units), "{what}");
                            let run = |piece: Option<DfsWork<'_, Broom>>| piece.map(seq::run_work);
                            assert_eq!(run(share.piece), run(one.piece), "{what}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn init_names_round_trip() {
        for init in Init::ALL {
            assert_eq!(init.name().parse::<Init>(), Ok(init));
        }
        assert!("everywhere".parse::<Init>().is_err());
    }
}
