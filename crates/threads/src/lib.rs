//! # treelb-threads — random polling (and every other scheme) on the cores of one machine
//!
//! [`run`] runs `P` processing elements (PEs) on the worker threads of a
//! persistent [`Pool`] and runs the random polling algorithm of Sanders
//! ([Sanders 1999], Figure 1) on them:
//!
//! * every PE holds at most one piece of [`Work`];
//! * a busy PE works its piece in slices of Δt units (`RunSpec::budget`) and
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
//! Every other scheme of the seeds runs on the same loop, selected by the
//! run's [`RunSpec`] (every name of [`Strategy`]): each PE drives its
//! strategy machine from [`treelb::strategy`] — the same machines the MPI
//! runtime and the simulator drive — and carries out its actions on shared
//! memory (see the `pe` module). What is the driver's own: the live-work
//! counter of termination, the request and reply slots, the pools' locks,
//! the hub's lock, the PEs' turns on the threads (waiting idle PEs hold no
//! thread).
//!
//! A panic inside the work (in `work` or `split`) stops every PE and is
//! resumed in the caller of [`run`]: no thread is left waiting, and the
//! pool works for the next run.
//!
//! ## Threads and PEs
//! The PEs are not threads: a run of `P` PEs uses `min(P, n + 1)` threads,
//! the calling thread and up to `n` workers of the pool, and a PE occupies
//! a thread only while it has something to do — working a piece, answering
//! a request, asking for work. A PE that waits (for an answer, a push, a
//! search permit, the end) gives its thread to the next PE in the run's
//! queue and is queued again by the next message for it (see the `sched`
//! module). So 4,096 PEs on a two-core machine cost two threads, and a tiny
//! run costs no thread start: [`run`] uses a global pool with one worker
//! per core, started at the first run and kept (as rayon's global pool is);
//! [`Pool`] gives a pool of one's own. The protocols, and why they are
//! correct, are in `docs/protocols.md` (§4a, §4b).
//!
//! ```
//! use treelb::search::{BinaryTree, DfsWork, SplitPolicy};
//! use treelb_threads::{run, Config};
//!
//! let config = Config::new(3);
//! let outcome = run(DfsWork::new(&BinaryTree(16), SplitPolicy::OldestHalf), &config).unwrap();
//! assert_eq!(outcome.output, (1 << 17) - 1);
//! assert_eq!(outcome.stats.work_units(), (1 << 17) - 1);
//! assert_eq!(outcome.stats.pes.len(), 3);
//! ```

//! ## Stopping a run
//!
//! A run is stopped from any other thread through a [`Limit`] (the one
//! mechanism behind `--max-nodes`, Ctrl-C and `--time-limit` in the command
//! line): wrap the root in [`Limited`] and call [`Limit::stop`] — from a
//! cancel button, a watchdog, a signal handler. Every busy PE checks the
//! limit after each slice of Δt units, drops the rest of its piece and stops
//! every other PE, so the run ends within about one slice per PE; [`run`]
//! returns the output of the work done and [`Limit::interrupted`] says that
//! it is partial. [`Limit::new`] also caps the units of work.
//!
//! ```
//! use std::time::Duration;
//! use treelb::search::{Children, DfsWork, Search, SplitPolicy};
//! use treelb_threads::{run, Config, Limit, Limited};
//!
//! /// The complete binary tree of height 60: centuries of work.
//! struct Huge;
//! impl Search for Huge {
//!     type Node = u32;
//!     type Output = u64;
//!     fn root(&self) -> u32 { 0 }
//!     fn expand(&self, d: u32, acc: &mut u64, c: &mut Children<'_, u32>) {
//!         *acc += 1;
//!         if d < 60 { c.push(d + 1); c.push(d + 1); }
//!     }
//! }
//!
//! let stop = Limit::unbounded();
//! let outcome = std::thread::scope(|s| {
//!     s.spawn(|| {
//!         std::thread::sleep(Duration::from_millis(20));
//!         stop.stop(); // from another thread
//!     });
//!     run(Limited::new(DfsWork::new(&Huge, SplitPolicy::OldestHalf), &stop), &Config::new(2)).unwrap()
//! });
//! assert!(stop.stopped() && stop.interrupted());
//! assert_eq!(outcome.output, outcome.stats.work_units()); // the nodes done before the stop
//! ```

