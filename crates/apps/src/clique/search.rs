//! The branch-and-bound search for cliques: bitset colouring bounds in the
//! style of San Segundo's BBMC, as a [`Search`].

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use treelb::search::chain::{self, Chains};
use treelb::search::{Children, Entry, Search};
use treelb::{Incumbent, Sense};

use super::Graph;
use super::graph::{DENSE_MAX_VERTICES, WORD, intersection_count};
use super::local::LocalSearch;
use crate::bnb::BnbStats;

/// The number of words of a bitset, known at compile time ([`Fixed`]) for
/// the graphs of up to 1,024 vertices (16 words), so that the
/// colouring's word loops are unrolled and free of bounds checks, or at run
/// time ([`Dynamic`]) above.
trait Width: Copy {
    /// The words.
    fn get(self) -> usize;
}

/// `W` words, a compile-time constant.
#[derive(Clone, Copy)]
struct Fixed<const W: usize>;

impl<const W: usize> Width for Fixed<W> {
    #[inline(always)]
    fn get(self) -> usize {
        W
    }
}

/// A word count known at run time.
#[derive(Clone, Copy)]
struct Dynamic(usize);

impl Width for Dynamic {
    #[inline(always)]
    fn get(self) -> usize {
        self.0
    }
}

/// Calls `$f(width, $args…)` with the [`Width`] of `$words` words: a
/// [`Fixed`] one up to 16 words, [`Dynamic`] above.
macro_rules! with_width {
    ($words:expr, $f:ident($($arg:expr),* $(,)?)) => {
        match $words {
            1 => $f(Fixed::<1>, $($arg),*),
            2 => $f(Fixed::<2>, $($arg),*),
            3 => $f(Fixed::<3>, $($arg),*),
            4 => $f(Fixed::<4>, $($arg),*),
            5 => $f(Fixed::<5>, $($arg),*),
            6 => $f(Fixed::<6>, $($arg),*),
            7 => $f(Fixed::<7>, $($arg),*),
            8 => $f(Fixed::<8>, $($arg),*),
            9 => $f(Fixed::<9>, $($arg),*),
            10 => $f(Fixed::<10>, $($arg),*),
            11 => $f(Fixed::<11>, $($arg),*),
            12 => $f(Fixed::<12>, $($arg),*),
            13 => $f(Fixed::<13>, $($arg),*),
            14 => $f(Fixed::<14>, $($arg),*),
            15 => $f(Fixed::<15>, $($arg),*),
            16 => $f(Fixed::<16>, $($arg),*),
            w => $f(Dynamic(w), $($arg),*),
        }
    };
}

/// Maximum clique or k-clique decision on a graph, as a [`Search`].
///
/// The vertices are renumbered once, by a degeneracy (minimum-width) order:
/// the vertex of smallest degree is removed repeatedly and numbered last, so
/// low numbers form the dense core. A dense graph whose iterated greedy
/// colouring (see `root_colouring`) needs at most 3/4 of the colours of
/// first fit in that order is renumbered again, class by class (colour
/// sorted, as CliSAT's second initial ordering; San Segundo et al., 2023),
/// so that every node's colouring starts from a good one: keller5 has 119
/// colours by first fit in the degeneracy order, 31 so. A node of the search is a clique `C`
/// and its candidate set `P` (the vertices adjacent to all of `C`) as a
/// bitset. Expanding it
///
/// 1. colours `P` greedily, class by class, in the order of the numbering
///    (BBMC: one class is built by repeatedly taking the lowest candidate
///    and removing its neighbours, all word-parallel), and re-colours a
///    vertex that would be branched on into a lower class when it has at
///    most one neighbour there that can move elsewhere (MCS's Re-NUMBER,
///    BBMCR; see `colour`), or leaves it out when it forms with some
///    classes a set whose cliques are smaller than its number of classes:
///    two or three classes by direct checks (infra-chromatic sets, BBMCX;
///    see `absorb`), and with [`Options::propagate`] any number by unit
///    propagation over the classes read as soft clauses (MaxSAT reasoning,
///    as in IncMaxCLQ and CliSAT; see `propagate`). With
///    [`Options::resolve`] (on by default in a dense search), the
///    classes of such a set take the vertex in and serve the later
///    vertices again instead of being frozen (max-resolution; see
///    `conflict`);
/// 2. keeps the vertices whose colour `c` satisfies `|C| + c > floor`,
///    where `floor` is the incumbent's size (and `k − 1` for a decision):
///    a vertex of colour `c` heads a subtree whose cliques have at most
///    `|C| + c` vertices, since `P` restricted to colours `≤ c` needs no
///    more than `c` colours;
/// 3. pushes one child per kept vertex `v`, lowest colour first, with
///    candidates `P ∩ N(v)` minus the kept vertices of higher colour, so the
///    highest colour is expanded first and no clique is found twice.
///
/// The root of a dense search also colours the whole graph by iterated
/// greedy colouring (see `root_colouring`): when that colouring needs no
/// more classes than the incumbent has vertices, the incumbent is optimal
/// and the search ends at its root; when it has fewer classes than the
/// search's own colouring, the root branches on it. Where the degrees are
/// spread ([`Options::root_parts`]), the root is split by parts instead:
/// one child per vertex, its neighbours of lower number as candidates (see
/// `branch_parts`). Its number of classes bounds every node, and when it
/// is within a third of the incumbent a walk of local search (below) goes
/// on until it finds a clique of that size (see `ROOT_MOVES`), at the root
/// itself on graphs of density at most 0.95.
///
/// A child carries its bound `|C| + c`; when it is taken off the stack after
/// the incumbent has reached the bound, it is pruned without colouring.
///
/// A dense maximum-clique search starts with a greedy clique (its starts
/// are the first nodes of the tree, shared by the PEs) and, once the
/// threads have expanded 65,536 nodes together, runs a local search
/// (DLS-MC, see `local.rs`) in short bursts each time the search's node
/// count doubles, a few per cent of its time; a larger clique it finds
/// becomes the incumbent. Short searches never reach a burst.
///
/// Graphs with more than [`DENSE_MAX_VERTICES`] vertices with an edge are
/// searched by parts ([`Mode::Sparse`]): the root splits the positions into
/// ranges, a range into the subproblems of its vertices, and the subproblem
/// of the vertex at position `p` looks for the cliques whose other vertices
/// all have lower positions — its neighbours among them, at most the
/// degeneracy many, held as a small bitset graph built when the subproblem
/// is first expanded. Every clique is found in exactly one subproblem (that
/// of its vertex of highest position), so the parts together search the
/// whole graph in `O(n + m)` memory plus one small bitset graph per open
/// subproblem.
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
    /// The graph, renumbered by the degeneracy order, whole or in parts.
    space: Space,
    /// `label[i]`: the original number of renumbered vertex `i`.
    label: Vec<u32>,
    /// Decision searches: the clique size sought.
    target: Option<u32>,
    /// The largest clique found: its size and vertices (original numbering,
    /// sorted). Read it after the run.
    pub incumbent: Incumbent<Vec<u32>>,
    /// Dense maximum-clique searches seeded with a greedy clique: the local
    /// search that runs in bursts beside the branch and bound
    /// ([`CliqueSearch::tick`]), built at the first burst from
    /// [`CliqueSearch::greedy_best`].
    local: Option<Mutex<Walk>>,
    /// The nodes of the dense search expanded so far, as the threads
    /// publish them (every [`CliqueSearch::publish_every`] nodes).
    nodes_total: AtomicU64,
    /// The published count at which the next burst is due.
    next_burst: AtomicU64,
    /// A thread adds its nodes to [`CliqueSearch::nodes_total`] in batches
    /// of this many: `FIRST_BURST / 64`, a divisor of every burst's count.
    publish_every: u64,
    /// Whether the tree starts with the greedy clique's starts (see
    /// [`Part::Start`]).
    greedy: bool,
    /// The largest greedy clique (positions), the first of its size in the
    /// order of the starts: where the local search starts.
    greedy_best: Mutex<GreedyBest>,
    /// Nanoseconds spent in the greedy starts, summed over the PEs.
    greedy_nanos: AtomicU64,
    /// Tells this search's per-thread node counts from another's.
    id: u64,
    /// [`NODES_PER_MOVE`], lowered by the tests.
    nodes_per_move: u64,
    /// How long building the search took, step by step.
    setup: SetupTimes,
    /// [`Options::propagate`], for the subproblems' graphs.
    propagate: bool,
    /// [`Options::resolve`], for the subproblems' graphs.
    resolve: bool,
    /// [`Options::filter`], for the subproblems' graphs.
    filter: bool,
    /// [`Options::partite`] as it applies, for the subproblems' graphs.
    partite: bool,
    /// The classes of the root's colouring ([`root_colouring`]) once the
    /// root has been expanded (0 before): a bound on ω.
    root_bound: AtomicU32,
    /// Whether the longer walk toward [`CliqueSearch::root_bound`] (see
    /// [`ROOT_MOVES`]) has been made, at the root or at a burst.
    root_walked: AtomicBool,
    /// [`Options::root_parts`] as it applies.
    root_parts: bool,
}

/// How long each step of building a [`CliqueSearch`] took
/// ([`CliqueSearch::setup_times`]): everything before the first node is
/// expanded, which no other PE can share.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SetupTimes {
    /// The degeneracy order.
    pub order: std::time::Duration,
    /// The renumbered graph: the bitset graph, or the neighbour lists of a
    /// sparse search.
    pub matrix: std::time::Duration,
}

/// The largest greedy clique so far and the start it came from.
#[derive(Debug, Default)]
struct GreedyBest {
    start: usize,
    clique: Vec<usize>,
}

impl GreedyBest {
    /// Keeps `clique`, from `start`, if it is larger, or as large and from an
    /// earlier start: the same clique whatever order the starts ran in.
    fn offer(&mut self, start: usize, clique: &[usize]) {
        if clique.len() > self.clique.len() || (clique.len() == self.clique.len() && start < self.start) {
            self.start = start;
            self.clique.clear();
            self.clique.extend_from_slice(clique);
        }
    }
}

/// The local search's seed: the runs are the same from run to run.
const LOCAL_SEED: u64 = 1;

/// The first burst of local search comes after this many nodes of a thread,
/// and the next ones each time its node count doubles.
const FIRST_BURST: u64 = 1 << 16;

/// A burst adds or removes one vertex of the local search's clique for
/// this many nodes expanded since the last burst (the first: since half of
/// [`FIRST_BURST`]): a move costs a few hundred instructions, a node
/// several thousand, so the bursts take a few per cent of the time.
const NODES_PER_MOVE: u64 = 8;

/// The moves of a round of the longer walk (see [`ROOT_MOVES`]), between
/// which it checks whether it met the root's colouring.
const ROOT_ROUND: u64 = 1024;

/// When the root's colouring ([`root_colouring`]) is within an eighth of
/// the incumbent (a third: see [`SHORT_ROOT_MOVES`]), a walk of local search
/// ([`CliqueSearch::walk_to_root_bound`]) goes on, in rounds of
/// [`ROOT_ROUND`] moves, up to this many moves, until its clique has as
/// many vertices as the colouring has classes: then a clique of its size
/// proves itself and prunes every node left (each bound by its colour at
/// the root). The walk has no penalties
/// ([`LocalSearch::with_penalty_delay`]) and starts from the largest greedy
/// clique. It is made at the root, right after the colouring, on graphs of
/// density at most [`ROOT_WALK_DENSITY`], and at the first burst of local
/// search ([`CliqueSearch::tick`]) on denser ones. At most ~60 ms (a move
/// costs about 0.2 µs on gen400_p0.9_55). gen400_p0.9_55: the greedy
/// clique has 50 vertices, the colouring 55 classes; the walk meets 55
/// within 131,072 moves (37,888–76,800 with the seeds 2 to 5), and the
/// search ends at its root after 10 nodes (0.07 CPU s at P = 1, against
/// 65,545 nodes and 0.70 s when the walk waited for the first burst;
/// `docs/benchmarks/2026-11-28-clique-root-walk`);
/// without the walk, the search had not proven ω after 12 M nodes (60 s).
const ROOT_MOVES: u64 = 1 << 18;

/// When the root's colouring is farther than an eighth from the incumbent
/// but within a third, the walk toward it ([`ROOT_MOVES`]) goes on for at
/// most this many moves, a few milliseconds: there the greedy clique is
/// often far below ω, and a short walk finds ω where the colouring is
/// tight. gen400_p0.9_65 (greedy clique 49, ω and colouring 65) and
/// gen400_p0.9_75 are then proven at their root, 10 nodes and 0.01–0.02
/// CPU s at P = 1, against 65,545 nodes and 0.56–0.84 s when ω waited for
/// the first burst of local search; gen200_p0.9_44 takes 7,687 nodes
/// instead of 15,968 and gen200_p0.9_55 164 instead of 627. The walk of
/// all [`ROOT_MOVES`] there cost keller4 and C125.9, whose colouring stays
/// above ω, 0.07–0.18 s on searches of 0.01–0.02 s; this one changes no
/// other tree of the side-by-side benchmark
/// (`docs/benchmarks/2026-11-28-clique-side-by-side`).
const SHORT_ROOT_MOVES: u64 = 1 << 13;

/// The walk toward the root's colouring ([`ROOT_MOVES`]) is made at the
/// root on graphs of at most this density, at the first burst on denser
/// ones. There a move costs several times more (MANN_a27, density 0.99:
/// about 0.9 µs) and the colouring is loose (MANN_a27: 135 classes, ω 126;
/// the walk never met it): made at the root, the walk took MANN_a27 from
/// 0.13 to 0.36 CPU s at P = 1, a search of 8,934 nodes that ends before
/// the first burst.
const ROOT_WALK_DENSITY: f64 = 0.95;

/// Numbers for [`CliqueSearch::id`].
static SEARCH_IDS: AtomicU64 = AtomicU64::new(0);

/// Per thread: the search whose nodes it counts, and its nodes not yet
/// added to [`CliqueSearch::nodes_total`].
#[derive(Clone, Copy, Default)]
struct Clock {
    search: u64,
    nodes: u64,
}

thread_local! {
    static CLOCK: Cell<Clock> = const { Cell::new(Clock { search: u64::MAX, nodes: 0 }) };
}

/// The local search's walk, built at its first burst, and the published
/// node count at its last burst.
#[derive(Debug)]
struct Walk {
    search: Option<LocalSearch>,
    last: u64,
}

/// A node of the clique search: a clique (a chain of vertices shared with
/// the ancestors) and its candidate set.
///
/// Nodes serialize (for runtimes that send pieces between processes): a
/// node on its own writes its chain as a list of vertices, rebuilt unshared
/// on the receiving side; a stack of them ([`Search::serialize_stack`])
/// writes each shared link once and is rebuilt shared
/// ([`treelb::search::chain`]).
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
    /// Which part of the search the node belongs to.
    part: Part,
    /// [`Part::Sub`]: the subproblem's graph, shared by its nodes; rebuilt
    /// from the pivot when absent (a node received from another process).
    local: Option<Arc<Local>>,
    /// With [`Options::filter`]: the `kmin` and the branching list
    /// `(vertex, colour)` of this node, computed by its parent's filtering
    /// phase (see [`branch`]) from the same candidates, so that the node
    /// does not colour them again. Not serialized: a node received from
    /// another process colours its candidates itself.
    pre: Option<(u32, Vec<(u32, u32)>)>,
    /// In partite mode (see [`partite`]): the colour classes of the node
    /// where the mode began, `words` words each; this node's classes are
    /// their intersections with its candidates. Not serialized: a node
    /// received from another process colours its candidates itself.
    partite: Option<Arc<[u64]>>,
}

