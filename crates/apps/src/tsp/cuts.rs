//! Cutting planes dualized in the Held–Karp Lagrangian: subtour, blossom
//! and comb inequalities, each with its own multiplier.
//!
//! The Held–Karp bound is the optimum of the subtour LP; where the optimal
//! tours need more than that (pr76: 2.8 % above it), the branch and bound
//! closes the gap by branching alone. Three families of inequalities that
//! every tour satisfies, all written `a x ≤ b` with `a x` a sum of
//! `x(E(S))` (the edges with both ends in `S`) over a list of node sets:
//!
//! * a *subtour inequality* `x(E(S)) ≤ |S| − 1` for a set `S` of `2` to
//!   `n − 1` nodes: a tour restricted to `S` is a set of paths;
//! * a *blossom*: a node set `H` (the handle) and an odd number `k ≥ 3` of
//!   edges `T` (the teeth), each with exactly one end in `H`, give
//!
//!   ```text
//!   x(E(H)) + Σ_{e ∈ T} x_e ≤ |H| + (k − 1) / 2
//!   ```
//!
//!   which every tour satisfies: add the degree equations of the nodes of
//!   `H`, `2 x(E(H)) + x(δ(H)) = 2|H|`, and `x_e ≤ 1` for `e ∈ T`, drop
//!   `x(δ(H) \ T) ≥ 0`, halve, and round the right side down to an
//!   integer (the left side is one for a tour): `|H| + (k − 1) / 2`. The
//!   teeth need not be disjoint for this argument;
//! * a *comb*: a handle `H` and an odd number `k ≥ 3` of pairwise disjoint
//!   teeth `T_j`, node sets each meeting `H` and its complement, give
//!   `x(E(H)) + Σ_j x(E(T_j)) ≤ |H| + Σ_j (|T_j| − 1) − (k + 1) / 2`
//!   (Chvátal 1973, Grötschel and Padberg 1979); a blossom with disjoint
//!   teeth is the comb whose teeth have two nodes.
//!
//! Each cut `c` gets a multiplier `μ_c ≥ 0`, and the Lagrangian becomes
//!
//! ```text
//! L(π, μ) = min over 1-trees x of Σ_e (c_e + π_i + π_j + Σ_c μ_c a_ce) x_e − 2 Σ π − Σ_c μ_c b_c
//! ```
//!
//! For every tour `x`, `c x ≥ c x + π (deg − 2) + μ (a x − b)` because the
//! degree terms vanish and the cut terms are not positive, and every tour
//! is a 1-tree, so `L(π, μ)` is a lower bound on every tour for every `π`
//! and every `μ ≥ 0` — whatever cuts are in the list and however they were
//! found. The ascent moves `π` by `deg − 2` and `μ` by `a_c x − b_c`
//! (projected onto `μ ≥ 0`), with the same step size.
//!
//! The cuts come from the root's LP ([`super::lp`]), which also gives the
//! multipliers: its dual solution, at which `L` equals the LP's value.
//! Without it (the LP off, or its simplex failing), relax-and-cut finds
//! combs on the average `x̄` of the 1-trees of the ascent — an estimate of
//! the subtour LP's optimal solution — by the odd-component heuristic of
//! Padberg and Hong (1980): the components of the edges with fractional
//! `x̄` are handles; the edges with the largest `x̄` leaving a handle,
//! pairwise disjoint, an odd number of them, are teeth; the comb is kept if
//! `x̄` violates it. Rounds of separation and ascent alternate until the
//! bound stalls.
//!
//! Every node of the search moves the cuts' multipliers too, from its
//! parent's (see `TspSearch`).

use super::search::AscentParams;
use super::{Poll, find};

/// A comb inequality `x(E(H)) + Σ_j x(E(T_j)) ≤ |H| + Σ_j (|T_j| − 1) −
/// (k + 1) / 2`: a handle `H` and an odd number `k ≥ 3` of pairwise
/// disjoint teeth `T_j`, each meeting `H` and its complement; or a blossom
/// (teeth are edges leaving `H`, possibly sharing an end outside it: the
/// same formula); or, with no teeth, the subtour inequality `x(E(H)) ≤
/// |H| − 1` (see the module's docs for why each is valid).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Comb {
    handle: Vec<u32>,
    teeth: Vec<Vec<u32>>,
}

