//! The initial tour of the branch and bound: nearest neighbour from several
//! starts, each improved by 2-opt and Or-opt to a local optimum; the best.
//!
//! Fixed edges are honoured by giving them a very negative cost during the
//! local search; a tour that still misses one is discarded.

use super::Tsp;

/// The cost bonus of a fixed edge in the local search: larger than any tour.
const FIXED_BONUS: i64 = 1 << 50;

/// A good tour and its length: nearest neighbour from up to `starts`
/// start nodes (spread over `0..n`), each followed by 2-opt and Or-opt
/// moves until none improves. `None` only if no tour contains all fixed
/// edges.
///
/// ```
/// use treelb_apps::tsp::{heuristic, Tsp};
/// let tsp = Tsp::random_euclidean(30, 1000.0, 1);
/// let (length, tour) = heuristic::initial_tour(&tsp, 8).unwrap();
/// assert_eq!(tsp.tour_length(&tour), Some(length));
/// ```
pub fn initial_tour(tsp: &Tsp, starts: usize) -> Option<(i64, Vec<u32>)> {
    let n = tsp.n();
    if n <= 3 {
        let tour: Vec<u32> = (0..n as u32).collect();
        return tsp.tour_length(&tour).map(|l| (l, tour));
    }
    let mut cost = vec![0i64; n * n];
    for i in 0..n {
        for j in 0..n {
            cost[i * n + j] = tsp.dist(i, j);
        }
    }
    for &(a, b) in &tsp.fixed_edges {
        let (a, b) = (a as usize, b as usize);
        cost[a * n + b] -= FIXED_BONUS;
        cost[b * n + a] -= FIXED_BONUS;
    }
    let starts = starts.clamp(1, n);
    let mut best: Option<(i64, Vec<u32>)> = None;
    for s in 0..starts {
        let start = s * n / starts;
        let mut tour = nearest_neighbour(&cost, n, start);
        local_search(&cost, n, &mut tour);
        let Some(length) = tsp.tour_length(&tour) else {
            continue;
        };
        if best.as_ref().is_none_or(|(b, _)| length < *b) {
            best = Some((length, tour));
        }
    }
    best.map(|(l, t)| (l, normalise(t)))
}

/// The length of the nearest-neighbour tour from node 0 (ignoring fixed
/// edges): a quick estimate of the optimum.
pub fn nearest_neighbour_length(tsp: &Tsp) -> i64 {
    let n = tsp.n();
    let cost: Vec<i64> = (0..n * n).map(|k| tsp.dist(k / n, k % n)).collect();
    let tour = nearest_neighbour(&cost, n, 0);
    (0..n).map(|k| tsp.dist(tour[k] as usize, tour[(k + 1) % n] as usize)).sum()
}

/// The tour rotated to start at node 0, in the direction where the second
/// node is smaller than the last.
pub fn normalise(mut tour: Vec<u32>) -> Vec<u32> {
    if let Some(p) = tour.iter().position(|&v| v == 0) {
        tour.rotate_left(p);
    }
    if tour.len() > 2 && tour[1] > tour[tour.len() - 1] {
        tour[1..].reverse();
    }
    tour
}

fn nearest_neighbour(cost: &[i64], n: usize, start: usize) -> Vec<u32> {
    let mut visited = vec![false; n];
    let mut tour = Vec::with_capacity(n);
    let mut at = start;
    visited[at] = true;
    tour.push(at as u32);
    for _ in 1..n {
        let next = (0..n).filter(|&j| !visited[j]).min_by_key(|&j| cost[at * n + j]).expect("a node is left");
        visited[next] = true;
        tour.push(next as u32);
        at = next;
    }
    tour
}

/// 2-opt and Or-opt (segments of 1 to 3 nodes, either orientation) until
/// no move improves the tour.
fn local_search(cost: &[i64], n: usize, tour: &mut Vec<u32>) {
    let c = |a: u32, b: u32| cost[a as usize * n + b as usize];
    loop {
        let mut improved = false;
        // 2-opt: replace (t[i], t[i+1]) and (t[j], t[j+1]) by (t[i], t[j])
        // and (t[i+1], t[j+1]).
        for i in 0..n - 1 {
            for j in i + 2..n {
                if i == 0 && j == n - 1 {
                    continue;
                }
                let (a, b, x, y) = (tour[i], tour[i + 1], tour[j], tour[(j + 1) % n]);
                if c(a, x) + c(b, y) < c(a, b) + c(x, y) {
                    tour[i + 1..=j].reverse();
                    improved = true;
                }
            }
        }
        // Or-opt: move the segment t[i..i+len] between two other neighbours.
        'or: for len in 1..=3usize.min(n - 2) {
            for i in 0..n {
                let seg: Vec<u32> = (0..len).map(|k| tour[(i + k) % n]).collect();
                let p = tour[(i + n - 1) % n];
                let q = tour[(i + len) % n];
                let removal = c(p, seg[0]) + c(seg[len - 1], q) - c(p, q);
                for k in 0..n - len - 1 {
                    // Consecutive (u, v) outside the segment, starting after q.
                    let u = tour[(i + len + k) % n];
                    let v = tour[(i + len + k + 1) % n];
                    let forward = c(u, seg[0]) + c(seg[len - 1], v) - c(u, v);
                    let backward = c(u, seg[len - 1]) + c(seg[0], v) - c(u, v);
                    if forward.min(backward) < removal {
                        let mut rest: Vec<u32> = (0..n - len).map(|m| tour[(i + len + m) % n]).collect();
                        let at = rest.iter().position(|&w| w == u).expect("u is outside the segment") + 1;
                        let mut moved = seg.clone();
                        if backward < forward {
                            moved.reverse();
                        }
                        rest.splice(at..at, moved);
                        *tour = rest;
                        improved = true;
                        break 'or;
                    }
                }
            }
        }
        if !improved {
            return;
        }
    }
}
