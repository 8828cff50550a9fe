//! Counting the solutions of the N-Queens problem by backtracking.
//!
//! Queens are placed row by row; a node is a partial placement, stored as
//! three bitsets of the attacked columns. By default the whole tree is
//! searched — no symmetry is exploited — so every solution is one leaf and
//! the tree keeps its natural irregularity, which is what a load balancer
//! should face.
//!
//! [`NQueens::with_mirror`] searches half of it instead, as the fastest
//! counting programs do: the mirror image of a placement (column `c` to
//! `n - 1 - c`) is a placement, and its subtree has as many nodes and
//! solutions, so only the placements whose first queen stands left of the
//! middle are searched and counted twice. On odd boards a first queen on the
//! middle column is its own mirror image; below it the second queen is never
//! on the middle column, so the same halving applies one row further down.
//! The counts are those of the whole tree (the nodes reported are the tree's
//! nodes, not the ones visited); the expansions, the runtime's units of
//! work, are about half as many.
//!
//! # The counting kernel
//!
//! Nodes with at most [`NQueens::bulk_rows`] rows left are counted with
//! their whole subtree in one expansion, and [`NQueens::count_sequential`]
//! counts the whole tree that way. A node is counted when its parent
//! generates it: a node's children are the bits of its free set `f`, so
//! `popcount(f)` of them are counted at once, and only those with a free
//! column of their own are entered. Every node below the starting one has
//! exactly one parent, so it is counted exactly once, a solution when it
//! fills the last row. Three compilations ([`Kernel`]) count the same
//! nodes; [`NQueens::new`] takes the fastest the processor has:
//!
//! * [`Kernel::Portable`] and [`Kernel::Bmi`]: a recursion over the rows,
//!   which finishes the last two rows without entering them (a node with two
//!   rows left has at most two children, each a solution if its one free
//!   column is unattacked). Its floor is a mispredicted branch at the end of
//!   nearly every child loop, some 6 ns per node.
//! * [`Kernel::Avx512`] (boards up to 16 columns): subtrees of at least
//!   8 rows are cut breadth first into at least 256 tasks, which 16
//!   depth-first searches, one per vector lane, take in turn; each step of
//!   the loop moves every lane one edge down or up its own tree with no
//!   branch per lane, keeping the path reversible so that a lane's stack
//!   needs one word per row. Smaller subtrees use an explicit stack that
//!   builds a node's children in the lanes at once and pushes only those
//!   with children (`vpcompressd`). The details and why the counts are
//!   exact are in the kernel's source.
//!
//! ```
//! use treelb_apps::nqueens::NQueens;
//! let (result, _) = treelb::seq::run_search(&NQueens::new(8).unwrap());
//! assert_eq!(result.solutions, 92);
//! ```

use std::fmt;

#[cfg(target_arch = "x86_64")]
mod avx512;

use serde::Serialize;
use treelb::Reduce;
use treelb::search::{Children, Search};

/// The largest board size: columns are bits of a `u32`.
pub const MAX_N: u32 = 32;

/// The number of last rows that one expansion counts by itself, at most:
/// [`NQueens::new`] counts the subtrees of nodes with
/// `min(DEFAULT_BULK_ROWS, n - 4)` rows left in one expansion, so that the
/// top four rows are always expanded node by node.
///
/// On the boards that take seconds (n = 15, 16) such a subtree holds about
/// 12,000 nodes (n = 15, 11 rows: 13,980 subtrees) or 58,000 (n = 16, 12
/// rows: 19,688 subtrees), some 20 or 110 µs of work. The AVX-512 kernel
/// counts a subtree with 16 searches side by side after cutting it into
/// tasks, and that cutting and the lanes left idle by the last tasks cost a
/// few µs per expansion: subtrees this large keep the whole within about
/// 2 % of the kernel run over the whole tree, smaller ones do not (10 rows
/// at n = 15: +50 %; see `docs/benchmarks/2026-11-24-nqueens-simd/`). So
/// that slices stay short all the same, such an expansion costs
/// [`BULK_COST`] units of Δt, not one.
pub const DEFAULT_BULK_ROWS: u32 = 12;

/// The cost, in units of the runtime's slice Δt ([`Search::cost`]), of an
/// expansion that counts a whole subtree of the last rows; an expansion of
/// one node costs 1. With the default bulk rows a slice of Δt = 256 units
/// then holds four such expansions (some 0.1 ms of work at n = 15, 0.4 ms
/// at n = 16) instead of 256 (6 and 28 ms), and a PE answers a request as
/// soon, for a poll per four subtrees of thousands of nodes.
pub const BULK_COST: u64 = 64;

/// Subtrees with at least this many rows left are counted by 16 searches
/// side by side in the AVX-512 kernel.
#[cfg(target_arch = "x86_64")]
const LANE_ROWS: u32 = 8;

