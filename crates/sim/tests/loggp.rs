//! The cost models in whole runs.
//!
//! * `seeds_*` — the seeds' model gives the T_par it gave before LogGP
//!   existed, to the tick, on fixed seeds;
//! * `loggp_*` — LogGP's T_par grows with the overheads and the gap, a run
//!   on one PE costs no message, and termination is the messages of its
//!   waves.

use treelb::{Init, RunSpec, Strategy};
use treelb_sim::engine::{REFERENCE_BUDGET, SimConfig, simulate};
use treelb_sim::loggp::{Link, LogGp};
use treelb_sim::platform::{MessageSize, Model, Overhead};
use treelb_sim::run::{RunConfig, Workload};
use treelb_sim::{AlphaDist, AlphaModel, Costs, Network, Platform};

/// `treelb sim run … --work 10000000 --seed 7 --json` on the default
/// workload (α = 0.333, T_atomic = 100).
fn run(p: u32, network: Network, costs: Costs, strategy: Strategy, init: Init) -> (u64, u64, u64) {
    let machine = Platform::new(p, network, costs);
    let spec = RunSpec { strategy, init, seed: 7, budget: REFERENCE_BUDGET, ..RunSpec::default() };
    let workload = Workload::Alpha {
        dist: AlphaDist::Fixed { alpha: 0.333 },
        work: 10_000_000,
        atomic: 100,
        max_generation: None,
    };
    let r = RunConfig::new(machine, spec, workload).run().unwrap().report;
    assert!(r.complete);
    (r.t_par, r.t_last_work, r.messages)
}

#[test]
fn seeds_model_gives_the_t_par_it_always_gave() {
    let d = Costs::default();
    // (T_par, last work, messages) as the simulator gave them before the
    // choice of model existed.
    let cases = [
        (64, Network::Crossbar, d, Strategy::RandomPolling, Init::Root, (181_248, 179_448, 3735)),
        (64, Network::Torus3d, d, Strategy::RandomPolling, Init::Selective, (179_346, 176_646, 1991)),
        (32, Network::Ring, d, Strategy::GlobalRoundRobin, Init::Root, (377_017, 367_717, 1342)),
        (
            16,
            Network::Crossbar,
            Costs { t_word: 3, size: MessageSize::Log, ..d },
            Strategy::MasterWorker,
            Init::Root,
            (655_298, 654_098, 549),
        ),
        (
            64,
            Network::FatTree,
            Costs { overhead: Overhead::Latency, ..d },
            Strategy::WorkSharing,
            Init::Root,
            (224_543, 216_143, 11_370),
        ),
    ];
    for (p, network, costs, strategy, init, want) in cases {
        assert_eq!(costs.model, Model::Seeds);
        assert_eq!(run(p, network, costs, strategy, init), want, "{strategy} {init} {network} P={p}");
    }
}

fn loggp(link: Link) -> Costs {
    Costs { model: Model::LogGp(LogGp::uniform(link)), ..Costs::default() }
}

#[test]
fn loggp_t_par_grows_with_the_overheads_and_the_gap() {
    let base = Link { o_send: 10, o_recv: 10, latency: 100, gap_milli: 0 };
    for (strategy, init) in [(Strategy::RandomPolling, Init::Root), (Strategy::WorkSharing, Init::Selective)]
    {
        let t_par = |link| run(64, Network::Crossbar, loggp(link), strategy, init).0;
        let by_o: Vec<u64> =
            [10, 100, 1000].into_iter().map(|o| t_par(Link { o_send: o, o_recv: o, ..base })).collect();
        assert!(by_o.windows(2).all(|w| w[0] < w[1]), "{strategy}: T_par by o {by_o:?}");
        // 16-byte messages: G = 0, 10, 100 ticks a byte.
        let by_g: Vec<u64> =
            [0, 10_000, 100_000].into_iter().map(|g| t_par(Link { gap_milli: g, ..base })).collect();
        assert!(by_g.windows(2).all(|w| w[0] < w[1]), "{strategy}: T_par by G {by_g:?}");
    }
}

#[test]
fn loggp_on_one_pe_costs_no_message() {
    let link = Link { o_send: 50, o_recv: 70, latency: 300, gap_milli: 5000 };
    let (t_par, last, messages) = run(1, Network::Crossbar, loggp(link), Strategy::RandomPolling, Init::Root);
    let seeds = run(1, Network::Crossbar, Costs::default(), Strategy::RandomPolling, Init::Root);
    assert_eq!((t_par, last, messages), seeds);
    assert_eq!(t_par, last);
}

/// Two PEs, a root that never splits: PE 1 asks in vain while PE 0 works;
/// termination is four messages of one edge each after the work.
#[test]
fn loggp_termination_is_four_messages_on_two_pes() {
    let link = Link { o_send: 7, o_recv: 11, latency: 40, gap_milli: 0 };
    let machine = Platform::new(2, Network::Crossbar, loggp(link));
    let model = AlphaModel {
        total: 100_000,
        dist: AlphaDist::Fixed { alpha: 0.5 },
        atomic: 1_000_000,
        max_generation: 0,
        seed: 1,
    };
    let (r, done) =
        simulate(model.root(), &SimConfig::model(machine, Strategy::RandomPolling, Init::Root, 3)).unwrap();
    assert_eq!(done, 100_000);
    assert_eq!(r.transfers, 0);
    assert!(r.requests > 0);
    assert_eq!(r.t_par, r.t_last_work + 4 * link.one_way());
    // The seeds' model: its constant, 3 ⌈log₂ 2⌉ · T_rout.
    let seeds = Platform::new(2, Network::Crossbar, Costs::default());
    let (r, _) =
        simulate(model.root(), &SimConfig::model(seeds, Strategy::RandomPolling, Init::Root, 3)).unwrap();
    assert_eq!(r.t_par, r.t_last_work + 300);
}

/// Selective initialization under LogGP: the broadcast is messages, so a
/// dearer message delays the start, and the run still does all the work.
#[test]
fn loggp_selective_start_pays_the_broadcast() {
    let cheap = Link { o_send: 1, o_recv: 1, latency: 10, gap_milli: 0 };
    let dear = Link { latency: 100_000, ..cheap };
    let t = |link| run(16, Network::Crossbar, loggp(link), Strategy::StaticBlock, Init::Selective);
    let (a, b) = (t(cheap), t(dear));
    // Static: no message but the broadcast and termination. Every PE but
    // PE 0 starts later; termination is 4 sweeps over the binary tree's
    // deepest path (PE 15 → 7 → 3 → 1 → 0), each edge costing the extra
    // latency.
    assert!(b.1 >= a.1);
    assert_eq!((b.0 - b.1) - (a.0 - a.1), 4 * 4 * (100_000 - 10));
    assert_eq!((a.2, b.2), (0, 0));
}
