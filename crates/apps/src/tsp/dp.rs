//! The Held–Karp dynamic program: the exact optimum in `O(2ⁿ n²)` time, the
//! cross-check of the branch and bound on small instances.

use super::Tsp;

/// The largest `n` [`held_karp`] accepts (its table has `2^(n−1)·(n−1)`
/// entries: 16 M for `n = 20`).
pub const HELD_KARP_MAX_N: usize = 20;

/// The optimal tour length and a tour, by dynamic programming over subsets
/// (Held and Karp, 1962): `best[S][j]` is the shortest path from node 0
/// through the set `S` ending at `j`. `None` if `n > HELD_KARP_MAX_N`.
/// Fixed edges are not supported (`None` if the instance has any).
///
/// ```
/// use treelb_apps::tsp::{held_karp, Tsp};
/// // A 4-cycle of length 4 with costly diagonals.
/// let tsp = Tsp::from_matrix(4, vec![0, 1, 9, 1, 1, 0, 1, 9, 9, 1, 0, 1, 1, 9, 1, 0]).unwrap();
/// let (length, tour) = held_karp(&tsp).unwrap();
/// assert_eq!(length, 4);
/// assert_eq!(tsp.tour_length(&tour), Some(4));
/// ```
pub fn held_karp(tsp: &Tsp) -> Option<(i64, Vec<u32>)> {
    let n = tsp.n();
    if n > HELD_KARP_MAX_N || !tsp.fixed_edges.is_empty() {
        return None;
    }
    if n <= 3 {
        let tour: Vec<u32> = (0..n as u32).collect();
        return Some((tsp.tour_length(&tour)?, tour));
    }
    // Nodes 1..n are bits 0..m of the subset.
    let m = n - 1;
    let full = (1usize << m) - 1;
    const INF: i64 = i64::MAX / 4;
    let mut best = vec![INF; (1 << m) * m];
    let mut from = vec![u8::MAX; (1 << m) * m];
    for j in 0..m {
        best[(1 << j) * m + j] = tsp.dist(0, j + 1);
    }
    for set in 1..=full {
        for j in 0..m {
            if set >> j & 1 == 0 {
                continue;
            }
            let here = best[set * m + j];
            if here >= INF {
                continue;
            }
            let mut rest = full & !set;
            while rest != 0 {
                let k = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let next = set | 1 << k;
                let cand = here + tsp.dist(j + 1, k + 1);
                if cand < best[next * m + k] {
                    best[next * m + k] = cand;
                    from[next * m + k] = j as u8;
                }
            }
        }
    }
    let (length, mut last) = (0..m).map(|j| (best[full * m + j] + tsp.dist(j + 1, 0), j)).min()?;
    let mut tour = Vec::with_capacity(n);
    let mut set = full;
    loop {
        tour.push(last as u32 + 1);
        let prev = from[set * m + last];
        set &= !(1 << last);
        if prev == u8::MAX {
            break;
        }
        last = prev as usize;
    }
    tour.push(0);
    tour.reverse();
    Some((length, tour))
}
