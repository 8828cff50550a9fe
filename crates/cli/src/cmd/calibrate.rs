//! `treelb sim calibrate` and `treelb sim predict`: the simulator's cost
//! model measured on this machine, and its predictions set beside real runs.
//!
//! * `calibrate` measures, in nanoseconds, what the model needs: the cost of
//!   one node of each application (the CPU time of a one-PE run of the
//!   threads runtime, which runs on the calling thread, over its units of
//!   work; the fastest of `--repeat`), `T_split` (splitting an open
//!   depth-first search), `T_poll` (the probe of a PE's mailbox: one acquire
//!   load of an atomic word), two message costs between threads — the trip
//!   of a cache line between two spinning threads (a steal between running
//!   PEs) and a park/unpark wake-up (a message to a PE that gave its thread
//!   away, and about a context switch) — the cores C and the scheduler's
//!   quantum, and with `--mpi` `T_rout` and the probe cost between two MPI
//!   ranks (`mpirun -np 2 treelb sim ping-pong`, the runtime's own calls).
//!   It writes them as JSON.
//! * `predict` reads that file and runs the simulator with one tick = 1 ns
//!   on the *real* trees — the same `Search` expanded node by node, so the
//!   simulated PEs split exactly the pieces the runtime would — for the real
//!   P, next to runs of the threads runtime (and of the MPI runtime under
//!   `mpirun --oversubscribe`) on the same trees, and writes a Markdown
//!   table (predicted and measured efficiency, requests, transfers), the
//!   parts of the model each miss beyond ±10 % contradicts (computed from
//!   the runs' numbers), and the calibrated model's predictions for 1,024
//!   and 16,384 PEs on a crossbar and a 3-D torus.
//!
//! With more PEs than cores the simulated PEs share C cores
//! (`treelb_sim::Cores`): the threads runtime's PEs run to idle on the
//! pool's threads, MPI ranks are time-shared with a quantum. Measured
//! efficiency is T_seq / (P · T_par) with T_seq = units × the calibrated
//! cost of a unit: the sequential baseline, not the PEs' busy fraction.

use std::fmt::Write as _;
use std::hint::black_box;
use std::io::Read as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use treelb::search::{DfsWork, Search, SplitPolicy};
use treelb::{RunSpec, Strategy, Work};
use treelb_apps::clique::CliqueSearch;
use treelb_apps::input::escape_path;
use treelb_apps::nqueens::NQueens;
use treelb_apps::uts::{Params, SampleTree, Uts};
use treelb_bench::host::{LOADED_SHARE, OthersMeter};
use treelb_sim::engine::simulate;
use treelb_sim::{Cores, Costs, Machine, Network, SimConfig};

use crate::args::{CalibrateArgs, PingPongArgs, PredictArgs};
use crate::config::{Error, err};

/// The DIMACS file of `clique:ARG`: ARG itself if it exists, else the file
/// of that name among the shared benchmark instances
/// ([`treelb_bench::workload::instances`]: `TREELB_INSTANCES`, or the
/// folder beside the checkout).
fn clique_file(arg: &str) -> PathBuf {
    let path = PathBuf::from(arg);
    if path.exists() || path.components().count() > 1 {
        return path;
    }
    let shared = treelb_bench::workload::instances().join("clique").join(arg);
    if shared.exists() { shared } else { path }
}

/// The strategies the table compares: random polling, a round robin, a
/// pushing strategy, max-load and multilevel.
const COMPARED: [Strategy; 5] = [
    Strategy::RandomPolling,
    Strategy::AsyncRoundRobin,
    Strategy::WorkSharing,
    Strategy::MaxLoad,
    Strategy::Multilevel,
];

/// One application's cost per node.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct AppCost {
    /// As given: uts:T1, nqueens:12, clique:FILE.
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

/// What `treelb sim calibrate` measured (nanoseconds).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Calibration {
    /// C, the cores of the modelled machine.
    pub cores: usize,
    /// The load average (1 minute) when it measured, if known (it counts
    /// the measurement's own threads and ranks: [`Calibration::others_share`]
    /// judges the machine).
    pub load: Option<f64>,
    /// The share of the cores (0 to 1) other processes took while it
    /// measured ([`OthersMeter`]), if known.
    #[serde(default)]
    pub others_share: Option<f64>,
    /// Per application.
    pub apps: Vec<AppCost>,
    /// Splitting an open depth-first search (UTS T1 after 1,000 nodes).
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
}

fn default_quantum() -> f64 {
    1.5e6
}

/// Linux's default base slice on `cores` cores: 750 µs · (1 + ⌊log₂ C⌋)
/// (EEVDF's `base_slice_ns`, CFS's minimal granularity), in nanoseconds.
fn linux_slice(cores: usize) -> f64 {
    750e3 * f64::from(1 + cores.max(1).ilog2())
}

fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg").ok()?.split_whitespace().next()?.parse().ok()
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `f` with the search of `app`.
fn with_search<R>(app: &str, f: &mut dyn FnMut(&dyn AnySearch) -> R) -> Result<R, Error> {
    let (kind, arg) = app.split_once(':').ok_or_else(|| err!("--apps: `{app}` is not KIND:ARG"))?;
    match kind {
        "uts" => {
            let params = match SampleTree::find(arg) {
                Some(s) => s.params(),
                None => Params::from_uts_str(arg).map_err(|e| err!("--apps {app}: {e}"))?,
            };
            let uts = Uts::new(params).map_err(|e| err!("--apps {app}: {e}"))?;
            Ok(f(&uts))
        }
        "nqueens" => {
            let n: u32 = arg.parse().map_err(|e| err!("--apps {app}: {e}"))?;
            let q = NQueens::new(n).map_err(|e| err!("--apps {app}: {e}"))?;
            Ok(f(&q))
        }
        "clique" => {
            let path = clique_file(arg);
            let file =
                std::fs::File::open(&path).map_err(|e| err!("--apps {app}: {}: {e}", escape_path(&path)))?;
            let g = treelb_apps::clique::dimacs::parse(std::io::BufReader::new(file))
                .map_err(|e| err!("--apps {app}: {e}"))?;
            let s = CliqueSearch::max_clique(&g);
            Ok(f(&s))
        }
        _ => Err(err!("--apps: unknown application `{kind}` in `{app}` (uts, nqueens, clique)")),
    }
}

/// The command line of `treelb` that runs `app` (for the MPI runs).
fn app_args(app: &str) -> Result<Vec<String>, Error> {
    let (kind, arg) = app.split_once(':').ok_or_else(|| err!("--apps: `{app}` is not KIND:ARG"))?;
    Ok(match kind {
        "uts" if SampleTree::find(arg).is_some() => vec!["uts".into(), "--tree".into(), arg.into()],
        "uts" => {
            let mut v = vec!["uts".to_owned()];
            v.extend(arg.split_whitespace().map(str::to_owned));
            v
        }
        "nqueens" => vec!["nqueens".into(), arg.into()],
        "clique" => vec!["clique".into(), clique_file(arg).to_string_lossy().into_owned()],
        _ => return Err(err!("--apps: unknown application `{kind}` in `{app}` (uts, nqueens, clique)")),
    })
}

/// What the calibration and the predictions do with a search, whatever its
/// type.
trait AnySearch {
    /// A run of the threads runtime, with the CPU seconds of the calling
    /// thread (the whole run when P = 1).
    fn threads(&self, p: usize, strategy: Strategy) -> Result<(Measured, Option<f64>), Error>;
    /// A simulated run with `ns_per_node`.
    fn simulate(&self, cfg: SimConfig, ns_per_node: f64) -> Result<Predicted, Error>;
    /// The fastest of `batches` timings of `n` splits of an open search.
    fn split_ns(&self) -> f64;
}

/// A real run.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) struct Measured {
    nodes: u64,
    wall: f64,
    busy: f64,
    requests: u64,
    transfers: u64,
}

/// A simulated run.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) struct Predicted {
    efficiency: f64,
    requests: u64,
    transfers: u64,
    /// T_par in nanoseconds.
    t_par: f64,
    /// Hand-overs of a core.
    switches: u64,
}

impl<S> AnySearch for S
where
    S: Search + Sync,
    S::Node: Clone + Send,
{
    fn threads(&self, p: usize, strategy: Strategy) -> Result<(Measured, Option<f64>), Error> {
        let config = treelb_threads::Config {
            threads: p,
            spec: RunSpec { strategy, ..RunSpec::default() },
            ..Default::default()
        };
        let cpu = thread_cpu_seconds();
        let out = treelb_threads::run(DfsWork::new(self, SplitPolicy::OldestHalf), &config)
            .map_err(|e| err!("{e:?}"))?;
        let cpu = cpu.zip(thread_cpu_seconds()).map(|(a, b)| b - a);
        let total = out.stats.total();
        Ok((
            Measured {
                nodes: out.stats.work_units(),
                wall: out.stats.wall.as_secs_f64(),
                busy: total.busy.as_secs_f64(),
                requests: total.requests_sent,
                transfers: total.pieces_received,
            },
            cpu,
        ))
    }

    fn simulate(&self, mut cfg: SimConfig, ns_per_node: f64) -> Result<Predicted, Error> {
        cfg.unit_ticks = ns_per_node.round().max(1.0) as u64;
        let (r, _) = simulate(DfsWork::new(self, SplitPolicy::OldestHalf), &cfg).map_err(|e| err!("{e}"))?;
        Ok(Predicted {
            efficiency: r.efficiency,
            requests: r.requests,
            transfers: r.transfers,
            t_par: r.t_par as f64,
            switches: r.core_switches,
        })
    }

    fn split_ns(&self) -> f64 {
        let mut root = DfsWork::new(self, SplitPolicy::OldestHalf);
        let mut acc = Default::default();
        let _ = root.work(1000, &mut acc);
        let mut best = f64::INFINITY;
        for _ in 0..5 {
            let mut copies: Vec<_> = (0..200).map(|_| root.clone()).collect();
            let t = Instant::now();
            let mut got = 0u32;
            for c in &mut copies {
                got += u32::from(black_box(c.split()).is_some());
            }
            let dt = t.elapsed().as_secs_f64() * 1e9;
            if got > 0 {
                best = best.min(dt / f64::from(got));
            }
        }
        best
    }
}

