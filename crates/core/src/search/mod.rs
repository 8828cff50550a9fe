//! Backtracking search as work: the [`Search`] trait and the DFS-stack adapter
//! [`DfsWork`].
//!
//! A search problem only says what its root is and how a node expands
//! ([`Search::expand`]: fold the node's contribution into the output, push its
//! children). [`DfsWork`] turns that into a [`Work`]: it keeps a depth-first
//! stack of open nodes, organised in *levels* — the children of one expansion
//! form one level, the oldest level at the bottom — and splits it by a
//! [`SplitPolicy`].

pub mod chain;
pub mod estimate;
mod split;

pub use split::{ParseSplitPolicyError, SplitPolicy};

use crate::{Progress, Reduce, Work};

/// A tree search: a root and the rule that expands a node into its children.
///
/// `expand` must be deterministic and must not depend on the order in which
/// nodes are expanded (for counting and enumeration problems); then every
/// schedule of the same tree gives the same output.
///
/// The complete binary tree of a given height, counting its nodes (this is
/// [`BinaryTree`]):
///
/// ```
/// use treelb::search::{Children, Search};
///
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
/// assert_eq!(treelb::seq::run_search(&Binary(10)).0, (1 << 11) - 1);
/// ```
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

    /// The work of expanding `node`, in the units that a slice of Δt
    /// ([`RunSpec::budget`](crate::spec::RunSpec::budget)) counts. Default:
    /// 1, one expansion. A search whose expansions differ in cost by orders
    /// of magnitude — one that counts a whole subtree of the last levels in
    /// one expansion — gives those expansions a larger cost, so that a slice
    /// stays about Δt plain expansions of work and a busy PE still answers
    /// a request within one such slice. A slice ends once its units are
    /// spent: it always expands at least one node. Asked once per
    /// expansion, before it; the units are what [`Progress`] and the
    /// statistics count.
    #[inline]
    fn cost(&self, node: &Self::Node) -> u64 {
        let _ = node;
        1
    }

    /// Whether the search is decided and every PE should stop now (a
    /// decision search found its witness; see [`crate::incumbent`]). Checked
    /// once per slice of work, not per node. Default: never.
    fn should_stop(&self) -> bool {
        false
    }

    /// Whether the search prunes against an incumbent that its copies in
    /// other processes must keep in step: a branch and bound whose best
    /// solution lives in an [`Incumbent`](crate::Incumbent). Across MPI
    /// ranks every rank has its own copy of the search, and the runtime
    /// refuses such a search unless its codec shares the incumbent
    /// (`treelb_mpi::wire::DfsCodec::with_shared`): without it each rank
    /// would prune against its own best solution only, and the best of the
    /// other ranks would never reach rank 0's answer. Default: no.
    fn keeps_incumbent(&self) -> bool {
        false
    }

    /// Writes the open nodes of a piece (bottom first, with their level
    /// marks) for a runtime that sends pieces to other processes or to a
    /// checkpoint. Default: each entry with its node's own `Serialize`.
    ///
    /// A search whose nodes hold their paths as chains of shared links
    /// overrides this and [`Search::deserialize_stack`] with
    /// [`chain::serialize_stack`] and [`chain::deserialize_stack`]: each
    /// node on its own would write its whole chain, `d²` links for a stack
    /// `d` levels deep; those write each link once (see [`chain`]).
    /// Reading back what this writes must give the same nodes, levels and
    /// order.
    fn serialize_stack<Z>(&self, stack: &[Entry<Self::Node>], serializer: Z) -> Result<Z::Ok, Z::Error>
    where
        Self: Sized,
        Z: serde::Serializer,
        Self::Node: serde::Serialize,
    {
        serializer.collect_seq(stack)
    }

    /// Reads what [`Search::serialize_stack`] wrote. Malformed input is an
    /// error, never a panic.
    fn deserialize_stack<'de, D>(&self, deserializer: D) -> Result<Vec<Entry<Self::Node>>, D::Error>
    where
        Self: Sized,
        D: serde::Deserializer<'de>,
        Self::Node: serde::Deserialize<'de>,
    {
        serde::Deserialize::deserialize(deserializer)
    }
}

/// The complete binary tree of the given height, as a [`Search`] that
/// counts its nodes: a tree of known size for examples, tests and measuring
/// a runtime's cost per node.
///
/// ```
/// use treelb::search::BinaryTree;
/// let tree = BinaryTree(12);
/// assert_eq!(tree.nodes(), (1 << 13) - 1);
/// assert_eq!(treelb::seq::run_search(&tree).0, tree.nodes());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BinaryTree(pub u32);

