//! Branch and bound for the symmetric TSP with Held–Karp 1-tree bounds.

use std::cell::RefCell;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use treelb::search::chain::{self, Chains};
use treelb::search::{Children, Entry, Search};
use treelb::{Incumbent, Sense};

use super::{Tsp, cuts, heuristic};
use crate::bnb::BnbStats;

/// The subgradient ascent's schedule.
///
/// At every node the Lagrangian bound `L(π) = min 1-tree(c_ij + π_i + π_j) −
/// 2 Σ π` is raised by subgradient steps `π ← π + t·(deg − 2)` with
/// `t = λ·(U − L)/‖deg − 2‖²` (Held and Karp, 1971), where `U` is the
/// initial tour's length; `λ` is halved after `patience` steps without
/// improvement. Every `π` gives a valid bound, so the schedule only decides
/// how tight the bounds are for the time spent.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct AscentParams {
    /// Steps at the root (its multipliers are inherited by all nodes).
    pub root_steps: u32,
    /// `λ` at the root.
    pub root_lambda: f64,
    /// Steps at every other node (warm-started from the parent's best `π`).
    pub node_steps: u32,
    /// `λ` at the other nodes.
    pub node_lambda: f64,
    /// Steps without improvement before `λ` is halved (at the other nodes).
    pub patience: u32,
    /// The same at the root, where the ascent runs to convergence (d198
    /// needs about 150: with 49, its root bound stops 6 % short of the
    /// Held–Karp bound).
    pub root_patience: u32,
    /// The ascent stops once `λ` is below this.
    pub min_lambda: f64,
    /// Rounds of comb separation on the average 1-tree at the root
    /// (relax-and-cut, see [`RootCuts`]), when the LP is off or fails; with
    /// `lp_rounds`, 0 keeps the plain Held–Karp bound.
    pub cut_rounds: u32,
    /// Rounds of separation of the root's cutting-plane LP (exact subtour
    /// cuts, blossoms on a Gomory–Hu tree, combs; see [`RootCuts`]), whose
    /// cuts and dual solution start the Lagrangian; 0: no LP.
    pub lp_rounds: u32,
}

impl AscentParams {
    /// The default schedule for `n` nodes.
    pub fn for_n(n: usize) -> Self {
        let n = n as u32;
        AscentParams {
            root_steps: 100 * n.max(10),
            root_lambda: 2.0,
            node_steps: 20 + n,
            node_lambda: 1.0,
            patience: (n / 4).clamp(5, 50),
            root_patience: n.clamp(5, 200),
            min_lambda: 1e-5,
            cut_rounds: 200,
            lp_rounds: 300,
        }
    }
}

/// The symmetric TSP as a [`Search`]: branch and bound on the edges of the
/// Held–Karp 1-tree (in the style of Volgenant and Jonker, 1982).
///
/// A node is a set of branching decisions — edges included in or excluded
/// from the tour. Expanding it
///
/// 1. derives what the decisions imply: a node with two included edges
///    loses its other edges; a path of included edges may not close early
///    (its closing edge is excluded); a Hamiltonian path of included edges
///    fixes the tour; a node left with two edges keeps them (to a fixed
///    point);
/// 2. runs a subgradient ascent from the parent's multipliers on the
///    1-trees (minimum spanning tree on nodes `1..n` plus the two cheapest
///    edges of node 0) that contain the included and avoid the excluded
///    edges. Besides the degree multipliers, it moves those of the subtour,
///    blossom and comb inequalities found at the root (see [`RootCuts`]),
///    whose terms are part of the edge costs. It stops early when the
///    bound reaches the incumbent (prune) or a 1-tree is a tour that the
///    bound reaches (optimal for the node: offered);
/// 3. eliminates and fixes edges by their reduced costs (Volgenant and
///    Jonker): a non-tree edge whose insertion, or a tree edge whose
///    removal, would lift the 1-tree's bound to the incumbent is excluded,
///    or included, for the whole subtree. When edges were fixed, or the
///    exclusions leave some node with only two edges, the node is bounded
///    again from the best multipliers (at most `MAX_ROUNDS` more times);
/// 4. branches at a node `v` of degree above two in the best 1-tree, on two
///    of its tree edges `e1`, `e2` that are not yet fixed: exclude `e1`;
///    include `e1` and exclude `e2`; include both (if `v` had no included
///    edge yet; with one, the children are "exclude `e1`" and "include
///    `e1`"). The children partition the node's tours that can still beat
///    the incumbent, and inherit its bound and multipliers.
///
/// Tour lengths are integers, so a node is pruned once `⌈L⌉` reaches the
/// incumbent. The incumbent starts from [`heuristic::initial_tour`].
///
/// ```
/// use treelb_apps::tsp::{Tsp, TspSearch};
/// let tsp = Tsp::random_euclidean(20, 1000.0, 9);
/// let search = TspSearch::new(&tsp);
/// let (stats, _) = treelb::seq::run_search(&search);
/// let (length, tour) = search.incumbent.into_best().unwrap();
/// assert_eq!(tsp.tour_length(&tour), Some(length));
/// assert!(stats.nodes() >= 1);
/// ```
#[derive(Debug)]
pub struct TspSearch {
    n: usize,
    /// Distances as floats, row-major.
    cost: Vec<f64>,
    /// Distances as integers.
    dist: Vec<i64>,
    fixed: Vec<(u32, u32)>,
    /// `U` of the step size: the initial tour's length (or a crude bound).
    target: f64,
    params: AscentParams,
    /// The cuts found at the root (combs, blossoms, subtour
    /// inequalities), dualized at every node.
    combs: Vec<cuts::Comb>,
    /// The root's multipliers from its cutting planes: the degrees', then
    /// the cuts' (`None`: all zero).
    root_pi: Option<Arc<[f64]>>,
    /// What the cutting planes found at the root.
    cuts: Option<RootCuts>,
    /// The root phase was stopped (see [`TspSearch::with_params_until`]).
    root_stopped: bool,
    /// The shortest tour found: its length and the tour (starting at node 0).
    pub incumbent: Incumbent<Vec<u32>>,
}

/// A node of the TSP search.
///
/// Nodes serialize (for runtimes that send pieces between processes): a
/// node on its own writes its shared chain of decisions as a list, a stack
/// of them ([`Search::serialize_stack`]) each shared link once
/// ([`treelb::search::chain`]); the multipliers travel as plain numbers
/// (bit for bit).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(into = "TspWire", from = "TspWire")]
pub struct TspNode {
    /// The branching decisions, most recent first.
    decisions: Option<Arc<Decision>>,
    /// The parent's best multipliers (`None` at the root: all zero).
    pi: Option<Arc<[f64]>>,
    /// The parent's lower bound on every tour of this node.
    bound: i64,
    /// The number of branchings above this node.
    depth: u32,
}

