//! # treelb-threads — random polling (and every other scheme) on the cores of one machine
//!
//! [`run`] starts `P` worker threads, the processing elements (PEs), and runs
//! the random polling algorithm of Sanders (`003_…`, Figure 1) on them:
//!
//! * every PE holds at most one piece of [`Work`];
//! * a busy PE works its piece in slices of Δt units ([`Config::budget`]) and
//!   after each slice checks its request slot — one relaxed load; if a request
//!   is there it splits its piece and hands one part to the requester;
//! * an idle PE sends a request to a PE chosen by the [`Strategy`] (uniformly at
//!   random for random polling) and, while it waits for the answer, answers
//!   requests sent to it with "no work";
//! * a shared live-work counter detects termination (see the `termination`
//!   module's documentation for the protocol and why it is correct);
//! * with [`Init::Selective`] every PE splits its own copy of the root by the
//!   bits of its index instead of waiting for PE 0 to hand work out.
//!
//! The other schemes of the seeds run on the same PEs, selected by
//! [`Config::strategy`] (every name of [`Strategy`]):
//!
//! * *stealing* — the loop above with another choice of whom to ask:
//!   `global-round-robin` (one shared target counter) and
//!   `async-round-robin` (a target per PE, `002_…`); `max-load` (Loui and
//!   Sohoni, `004_…`: the PE with the largest *reported* load in a shared
//!   heap, loads reported lazily when ⌈log_ρ L⌉ grows, see
//!   [`treelb::load`]); `multilevel` (Kimura and Ichiyoshi, `001_…`: every
//!   PE asks only its producer in a tree with a fan-out per level,
//!   [`Config::fanout`]);
//! * *pushing* — every PE has a pool of waiting pieces and busy PEs push
//!   parts into pools: `work-sharing`, `extreme-work-sharing`, `two-choice`,
//!   `always-go-left` (`002_…`), and `master-worker` with one central pool,
//!   largest piece first;
//! * *static* — `static-block`, `static-cyclic`, `static-random`: the root is
//!   cut into [`STATIC_PIECES_PER_PE`] parts per PE or more, assigned once.
//!
//! A panic inside the work (in `work` or `split`) stops every PE and is
//! resumed in the caller of [`run`]: no thread is left waiting.
//!
//! ```
//! use treelb::search::{Children, DfsWork, Search, SplitPolicy};
//! use treelb_threads::{run, Config};
//!
//! /// The complete binary tree of height 16; counts its nodes.
//! struct Binary;
//! impl Search for Binary {
//!     type Node = u32;
//!     type Output = u64;
//!     fn root(&self) -> u32 { 0 }
//!     fn expand(&self, d: u32, acc: &mut u64, c: &mut Children<'_, u32>) {
//!         *acc += 1;
//!         if d < 16 { c.push(d + 1); c.push(d + 1); }
//!     }
//! }
//!
//! let config = Config { threads: 3, ..Config::default() };
//! let outcome = run(DfsWork::new(&Binary, SplitPolicy::OldestHalf), &config).unwrap();
//! assert_eq!(outcome.output, (1 << 17) - 1);
//! assert_eq!(outcome.stats.work_units(), (1 << 17) - 1);
//! assert_eq!(outcome.stats.pes.len(), 3);
//! ```

mod backoff;
mod mailbox;
mod pe;
mod pool;
mod sync;
mod termination;
pub mod trace;

use std::any::Any;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

pub use treelb::{Init, RunStats, Strategy, Work};

use crossbeam_utils::CachePadded;
use treelb::Reduce;
use treelb::init::{Share, selective_shares};
use treelb::load::LoadHeap;
use treelb::placement::{ProducerTree, StaticAssignment};
use treelb::strategy::VictimSelector;

use mailbox::Mailbox;
use pe::{Exit, Pe};
use pool::{Central, Pool, PoolPe};
use termination::Termination;
use trace::{State, Trace, Tracer};

/// The default Δt: units of work between two polls of the request slot.
pub const DEFAULT_BUDGET: u64 = 256;

pub use pool::STATIC_PIECES_PER_PE;

/// The strategies this runtime runs: all of them.
pub const SUPPORTED_STRATEGIES: [Strategy; 13] = Strategy::ALL;