impl Comb {
    /// The comb with handle `handle` and teeth `teeth` (each sorted, the
    /// teeth in order, so that equal combs compare equal).
    pub(super) fn new(mut handle: Vec<u32>, mut teeth: Vec<Vec<u32>>) -> Comb {
        handle.sort_unstable();
        teeth.iter_mut().for_each(|t| t.sort_unstable());
        teeth.sort_unstable();
        Comb { handle, teeth }
    }

    /// The subtour inequality `x(E(S)) ≤ |S| − 1`, as a comb with no
    /// teeth.
    pub(super) fn subtour(set: Vec<u32>) -> Comb {
        Comb::new(set, Vec::new())
    }

    /// Whether this is a subtour inequality (no teeth).
    pub(super) fn is_subtour(&self) -> bool {
        self.teeth.is_empty()
    }

    /// The right side `b` of the inequality `a x ≤ b`.
    pub(super) fn rhs(&self) -> f64 {
        if self.teeth.is_empty() {
            return self.handle.len() as f64 - 1.0;
        }
        let k = self.teeth.len() as f64;
        self.handle.len() as f64 + self.teeth.iter().map(|t| t.len() as f64 - 1.0).sum::<f64>()
            - (k + 1.0) / 2.0
    }

    pub(super) fn sets(&self) -> impl Iterator<Item = &[u32]> {
        std::iter::once(self.handle.as_slice()).chain(self.teeth.iter().map(Vec::as_slice))
    }

    /// Adds `delta` to the cost of every edge, once per set that holds it.
    pub(super) fn add(&self, n: usize, extra: &mut [f64], delta: f64) {
        for set in self.sets() {
            for (k, &a) in set.iter().enumerate() {
                for &b in &set[k + 1..] {
                    extra[a as usize * n + b as usize] += delta;
                    extra[b as usize * n + a as usize] += delta;
                }
            }
        }
    }

    /// `a x` for the edges `edges` (a 1-tree); `inside` is all `false` on
    /// entry and exit.
    pub(super) fn lhs(&self, edges: &[(u32, u32)], inside: &mut [bool]) -> f64 {
        let mut count = 0;
        for set in self.sets() {
            set.iter().for_each(|&v| inside[v as usize] = true);
            count += edges.iter().filter(|&&(a, b)| inside[a as usize] && inside[b as usize]).count();
            set.iter().for_each(|&v| inside[v as usize] = false);
        }
        count as f64
    }

    /// `a x` for the 1-tree with `parent` (`v`'s edge for `v ≥ 2`) and
    /// node 0's neighbours `zero`; `inside` is all `false` on entry and
    /// exit.
    pub(super) fn lhs_tree(&self, parent: &[u32], zero: [u32; 2], inside: &mut [bool]) -> f64 {
        let mut count = 0;
        for set in self.sets() {
            set.iter().for_each(|&v| inside[v as usize] = true);
            for &v in set {
                if v >= 2 {
                    count += usize::from(inside[parent[v as usize] as usize]);
                } else if v == 0 {
                    count += zero.iter().filter(|&&z| inside[z as usize]).count();
                }
            }
            set.iter().for_each(|&v| inside[v as usize] = false);
        }
        count as f64
    }