impl TspNode {
    /// A lower bound on the length of every tour of this node's subtree
    /// (the parent's bound; `i64::MIN` at the root).
    pub fn bound(&self) -> i64 {
        self.bound
    }

    /// The depth of the node in the search tree.
    pub fn depth(&self) -> u32 {
        self.depth
    }
}

/// One link of a node's chain of decisions.
#[derive(Debug)]
struct Decision {
    step: Step,
    prev: Option<Arc<Decision>>,
}

/// Dropped link by link, not recursively: a chain as deep as the search
/// would overflow the stack ([`treelb::search::chain`]).
impl Drop for Decision {
    fn drop(&mut self) {
        treelb::search::chain::unlink(self.prev.take(), |link| link.prev.take());
    }
}

/// How a [`TspNode`] holds its decisions: a stack of nodes travels with
/// each link once, fixes as fixes ([`Search::serialize_stack`]).
struct Decisions;

impl Chains for Decisions {
    type Node = TspNode;
    type Link = Decision;
    type Step = Step;
    type Head = (Option<Vec<f64>>, i64, u32);

    fn last(node: &TspNode) -> Option<&Arc<Decision>> {
        node.decisions.as_ref()
    }

    fn prev(link: &Decision) -> Option<&Arc<Decision>> {
        link.prev.as_ref()
    }

    fn step(link: &Decision) -> impl Serialize + '_ {
        &link.step
    }

    fn head(node: &TspNode) -> impl Serialize + '_ {
        (node.pi.as_deref(), node.bound, node.depth)
    }

    fn link(step: Step, prev: Option<Arc<Decision>>) -> Decision {
        Decision { step, prev }
    }

    fn join((pi, bound, depth): (Option<Vec<f64>>, i64, u32), decisions: Option<Arc<Decision>>) -> TspNode {
        TspNode { decisions, pi: pi.map(Arc::from), bound, depth }
    }
}

/// What one link of the chain decides.
#[derive(Debug, Serialize, Deserialize)]
enum Step {
    /// A branching decision: edge `{a, b}` is in (or out of) every tour of
    /// the subtree.
    Edge { a: u32, b: u32, include: bool },
    /// Edges eliminated (`out`) or fixed (`inc`) by their reduced costs at
    /// an ancestor: no tour through one of the first, or without one of the
    /// second, can beat the incumbent of that time.
    Fix { out: Box<[(u32, u32)]>, inc: Box<[(u32, u32)]> },
}

/// The wire form of a [`TspNode`]: the decisions `(a, b, include)`, most
/// recent first (eliminated edges as excluded ones).
#[derive(Serialize, Deserialize)]
struct TspWire {
    decisions: Vec<(u32, u32, bool)>,
    pi: Option<Vec<f64>>,
    bound: i64,
    depth: u32,
}

impl From<TspNode> for TspWire {
    fn from(node: TspNode) -> Self {
        let mut decisions = Vec::new();
        let mut link = node.decisions.as_deref();
        while let Some(d) = link {
            match &d.step {
                &Step::Edge { a, b, include } => decisions.push((a, b, include)),
                Step::Fix { out, inc } => {
                    decisions.extend(out.iter().map(|&(a, b)| (a, b, false)));
                    decisions.extend(inc.iter().map(|&(a, b)| (a, b, true)));
                }
            }
            link = d.prev.as_deref();
        }
        TspWire { decisions, pi: node.pi.map(|p| p.to_vec()), bound: node.bound, depth: node.depth }
    }
}

impl From<TspWire> for TspNode {
    fn from(wire: TspWire) -> Self {
        let decisions = wire.decisions.iter().rev().fold(None, |prev, &(a, b, include)| {
            Some(Arc::new(Decision { step: Step::Edge { a, b, include }, prev }))
        });
        TspNode { decisions, pi: wire.pi.map(Arc::from), bound: wire.bound, depth: wire.depth }
    }
}

/// Edge states in the scratch matrix.
const FREE: u8 = 0;
const IN: u8 = 1;
const OUT: u8 = 2;

/// What the decisions of a node imply.
enum Implied {
    /// No tour satisfies them.
    Infeasible,
    /// They determine one tour.
    Tour(Vec<u32>),
    /// The ascent has to decide.
    Open,
}

/// What the ascent found.
enum Ascent {
    /// The bound reached the incumbent.
    Pruned,
    /// A 1-tree was a tour, with the bound `L` (the tour is the best of
    /// the node if `⌈L⌉` reaches its length; with blossoms it may not).
    Tour(Vec<u32>, f64),
    /// Branch: the bound, at the best multipliers.
    Branch(f64),
}

/// Per-thread buffers: the edge states and the 1-tree computations.
#[derive(Default)]
struct Scratch {
    state: Vec<u8>,
    /// Included neighbours of each node (at most two).
    inc: Vec<[u32; 2]>,
    pi: Vec<f64>,
    best_pi: Vec<f64>,
    /// The combs' multipliers.
    mu: Vec<f64>,
    best_mu: Vec<f64>,
    /// Their subgradient.
    g_mu: Vec<f64>,
    /// The edge costs with the combs' terms at `mu` (dense).
    cost: Vec<f64>,
    /// A membership mask for the combs' sets.
    inside: Vec<bool>,
    /// The 1-tree: `parent[v]` for `v` in `2..n` ... (Prim from node 1),
    /// and node 0's two neighbours.
    parent: Vec<u32>,
    zero: [u32; 2],
    degree: Vec<i32>,
    best_parent: Vec<u32>,
    best_zero: [u32; 2],
    best_degree: Vec<i32>,
    key: Vec<f64>,
    done: Vec<bool>,
    dir: Vec<f64>,
    /// The edges among nodes `1..n` that are not excluded, by node
    /// (compressed rows: `adj[start[v]..start[v + 1]]`), with their costs
    /// (minus `FORCE` for included edges).
    start: Vec<u32>,
    adj: Vec<u32>,
    adj_cost: Vec<f64>,
    /// The nodes Prim has not reached yet.
    left: Vec<u32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// A list of edges `(a, b)`.
type Edges = Vec<(u32, u32)>;

/// The smallest instance the root's cutting planes run on.
const MIN_CUT_N: usize = 8;

/// The root's bounds before and after its cutting planes (subtour, blossom
/// and comb inequalities dualized in the Lagrangian with their own
/// multipliers, found by a cutting-plane LP whose dual solution gives the
/// starting multipliers, or by relax-and-cut on the average 1-tree; every
/// node's ascent moves their multipliers too).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RootCuts {
    /// The Held–Karp bound at the root (unrounded).
    pub held_karp: f64,
    /// The Lagrangian bound with the cuts (unrounded).
    pub bound: f64,
    /// The blossoms and combs kept (with a positive multiplier at the root).
    pub combs: usize,
    /// The subtour inequalities kept (with a positive multiplier).
    pub subtours: usize,
}

