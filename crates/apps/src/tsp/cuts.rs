//! Relax-and-cut at the root: blossom inequalities dualized in the
//! Held–Karp Lagrangian.
//!
//! The Held–Karp bound is the optimum of the subtour LP; where the optimal
//! tours need more than that (pr76: 2.8 % above it), the branch and bound
//! closes the gap by branching alone. A *blossom* — a node set `H` (the
//! handle) and an odd number `k ≥ 3` of pairwise disjoint edges `T` (the
//! teeth), each with exactly one end in `H` — gives the inequality
//!
//! ```text
//! x(E(H)) + Σ_{e ∈ T} x_e ≤ |H| + (k − 1) / 2
//! ```
//!
//! which every tour satisfies (every 2-matching does: count the degrees in
//! `H`, `2|H| = 2 x(E(H)) + x(δ(H))`, and `x(δ(H)) ≥ Σ_T x_e`; if all
//! teeth were used, `x(δ(H)) − k` would be even while `k` is odd, so one
//! more unit crosses `δ(H)` or a tooth is missing). Each blossom `c` gets a
//! multiplier `μ_c ≥ 0`, and the Lagrangian becomes
//!
//! ```text
//! L(π, μ) = min over 1-trees x of Σ_e (c_e + π_i + π_j + Σ_c μ_c a_ce) x_e − 2 Σ π − Σ_c μ_c b_c
//! ```
//!
//! (`a_c x ≤ b_c` the blossom): for every tour `x`, `c x ≥ c x + π (deg − 2)
//! + μ (a x − b)` because the degree terms vanish and the blossom terms are
//! not positive, so `L(π, μ)` is a lower bound on every tour for every `π`
//! and every `μ ≥ 0`. The ascent moves `π` by `deg − 2` and `μ` by
//! `a_c x − b_c` (projected onto `μ ≥ 0`), with the same step size.
//!
//! Blossoms are found on the average `x̄` of the 1-trees of the ascent — an
//! estimate of the subtour LP's optimal solution — by the odd-component
//! heuristic of Padberg and Hong (1980): the components of the edges with
//! fractional `x̄` are handles; the edges with the largest `x̄` leaving a
//! handle, pairwise disjoint, an odd number of them, are teeth; the blossom
//! is kept if `x̄` violates it. Rounds of separation and ascent alternate
//! until no new blossom is found.
//!
//! The search then keeps the root's multipliers `μ` fixed: they are folded
//! into the edge costs (`c_e + Σ_c μ_c a_ce`) and a constant
//! (`−Σ_c μ_c b_c`), so every node's ascent, elimination and fixing work on
//! these costs unchanged — each of their arguments holds for any costs
//! that, with the constant, give a lower bound on every tour's length.

use super::search::AscentParams;

/// A blossom inequality `x(E(H)) + Σ_T x_e ≤ |H| + (|T| − 1) / 2`.
#[derive(Clone, Debug, PartialEq)]
struct Blossom {
    handle: Vec<u32>,
    teeth: Vec<(u32, u32)>,
}

impl Blossom {
    fn rhs(&self) -> f64 {
        self.handle.len() as f64 + (self.teeth.len() - 1) as f64 / 2.0
    }

    /// Adds `delta` to the cost of every edge with a coefficient.
    fn add(&self, n: usize, extra: &mut [f64], delta: f64) {
        for (k, &a) in self.handle.iter().enumerate() {
            for &b in &self.handle[k + 1..] {
                extra[a as usize * n + b as usize] += delta;
                extra[b as usize * n + a as usize] += delta;
            }
        }
        for &(a, b) in &self.teeth {
            extra[a as usize * n + b as usize] += delta;
            extra[b as usize * n + a as usize] += delta;
        }
    }

    /// `a x` for the edges `edges` (a 1-tree), with `inside` marking the
    /// handle.
    fn lhs(&self, edges: &[(u32, u32)], inside: &mut [bool]) -> f64 {
        for &v in &self.handle {
            inside[v as usize] = true;
        }
        let mut count = edges.iter().filter(|&&(a, b)| inside[a as usize] && inside[b as usize]).count();
        for &v in &self.handle {
            inside[v as usize] = false;
        }
        count +=
            edges.iter().filter(|&&(a, b)| self.teeth.iter().any(|&t| t == (a, b) || t == (b, a))).count();
        count as f64
    }
}

/// What relax-and-cut leaves for the search.
#[derive(Clone, Debug)]
pub(super) struct RootCuts {
    /// The edge costs with the blossom multipliers folded in.
    pub cost: Vec<f64>,
    /// `−Σ μ_c b_c`: added to every 1-tree's value.
    pub offset: f64,
    /// The degree multipliers of the best bound.
    pub pi: Vec<f64>,
    /// The Held–Karp bound (before any blossom).
    pub held_karp: f64,
    /// The bound with the blossoms.
    pub bound: f64,
    /// The blossoms kept (with a positive multiplier).
    pub cuts: usize,
}

