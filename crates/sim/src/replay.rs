//! A recorded run replayed in the simulator: the costs measured from its
//! trace, the same tree, strategy, Δt, seed and P, and the simulator's
//! decisions set beside the run's.
//!
//! A trace ([`treelb::trace`], from `--trace` on the threads or the MPI
//! runtime) holds every PE's states over time and its marks: the requests
//! it sent and to whom, the pieces it gave and received, and the units of
//! work each busy phase did. From them [`replay`] measures
//!
//! * the time of one unit of work: the PEs' working time over the units
//!   their busy phases did (the per-piece work of the trace, summed);
//! * `T_split`: the mean time a PE spent splitting a piece for another;
//! * `T_rout`: the median time from a piece given to its receipt (the
//!   model's message, which only travels: [`Overhead::Latency`]; the
//!   time the sender spends handing it over is in its busy time already);
//!
//! and simulates the run's tree with them, on a crossbar of the trace's P
//! PEs, with the run's strategy, initialization, Δt and seed. What the
//! replay reports ([`Replay`]):
//!
//! * `T_par` of both, and per PE the busy time, the units worked, the
//!   requests sent and the pieces given and received;
//! * **the victims**: the i-th request of a PE in the run against its i-th
//!   request in the simulation. Both drive the same strategy machine with
//!   the same seed, so a PE's victims agree as long as the machine has
//!   seen the same events in the same order; they diverge from the first
//!   event that timing changed (a request that found its victim idle in
//!   one and busy in the other). The share of equal victims, and where
//!   each PE's sequence first diverges, measure how far the simulator's
//!   timing follows the run's — not whether it predicts random draws it
//!   could not know.
//!
//! Requests go to PEs, so the victims compare for the stealing strategies;
//! under pushing, master–worker and the static strategies the other
//! columns still do.
//!
//! ```
//! use treelb::trace::{Interval, Mark, State, Trace, What};
//! use treelb::{RunSpec, SplitPolicy, Strategy};
//! use treelb_apps::uts::Params;
//! use treelb_sim::replay::replay;
//!
//! // A hand-made trace of 2 PEs: PE 0 worked 2 ms on 1000 nodes, gave
//! // PE 1 a piece, which arrived 10 µs later.
//! let w = |s, e| Interval { start_ns: s, end_ns: e, state: State::Working };
//! let m = |at_ns, what| Mark { at_ns, what };
//! let trace = Trace {
//!     wall_ns: 2_000_000,
//!     pes: vec![vec![w(0, 2_000_000)], vec![w(20_000, 1_000_000)]],
//!     marks: vec![
//!         vec![m(10_000, What::Give { to: 1 }), m(2_000_000, What::Worked { units: 1000 })],
//!         vec![m(1_000, What::Request { to: 0 }), m(20_000, What::Receive { from: 0 }),
//!              m(1_000_000, What::Worked { units: 500 })],
//!     ],
//!     ..Trace::default()
//! };
//! let spec = RunSpec { strategy: Strategy::RandomPolling, ..RunSpec::default() };
//! let tree = Params::from_uts_str("-t 1 -a 3 -d 5 -b 4 -r 19").unwrap();
//! let r = replay(&trace, &spec, tree, SplitPolicy::default()).unwrap();
//! assert_eq!(r.p, 2);
//! assert_eq!(r.measured.t_rout, 10_000);
//! assert_eq!(r.run.transfers, 1);
//! assert_eq!(r.per_pe[1].run.requests, 1);
//! assert!(r.sim.t_par_ns > 0);
//! ```

use std::fmt;

use serde::Serialize;
use treelb::search::DfsWork;
use treelb::spec::SpecError;
use treelb::strategy::Action;
use treelb::trace::{State, Trace, What};
use treelb::{RunSpec, SplitPolicy};
use treelb_apps::uts::{Params, ParamsError, Uts};

use crate::engine::{SimConfig, simulate_with};
use crate::platform::{Costs, Network, Overhead, Platform};
use crate::queue::Time;

mod text;

pub use text::{NoteError, Recorded};

