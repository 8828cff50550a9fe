//! Calibration: the simulator's cost model measured on this machine, and
//! its predictions set beside real runs.
//!
//! The simulator charges what the analyses charge — a node's work, a
//! split, a probe, a message — in ticks, and nothing else. Calibration
//! gives a tick a meaning (one tick = 1 ns) by measuring those costs on
//! the real runtimes, so that the model's prediction for a real tree at the
//! real P can be checked against a real run: where they agree, the model
//! holds on this machine; where they do not, the run's own numbers tell
//! which part of the model they contradict (the cost of a node, the rate of
//! requests, the transfers, time the model does not know of).
//!
//! * [`calibrate`] measures, in nanoseconds, what the model needs: the
//!   cost of one node of each application (the CPU time of a one-PE run of
//!   the threads runtime, which runs on the calling thread, over its units
//!   of work; the fastest of the repetitions), `T_split` (splitting an open
//!   depth-first search), `T_poll` (the probe of a PE's mailbox: one
//!   acquire load of an atomic word), two message costs between threads —
//!   the trip of a cache line between two spinning threads (a steal between
//!   running PEs) and a park/unpark wake-up (a message to a PE that gave
//!   its thread away, and about a context switch) — the cores C and the
//!   scheduler's quantum, and with an [`Mpirun`] `T_rout` and the probe
//!   cost between two MPI ranks (the runtime's own calls) and the cost of
//!   a byte (a second ping-pong of 64 KiB messages). From those it derives
//!   the messages' LogGP parameters ([`NetworkNs`]: the overheads a probe,
//!   the latency the rest of the one-way time). The result, a
//!   [`Calibration`], is serializable.
//! * [`predict`] runs the simulator with those costs, its messages priced
//!   by LogGP ([`crate::loggp`]: overheads at the ends, serialization at a
//!   PE's interface, start-up and termination as messages; a calibration
//!   written before LogGP keeps the seeds' model), on the *real* trees —
//!   the same `Search` expanded node by node, so the simulated PEs split
//!   exactly the pieces the runtime would — for the real P, next to runs of
//!   the threads runtime (and of the MPI runtime under `mpirun
//!   --oversubscribe`) on the same trees, and predicts 1,024 and 16,384
//!   PEs on a crossbar and a 3-D torus. [`Prediction::markdown`] writes
//!   the table.
//! * [`blind`] separates the two in time: forecasts frozen into a file
//!   (and committed) before the runs, then the runs measured against that
//!   file's hash, with error figures beside naive forecasts and verdicts
//!   against tolerances fixed in the file.
//!
//! With more PEs than cores the simulated PEs share C cores ([`Cores`]):
//! the threads runtime's PEs run to idle on the pool's threads, MPI ranks
//! are time-shared with a quantum ([`Calibration::sim_config`]). Measured
//! efficiency is T_seq / (P · T_par) with T_seq = units × the calibrated
//! cost of a unit: the sequential baseline, not the PEs' busy fraction.
//!
//! How much other processes took of the machine while it measured is the
//! caller's to record ([`Calibration::others_share`], [`MachineLoad`]), as
//! for the reproductions: it watches the whole measurement, with the meter
//! and the threshold of its choice.
//!
//! ```no_run
//! use treelb::Strategy;
//! use treelb_sim::calibrate::{self, CalibrateConfig, PredictConfig, Runtime};
//!
//! let cfg = CalibrateConfig { apps: vec!["uts:T1".into()], ..CalibrateConfig::default() };
//! let cal = calibrate::calibrate(&cfg, &mut |app| println!("{}: {:.1} ns", app.app, app.ns_per_node))?;
//! // The simulator's machine for 8 PEs of the threads runtime.
//! let (sim, model) = cal.sim_config(Runtime::Threads, 8, Strategy::RandomPolling);
//! println!("T_rout = {} ns; {}", sim.machine.costs.t_rout, model.describe());
//! let pred = calibrate::predict(&cal, &PredictConfig::default(), &mut |_| {})?;
//! println!("{} runs, {} within ±10 %", pred.rows.len(), pred.rows.iter().filter(|r| r.miss().abs() <= 0.1).count());
//! # Ok::<(), calibrate::Error>(())
//! ```