    /// The comb tightened on `x` (dense, symmetric, `n` nodes, with the
    /// degrees `deg` = [`degrees`]`(n, x)`, computed once for all the
    /// combs tightened on the same point): single
    /// nodes moved into or out of the handle or a tooth while each move
    /// makes the comb more violated, in the spirit of Concorde's
    /// `tighten` (Applegate, Bixby, Chvátal and Cook, 2006). `None` if no
    /// move helps, or for a subtour inequality or a blossom whose teeth
    /// share a node.
    ///
    /// In the form `x(δ(H)) + Σ_j x(δ(T_j)) ≥ 3k + 1` (the degree
    /// equations turn the comb of [`Comb`] into this, with twice its
    /// violation), adding `v` to a set `S` changes `x(δ(S))` by
    /// `x(δ(v)) − 2 x(v, S)`, and removing it by `2 x(v, S − v) − x(δ(v))`;
    /// the move with the largest decrease is made while one decreases it.
    /// Every move keeps a comb: the teeth stay pairwise disjoint (a node
    /// joins a tooth only from outside all teeth), each tooth keeps a node
    /// in the handle and one outside it, and the handle stays a nonempty
    /// proper subset. So the result is valid whatever `x` is; `x` only
    /// steers it.
    pub(super) fn tighten(&self, n: usize, x: &[f64], deg: &[f64]) -> Option<Comb> {
        let k = self.teeth.len();
        if k < 3 {
            return None;
        }
        const NONE: usize = usize::MAX;
        let mut in_h = vec![false; n];
        let mut tooth = vec![NONE; n];
        for &v in &self.handle {
            in_h[v as usize] = true;
        }
        for (j, t) in self.teeth.iter().enumerate() {
            for &v in t {
                if tooth[v as usize] != NONE {
                    return None;
                }
                tooth[v as usize] = j;
            }
        }
        let mut size_h = self.handle.len();
        // Per tooth, its nodes in and outside the handle.
        let mut t_in = vec![0usize; k];
        let mut t_out = vec![0usize; k];
        // `xs[s * n + v]` = x(v, S_s): set 0 the handle, set j + 1 tooth j.
        let mut xs = vec![0.0; (k + 1) * n];
        let join = |xs: &mut [f64], s: usize, v: usize, sign: f64| {
            let row = &x[v * n..v * n + n];
            for (to, &e) in xs[s * n..s * n + n].iter_mut().zip(row) {
                *to += sign * e;
            }
        };
        for v in 0..n {
            if in_h[v] {
                join(&mut xs, 0, v, 1.0);
            }
            if tooth[v] != NONE {
                join(&mut xs, tooth[v] + 1, v, 1.0);
                if in_h[v] {
                    t_in[tooth[v]] += 1;
                } else {
                    t_out[tooth[v]] += 1;
                }
            }
        }
        let mut moved = false;
        for _ in 0..4 * n {
            // (decrease, node, set, adding)
            let mut best: (f64, usize, usize, bool) = (-1e-9, NONE, 0, false);
            for v in 0..n {
                let j = tooth[v];
                // The handle.
                let d = if in_h[v] { 2.0 * xs[v] - deg[v] } else { deg[v] - 2.0 * xs[v] };
                let ok = if in_h[v] {
                    size_h > 1 && (j == NONE || t_in[j] > 1)
                } else {
                    size_h + 1 < n && (j == NONE || t_out[j] > 1)
                };
                if ok && d < best.0 {
                    best = (d, v, 0, !in_h[v]);
                }
                if j != NONE {
                    // Leaving its tooth.
                    let d = 2.0 * xs[(j + 1) * n + v] - deg[v];
                    let ok = if in_h[v] { t_in[j] > 1 } else { t_out[j] > 1 };
                    if ok && d < best.0 {
                        best = (d, v, j + 1, false);
                    }
                } else {
                    // Joining a tooth.
                    for t in 0..k {
                        let d = deg[v] - 2.0 * xs[(t + 1) * n + v];
                        if d < best.0 {
                            best = (d, v, t + 1, true);
                        }
                    }
                }
            }
            let (_, v, s, adding) = best;
            if v == NONE {
                break;
            }
            moved = true;
            join(&mut xs, s, v, if adding { 1.0 } else { -1.0 });
            if s == 0 {
                in_h[v] = adding;
                if adding {
                    size_h += 1;
                } else {
                    size_h -= 1;
                }
                let j = tooth[v];
                if j != NONE {
                    if adding {
                        t_in[j] += 1;
                        t_out[j] -= 1;
                    } else {
                        t_in[j] -= 1;
                        t_out[j] += 1;
                    }
                }
            } else {
                let j = s - 1;
                tooth[v] = if adding { j } else { NONE };
                let count = if in_h[v] { &mut t_in[j] } else { &mut t_out[j] };
                if adding {
                    *count += 1;
                } else {
                    *count -= 1;
                }
            }
        }
        if !moved {
            return None;
        }
        let handle: Vec<u32> = (0..n as u32).filter(|&v| in_h[v as usize]).collect();
        let mut teeth: Vec<Vec<u32>> = vec![Vec::new(); k];
        for v in 0..n {
            if tooth[v] != NONE {
                teeth[tooth[v]].push(v as u32);
            }
        }
        Some(Comb::new(handle, teeth))
    }

    /// `a x − b` for a dense `x`.
    pub(super) fn violation(&self, n: usize, x: &[f64]) -> f64 {
        let mut lhs = 0.0;
        for set in self.sets() {
            for (k, &a) in set.iter().enumerate() {
                for &b in &set[k + 1..] {
                    lhs += x[a as usize * n + b as usize];
                }
            }
        }
        lhs - self.rhs()
    }
}

