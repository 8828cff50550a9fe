//! The calibrated model's predictions beside real runs.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use treelb::{RunSpec, Strategy};

use super::{AppCost, Calibration, Error, Measured, Mpirun, Predicted, apps, load_average};
use crate::{Network, Platform, SimConfig};

/// The strategies a prediction compares: random polling, a round robin, a
/// pushing strategy, max-load and multilevel.
const COMPARED: [Strategy; 5] = [
    Strategy::RandomPolling,
    Strategy::AsyncRoundRobin,
    Strategy::WorkSharing,
    Strategy::MaxLoad,
    Strategy::Multilevel,
];

/// What [`predict`] runs.
#[derive(Clone, Debug)]
pub struct PredictConfig {
    /// PEs of the runs of the threads runtime.
    pub pes: Vec<usize>,
    /// Ranks of the runs of the MPI runtime (none: no MPI runs).
    pub ranks: Vec<usize>,
    /// Repetitions of each real run; the fastest (by wall time) counts.
    pub repeat: u32,
    /// How the MPI runs start.
    pub mpirun: Mpirun,
    /// The folder of the shared benchmark instances, as
    /// [`super::CalibrateConfig::instances`].
    pub instances: Option<PathBuf>,
}

impl Default for PredictConfig {
    /// 2, 4 and 8 PEs of the threads runtime, no MPI runs, three
    /// repetitions.
    fn default() -> Self {
        PredictConfig {
            pes: vec![2, 4, 8],
            ranks: Vec::new(),
            repeat: 3,
            mpirun: Mpirun::default(),
            instances: None,
        }
    }
}

/// The runtime a row measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Runtime {
    /// The threads runtime, `treelb_threads`.
    Threads,
    /// The MPI runtime, one rank a PE, under `mpirun --oversubscribe`
    /// (Open MPI's choice of transport: shared memory on one host).
    Mpi,
    /// The MPI runtime with its messages through TCP sockets on the
    /// loopback interface (`--mca pml ob1 --mca btl tcp,self`): the kernel's
    /// network stack between the ranks, as between hosts.
    MpiTcp,
}

impl Runtime {
    /// "threads", "MPI" or "MPI over TCP".
    pub fn name(self) -> &'static str {
        match self {
            Runtime::Threads => "threads",
            Runtime::Mpi => "MPI",
            Runtime::MpiTcp => "MPI over TCP",
        }
    }
}

/// How a prediction shares the cores among the PEs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CoreModel {
    /// P ≤ C: every PE has a core of its own.
    Dedicated,
    /// The threads runtime with P > C: a busy PE keeps its core until its
    /// work runs out, PEs that get work wait for a core first in first out.
    RunToIdle,
    /// The MPI runtime with P > C: a busy rank gives its core up after a
    /// quantum if another busy rank waits, a switch costs a wake-up.
    TimeSharing,
}

impl CoreModel {
    /// The model in a few words.
    pub fn describe(self) -> &'static str {
        match self {
            CoreModel::Dedicated => "every PE on a core of its own",
            CoreModel::RunToIdle => "run to idle on C cores (the pool's turns)",
            CoreModel::TimeSharing => "time sharing on C cores (quantum, context switch)",
        }
    }
}

/// One real run beside its prediction.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    /// The application, as calibrated.
    pub app: String,
    /// The runtime that ran it.
    pub runtime: Runtime,
    /// PEs (threads) or ranks.
    pub p: usize,
    /// The strategy.
    pub strategy: Strategy,
    /// The real run (the fastest of the repetitions).
    pub measured: Measured,
    /// T_seq / (P · wall), with T_seq = units × the calibrated cost of a
    /// unit.
    pub measured_efficiency: f64,
    /// The simulator's run.
    pub predicted: Predicted,
    /// The model of the cores the prediction used.
    pub model: CoreModel,
    /// Nanoseconds per node while the PEs ran (busy time / nodes).
    pub ns_in_run: f64,
}

impl Row {
    /// The prediction's relative error: (predicted − measured) / measured
    /// efficiency.
    pub fn miss(&self) -> f64 {
        (self.predicted.efficiency - self.measured_efficiency) / self.measured_efficiency
    }

    /// How much slower a node was during the run than calibrated: busy
    /// time per node over the calibrated cost, over the P / C a PE's busy
    /// time holds when P PEs share C cores (at least 1).
    pub fn slowdown(&self, cal: &AppCost, cores: usize) -> f64 {
        let expected = (self.p as f64 / cores.max(1) as f64).max(1.0);
        (self.ns_in_run / cal.ns_per_node / expected).max(1.0)
    }

    /// The prediction at the node cost the run saw (the machine's other
    /// load slows every node alike): the efficiency over the slowdown.
    pub fn at_run_cost(&self, cal: &AppCost, cores: usize) -> f64 {
        self.predicted.efficiency / self.slowdown(cal, cores)
    }