/// The N-Queens problem on an `n × n` board, `1 <= n <= 32`: count the ways
/// to place `n` queens so that none attacks another.
///
/// Nodes with at most [`bulk_rows`](NQueens::bulk_rows) rows left are
/// counted with their whole subtree in one expansion, by a bitboard kernel
/// that keeps the subtree's state in registers; every node is still counted
/// in [`NQueensResult::nodes`], so the counts do not depend on this setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NQueens {
    n: u32,
    /// The bitset of all `n` columns.
    all: u32,
    /// Nodes with at most this many rows left expand their whole subtree.
    bulk_rows: u32,
    /// Search only the left half of the board's mirror symmetry.
    mirror: bool,
    /// The compilation of the counting kernel that counts the bulk subtrees.
    kernel: Kernel,
}

/// The compilations of the counting kernel. [`NQueens::new`] takes the
/// fastest one that the processor has ([`Kernel::detect`]); the others stay
/// available to compare them ([`NQueens::with_kernel`]). They count the same
/// nodes and solutions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// The scalar recursion, for any processor.
    Portable,
    /// The scalar recursion compiled for BMI1 and POPCNT (x86-64).
    Bmi,
    /// The explicit DFS stack with the children of a node generated in the
    /// lanes of an AVX-512 vector (x86-64 with AVX-512F, BMI1 and POPCNT;
    /// boards up to 16 columns, larger ones use [`Kernel::Bmi`]).
    Avx512,
}

impl Kernel {
    /// Every kernel, slowest first.
    pub const ALL: [Kernel; 3] = [Kernel::Portable, Kernel::Bmi, Kernel::Avx512];