/// The minimum 1-tree under edge costs `w` (dense, `n ≥ 3`): its edges
/// (in `edges`), the nodes' degrees, and its cost.
fn one_tree(n: usize, w: &[f64], edges: &mut Vec<(u32, u32)>, degree: &mut [i32]) -> f64 {
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
    for j in 1..n {
        let k = w[j];
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
    n: usize,
    cost: &'a [f64],
    target: f64,
    pi: Vec<f64>,
    cuts: Vec<Blossom>,
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
    /// after `patience` steps without improvement.
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
            let _ = step;
            let t = lambda * (self.target - l).max(1e-9 * self.target.abs().max(1.0)) / norm;
            for v in 0..n {
                self.pi[v] += t * f64::from(degree[v] - 2);
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

/// Violated blossoms of `x` (dense, symmetric) by the odd-component
/// heuristic, at several thresholds of "fractional".
fn separate(n: usize, x: &[f64], known: &[Blossom]) -> Vec<Blossom> {
    let mut found: Vec<Blossom> = Vec::new();
    for eps in [0.02, 0.05, 0.1, 0.2, 0.3] {
        // Components of the fractional edges.
        let mut up: Vec<usize> = (0..n).collect();
        fn find(up: &mut [usize], mut v: usize) -> usize {
            while up[v] != v {
                up[v] = up[up[v]];
                v = up[v];
            }
            v
        }
        for i in 0..n {
            for j in i + 1..n {
                let v = x[i * n + j];
                if v > eps && v < 1.0 - eps {
                    let (a, b) = (find(&mut up, i), find(&mut up, j));
                    up[a] = b;
                }
            }
        }
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); n];
        for v in 0..n {
            let r = find(&mut up, v);
            members[r].push(v as u32);
        }
        for handle in members.into_iter().filter(|h| h.len() >= 2 && h.len() <= n - 2) {
            let mut inside = vec![false; n];
            handle.iter().for_each(|&v| inside[v as usize] = true);
            let mut inner = 0.0;
            let mut leaving: Vec<(f64, u32, u32)> = Vec::new();
            for &a in &handle {
                for b in 0..n {
                    let v = x[a as usize * n + b];
                    if inside[b] {
                        if (a as usize) < b {
                            inner += v;
                        }
                    } else if v > 1e-3 {
                        leaving.push((v, a, b as u32));
                    }
                }
            }
            leaving.sort_by(|p, q| q.0.total_cmp(&p.0).then((p.1, p.2).cmp(&(q.1, q.2))));
            // Disjoint teeth, the largest x first.
            let mut used = vec![false; n];
            let mut teeth: Vec<(f64, u32, u32)> = Vec::new();
            let mut spare: Option<(f64, u32, u32)> = None;
            for &(v, a, b) in &leaving {
                if used[a as usize] || used[b as usize] {
                    continue;
                }
                if v > 0.5 {
                    used[a as usize] = true;
                    used[b as usize] = true;
                    teeth.push((v, a, b));
                } else if spare.is_none() {
                    spare = Some((v, a, b));
                }
            }
            if teeth.len() % 2 == 0 {
                // Drop the weakest tooth, or add the best spare one.
                let drop_gain = teeth.last().map(|t| 0.5 - t.0);
                let add_gain = spare.map(|t| t.0 - 0.5);
                match (drop_gain, add_gain) {
                    (Some(d), Some(a)) if a > d => teeth.push(spare.unwrap()),
                    (Some(_), _) => {
                        teeth.pop();
                    }
                    (None, _) => continue,
                }
            }
            if teeth.len() < 3 {
                continue;
            }
            let k = teeth.len() as f64;
            let lhs = inner + teeth.iter().map(|t| t.0).sum::<f64>();
            if lhs - (handle.len() as f64 + (k - 1.0) / 2.0) < 0.05 {
                continue;
            }
            let mut blossom = Blossom { handle, teeth: teeth.iter().map(|t| (t.1, t.2)).collect() };
            blossom.handle.sort_unstable();
            blossom.teeth.sort_unstable();
            if !known.contains(&blossom) && !found.contains(&blossom) {
                found.push(blossom);
            }
        }
    }
    found
}

/// Relax-and-cut at the root of an instance with dense costs `cost`
/// (`n ≥ 5`): the Held–Karp ascent, then `params.cut_rounds` rounds of
/// blossom separation and joint ascent. `target` is the step size's
/// estimate of the optimum.
pub(super) fn relax_and_cut(n: usize, cost: &[f64], target: f64, params: &AscentParams) -> RootCuts {
    let mut a = Ascent {
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
    for _ in 0..params.cut_rounds {
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
    }
    a.restore_best();
    let mut offset = 0.0;
    let mut kept = 0;
    for (c, cut) in a.cuts.iter().enumerate() {
        if a.mu[c] > 0.0 {
            offset -= a.mu[c] * cut.rhs();
            kept += 1;
        }
    }
    let folded = cost.iter().zip(&a.extra).map(|(c, e)| c + e).collect();
    RootCuts { cost: folded, offset, pi: a.best_pi, held_karp, bound: a.best, cuts: kept }
}
