//! A cutting-plane LP at the root: a better point to separate combs on.
//!
//! The combs of relax-and-cut ([`super::cuts`]) are found on the average
//! `x̄` of the ascent's 1-trees, a blurred estimate of the subtour LP's
//! optimum: on kroA150, d198 and kroA200 the odd-component heuristic finds
//! few violated combs there. This module solves the LP itself,
//!
//! ```text
//! min c x   subject to   x(δ(v)) = 2 for every node v,   0 ≤ x ≤ 1,
//!                        x(δ(S)) ≥ 2 for the subtour cuts found,
//!                        a x ≤ b     for the combs found,
//! ```
//!
//! over a sparse set of edges (each node's nearest neighbours and the
//! support of `x̄`), with [`microlp`]'s simplex, and alternates it with
//! separation on its optimal point `x*`: exact subtour separation (the
//! connected components of the support of `x*`, then the cuts of the
//! phases of Stoer and Wagner's minimum-cut algorithm that are below 2),
//! and the comb heuristics of [`super::cuts`] on `x*`.
//!
//! Why this keeps the search exact: the LP decides nothing. Its value is
//! not used as a bound (over a sparse edge set it need not be one), and
//! the only thing it hands on is a list of comb inequalities, each valid
//! for every tour whatever point it was separated on. They join the
//! Lagrangian of relax-and-cut with multipliers `μ ≥ 0`, where every
//! `(π, μ)` gives a lower bound (the proof is in [`super::cuts`]); an LP
//! that fails or stops early only leaves fewer combs.

use microlp::{ComparisonOp, LinearExpr, OptimizationDirection, Problem, Solution, Variable};

use super::cuts::{Comb, separate};

/// Each node's nearest neighbours in the LP's edge set.
const NEIGHBOURS: usize = 10;

/// At most this many subtour cuts are added per round.
const MAX_SUBTOURS: usize = 60;

/// What the LP's rounds found.
pub(super) struct LpCuts {
    /// The combs violated by one of the LP's points, in the order found.
    pub combs: Vec<Comb>,
    /// The subtour cuts added to the LP.
    pub subtours: usize,
    /// The LP's last optimum (over its sparse edge set).
    pub value: f64,
}

/// Up to `rounds` rounds of LP solution and separation at the root of an
/// instance with dense costs `cost`; `xbar` (dense) adds its support to the
/// LP's edges. Returns what was found before the LP stopped (it stops when
/// no cut is violated, after `rounds` rounds, or if the simplex fails).
pub(super) fn lp_combs(n: usize, cost: &[f64], xbar: &[f64], rounds: usize) -> LpCuts {
    let mut out = LpCuts { combs: Vec::new(), subtours: 0, value: f64::NAN };
    // The edge set.
    let mut var_of = vec![usize::MAX; n * n];
    let mut edges: Vec<(usize, usize)> = Vec::new();
    let mut add_edge = |i: usize, j: usize, edges: &mut Vec<(usize, usize)>| {
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
            add_edge(i, j, &mut edges);
        }
        for j in 0..n {
            if xbar[i * n + j] > 1e-3 {
                add_edge(i, j, &mut edges);
            }
        }
    }
    let mut problem = Problem::new(OptimizationDirection::Minimize);
    let vars: Vec<Variable> = edges.iter().map(|&(a, b)| problem.add_var(cost[a * n + b], (0.0, 1.0))).collect();
    let mut incident: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (e, &(a, b)) in edges.iter().enumerate() {
        incident[a].push(e);
        incident[b].push(e);
    }
    for list in &incident {
        let expr: LinearExpr = list.iter().map(|&e| (vars[e], 1.0)).collect();
        problem.add_constraint(expr, ComparisonOp::Eq, 2.0);
    }
    let Some(mut solution) = problem.solve().ok().and_then(|o| o.into_solution().ok()) else {
        return out;
    };
    let mut x = vec![0.0; n * n];
    for _ in 0..rounds {
        out.value = solution.objective();
        x.iter_mut().for_each(|v| *v = 0.0);
        for (e, &(a, b)) in edges.iter().enumerate() {
            let v = solution.var_value(vars[e]);
            x[a * n + b] = v;
            x[b * n + a] = v;
        }
        let mut rows: Vec<(LinearExpr, ComparisonOp, f64)> = Vec::new();
        let mut inside = vec![false; n];
        for set in subtour_sets(n, &x) {
            set.iter().for_each(|&v| inside[v as usize] = true);
            let expr: LinearExpr = (edges.iter().enumerate())
                .filter(|&(_, &(a, b))| inside[a] != inside[b])
                .map(|(e, _)| (vars[e], 1.0))
                .collect();
            set.iter().for_each(|&v| inside[v as usize] = false);
            rows.push((expr, ComparisonOp::Ge, 2.0));
            out.subtours += 1;
        }
        for comb in separate(n, &x, &out.combs) {
            let mut count = vec![0.0; edges.len()];
            for set in comb.sets() {
                set.iter().for_each(|&v| inside[v as usize] = true);
                for (e, &(a, b)) in edges.iter().enumerate() {
                    if inside[a] && inside[b] {
                        count[e] += 1.0;
                    }
                }
                set.iter().for_each(|&v| inside[v as usize] = false);
            }
            let expr: LinearExpr =
                count.iter().enumerate().filter(|&(_, &c)| c != 0.0).map(|(e, &c)| (vars[e], c)).collect();
            rows.push((expr, ComparisonOp::Le, comb.rhs()));
            out.combs.push(comb);
        }
        if rows.is_empty() {
            break;
        }
        for (expr, op, rhs) in rows {
            match resolve(solution, expr, op, rhs) {
                Some(s) => solution = s,
                None => return out,
            }
        }
    }
    out
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
/// only if every cut is at least 2).
pub(super) fn subtour_sets(n: usize, x: &[f64]) -> Vec<Vec<u32>> {
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
        sets.extend(by_root.into_iter().enumerate().filter(|(r, s)| *r != root0 && !s.is_empty()).map(|(_, s)| s));
        sets.truncate(MAX_SUBTOURS);
        return sets;
    }
    let mut w = x.to_vec();
    let mut groups: Vec<Vec<u32>> = (0..n as u32).map(|v| vec![v]).collect();
    let mut active: Vec<usize> = (0..n).collect();
    let mut key = vec![0.0; n];
    let mut added = vec![false; n];
    while active.len() > 1 {
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