/// One acquire load of an atomic word (a mailbox probe), fastest of five.
fn poll_ns() -> f64 {
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
/// word, each spinning on it: the cache line's trip from one core to the
/// other, what a steal between two running PEs costs (a request written
/// into the victim's slot, the answer into the thief's). Fastest of five
/// batches (a batch in which the other thread lost its core to another
/// process is slower, not faster).
fn rout_threads_ns() -> f64 {
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

/// Half the round trip of a park/unpark ping-pong between two threads:
/// each parks until the other unparks it, so every message is a futex
/// wake-up and a switch of the receiving core from idle to the thread —
/// what a message costs a PE that gave its thread away (more PEs than
/// cores: waiting PEs do not spin) and, roughly, a context switch between
/// two processes. Fastest of five batches.
fn wake_ns() -> f64 {
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

/// The CPU time of this thread, in seconds (Linux).
fn thread_cpu_seconds() -> Option<f64> {
    treelb_sim::engine::thread_cpu_seconds()
}

/// Runs `treelb sim calibrate`.
pub(crate) fn calibrate(a: &CalibrateArgs, out: &mut dyn std::io::Write) -> Result<bool, Error> {
    crate::outputs::check_in_new_folder("--out", &a.out)?;
    let c = a.cores.map_or_else(cores, |c| c as usize);
    let others = OthersMeter::start();
    let mut apps = Vec::new();
    let mut t_split = f64::NAN;
    for app in a.apps.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (nodes, wall, cpu, split) = with_search(app, &mut |s| -> Result<(u64, f64, f64, f64), Error> {
            let (mut wall, mut cpu) = (f64::INFINITY, f64::INFINITY);
            let mut nodes = 0;
            for _ in 0..a.repeat {
                let (m, c) = s.threads(1, Strategy::RandomPolling)?;
                nodes = m.nodes;
                wall = wall.min(m.wall);
                cpu = cpu.min(c.unwrap_or(m.wall));
            }
            Ok((nodes, wall, cpu, s.split_ns()))
        })??;
        if app.starts_with("uts:") && t_split.is_nan() {
            t_split = split;
        }
        let n = nodes.max(1) as f64;
        // A P = 1 run works on the calling thread: its CPU time is the
        // run's, whatever else the machine runs (unless no CPU clock).
        let ns_per_node = cpu.min(wall) * 1e9 / n;
        writeln!(
            out,
            "{app}: {nodes} units, {ns_per_node:.1} ns per unit (CPU), {:.1} ns (wall)",
            wall * 1e9 / n
        )?;
        apps.push(AppCost { app: app.to_owned(), nodes, ns_per_node, wall_ns_per_node: wall * 1e9 / n });
    }
    let (t_rout_mpi, t_poll_mpi) = if a.mpi { mpi_ping_pong()? } else { (None, None) };
    let (t_poll, t_rout_threads, t_wake) = (poll_ns(), rout_threads_ns(), wake_ns());
    let cal = Calibration {
        cores: c,
        load: load_average(),
        others_share: others.and_then(|m| m.share()),
        apps,
        t_split,
        t_poll,
        t_rout_threads,
        t_wake,
        quantum: a.quantum_us.map_or_else(|| linux_slice(c), |q| q * 1e3),
        t_rout_mpi,
        t_poll_mpi,
    };
    writeln!(
        out,
        "T_split {:.1} ns · T_poll {:.2} ns · T_rout (threads, spinning) {:.1} ns · wake-up {:.0} ns · \
         T_rout (MPI) {} · quantum {:.0} µs · {} cores, {}",
        cal.t_split,
        cal.t_poll,
        cal.t_rout_threads,
        cal.t_wake,
        cal.t_rout_mpi.map_or("not measured".into(), |t| format!("{t:.0} ns")),
        cal.quantum / 1e3,
        cal.cores,
        judge(cal.others_share)
    )?;
    let json = serde_json::to_vec_pretty(&cal)?;
    out.flush()?;
    crate::outputs::write_now("--out", &a.out, |w| w.write_all(&json))?;
    writeln!(out, "wrote {}", escape_path(&a.out))?;
    Ok(true)
}

/// The longest one `mpirun` of the calibration may take.
const MPIRUN_LIMIT: Duration = Duration::from_secs(300);

/// Runs `mpirun --oversubscribe -np NP` on this program with `args`;
/// returns rank 0's standard output. Fails with a message naming the
/// command if it fails or runs past [`MPIRUN_LIMIT`] (it is then killed).
fn mpirun(np: usize, args: &[String]) -> Result<String, Error> {
    let exe = std::env::current_exe().map_err(|e| err!("mpirun: cannot find this program: {e}"))?;
    let shown = format!("mpirun -np {np} treelb {}", args.join(" "));
    let mut child = Command::new("mpirun")
        .args(["--oversubscribe", "-np", &np.to_string()])
        .arg(&exe)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| err!("{shown}: cannot start mpirun: {e}"))?;
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let (mut o, mut e) = (String::new(), String::new());
        let _ = stdout.read_to_string(&mut o);
        let _ = stderr.read_to_string(&mut e);
        (o, e)
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| err!("{shown}: {e}"))? {
            break status;
        }
        if start.elapsed() > MPIRUN_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(err!("{shown}: ran past {} s and was killed", MPIRUN_LIMIT.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (o, e) = reader.join().unwrap_or_default();
    if !status.success() {
        let last = e.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
        return Err(err!("{shown}: failed ({status}): {last}"));
    }
    Ok(o)
}

/// What `treelb sim ping-pong` prints on rank 0.
#[derive(Debug, Serialize, Deserialize)]
struct PingPong {
    t_rout: f64,
    t_probe: f64,
}

/// T_rout and the cost of an empty probe between two MPI ranks: a
/// ping-pong under `mpirun -np 2`.
fn mpi_ping_pong() -> Result<(Option<f64>, Option<f64>), Error> {
    let o = mpirun(2, &["sim".into(), "ping-pong".into()])?;
    let pp: PingPong = serde_json::from_str(o.trim())
        .map_err(|e| err!("mpirun -np 2 treelb sim ping-pong: no result on rank 0 ({e}): {o}"))?;
    Ok((Some(pp.t_rout), Some(pp.t_probe)))
}

/// Runs `treelb sim ping-pong` (every rank of an `mpirun`).
#[cfg(feature = "mpi")]
pub(crate) fn ping_pong(a: &PingPongArgs, out: &mut dyn std::io::Write) -> Result<bool, Error> {
    let mpi = treelb_mpi::Mpi::init(1).map_err(|e| err!("mpi: {e}"))?;
    let t_rout = mpi.ping_pong(a.trips, a.batches);
    let t_probe = mpi.probe_ns(100_000);
    if let (Some(t_rout), Some(t_probe)) = (t_rout, t_probe) {
        writeln!(out, "{}", serde_json::to_string(&PingPong { t_rout, t_probe })?)?;
    }
    Ok(true)
}

/// Runs `treelb sim ping-pong`: needs the MPI runtime.
#[cfg(not(feature = "mpi"))]
pub(crate) fn ping_pong(_: &PingPongArgs, _: &mut dyn std::io::Write) -> Result<bool, Error> {
    Err(err!(
        "sim ping-pong: this treelb was built without the MPI runtime (cargo build --release -p treelb-cli --features mpi)"
    ))
}

/// The runtime a row measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Runtime {
    Threads,
    Mpi,
}

impl Runtime {
    fn name(self) -> &'static str {
        match self {
            Runtime::Threads => "threads",
            Runtime::Mpi => "MPI",
        }
    }
}