mod apps;
pub mod blind;
mod lines;
mod mpirun;
mod predict;
mod report;

use std::fmt;
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use treelb::spec::SpecError;
use treelb::{RunSpec, Strategy};

pub use apps::split_ns;
pub use mpirun::{Mpirun, PingPong};
pub use predict::{CoreModel, PredictConfig, Prediction, Row, Runtime, Scaled, predict};
pub use report::{MachineLoad, judge};

use crate::loggp::{Detector, Link, LogGp};
use crate::{Cores, Costs, Model, Network, Platform, SimConfig};

/// Why a calibration or a prediction failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// An application is not `KIND:ARG`.
    NotKindArg {
        /// The application as given.
        app: String,
    },
    /// An application of a kind the calibration does not know (it knows
    /// `uts`, `nqueens`, `clique`).
    UnknownApp {
        /// The application as given.
        app: String,
        /// Its kind.
        kind: String,
    },
    /// An application's argument names no instance: a tree, a board or a
    /// graph that is invalid or cannot be read.
    BadApp {
        /// The application as given.
        app: String,
        /// What is wrong with it.
        message: String,
    },
    /// A run of the threads runtime could not start.
    Run(treelb_threads::ConfigError),
    /// The simulator rejected its configuration.
    Spec(SpecError),
    /// An MPI run failed.
    Mpirun {
        /// The command, as `mpirun -np N treelb ARGS`.
        command: String,
        /// What went wrong.
        message: String,
    },
    /// A forecast file of [`blind::freeze`] that cannot be read.
    Forecasts(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotKindArg { app } => write!(f, "`{app}` is not KIND:ARG"),
            Error::UnknownApp { app, kind } => {
                write!(f, "unknown application `{kind}` in `{app}` (uts, nqueens, clique, kclique)")
            }
            Error::BadApp { app, message } => write!(f, "{app}: {message}"),
            Error::Run(e) => e.fmt(f),
            Error::Spec(e) => e.fmt(f),
            Error::Mpirun { command, message } => write!(f, "{command}: {message}"),
            Error::Forecasts(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Run(e) => Some(e),
            Error::Spec(e) => Some(e),
            _ => None,
        }
    }
}

/// What [`calibrate`] measures.
#[derive(Clone, Debug)]
pub struct CalibrateConfig {
    /// The applications: `uts:TREE` (a UTS sample tree such as `T1`, or
    /// UTS parameters such as `-t 1 -a 3 -d 10 -b 4 -r 19`), `nqueens:N`,
    /// `clique:FILE` (a DIMACS file, or the name of one in
    /// [`CalibrateConfig::instances`]), `kclique:K:FILE` (whether FILE has
    /// a clique of K vertices: with K = ω + 1, the proof that ω is optimal,
    /// a tree that does not depend on the order of the search).
    pub apps: Vec<String>,
    /// C, the cores of the modelled machine; `None`: the cores this process
    /// may use.
    pub cores: Option<usize>,
    /// The scheduler's time slice for processes (MPI ranks), in
    /// nanoseconds; `None`: Linux's base slice on C cores, 750 µs · (1 +
    /// ⌊log₂ C⌋).
    pub quantum_ns: Option<f64>,
    /// Repetitions of each timing of an application; the fastest counts.
    pub repeat: u32,
    /// Also measure T_rout and the probe between two MPI ranks, with this
    /// launcher.
    pub mpi: Option<Mpirun>,
    /// With [`CalibrateConfig::mpi`], measure them also over TCP on the
    /// loopback interface ([`Mpirun::TCP_ARGS`]), for forecasts of
    /// [`Runtime::MpiTcp`].
    pub mpi_tcp: bool,
    /// The folder of the shared benchmark instances, where `clique:NAME`
    /// finds NAME (in its `clique` folder) when NAME is not a path.
    pub instances: Option<PathBuf>,
}

impl Default for CalibrateConfig {
    /// No applications, the cores of this process, Linux's slice, five
    /// repetitions, no MPI.
    fn default() -> Self {
        CalibrateConfig {
            apps: Vec::new(),
            cores: None,
            quantum_ns: None,
            repeat: 5,
            mpi: None,
            mpi_tcp: false,
            instances: None,
        }
    }
}