/// How to run: number of PEs, Δt, initialization, strategy, seed, and the
/// parameters of the strategies that have some.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Number of PEs (worker threads), at least 1. Default: the number of cores.
    pub threads: usize,
    /// Δt: units of work a busy PE does between two checks for requests, at
    /// least 1. Smaller answers requests sooner; larger costs less per unit.
    pub budget: u64,
    /// How the root reaches the PEs.
    pub init: Init,
    /// Whom an idle PE asks for work.
    pub strategy: Strategy,
    /// Seed of the PEs' random choices; the same seed gives the same choices
    /// (though not the same schedule: thread timing is not reproducible).
    pub seed: u64,
    /// `multilevel`: the fan-out of each level of the producer tree, root
    /// first (levels beyond the list repeat its last entry). Empty: two
    /// levels above 16 PEs, one below, with the root's fan-out of
    /// Kimura and Ichiyoshi's Theorem 4 ([`treelb::placement::default_fanout`]).
    pub fanout: Vec<usize>,
    /// `max-load`: the ratio ρ of lazy load reports, in thousandths (a PE
    /// reports when ⌈log_ρ L⌉ grows); between 1001 and 1499 (ρ < 3/2).
    pub rho_milli: u32,
    /// Pins PE `i` to the `i`-th core the process may run on (modulo their
    /// number), so the operating system does not move PEs between cores.
    /// Off by default: on a machine shared with other work, a pinned PE
    /// cannot escape a busy core. Where pinning is not supported it does
    /// nothing.
    pub pin: bool,
    /// Record every PE's state changes and return them in
    /// [`Outcome::trace`] (see [`trace`]). Off: the PEs
    /// record nothing.
    pub trace: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            threads: thread::available_parallelism().map_or(1, |n| n.get()),
            budget: DEFAULT_BUDGET,
            init: Init::Root,
            strategy: Strategy::RandomPolling,
            seed: 0x7EE1_B5EED,
            fanout: Vec::new(),
            rho_milli: (treelb::load::DEFAULT_RHO * 1000.0) as u32,
            pin: false,
            trace: false,
        }
    }
}

/// A configuration that cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// `threads` was 0.
    NoThreads,
    /// `budget` was 0.
    ZeroBudget,
    /// The strategy does not run on the threads runtime (yet).
    UnsupportedStrategy(Strategy),
    /// `rho_milli` outside 1001..=1499.
    BadRho(u32),
    /// A fan-out of 0 in `fanout`.
    ZeroFanout,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::NoThreads => f.write_str("the number of threads must be at least 1"),
            ConfigError::ZeroBudget => f.write_str("the work budget (Δt) must be at least 1 unit"),
            ConfigError::UnsupportedStrategy(s) => write!(
                f,
                "strategy `{s}` does not run on the threads runtime yet (available: {})",
                SUPPORTED_STRATEGIES.map(Strategy::name).join(", ")
            ),
            ConfigError::BadRho(r) => write!(
                f,
                "the ratio of lazy load reports must lie strictly between 1 and 3/2, not {}",
                f64::from(*r) / 1000.0
            ),
            ConfigError::ZeroFanout => f.write_str("every fan-out of the producer tree must be at least 1"),
        }
    }
}

impl std::error::Error for ConfigError {}

impl Config {
    /// Checks that the configuration can run.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.threads == 0 {
            return Err(ConfigError::NoThreads);
        }
        if self.budget == 0 {
            return Err(ConfigError::ZeroBudget);
        }
        if !SUPPORTED_STRATEGIES.contains(&self.strategy) {
            return Err(ConfigError::UnsupportedStrategy(self.strategy));
        }
        if !(1001..=1499).contains(&self.rho_milli) {
            return Err(ConfigError::BadRho(self.rho_milli));
        }
        if self.fanout.contains(&0) {
            return Err(ConfigError::ZeroFanout);
        }
        Ok(())
    }

    /// The producer tree of `multilevel` for this configuration.
    pub fn producer_tree(&self) -> ProducerTree {
        if self.fanout.is_empty() {
            let levels = if self.threads > 16 { 2 } else { 1 };
            ProducerTree::with_levels(self.threads, levels)
        } else {
            ProducerTree::new(self.threads, &self.fanout)
        }
    }
}

/// The result of a run: the merged output and per-PE statistics.
#[derive(Clone, Debug)]
pub struct Outcome<O> {
    /// The outputs of all PEs, merged.
    pub output: O,
    /// What each PE did, and the wall time.
    pub stats: RunStats,
    /// When each PE did what, if [`Config::trace`] asked for it.
    pub trace: Option<Trace>,
}

