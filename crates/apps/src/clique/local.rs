//! A local search for large cliques, run in short bursts beside the branch
//! and bound to give it a better incumbent sooner than the search itself
//! would find one.
//!
//! It is Pullan and Hoos's dynamic local search (DLS-MC): the current clique
//! `C` grows by a vertex adjacent to all of `C` while there is one (the
//! expansion phase); then a vertex adjacent to all of `C` but one vertex
//! `w` is swapped in for `w` (the plateau phase: cliques of the same size),
//! as long as no vertex can be added, a vertex dropped during this plateau
//! is not taken back, and `C` still shares a vertex with the clique the
//! plateau started from. When the plateau ends without a larger clique, the
//! vertices of `C` gain a penalty, and every [`PENALTY_DELAY`] such rounds
//! all penalties decay by one; `C` restarts from the vertex added last.
//! Every choice takes a vertex of least penalty (ties at random), which
//! steers the walk away from the cliques it keeps returning to — the
//! graphs of the brock family hide their maximum clique among vertices of
//! low degree, exactly where greedy choices do not go.
//!
//! Every step keeps, for each vertex outside `C`, the number of vertices of
//! `C` it is *not* adjacent to (`miss`), updated only along the non-edges of
//! the vertex added or removed; the vertices with `miss = 0` (can be added)
//! and `miss = 1` (can be swapped in) are kept as bitsets. A step costs
//! `O(n / 64 + non-degree)`.
//!
//! The search only proposes cliques: the caller offers them to the
//! incumbent like any other clique, so it can make the branch and bound
//! faster, never its answer different.

use treelb::rng::SplitMix64;

use super::graph::WORD;

/// Penalties decay once every this many plateaus (DLS-MC's penalty delay).
const PENALTY_DELAY: u32 = 2;

/// The state of the local search on an adjacency bitset graph; the graph
/// itself is passed to each call.
#[derive(Debug)]
pub(super) struct LocalSearch {
    n: usize,
    words: usize,
    /// Vertices of the current clique, in no order.
    clique: Vec<usize>,
    /// `pos[v]`: where `v` is in `clique`, or `usize::MAX`.
    pos: Vec<usize>,
    /// Vertices outside the clique: how many clique vertices they miss.
    miss: Vec<u32>,
    /// Outside vertices with `miss = 0`.
    add: Vec<u64>,
    /// Outside vertices with `miss = 1`.
    swap: Vec<u64>,
    /// Vertices dropped during the current plateau.
    dropped: Vec<u64>,
    /// The clique the current plateau started from, and how many of its
    /// vertices the current clique still has.
    plateau_start: Vec<u64>,
    overlap: usize,
    penalty: Vec<u32>,
    rounds: u32,
    last_added: usize,
    /// The largest clique seen.
    best: Vec<usize>,
    rng: SplitMix64,
    /// A scratch copy of a candidate set.
    set: Vec<u64>,
    /// Vertices added and removed so far: the measure of work.
    moves: u64,
    /// Penalties decay once every this many plateaus.
    penalty_delay: u32,
}

impl LocalSearch {
    /// A search on `n` vertices (`words` words per adjacency row) that
    /// starts from the clique `start` of the graph `adj`.
    pub(super) fn new(adj: &[u64], n: usize, words: usize, start: &[usize], seed: u64) -> Self {
        let mut s = LocalSearch {
            n,
            words,
            clique: Vec::new(),
            pos: vec![usize::MAX; n],
            miss: vec![0; n],
            add: vec![0; words],
            swap: vec![0; words],
            dropped: vec![0; words],
            plateau_start: vec![0; words],
            overlap: 0,
            penalty: vec![0; n],
            rounds: 0,
            last_added: 0,
            best: start.to_vec(),
            rng: SplitMix64::new(seed),
            set: vec![0; words],
            moves: 0,
            penalty_delay: PENALTY_DELAY,
        };
        for v in 0..n {
            s.file(v);
        }
        for &v in start {
            s.insert(adj, v);
        }
        s
    }

    /// The same search with penalties that decay once every `delay`
    /// plateaus instead of [`PENALTY_DELAY`]: with 1, a penalty decays in
    /// the plateau that gave it and the walk has none (DLS-MC's best
    /// setting on the graphs of the gen family, Pullan and Hoos, 2006).
    pub(super) fn with_penalty_delay(mut self, delay: u32) -> Self {
        self.penalty_delay = delay.max(1);
        self
    }

