//! The branch-and-bound search for cliques: bitset colouring bounds in the
//! style of San Segundo's BBMC, as a [`Search`].

use std::cell::RefCell;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use treelb::search::{Children, Search};
use treelb::{Incumbent, Sense};

use super::Graph;
use super::graph::WORD;
use crate::bnb::BnbStats;

/// Maximum clique or k-clique decision on a graph, as a [`Search`].
///
/// The vertices are renumbered once, by a degeneracy (minimum-width) order:
/// the vertex of smallest degree is removed repeatedly and numbered last, so
/// low numbers form the dense core. A node of the search is a clique `C`
/// and its candidate set `P` (the vertices adjacent to all of `C`) as a
/// bitset. Expanding it
///
/// 1. colours `P` greedily, class by class, in the order of the numbering
///    (BBMC: one class is built by repeatedly taking the lowest candidate
///    and removing its neighbours, all word-parallel);
/// 2. keeps the vertices whose colour `c` satisfies `|C| + c > floor`,
///    where `floor` is the incumbent's size (and `k − 1` for a decision):
///    a vertex of colour `c` heads a subtree whose cliques have at most
///    `|C| + c` vertices, since `P` restricted to colours `≤ c` needs no
///    more than `c` colours;
/// 3. pushes one child per kept vertex `v`, lowest colour first, with
///    candidates `P ∩ N(v)` minus the kept vertices of higher colour, so the
///    highest colour is expanded first and no clique is found twice.
///
/// A child carries its bound `|C| + c`; when it is taken off the stack after
/// the incumbent has reached the bound, it is pruned without colouring.
///
/// The answer is in [`CliqueSearch::incumbent`] after the run (vertices in
/// the graph's own numbering, sorted).
///
/// ```
/// use treelb_apps::clique::{CliqueSearch, Graph};
/// let g = Graph::hamming(6, 4);
/// let search = CliqueSearch::max_clique(&g);
/// treelb::seq::run_search(&search);
/// let (omega, clique) = search.incumbent.into_best().unwrap();
/// assert_eq!(omega, 4);
/// assert!(g.is_clique(&clique));
/// ```
#[derive(Debug)]
pub struct CliqueSearch {
    /// The graph, renumbered by the degeneracy order.
    graph: Graph,
    /// `label[i]`: the original number of renumbered vertex `i`.
    label: Vec<u32>,
    /// Decision searches: the clique size sought.
    target: Option<u32>,
    /// The largest clique found: its size and vertices (original numbering,
    /// sorted). Read it after the run.
    pub incumbent: Incumbent<Vec<u32>>,
}

/// A node of the clique search: a clique (a chain of vertices shared with
/// the ancestors) and its candidate set.
///
/// Nodes serialize (for runtimes that send pieces between processes): the
/// shared chain travels as a list of vertices and is rebuilt, unshared, on
/// the receiving side.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(into = "CliqueWire", from = "CliqueWire")]
pub struct CliqueNode {
    /// An upper bound on the size of any clique in this subtree.
    bound: u32,
    /// The size of this node's clique.
    size: u32,
    /// The vertex this node added to its parent's clique (`NO_VERTEX` at the
    /// root).
    vertex: u32,
    /// The parent's clique.
    prefix: Option<Arc<Link>>,
    /// The candidates: vertices adjacent to every vertex of the clique.
    cand: Box<[u64]>,
}

impl CliqueNode {
    /// The upper bound on the clique size in this node's subtree.
    pub fn bound(&self) -> u32 {
        self.bound
    }

    /// The size of the node's clique.
    pub fn size(&self) -> u32 {
        self.size
    }
}

/// The wire form of a [`CliqueNode`]: the clique's chain as a list of
/// vertices, most recent first.
#[derive(Serialize, Deserialize)]
struct CliqueWire {
    bound: u32,
    size: u32,
    vertex: u32,
    prefix: Vec<u32>,
    cand: Vec<u64>,
}

impl From<CliqueNode> for CliqueWire {
    fn from(node: CliqueNode) -> Self {
        let mut prefix = Vec::new();
        let mut link = node.prefix.as_deref();
        while let Some(l) = link {
            prefix.push(l.vertex);
            link = l.prev.as_deref();
        }
        CliqueWire {
            bound: node.bound,
            size: node.size,
            vertex: node.vertex,
            prefix,
            cand: node.cand.into_vec(),
        }
    }
}

impl From<CliqueWire> for CliqueNode {
    fn from(wire: CliqueWire) -> Self {
        let prefix =
            wire.prefix.iter().rev().fold(None, |prev, &vertex| Some(Arc::new(Link { vertex, prev })));
        CliqueNode {
            bound: wire.bound,
            size: wire.size,
            vertex: wire.vertex,
            prefix,
            cand: wire.cand.into_boxed_slice(),
        }
    }
}