mod gate;
mod mailbox;
mod pe;
mod pool;
mod sched;
mod sync;
mod termination;
pub use treelb::trace;

use std::any::Any;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

pub use treelb::limit::{Limit, Limited, StopReason, Stops};
pub use treelb::spec::{Budget, SpecError};
pub use treelb::{Init, RunSpec, RunStats, Strategy, Work};

use crossbeam_utils::CachePadded;
use treelb::Reduce;
use treelb::spec::unpack;
use treelb::strategy::Hub;

use gate::Gate;
use mailbox::Mailbox;
use pe::{Exit, Pe, PoolSlot, Step};
pub use pool::Pool;
use sched::{After, Sched};
use termination::Termination;
use trace::{State, Trace, Tracer};

/// The strategies this runtime runs: all of them.
pub const SUPPORTED_STRATEGIES: [Strategy; 13] = Strategy::ALL;

/// How to run: the balancing ([`RunSpec`]: strategy, initialization, Δt,
/// seed, the strategies' parameters) and what is this runtime's own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Number of PEs, at least 1. Default: the number of cores. PEs take
    /// turns on at most one thread per worker of the pool (plus the
    /// calling thread); see the crate's documentation.
    pub threads: usize,
    /// How to balance.
    pub spec: RunSpec,
    /// Pins the run's `i`-th thread to the `i`-th core the process may run
    /// on (modulo their number), so the operating system does not move them
    /// between cores: the run gets pinned workers of its own (one per core,
    /// at most `threads`), started and stopped with it.
    /// Off by default: on a machine shared with other work, a pinned PE
    /// cannot escape a busy core. Where pinning is not supported it does
    /// nothing.
    pub pin: bool,
    /// Record every PE's state changes and return them in
    /// [`Outcome::trace`] (see [`trace`]). Off: the PEs
    /// record nothing.
    pub trace: bool,
    /// Record every decision of every PE's strategy machine and return them
    /// in [`Outcome::decisions`] (for conformance tests; the logs grow by
    /// one entry per event).
    pub record_decisions: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            threads: machine_cores(),
            spec: RunSpec::default(),
            pin: false,
            trace: false,
            record_decisions: false,
        }
    }
}