/// What the root's cutting planes leave for the search.
#[derive(Clone, Debug)]
pub(super) struct RootCuts {
    /// The cuts kept (those with a positive multiplier).
    pub combs: Vec<Comb>,
    /// The degree multipliers of the best bound, then the cuts'.
    pub multipliers: Vec<f64>,
    /// The Held–Karp bound (before any comb).
    pub held_karp: f64,
    /// The bound with the cuts: the best Lagrangian bound reached (when
    /// the poll stopped the cutting planes, the best by then; a lower bound
    /// on every tour either way).
    pub bound: f64,
}

/// The minimum 1-tree under edge costs `w` (dense, `n ≥ 3`): its edges
/// (in `edges`), the nodes' degrees, and its cost.
pub(super) fn one_tree(n: usize, w: &[f64], edges: &mut Vec<(u32, u32)>, degree: &mut [i32]) -> f64 {
    edges.clear();
    degree.iter_mut().for_each(|d| *d = 0);
    let mut key = vec![f64::INFINITY; n];
    let mut parent = vec![1u32; n];
    let mut done = vec![false; n];
    let mut total = 0.0;
    let mut at = 1;
    done[1] = true;
    for _ in 2..n {
        let row = &w[at * n..at * n + n];
        let mut best = f64::INFINITY;
        let mut next = usize::MAX;
        for j in 2..n {
            if done[j] {
                continue;
            }
            if row[j] < key[j] {
                key[j] = row[j];
                parent[j] = at as u32;
            }
            if key[j] < best {
                best = key[j];
                next = j;
            }
        }
        if next == usize::MAX {
            // Node 1 first: its row was scanned at the start.
            break;
        }
        done[next] = true;
        total += best;
        edges.push((parent[next], next as u32));
        at = next;
    }
    let (mut k1, mut k2, mut v1, mut v2) = (f64::INFINITY, f64::INFINITY, 1, 1);
    for (j, &k) in w.iter().enumerate().take(n).skip(1) {
        if k < k1 {
            (k2, v2) = (k1, v1);
            (k1, v1) = (k, j);
        } else if k < k2 {
            (k2, v2) = (k, j);
        }
    }
    total += k1 + k2;
    edges.push((0, v1 as u32));
    edges.push((0, v2 as u32));
    for &(a, b) in edges.iter() {
        degree[a as usize] += 1;
        degree[b as usize] += 1;
    }
    total
}

/// The state of the joint ascent over `π` and `μ`.
struct Ascent<'a> {
    /// Polled before every step but a run's first; once it says `true`, no
    /// more steps are made.
    poll: &'a Poll<'a>,
    n: usize,
    cost: &'a [f64],
    target: f64,
    pi: Vec<f64>,
    cuts: Vec<Comb>,
    mu: Vec<f64>,
    /// `Σ_c μ_c a_c` by edge.
    extra: Vec<f64>,
    /// The average 1-tree (exponentially weighted), by edge.
    xbar: Vec<f64>,
    best: f64,
    best_pi: Vec<f64>,
    best_mu: Vec<f64>,
}