/// The root has added no vertex.
const NO_VERTEX: u32 = u32::MAX;

/// One vertex of a clique, linked to the rest: the children of a node share
/// its clique instead of copying it.
#[derive(Debug)]
struct Link {
    vertex: u32,
    prev: Option<Arc<Link>>,
}

/// Per-thread buffers of the colouring, so that expanding allocates only the
/// children's candidate sets.
#[derive(Default)]
struct Scratch {
    uncoloured: Vec<u64>,
    class: Vec<u64>,
    /// `(vertex, colour)` of the vertices worth branching on.
    order: Vec<(u32, u32)>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl CliqueSearch {
    /// The maximum clique problem, with the incumbent seeded by
    /// [`Graph::greedy_clique`].
    pub fn max_clique(graph: &Graph) -> Self {
        let search = Self::unseeded(graph, None);
        let greedy = graph.greedy_clique();
        search.incumbent.offer(greedy.len() as i64, || greedy);
        search
    }

    /// The maximum clique problem with no initial solution: the search finds
    /// every improvement itself.
    pub fn max_clique_unseeded(graph: &Graph) -> Self {
        Self::unseeded(graph, None)
    }

    /// The decision problem: is there a clique of at least `k` vertices? The
    /// search stops as soon as one is found; then the incumbent holds a
    /// clique of exactly `k` vertices. If there is none, the incumbent holds
    /// the largest clique found on the way, or nothing.
    ///
    /// ```
    /// use treelb_apps::clique::{CliqueSearch, Graph};
    /// let g = Graph::petersen();
    /// let yes = CliqueSearch::k_clique(&g, 2);
    /// treelb::seq::run_search(&yes);
    /// assert!(yes.found().is_some_and(|c| c.len() == 2 && g.is_clique(&c)));
    /// let no = CliqueSearch::k_clique(&g, 3);
    /// treelb::seq::run_search(&no);
    /// assert_eq!(no.found(), None);
    /// ```
    pub fn k_clique(graph: &Graph, k: u32) -> Self {
        Self::unseeded(graph, Some(k))
    }

    fn unseeded(graph: &Graph, target: Option<u32>) -> Self {
        let mut order = degeneracy_order(graph);
        // Isolated vertices are cliques of one vertex and no more: the
        // search keeps one of them only if there is no edge at all (a
        // sparse graph of 65,536 vertices then searches two, not 65,536).
        // They come last in the degeneracy order.
        let isolated = order.iter().rev().take_while(|&&v| graph.degree(v) == 0).count();
        order.truncate((order.len() - isolated).max(order.len().min(1)));
        let renumbered = graph.induced(&order);
        CliqueSearch {
            graph: renumbered,
            label: order.into_iter().map(|v| v as u32).collect(),
            target,
            incumbent: Incumbent::new(Sense::Maximize),
        }
    }

    /// The clique size a decision search looks for (`None`: maximum clique).
    pub fn target(&self) -> Option<u32> {
        self.target
    }

    /// The number of vertices of the graph.
    pub fn n(&self) -> usize {
        self.graph.n()
    }

    /// A decision search's witness: a clique of the target size, if one was
    /// found. `None` for a maximum-clique search.
    pub fn found(&self) -> Option<Vec<u32>> {
        let k = self.target?;
        self.incumbent.snapshot().filter(|(size, _)| *size >= i64::from(k)).map(|(_, c)| c)
    }

    /// Cliques must be larger than this to matter: the incumbent's size, and
    /// `k − 1` for a decision search. When the incumbent breaks ties
    /// ([`Incumbent::break_ties`]: the least maximum clique is sought),
    /// cliques of the incumbent's size matter too.
    #[inline]
    fn floor(&self) -> i64 {
        let ties = i64::from(self.incumbent.breaks_ties());
        let best = self.incumbent.best().map_or(-1, |b| b - ties);
        match self.target {
            Some(k) => best.max(i64::from(k) - 1),
            None => best,
        }
    }

    /// The clique of `node`, in the original numbering, sorted.
    fn witness(&self, node: &CliqueNode) -> Vec<u32> {
        let mut clique = Vec::with_capacity(node.size as usize);
        if node.vertex != NO_VERTEX {
            clique.push(self.label[node.vertex as usize]);
        }
        let mut link = node.prefix.as_deref();
        while let Some(l) = link {
            clique.push(self.label[l.vertex as usize]);
            link = l.prev.as_deref();
        }
        clique.sort_unstable();
        clique
    }
}

impl Search for CliqueSearch {
    type Node = CliqueNode;
    type Output = BnbStats;

    fn root(&self) -> CliqueNode {
        let n = self.graph.n();
        let mut cand = vec![0u64; n.div_ceil(WORD)].into_boxed_slice();
        for v in 0..n {
            cand[v / WORD] |= 1 << (v % WORD);
        }
        CliqueNode { bound: n as u32, size: 0, vertex: NO_VERTEX, prefix: None, cand }
    }

