use proptest::prelude::*;

use super::*;
use crate::Work;
use crate::rng::{SplitMix64, mix};

/// A random game tree: a position is a hash and a depth; up to `branching`
/// children, leaf values in `-9..=9` from the hash.
struct Random {
    branching: u64,
    depth: u32,
}

impl Game for Random {
    type Position = (u64, u32);
    fn expand(&self, &(h, d): &(u64, u32), alpha: i32, beta: i32, c: &mut Vec<(u64, u32)>) -> Expansion {
        let n = mix(h) % (self.branching + 1);
        if d == self.depth || n == 0 {
            return Expansion::Value((mix(h ^ 0x5555) % 19) as i32 - 9);
        }
        c.extend((0..n).map(|i| (mix(h.wrapping_add(i + 1)), d + 1)));
        Expansion::Search { alpha, beta }
    }
}

/// Plain minimax, no pruning: the true value.
fn minimax(g: &Random, p: &(u64, u32)) -> i32 {
    let mut c = Vec::new();
    match g.expand(p, -100, 100, &mut c) {
        Expansion::Value(v) => v,
        Expansion::Search { .. } => c.iter().map(|c| -minimax(g, c)).max().unwrap(),
    }
}

/// Runs the search as a scheduler would: pieces in a pool, a random one
/// works a slice of `slice` nodes, and now and then a random one is split.
fn scheduled(
    g: &Random,
    root: (u64, u32),
    alpha: i32,
    beta: i32,
    ybw: bool,
    seed: u64,
    slice: u64,
) -> GameOutput {
    let mut rng = SplitMix64::new(seed);
    let mut pool = vec![YbwWork::new(g, root, alpha, beta, ybw)];
    let mut out = GameOutput::default();
    while !pool.is_empty() {
        let i = rng.below(pool.len() as u64) as usize;
        if rng.below(3) == 0 {
            if let Some(p) = pool[i].split() {
                pool.push(p);
            }
            continue;
        }
        if pool[i].work(slice, &mut out).is_exhausted() {
            pool.swap_remove(i);
        }
    }
    out
}

#[test]
fn solve_finds_the_true_value_with_null_windows() {
    for seed in 0..40 {
        let g = Random { branching: 4, depth: 6 };
        let root = (seed, 0);
        let truth = minimax(&g, &root);
        let mut stats = SeqStats::default();
        assert_eq!(solve(-9, 9, |a, b| alpha_beta(&g, &root, a, b, &mut stats)), truth);
        assert_eq!(alpha_beta(&g, &root, -10, 10, &mut SeqStats::default()), truth);
    }
}

proptest! {
    /// Whatever the schedule of slices and splits, the parallel piece finds
    /// the sequential value, and one piece alone expands exactly the
    /// sequential nodes.
    #[test]
    fn every_schedule_gives_the_sequential_value(
        seed in any::<u64>(),
        branching in 1u64..6,
        depth in 0u32..7,
        ybw in any::<bool>(),
        slice in 1u64..5,
    ) {
        let g = Random { branching, depth };
        let root = (seed, 0);
        let truth = minimax(&g, &root);
        let mut stats = SeqStats::default();
        prop_assert_eq!(alpha_beta(&g, &root, -10, 10, &mut stats), truth);
        let alone = crate::seq::run_work(YbwWork::new(&g, root, -10, 10, ybw)).0;
        prop_assert_eq!(alone.value, Some(truth));
        prop_assert_eq!(alone.nodes, stats.nodes);
        let out = scheduled(&g, root, -10, 10, ybw, seed ^ 1, slice);
        prop_assert_eq!(out.value, Some(truth));
        prop_assert!(out.aborted_nodes <= out.nodes);
        let v = solve(-9, 9, |a, b| scheduled(&g, root, a, b, ybw, seed, slice).value.unwrap());
        prop_assert_eq!(v, truth);
    }
}