impl Ascent<'_> {
    /// `steps` subgradient steps from the current multipliers, `λ` halved
    /// after `patience` steps without improvement; fewer once the poll
    /// says stop, but at least one: the first evaluates the bound at the
    /// current multipliers, so that a stopped ascent still has one.
    fn run(&mut self, steps: u32, mut lambda: f64, patience: u32, min_lambda: f64) {
        let n = self.n;
        let mut w = vec![0.0; n * n];
        let mut edges = Vec::with_capacity(n);
        let mut degree = vec![0i32; n];
        let mut inside = vec![false; n];
        let mut g_mu = vec![0.0; self.cuts.len()];
        let mut stale = 0;
        let mut local_best = f64::NEG_INFINITY;
        for step in 0..steps {
            // A step costs O(n²).
            if step > 0 && self.poll.stop() {
                break;
            }
            for i in 0..n {
                for j in 0..n {
                    w[i * n + j] = self.cost[i * n + j] + self.extra[i * n + j] + self.pi[i] + self.pi[j];
                }
            }
            let tree = one_tree(n, &w, &mut edges, &mut degree);
            let mut l = tree - 2.0 * self.pi.iter().sum::<f64>();
            for (c, cut) in self.cuts.iter().enumerate() {
                l -= self.mu[c] * cut.rhs();
                g_mu[c] = cut.lhs(&edges, &mut inside) - cut.rhs();
            }
            if l > self.best + 1e-9 {
                self.best = l;
                self.best_pi.clone_from(&self.pi);
                self.best_mu.clone_from(&self.mu);
            }
            if l > local_best + 1e-9 {
                local_best = l;
                stale = 0;
            } else {
                stale += 1;
                if stale >= patience {
                    lambda /= 2.0;
                    stale = 0;
                }
            }
            // The average 1-tree.
            const ALPHA: f64 = 0.02;
            self.xbar.iter_mut().for_each(|x| *x *= 1.0 - ALPHA);
            for &(a, b) in &edges {
                self.xbar[a as usize * n + b as usize] += ALPHA;
                self.xbar[b as usize * n + a as usize] += ALPHA;
            }
            if lambda < min_lambda {
                break;
            }
            // Projected subgradient: a blossom at μ = 0 that the tree
            // satisfies does not move.
            for (c, g) in g_mu.iter_mut().enumerate() {
                if self.mu[c] <= 0.0 && *g < 0.0 {
                    *g = 0.0;
                }
            }
            let norm: f64 = degree.iter().map(|&d| f64::from((d - 2) * (d - 2))).sum::<f64>()
                + g_mu.iter().map(|g| g * g).sum::<f64>();
            if norm == 0.0 {
                break;
            }
            let t = lambda * (self.target - l).max(1e-9 * self.target.abs().max(1.0)) / norm;
            for (p, &d) in self.pi.iter_mut().zip(&degree) {
                *p += t * f64::from(d - 2);
            }
            for (c, &g) in g_mu.iter().enumerate() {
                let new = (self.mu[c] + t * g).max(0.0);
                let delta = new - self.mu[c];
                if delta != 0.0 {
                    self.cuts[c].add(n, &mut self.extra, delta);
                    self.mu[c] = new;
                }
            }
        }
    }

    /// Sets the multipliers to the best ones found.
    fn restore_best(&mut self) {
        self.pi.clone_from(&self.best_pi);
        for c in 0..self.cuts.len() {
            let delta = self.best_mu[c] - self.mu[c];
            if delta != 0.0 {
                self.cuts[c].add(self.n, &mut self.extra, delta);
                self.mu[c] = self.best_mu[c];
            }
        }
    }
}

/// The degrees `x(δ(v))` of a dense, symmetric `x` on `n` nodes.
pub(super) fn degrees(n: usize, x: &[f64]) -> Vec<f64> {
    (0..n).map(|v| x[v * n..v * n + n].iter().sum()).collect()
}

/// Violated combs of `x` (dense, symmetric): blossoms by the
/// odd-component heuristic, on `x` and on `x` with its paths of edges at
/// (nearly) 1 shrunk to single nodes — a blossom there is a comb of `x`.
pub(super) fn separate(n: usize, x: &[f64], known: &[Comb]) -> Vec<Comb> {
    separate_above(n, x, known, MIN_VIOLATION)
}

/// The combs the heuristics of [`separate`] build on `x`, violated or not:
/// the starting points of [`Comb::tighten`].
pub(super) fn comb_candidates(n: usize, x: &[f64]) -> Vec<Comb> {
    separate_above(n, x, &[], f64::NEG_INFINITY)
}

/// [`separate`] keeping the combs violated by at least `min`.
fn separate_above(n: usize, x: &[f64], known: &[Comb], min: f64) -> Vec<Comb> {
    let mut found: Vec<Comb> = Vec::new();
    let singletons: Vec<Vec<u32>> = (0..n as u32).map(|v| vec![v]).collect();
    odd_components(n, x, &singletons, x, known, min, &mut found);
    for one in [0.999, 0.99, 0.9] {
        let mut up: Vec<usize> = (0..n).collect();
        for i in 0..n {
            for j in i + 1..n {
                if x[i * n + j] >= one {
                    let (a, b) = (find(&mut up, i), find(&mut up, j));
                    up[a] = b;
                }
            }
        }
        let mut index = vec![usize::MAX; n];
        let mut groups: Vec<Vec<u32>> = Vec::new();
        for v in 0..n {
            let r = find(&mut up, v);
            if index[r] == usize::MAX {
                index[r] = groups.len();
                groups.push(Vec::new());
            }
            groups[index[r]].push(v as u32);
        }
        let m = groups.len();
        if m == n || m < 6 {
            continue;
        }
        let mut xs = vec![0.0; m * m];
        for i in 0..n {
            for j in 0..n {
                let (a, b) = (index[find(&mut up, i)], index[find(&mut up, j)]);
                if a != b {
                    xs[a * m + b] += x[i * n + j];
                }
            }
        }
        odd_components(m, &xs, &groups, x, known, min, &mut found);
    }
    found
}

