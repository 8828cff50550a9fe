//! Undirected simple graphs (adjacency bitsets when small, sorted neighbour
//! lists when large), and the families whose clique number is known in closed form.

use std::fmt;

use crate::splitmix::SplitMix64;

/// Bits per word of a bitset.
pub(crate) const WORD: usize = 64;

/// The number of 64-bit words that hold `n` bits.
#[inline]
pub(crate) fn words_for(n: usize) -> usize {
    n.div_ceil(WORD)
}

/// Graphs of at most this many vertices are stored as adjacency bitsets
/// (`n²/8` bytes: 2 MiB at this size); larger ones as sorted adjacency
/// lists (`O(n + m)`).
pub const DENSE_MAX_VERTICES: usize = 4096;

/// An undirected simple graph on the vertices `0..n`.
///
/// Graphs of at most [`DENSE_MAX_VERTICES`] vertices are stored as one
/// adjacency bitset per vertex; larger ones as one sorted neighbour list
/// per vertex, so that a sparse graph of a million vertices costs what its
/// edges cost, not `n²/8` bytes. The choice is invisible to the methods.
///
/// ```
/// use treelb_apps::clique::Graph;
/// let mut g = Graph::new(4);
/// g.add_edge(0, 1);
/// g.add_edge(1, 2);
/// assert!(g.has_edge(2, 1));
/// assert_eq!(g.edge_count(), 2);
/// assert_eq!(g.degree(1), 2);
/// assert!(g.is_clique(&[0, 1]));
/// assert!(!g.is_clique(&[0, 1, 2]));
/// ```
#[derive(Clone)]
pub struct Graph {
    n: usize,
    edges: usize,
    repr: Repr,
}

#[derive(Clone)]
enum Repr {
    /// `words` words of adjacency bits per vertex.
    Dense { words: usize, adj: Vec<u64> },
    /// Sorted neighbour lists.
    Sparse { adj: Vec<Vec<u32>> },
}

/// A dense graph ([`DENSE_MAX_VERTICES`] vertices at most) built edge by
/// edge with no check and no count per edge: both bits of an edge are set,
/// a repeated edge sets them again, and the edges are counted once at the
/// end as half the set bits. The caller checks the vertices.
pub(crate) struct DenseBits {
    n: usize,
    words: usize,
    adj: Vec<u64>,
}

impl DenseBits {
    /// No edges on `0..n`.
    pub(crate) fn new(n: usize) -> Self {
        debug_assert!(n <= DENSE_MAX_VERTICES);
        let words = words_for(n);
        DenseBits { n, words, adj: vec![0; n * words] }
    }

    /// Adds `{u, v}`: two vertices below `n`, distinct.
    #[inline]
    pub(crate) fn add(&mut self, u: usize, v: usize) {
        debug_assert!(u < self.n && v < self.n && u != v);
        self.adj[u * self.words + v / WORD] |= 1 << (v % WORD);
        self.adj[v * self.words + u / WORD] |= 1 << (u % WORD);
    }

    /// The graph.
    pub(crate) fn finish(self) -> Graph {
        let bits: usize = self.adj.iter().map(|w| w.count_ones() as usize).sum();
        Graph { n: self.n, edges: bits / 2, repr: Repr::Dense { words: self.words, adj: self.adj } }
    }
}

impl PartialEq for Graph {
    fn eq(&self, other: &Self) -> bool {
        self.n == other.n
            && self.edges == other.edges
            && (0..self.n).all(|v| self.neighbours(v).eq(other.neighbours(v)))
    }
}

impl Eq for Graph {}

impl std::hash::Hash for Graph {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.n.hash(state);
        for v in 0..self.n {
            for u in self.neighbours(v).filter(|&u| u > v) {
                (v, u).hash(state);
            }
        }
    }
}

impl fmt::Debug for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Graph").field("n", &self.n).field("edges", &self.edge_count()).finish()
    }
}

impl Graph {
    /// The graph with `n` vertices and no edges.
    pub fn new(n: usize) -> Self {
        let repr = if n <= DENSE_MAX_VERTICES {
            let words = words_for(n);
            Repr::Dense { words, adj: vec![0; n * words] }
        } else {
            Repr::Sparse { adj: vec![Vec::new(); n] }
        };
        Graph { n, edges: 0, repr }
    }