/// Nanoseconds as ticks (one tick = 1 ns), at least 1.
fn tick(x: f64) -> u64 {
    x.round().max(1.0) as u64
}

/// The simulator's configuration for `p` PEs of `runtime` on the calibrated
/// machine (one tick = 1 ns), and the sentence that says which model.
fn model(cal: &Calibration, runtime: Runtime, p: usize, strategy: Strategy) -> (SimConfig, &'static str) {
    let c = cal.cores.max(1);
    let over = p > c;
    let (t_rout, t_poll) = match runtime {
        // More PEs than cores: a waiting PE has given its thread away, so a
        // message reaches it through the run queue and a woken thread.
        Runtime::Threads => (if over { cal.t_wake } else { cal.t_rout_threads }, cal.t_poll),
        Runtime::Mpi => (cal.t_rout_mpi.unwrap_or(cal.t_wake), cal.t_poll_mpi.unwrap_or(cal.t_poll)),
    };
    let costs =
        Costs { t_rout: tick(t_rout), t_split: tick(cal.t_split), t_poll: tick(t_poll), ..Costs::default() };
    let mut cfg = SimConfig::new(
        Machine::new(p as u32, Network::Crossbar, costs),
        RunSpec { strategy, ..RunSpec::default() },
    );
    let which = if !over {
        "every PE on a core of its own"
    } else {
        match runtime {
            Runtime::Threads => {
                cfg.cores = Some(Cores { cores: c as u32, quantum: None, switch: tick(cal.t_rout_threads) });
                "run to idle on C cores (the pool's turns)"
            }
            Runtime::Mpi => {
                cfg.cores = Some(Cores {
                    cores: c as u32,
                    quantum: Some(tick(cal.quantum)),
                    switch: tick(cal.t_wake),
                });
                "time sharing on C cores (quantum, context switch)"
            }
        }
    };
    (cfg, which)
}

