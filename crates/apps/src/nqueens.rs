//! Counting the solutions of the N-Queens problem by backtracking.
//!
//! Queens are placed row by row; a node is a partial placement, stored as
//! three bitsets of the attacked columns. The whole tree is searched — no
//! symmetry is exploited — so every solution is one leaf and the tree keeps
//! its natural irregularity, which is what a load balancer should face.
//!
//! ```
//! use treelb_apps::nqueens::NQueens;
//! let (result, _) = treelb::seq::run_search(&NQueens::new(8).unwrap());
//! assert_eq!(result.solutions, 92);
//! ```

use std::fmt;

use serde::Serialize;
use treelb::Reduce;
use treelb::search::{Children, Search};

/// The largest board size: columns are bits of a `u32`.
pub const MAX_N: u32 = 32;

/// The N-Queens problem on an `n × n` board, `1 <= n <= 32`: count the ways
/// to place `n` queens so that none attacks another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NQueens {
    n: u32,
    /// The bitset of all `n` columns.
    all: u32,
}

/// A partial placement: queens on rows `0..row`, and the columns that they
/// attack on row `row`, straight down and along both diagonals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
pub struct NQueensNode {
    /// The next row to place a queen on.
    pub row: u32,
    /// Columns holding a queen.
    pub cols: u32,
    /// Columns attacked along the diagonals going down towards higher columns.
    pub diag_up: u32,
    /// Columns attacked along the diagonals going down towards lower columns.
    pub diag_down: u32,
}

/// The result of an N-Queens search: the number of solutions, and the number
/// of nodes (partial placements) of the search tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
pub struct NQueensResult {
    /// The number of solutions.
    pub solutions: u64,
    /// The number of nodes of the search tree, the empty board included.
    pub nodes: u64,
}

impl Reduce for NQueensResult {
    #[inline]
    fn merge(&mut self, other: Self) {
        self.solutions += other.solutions;
        self.nodes += other.nodes;
    }
}

impl fmt::Display for NQueensResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} solutions, {} nodes", self.solutions, self.nodes)
    }
}

/// A board size outside `1..=32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("N-Queens board size n = {0} is not supported: it must be between 1 and 32")]
pub struct NQueensError(pub u32);

impl NQueens {
    /// The problem on an `n × n` board, for `1 <= n <= 32`.
    pub fn new(n: u32) -> Result<NQueens, NQueensError> {
        if !(1..=MAX_N).contains(&n) {
            return Err(NQueensError(n));
        }
        Ok(NQueens { n, all: u32::MAX >> (32 - n) })
    }

    /// The board size.
    pub fn n(&self) -> u32 {
        self.n
    }

    /// The number of solutions for board sizes up to 27, as published (OEIS
    /// A000170), or `None` for larger boards.
    pub fn known_solutions(n: u32) -> Option<u64> {
        const A000170: [u64; 28] = [
            1,
            1,
            0,
            0,
            2,
            10,
            4,
            40,
            92,
            352,
            724,
            2_680,
            14_200,
            73_712,
            365_596,
            2_279_184,
            14_772_512,
            95_815_104,
            666_090_624,
            4_968_057_848,
            39_029_188_884,
            314_666_222_712,
            2_691_008_701_644,
            24_233_937_684_440,
            227_514_171_973_736,
            2_207_893_435_808_352,
            22_317_699_616_364_044,
            234_907_967_154_122_528,
        ];
        A000170.get(usize::try_from(n).ok()?).copied()
    }
}

impl Search for NQueens {
    type Node = NQueensNode;
    type Output = NQueensResult;

    fn root(&self) -> NQueensNode {
        NQueensNode::default()
    }

    #[inline]
    fn expand(&self, node: NQueensNode, acc: &mut NQueensResult, children: &mut Children<'_, NQueensNode>) {
        acc.nodes += 1;
        if node.row == self.n {
            acc.solutions += 1;
            return;
        }
        let mut free = self.all & !(node.cols | node.diag_up | node.diag_down);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            children.push(NQueensNode {
                row: node.row + 1,
                cols: node.cols | bit,
                // Bits shifted beyond column n - 1 (or out of the u32) are off
                // the board; `all` masks them off above.
                diag_up: (node.diag_up | bit) << 1,
                diag_down: (node.diag_down | bit) >> 1,
            });
        }
    }
}