/// A view of a run in progress, for progress indicators.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Snapshot {
    /// Time since the PEs started.
    pub elapsed: Duration,
    /// Work units done by all PEs so far (published after every slice of Δt).
    pub work_units: u64,
}

/// State shared by all PEs of one run.
pub(crate) struct Shared<W> {
    pub(crate) mailboxes: Vec<Mailbox<W>>,
    pub(crate) termination: Termination,
    /// Global round robin: the shared target counter, on its own line.
    pub(crate) round_robin: CachePadded<AtomicU64>,
    /// Max-load visiting: the reported loads.
    pub(crate) loads: Option<Mutex<LoadHeap>>,
    /// Multilevel: the producer tree.
    pub(crate) tree: Option<ProducerTree>,
    /// The pool-based strategies: one pool per PE (empty otherwise).
    pub(crate) pools: Vec<Pool<W>>,
    /// Master–worker: the central pool.
    pub(crate) central: Option<Central<W>>,
    aborted: AtomicBool,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    monitor: Thread,
}

impl<W> Shared<W> {
    pub(crate) fn aborted(&self) -> bool {
        self.aborted.load(Ordering::Acquire)
    }

    pub(crate) fn wake_monitor(&self) {
        self.monitor.unpark();
    }

    /// Records the first panic and stops every PE.
    fn abort_with(&self, payload: Box<dyn Any + Send>) {
        let mut slot = self.panic.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(payload);
        }
        drop(slot);
        self.aborted.store(true, Ordering::Release);
        self.stop_all();
    }

    /// Stops every PE: idle ones see `done`, busy ones find the abort mark
    /// in their request slot at their next poll. Used when the computation is
    /// decided early (a decision search found its witness) and on a panic.
    pub(crate) fn stop_all(&self) {
        self.termination.abort();
        for mailbox in &self.mailboxes {
            mailbox.abort();
        }
        self.wake_monitor();
    }
}

/// Runs `root` on `config.threads` PEs and returns the merged output.
///
/// Panics inside the work are resumed here after every PE has stopped.
pub fn run<W: Work + Clone>(root: W, config: &Config) -> Result<Outcome<W::Output>, ConfigError> {
    run_with_monitor(root, config, Duration::MAX, |_| {})
}

/// Like [`run`], and calls `monitor` on the calling thread about every
/// `interval` while the PEs work (not at all if the run ends sooner).
pub fn run_with_monitor<W, M>(
    root: W,
    config: &Config,
    interval: Duration,
    mut monitor: M,
) -> Result<Outcome<W::Output>, ConfigError>
where
    W: Work + Clone,
    M: FnMut(&Snapshot),
{
    config.validate()?;
    let p = config.threads;
    let strategy = config.strategy;
    let is_static =
        matches!(strategy, Strategy::StaticBlock | Strategy::StaticCyclic | Strategy::StaticRandom);
    let start = Instant::now();
    // The initial pieces of every PE, cut on this thread before any PE
    // starts (see `initial_shares`).
    let (initial, init_output, init_units) = initial_shares(root, config, is_static);
    let mut tracers = tracers(config, start, is_static);
    let live = initial.iter().map(Vec::len).sum();
    let mut init_done = Some((init_output, init_units));
    let pooled = pool::uses_pools(strategy);
    let shared = Shared {
        mailboxes: (0..p).map(|_| Mailbox::new()).collect(),
        termination: Termination::new(live),
        round_robin: CachePadded::new(AtomicU64::new(0)),
        loads: (strategy == Strategy::MaxLoad).then(|| Mutex::new(LoadHeap::new(p))),
        tree: (strategy == Strategy::Multilevel).then(|| config.producer_tree()),
        pools: if pooled { (0..p).map(|_| Pool::new()).collect() } else { Vec::new() },
        central: (strategy == Strategy::MasterWorker).then(Central::new),
        aborted: AtomicBool::new(false),
        panic: Mutex::new(None),
        monitor: thread::current(),
    };
    let mut initial = initial.into_iter();
    let cores = if config.pin { core_affinity::get_core_ids().unwrap_or_default() } else { Vec::new() };
    let results: Vec<(W::Output, treelb::PeStats, Option<Tracer>)> = thread::scope(|scope| {
        let handles: Vec<_> = (0..p)
            .map(|me| {
                let shared = &shared;
                let pieces = initial.next().expect("one list of pieces per PE");
                let done = if me == 0 { init_done.take() } else { None };
                let core = (!cores.is_empty()).then(|| cores[me % cores.len()]);
                let tracer = tracers.next().flatten();
                thread::Builder::new()
                    .name(format!("treelb-pe-{me}"))
                    .spawn_scoped(scope, move || {
                        if let Some(core) = core {
                            // Best effort: an unpinned PE still runs.
                            core_affinity::set_for_current(core);
                        }
                        pe_main(me, shared, config, pieces, done, tracer)
                    })
                    .expect("failed to spawn a PE thread")
            })
            .collect();
        // The monitor: the calling thread sleeps until the end, waking up
        // every `interval` to report progress.
        while !shared.termination.is_done() {
            let deadline = start.elapsed().saturating_add(interval);
            thread::park_timeout(interval.min(Duration::from_secs(3600)));
            if !shared.termination.is_done() && start.elapsed() >= deadline {
                let work_units = shared.mailboxes.iter().map(Mailbox::units).sum();
                monitor(&Snapshot { elapsed: start.elapsed(), work_units });
            }
        }
        handles.into_iter().map(|h| h.join().expect("PE threads catch their panics")).collect()
    });
    let wall = start.elapsed();
    if let Some(payload) = shared.panic.into_inner().unwrap_or_else(|e| e.into_inner()) {
        panic::resume_unwind(payload);
    }
    let mut output = W::Output::default();
    let mut pes = Vec::with_capacity(p);
    let wall_ns = wall.as_nanos() as u64;
    let mut traced = Vec::new();
    for (out, stats, tracer) in results {
        output.merge(out);
        pes.push(stats);
        traced.extend(tracer.map(|t| t.finish(wall_ns)));
    }
    let trace = config.trace.then(|| Trace { notes: Vec::new(), wall_ns, pes: traced });
    Ok(Outcome { output, stats: RunStats { wall, pes }, trace })
}