/// How many times a node is bounded again after reduced costs fixed edges.
const MAX_ROUNDS: u32 = 3;

/// The key of an included edge in Prim's algorithm: below every real cost.
const FORCE: f64 = 1e15;

impl TspSearch {
    /// The search for `tsp` with the default schedule, seeded with
    /// [`heuristic::initial_tour`] from up to 16 starts.
    pub fn new(tsp: &Tsp) -> Self {
        Self::with_params(tsp, AscentParams::for_n(tsp.n()), true)
    }

    /// The search with a given schedule, seeded with the heuristic tour or
    /// not (then the incumbent starts empty, and the step size aims at the
    /// length of a nearest-neighbour tour, which is not offered).
    pub fn with_params(tsp: &Tsp, params: AscentParams, seeded: bool) -> Self {
        Self::with_params_until(tsp, params, seeded, &|| false)
    }

    /// [`with_params`](Self::with_params) with a root phase that stops
    /// when `stop` says so. The root phase — the initial tour, the
    /// Held–Karp ascent, the cutting-plane LP and its separation — asks
    /// `stop` between its steps: every 64 kicks of the local search, every
    /// step of the ascent (`O(n²)`), every 5 ms while the LP runs (on a
    /// thread of its own, since a simplex solve cannot be interrupted; once
    /// stopped, that thread ends after its current solve, unwaited for).
    /// Once `stop` says `true`, it is not asked again and the phase ends
    /// with what it has: [`root_stopped`](Self::root_stopped) is set, the
    /// incumbent holds the best tour found so far (a stopped local search
    /// still completes its first start), and [`root_cuts`](Self::root_cuts)'
    /// bound is the best Lagrangian bound reached, a lower bound on every
    /// tour. Such a search is meant for reporting, not for running: its root
    /// multipliers and cuts are valid but partial (the bounds of its nodes
    /// would be weaker), and it is not the search a run without the stop
    /// would build. With a stop that never says `true`, the search is the
    /// one of [`with_params`](Self::with_params).
    ///
    /// Measured on 2,000 random points, a stop asked for before the phase
    /// starts ends it after 0.36 s (the distance matrices and the first
    /// start of the local search), and after 0.1 s on 1,000 points.
    ///
    /// ```
    /// use treelb_apps::tsp::{AscentParams, Tsp, TspSearch};
    /// let tsp = Tsp::random_euclidean(60, 1000.0, 4);
    /// let stopped = TspSearch::with_params_until(&tsp, AscentParams::for_n(60), true, &|| true);
    /// assert!(stopped.root_stopped());
    /// let bound = stopped.root_cuts().unwrap().bound;
    /// let (length, _) = stopped.incumbent.into_best().unwrap();
    /// assert!(bound <= length as f64);
    /// ```
    pub fn with_params_until(tsp: &Tsp, params: AscentParams, seeded: bool, stop: &dyn Fn() -> bool) -> Self {
        let poll = super::Poll::new(stop);
        let n = tsp.n();
        let dist: Vec<i64> = (0..n * n).map(|k| tsp.dist(k / n, k % n)).collect();
        let cost: Vec<f64> = dist.iter().map(|&d| d as f64).collect();
        let incumbent = Incumbent::new(Sense::Minimize);
        let mut target = None;
        if seeded
            && let Some((length, tour)) =
                heuristic::improved_tour_until(tsp, 16, heuristic::kicks_for(n), &|| poll.stop())
        {
            target = Some(length as f64);
            incumbent.offer(length, || tour);
        }
        // Unseeded, the step size still needs an estimate of the optimum:
        // a nearest-neighbour tour's length (not offered).
        let target = target.unwrap_or_else(|| heuristic::nearest_neighbour_length(tsp).max(1) as f64);
        let mut search = TspSearch {
            n,
            cost,
            dist,
            fixed: tsp.fixed_edges.clone(),
            target,
            params,
            combs: Vec::new(),
            root_pi: None,
            cuts: None,
            root_stopped: false,
            incumbent,
        };
        if (params.cut_rounds > 0 || params.lp_rounds > 0) && n >= MIN_CUT_N {
            // The cuts are valid for every tour, with or without fixed
            // edges: the root's relaxation ignores those.
            let found = cuts::relax_and_cut(n, &search.cost, target, &params, &poll);
            let subtours = found.combs.iter().filter(|c| c.is_subtour()).count();
            search.cuts = Some(RootCuts {
                held_karp: found.held_karp,
                bound: found.bound,
                combs: found.combs.len() - subtours,
                subtours,
            });
            search.combs = found.combs;
            search.root_pi = Some(Arc::from(found.multipliers));
        }
        search.root_stopped = poll.stopped();
        search
    }

    /// Whether the root phase was stopped before it was done (see
    /// [`with_params_until`](Self::with_params_until)).
    pub fn root_stopped(&self) -> bool {
        self.root_stopped
    }

    /// What the cutting planes found at the root (`None` if they did not
    /// run).
    pub fn root_cuts(&self) -> Option<RootCuts> {
        self.cuts
    }

    /// The number of nodes of the instance.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The schedule of the subgradient ascent.
    pub fn params(&self) -> AscentParams {
        self.params
    }

    /// The Held–Karp bound of the root (the ascent with the root's
    /// schedule and no pruning), rounded up; `None` if the fixed edges
    /// allow no tour.
    pub fn root_bound(&self) -> Option<i64> {
        self.root_bound_until(&|| false)
    }

    /// [`root_bound`](Self::root_bound) with an ascent that asks `stop`
    /// before each of its steps but the first (each `O(n²)`); once it says
    /// `true`, the best bound reached so far, still a lower bound on every
    /// tour. After a [stopped](Self::root_stopped) root phase, the bound
    /// that phase reached, without another ascent.
    pub fn root_bound_until(&self, stop: &dyn Fn() -> bool) -> Option<i64> {
        if self.root_stopped
            && let Some(cuts) = self.cuts
        {
            // No second ascent: the bound the stopped root phase reached.
            return Some(ceil(cuts.bound));
        }
        if self.n <= 3 {
            return self.trivial_tour().map(|(l, _)| l);
        }
        SCRATCH.with_borrow_mut(|s| {
            let root = self.root();
            match self.implied(root.decisions.as_deref(), s) {
                Implied::Infeasible => None,
                Implied::Tour(t) => Some(self.length(&t)),
                Implied::Open => {
                    self.load(s, None);
                    match self.ascent(s, true, false, Some(stop)) {
                        Ascent::Pruned => None,
                        Ascent::Tour(_, bound) => Some(ceil(bound)),
                        Ascent::Branch(bound) => Some(ceil(bound)),
                    }
                }
            }
        })
    }

