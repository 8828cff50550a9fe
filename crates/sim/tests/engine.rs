//! The simulation, checked.
//!
//! * `conservation_*` — every unit of work is done exactly once, whatever the
//!   strategy (all 13), initialization and network;
//! * `termination_*` — the run never ends before the last piece;
//! * `hand_computed_*` — small cases whose timings are worked out by hand;
//! * `determinism_*` — one seed, one result;
//! * `uts_*` — a real tree gives the sequential answer.

use treelb::search::{DfsWork, SplitPolicy};
use treelb::{Init, Strategy};
use treelb_apps::uts::{Params, Uts};
use treelb_sim::engine::{SimConfig, simulate, simulate_with};
use treelb_sim::platform::{MessageSize, Overhead};
use treelb_sim::{AlphaDist, AlphaModel, Costs, Network, Platform};

fn model(total: u64, dist: AlphaDist) -> AlphaModel {
    AlphaModel { total, dist, atomic: 50, max_generation: 40, seed: 9 }
}

fn config(p: u32, network: Network, strategy: Strategy, init: Init) -> SimConfig {
    SimConfig::model(Platform::new(p, network, Costs::default()), strategy, init, 5)
}

/// The stealing strategies, whose hand-computed timings are below.
const STEALING: [Strategy; 3] =
    [Strategy::RandomPolling, Strategy::GlobalRoundRobin, Strategy::AsyncRoundRobin];

/// A simulated PE's time in ticks (carried as nanoseconds).
fn ticks(d: std::time::Duration) -> u64 {
    d.as_nanos() as u64
}

#[test]
fn conservation_every_strategy_init_and_network() {
    let m = model(3_000_000, AlphaDist::Uniform { min: 0.1 });
    for strategy in Strategy::ALL {
        for init in Init::ALL {
            for network in Network::ALL {
                for p in [1, 2, 5, 64] {
                    let cfg = config(p, network, strategy, init);
                    let (r, done) = simulate_with(m.root(), &cfg, true).unwrap();
                    let what = format!("{strategy} {init} {network} P={p}");
                    assert!(r.complete, "{what}");
                    assert_eq!(done, 3_000_000, "{what}");
                    assert_eq!(r.work_units, 3_000_000, "{what}");
                    assert_eq!(r.t_seq, 3_000_000, "{what}");
                    assert_eq!(r.per_pe.iter().map(|pe| pe.work_units).sum::<u64>(), 3_000_000, "{what}");
                    assert!(r.requests_failed <= r.requests, "{what}");
                    assert_eq!(r.transfers, r.per_pe.iter().map(|pe| pe.pieces_sent).sum::<u64>(), "{what}");
                }
            }
        }
    }
}

#[test]
fn termination_never_before_the_last_piece() {
    let m = model(2_000_000, AlphaDist::Fixed { alpha: 1.0 / 3.0 });
    for strategy in Strategy::ALL {
        for init in Init::ALL {
            let cfg = config(128, Network::Torus2d, strategy, init);
            let (r, _) = simulate_with(m.root(), &cfg, true).unwrap();
            // The busy time of all PEs covers the work; no PE is busy past the end.
            let busy: u64 = r.per_pe.iter().map(|pe| ticks(pe.busy)).sum();
            assert!(busy >= r.t_seq, "{strategy} {init}: busy {busy} < T_seq {}", r.t_seq);
            assert!(r.per_pe.iter().all(|pe| ticks(pe.busy) <= r.t_last_work));
            assert!(r.t_last_work * 128 >= r.t_seq);
            assert_eq!(r.t_par, r.t_last_work + cfg.machine.termination_delay());
            assert!(r.efficiency <= 1.0);
        }
    }
}

/// One PE: the work, plus one probe per Δt except after the last stretch;
/// termination detection is free on one PE.
#[test]
fn hand_computed_one_pe() {
    let m = model(10_000, AlphaDist::Fixed { alpha: 0.5 });
    for strategy in STEALING {
        let (r, _) = simulate(m.root(), &config(1, Network::Crossbar, strategy, Init::Root)).unwrap();
        // 100 stretches of Δt = 100, 99 probes of T_poll = 1 between them.
        assert_eq!(r.t_par, 10_000 + 99);
        assert_eq!((r.requests, r.transfers), (0, 0));
    }
}

/// The optimistic cost model: messages cost their ends nothing.
fn optimistic(p: u32, strategy: Strategy, init: Init) -> SimConfig {
    let costs = Costs { overhead: Overhead::Latency, ..Costs::default() };
    SimConfig::model(Platform::new(p, Network::Crossbar, costs), strategy, init, 5)
}