/// The odd-component heuristic on the `m` nodes of `x` (dense, symmetric),
/// node `i` standing for the nodes `groups[i]` of the instance: adds to
/// `found` the combs it finds that `orig` violates by at least `min`.
fn odd_components(
    m: usize,
    x: &[f64],
    groups: &[Vec<u32>],
    orig: &[f64],
    known: &[Comb],
    min: f64,
    found: &mut Vec<Comb>,
) {
    let n = orig.len().isqrt();
    for eps in [0.02, 0.05, 0.1, 0.2, 0.3] {
        // Components of the fractional edges.
        let mut up: Vec<usize> = (0..m).collect();
        for i in 0..m {
            for j in i + 1..m {
                let v = x[i * m + j];
                if v > eps && v < 1.0 - eps {
                    let (a, b) = (find(&mut up, i), find(&mut up, j));
                    up[a] = b;
                }
            }
        }
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); m];
        for v in 0..m {
            let r = find(&mut up, v);
            members[r].push(v);
        }
        for handle in members.into_iter().filter(|h| h.len() >= 2 && h.len() + 2 <= m) {
            let mut inside = vec![false; m];
            handle.iter().for_each(|&v| inside[v] = true);
            let mut leaving: Vec<(f64, usize, usize)> = Vec::new();
            for &a in &handle {
                for b in 0..m {
                    let v = x[a * m + b];
                    if !inside[b] && v > 1e-3 {
                        leaving.push((v, a, b));
                    }
                }
            }
            leaving.sort_by(|p, q| q.0.total_cmp(&p.0).then((p.1, p.2).cmp(&(q.1, q.2))));
            // Disjoint teeth, the largest x first.
            let mut used = vec![false; m];
            let mut teeth: Vec<(f64, usize, usize)> = Vec::new();
            let mut spare: Option<(f64, usize, usize)> = None;
            for &(v, a, b) in &leaving {
                if used[a] || used[b] {
                    continue;
                }
                if v > 0.5 {
                    used[a] = true;
                    used[b] = true;
                    teeth.push((v, a, b));
                } else if spare.is_none() {
                    spare = Some((v, a, b));
                }
            }
            if teeth.len().is_multiple_of(2) {
                // Drop the weakest tooth, or add the best spare one.
                let drop_gain = teeth.last().map(|t| 0.5 - t.0);
                let add_gain = spare.map(|t| t.0 - 0.5);
                match (drop_gain, add_gain, spare) {
                    (Some(d), Some(a), Some(t)) if a > d => teeth.push(t),
                    (Some(_), _, _) => {
                        teeth.pop();
                    }
                    (None, _, _) => continue,
                }
            }
            if teeth.len() < 3 {
                continue;
            }
            let mut comb = Comb {
                handle: handle.iter().flat_map(|&h| groups[h].iter().copied()).collect(),
                teeth: teeth
                    .iter()
                    .map(|&(_, a, b)| groups[a].iter().chain(&groups[b]).copied().collect())
                    .collect(),
            };
            comb.handle.sort_unstable();
            comb.teeth.iter_mut().for_each(|t| t.sort_unstable());
            comb.teeth.sort_unstable();
            if comb.violation(n, orig) >= min && !known.contains(&comb) && !found.contains(&comb) {
                found.push(comb);
            }
        }
    }
}

/// Relax-and-cut stops when three rounds raise the bound by less than this
/// fraction.
const STALL: f64 = 1e-5;

/// The smallest violation of a comb worth adding.
pub(super) const MIN_VIOLATION: f64 = 0.02;