/// One application's cost per node.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AppCost {
    /// As given: `uts:T1`, `nqueens:12`, `clique:FILE`.
    pub app: String,
    /// Work units of its tree: the nodes the `Search` expands (N-Queens
    /// fuses its last rows into one unit, so fewer than the board's
    /// positions).
    pub nodes: u64,
    /// Nanoseconds of CPU time per unit on one PE of the threads runtime
    /// (the fastest of the repetitions): the simulator's cost of a node.
    pub ns_per_node: f64,
    /// Nanoseconds of wall time per unit, fastest of the repetitions.
    #[serde(default)]
    pub wall_ns_per_node: f64,
}

/// What [`calibrate`] measured (nanoseconds).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Calibration {
    /// C, the cores of the modelled machine.
    pub cores: usize,
    /// The load average (1 minute) when it measured, if known (it counts
    /// the measurement's own threads and ranks: [`Calibration::others_share`]
    /// judges the machine).
    pub load: Option<f64>,
    /// The share of the cores (0 to 1) other processes took while it
    /// measured, if known. [`calibrate`] leaves it `None`: the caller that
    /// watched the machine records it.
    #[serde(default)]
    pub others_share: Option<f64>,
    /// Per application.
    pub apps: Vec<AppCost>,
    /// Splitting an open depth-first search (the first UTS tree after
    /// 1,000 nodes; without a UTS tree, the first application's split).
    pub t_split: f64,
    /// One probe of a mailbox.
    pub t_poll: f64,
    /// One message between two threads that spin: half the round trip of
    /// a cache line.
    pub t_rout_threads: f64,
    /// One message to a thread that sleeps: half the round trip of a
    /// park/unpark ping-pong (a futex wake-up and a context switch).
    #[serde(default)]
    pub t_wake: f64,
    /// The scheduler's time slice for processes.
    #[serde(default = "default_quantum")]
    pub quantum: f64,
    /// One message between two MPI ranks (half the round trip of the
    /// runtime's send and probe), if measured.
    pub t_rout_mpi: Option<f64>,
    /// One `MPI_Improbe` that finds nothing, if measured.
    #[serde(default)]
    pub t_poll_mpi: Option<f64>,
    /// One message between two MPI ranks over TCP on the loopback
    /// interface, if measured ([`CalibrateConfig::mpi_tcp`]).
    #[serde(default)]
    pub t_rout_mpi_tcp: Option<f64>,
    /// One `MPI_Improbe` that finds nothing over TCP, if measured.
    #[serde(default)]
    pub t_poll_mpi_tcp: Option<f64>,
    /// The messages in LogGP's terms, derived from the measurements above
    /// ([`NetworkNs`]). Calibrations written before the simulator had
    /// LogGP lack it: their predictions keep the seeds' model, and so the
    /// predictions they always gave.
    #[serde(default)]
    pub loggp: Option<NetworkNs>,
}

/// One kind of message in LogGP's terms, in nanoseconds
/// ([`crate::loggp::Link`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkNs {
    /// `o_s`: the sender's time.
    pub o_send: f64,
    /// `o_r`: the receiver's time.
    pub o_recv: f64,
    /// `L`: the rest of one message's time from send to receipt.
    pub latency: f64,
    /// `G`: nanoseconds per byte at each network interface.
    pub gap_per_byte: f64,
}

impl LinkNs {
    /// `o_s = o_r = o`, and `L` the rest of `one_way` (at least 0): one
    /// message, `o_s + L + o_r`, takes what the ping-pong measured.
    fn split(one_way: f64, o: f64, gap_per_byte: f64) -> Self {
        let o = o.clamp(0.0, one_way / 2.0);
        LinkNs { o_send: o, o_recv: o, latency: (one_way - 2.0 * o).max(0.0), gap_per_byte }
    }

    /// In ticks of 1 ns.
    pub fn link(&self) -> Link {
        let ns = |x: f64| x.round().max(0.0) as u64;
        Link {
            o_send: ns(self.o_send),
            o_recv: ns(self.o_recv),
            latency: ns(self.latency),
            gap_milli: ns(self.gap_per_byte * 1000.0),
        }
    }
}

