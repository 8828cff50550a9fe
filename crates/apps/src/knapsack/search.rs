//! Depth-first branch and bound for the 0/1 knapsack with the Dantzig bound.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use treelb::search::chain::{self, Chains};
use treelb::search::{Children, Entry, Search};
use treelb::{Incumbent, Sense};

use super::Instance;
use crate::bnb::BnbStats;

/// The 0/1 knapsack problem as a [`Search`]: depth-first branch and bound
/// over the items sorted by profit/weight ratio, best first, with the Dantzig
/// bound.
///
/// A node fixes the first `level` items of the sorted order (taken or not)
/// and has `cap` capacity left. Expanding it
///
/// 1. skips the items that no longer fit (they cannot be taken);
/// 2. finds the *break item* `b`: the items `level..b` fit together, item `b`
///    does not. Taking `level..b` is a feasible packing (offered to the
///    incumbent), and the Dantzig bound — the optimum of the linear
///    relaxation, `profit + Σ p[level..b] + ⌊cap_left · p_b / w_b⌋` — bounds
///    every packing of the subtree; if it cannot beat the incumbent, the
///    node is pruned. If every remaining item fits, the packing is optimal for
///    the subtree and the node is a leaf;
/// 3. otherwise pushes "leave item `level` out", then "take it" (expanded
///    first: the greedy direction, as in Horowitz and Sahni's algorithm).
///
/// Prefix sums make the break item a binary search: a node costs
/// `O(log n)`.
///
/// ```
/// use treelb_apps::knapsack::{Class, Knapsack, Spec};
/// let instance = Spec::new(Class::WeaklyCorrelated, 30, 1000, 3).generate();
/// let search = Knapsack::new(&instance);
/// treelb::seq::run_search(&search);
/// let (profit, items) = search.incumbent.into_best().unwrap();
/// assert_eq!(instance.profit_of(&items), Some(profit));
/// assert_eq!(instance.dp_optimum(1 << 24), Some(profit));
/// ```
#[derive(Debug)]
pub struct Knapsack {
    /// Profits and weights in ratio order.
    profit: Vec<i64>,
    weight: Vec<i64>,
    /// `prefix_w[i]`, `prefix_p[i]`: the sums over the first `i` sorted items.
    prefix_w: Vec<i64>,
    prefix_p: Vec<i64>,
    /// `label[i]`: the original number of sorted item `i`.
    label: Vec<u32>,
    capacity: i64,
    /// The best packing found: its profit and its items (original numbers,
    /// sorted).
    pub incumbent: Incumbent<Vec<u32>>,
}

/// A node of the knapsack search: the first `level` sorted items are
/// decided.
///
/// Nodes serialize (for runtimes that send pieces between processes): a
/// node on its own writes its chain of taken items as a list; a stack of
/// them ([`Search::serialize_stack`]) writes each shared link once
/// ([`treelb::search::chain`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(into = "KnapsackWire", from = "KnapsackWire")]
pub struct KnapsackNode {
    level: u32,
    cap: i64,
    profit: i64,
    /// The items taken so far (sorted numbers), most recent first.
    taken: Option<Arc<Taken>>,
}

/// One taken item, linked to the ones taken before it.
#[derive(Debug)]
struct Taken {
    item: u32,
    prev: Option<Arc<Taken>>,
}

/// Dropped link by link, not recursively: a chain as deep as the search
/// would overflow the stack ([`treelb::search::chain`]).
impl Drop for Taken {
    fn drop(&mut self) {
        treelb::search::chain::unlink(self.prev.take(), |link| link.prev.take());
    }
}

/// How a [`KnapsackNode`] holds its taken items: a stack of nodes travels
/// with each link once ([`Search::serialize_stack`]).
struct TakenItems;

impl Chains for TakenItems {
    type Node = KnapsackNode;
    type Link = Taken;
    type Step = u32;
    type Head = (u32, i64, i64);

    fn last(node: &KnapsackNode) -> Option<&Arc<Taken>> {
        node.taken.as_ref()
    }

    fn prev(link: &Taken) -> Option<&Arc<Taken>> {
        link.prev.as_ref()
    }

    fn step(link: &Taken) -> impl Serialize + '_ {
        link.item
    }

    fn head(node: &KnapsackNode) -> impl Serialize + '_ {
        (node.level, node.cap, node.profit)
    }

    fn link(item: u32, prev: Option<Arc<Taken>>) -> Taken {
        Taken { item, prev }
    }

    fn join((level, cap, profit): (u32, i64, i64), taken: Option<Arc<Taken>>) -> KnapsackNode {
        KnapsackNode { level, cap, profit, taken }
    }
}

/// The wire form of a [`KnapsackNode`] on its own: the taken items, most
/// recent first.
#[derive(Serialize, Deserialize)]
struct KnapsackWire {
    level: u32,
    cap: i64,
    profit: i64,
    taken: Vec<u32>,
}

impl From<KnapsackNode> for KnapsackWire {
    fn from(node: KnapsackNode) -> Self {
        let mut taken = Vec::new();
        let mut link = node.taken.as_deref();
        while let Some(t) = link {
            taken.push(t.item);
            link = t.prev.as_deref();
        }
        KnapsackWire { level: node.level, cap: node.cap, profit: node.profit, taken }
    }
}

impl From<KnapsackWire> for KnapsackNode {
    fn from(wire: KnapsackWire) -> Self {
        let taken = wire.taken.iter().rev().fold(None, |prev, &item| Some(Arc::new(Taken { item, prev })));
        KnapsackNode { level: wire.level, cap: wire.cap, profit: wire.profit, taken }
    }
}