    fn trivial_tour(&self) -> Option<(i64, Vec<u32>)> {
        let tour: Vec<u32> = (0..self.n as u32).collect();
        Some((self.length(&tour), tour))
    }

    #[inline]
    fn d(&self, a: u32, b: u32) -> i64 {
        self.dist[a as usize * self.n + b as usize]
    }

    fn length(&self, tour: &[u32]) -> i64 {
        let n = tour.len();
        (0..n).map(|k| self.d(tour[k], tour[(k + 1) % n])).sum()
    }

    /// Offers a tour.
    fn offer(&self, tour: Vec<u32>) {
        let length = self.length(&tour);
        if self.incumbent.can_improve(length) {
            self.incumbent.offer(length, || heuristic::normalise(tour));
        }
    }

    /// Loads a node's multipliers (the degrees', then the combs'; `None`:
    /// the root's) into `s.pi`, `s.mu` and the edge costs `s.cost`.
    fn load(&self, s: &mut Scratch, multipliers: Option<&[f64]>) {
        let n = self.n;
        let all = multipliers.or(self.root_pi.as_deref());
        s.pi.clear();
        s.mu.clear();
        match all {
            Some(m) => {
                s.pi.extend_from_slice(&m[..n]);
                s.mu.extend_from_slice(&m[n..]);
            }
            None => s.pi.resize(n, 0.0),
        }
        s.mu.resize(self.combs.len(), 0.0);
        s.cost.clone_from(&self.cost);
        for (comb, &mu) in self.combs.iter().zip(&s.mu) {
            if mu != 0.0 {
                comb.add(n, &mut s.cost, mu);
            }
        }
    }

    /// Sets the combs' multipliers to `s.best_mu`, with the edge costs.
    fn restore_best_mu(&self, s: &mut Scratch) {
        for (c, comb) in self.combs.iter().enumerate() {
            let delta = s.best_mu[c] - s.mu[c];
            if delta != 0.0 {
                comb.add(self.n, &mut s.cost, delta);
                s.mu[c] = s.best_mu[c];
            }
        }
    }

    /// Fills `s.state` and `s.inc` from the node's decisions and derives
    /// what they imply, to a fixed point:
    ///
    /// * a node with two included edges loses its other edges;
    /// * a path of included edges through fewer than all nodes may not be
    ///   closed (its closing edge is excluded); one through all nodes is
    ///   the tour; a cycle through fewer is infeasible;
    /// * a node left with fewer than two edges is infeasible, one with
    ///   exactly two keeps both (they are included).
    fn implied(&self, decisions: Option<&Decision>, s: &mut Scratch) -> Implied {
        let n = self.n;
        s.state.clear();
        s.state.resize(n * n, FREE);
        s.inc.clear();
        s.inc.resize(n, [u32::MAX; 2]);
        let mut included: Vec<(u32, u32)> = self.fixed.clone();
        let exclude = |s: &mut Scratch, a: u32, b: u32| {
            s.state[a as usize * n + b as usize] = OUT;
            s.state[b as usize * n + a as usize] = OUT;
        };
        let mut link = decisions;
        while let Some(d) = link {
            match &d.step {
                &Step::Edge { a, b, include: true } => included.push((a, b)),
                &Step::Edge { a, b, include: false } => exclude(s, a, b),
                Step::Fix { out, inc } => {
                    out.iter().for_each(|&(a, b)| exclude(s, a, b));
                    included.extend_from_slice(inc);
                }
            }
            link = d.prev.as_deref();
        }
        let deg = |inc: &[u32; 2]| inc.iter().filter(|&&x| x != u32::MAX).count();
        let mut seen = vec![false; n];
        loop {
            for (a, b) in included.drain(..) {
                if !Self::include(s, n, a, b) {
                    return Implied::Infeasible;
                }
            }
            // Walk the paths of included edges from their ends.
            seen.iter_mut().for_each(|x| *x = false);
            for start in 0..n {
                if seen[start] || deg(&s.inc[start]) != 1 {
                    continue;
                }
                let mut len = 1;
                seen[start] = true;
                let (mut prev, mut at) = (start as u32, s.inc[start][0]);
                loop {
                    seen[at as usize] = true;
                    len += 1;
                    let [x, y] = s.inc[at as usize];
                    let next = if x != prev { x } else { y };
                    if next == u32::MAX || (x == prev && y == u32::MAX) {
                        break;
                    }
                    (prev, at) = (at, next);
                }
                let end = at as usize;
                if len == n {
                    return if s.state[start * n + end] == OUT {
                        Implied::Infeasible
                    } else {
                        Implied::Tour(self.walk(s, start as u32))
                    };
                }
                // The edge that would close the path early (a path of one
                // edge is closed by that edge itself: nothing to exclude).
                if len > 2 {
                    s.state[start * n + end] = OUT;
                    s.state[end * n + start] = OUT;
                }
            }
            // What is left with included edges lies on cycles.
            if let Some(start) = (0..n).find(|&v| !seen[v] && deg(&s.inc[v]) > 0) {
                let cycle = self.walk(s, start as u32);
                return if cycle.len() == n { Implied::Tour(cycle) } else { Implied::Infeasible };
            }
            // A node with two included edges has no other edge; one with
            // two edges left keeps them.
            for v in 0..n {
                let row = v * n;
                if deg(&s.inc[v]) == 2 {
                    for u in 0..n {
                        if s.state[row + u] == FREE && u != v {
                            s.state[row + u] = OUT;
                            s.state[u * n + v] = OUT;
                        }
                    }
                    continue;
                }
                let mut left = [u32::MAX; 2];
                let mut count = 0;
                for u in 0..n {
                    if u != v && s.state[row + u] != OUT {
                        if count < 2 {
                            left[count] = u as u32;
                        }
                        count += 1;
                    }
                }
                if count < 2 {
                    return Implied::Infeasible;
                }
                if count == 2 {
                    for u in left {
                        if s.state[row + u as usize] == FREE {
                            included.push((v as u32, u));
                        }
                    }
                }
            }
            if included.is_empty() {
                return Implied::Open;
            }
        }
    }

    /// Includes edge `{a, b}` in `s`; `false` if that is infeasible (the
    /// edge is excluded, or a node would get a third included edge).
    fn include(s: &mut Scratch, n: usize, a: u32, b: u32) -> bool {
        let (ai, bi) = (a as usize, b as usize);
        match s.state[ai * n + bi] {
            IN => return true,
            OUT => return false,
            _ => {}
        }
        s.state[ai * n + bi] = IN;
        s.state[bi * n + ai] = IN;
        for (v, w) in [(ai, b), (bi, a)] {
            match s.inc[v] {
                [u32::MAX, _] => s.inc[v][0] = w,
                [_, u32::MAX] => s.inc[v][1] = w,
                _ => return false,
            }
        }
        true
    }

