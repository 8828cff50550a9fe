//! The sequential baseline: the same node code, no runtime.
//!
//! Efficiency is measured against these functions. [`run_search`] is a plain
//! depth-first loop over [`Search::expand`] with one reusable stack — no levels,
//! no budget, no split bookkeeping — so it is the fastest way to run the
//! application's own code on one core.

use crate::Work;
use crate::search::{Children, Search};

/// Expands every node of `search` depth-first; returns the output and the
/// number of nodes expanded.
///
/// ```
/// use treelb::search::{Children, Search};
/// struct Path(u32);
/// impl Search for Path {
///     type Node = u32;
///     type Output = u64;
///     fn root(&self) -> u32 { 0 }
///     fn expand(&self, d: u32, acc: &mut u64, c: &mut Children<'_, u32>) {
///         *acc += u64::from(d);
///         if d < self.0 { c.push(d + 1) }
///     }
/// }
/// assert_eq!(treelb::seq::run_search(&Path(4)), (10, 5));
/// ```
pub fn run_search<S: Search>(search: &S) -> (S::Output, u64) {
    let mut acc = S::Output::default();
    let mut stack = Vec::new();
    Children::new(&mut stack).push(search.root());
    let mut nodes = 0u64;
    while let Some(entry) = stack.pop() {
        search.expand(entry.node, &mut acc, &mut Children::new(&mut stack));
        nodes += 1;
        // A decision search stops at its first witness; checking every 1024
        // nodes keeps the check off the per-node path.
        if nodes.is_multiple_of(1024) && search.should_stop() {
            break;
        }
    }
    (acc, nodes)
}

/// Units per slice of [`run_work`] between two checks of `should_stop`.
const SLICE: u64 = 1 << 16;

/// Works a whole piece on one core, with no splits; returns the output and the
/// number of work units done.
pub fn run_work<W: Work>(mut piece: W) -> (W::Output, u64) {
    let mut acc = W::Output::default();
    let mut units = 0;
    loop {
        let progress = piece.work(SLICE, &mut acc);
        units += progress.used(SLICE);
        if progress.is_exhausted() || piece.should_stop() {
            return (acc, units);
        }
    }
}

/// Works a piece to the end the hard way for its splits: in slices of
/// `slice` units, splitting every piece after each of its slices and
/// working both halves the same way. Returns the merged output, which must
/// equal [`run_work`]'s for any piece whose split neither loses nor
/// duplicates work — the check an application's tests make of its split.
///
/// ```
/// use treelb::search::{BinaryTree, DfsWork, SplitPolicy};
/// let tree = BinaryTree(10);
/// for policy in SplitPolicy::ALL {
///     let piece = DfsWork::new(&tree, policy);
///     assert_eq!(treelb::seq::run_splitting(piece, 3), tree.nodes());
/// }
/// ```
pub fn run_splitting<W: Work>(piece: W, slice: u64) -> W::Output {
    use crate::Reduce;
    let mut total = W::Output::default();
    let mut pieces = vec![piece];
    while let Some(mut piece) = pieces.pop() {
        let mut acc = W::Output::default();
        let done = piece.work(slice, &mut acc).is_exhausted();
        total.merge(acc);
        if !done {
            if let Some(other) = piece.split() {
                pieces.push(other);
            }
            pieces.push(piece);
        }
    }
    total
}
