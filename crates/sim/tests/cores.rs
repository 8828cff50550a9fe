//! P PEs on fewer cores (`SimConfig::cores`), checked.
//!
//! * `bound_*` — work advances only on a core, so efficiency never exceeds
//!   C / P (the oversubscription of the threads runtime's pool and of MPI
//!   ranks on a two-core machine), whatever the strategy;
//! * `hand_computed_*` — a small case worked out by hand;
//! * `*_conserves_work` — every unit done exactly once under both models.

use treelb::search::{DfsWork, SplitPolicy};
use treelb::{Init, RunSpec, Strategy};
use treelb_apps::uts::{Params, Uts};
use treelb_sim::engine::{SimConfig, simulate};
use treelb_sim::{AlphaDist, AlphaModel, Cores, Costs, Network, Platform};

const RUN_TO_IDLE: Cores = Cores { cores: 2, quantum: None, switch: 50 };
const TIME_SHARING: Cores = Cores { cores: 2, quantum: Some(20_000), switch: 500 };

/// The five strategies the calibration compares.
const COMPARED: [Strategy; 5] = [
    Strategy::RandomPolling,
    Strategy::AsyncRoundRobin,
    Strategy::WorkSharing,
    Strategy::MaxLoad,
    Strategy::Multilevel,
];

#[test]
fn bound_eight_pes_on_two_cores_at_most_a_quarter() {
    let m = AlphaModel {
        total: 20_000_000,
        dist: AlphaDist::Fixed { alpha: 0.5 },
        atomic: 100,
        max_generation: 40,
        seed: 3,
    };
    for cores in [RUN_TO_IDLE, TIME_SHARING] {
        for strategy in COMPARED {
            let mut cfg = SimConfig::model(
                Platform::new(8, Network::Crossbar, Costs::default()),
                strategy,
                Init::Root,
                1,
            );
            let (free, _) = simulate(m.root(), &cfg).unwrap();
            cfg.cores = Some(cores);
            let (shared, done) = simulate(m.root(), &cfg).unwrap();
            let what = format!("{strategy} {cores:?}");
            assert_eq!(done, 20_000_000, "{what}");
            assert!(shared.complete, "{what}");
            // The bound, C / P = 0.25, with nothing to spare: T_par ≥ T_seq / 2.
            assert!(shared.efficiency <= 0.25 + 1e-9, "{what}: {}", shared.efficiency);
            assert!(shared.t_par * 2 >= shared.t_seq, "{what}");
            assert!(shared.core_switches >= 2, "{what}: {}", shared.core_switches);
            // Each PE with a core of its own runs faster.
            assert!(free.efficiency > shared.efficiency, "{what}");
            assert_eq!(free.core_switches, 0, "{what}");
            // Divisible work on 2 busy cores: not far below the bound.
            if strategy != Strategy::Multilevel {
                assert!(shared.efficiency > 0.2, "{what}: {}", shared.efficiency);
            }
        }
    }
}

#[test]
fn bound_holds_on_a_real_tree() {
    // A small geometric tree (a few thousand nodes).
    let params = Params::from_uts_args(["-t", "1", "-a", "3", "-d", "7", "-b", "4", "-r", "19"]).unwrap();
    let uts = Uts::new(params).unwrap();
    for cores in [RUN_TO_IDLE, TIME_SHARING] {
        for p in [4u32, 8] {
            let mut cfg = SimConfig::new(
                Platform::new(p, Network::Crossbar, Costs::default()),
                RunSpec { strategy: Strategy::RandomPolling, ..RunSpec::default() },
            );
            cfg.unit_ticks = 50;
            cfg.spec.budget = treelb::spec::Budget::of(5);
            cfg.cores = Some(cores);
            let (r, _) = simulate(DfsWork::new(&uts, SplitPolicy::OldestHalf), &cfg).unwrap();
            assert!(r.efficiency <= 2.0 / f64::from(p) + 1e-9, "P = {p} {cores:?}: {}", r.efficiency);
        }
    }
}