/// A configuration that cannot run.
#[derive(Clone, Debug, PartialEq)]
pub enum ConfigError {
    /// `threads` was 0.
    NoThreads,
    /// The run specification is invalid.
    Spec(SpecError),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::NoThreads => f.write_str("the number of threads must be at least 1"),
            ConfigError::Spec(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ConfigError {}

impl From<SpecError> for ConfigError {
    fn from(e: SpecError) -> Self {
        ConfigError::Spec(e)
    }
}

impl Config {
    /// The default configuration with `threads` PEs.
    pub fn new(threads: usize) -> Self {
        Config { threads, ..Config::default() }
    }

    /// `threads` PEs balanced by `spec`.
    pub fn with_spec(threads: usize, spec: RunSpec) -> Self {
        Config { threads, spec, ..Config::default() }
    }

    /// Checks that the configuration can run.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.threads == 0 {
            return Err(ConfigError::NoThreads);
        }
        self.spec.validate()?;
        Ok(())
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
    /// Every decision of every PE's machine, in PE order, if
    /// [`Config::record_decisions`] asked for them.
    pub decisions: Option<Vec<Vec<treelb::strategy::Decision>>>,
    /// Why the run stopped before its work was done, if it did: the output
    /// is then partial. Set by [`Run`]; a plain [`run`] of a root that
    /// the caller limited leaves it to the caller's
    /// [`Limit::partial_because`].
    pub stopped: Option<StopReason>,
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
    /// Every PE's pool of waiting pieces (its initial pieces, and pushes).
    pub(crate) pools: Vec<PoolSlot<W>>,
    pub(crate) termination: Termination,
    /// Global round robin: the hub's ticket counter, on its own line.
    pub(crate) tickets: CachePadded<AtomicU64>,
    /// The hub of max-load (load heap) and master–worker (central pool).
    pub(crate) hub: Option<Mutex<Hub<W>>>,
    /// Which PEs wait and which are queued for a thread (see `sched`).
    sched: Sched,
    /// The search permits (strategies whose idle PEs keep asking), if
    /// there are more PEs than permits.
    pub(crate) gate: Option<Gate>,
    /// Whether idle PEs close their request slots (their machines refuse
    /// every request while idle: the stealing strategies and max-load).
    pub(crate) closes_when_idle: bool,
    /// Whether a PE waiting for an answer spins a little before it waits:
    /// only when every PE has a core of its own.
    pub(crate) spins: bool,
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

    /// Wakes PE `pe` if it waits: called after every message for it
    /// (answer, request, push, permit). Cheap when it does not wait (a
    /// fence and one atomic read-modify-write, see `sched`).
    #[inline]
    pub(crate) fn wake(&self, pe: usize) {
        self.sched.wake(pe);
    }

    /// Wakes every PE: once, when the run ends or aborts.
    pub(crate) fn wake_all(&self) {
        for pe in 0..self.sched.len() {
            self.wake(pe);
        }
        self.wake_monitor();
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
        self.wake_all();
    }
}

/// Runs `root` on `config.threads` PEs and returns the merged output.
///
/// Panics inside the work are resumed here after every PE has stopped.
///
/// ```
/// use treelb::search::{Children, DfsWork, Search, SplitPolicy};
/// use treelb::{RunSpec, Strategy};
/// use treelb_threads::{Config, run};
///
/// /// The 2^16 subsets of 16 items, one leaf each.
/// struct Subsets;
/// impl Search for Subsets {
///     type Node = u32; // items decided so far
///     type Output = u64; // leaves, added up over the PEs
///     fn root(&self) -> u32 { 0 }
///     fn expand(&self, i: u32, leaves: &mut u64, children: &mut Children<'_, u32>) {
///         if i == 16 {
///             *leaves += 1;
///         } else {
///             children.push(i + 1); // without item i
///             children.push(i + 1); // with it
///         }
///     }
/// }
///
/// // Three PEs under randomized work sharing instead of the default random polling.
/// let config = Config::with_spec(3, RunSpec { strategy: Strategy::WorkSharing, ..RunSpec::default() });
/// let outcome = run(DfsWork::new(&Subsets, SplitPolicy::default()), &config).unwrap();
/// assert_eq!(outcome.output, 1 << 16);
/// assert_eq!(outcome.stats.pes.len(), 3);
/// assert_eq!(outcome.stats.work_units(), (1 << 17) - 1); // every node once
/// ```
pub fn run<W: Work + Clone>(root: W, config: &Config) -> Result<Outcome<W::Output>, ConfigError> {
    run_with_monitor(root, config, Duration::MAX, |_| {})
}

/// A run with what a long computation needs around it: a deadline, a cap
/// on its units of work, a stop handle another thread can pull, and an
/// observer called every so often with the work done — the one entry point
/// for all of them, on the global pool (or a [`Pool`] of one's own).
///
/// The run stops within about one slice of Δt per PE once its deadline has
/// passed, its cap is reached or its stop handle is pulled, and its
/// [`Outcome`] says why ([`Outcome::stopped`]); the output is then that of
/// the work done. A run whose work was done first reports `None`, whatever
/// came after.
///
/// ```
/// use std::time::Duration;
/// use treelb::search::{BinaryTree, DfsWork, SplitPolicy};
/// use treelb_threads::{Config, Limit, Run, StopReason};
///
/// // The complete binary tree of height 50: far more than 50 ms of work.
/// let work = || DfsWork::new(&BinaryTree(50), SplitPolicy::OldestHalf);
/// let mut seen = 0;
/// let outcome = Run::new(Config::new(2))
///     .deadline(Duration::from_millis(50))
///     .observe(Duration::from_millis(10), |snapshot| seen = seen.max(snapshot.work_units))
///     .run(work())
///     .unwrap();
/// assert_eq!(outcome.stopped, Some(StopReason::Deadline));
/// assert_eq!(outcome.output, outcome.stats.work_units()); // the nodes done in time
///
/// // A cap on the work, and a stop handle (pulled here before the run).
/// let capped = Run::new(Config::new(2)).max_units(10_000).run(work()).unwrap();
/// assert_eq!(capped.stopped, Some(StopReason::WorkCap));
/// let stop = Limit::unbounded();
/// stop.stop();
/// let stopped = Run::new(Config::new(2)).stop_handle(&stop).run(work()).unwrap();
/// assert_eq!(stopped.stopped, Some(StopReason::Requested));
///
/// // A run that ends by itself reports no stop.
/// let done = Run::new(Config::new(2)).deadline(Duration::from_secs(3600)).run(
///     DfsWork::new(&BinaryTree(12), SplitPolicy::OldestHalf),
/// ).unwrap();
/// assert_eq!((done.stopped, done.output), (None, (1 << 13) - 1));
/// ```
pub struct Run<'a> {
    config: Config,
    stops: Stops<'a>,
    observer: Option<(Duration, Observer<'a>)>,
    pool: Option<&'a Pool>,
}

/// What [`Run::observe`] calls with each snapshot.
type Observer<'a> = Box<dyn FnMut(&Snapshot) + 'a>;

impl<'a> Run<'a> {
    /// A run of `config`, with no deadline, cap, stop handle or observer
    /// yet.
    pub fn new(config: Config) -> Self {
        Run { config, stops: Stops::new(), observer: None, pool: None }
    }

