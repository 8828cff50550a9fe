//! One run of a treelb search, the same on the threads of one machine and
//! across the ranks that `mpirun` started: [`Run`].
//!
//! A run takes the balancing scheme ([`RunSpec`]), where its PEs are
//! ([`Pes`]: threads, or MPI ranks × threads — one setting), the stops a
//! long search needs (a deadline, a cap on the work, a stop handle, a
//! polled condition such as a signal flag: [`Stops`]), a checkpoint file
//! written every so often and resumed from after a crash
//! ([`Run::checkpoint`]), Ctrl-C and SIGTERM as a stop
//! ([`Run::stop_on_signals`]), a progress callback, and returns one
//! [`Outcome`]: the output, the statistics, the reason it stopped (`None`:
//! the work is done) and, for a branch and bound, the proven bound of what
//! was left open ([`Run::run_bnb`]).
//!
//! ```
//! use std::time::Duration;
//! use treelb::search::SplitPolicy;
//! use treelb_apps::langford::Langford;
//! use treelb_run::{Pes, Run, RunSpec};
//!
//! let search = Langford::new(8);
//! // `Pes::Mpi(&mpi)` instead runs on every rank (with the feature `mpi`).
//! let pes = Pes::Threads(2);
//! let outcome = Run::new(RunSpec::default())
//!     .deadline(Duration::from_secs(600))
//!     .run_search(pes, &search, SplitPolicy::OldestHalf)?
//!     .expect("threads: the caller always gets the outcome");
//! assert_eq!(outcome.stopped, None);
//! assert_eq!(Langford::pairings(outcome.output), 150); // L(2,8)
//! # Ok::<(), treelb_run::Error>(())
//! ```
//!
//! The runtimes underneath keep their own entry points for what only one
//! of them has: `treelb_threads::Run` runs on a persistent pool of
//! threads and records traces, `treelb_mpi::Run` serves several segments
//! of one run. This crate only chooses between them and puts checkpoints
//! and bounds around them; how each part works is documented where it is
//! written (the drain of a checkpoint in `treelb_checkpoint`, the proven
//! bound in [`treelb::bound`], the stops in [`treelb::limit`]).
//!
//! A game search, solved by a sequence of window searches each decided
//! from the ones before, runs on the same [`Pes`] through
//! [`game::GameRun`]. A program sets its PEs up once, threads or MPI, as
//! a [`World`].

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde::de::DeserializeOwned;
use treelb::bound::{NodeBound, OpenBounds, ProvenBound, Watched};
use treelb::search::{DfsWork, Search, SplitPolicy};
use treelb::{Incumbent, Work};
use treelb_checkpoint::{Checkpoint, Segment};
use treelb_mpi::wire::{Codec, DfsCodec, WatchedCodec};

pub mod game;
mod notes;
pub mod progress;
pub mod signals;
mod world;

pub use notes::trace_notes;
pub use world::World;

pub use treelb::limit::{Limit, StopReason, Stops};
pub use treelb::{RunSpec, RunStats};
pub use treelb_threads::Snapshot;
pub use treelb_threads::trace::Trace;

/// Where the PEs of a run are.
#[derive(Clone, Copy)]
pub enum Pes<'m> {
    /// This many threads of this process.
    Threads(usize),
    /// Every rank that `mpirun` started, each with the PEs it was
    /// initialized for ([`treelb_mpi::Mpi::init`]); every rank calls the
    /// same run, and rank 0 gets the outcome.
    #[cfg(feature = "mpi")]
    Mpi(&'m treelb_mpi::Mpi),
    /// Never built: keeps the lifetime used without the feature `mpi`.
    #[doc(hidden)]
    #[cfg(not(feature = "mpi"))]
    _Never(std::convert::Infallible, std::marker::PhantomData<&'m ()>),
}

impl Pes<'_> {
    /// Whether this process gets the outcome of a run: always on threads,
    /// at rank 0 across ranks.
    pub fn gets_outcome(&self) -> bool {
        match self {
            Pes::Threads(_) => true,
            #[cfg(feature = "mpi")]
            Pes::Mpi(mpi) => mpi.rank() == 0,
            #[cfg(not(feature = "mpi"))]
            Pes::_Never(never, _) => match *never {},
        }
    }
}

