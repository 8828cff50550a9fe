//! Fork-join traversals of a [`Search`]: the code a rayon or chili user would
//! write for the same application, so that the engines differ only in their
//! scheduler.
//!
//! A node is expanded with the application's own [`Search::expand`]; its
//! children are then visited in parallel by recursive binary splitting of the
//! child list (`join(left half, right half)`), and the results merge by
//! [`Reduce`]. Two tunings, both what a user of these libraries does:
//!
//! * [`Cutoff::None`] — a `join` for every node with two or more children: the
//!   plain program. It pays one child list (a `Vec`) per inner node, because
//!   [`treelb::search::Children`] can only be built by `treelb`
//!   itself; leaves allocate nothing.
//! * [`Cutoff::Depth`] — `join` only above a depth; below it, each subtree runs
//!   as the sequential baseline ([`seq::run_search`] on the subtree): no
//!   scheduler and no allocation per node. The usual way to amortize
//!   fork-join overhead, and fragile on trees whose subtrees differ wildly in
//!   size (the binomial UTS trees), which is the case that it cannot know.
//!
//! The recursion is as deep as the tree (17,844 levels on T3L): the threads
//! that run it need large stacks ([`STACK_BYTES`]).

use treelb::Reduce;
use treelb::search::{Children, Search, expand_one};
use treelb::seq;

/// Stack size of the threads that run the recursive traversals: a few
/// hundred bytes per level and per halving of a child list, times the depth
/// of the deepest tree (T3L), with room to spare. Only touched pages count
/// in the resident set.
pub const STACK_BYTES: usize = 512 << 20;

/// Where a fork-join traversal stops forking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cutoff {
    /// Fork at every node with two or more children.
    None,
    /// Fork at nodes of depth below this; run deeper subtrees sequentially.
    Depth(u32),
}

impl Cutoff {
    fn is_sequential_at(self, depth: u32) -> bool {
        match self {
            Cutoff::None => false,
            Cutoff::Depth(d) => depth >= d,
        }
    }
}

/// The subtree below one node, as a search of its own, for the sequential
/// baseline to run.
struct Subtree<'a, S: Search> {
    search: &'a S,
    root: S::Node,
}

impl<S> Search for Subtree<'_, S>
where
    S: Search,
    S::Node: Clone + Sync,
{
    type Node = S::Node;
    type Output = S::Output;

    fn root(&self) -> S::Node {
        self.root.clone()
    }

    #[inline]
    fn expand(&self, node: S::Node, acc: &mut S::Output, children: &mut Children<'_, S::Node>) {
        self.search.expand(node, acc, children);
    }

    #[inline]
    fn cost(&self, node: &S::Node) -> u64 {
        self.search.cost(node)
    }

    fn should_stop(&self) -> bool {
        self.search.should_stop()
    }
}

fn sequential<S>(search: &S, node: S::Node) -> S::Output
where
    S: Search,
    S::Node: Clone + Sync,
{
    seq::run_search(&Subtree { search, root: node }).0
}

/// Counts the whole tree of `search` with `rayon::join`, on the current rayon
/// pool (call it inside [`rayon::ThreadPool::install`]).
pub fn rayon_search<S>(search: &S, cutoff: Cutoff) -> S::Output
where
    S: Search,
    S::Node: Clone + Sync,
{
    rayon_visit(search, search.root(), 0, cutoff)
}

fn rayon_visit<S>(search: &S, node: S::Node, depth: u32, cutoff: Cutoff) -> S::Output
where
    S: Search,
    S::Node: Clone + Sync,
{
    if cutoff.is_sequential_at(depth) {
        return sequential(search, node);
    }
    let mut acc = S::Output::default();
    let children = expand_one(search, node, &mut acc);
    acc.merge(rayon_visit_all(search, &children, depth + 1, cutoff));
    acc
}

fn rayon_visit_all<S>(search: &S, nodes: &[S::Node], depth: u32, cutoff: Cutoff) -> S::Output
where
    S: Search,
    S::Node: Clone + Sync,
{
    match nodes {
        [] => S::Output::default(),
        [node] => rayon_visit(search, node.clone(), depth, cutoff),
        _ => {
            let (left, right) = nodes.split_at(nodes.len() / 2);
            let (mut a, b) = rayon::join(
                || rayon_visit_all(search, left, depth, cutoff),
                || rayon_visit_all(search, right, depth, cutoff),
            );
            a.merge(b);
            a
        }
    }
}

/// Counts the whole tree of `search` with chili's `Scope::join`.
pub fn chili_search<S>(scope: &mut chili::Scope<'_>, search: &S, cutoff: Cutoff) -> S::Output
where
    S: Search,
    S::Node: Clone + Sync,
{
    chili_visit(scope, search, search.root(), 0, cutoff)
}

fn chili_visit<S>(
    scope: &mut chili::Scope<'_>,
    search: &S,
    node: S::Node,
    depth: u32,
    cutoff: Cutoff,
) -> S::Output
where
    S: Search,
    S::Node: Clone + Sync,
{
    if cutoff.is_sequential_at(depth) {
        return sequential(search, node);
    }
    let mut acc = S::Output::default();
    let children = expand_one(search, node, &mut acc);
    acc.merge(chili_visit_all(scope, search, &children, depth + 1, cutoff));
    acc
}

fn chili_visit_all<S>(
    scope: &mut chili::Scope<'_>,
    search: &S,
    nodes: &[S::Node],
    depth: u32,
    cutoff: Cutoff,
) -> S::Output
where
    S: Search,
    S::Node: Clone + Sync,
{
    match nodes {
        [] => S::Output::default(),
        [node] => chili_visit(scope, search, node.clone(), depth, cutoff),
        _ => {
            let (left, right) = nodes.split_at(nodes.len() / 2);
            let (mut a, b) = scope.join(
                |s| chili_visit_all(s, search, left, depth, cutoff),
                |s| chili_visit_all(s, search, right, depth, cutoff),
            );
            a.merge(b);
            a
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use treelb_apps::nqueens::NQueens;

    #[test]
    fn every_cutoff_gives_the_sequential_answer() {
        let problem = NQueens::new(9).unwrap();
        let (expected, _) = seq::run_search(&problem);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let chili = chili::ThreadPool::with_config(chili::Config {
            thread_count: std::num::NonZero::new(2),
            ..chili::Config::default()
        });
        for cutoff in [Cutoff::None, Cutoff::Depth(0), Cutoff::Depth(1), Cutoff::Depth(3), Cutoff::Depth(99)]
        {
            assert_eq!(pool.install(|| rayon_search(&problem, cutoff)), expected, "rayon {cutoff:?}");
            assert_eq!(chili_search(&mut chili.scope(), &problem, cutoff), expected, "chili {cutoff:?}");
        }
    }
}