/// The calibrated messages in LogGP's terms (nanoseconds): each PE's
/// overheads are what one call on its mailbox costs (a probe), the latency
/// the rest of the measured one-way time (half a round trip), so that
/// `o_s + L + o_r` is what was measured.
///
/// * `threads`: between spinning threads; `o` the probe of a mailbox
///   word (a send is one store into it), `L` the cache line's trip,
///   `G = 0` (a piece is handed over by reference).
/// * `wake`: to a threads PE that gave its thread away (more PEs than
///   cores): `L` the park/unpark wake-up.
/// * `mpi`: between MPI ranks, if measured: `o` one `MPI_Improbe` (the
///   library's cost per call), `L` the rest of the ping-pong's half round
///   trip, `G` from ping-pongs of two sizes where measured (else 0).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct NetworkNs {
    /// Between threads that spin.
    pub threads: LinkNs,
    /// To a thread that sleeps.
    pub wake: LinkNs,
    /// Between MPI ranks.
    pub mpi: Option<LinkNs>,
    /// Between MPI ranks over TCP on the loopback interface.
    #[serde(default)]
    pub mpi_tcp: Option<LinkNs>,
}

impl NetworkNs {
    /// From the measurements of `cal` (its own `loggp` aside), with the
    /// MPI gap per byte `mpi_gap` (and over TCP `tcp_gap`) where measured.
    pub fn derive(cal: &Calibration, mpi_gap: Option<f64>, tcp_gap: Option<f64>) -> Self {
        NetworkNs {
            threads: LinkNs::split(cal.t_rout_threads, cal.t_poll, 0.0),
            wake: LinkNs::split(cal.t_wake, cal.t_poll, 0.0),
            mpi: cal
                .t_rout_mpi
                .map(|t| LinkNs::split(t, cal.t_poll_mpi.unwrap_or(cal.t_poll), mpi_gap.unwrap_or(0.0))),
            mpi_tcp: cal
                .t_rout_mpi_tcp
                .map(|t| LinkNs::split(t, cal.t_poll_mpi_tcp.unwrap_or(cal.t_poll), tcp_gap.unwrap_or(0.0))),
        }
    }
}

fn default_quantum() -> f64 {
    1.5e6
}

/// Linux's default base slice on `cores` cores: 750 µs · (1 + ⌊log₂ C⌋)
/// (EEVDF's `base_slice_ns`, CFS's minimal granularity), in nanoseconds.
fn linux_slice(cores: usize) -> f64 {
    750e3 * f64::from(1 + cores.max(1).ilog2())
}

/// The 1-minute load average of `/proc/loadavg`, where there is one.
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg").ok()?.split_whitespace().next()?.parse().ok()
}

/// The higher of `before` and the load average now, whichever is known: the
/// highest load seen around a measurement.
fn highest_load(before: Option<f64>) -> Option<f64> {
    match (before, load_average()) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    }
}

