//! The initial tour of the branch and bound: nearest neighbour from several
//! starts, each improved by 2-opt and Or-opt to a local optimum, then an
//! iterated local search from the best (Martin, Otto and Felten's
//! "large-step Markov chain", 1991): a random local double-bridge kick,
//! 2-opt and Or-opt again on the nodes it touched, kept if the tour is no
//! longer. On the TSPLIB instances up to 226 nodes this finds the optimum,
//! so that the branch and bound only has to prove it.
//!
//! Fixed edges are honoured by giving them a very negative cost during the
//! local search; a tour that still misses one is discarded.
//!
//! The moves use candidate lists (the 10 nearest neighbours of each node)
//! and "don't look" bits (a queue of nodes whose surroundings changed), so
//! one kick costs about a microsecond per node it touches, not a pass over
//! all pairs.

use super::Tsp;
use crate::splitmix::SplitMix64;

/// The cost bonus of a fixed edge in the local search: larger than any tour.
const FIXED_BONUS: i64 = 1 << 50;

/// Candidate neighbours per node.
const NEAR: usize = 10;

/// A good tour and its length: nearest neighbour from up to `starts`
/// start nodes (spread over `0..n`), each followed by 2-opt and Or-opt
/// moves until none improves, then [`kicks_for`]`(n)` kicks of the iterated
/// local search from the best. Deterministic (a fixed seed). `None` only if
/// no tour contains all fixed edges.
///
/// ```
/// use treelb_apps::tsp::{heuristic, Tsp};
/// let tsp = Tsp::random_euclidean(30, 1000.0, 1);
/// let (length, tour) = heuristic::initial_tour(&tsp, 8).unwrap();
/// assert_eq!(tsp.tour_length(&tour), Some(length));
/// ```
pub fn initial_tour(tsp: &Tsp, starts: usize) -> Option<(i64, Vec<u32>)> {
    improved_tour(tsp, starts, kicks_for(tsp.n()))
}

/// The number of kicks [`initial_tour`] makes for `n` nodes: `100·n`
/// (20 000 for 200 nodes, a fraction of a second; on every TSPLIB file of
/// 76 to 226 nodes the optimum is reached after at most `50·n`).
pub fn kicks_for(n: usize) -> usize {
    100 * n
}

/// [`initial_tour`] with a given number of kicks (0: the local optima of
/// the nearest-neighbour tours only).
pub fn improved_tour(tsp: &Tsp, starts: usize, kicks: usize) -> Option<(i64, Vec<u32>)> {
    improved_tour_until(tsp, starts, kicks, &|| false)
}

/// How many kicks [`improved_tour_until`] makes between two looks at its
/// stop (a kick costs about a microsecond per node it touches).
const KICKS_PER_CHECK: usize = 64;

/// [`improved_tour`] that looks at `stop` after each start but the first
/// and every 64 kicks, and returns the best tour found so far once it says
/// `true`: the first start is always completed, so a stopped search still
/// has a tour (the local optimum of one nearest-neighbour tour; on 2,000
/// random points a start takes about a tenth of the full search, which runs
/// for seconds).
///
/// ```
/// use treelb_apps::tsp::{heuristic, Tsp};
/// let tsp = Tsp::random_euclidean(200, 1000.0, 1);
/// let (length, tour) = heuristic::improved_tour_until(&tsp, 16, 20_000, &|| true).unwrap();
/// assert_eq!(tsp.tour_length(&tour), Some(length));
/// ```
pub fn improved_tour_until(
    tsp: &Tsp,
    starts: usize,
    kicks: usize,
    stop: &dyn Fn() -> bool,
) -> Option<(i64, Vec<u32>)> {
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
    let mut ls = Local::new(&cost, n);
    for s in 0..starts {
        if s > 0 && stop() {
            break;
        }
        let start = s * n / starts;
        ls.set(nearest_neighbour(&cost, n, start));
        ls.optimise_all();
        let length = ls.length();
        if best.as_ref().is_none_or(|(b, _)| length < *b) {
            best = Some((length, ls.tour.clone()));
        }
    }
    let (mut length, tour) = best?;
    ls.set(tour);
    let mut rng = SplitMix64::new(0x7395_0d1e_5eed ^ n as u64);
    let mut saved = ls.tour.clone();
    for k in 0..kicks {
        if k % KICKS_PER_CHECK == 0 && stop() {
            break;
        }
        ls.kick(&mut rng);
        ls.optimise();
        let l = ls.length();
        if l <= length {
            length = l;
            saved.clone_from(&ls.tour);
        } else {
            ls.set(saved.clone());
        }
    }
    let tour = ls.tour;
    tsp.tour_length(&tour).map(|l| (l, normalise(tour)))
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

/// A tour under local search: the order, each node's position, the
/// candidate lists and the queue of nodes to look at.
struct Local<'a> {
    n: usize,
    cost: &'a [i64],
    /// `NEAR` (or `n − 1`) nearest neighbours of each node, nearest first.
    near: Vec<u32>,
    k: usize,
    tour: Vec<u32>,
    pos: Vec<usize>,
    queue: Vec<u32>,
    queued: Vec<bool>,
}

