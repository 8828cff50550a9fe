//! Langford pairings L(2, N): the sequences of 1, 1, 2, 2, …, N, N in
//! which the two k's are k numbers apart (two of them for N = 3:
//! 3 1 2 1 3 2 and its reversal). Published counts (OEIS A014552, each
//! sequence and its reversal once): L(2,3) = 1, L(2,4) = 1, L(2,7) = 26,
//! L(2,8) = 150, L(2,11) = 17792, L(2,12) = 108144, L(2,15) = 39809640,
//! L(2,16) = 326721800; none for N ≡ 1, 2 (mod 4).
//!
//! A small search of one's own, the examples' search: its nodes serialize
//! (so that they cross between MPI ranks and into checkpoints).
//!
//! ```
//! use treelb::seq::run_search;
//! use treelb_apps::langford::Langford;
//!
//! let (sequences, _) = run_search(&Langford::new(7));
//! assert_eq!(Langford::pairings(sequences), 26);
//! ```

use serde::{Deserialize, Serialize};
use treelb::search::{Children, Search};

/// The search for the Langford pairings of 1..=N: the sequence's 2N
/// places, filled from the largest pair down.
#[derive(Clone, Copy, Debug)]
pub struct Langford {
    n: u32,
}

impl Langford {
    /// The largest N (the places of a node are the bits of a `u64`).
    pub const MAX_N: u32 = 31;

    /// The pairings of 1..=`n`.
    ///
    /// # Panics
    /// If `n` is 0 or above [`Langford::MAX_N`].
    pub fn new(n: u32) -> Self {
        assert!((1..=Self::MAX_N).contains(&n), "Langford pairings of 1..={n}: N from 1 to {}", Self::MAX_N);
        Langford { n }
    }

    /// N.
    pub fn n(&self) -> u32 {
        self.n
    }

    /// The number of pairings from the search's output, which counts each
    /// sequence and its reversal.
    pub fn pairings(sequences: u64) -> u64 {
        sequences / 2
    }
}

/// A partial sequence: the places taken, and the pair to place next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Partial {
    /// The places taken, one bit each.
    pub taken: u64,
    /// The pair to place next; 0 once all are placed.
    pub next: u32,
}

impl Search for Langford {
    type Node = Partial;
    /// Sequences below a node, each and its reversal.
    type Output = u64;

    fn root(&self) -> Partial {
        Partial { taken: 0, next: self.n }
    }

    fn expand(&self, p: Partial, sequences: &mut u64, children: &mut Children<'_, Partial>) {
        if p.next == 0 {
            *sequences += 1;
            return;
        }
        let k = p.next;
        // The two k's at places i and i + k + 1.
        for i in 0..(2 * self.n).saturating_sub(k + 1) {
            let both = (1u64 << i) | (1u64 << (i + k + 1));
            if p.taken & both == 0 {
                children.push(Partial { taken: p.taken | both, next: k - 1 });
            }
        }
    }
}