/// The cores this process may use.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Measures the costs of the real runtime on this machine (see the
/// [module](self)); calls `on_app` with each application's cost as soon as
/// it is known.
pub fn calibrate(cfg: &CalibrateConfig, on_app: &mut dyn FnMut(&AppCost)) -> Result<Calibration, Error> {
    let c = cfg.cores.unwrap_or_else(cores);
    let mut apps = Vec::new();
    let (mut t_split, mut split_from_uts) = (f64::NAN, false);
    for app in &cfg.apps {
        let (nodes, wall, cpu, split) =
            apps::with_search(app, cfg.instances.as_deref(), &mut |s| -> Result<_, Error> {
                let (mut wall, mut cpu) = (f64::INFINITY, f64::INFINITY);
                let mut nodes = 0;
                for _ in 0..cfg.repeat.max(1) {
                    let (m, c) = s.threads(1, Strategy::RandomPolling)?;
                    nodes = m.nodes;
                    wall = wall.min(m.wall);
                    cpu = cpu.min(c.unwrap_or(m.wall));
                }
                Ok((nodes, wall, cpu, s.split_ns()))
            })??;
        // The first UTS tree's split (the workload the costs were chosen
        // for); without one, the first application's that has a split.
        if split.is_finite() && (t_split.is_nan() || (app.starts_with("uts:") && !split_from_uts)) {
            t_split = split;
            split_from_uts = app.starts_with("uts:");
        }
        let n = nodes.max(1) as f64;
        // A P = 1 run works on the calling thread: its CPU time is the
        // run's, whatever else the machine runs (unless no CPU clock).
        let cost = AppCost {
            app: app.clone(),
            nodes,
            ns_per_node: cpu.min(wall) * 1e9 / n,
            wall_ns_per_node: wall * 1e9 / n,
        };
        on_app(&cost);
        apps.push(cost);
    }
    if t_split.is_nan() {
        // Every search ended before it could be split: nothing to time.
        let app = cfg.apps.first().cloned().unwrap_or_default();
        return Err(Error::BadApp {
            app,
            message: "none of the applications was large enough to split, so T_split cannot be measured: add a larger one (uts:T1, nqueens:12)".into(),
        });
    }
    let mpi = cfg.mpi.as_ref().map(Mpirun::ping_pong).transpose()?;
    let tcp = match &cfg.mpi {
        Some(mpirun) if cfg.mpi_tcp => Some(mpirun.over(Runtime::MpiTcp).ping_pong()?),
        _ => None,
    };
    let (t_poll, t_rout_threads, t_wake) = (poll_ns(), rout_threads_ns(), wake_ns());
    let mut cal = Calibration {
        cores: c,
        load: load_average(),
        others_share: None,
        apps,
        t_split,
        t_poll,
        t_rout_threads,
        t_wake,
        quantum: cfg.quantum_ns.unwrap_or_else(|| linux_slice(c)),
        t_rout_mpi: mpi.map(|p| p.t_rout),
        t_poll_mpi: mpi.map(|p| p.t_probe),
        t_rout_mpi_tcp: tcp.map(|p| p.t_rout),
        t_poll_mpi_tcp: tcp.map(|p| p.t_probe),
        loggp: None,
    };
    let gap = |p: Option<PingPong>| p.and_then(|p| p.gap_per_byte);
    cal.loggp = Some(NetworkNs::derive(&cal, gap(mpi), gap(tcp)));
    Ok(cal)
}

/// Nanoseconds as ticks (one tick = 1 ns), at least 1.
fn tick(x: f64) -> u64 {
    x.round().max(1.0) as u64
}

impl Calibration {
    /// The simulator's costs of PEs that each have a core and talk as
    /// spinning threads do: T_rout, T_split and T_poll in ticks of 1 ns,
    /// and the messages under LogGP where the calibration has it
    /// ([`Calibration::loggp`]; the seeds' model otherwise).
    pub fn costs(&self) -> Costs {
        Costs {
            t_rout: tick(self.t_rout_threads),
            t_split: tick(self.t_split),
            t_poll: tick(self.t_poll),
            model: self.model(|n| n.threads, Detector::Counter),
            ..Costs::default()
        }
    }

    /// The cost model of messages: LogGP on `link` of [`Calibration::loggp`]
    /// (one host: every PE on one node) with `detector`, or the seeds'
    /// model for a calibration without it.
    fn model(&self, link: impl Fn(&NetworkNs) -> LinkNs, detector: Detector) -> Model {
        match &self.loggp {
            Some(n) => Model::LogGp(LogGp { detector, ..LogGp::uniform(link(n).link()) }),
            None => Model::Seeds,
        }
    }

