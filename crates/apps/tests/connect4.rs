//! Connect Four and synthetic game trees, solved sequentially and on the
//! threads runtime: the scores agree with Pons's solver on the committed
//! position sets, and the parallel value is the sequential value for every
//! P, accepted strategy and seed.

use proptest::prelude::*;
use treelb::game::{GameOutput, SeqStats, YbwWork, alpha_beta, solve};
use treelb::{RunSpec, Strategy};
use treelb_apps::connect4::{Connect4, Position};
use treelb_apps::gametree::GameTree;
use treelb_threads::{Config, run};

/// `(position, score)` of a committed set.
fn set(name: &str) -> Vec<(Position, i32)> {
    let path = format!("{}/tests/data/connect4/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (p, s) = l.split_once(' ').expect("POSITION SCORE");
            (Position::parse(p).expect("a valid position"), s.parse().expect("a score"))
        })
        .collect()
}

/// The strategies a game search accepts.
const STRATEGIES: [Strategy; 3] =
    [Strategy::RandomPolling, Strategy::GlobalRoundRobin, Strategy::AsyncRoundRobin];

fn config(p: usize, strategy: Strategy, seed: u64, budget: u64) -> Config {
    Config::with_spec(
        p,
        RunSpec { strategy, seed, budget: treelb::spec::Budget::of(budget), ..RunSpec::default() },
    )
}

#[test]
fn sequential_scores_agree_with_pons_after_30_and_20_moves() {
    let game = Connect4::new(20);
    let mut checked = 0;
    for (pos, score) in set("moves30.txt").into_iter().chain(set("moves20.txt").into_iter().take(100)) {
        let s = game.solve_sequential(&pos, false);
        assert_eq!(s.score, score, "position of {} moves", pos.moves());
        assert_eq!(game.solve_sequential(&pos, true).score, score.signum());
        checked += 1;
    }
    assert_eq!(checked, 1100);
}

#[test]
fn parallel_scores_agree_with_pons_with_and_without_waiting() {
    let game = Connect4::new(20);
    let sets = [set("moves30.txt"), set("moves20.txt")];
    for (i, ybw) in [true, false].into_iter().enumerate() {
        for (pos, score) in sets[0].iter().take(150).chain(sets[1].iter().take(25)) {
            let cfg = config(2, STRATEGIES[i], 7, 8);
            let s = game.solve_with(pos, false, |p, a, b| {
                run(YbwWork::new(&game, *p, a, b, ybw), &cfg).unwrap().output
            });
            assert_eq!(s.score, *score);
            assert!(s.aborted_nodes <= s.nodes);
        }
    }
}

/// One window search of a synthetic tree on the threads runtime.
fn par(t: &GameTree, alpha: i32, beta: i32, ybw: bool, cfg: &Config) -> GameOutput {
    run(YbwWork::new(t, t.root(), alpha, beta, ybw), cfg).unwrap().output
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// The parallel value equals the sequential one: with a window wider
    /// than every value (the exact value) and by null-window solves.
    #[test]
    fn parallel_value_equals_sequential_value(
        seed in any::<u64>(),
        p in 1usize..=4,
        strategy in 0usize..3,
        ybw in any::<bool>(),
        branching in 2u32..6,
        depth in 2u32..8,
        ordering in 0.0f64..=1.0,
        budget in 1u64..20,
    ) {
        let t = GameTree { branching, depth, weight: 10, ordering, seed };
        let cfg = config(p, STRATEGIES[strategy], seed, budget);
        let b = t.bound() + 1;
        let mut stats = SeqStats::default();
        let exact = alpha_beta(&t, &t.root(), -b, b, &mut stats);
        let out = par(&t, -b, b, ybw, &cfg);
        prop_assert_eq!(out.value, Some(exact));
        prop_assert!(out.aborted_nodes <= out.nodes);
        let v = solve(-b, b, |a, bb| par(&t, a, bb, ybw, &cfg).value.unwrap());
        prop_assert_eq!(v, exact);
        if p == 1 {
            // One PE never splits: exactly the sequential search.
            prop_assert_eq!(out.nodes, stats.nodes);
        }
    }
}