impl BinaryTree {
    /// Its number of nodes, 2^(height + 1) − 1 (saturating at `u64::MAX`).
    pub fn nodes(self) -> u64 {
        1u64.checked_shl(self.0.saturating_add(1)).map_or(u64::MAX, |n| n - 1)
    }
}

impl Search for BinaryTree {
    type Node = u32;
    type Output = u64;

    fn root(&self) -> u32 {
        0
    }

    #[inline]
    fn expand(&self, depth: u32, acc: &mut u64, children: &mut Children<'_, u32>) {
        *acc += 1;
        if depth < self.0 {
            children.push(depth + 1);
            children.push(depth + 1);
        }
    }
}

/// One slot of a DFS stack: an open node, and whether it is the first
/// (bottom-most) node of its level.
///
/// The flag encodes the level structure in the stack itself, so expanding a
/// node costs no bookkeeping beyond storing one byte with each child; a split
/// reads the levels off the flags.
///
/// Entries serialize (with serde) so that a piece can travel between
/// processes as bytes: see [`DfsWork::into_parts`] and
/// [`Search::serialize_stack`].
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Entry<N> {
    pub(crate) node: N,
    pub(crate) first: bool,
}

impl<N> Entry<N> {
    /// The open node.
    pub fn node(&self) -> &N {
        &self.node
    }
}

/// The place where [`Search::expand`] puts the children of a node: the top of
/// the DFS stack, so pushing allocates nothing once the stack has grown.
pub struct Children<'a, N> {
    stack: &'a mut Vec<Entry<N>>,
    first: bool,
}

impl<'a, N> Children<'a, N> {
    /// The children of one expansion, pushed on top of `stack` as one level.
    #[inline]
    pub(crate) fn new(stack: &'a mut Vec<Entry<N>>) -> Self {
        Children { stack, first: true }
    }

    /// Pushes one child.
    #[inline]
    pub fn push(&mut self, child: N) {
        self.stack.push(Entry { node: child, first: self.first });
        self.first = false;
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
        for child in iter {
            self.push(child);
        }
    }
}

/// Expands one node outside any runtime: returns its children in the order
/// they were pushed. For tests and tools that inspect a search tree.
///
/// ```
/// use treelb::search::{expand_one, Children, Search};
/// struct Fan;
/// impl Search for Fan {
///     type Node = u8;
///     type Output = u64;
///     fn root(&self) -> u8 { 3 }
///     fn expand(&self, n: u8, acc: &mut u64, c: &mut Children<'_, u8>) {
///         *acc += 1;
///         c.extend(0..n);
///     }
/// }
/// let mut acc = 0;
/// assert_eq!(expand_one(&Fan, 3, &mut acc), [0, 1, 2]);
/// assert_eq!(acc, 1);
/// ```
pub fn expand_one<S: Search>(search: &S, node: S::Node, acc: &mut S::Output) -> Vec<S::Node> {
    let mut stack = Vec::new();
    search.expand(node, acc, &mut Children::new(&mut stack));
    stack.into_iter().map(|e| e.node).collect()
}

/// A piece of a search: a DFS stack of open nodes, split by a [`SplitPolicy`].
///
/// One unit of work is the expansion of one node. The stack is kept in levels:
/// the children of one expansion form one level, so the bottom level is the
/// *oldest generation* of the lecture's rule ([Lecture, load balancing], "Donating Work").
///
/// Invariant: the bottom entry of a non-empty stack starts a level (its
/// `first` flag is set); a level runs from an entry with the flag up to the
/// next one.
pub struct DfsWork<'s, S: Search> {
    search: &'s S,
    stack: Vec<Entry<S::Node>>,
    generation: u32,
    policy: SplitPolicy,
}

