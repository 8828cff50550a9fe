use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use treelb::{Init, Strategy};

use super::*;
use crate::engine::{SimConfig, SimReport, simulate};
use crate::platform::{Costs, Network, Platform};
use crate::plot::{Chart, Legend, PlotError, Series, Style, short};
use crate::sweep::Observer;
use crate::workload::{AlphaDist, AlphaModel};

/// Reproduction 7 ([Lecture, load balancing], "Work Sharing"): work stealing against work
/// sharing on the same machine and work.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Sharing {
    /// Work per PE, in ticks.
    pub work_per_pe: u64,
    /// One report per (P, strategy).
    pub runs: Vec<SimReport>,
}

/// The strategies compared in reproduction 7: all of them.
pub const COMPARED: [Strategy; 13] = Strategy::ALL;

impl Sharing {
    /// The verdict at the largest P, on the lecture's claims: random
    /// polling needs the fewest messages of the dynamic strategies (every
    /// pushing one sends at least twice as many); it is within 3 points of
    /// the most efficient strategy ("random polling wins"); and static
    /// assignment falls below 50 % on tree-shaped work (dynamic balancing
    /// wins).
    pub fn verdict(&self) -> Verdict {
        let top = self.runs.iter().map(|r| r.machine.p).max().unwrap_or(0);
        let at = |s: Strategy| self.runs.iter().find(|r| r.machine.p == top && r.strategy == s.name());
        let mut v = Verdict::default();
        let rp = at(Strategy::RandomPolling);
        let fewest = COMPARED
            .iter()
            .filter(|s| s.is_pushing())
            .filter_map(|&s| at(s))
            .map(|r| messages(r) as f64)
            .fold(f64::NAN, f64::min)
            / rp.map_or(f64::NAN, |r| messages(r) as f64);
        v.push(Check::at_least(
            "random polling wins on communication",
            "fewest messages of a pushing strategy / random polling's",
            fewest,
            2.0,
        ));
        let best =
            self.runs.iter().filter(|r| r.machine.p == top).map(|r| r.efficiency).fold(f64::NAN, f64::max);
        v.push(Check::at_most(
            "\"random polling wins\" in efficiency",
            "best efficiency − random polling's (points)",
            100.0 * (best - rp.map_or(f64::NAN, |r| r.efficiency)),
            3.0,
        ));
        let static_best = self
            .runs
            .iter()
            .filter(|r| r.machine.p == top && r.strategy.starts_with("static"))
            .map(|r| r.efficiency)
            .fold(f64::NAN, f64::max);
        v.push(Check::at_most(
            "static assignment loses on tree-shaped work",
            "best static efficiency (%)",
            100.0 * static_best,
            50.0,
        ));
        v
    }
}

/// The work of reproductions 7 and 8: `work_per_pe` ticks per PE on `p`
/// PEs, α uniform in [0.1, 0.5], T_atomic = 100.
pub fn sharing_model(work_per_pe: u64, p: u32) -> AlphaModel {
    AlphaModel {
        total: work_per_pe * u64::from(p),
        dist: AlphaDist::Uniform { min: 0.1 },
        atomic: 100,
        max_generation: u32::MAX,
        seed: 8,
    }
}

/// Runs reproduction 7.
pub fn sharing(scale: Scale, obs: &mut dyn Observer) -> Sharing {
    let ps: &[u32] = match scale {
        Scale::Full => &[64, 1024, 4096],
        Scale::Quick => &[64, 1024],
        Scale::Tiny => &[16, 128],
    };
    let work_per_pe = if scale == Scale::Tiny { 1 << 15 } else { 1 << 17 };
    obs.phase("stealing vs sharing", (ps.len() * COMPARED.len()) as u64);
    let mut runs = Vec::new();
    for &p in ps {
        let model = sharing_model(work_per_pe, p);
        let machine = Platform::new(p, Network::Crossbar, Costs::default());
        for strategy in COMPARED {
            let cfg = SimConfig::model(machine, strategy, Init::Root, 5);
            runs.push(simulate(model.root(), &cfg).expect("a simulated strategy").0);
            obs.step();
        }
    }
    Sharing { work_per_pe, runs }
}