    fn expand(&self, node: CliqueNode, acc: &mut BnbStats, children: &mut Children<'_, CliqueNode>) {
        let mut floor = self.floor();
        if i64::from(node.bound) <= floor || self.should_stop() {
            acc.pruned += 1;
            return;
        }
        acc.branched += 1;
        let size = node.size;
        if i64::from(size) > floor && self.incumbent.offer(i64::from(size), || self.witness(&node)) {
            floor = self.floor();
            if self.should_stop() {
                return;
            }
        }
        // Colours above `kmin` can lead to a clique larger than `floor`.
        let kmin = (floor - i64::from(size)).max(0) as u32;
        SCRATCH.with_borrow_mut(|s| {
            colour(&self.graph, &node.cand, kmin, s);
            if s.order.is_empty() {
                return;
            }
            let link = (node.vertex != NO_VERTEX)
                .then(|| Arc::new(Link { vertex: node.vertex, prev: node.prefix.clone() }));
            // The candidates of a child: those not kept for branching, plus
            // the kept ones of lower colour, all intersected with N(v).
            let rest = &mut s.class;
            rest.copy_from_slice(&node.cand);
            for &(v, _) in &s.order {
                rest[v as usize / WORD] &= !(1 << (v as usize % WORD));
            }
            children.reserve(s.order.len());
            for &(v, c) in &s.order {
                let row = self.graph.row(v as usize);
                let cand: Box<[u64]> = rest.iter().zip(row).map(|(a, b)| a & b).collect();
                children.push(CliqueNode {
                    bound: size + c,
                    size: size + 1,
                    vertex: v,
                    prefix: link.clone(),
                    cand,
                });
                rest[v as usize / WORD] |= 1 << (v as usize % WORD);
            }
        });
    }

    #[inline]
    fn should_stop(&self) -> bool {
        self.target.is_some_and(|k| self.incumbent.best().is_some_and(|b| b >= i64::from(k)))
    }
}

impl crate::bnb::NodeBound for CliqueSearch {
    fn node_bound(&self, node: &CliqueNode) -> Option<i64> {
        Some(i64::from(node.bound))
    }
}

/// Greedy sequential colouring of `cand` in vertex order, one colour class
/// at a time; records in `s.order` the vertices of colour above `kmin` with
/// their colours (non-decreasing).
#[inline]
fn colour(graph: &Graph, cand: &[u64], kmin: u32, s: &mut Scratch) {
    let words = cand.len();
    s.uncoloured.clear();
    s.uncoloured.extend_from_slice(cand);
    s.class.resize(words, 0);
    s.order.clear();
    let (u, q) = (&mut s.uncoloured, &mut s.class);
    let mut first = 0;
    let mut k = 0u32;
    loop {
        while first < words && u[first] == 0 {
            first += 1;
        }
        if first == words {
            break;
        }
        k += 1;
        q[first..].copy_from_slice(&u[first..]);
        let mut at = first;
        loop {
            while at < words && q[at] == 0 {
                at += 1;
            }
            if at == words {
                break;
            }
            let bit = q[at].trailing_zeros() as usize;
            let v = at * WORD + bit;
            q[at] &= q[at] - 1;
            u[at] &= !(1 << bit);
            let row = graph.row(v);
            for (x, r) in q[at..].iter_mut().zip(&row[at..]) {
                *x &= !r;
            }
            if k > kmin {
                s.order.push((v as u32, k));
            }
        }
    }
}

/// A degeneracy order: the vertex of minimum degree (among the remaining
/// ones; ties to the lower number) is removed repeatedly and placed last.
/// Returns the vertices in order (position → vertex). A heap of (degree,
/// vertex) with stale entries skipped: `O(m log n)` besides reading the
/// rows, where picking the minimum by a scan took `O(n²)` (65,536 vertices:
/// seconds).
fn degeneracy_order(graph: &Graph) -> Vec<usize> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let n = graph.n();
    let mut degree: Vec<usize> = (0..n).map(|v| graph.degree(v)).collect();
    let mut heap: BinaryHeap<Reverse<(usize, usize)>> = (0..n).map(|v| Reverse((degree[v], v))).collect();
    let mut removed = vec![false; n];
    let mut order = vec![0; n];
    for position in (0..n).rev() {
        let v = loop {
            let Reverse((d, v)) = heap.pop().expect("a vertex remains");
            if !removed[v] && d == degree[v] {
                break v;
            }
        };
        removed[v] = true;
        order[position] = v;
        for u in graph.neighbours(v) {
            if !removed[u] {
                degree[u] -= 1;
                heap.push(Reverse((degree[u], u)));
            }
        }
    }
    order
}
