//! # treelb-mpi — random polling across processes, on MPI
//!
//! The algorithm of Sanders (`003_…`, Figure 1) over MPI ranks instead of
//! threads, driving the same state machines as the threads runtime:
//!
//! * every rank holds at most one piece of [`Work`]; a busy rank works it in
//!   slices of Δt units and after each slice *probes* for messages
//!   (`MPI_Improbe`, a few hundred nanoseconds when nothing is there: see
//!   [`ProbeCost`]); a request is answered by splitting the piece and sending
//!   one part, serialized by a [`wire::Codec`];
//! * an idle rank sends one request to a rank chosen by the
//!   [`Strategy`] and, while it waits for the answer,
//!   answers every request it gets with "no work". It never blocks in MPI and
//!   backs off (spin, yield, sleep) when nothing arrives, so with more ranks
//!   than cores idle ranks leave the cores to busy ones;
//! * every send is non-blocking (`MPI_Isend`); buffers are freed when
//!   `MPI_Test` says the send completed;
//! * termination is the four-counter method of `003_…` §2 over an
//!   asynchronous binary-tree reduction ([`treelb::termination`]);
//! * after termination every rank drains: it waits for the answer to its own
//!   last request while answering others with "no work", then enters a
//!   non-blocking barrier (`MPI_Ibarrier`) and keeps answering until it
//!   completes. When it does, no request, answer or signal is in flight; the
//!   outputs and statistics are then gathered at rank 0 and `MPI_Finalize`
//!   finds no pending message;
//! * selective initialization (`000_…` §6): rank 0 broadcasts the root piece,
//!   every rank splits it by the bits of its rank, before any PE starts;
//! * branch and bound ([`shared`]): each rank's copy of the search has its
//!   own incumbent; improvements are sent to every other rank, a decided
//!   decision search stops every rank, improvement messages are drained
//!   before `MPI_Finalize`, and the best value and witness of all ranks is
//!   gathered at rank 0;
//! * global round robin keeps its target counter in an MPI window at rank 0
//!   and takes tickets with one-sided `MPI_Fetch_and_op`;
//! * hybrid mode: `T` threads in each rank steal from each other first, and a
//!   rank whose threads are all idle steals from a random remote rank.
//!
//! Without the cargo feature `mpi` this crate holds only the wire format
//! ([`wire`]), which needs no MPI installation.

pub mod shared;
pub mod wire;

#[cfg(feature = "mpi")]
mod backoff;
#[cfg(feature = "mpi")]
mod counter;
#[cfg(feature = "mpi")]
mod driver;
#[cfg(feature = "mpi")]
mod outbox;

#[cfg(feature = "mpi")]
pub use driver::{Mpi, run};

use std::fmt;
use std::time::Duration;

pub use treelb::{Init, RunStats, Strategy, Work};

/// The default Δt: units of work between two probes for messages.
pub const DEFAULT_BUDGET: u64 = 256;

/// The strategies this runtime runs.
pub const SUPPORTED_STRATEGIES: [Strategy; 3] =
    [Strategy::RandomPolling, Strategy::AsyncRoundRobin, Strategy::GlobalRoundRobin];

/// How to run: threads per rank, Δt, initialization, strategy, seed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Worker threads per rank; more than 1 is the hybrid mode.
    pub threads: usize,
    /// Δt: units of work between two probes for messages, at least 1.
    pub budget: u64,
    /// How the root reaches the ranks.
    pub init: Init,
    /// Whom an idle rank asks for work.
    pub strategy: Strategy,
    /// Seed of the random choices.
    pub seed: u64,
    /// For tests: one rank sleeps this long after every slice of work.
    pub slow: Option<Slow>,
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
}

impl Default for Config {
    fn default() -> Self {
        Config {
            threads: 1,
            budget: DEFAULT_BUDGET,
            init: Init::Root,
            strategy: Strategy::RandomPolling,
            seed: 0x7EE1_B5EED,
            slow: None,
        }
    }
}

/// Why a run could not start (or stopped).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// `threads` was 0.
    NoThreads,
    /// `budget` was 0.
    ZeroBudget,
    /// The strategy does not run on MPI.
    UnsupportedStrategy(Strategy),
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
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoThreads => f.write_str("the number of threads per rank must be at least 1"),
            Error::ZeroBudget => f.write_str("the work budget (Δt) must be at least 1 unit"),
            Error::UnsupportedStrategy(s) => write!(
                f,
                "strategy `{s}` does not run on the MPI runtime (available: {})",
                SUPPORTED_STRATEGIES.map(Strategy::name).join(", ")
            ),
            Error::AlreadyInitialized => f.write_str("MPI is initialized once per process and already was"),
            Error::ThreadSupport { required, provided } => write!(
                f,
                "hybrid mode needs MPI thread support {required}, the MPI library provides only {provided}"
            ),
            Error::Decode(e) => f.write_str(e),
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
        if self.budget == 0 {
            return Err(Error::ZeroBudget);
        }
        if !SUPPORTED_STRATEGIES.contains(&self.strategy) {
            return Err(Error::UnsupportedStrategy(self.strategy));
        }
        Ok(())
    }
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
}