    /// Takes every stop of `stops` (replacing those set before): the form
    /// in which a program passes the same stops to the threads and the MPI
    /// runtime.
    pub fn stops(mut self, stops: Stops<'a>) -> Self {
        self.stops = stops;
        self
    }

    /// Stops the run once `after` has passed since [`Run::run`] was
    /// called ([`Stops::deadline`]).
    pub fn deadline(mut self, after: Duration) -> Self {
        self.stops = self.stops.deadline(after);
        self
    }

    /// Stops the run at `at` (a deadline shared by several runs, such as
    /// the segments of a checkpointed computation; [`Stops::deadline_at`]).
    pub fn deadline_at(mut self, at: Instant) -> Self {
        self.stops = self.stops.deadline_at(at);
        self
    }

    /// Stops the run once its pieces have done about `units` units of work
    /// (up to one slice of Δt per PE more). With a
    /// [`stop_handle`](Self::stop_handle), the handle's own cap counts
    /// instead ([`Stops::max_units`]).
    pub fn max_units(mut self, units: u64) -> Self {
        self.stops = self.stops.max_units(units);
        self
    }

    /// Lets another thread stop the run through `handle`
    /// ([`Limit::stop`], or [`Limit::stop_because`] with the reason), and
    /// caps the work at the handle's own cap ([`Limit::new`];
    /// [`Stops::stop_handle`]).
    pub fn stop_handle(mut self, handle: &'a Limit) -> Self {
        self.stops = self.stops.stop_handle(handle);
        self
    }

    /// Polls `check` on the calling thread about every 10 ms while the PEs
    /// work; the first reason it returns stops the run
    /// ([`Stops::stop_when`]).
    pub fn stop_when(mut self, check: impl Fn() -> Option<StopReason> + Sync + 'a) -> Self {
        self.stops = self.stops.stop_when(check);
        self
    }

    /// Calls `observer` on the calling thread about every `every` while
    /// the PEs work (then the calling thread only watches, and the PEs run
    /// on the pool's workers), with the time since the start and the units
    /// done.
    pub fn observe(mut self, every: Duration, observer: impl FnMut(&Snapshot) + 'a) -> Self {
        self.observer = Some((every, Box::new(observer)));
        self
    }

    /// Runs on `pool` instead of the global pool.
    pub fn on(mut self, pool: &'a Pool) -> Self {
        self.pool = Some(pool);
        self
    }