/// Where a node's vertex numbers and candidate set live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Part {
    /// The root of a dense maximum-clique search seeded by the greedy
    /// clique: its children are the root of the search ([`Part::Whole`]),
    /// pushed first, and the greedy starts in chunks ([`Part::Greedy`])
    /// above it, so that the greedy cliques are offered before the search
    /// begins, and a thief takes the search's root with some of the chunks
    /// (see [`CliqueSearch::expand_start`]).
    Start,
    /// The greedy starts `lo..hi` ([`BitMatrix::greedy_clique`]): a leaf
    /// that offers its cliques to the incumbent. It holds no part of the
    /// search space, so its bound is 0.
    Greedy {
        /// The first start.
        lo: u32,
        /// One past the last.
        hi: u32,
    },
    /// Dense search: the whole renumbered graph.
    Whole,
    /// Sparse search: the subproblems of the pivots `lo..hi`.
    Range {
        /// The first pivot.
        lo: u32,
        /// One past the last pivot.
        hi: u32,
    },
    /// Sparse search: the cliques whose vertex of highest position is
    /// `pivot`; vertex numbers index [`Local::members`]. The node's clique
    /// holds the pivot besides its chain.
    Sub {
        /// The pivot, in the renumbering.
        pivot: u32,
    },
}

/// The graph of a subproblem: the pivot's neighbours of lower position,
/// as a dense bitset graph of at most degeneracy-many vertices.
#[derive(Debug)]
struct Local {
    /// Local vertex `i` is renumbered vertex `members[i]` (increasing).
    members: Vec<u32>,
    /// Adjacency among the members.
    matrix: BitMatrix,
}

/// A graph as adjacency bitsets, the form the colouring works on.
#[derive(Debug)]
pub(crate) struct BitMatrix {
    n: usize,
    words: usize,
    adj: Vec<u64>,
    /// Whether the colouring looks for infra-chromatic sets ([`absorb`]):
    /// set by [`BitMatrix::finish`] unless more than 95 % of the pairs are
    /// edges. Then two vertices are nearly always adjacent and have a
    /// common neighbour in any class, and looking costs more than it
    /// saves (MANN_a27: 10 % more instructions, no node fewer).
    infra: bool,
    /// Whether the colouring also looks for inconsistent sets of any number
    /// of classes by unit propagation ([`propagate`]; with
    /// [`BitMatrix::infra`] only): [`Options::propagate`].
    propagate: bool,
    /// Whether an inconsistent set of classes is transformed rather than
    /// frozen (max-resolution, see [`conflict`]; with
    /// [`BitMatrix::propagate`] only): [`Options::resolve`].
    resolve: bool,
    /// Whether a node colours its children's candidates before pushing
    /// them, leaving out those that need no branching (see [`branch`]):
    /// [`Options::filter`].
    filter: bool,
    /// Whether a node whose candidates its colouring partitions into one
    /// class more than it needs goes into partite mode ([`partite`]).
    partite: bool,
}

impl BitMatrix {
    fn new(n: usize) -> Self {
        let words = n.div_ceil(WORD);
        BitMatrix {
            n,
            words,
            adj: vec![0; n * words],
            infra: false,
            propagate: false,
            resolve: false,
            filter: false,
            partite: false,
        }
    }

    /// Sets [`BitMatrix::infra`] once the edges are in.
    fn finish(mut self) -> Self {
        let (ends, pairs) = self.ends_and_pairs();
        self.infra = ends * 100 <= pairs * 95;
        self
    }

    /// The edges' ends (twice the edges) and the ordered pairs of distinct
    /// vertices.
    fn ends_and_pairs(&self) -> (usize, usize) {
        let ends: usize = self.adj.iter().map(|w| w.count_ones() as usize).sum();
        (ends, self.n * self.n.saturating_sub(1))
    }

    /// The share of the pairs of vertices that are edges.
    fn density(&self) -> f64 {
        let (ends, pairs) = self.ends_and_pairs();
        ends as f64 / pairs.max(1) as f64
    }

    /// The bytes of a matrix of `n` vertices.
    fn bytes(n: usize) -> usize {
        n.saturating_mul(n.div_ceil(WORD)).saturating_mul(8)
    }

    #[inline]
    fn set(&mut self, u: usize, v: usize) {
        self.adj[u * self.words + v / WORD] |= 1 << (v % WORD);
        self.adj[v * self.words + u / WORD] |= 1 << (u % WORD);
    }

    /// The row of `v`, `width` words long.
    #[inline(always)]
    fn row_w<W: Width>(&self, width: W, v: usize) -> &[u64] {
        let words = width.get();
        &self.adj[v * words..][..words]
    }

    /// A greedy clique: from each of the first [`GREEDY_STARTS`] vertices
    /// (the dense core, in the degeneracy numbering), add the candidate
    /// with the most neighbours among the remaining candidates (ties to the
    /// higher number) until none is left, giving up a start once it cannot
    /// beat the best clique so far; the largest clique found, the first of
    /// its size. A quick lower bound on ω. Written plainly, as the reference
    /// for [`greedy_starts`], which the search runs in chunks as nodes of
    /// its tree ([`Part::Greedy`]).
    #[cfg(test)]
    fn greedy_clique(&self) -> Vec<usize> {
        let row = |v: usize| &self.adj[v * self.words..(v + 1) * self.words];
        let mut best: Vec<usize> = Vec::new();
        for start in 0..self.n.min(GREEDY_STARTS) {
            let mut clique = vec![start];
            let mut cand = row(start).to_vec();
            loop {
                let left: usize = cand.iter().map(|w| w.count_ones() as usize).sum();
                if left == 0 || clique.len() + left <= best.len() {
                    break;
                }
                let (mut pick, mut most) = (usize::MAX, 0);
                for v in super::graph::bits(&cand) {
                    let c = intersection_count(&cand, row(v));
                    if pick == usize::MAX || c >= most {
                        (pick, most) = (v, c);
                    }
                }
                clique.push(pick);
                cand.iter_mut().zip(row(pick)).for_each(|(c, r)| *c &= r);
            }
            if clique.len() > best.len() {
                best = clique;
            }
        }
        best
    }
}

/// Starts of [`BitMatrix::greedy_clique`]: on the DIMACS graphs the best
/// greedy clique comes from one of the first 110 vertices of the
/// degeneracy numbering, and every start costs up to `ω · n² / 64` on a
/// dense graph.
const GREEDY_STARTS: usize = 128;

/// The starts of one [`Part::Greedy`] node: 8 nodes of 16 starts, so that
/// two to eight PEs share them (p_hat700-2: 5 ms in all).
const GREEDY_CHUNK: usize = 16;

/// The cost ([`Search::cost`]) of a node of greedy starts (see
/// [`CliqueSearch::greedy_chunks`]): one default slice (Δt = 256). A chunk
/// of 16 starts costs about as much as 230 search nodes of p_hat700-2
/// (0.8 ms against 3.5 µs), and each start walks the whole graph, so on
/// every graph a chunk is worth hundreds of nodes. At cost 1, the PE holding the root ran all eight chunks and the
/// root's first children in its first slice before it answered the first
/// request: the other PEs waited 6–10 ms on p_hat700-2 (3 % of the run).
pub const GREEDY_CHUNK_COST: u64 = 256;

/// The greedy starts `starts` ([`BitMatrix::greedy_clique`]) for bitsets
/// of `width` words: a start is given up once its clique and candidates
/// together are no larger than `floor()`; `found(start, clique)` receives
/// each finished clique larger than `floor()`.
///
/// The candidate with the most neighbours among the candidates `P` is the
/// one with the fewest non-neighbours there: `miss[v] = |P ∩ N̄(v)|`
/// (`N̄(v)`: the vertices other than `v` not adjacent to it), kept for
/// every candidate. Adding `pick` removes from `P` the set `R` of `pick`
/// and its non-neighbours; a remaining candidate `v` loses from `miss[v]`
/// the vertices of `R` it is not adjacent to, and `pick` is not one of
/// them. So `miss` is either recomputed (`|P| · W` words) or lowered along
/// the non-neighbours of each vertex of `R` but `pick` (`(|R| − 1) · W`
/// words and one step per non-edge met), whichever is expected to be
/// cheaper: on MANN_a27 (99 % of the pairs are edges, ω = 126) a step
/// removes two or three vertices from the ~190 candidates, and the starts
/// took 27 % of the run's instructions when `miss` was recomputed at
/// every step.
fn greedy_starts<W: Width>(
    width: W,
    m: &BitMatrix,
    starts: std::ops::Range<usize>,
    floor: impl Fn() -> i64,
    mut found: impl FnMut(usize, &[usize]),
) {
    let words = width.get();
    let mut clique = Vec::new();
    let mut cand = vec![0u64; words];
    let mut removed = vec![0u64; words];
    let mut miss = vec![0u32; m.n];
    let recompute = |cand: &[u64], left: usize, miss: &mut [u32]| {
        for (i, &word) in cand.iter().enumerate() {
            let mut x = word;
            while x != 0 {
                let v = i * WORD + x.trailing_zeros() as usize;
                x &= x - 1;
                miss[v] = (left - 1 - intersection_count(&cand[..words], m.row_w(width, v))) as u32;
            }
        }
    };
    for start in starts {
        clique.clear();
        clique.push(start);
        cand.copy_from_slice(m.row_w(width, start));
        let mut left: usize = cand.iter().map(|w| w.count_ones() as usize).sum();
        recompute(&cand, left, &mut miss);
        while left > 0 && ((clique.len() + left) as i64) > floor() {
            // The fewest non-neighbours: the most neighbours (ties to the
            // higher number).
            let (mut pick, mut least) = (usize::MAX, u32::MAX);
            for (i, &word) in cand.iter().enumerate() {
                let mut x = word;
                while x != 0 {
                    let v = i * WORD + x.trailing_zeros() as usize;
                    x &= x - 1;
                    if miss[v] <= least {
                        (pick, least) = (v, miss[v]);
                    }
                }
            }
            clique.push(pick);
            let row = m.row_w(width, pick);
            for ((r, c), a) in removed[..words].iter_mut().zip(&mut cand[..words]).zip(row) {
                *r = *c & !a;
                *c &= a;
            }
            let gone: usize = removed.iter().map(|w| w.count_ones() as usize).sum();
            let others = gone - 1;
            left -= gone;
            if left == 0 {
                break;
            }
            // Expected costs in words: one non-neighbour list per removed
            // vertex, each meeting `left · others / (left + gone)` remaining
            // candidates; or a full recount.
            if others * (words + left * others / (left + gone)) < left * words {
                removed[pick / WORD] &= !(1 << (pick % WORD));
                for (i, &word) in removed.iter().enumerate() {
                    let mut x = word;
                    while x != 0 {
                        let r = i * WORD + x.trailing_zeros() as usize;
                        x &= x - 1;
                        for (j, (&c, &a)) in cand[..words].iter().zip(m.row_w(width, r)).enumerate() {
                            let mut y = c & !a;
                            while y != 0 {
                                miss[j * WORD + y.trailing_zeros() as usize] -= 1;
                                y &= y - 1;
                            }
                        }
                    }
                }
            } else {
                recompute(&cand, left, &mut miss);
            }
        }
        if clique.len() as i64 > floor() {
            found(start, &clique);
        }
    }
}

/// The renumbered graph as the search holds it.
#[derive(Debug)]
enum Space {
    /// One bitset graph of all the vertices.
    Dense(BitMatrix),
    /// Neighbour lists: `lower[offset[p]..offset[p + 1]]` are the
    /// neighbours of `p` of lower position, increasing. `O(n + m)`.
    Sparse { offset: Vec<usize>, lower: Vec<u32> },
}

/// How [`CliqueSearch`] holds the graph.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// [`Mode::Dense`] up to [`DENSE_MAX_VERTICES`] vertices with an edge,
    /// [`Mode::Sparse`] above.
    #[default]
    Auto,
    /// One adjacency bitset graph of all vertices with an edge: `n²/8`
    /// bytes.
    Dense,
    /// Neighbour lists (`O(n + m)`), and one small bitset graph per
    /// vertex `v` over its neighbours of lower position in the degeneracy
    /// order, built when `v`'s part of the search starts: at most
    /// degeneracy-many vertices.
    Sparse,
}

/// The options of [`CliqueSearch::with_options`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// `Some(k)`: the decision "is there a clique of `k` vertices?";
    /// `None`: maximum clique.
    pub target: Option<u32>,
    /// Seed the incumbent with a greedy clique (dense maximum clique
    /// searches only).
    pub greedy: bool,
    /// How the graph is held.
    pub mode: Mode,
    /// Refuse, before allocating it, a bitset graph larger than this many
    /// bytes.
    pub max_bitset_bytes: Option<usize>,
    /// Also leave out of the branching set the vertices that unit
    /// propagation over the colour classes (MaxSAT reasoning, as in
    /// IncMaxCLQ and CliSAT) shows to be inconsistent with some classes,
    /// beyond the sets of two and three classes always looked for. Fewer
    /// nodes, each dearer: on p_hat500-3 39 % fewer nodes and 4 % more CPU
    /// time, on brock400_2 19 % fewer and 12 % more, and on gen400_p0.9_55,
    /// which the longer walk of local search ended after 65,545 nodes
    /// either way (it now ends at the root, see `ROOT_MOVES`), twice the
    /// time (`docs/benchmarks/2026-11-27-clique-maxsat`; before
    /// the walk, 59 % fewer nodes and 15 % less time there:
    /// `docs/benchmarks/2026-11-27-clique-bounds`).
    pub propagate: bool,
    /// Max-resolution: unit propagation over the colour classes
    /// ([`Options::propagate`], turned on with it), and an inconsistent set
    /// of classes found for a vertex `v` (by unit propagation, or the sets
    /// of two and three classes) is transformed instead of frozen: `v`
    /// joins each of its classes, read as soft clauses, and the classes
    /// take part in the propagations of the later vertices (Li, Jiang and
    /// Manyà, 2018; San Segundo et al., 2023). `Some(true)`: on;
    /// `Some(false)`: off; `None` (the default): on in a dense search (a
    /// sparse search's parts take it only when `Some(true)`). It pays
    /// nearly everywhere: keller5's proof at P = 1 took 67 CPU s and 17 M
    /// nodes with it, 112 s and 77 M without; p_hat700-2 0.74 s against
    /// 1.80 (`docs/benchmarks/2026-11-27-clique-maxres`,
    /// `docs/benchmarks/2026-11-28-clique-resolve`); with the root split
    /// by parts, p_hat500-3 10.3 s against 13.8 and p_hat700-3 143 s
    /// against 214; C250.9 proven in 158 s, not in 300 without; brock400_4
    /// 5.7 s against 8.7. The one loss measured is brock400_2, 41.8 s
    /// against 37.3 (`docs/benchmarks/2026-11-29-clique-root-parts`).
    pub resolve: Option<bool>,
    /// The filtering phase (as in CliSAT; San Segundo et al., 2023): a node
    /// colours each child's candidates, with the child's bound, before it
    /// pushes the child, and leaves out the children whose colouring leaves
    /// nothing to branch on; a child pushed keeps its colouring and does
    /// not colour again. The same tree without its leaves, so the same
    /// answer and the same colourings; what it saves is the leaves'
    /// bookkeeping as nodes, about 1.5 % of the time: keller5's proof took
    /// 60.9 CPU s with it and 62.8 without; brock400_2 took 41 s against
    /// 22, its local search meeting ω later, though its proof with the
    /// floor fixed took the same time either way
    /// (`docs/benchmarks/2026-11-27-clique-filter`). The children of a root
    /// split by parts ([`Options::root_parts`]) are pushed unfiltered.
    pub filter: bool,
    /// Partite mode: a node whose colouring partitions its candidates
    /// into exactly one class more than the floor leaves room for (every
    /// vertex above `kmin` in class `kmin + 1`, and each vertex absorbed by
    /// an inconsistent set fitting into some class) searches its subtree
    /// as a constraint satisfaction problem, one variable per class, by
    /// maintaining arc consistency and branching on the smallest class,
    /// without colouring again. `Some(true)`: on; `Some(false)`: off;
    /// `None` (the default): on where the search renumbers the graph
    /// colour sorted (see [`CliqueSearch`]), where it pays: keller5's
    /// proof at P = 1 took 124 CPU s and 11.9 M nodes with it, 141 s and
    /// 17.1 M without; forced on, p_hat500-3 and brock400_2 took 4–6 %
    /// more time and MANN_a27 2–3 times
    /// (`docs/benchmarks/2026-11-28-clique-partite`). Off with
    /// [`Options::filter`].
    pub partite: Option<bool>,
    /// The root split by parts: the root of a dense search has one child
    /// per vertex `v`, whose candidates are `v`'s neighbours of lower
    /// position (the cliques whose vertex of highest position is `v`, as
    /// the parts of a sparse search and the first level of CliSAT; San
    /// Segundo et al., 2023), bound by the classes of the root's colouring
    /// they meet, the lowest position expanded first on each PE, instead
    /// of one child per vertex the root's colouring cannot rule out, whose
    /// candidates are the vertices of lower colour. `Some(true)`: on;
    /// `Some(false)`: off; `None` (the default): on where the degrees are
    /// spread ([`ROOT_PARTS_SPREAD`]) on a graph of density at least
    /// [`ROOT_PARTS_DENSITY`], where it pays
    /// (`docs/benchmarks/2026-11-29-clique-root-parts`).
    pub root_parts: Option<bool>,
}

