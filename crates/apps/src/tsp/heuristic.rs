//! The initial tour of the branch and bound: nearest neighbour from several
//! starts, each improved by 2-opt, Or-opt and Lin–Kernighan chains of 2-opt
//! moves to a local optimum, then an iterated local search from the best
//! (Martin, Otto and Felten's "large-step Markov chain", 1991): a random
//! local double-bridge kick, the same moves again on the nodes it touched,
//! kept if the tour is no longer. On the TSPLIB files of up to 439 nodes in
//! the benchmark instances this finds the optimum (att532: 0.07 % above),
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

/// The longest segment a kick moves (a third of the tour on small ones):
/// with 30, lin318 and rd400 stayed 0.3 % and 0.01 % above their optima
/// after `100·n` kicks; with 50 they reach them.
const KICK_SPAN: usize = 50;

/// The most 2-opt moves in one chain of [`Local::chain`].
const CHAIN_DEPTH: usize = 10;

/// The choices of the first added edge that [`Local::chain`] tries.
const CHAIN_BREADTH: usize = 5;

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
/// (20 000 for 200 nodes, under a second).
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

    /// 2-opt, Or-opt and chained moves around the queued nodes until none
    /// improves.
    fn optimise(&mut self) {
        while let Some(a) = self.queue.pop() {
            self.queued[a as usize] = false;
            if self.two_opt(a) || self.or_opt(a) || self.chain(a) {
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

    /// The 2-opt move that removes the tour edges `(t1, t2)` and `(t4, t3)`
    /// and adds `(t2, t3)` and `(t4, t1)`, where `t2` follows `t1` and `t3`
    /// follows `t4` in one direction of the tour: the path from `t2` to `t4`
    /// is reversed. Applied to the tour it left (`t1` next to `t4`, `t2` next
    /// to `t3`), the same call with `t2` and `t4` exchanged undoes it.
    fn exchange(&mut self, t1: u32, t2: u32, t4: u32) {
        if self.succ(t1) == t2 {
            self.reverse(t2, t4);
        } else {
            self.reverse(t4, t2);
        }
    }

    /// A Lin–Kernighan step (Lin and Kernighan, 1973) as a chain of 2-opt
    /// moves from `t1`: the edge `(t1, t2)` is removed, an edge `(t2, t3)`
    /// to a candidate of `t2` is added while the partial gain stays
    /// positive, the edge `(t4, t3)` that the 2-opt move removes makes `t4`
    /// the next `t2`, and the chain stops at depth [`CHAIN_DEPTH`] or when no
    /// candidate keeps the gain positive. The tour is cut back to the point
    /// of the chain where closing it with `(t2, t1)` gained most; if that
    /// gain is not positive, to where it began. An edge added in the chain
    /// is never removed by it. The first [`CHAIN_BREADTH`] choices of `t3`
    /// are tried at the first level (by `c(t4, t3) − c(t2, t3)`), one at the
    /// deeper ones.
    fn chain(&mut self, t1: u32) -> bool {
        if self.n < 8 {
            return false;
        }
        for first in [self.succ(t1), self.pred(t1)] {
            let forward = self.succ(t1) == first;
            let mut starts: Vec<(i64, u32, u32)> = Vec::with_capacity(self.k);
            for m in 0..self.k {
                let t3 = self.near[first as usize * self.k + m];
                if self.c(t1, first) - self.c(first, t3) <= 0 {
                    break;
                }
                let t4 = if forward { self.pred(t3) } else { self.succ(t3) };
                if t3 == t1 || t4 == first {
                    continue;
                }
                starts.push((self.c(t4, t3) - self.c(first, t3), t3, t4));
            }
            starts.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            for &(_, t3, t4) in starts.iter().take(CHAIN_BREADTH) {
                if self.chain_from(t1, first, t3, t4) {
                    return true;
                }
            }
        }
        false
    }

    /// The chain of [`Local::chain`] with its first move `(t1, t2, t3, t4)`
    /// given; `true` if it left the tour shorter.
    fn chain_from(&mut self, t1: u32, t2: u32, t3: u32, t4: u32) -> bool {
        // The moves applied, as (t2, t4) of each exchange, to undo them.
        let mut moves: Vec<(u32, u32)> = Vec::with_capacity(CHAIN_DEPTH);
        let mut added: Vec<(u32, u32)> = Vec::with_capacity(CHAIN_DEPTH);
        let (mut t2, mut t3, mut t4) = (t2, t3, t4);
        let mut gain = self.c(t1, t2);
        let (mut best, mut best_at) = (0i64, 0usize);
        loop {
            self.exchange(t1, t2, t4);
            moves.push((t2, t4));
            added.push((t2.min(t3), t2.max(t3)));
            gain += self.c(t4, t3) - self.c(t2, t3);
            t2 = t4;
            let closed = gain - self.c(t2, t1);
            if closed > best {
                (best, best_at) = (closed, moves.len());
            }
            if moves.len() == CHAIN_DEPTH {
                break;
            }
            // The next move: the candidate of t2 with the best c(t4, t3) − c(t2, t3).
            let forward = self.succ(t1) == t2;
            let mut next: Option<(i64, u32, u32)> = None;
            for m in 0..self.k {
                let c3 = self.near[t2 as usize * self.k + m];
                if gain - self.c(t2, c3) <= 0 {
                    break;
                }
                let c4 = if forward { self.pred(c3) } else { self.succ(c3) };
                if c3 == t1 || c4 == t2 || added.contains(&(c3.min(c4), c3.max(c4))) {
                    continue;
                }
                let score = self.c(c4, c3) - self.c(t2, c3);
                if next.is_none_or(|(s, _, _)| score > s) {
                    next = Some((score, c3, c4));
                }
            }
            let Some((_, c3, c4)) = next else { break };
            (t3, t4) = (c3, c4);
        }
        while moves.len() > best_at {
            let (a, b) = moves.pop().expect("a move to undo");
            self.exchange(t1, b, a);
        }
        if best_at == 0 {
            return false;
        }
        self.push(t1);
        for &(a, b) in &moves {
            self.push(a);
            self.push(b);
        }
        for &(a, b) in &added[..best_at] {
            self.push(a);
            self.push(b);
        }
        true
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
        let span = (n / 3).min(KICK_SPAN) as u64;
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