/// As many cores as PEs: the model is off, the run is the same as without.
#[test]
fn as_many_cores_as_pes_changes_nothing() {
    let m = AlphaModel {
        total: 1_000_000,
        dist: AlphaDist::Fixed { alpha: 0.3 },
        atomic: 50,
        max_generation: 40,
        seed: 1,
    };
    let mut cfg = SimConfig::model(
        Platform::new(4, Network::Crossbar, Costs::default()),
        Strategy::RandomPolling,
        Init::Root,
        2,
    );
    let (a, _) = simulate(m.root(), &cfg).unwrap();
    cfg.cores = Some(Cores { cores: 4, quantum: Some(10), switch: 1000 });
    let (b, _) = simulate(m.root(), &cfg).unwrap();
    assert_eq!((a.t_par, a.requests, a.transfers), (b.t_par, b.requests, b.transfers));
}

/// Two PEs on one core, run to idle, one piece that does not split (T_atomic
/// above the work): PE 0 gets the core at 0 and, after the hand-over
/// (`switch` = 50), works 10,000 units in 100 stretches of Δt = 100 with 99
/// probes between them; PE 1, idle, asks PE 0 without a core (each request
/// costs PE 0 at its next probe the receiving and the refusal's sending,
/// 2 · T_rout). So the last work ends at 50 + 10,000 + 99 + 200 · (refused
/// requests), and termination adds 3 · T_rout. Had PE 1 needed a core to
/// ask, it would never have asked.
#[test]
fn hand_computed_two_pes_on_one_core() {
    let m = AlphaModel {
        total: 10_000,
        dist: AlphaDist::Fixed { alpha: 0.5 },
        atomic: 20_000,
        max_generation: 40,
        seed: 1,
    };
    let mut cfg = SimConfig::model(
        Platform::new(2, Network::Crossbar, Costs::default()),
        Strategy::RandomPolling,
        Init::Root,
        1,
    );
    cfg.cores = Some(Cores { cores: 1, quantum: None, switch: 50 });
    let (r, done) = simulate(m.root(), &cfg).unwrap();
    assert_eq!(done, 10_000);
    assert_eq!(r.core_switches, 1);
    assert_eq!(r.transfers, 0);
    // Every refusal PE 0 sent reached PE 1 before the end; the last
    // request was still waiting for a probe when the piece ran out.
    assert_eq!(r.requests, r.requests_failed + 1);
    assert_eq!(r.t_last_work, 50 + 10_000 + 99 + 200 * r.requests_failed);
    assert_eq!(r.t_par, r.t_last_work + 300);
    // Time sharing with a quantum shorter than the run changes nothing
    // while nobody else holds a piece.
    cfg.cores = Some(Cores { cores: 1, quantum: Some(1000), switch: 50 });
    let (q, _) = simulate(m.root(), &cfg).unwrap();
    assert_eq!((q.t_par, q.core_switches), (r.t_par, 1));
}

#[test]
fn time_sharing_conserves_work() {
    let m = AlphaModel {
        total: 3_000_000,
        dist: AlphaDist::Uniform { min: 0.1 },
        atomic: 50,
        max_generation: 40,
        seed: 9,
    };
    for strategy in Strategy::ALL {
        for cores in [RUN_TO_IDLE, TIME_SHARING] {
            let mut cfg = SimConfig::model(
                Platform::new(7, Network::Crossbar, Costs::default()),
                strategy,
                Init::Root,
                4,
            );
            cfg.cores = Some(cores);
            let (r, done) = simulate(m.root(), &cfg).unwrap();
            assert_eq!(done, 3_000_000, "{strategy} {cores:?}");
            assert_eq!(r.work_units, 3_000_000, "{strategy} {cores:?}");
            assert!(r.efficiency <= 2.0 / 7.0 + 1e-9, "{strategy} {cores:?}");
        }
    }
}