    /// Which parts of the model the numbers of this run contradict: each
    /// test names the part, the measured and the predicted figure.
    pub fn reasons(&self, cal: &AppCost, cores: usize) -> Vec<String> {
        let mut r = Vec::new();
        // Busy time per node: on P > C cores a PE that waits for a core
        // while it holds work counts as busy, so compare with P / C.
        let expected = (self.p as f64 / cores.max(1) as f64).max(1.0);
        let slow = self.slowdown(cal, cores);
        if slow > 1.1 {
            r.push(format!(
                "node cost: a node took {slow:.2}× its calibrated cost while the PEs ran{} (other \
                 processes on the machine, shared caches); the prediction at that cost is {:.3}",
                if expected > 1.0 {
                    format!(" (beyond the {expected:.0}× of sharing {cores} cores)")
                } else {
                    String::new()
                },
                self.predicted.efficiency / slow
            ));
        }
        let q = |a: u64, b: u64| (a.max(1) as f64 / b.max(1) as f64).max(b.max(1) as f64 / a.max(1) as f64);
        if q(self.measured.requests, self.predicted.requests) > 2.0 {
            r.push(format!(
                "request rate: {} requests measured, {} predicted ({:.1}×)",
                self.measured.requests,
                self.predicted.requests,
                q(self.measured.requests, self.predicted.requests)
            ));
        }
        if q(self.measured.transfers, self.predicted.transfers) > 2.0 {
            r.push(format!(
                "transfers: {} measured, {} predicted ({:.1}×)",
                self.measured.transfers,
                self.predicted.transfers,
                q(self.measured.transfers, self.predicted.transfers)
            ));
        }
        // What the wall time holds beyond the predicted T_par.
        let extra = self.measured.wall * 1e9 - self.predicted.t_par;
        let t_seq = self.measured.nodes as f64 * cal.ns_per_node;
        if extra > 0.1 * self.predicted.t_par {
            r.push(format!(
                "time outside the model: the run took {:.1} ms more than the predicted T_par of {:.1} ms \
                 ({:.0} % of T_seq / P): start-up of the run, termination, waiting for cores the \
                 model thought free",
                extra / 1e6,
                self.predicted.t_par / 1e6,
                100.0 * extra / (t_seq / self.p as f64)
            ));
        }
        if r.is_empty() {
            r.push(
                "none of the parts tested (node cost, requests, transfers, time) is off by the margins"
                    .into(),
            );
        }
        r
    }
}

/// A prediction beyond one machine: the calibrated model on many PEs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Scaled {
    /// The application (the first UTS tree calibrated).
    pub app: String,
    /// The network.
    pub network: Network,
    /// PEs, each with a core of its own.
    pub p: u32,
    /// The simulator's run with random polling.
    pub predicted: Predicted,
}

/// What [`predict`] found.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Prediction {
    /// Each real run beside its prediction: per application, the threads
    /// runs then the MPI runs, per P, per strategy.
    pub rows: Vec<Row>,
    /// Random polling on 1,024 and 16,384 PEs, on a crossbar and a 3-D
    /// torus, for the first UTS tree calibrated.
    pub scaling: Vec<Scaled>,
    /// Ranks of the MPI runs (empty: none ran).
    pub ranks: Vec<usize>,
    /// Repetitions of each real run.
    pub repeat: u32,
    /// The highest load average seen (before and after the runs; it counts
    /// the runs' own PEs and ranks).
    pub load: Option<f64>,
}

/// The fastest of `repeat` runs (by wall time).
pub(super) fn fastest(
    repeat: u32,
    mut run: impl FnMut() -> Result<Measured, Error>,
) -> Result<Measured, Error> {
    let mut best = run()?;
    for _ in 1..repeat {
        let m = run()?;
        if m.wall < best.wall {
            best = m;
        }
    }
    Ok(best)
}

/// Runs every calibrated application on the real runtimes with the
/// strategies compared (random polling, asynchronous round robin, work
/// sharing, max-load, multilevel) and simulates each run with the
/// calibrated model ([`Calibration::sim_config`]); calls `on_row` with each
/// row as soon as it is known.
pub fn predict(
    cal: &Calibration,
    cfg: &PredictConfig,
    on_row: &mut dyn FnMut(&Row),
) -> Result<Prediction, Error> {
    let load_before = load_average();
    let instances = cfg.instances.as_deref();
    let mut rows = Vec::new();
    let mut scaling = Vec::new();
    for app in &cal.apps {
        apps::with_search(&app.app, instances, &mut |s| -> Result<(), Error> {
            let runs = cfg
                .pes
                .iter()
                .map(|&p| (Runtime::Threads, p))
                .chain(cfg.ranks.iter().map(|&p| (Runtime::Mpi, p)));
            for (runtime, p) in runs {
                for strategy in COMPARED {
                    let measured = match runtime {
                        Runtime::Threads => fastest(cfg.repeat, || Ok(s.threads(p, strategy)?.0))?,
                        Runtime::Mpi | Runtime::MpiTcp => {
                            let mpirun = cfg.mpirun.over(runtime);
                            fastest(cfg.repeat, || mpirun.measure(&app.app, p, strategy, instances))?
                        }
                    };
                    let (sim, model) = cal.sim_config(runtime, p, strategy);
                    let predicted = s.simulate(sim, app.ns_per_node)?;
                    let t_seq = measured.nodes as f64 * app.ns_per_node * 1e-9;
                    let row = Row {
                        app: app.app.clone(),
                        runtime,
                        p,
                        strategy,
                        measured,
                        measured_efficiency: t_seq / (p as f64 * measured.wall),
                        predicted,
                        model,
                        ns_in_run: measured.busy * 1e9 / measured.nodes.max(1) as f64,
                    };
                    on_row(&row);
                    rows.push(row);
                }
            }
            if app.app.starts_with("uts:") && scaling.is_empty() {
                for network in [Network::Crossbar, Network::Torus3d] {
                    for p in [1024u32, 16384] {
                        let sim = SimConfig::new(
                            Platform::new(p, network, cal.costs()),
                            RunSpec { strategy: Strategy::RandomPolling, ..RunSpec::default() },
                        );
                        let predicted = s.simulate(sim, app.ns_per_node)?;
                        scaling.push(Scaled { app: app.app.clone(), network, p, predicted });
                    }
                }
            }
            Ok(())
        })??;
    }
    let load = super::highest_load(load_before);
    Ok(Prediction { rows, scaling, ranks: cfg.ranks.clone(), repeat: cfg.repeat, load })
}