/// A search that would need a bitset graph larger than
/// [`Options::max_bitset_bytes`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the search needs a bitset graph of {vertices} vertices ({}), more than the limit of {}",
    human_bytes(*bytes),
    human_bytes(*limit)
)]
pub struct TooLarge {
    /// The vertices of the largest bitset graph.
    pub vertices: usize,
    /// Its bytes.
    pub bytes: usize,
    /// The limit.
    pub limit: usize,
}

/// A size in bytes as KiB, MiB or GiB (rounded up).
pub(crate) fn human_bytes(bytes: usize) -> String {
    const KIB: usize = 1 << 10;
    match bytes {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{} MiB", b.div_ceil(1 << 20)),
        b => format!("{} KiB", b.div_ceil(KIB)),
    }
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

    /// The chain its children's cliques share: its own vertex on its
    /// prefix (the root's children start a chain).
    fn child_prefix(&self) -> Option<Arc<Link>> {
        (self.vertex != NO_VERTEX).then(|| Arc::new(Link { vertex: self.vertex, prev: self.prefix.clone() }))
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
    part: Part,
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
            part: node.part,
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
            part: wire.part,
            local: None,
            pre: None,
            partite: None,
        }
    }
}

/// How a [`CliqueNode`] holds its clique: a stack of nodes travels with
/// each link once ([`Search::serialize_stack`]); a node's subproblem graph
/// stays behind, as with a node on its own.
struct Cliques;

impl Chains for Cliques {
    type Node = CliqueNode;
    type Link = Link;
    type Step = u32;
    type Head = (u32, u32, u32, Box<[u64]>, Part);

    fn last(node: &CliqueNode) -> Option<&Arc<Link>> {
        node.prefix.as_ref()
    }

    fn prev(link: &Link) -> Option<&Arc<Link>> {
        link.prev.as_ref()
    }

