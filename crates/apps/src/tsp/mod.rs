//! The symmetric travelling salesman problem on TSPLIB instances: branch and
//! bound with Held–Karp 1-tree bounds (subgradient ascent at every node,
//! warm-started from the parent, with comb inequalities found at the root
//! and dualized with their own multipliers, and reduced-cost edge
//! elimination and fixing), an initial tour by an iterated local search
//! (2-opt, Or-opt and Lin–Kernighan chains), and a Held–Karp dynamic program
//! as a check for small `n`.
//!
//! * [`Tsp`] — an instance: its distance matrix, tour lengths, random
//!   instances for tests;
//! * [`tsplib`] — the TSPLIB 95 format with its distance functions and
//!   rounding rules (and `.opt.tour` files), with typed errors;
//! * [`heuristic`] — the initial tour;
//! * [`TspSearch`] — the branch and bound; the best tour is in
//!   [`TspSearch::incumbent`] after the run;
//! * [`held_karp`] — the exact `O(2ⁿ n²)` dynamic program.
//!
//! ```
//! use treelb_apps::tsp::{held_karp, Tsp, TspSearch};
//! let tsp = Tsp::random_euclidean(12, 1000.0, 3);
//! let search = TspSearch::new(&tsp);
//! treelb::seq::run_search(&search);
//! let (length, tour) = search.incumbent.into_best().unwrap();
//! assert_eq!(tsp.tour_length(&tour), Some(length));
//! assert_eq!(held_karp(&tsp).map(|(l, _)| l), Some(length));
//! ```

mod cuts;
mod dp;
pub mod heuristic;
mod lp;
mod search;
pub mod tsplib;

use serde::Serialize;

pub use dp::{HELD_KARP_MAX_N, held_karp};

/// Δt of TSP runs: 1 node. A node is a subgradient ascent (thousands of
/// 1-trees), so requests are answered after every node; every runner of
/// the TSP (`treelb tsp`, `treelb bench`, `treelb compare`) uses it.
pub const BUDGET: treelb::spec::Budget = treelb::spec::Budget::of(1);
pub use search::{AscentParams, RootCuts, TspNode, TspSearch};
pub use tsplib::{EdgeWeightFormat, EdgeWeightType, TsplibError};

/// The largest distance, in absolute value, an instance may have (2⁴⁰):
/// tour lengths and bounds of up to 4096 such edges stay far inside `i64`.
pub const MAX_DISTANCE: i64 = 1 << 40;

use crate::splitmix::SplitMix64;

/// The stop that the root's long phases (the initial tour, the Held–Karp
/// ascent, the cutting-plane LP) poll: the caller's test, asked until it
/// says `true`, and remembered from then on.
pub(crate) struct Poll<'a> {
    stop: &'a dyn Fn() -> bool,
    stopped: std::cell::Cell<bool>,
}

impl<'a> Poll<'a> {
    /// A poll of `stop`.
    pub(crate) fn new(stop: &'a dyn Fn() -> bool) -> Self {
        Poll { stop, stopped: std::cell::Cell::new(false) }
    }

    /// Whether to stop: asks the test unless it already said `true`.
    pub(crate) fn stop(&self) -> bool {
        if !self.stopped.get() && (self.stop)() {
            self.stopped.set(true);
        }
        self.stopped.get()
    }

    /// Whether a [`stop`](Self::stop) said `true` (without asking again).
    pub(crate) fn stopped(&self) -> bool {
        self.stopped.get()
    }
}

/// An index of a node in a union-find forest: `usize`, or `u32` where the
/// forest sits on the bound's hot path and half the memory counts.
trait ForestIndex: Copy + Eq {
    /// The index as a slice position.
    fn at(self) -> usize;
}

impl ForestIndex for usize {
    #[inline]
    fn at(self) -> usize {
        self
    }
}

impl ForestIndex for u32 {
    #[inline]
    fn at(self) -> usize {
        self as usize
    }
}

/// The root of `v` in a union-find forest `up` (each node's parent, a root
/// its own), halving the path on the way: the subtour test of tour files,
/// the cut separations and the bound's replacement edges share it.
#[inline]
fn find<I: ForestIndex>(up: &mut [I], mut v: I) -> I {
    while up[v.at()] != v {
        up[v.at()] = up[up[v.at()].at()];
        v = up[v.at()];
    }
    v
}

/// A symmetric TSP instance: `n` nodes and integer distances.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Tsp {
    /// The instance's name (TSPLIB `NAME`), or empty.
    pub name: String,
    /// The instance's comment (TSPLIB `COMMENT`), or empty.
    pub comment: String,
    /// How the file gave the weights, if it came from a TSPLIB file.
    pub weight_type: Option<EdgeWeightType>,
    /// The matrix layout of an `EXPLICIT` file.
    pub weight_format: Option<EdgeWeightFormat>,
    /// Edges every tour must contain (TSPLIB `FIXED_EDGES_SECTION`),
    /// 0-based.
    pub fixed_edges: Vec<(u32, u32)>,
    n: usize,
    #[serde(skip)]
    dist: Vec<i64>,
}