impl Knapsack {
    /// The search for `instance`, with no incumbent yet (the first node's
    /// greedy packing becomes the first one).
    pub fn new(instance: &Instance) -> Self {
        let items = &instance.items;
        let mut order: Vec<u32> = (0..items.len() as u32).collect();
        // Ratio p/w descending, compared exactly; ties: lighter first, then
        // the original order.
        order.sort_by(|&a, &b| {
            let (x, y) = (&items[a as usize], &items[b as usize]);
            let lhs = i128::from(y.profit) * i128::from(x.weight);
            let rhs = i128::from(x.profit) * i128::from(y.weight);
            lhs.cmp(&rhs).then(x.weight.cmp(&y.weight)).then(a.cmp(&b))
        });
        let profit: Vec<i64> = order.iter().map(|&i| items[i as usize].profit).collect();
        let weight: Vec<i64> = order.iter().map(|&i| items[i as usize].weight).collect();
        let prefix = |v: &[i64]| -> Vec<i64> {
            std::iter::once(0)
                .chain(v.iter().scan(0i64, |s, &x| {
                    *s += x;
                    Some(*s)
                }))
                .collect()
        };
        Knapsack {
            prefix_w: prefix(&weight),
            prefix_p: prefix(&profit),
            profit,
            weight,
            label: order,
            capacity: instance.capacity,
            incumbent: Incumbent::new(Sense::Maximize),
        }
    }

    /// The number of items.
    pub fn len(&self) -> usize {
        self.profit.len()
    }

    /// Whether there are no items.
    pub fn is_empty(&self) -> bool {
        self.profit.is_empty()
    }

    /// The Dantzig bound of the whole instance: the optimum of its linear
    /// relaxation, rounded down.
    pub fn root_bound(&self) -> i64 {
        let (bound, _) = self.dantzig(0, self.capacity);
        bound
    }

    /// From sorted item `level` on with `cap` left: the Dantzig bound on the
    /// profit still to gain, and the break item `b` (items `level..b` fit,
    /// `b == n` if all do).
    #[inline]
    fn dantzig(&self, level: usize, cap: i64) -> (i64, usize) {
        let n = self.len();
        let limit = self.prefix_w[level] + cap;
        // The first b with prefix_w[b + 1] > limit: items level..b fit.
        let b = level + self.prefix_w[level + 1..].partition_point(|&w| w <= limit);
        let gain = self.prefix_p[b] - self.prefix_p[level];
        if b == n {
            return (gain, n);
        }
        let rest = limit - self.prefix_w[b];
        let fraction = i128::from(rest) * i128::from(self.profit[b]) / i128::from(self.weight[b]);
        (gain + fraction as i64, b)
    }

    /// The packing of `node` plus the sorted items `from..to`, in original
    /// numbers, sorted.
    fn witness(&self, node: &KnapsackNode, from: usize, to: usize) -> Vec<u32> {
        let mut items: Vec<u32> = (from..to).map(|i| self.label[i]).collect();
        let mut link = node.taken.as_deref();
        while let Some(t) = link {
            items.push(self.label[t.item as usize]);
            link = t.prev.as_deref();
        }
        items.sort_unstable();
        items
    }
}

impl Search for Knapsack {
    type Node = KnapsackNode;
    type Output = BnbStats;

    fn root(&self) -> KnapsackNode {
        KnapsackNode { level: 0, cap: self.capacity, profit: 0, taken: None }
    }

    fn keeps_incumbent(&self) -> bool {
        true
    }

    fn expand(&self, mut node: KnapsackNode, acc: &mut BnbStats, children: &mut Children<'_, KnapsackNode>) {
        let n = self.len();
        let mut level = node.level as usize;
        while level < n && self.weight[level] > node.cap {
            level += 1;
        }
        let (gain, b) = self.dantzig(level, node.cap);
        if !self.incumbent.can_improve(node.profit + gain) {
            acc.pruned += 1;
            return;
        }
        acc.branched += 1;
        let greedy = node.profit + self.prefix_p[b] - self.prefix_p[level];
        if self.incumbent.can_improve(greedy) {
            self.incumbent.offer(greedy, || self.witness(&node, level, b));
        }
        if b == n {
            // Everything left fits: the greedy packing is this subtree's best.
            return;
        }
        // `b > level` or `b == level`: either way item `level` fits.
        let next = level as u32 + 1;
        let taken = Some(Arc::new(Taken { item: level as u32, prev: node.taken.clone() }));
        let take = KnapsackNode {
            level: next,
            cap: node.cap - self.weight[level],
            profit: node.profit + self.profit[level],
            taken,
        };
        node.level = next;
        children.push(node);
        children.push(take);
    }

    fn serialize_stack<Z: serde::Serializer>(
        &self,
        stack: &[Entry<KnapsackNode>],
        serializer: Z,
    ) -> Result<Z::Ok, Z::Error> {
        chain::serialize_stack::<TakenItems, _>(stack, serializer)
    }

    fn deserialize_stack<'de, D: serde::Deserializer<'de>>(
        &self,
        deserializer: D,
    ) -> Result<Vec<Entry<KnapsackNode>>, D::Error> {
        chain::deserialize_stack::<TakenItems, _>(deserializer)
    }
}

impl crate::bnb::NodeBound for Knapsack {
    /// The node's profit plus the Dantzig bound of what is left.
    fn node_bound(&self, node: &KnapsackNode) -> Option<i64> {
        let level = (node.level as usize).min(self.len());
        Some(node.profit + self.dantzig(level, node.cap).0)
    }
}
