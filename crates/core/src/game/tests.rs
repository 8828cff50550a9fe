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
        if worked(&mut pool[i], slice, &mut out) {
            pool.swap_remove(i);
        }
    }
    out
}

/// Works `piece` for a slice; whether it is exhausted. Checks the bound on
/// aborted work: a piece under a frame that was cut off (at any level up
/// its chain of links, or a proxy aborted by a message) expands nothing
/// more — its work after the cutoff is at most the slice it was in when
/// the cutoff happened.
fn worked<G: Game>(piece: &mut YbwWork<'_, G>, slice: u64, out: &mut GameOutput) -> bool {
    let refuted = super::ybw::tests_refuted(piece);
    let nodes = out.nodes;
    let progress = piece.work(slice, out);
    if refuted {
        assert_eq!(progress, crate::Progress::Exhausted { used: 0 }, "a refuted piece worked on");
        assert_eq!(out.nodes, nodes, "a refuted piece expanded positions");
    }
    progress.is_exhausted()
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

/// Cutoffs abort stolen pieces (the stat sees them), more often when
/// younger brothers do not wait; a piece under an aborted frame ends at its
/// next slice without expanding anything.
#[test]
fn aborts_are_counted_and_more_frequent_without_waiting() {
    let mut aborted = [0u64; 2];
    for seed in 0..200 {
        let g = Random { branching: 4, depth: 6 };
        for (k, ybw) in [true, false].into_iter().enumerate() {
            let out = scheduled(&g, (seed, 0), -1, 0, ybw, seed, 2);
            assert_eq!(out.value.map(|v| v <= -1), Some(minimax(&g, &(seed, 0)) <= -1));
            assert!(out.aborted_nodes <= out.nodes);
            aborted[k] += out.aborted_nodes;
        }
    }
    assert!(aborted[0] > 0 && aborted[1] > aborted[0], "{aborted:?}");
}

#[test]
fn a_piece_under_a_cut_off_frame_ends_at_its_next_slice() {
    // Find a schedule where a stolen piece's frame is cut off while the
    // thief still holds work: the thief then ends without expanding.
    let g = Random { branching: 5, depth: 7 };
    let mut seen = 0;
    for seed in 0..100 {
        let mut a = YbwWork::new(&g, (seed, 0), -1, 0, true);
        let mut out = GameOutput::default();
        let mut thief = None;
        while thief.is_none() && !a.work(1, &mut out).is_exhausted() {
            thief = a.split();
        }
        let Some(mut b) = thief else { continue };
        b.work(1, &mut out);
        // The victim finishes alone; a cutoff of the shared frame aborts b.
        while !a.work(1, &mut out).is_exhausted() {}
        if super::ybw::tests_refuted(&b) {
            assert_eq!(b.work(1000, &mut out), crate::Progress::Exhausted { used: 0 });
            seen += 1;
        }
    }
    assert!(seen > 0);
}

/// A message between simulated ranks: a stolen piece in its wire form, or
/// a result or an abort.
enum Wire {
    Piece(String),
    Game(GameMessage),
}

/// What [`distributed`] saw: the merged output, the messages of every
/// rank, and the frames still registered at the end (none should be).
struct Distributed {
    out: GameOutput,
    stats: Vec<NetStats>,
    registered: usize,
}

/// Runs the search across `ranks` simulated ranks, each with its own
/// [`Net`] and pool, as a runtime across address spaces would: a random
/// rank works a random piece for a slice, or splits one and sends the part
/// to another rank through its wire form (serialized), or one message is
/// delivered — first in, first out between each pair of ranks, in any order
/// across pairs. The run ends when no piece and no message is left.
fn distributed(
    g: &Random,
    root: (u64, u32),
    (alpha, beta): (i32, i32),
    ybw: bool,
    seed: u64,
    slice: u64,
    ranks: usize,
) -> Distributed {
    use std::collections::VecDeque;
    let nets: Vec<Net<(u64, u32)>> = (0..ranks).map(|r| Net::new(r, ranks, ybw)).collect();
    let mut rng = SplitMix64::new(seed);
    let mut pools: Vec<Vec<YbwWork<'_, Random>>> = (0..ranks).map(|_| Vec::new()).collect();
    pools[0].push(YbwWork::new(g, root, alpha, beta, ybw).with_net(&nets[0]));
    let mut chans: Vec<VecDeque<Wire>> = (0..ranks * ranks).map(|_| VecDeque::new()).collect();
    let mut out = GameOutput::default();
    let mut outgoing = Vec::new();
    loop {
        for (r, net) in nets.iter().enumerate() {
            net.take_outgoing(&mut outgoing);
            for o in outgoing.drain(..) {
                assert_ne!(o.to, r, "a message to itself");
                chans[r * ranks + o.to].push_back(Wire::Game(o.message));
            }
        }
        let busy: Vec<usize> = (0..ranks).filter(|&r| !pools[r].is_empty()).collect();
        let full: Vec<usize> = (0..chans.len()).filter(|&c| !chans[c].is_empty()).collect();
        if busy.is_empty() && full.is_empty() {
            break;
        }
        let action = rng.below(4);
        if (action == 0 || busy.is_empty()) && !full.is_empty() {
            let c = full[rng.below(full.len() as u64) as usize];
            let to = c % ranks;
            let piece = match chans[c].pop_front().expect("full") {
                Wire::Piece(json) => Some(nets[to].import(g, serde_json::from_str(&json).unwrap())),
                Wire::Game(m) => nets[to].receive(g, m, &mut out),
            };
            pools[to].extend(piece);
            continue;
        }
        if busy.is_empty() {
            continue;
        }
        let r = busy[rng.below(busy.len() as u64) as usize];
        let i = rng.below(pools[r].len() as u64) as usize;
        if action == 1 && ranks > 1 {
            if let Some(part) = pools[r].split_at_mut(i).1[0].split() {
                let to = (r + 1 + rng.below(ranks as u64 - 1) as usize) % ranks;
                let wire = nets[r].export(part, Some(to)).expect("a split-off piece travels");
                chans[r * ranks + to].push_back(Wire::Piece(serde_json::to_string(&wire).unwrap()));
            }
            continue;
        }
        if worked(&mut pools[r][i], slice, &mut out) {
            pools[r].swap_remove(i);
        }
    }
    Distributed {
        out,
        stats: nets.iter().map(Net::stats).collect(),
        registered: nets.iter().map(Net::registered).sum(),
    }
}

proptest! {
    /// Across simulated ranks — pieces and values travelling as messages,
    /// cutoffs as aborts — the search finds the sequential value, exact
    /// values by null-window searches too, and leaves no frame registered.
    #[test]
    fn across_ranks_every_schedule_gives_the_sequential_value(
        seed in any::<u64>(),
        branching in 1u64..6,
        depth in 0u32..7,
        ybw in any::<bool>(),
        slice in 1u64..5,
        ranks in 1usize..5,
    ) {
        let g = Random { branching, depth };
        let root = (seed, 0);
        let truth = minimax(&g, &root);
        let d = distributed(&g, root, (-10, 10), ybw, seed ^ 3, slice, ranks);
        prop_assert_eq!(d.out.value, Some(truth));
        prop_assert!(d.out.aborted_nodes <= d.out.nodes);
        prop_assert_eq!(d.registered, 0);
        let v = solve(-9, 9, |a, b| {
            let d = distributed(&g, root, (a, b), ybw, seed, slice, ranks);
            assert_eq!(d.registered, 0);
            d.out.value.unwrap()
        });
        prop_assert_eq!(v, truth);
    }
}

/// Across ranks, cutoffs send aborts and values travel back as results;
/// the aborted nodes are counted.
#[test]
fn across_ranks_cutoffs_abort_remote_pieces() {
    let (mut results, mut aborts, mut aborted) = (0, 0, 0);
    for seed in 0..200 {
        let g = Random { branching: 4, depth: 6 };
        for ybw in [true, false] {
            let d = distributed(&g, (seed, 0), (-1, 0), ybw, seed, 2, 3);
            assert_eq!(d.out.value.map(|v| v <= -1), Some(minimax(&g, &(seed, 0)) <= -1));
            assert!(d.out.aborted_nodes <= d.out.nodes);
            assert_eq!(d.registered, 0);
            results += d.stats.iter().map(|s| s.results).sum::<u64>();
            aborts += d.stats.iter().map(|s| s.aborts).sum::<u64>();
            aborted += d.out.aborted_nodes;
        }
    }
    assert!(
        results > 0 && aborts > 0 && aborted > 0,
        "{results} results, {aborts} aborts, {aborted} aborted nodes"
    );
}