    /// Whether the best 1-tree of `s` satisfies its states: none of its
    /// edges excluded, every included edge among them.
    fn tree_agrees(s: &Scratch, n: usize) -> bool {
        let tree = (s.best_parent.iter().enumerate().skip(2))
            .map(|(u, &p)| (u, p as usize))
            .chain(s.best_zero.iter().map(|&z| (0, z as usize)));
        let mut included_in_tree = 0;
        for (a, b) in tree {
            match s.state[a * n + b] {
                OUT => return false,
                IN => included_in_tree += 1,
                _ => {}
            }
        }
        let included = s.inc.iter().flatten().filter(|&&x| x != u32::MAX).count() / 2;
        included_in_tree == included
    }

    /// The nodes along the included edges from `start` (a path end or a
    /// node on a cycle), in order.
    fn walk(&self, s: &Scratch, start: u32) -> Vec<u32> {
        let mut out = vec![start];
        let (mut prev, mut at) = (start, s.inc[start as usize][0]);
        while at != u32::MAX && at != start {
            out.push(at);
            let [x, y] = s.inc[at as usize];
            let next = if x != prev { x } else { y };
            if x == prev && y == u32::MAX {
                break;
            }
            (prev, at) = (at, next);
        }
        out
    }

    /// Lists the edges among nodes `1..n` that the states allow, for
    /// [`Self::one_tree`] (the states do not change during an ascent).
    fn build_adjacency(&self, s: &mut Scratch) {
        let n = self.n;
        let Scratch { state, start, adj, adj_cost, cost, .. } = s;
        start.clear();
        adj.clear();
        adj_cost.clear();
        start.push(0);
        for v in 0..n {
            if v >= 1 {
                let row = v * n;
                for u in 1..n {
                    let st = state[row + u];
                    if u != v && st != OUT {
                        adj.push(u as u32);
                        adj_cost.push(if st == IN { cost[row + u] - FORCE } else { cost[row + u] });
                    }
                }
            }
            start.push(adj.len() as u32);
        }
    }

    /// Copies `s.cost` into the listed edges' costs (after the combs'
    /// multipliers moved).
    fn refresh_costs(s: &mut Scratch, n: usize) {
        let Scratch { state, start, adj, adj_cost, cost, .. } = s;
        for v in 1..n {
            let row = v * n;
            let (lo, hi) = (start[v] as usize, start[v + 1] as usize);
            for (&u, c) in adj[lo..hi].iter().zip(&mut adj_cost[lo..hi]) {
                let u = u as usize;
                *c = if state[row + u] == IN { cost[row + u] - FORCE } else { cost[row + u] };
            }
        }
    }

    /// The minimum 1-tree under the edge states and multipliers `s.pi`
    /// (with the edges listed by [`Self::build_adjacency`]): fills
    /// `s.parent`, `s.zero`, `s.degree`; returns `L(π)` or `None` if the
    /// states allow no 1-tree.
    fn one_tree(&self, s: &mut Scratch) -> Option<f64> {
        let n = self.n;
        let Scratch {
            state, pi, mu, cost, parent, zero, degree, key, done, start, adj, adj_cost, left, ..
        } = s;
        parent.clear();
        parent.resize(n, u32::MAX);
        key.clear();
        key.resize(n, f64::INFINITY);
        done.clear();
        done.resize(n, false);
        degree.clear();
        degree.resize(n, 0);
        // Prim on nodes 1..n from node 1 over the listed edges; included
        // edges have keys below every real cost, so the tree contains them
        // all (they form paths).
        let mut total = 0.0;
        let mut at = 1;
        done[1] = true;
        left.clear();
        left.extend(2..n as u32);
        for _ in 2..n {
            let base = pi[at];
            let (lo, hi) = (start[at] as usize, start[at + 1] as usize);
            for (&j, &c) in adj[lo..hi].iter().zip(&adj_cost[lo..hi]) {
                let j = j as usize;
                if done[j] {
                    continue;
                }
                let k = c + base + pi[j];
                if k < key[j] {
                    key[j] = k;
                    parent[j] = at as u32;
                }
            }
            // The cheapest key among the nodes left (the smallest node on
            // ties, as a scan of all nodes in order would find: `left`
            // stays in increasing order, so the first minimum is it).
            let mut best = f64::INFINITY;
            let mut slot = usize::MAX;
            for (i, &j) in left.iter().enumerate() {
                let k = key[j as usize];
                if k < best {
                    best = k;
                    slot = i;
                }
            }
            if slot == usize::MAX {
                return None;
            }
            let next = left.remove(slot) as usize;
            done[next] = true;
            let p = parent[next] as usize;
            total += cost[p * n + next] + pi[p] + pi[next];
            degree[p] += 1;
            degree[next] += 1;
            at = next;
        }
        // Node 0: its two cheapest edges, included ones first.
        let (mut k1, mut k2) = (f64::INFINITY, f64::INFINITY);
        let (mut v1, mut v2) = (u32::MAX, u32::MAX);
        for j in 1..n {
            let st = state[j];
            if st == OUT {
                continue;
            }
            let mut k = cost[j] + pi[j];
            if st == IN {
                k -= FORCE;
            }
            if k < k1 {
                (k2, v2) = (k1, v1);
                (k1, v1) = (k, j as u32);
            } else if k < k2 {
                (k2, v2) = (k, j as u32);
            }
        }
        if v2 == u32::MAX {
            return None;
        }
        *zero = [v1, v2];
        for v in [v1, v2] {
            total += cost[v as usize] + pi[0] + pi[v as usize];
            degree[v as usize] += 1;
        }
        degree[0] = 2;
        let combs: f64 = self.combs.iter().zip(mu.iter()).map(|(c, &m)| m * c.rhs()).sum();
        Some(total - 2.0 * pi.iter().sum::<f64>() - combs)
    }