    /// Runs `root` to its end or its first stop.
    pub fn run<W: Work + Clone>(self, root: W) -> Result<Outcome<W::Output>, ConfigError> {
        let started = Instant::now();
        let stops = self.stops;
        let deadline = stops.deadline_from(started);
        let own = OnceLock::new();
        let limit = stops.limit(&own);
        let (every, mut observer) = match self.observer {
            Some((every, observer)) => (Some(every.max(Duration::from_micros(100))), Some(observer)),
            None => (None, None),
        };
        // The watchdog's looks: every 100 ms, more often for short
        // deadlines (a tenth of what is left at the start, at least 1 ms),
        // every 10 ms with a polled condition.
        let watch = stops.watched().then(|| {
            let left = deadline.map_or(Duration::MAX, |d| d.saturating_duration_since(started) / 10);
            let most = if stops.polls() { Duration::from_millis(10) } else { Duration::from_millis(100) };
            left.clamp(Duration::from_millis(1), most)
        });
        let interval = match (every, watch) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b).unwrap_or(Duration::MAX),
        };
        let mut last_observed = Duration::ZERO;
        let monitor = |snapshot: &Snapshot| {
            stops.poll(limit, deadline);
            if let (Some(every), Some(observer)) = (every, observer.as_mut())
                && snapshot.elapsed.saturating_sub(last_observed) >= every
            {
                last_observed = snapshot.elapsed;
                observer(snapshot);
            }
        };
        // A deadline already past, or a stop already asked for, stops the
        // pieces at their first check.
        stops.poll(limit, deadline);
        let limited = Limited::new(root, limit);
        let mut outcome = match self.pool {
            Some(pool) => pool.run_with_monitor(limited, &self.config, interval, monitor)?,
            None => run_with_monitor(limited, &self.config, interval, monitor)?,
        };
        outcome.stopped = limit.partial_because();
        Ok(outcome)
    }
}

/// Like [`run`], and calls `monitor` on the calling thread about every
/// `interval` while the PEs work (not at all if the run ends sooner).
pub fn run_with_monitor<W, M>(
    root: W,
    config: &Config,
    interval: Duration,
    monitor: M,
) -> Result<Outcome<W::Output>, ConfigError>
where
    W: Work + Clone,
    M: FnMut(&Snapshot),
{
    config.validate()?;
    if config.pin {
        // Pinned workers of their own; the caller, not pinned, only waits.
        let pool = Pool::pinned(config.threads.min(cores()));
        let taken = pool.take();
        return Ok(execute(&pool, &taken, root, config, interval, monitor, false));
    }
    let global = Pool::global();
    match global.try_take() {
        Some(taken) => {
            Ok(execute(global, &taken, root, config, interval, monitor, interval == Duration::MAX))
        }
        // Busy with another run (from another thread, or around this call):
        // a pool for this run alone.
        None => Pool::new(cores()).run_with_monitor(root, config, interval, monitor),
    }
}

impl Pool {
    /// Runs `root` on `config.threads` PEs on this pool's workers and the
    /// calling thread, like [`run`] on the global pool. A second run from
    /// another thread waits until this one has returned; a run from inside
    /// a run on this pool panics (it would wait for itself).
    pub fn run<W: Work + Clone>(&self, root: W, config: &Config) -> Result<Outcome<W::Output>, ConfigError> {
        self.run_with_monitor(root, config, Duration::MAX, |_| {})
    }

    /// Like [`Pool::run`], and calls `monitor` on the calling thread about
    /// every `interval` while the PEs work (then the calling thread only
    /// watches, and the PEs run on the workers). `config.pin` is ignored:
    /// pinned runs are [`run`]'s.
    pub fn run_with_monitor<W, M>(
        &self,
        root: W,
        config: &Config,
        interval: Duration,
        monitor: M,
    ) -> Result<Outcome<W::Output>, ConfigError>
    where
        W: Work + Clone,
        M: FnMut(&Snapshot),
    {
        config.validate()?;
        let taken = self.take();
        Ok(execute(self, &taken, root, config, interval, monitor, interval == Duration::MAX))
    }
}

/// One PE's state between its turns, and what it hands back at the end.
struct PeCell<'a, W: Work> {
    pe: Option<Pe<'a, W>>,
    end: Option<PeEnd<W::Output>>,
}