    fn step(link: &Link) -> impl Serialize + '_ {
        link.vertex
    }

    fn head(node: &CliqueNode) -> impl Serialize + '_ {
        (node.bound, node.size, node.vertex, &*node.cand, node.part)
    }

    fn link(vertex: u32, prev: Option<Arc<Link>>) -> Link {
        Link { vertex, prev }
    }

    fn join(
        (bound, size, vertex, cand, part): (u32, u32, u32, Box<[u64]>, Part),
        prefix: Option<Arc<Link>>,
    ) -> CliqueNode {
        CliqueNode { bound, size, vertex, prefix, cand, part, local: None, pre: None, partite: None }
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

/// Dropped link by link, not recursively: a chain as deep as the search
/// would overflow the stack ([`treelb::search::chain`]).
impl Drop for Link {
    fn drop(&mut self) {
        treelb::search::chain::unlink(self.prev.take(), |link| link.prev.take());
    }
}

/// Per-thread buffers of the colouring, so that expanding allocates only the
/// children's candidate sets, and few of those.
#[derive(Default)]
struct Scratch {
    uncoloured: Vec<u64>,
    class: Vec<u64>,
    /// The colour classes `1..=kmin`, `words` words each.
    classes: Vec<u64>,
    /// `(vertex, colour)` of the vertices worth branching on.
    order: Vec<(u32, u32)>,
    /// The classes `1..=kmin` that an infra-chromatic set took (see
    /// [`absorb`]): nothing enters or leaves them any more.
    frozen: Vec<bool>,
    /// `(class, w)`: the classes where the vertex being re-coloured has
    /// exactly one neighbour, `w`.
    singles: Vec<(u32, u32)>,
    /// The `w` of `singles`, as a bitset.
    witnesses: Vec<u64>,
    /// The buffers of unit propagation over the classes ([`propagate`]).
    units: Units,
    /// Candidate sets of expanded nodes, for the children of later ones.
    spare: Vec<Box<[u64]>>,
    /// The buffers of the children's colourings in the filtering phase
    /// ([`Options::filter`]; see [`branch`]).
    child: Option<Box<Scratch>>,
    /// Branching lists of expanded nodes ([`CliqueNode::pre`]), for the
    /// children of later ones.
    spare_lists: Vec<Vec<(u32, u32)>>,
    /// Partite mode ([`partite`]): the node's classes, `words` words each.
    pclasses: Vec<u64>,
    /// Partite mode: per class, the neighbours of its vertices.
    nb: Vec<u64>,
    /// Partite mode: per class, the vertices adjacent to every class
    /// before it.
    acc: Vec<u64>,
    /// Partite mode: one set of `words` words.
    after: Vec<u64>,
    /// Partite mode: per class, whether it lost vertices since its
    /// neighbours were last collected.
    dirty: Vec<bool>,
    /// Partite mode: the vertices of a clique found, one per class.
    found: Vec<u32>,
}

/// At most this many spare candidate sets per thread: an expanded node's
/// set is reused for a child of a later node instead of going back to the
/// allocator (brock200_4: 3 % fewer instructions, brock200_1 5 % less time).
const SPARE_SETS: usize = 256;

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl CliqueSearch {
    /// The maximum clique problem, with the incumbent seeded by a greedy
    /// clique (dense graphs).
    pub fn max_clique(graph: &Graph) -> Self {
        Self::build(graph, Options { greedy: true, ..Options::default() })
    }

    /// The maximum clique problem with no initial solution: the search finds
    /// every improvement itself.
    pub fn max_clique_unseeded(graph: &Graph) -> Self {
        Self::build(graph, Options::default())
    }

    /// The search with explicit [`Options`]; refuses a bitset graph above
    /// [`Options::max_bitset_bytes`] before allocating it.
    ///
    /// ```
    /// use treelb_apps::clique::{CliqueSearch, Graph, Mode, Options};
    /// let g = Graph::hamming(6, 4);
    /// let sparse = Options { mode: Mode::Sparse, ..Options::default() };
    /// let search = CliqueSearch::with_options(&g, sparse)?;
    /// assert!(search.is_sparse());
    /// treelb::seq::run_search(&search);
    /// assert_eq!(search.incumbent.into_best().map(|(omega, _)| omega), Some(4));
    /// let tiny = Options { mode: Mode::Dense, max_bitset_bytes: Some(100), ..Options::default() };
    /// let refused = CliqueSearch::with_options(&g, tiny).unwrap_err();
    /// assert_eq!(refused.vertices, 64);
    /// # Ok::<(), treelb_apps::clique::TooLarge>(())
    /// ```
    pub fn with_options(graph: &Graph, options: Options) -> Result<Self, TooLarge> {
        let clock = std::time::Instant::now();
        let (order, kept) = order_and_kept(graph);
        let mut setup = SetupTimes { order: clock.elapsed(), ..SetupTimes::default() };
        let clock = std::time::Instant::now();
        let sparse = match options.mode {
            Mode::Auto => kept > DENSE_MAX_VERTICES,
            Mode::Dense => false,
            Mode::Sparse => true,
        };
        let position = positions(&order, graph.n());
        let lower_of = |p: usize| -> Vec<u32> {
            let mut l: Vec<u32> =
                graph.neighbours(order[p]).map(|u| position[u]).filter(|&q| (q as usize) < p).collect();
            l.sort_unstable();
            l
        };
        let vertices =
            if sparse { (0..kept).map(|p| graph.degree(order[p]).min(p)).max().unwrap_or(0) } else { kept };
        // The degree bounds the lower degree; the exact bound comes below.
        let bytes = BitMatrix::bytes(vertices);
        if let Some(limit) = options.max_bitset_bytes
            && bytes > limit
        {
            // The degree is an over-estimate: refuse on the exact lower degree.
            let exact = if sparse { (0..kept).map(|p| lower_of(p).len()).max().unwrap_or(0) } else { kept };
            let bytes = BitMatrix::bytes(exact);
            if bytes > limit {
                return Err(TooLarge { vertices: exact, bytes, limit });
            }
        }
        let (space, sorted) = if sparse {
            let mut offset = Vec::with_capacity(kept + 1);
            let mut lower = Vec::new();
            offset.push(0);
            for p in 0..kept {
                lower.extend(lower_of(p));
                offset.push(lower.len());
            }
            (Space::Sparse { offset, lower }, None)
        } else {
            let mut matrix = dense_matrix(graph, &order[..kept], &position);
            // Colour-sorted: renumbered class by class when iterated greedy
            // colouring needs at most 3/4 of first fit's colours.
            let first = first_fit(&matrix, &(0..kept as u32).collect::<Vec<_>>()).len();
            let classes = root_colouring(&matrix, -1, SORT_ROUNDS);
            let mut sorted = None;
            if 4 * classes.len() <= 3 * first {
                let resorted: Vec<usize> = classes.iter().flatten().map(|&p| order[p as usize]).collect();
                let mut position = position.clone();
                for (p, &v) in resorted.iter().enumerate() {
                    position[v] = p as u32;
                }
                matrix = dense_matrix(graph, &resorted, &position);
                sorted = Some(resorted);
            }
            let resolve = options.resolve.unwrap_or(true);
            matrix.propagate = options.propagate || resolve;
            matrix.resolve = resolve;
            matrix.filter = options.filter;
            matrix.partite = options.partite.unwrap_or(sorted.is_some()) && !options.filter;
            (Space::Dense(matrix), sorted)
        };
        let label: Vec<u32> = sorted.as_deref().unwrap_or(&order[..kept]).iter().map(|&v| v as u32).collect();
        setup.matrix = clock.elapsed();
        let mut search = CliqueSearch {
            space,
            label,
            target: options.target,
            incumbent: Incumbent::new(Sense::Maximize),
            local: None,
            greedy: false,
            greedy_best: Mutex::new(GreedyBest::default()),
            greedy_nanos: AtomicU64::new(0),
            nodes_total: AtomicU64::new(0),
            next_burst: AtomicU64::new(FIRST_BURST),
            publish_every: FIRST_BURST / 64,
            id: SEARCH_IDS.fetch_add(1, Ordering::Relaxed),
            nodes_per_move: NODES_PER_MOVE,
            setup,
            propagate: options.propagate || options.resolve == Some(true),
            resolve: options.resolve == Some(true),
            filter: options.filter,
            partite: options.partite == Some(true) && !options.filter,
            root_bound: AtomicU32::new(0),
            root_walked: AtomicBool::new(false),
            root_parts: options.root_parts.unwrap_or_else(|| parts_pay(graph)),
        };
        if options.greedy && options.target.is_none() && matches!(search.space, Space::Dense(_)) {
            // The greedy starts are the first nodes of the tree, the local
            // search is built at its first burst: neither delays the PEs.
            search.greedy = true;
            search.local = Some(Mutex::new(Walk { search: None, last: FIRST_BURST / 2 }));
        }
        Ok(search)
    }

    fn build(graph: &Graph, options: Options) -> Self {
        match Self::with_options(graph, options) {
            Ok(search) => search,
            Err(_) => unreachable!("no limit was set"),
        }
    }

    /// How long building the search took, step by step.
    pub fn setup_times(&self) -> SetupTimes {
        self.setup
    }

    /// The nodes of greedy starts in the tree (8 for a dense maximum-clique
    /// search of at least 128 vertices seeded greedily, none otherwise):
    /// each costs [`GREEDY_CHUNK_COST`] units of Δt ([`Search::cost`]), so a
    /// whole run's work units are at most its nodes plus this many times
    /// `GREEDY_CHUNK_COST − 1` (a slice counts no more than its budget).
    pub fn greedy_chunks(&self) -> u64 {
        match &self.space {
            Space::Dense(matrix) if self.greedy => matrix.n.min(GREEDY_STARTS).div_ceil(GREEDY_CHUNK) as u64,
            _ => 0,
        }
    }

    /// The most work units a run of this search can count when it expands
    /// `nodes` nodes: one per node, and up to [`GREEDY_CHUNK_COST`] `− 1`
    /// more for each chunk of greedy starts ([`CliqueSearch::greedy_chunks`];
    /// fewer when a chunk ends a slice, which counts no more than its
    /// budget). The least is `nodes`: every expansion counts at least one.
    pub fn max_work_units(&self, nodes: u64) -> u64 {
        nodes + self.greedy_chunks() * (GREEDY_CHUNK_COST - 1)
    }

    /// Runs every greedy start at once, outside the tree, and offers each
    /// clique larger than the incumbent to it: the heuristic of a seeded
    /// search for a search built without it (`Options { greedy: false, .. }`),
    /// so that the tree it then holds is the one the greedy clique prunes.
    /// Does nothing for a sparse search.
    ///
    /// ```
    /// use treelb_apps::clique::{CliqueSearch, Graph, Options};
    /// let g = Graph::hamming(6, 4);
    /// let search = CliqueSearch::with_options(&g, Options { greedy: false, ..Options::default() })?;
    /// assert_eq!(search.incumbent.best(), None);
    /// search.offer_greedy_cliques();
    /// assert!(search.incumbent.best().is_some_and(|size| size >= 2));
    /// # Ok::<(), treelb_apps::clique::TooLarge>(())
    /// ```
    pub fn offer_greedy_cliques(&self) {
        if let Space::Dense(matrix) = &self.space {
            self.run_greedy(0, matrix.n.min(GREEDY_STARTS));
        }
    }

    /// The time spent in the greedy clique's starts, summed over the PEs
    /// that ran them (the first nodes of the tree, part of the search).
    pub fn greedy_time(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(self.greedy_nanos.load(Ordering::Relaxed))
    }

    /// Whether the search holds the graph as neighbour lists with one small
    /// bitset graph per part ([`Mode::Sparse`]).
    pub fn is_sparse(&self) -> bool {
        matches!(self.space, Space::Sparse { .. })
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
        Self::build(graph, Options { target: Some(k), ..Options::default() })
    }

    /// The clique size a decision search looks for (`None`: maximum clique).
    pub fn target(&self) -> Option<u32> {
        self.target
    }

    /// The number of vertices the search works on (isolated vertices
    /// are left out, but one).
    pub fn n(&self) -> usize {
        self.label.len()
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
    fn witness(&self, node: &CliqueNode, local: Option<&Local>) -> Vec<u32> {
        self.witness_with(node, local, &[])
    }

    /// The clique of `node` and the vertices `extra` (in the node's
    /// numbering), in the original numbering, sorted.
    fn witness_with(&self, node: &CliqueNode, local: Option<&Local>, extra: &[u32]) -> Vec<u32> {
        let mut clique = Vec::with_capacity(node.size as usize + extra.len());
        let global = |v: u32| match local {
            Some(l) => self.label[l.members[v as usize] as usize],
            None => self.label[v as usize],
        };
        if let Part::Sub { pivot } = node.part {
            clique.push(self.label[pivot as usize]);
        }
        if node.vertex != NO_VERTEX {
            clique.push(global(node.vertex));
        }
        let mut link = node.prefix.as_deref();
        while let Some(l) = link {
            clique.push(global(l.vertex));
            link = l.prev.as_deref();
        }
        clique.extend(extra.iter().map(|&v| global(v)));
        clique.sort_unstable();
        clique
    }
}

impl CliqueSearch {
    /// Counts a node; runs a burst of local search when the search's node
    /// count (all threads together) has doubled since the last one (the
    /// first after [`FIRST_BURST`] nodes), of one move per
    /// [`NODES_PER_MOVE`] nodes since, and offers a larger clique it finds
    /// to the incumbent. The local search keeps its state from burst to
    /// burst: together the bursts are one walk.
    ///
    /// The bursts give a search that runs long a good incumbent early — the
    /// brock graphs hide their maximum clique from the greedy start and
    /// from the search's first dives (brock400_2: the proof with ω known
    /// from the start expands 10.4 M nodes, a search that finds ω itself
    /// 43.5 M) — and cost a short search nothing.
    ///
    /// The count is the search's, not the thread's: each thread adds its
    /// nodes to [`CliqueSearch::nodes_total`] in batches of
    /// [`CliqueSearch::publish_every`] (one atomic addition per 1,024
    /// nodes), and the thread whose batch crosses the next doubling runs
    /// the burst for everybody's nodes, unless another one holds the walk
    /// (then a later batch does). With one thread the bursts come at the
    /// same nodes as with a count per thread, since every doubling is a
    /// multiple of the batch; with two, a count per thread doubled at each
    /// thread's own pace, and the walk met brock400_2's 29-clique after
    /// about 3.3 M nodes instead of 1.8 M.
    ///
    /// The children that the filtering phase leaves out ([`Options::filter`])
    /// and the propagations ([`Options::propagate`]) count as nodes too
    /// ([`CliqueSearch::count_work`]), so that the bursts come after as
    /// much work as without them: gen400_p0.9_55, which the first burst's
    /// walk ended before the walk moved to the root, took 0.46 CPU s
    /// instead of 0.20 when the children did not; with max-resolution and
    /// the filtering phase, brock400_2's walk met its 29-clique after 98
    /// CPU s when the propagations did not count and after 9.8 s when they
    /// do (7.1 s without max-resolution).
    fn tick(&self, local: &Mutex<Walk>, matrix: &BitMatrix) {
        let mut clock = CLOCK.get();
        if clock.search != self.id {
            clock = Clock { search: self.id, nodes: 0 };
        }
        clock.nodes += 1;
        if clock.nodes < self.publish_every {
            CLOCK.set(clock);
            return;
        }
        CLOCK.set(Clock { nodes: 0, ..clock });
        let total = self.nodes_total.fetch_add(clock.nodes, Ordering::Relaxed) + clock.nodes;
        if total < self.next_burst.load(Ordering::Relaxed) {
            return;
        }
        let Ok(mut walk) = local.try_lock() else { return };
        if total < 2 * walk.last {
            return; // another thread's burst took these nodes
        }
        let moves = (total - walk.last) / self.nodes_per_move;
        walk.last = total;
        self.next_burst.store(2 * total, Ordering::Relaxed);
        // From the largest greedy clique (any clique would do: a chunk of
        // starts still running elsewhere leaves a smaller one).
        let ls = walk.search.get_or_insert_with(|| {
            let start = self.greedy_best.lock().expect("no panic holds the lock").clique.clone();
            LocalSearch::new(&matrix.adj, matrix.n, matrix.words, &start, LOCAL_SEED)
        });
        let grew = ls.run(&matrix.adj, moves);
        self.walk_to_root_bound(matrix);
        if !grew {
            return;
        }
        let found = ls.best();
        debug_assert!(found.iter().all(|&a| {
            found.iter().all(|&b| a == b || matrix.adj[a * matrix.words + b / WORD] >> (b % WORD) & 1 == 1)
        }));
        let mut clique: Vec<u32> = found.iter().map(|&p| self.label[p]).collect();
        clique.sort_unstable();
        self.incumbent.offer(clique.len() as i64, || clique);
    }

    /// Once per search, when the root's colouring
    /// ([`CliqueSearch::root_bound`]) is known and within a third of the
    /// incumbent: a walk of local search from the largest greedy clique
    /// that goes on until its clique has as many vertices as the colouring
    /// has classes, or for [`ROOT_MOVES`] moves (within an eighth) or
    /// [`SHORT_ROOT_MOVES`] (within a third); a larger clique it finds is
    /// offered to the incumbent.
    fn walk_to_root_bound(&self, matrix: &BitMatrix) {
        let bound = self.root_bound.load(Ordering::Relaxed) as usize;
        if bound == 0 || self.root_walked.swap(true, Ordering::Relaxed) {
            return;
        }
        let gap = bound as i64 - self.floor();
        let budget = if gap <= 0 {
            return;
        } else if gap <= bound as i64 / 8 {
            ROOT_MOVES
        } else if gap <= bound as i64 / 3 {
            SHORT_ROOT_MOVES
        } else {
            return;
        };
        let start = self.greedy_best.lock().expect("no panic holds the lock").clique.clone();
        let mut long =
            LocalSearch::new(&matrix.adj, matrix.n, matrix.words, &start, LOCAL_SEED).with_penalty_delay(1);
        let mut made = 0;
        while long.best().len() < bound && made < budget {
            long.run(&matrix.adj, ROOT_ROUND);
            made += ROOT_ROUND;
        }
        let found = long.best();
        if found.len() as i64 > self.floor() {
            let mut clique: Vec<u32> = found.iter().map(|&p| self.label[p]).collect();
            clique.sort_unstable();
            self.incumbent.offer(clique.len() as i64, || clique);
        }
    }

    /// Adds `work`, counted in nodes, to this thread's count of nodes for
    /// the bursts ([`CliqueSearch::tick`]), which publishes it at its next
    /// node: the children left out by the filtering phase, and the
    /// propagations of unit propagation ([`propagate`]), each of which costs
    /// about as much as a node without it (brock400_2: 11.4 µs per node
    /// with max-resolution, 4.9 µs without; brock200_1 makes 1.4
    /// propagations per node).
    fn count_work(&self, work: u64) {
        let clock = CLOCK.get();
        if clock.search == self.id {
            CLOCK.set(Clock { nodes: clock.nodes + work, ..clock });
        }
    }

    /// The children of [`Part::Start`]: the search's root first (at the
    /// bottom of the stack, expanded last), then the greedy starts in
    /// chunks of [`GREEDY_CHUNK`], the first chunk on top. One PE runs the
    /// chunks in the order of the starts and then the search, as a greedy
    /// clique computed before the run would; with more PEs, a thief takes
    /// work from the bottom of the stack — the search's root with some of
    /// the chunks (half of them, by the default split policy), which it
    /// runs before the root — so the starts run in parallel and the root
    /// is expanded once most of them are done.
    fn expand_start(&self, children: &mut Children<'_, CliqueNode>) {
        let Space::Dense(matrix) = &self.space else { unreachable!("only dense searches start greedily") };
        children.push(whole_root(matrix.n));
        let starts = matrix.n.min(GREEDY_STARTS);
        let chunks: Vec<usize> = (0..starts).step_by(GREEDY_CHUNK).collect();
        for &lo in chunks.iter().rev() {
            let hi = (lo + GREEDY_CHUNK).min(starts);
            children.push(CliqueNode {
                bound: 0,
                size: 0,
                vertex: NO_VERTEX,
                prefix: None,
                cand: Box::new([]),
                part: Part::Greedy { lo: lo as u32, hi: hi as u32 },
                local: None,
                pre: None,
                partite: None,
            });
        }
    }

    /// The greedy starts `lo..hi` ([`BitMatrix::greedy_clique`]): each
    /// clique larger than the incumbent is offered to it and kept for the
    /// local search ([`CliqueSearch::greedy_best`]).
    fn run_greedy(&self, lo: usize, hi: usize) {
        let Space::Dense(matrix) = &self.space else { unreachable!("only dense searches start greedily") };
        let clock = std::time::Instant::now();
        let floor = || self.floor();
        let found = |start: usize, clique: &[usize]| {
            self.greedy_best.lock().expect("no panic holds the lock").offer(start, clique);
            let mut labels: Vec<u32> = clique.iter().map(|&p| self.label[p]).collect();
            labels.sort_unstable();
            self.incumbent.offer(labels.len() as i64, || labels);
        };
        with_width!(matrix.words, greedy_starts(matrix, lo..hi, floor, found));
        self.greedy_nanos.fetch_add(clock.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }

    /// The neighbours of lower position of `p` (sparse search).
    fn lower(&self, p: usize) -> &[u32] {
        match &self.space {
            Space::Sparse { offset, lower } => &lower[offset[p]..offset[p + 1]],
            Space::Dense(_) => &[],
        }
    }

    /// The graph of pivot `p`'s subproblem: its neighbours of lower
    /// position, in increasing order, and their adjacency.
    fn local(&self, pivot: usize) -> Local {
        let members = self.lower(pivot).to_vec();
        let mut matrix = BitMatrix::new(members.len());
        for (i, &b) in members.iter().enumerate() {
            // Each edge among members is found once, from its higher end.
            for &a in self.lower(b as usize) {
                if let Ok(j) = members[..i].binary_search(&a) {
                    matrix.set(i, j);
                }
            }
        }
        let mut matrix = matrix.finish();
        matrix.propagate = self.propagate;
        matrix.resolve = self.resolve;
        matrix.filter = self.filter;
        matrix.partite = self.partite;
        Local { members, matrix }
    }

    /// Sparse search: the children of the pivots `lo..hi`, those whose
    /// lower degree leaves room for a clique above `floor`.
    fn expand_range(&self, lo: usize, hi: usize, floor: i64, children: &mut Children<'_, CliqueNode>) {
        let part_node = |part: Part, bound: usize| CliqueNode {
            bound: bound as u32,
            size: 0,
            vertex: NO_VERTEX,
            prefix: None,
            cand: Box::new([]),
            part,
            local: None,
            pre: None,
            partite: None,
        };
        if hi - lo > RANGE_LEAF {
            // Two halves, the lower positions (the dense core) expanded first.
            let mid = lo + (hi - lo) / 2;
            for (a, b) in [(mid, hi), (lo, mid)] {
                let bound = 1 + (a..b).map(|p| self.lower(p).len()).max().unwrap_or(0);
                if bound as i64 > floor {
                    children.push(part_node(Part::Range { lo: a as u32, hi: b as u32 }, bound));
                }
            }
            return;
        }
        for p in (lo..hi).rev() {
            let bound = 1 + self.lower(p).len();
            if bound as i64 > floor {
                let mut node = part_node(Part::Sub { pivot: p as u32 }, bound);
                node.size = 1;
                children.push(node);
            }
        }
    }
}

/// The root of a dense search of `n` vertices: no clique yet, every vertex a
/// candidate.
fn whole_root(n: usize) -> CliqueNode {
    let mut cand = vec![0u64; n.div_ceil(WORD)].into_boxed_slice();
    for v in 0..n {
        cand[v / WORD] |= 1 << (v % WORD);
    }
    CliqueNode {
        bound: n as u32,
        size: 0,
        vertex: NO_VERTEX,
        prefix: None,
        cand,
        part: Part::Whole,
        local: None,
        pre: None,
        partite: None,
    }
}

/// [`Options::root_parts`] is on by default on graphs of at least this
/// density whose degrees spread by at least [`ROOT_PARTS_SPREAD`].
pub const ROOT_PARTS_DENSITY: f64 = 0.4;

/// [`Options::root_parts`] is on by default on graphs whose degrees have a
/// coefficient of variation (standard deviation over mean) of at least
/// this, and a density of at least [`ROOT_PARTS_DENSITY`]: the p_hat
/// graphs of the DIMACS set (0.10 for p_hat500-3, 0.30 for p_hat700-2),
/// not the uniform random ones (brock, C, gen: 0.02–0.07) or keller and
/// hamming (0.03–0.07, 0).
pub const ROOT_PARTS_SPREAD: f64 = 0.09;

/// Whether [`Options::root_parts`] pays by default on `graph`: see
/// [`ROOT_PARTS_SPREAD`].
fn parts_pay(graph: &Graph) -> bool {
    let degrees: Vec<f64> = (0..graph.n()).map(|v| graph.degree(v) as f64).filter(|&d| d > 0.0).collect();
    let (n, sum) = (degrees.len() as f64, degrees.iter().sum::<f64>());
    if n < 2.0 {
        return false;
    }
    let mean = sum / n;
    let variance = degrees.iter().map(|d| (d - mean) * (d - mean)).sum::<f64>() / n;
    mean / (n - 1.0) >= ROOT_PARTS_DENSITY && variance.sqrt() >= ROOT_PARTS_SPREAD * mean
}

/// A range of at most this many pivots is expanded into their subproblems.
const RANGE_LEAF: usize = 64;

impl Search for CliqueSearch {
    type Node = CliqueNode;
    type Output = BnbStats;

    fn root(&self) -> CliqueNode {
        match &self.space {
            Space::Dense(matrix) if self.greedy => CliqueNode {
                bound: matrix.n as u32,
                size: 0,
                vertex: NO_VERTEX,
                prefix: None,
                cand: Box::new([]),
                part: Part::Start,
                local: None,
                pre: None,
                partite: None,
            },
            Space::Dense(matrix) => whole_root(matrix.n),
            Space::Sparse { .. } => {
                let n = self.label.len();
                let bound =
                    if n == 0 { 0 } else { 1 + (0..n).map(|p| self.lower(p).len()).max().unwrap_or(0) };
                CliqueNode {
                    bound: bound as u32,
                    size: 0,
                    vertex: NO_VERTEX,
                    prefix: None,
                    cand: Box::new([]),
                    part: Part::Range { lo: 0, hi: n as u32 },
                    local: None,
                    pre: None,
                    partite: None,
                }
            }
        }
    }

    fn expand(&self, mut node: CliqueNode, acc: &mut BnbStats, children: &mut Children<'_, CliqueNode>) {
        match node.part {
            Part::Start => {
                acc.branched += 1;
                self.expand_start(children);
                return;
            }
            Part::Greedy { lo, hi } => {
                acc.branched += 1;
                self.run_greedy(lo as usize, hi as usize);
                return;
            }
            _ => {}
        }
        let mut floor = self.floor();
        if i64::from(node.bound) <= floor || self.should_stop() {
            acc.pruned += 1;
            return;
        }
        acc.branched += 1;
        let (matrix, local) = match node.part {
            Part::Whole => match &self.space {
                Space::Dense(matrix) => (matrix, None),
                Space::Sparse { .. } => unreachable!("a dense node in a sparse search"),
            },
            Part::Range { lo, hi } => {
                self.expand_range(lo as usize, hi as usize, floor, children);
                return;
            }
            Part::Start | Part::Greedy { .. } => unreachable!("expanded above"),
            Part::Sub { pivot } => {
                if node.local.is_none() {
                    node.local = Some(Arc::new(self.local(pivot as usize)));
                }
                let local = node.local.as_ref().expect("built above");
                if node.vertex == NO_VERTEX && node.prefix.is_none() && node.cand.is_empty() {
                    // The subproblem's root: every member is a candidate.
                    let k = local.members.len();
                    let mut cand = vec![0u64; k.div_ceil(WORD)].into_boxed_slice();
                    for v in 0..k {
                        cand[v / WORD] |= 1 << (v % WORD);
                    }
                    node.cand = cand;
                }
                (&local.matrix, Some(local))
            }
        };
        let size = node.size;
        if i64::from(size) > floor
            && self.incumbent.offer(i64::from(size), || self.witness(&node, local.map(|l| &**l)))
        {
            floor = self.floor();
            if self.should_stop() {
                return;
            }
        }
        if let (Some(local), Space::Dense(matrix)) = (&self.local, &self.space) {
            self.tick(local, matrix);
            floor = self.floor();
        }
        // The root of a dense search: a colouring of the whole graph by
        // iterated greedy colouring, which may prove the incumbent, bounds
        // ω for the longer walk of local search (see `ROOT_MOVES`) and may
        // give the root fewer children.
        let mut root = None;
        if node.part == Part::Whole && node.vertex == NO_VERTEX {
            let classes = root_colouring(matrix, floor, ROOT_ROUNDS);
            self.root_bound.store(classes.len() as u32, Ordering::Relaxed);
            // The walk toward the colouring's bound, here at the root
            // rather than at the first burst, except on the densest graphs
            // (see `ROOT_WALK_DENSITY`).
            if self.local.is_some() && matrix.density() <= ROOT_WALK_DENSITY {
                self.walk_to_root_bound(matrix);
                floor = self.floor();
            }
            if classes.len() as i64 <= floor {
                return; // ω is at most the colours, no more than the incumbent
            }
            node.bound = node.bound.min(classes.len() as u32);
            root = Some(classes);
        }
        // Colours above `kmin` can lead to a clique larger than `floor`.
        let kmin = (floor - i64::from(size)).max(0) as u32;
        let pre = node.pre.take();
        let partition = node.partite.take();
        let (work, found) = SCRATCH.with_borrow_mut(|s| {
            s.found.clear();
            let filtered = match (partition, root.as_deref()) {
                (Some(partition), _) => {
                    with_width!(
                        matrix.words,
                        partite(matrix, &node, local, kmin + 1, partition, s, children)
                    );
                    0
                }
                (None, Some(classes)) if self.root_parts => {
                    with_width!(
                        matrix.words,
                        branch_parts(matrix, &node, kmin, classes, &mut s.spare, children)
                    );
                    0
                }
                (None, root) => {
                    with_width!(matrix.words, branch(matrix, &node, local, kmin, pre, s, children, root))
                }
            };
            let runs = std::mem::take(&mut s.units.runs)
                + s.child.as_mut().map_or(0, |child| std::mem::take(&mut child.units.runs));
            let found = (!s.found.is_empty()).then(|| s.found.clone());
            (filtered + runs, found)
        });
        if let Some(extra) = found {
            let size = i64::from(node.size) + extra.len() as i64;
            self.incumbent.offer(size, || self.witness_with(&node, local.map(|l| &**l), &extra));
        }
        if work > 0 && self.local.is_some() {
            self.count_work(work);
        }
        // The node's candidate set serves one of a later node's children.
        let cand = std::mem::take(&mut node.cand);
        SCRATCH.with_borrow_mut(|s| {
            if s.spare.len() < SPARE_SETS {
                s.spare.push(cand);
            }
        });
    }

    #[inline]
    fn cost(&self, node: &CliqueNode) -> u64 {
        match node.part {
            Part::Greedy { .. } => GREEDY_CHUNK_COST,
            _ => 1,
        }
    }

    fn keeps_incumbent(&self) -> bool {
        true
    }

    #[inline]
    fn should_stop(&self) -> bool {
        self.target.is_some_and(|k| self.incumbent.best().is_some_and(|b| b >= i64::from(k)))
    }

    fn serialize_stack<Z: serde::Serializer>(
        &self,
        stack: &[Entry<CliqueNode>],
        serializer: Z,
    ) -> Result<Z::Ok, Z::Error> {
        chain::serialize_stack::<Cliques, _>(stack, serializer)
    }

    fn deserialize_stack<'de, D: serde::Deserializer<'de>>(
        &self,
        deserializer: D,
    ) -> Result<Vec<Entry<CliqueNode>>, D::Error> {
        chain::deserialize_stack::<Cliques, _>(deserializer)
    }
}

impl crate::bnb::NodeBound for CliqueSearch {
    fn node_bound(&self, node: &CliqueNode) -> Option<i64> {
        Some(i64::from(node.bound))
    }
}

/// Colours `node`'s candidates (see [`colour`]) and pushes one child per
/// vertex worth branching on: candidates `P ∩ N(v)` minus the branched
/// vertices of higher colour, bound `size + colour`, lowest colour first.
/// At the root, `root` is a colouring of every vertex ([`root_colouring`]),
/// used instead when it leaves fewer vertices to branch on (its number of
/// classes bounds the root either way). A child's bound is never above its
/// parent's. `pre`: the node's branching list, as its parent's filtering
/// phase computed it ([`CliqueNode::pre`]), used instead of colouring
/// unless an incumbent found since has raised `kmin`: a colouring with the
/// higher `kmin` re-colours and absorbs more vertices than the old list
/// cut at the new `kmin` would.
///
/// The filtering phase ([`BitMatrix::filter`], when the children's cliques
/// are no larger than the floor: `kmin ≥ 1`; after CliSAT's, San Segundo et
/// al., 2023): each child's candidates are coloured here, with the bound the
/// child would colour them with (`kmin − 1`), and a child whose colouring
/// leaves no vertex to branch on is not pushed — expanded, it would have
/// had no child and offered no clique (its clique is no larger than the
/// floor). A child pushed takes its colouring along ([`CliqueNode::pre`])
/// and its bound falls to its clique's size plus its highest colour. With
/// no incumbent found in between (a proof), the tree is exactly the one
/// without the filtering phase less its leaves. Returns the children left
/// out.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // the node's parts and the scratch, borrowed apart
fn branch<W: Width>(
    width: W,
    matrix: &BitMatrix,
    node: &CliqueNode,
    local: Option<&Arc<Local>>,
    kmin: u32,
    pre: Option<(u32, Vec<(u32, u32)>)>,
    s: &mut Scratch,
    children: &mut Children<'_, CliqueNode>,
    root: Option<&[Vec<u32>]>,
) -> u64 {
    let words = width.get();
    debug_assert_eq!(matrix.words, words);
    let fresh = match pre {
        Some((used, list)) => {
            if used == kmin {
                s.order.clear();
                s.order.extend_from_slice(&list);
            }
            if s.spare_lists.len() < SPARE_SETS {
                s.spare_lists.push(list);
            }
            used != kmin
        }
        None => true,
    };
    if fresh {
        colour(width, matrix, &node.cand, kmin, s);
    }
    // The root's colouring of every candidate, when it leaves fewer
    // vertices to branch on: its classes above `kmin`.
    if let Some(classes) = root {
        let above: usize = classes.iter().skip(kmin as usize).map(Vec::len).sum();
        if above < s.order.len() {
            s.order.clear();
            for (k, class) in classes.iter().enumerate().skip(kmin as usize) {
                s.order.extend(class.iter().map(|&v| (v, k as u32 + 1)));
            }
        }
    }
    if s.order.is_empty() {
        return 0;
    }
    if root.is_none()
        && fresh
        && matrix.partite
        && let Some(partition) = partition_of(width, matrix, &node.cand, kmin, s)
    {
        partite(width, matrix, node, local, kmin + 1, partition, s, children);
        return 0;
    }
    let size = node.size;
    let link = node.child_prefix();
    let Scratch { order, class, spare, child, spare_lists, .. } = s;
    // A node with its colouring carried may be this thread's first: its
    // buffers were never sized by [`colour`].
    class.resize(words, 0);
    // The candidates of a child: those not kept for branching, plus the
    // kept ones of lower colour, all intersected with N(v).
    let rest = &mut class[..words];
    rest.copy_from_slice(&node.cand[..words]);
    for &(v, _) in order.iter() {
        rest[v as usize / WORD] &= !(1 << (v as usize % WORD));
    }
    let filter = matrix.filter && kmin >= 1;
    let mut filtered = 0;
    children.reserve(order.len());
    for &(v, c) in order.iter() {
        let row = matrix.row_w(width, v as usize);
        let mut cand = spare_set(spare, words);
        for ((x, a), b) in cand[..words].iter_mut().zip(&*rest).zip(row) {
            *x = a & b;
        }
        rest[v as usize / WORD] |= 1 << (v as usize % WORD);
        let mut bound = (size + c).min(node.bound);
        let mut pre = None;
        if filter {
            let child = child.get_or_insert_with(Box::default);
            colour(width, matrix, &cand, kmin - 1, child);
            let Some(&(_, top)) = child.order.last() else {
                filtered += 1;
                spare.push(cand);
                continue;
            };
            bound = bound.min(size + 1 + top);
            pre =
                Some((kmin - 1, std::mem::replace(&mut child.order, spare_lists.pop().unwrap_or_default())));
        }
        children.push(CliqueNode {
            bound,
            size: size + 1,
            vertex: v,
            prefix: link.clone(),
            cand,
            part: node.part,
            local: local.cloned(),
            pre,
            partite: None,
        });
    }
    filtered
}

/// The root of a dense search split by parts ([`Options::root_parts`]):
/// one child per candidate `v`, whose candidates are `v`'s candidate
/// neighbours of lower position, so that each clique is searched below
/// the child of its vertex of highest position. Its bound is one more
/// than the number of the root's colour classes (`classes`, a colouring
/// of every candidate) that its candidates meet; a child whose bound
/// leaves no room above the floor is not pushed. The children are pushed
/// from the highest position down, so that a PE expands the lowest first:
/// in the degeneracy numbering the dense core comes first, its parts are
/// small, and their cliques raise the incumbent before the large parts
/// (Östergård's order, 2002), while a thief takes the large parts from the
/// bottom of the stack.
///
/// Where the degrees are spread (the p_hat graphs), the parts are smaller
/// than the children of [`branch`], whose candidates include every vertex
/// the root's colouring puts in classes `1..=kmin`, whatever its
/// position: p_hat500-3's proof of ω takes 0.76× the nodes
/// (`docs/benchmarks/2026-11-29-clique-root-parts`).
#[inline(always)]
fn branch_parts<W: Width>(
    width: W,
    matrix: &BitMatrix,
    node: &CliqueNode,
    kmin: u32,
    classes: &[Vec<u32>],
    spare: &mut Vec<Box<[u64]>>,
    children: &mut Children<'_, CliqueNode>,
) {
    let words = width.get();
    let mut sets = vec![0u64; classes.len() * words];
    for (set, class) in sets.chunks_exact_mut(words).zip(classes) {
        for &v in class {
            set[v as usize / WORD] |= 1 << (v as usize % WORD);
        }
    }
    debug_assert!(
        (0..words).all(|x| node.cand[x] & !sets.chunks_exact(words).fold(0, |a, s| a | s[x]) == 0),
        "the classes colour every candidate"
    );
    let size = node.size;
    let link = node.child_prefix();
    for v in (0..matrix.n).rev() {
        if node.cand[v / WORD] >> (v % WORD) & 1 == 0 {
            continue;
        }
        let row = matrix.row_w(width, v);
        let mut cand = spare_set(spare, words);
        for (x, c) in cand[..words].iter_mut().enumerate() {
            let below = if (x + 1) * WORD <= v {
                !0
            } else if x * WORD < v {
                (1 << (v % WORD)) - 1
            } else {
                0
            };
            *c = node.cand[x] & row[x] & below;
        }
        let met = sets
            .chunks_exact(words)
            .filter(|set| set.iter().zip(&cand[..words]).any(|(&a, &b)| a & b != 0))
            .count() as u32;
        let bound = (size + 1 + met).min(node.bound);
        if bound <= size + kmin {
            spare.push(cand);
            continue;
        }
        children.push(CliqueNode {
            bound,
            size: size + 1,
            vertex: v as u32,
            prefix: link.clone(),
            cand,
            part: node.part,
            local: None,
            pre: None,
            partite: None,
        });
    }
}

/// A partition of `cand` into `kmin + 1` independent sets, from the
/// colouring [`colour`] just made, if there is one: every vertex worth
/// branching on has colour `kmin + 1`, and each vertex the colouring left
/// out of the classes (one that an inconsistent set absorbed) fits, first
/// fit, into a class where it has no neighbour. The classes `1..=kmin`
/// less the vertices that max-resolution added to them
/// ([`Units::multi`]) are independent sets ([`conflict`]), and so is the
/// branching list. `kmin + 1` classes, `words` words each.
#[inline(always)]
fn partition_of<W: Width>(
    width: W,
    matrix: &BitMatrix,
    cand: &[u64],
    kmin: u32,
    s: &mut Scratch,
) -> Option<Arc<[u64]>> {
    let words = width.get();
    let kmin = kmin as usize;
    if kmin < 2 || s.order.iter().any(|&(_, c)| c as usize != kmin + 1) {
        return None;
    }
    let (classes, covered) = (&mut s.pclasses, &mut s.after);
    classes.clear();
    classes.resize((kmin + 1) * words, 0);
    covered.clear();
    covered.resize(words, 0);
    for k in 0..kmin {
        for x in 0..words {
            let c = s.classes[k * words + x] & !s.units.multi[x];
            classes[k * words + x] = c;
            covered[x] |= c;
        }
    }
    for &(v, _) in &s.order {
        let v = v as usize;
        classes[kmin * words + v / WORD] |= 1 << (v % WORD);
        covered[v / WORD] |= 1 << (v % WORD);
    }
    for x in 0..words {
        let mut left = cand[x] & !covered[x];
        while left != 0 {
            let v = x * WORD + left.trailing_zeros() as usize;
            left &= left - 1;
            let row = matrix.row_w(width, v);
            let k = (0..=kmin)
                .find(|&k| classes[k * words..][..words].iter().zip(row).all(|(&c, &r)| c & r == 0))?;
            classes[k * words + x] |= 1 << (v % WORD);
        }
    }
    Some(Arc::from(&classes[..]))
}

/// Partite mode: `node`'s candidates are the union of `need` independent
/// sets, its classes (`partition`'s, met with the candidates), and a
/// clique larger than the floor needs `need` more vertices: one of each
/// class. The search below the node is then a constraint satisfaction
/// problem with one variable per class, and is searched as one, by
/// maintaining arc consistency: a vertex with no neighbour in some other
/// class is in no such clique and leaves its class, until no vertex
/// leaves. A class emptied: no clique, no child. Every class down to one
/// vertex: these vertices are pairwise adjacent and complete the clique
/// ([`Scratch::found`]). Otherwise the node branches on a class with
/// fewest vertices (at least two), one child per vertex, whose candidates
/// are its neighbours in the other classes, with the bound `size + need`.
/// Each clique larger than the floor holds exactly one vertex of the
/// class, so the children split the cliques without overlap. The children
/// stay in partite mode and colour nothing; a child received from another
/// process, without its partition, colours its candidates as any node.
#[allow(clippy::too_many_arguments)] // the node's parts and the scratch, borrowed apart
#[inline(always)]
fn partite<W: Width>(
    width: W,
    matrix: &BitMatrix,
    node: &CliqueNode,
    local: Option<&Arc<Local>>,
    need: u32,
    partition: Arc<[u64]>,
    s: &mut Scratch,
    children: &mut Children<'_, CliqueNode>,
) {
    let words = width.get();
    let need = need as usize;
    let cand = &node.cand[..words];
    let Scratch { pclasses: cls, nb, acc, after, found, spare, dirty, .. } = s;
    cls.clear();
    for p in partition.chunks_exact(words) {
        if p.iter().zip(cand).any(|(&a, &b)| a & b != 0) {
            cls.extend(p.iter().zip(cand).map(|(&a, &b)| a & b));
        }
    }
    let m = cls.len() / words;
    // Each level takes one class and adds one vertex, so `m` falls short
    // of `need` only when a class was emptied or the floor rose.
    if m < need {
        return;
    }
    debug_assert_eq!(m, need, "a clique larger than the floor meets every class");
    nb.clear();
    nb.resize(m * words, 0);
    acc.clear();
    acc.resize(m * words, 0);
    after.clear();
    after.resize(words, 0);
    dirty.clear();
    dirty.resize(m, true);
    loop {
        // nb[k]: the vertices adjacent to some vertex of class k, computed
        // again only for the classes that lost vertices.
        for k in 0..m {
            if !dirty[k] {
                continue;
            }
            let n = &mut nb[k * words..][..words];
            n.fill(0);
            for v in super::graph::bits(&cls[k * words..][..words]) {
                for (x, &r) in n.iter_mut().zip(matrix.row_w(width, v)) {
                    *x |= r;
                }
            }
            dirty[k] = false;
        }
        // acc[k]: the vertices adjacent to some vertex of every class
        // before k; `after`, going from the last class back, of every class
        // after it.
        acc[..words].fill(!0);
        for k in 1..m {
            for x in 0..words {
                acc[k * words + x] = acc[(k - 1) * words + x] & nb[(k - 1) * words + x];
            }
        }
        after.fill(!0);
        let mut changed = false;
        for k in (0..m).rev() {
            let mut any = 0;
            for x in 0..words {
                let c = &mut cls[k * words + x];
                let kept = *c & acc[k * words + x] & after[x];
                dirty[k] |= kept != *c;
                *c = kept;
                any |= kept;
                after[x] &= nb[k * words + x];
            }
            if any == 0 {
                return;
            }
            changed |= dirty[k];
        }
        if !changed {
            break;
        }
    }
    let count = |k: usize| cls[k * words..][..words].iter().map(|x| x.count_ones()).sum::<u32>();
    let Some(pick) = (0..m).filter(|&k| count(k) >= 2).min_by_key(|&k| count(k)) else {
        for k in 0..m {
            found.extend(super::graph::bits(&cls[k * words..][..words]).map(|v| v as u32));
        }
        return;
    };
    // `after`: the other classes' vertices; `acc`'s first words: the class
    // branched on.
    after.fill(0);
    for k in (0..m).filter(|&k| k != pick) {
        for (r, &c) in after.iter_mut().zip(&cls[k * words..][..words]) {
            *r |= c;
        }
    }
    acc[..words].copy_from_slice(&cls[pick * words..][..words]);
    let size = node.size;
    let bound = (size + m as u32).min(node.bound);
    let link = node.child_prefix();
    children.reserve(count(pick) as usize);
    for v in super::graph::bits(&acc[..words]) {
        let row = matrix.row_w(width, v);
        let mut cand = spare_set(spare, words);
        for ((x, &a), &b) in cand[..words].iter_mut().zip(&*after).zip(row) {
            *x = a & b;
        }
        children.push(CliqueNode {
            bound,
            size: size + 1,
            vertex: v as u32,
            prefix: link.clone(),
            cand,
            part: node.part,
            local: local.cloned(),
            pre: None,
            partite: Some(partition.clone()),
        });
    }
}

/// A candidate set of `words` words for a child: a spare one of that
/// width (its bits are overwritten), or a new one.
#[inline(always)]
fn spare_set(spare: &mut Vec<Box<[u64]>>, words: usize) -> Box<[u64]> {
    match spare.pop() {
        Some(set) if set.len() == words => set,
        _ => vec![0u64; words].into_boxed_slice(),
    }
}

/// The most rounds of [`root_colouring`].
const ROOT_ROUNDS: usize = 16;

/// The most rounds of [`root_colouring`] when the search is built, to
/// choose the numbering: keller5 has 119 colours by first fit in the
/// degeneracy order, 31 after 13 rounds.
const SORT_ROUNDS: usize = 32;

/// [`root_colouring`] stops after this many rounds without fewer colours.
const ROOT_STALL: usize = 4;

/// A colouring of the whole graph for the root's bound: first fit in the
/// numbering (the degeneracy order, the colouring the search's own would
/// give without re-colouring), then Culberson's iterated greedy (Culberson
/// and Luo, 1996): first fit again in the order of the classes, each kept
/// together, the classes reversed and largest first by turns. A class is
/// an independent set of the previous colouring, so first fit puts each
/// class's vertices in classes no later than the previous colouring's and
/// the colours never increase. Stops once the colours are no more than
/// `floor` (the incumbent proves ω), after [`ROOT_STALL`] rounds without
/// improvement, or after `rounds`. The classes, each a list of vertices.
///
/// The sequential colouring of the search reads the vertices in the
/// numbering; iterating it finds the partitions into few independent sets
/// that graphs built with a planted clique and a matching colouring hide:
/// gen400_p0.9_55 has 58 colours by first fit in the degeneracy order and
/// 55, its ω, after one reversal — the root's bound then proves the
/// incumbent, as CliSAT's colour-sorted initial ordering (San Segundo et
/// al., 2023) does in its preprocessing.
fn root_colouring(m: &BitMatrix, floor: i64, rounds: usize) -> Vec<Vec<u32>> {
    let order: Vec<u32> = (0..m.n as u32).collect();
    let mut best = first_fit(m, &order);
    let mut current = best.clone();
    let mut stall = 0;
    for round in 0..rounds {
        if best.len() as i64 <= floor || stall >= ROOT_STALL {
            break;
        }
        if round % 2 == 0 {
            current.reverse();
        } else {
            current.sort_by_key(|c| std::cmp::Reverse(c.len()));
        }
        let order: Vec<u32> = current.iter().flatten().copied().collect();
        current = first_fit(m, &order);
        debug_assert!(current.len() <= best.len());
        if current.len() < best.len() {
            best.clone_from(&current);
            stall = 0;
        } else {
            stall += 1;
        }
    }
    best
}

/// First-fit colouring of the vertices in `order`: each goes into the
/// first class where it has no neighbour. The classes, each a list of
/// vertices in `order`'s order.
fn first_fit(m: &BitMatrix, order: &[u32]) -> Vec<Vec<u32>> {
    let words = m.words;
    let mut sets: Vec<u64> = Vec::new();
    let mut classes: Vec<Vec<u32>> = Vec::new();
    for &v in order {
        let v = v as usize;
        let row = &m.adj[v * words..][..words];
        let k = (0..classes.len())
            .find(|&k| sets[k * words..][..words].iter().zip(row).all(|(&a, &b)| a & b == 0))
            .unwrap_or_else(|| {
                sets.resize(sets.len() + words, 0);
                classes.push(Vec::new());
                classes.len() - 1
            });
        sets[k * words + v / WORD] |= 1 << (v % WORD);
        classes[k].push(v as u32);
    }
    classes
}

/// Greedy sequential colouring of `cand` in vertex order, one colour class
/// at a time; records in `s.order` the vertices of colour above `kmin` with
/// their colours (non-decreasing).
///
/// Re-colouring (Tomita's Re-NUMBER in MCS, as San Segundo's BBMCR does it
/// class by class): a vertex `v` that lands in a class above `kmin` — one
/// that would be branched on — is moved into a class `k1 <= kmin` where it
/// has no neighbour, or exactly one, `w`, that can itself move to a later
/// class `k1 < k2 <= kmin` in which it has no neighbour. Every class stays
/// an independent set, so the colouring stays proper and the bound of every
/// branched vertex stays valid; `v` is no longer branched on. (`w` is not
/// tried in the classes before its own, as MCS does: the greedy colouring
/// put it in `k1` because it has a neighbour in every earlier class, and
/// only a re-colouring that moves that neighbour out could change this —
/// looking anyway cost 10 % of brock200_1's instructions and saved 0.4 %
/// of its nodes.)
///
/// A class is built by taking the lowest vertex of `q` (the uncoloured
/// vertices not adjacent to the class so far) word by word, and removing
/// its neighbours from all of `q`: the words before the current one are
/// already empty, and a whole-width operation on a width known at compile
/// time is a few vector instructions, where a loop from the current word
/// on had a length unknown to the compiler.
#[inline(never)]
fn colour<W: Width>(width: W, graph: &BitMatrix, cand: &[u64], kmin: u32, s: &mut Scratch) {
    let words = width.get();
    s.uncoloured.clear();
    s.uncoloured.extend_from_slice(&cand[..words]);
    s.class.resize(words, 0);
    s.order.clear();
    let recolour = kmin >= 2;
    if recolour {
        // Each class `1..=kmin` is cleared when the colouring starts it:
        // the re-colouring reads them only once a vertex lands above
        // `kmin`, when all of them have been built. Clearing them all here
        // took 8 % of p_hat700-2's instructions, whose nodes mostly need
        // fewer than `kmin` colours.
        // A few classes of few words are cleared at once (brock200_4: 2 %
        // fewer instructions than one clear per class).
        if s.classes.len() < kmin as usize * words {
            s.classes.resize(kmin as usize * words, 0);
        }
        if kmin as usize * words <= BULK_CLEAR_WORDS {
            s.classes[..kmin as usize * words].fill(0);
        }
        s.frozen.clear();
        s.frozen.resize(kmin as usize, false);
        s.units.multi.clear();
        s.units.multi.resize(words, 0);
    }
    let (u, q, classes) = (&mut s.uncoloured[..words], &mut s.class[..words], &mut s.classes);
    let (frozen, singles, witnesses, units) = (&mut s.frozen, &mut s.singles, &mut s.witnesses, &mut s.units);
    units.mapped = false;
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
        q.copy_from_slice(u);
        if recolour && k <= kmin && kmin as usize * words > BULK_CLEAR_WORDS {
            classes[(k as usize - 1) * words..][..words].fill(0);
        }
        for at in first..words {
            while q[at] != 0 {
                let bit = q[at].trailing_zeros() as usize;
                let v = at * WORD + bit;
                q[at] &= q[at] - 1;
                u[at] &= !(1 << bit);
                let row = graph.row_w(width, v);
                if k > kmin {
                    if recolour
                        && (recolour_into(width, graph, v, row, classes, frozen, singles, units)
                            || (graph.infra
                                && (absorb(
                                    width, graph, v, row, classes, frozen, singles, witnesses, units,
                                ) || (graph.propagate
                                    && (!singles.is_empty() || graph.resolve)
                                    && propagate(
                                        width,
                                        graph,
                                        v,
                                        row,
                                        classes,
                                        frozen,
                                        units,
                                        !singles.is_empty(),
                                    )))))
                    {
                        continue;
                    }
                    s.order.push((v as u32, k));
                } else if recolour {
                    classes[(k as usize - 1) * words + at] |= 1 << bit;
                }
                for (x, r) in q.iter_mut().zip(row) {
                    *x &= !r;
                }
            }
        }
    }
}

/// Up to this many words, the colour classes `1..=kmin` are cleared at
/// once before a colouring; above, each as the colouring starts it.
const BULK_CLEAR_WORDS: usize = 128;

/// Moves `v` into one of the classes `1..=kmin` (see [`colour`]); whether
/// it could.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // the scratch buffers, borrowed apart
fn recolour_into<W: Width>(
    width: W,
    graph: &BitMatrix,
    v: usize,
    row: &[u64],
    classes: &mut [u64],
    frozen: &[bool],
    singles: &mut Vec<(u32, u32)>,
    units: &mut Units,
) -> bool {
    let words = width.get();
    let row = &row[..words];
    let kmin = frozen.len();
    // Nothing is frozen where no infra-chromatic set is sought.
    let infra = graph.infra;
    singles.clear();
    for k1 in 0..kmin {
        if infra && frozen[k1] {
            continue;
        }
        let c1 = &classes[k1 * words..][..words];
        // The one neighbour of `v` in class k1, if it has exactly one:
        // counted over all the words without a branch (vector
        // instructions), the nonzero words and whether one of them has two
        // bits.
        let (mut nonzero, mut multi) = (0u64, 0u64);
        for (&a, &b) in row.iter().zip(c1) {
            let x = a & b;
            nonzero += (x | x.wrapping_neg()) >> 63;
            multi |= x & x.wrapping_sub(1);
        }
        if multi != 0 || nonzero > 1 {
            continue;
        }
        let conflict = (nonzero == 1).then(|| {
            let i = (0..words).find(|&i| row[i] & c1[i] != 0).expect("one word meets the class");
            i * WORD + (row[i] & c1[i]).trailing_zeros() as usize
        });
        let Some(w) = conflict else {
            classes[k1 * words + v / WORD] |= 1 << (v % WORD);
            if units.mapped {
                units.class_of[v] = k1 as u32;
            }
            return true;
        };
        if infra {
            singles.push((k1 as u32, w as u32));
        }
        // `w` has no neighbour in class k2: an OR of the words' intersections
        // (no early exit) compiles to vector instructions, and is faster
        // than stopping at the first common word.
        let row_w = graph.row_w(width, w);
        for k2 in (k1 + 1..kmin).filter(|&k2| !(infra && frozen[k2])) {
            let c2 = &classes[k2 * words..][..words];
            if row_w.iter().zip(c2).fold(0, |acc, (&a, &b)| acc | (a & b)) == 0 {
                classes[k1 * words + w / WORD] &= !(1 << (w % WORD));
                classes[k2 * words + w / WORD] |= 1 << (w % WORD);
                classes[k1 * words + v / WORD] |= 1 << (v % WORD);
                if units.mapped {
                    units.class_of[v] = k1 as u32;
                    units.class_of[w] = k2 as u32;
                }
                return true;
            }
        }
    }
    false
}

/// Infra-chromatic bound (San Segundo, Nikolaev and Batsyn's BBMCX): leaves
/// `v`, which could not be re-coloured, out of every class and off the
/// branching list when some classes `Ci`, `Cj` (and `Ck`) among `1..=kmin`
/// form with it a set whose cliques are smaller than its number of
/// classes; whether it could.
///
/// `v` has exactly one neighbour `ci` in `Ci` and one, `cj`, in `Cj`
/// (`singles`, from [`recolour_into`]). A clique holds at most one vertex
/// of each class, and a vertex of a class besides `v` only if it is
/// adjacent to `v`: so a clique of `{v} ∪ Ci ∪ Cj` with three vertices is
/// `{v, ci, cj}`, impossible when `ci` and `cj` are not adjacent; and a
/// clique of `{v} ∪ Ci ∪ Cj ∪ Ck` with four vertices is `{v, ci, cj, x}`
/// with `x ∈ Ck` adjacent to all three, impossible when there is none. In
/// both cases the set has one clique vertex fewer than it has classes, so
/// `{v}` with the classes `1..=kmin` still holds no clique of more than
/// `kmin` vertices — as long as each class belongs to at most one such set
/// and keeps its vertices, which is why the classes used are frozen.
/// The pairs of witnesses [`absorb`] tries for a third class: four
/// take 95 % of the node savings of trying all of them on C125.9 and the
/// brock graphs, at a fraction of the cost.
const TRIPLE_PAIRS: usize = 4;

#[inline(always)]
#[allow(clippy::too_many_arguments)] // the scratch buffers, borrowed apart
fn absorb<W: Width>(
    width: W,
    graph: &BitMatrix,
    v: usize,
    row: &[u64],
    classes: &mut [u64],
    frozen: &mut [bool],
    singles: &[(u32, u32)],
    witnesses: &mut Vec<u64>,
    units: &mut Units,
) -> bool {
    let words = width.get();
    if singles.len() < 2 {
        return false;
    }
    let row = &row[..words];
    witnesses.clear();
    witnesses.resize(words, 0);
    let witnesses = &mut witnesses[..words];
    for &(_, w) in singles {
        witnesses[w as usize / WORD] |= 1 << (w % WORD as u32);
    }
    // Two witnesses that are not adjacent: a set of three classes.
    for &(i, ci) in singles {
        let row_i = graph.row_w(width, ci as usize);
        let ci = ci as usize;
        for x in 0..words {
            let mut other = witnesses[x] & !row_i[x];
            if x == ci / WORD {
                other &= !(1 << (ci % WORD));
            }
            if other != 0 {
                let cj = (x * WORD + other.trailing_zeros() as usize) as u32;
                let j = singles.iter().find(|&&(_, w)| w == cj).map(|&(j, _)| j).expect("a witness");
                conflict(width, graph, v, [i as usize, j as usize], classes, frozen, units);
                return true;
            }
        }
    }
    // Every two witnesses are adjacent: look for a third class without a
    // common neighbour, for a few pairs.
    let mut budget = TRIPLE_PAIRS;
    for (a, &(i, ci)) in singles.iter().enumerate() {
        let row_i = graph.row_w(width, ci as usize);
        for &(j, cj) in &singles[a + 1..] {
            if budget == 0 {
                return false;
            }
            budget -= 1;
            let (i, j) = (i as usize, j as usize);
            let row_j = graph.row_w(width, cj as usize);
            // The common neighbours of `v`, `ci` and `cj`, once per pair
            // (the witnesses are not needed any more).
            for (x, c) in witnesses.iter_mut().enumerate() {
                *c = row[x] & row_i[x] & row_j[x];
            }
            let common = &*witnesses;
            for k in (0..frozen.len()).filter(|&k| !frozen[k] && k != i && k != j) {
                let ck = &classes[k * words..][..words];
                if common.iter().zip(ck).fold(0, |acc, (&a, &b)| acc | (a & b)) == 0 {
                    conflict(width, graph, v, [i, j, k], classes, frozen, units);
                    return true;
                }
            }
        }
    }
    false
}

/// The buffers of [`propagate`], kept per thread.
#[derive(Default)]
struct Units {
    /// `class_of[u]`: the class (`0..kmin`) of a vertex of a class
    /// `1..=kmin` that holds no other class's vertex (unfrozen classes; with
    /// [`BitMatrix::resolve`] every class, the vertices of
    /// [`Units::multi`] left out); valid while [`Units::mapped`] (set by the
    /// first propagation of a colouring, kept up to date by
    /// [`recolour_into`]).
    class_of: Vec<u32>,
    /// Whether [`Units::class_of`] holds the current colouring's classes.
    mapped: bool,
    /// With [`BitMatrix::resolve`]: the vertices that [`conflict`] added to
    /// the classes of their inconsistent sets (each in two or more classes).
    multi: Vec<u64>,
    /// The vertices of the classes taking part not yet ruled out.
    alive: Vec<u64>,
    /// Per class: its vertices in [`Units::alive`].
    count: Vec<u32>,
    /// Per class: whether one of its vertices is forced (the class is
    /// satisfied).
    forced: Vec<bool>,
    /// The classes left with at most one vertex, in the order found.
    queue: Vec<u32>,
    /// `reason[u]`: the class whose forced vertex ruled `u` out (valid for
    /// the vertices ruled out since [`propagate`] began).
    reason: Vec<u32>,
    /// The classes of the inconsistent set being collected.
    closure: Vec<u32>,
    /// Per class: whether it is in [`Units::closure`] (all false between
    /// calls).
    marked: Vec<bool>,
    /// The propagations run (past the check for a class with at most one
    /// neighbour of the vertex) since the search last read them: the
    /// bursts' clock counts each as a node ([`CliqueSearch::count_work`]).
    runs: u64,
    /// With [`BitMatrix::resolve`]: the vertices of several classes
    /// ([`Units::multi`]) forced, each for one of them.
    spent: Vec<u64>,
    /// The class each vertex of [`Units::spent`] was forced for.
    spentby: Vec<u32>,
}

impl Units {
    /// Whether `u` is in [`Units::multi`].
    #[inline(always)]
    fn is_multi(&self, u: usize) -> bool {
        self.multi[u / WORD] >> (u % WORD) & 1 != 0
    }

    /// One vertex fewer in the open class `c`: queues it when one is left;
    /// whether none is.
    #[inline(always)]
    fn drop_one(&mut self, c: usize) -> bool {
        self.count[c] -= 1;
        match self.count[c] {
            1 => {
                self.queue.push(c as u32);
                false
            }
            0 => true,
            _ => false,
        }
    }

    /// Forces `w`, the last vertex of class `k`: the class is satisfied,
    /// the other classes holding `w` (with max-resolution) lose it, its
    /// non-neighbours are ruled out; returns a class it emptied, if any.
    #[inline(always)]
    fn force<W: Width>(
        &mut self,
        width: W,
        graph: &BitMatrix,
        classes: &[u64],
        k: usize,
        w: usize,
    ) -> Option<usize> {
        let words = width.get();
        let kmin = self.count.len();
        let bit = |c: usize, u: usize| classes[c * words + u / WORD] >> (u % WORD) & 1 != 0;
        self.forced[k] = true;
        let mut emptied = None;
        if graph.resolve && self.is_multi(w) {
            // `w` satisfies class `k` only; the others it joined lose it
            // (see [`conflict`]).
            self.spent[w / WORD] |= 1 << (w % WORD);
            self.spentby[w] = k as u32;
            for c in (0..kmin).filter(|&c| c != k && bit(c, w)) {
                if !self.forced[c] && self.drop_one(c) {
                    emptied = emptied.or(Some(c));
                }
            }
        }
        let row_w = graph.row_w(width, w);
        for (x, &r) in row_w.iter().enumerate().take(words) {
            let mut out = self.alive[x] & !r;
            if x == w / WORD {
                out &= !(1 << (w % WORD));
            }
            self.alive[x] &= !out;
            while out != 0 {
                let u = x * WORD + out.trailing_zeros() as usize;
                out &= out - 1;
                self.reason[u] = k as u32;
                // A spent vertex was forced, and every vertex still alive
                // since is its neighbour: none is ruled out twice.
                debug_assert!(self.spent[u / WORD] >> (u % WORD) & 1 == 0);
                if graph.resolve && self.is_multi(u) {
                    for c in (0..kmin).filter(|&c| bit(c, u)) {
                        if !self.forced[c] && self.drop_one(c) {
                            emptied = emptied.or(Some(c));
                        }
                    }
                    continue;
                }
                let c = self.class_of[u] as usize;
                // Without max-resolution a forced vertex is adjacent to
                // every later one, so `u` is in an open class; with it,
                // `u`'s class may have been satisfied by a vertex of
                // several classes.
                debug_assert!(graph.resolve || !self.forced[c]);
                if !self.forced[c] && self.drop_one(c) {
                    emptied = emptied.or(Some(c));
                }
            }
        }
        emptied
    }

    /// Propagates the classes in [`Units::queue`] from its start: forces
    /// the last vertex of each open one; returns a class emptied, if any.
    #[inline(always)]
    fn run<W: Width>(&mut self, width: W, graph: &BitMatrix, classes: &[u64]) -> Option<usize> {
        let words = width.get();
        let mut head = 0;
        while let Some(&k) = self.queue.get(head) {
            head += 1;
            let k = k as usize;
            if self.forced[k] {
                continue;
            }
            if self.count[k] == 0 {
                return Some(k);
            }
            let class = &classes[k * words..][..words];
            let x = (0..words)
                .find(|&x| self.alive[x] & class[x] & !self.spent[x] != 0)
                .expect("one vertex left");
            let w = x * WORD + (self.alive[x] & class[x] & !self.spent[x]).trailing_zeros() as usize;
            if let Some(c) = self.force(width, graph, classes, k, w) {
                return Some(c);
            }
        }
        None
    }

    /// Appends to [`Units::closure`] the classes that emptied `empty`: it,
    /// and the classes whose forced vertices ruled out its vertices of
    /// `row`, and theirs, back to `v`. Marks them.
    #[inline(always)]
    fn collect<W: Width>(&mut self, width: W, row: &[u64], classes: &[u64], empty: usize) {
        let words = width.get();
        debug_assert!(!self.marked[empty]);
        self.marked[empty] = true;
        self.closure.push(empty as u32);
        let mut i = self.closure.len() - 1;
        while let Some(&k) = self.closure.get(i) {
            i += 1;
            let class = &classes[k as usize * words..][..words];
            for x in 0..words {
                let mut used = class[x] & row[x] & self.spent[x];
                while used != 0 {
                    let u = x * WORD + used.trailing_zeros() as usize;
                    used &= used - 1;
                    let r = self.spentby[u] as usize;
                    if r != k as usize && !self.marked[r] {
                        self.marked[r] = true;
                        self.closure.push(r as u32);
                    }
                }
                let mut out = class[x] & row[x] & !self.alive[x];
                while out != 0 {
                    let u = x * WORD + out.trailing_zeros() as usize;
                    out &= out - 1;
                    let r = self.reason[u] as usize;
                    if !self.marked[r] {
                        self.marked[r] = true;
                        self.closure.push(r as u32);
                    }
                }
            }
        }
    }
}

/// Whether `row` and `class` have at most one vertex in common: counted
/// without a branch, as in [`recolour_into`].
#[inline(always)]
fn at_most_one(row: &[u64], class: &[u64]) -> bool {
    let (mut nonzero, mut multi) = (0u64, 0u64);
    for (&a, &b) in row.iter().zip(class) {
        let x = a & b;
        nonzero += (x | x.wrapping_neg()) >> 63;
        multi |= x & x.wrapping_sub(1);
    }
    multi == 0 && nonzero <= 1
}

/// Leaves `v` out of the branching list with the classes `set`, which no
/// clique through `v` meets all of.
///
/// Without [`BitMatrix::resolve`], the classes are frozen: nothing enters
/// or leaves them any more and no later inconsistent set uses them, so
/// `{v}` with them holds no clique of more than their number of vertices
/// (see [`absorb`]).
///
/// With it (max-resolution; Bonet, Levy and Manyà, 2007, as Li, Jiang
/// and Manyà, 2018, apply it to the colour classes), `v` joins each class
/// of `set`, and the classes bound the cliques by matchings: the invariant
/// is that every clique `Q` of the vertices coloured or absorbed so far
/// has a matching of its vertices into the classes (each vertex to one
/// class holding it, each class to at most one vertex) that covers `Q`,
/// so `|Q| ≤ kmin`. Independent classes partitioning the vertices have
/// one. When [`propagate`] (or [`absorb`]) finds `set` for `v`, no clique
/// through `v` has a matching of its other vertices that covers every
/// class of `set`; so the matching of `Q − v` leaves some class of `set`
/// free, and `v`, now in it, takes it: `Q` is covered again. The enlarged
/// classes stay in the reasoning of the later vertices, which reads them
/// as matchings do: a vertex of several classes ([`Units::multi`]),
/// forced for one, is lost to the others. (Were it to satisfy all of them,
/// as in the first form of this code, the bound would hold as well, by
/// cliques meeting classes, but the reasoning would prune less: 1 to 9 %
/// more nodes on keller4, brock200_1, hamming8-4, C125.9 and p_hat700-2.)
/// They are frozen for [`recolour_into`] and [`absorb`], which need
/// independent classes; the classes never touched stay a partition of
/// their vertices into independent sets, apart from the enlarged ones, so
/// re-colouring among them keeps the bound.
#[inline(always)]
fn conflict<W: Width>(
    width: W,
    graph: &BitMatrix,
    v: usize,
    set: impl IntoIterator<Item = usize>,
    classes: &mut [u64],
    frozen: &mut [bool],
    units: &mut Units,
) {
    let words = width.get();
    for k in set {
        frozen[k] = true;
        if graph.resolve {
            classes[k * words + v / WORD] |= 1 << (v % WORD);
        }
    }
    if graph.resolve {
        units.multi[v / WORD] |= 1 << (v % WORD);
    }
}

/// MaxSAT reasoning on the colour classes (Li and Quan, 2010; Li, Fang and
/// Xu, 2013, as San Segundo et al.'s CliSAT, 2023, uses it on the branching
/// set): leaves `v`, which could not be re-coloured, out of every class and
/// off the branching list when unit propagation from `v` over the
/// classes `1..=kmin` (the unfrozen ones; with [`BitMatrix::resolve`] all,
/// see [`conflict`]) empties a class; whether it did.
///
/// Read each class `Ck` as the soft clause "a clique takes a vertex of
/// `Ck`". Taking `v` rules out its non-neighbours; a class left with one
/// vertex `w` forces it (a clique that meets the class there holds `w`),
/// which rules out `w`'s non-neighbours, and so on. When a class is left
/// with none, no clique holds `v` and meets every class that took part:
/// the emptied class and, following the reasons back, the classes whose
/// forced vertices ruled its vertices (and theirs) out — `r` classes in
/// all. So the cliques of `{v}` and these `r` classes have at most `r`
/// vertices, one fewer than their number of classes plus `v`; with each
/// class in at most one such set (the classes used are frozen), the
/// vertices left out of the branching list — the classes `1..=kmin` and the
/// absorbed vertices — still hold no clique of more than `kmin` vertices.
/// With [`BitMatrix::resolve`] the classes are transformed instead (see
/// [`conflict`]) and the propagation reads every class, as a matching of
/// the clique's vertices into them: a vertex of several classes, forced
/// for one (its last vertex), leaves the others, which may then force or
/// empty in turn (the class it was forced for is their reason), and
/// leaves all of them when ruled out. Subsumes [`absorb`]'s sets of two and three
/// classes (chains of one and two forced vertices); tried after them, and
/// only when `v` has at most one neighbour in some class it reads
/// (without one, nothing is forced): `open_single` says whether an
/// unfrozen class has one, as [`recolour_into`] found; with
/// [`BitMatrix::resolve`] and without one, the frozen classes are looked
/// at before the propagation starts. On keller5 that check saves 5 % of
/// the time; propagating whenever a frozen class has one, rather than only
/// when an unfrozen class has one, leaves 2.4 times fewer nodes in the
/// proof's tree and costs about 1.5 times as much per node
/// (`docs/benchmarks/2026-11-27-clique-maxres`).
///
/// Failed literals (trying each vertex of an open class of two left, as
/// IncMaxCLQ does, and freezing the union of the conflicts' classes when
/// every one fails) were measured and left out: on brock200_1 and
/// p_hat500-3 they pruned no more nodes, on keller4 and hamming8-4 1–2 %
/// more, and on gen200_p0.9_44 the larger frozen sets left 5 times as many
/// nodes. Recording `v`'s neighbours per class during the re-colouring's
/// pass instead of counting them in a pass of its own, with the union of
/// the unfrozen classes kept up to date, changed no CPU time measurably
/// (`docs/benchmarks/2026-11-27-clique-maxsat`).
#[inline(always)]
#[allow(clippy::too_many_arguments)] // the scratch buffers, borrowed apart
fn propagate<W: Width>(
    width: W,
    graph: &BitMatrix,
    v: usize,
    row: &[u64],
    classes: &mut [u64],
    frozen: &mut [bool],
    units: &mut Units,
    open_single: bool,
) -> bool {
    let words = width.get();
    let row = &row[..words];
    let kmin = frozen.len();
    let resolve = graph.resolve;
    // Nothing is forced unless some class holds at most one neighbour of
    // `v`: without one among the unfrozen classes (as [`recolour_into`]
    // has counted them), look among the frozen ones before counting all.
    if resolve
        && !open_single
        && !(0..kmin).any(|k| frozen[k] && at_most_one(row, &classes[k * words..][..words]))
    {
        return false;
    }
    if !units.mapped {
        units.class_of.resize(graph.n, u32::MAX);
        units.reason.resize(graph.n, u32::MAX);
        for (k, class) in classes[..kmin * words].chunks_exact(words).enumerate() {
            if resolve || !frozen[k] {
                for u in super::graph::bits(class) {
                    units.class_of[u] = k as u32;
                }
            }
        }
        units.mapped = true;
    }
    units.alive.clear();
    units.alive.resize(words, 0);
    units.spent.clear();
    units.spent.resize(words, 0);
    units.spentby.resize(graph.n, u32::MAX);
    units.count.clear();
    units.count.resize(kmin, 0);
    units.forced.clear();
    units.forced.resize(kmin, false);
    units.marked.resize(kmin, false);
    units.queue.clear();
    units.closure.clear();
    units.runs += 1;
    for k in (0..kmin).filter(|&k| resolve || !frozen[k]) {
        let class = &classes[k * words..][..words];
        let mut n = 0;
        for ((a, &r), &c) in units.alive.iter_mut().zip(row).zip(class) {
            *a |= r & c;
            n += (r & c).count_ones();
        }
        units.count[k] = n;
        if n <= 1 {
            units.queue.push(k as u32);
        }
    }
    let Some(empty) = units.run(width, graph, classes) else { return false };
    units.collect(width, row, classes, empty);
    for &k in &units.closure {
        units.marked[k as usize] = false;
    }
    let closure = std::mem::take(&mut units.closure);
    conflict(width, graph, v, closure.iter().map(|&k| k as usize), classes, frozen, units);
    units.closure = closure;
    true
}

/// The bitset graph of the vertices `order` (position → vertex of
/// `graph`), `position` its inverse.
fn dense_matrix(graph: &Graph, order: &[usize], position: &[u32]) -> BitMatrix {
    let kept = order.len();
    let mut matrix = BitMatrix::new(kept);
    match graph.dense_rows() {
        // Each row's set bits read directly (no boxed iterator per
        // neighbour), and row `p` written whole: its bit `q` is set
        // from both ends, as row `p`'s own and as row `q`'s mirror.
        Some((words, adj)) => {
            for (p, &v) in order.iter().enumerate() {
                for (i, &word) in adj[v * words..(v + 1) * words].iter().enumerate() {
                    let mut x = word;
                    while x != 0 {
                        let q = position[i * WORD + x.trailing_zeros() as usize] as usize;
                        x &= x - 1;
                        matrix.adj[p * matrix.words + q / WORD] |= 1 << (q % WORD);
                    }
                }
            }
        }
        None => {
            for (p, &v) in order.iter().enumerate() {
                for q in graph.neighbours(v).map(|u| position[u] as usize).filter(|&q| q < p) {
                    matrix.set(p, q);
                }
            }
        }
    }
    matrix.finish()
}

/// The degeneracy order of the graph and the number of vertices the search
/// keeps: its first ones. Isolated vertices are cliques of one vertex and
/// no more: the search keeps one of them only if there is no edge at all
/// (a sparse graph of 65,536 vertices with one edge searches two). They
/// come last in the degeneracy order.
fn order_and_kept(graph: &Graph) -> (Vec<usize>, usize) {
    let order = degeneracy_order(graph);
    let isolated = order.iter().rev().take_while(|&&v| graph.degree(v) == 0).count();
    let kept = (order.len() - isolated).max(order.len().min(1));
    (order, kept)
}

/// `position[v]`: where vertex `v` is in `order`.
fn positions(order: &[usize], n: usize) -> Vec<u32> {
    let mut position = vec![u32::MAX; n];
    for (p, &v) in order.iter().enumerate() {
        position[v] = p as u32;
    }
    position
}

/// A degeneracy order: the vertex of minimum degree (among the remaining
/// ones; ties to the lower number) is removed repeatedly and placed last.
/// Returns the vertices in order (position → vertex). A dense graph is
/// ordered by [`degeneracy_order_dense`], a sparse one by
/// [`degeneracy_order_heap`]: the same order.
fn degeneracy_order(graph: &Graph) -> Vec<usize> {
    match graph.dense_rows() {
        Some((words, adj)) => degeneracy_order_dense(graph.n(), words, adj),
        None => degeneracy_order_heap(graph),
    }
}

/// [`degeneracy_order`] of a graph of at most [`DENSE_MAX_VERTICES`]
/// vertices given as adjacency bitsets: `O(n² + m)` with a small constant.
/// Each remaining vertex has the key `degree · 2^12 + vertex` (below 2^24,
/// since both are below 2^12), a removed one `u32::MAX`: the least key is the
/// vertex of minimum degree with the lowest number, found by a scan over
/// `n` keys that compiles to vector minima, and removing a vertex lowers
/// the keys of its remaining neighbours by 2^12 (a walk over the set bits
/// of its row). On p_hat700-2 (700 vertices, 121,728 edges) it replaces a
/// heap of `m` entries (`O(m log n)`) whose pushes and pops took ~5 ms.
fn degeneracy_order_dense(n: usize, words: usize, adj: &[u64]) -> Vec<usize> {
    const SHIFT: u32 = 12;
    debug_assert!(n <= 1 << SHIFT);
    let mut key: Vec<u32> = (0..n)
        .map(|v| {
            let degree: u32 = adj[v * words..(v + 1) * words].iter().map(|w| w.count_ones()).sum();
            degree << SHIFT | v as u32
        })
        .collect();
    let mut order = vec![0; n];
    for position in (0..n).rev() {
        let least = key.iter().copied().min().expect("a vertex remains");
        let v = (least & ((1 << SHIFT) - 1)) as usize;
        order[position] = v;
        key[v] = u32::MAX;
        for (i, &word) in adj[v * words..(v + 1) * words].iter().enumerate() {
            let mut x = word;
            while x != 0 {
                let u = i * WORD + x.trailing_zeros() as usize;
                x &= x - 1;
                if key[u] != u32::MAX {
                    key[u] -= 1 << SHIFT;
                }
            }
        }
    }
    order
}

/// [`degeneracy_order`] by a heap of (degree, vertex) with stale entries
/// skipped: `O(m log n)` besides reading the rows, for sparse graphs of any
/// size (picking the minimum by a scan takes `O(n²)`: seconds at 65,536
/// vertices). Degrees only fall, so a stale entry's degree is above the
/// vertex's current one, and the entry popped first among the current ones
/// is the least (degree, vertex).
fn degeneracy_order_heap(graph: &Graph) -> Vec<usize> {
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// ω by the search, with the local search's bursts from the
    /// `first_burst`-th node of the search on.
    fn omega(g: &Graph, first_burst: Option<u64>, threads: usize) -> usize {
        let mut search = CliqueSearch::max_clique(g);
        if let Some(b) = first_burst {
            (search.nodes_per_move, search.publish_every) = (1, 1);
            search.next_burst = AtomicU64::new(b);
            if let Some(walk) = &search.local {
                walk.lock().unwrap().last = b / 2;
            }
        }
        if threads == 1 {
            treelb::seq::run_search(&search);
        } else {
            let spec = treelb::RunSpec { budget: treelb::spec::Budget::of(16), ..treelb::RunSpec::default() };
            let config = treelb_threads::Config { threads, spec, ..treelb_threads::Config::default() };
            let work = treelb::search::DfsWork::new(&search, treelb::search::SplitPolicy::default());
            treelb_threads::run(work, &config).expect("the run");
        }
        let (omega, clique) = search.incumbent.into_best().expect("a clique");
        assert!(g.is_clique(&clique));
        assert_eq!(clique.len() as i64, omega);
        omega as usize
    }

    /// The clique search up to its [`Part::Whole`] root, which is not
    /// expanded: the nodes before it.
    struct UntilWhole<'a> {
        inner: &'a CliqueSearch,
        /// The count of nodes when the root came off the stack (0: never).
        whole_at: AtomicU64,
        nodes: AtomicU64,
    }

    impl Search for UntilWhole<'_> {
        type Node = CliqueNode;
        type Output = BnbStats;

        fn root(&self) -> CliqueNode {
            self.inner.root()
        }

        fn expand(&self, node: CliqueNode, acc: &mut BnbStats, children: &mut Children<'_, CliqueNode>) {
            let nodes = self.nodes.fetch_add(1, Ordering::Relaxed) + 1;
            if node.part == Part::Whole {
                self.whole_at.store(nodes, Ordering::Relaxed);
                return;
            }
            self.inner.expand(node, acc, children);
        }
    }

    /// ω of the vertices of `set` (at most 64 vertices), by brute force.
    fn omega_of(g: &Graph, set: u64) -> u32 {
        fn grow(g: &Graph, cand: u64) -> u32 {
            let mut best = 0;
            let mut rest = cand;
            while rest != 0 {
                let v = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let nbrs = rest & g.neighbours(v).filter(|&u| u < 64).fold(0u64, |m, u| m | 1 << u);
                best = best.max(1 + grow(g, nbrs));
            }
            best
        }
        grow(g, set)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// The greedy starts run as the first nodes of the tree find, on one
        /// PE, exactly the clique the greedy run before the search found
        /// (the local search's start), and offer it before the search's
        /// root is expanded.
        #[test]
        fn greedy_starts_in_the_tree_find_the_greedy_clique(
            n in 1usize..200, p in 0.3f64..0.999, seed in any::<u64>(),
        ) {
            let g = Graph::random(n, p, seed);
            let search = CliqueSearch::max_clique(&g);
            let Space::Dense(matrix) = &search.space else { unreachable!("a dense graph") };
            let expected = matrix.greedy_clique();
            prop_assert_eq!(search.root().part, Part::Start);
            let until = UntilWhole { inner: &search, whole_at: AtomicU64::new(0), nodes: AtomicU64::new(0) };
            treelb::seq::run_search(&until);
            // The search's root came last, once every start had run.
            let nodes = until.nodes.load(Ordering::Relaxed);
            prop_assert_eq!(until.whole_at.load(Ordering::Relaxed), nodes);
            prop_assert_eq!(nodes as usize, 2 + n.min(GREEDY_STARTS).div_ceil(GREEDY_CHUNK));
            prop_assert_eq!(&search.greedy_best.lock().unwrap().clique, &expected);
            prop_assert_eq!(search.incumbent.best(), Some(expected.len() as i64));
        }

        /// Unit propagation absorbs a vertex only into a
        /// set of classes its cliques cannot all meet: after every vertex
        /// outside a greedy colouring has been offered in turn, the classes
        /// with the absorbed vertices hold no clique larger than their
        /// number, and each absorbed vertex with its frozen classes none
        /// larger than its number of classes. With max-resolution
        /// ([`BitMatrix::resolve`]), the classes after each absorption are
        /// the old ones, each enlarged by the absorbed vertex or not, and
        /// they with every vertex absorbed so far hold no clique larger
        /// than their number.
        #[test]
        fn propagation_never_absorbs_into_a_clique(
            n in 4usize..48, p in 0.2f64..0.95, seed in any::<u64>(), resolve in any::<bool>(),
        ) {
            let g = Graph::random(n, p, seed);
            let mut m = BitMatrix::new(n);
            for u in 0..n {
                for v in g.neighbours(u).filter(|&v| v > u) {
                    m.set(u, v);
                }
            }
            let mut m = m.finish();
            (m.propagate, m.resolve) = (true, resolve);
            // A greedy colouring of the vertices in a shuffled order; the
            // others of the order are offered to `propagate`.
            let mut rng = crate::splitmix::SplitMix64::new(seed ^ 0x5eed);
            let mut order: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                order.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
            }
            let coloured = n / 2 + 1;
            let mut class_sets: Vec<u64> = Vec::new();
            for &v in &order[..coloured] {
                match class_sets.iter_mut().find(|c| (0..n).all(|u| **c >> u & 1 == 0 || !g.has_edge(u, v))) {
                    Some(c) => *c |= 1 << v,
                    None => class_sets.push(1 << v),
                }
            }
            let kmin = class_sets.len();
            let mut classes: Vec<u64> = class_sets.clone();
            let mut frozen = vec![false; kmin];
            let mut units = Units { multi: vec![0], ..Units::default() };
            let mut kept = class_sets.iter().fold(0u64, |a, &c| a | c);
            for &v in &order[coloured..] {
                let before = frozen.clone();
                let row = m.row_w(Fixed::<1>, v).to_vec();
                let old = classes.clone();
                if propagate(Fixed::<1>, &m, v, &row, &mut classes, &mut frozen, &mut units, true) {
                    let used: Vec<usize> = (0..kmin).filter(|&k| frozen[k] && !before[k]).collect();
                    if resolve {
                        prop_assert!(used.iter().all(|&k| classes[k] == old[k] | 1 << v));
                        prop_assert!((0..kmin).all(|k| classes[k] & !(1 << v) == old[k]));
                        prop_assert!(classes.iter().any(|&c| c >> v & 1 != 0));
                    } else {
                        prop_assert!(!used.is_empty());
                        let set = used.iter().fold(1u64 << v, |a, &k| a | class_sets[k]);
                        prop_assert!(omega_of(&g, set) as usize <= used.len());
                    }
                    kept |= 1 << v;
                    prop_assert!(omega_of(&g, kept) as usize <= kmin);
                } else {
                    prop_assert_eq!(&classes, &old);
                }
                prop_assert!(units.marked.iter().all(|&b| !b));
            }
            prop_assert!(omega_of(&g, kept) as usize <= kmin);
        }

        /// The root's colouring is a partition of the vertices into
        /// independent sets, with no more classes than first fit in the
        /// numbering, whatever floor stops it early.
        #[test]
        fn the_root_colouring_is_proper_and_no_worse_than_first_fit(
            n in 1usize..300, p in 0.0f64..1.0, seed in any::<u64>(), floor in -1i64..40,
        ) {
            let g = Graph::random(n, p, seed);
            let search = CliqueSearch::with_options(&g, Options::default()).expect("no limit");
            let Space::Dense(m) = &search.space else { unreachable!("a dense graph") };
            let classes = root_colouring(m, floor, ROOT_ROUNDS);
            let first = first_fit(m, &(0..m.n as u32).collect::<Vec<_>>());
            prop_assert!(classes.len() <= first.len());
            let mut seen = vec![false; m.n];
            for class in &classes {
                prop_assert!(!class.is_empty());
                for (i, &u) in class.iter().enumerate() {
                    prop_assert!(!std::mem::replace(&mut seen[u as usize], true));
                    let row = m.row_w(Dynamic(m.words), u as usize);
                    prop_assert!(class[..i].iter().all(|&v| row[v as usize / WORD] >> (v as usize % WORD) & 1 == 0));
                }
            }
            prop_assert!(seen.iter().all(|&s| s));
        }

        /// Graphs built like the gen family: `k` independent groups, a
        /// clique planted across them (one vertex each), the other pairs of
        /// different groups edges at random. ω is `k`, and the root's
        /// colouring often finds the groups: the search proves it at the
        /// root, by the colouring alone or after the longer walk toward its
        /// bound, or later, sequentially and on two threads.
        #[test]
        fn planted_cliques_with_a_matching_colouring(
            k in 2usize..24, per in 1usize..6, p in 0.5f64..0.97, seed in any::<u64>(),
        ) {
            let n = k * per;
            let mut rng = crate::splitmix::SplitMix64::new(seed);
            let group: Vec<usize> = (0..n).map(|_| (rng.next_u64() % k as u64) as usize).collect();
            // The planted clique: the first vertex of each group (made so).
            let mut group = group;
            for (g, slot) in group.iter_mut().take(k).enumerate() {
                *slot = g;
            }
            let mut g = Graph::new(n);
            for u in 0..n {
                for v in u + 1..n {
                    let planted = u < k && v < k;
                    if group[u] != group[v] && (planted || (rng.next_u64() as f64) < p * u64::MAX as f64) {
                        g.add_edge(u, v);
                    }
                }
            }
            prop_assert_eq!(omega(&g, None, 1), k);
            prop_assert_eq!(omega(&g, Some(2), 1), k);
            prop_assert_eq!(omega(&g, Some(2), 2), k);
        }

        /// The dense graphs' scan gives exactly the heap's order, ties
        /// included (regular graphs: every vertex ties at every step).
        #[test]
        fn dense_degeneracy_order_is_the_heaps(n in 1usize..300, p in 0.0f64..1.0, seed in any::<u64>()) {
            let g = Graph::random(n, p, seed);
            let (words, adj) = g.dense_rows().expect("a dense graph");
            prop_assert_eq!(degeneracy_order_dense(n, words, adj), degeneracy_order_heap(&g));
            let regular = Graph::turan(n, 1 + (seed % 7) as usize);
            let (words, adj) = regular.dense_rows().expect("a dense graph");
            prop_assert_eq!(degeneracy_order_dense(n, words, adj), degeneracy_order_heap(&regular));
        }

        /// Bursts of local search from the second node on (a burst every
        /// time the search's count doubles, one move per node) change no
        /// answer, sequentially and on two threads.
        #[test]
        fn local_search_bursts_keep_the_answer(n in 2usize..90, p in 0.2f64..0.95, seed in any::<u64>()) {
            let g = Graph::random(n, p, seed);
            let plain = omega(&g, None, 1);
            prop_assert_eq!(omega(&g, Some(2), 1), plain);
            prop_assert_eq!(omega(&g, Some(2), 2), plain);
        }
    }
}
