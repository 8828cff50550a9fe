//! # treelb-threads — random polling on the cores of one machine
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
mod sync;
mod termination;

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
use treelb::init::selective;
use treelb::strategy::VictimSelector;

use mailbox::Mailbox;
use pe::{Exit, Pe};
use termination::Termination;

/// The default Δt: units of work between two polls of the request slot.
pub const DEFAULT_BUDGET: u64 = 256;

/// The strategies this runtime runs.
pub const SUPPORTED_STRATEGIES: [Strategy; 3] =
    [Strategy::RandomPolling, Strategy::GlobalRoundRobin, Strategy::AsyncRoundRobin];

/// How to run: number of PEs, Δt, initialization, strategy, seed.
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
}

impl Default for Config {
    fn default() -> Self {
        Config {
            threads: thread::available_parallelism().map_or(1, |n| n.get()),
            budget: DEFAULT_BUDGET,
            init: Init::Root,
            strategy: Strategy::RandomPolling,
            seed: 0x7EE1_B5EED,
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
    let live = match config.init {
        Init::Root => 1,
        Init::Selective => p,
    };
    let shared = Shared {
        mailboxes: (0..p).map(|_| Mailbox::new()).collect(),
        termination: Termination::new(live),
        round_robin: CachePadded::new(AtomicU64::new(0)),
        aborted: AtomicBool::new(false),
        panic: Mutex::new(None),
        monitor: thread::current(),
    };
    let start = Instant::now();
    let mut root = Some(root);
    let results: Vec<(W::Output, treelb::PeStats)> = thread::scope(|scope| {
        let handles: Vec<_> = (0..p)
            .map(|me| {
                let shared = &shared;
                let piece = match config.init {
                    Init::Root => {
                        if me == 0 {
                            root.take()
                        } else {
                            None
                        }
                    }
                    Init::Selective => None,
                };
                let root = match config.init {
                    Init::Selective => root.clone(),
                    Init::Root => None,
                };
                thread::Builder::new()
                    .name(format!("treelb-pe-{me}"))
                    .spawn_scoped(scope, move || pe_main(me, p, shared, config, piece, root))
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
    for (out, stats) in results {
        output.merge(out);
        pes.push(stats);
    }
    Ok(Outcome { output, stats: RunStats { wall, pes } })
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

/// The body of PE thread `me`: initialization, the loop, panic capture.
fn pe_main<W: Work + Clone>(
    me: usize,
    p: usize,
    shared: &Shared<W>,
    config: &Config,
    piece: Option<W>,
    broadcast: Option<W>,
) -> (W::Output, treelb::PeStats) {
    CURRENT_PE.with(|c| c.set(Some(me)));
    let victims = VictimSelector::new(config.strategy, me, p, config.seed);
    let mut pe = Pe::new(me, shared, config.budget, victims);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        let mut piece = piece;
        if let Some(root) = broadcast {
            let share = selective(&root, me, p);
            drop(root);
            pe.add_initial(share.output, share.units);
            piece = share.piece;
            if piece.is_none() && shared.termination.piece_exhausted() {
                shared.wake_monitor();
                return Exit::Done;
            }
        }
        pe.run(piece)
    }));
    match result {
        Ok(Exit::Done | Exit::Aborted) => {}
        Err(payload) => shared.abort_with(payload),
    }
    (std::mem::take(&mut pe.acc), pe.stats)
}

// The runtime tests need real threads: under `cfg(loom)` the mailboxes and
// the detector only work inside a loom model, which `loom_tests` builds.
#[cfg(all(test, not(loom)))]
mod tests;

#[cfg(all(test, loom))]
mod loom_tests;