    /// The subgradient ascent from `s.pi`; on `Branch` the best multipliers
    /// and 1-tree are in `s.best_*`. With `prune`, it stops as soon as the
    /// bound reaches the incumbent; with `stop`, once it says `true` (asked
    /// before every step but the first).
    fn ascent(&self, s: &mut Scratch, root: bool, prune: bool, stop: Option<&dyn Fn() -> bool>) -> Ascent {
        let n = self.n;
        let p = &self.params;
        let (steps, mut lambda, patience) = if root {
            (p.root_steps, p.root_lambda, p.root_patience)
        } else {
            (p.node_steps, p.node_lambda, p.patience)
        };
        self.build_adjacency(s);
        let mut best = f64::NEG_INFINITY;
        let mut stale = 0;
        s.dir.clear();
        s.dir.resize(n, 0.0);
        for step in 0..steps.max(1) {
            if step > 0 && stop.is_some_and(|stop| stop()) {
                break;
            }
            let Some(l) = self.one_tree(s) else {
                // No 1-tree satisfies the constraints: no tour either.
                return Ascent::Pruned;
            };
            if l > best + 1e-9 {
                best = l;
                stale = 0;
                s.best_pi.clone_from(&s.pi);
                s.best_mu.clone_from(&s.mu);
                s.best_parent.clone_from(&s.parent);
                s.best_degree.clone_from(&s.degree);
                s.best_zero = s.zero;
            } else {
                stale += 1;
                if stale >= patience {
                    lambda /= 2.0;
                    stale = 0;
                }
            }
            if prune && !self.incumbent.can_improve(ceil(best)) {
                return Ascent::Pruned;
            }
            let degrees: i64 = s.degree.iter().map(|&d| i64::from((d - 2) * (d - 2))).sum();
            let combs = self.comb_subgradient(s);
            if degrees == 0 {
                let tour = tree_tour(&s.parent, s.zero, n);
                if combs == 0.0 {
                    return Ascent::Tour(tour, l);
                }
                // The combs with slack keep the bound below this tour.
                self.offer(tour);
            }
            if lambda < p.min_lambda || step + 1 == steps {
                break;
            }
            let norm = degrees as f64 + combs;
            let t = lambda * (self.target - l).max(1e-9 * self.target.abs().max(1.0)) / norm;
            for v in 0..n {
                let g = f64::from(s.degree[v] - 2);
                s.dir[v] = 0.7 * g + 0.3 * s.dir[v];
                s.pi[v] += t * s.dir[v];
            }
            if combs > 0.0 {
                for (c, comb) in self.combs.iter().enumerate() {
                    let new = (s.mu[c] + t * s.g_mu[c]).max(0.0);
                    if new != s.mu[c] {
                        comb.add(n, &mut s.cost, new - s.mu[c]);
                        s.mu[c] = new;
                    }
                }
                Self::refresh_costs(s, n);
            }
        }
        self.restore_best_mu(s);
        Ascent::Branch(best)
    }

    /// The combs' subgradient `a x − b` at the current 1-tree, projected
    /// (a comb at `μ = 0` that the tree satisfies does not move), into
    /// `s.g_mu`; returns its squared norm.
    fn comb_subgradient(&self, s: &mut Scratch) -> f64 {
        if self.combs.is_empty() {
            return 0.0;
        }
        let Scratch { parent, zero, inside, g_mu, mu, .. } = s;
        inside.clear();
        inside.resize(self.n, false);
        g_mu.clear();
        let mut norm = 0.0;
        for (comb, &m) in self.combs.iter().zip(mu.iter()) {
            let mut g = comb.lhs_tree(parent, *zero, inside) - comb.rhs();
            if m <= 0.0 && g < 0.0 {
                g = 0.0;
            }
            norm += g * g;
            g_mu.push(g);
        }
        norm
    }
}

impl TspSearch {
    /// Reduced-cost elimination (Volgenant and Jonker, 1982): the free
    /// edges outside the best 1-tree (in `s.best_*`, of value `l`) that no
    /// tour improving on the incumbent can contain.
    ///
    /// Why it is sound: the cheapest 1-tree that contains a non-tree edge
    /// `{i, j}` (`i, j ≥ 1`) is the best one with `{i, j}` added and the
    /// most expensive removable edge of the cycle it closes taken out (the
    /// exchange property of spanning trees; included edges are not
    /// removable); for an edge `{0, j}`, node 0's dearer free edge makes
    /// way. So `l + c'ᵢⱼ − max` is a Lagrangian lower bound on every tour
    /// of the node through `{i, j}`, under the same multipliers; if it
    /// cannot beat the incumbent, no tour through the edge is needed — the
    /// same argument as pruning a node. The incumbent only improves, so
    /// the edge stays useless in the whole subtree.
    fn eliminate(&self, s: &Scratch, l: f64) -> (Edges, Edges) {
        let n = self.n;
        let pi = &s.best_pi;
        let reduced = |a: usize, b: usize| s.cost[a * n + b] + pi[a] + pi[b];
        let mut out = Vec::new();
        let hopeless = |bound: f64| !self.incumbent.can_improve(ceil(bound));
        // The tree on 1..n: adjacency lists.
        let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
        for v in 2..n {
            let p = s.best_parent[v] as usize;
            adj[v].push(p as u32);
            adj[p].push(v as u32);
        }
        // For each source r, the dearest removable edge on the tree path to
        // every other node (−∞: none).
        let mut worst = vec![f64::NEG_INFINITY; n];
        let mut stack: Vec<(u32, u32)> = Vec::with_capacity(n);
        for r in 1..n {
            worst[r] = f64::NEG_INFINITY;
            stack.clear();
            stack.push((r as u32, u32::MAX));
            while let Some((v, from)) = stack.pop() {
                let v = v as usize;
                for &u in &adj[v] {
                    if u == from {
                        continue;
                    }
                    let u = u as usize;
                    let w = if s.state[v * n + u] == IN { f64::NEG_INFINITY } else { reduced(v, u) };
                    worst[u] = worst[v].max(w);
                    stack.push((u as u32, v as u32));
                }
            }
            for (j, &w) in worst.iter().enumerate().skip(r + 1) {
                if s.state[r * n + j] != FREE {
                    continue;
                }
                let (pr, pj) = (s.best_parent[r] as usize, s.best_parent[j] as usize);
                if pr == j || pj == r {
                    continue; // a tree edge
                }
                if hopeless(l + reduced(r, j) - w) {
                    out.push((r as u32, j as u32));
                }
            }
        }
        // Node 0: its dearer free edge makes way.
        let [z1, z2] = s.best_zero.map(|z| z as usize);
        let removable: Vec<f64> =
            [z1, z2].iter().filter(|&&z| s.state[z] != IN).map(|&z| reduced(0, z)).collect();
        if let Some(worst0) = removable.into_iter().reduce(f64::max) {
            for j in 1..n {
                if j != z1 && j != z2 && s.state[j] == FREE && hopeless(l + reduced(0, j) - worst0) {
                    out.push((0, j as u32));
                }
            }
        }
        // Fixing: a free tree edge whose cheapest replacement (the cheapest
        // listed non-tree edge whose tree path runs through it; for node 0,
        // its third cheapest edge) makes the 1-tree too dear is in every
        // improving tour, by the same exchange argument.
        let mut inc = Vec::new();
        let mut depth = vec![0u32; n];
        stack.clear();
        stack.push((1, u32::MAX));
        while let Some((v, from)) = stack.pop() {
            for &u in &adj[v as usize] {
                if u != from {
                    depth[u as usize] = depth[v as usize] + 1;
                    stack.push((u, v));
                }
            }
        }
        let mut edges: Vec<(f64, u32, u32)> = Vec::new();
        for i in 1..n {
            let (lo, hi) = (s.start[i] as usize, s.start[i + 1] as usize);
            for &j in &s.adj[lo..hi] {
                let j = j as usize;
                if j > i && s.best_parent[i] as usize != j && s.best_parent[j] as usize != i {
                    edges.push((reduced(i, j), i as u32, j as u32));
                }
            }
        }
        edges.sort_by(|x, y| x.0.total_cmp(&y.0));
        // `up[v]`: the nearest ancestor-or-self of `v` whose edge to its
        // parent has no replacement yet (path-compressed).
        let mut up: Vec<u32> = (0..n as u32).collect();
        let mut repl = vec![f64::INFINITY; n];
        for &(c, i, j) in &edges {
            let (mut a, mut b) = (super::find(&mut up, i), super::find(&mut up, j));
            while a != b {
                if depth[a as usize] < depth[b as usize] {
                    std::mem::swap(&mut a, &mut b);
                }
                repl[a as usize] = c;
                up[a as usize] = s.best_parent[a as usize];
                a = super::find(&mut up, a);
            }
        }
        for (v, &r) in repl.iter().enumerate().skip(2) {
            let p = s.best_parent[v] as usize;
            if s.state[v * n + p] == FREE && hopeless(l - reduced(v, p) + r) {
                inc.push((v as u32, p as u32));
            }
        }
        let third = (1..n)
            .filter(|&j| j != z1 && j != z2 && s.state[j] != OUT)
            .map(|j| reduced(0, j))
            .fold(f64::INFINITY, f64::min);
        for z in [z1, z2] {
            if s.state[z] == FREE && hopeless(l - reduced(0, z) + third) {
                inc.push((0, z as u32));
            }
        }
        (out, inc)
    }
}

