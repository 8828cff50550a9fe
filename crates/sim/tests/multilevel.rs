//! The multi-level producer/consumer model, checked.
//!
//! * `hand_computed_*` — small trees whose timings are worked out by hand;
//! * `one_level_*` — one level is Kimura and Ichiyoshi's single-level queue;
//! * `conservation_*` — the consumers' pieces add up to the task, and
//!   termination is never before the last piece ends;
//! * `determinism_*` — one seed, one result;
//! * `shortcut_*` — the cached times of equal pieces change nothing.

use rand::SeedableRng;
use rand::rngs::SmallRng;
use treelb_sim::multilevel::{Multilevel, TreeError};
use treelb_sim::producer::{self, Sizes};

/// Two levels, two groups of two consumers, equal pieces, 1/λ = 10, free
/// messages. The root cuts 800 into two subtasks of 400 (grain 400); a
/// group cuts 400 into four pieces of 100 (grain 100).
///
/// * A group, from the arrival of its subtask: pieces are made at 10, 20,
///   30, 40. Consumer a runs piece 1 over 10–110, b piece 2 over 20–120;
///   piece 3 waits for a (110–210), piece 4 for b (120–220). Done at 220.
/// * The root makes subtask 1 at 10 (group A: 10–230) and subtask 2 at 20
///   (group B: 20–240). T_par = 240.
#[test]
fn hand_computed_two_levels() {
    let tree = Multilevel::new(vec![2, 2], vec![400.0, 100.0], Sizes::Deterministic, 10, 0).unwrap();
    let run = tree.time(800, 1);
    assert_eq!(run.t_par, 240);
    assert_eq!(run.pieces, [2, 8]);
    assert!((run.efficiency - 800.0 / (4.0 * 240.0)).abs() < 1e-12);
    let r = tree.report(800, 1);
    assert_eq!((r.t_par, r.t_last_work, r.transfers), (240, 240, 10));
    for pe in &r.per_pe {
        assert_eq!((ticks(pe.busy), ticks(pe.idle), pe.pieces_received), (200, 40, 2));
    }
    // Requests: one per piece received (10), and a last one from each of
    // the 4 consumers and 2 group producers.
    assert_eq!((r.requests, r.requests_failed), (16, 6));
}

/// The same tree with messages of 5 ticks: a piece starts 5 after it is
/// made and its request has arrived, and a request arrives 5 after its
/// sender is done.
///
/// * A group: a runs 15–115 (its next request arrives at 120), b 25–125
///   (130); piece 3 (made at 30) goes to a at 120 + 5 = 125, ends 225
///   (230); piece 4 (made at 40) to b at 130 + 5 = 135, ends 235 (240).
///   The group's producer knows it is done at 240.
/// * The root: group A gets subtask 1 at 10 + 5 = 15, is done at 255, asks
///   again at 260; group B gets subtask 2 at 20 + 5 = 25, asks at 270.
#[test]
fn hand_computed_two_levels_with_messages() {
    let tree = Multilevel::new(vec![2, 2], vec![400.0, 100.0], Sizes::Deterministic, 10, 5).unwrap();
    assert_eq!(tree.time(800, 1).t_par, 270);
    let r = tree.report(800, 1);
    assert_eq!(r.t_par, 270);
    // The last piece of group B ends at 25 + 235.
    assert_eq!(r.t_last_work, 260);
}

/// A slow producer: pieces of 1 tick made every 10 ticks keep one of four
/// consumers busy at a time; the last of 100 is made at 1000 and ends 1001.
#[test]
fn hand_computed_slow_producer() {
    let tree = Multilevel::new(vec![4], vec![1.0], Sizes::Deterministic, 10, 0).unwrap();
    let run = tree.time(100, 1);
    assert_eq!(run.t_par, 1001);
    assert_eq!(run.pieces, [100]);
}

#[test]
fn one_level_is_the_single_level_model() {
    for (p, nu, t1, u) in
        [(2u32, 4usize, 20u64, 1u64), (8, 100, 100, 10), (16, 64, 64_000, 7), (5, 33, 9900, 3)]
    {
        let mut rng = SmallRng::seed_from_u64(0);
        let (_, expected) =
            producer::run(p as usize, nu, t1 as f64, 1.0 / u as f64, Sizes::Deterministic, &mut rng);
        let tree = Multilevel::new(vec![p], vec![t1 as f64 / nu as f64], Sizes::Deterministic, u, 0).unwrap();
        let run = tree.time(t1, 0);
        assert_eq!(run.pieces, [nu as u64], "p = {p}, ν = {nu}");
        assert_eq!(run.t_par as f64, expected, "p = {p}, ν = {nu}");
    }
}

