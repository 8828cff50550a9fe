//! # treelb-mpi — every balancing strategy across processes, on MPI
//!
//! The algorithm of Sanders ([Sanders 1999], Figure 1) over MPI ranks instead of
//! threads, driving the same strategy machines as the threads runtime and
//! the simulator (`treelb::strategy`): all 13 strategies run across ranks.
//!
//! * every rank holds at most one piece of [`Work`] at a time (and, under
//!   the pushing and static strategies, a pool of waiting pieces); a busy
//!   rank works it in slices of Δt units and after each slice *probes* for
//!   messages (`MPI_Improbe`, a few hundred nanoseconds when nothing is
//!   there: see [`ProbeCost`]) and hands what arrived to its machine;
//!   pieces travel serialized by a [`wire::Codec`];
//! * an idle rank tells its machine, which decides whether to ask anyone
//!   (a victim, the hub, nobody); it never blocks in MPI and backs off
//!   (spin, yield, sleep) when nothing arrives, so with more ranks than
//!   cores idle ranks leave the cores to busy ones;
//! * every send is non-blocking (`MPI_Isend`); buffers are freed when
//!   `MPI_Test` says the send completed;
//! * the run's hub (max-load's heap of reported loads, master–worker's
//!   central pool) lives at PE 0, which serves its messages at its polls;
//!   global round robin's counter is an MPI window at rank 0, incremented
//!   with one-sided `MPI_Fetch_and_op`;
//! * termination is the four-counter method of [Sanders 1999] §2 over an
//!   asynchronous binary-tree reduction ([`treelb::termination`]), counting
//!   every message that carries a piece (answers, pushes, parts for the
//!   central pool and the pieces it hands out);
//! * after termination every rank drains: it waits for every answer it is
//!   owed while answering others, then the ranks exchange the numbers of
//!   one-way messages (improvements, load reports, requests to the central
//!   pool) in a non-blocking all-to-all and receive them all. When it is
//!   over no message is in flight; the outputs and statistics are then
//!   gathered at rank 0 and `MPI_Finalize` finds no pending message;
//! * selective initialization ([Sanders 1994] §6) and static assignment: rank 0
//!   broadcasts the root, every rank cuts its own copy, before any PE starts;
//! * branch and bound ([`shared`]): each rank's copy of the search has its
//!   own incumbent; improvements are sent to every other rank, a decided
//!   decision search stops every rank, and the best value and witness of
//!   all ranks is gathered at rank 0; a branch and bound whose codec lacks
//!   the shared incumbent is refused on more than one rank
//!   ([`check_shared`]);
//! * a computation may send messages of its own between ranks
//!   ([`wire::Note`]): a game search's results, counted by the termination
//!   detector like pieces because they can create work where they arrive,
//!   and its aborts, one-way messages received in the drain (young brothers
//!   wait across ranks, [`wire::GameCodec`], `docs/ybwc-mpi.md`);
//! * hybrid mode: `T` threads in each rank, each a PE; under the stealing
//!   strategies threads steal from each other first, and a rank whose
//!   threads are all idle steals from another rank.
//!
//! ## Running a search across ranks
//!
//! `Run` (feature `mpi`) is the entry point: a builder with a deadline, a
//! cap on the units of work, a stop handle and a polled stop condition,
//! whose [`Outcome::stopped`] says why a run ended early (the MPI
//! counterpart of `treelb_threads::Run`). `run` is the plain run without
//! stops, and `Session` runs several computations one after another on the
//! same ranks. Checkpoints every few minutes and resumption after a crash
//! are in the `treelb-checkpoint` crate (its `run_mpi`, feature `mpi`), on
//! top of `Run`. `crates/mpi/examples/langford.rs` counts the Langford
//! pairings under `mpirun`.
//!
//! Without the cargo feature `mpi` this crate holds only the wire format
//! ([`wire`]) and the initial cut ([`shared`]), which need no MPI
//! installation.

pub mod shared;
pub mod wire;