    /// Whether this processor can run the kernel.
    pub fn available(self) -> bool {
        match self {
            Kernel::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Bmi => {
                std::arch::is_x86_feature_detected!("bmi1") && std::arch::is_x86_feature_detected!("popcnt")
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => Kernel::Bmi.available() && std::arch::is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The fastest kernel this processor can run.
    pub fn detect() -> Kernel {
        Kernel::ALL.into_iter().rev().find(|k| k.available()).unwrap_or(Kernel::Portable)
    }

    /// The kernel's name, as the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            Kernel::Bmi => "bmi",
            Kernel::Avx512 => "avx512",
        }
    }
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

impl NQueensResult {
    /// The counts of `weight` subtrees like this one (a subtree and its
    /// mirror image under [`NQueens::with_mirror`]).
    #[inline]
    fn times(self, weight: u64) -> NQueensResult {
        NQueensResult { solutions: weight * self.solutions, nodes: weight * self.nodes }
    }
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
        Ok(NQueens {
            n,
            all: u32::MAX >> (32 - n),
            bulk_rows: DEFAULT_BULK_ROWS.min(n.saturating_sub(4)),
            mirror: false,
            kernel: Kernel::detect(),
        })
    }

    /// The same problem counted by `kernel`, or `None` if this processor
    /// cannot run it. The counts are the same.
    ///
    /// ```
    /// use treelb_apps::nqueens::{Kernel, NQueens};
    /// let q = NQueens::new(10).unwrap();
    /// let portable = q.with_kernel(Kernel::Portable).unwrap();
    /// assert_eq!(portable.count_sequential(), q.count_sequential());
    /// ```
    pub fn with_kernel(self, kernel: Kernel) -> Option<NQueens> {
        kernel.available().then_some(NQueens { kernel, ..self })
    }

    /// The counting kernel in use.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// The same problem searched over half of the board's mirror symmetry
    /// (`on = true`, see the [module documentation](self)) or over the whole
    /// tree (`on = false`, the default). The counts are the same.
    ///
    /// ```
    /// use treelb_apps::nqueens::NQueens;
    /// let whole = NQueens::new(9).unwrap().with_bulk_rows(0);
    /// let half = whole.with_mirror(true);
    /// let (a, a_expanded) = treelb::seq::run_search(&whole);
    /// let (b, b_expanded) = treelb::seq::run_search(&half);
    /// assert_eq!((a.solutions, a.nodes), (352, 8_394));
    /// assert_eq!(a, b);
    /// assert_eq!(half.count_sequential(), a);
    /// assert!(2 * b_expanded < a_expanded + 100);
    /// ```
    pub fn with_mirror(self, on: bool) -> NQueens {
        NQueens { mirror: on, ..self }
    }

    /// Whether only half of the mirror symmetry is searched.
    pub fn mirror(&self) -> bool {
        self.mirror
    }

    /// How many nodes of the whole tree `node` stands for: 2 below the
    /// halving (the node and its mirror image), 1 for the empty board and,
    /// on odd boards, for the first queen on the middle column; always 1
    /// without the mirror.
    #[inline]
    fn weight(&self, node: &NQueensNode) -> u64 {
        let halving = node.row == 0 || (node.row == 1 && self.n % 2 == 1 && node.cols == 1 << (self.n / 2));
        if self.mirror && !halving { 2 } else { 1 }
    }

    /// The columns a child of `node` (of weight 1 under the mirror) may take:
    /// the left half, and the middle column of an odd board on the first row.
    #[inline]
    fn halved(&self, node: &NQueensNode, free: u32) -> u32 {
        let left = (1u32 << (self.n / 2)) - 1;
        let middle = if node.row == 0 && self.n % 2 == 1 { 1 << (self.n / 2) } else { 0 };
        free & (left | middle)
    }

    /// The columns free for a queen on `node`'s next row.
    #[inline]
    fn free(&self, node: &NQueensNode) -> u32 {
        self.all & !(node.cols | node.diag_up | node.diag_down)
    }

    /// The child of `node` with a queen on column `bit`.
    #[inline]
    fn child(node: &NQueensNode, bit: u32) -> NQueensNode {
        NQueensNode {
            row: node.row + 1,
            cols: node.cols | bit,
            // Bits shifted beyond column n - 1 (or out of the u32) are off
            // the board; `all` masks them off where they are read.
            diag_up: (node.diag_up | bit) << 1,
            diag_down: (node.diag_down | bit) >> 1,
        }
    }

    /// The same problem with every node its own expansion (`rows = 0`), or
    /// with the subtrees of nodes with at most `rows` rows left counted in
    /// one expansion. The results are the same; only the number of
    /// expansions (the runtime's units of work) and the speed differ.
    ///
    /// ```
    /// use treelb_apps::nqueens::NQueens;
    /// let bulk = NQueens::new(8).unwrap().with_bulk_rows(5);
    /// let single = bulk.with_bulk_rows(0);
    /// let (a, a_expanded) = treelb::seq::run_search(&bulk);
    /// let (b, b_expanded) = treelb::seq::run_search(&single);
    /// assert_eq!((a.solutions, a.nodes), (92, 2_057));
    /// assert_eq!(a, b);
    /// assert_eq!(b_expanded, 2_057);
    /// assert!(a_expanded < 200);
    /// ```
    pub fn with_bulk_rows(self, rows: u32) -> NQueens {
        NQueens { bulk_rows: rows, ..self }
    }

    /// Nodes with at most this many rows left are counted with their
    /// subtree in one expansion.
    pub fn bulk_rows(&self) -> u32 {
        self.bulk_rows
    }

    /// Counts the whole tree with the bitboard kernel alone: no DFS stack,
    /// no runtime — the best sequential program for this tree, against which
    /// the runtime's cost is measured.
    ///
    /// ```
    /// use treelb_apps::nqueens::{NQueens, NQueensResult};
    /// let q = NQueens::new(8).unwrap();
    /// assert_eq!(q.count_sequential(), NQueensResult { solutions: 92, nodes: 2_057 });
    /// ```
    pub fn count_sequential(&self) -> NQueensResult {
        if self.mirror {
            self.count_halved(&NQueensNode::default())
        } else {
            self.subtree(&NQueensNode::default())
        }
    }

    /// The whole tree's counts below a node of weight 1 under the mirror:
    /// the halved children's subtrees counted twice, the middle one (a node
    /// of weight 1 again) by the same rule.
    fn count_halved(&self, node: &NQueensNode) -> NQueensResult {
        let mut out = NQueensResult { solutions: 0, nodes: 1 };
        if node.row == self.n {
            out.solutions = 1;
            return out;
        }
        let mut free = self.halved(node, self.free(node));
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            let child = Self::child(node, bit);
            if self.weight(&child) == 1 {
                out.merge(self.count_halved(&child));
            } else {
                let below = self.subtree(&child);
                out.merge(below.times(2));
            }
        }
        out
    }

    /// The solutions and nodes of the subtree of `node`, `node` included.
    #[inline]
    fn subtree(&self, node: &NQueensNode) -> NQueensResult {
        let mut out = NQueensResult { solutions: 0, nodes: 1 };
        let left = self.n - node.row;
        if left == 0 {
            out.solutions = 1;
        } else {
            let free = self.free(node);
            let (nodes, solutions) = self.below(node.cols, node.diag_up, node.diag_down, free, left);
            out.nodes += nodes;
            out.solutions += solutions;
        }
        out
    }