/// Cutting planes at the root of an instance with dense costs `cost`
/// (`n ≥ 5`): the Held–Karp ascent, then the LP's cuts at its dual
/// multipliers (`params.lp_rounds` rounds of separation at most), or, if
/// that is off or fails, `params.cut_rounds` rounds of comb separation on
/// `x̄` and joint ascent. `target` is the step size's estimate of the
/// optimum.
///
/// `poll` is asked between the ascent's steps, every few milliseconds
/// while the LP runs (on a thread of its own, see
/// [`super::lp::lp_combs_until`]) and between rounds; once it says stop,
/// the cutting planes end with what they have.
pub(super) fn relax_and_cut(
    n: usize,
    cost: &[f64],
    target: f64,
    params: &AscentParams,
    poll: &Poll<'_>,
) -> RootCuts {
    let mut a = Ascent {
        poll,
        n,
        cost,
        target,
        pi: vec![0.0; n],
        cuts: Vec::new(),
        mu: Vec::new(),
        extra: vec![0.0; n * n],
        xbar: vec![0.0; n * n],
        best: f64::NEG_INFINITY,
        best_pi: vec![0.0; n],
        best_mu: Vec::new(),
    };
    a.run(params.root_steps, params.root_lambda, params.root_patience, params.min_lambda);
    let held_karp = a.best;
    // The root LP's cuts at its dual multipliers, when it solves.
    let lp = (params.lp_rounds > 0 && !poll.stopped())
        .then(|| super::lp::lp_combs_until(n, cost, &a.xbar, params.lp_rounds as usize, poll))
        .flatten()
        .and_then(|mut found| Some((found.duals.take().filter(|d| d.len() == n + found.cuts.len())?, found)));
    if let Some((duals, found)) = lp {
        a.restore_best();
        a.pi.copy_from_slice(&duals[..n]);
        // Only the cuts tight at the LP's optimum (a positive dual).
        for (cut, &mu) in found.cuts.into_iter().zip(&duals[n..]) {
            if mu > 0.0 {
                cut.add(n, &mut a.extra, mu);
                a.cuts.push(cut);
                a.mu.push(mu);
                a.best_mu.push(0.0);
            }
        }
        // One step evaluates `L` there: the LP's value once pricing found
        // no negative edge. Short of it, the ascent goes on.
        a.run(1, 0.0, 1, 0.0);
        if a.best < found.value - 1e-6 * found.value.abs() {
            a.run(30 * n as u32, 0.01, (n as u32 / 2).max(10), params.min_lambda);
        }
    } else if !poll.stopped() {
        let mut history = vec![a.best];
        for _ in 0..params.cut_rounds {
            if poll.stop() {
                break;
            }
            // Stop once three rounds raised the bound by less than 10⁻⁵ of it.
            if let [.., before, _, _, last] = history[..]
                && last - before < STALL * last.abs()
            {
                break;
            }
            let new = separate(n, &a.xbar, &a.cuts);
            if new.is_empty() {
                break;
            }
            a.restore_best();
            for cut in new {
                a.cuts.push(cut);
                a.mu.push(0.0);
                a.best_mu.push(0.0);
            }
            a.run(30 * n as u32, 0.1, (n as u32 / 2).max(10), params.min_lambda);
            history.push(a.best);
        }
    }
    a.restore_best();
    let mut multipliers = a.best_pi;
    let mut combs = Vec::new();
    for (c, cut) in a.cuts.into_iter().enumerate() {
        if a.mu[c] > 0.0 {
            combs.push(cut);
            multipliers.push(a.mu[c]);
        }
    }
    RootCuts { combs, multipliers, held_karp, bound: a.best }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every tour of `n` nodes, as a dense 0/1 point.
    fn tour_points(n: usize) -> Vec<Vec<f64>> {
        fn rec(t: &mut Vec<usize>, used: &mut [bool], n: usize, out: &mut Vec<Vec<f64>>) {
            if t.len() == n {
                let mut x = vec![0.0; n * n];
                for k in 0..n {
                    let (a, b) = (t[k], t[(k + 1) % n]);
                    x[a * n + b] = 1.0;
                    x[b * n + a] = 1.0;
                }
                out.push(x);
                return;
            }
            for v in 1..n {
                if !used[v] {
                    used[v] = true;
                    t.push(v);
                    rec(t, used, n, out);
                    t.pop();
                    used[v] = false;
                }
            }
        }
        let mut out = Vec::new();
        let mut used = vec![false; n];
        used[0] = true;
        rec(&mut vec![0], &mut used, n, &mut out);
        out
    }

    /// Whether `comb` has the shape of a comb on `n` nodes: a nonempty
    /// proper handle, an odd number `k ≥ 3` of pairwise disjoint teeth,
    /// each meeting the handle and its complement.
    fn is_comb(n: usize, comb: &Comb) -> bool {
        let mut in_h = vec![false; n];
        comb.handle.iter().for_each(|&v| in_h[v as usize] = true);
        let mut seen = vec![false; n];
        let teeth_ok = comb.teeth.iter().all(|t| {
            let disjoint = t.iter().all(|&v| !std::mem::replace(&mut seen[v as usize], true));
            disjoint && t.iter().any(|&v| in_h[v as usize]) && t.iter().any(|&v| !in_h[v as usize])
        });
        !comb.handle.is_empty()
            && comb.handle.len() < n
            && comb.teeth.len() >= 3
            && comb.teeth.len() % 2 == 1
            && teeth_ok
    }

    /// A comb from random choices: the handle is `order[..split]`; three
    /// teeth, tooth `j` holding `order[j]` (in the handle) and
    /// `order[split + j]` (outside it); every other node `v` joins tooth
    /// `extra[v]` if that is below 3.
    fn comb_of(order: &[usize], split: usize, extra: &[u8]) -> Comb {
        let mut handle: Vec<u32> = order[..split].iter().map(|&v| v as u32).collect();
        let mut teeth: Vec<Vec<u32>> =
            (0..3).map(|j| vec![order[j] as u32, order[split + j] as u32]).collect();
        for (k, &v) in order.iter().enumerate() {
            if k < 3 || (split..split + 3).contains(&k) {
                continue;
            }
            if extra[v] < 3 {
                teeth[extra[v] as usize].push(v as u32);
            }
        }
        handle.sort_unstable();
        Comb::new(handle, teeth)
    }

    /// The average of some tours: a point where every degree is 2.
    fn mix(n: usize, tours: &[Vec<f64>], picks: &[usize]) -> Vec<f64> {
        let mut x = vec![0.0; n * n];
        for &p in picks {
            let t = &tours[p % tours.len()];
            for (a, b) in x.iter_mut().zip(t) {
                *a += b / picks.len() as f64;
            }
        }
        x
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Tightening gives a comb that every tour satisfies and that the
        /// point violates at least as much as before.
        #[test]
        fn tightening_keeps_a_valid_comb_and_never_weakens_it(
            n in 7usize..=8,
            order in Just((0..8usize).collect::<Vec<_>>()).prop_shuffle(),
            split in 3usize..=4,
            extra in proptest::collection::vec(0u8..4, 8),
            picks in proptest::collection::vec(0usize..5040, 1..4),
        ) {
            let order: Vec<usize> = order.into_iter().filter(|&v| v < n).collect();
            let comb = comb_of(&order, split.min(n - 3), &extra);
            prop_assert!(is_comb(n, &comb), "{comb:?}");
            let tours = tour_points(n);
            let x = mix(n, &tours, &picks);
            if let Some(tight) = comb.tighten(n, &x, &degrees(n, &x)) {
                prop_assert!(is_comb(n, &tight), "{tight:?}");
                prop_assert_eq!(tight.teeth.len(), comb.teeth.len());
                prop_assert!(tight.violation(n, &x) >= comb.violation(n, &x) - 1e-9);
                for t in &tours {
                    prop_assert!(tight.violation(n, t) <= 1e-9, "{tight:?} cuts off a tour");
                }
            }
        }
    }

    #[test]
    fn tightening_takes_a_useless_node_out_of_the_handle() {
        // Two triangles at 1/2, {0, 1, 2} and {3, 4, 5}, joined by the
        // edges 0–3 and 1–4 and the path 2–6–7–5, all at 1: the blossom
        // with handle {0, 1, 2} and teeth {0, 3}, {1, 4}, {2, 6} is
        // violated by 1/2. With node 7 in the handle too it is satisfied;
        // tightening takes 7 out, and moves nothing of the violated one.
        let n = 8;
        let mut x = vec![0.0; n * n];
        let half = [(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5)].map(|(a, b)| (a, b, 0.5));
        let one = [(0, 3), (1, 4), (2, 6), (6, 7), (7, 5)].map(|(a, b)| (a, b, 1.0));
        for (a, b, v) in half.into_iter().chain(one) {
            x[a * n + b] = v;
            x[b * n + a] = v;
        }
        let teeth = vec![vec![0, 3], vec![1, 4], vec![2, 6]];
        let best = Comb::new(vec![0, 1, 2], teeth.clone());
        assert_eq!(best.violation(n, &x), 0.5);
        assert_eq!(best.tighten(n, &x, &degrees(n, &x)), None);
        let loose = Comb::new(vec![0, 1, 2, 7], teeth);
        assert_eq!(loose.violation(n, &x), -0.5);
        assert_eq!(loose.tighten(n, &x, &degrees(n, &x)), Some(best));
    }
}