#[cfg(all(test, feature = "mpi"))]
mod conformance;
#[cfg(feature = "mpi")]
mod counter;
#[cfg(feature = "mpi")]
mod driver;
#[cfg(feature = "mpi")]
pub mod game;
#[cfg(feature = "mpi")]
mod outbox;
#[cfg(feature = "mpi")]
mod pe;
#[cfg(feature = "mpi")]
mod run;

#[cfg(feature = "mpi")]
pub use driver::{Mpi, Session, run};
#[cfg(feature = "mpi")]
pub use pe::current_pe;
#[cfg(feature = "mpi")]
pub use run::Run;

use std::fmt;
use std::time::Duration;

pub use treelb::limit::{Limit, Limited, StopReason, Stops};
pub use treelb::spec::{Budget, SpecError};
pub use treelb::{Init, RunSpec, RunStats, Strategy, Work};

/// The strategies this runtime runs: all of them.
pub const SUPPORTED_STRATEGIES: [Strategy; 13] = Strategy::ALL;

/// How to run: the balancing ([`RunSpec`], the same as the threads
/// runtime's) and what is this runtime's own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Worker threads per rank; more than 1 is the hybrid mode.
    pub threads: usize,
    /// How to balance.
    pub spec: RunSpec,
    /// For tests: one rank sleeps this long after every slice of work.
    pub slow: Option<Slow>,
    /// Record every decision of every PE's strategy machine, returned in
    /// [`Outcome::decisions`] at rank 0 (for conformance tests; the logs
    /// grow by every event, and travel to rank 0 at the end).
    pub record_decisions: bool,
    /// Record every PE's states and marks, returned merged in
    /// [`Outcome::trace`] at rank 0 (see [`treelb::trace`]). Each rank
    /// records on its own clock, started as the run starts (a broadcast
    /// from rank 0); before its PEs start, every other rank measures its
    /// clock's offset from rank 0's by three round trips to rank 0
    /// (Cristian's method: the reply's time taken as the middle of the
    /// shortest trip, off by at most half that trip), and rank 0 shifts
    /// each rank's times by it when it merges them.
    pub trace: bool,
}

/// An artificially slow rank (tests of balancing under imbalance).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slow {
    /// The rank that sleeps.
    pub rank: usize,
    /// How long it sleeps after every slice of Δt units.
    pub pause: Duration,
}

impl Slow {
    /// Parses `RANK:MICROSECONDS` (the `TREELB_MPI_SLOW` environment variable
    /// of the command line).
    ///
    /// ```
    /// let s = treelb_mpi::Slow::parse("1:50").unwrap();
    /// assert_eq!((s.rank, s.pause.as_micros()), (1, 50));
    /// assert!(treelb_mpi::Slow::parse("1").is_none());
    /// ```
    pub fn parse(s: &str) -> Option<Slow> {
        let (rank, micros) = s.split_once(':')?;
        Some(Slow {
            rank: rank.trim().parse().ok()?,
            pause: Duration::from_micros(micros.trim().parse().ok()?),
        })
    }

    /// The environment variable [`Slow::from_env`] reads.
    pub const VAR: &'static str = "TREELB_MPI_SLOW";

    /// The slow rank that the environment variable [`Slow::VAR`] asks
    /// for as `RANK:MICROSECONDS`, if it is set.
    pub fn from_env() -> Result<Option<Slow>, String> {
        match std::env::var(Self::VAR) {
            Ok(v) => Slow::parse(&v)
                .map(Some)
                .ok_or_else(|| format!("{}: expected RANK:MICROS, got `{v}`", Self::VAR)),
            Err(_) => Ok(None),
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config { threads: 1, spec: RunSpec::default(), slow: None, record_decisions: false, trace: false }
    }
}

/// Why a run could not start (or stopped).
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// `threads` was 0.
    NoThreads,
    /// The run specification is invalid.
    Spec(SpecError),
    /// MPI was initialized before (it initializes once per process).
    AlreadyInitialized,
    /// The MPI library does not give the thread support hybrid mode needs.
    ThreadSupport {
        /// What was asked for.
        required: &'static str,
        /// What the library provides.
        provided: &'static str,
    },
    /// Bytes from another rank did not decode.
    Decode(String),
    /// A branch-and-bound search on more than one rank without its shared
    /// incumbent ([`check_shared`]).
    Unshared,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoThreads => f.write_str("the number of threads per rank must be at least 1"),
            Error::Spec(e) => e.fmt(f),
            Error::AlreadyInitialized => f.write_str("MPI is initialized once per process and already was"),
            Error::ThreadSupport { required, provided } => write!(
                f,
                "hybrid mode needs MPI thread support {required}, the MPI library provides only {provided}"
            ),
            Error::Decode(e) => f.write_str(e),
            Error::Unshared => f.write_str(
                "a branch-and-bound search across ranks needs its incumbent shared (DfsCodec::with_shared): without it each rank prunes against its own best solution only, and the best of the other ranks never reaches rank 0's answer",
            ),
        }
    }
}

