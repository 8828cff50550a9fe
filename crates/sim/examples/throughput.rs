//! Events per second of the simulator on one core.
//!
//! `cargo run --release -p treelb-sim --example throughput [P] [W] [STRATEGY]`
//!
//! Random polling from one root on a crossbar, 1:2 splitting; prints the
//! events, the wall time and the rate for root and selective initialization.

use treelb::{Init, Strategy};
use treelb_sim::engine::thread_cpu_seconds;
use treelb_sim::{AlphaDist, AlphaModel, Costs, Network, Platform, SimConfig, simulate};

fn main() {
    let mut args = std::env::args().skip(1);
    let p: u32 = args.next().map_or(16384, |a| a.parse().expect("P"));
    let w: u64 = args.next().map_or(2_000_000_000, |a| a.parse().expect("W"));
    let only: Option<Strategy> = args.next().map(|a| a.parse().expect("strategy"));
    let model = AlphaModel {
        total: w,
        dist: AlphaDist::Fixed { alpha: 1.0 / 3.0 },
        atomic: 100,
        max_generation: 200,
        seed: 1,
    };
    for strategy in [Strategy::RandomPolling, Strategy::AsyncRoundRobin, Strategy::GlobalRoundRobin] {
        if only.is_some_and(|o| o != strategy) {
            continue;
        }
        for init in [Init::Root, Init::Selective] {
            let machine = Platform::new(p, Network::Crossbar, Costs::default());
            let cfg = SimConfig::model(machine, strategy, init, 42);
            let cpu = thread_cpu_seconds();
            let (r, done) = simulate(model.root(), &cfg).expect("stealing strategy");
            let cpu = match (cpu, thread_cpu_seconds()) {
                (Some(a), Some(b)) => b - a,
                _ => r.wall_seconds,
            };
            assert_eq!(done, w);
            println!(
                "{strategy:>20} {init:>9}  P={p} W={w}  T_par={} E={:.3}  requests={} transfers={}  events={}  {:.3} s wall, {:.3} s cpu  {:.1} M events/s (cpu)",
                r.t_par,
                r.efficiency,
                r.requests,
                r.transfers,
                r.events,
                r.wall_seconds,
                cpu,
                r.events as f64 / cpu / 1e6
            );
        }
    }
}