/// One recorder per PE if the run is traced. PE 0's starts with the
/// cutting of the root that ran before the PEs (see [`initial_shares`]),
/// as splitting, when there was any.
fn tracers(config: &Config, start: Instant, is_static: bool) -> impl Iterator<Item = Option<Tracer>> {
    let cut_ns = if config.trace { start.elapsed().as_nanos() as u64 } else { 0 };
    let cut = is_static || config.init == Init::Selective;
    (0..config.threads).map(move |me| {
        config.trace.then(|| {
            let mut tracer = Tracer::new(start);
            if me == 0 && cut {
                tracer.record(0, State::Splitting);
                tracer.record(cut_ns, State::Idle);
            }
            tracer
        })
    })
}

thread_local! {
    /// The index of the PE this thread runs, while it runs one.
    static CURRENT_PE: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// The index of the PE running on this thread, inside [`run`] (in `work` and
/// `split` of a piece); `None` on any other thread. Applications use it to
/// show which PE did which part of the work (e.g. a picture coloured by PE).
///
/// ```
/// assert_eq!(treelb_threads::current_pe(), None);
/// ```
pub fn current_pe() -> Option<usize> {
    CURRENT_PE.with(|c| c.get())
}

/// The initial pieces of every PE, and the output and work units of the
/// splitting that made them (credited to PE 0, which [`current_pe`] names
/// while the splitting runs).
///
/// * `Init::Root`: PE 0 holds the root, the others nothing.
/// * `Init::Selective`: share `i` of selective initialization for PE `i`.
/// * Static assignment: the parts of [`treelb::placement::StaticAssignment`],
///   each to its PE.
///
/// All shares come from one descent of the splitting tree on the calling
/// thread, before any PE runs. Computing them on the PEs in parallel (as the
/// MPI runtime does, by broadcast) is only correct if every PE cuts the root
/// the same way; a branch-and-bound search prunes by a shared incumbent that
/// changes while PEs run, so two PEs could cut it differently and lose part
/// of the tree. Here the cuts are made once. The cost is `O(log P)` levels
/// of splits, small next to any run worth balancing.
fn initial_shares<W: Work + Clone>(
    root: W,
    config: &Config,
    is_static: bool,
) -> (Vec<Vec<W>>, W::Output, u64) {
    CURRENT_PE.with(|c| c.set(Some(0)));
    let shares = cut_root(root, config, is_static);
    CURRENT_PE.with(|c| c.set(None));
    let mut output = W::Output::default();
    let mut units = 0;
    let pieces = shares
        .into_iter()
        .map(|list| {
            list.into_iter()
                .filter_map(|share| {
                    output.merge(share.output);
                    units += share.units;
                    share.piece
                })
                .collect()
        })
        .collect();
    (pieces, output, units)
}

/// The shares of [`initial_shares`], per PE.
fn cut_root<W: Work + Clone>(root: W, config: &Config, is_static: bool) -> Vec<Vec<Share<W>>> {
    let p = config.threads;
    let mut initial: Vec<Vec<Share<W>>> = (0..p).map(|_| Vec::new()).collect();
    if is_static {
        let assignment = StaticAssignment::new(config.strategy, p, STATIC_PIECES_PER_PE, config.seed);
        let all: Vec<usize> = (0..assignment.pieces()).collect();
        let mut by_index: Vec<Option<Share<W>>> = (0..assignment.pieces()).map(|_| None).collect();
        for (index, share) in selective_shares(&root, &all, assignment.pieces()) {
            by_index[index] = Some(share);
        }
        for (pe, list) in initial.iter_mut().enumerate() {
            for index in assignment.shares_of(pe) {
                list.push(by_index[index].take().expect("every index has its share"));
            }
        }
    } else if config.init == Init::Selective {
        let all: Vec<usize> = (0..p).collect();
        for (index, share) in selective_shares(&root, &all, p) {
            initial[index].push(share);
        }
    } else {
        initial[0].push(Share { piece: Some(root), output: W::Output::default(), units: 0 });
    }
    initial
}

/// The body of PE thread `me`: its initial pieces (and, for PE 0, the
/// output of cutting them), the loop, panic capture.
fn pe_main<W: Work + Clone>(
    me: usize,
    shared: &Shared<W>,
    config: &Config,
    pieces: Vec<W>,
    init: Option<(W::Output, u64)>,
    tracer: Option<Tracer>,
) -> (W::Output, treelb::PeStats, Option<Tracer>) {
    CURRENT_PE.with(|c| c.set(Some(me)));
    if pool::uses_pools(config.strategy) {
        return pool_main(me, shared, config, pieces, init, tracer);
    }
    let victims = VictimSelector::new(config.strategy, me, shared.mailboxes.len(), config.seed);
    let mut pe = Pe::new(me, shared, config.budget, victims);
    pe.tracer = tracer;
    if shared.loads.is_some() {
        pe.reporter = Some(treelb::load::LazyReporter::new(f64::from(config.rho_milli) / 1000.0));
    }
    if let Some((output, units)) = init {
        pe.add_initial(output, units);
    }
    debug_assert!(pieces.len() <= 1, "a stealing PE starts with one piece at most");
    let piece = pieces.into_iter().next();
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        if piece.is_none() && shared.termination.is_done() {
            return Exit::Done;
        }
        pe.run(piece)
    }));
    match result {
        Ok(Exit::Done | Exit::Aborted) => {}
        Err(payload) => shared.abort_with(payload),
    }
    pe.mark(State::Idle);
    (std::mem::take(&mut pe.acc), pe.stats, pe.tracer)
}

