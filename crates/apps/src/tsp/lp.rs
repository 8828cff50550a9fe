//! A cutting-plane LP at the root: the point to separate cuts on, and the
//! multipliers to start the Lagrangian from.
//!
//! Relax-and-cut ([`super::cuts`]) finds its combs on the average `x̄` of
//! the ascent's 1-trees, a blurred estimate of the subtour LP's optimum,
//! and its subgradient ascent does not reach the LP bound of the cuts it
//! has. This module solves the LP itself,
//!
//! ```text
//! min c x   subject to   x(δ(v)) = 2 for every node v,   0 ≤ x ≤ 1,
//!                        x(E(S)) ≤ |S| − 1 for the subtour cuts found,
//!                        a x ≤ b           for the blossoms and combs found,
//! ```
//!
//! over a sparse set of edges (each node's nearest neighbours and the
//! support of `x̄`), with [`microlp`]'s simplex, and alternates it with
//! separation on its optimal point `x*`: exact subtour separation (the
//! connected components of the support of `x*`, then the cuts of the
//! phases of Stoer and Wagner's minimum-cut algorithm that are below 2),
//! blossoms on a Gomory–Hu tree ([`exact_blossoms`]), on `x*` and on `x*`
//! with its paths of ones shrunk, the comb heuristics of [`super::cuts`],
//! and every comb at hand — the LP's, the new ones, and those the
//! heuristics build on `x*` without violating it — tightened on `x*` by
//! moving single nodes in or out of its handle and teeth
//! ([`Comb::tighten`]). When no cut is violated, the dual LP gives multipliers
//! for the degree equations and for every cut, and pricing brings in the
//! edges outside the sparse set that these multipliers make profitable.
//!
//! Why this keeps the search exact: the LP decides nothing. Its value is
//! not used as a bound (over a sparse edge set it need not be one); what it
//! hands on is a list of cuts, each valid for every tour whatever point it
//! was separated on (the structure of a subtour inequality, blossom or comb
//! is all its validity needs, see [`super::cuts`]), and multipliers, of
//! which every choice with `μ ≥ 0` gives a lower bound in the Lagrangian
//! over all edges. An LP that fails or stops early only leaves fewer cuts
//! or worse multipliers.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use microlp::{ComparisonOp, LinearExpr, OptimizationDirection, Problem, Solution, Variable};

use super::Poll;
use super::cuts::{Comb, MIN_VIOLATION, comb_candidates, degrees, separate};

/// Each node's nearest neighbours in the LP's edge set.
const NEIGHBOURS: usize = 10;

/// At most this many subtour cuts are added per round.
const MAX_SUBTOURS: usize = 60;

/// What the LP's rounds found.
pub(super) struct LpCuts {
    /// The cuts of the LP: subtour inequalities (in the form `x(E(S)) ≤
    /// |S| − 1`, combs without teeth) and combs, in the order found.
    pub cuts: Vec<Comb>,
    /// The number of subtour inequalities among them.
    pub subtours: usize,
    /// The LP's last optimum (over its sparse edge set).
    pub value: f64,
    /// Its dual solution, when the dual LP was solved: the degree
    /// equations' multipliers as the Lagrangian's `π` (the negated duals),
    /// then the cuts' (`≥ 0`).
    pub duals: Option<Vec<f64>>,
}