impl crate::bnb::NodeBound for TspSearch {
    /// The parent's lower bound (none at the root).
    fn node_bound(&self, node: &TspNode) -> Option<i64> {
        (node.bound != i64::MIN).then_some(node.bound)
    }
}

/// `⌈x⌉` as an integer bound, with a tolerance for rounding errors.
fn ceil(x: f64) -> i64 {
    (x - 1e-6 * x.abs().max(1.0)).ceil() as i64
}

/// The tour of a 1-tree whose nodes all have degree 2.
fn tree_tour(parent: &[u32], zero: [u32; 2], n: usize) -> Vec<u32> {
    let mut adj = vec![[u32::MAX; 2]; n];
    let mut link = |a: u32, b: u32| {
        for (v, w) in [(a, b), (b, a)] {
            let slot = &mut adj[v as usize];
            if slot[0] == u32::MAX {
                slot[0] = w;
            } else {
                slot[1] = w;
            }
        }
    };
    for (v, &p) in parent.iter().enumerate().skip(2) {
        link(v as u32, p);
    }
    link(0, zero[0]);
    link(0, zero[1]);
    let mut tour = Vec::with_capacity(n);
    let (mut prev, mut at) = (u32::MAX, 0u32);
    for _ in 0..n {
        tour.push(at);
        let [x, y] = adj[at as usize];
        let next = if x != prev { x } else { y };
        (prev, at) = (at, next);
    }
    tour
}

impl Search for TspSearch {
    type Node = TspNode;
    type Output = BnbStats;

    fn root(&self) -> TspNode {
        TspNode { decisions: None, pi: None, bound: i64::MIN, depth: 0 }
    }

    fn keeps_incumbent(&self) -> bool {
        true
    }

    fn expand(&self, node: TspNode, acc: &mut BnbStats, children: &mut Children<'_, TspNode>) {
        if !self.incumbent.can_improve(node.bound) {
            acc.pruned += 1;
            return;
        }
        let n = self.n;
        if n <= 3 {
            // Every tour is the same cycle (and contains every edge).
            acc.branched += 1;
            if let Some((_, tour)) = self.trivial_tour() {
                self.offer(tour);
            }
            return;
        }
        SCRATCH.with_borrow_mut(|s| {
            self.load(s, node.pi.as_deref());
            // Bound the node; while reduced costs fix edges, derive what the
            // fixes imply and bound again (from the best multipliers).
            let mut base = node.decisions.clone();
            let mut root = node.pi.is_none();
            let mut bound = node.bound;
            let mut last: Option<f64> = None;
            let mut rounds = 0;
            loop {
                match self.implied(base.as_deref(), s) {
                    Implied::Infeasible => {
                        acc.pruned += 1;
                        return;
                    }
                    Implied::Tour(tour) => {
                        acc.branched += 1;
                        return self.offer(tour);
                    }
                    Implied::Open => {}
                }
                if last.is_some() && Self::tree_agrees(s, n) {
                    // The fixes and what they imply left the best 1-tree
                    // feasible (they excluded only non-tree edges and
                    // included only tree edges): it stands, and so does
                    // the branching. Counting the included edges does not
                    // tell: what the fixes imply is derived afresh, and an
                    // edge derived before may not be derived again while
                    // another is, so a tree edge may be excluded with the
                    // count unchanged.
                    break;
                }
                let l = match self.ascent(s, root, true, None) {
                    Ascent::Pruned => {
                        acc.pruned += 1;
                        return;
                    }
                    Ascent::Tour(tour, l) => {
                        let length = self.length(&tour);
                        self.offer(tour);
                        if !self.incumbent.breaks_ties() && ceil(l) >= length {
                            // The tour is the best of the node.
                            acc.branched += 1;
                            return;
                        }
                        // The least optimal tour is sought (this tour is the
                        // best of the node, but others of the same length may
                        // be smaller), or blossoms with slack leave the bound
                        // below the tour: branch on its 1-tree (the current
                        // one) all the same.
                        s.best_pi.clone_from(&s.pi);
                        s.best_mu.clone_from(&s.mu);
                        s.best_parent.clone_from(&s.parent);
                        s.best_degree.clone_from(&s.degree);
                        s.best_zero = s.zero;
                        l
                    }
                    Ascent::Branch(l) => l,
                };
                bound = bound.max(ceil(l));
                root = false;
                last = Some(l);
                let (out, inc) = self.eliminate(s, l);
                if out.is_empty() && inc.is_empty() {
                    break;
                }
                let step = Step::Fix { out: out.into(), inc: inc.into() };
                base = Some(Arc::new(Decision { step, prev: base }));
                rounds += 1;
                if rounds > MAX_ROUNDS {
                    // The fixes go to the children; the edges branched on
                    // below may be among them (such a child is infeasible).
                    break;
                }
                s.pi.clone_from(&s.best_pi);
            }
            acc.branched += 1;
            // Branch at the node of highest degree in the best 1-tree (in a
            // tour, every degree is 2: at the first node with a free tree
            // edge).
            let degree = &s.best_degree;
            let v = match (0..n).max_by_key(|&v| (degree[v], std::cmp::Reverse(v))) {
                Some(v) if degree[v] > 2 => v,
                _ => {
                    let tree: Vec<(usize, usize)> = (s.best_parent.iter().enumerate().skip(2))
                        .map(|(u, &p)| (u, p as usize))
                        .chain(s.best_zero.iter().map(|&z| (0, z as usize)))
                        .collect();
                    let has_free = |v: usize| {
                        tree.iter().any(|&(a, b)| (a == v || b == v) && s.state[v * n + a + b - v] == FREE)
                    };
                    match (0..n).find(|&v| has_free(v)) {
                        Some(v) => v,
                        // Every edge of the tour is decided: it was the only one.
                        None => return,
                    }
                }
            };
            let mut free: Vec<u32> = Vec::with_capacity(degree[v] as usize);
            let mut tree_edge = |a: usize, b: usize| {
                if a == v || b == v {
                    let u = if a == v { b } else { a };
                    if s.state[v * n + u] == FREE {
                        free.push(u as u32);
                    }
                }
            };
            for (u, &p) in s.best_parent.iter().enumerate().skip(2) {
                tree_edge(u, p as usize);
            }
            tree_edge(0, s.best_zero[0] as usize);
            tree_edge(0, s.best_zero[1] as usize);
            // The cheapest free tree edges first (by reduced cost).
            let pi = &s.best_pi;
            let reduced = |u: u32| s.cost[v * n + u as usize] + pi[v] + pi[u as usize];
            free.sort_by(|&a, &b| reduced(a).total_cmp(&reduced(b)).then(a.cmp(&b)));
            let included = s.inc[v].iter().filter(|&&x| x != u32::MAX).count();
            debug_assert!(Self::tree_agrees(s, n), "the best 1-tree satisfies the node's states");
            debug_assert!(
                !free.is_empty() && included <= 1 && (free.len() >= 2 || degree[v] == 2),
                "a node of degree > 2 has free tree edges"
            );
            let pi: Arc<[f64]> = s.best_pi.iter().chain(&s.best_mu).copied().collect();
            let child = |decisions: Option<Arc<Decision>>| TspNode {
                decisions,
                pi: Some(Arc::clone(&pi)),
                bound,
                depth: node.depth + 1,
            };
            let decide = |a: u32, include: bool, prev: &Option<Arc<Decision>>| {
                Some(Arc::new(Decision {
                    step: Step::Edge { a: v as u32, b: a, include },
                    prev: prev.clone(),
                }))
            };
            // Pushed last, expanded first: the child that includes the most
            // edges, a dive towards a tour.
            let e1 = free[0];
            let with_e1 = decide(e1, true, &base);
            children.push(child(decide(e1, false, &base)));
            if let (0, Some(&e2)) = (included, free.get(1)) {
                children.push(child(decide(e2, false, &with_e1)));
                children.push(child(decide(e2, true, &with_e1)));
            } else {
                children.push(child(with_e1));
            }
        });
    }