/// Two PEs, even splits (α = 1/2), costs T_rout = 100, T_split = 10,
/// T_poll = 1, Δt = 100, the optimistic model (a message only travels):
///
/// * t = 0: PE 1 asks PE 0; the request arrives at 100.
/// * t = 100: PE 0 has done 100 units and probes (until 101), splits the
///   9900 left (until 111) and sends 4950; they arrive at 211.
/// * PE 0 works its 4950 from 111: 50 stretches and 49 probes, done at 5110.
/// * PE 1 works its 4950 from 211: done at 5210. PE 0's request of 5110
///   arrives at 5210, after PE 1 finished: nothing is left.
/// * Termination: one wave up and the verdict down, 2 ⌈log₂ 2⌉ T_rout = 200
///   later, at 5410.
#[test]
fn hand_computed_two_pes() {
    let m = model(10_000, AlphaDist::Fixed { alpha: 0.5 });
    let cfg = optimistic(2, Strategy::RandomPolling, Init::Root);
    let (r, _) = simulate_with(m.root(), &cfg, true).unwrap();
    assert_eq!(r.t_last_work, 5210);
    assert_eq!(r.t_par, 5410);
    assert_eq!((r.requests, r.transfers, r.requests_failed), (2, 1, 0));
    assert_eq!(ticks(r.per_pe[0].busy), 5110);
    assert_eq!(ticks(r.per_pe[1].busy), 5210 - 211);
    assert_eq!(r.per_pe[0].work_units, 5050);
}

/// Selective initialization on two PEs: the root is broadcast (100), each PE
/// splits once (10) and works its half; no request is needed.
#[test]
fn hand_computed_two_pes_selective() {
    let m = model(10_000, AlphaDist::Fixed { alpha: 0.5 });
    for (cfg, waves) in [
        (optimistic(2, Strategy::RandomPolling, Init::Selective), 1),
        (config(2, Network::Crossbar, Strategy::RandomPolling, Init::Selective), 2),
    ] {
        let (r, _) = simulate(m.root(), &cfg).unwrap();
        // Each half: 5000 units, 49 probes, from 110.
        assert_eq!(r.t_last_work, 110 + 5000 + 49);
        assert_eq!(r.t_par, 110 + 5000 + 49 + (waves + 1) * 100);
        assert_eq!(r.transfers, 0);
    }
}

/// The same two PEs under the seeds' model ([Sanders 1999] §1.1: sending and
/// receiving each cost T_rout):
///
/// * t = 0: PE 1 sends a request (until 100); it arrives at 200.
/// * PE 0 probes at 100 (nothing yet) and at 201 (until 202): it receives
///   the request (until 302), splits the 9800 left (until 312) and sends
///   4900 (until 412); they arrive at 512.
/// * PE 0 works its 4900 from 412: 49 stretches and 48 probes, done at 5360.
/// * PE 1 receives the piece (until 612) and works it: done at 5560. PE 0's
///   request, sent at 5360, arrives as PE 1 finishes: nothing is left.
/// * Termination: two waves up and the verdict down, 3 ⌈log₂ 2⌉ T_rout =
///   300 later, at 5860.
#[test]
fn hand_computed_two_pes_send_receive() {
    let m = model(10_000, AlphaDist::Fixed { alpha: 0.5 });
    let cfg = config(2, Network::Crossbar, Strategy::RandomPolling, Init::Root);
    let (r, _) = simulate_with(m.root(), &cfg, true).unwrap();
    assert_eq!(r.t_last_work, 5560);
    assert_eq!(r.t_par, 5860);
    assert_eq!((r.requests, r.transfers, r.requests_failed), (2, 1, 0));
    assert_eq!(ticks(r.per_pe[0].busy), 5360);
    assert_eq!(ticks(r.per_pe[1].busy), 5560 - 612);
    assert_eq!(r.per_pe[0].work_units, 5100);
}

#[test]
fn determinism_one_seed_one_result() {
    let m = model(5_000_000, AlphaDist::Uniform { min: 0.05 });
    for strategy in Strategy::ALL {
        let cfg = config(300, Network::FatTree, strategy, Init::Root);
        let (mut a, _) = simulate_with(m.root(), &cfg, true).unwrap();
        let (mut b, _) = simulate_with(m.root(), &cfg, true).unwrap();
        a.wall_seconds = 0.0;
        b.wall_seconds = 0.0;
        assert_eq!(a, b, "{strategy}");
        if strategy == Strategy::RandomPolling {
            let mut other = cfg.clone();
            other.spec.seed = 6;
            let (c, _) = simulate(m.root(), &other).unwrap();
            assert_ne!((a.t_par, a.requests), (c.t_par, c.requests));
        }
    }
}