    /// The graph on `0..n` with the given edges (pairs of distinct vertices,
    /// either direction, repeats allowed). `O(n + m log m)` time and
    /// `O(n + m)` memory for a graph above [`DENSE_MAX_VERTICES`] vertices.
    ///
    /// # Panics
    /// If an edge has a vertex out of range or is a self-loop.
    pub fn from_edges(n: usize, edges: &mut [(u32, u32)]) -> Self {
        let check = |&(u, v): &(u32, u32)| {
            assert!((u as usize) < n && (v as usize) < n, "edge {:?} outside the vertices 0..{n}", (u, v));
            assert_ne!(u, v, "self-loop at vertex {u}");
        };
        if n <= DENSE_MAX_VERTICES {
            let mut bits = DenseBits::new(n);
            for e in edges.iter() {
                check(e);
                bits.add(e.0 as usize, e.1 as usize);
            }
            return bits.finish();
        }
        for e in edges.iter_mut() {
            check(e);
            if e.0 > e.1 {
                *e = (e.1, e.0);
            }
        }
        edges.sort_unstable();
        let mut degree = vec![0u32; n];
        let mut distinct = 0;
        for (i, &(u, v)) in edges.iter().enumerate() {
            if i == 0 || edges[i - 1] != (u, v) {
                degree[u as usize] += 1;
                degree[v as usize] += 1;
                distinct += 1;
            }
        }
        let mut adj: Vec<Vec<u32>> = degree.iter().map(|&d| Vec::with_capacity(d as usize)).collect();
        for (i, &(u, v)) in edges.iter().enumerate() {
            if i == 0 || edges[i - 1] != (u, v) {
                adj[u as usize].push(v);
                adj[v as usize].push(u);
            }
        }
        // Pushed in increasing order of the pair: `adj[u]` receives its
        // larger neighbours in order, but its smaller ones (from pairs
        // `(w, u)`) come first and in order too, so each list is sorted.
        debug_assert!(adj.iter().all(|l| l.windows(2).all(|w| w[0] < w[1])));
        Graph { n, edges: distinct, repr: Repr::Sparse { adj } }
    }

    /// The number of vertices.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Whether the graph is stored as adjacency bitsets (at most
    /// [`DENSE_MAX_VERTICES`] vertices) rather than neighbour lists.
    pub fn is_dense(&self) -> bool {
        matches!(self.repr, Repr::Dense { .. })
    }

    /// Adds the edge `{u, v}`; returns whether it was new.
    ///
    /// # Panics
    /// If `u` or `v` is not a vertex, or `u == v` (no self-loops).
    pub fn add_edge(&mut self, u: usize, v: usize) -> bool {
        assert!(u < self.n && v < self.n, "edge {{{u}, {v}}} outside the vertices 0..{}", self.n);
        assert_ne!(u, v, "self-loop at vertex {u}");
        let new = !self.has_edge(u, v);
        if !new {
            return false;
        }
        match &mut self.repr {
            Repr::Dense { words, adj } => {
                adj[u * *words + v / WORD] |= 1 << (v % WORD);
                adj[v * *words + u / WORD] |= 1 << (u % WORD);
            }
            Repr::Sparse { adj } => {
                for (a, b) in [(u, v), (v, u)] {
                    let list = &mut adj[a];
                    let at = list.partition_point(|&x| (x as usize) < b);
                    list.insert(at, b as u32);
                }
            }
        }
        self.edges += 1;
        true
    }

    /// Whether `{u, v}` is an edge.
    #[inline]
    pub fn has_edge(&self, u: usize, v: usize) -> bool {
        match &self.repr {
            Repr::Dense { words, adj } => adj[u * words + v / WORD] >> (v % WORD) & 1 == 1,
            Repr::Sparse { adj } => adj[u].binary_search(&(v as u32)).is_ok(),
        }
    }

    /// The number of neighbours of `v`.
    pub fn degree(&self, v: usize) -> usize {
        match &self.repr {
            Repr::Dense { words, adj } => {
                adj[v * words..(v + 1) * words].iter().map(|w| w.count_ones() as usize).sum()
            }
            Repr::Sparse { adj } => adj[v].len(),
        }
    }

