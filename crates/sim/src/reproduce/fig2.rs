use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use treelb::{Init, Strategy};

use super::*;
use crate::engine::{SimConfig, SimReport, simulate};
use crate::platform::{Costs, Network, Platform};
use crate::plot::{Chart, Legend, PlotError, Series, Style, short};
use crate::queue::Time;
use crate::workload::{AlphaDist, AlphaModel};

/// Reproduction 1 ([Sanders 1994] Figure 2): utilization over time with and
/// without selective initialization.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Fig2 {
    /// The number of PEs.
    pub p: u32,
    /// The work, in ticks.
    pub work: u64,
    /// Basic random polling (PE 0 holds the root).
    pub root: SimReport,
    /// Random polling after selective initialization.
    pub selective: SimReport,
}

impl Fig2 {
    /// When utilization first reaches 90 %: (root, selective).
    pub fn time_to_90(&self) -> (Option<Time>, Option<Time>) {
        (self.root.utilization.first_reaching(0.9), self.selective.utilization.first_reaching(0.9))
    }
}

impl Fig2 {
    /// The verdict: selective initialization at least halves the start-up
    /// phase ("effectively eliminates" it), and the tail stays within a
    /// factor 1.5 either way ("remains unaffected").
    pub fn verdict(&self) -> Verdict {
        let (t90_root, t90_sel) = self.time_to_90();
        let ratio = |a: Option<Time>, b: Option<Time>| match (a, b) {
            (Some(a), Some(b)) if b > 0 => a as f64 / b as f64,
            _ => f64::NAN,
        };
        let mut v = Verdict::default();
        v.push(Check::at_most(
            "selective initialization eliminates the start-up phase",
            "start-up, selective / root",
            ratio(t90_sel, t90_root),
            0.5,
        ));
        v.push(Check::band(
            "the tail remains unaffected",
            "tail, selective / root",
            ratio(tail(&self.selective), tail(&self.root)),
            1.0 / 1.5,
            1.5,
        ));
        v
    }
}

/// The length of the tail: from the last bin at ≥ 90 % utilization to the end.
fn tail(r: &SimReport) -> Option<Time> {
    let u = &r.utilization;
    let last = u.values.iter().rposition(|&v| v >= 0.9)?;
    Some(r.t_par.saturating_sub((last as Time + 1) * u.bin_width))
}

/// Runs reproduction 1.
pub fn fig2(scale: Scale) -> Fig2 {
    let (p, work) = match scale {
        Scale::Full | Scale::Quick => (16384, 1u64 << 30),
        Scale::Tiny => (1024, 1 << 26),
    };
    let model = AlphaModel {
        total: work,
        dist: AlphaDist::Fixed { alpha: 1.0 / 3.0 },
        atomic: 100,
        max_generation: u32::MAX,
        seed: 2,
    };
    let machine = Platform::new(p, Network::Crossbar, Costs::default());
    let run = |init| {
        simulate(model.root(), &SimConfig::model(machine, Strategy::RandomPolling, init, 1))
            .expect("random polling")
            .0
    };
    Fig2 { p, work, root: run(Init::Root), selective: run(Init::Selective) }
}

pub(super) fn section(w: &mut String, f: &Fig2, dir: &Path) -> Result<(), PlotError> {
    let t_rout = f.root.machine.costs.t_rout;
    let (t90_root, t90_sel) = f.time_to_90();
    let _ = writeln!(
        w,
        "## 1. Utilization over time, with and without selective initialization ([Sanders 1994] Figure 2)\n"
    );
    let _ = writeln!(w, "{}", include_str!("text/fig2.md"));
    let _ = writeln!(
        w,
        "**Simulated.** P = {}, W = {} ticks ({} per PE), α = 1/3 fixed (which part \
         leaves is a coin flip: the balancer cannot see sizes), T_atomic = 100. Times in \
         units of T_rout.\n",
        f.p,
        short(f.work as f64),
        short(f.work as f64 / f64::from(f.p))
    );
    let _ = writeln!(
        w,
        "| initialization | reaches 90 % at | tail below 90 % | T_par | efficiency | requests | failed | transfers |\n|---|---|---|---|---|---|---|---|"
    );
    for (name, r, t90) in [("root on PE 0", &f.root, t90_root), ("selective", &f.selective, t90_sel)] {
        let _ = writeln!(
            w,
            "| {name} | {} | {} | {} | {} | {} | {} | {} |",
            opt_time(t90, t_rout),
            opt_time(tail(r), t_rout),
            opt_time(Some(r.t_par), t_rout),
            pct(r.efficiency),
            r.requests,
            r.requests_failed,
            r.transfers
        );
    }
    let _ = writeln!(
        w,
        "\n{}\nThe start-up phase (until 90 % of the PEs are busy) lasts {} T_rout from the root and \
         {} T_rout after selective initialization; the tail below 90 % lasts {} and {} T_rout. \
         (The short dips of the selective curve are real: with α fixed, selective \
         initialization makes many pieces of exactly the same size, which end at the same \
         tick.)\n",
        f.verdict().markdown(),
        opt_time(t90_root, t_rout),
        opt_time(t90_sel, t_rout),
        opt_time(tail(&f.root), t_rout),
        opt_time(tail(&f.selective), t_rout),
    );
    let scale = |r: &SimReport| {
        r.utilization.points().map(|(t, u)| (t / t_rout as f64, 100.0 * u)).collect::<Vec<_>>()
    };
    let chart = Chart {
        title: format!("Random polling, P = {}, 1:2 splitting", f.p),
        x_label: "time (T_rout)".into(),
        y_label: "PEs busy (%)".into(),
        log_x: false,
        log_y: false,
        y_range: Some((0.0, 105.0)),
        legend: Legend::Center,
        series: vec![
            Series::new("PE 0 holds the root", scale(&f.root), Style::Line, 1),
            Series::new("selective initialization", scale(&f.selective), Style::Line, 0),
        ],
    };
    chart.draw(&dir.join("fig2_utilization.png"))?;
    let _ = writeln!(w, "![utilization over time](fig2_utilization.png)\n");
    Ok(())
}