/// The costs a replay measured in its trace.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Measured {
    /// Nanoseconds of working time per unit of work, over all PEs.
    pub unit_ns: f64,
    /// The same in the simulator's ticks (1 tick = 1 ns; at least 1).
    pub unit_ticks: Time,
    /// Mean time of a split, in ns (the default `T_split` if the trace
    /// has none).
    pub t_split: Time,
    /// Median time from a piece given to its receipt, in ns (the default
    /// `T_rout` if no piece moved).
    pub t_rout: Time,
    /// Pieces that moved, of which `t_rout` is the median.
    pub moves: usize,
}

/// What one side (the run or its simulation) did, summed or per PE.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Side {
    /// Time working, splitting or sending, in ns (ticks).
    pub busy_ns: u64,
    /// Units of work done.
    pub units: u64,
    /// Requests for work sent.
    pub requests: u64,
    /// Pieces given to other PEs.
    pub transfers: u64,
    /// Pieces received from other PEs.
    pub received: u64,
}

/// One PE of the run against the same PE of the simulation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PeReplay {
    /// The PE.
    pub pe: usize,
    /// What it did in the run.
    pub run: Side,
    /// What it did in the simulation.
    pub sim: Side,
    /// Requests compared: the shorter of the two sequences of victims.
    pub compared: usize,
    /// Of those, requests whose victim is the same at the same position.
    pub same_victims: usize,
    /// The position of the first request whose victim differs (or that
    /// one side has and the other lacks); `None` if both sequences agree.
    pub diverges_at: Option<usize>,
}

/// The run's totals and `T_par`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// `T_par` in ns: the run's wall time, or the simulation's time until
    /// termination.
    pub t_par_ns: u64,
    /// Units of work done.
    pub units: u64,
    /// Busy time over all PEs, in ns.
    pub busy_ns: u64,
    /// Requests sent.
    pub requests: u64,
    /// Pieces moved between PEs.
    pub transfers: u64,
}

/// A run against its replay in the simulator.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Replay {
    /// PEs.
    pub p: usize,
    /// The strategy's name.
    pub strategy: String,
    /// The costs measured in the trace, which the simulation ran with.
    pub measured: Measured,
    /// The run.
    pub run: Totals,
    /// The simulation.
    pub sim: Totals,
    /// Per PE.
    pub per_pe: Vec<PeReplay>,
    /// Requests compared, over all PEs.
    pub compared: usize,
    /// Of those, requests with the same victim at the same position.
    pub same_victims: usize,
}

impl Replay {
    /// The share of compared requests whose victim is the same (1 when
    /// none were compared).
    pub fn same_victim_share(&self) -> f64 {
        if self.compared == 0 { 1.0 } else { self.same_victims as f64 / self.compared as f64 }
    }

    /// The simulation's `T_par` over the run's: above 1, the simulation
    /// was slower.
    pub fn t_par_ratio(&self) -> f64 {
        self.sim.t_par_ns as f64 / self.run.t_par_ns.max(1) as f64
    }
}

/// Why a trace cannot be replayed.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ReplayError {
    /// The trace has no PEs.
    NoPes,
    /// The trace has no marks of work done (a trace of states alone).
    NoWork,
    /// The run's specification is not valid.
    Spec(SpecError),
    /// The tree's parameters describe no tree.
    Uts(ParamsError),
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::NoPes => f.write_str("the trace has no PEs"),
            ReplayError::NoWork => {
                f.write_str("the trace has no marks of the work done (recorded before traces had marks?)")
            }
            ReplayError::Spec(e) => write!(f, "{e}"),
            ReplayError::Uts(e) => write!(f, "UTS parameters: {e}"),
        }
    }
}

impl std::error::Error for ReplayError {}

/// The costs of the run that made `trace`: see the [module](self).
pub fn measure(trace: &Trace) -> Result<Measured, ReplayError> {
    let units: u64 = trace
        .marks
        .iter()
        .flatten()
        .map(|m| if let What::Worked { units } = m.what { units } else { 0 })
        .sum();
    if units == 0 {
        return Err(ReplayError::NoWork);
    }
    let working: u64 = (0..trace.pes.len()).map(|pe| trace.time_in(pe, State::Working)).sum();
    let unit_ns = working as f64 / units as f64;
    let splits: Vec<u64> =
        trace.pes.iter().flatten().filter(|i| i.state == State::Splitting).map(|i| i.len_ns()).collect();
    let defaults = Costs::default();
    let t_split =
        if splits.is_empty() { defaults.t_split } else { splits.iter().sum::<u64>() / splits.len() as u64 };
    let mut latencies: Vec<u64> = trace.moves().iter().map(|&(_, sent, _, got)| got - sent).collect();
    latencies.sort_unstable();
    let t_rout = latencies.get(latencies.len() / 2).copied().unwrap_or(defaults.t_rout);
    Ok(Measured {
        unit_ns,
        unit_ticks: (unit_ns.round() as Time).max(1),
        t_split: t_split.max(1),
        t_rout: t_rout.max(1),
        moves: latencies.len(),
    })
}