    /// The largest clique seen so far.
    pub(super) fn best(&self) -> &[usize] {
        &self.best
    }

    fn row<'a>(&self, adj: &'a [u64], v: usize) -> &'a [u64] {
        &adj[v * self.words..][..self.words]
    }

    /// Puts outside vertex `v` in the add or swap set as its `miss` says.
    fn file(&mut self, v: usize) {
        let (i, bit) = (v / WORD, 1u64 << (v % WORD));
        self.add[i] &= !bit;
        self.swap[i] &= !bit;
        match self.miss[v] {
            0 => self.add[i] |= bit,
            1 => self.swap[i] |= bit,
            _ => {}
        }
    }

    /// Adds `delta` to the `miss` of every outside vertex not adjacent to
    /// `u` (but `u`).
    fn shift_non_neighbours(&mut self, adj: &[u64], u: usize, delta: i32) {
        self.moves += 1;
        for i in 0..self.words {
            let valid = if (i + 1) * WORD <= self.n { !0 } else { (1u64 << (self.n % WORD)) - 1 };
            let mut x = !adj[u * self.words + i] & valid;
            if i == u / WORD {
                x &= !(1 << (u % WORD));
            }
            while x != 0 {
                let v = i * WORD + x.trailing_zeros() as usize;
                x &= x - 1;
                if self.pos[v] == usize::MAX {
                    self.miss[v] = self.miss[v].wrapping_add_signed(delta);
                    self.file(v);
                }
            }
        }
    }

    /// Adds `u`, which is adjacent to every clique vertex.
    fn insert(&mut self, adj: &[u64], u: usize) {
        debug_assert_eq!(self.miss[u], 0);
        self.pos[u] = self.clique.len();
        self.clique.push(u);
        self.last_added = u;
        self.add[u / WORD] &= !(1 << (u % WORD));
        self.swap[u / WORD] &= !(1 << (u % WORD));
        if self.plateau_start[u / WORD] & (1 << (u % WORD)) != 0 {
            self.overlap += 1;
        }
        self.shift_non_neighbours(adj, u, 1);
    }

    /// Removes clique vertex `u`; it becomes addable (it is adjacent to the
    /// rest of the clique).
    fn remove(&mut self, adj: &[u64], u: usize) {
        let p = self.pos[u];
        self.clique.swap_remove(p);
        if p < self.clique.len() {
            self.pos[self.clique[p]] = p;
        }
        self.pos[u] = usize::MAX;
        self.miss[u] = 0;
        self.file(u);
        if self.plateau_start[u / WORD] & (1 << (u % WORD)) != 0 {
            self.overlap -= 1;
        }
        self.shift_non_neighbours(adj, u, -1);
    }

    /// A vertex of `self.set` of least penalty, ties at random.
    fn pick(&mut self) -> Option<usize> {
        let (mut best, mut least, mut ties) = (None, u32::MAX, 0u64);
        for i in 0..self.words {
            let mut x = self.set[i];
            while x != 0 {
                let v = i * WORD + x.trailing_zeros() as usize;
                x &= x - 1;
                let p = self.penalty[v];
                if p < least {
                    (best, least, ties) = (Some(v), p, 1);
                } else if p == least {
                    ties += 1;
                    if self.rng.next_u64().is_multiple_of(ties) {
                        best = Some(v);
                    }
                }
            }
        }
        best
    }

    /// Adds vertices while one can be added; whether the best clique grew.
    fn expand(&mut self, adj: &[u64]) -> bool {
        let mut grew = false;
        loop {
            self.set.copy_from_slice(&self.add);
            let Some(u) = self.pick() else { return grew };
            self.insert(adj, u);
            if self.clique.len() > self.best.len() {
                self.best.clone_from(&self.clique);
                grew = true;
            }
        }
    }

    /// Runs until about `moves` vertices have been added or removed;
    /// whether the best clique grew.
    pub(super) fn run(&mut self, adj: &[u64], moves: u64) -> bool {
        if self.n == 0 {
            return false;
        }
        let mut grew = false;
        let end = self.moves + moves;
        while self.moves < end {
            grew |= self.expand(adj);
            // The plateau: swaps while nothing can be added.
            self.dropped.fill(0);
            self.plateau_start.fill(0);
            for &v in &self.clique {
                self.plateau_start[v / WORD] |= 1 << (v % WORD);
            }
            self.overlap = self.clique.len();
            while self.overlap > 0 && self.moves < end {
                for i in 0..self.words {
                    self.set[i] = self.swap[i] & !self.dropped[i];
                }
                let Some(u) = self.pick() else { break };
                let row = self.row(adj, u);
                let w = self.clique.iter().copied().find(|&w| row[w / WORD] & (1 << (w % WORD)) == 0);
                let w = w.expect("a swap vertex misses one clique vertex");
                self.remove(adj, w);
                self.dropped[w / WORD] |= 1 << (w % WORD);
                self.insert(adj, u);
                if self.add.iter().any(|&x| x != 0) {
                    grew |= self.expand(adj);
                }
            }
            // Penalise the clique, decay now and then, restart from the
            // vertex added last.
            for &v in &self.clique {
                self.penalty[v] += 1;
            }
            self.rounds += 1;
            if self.rounds.is_multiple_of(self.penalty_delay) {
                for p in &mut self.penalty {
                    *p = p.saturating_sub(1);
                }
            }
            if self.penalty_delay == 1 && self.clique.len() < self.n {
                // Without penalties (DLS-MC with a delay of 1): a random
                // outside vertex joins, its non-neighbours leave.
                let u = loop {
                    let u = (self.rng.next_u64() % self.n as u64) as usize;
                    if self.pos[u] == usize::MAX {
                        break u;
                    }
                };
                let row = self.row(adj, u);
                while let Some(&w) = self.clique.iter().find(|&&w| row[w / WORD] & (1 << (w % WORD)) == 0) {
                    self.remove(adj, w);
                }
                self.insert(adj, u);
            } else {
                let keep = self.last_added;
                while let Some(&w) = self.clique.iter().find(|&&w| w != keep) {
                    self.remove(adj, w);
                }
            }
            // A round counts as a move even when it moved nothing (a vertex
            // without neighbours), so that the loop ends.
            self.moves += 1;
        }
        grew
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::splitmix::SplitMix64;

    /// A random graph as adjacency bitsets.
    fn random(n: usize, p: f64, seed: u64) -> (Vec<u64>, usize) {
        let words = n.div_ceil(WORD);
        let mut adj = vec![0u64; n * words];
        let mut rng = SplitMix64::new(seed);
        for u in 0..n {
            for v in 0..u {
                if rng.unit() < p {
                    adj[u * words + v / WORD] |= 1 << (v % WORD);
                    adj[v * words + u / WORD] |= 1 << (u % WORD);
                }
            }
        }
        (adj, words)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// What the local search reports is a clique, at least as large as
        /// its start and never smaller after more moves; its bookkeeping
        /// (`miss`, the add and swap sets) matches the clique it holds;
        /// with penalties or without (a delay of 1).
        #[test]
        fn the_local_search_finds_cliques(
            n in 1usize..150, p in 0.05f64..0.98, seed in any::<u64>(), moves in 0u64..3000, delay in 1u32..4,
        ) {
            let (adj, words) = random(n, p, seed);
            let has = |a: usize, b: usize| adj[a * words + b / WORD] >> (b % WORD) & 1 == 1;
            let mut ls = LocalSearch::new(&adj, n, words, &[0], seed).with_penalty_delay(delay);
            let mut size = 1;
            for _ in 0..3 {
                ls.run(&adj, moves);
                let best = ls.best();
                prop_assert!(best.len() >= size);
                size = best.len();
                for (i, &a) in best.iter().enumerate() {
                    prop_assert!(best[..i].iter().all(|&b| b != a && has(a, b)));
                }
                for v in (0..n).filter(|&v| ls.pos[v] == usize::MAX) {
                    let miss = ls.clique.iter().filter(|&&c| !has(v, c)).count() as u32;
                    prop_assert_eq!(ls.miss[v], miss);
                    prop_assert_eq!(ls.add[v / WORD] >> (v % WORD) & 1 == 1, miss == 0);
                    prop_assert_eq!(ls.swap[v / WORD] >> (v % WORD) & 1 == 1, miss == 1);
                }
            }
        }
    }
}