/// A run on `pool` (taken): the PEs take turns on the pool's workers and,
/// if `caller_works`, on the calling thread (otherwise it runs `monitor`).
fn execute<W, M>(
    pool: &Pool,
    _taken: &std::sync::MutexGuard<'_, ()>,
    root: W,
    config: &Config,
    interval: Duration,
    mut monitor: M,
    caller_works: bool,
) -> Outcome<W::Output>
where
    W: Work + Clone,
    M: FnMut(&Snapshot),
{
    let p = config.threads;
    let spec = &config.spec;
    let start = Instant::now();
    // The initial pieces of every PE, cut on this thread before any PE
    // starts: one descent of the splitting tree, so that a search pruned by
    // a shared incumbent is cut the same way for every PE.
    let all: Vec<usize> = (0..p).collect();
    let was = CURRENT_PE.with(|c| c.replace(Some(0)));
    let shares = spec.initial_shares(&root, p, &all, true);
    CURRENT_PE.with(|c| c.set(was));
    drop(root);
    let initial: Vec<(Vec<W>, W::Output, u64)> = shares.into_iter().map(unpack).collect();
    let cut = spec.cuts_root();
    let mut tracers = tracers(config, start, cut);
    let live = initial.iter().map(|(pieces, ..)| pieces.len()).sum();
    let pools: Vec<PoolSlot<W>> = (0..p).map(|_| PoolSlot::new()).collect();
    let busy_at_start: Vec<bool> = initial.iter().map(|(pieces, ..)| !pieces.is_empty()).collect();
    // The threads of this run: the PEs take turns on them (see `sched`).
    let threads = p.min(pool.workers() + usize::from(caller_works));
    let helpers = threads - usize::from(caller_works);
    // More PEs than cores (or threads): idle PEs of the strategies that
    // keep asking need permits to ask (see `gate`); the others wait for a
    // message.
    let ncores = cores().min(threads);
    let asks_again = spec.strategy.idle_keeps_asking();
    let monitor_thread = thread::current();
    let shared = Shared {
        sched: Sched::new(p, (!caller_works).then(|| monitor_thread.clone())),
        gate: (asks_again && p > ncores).then(|| Gate::new(ncores, p)),
        closes_when_idle: asks_again,
        spins: p <= ncores,
        mailboxes: (0..p).map(|_| if asks_again { Mailbox::closed() } else { Mailbox::new() }).collect(),
        pools,
        termination: Termination::new(live),
        tickets: CachePadded::new(AtomicU64::new(0)),
        hub: spec.strategy.uses_hub().then(|| Mutex::new(spec.hub(p, |pe| busy_at_start[pe]))),
        aborted: AtomicBool::new(false),
        panic: Mutex::new(None),
        monitor: monitor_thread,
    };
    let mut machines = spec.machines(p).into_iter();
    let cells: Vec<Mutex<PeCell<'_, W>>> = initial
        .into_iter()
        .enumerate()
        .map(|(me, (pieces, output, units))| {
            let machine = machines.next().expect("one machine per PE");
            let mut pe = Pe::new(me, &shared, config.spec.budget.get(), machine);
            pe.tracer = tracers.next().flatten();
            pe.decisions = config.record_decisions.then(Vec::new);
            pe.add_initial(output, units);
            for piece in pieces {
                // Already counted as live above.
                shared.pools[me].push(piece, me);
            }
            Mutex::new(PeCell { pe: Some(pe), end: None })
        })
        .collect();
    let job = || {
        while let Some(me) = shared.sched.next() {
            shared.sched.run(me, || turn(me, &shared, &cells[me]));
        }
    };
    pool.broadcast(helpers, &job, || {
        if caller_works {
            job();
            return;
        }
        // The monitor: the calling thread sleeps until the end, waking up
        // every `interval` to report progress.
        while !shared.sched.all_finished() {
            let deadline = start.elapsed().saturating_add(interval);
            thread::park_timeout(interval.min(Duration::from_secs(3600)));
            if !shared.termination.is_done() && start.elapsed() >= deadline {
                let work_units = shared.mailboxes.iter().map(Mailbox::units).sum();
                monitor(&Snapshot { elapsed: start.elapsed(), work_units });
            }
        }
    });
    let wall = start.elapsed();
    if let Some(payload) = shared.panic.lock().unwrap_or_else(|e| e.into_inner()).take() {
        panic::resume_unwind(payload);
    }
    let mut output = W::Output::default();
    let mut pes = Vec::with_capacity(p);
    let wall_ns = wall.as_nanos() as u64;
    let mut traced = Vec::new();
    let mut marks = Vec::new();
    let mut decisions = Vec::new();
    for cell in cells {
        let cell = cell.into_inner().unwrap_or_else(|e| e.into_inner());
        let (out, stats, tracer, log) = cell.end.expect("every PE finished");
        output.merge(out);
        pes.push(stats);
        if let Some((intervals, pe_marks)) = tracer.map(|t| t.finish(wall_ns)) {
            traced.push(intervals);
            marks.push(pe_marks);
        }
        decisions.extend(log);
    }
    // The hub's own messages count at PE 0, where MPI and the simulator
    // keep it.
    if let Some(hub) = shared.hub {
        pes[0].add_tally(&hub.into_inner().unwrap_or_else(|e| e.into_inner()).tally());
    }
    let trace = config.trace.then(|| Trace { notes: Vec::new(), wall_ns, pes: traced, marks });
    let decisions = config.record_decisions.then_some(decisions);
    Outcome { output, stats: RunStats { wall, pes }, trace, decisions, stopped: None }
}