    fn serialize_stack<Z: serde::Serializer>(
        &self,
        stack: &[Entry<TspNode>],
        serializer: Z,
    ) -> Result<Z::Ok, Z::Error> {
        chain::serialize_stack::<Decisions, _>(stack, serializer)
    }

    fn deserialize_stack<'de, D: serde::Deserializer<'de>>(
        &self,
        deserializer: D,
    ) -> Result<Vec<Entry<TspNode>>, D::Error> {
        chain::deserialize_stack::<Decisions, _>(deserializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// All tours of `n <= 8` nodes starting at 0.
    fn tours(n: usize) -> Vec<Vec<u32>> {
        fn rec(t: &mut Vec<u32>, used: &mut [bool], out: &mut Vec<Vec<u32>>) {
            if t.len() == used.len() {
                out.push(t.clone());
                return;
            }
            for v in 1..used.len() {
                if !used[v] {
                    used[v] = true;
                    t.push(v as u32);
                    rec(t, used, out);
                    t.pop();
                    used[v] = false;
                }
            }
        }
        let mut out = Vec::new();
        let mut used = vec![false; n];
        used[0] = true;
        rec(&mut vec![0], &mut used, &mut out);
        out
    }

    fn satisfies(node: &TspNode, tour: &[u32]) -> bool {
        let n = tour.len();
        let adjacent = |a: u32, b: u32| {
            (0..n).any(|k| (tour[k], tour[(k + 1) % n]) == (a, b) || (tour[k], tour[(k + 1) % n]) == (b, a))
        };
        let mut link = node.decisions.as_deref();
        while let Some(d) = link {
            match &d.step {
                &Step::Edge { a, b, include } if adjacent(a, b) != include => return false,
                Step::Fix { out, inc }
                    if out.iter().any(|&(a, b)| adjacent(a, b))
                        || !inc.iter().all(|&(a, b)| adjacent(a, b)) =>
                {
                    return false;
                }
                _ => {}
            }
            link = d.prev.as_deref();
        }
        true
    }

    #[test]
    fn every_bound_is_below_the_constrained_optimum() {
        for seed in 0..400 {
            // From 8 nodes on, with combs at the root.
            for n in [5, 6, 7, 8].into_iter().filter(|&n| n < 8 || seed < 40) {
                let tsp = Tsp::random_matrix(n, 50, seed);
                let search = TspSearch::with_params(&tsp, AscentParams::for_n(n), false);
                let all = tours(n);
                let mut stack = vec![search.root()];
                while let Some(node) = stack.pop() {
                    let best =
                        all.iter().filter(|t| satisfies(&node, t)).map(|t| tsp.tour_length(t).unwrap()).min();
                    if let Some(best) = best {
                        assert!(node.bound <= best, "seed {seed} n {n}: bound {} > {best}", node.bound);
                    }
                    let mut acc = BnbStats::default();
                    let children = treelb::search::expand_one(&search, node.clone(), &mut acc);
                    // The children partition the node's tours, less those
                    // eliminated because they cannot beat the incumbent.
                    for t in all.iter().filter(|t| satisfies(&node, t)) {
                        let owners = children.iter().filter(|c| satisfies(c, t)).count();
                        let hopeless = !search.incumbent.can_improve(tsp.tour_length(t).unwrap());
                        assert!(
                            children.is_empty() || owners == 1 || (owners == 0 && hopeless),
                            "seed {seed} n {n}: {owners} owners of {t:?}"
                        );
                    }
                    if children.is_empty()
                        && let Some(best) = best
                    {
                        let incumbent = search.incumbent.best().unwrap();
                        assert!(
                            incumbent <= best,
                            "seed {seed} n {n}: leaf with best {best}, incumbent {incumbent}"
                        );
                    }
                    stack.extend(children);
                }
            }
        }
    }
}