    /// The neighbours of `v`, in increasing order.
    pub fn neighbours(&self, v: usize) -> Box<dyn Iterator<Item = usize> + '_> {
        match &self.repr {
            Repr::Dense { words, adj } => Box::new(bits(&adj[v * words..(v + 1) * words])),
            Repr::Sparse { adj } => Box::new(adj[v].iter().map(|&u| u as usize)),
        }
    }

    /// The number of edges.
    pub fn edge_count(&self) -> usize {
        self.edges
    }

    /// The adjacency bitsets of a dense graph: the number of words per
    /// vertex and the rows, vertex after vertex; `None` for a sparse graph.
    pub(crate) fn dense_rows(&self) -> Option<(usize, &[u64])> {
        match &self.repr {
            Repr::Dense { words, adj } => Some((*words, adj)),
            Repr::Sparse { .. } => None,
        }
    }

    /// The bytes the adjacency takes.
    pub fn memory_bytes(&self) -> usize {
        match &self.repr {
            Repr::Dense { adj, .. } => adj.len() * 8,
            Repr::Sparse { adj } => adj.len() * std::mem::size_of::<Vec<u32>>() + self.edges * 8,
        }
    }

    /// Whether the vertices are distinct and pairwise adjacent.
    pub fn is_clique(&self, vertices: &[u32]) -> bool {
        vertices.iter().all(|&v| (v as usize) < self.n)
            && vertices.iter().enumerate().all(|(i, &u)| {
                vertices[i + 1..].iter().all(|&v| u != v && self.has_edge(u as usize, v as usize))
            })
    }

    /// The complement: `{u, v}` is an edge of it iff it is not one of `self`.
    pub fn complement(&self) -> Graph {
        let mut g = Graph::new(self.n);
        for u in 0..self.n {
            for v in u + 1..self.n {
                if !self.has_edge(u, v) {
                    g.add_edge(u, v);
                }
            }
        }
        g
    }

    /// The subgraph induced by `vertices` (distinct), renumbered
    /// `0..vertices.len()` in the given order. Reads each of their rows
    /// once: `O(k·n/64 + m)` for `k` vertices, not `O(k²)`.
    ///
    /// # Panics
    /// If a vertex is out of range or listed twice.
    pub fn induced(&self, vertices: &[usize]) -> Graph {
        let mut position = vec![usize::MAX; self.n];
        for (i, &v) in vertices.iter().enumerate() {
            assert!(position[v] == usize::MAX, "vertex {v} listed twice");
            position[v] = i;
        }
        let mut g = Graph::new(vertices.len());
        for (i, &u) in vertices.iter().enumerate() {
            for v in self.neighbours(u) {
                let j = position[v];
                if j != usize::MAX && j > i {
                    g.add_edge(i, j);
                }
            }
        }
        g
    }

    /// The graph on `0..n` with an edge wherever `adjacent(u, v)` (asked once
    /// per pair `u < v`).
    pub fn from_fn(n: usize, mut adjacent: impl FnMut(usize, usize) -> bool) -> Graph {
        let mut g = Graph::new(n);
        for u in 0..n {
            for v in u + 1..n {
                if adjacent(u, v) {
                    g.add_edge(u, v);
                }
            }
        }
        g
    }

    /// The complete graph `K_n`: ω = n.
    pub fn complete(n: usize) -> Graph {
        Graph::from_fn(n, |_, _| true)
    }

    /// The cycle `C_n` (`n >= 3`): ω = 3 for the triangle, 2 otherwise.
    pub fn cycle(n: usize) -> Graph {
        Graph::from_fn(n, |u, v| v - u == 1 || (u == 0 && v == n - 1))
    }

    /// The Petersen graph: ω = 2 (it has no triangle).
    pub fn petersen() -> Graph {
        // Outer 5-cycle 0..5, spokes i–i+5, inner pentagram 5..10.
        Graph::from_fn(10, |u, v| {
            (v < 5 && (v - u == 1 || (u == 0 && v == 4)))
                || (u < 5 && v == u + 5)
                || (u >= 5 && (v - u == 2 || v - u == 3))
        })
    }

    /// The Turán graph `T(n, r)`: complete `r`-partite with parts as equal
    /// as possible (`u` and `v` adjacent iff `u mod r != v mod r`);
    /// ω = min(n, r).
    pub fn turan(n: usize, r: usize) -> Graph {
        assert!(r >= 1, "a Turán graph has at least one part");
        Graph::from_fn(n, |u, v| u % r != v % r)
    }

    /// The Hamming graph of the DIMACS challenge, `hamming{bits}-{d}`: the
    /// `2^bits` words of `bits` bits, adjacent when their Hamming distance
    /// is at least `d`. Its cliques are the binary codes of minimum distance
    /// `d`, so ω = A(bits, d): e.g. 2^(bits−1) for d = 2, 16 for
    /// hamming8-4.
    pub fn hamming(bits: u32, d: u32) -> Graph {
        assert!(bits <= 16, "hamming graphs beyond 16 bits are too large");
        Graph::from_fn(1 << bits, |u, v| (u ^ v).count_ones() >= d)
    }

    /// The Johnson graph of the DIMACS challenge, `johnson{n}-{w}-{d}`: the
    /// `w`-subsets of an `n`-set, adjacent when their symmetric difference
    /// has at least `d` elements (constant-weight codes). For `w = 2`,
    /// `d = 4` the cliques are sets of disjoint pairs: ω = ⌊n/2⌋.
    pub fn johnson(n: u32, w: u32, d: u32) -> Graph {
        let sets = weight_subsets(n, w);
        Graph::from_fn(sets.len(), |a, b| (sets[a] ^ sets[b]).count_ones() >= d)
    }

    /// The classic Johnson graph `J(n, k)`: the `k`-subsets of an `n`-set,
    /// adjacent when they share `k − 1` elements. For `1 <= k < n`,
    /// ω = max(n − k + 1, k + 1): the sets through a common `(k−1)`-set, or
    /// the `k`-subsets of a `(k+1)`-set.
    pub fn johnson_classic(n: u32, k: u32) -> Graph {
        let sets = weight_subsets(n, k);
        Graph::from_fn(sets.len(), |a, b| (sets[a] ^ sets[b]).count_ones() == 2)
    }

    /// A random graph `G(n, p)`: each pair is an edge with probability `p`,
    /// drawn from a [`SplitMix64`] with the given seed.
    pub fn random(n: usize, p: f64, seed: u64) -> Graph {
        let mut rng = SplitMix64::new(seed);
        Graph::from_fn(n, |_, _| rng.unit() < p)
    }
}