/// Why a run could not start or could not finish.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The threads runtime refused the configuration (no threads, an
    /// invalid specification).
    #[error(transparent)]
    Threads(#[from] treelb_threads::ConfigError),
    /// The MPI runtime refused the configuration or failed.
    #[error(transparent)]
    Mpi(#[from] treelb_mpi::Error),
    /// The checkpoint could not be opened, read or written.
    #[error(transparent)]
    Checkpoint(#[from] treelb_checkpoint::Error),
}

/// How a run ended.
#[derive(Debug)]
#[non_exhaustive]
pub struct Outcome<O> {
    /// The merged output of all PEs (partial if [`stopped`](Self::stopped)).
    pub output: O,
    /// The statistics of every PE (of every segment of a checkpointed run).
    pub stats: RunStats,
    /// Why the run stopped before its work was done (`None`: it is done):
    /// across ranks, the strongest reason of all ranks.
    pub stopped: Option<StopReason>,
    /// The number of processes (1 on threads).
    pub ranks: usize,
    /// PEs per process.
    pub threads: usize,
    /// Checkpoints written, those before a resume included (0 without one).
    pub checkpoints: u64,
    /// [`Run::run_bnb`]: whether the incumbent is proven optimal and,
    /// if the run stopped, the proven bound on the optimum and the gap.
    /// `None` for other runs.
    pub bound: Option<ProvenBound>,
    /// The state trace of every PE ([`Run::trace`]): on threads and on MPI
    /// (merged at rank 0), for a run without a checkpoint.
    pub trace: Option<Trace>,
    /// The MPI runtime's own figures, across ranks.
    pub mpi: Option<MpiFigures>,
}

/// What the MPI runtime measured of itself.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct MpiFigures {
    /// The thread support MPI provided, by its MPI name.
    pub thread_support: &'static str,
    /// The cost of one probe that finds no message, and the probes done.
    pub probe: treelb_mpi::ProbeCost,
    /// Waves of the termination detection.
    pub waves: u64,
    /// Improvements of a shared incumbent broadcast between ranks.
    pub improvements: u64,
}

/// What [`Run::observe`] calls.
type Observer<'a> = Box<dyn FnMut(&Snapshot) + 'a>;
/// What [`Run::checkpoint`] calls.
type Open<'a> = Box<dyn FnOnce() -> Result<Checkpoint, treelb_checkpoint::Error> + 'a>;

/// One run on threads or across MPI ranks, with its stops, checkpoint and
/// progress: build it, then call [`run`](Self::run) (any [`Codec`]'s
/// pieces), [`run_search`](Self::run_search) (a [`Search`]) or
/// [`run_bnb`](Self::run_bnb) (a branch and bound with its incumbent).
///
/// On MPI every rank builds the same `Run` and calls the same method;
/// deadlines count on each rank's own clock from the call, a cap on the
/// work is shared out among the ranks, and a stop handle or polled
/// condition stops the rank it belongs to (a signal that `mpirun` forwards
/// reaches every rank).
pub struct Run<'a> {
    spec: RunSpec,
    stops: Stops<'a>,
    observer: Option<(Duration, Observer<'a>)>,
    checkpoint: Option<Open<'a>>,
    pin: bool,
    trace: bool,
    slow: Option<treelb_mpi::Slow>,
}

impl<'a> Run<'a> {
    /// A run balanced by `spec`, with no stop, checkpoint or observer yet.
    pub fn new(spec: RunSpec) -> Self {
        Run {
            spec,
            stops: Stops::new(),
            observer: None,
            checkpoint: None,
            pin: false,
            trace: false,
            slow: None,
        }
    }

    /// Takes every stop of `stops`, replacing those set before.
    pub fn stops(mut self, stops: Stops<'a>) -> Self {
        self.stops = stops;
        self
    }

    /// Stops the run once `after` has passed since it was called
    /// ([`Stops::deadline`]).
    pub fn deadline(mut self, after: Duration) -> Self {
        self.stops = self.stops.deadline(after);
        self
    }

    /// Stops the run at `at` ([`Stops::deadline_at`]).
    pub fn deadline_at(mut self, at: Instant) -> Self {
        self.stops = self.stops.deadline_at(at);
        self
    }

    /// Stops the run once its pieces have done about `units` units of work
    /// in all ([`Stops::max_units`]).
    pub fn max_units(mut self, units: u64) -> Self {
        self.stops = self.stops.max_units(units);
        self
    }

    /// Lets another thread stop the run through `handle`
    /// ([`Stops::stop_handle`]).
    pub fn stop_handle(mut self, handle: &'a Limit) -> Self {
        self.stops = self.stops.stop_handle(handle);
        self
    }

    /// Polls `check` about every 10 ms while the PEs work; the first
    /// reason it returns stops the run ([`Stops::stop_when`]).
    pub fn stop_when(mut self, check: impl Fn() -> Option<StopReason> + Sync + 'a) -> Self {
        self.stops = self.stops.stop_when(check);
        self
    }

    /// Stops the run at the first Ctrl-C or SIGTERM, with
    /// [`StopReason::Signal`]; a second one ends the process (see
    /// [`signals`], whose handler this installs).
    pub fn stop_on_signals(self) -> Self {
        signals::catch();
        self.stop_when(|| signals::caught().then_some(StopReason::Signal))
    }

    /// Calls `observer` about every `every` while the PEs work, with the
    /// time since the start and the units of work done: on threads (the
    /// segments of a checkpointed run as one run); across MPI ranks it is
    /// not called.
    pub fn observe(mut self, every: Duration, observer: impl FnMut(&Snapshot) + 'a) -> Self {
        self.observer = Some((every, Box::new(observer)));
        self
    }

    /// Pins each PE thread to a core of its own (threads; see
    /// `treelb_threads::Config::pin`).
    pub fn pin(mut self, pin: bool) -> Self {
        self.pin = pin;
        self
    }

    /// Records every PE's states over time (threads and MPI, without a
    /// checkpoint): [`Outcome::trace`].
    pub fn trace(mut self, trace: bool) -> Self {
        self.trace = trace;
        self
    }

    /// Makes one MPI rank sleep after every slice of work (tests of the
    /// balancing under imbalance; see [`treelb_mpi::Slow`]).
    pub fn slow_rank(mut self, slow: treelb_mpi::Slow) -> Self {
        self.slow = Some(slow);
        self
    }

    /// Runs in segments of the checkpoint's interval, writing the open
    /// pieces (and the output so far, and a branch and bound's incumbent)
    /// to the checkpoint after each; from its saved state instead of the
    /// root when it was opened with [`Checkpoint::resume`]. `open` is
    /// called once, when the run starts, and across MPI ranks on rank 0
    /// only (which alone writes the file).
    ///
    /// A run stopped by one of its stops writes no checkpoint for its last
    /// segment: the previous one stays, and a resume continues from it.
    pub fn checkpoint(
        mut self,
        open: impl FnOnce() -> Result<Checkpoint, treelb_checkpoint::Error> + 'a,
    ) -> Self {
        self.checkpoint = Some(Box::new(open));
        self
    }

    /// Runs `root`, whose pieces cross between ranks (and into a
    /// checkpoint) by `codec`, on `pes`, to its end or its first stop. The
    /// outcome comes back on threads and at MPI rank 0; the other ranks get
    /// `None`.
    pub fn run<C>(self, pes: Pes<'_>, codec: &C, root: C::Work) -> Result<Option<Outcome<Out<C>>>, Error>
    where
        C: Codec,
        C::Work: Clone,
        Out<C>: Serialize + DeserializeOwned,
    {
        self.go(pes, codec, root, None)
    }

    /// Runs `search` from its root, its pieces split by `policy`
    /// ([`run`](Self::run) with a [`DfsCodec`]). A branch and bound whose
    /// incumbent the ranks must share is [`run_bnb`](Self::run_bnb)'s: run
    /// here across ranks, it is refused ([`treelb_mpi::Error::Unshared`]).
    pub fn run_search<S>(
        self,
        pes: Pes<'_>,
        search: &S,
        policy: SplitPolicy,
    ) -> Result<Option<Outcome<S::Output>>, Error>
    where
        S: Search,
        S::Node: Clone + Serialize + DeserializeOwned,
        S::Output: Serialize + DeserializeOwned,
    {
        let codec = DfsCodec::new(search, policy);
        self.go(pes, &codec, codec.root(), None)
    }

    /// Runs the branch and bound `search`, whose best solution is kept in
    /// `incumbent` (the search's own, which it reads to prune): across MPI
    /// ranks, the ranks broadcast their improvements while they work, and
    /// at the end rank 0's `incumbent` holds the best of all ranks; a
    /// checkpoint saves it and a resume restores it. The outcome's
    /// [`bound`](Outcome::bound) says whether the incumbent is proven
    /// optimal and, for a run stopped early, the best bound on the optimum
    /// the open nodes it dropped still allowed (on threads with or without
    /// a checkpoint; a checkpointed run across MPI ranks that stopped
    /// proves none: its pieces are not watched).
    pub fn run_bnb<S>(
        self,
        pes: Pes<'_>,
        search: &S,
        policy: SplitPolicy,
        incumbent: &Incumbent<Vec<u32>>,
    ) -> Result<Option<Outcome<S::Output>>, Error>
    where
        S: NodeBound,
        S::Node: Clone + Serialize + DeserializeOwned,
        S::Output: Serialize + DeserializeOwned,
    {
        let open = OpenBounds::new(incumbent.sense());
        let own = OnceLock::new();
        let outcome = match (pes, self.checkpoint.is_some()) {
            // On threads, with a checkpoint or without, the pieces are
            // watched: those that the stop drops record their bounds. A
            // checkpoint sets the pieces aside without dropping them, and
            // encodes them emptied (`Watched::take`), so neither records
            // anything; the segments count against the run's limit, which
            // only the stop reaches.
            (Pes::Threads(threads), checkpointed) => {
                let limit = self.stops.limit(&own);
                let run = Run { stops: self.stops.stop_handle(limit), ..self };
                if checkpointed {
                    let inner = DfsCodec::new(search, policy).with_shared(incumbent);
                    let codec = WatchedCodec::new(inner, &open, limit);
                    run.go(Pes::Threads(threads), &codec, codec.root(), Some(incumbent))?
                } else {
                    Some(run.threads(threads, Watched::new(DfsWork::new(search, policy), &open, limit))?)
                }
            }
            #[cfg(feature = "mpi")]
            (Pes::Mpi(mpi), true) => {
                let codec = DfsCodec::new(search, policy).with_shared(incumbent);
                let outcome = self.go(Pes::Mpi(mpi), &codec, codec.root(), Some(incumbent))?;
                if outcome.as_ref().is_some_and(|o| o.stopped.is_some()) {
                    open.record_unknown();
                }
                outcome
            }
            #[cfg(feature = "mpi")]
            (Pes::Mpi(mpi), false) => {
                let config = mpi_config(&self.spec, self.slow, self.trace, mpi);
                let run = treelb_mpi::Run::new(config).stops(self.stops);
                let limit = run.limit(mpi);
                let inner = DfsCodec::new(search, policy).with_shared(incumbent);
                let codec = WatchedCodec::new(inner, &open, limit);
                let result = run.run(mpi, &codec, codec.root());
                // A collective: the best bound of what every rank
                // dropped, at every rank whose run succeeded.
                if result.is_ok() {
                    let (key, unbounded) = open.parts();
                    open.set_parts(mpi.max(key), mpi.any(unbounded));
                }
                result?.map(|o| Outcome::from_mpi(o, mpi))
            }
            #[cfg(not(feature = "mpi"))]
            (Pes::_Never(never, _), _) => match never {},
        };
        Ok(outcome.map(|o| {
            let bound = open.prove_incumbent(incumbent, o.stopped.is_some());
            Outcome { bound: Some(bound), ..o }
        }))
    }

    /// [`run`](Self::run), with the incumbent a checkpoint saves.
    fn go<C>(
        self,
        pes: Pes<'_>,
        codec: &C,
        root: C::Work,
        incumbent: Option<&Incumbent<Vec<u32>>>,
    ) -> Result<Option<Outcome<Out<C>>>, Error>
    where
        C: Codec,
        C::Work: Clone,
        Out<C>: Serialize + DeserializeOwned,
    {
        match (pes, self.checkpoint.is_some()) {
            (Pes::Threads(threads), false) => Ok(Some(self.threads(threads, root)?)),
            (Pes::Threads(threads), true) => {
                self.threads_checkpointed(threads, codec, root, incumbent).map(Some)
            }
            #[cfg(feature = "mpi")]
            (Pes::Mpi(mpi), false) => {
                let run = treelb_mpi::Run::new(mpi_config(&self.spec, self.slow, self.trace, mpi))
                    .stops(self.stops);
                Ok(run.run(mpi, codec, root)?.map(|o| Outcome::from_mpi(o, mpi)))
            }
            #[cfg(feature = "mpi")]
            (Pes::Mpi(mpi), true) => {
                let run =
                    treelb_mpi::Run::new(mpi_config(&self.spec, self.slow, false, mpi)).stops(self.stops);
                let open = self.checkpoint.expect("a checkpoint");
                let open = || open().map_err(Error::from);
                let done = treelb_checkpoint::run_mpi(mpi, &run, open, codec, root, incumbent)?;
                Ok(done.map(|d| Outcome {
                    output: d.output,
                    stats: d.stats,
                    stopped: d.stopped,
                    ranks: mpi.size(),
                    threads: mpi.threads(),
                    checkpoints: d.checkpoints,
                    bound: None,
                    trace: None,
                    mpi: None,
                }))
            }
            #[cfg(not(feature = "mpi"))]
            (Pes::_Never(never, _), _) => match never {},
        }
    }

    /// The threads runtime's configuration.
    fn threads_config(&self, threads: usize) -> treelb_threads::Config {
        treelb_threads::Config {
            pin: self.pin,
            trace: self.trace && self.checkpoint.is_none(),
            ..treelb_threads::Config::with_spec(threads, self.spec.clone())
        }
    }

    /// One run of `root` on `threads` threads.
    fn threads<W: Work + Clone>(self, threads: usize, root: W) -> Result<Outcome<W::Output>, Error> {
        let mut run = treelb_threads::Run::new(self.threads_config(threads)).stops(self.stops);
        if let Some((every, observer)) = self.observer {
            run = run.observe(every, observer);
        }
        let o = run.run(root)?;
        Ok(Outcome {
            output: o.output,
            stats: o.stats,
            stopped: o.stopped,
            ranks: 1,
            threads,
            checkpoints: 0,
            bound: None,
            trace: o.trace,
            mpi: None,
        })
    }

    /// A checkpointed run on `threads` threads: segments of the
    /// checkpoint's interval ([`Checkpoint::run`]), each a run of the
    /// threads runtime under the run's stops (one deadline and one cap for
    /// all of them).
    fn threads_checkpointed<C>(
        self,
        threads: usize,
        codec: &C,
        root: C::Work,
        incumbent: Option<&Incumbent<Vec<u32>>>,
    ) -> Result<Outcome<Out<C>>, Error>
    where
        C: Codec,
        C::Work: Clone,
        Out<C>: Serialize + DeserializeOwned,
    {
        let config = self.threads_config(threads);
        let Run { stops, mut observer, checkpoint, .. } = self;
        let checkpoint = checkpoint.expect("a checkpoint")()?;
        let started = Instant::now();
        let deadline = stops.deadline_from(started);
        let own = OnceLock::new();
        let limit = stops.limit(&own);
        let done = checkpoint.run(codec, root, incumbent, |bag| {
            let mut segment = Stops::new().stop_handle(limit);
            if let Some(at) = deadline {
                segment = segment.deadline_at(at);
            }
            if stops.polls() {
                segment = segment.stop_when(|| stops.polled());
            }
            let mut run = treelb_threads::Run::new(config.clone()).stops(segment);
            // The observer sees the segments as one run: time since the
            // first, and units over all of them.
            let base = limit.units();
            if let Some((every, observer)) = observer.as_mut() {
                run = run.observe(*every, move |s: &Snapshot| {
                    observer(&Snapshot { elapsed: started.elapsed(), work_units: base + s.work_units })
                });
            }
            let o = run.run(bag)?;
            Ok::<_, Error>(Segment::new(o.output, o.stats, limit.partial_because()))
        })?;
        Ok(Outcome {
            output: done.output,
            stats: done.stats,
            stopped: done.stopped,
            ranks: 1,
            threads,
            checkpoints: done.checkpoints,
            bound: None,
            trace: None,
            mpi: None,
        })
    }
}

impl<O> Outcome<O> {
    /// The outcome of the MPI runtime, at rank 0.
    #[cfg(feature = "mpi")]
    fn from_mpi(o: treelb_mpi::Outcome<O>, mpi: &treelb_mpi::Mpi) -> Self {
        Outcome {
            output: o.output,
            stats: o.stats,
            stopped: o.stopped,
            ranks: o.ranks,
            threads: o.threads,
            checkpoints: 0,
            bound: None,
            trace: o.trace,
            mpi: Some(MpiFigures {
                thread_support: mpi.thread_support(),
                probe: o.probe,
                waves: o.waves,
                improvements: o.improvements,
            }),
        }
    }
}

/// The MPI runtime's configuration of `spec` (and `slow`, and whether it
/// records a trace), for the PEs `mpi` was initialized for.
#[cfg(feature = "mpi")]
fn mpi_config(
    spec: &RunSpec,
    slow: Option<treelb_mpi::Slow>,
    trace: bool,
    mpi: &treelb_mpi::Mpi,
) -> treelb_mpi::Config {
    treelb_mpi::Config { threads: mpi.threads(), spec: spec.clone(), slow, record_decisions: false, trace }
}

/// The output of a codec's pieces.
pub type Out<C> = <<C as Codec>::Work as Work>::Output;
