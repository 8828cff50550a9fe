use serde::{Deserialize, Serialize};
use treelb::{Init, Strategy};

use super::*;
use crate::engine::{SimConfig, simulate, thread_cpu_seconds};
use crate::platform::{Costs, Network, Platform};
use crate::sweep::Observer;
use crate::workload::{AlphaDist, AlphaModel};

/// The simulator's speed: events per second on one core.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Speed {
    /// The number of PEs.
    pub p: u32,
    /// The work, in ticks (1:2 splitting, T_atomic = 100).
    pub work: u64,
    /// One entry per (strategy, initialization).
    pub runs: Vec<SpeedRun>,
}

/// Repeated runs of one configuration.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SpeedRun {
    /// The strategy.
    pub strategy: Strategy,
    /// The initialization.
    pub init: Init,
    /// Events of one run.
    pub events: u64,
    /// Million events per CPU second (per wall-clock second where the CPU
    /// time is not known), one per repetition.
    pub rates: Vec<f64>,
    /// Whether the rates are per CPU second.
    pub cpu: bool,
}

impl SpeedRun {
    /// The median rate, million events per second.
    pub fn median(&self) -> f64 {
        let mut r = self.rates.clone();
        r.sort_by(f64::total_cmp);
        r.get(r.len() / 2).copied().unwrap_or(0.0)
    }
}

/// Measures the simulator's speed (the configuration of
/// `cargo run --release -p treelb-sim --example throughput`).
pub fn speed(scale: Scale, obs: &mut dyn Observer) -> Speed {
    let (p, work, reps) = match scale {
        Scale::Full => (16384, 2_000_000_000, 3),
        Scale::Quick => (16384, 2_000_000_000, 1),
        Scale::Tiny => (1024, 100_000_000, 1),
    };
    let model = AlphaModel {
        total: work,
        dist: AlphaDist::Fixed { alpha: 1.0 / 3.0 },
        atomic: 100,
        max_generation: 200,
        seed: 1,
    };
    let configs: Vec<(Strategy, Init)> =
        [Strategy::RandomPolling, Strategy::GlobalRoundRobin, Strategy::AsyncRoundRobin]
            .into_iter()
            .flat_map(|s| Init::ALL.into_iter().map(move |i| (s, i)))
            .collect();
    obs.phase("speed", configs.len() as u64);
    let runs = configs
        .into_iter()
        .map(|(strategy, init)| {
            let cfg =
                SimConfig::model(Platform::new(p, Network::Crossbar, Costs::default()), strategy, init, 42);
            let mut events = 0;
            let mut cpu_known = true;
            let rates = (0..reps)
                .map(|_| {
                    let before = thread_cpu_seconds();
                    let r = simulate(model.root(), &cfg).expect("a stealing strategy").0;
                    events = r.events;
                    let seconds = match (before, thread_cpu_seconds()) {
                        (Some(a), Some(b)) if b > a => b - a,
                        _ => {
                            cpu_known = false;
                            r.wall_seconds
                        }
                    };
                    r.events as f64 / seconds / 1e6
                })
                .collect();
            obs.step();
            SpeedRun { strategy, init, events, rates, cpu: cpu_known }
        })
        .collect();
    Speed { p, work, runs }
}