/// Up to `rounds` rounds of LP solution and separation at the root of an
/// instance with dense costs `cost`; `xbar` (dense) adds its support to the
/// LP's edges. Returns what was found before the LP stopped (it stops when
/// no cut is violated, after `rounds` rounds, or if the simplex fails).
///
/// When no cut is violated, the dual LP gives the multipliers, and every
/// edge of the instance is priced: those outside the LP's set with a
/// negative reduced cost join it, and the LP is solved again with all its
/// cuts (at most [`MAX_PRICING`] times). Once none is negative, the
/// Lagrangian at these multipliers is the LP's value.
///
/// `poll` is asked before every solve and during separation; once it says
/// stop, the LP returns what it has (its duals only if they were solved
/// for its cuts). A solve itself cannot be interrupted: [`lp_combs_until`]
/// runs the LP where its caller need not wait for one.
pub(super) fn lp_combs(n: usize, cost: &[f64], xbar: &[f64], rounds: usize, poll: &Poll<'_>) -> LpCuts {
    let mut out = LpCuts { cuts: Vec::new(), subtours: 0, value: f64::NAN, duals: None };
    // The edge set.
    let mut var_of = vec![usize::MAX; n * n];
    let mut edges: Vec<(usize, usize)> = Vec::new();
    let add_edge = |i: usize, j: usize, edges: &mut Vec<(usize, usize)>, var_of: &mut [usize]| {
        let (a, b) = (i.min(j), i.max(j));
        if a != b && var_of[a * n + b] == usize::MAX {
            var_of[a * n + b] = edges.len();
            var_of[b * n + a] = edges.len();
            edges.push((a, b));
        }
    };
    for i in 0..n {
        let mut near: Vec<usize> = (0..n).filter(|&j| j != i).collect();
        near.sort_by(|&a, &b| cost[i * n + a].total_cmp(&cost[i * n + b]).then(a.cmp(&b)));
        for &j in near.iter().take(NEIGHBOURS) {
            add_edge(i, j, &mut edges, &mut var_of);
        }
        for j in 0..n {
            if xbar[i * n + j] > 1e-3 {
                add_edge(i, j, &mut edges, &mut var_of);
            }
        }
    }
    // The combs of the average 1-tree start the LP.
    out.cuts = separate(n, xbar, &[]);
    let mut x = vec![0.0; n * n];
    let mut round = 0;
    for _ in 0..=MAX_PRICING {
        let Some((mut solution, vars)) = build(n, cost, &edges, &var_of, &out.cuts, poll) else {
            return out;
        };
        while round < rounds {
            if poll.stop() {
                return out;
            }
            round += 1;
            out.value = solution.objective();
            x.iter_mut().for_each(|v| *v = 0.0);
            for (e, &(a, b)) in edges.iter().enumerate() {
                let v = solution.var_value(vars[e]);
                x[a * n + b] = v;
                x[b * n + a] = v;
            }
            let mut new: Vec<Comb> = Vec::new();
            for mut set in subtour_sets(n, &x, poll) {
                // The smaller side: the same inequality for tours.
                if 2 * set.len() > n {
                    let mut mark = vec![false; n];
                    set.iter().for_each(|&v| mark[v as usize] = true);
                    set = (0..n as u32).filter(|&v| !mark[v as usize]).collect();
                }
                let cut = Comb::subtour(set);
                if !out.cuts.contains(&cut) && !new.contains(&cut) {
                    new.push(cut);
                    out.subtours += 1;
                }
            }
            for comb in
                exact_blossoms(n, &x, &edges, &out.cuts, poll).into_iter().chain(separate(n, &x, &out.cuts))
            {
                if !new.contains(&comb) {
                    new.push(comb);
                }
            }
            // Every comb at hand tightened on `x` (`Comb::tighten`): the
            // LP's, the new ones, and all that the heuristics build on `x`,
            // violated or not; those `x` then violates join the LP.
            let deg = degrees(n, &x);
            let tightened: Vec<Comb> = out
                .cuts
                .iter()
                .chain(&new)
                .cloned()
                .chain(comb_candidates(n, &x))
                .take_while(|_| !poll.stop())
                .filter_map(|cut| cut.tighten(n, &x, &deg))
                .filter(|cut| cut.violation(n, &x) >= MIN_VIOLATION)
                .collect();
            for cut in tightened {
                if !out.cuts.contains(&cut) && !new.contains(&cut) {
                    new.push(cut);
                }
            }
            if new.is_empty() || poll.stop() {
                break;
            }
            for cut in new {
                if poll.stop() {
                    return out;
                }
                let expr: LinearExpr = row(n, &cut, &var_of).into_iter().map(|(e, c)| (vars[e], c)).collect();
                match resolve(solution, expr, ComparisonOp::Le, cut.rhs()) {
                    Some(s) => solution = s,
                    None => return out,
                }
                out.cuts.push(cut);
            }
        }
        let rows: Vec<Vec<(usize, f64)>> = out.cuts.iter().map(|c| row(n, c, &var_of)).collect();
        if poll.stop() {
            return out;
        }
        out.duals = duals(n, cost, &edges, &out.cuts, &rows);
        let Some(d) = &out.duals else { return out };
        // Pricing: the reduced costs of all edges.
        let mut reduced = cost.to_vec();
        for (k, cut) in out.cuts.iter().enumerate() {
            if d[n + k] > 0.0 {
                cut.add(n, &mut reduced, d[n + k]);
            }
        }
        let mut negative: Vec<(f64, usize, usize)> = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                let r = reduced[i * n + j] + d[i] + d[j];
                if r < -1e-6 && var_of[i * n + j] == usize::MAX {
                    negative.push((r, i, j));
                }
            }
        }
        if negative.is_empty() || poll.stop() {
            break;
        }
        negative.sort_by(|p, q| p.0.total_cmp(&q.0));
        for &(_, i, j) in negative.iter().take(MAX_PRICED) {
            add_edge(i, j, &mut edges, &mut var_of);
        }
        out.duals = None;
    }
    out
}