impl<'s, S: Search> DfsWork<'s, S> {
    /// The whole search: a stack holding only the root.
    ///
    /// ```
    /// use treelb::search::{BinaryTree, DfsWork, SplitPolicy};
    /// use treelb::Work;
    ///
    /// let tree = BinaryTree(10);
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
        let mut stack = Vec::with_capacity(nodes.len());
        Children::new(&mut stack).extend(nodes);
        DfsWork { search, stack, generation, policy }
    }

    /// The open nodes, bottom of the stack first.
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = &S::Node> {
        self.stack.iter().map(Entry::node)
    }

    /// The number of open nodes on the stack.
    pub fn open_nodes(&self) -> usize {
        self.stack.len()
    }

    /// The split policy of this piece (inherited by the pieces it splits off).
    pub fn policy(&self) -> SplitPolicy {
        self.policy
    }

    /// The search this piece belongs to.
    pub fn search(&self) -> &'s S {
        self.search
    }

    /// The piece without its reference to the search: the stack of open
    /// nodes with their level marks, and the generation. A distributed
    /// runtime sends these (written by [`Search::serialize_stack`]) and the
    /// receiver rebuilds the piece with [`DfsWork::from_parts`] against its
    /// own copy of the search.
    pub fn into_parts(self) -> (Vec<Entry<S::Node>>, u32) {
        (self.stack, self.generation)
    }

    /// Rebuilds a piece from [`DfsWork::into_parts`]: the same open nodes,
    /// levels and generation, working on `search`.
    ///
    /// ```
    /// use treelb::search::{BinaryTree, DfsWork, SplitPolicy};
    /// use treelb::{seq, Work};
    ///
    /// let tree = BinaryTree(10);
    /// let mut a = DfsWork::new(&tree, SplitPolicy::OldestHalf);
    /// let mut count = 0;
    /// a.work(20, &mut count);
    /// let (stack, generation) = a.split().unwrap().into_parts();
    /// let b = DfsWork::from_parts(&tree, stack, generation, SplitPolicy::OldestHalf);
    /// assert_eq!(b.generation(), 1);
    /// count += seq::run_work(a).0 + seq::run_work(b).0;
    /// assert_eq!(count, (1 << 11) - 1);
    /// ```
    pub fn from_parts(
        search: &'s S,
        mut stack: Vec<Entry<S::Node>>,
        generation: u32,
        policy: SplitPolicy,
    ) -> Self {
        // Keep the invariant whatever the bytes said: the bottom entry starts a level.
        if let Some(bottom) = stack.first_mut() {
            bottom.first = true;
        }
        DfsWork { search, stack, generation, policy }
    }
}

impl<S: Search> Clone for DfsWork<'_, S>
where
    S::Node: Clone,
{
    fn clone(&self) -> Self {
        DfsWork {
            search: self.search,
            stack: self.stack.clone(),
            generation: self.generation,
            policy: self.policy,
        }
    }
}

impl<S: Search> std::fmt::Debug for DfsWork<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DfsWork")
            .field("open_nodes", &self.stack.len())
            .field("generation", &self.generation)
            .field("policy", &self.policy)
            .finish()
    }
}

impl<S: Search> Work for DfsWork<'_, S> {
    type Output = S::Output;

    // Its own function, not inlined into the runtime's PE loop: there the
    // loop would share registers with everything the PE keeps live, and the
    // node's code would spill (callgrind: 5 % more instructions per N-Queens
    // node than the sequential baseline when inlined). A call per slice of
    // Δt nodes costs nothing measurable.
    #[inline(never)]
    fn work(&mut self, budget: u64, acc: &mut S::Output) -> Progress {
        // A local stack and a local accumulator: with no `self` or `acc`
        // pointer behind them the compiler keeps the stack's pointer and
        // length and the output's counters in registers across `expand`, as
        // in the sequential baseline (moving them in and out costs a few
        // words per slice, not per node).
        let mut stack = std::mem::take(&mut self.stack);
        let mut out = std::mem::take(acc);
        // Counting down keeps one register free for the node's own code.
        let search = self.search;
        let mut left = budget;
        while left > 0 {
            let Some(entry) = stack.pop() else {
                break;
            };
            let cost = search.cost(&entry.node);
            search.expand(entry.node, &mut out, &mut Children::new(&mut stack));
            left = left.saturating_sub(cost);
        }
        let used = budget - left;
        let progress = if stack.is_empty() { Progress::Exhausted { used } } else { Progress::Pending };
        self.stack = stack;
        *acc = out;
        progress
    }

    fn split(&mut self) -> Option<Self> {
        let given = split::take(self.policy, &mut self.stack)?;
        self.generation += 1;
        Some(DfsWork { search: self.search, stack: given, generation: self.generation, policy: self.policy })
    }

    #[inline]
    fn generation(&self) -> u32 {
        self.generation
    }

    #[inline]
    fn load(&self) -> u64 {
        self.stack.len() as u64
    }

    #[inline]
    fn should_stop(&self) -> bool {
        self.search.should_stop()
    }
}

#[cfg(test)]
mod tests;