/// The body of PE thread `me` under a pool-based strategy: its initial
/// pieces wait in its pool (master–worker: the central pool).
fn pool_main<W: Work + Clone>(
    me: usize,
    shared: &Shared<W>,
    config: &Config,
    pieces: Vec<W>,
    init: Option<(W::Output, u64)>,
    tracer: Option<Tracer>,
) -> (W::Output, treelb::PeStats, Option<Tracer>) {
    let mut pe = PoolPe::new(me, shared, config.budget, config.strategy, config.seed);
    pe.tracer = tracer;
    if let Some((output, units)) = init {
        pe.add_initial(output, units);
    }
    for piece in pieces {
        // Already counted as live by the caller.
        pe.keep(piece);
    }
    let result = panic::catch_unwind(AssertUnwindSafe(|| pe.run(None)));
    match result {
        Ok(Exit::Done | Exit::Aborted) => {}
        Err(payload) => shared.abort_with(payload),
    }
    pe.mark(State::Idle);
    (std::mem::take(&mut pe.acc), pe.stats, pe.tracer)
}

// The runtime tests need real threads: under `cfg(loom)` the mailboxes and
// the detector only work inside a loom model, which `loom_tests` builds.
#[cfg(all(test, not(loom)))]
mod tests;

#[cfg(all(test, loom))]
mod loom_tests;