/// One row of the table.
struct Row {
    app: String,
    runtime: Runtime,
    p: usize,
    strategy: Strategy,
    measured: Measured,
    measured_efficiency: f64,
    predicted: Predicted,
    /// The model of the cores the prediction used.
    model: &'static str,
    /// Nanoseconds per node while the PEs ran (busy time / nodes).
    ns_in_run: f64,
}

impl Row {
    fn miss(&self) -> f64 {
        (self.predicted.efficiency - self.measured_efficiency) / self.measured_efficiency
    }

    /// How much slower a node was during the run than calibrated: busy
    /// time per node over the calibrated cost, over the P / C a PE's busy
    /// time holds when P PEs share C cores (at least 1).
    fn slowdown(&self, cal: &AppCost, cores: usize) -> f64 {
        let expected = (self.p as f64 / cores.max(1) as f64).max(1.0);
        (self.ns_in_run / cal.ns_per_node / expected).max(1.0)
    }

    /// The prediction at the node cost the run saw (the machine's other
    /// load slows every node alike): the efficiency over the slowdown.
    fn at_run_cost(&self, cal: &AppCost, cores: usize) -> f64 {
        self.predicted.efficiency / self.slowdown(cal, cores)
    }

    /// Which parts of the model the numbers of this run contradict: each
    /// test names the part, the measured and the predicted figure.
    fn reasons(&self, cal: &AppCost, cores: usize) -> Vec<String> {
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

/// Ranks of the MPI runs.
fn ranks(a: &PredictArgs, cal: &Calibration) -> Result<Vec<usize>, Error> {
    match a.ranks.as_deref() {
        None if cal.t_rout_mpi.is_some() => Ok(vec![2, 4, 8]),
        None | Some("none") => Ok(Vec::new()),
        Some(list) => counts("--ranks", list),
    }
}

fn counts(flag: &str, list: &str) -> Result<Vec<usize>, Error> {
    list.split(',')
        .map(|x| {
            x.trim()
                .parse::<usize>()
                .ok()
                .filter(|&p| p >= 1)
                .ok_or_else(|| err!("{flag}: `{x}` is not a count"))
        })
        .collect()
}

/// One MPI run of `app` on `np` ranks.
fn mpi_run(app: &str, np: usize, strategy: Strategy) -> Result<Measured, Error> {
    let mut args = app_args(app)?;
    args.extend(
        [
            "--runtime",
            "mpi",
            "--no-progress",
            "--json",
            "--strategy",
            strategy.name(),
            "--split-policy",
            "oldest-half",
            "--budget",
            &RunSpec::default().budget.to_string(),
        ]
        .map(str::to_owned),
    );
    let o = mpirun(np, &args)?;
    let v: serde_json::Value = serde_json::from_str(o.trim())
        .map_err(|e| err!("mpirun -np {np} treelb {}: no JSON report ({e})", args.join(" ")))?;
    let pes = v["pes"].as_array().cloned().unwrap_or_default();
    let sum = |k: &str| pes.iter().map(|p| p[k].as_u64().unwrap_or(0)).sum::<u64>();
    Ok(Measured {
        nodes: v["work_units"].as_u64().unwrap_or(0),
        wall: v["wall_secs"].as_f64().unwrap_or(f64::NAN),
        busy: pes.iter().map(|p| p["busy"].as_f64().unwrap_or(0.0)).sum(),
        requests: sum("requests_sent"),
        transfers: sum("pieces_received"),
    })
}

/// The fastest of `repeat` runs (by wall time).
fn fastest(repeat: u32, mut run: impl FnMut() -> Result<Measured, Error>) -> Result<Measured, Error> {
    let mut best: Option<Measured> = None;
    for _ in 0..repeat {
        let m = run()?;
        if best.is_none_or(|b| m.wall < b.wall) {
            best = Some(m);
        }
    }
    Ok(best.expect("at least one run"))
}

/// Runs `treelb sim predict`.
pub(crate) fn predict(a: &PredictArgs, out: &mut dyn std::io::Write) -> Result<bool, Error> {
    crate::outputs::check_in_new_folder("--out", &a.out)?;
    let text = std::fs::read(&a.calibration).map_err(|e| err!("{}: {e}", a.calibration.display()))?;
    let cal: Calibration = serde_json::from_slice(&text)
        .map_err(|e| err!("{}: not a calibration of `treelb sim calibrate`: {e}", a.calibration.display()))?;
    let pes = counts("--pes", &a.pes)?;
    let ranks = ranks(a, &cal)?;
    let load_before = load_average();
    let others = OthersMeter::start();
    let mut rows = Vec::new();
    let mut scaling = Vec::new();
    for app in &cal.apps {
        with_search(&app.app, &mut |s| -> Result<(), Error> {
            let runs =
                pes.iter().map(|&p| (Runtime::Threads, p)).chain(ranks.iter().map(|&p| (Runtime::Mpi, p)));
            for (runtime, p) in runs {
                for strategy in COMPARED {
                    let measured = match runtime {
                        Runtime::Threads => fastest(a.repeat, || Ok(s.threads(p, strategy)?.0))?,
                        Runtime::Mpi => fastest(a.repeat, || mpi_run(&app.app, p, strategy))?,
                    };
                    let (cfg, which) = model(&cal, runtime, p, strategy);
                    let predicted = s.simulate(cfg, app.ns_per_node)?;
                    let t_seq = measured.nodes as f64 * app.ns_per_node * 1e-9;
                    let row = Row {
                        app: app.app.clone(),
                        runtime,
                        p,
                        strategy,
                        measured,
                        measured_efficiency: t_seq / (p as f64 * measured.wall),
                        predicted,
                        model: which,
                        ns_in_run: measured.busy * 1e9 / measured.nodes.max(1) as f64,
                    };
                    writeln!(
                        out,
                        "{} {} P = {p} {}: measured {:.3}, predicted {:.3}",
                        row.app,
                        runtime.name(),
                        strategy.name(),
                        row.measured_efficiency,
                        row.predicted.efficiency
                    )?;
                    rows.push(row);
                }
            }
            if app.app.starts_with("uts:") && scaling.is_empty() {
                let costs = Costs {
                    t_rout: tick(cal.t_rout_threads),
                    t_split: tick(cal.t_split),
                    t_poll: tick(cal.t_poll),
                    ..Costs::default()
                };
                for network in [Network::Crossbar, Network::Torus3d] {
                    for p in [1024u32, 16384] {
                        let cfg = SimConfig::new(
                            Machine::new(p, network, costs),
                            RunSpec { strategy: Strategy::RandomPolling, ..RunSpec::default() },
                        );
                        let pr = s.simulate(cfg, app.ns_per_node)?;
                        scaling.push((app.app.clone(), network, p, pr));
                    }
                }
            }
            Ok(())
        })??;
    }
    let load = match (load_before, load_average()) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    };
    let machine = MachineLoad { calibrate: cal.others_share, predict: others.and_then(|m| m.share()), load };
    writeln!(out, "predict: {}", judge(machine.predict))?;
    let md = report(&cal, &rows, &scaling, &machine, a, &ranks);
    out.flush()?;
    crate::outputs::write_now("--out", &a.out, |w| w.write_all(md.as_bytes()))?;
    writeln!(out, "wrote {}", escape_path(&a.out))?;
    Ok(true)
}

/// How loaded the machine was while `treelb sim calibrate` and `treelb sim
/// predict` measured.
struct MachineLoad {
    /// Other processes' share of the cores during the calibration.
    calibrate: Option<f64>,
    /// … during the measured runs of the prediction.
    predict: Option<f64>,
    /// The highest load average seen by the prediction (counts its own runs).
    load: Option<f64>,
}

impl MachineLoad {
    /// Loaded if other processes took [`LOADED_SHARE`] of the cores during
    /// either measurement; where neither share is known, by the load
    /// average against half the cores.
    fn loaded(&self) -> bool {
        match (self.calibrate, self.predict) {
            (None, None) => self.load.is_some_and(|l| l > 0.5 * cores() as f64),
            (a, b) => a.into_iter().chain(b).any(|s| s >= LOADED_SHARE),
        }
    }
}

/// A share of the cores as a percentage, or "an unknown share".
fn share(s: Option<f64>) -> String {
    s.map_or("an unknown share".to_owned(), |s| format!("{:.1} %", 100.0 * s))
}

/// The verdict on a measurement's machine from other processes' share.
fn judge(s: Option<f64>) -> String {
    match s {
        Some(x) if x >= LOADED_SHARE => format!("other processes took {} of the cores: loaded", share(s)),
        Some(_) => format!("other processes took {} of the cores: quiet", share(s)),
        None => "other processes' share of the cores unknown".to_owned(),
    }
}

fn short_app(app: &str) -> &str {
    match app.split_once(':') {
        Some(("clique", file)) => file.rsplit('/').next().unwrap_or(file),
        _ => app,
    }
}

fn report(
    cal: &Calibration,
    rows: &[Row],
    scaling: &[(String, Network, u32, Predicted)],
    machine: &MachineLoad,
    a: &PredictArgs,
    ranks: &[usize],
) -> String {
    let mut w = String::new();
    let c = cal.cores;
    let _ = writeln!(w, "# The calibrated model against real runs\n");
    let mpi_flag = if cal.t_rout_mpi.is_some() { " --mpi" } else { "" };
    let _ = writeln!(
        w,
        "Regenerate the whole table with one command (a build with the MPI runtime: \
         `cargo build --release -p treelb-cli --features mpi`; as root Open MPI also wants \
         `OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1`):\n\n\
         ```\ntreelb sim calibrate{mpi_flag} --out {cal_file} && treelb sim predict --calibration {cal_file} --out {out}\n```\n\n\
         **The machine was {}** while it ran: {c} cores; other processes took {} of the cores \
         during the calibration and {} during the runs below (a machine counts as loaded from \
         {:.0} %; the load average, up to {}, also counts the runs' own PEs and ranks). On a \
         loaded machine the measured efficiencies (wall time) are pessimistic and noisy; the \
         costs per node are CPU times, which load disturbs less. Each measured run is the \
         fastest of {} repetitions.\n",
        if machine.loaded() { "loaded" } else { "quiet" },
        share(machine.calibrate),
        share(machine.predict),
        100.0 * LOADED_SHARE,
        machine.load.map_or("unknown".into(), |l| format!("{l:.1}")),
        a.repeat,
        cal_file = a.calibration.display(),
        out = a.out.display(),
    );
    let _ = writeln!(
        w,
        "**Calibration** (nanoseconds; one simulated tick = 1 ns): T_split = {:.0}; T_poll = {:.1} \
         (threads: one acquire load of the mailbox word), {} (MPI: one `MPI_Improbe` that finds \
         nothing); T_rout between two threads that spin = {:.0} (half the round trip of a cache \
         line: a steal between running PEs, P ≤ C); a wake-up = {:.0} (half the round trip of a \
         park/unpark ping-pong: a futex wake-up and a context switch, what a message costs a PE \
         that gave its thread away, P > C; the runtime's idle PEs then do not spin); T_rout \
         between two MPI ranks = {} (half the round trip of `MPI_Isend` + `MPI_Improbe` + \
         `MPI_Mrecv`, the runtime's own calls, `mpirun -np 2`); the scheduler's quantum = {:.0} µs. \
         Cost of a node, CPU time of a one-PE run of the threads runtime (its calling thread), \
         fastest of the repetitions:\n\n| application | units | ns per unit (CPU) | ns per unit (wall) |\n|---|---|---|---|",
        cal.t_split,
        cal.t_poll,
        cal.t_poll_mpi.map_or("not measured".to_owned(), |t| format!("{t:.0}")),
        cal.t_rout_threads,
        cal.t_wake,
        cal.t_rout_mpi.map_or("not measured".to_owned(), |t| format!("{t:.0}")),
        cal.quantum / 1e3,
    );
    for app in &cal.apps {
        let _ = writeln!(
            w,
            "| {} | {} | {:.1} | {:.1} |",
            short_app(&app.app),
            app.nodes,
            app.ns_per_node,
            app.wall_ns_per_node
        );
    }
    let _ = writeln!(
        w,
        "\nA unit is a node the `Search` expands: N-Queens' search places its last rows in one \
         unit, so its units are fewer and dearer than the board positions of the sequential \
         kernel's ~6 ns per node.\n"
    );
    let _ = writeln!(
        w,
        "**Model.** The simulator runs the same `Search` node by node (`DfsWork`, oldest-half \
         donation, Δt = {} units), so its PEs split the pieces the runtimes would; each node costs \
         the application's calibrated time; a message costs T_rout to travel and T_rout to each \
         end (the seeds' model); a crossbar. **Cores** (`treelb_sim::Cores`): with P ≤ C = {c} \
         every PE has a core of its own; with P > C, work advances only on C cores, so no \
         prediction can exceed C / P:\n\n\
         * threads: *run to idle* — the pool's turns: a busy PE keeps its core until its work runs \
         out, PEs that get work wait for a core first in first out, a hand-over costs the spinning \
         T_rout; messages to a waiting PE cost a wake-up;\n\
         * MPI: *time sharing* — ranks are processes: a busy rank gives its core up after a quantum \
         of {:.0} µs if another busy rank waits, and a switch costs a wake-up; idle ranks back off \
         and ask without a core.\n\n\
         Measured efficiency is T_seq / (P · wall) with T_seq = units × ns per unit; predicted \
         is the simulator's T_seq / (P · T_par). The bound column is min(1, C / P).\n",
        RunSpec::default().budget,
        cal.quantum / 1e3,
    );
    let _ = writeln!(
        w,
        "| application | runtime | P | strategy | bound | efficiency measured | predicted | miss | predicted at the run's node cost | miss | requests measured | predicted | transfers measured | predicted |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    let mut within = 0;
    let mut within_at_cost = 0;
    for r in rows {
        let miss = r.miss();
        within += usize::from(miss.abs() <= 0.1);
        let Some(app) = cal.apps.iter().find(|x| x.app == r.app) else { continue };
        let at_cost = r.at_run_cost(app, c);
        let miss_at_cost = (at_cost - r.measured_efficiency) / r.measured_efficiency;
        within_at_cost += usize::from(miss_at_cost.abs() <= 0.1);
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {:.2} | {:.3} | {:.3} | {:+.0} % | {at_cost:.3} | {:+.0} % | {} | {} | {} | {} |",
            short_app(&r.app),
            r.runtime.name(),
            r.p,
            r.strategy.name(),
            (c as f64 / r.p as f64).min(1.0),
            r.measured_efficiency,
            r.predicted.efficiency,
            100.0 * miss,
            100.0 * miss_at_cost,
            r.measured.requests,
            r.predicted.requests,
            r.measured.transfers,
            r.predicted.transfers
        );
    }
    let models: std::collections::BTreeSet<_> = rows.iter().map(|r| (r.runtime.name(), r.model)).collect();
    let _ = writeln!(
        w,
        "\nModels used: {}.\n",
        models.iter().map(|(rt, m)| format!("{rt}: {m}")).collect::<Vec<_>>().join("; ")
    );
    if ranks.is_empty() {
        let _ = writeln!(
            w,
            "**MPI.** Not run: `treelb sim predict --ranks 2,4,8` after `treelb sim calibrate --mpi`, \
             with a build that has the MPI runtime.\n"
        );
    } else {
        let _ = writeln!(
            w,
            "**MPI.** All five strategies run on the MPI runtime (it runs all 13), np = {} ranks \
             under `mpirun --oversubscribe`.\n",
            ranks.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
        );
    }
    let _ = writeln!(
        w,
        "**Goal: predicted efficiency within ±10 % of measured.** Met in {within} of {n} runs \
         at the calibrated node cost; in {within_at_cost} of {n} at the node cost each run saw \
         (its busy time per node — over P / C when P PEs share C cores — against the calibrated \
         cost: the machine's other load slows every node alike, which the calibrated model \
         cannot know). Where a miss remains, which parts of the model the run's own numbers \
         contradict (tests: a node's cost during the run beyond 1.1× the calibrated one, \
         requests or transfers off by more than 2×, wall time beyond the predicted T_par by \
         more than 10 %; runs within ±10 % at their own node cost are left out):\n",
        n = rows.len()
    );
    for r in rows.iter().filter(|r| r.miss().abs() > 0.1) {
        let Some(app) = cal.apps.iter().find(|x| x.app == r.app) else { continue };
        if ((r.at_run_cost(app, c) - r.measured_efficiency) / r.measured_efficiency).abs() <= 0.1 {
            continue;
        }
        let _ = writeln!(
            w,
            "* {} {} P = {} {} ({:+.0} %): {}.",
            short_app(&r.app),
            r.runtime.name(),
            r.p,
            r.strategy.name(),
            100.0 * r.miss(),
            r.reasons(app, c).join("; ")
        );
    }
    let _ = writeln!(
        w,
        "\n**Beyond one machine.** The same calibrated model, random polling, on {}: \
         assumptions — every PE has a core of its own, a message costs the spinning threads' \
         T_rout = {:.0} ns per hop and at each end (a real network costs more: multiply T_rout by \
         its latency over this one), dimension-order routing on the torus, no contention on \
         links, the node costs of this machine, the same tree.\n\n| network | P | efficiency | requests | transfers |\n|---|---|---|---|---|",
        scaling.first().map_or("the first UTS tree", |s| s.0.as_str()),
        cal.t_rout_threads
    );
    for (_, network, p, pr) in scaling {
        let _ =
            writeln!(w, "| {network} | {p} | {:.3} | {} | {} |", pr.efficiency, pr.requests, pr.transfers);
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_machine_is_judged_by_other_processes_share() {
        let m = |calibrate, predict, load| MachineLoad { calibrate, predict, load };
        // The runs' own eight ranks push the load average to 8 on two
        // cores: quiet all the same when nobody else ran.
        assert!(!m(Some(0.01), Some(0.02), Some(8.0)).loaded());
        assert!(m(Some(0.01), Some(0.30), Some(8.0)).loaded());
        assert!(m(Some(LOADED_SHARE), None, None).loaded());
        assert!(!m(None, Some(0.049), None).loaded());
        // Neither share known: the load average against half the cores.
        assert!(m(None, None, Some(1e6)).loaded());
        assert!(!m(None, None, Some(0.0)).loaded());
        assert_eq!(judge(Some(0.25)), "other processes took 25.0 % of the cores: loaded");
        assert_eq!(judge(Some(0.01)), "other processes took 1.0 % of the cores: quiet");
    }
}