impl std::error::Error for Error {}

impl Config {
    /// Checks that the configuration can run.
    pub fn validate(&self) -> Result<(), Error> {
        if self.threads == 0 {
            return Err(Error::NoThreads);
        }
        self.spec.validate().map_err(Error::Spec)
    }
}

/// Refuses a computation that needs its shared state across ranks
/// ([`wire::Codec::needs_shared`]: a branch and bound,
/// [`Search::keeps_incumbent`](treelb::search::Search::keeps_incumbent))
/// on more than one rank without that state. Every run checks it, on
/// every rank alike, so that every rank refuses.
///
/// ```
/// use treelb::search::SplitPolicy;
/// use treelb_apps::knapsack::{Class, Knapsack, Spec};
/// use treelb_mpi::wire::DfsCodec;
/// use treelb_mpi::{Error, check_shared};
///
/// let instance = Spec::new(Class::Uncorrelated, 20, 1000, 1).generate();
/// let search = Knapsack::new(&instance);
/// let alone = DfsCodec::new(&search, SplitPolicy::OldestHalf);
/// assert_eq!(check_shared(&alone, 2), Err(Error::Unshared));
/// assert_eq!(check_shared(&alone, 1), Ok(())); // one rank: nothing to share
/// let shared = DfsCodec::new(&search, SplitPolicy::OldestHalf).with_shared(&search.incumbent);
/// assert_eq!(check_shared(&shared, 2), Ok(()));
/// ```
pub fn check_shared<C: wire::Codec>(codec: &C, ranks: usize) -> Result<(), Error> {
    if ranks > 1 && codec.needs_shared() && codec.shared().is_none() {
        return Err(Error::Unshared);
    }
    Ok(())
}

/// The cost of one probe for messages when none is there, measured at the
/// start of a run on rank 0.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProbeCost {
    /// Mean time of one `MPI_Improbe` that finds nothing.
    pub nanos: f64,
    /// Probes done by all ranks during the run.
    pub probes: u64,
}

/// The result of a run, on rank 0: the merged output, per-PE statistics
/// (ranks × threads, in rank order) and the runtime's own figures.
#[derive(Clone, Debug)]
pub struct Outcome<O> {
    /// The outputs of all ranks, merged.
    pub output: O,
    /// What each PE did, and the wall time.
    pub stats: RunStats,
    /// Number of ranks.
    pub ranks: usize,
    /// Threads per rank.
    pub threads: usize,
    /// The cost of probing.
    pub probe: ProbeCost,
    /// Termination waves completed at rank 0.
    pub waves: u64,
    /// Improvement messages of the shared state (the incumbent) sent by all
    /// ranks; 0 for computations without shared state.
    pub improvements: u64,
    /// Why the run stopped before its work was done, if it did: the output
    /// is then partial. Set by `Run` (feature `mpi`); a plain `run` of a
    /// root that the caller limited leaves it `None`.
    pub stopped: Option<StopReason>,
    /// Every PE's decisions (ranks × threads, in rank order), if
    /// [`Config::record_decisions`] asked for them.
    pub decisions: Option<Vec<Vec<treelb::strategy::Decision>>>,
    /// What every PE did when (ranks × threads, in rank order; times on
    /// rank 0's clock), if [`Config::trace`] asked for it.
    pub trace: Option<treelb::trace::Trace>,
}