/// One turn of PE `me` on this thread (see `sched`): its loop until it
/// waits or ends; at the end (or on a panic in the work, which stops every
/// PE) its results go into its cell.
fn turn<W: Work>(me: usize, shared: &Shared<W>, cell: &Mutex<PeCell<'_, W>>) -> After {
    let mut cell = cell.lock().unwrap_or_else(|e| e.into_inner());
    let was = CURRENT_PE.with(|c| c.replace(Some(me)));
    let pe = cell.pe.as_mut().expect("a finished PE is not run again");
    let result = panic::catch_unwind(AssertUnwindSafe(|| pe.step()));
    CURRENT_PE.with(|c| c.set(was));
    match result {
        Ok(Step::Wait) => return After::Wait,
        Ok(Step::Yield) => return After::Yield,
        Ok(Step::Exit(Exit::Done | Exit::Aborted)) => {}
        Err(payload) => shared.abort_with(payload),
    }
    let mut pe = cell.pe.take().expect("taken once");
    pe.mark(State::Idle);
    pe.finish_stats();
    cell.end = Some((std::mem::take(&mut pe.acc), pe.stats, pe.tracer, pe.decisions));
    After::Finish
}

/// The cores the PEs share: the machine's (tests may pretend otherwise).
fn cores() -> usize {
    #[cfg(all(test, not(loom)))]
    if let Some(n) = tests::CORES.with(|c| c.get()) {
        return n;
    }
    machine_cores()
}

/// The cores this process may run on, asked once: the question reads
/// files of the operating system (cgroup quotas), which costs more than a
/// tiny run.
pub(crate) fn machine_cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| thread::available_parallelism().map_or(1, |n| n.get()))
}

/// What a PE thread hands back: its output, counters, trace and decisions.
type PeEnd<O> = (O, treelb::PeStats, Option<Tracer>, Option<Vec<treelb::strategy::Decision>>);

/// One recorder per PE if the run is traced. PE 0's starts with the
/// cutting of the root that ran before the PEs, as splitting, when there
/// was any.
fn tracers(config: &Config, start: Instant, cut: bool) -> impl Iterator<Item = Option<Tracer>> {
    let cut_ns = if config.trace { start.elapsed().as_nanos() as u64 } else { 0 };
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

// The runtime tests need real threads: under `cfg(loom)` the mailboxes and
// the detector only work inside a loom model, which `loom_tests` builds.
#[cfg(all(test, not(loom)))]
mod tests;

#[cfg(all(test, loom))]
mod loom_tests;

/// The README's library example, compiled and run as a doc-test so that it
/// cannot drift from the API.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