    /// The simulator's configuration for `p` PEs of `runtime` on the
    /// calibrated machine (a crossbar, one tick = 1 ns), and the model of
    /// the cores it uses. With more PEs than cores, a message to a waiting
    /// threads PE costs a wake-up and the PEs run to idle on C cores; MPI
    /// ranks (T_rout and the probe between ranks where measured, else the
    /// wake-up and the mailbox probe) are time-shared with the quantum.
    pub fn sim_config(&self, runtime: Runtime, p: usize, strategy: Strategy) -> (SimConfig, CoreModel) {
        let c = self.cores.max(1);
        let over = p > c;
        let (t_rout, t_poll) = match runtime {
            // More PEs than cores: a waiting PE has given its thread away, so
            // a message reaches it through the run queue and a woken thread.
            Runtime::Threads => (if over { self.t_wake } else { self.t_rout_threads }, self.t_poll),
            Runtime::Mpi => (self.t_rout_mpi.unwrap_or(self.t_wake), self.t_poll_mpi.unwrap_or(self.t_poll)),
            // Without a TCP measurement, the ranks' own: an underestimate.
            Runtime::MpiTcp => (
                self.t_rout_mpi_tcp.or(self.t_rout_mpi).unwrap_or(self.t_wake),
                self.t_poll_mpi_tcp.or(self.t_poll_mpi).unwrap_or(self.t_poll),
            ),
        };
        // LogGP: the same links; the threads runtime counts live work, the
        // MPI runtime runs the four-counter waves.
        let model = match runtime {
            Runtime::Threads if over => self.model(|n| n.wake, Detector::Counter),
            Runtime::Threads => self.model(|n| n.threads, Detector::Counter),
            Runtime::Mpi => self.model(|n| n.mpi.unwrap_or(n.wake), Detector::Waves),
            Runtime::MpiTcp => self.model(|n| n.mpi_tcp.or(n.mpi).unwrap_or(n.wake), Detector::Waves),
        };
        let costs = Costs {
            t_rout: tick(t_rout),
            t_split: tick(self.t_split),
            t_poll: tick(t_poll),
            model,
            ..Costs::default()
        };
        let mut cfg = SimConfig::new(
            Platform::new(p as u32, Network::Crossbar, costs),
            RunSpec { strategy, ..RunSpec::default() },
        );
        let model = if !over {
            CoreModel::Dedicated
        } else {
            match runtime {
                Runtime::Threads => {
                    cfg.cores =
                        Some(Cores { cores: c as u32, quantum: None, switch: tick(self.t_rout_threads) });
                    CoreModel::RunToIdle
                }
                Runtime::Mpi | Runtime::MpiTcp => {
                    cfg.cores = Some(Cores {
                        cores: c as u32,
                        quantum: Some(tick(self.quantum)),
                        switch: tick(self.t_wake),
                    });
                    CoreModel::TimeSharing
                }
            }
        };
        (cfg, model)
    }
}

/// A real run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Units of work done.
    pub nodes: u64,
    /// Wall time, in seconds.
    pub wall: f64,
    /// The PEs' busy time summed, in seconds.
    pub busy: f64,
    /// Requests for work the PEs sent.
    pub requests: u64,
    /// Pieces of work the PEs received.
    pub transfers: u64,
}

/// A simulated run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Predicted {
    /// T_seq / (P · T_par).
    pub efficiency: f64,
    /// Requests for work sent.
    pub requests: u64,
    /// Pieces of work transferred.
    pub transfers: u64,
    /// T_par in nanoseconds.
    pub t_par: f64,
    /// Hand-overs of a core.
    pub switches: u64,
}