impl<'a> Local<'a> {
    fn new(cost: &'a [i64], n: usize) -> Self {
        let k = NEAR.min(n - 1);
        let mut near = Vec::with_capacity(n * k);
        for a in 0..n {
            let mut others: Vec<u32> = (0..n as u32).filter(|&b| b as usize != a).collect();
            // The k nearest, in order (the keys are distinct): a selection,
            // then a sort of those k only (a full sort of every row was a
            // third of a second at n = 2,000).
            let key = |&b: &u32| (cost[a * n + b as usize], b);
            if k < others.len() {
                others.select_nth_unstable_by_key(k, key);
            }
            others[..k].sort_unstable_by_key(key);
            near.extend_from_slice(&others[..k]);
        }
        Local {
            n,
            cost,
            near,
            k,
            tour: Vec::new(),
            pos: vec![0; n],
            queue: Vec::new(),
            queued: vec![false; n],
        }
    }

    fn set(&mut self, tour: Vec<u32>) {
        self.tour = tour;
        for (i, &v) in self.tour.iter().enumerate() {
            self.pos[v as usize] = i;
        }
    }

    #[inline]
    fn c(&self, a: u32, b: u32) -> i64 {
        self.cost[a as usize * self.n + b as usize]
    }

    #[inline]
    fn succ(&self, a: u32) -> u32 {
        let p = self.pos[a as usize] + 1;
        self.tour[if p == self.n { 0 } else { p }]
    }

    #[inline]
    fn pred(&self, a: u32) -> u32 {
        let p = self.pos[a as usize];
        self.tour[if p == 0 { self.n - 1 } else { p - 1 }]
    }

    fn length(&self) -> i64 {
        (0..self.n).map(|k| self.c(self.tour[k], self.tour[(k + 1) % self.n])).sum()
    }

    fn push(&mut self, v: u32) {
        if !std::mem::replace(&mut self.queued[v as usize], true) {
            self.queue.push(v);
        }
    }

    /// Reverses the tour between the nodes `from` and `to` (in tour order,
    /// both included), reversing the complement instead when it is shorter.
    fn reverse(&mut self, from: u32, to: u32) {
        let n = self.n;
        let (mut i, mut j) = (self.pos[from as usize], self.pos[to as usize]);
        let mut len = (j + n - i) % n + 1;
        if 2 * len > n {
            // The complement: from succ(to) to pred(from).
            (i, j) = ((j + 1) % n, (i + n - 1) % n);
            len = n - len;
        }
        for _ in 0..len / 2 {
            let (a, b) = (self.tour[i], self.tour[j]);
            self.tour[i] = b;
            self.tour[j] = a;
            self.pos[b as usize] = i;
            self.pos[a as usize] = j;
            i = if i + 1 == n { 0 } else { i + 1 };
            j = if j == 0 { n - 1 } else { j - 1 };
        }
    }

    /// Local search from every node.
    fn optimise_all(&mut self) {
        for v in 0..self.n as u32 {
            self.push(v);
        }
        self.optimise();
    }

    /// 2-opt and Or-opt moves around the queued nodes until none improves.
    fn optimise(&mut self) {
        while let Some(a) = self.queue.pop() {
            self.queued[a as usize] = false;
            if self.two_opt(a) || self.or_opt(a) {
                self.push(a);
            }
        }
    }