/// A distance matrix that is not one of a symmetric instance.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MatrixError {
    /// The matrix does not have `n²` entries.
    #[error("a distance matrix for {n} nodes needs {expected} entries, not {found}")]
    Size {
        /// The number of nodes.
        n: usize,
        /// `n²`.
        expected: usize,
        /// The entries given.
        found: usize,
    },
    /// `d(i, j) != d(j, i)`.
    #[error("the distance matrix is not symmetric: d({i},{j}) != d({j},{i}) (0-based)")]
    Asymmetric {
        /// A node.
        i: usize,
        /// Another node.
        j: usize,
    },
    /// A distance beyond `±2^40`, where tour lengths could overflow.
    #[error("the distance d({i},{j}) = {d} is too large (at most 2^40 in absolute value)")]
    TooLarge {
        /// A node.
        i: usize,
        /// Another node.
        j: usize,
        /// The distance.
        d: i64,
    },
    /// No nodes.
    #[error("an instance needs at least one node")]
    Empty,
}

impl Tsp {
    /// An instance from a full `n × n` matrix (row-major). The diagonal is
    /// ignored (set to 0).
    pub fn from_matrix(n: usize, mut dist: Vec<i64>) -> Result<Tsp, MatrixError> {
        if n == 0 {
            return Err(MatrixError::Empty);
        }
        if dist.len() != n * n {
            return Err(MatrixError::Size { n, expected: n * n, found: dist.len() });
        }
        for i in 0..n {
            dist[i * n + i] = 0;
            for j in i + 1..n {
                if dist[i * n + j] != dist[j * n + i] {
                    return Err(MatrixError::Asymmetric { i, j });
                }
                let d = dist[i * n + j];
                if d.unsigned_abs() > MAX_DISTANCE as u64 {
                    return Err(MatrixError::TooLarge { i, j, d });
                }
            }
        }
        Ok(Tsp {
            name: String::new(),
            comment: String::new(),
            weight_type: None,
            weight_format: None,
            fixed_edges: Vec::new(),
            n,
            dist,
        })
    }

    /// `n` random points in the square `[0, side]²` with TSPLIB `EUC_2D`
    /// distances.
    pub fn random_euclidean(n: usize, side: f64, seed: u64) -> Tsp {
        let mut rng = SplitMix64::new(seed);
        let points: Vec<[f64; 3]> = (0..n).map(|_| [rng.unit() * side, rng.unit() * side, 0.0]).collect();
        let dist = (0..n * n).map(|k| EdgeWeightType::Euc2d.distance(points[k / n], points[k % n])).collect();
        let mut tsp = Tsp::from_matrix(n, dist).expect("Euclidean distances are symmetric");
        tsp.weight_type = Some(EdgeWeightType::Euc2d);
        tsp
    }

    /// A random symmetric matrix with distances uniform in `1..=max`: no
    /// triangle inequality.
    pub fn random_matrix(n: usize, max: i64, seed: u64) -> Tsp {
        let mut rng = SplitMix64::new(seed);
        let mut dist = vec![0; n * n];
        for i in 0..n {
            for j in i + 1..n {
                let d = rng.range(1, max);
                dist[i * n + j] = d;
                dist[j * n + i] = d;
            }
        }
        Tsp::from_matrix(n, dist).expect("symmetric by construction")
    }

    /// The number of nodes.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The distance between nodes `i` and `j` (0-based).
    #[inline]
    pub fn dist(&self, i: usize, j: usize) -> i64 {
        self.dist[i * self.n + j]
    }

    /// The length of a closed tour, or `None` if `tour` is not a
    /// permutation of `0..n` or misses a fixed edge.
    pub fn tour_length(&self, tour: &[u32]) -> Option<i64> {
        let n = self.n;
        if tour.len() != n {
            return None;
        }
        let mut seen = vec![false; n];
        for &v in tour {
            if v as usize >= n || std::mem::replace(&mut seen[v as usize], true) {
                return None;
            }
        }
        let mut position = vec![0usize; n];
        for (k, &v) in tour.iter().enumerate() {
            position[v as usize] = k;
        }
        let adjacent = |a: u32, b: u32| {
            let d = position[a as usize].abs_diff(position[b as usize]);
            d == 1 || d == n - 1
        };
        if !self.fixed_edges.iter().all(|&(a, b)| adjacent(a, b)) {
            return None;
        }
        Some((0..n).map(|k| self.dist(tour[k] as usize, tour[(k + 1) % n] as usize)).sum())
    }
}