/// One acquire load of an atomic word (a mailbox probe), in nanoseconds:
/// the fastest of five batches of ten million.
pub fn poll_ns() -> f64 {
    let word = AtomicU64::new(0);
    let n = 10_000_000u64;
    (0..5)
        .map(|_| {
            let t = Instant::now();
            let mut s = 0u64;
            for _ in 0..n {
                s = s.wrapping_add(black_box(&word).load(Ordering::Acquire));
            }
            black_box(s);
            t.elapsed().as_secs_f64() * 1e9 / n as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// Half the round trip of a value between two threads through one atomic
/// word, each spinning on it, in nanoseconds: the cache line's trip from
/// one core to the other, what a steal between two running PEs costs (a
/// request written into the victim's slot, the answer into the thief's).
/// Fastest of five batches (a batch in which the other thread lost its
/// core to another process is slower, not faster).
pub fn rout_threads_ns() -> f64 {
    let word = AtomicU64::new(0);
    let trips = 20_000u64;
    let wait = |want: u64| {
        let mut spins = 0u32;
        while word.load(Ordering::Acquire) != want {
            spins += 1;
            if spins > 100_000 {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
    };
    let mut best = f64::INFINITY;
    for batch in 0..5u64 {
        let base = batch * 2 * trips;
        let t = std::thread::scope(|s| {
            s.spawn(|| {
                for i in 0..trips {
                    wait(base + 2 * i + 1);
                    word.store(base + 2 * i + 2, Ordering::Release);
                }
            });
            let t = Instant::now();
            for i in 0..trips {
                word.store(base + 2 * i + 1, Ordering::Release);
                wait(base + 2 * i + 2);
            }
            t.elapsed()
        });
        best = best.min(t.as_secs_f64() * 1e9 / (2 * trips) as f64);
    }
    best
}

/// Half the round trip of a park/unpark ping-pong between two threads, in
/// nanoseconds: each parks until the other unparks it, so every message is
/// a futex wake-up and a switch of the receiving core from idle to the
/// thread — what a message costs a PE that gave its thread away (more PEs
/// than cores: waiting PEs do not spin) and, roughly, a context switch
/// between two processes. Fastest of five batches.
pub fn wake_ns() -> f64 {
    use std::sync::atomic::AtomicBool;
    let trips = 2_000u32;
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let turn = AtomicBool::new(false); // false: main's turn to send
        let main = std::thread::current();
        let t = std::thread::scope(|s| {
            let other = s.spawn(|| {
                for _ in 0..trips {
                    while !turn.load(Ordering::Acquire) {
                        std::thread::park();
                    }
                    turn.store(false, Ordering::Release);
                    main.unpark();
                }
            });
            let t = Instant::now();
            for _ in 0..trips {
                turn.store(true, Ordering::Release);
                other.thread().unpark();
                while turn.load(Ordering::Acquire) {
                    std::thread::park();
                }
            }
            t.elapsed()
        });
        best = best.min(t.as_secs_f64() * 1e9 / f64::from(2 * trips));
    }
    best
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn calibration(cores: usize) -> Calibration {
        Calibration {
            cores,
            load: None,
            others_share: None,
            apps: vec![AppCost {
                app: "uts:default".into(),
                nodes: 1732,
                ns_per_node: 100.0,
                wall_ns_per_node: 110.0,
            }],
            t_split: 200.0,
            t_poll: 0.4,
            t_rout_threads: 80.0,
            t_wake: 5_000.0,
            quantum: 1.5e6,
            t_rout_mpi: None,
            t_poll_mpi: None,
            t_rout_mpi_tcp: None,
            t_poll_mpi_tcp: None,
            loggp: None,
        }
    }

    #[test]
    fn applications_are_kind_arg_of_a_known_kind() {
        let fails = |app: &str| {
            calibrate(&CalibrateConfig { apps: vec![app.into()], ..Default::default() }, &mut |_| {})
        };
        assert!(matches!(fails("uts"), Err(Error::NotKindArg { .. })));
        let e = fails("chess:1").unwrap_err();
        assert_eq!(e.to_string(), "unknown application `chess` in `chess:1` (uts, nqueens, clique, kclique)");
        assert!(matches!(fails("nqueens:x"), Err(Error::BadApp { .. })));
        let e = fails("clique:no-such-file.clq").unwrap_err();
        assert!(
            matches!(e, Error::BadApp { .. }) && e.to_string().starts_with("clique:no-such-file.clq: "),
            "{e}"
        );
    }

    #[test]
    fn more_pes_than_cores_share_them() {
        let cal = calibration(2);
        let (cfg, model) = cal.sim_config(Runtime::Threads, 2, Strategy::RandomPolling);
        assert_eq!((model, cfg.cores, cfg.machine.costs.t_rout), (CoreModel::Dedicated, None, 80));
        let (cfg, model) = cal.sim_config(Runtime::Threads, 8, Strategy::RandomPolling);
        assert_eq!(model, CoreModel::RunToIdle);
        assert_eq!(cfg.machine.costs.t_rout, 5_000, "a waiting PE is woken");
        assert_eq!(cfg.cores.map(|c| (c.cores, c.quantum)), Some((2, None)));
        let (cfg, model) = cal.sim_config(Runtime::Mpi, 8, Strategy::RandomPolling);
        assert_eq!(model, CoreModel::TimeSharing);
        assert_eq!(cfg.cores.map(|c| (c.quantum, c.switch)), Some((Some(1_500_000), 5_000)));
        assert_eq!(cal.costs().t_split, 200);
        assert_eq!(linux_slice(2), 1.5e6);
    }

    #[test]
    fn loggp_where_calibrated_the_seeds_model_for_older_files() {
        let mut cal = calibration(2);
        // A file written before LogGP: no `loggp`, the seeds' model.
        let mut json: serde_json::Value = serde_json::to_value(&cal).unwrap();
        json.as_object_mut().unwrap().remove("loggp");
        let old: Calibration = serde_json::from_value(json).unwrap();
        assert_eq!(old.loggp, None);
        let (cfg, _) = old.sim_config(Runtime::Threads, 2, Strategy::RandomPolling);
        assert_eq!(cfg.machine.costs.model, Model::Seeds);
        // Derived: o_s = o_r = the probe, o_s + L + o_r = the half round trip.
        cal.t_rout_mpi = Some(1_000.0);
        cal.t_poll_mpi = Some(100.0);
        cal.loggp = Some(NetworkNs::derive(&cal, Some(0.25), None));
        let link = |cal: &Calibration, runtime, p| match cal
            .sim_config(runtime, p, Strategy::RandomPolling)
            .0
            .machine
            .costs
            .model
        {
            Model::LogGp(g) => (g.inter, g.detector),
            Model::Seeds => panic!("LogGP expected"),
        };
        let threads = Link { o_send: 0, o_recv: 0, latency: 79, gap_milli: 0 };
        assert_eq!(link(&cal, Runtime::Threads, 2), (threads, Detector::Counter));
        assert_eq!(link(&cal, Runtime::Threads, 8).0.latency, 4_999);
        let mpi = Link { o_send: 100, o_recv: 100, latency: 800, gap_milli: 250 };
        assert_eq!(link(&cal, Runtime::Mpi, 8), (mpi, Detector::Waves));
        assert!(matches!(cal.costs().model, Model::LogGp(_)));
        // Over TCP: its own ping-pong where measured, else the ranks' one.
        assert_eq!(link(&cal, Runtime::MpiTcp, 2), (mpi, Detector::Waves));
        cal.t_rout_mpi_tcp = Some(20_000.0);
        cal.t_poll_mpi_tcp = Some(2_000.0);
        cal.loggp = Some(NetworkNs::derive(&cal, Some(0.25), Some(0.5)));
        let tcp = Link { o_send: 2_000, o_recv: 2_000, latency: 16_000, gap_milli: 500 };
        assert_eq!(link(&cal, Runtime::MpiTcp, 2), (tcp, Detector::Waves));
        assert_eq!(link(&cal, Runtime::Mpi, 2).0, mpi);
        let (cfg, _) = cal.sim_config(Runtime::MpiTcp, 2, Strategy::RandomPolling);
        assert_eq!(cfg.machine.costs.t_rout, 20_000);
    }

    #[test]
    fn a_prediction_is_a_table() {
        let cal = calibration(2);
        let cfg = PredictConfig { pes: vec![2], repeat: 1, ..PredictConfig::default() };
        let mut seen = 0;
        let pred = predict(&cal, &cfg, &mut |_| seen += 1).unwrap();
        assert_eq!((seen, pred.rows.len(), pred.scaling.len()), (5, 5, 4));
        assert!(pred.rows.iter().all(|r| r.measured.nodes == 1732 && r.model == CoreModel::Dedicated));
        let machine =
            MachineLoad { calibrate: Some(0.0), predict: Some(0.0), load: None, loaded_share: 0.05 };
        let md = pred.markdown(&cal, &machine, Path::new("c.json"), Path::new("c.md"));
        assert!(md.contains("treelb sim predict --calibration c.json --out c.md"), "{md}");
        assert!(md.contains("**The machine was quiet**"), "{md}");
        assert_eq!(md.lines().filter(|l| l.starts_with("| uts:default | threads | 2 |")).count(), 5, "{md}");
        assert!(md.contains("**MPI.** Not run"), "{md}");
        // The results travel as JSON.
        let json = serde_json::to_string(&pred).unwrap();
        let back: Prediction = serde_json::from_str(&json).unwrap();
        assert_eq!(back.rows.len(), 5);
    }
}