    /// The first improving 2-opt move that adds an edge from `a` to one of
    /// its candidates.
    fn two_opt(&mut self, a: u32) -> bool {
        for forward in [true, false] {
            let sa = if forward { self.succ(a) } else { self.pred(a) };
            let d_a = self.c(a, sa);
            for m in 0..self.k {
                let b = self.near[a as usize * self.k + m];
                let d_ab = self.c(a, b);
                if d_ab >= d_a {
                    break;
                }
                let sb = if forward { self.succ(b) } else { self.pred(b) };
                if b == sa || sb == a {
                    continue;
                }
                let gain = d_a + self.c(b, sb) - d_ab - self.c(sa, sb);
                if gain > 0 {
                    if forward {
                        self.reverse(sa, b);
                    } else {
                        self.reverse(b, sa);
                    }
                    for v in [a, sa, b, sb] {
                        self.push(v);
                    }
                    return true;
                }
            }
        }
        false
    }

    /// The first improving Or-opt move of a segment of 1 to 3 nodes that
    /// starts or ends at `a`, next to one of the candidates of its ends.
    fn or_opt(&mut self, a: u32) -> bool {
        let n = self.n;
        for len in 1..=3usize {
            if n < len + 3 {
                break;
            }
            for starts_at_a in [true, false] {
                if len == 1 && !starts_at_a {
                    continue;
                }
                let first = if starts_at_a { a } else { self.tour[(self.pos[a as usize] + n + 1 - len) % n] };
                let p0 = self.pos[first as usize];
                let last = self.tour[(p0 + len - 1) % n];
                let p = self.pred(first);
                let q = self.succ(last);
                let removal = self.c(p, first) + self.c(last, q) - self.c(p, q);
                if removal <= 0 {
                    continue;
                }
                let inside = |pos: &[usize], v: u32| (pos[v as usize] + n - p0) % n < len;
                for end in [first, last] {
                    for m in 0..self.k {
                        let c = self.near[end as usize * self.k + m];
                        if self.c(end, c) >= removal {
                            break;
                        }
                        if inside(&self.pos, c) {
                            continue;
                        }
                        // `end` next to `c`: between (c, succ c) or (pred c, c).
                        for after in [true, false] {
                            let (x, y) = if after { (c, self.succ(c)) } else { (self.pred(c), c) };
                            if inside(&self.pos, x) || inside(&self.pos, y) {
                                continue;
                            }
                            // x – seg – y, with `end` on c's side.
                            let (fx, ly) =
                                if (end == first) == after { (first, last) } else { (last, first) };
                            let insertion = self.c(x, fx) + self.c(ly, y) - self.c(x, y);
                            if insertion < removal {
                                self.move_segment(p0, len, x, fx == last);
                                for v in [p, q, first, last, x, y] {
                                    self.push(v);
                                }
                                return true;
                            }
                        }
                    }
                }
            }
        }
        false
    }

    /// Moves the `len` nodes from position `p0` to just after `x`,
    /// reversed or not.
    fn move_segment(&mut self, p0: usize, len: usize, x: u32, reversed: bool) {
        let n = self.n;
        let mut seg: Vec<u32> = (0..len).map(|k| self.tour[(p0 + k) % n]).collect();
        if reversed {
            seg.reverse();
        }
        let mut rest: Vec<u32> = (0..n - len).map(|k| self.tour[(p0 + len + k) % n]).collect();
        let at = rest.iter().position(|&w| w == x).expect("x is outside the segment") + 1;
        rest.splice(at..at, seg);
        self.set(rest);
    }

    /// A double bridge on three short consecutive segments at a random
    /// place (`A B C D → A C B D`), queueing the nodes at its cuts.
    fn kick(&mut self, rng: &mut SplitMix64) {
        let n = self.n;
        if n < 8 {
            return;
        }
        let span = (n / 3).min(30) as u64;
        let start = rng.below(n as u64) as usize;
        let l1 = 1 + rng.below(span) as usize;
        let l2 = 1 + rng.below(span) as usize;
        // From the node at `start`: segments B and C, then the rest.
        let at = |k: usize| self.tour[(start + k) % n];
        let head = at(0);
        let b: Vec<u32> = (1..=l1).map(at).collect();
        let c: Vec<u32> = (l1 + 1..=l1 + l2).map(at).collect();
        let next = at(l1 + l2 + 1);
        let rest: Vec<u32> = (l1 + l2 + 1..n).map(at).collect();
        let mut tour = Vec::with_capacity(n);
        tour.push(head);
        tour.extend_from_slice(&c);
        tour.extend_from_slice(&b);
        tour.extend_from_slice(&rest);
        self.set(tour);
        for v in [head, b[0], b[l1 - 1], c[0], c[l2 - 1], next] {
            self.push(v);
        }
    }
}