#[test]
fn conservation_and_termination() {
    let shapes: [&[u32]; 4] = [&[7], &[4, 3], &[2, 3, 2], &[3, 1, 4]];
    for sizes in Sizes::ALL {
        for fanout in shapes {
            for t_rout in [0, 50] {
                let rho = vec![2.0; fanout.len()];
                let tree = Multilevel::with_rho(fanout.to_vec(), &rho, sizes, 10, t_rout).unwrap();
                let p: u32 = fanout.iter().product();
                let work = 1_234_567;
                let r = tree.report(work, 3);
                let what = format!("{sizes} {fanout:?} T_rout {t_rout}");
                assert_eq!(r.per_pe.len(), p as usize, "{what}");
                assert_eq!((r.t_seq, r.work_units), (work, work), "{what}");
                assert_eq!(r.per_pe.iter().map(|pe| pe.work_units).sum::<u64>(), work, "{what}");
                assert_eq!(r.per_pe.iter().map(|pe| ticks(pe.busy)).sum::<u64>(), work, "{what}");
                let leaf_pieces = r.levels.last().unwrap().pieces;
                assert_eq!(r.per_pe.iter().map(|pe| pe.pieces_received).sum::<u64>(), leaf_pieces, "{what}");
                assert_eq!(r.transfers, r.levels.iter().map(|l| l.pieces).sum::<u64>(), "{what}");
                // Termination: never before the last piece ends; the news
                // climbs the tree, one message per level.
                assert_eq!(r.t_par, r.t_last_work + fanout.len() as u64 * t_rout, "{what}");
                assert!(r.per_pe.iter().all(|pe| ticks(pe.busy) <= r.t_last_work), "{what}");
                assert!(r.t_last_work * u64::from(p) >= work, "{what}");
                assert!(r.efficiency <= 1.0, "{what}");
                // The utilization curve integrates to the work.
                let u = &r.utilization;
                let area: f64 = u
                    .values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        let start = i as u64 * u.bin_width;
                        v * f64::from(p) * ((start + u.bin_width).min(r.t_par) - start) as f64
                    })
                    .sum();
                assert!((area - work as f64).abs() < 1e-6 * work as f64, "{what}: {area}");
            }
        }
    }
}

#[test]
fn determinism_one_seed_one_result() {
    for sizes in [Sizes::Exponential, Sizes::Uniform] {
        let tree = Multilevel::with_rho(vec![8, 4], &[4.0, 1.0], sizes, 10, 20).unwrap();
        let mut a = tree.report(10_000_000, 5);
        let mut b = tree.report(10_000_000, 5);
        a.wall_seconds = 0.0;
        b.wall_seconds = 0.0;
        assert_eq!(a, b, "{sizes}");
        let c = tree.report(10_000_000, 6);
        assert_ne!((a.t_par, a.transfers), (c.t_par, c.transfers), "{sizes}");
        // The unrecorded run draws the same pieces.
        assert_eq!(tree.time(10_000_000, 5).t_par, a.t_par, "{sizes}");
    }
}

#[test]
fn shortcut_for_equal_pieces_changes_nothing() {
    for (fanout, rho) in
        [(vec![16u32], vec![1.0]), (vec![4, 8], vec![6.0, 1.3]), (vec![2, 4, 8], vec![9.0, 5.0, 1.0])]
    {
        for t_rout in [0, 30] {
            let tree = Multilevel::with_rho(fanout.clone(), &rho, Sizes::Deterministic, 10, t_rout).unwrap();
            for work in [999_999, 10_000_000] {
                let fast = tree.time(work, 0);
                let full = tree.report(work, 0);
                assert_eq!(fast.t_par, full.t_par, "{fanout:?} T_rout {t_rout} W {work}");
                assert_eq!(fast.pieces, full.levels.iter().map(|l| l.pieces).collect::<Vec<_>>());
            }
        }
    }
}

#[test]
fn bad_trees_say_what_is_wrong() {
    let det = Sizes::Deterministic;
    assert_eq!(Multilevel::new(vec![], vec![], det, 1, 0), Err(TreeError::Levels(0)));
    assert_eq!(
        Multilevel::new(vec![4, 0], vec![8.0, 1.0], det, 1, 0),
        Err(TreeError::ZeroFanout { level: 2 })
    );
    assert_eq!(
        Multilevel::new(vec![4, 4], vec![8.0], det, 1, 0),
        Err(TreeError::GrainCount { levels: 2, grains: 1 })
    );
    assert_eq!(
        Multilevel::new(vec![4, 4], vec![8.0, 0.5], det, 1, 0),
        Err(TreeError::Grain { level: 2, grain: 0.5 })
    );
    assert_eq!(
        Multilevel::new(vec![1 << 13, 1 << 12], vec![8.0, 1.0], det, 1, 0),
        Err(TreeError::TooManyConsumers)
    );
    let e = Multilevel::new(vec![4, 0], vec![8.0, 1.0], det, 1, 0).unwrap_err();
    assert_eq!(e.to_string(), "level 2: a fan-out must be at least 1");
}

/// A simulated PE's time in ticks (carried as nanoseconds).
fn ticks(d: std::time::Duration) -> u64 {
    d.as_nanos() as u64
}