/// The number of common bits of two bitsets.
#[inline]
pub(crate) fn intersection_count(a: &[u64], b: &[u64]) -> usize {
    a.iter().zip(b).map(|(x, y)| (x & y).count_ones() as usize).sum()
}

/// The indices of the set bits of a bitset, in increasing order.
pub(crate) fn bits(set: &[u64]) -> impl Iterator<Item = usize> + '_ {
    set.iter().enumerate().flat_map(|(i, &w)| {
        let mut w = w;
        std::iter::from_fn(move || {
            if w == 0 {
                return None;
            }
            let b = w.trailing_zeros() as usize;
            w &= w - 1;
            Some(i * WORD + b)
        })
    })
}

/// The `w`-element subsets of `0..n` as bitmasks, in increasing order.
fn weight_subsets(n: u32, w: u32) -> Vec<u64> {
    assert!(n <= 32, "Johnson graphs beyond a 32-element ground set are too large");
    (0u64..1 << n).filter(|s| s.count_ones() == w).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_have_their_sizes() {
        assert_eq!(Graph::complete(6).edge_count(), 15);
        assert_eq!(Graph::cycle(7).edge_count(), 7);
        let p = Graph::petersen();
        assert_eq!(p.edge_count(), 15);
        assert!((0..10).all(|v| p.degree(v) == 3));
        assert_eq!(Graph::hamming(4, 2).n(), 16);
        assert_eq!(Graph::johnson(6, 2, 4).n(), 15);
        // J(5, 2) is the complement of the Petersen graph.
        assert_eq!(Graph::johnson_classic(5, 2).edge_count(), 45 - 15);
        assert_eq!(Graph::turan(7, 3).edge_count(), 21 - 3 - 1 - 1);
    }

    #[test]
    fn complement_and_induced() {
        let c = Graph::cycle(5).complement();
        assert_eq!(c.edge_count(), 5);
        let sub = Graph::complete(5).induced(&[4, 1, 3]);
        assert_eq!(sub, Graph::complete(3));
        assert_eq!(bits(&[0b1010, 1]).collect::<Vec<_>>(), [1, 3, 64]);
    }

    #[test]
    fn dense_and_sparse_agree() {
        let mut edges = vec![(0, 5000), (5000, 1), (1, 0), (0, 1), (7, 3)];
        let sparse = Graph::from_edges(5001, &mut edges);
        assert!(!sparse.is_dense());
        assert_eq!(sparse.edge_count(), 4);
        assert_eq!(sparse.neighbours(0).collect::<Vec<_>>(), [1, 5000]);
        assert!(sparse.has_edge(5000, 0) && !sparse.has_edge(5000, 7));
        let mut built = Graph::new(5001);
        for (u, v) in [(3, 7), (0, 1), (5000, 0), (1, 5000)] {
            assert!(built.add_edge(u, v));
        }
        assert!(!built.add_edge(1, 0));
        assert_eq!(built, sparse);
        assert_eq!(sparse.memory_bytes(), 5001 * 24 + 32);
        let dense = Graph::from_edges(4, &mut [(0, 1), (1, 0), (2, 3)]);
        assert!(dense.is_dense());
        assert_eq!(dense.edge_count(), 2);
    }
}