pub(super) fn section(w: &mut String, sh: &Sharing, dir: &Path) -> Result<(), PlotError> {
    let _ = writeln!(
        w,
        "## 7. Work stealing against work sharing ([Lecture, load balancing], \"Work Sharing\")\n"
    );
    let _ = writeln!(w, "{}", include_str!("text/sharing.md"));
    let _ = writeln!(
        w,
        "**Simulated.** The same machine (T_rout = 100, T_split = 10, Δt = 100) and work \
         ({} ticks per PE, α uniform in [0.1, 0.5], T_atomic = 100), PE 0 holding the \
         root, every strategy of `treelb::strategy` — the machines the runtimes run. \
         Work sharing: at each probe a busy PE with no offer open asks the load (pieces \
         held) of a random PE, of two, or of one per half, and pushes a part to the \
         least loaded (ties at random; always-go-left: left) if its pool is empty; \
         extreme work sharing pushes a part at every probe, unconditionally. Max-load \
         and master–worker keep their heap and central pool at PE 0, one message per \
         T_counter = 10. Static assignment cuts the root into 16 parts per PE by \
         selective initialization (every PE cuts its own from the broadcast root); \
         nothing moves afterwards. Messages are every message sent: requests, answers, \
         load queries and answers, pushes, the hub's.\n",
        short(sh.work_per_pe as f64)
    );
    let _ = writeln!(
        w,
        "| P | strategy | efficiency | messages | pieces moved | messages per PE |\n|---|---|---|---|---|---|"
    );
    for r in &sh.runs {
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {:.0} |",
            r.machine.p,
            r.strategy,
            pct(r.efficiency),
            messages(r),
            r.transfers,
            messages(r) as f64 / f64::from(r.machine.p)
        );
    }
    let mut ps: Vec<u32> = sh.runs.iter().map(|r| r.machine.p).collect();
    ps.dedup();
    let top = *ps.last().unwrap_or(&1);
    let at = |s: Strategy| sh.runs.iter().find(|r| r.machine.p == top && r.strategy == s.name());
    if let (Some(rp), Some(ws), Some(tc)) =
        (at(Strategy::RandomPolling), at(Strategy::WorkSharing), at(Strategy::TwoChoice))
    {
        let best = sh
            .runs
            .iter()
            .filter(|r| r.machine.p == top)
            .max_by(|a, b| a.efficiency.total_cmp(&b.efficiency))
            .expect("runs");
        let eff = |s: Strategy| at(s).map_or(0.0, |r| r.efficiency);
        let gain = tc.efficiency - ws.efficiency;
        let two_choice = if gain.abs() < 0.02 {
            format!(
                "Two choices change little ({:+.1} points): an offer is declined unless the \
                 receiver's pool is empty, so random pushing rarely lands on a loaded PE.",
                100.0 * gain
            )
        } else {
            format!(
                "Two choices {} {:.1} points over one.",
                if gain > 0.0 { "gain" } else { "lose" },
                100.0 * gain.abs()
            )
        };
        let central: Vec<String> = [
            (Strategy::GlobalRoundRobin, "the counter of global round robin"),
            (Strategy::MaxLoad, "max-load's heap"),
            (Strategy::MasterWorker, "master–worker's central pool"),
        ]
        .iter()
        .filter(|&&(s, _)| eff(s) < 0.5)
        .map(|&(s, what)| format!("{what} ({})", pct(eff(s))))
        .collect();
        let central = if central.is_empty() {
            String::new()
        } else {
            format!(
                " The strategies that wait on one structure at PE 0 lose most of the machine to \
                 it: {}.",
                central.join(", ")
            )
        };
        let multilevel = if eff(Strategy::Multilevel) < 0.5 {
            format!(
                " The producer tree of multilevel ({}) moves work only down the tree, each \
                 producer serving its children one request at a time, and a consumer that \
                 holds a large piece has no one to share it with: [Kimura & Ichiyoshi 1992]'s granularity \
                 control (pieces of a level's generation, cut and kept for later; \
                 `docs/benchmarks/2026-11-27-multilevel-grain` has the runs without it) does \
                 not make up for that on tree-shaped work.",
                pct(eff(Strategy::Multilevel))
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            w,
            "\n{}\nAt P = {top}, random polling reaches {} with {} messages; randomized work \
             sharing {} with {:.0}× as many, two-choice placement {} with {:.0}× as many. \
             {two_choice} The most efficient strategy here is {} ({}).{central}{multilevel} \
             Static assignment reaches {} at best: pieces cut blindly from a tree differ in \
             size by orders of magnitude.\n",
            sh.verdict().markdown(),
            pct(rp.efficiency),
            messages(rp),
            pct(ws.efficiency),
            messages(ws) as f64 / messages(rp).max(1) as f64,
            pct(tc.efficiency),
            messages(tc) as f64 / messages(rp).max(1) as f64,
            best.strategy,
            pct(best.efficiency),
            pct(sh
                .runs
                .iter()
                .filter(|r| r.machine.p == top && r.strategy.starts_with("static"))
                .map(|r| r.efficiency)
                .fold(0.0, f64::max)),
        );
    }
    // Static assignment sends nothing: no place on a log scale (its rows
    // are in the table above).
    let series = COMPARED
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.is_static())
        .map(|(i, s)| {
            let pts = sh
                .runs
                .iter()
                .filter(|r| r.strategy == s.name())
                .map(|r| (messages(r) as f64 / f64::from(r.machine.p), 100.0 * r.efficiency))
                .collect();
            Series::new(s.name(), pts, Style::Points, i)
        })
        .collect();
    let chart = Chart {
        title: "Efficiency against messages per PE (P = 64 … largest)".into(),
        x_label: "messages per PE".into(),
        y_label: "efficiency (%)".into(),
        log_x: true,
        log_y: false,
        y_range: None,
        series,
        legend: Legend::UpperLeft,
    };
    chart.draw(&dir.join("sharing.png"))?;
    let _ = writeln!(
        w,
        "![efficiency against messages](sharing.png)\n\nThe static strategies send no message and are \
         not drawn (log scale).\n"
    );
    Ok(())
}
