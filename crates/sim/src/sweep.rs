//! Sweeps: isoefficiency searches and least-squares fits.
//!
//! The isoefficiency function W(P) of a scheme is the work needed to keep
//! efficiency `E = T_seq / (P · T_par)` at a target as P grows ([Sanders 1994] §2).
//! [`isoefficiency`] finds it by simulation: it brackets W by doubling, then
//! bisects on log W, averaging E over a few seeds at each step.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use treelb::{Init, Strategy};

use crate::engine::{SimConfig, simulate};
use crate::platform::{Costs, Network, Platform};
use crate::workload::{AlphaDist, AlphaModel};

/// Reports the progress of long sweeps (the CLI shows a bar on a terminal).
pub trait Observer {
    /// A phase of `total` steps begins.
    fn phase(&mut self, _label: &str, _total: u64) {}
    /// One step of the current phase is done.
    fn step(&mut self) {}
    /// A section of the reproductions ended after `wall` seconds (and
    /// `cpu` seconds of the process's CPU time, all its threads, if known).
    fn section(&mut self, _name: &str, _wall: f64, _cpu: Option<f64>) {}
}

/// `f` of every item, computed on all cores, in the items' order.
///
/// Every simulation is a pure function of its configuration and seeds, so
/// the results are the same as a sequential loop's whatever the number of
/// cores or the order in which the runs finish; only the wall time changes.
///
/// ```
/// use treelb_sim::sweep::par_map;
/// assert_eq!(par_map(&[1, 2, 3], |x| x * 10), [10, 20, 30]);
/// ```
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    items.par_iter().map(f).collect()
}

/// An observer that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quiet;

impl Observer for Quiet {}

/// What an isoefficiency search varies and keeps fixed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct IsoSetup {
    /// The strategy.
    pub strategy: Strategy,
    /// The initialization.
    pub init: Init,
    /// The network.
    pub network: Network,
    /// The machine costs.
    pub costs: Costs,
    /// The split ratio distribution of the abstract work.
    pub dist: AlphaDist,
    /// `T_atomic` of the abstract work.
    pub atomic: u64,
    /// The efficiency to hold.
    pub target: f64,
    /// Seeds averaged per evaluation.
    pub seeds: u32,
    /// Bisection steps on log₂ W after bracketing (precision 2^(1/2^steps)).
    pub steps: u32,
    /// Give up above this W.
    pub max_work: u64,
}

/// The work found for one P.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct IsoPoint {
    /// The number of PEs.
    pub p: u32,
    /// The work (ticks) at which the mean efficiency reaches the target, or
    /// `None` if it did not below `max_work`.
    pub work: Option<u64>,
    /// The mean efficiency measured at `work`.
    pub efficiency: f64,
    /// Simulations run for this point.
    pub runs: u32,
    /// Events processed for this point.
    pub events: u64,
}

/// The mean efficiency of `setup` at P PEs and work `w`, and the events.
pub fn mean_efficiency(setup: &IsoSetup, p: u32, w: u64) -> (f64, u64) {
    let machine = Platform::new(p, setup.network, setup.costs);
    let mut sum = 0.0;
    let mut events = 0;
    for s in 0..setup.seeds.max(1) {
        let model = AlphaModel {
            total: w,
            dist: setup.dist,
            atomic: setup.atomic,
            max_generation: u32::MAX,
            seed: 1000 + u64::from(s),
        };
        let cfg = SimConfig::model(machine, setup.strategy, setup.init, 77 + u64::from(s));
        let (r, _) = simulate(model.root(), &cfg).expect("a work-stealing strategy");
        sum += r.efficiency;
        events += r.events;
    }
    (sum / f64::from(setup.seeds.max(1)), events)
}

/// Finds the work at which `setup` reaches its target efficiency on P PEs,
/// starting from the guess `start`.
pub fn isoefficiency(setup: &IsoSetup, p: u32, start: u64) -> IsoPoint {
    let mut runs = 0;
    let mut events = 0;
    let mut eval = |w: u64| {
        let (e, ev) = mean_efficiency(setup, p, w);
        runs += setup.seeds.max(1);
        events += ev;
        e
    };
    // Bracket: lo fails, hi succeeds.
    let mut w = start.max(u64::from(p) * 16);
    let mut e = eval(w);
    let (mut lo, mut hi, mut e_hi);
    if e >= setup.target {
        hi = w;
        e_hi = e;
        loop {
            w /= 2;
            if w < u64::from(p) {
                lo = w;
                break;
            }
            e = eval(w);
            if e < setup.target {
                lo = w;
                break;
            }
            hi = w;
            e_hi = e;
        }
    } else {
        lo = w;
        loop {
            w = w.saturating_mul(2);
            if w > setup.max_work {
                return IsoPoint { p, work: None, efficiency: e, runs, events };
            }
            e = eval(w);
            if e >= setup.target {
                hi = w;
                e_hi = e;
                break;
            }
            lo = w;
        }
    }
    for _ in 0..setup.steps {
        let mid = ((lo as f64) * (hi as f64)).sqrt() as u64;
        if mid <= lo || mid >= hi {
            break;
        }
        let e = eval(mid);
        if e >= setup.target {
            hi = mid;
            e_hi = e;
        } else {
            lo = mid;
        }
    }
    IsoPoint { p, work: Some(hi), efficiency: e_hi, runs, events }
}

/// The least-squares line through `points`: (slope, intercept).
///
/// ```
/// use treelb_sim::sweep::fit_line;
/// let (a, b) = fit_line(&[(1.0, 3.0), (2.0, 5.0), (3.0, 7.0)]);
/// assert!((a - 2.0).abs() < 1e-12 && (b - 1.0).abs() < 1e-12);
/// ```
pub fn fit_line(points: &[(f64, f64)]) -> (f64, f64) {
    let n = points.len() as f64;
    if points.len() < 2 {
        return (f64::NAN, f64::NAN);
    }
    let (sx, sy) = points.iter().fold((0.0, 0.0), |(a, b), &(x, y)| (a + x, b + y));
    let (mx, my) = (sx / n, sy / n);
    let sxx: f64 = points.iter().map(|&(x, _)| (x - mx) * (x - mx)).sum();
    let sxy: f64 = points.iter().map(|&(x, y)| (x - mx) * (y - my)).sum();
    let slope = sxy / sxx;
    (slope, my - slope * mx)
}
