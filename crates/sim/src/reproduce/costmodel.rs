//! The two message cost models side by side: the seeds' ([Sanders 1999] §1.1:
//! sending and receiving each cost `T_rout`, termination up to two waves)
//! and the optimistic one (a message only travels), on the workload of
//! reproduction 7 for every strategy, and on Figure 2's.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use treelb::{Init, Strategy};

use super::*;
use crate::engine::{SimConfig, SimReport, simulate};
use crate::platform::{Costs, Network, Overhead, Platform};
use crate::sweep::Observer;

/// Every strategy under both cost models.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CostModels {
    /// The number of PEs.
    pub p: u32,
    /// Work per PE, in ticks.
    pub work_per_pe: u64,
    /// (strategy, seeds' model, optimistic model), reproduction 7's
    /// workload.
    pub runs: Vec<(Strategy, SimReport, SimReport)>,
}

/// Runs the comparison.
pub fn cost_models(scale: Scale, obs: &mut dyn Observer) -> CostModels {
    let p = match scale {
        Scale::Full => 4096,
        Scale::Quick => 1024,
        Scale::Tiny => 128,
    };
    let work_per_pe = if scale == Scale::Tiny { 1 << 15 } else { 1 << 17 };
    obs.phase("cost models", Strategy::ALL.len() as u64);
    let model = sharing_model(work_per_pe, p);
    let run = |strategy, overhead| {
        let costs = Costs { overhead, ..Costs::default() };
        let cfg = SimConfig::model(Platform::new(p, Network::Crossbar, costs), strategy, Init::Root, 5);
        simulate(model.root(), &cfg).expect("a simulated strategy").0
    };
    let runs = Strategy::ALL
        .into_iter()
        .map(|s| {
            let pair = (s, run(s, Overhead::SendReceive), run(s, Overhead::Latency));
            obs.step();
            pair
        })
        .collect();
    CostModels { p, work_per_pe, runs }
}

pub(super) fn section(w: &mut String, c: &CostModels) {
    let _ = writeln!(w, "## 8. The cost model: the seeds' against the optimistic\n");
    let _ = writeln!(w, "{}", include_str!("text/costmodel.md"));
    let _ = writeln!(
        w,
        "P = {}, {} ticks of work per PE, α uniform in [0.1, 0.5], T_atomic = 100, PE 0 \
         holding the root, T_rout = 100, T_split = 10, Δt = 100:\n",
        c.p,
        short(c.work_per_pe as f64)
    );
    let _ = writeln!(
        w,
        "| strategy | efficiency, seeds' | efficiency, optimistic | change (points) | messages, seeds' | messages, optimistic |\n|---|---|---|---|---|---|"
    );
    for (s, seeds, opt) in &c.runs {
        let _ = writeln!(
            w,
            "| {s} | {} | {} | {:+.1} | {} | {} |",
            pct(seeds.efficiency),
            pct(opt.efficiency),
            100.0 * (seeds.efficiency - opt.efficiency),
            messages(seeds),
            messages(opt)
        );
    }
    let moved: Vec<(Strategy, f64)> = {
        let mut m: Vec<_> = c.runs.iter().map(|(s, a, b)| (*s, a.efficiency - b.efficiency)).collect();
        m.sort_by(|a, b| a.1.total_cmp(&b.1));
        m
    };
    if let (Some(most), Some(least)) = (moved.first(), moved.last()) {
        let rank = |f: &dyn Fn(&(Strategy, SimReport, SimReport)) -> f64| {
            let mut r: Vec<_> = c.runs.iter().map(|x| (x.0, f(x))).collect();
            r.sort_by(|a, b| b.1.total_cmp(&a.1));
            r.into_iter().take(3).map(|(s, e)| format!("{s} ({})", pct(e))).collect::<Vec<_>>().join(", ")
        };
        let _ = writeln!(
            w,
            "\nThe seeds' model costs {} the most ({:+.1} points) and {} the least ({:+.1}). \
             The three most efficient strategies: {} under the seeds' model, {} under the \
             optimistic one.\n",
            most.0,
            100.0 * most.1,
            least.0,
            100.0 * least.1,
            rank(&|x| x.1.efficiency),
            rank(&|x| x.2.efficiency),
        );
    }
}
