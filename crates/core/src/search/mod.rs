//! Backtracking search as work: the [`Search`] trait and the DFS-stack adapter
//! [`DfsWork`].
//!
//! A search problem only says what its root is and how a node expands
//! ([`Search::expand`]: fold the node's contribution into the output, push its
//! children). [`DfsWork`] turns that into a [`Work`]: it keeps a depth-first
//! stack of open nodes, organised in *levels* — the children of one expansion
//! form one level, the oldest level at the bottom — and splits it by a
//! [`SplitPolicy`].

mod split;

pub use split::{ParseSplitPolicyError, SplitPolicy};

use crate::{Progress, Reduce, Work};

/// A tree search: a root and the rule that expands a node into its children.
///
/// `expand` must be deterministic and must not depend on the order in which
/// nodes are expanded (for counting and enumeration problems); then every
/// schedule of the same tree gives the same output.
pub trait Search: Sync {
    /// A node of the search tree: what must be stored to expand it later.
    type Node: Send;
    /// The result, merged over all nodes.
    type Output: Reduce;

    /// The root of the search tree.
    fn root(&self) -> Self::Node;

    /// Visits `node`: folds its contribution into `acc` and pushes its children
    /// onto `children`. The last child pushed is expanded first.
    fn expand(&self, node: Self::Node, acc: &mut Self::Output, children: &mut Children<'_, Self::Node>);
}

/// The place where [`Search::expand`] puts the children of a node: the top of
/// the DFS stack, so pushing allocates nothing once the stack has grown.
pub struct Children<'a, N> {
    stack: &'a mut Vec<N>,
}

impl<'a, N> Children<'a, N> {
    /// Wraps a stack: children are pushed on top of it.
    #[inline]
    pub fn new(stack: &'a mut Vec<N>) -> Self {
        Children { stack }
    }

    /// Pushes one child.
    #[inline]
    pub fn push(&mut self, child: N) {
        self.stack.push(child);
    }

    /// Reserves room for `additional` more children.
    #[inline]
    pub fn reserve(&mut self, additional: usize) {
        self.stack.reserve(additional);
    }
}

impl<N> Extend<N> for Children<'_, N> {
    #[inline]
    fn extend<I: IntoIterator<Item = N>>(&mut self, iter: I) {
        self.stack.extend(iter);
    }
}

/// A piece of a search: a DFS stack of open nodes, split by a [`SplitPolicy`].
///
/// One unit of work is the expansion of one node. The stack is kept in levels:
/// the children of one expansion form one level, so the bottom level is the
/// *oldest generation* of the lecture's rule (`002_…`, "Donating Work").
///
/// Invariants: `levels` holds the start index in `nodes` of every level, in
/// increasing order; every level is non-empty; `levels` is empty exactly when
/// `nodes` is.
pub struct DfsWork<'s, S: Search> {
    search: &'s S,
    nodes: Vec<S::Node>,
    levels: Vec<usize>,
    generation: u32,
    policy: SplitPolicy,
}

impl<'s, S: Search> DfsWork<'s, S> {
    /// The whole search: a stack holding only the root.
    ///
    /// ```
    /// use treelb::search::{Children, DfsWork, Search, SplitPolicy};
    /// use treelb::Work;
    ///
    /// /// A complete binary tree of the given height; counts its nodes.
    /// struct Binary(u32);
    /// impl Search for Binary {
    ///     type Node = u32; // depth
    ///     type Output = u64;
    ///     fn root(&self) -> u32 { 0 }
    ///     fn expand(&self, depth: u32, acc: &mut u64, children: &mut Children<'_, u32>) {
    ///         *acc += 1;
    ///         if depth < self.0 {
    ///             children.push(depth + 1);
    ///             children.push(depth + 1);
    ///         }
    ///     }
    /// }
    ///
    /// let tree = Binary(10);
    /// let mut a = DfsWork::new(&tree, SplitPolicy::OldestHalf);
    /// let (mut na, mut nb) = (0u64, 0u64);
    /// a.work(5, &mut na);
    /// let mut b = a.split().expect("five expansions leave open nodes");
    /// while !a.work(100, &mut na).is_exhausted() {}
    /// while !b.work(100, &mut nb).is_exhausted() {}
    /// assert_eq!(na + nb, (1 << 11) - 1);
    /// ```
    pub fn new(search: &'s S, policy: SplitPolicy) -> Self {
        Self::from_nodes(search, vec![search.root()], 0, policy)
    }

    /// A piece holding the given open nodes as one level, at a given generation.
    pub fn from_nodes(search: &'s S, nodes: Vec<S::Node>, generation: u32, policy: SplitPolicy) -> Self {
        let levels = if nodes.is_empty() { Vec::new() } else { vec![0] };
        DfsWork { search, nodes, levels, generation, policy }
    }

    /// The open nodes, bottom of the stack first.
    pub fn nodes(&self) -> &[S::Node] {
        &self.nodes
    }

    /// The number of open nodes on the stack.
    pub fn open_nodes(&self) -> usize {
        self.nodes.len()
    }

    /// The split policy of this piece (inherited by the pieces it splits off).
    pub fn policy(&self) -> SplitPolicy {
        self.policy
    }

    /// The search this piece belongs to.
    pub fn search(&self) -> &'s S {
        self.search
    }
}

impl<S: Search> Clone for DfsWork<'_, S>
where
    S::Node: Clone,
{
    fn clone(&self) -> Self {
        DfsWork {
            search: self.search,
            nodes: self.nodes.clone(),
            levels: self.levels.clone(),
            generation: self.generation,
            policy: self.policy,
        }
    }
}

impl<S: Search> std::fmt::Debug for DfsWork<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DfsWork")
            .field("open_nodes", &self.nodes.len())
            .field("levels", &self.levels)
            .field("generation", &self.generation)
            .field("policy", &self.policy)
            .finish()
    }
}

impl<S: Search> Work for DfsWork<'_, S> {
    type Output = S::Output;

    #[inline]
    fn work(&mut self, budget: u64, acc: &mut S::Output) -> Progress {
        let mut used = 0;
        while used < budget {
            let Some(node) = self.nodes.pop() else {
                return Progress::Exhausted { used };
            };
            // The popped node was the last of its level: the level is gone.
            if self.levels.last() == Some(&self.nodes.len()) {
                self.levels.pop();
            }
            let before = self.nodes.len();
            self.search.expand(node, acc, &mut Children::new(&mut self.nodes));
            if self.nodes.len() > before {
                self.levels.push(before);
            }
            used += 1;
        }
        if self.nodes.is_empty() { Progress::Exhausted { used } } else { Progress::Pending }
    }

    fn split(&mut self) -> Option<Self> {
        let given = split::take(self.policy, &mut self.nodes, &mut self.levels)?;
        self.generation += 1;
        Some(DfsWork::from_nodes(self.search, given, self.generation, self.policy))
    }

    #[inline]
    fn generation(&self) -> u32 {
        self.generation
    }

    #[inline]
    fn load(&self) -> u64 {
        self.nodes.len() as u64
    }
}

#[cfg(test)]
mod tests;