/// How often [`lp_combs_until`] asks its poll while the LP runs.
const POLL_EVERY: Duration = Duration::from_millis(5);

/// The stack of the LP's thread: the maximum flows of the blossom
/// separation recurse along augmenting paths, up to `n` deep (the LP ran on
/// the main thread's 8 MiB before it had a thread).
const LP_STACK: usize = 16 << 20;

/// [`lp_combs`] on a thread of its own, with the caller asking `poll`
/// before it starts and every 5 ms meanwhile: `None` once it says stop,
/// without waiting for the LP. (If the thread cannot start, the LP runs
/// here, asking `poll` only between its solves.)
///
/// A simplex solve cannot be interrupted, and one can be long: on 300
/// random points the dual LP takes 0.3–0.8 s and the LP's solves between
/// two looks at the deadline (microlp looks every 1,000 iterations) up to
/// 1.7 s; on 600 points a re-solve after one cut takes up to 0.3 s, and
/// the LP's rounds minutes. So the caller does not wait for it: the LP's
/// thread is told to stop and left to end on its own after its current
/// solve (it asks between solves and during separation), the process
/// meanwhile going on. Its results would only have been cuts and
/// multipliers for a search that a stop does not run: the bound of a
/// stopped root is the ascent's, not the LP's.
pub(super) fn lp_combs_until(
    n: usize,
    cost: &[f64],
    xbar: &[f64],
    rounds: usize,
    poll: &Poll<'_>,
) -> Option<LpCuts> {
    if poll.stop() {
        return None;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let (send, receive) = mpsc::channel();
    let (owned_cost, owned_xbar) = (cost.to_vec(), xbar.to_vec());
    let told = Arc::clone(&stop);
    let spawned =
        std::thread::Builder::new().name("treelb-tsp-lp".into()).stack_size(LP_STACK).spawn(move || {
            let stopped = || told.load(Ordering::Relaxed);
            let _ = send.send(lp_combs(n, &owned_cost, &owned_xbar, rounds, &Poll::new(&stopped)));
        });
    let Ok(lp) = spawned else {
        return Some(lp_combs(n, cost, xbar, rounds, poll));
    };
    loop {
        match receive.recv_timeout(POLL_EVERY) {
            Ok(found) => return Some(found),
            Err(RecvTimeoutError::Timeout) if poll.stop() => {
                stop.store(true, Ordering::Relaxed);
                return None;
            }
            Err(RecvTimeoutError::Timeout) => {}
            // The thread ended without an answer: it panicked.
            Err(RecvTimeoutError::Disconnected) => match lp.join() {
                Err(panic) => std::panic::resume_unwind(panic),
                Ok(()) => return None,
            },
        }
    }
}

/// How many times the LP is solved again after pricing.
const MAX_PRICING: usize = 10;

/// At most this many edges join the LP per pricing.
const MAX_PRICED: usize = 200;

/// The LP over `edges` (indexed by `var_of`) with the degree equations and
/// the cuts `cuts`, solved.
fn build(
    n: usize,
    cost: &[f64],
    edges: &[(usize, usize)],
    var_of: &[usize],
    cuts: &[Comb],
    poll: &Poll<'_>,
) -> Option<(Solution, Vec<Variable>)> {
    if poll.stop() {
        return None;
    }
    let mut problem = Problem::new(OptimizationDirection::Minimize);
    let vars: Vec<Variable> =
        edges.iter().map(|&(a, b)| problem.add_var(cost[a * n + b], (0.0, 1.0))).collect();
    let mut incident: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (e, &(a, b)) in edges.iter().enumerate() {
        incident[a].push(e);
        incident[b].push(e);
    }
    for list in &incident {
        let expr: LinearExpr = list.iter().map(|&e| (vars[e], 1.0)).collect();
        problem.add_constraint(expr, ComparisonOp::Eq, 2.0);
    }
    for cut in cuts {
        let expr: LinearExpr = row(n, cut, var_of).into_iter().map(|(e, c)| (vars[e], c)).collect();
        problem.add_constraint(expr, ComparisonOp::Le, cut.rhs());
    }
    let solution = problem.solve().ok()?.into_solution().ok()?;
    Some((solution, vars))
}

/// The coefficients of `cut` on the LP's edges (indexed by `var_of`).
fn row(n: usize, cut: &Comb, var_of: &[usize]) -> Vec<(usize, f64)> {
    let mut row: Vec<(usize, f64)> = Vec::new();
    for set in cut.sets() {
        for (k, &a) in set.iter().enumerate() {
            for &b in &set[k + 1..] {
                let e = var_of[a as usize * n + b as usize];
                if e != usize::MAX {
                    row.push((e, 1.0));
                }
            }
        }
    }
    row.sort_unstable_by_key(|&(e, _)| e);
    let mut merged: Vec<(usize, f64)> = Vec::with_capacity(row.len());
    for (e, c) in row {
        match merged.last_mut() {
            Some((last, total)) if *last == e => *total += c,
            _ => merged.push((e, c)),
        }
    }
    merged
}

/// The dual LP's optimum: `max 2 Σ y − Σ_k b_k μ_k − Σ_e u_e` subject to
/// `y_i + y_j − Σ_k a_ke μ_k − u_e ≤ c_e` for every edge `{i, j}` of the
/// LP, `μ, u ≥ 0`; returned as `−y` (the Lagrangian's `π`) and `μ`.
fn duals(
    n: usize,
    cost: &[f64],
    edges: &[(usize, usize)],
    cuts: &[Comb],
    rows: &[Vec<(usize, f64)>],
) -> Option<Vec<f64>> {
    let mut problem = Problem::new(OptimizationDirection::Maximize);
    let y: Vec<Variable> = (0..n).map(|_| problem.add_var(2.0, (f64::NEG_INFINITY, f64::INFINITY))).collect();
    let mu: Vec<Variable> = cuts.iter().map(|c| problem.add_var(-c.rhs(), (0.0, f64::INFINITY))).collect();
    let u: Vec<Variable> = edges.iter().map(|_| problem.add_var(-1.0, (0.0, f64::INFINITY))).collect();
    let mut by_edge: Vec<Vec<(Variable, f64)>> = vec![Vec::new(); edges.len()];
    for (k, row) in rows.iter().enumerate() {
        for &(e, a) in row {
            by_edge[e].push((mu[k], -a));
        }
    }
    for (e, &(a, b)) in edges.iter().enumerate() {
        let mut expr = std::mem::take(&mut by_edge[e]);
        expr.push((y[a], 1.0));
        expr.push((y[b], 1.0));
        expr.push((u[e], -1.0));
        problem.add_constraint(expr.into_iter().collect::<LinearExpr>(), ComparisonOp::Le, cost[a * n + b]);
    }
    let solution = problem.solve().ok()?.into_solution().ok()?;
    let mut out: Vec<f64> = y.iter().map(|&v| -solution.var_value(v)).collect();
    out.extend(mu.iter().map(|&v| solution.var_value(v).max(0.0)));
    Some(out)
}

/// The solution with one more constraint (`None` if the simplex failed).
fn resolve(solution: Solution, expr: LinearExpr, op: ComparisonOp, rhs: f64) -> Option<Solution> {
    solution.add_constraint(expr, op, rhs).ok()?.into_solution().ok()
}

/// Node sets `S` with `x(δ(S)) < 2` (none holding node 0), at most
/// [`MAX_SUBTOURS`]: the connected components of the support of `x` if
/// there are several, else the cuts of the phases of Stoer and Wagner's
/// minimum-cut algorithm that are below 2 (each phase's cut separates the
/// last node of a maximum-adjacency order from the rest; the smallest of
/// them is the minimum cut, so the search is exact: no set is returned
/// only if every cut is at least 2). Once `poll` says stop (asked between
/// phases, each `O(n²)`), the sets found so far.
pub(super) fn subtour_sets(n: usize, x: &[f64], poll: &Poll<'_>) -> Vec<Vec<u32>> {
    const EPS: f64 = 1e-6;
    let mut up: Vec<usize> = (0..n).collect();
    for i in 0..n {
        for j in i + 1..n {
            if x[i * n + j] > EPS {
                let (a, b) = (super::find(&mut up, i), super::find(&mut up, j));
                up[a] = b;
            }
        }
    }
    let mut sets: Vec<Vec<u32>> = Vec::new();
    let root0 = super::find(&mut up, 0);
    let mut by_root: Vec<Vec<u32>> = vec![Vec::new(); n];
    for v in 0..n {
        let r = super::find(&mut up, v);
        by_root[r].push(v as u32);
    }
    if by_root[root0].len() < n {
        sets.extend(
            by_root.into_iter().enumerate().filter(|(r, s)| *r != root0 && !s.is_empty()).map(|(_, s)| s),
        );
        sets.truncate(MAX_SUBTOURS);
        return sets;
    }
    let mut w = x.to_vec();
    let mut groups: Vec<Vec<u32>> = (0..n as u32).map(|v| vec![v]).collect();
    let mut active: Vec<usize> = (0..n).collect();
    let mut key = vec![0.0; n];
    let mut added = vec![false; n];
    while active.len() > 1 && !poll.stop() {
        for &v in &active {
            key[v] = 0.0;
            added[v] = false;
        }
        let (mut prev, mut last) = (usize::MAX, usize::MAX);
        let mut cut = 0.0;
        for _ in 0..active.len() {
            let mut next = usize::MAX;
            for &v in &active {
                if !added[v] && (next == usize::MAX || key[v] > key[next]) {
                    next = v;
                }
            }
            added[next] = true;
            cut = key[next];
            (prev, last) = (last, next);
            for &v in &active {
                if !added[v] {
                    key[v] += w[next * n + v];
                }
            }
        }
        if cut < 2.0 - EPS {
            let set = &groups[last];
            let set: Vec<u32> = if set.contains(&0) {
                let mut mark = vec![false; n];
                set.iter().for_each(|&v| mark[v as usize] = true);
                (0..n as u32).filter(|&v| !mark[v as usize]).collect()
            } else {
                set.clone()
            };
            let mut set = set;
            set.sort_unstable();
            if !sets.contains(&set) {
                sets.push(set);
            }
        }
        // Merge `last` into `prev`.
        for v in 0..n {
            let add = w[last * n + v];
            w[prev * n + v] += add;
            w[v * n + prev] += add;
        }
        w[prev * n + prev] = 0.0;
        let moved = std::mem::take(&mut groups[last]);
        groups[prev].extend(moved);
        active.retain(|&v| v != last);
    }
    sets.truncate(MAX_SUBTOURS);
    sets
}

/// Blossoms violated by `x` (dense; its support among `edges`), by the
/// Gomory–Hu method of Padberg and Rao (1982) as simplified by Grötschel
/// and Holland: with edge weights `w_e = min(x_e, 1 − x_e)` and the nodes
/// with an odd number of edges at `x_e > 1/2` marked odd, a node set `H`
/// holding an odd number of odd nodes has an odd number of such edges in
/// `δ(H)` (their count at the nodes of `H` is twice those inside plus
/// those leaving); with those edges as teeth `T`, the blossom reads
/// `Σ_{δ(H) \ T} x_e + Σ_T (1 − x_e) ≥ 1`, whose left side is `w(δ(H))`.
/// The cuts of a Gomory–Hu tree (Gusfield's algorithm: `n − 1` maximum
/// flows) hold a minimum one among such `H`; every cut of the tree whose
/// shore is odd and whose weight is below 1 is a candidate, and each is
/// checked against `x` before it is kept.
///
/// The same on `x` with its paths of edges at 1 shrunk to single nodes
/// finds combs: a blossom of the shrunk graph is a comb of `x`, its teeth
/// the shrunk paths (each path is a set meeting the handle and its
/// complement, or lies on one side).
///
/// Once `poll` says stop (asked between the maximum flows), the blossoms
/// found so far.
pub(super) fn exact_blossoms(
    n: usize,
    x: &[f64],
    edges: &[(usize, usize)],
    known: &[Comb],
    poll: &Poll<'_>,
) -> Vec<Comb> {
    let singletons: Vec<Vec<u32>> = (0..n as u32).map(|v| vec![v]).collect();
    let mut found = blossoms_of(n, x, edges, &singletons, x, known, poll);
    let mut up: Vec<usize> = (0..n).collect();
    for &(a, b) in edges {
        if x[a * n + b] >= 1.0 - 1e-6 {
            let (ra, rb) = (super::find(&mut up, a), super::find(&mut up, b));
            up[ra] = rb;
        }
    }
    let mut index = vec![usize::MAX; n];
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for v in 0..n {
        let r = super::find(&mut up, v);
        if index[r] == usize::MAX {
            index[r] = groups.len();
            groups.push(Vec::new());
        }
        groups[index[r]].push(v as u32);
    }
    let m = groups.len();
    if m < n && m >= 6 && !poll.stopped() {
        let group = |v: usize, up: &mut [usize]| index[super::find(up, v)];
        let mut xs = vec![0.0; m * m];
        let mut shrunk: Vec<(usize, usize)> = Vec::new();
        for &(a, b) in edges {
            let (ga, gb) = (group(a, &mut up), group(b, &mut up));
            let v = x[a * n + b];
            if ga != gb && v > 0.0 {
                if xs[ga * m + gb] == 0.0 {
                    shrunk.push((ga.min(gb), ga.max(gb)));
                }
                xs[ga * m + gb] += v;
                xs[gb * m + ga] += v;
            }
        }
        let mut known = known.to_vec();
        known.extend(found.iter().cloned());
        for comb in blossoms_of(m, &xs, &shrunk, &groups, x, &known, poll) {
            found.push(comb);
        }
    }
    found
}

/// [`exact_blossoms`] on the `m` nodes of `x` (dense), node `i` standing
/// for the nodes `groups[i]` of the instance, with `orig` the instance's
/// point that each comb is checked against.
fn blossoms_of(
    m: usize,
    x: &[f64],
    edges: &[(usize, usize)],
    groups: &[Vec<u32>],
    orig: &[f64],
    known: &[Comb],
    poll: &Poll<'_>,
) -> Vec<Comb> {
    let n = m;
    let n_orig = orig.len().isqrt();
    let mut graph = Flow::new(n);
    let mut odd = vec![false; n];
    for &(a, b) in edges {
        let v = x[a * n + b];
        if v > 0.5 {
            odd[a] = !odd[a];
            odd[b] = !odd[b];
        }
        let w = v.min(1.0 - v);
        if w > 1e-9 {
            graph.add_edge(a, b, w);
        }
    }
    let mut found: Vec<Comb> = Vec::new();
    let mut parent = vec![0usize; n];
    let mut side = vec![false; n];
    for s in 1..n {
        if poll.stop() {
            break;
        }
        let t = parent[s];
        let value = graph.min_cut(s, t, &mut side);
        for i in s + 1..n {
            if side[i] && parent[i] == t {
                parent[i] = s;
            }
        }
        let odd_count = (0..n).filter(|&v| side[v] && odd[v]).count();
        if value >= 1.0 - 1e-6 || odd_count % 2 == 0 {
            continue;
        }
        let size = side.iter().filter(|&&b| b).count();
        // The smaller shore: the same blossom for tours (degree equations).
        let small = size * 2 <= n;
        let handle: Vec<u32> =
            (0..n).filter(|&v| side[v] == small).flat_map(|v| groups[v].iter().copied()).collect();
        if handle.len() < 2 {
            continue;
        }
        let heavy: Vec<(usize, usize)> =
            edges.iter().copied().filter(|&(a, b)| side[a] != side[b] && x[a * n + b] > 0.5).collect();
        // Two heavy edges may share an end outside the handle. On single
        // nodes the blossom stays valid (see [`Comb`]); the teeth of a
        // comb with sets for nodes must be pairwise disjoint.
        let mut used = vec![false; n];
        let disjoint = heavy
            .iter()
            .all(|&(a, b)| !std::mem::replace(&mut used[a], true) && !std::mem::replace(&mut used[b], true));
        if heavy.len() < 3 || !(disjoint || m == n_orig) {
            continue;
        }
        let teeth: Vec<Vec<u32>> =
            heavy.iter().map(|&(a, b)| groups[a].iter().chain(&groups[b]).copied().collect()).collect();
        let comb = Comb::new(handle, teeth);
        if comb.violation(n_orig, orig) >= super::cuts::MIN_VIOLATION
            && !known.contains(&comb)
            && !found.contains(&comb)
        {
            found.push(comb);
        }
    }
    found
}

/// An undirected graph with capacities, for maximum flows (Dinic).
struct Flow {
    /// Arcs: head, capacity; arc `2k` and `2k + 1` are the two directions
    /// of edge `k`.
    head: Vec<usize>,
    cap: Vec<f64>,
    flow: Vec<f64>,
    out: Vec<Vec<usize>>,
    level: Vec<i32>,
    next: Vec<usize>,
}

impl Flow {
    fn new(n: usize) -> Flow {
        Flow {
            head: Vec::new(),
            cap: Vec::new(),
            flow: Vec::new(),
            out: vec![Vec::new(); n],
            level: vec![0; n],
            next: vec![0; n],
        }
    }

    fn add_edge(&mut self, a: usize, b: usize, c: f64) {
        self.out[a].push(self.head.len());
        self.head.push(b);
        self.cap.push(c);
        self.out[b].push(self.head.len());
        self.head.push(a);
        self.cap.push(c);
    }

    /// The value of a minimum `s`–`t` cut; `side` marks its shore holding
    /// `s` (the nodes reachable from `s` in the residual graph).
    fn min_cut(&mut self, s: usize, t: usize, side: &mut [bool]) -> f64 {
        const EPS: f64 = 1e-9;
        self.flow.clear();
        self.flow.resize(self.cap.len(), 0.0);
        let mut total = 0.0;
        loop {
            // Levels by breadth-first search over residual arcs.
            self.level.iter_mut().for_each(|l| *l = -1);
            self.level[s] = 0;
            let mut queue = std::collections::VecDeque::from([s]);
            while let Some(v) = queue.pop_front() {
                for &a in &self.out[v] {
                    let u = self.head[a];
                    if self.level[u] < 0 && self.cap[a] - self.flow[a] > EPS {
                        self.level[u] = self.level[v] + 1;
                        queue.push_back(u);
                    }
                }
            }
            if self.level[t] < 0 {
                break;
            }
            self.next.iter_mut().for_each(|x| *x = 0);
            loop {
                let pushed = self.augment(s, t, f64::INFINITY);
                if pushed <= EPS {
                    break;
                }
                total += pushed;
            }
        }
        for (s, &l) in side.iter_mut().zip(&self.level) {
            *s = l >= 0;
        }
        total
    }

    fn augment(&mut self, v: usize, t: usize, limit: f64) -> f64 {
        if v == t {
            return limit;
        }
        while self.next[v] < self.out[v].len() {
            let a = self.out[v][self.next[v]];
            let u = self.head[a];
            let room = self.cap[a] - self.flow[a];
            if room > 1e-9 && self.level[u] == self.level[v] + 1 {
                let pushed = self.augment(u, t, limit.min(room));
                if pushed > 1e-9 {
                    self.flow[a] += pushed;
                    self.flow[a ^ 1] -= pushed;
                    return pushed;
                }
            }
            self.next[v] += 1;
        }
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tsp::{Tsp, held_karp};

    /// A poll that never says stop.
    fn never() -> Poll<'static> {
        Poll::new(&|| false)
    }

    /// A dense symmetric point with the given edge values.
    fn point(n: usize, values: &[(usize, usize, f64)]) -> Vec<f64> {
        let mut x = vec![0.0; n * n];
        for &(a, b, v) in values {
            x[a * n + b] = v;
            x[b * n + a] = v;
        }
        x
    }

    #[test]
    fn subtour_sets_are_exactly_the_cuts_below_two() {
        // Two 4-cycles (edges at 0.9 and 1 in turn) joined by four edges
        // at 0.1: every degree is 2, one cut is 0.4, all others ≥ 2.
        let mut values: Vec<(usize, usize, f64)> = Vec::new();
        for base in [0, 4] {
            values.extend((0..4).map(|k| (base + k, base + (k + 1) % 4, if k % 2 == 0 { 0.9 } else { 1.0 })));
        }
        values.extend((0..4).map(|k| (k, k + 4, 0.1)));
        assert_eq!(subtour_sets(8, &point(8, &values), &never()), vec![vec![4, 5, 6, 7]]);
        // Without the joining edges: the component without node 0.
        assert_eq!(subtour_sets(8, &point(8, &values[..8]), &never()), vec![vec![4, 5, 6, 7]]);
        // A tour: every cut is at least 2.
        let tour: Vec<(usize, usize, f64)> = (0..8).map(|k| (k, (k + 1) % 8, 1.0)).collect();
        assert!(subtour_sets(8, &point(8, &tour), &never()).is_empty());
    }

    #[test]
    fn exact_blossoms_find_the_two_triangles() {
        // Two triangles at 1/2 joined by three edges at 1: the classic
        // point of the subtour polytope that violates a blossom by 1/2.
        let values = [
            (0, 1, 0.5),
            (1, 2, 0.5),
            (0, 2, 0.5),
            (3, 4, 0.5),
            (4, 5, 0.5),
            (3, 5, 0.5),
            (0, 3, 1.0),
            (1, 4, 1.0),
            (2, 5, 1.0),
        ];
        let x = point(6, &values);
        assert!(subtour_sets(6, &x, &never()).is_empty());
        let edges: Vec<(usize, usize)> = values.iter().map(|&(a, b, _)| (a, b)).collect();
        let found = exact_blossoms(6, &x, &edges, &[], &never());
        assert!(!found.is_empty());
        for comb in &found {
            assert_eq!(comb.violation(6, &x), 0.5, "{comb:?}");
        }
    }

    /// `L(π, μ)` at the multipliers `m` (degrees', then the cuts').
    fn lagrangian(n: usize, cost: &[f64], cuts: &[Comb], m: &[f64]) -> f64 {
        let mut w = cost.to_vec();
        let mut constant = -2.0 * m[..n].iter().sum::<f64>();
        for (k, cut) in cuts.iter().enumerate() {
            cut.add(n, &mut w, m[n + k]);
            constant -= m[n + k] * cut.rhs();
        }
        for i in 0..n {
            for j in 0..n {
                w[i * n + j] += m[i] + m[j];
            }
        }
        let mut edges = Vec::new();
        let mut degree = vec![0; n];
        super::super::cuts::one_tree(n, &w, &mut edges, &mut degree) + constant
    }

    #[test]
    fn the_lagrangian_at_the_duals_is_the_lp_value_and_below_the_optimum() {
        let mut compared = 0;
        for seed in 0..40 {
            for n in [8, 10, 12, 13] {
                let tsp = if seed % 2 == 0 {
                    Tsp::random_euclidean(n, 1000.0, seed)
                } else {
                    Tsp::random_matrix(n, 100, seed)
                };
                let cost: Vec<f64> = (0..n * n).map(|k| tsp.dist(k / n, k % n) as f64).collect();
                let (optimum, _) = held_karp(&tsp).unwrap();
                let found = lp_combs(n, &cost, &vec![0.0; n * n], 300, &never());
                let tolerance = 1e-6 * found.value.abs().max(1.0);
                assert!(
                    found.value <= optimum as f64 + tolerance,
                    "seed {seed} n {n}: {} > {optimum}",
                    found.value
                );
                let duals = found.duals.expect("the dual LP solves");
                let l = lagrangian(n, &cost, &found.cuts, &duals);
                assert!(l <= optimum as f64 + tolerance, "seed {seed} n {n}: L {l} > {optimum}");
                assert!((l - found.value).abs() <= tolerance, "seed {seed} n {n}: L {l}, LP {}", found.value);
                compared += 1;
            }
        }
        assert_eq!(compared, 160);
    }

    #[test]
    fn distances_up_to_the_largest_allowed_keep_the_lp_below_the_optimum() {
        // Random matrices scaled towards `MAX_DISTANCE`: the simplex works
        // on costs up to 2⁴⁰ (the cuts it returns are valid whatever its
        // accuracy; its value must still be no bound above the optimum).
        for seed in 0..20 {
            let n = 8 + (seed as usize % 5);
            let small = Tsp::random_matrix(n, 1000, seed);
            let scale = crate::tsp::MAX_DISTANCE / 1000;
            let dist: Vec<i64> = (0..n * n).map(|k| small.dist(k / n, k % n) * scale).collect();
            let tsp = Tsp::from_matrix(n, dist).unwrap();
            let cost: Vec<f64> = (0..n * n).map(|k| tsp.dist(k / n, k % n) as f64).collect();
            let (optimum, _) = held_karp(&tsp).unwrap();
            let found = lp_combs(n, &cost, &vec![0.0; n * n], 300, &never());
            if let Some(duals) = found.duals {
                let l = lagrangian(n, &cost, &found.cuts, &duals);
                assert!(l <= optimum as f64 * (1.0 + 1e-9), "seed {seed}: L {l} > {optimum}");
            }
        }
    }

    #[test]
    fn the_lp_on_its_thread_gives_what_it_gives_here_or_nothing_once_stopped() {
        let n = 60;
        let tsp = Tsp::random_euclidean(n, 1000.0, 5);
        let cost: Vec<f64> = (0..n * n).map(|k| tsp.dist(k / n, k % n) as f64).collect();
        let xbar = vec![0.0; n * n];
        let here = lp_combs(n, &cost, &xbar, 300, &never());
        let there = lp_combs_until(n, &cost, &xbar, 300, &never()).expect("not stopped");
        assert_eq!(
            (&here.cuts, here.subtours, here.duals.as_ref()),
            (&there.cuts, there.subtours, there.duals.as_ref())
        );
        assert_eq!(here.value.to_bits(), there.value.to_bits());
        // Stopped: no answer, and no LP started.
        let asked = std::cell::Cell::new(0);
        let stop = || {
            asked.set(asked.get() + 1);
            true
        };
        assert!(lp_combs_until(n, &cost, &xbar, 300, &Poll::new(&stop)).is_none());
        assert_eq!(asked.get(), 1);
    }

    #[test]
    fn pricing_makes_the_lagrangian_reach_the_lp_on_sparse_starts() {
        // 60 nodes: the LP starts from the 10 nearest neighbours only.
        for seed in 0..3 {
            let n = 60;
            let tsp = Tsp::random_euclidean(n, 1000.0, seed);
            let cost: Vec<f64> = (0..n * n).map(|k| tsp.dist(k / n, k % n) as f64).collect();
            let found = lp_combs(n, &cost, &vec![0.0; n * n], 300, &never());
            let duals = found.duals.expect("the dual LP solves");
            let l = lagrangian(n, &cost, &found.cuts, &duals);
            assert!((l - found.value).abs() <= 1e-6 * found.value, "seed {seed}: L {l}, LP {}", found.value);
        }
    }
}