/// Replays the run that made `trace` — a search of the UTS tree `tree`
/// under `spec` with `split_policy`, on as many PEs as the trace has — in
/// the simulator with the costs measured in the trace ([`measure`]), and
/// sets the two side by side.
pub fn replay(
    trace: &Trace,
    spec: &RunSpec,
    tree: Params,
    split_policy: SplitPolicy,
) -> Result<Replay, ReplayError> {
    let p = trace.pes.len().max(trace.marks.len());
    if p == 0 {
        return Err(ReplayError::NoPes);
    }
    let measured = measure(trace)?;
    let costs = Costs {
        t_rout: measured.t_rout,
        t_split: measured.t_split,
        overhead: Overhead::Latency,
        ..Costs::default()
    };
    let mut cfg = SimConfig::new(Platform::new(p as u32, Network::Crossbar, costs), spec.clone());
    cfg.unit_ticks = measured.unit_ticks;
    cfg.record_decisions = true;
    let uts = Uts::new(tree).map_err(ReplayError::Uts)?;
    let (report, _) =
        simulate_with(DfsWork::new(&uts, split_policy), &cfg, true).map_err(ReplayError::Spec)?;

    let mut per_pe = Vec::with_capacity(p);
    for pe in 0..p {
        let marks = trace.marks.get(pe).map_or(&[][..], Vec::as_slice);
        let mut run = Side {
            busy_ns: [State::Working, State::Splitting, State::Sending]
                .iter()
                .map(|&s| trace.time_in(pe, s))
                .sum(),
            ..Side::default()
        };
        let mut run_victims = Vec::new();
        for m in marks {
            match m.what {
                What::Request { to } => {
                    run.requests += 1;
                    run_victims.push(to);
                }
                What::Give { .. } => run.transfers += 1,
                What::Receive { .. } => run.received += 1,
                What::Worked { units } => run.units += units,
            }
        }
        let stats = report.per_pe.get(pe).cloned().unwrap_or_default();
        let sim = Side {
            busy_ns: stats.busy.as_nanos() as u64,
            units: stats.work_units,
            requests: stats.requests_sent,
            transfers: stats.pieces_sent,
            received: stats.pieces_received,
        };
        let sim_victims: Vec<usize> = report
            .decisions
            .get(pe)
            .into_iter()
            .flatten()
            .flat_map(|d| d.actions.iter())
            .filter_map(|a| if let Action::Request { to } = a { Some(to) } else { None })
            .collect();
        let compared = run_victims.len().min(sim_victims.len());
        let same_victims = run_victims.iter().zip(&sim_victims).filter(|(a, b)| a == b).count();
        let diverges_at = run_victims
            .iter()
            .zip(&sim_victims)
            .position(|(a, b)| a != b)
            .or((run_victims.len() != sim_victims.len()).then_some(compared));
        per_pe.push(PeReplay { pe, run, sim, compared, same_victims, diverges_at });
    }
    let total = |side: fn(&PeReplay) -> Side, t_par_ns: u64| {
        let mut t = Totals { t_par_ns, ..Totals::default() };
        for s in per_pe.iter().map(side) {
            t.units += s.units;
            t.busy_ns += s.busy_ns;
            t.requests += s.requests;
            t.transfers += s.transfers;
        }
        t
    };
    let run = total(|r| r.run, trace.wall_ns);
    let sim = total(|r| r.sim, report.t_par);
    Ok(Replay {
        p,
        strategy: report.strategy.clone(),
        measured,
        run,
        sim,
        compared: per_pe.iter().map(|r| r.compared).sum(),
        same_victims: per_pe.iter().map(|r| r.same_victims).sum(),
        per_pe,
    })
}
