//! How long each isoefficiency point takes (to size the sweeps).
//!
//! `cargo run --release -p treelb-sim --example iso_timing [TOP] [STRATEGY or NETWORK]`

use std::time::Instant;

use treelb::Strategy;
use treelb_sim::Network;
use treelb_sim::reproduce::{Scale, iso_setup};
use treelb_sim::sweep::isoefficiency;

fn main() {
    let mut args = std::env::args().skip(1);
    let top: u32 = args.next().map_or(12, |a| a.parse().expect("TOP"));
    let only: Option<String> = args.next();
    for (strategy, network) in [
        (Strategy::RandomPolling, Network::Crossbar),
        (Strategy::AsyncRoundRobin, Network::Crossbar),
        (Strategy::GlobalRoundRobin, Network::Crossbar),
        (Strategy::RandomPolling, Network::Torus2d),
    ] {
        if only.as_ref().is_some_and(|o| *o != strategy.name() && *o != network.name()) {
            continue;
        }
        let setup = iso_setup(strategy, network, Scale::Full);
        let mut guess = 1u64 << 16;
        for k in 4..=top {
            let t = Instant::now();
            let pt = isoefficiency(&setup, 1 << k, guess);
            if let Some(w) = pt.work {
                guess = 2 * w;
            }
            println!(
                "{strategy:>20} {network:>9} P=2^{k:<2} W={:?} runs={} events={} {:.1} s",
                pt.work,
                pt.runs,
                pt.events,
                t.elapsed().as_secs_f64()
            );
        }
    }
}