    /// The nodes and solutions strictly below a partial placement with
    /// `left >= 1` rows to fill, whose free columns on the next row are
    /// `free`, counted by the kernel chosen.
    #[inline]
    fn below(&self, cols: u32, up: u32, down: u32, free: u32, left: u32) -> (u64, u64) {
        let all = self.all;
        match self.kernel {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 if self.n <= avx512::LANES as u32 && left >= LANE_ROWS => {
                // SAFETY: as below.
                unsafe { avx512::below_lanes(all, cols, up, down, free, left) }
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 if self.n <= avx512::LANES as u32 && left >= 3 => {
                // SAFETY: `with_kernel` and `Kernel::detect` choose
                // `Avx512` only where the processor has AVX-512F, BMI1 and
                // POPCNT, and `all = (1 << n) - 1` with `n <= 16`.
                unsafe { avx512::below(all, cols, up, down, free, left) }
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Bmi | Kernel::Avx512 => {
                // SAFETY: `Bmi` and `Avx512` are chosen only where the
                // processor has BMI1 and POPCNT, the features `below_bmi`
                // is compiled for.
                unsafe { below_bmi(all, cols, up, down, free, left) }
            }
            _ => below_portable(all, cols, up, down, free, left),
        }
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
    fn cost(&self, node: &NQueensNode) -> u64 {
        if self.n - node.row <= self.bulk_rows { BULK_COST } else { 1 }
    }

    #[inline]
    fn expand(&self, node: NQueensNode, acc: &mut NQueensResult, children: &mut Children<'_, NQueensNode>) {
        let weight = self.weight(&node);
        if self.n - node.row <= self.bulk_rows {
            let below = self.subtree(&node);
            acc.merge(below.times(weight));
            return;
        }
        acc.nodes += weight;
        if node.row == self.n {
            acc.solutions += weight;
            return;
        }
        let mut free = self.free(&node);
        if self.mirror && weight == 1 {
            free = self.halved(&node, free);
        }
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            children.push(Self::child(&node, bit));
        }
    }
}

/// The solutions below a partial placement with two rows left to fill and
/// free columns `free` on the next: each child has one column left, a
/// solution if no diagonal attacks it.
#[inline(always)]
fn last_two_rows(all: u32, cols: u32, up: u32, down: u32, free: u32) -> u64 {
    let mut rest = free;
    let mut solutions = 0u64;
    while rest != 0 {
        let bit = rest & rest.wrapping_neg();
        rest ^= bit;
        let f = all & !(cols | bit | (up | bit) << 1 | (down | bit) >> 1);
        solutions += u64::from(f != 0);
    }
    solutions
}

/// Defines one compilation of the counting kernel.
///
/// A recursion over the rows, with the counts in registers. Children are
/// counted in their parent's loop as they are generated (`popcount` of the
/// free columns) and only children that have children of their own are
/// entered. The last two rows are never entered: a child with one row left
/// to fill has at most one free column — its child, if any, is a solution —
/// and a child with two rows left has at most two children, each a solution
/// if its one free column is not attacked.
macro_rules! counting_kernel {
    ($(#[$attr:meta])* [$($qualifier:tt)*] $name:ident) => {
        $(#[$attr])*
        $($qualifier)* fn $name(all: u32, cols: u32, up: u32, down: u32, free: u32, left: u32) -> (u64, u64) {
            let children = u64::from(free.count_ones());
            if left == 1 {
                // Every child completes the board.
                return (children, children);
            }
            if left == 2 {
                let solutions = last_two_rows(all, cols, up, down, free);
                return (children + solutions, solutions);
            }
            let mut rest = free;
            let mut nodes = children;
            let mut solutions = 0u64;
            if left == 3 {
                // The children's two last rows, without a call per child.
                while rest != 0 {
                    let bit = rest & rest.wrapping_neg();
                    rest ^= bit;
                    let (c, u, d) = (cols | bit, (up | bit) << 1, (down | bit) >> 1);
                    let f = all & !(c | u | d);
                    let below = last_two_rows(all, c, u, d, f);
                    nodes += u64::from(f.count_ones()) + below;
                    solutions += below;
                }
                return (nodes, solutions);
            }
            while rest != 0 {
                let bit = rest & rest.wrapping_neg();
                rest ^= bit;
                let (c, u, d) = (cols | bit, (up | bit) << 1, (down | bit) >> 1);
                let f = all & !(c | u | d);
                if f != 0 {
                    #[allow(unused_unsafe)]
                    // SAFETY: the unsafe variant needs the features this
                    // call already runs with; the portable one needs none.
                    let (n, s) = unsafe { $name(all, c, u, d, f, left - 1) };
                    nodes += n;
                    solutions += s;
                }
            }
            (nodes, solutions)
        }
    };
}

counting_kernel!(
    /// The counting kernel for any processor.
    [] below_portable
);

#[cfg(target_arch = "x86_64")]
counting_kernel!(
    /// The counting kernel compiled for BMI1 and POPCNT.
    ///
    /// # Safety
    ///
    /// The processor must have BMI1 and POPCNT.
    #[target_feature(enable = "bmi1,popcnt")]
    [unsafe] below_bmi
);