#[test]
fn bad_specs_are_refused() {
    let m = model(1000, AlphaDist::Fixed { alpha: 0.5 });
    let mut cfg = config(4, Network::Crossbar, Strategy::Multilevel, Init::Root);
    cfg.spec.fanout = vec![0];
    assert!(simulate(m.root(), &cfg).unwrap_err().to_string().contains("fan-out"));
}

#[test]
fn uts_gives_the_sequential_answer() {
    // A small geometric tree (a few thousand nodes).
    let params = Params::from_uts_args(["-t", "1", "-a", "3", "-d", "7", "-b", "4", "-r", "19"]).unwrap();
    let uts = Uts::new(params).unwrap();
    let (expected, nodes) = treelb::seq::run_search(&uts);
    for strategy in Strategy::ALL {
        for init in Init::ALL {
            let mut cfg = config(16, Network::Crossbar, strategy, init);
            cfg.unit_ticks = 20;
            cfg.spec.budget = treelb::spec::Budget::of(5);
            let (r, out) = simulate(DfsWork::new(&uts, SplitPolicy::OldestHalf), &cfg).unwrap();
            assert_eq!(out, expected, "{strategy} {init}");
            assert_eq!(r.work_units, nodes, "{strategy} {init}");
            assert_eq!(r.t_seq, nodes * 20);
            if !strategy.is_static() {
                assert!(r.transfers > 0, "{strategy} {init}");
            }
        }
    }
}

#[test]
fn static_assignment_moves_nothing() {
    let m = model(2_000_000, AlphaDist::Uniform { min: 0.1 });
    for strategy in [Strategy::StaticBlock, Strategy::StaticCyclic, Strategy::StaticRandom] {
        for p in [1, 3, 64] {
            let cfg = config(p, Network::Crossbar, strategy, Init::Root);
            let (r, done) = simulate_with(m.root(), &cfg, true).unwrap();
            assert_eq!((done, r.work_units), (2_000_000, 2_000_000), "{strategy} P={p}");
            assert_eq!((r.transfers, r.requests, r.messages), (0, 0, 0), "{strategy} P={p}");
        }
    }
}

#[test]
fn hub_messages_are_counted_and_cost_time() {
    let m = model(4_000_000, AlphaDist::Uniform { min: 0.1 });
    for strategy in [Strategy::GlobalRoundRobin, Strategy::MaxLoad, Strategy::MasterWorker] {
        let cfg = config(32, Network::Crossbar, strategy, Init::Root);
        let (r, _) = simulate(m.root(), &cfg).unwrap();
        assert!(r.counter_ops > 0, "{strategy}");
        assert!(r.messages >= r.counter_ops, "{strategy}");
        if strategy == Strategy::MaxLoad {
            assert!(r.heap_ops > 0);
        }
    }
}

#[test]
fn load_queries_are_messages() {
    let m = model(4_000_000, AlphaDist::Uniform { min: 0.1 });
    for strategy in [Strategy::WorkSharing, Strategy::TwoChoice, Strategy::AlwaysGoLeft] {
        let cfg = config(32, Network::Crossbar, strategy, Init::Root);
        let (r, _) = simulate(m.root(), &cfg).unwrap();
        // Every offer asks one or two loads, and each is answered.
        assert!(
            r.messages >= 2 * r.requests,
            "{strategy}: {} messages for {} offers",
            r.messages,
            r.requests
        );
        assert!(r.transfers > 0 && r.requests > r.transfers, "{strategy}");
    }
}

/// [Sanders 1994] §5.4's message size: the piece of 4900 units above takes
/// ⌈log₂ 4900⌉ = 13 words, each adding `t_word` = 1 tick to its travel, so
/// PE 1 starts 13 ticks later than in the constant-size run.
#[test]
fn hand_computed_two_pes_with_message_size() {
    let m = model(10_000, AlphaDist::Fixed { alpha: 0.5 });
    let costs = Costs { t_word: 1, size: MessageSize::Log, ..Costs::default() };
    let cfg =
        SimConfig::model(Platform::new(2, Network::Crossbar, costs), Strategy::RandomPolling, Init::Root, 5);
    let (r, _) = simulate_with(m.root(), &cfg, true).unwrap();
    assert_eq!(r.t_last_work, 5560 + 13);
    assert_eq!(ticks(r.per_pe[1].busy), 5560 - 612);
}
