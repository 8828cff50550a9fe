//! [`Run`]: a run across the ranks with a deadline, a cap on the work and
//! a stop handle.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde::de::DeserializeOwned;
use treelb::limit::{Limit, Limited, StopReason, Stops};

use crate::driver::Out;
use crate::wire::{Codec, LimitedCodec};
use crate::{Config, Error, Mpi, Outcome};

/// The longest time between two looks of a rank's watchdog at the deadline
/// and at [`Run::stop_when`].
const WATCH: Duration = Duration::from_millis(10);

/// A run across the MPI ranks, with the stops a long search needs: a
/// deadline, a cap on the units of work, a stop handle, and a condition
/// polled while the ranks work (a signal handler's flag). The MPI
/// counterpart of `treelb_threads::Run`; every rank builds the same `Run`
/// and calls [`Run::run`].
///
/// How a run stops on every rank: each rank holds its own [`Limit`] —
/// with [`max_units`](Self::max_units) its share of the units — and a
/// watchdog thread that stops it at the deadline, counted on each rank's
/// own clock, so all ranks stop within a few milliseconds of each other. A
/// stopped rank drops its pieces, gives away nothing and drops what
/// arrives; once every rank has stopped no work is left anywhere, the
/// termination detection ends the run as any other, and the partial
/// outputs are gathered at rank 0. A [`stop_handle`](Self::stop_handle)
/// stops the rank it belongs to: to stop the whole run, stop it on every
/// rank (as a signal that `mpirun` forwards to every rank does).
///
/// Several calls of [`Run::run`] on one `Run` share its deadline (counted
/// from the first call) and its cap (over all of them): the segments of a
/// checkpointed run (`treelb_checkpoint::run_mpi`) are one run to them.
///
/// ```no_run
/// use std::time::Duration;
/// use treelb::search::{BinaryTree, SplitPolicy};
/// use treelb_mpi::wire::DfsCodec;
/// use treelb_mpi::{Config, Mpi, Run, StopReason};
///
/// // Under `mpirun -np 2`: every rank runs this.
/// let mpi = Mpi::init(1).unwrap();
/// let tree = BinaryTree(40);
/// let codec = DfsCodec::new(&tree, SplitPolicy::OldestHalf);
/// let run = Run::new(Config::default()).deadline(Duration::from_millis(200)).max_units(1 << 30);
/// if let Some(outcome) = run.run(&mpi, &codec, codec.root()).unwrap() {
///     // Rank 0: the nodes counted before the first stop.
///     assert!(matches!(outcome.stopped, Some(StopReason::Deadline | StopReason::WorkCap)));
///     println!("{} nodes", outcome.output);
/// }
/// ```
pub struct Run<'a> {
    config: Config,
    stops: Stops<'a>,
    started: OnceLock<Instant>,
    own: OnceLock<Limit>,
}

impl<'a> Run<'a> {
    /// A run of `config`, with no deadline, cap or stop handle yet.
    pub fn new(config: Config) -> Self {
        Run { config, stops: Stops::new(), started: OnceLock::new(), own: OnceLock::new() }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Takes every stop of `stops` (replacing those set before): the form
    /// in which a program passes the same stops to the threads and the MPI
    /// runtime. The deadline counts on each rank's clock from its first
    /// call of [`Run::run`], the cap is shared out among the ranks
    /// ([`max_units`](Self::max_units)), a stop handle stops the rank it
    /// belongs to.
    pub fn stops(mut self, stops: Stops<'a>) -> Self {
        self.stops = stops;
        self
    }

    /// Stops the run once `after` has passed since the first call of
    /// [`Run::run`] on this rank.
    pub fn deadline(mut self, after: Duration) -> Self {
        self.stops = self.stops.deadline(after);
        self
    }

    /// Stops the run at `at` on each rank's clock.
    pub fn deadline_at(mut self, at: Instant) -> Self {
        self.stops = self.stops.deadline_at(at);
        self
    }

    /// Stops the run once its pieces have done about `units` units of work
    /// in all: each rank stops after its share, `units / ranks` rounded
    /// up (and up to one slice of Δt per PE more). With a
    /// [`stop_handle`](Self::stop_handle), the handle's own cap counts
    /// instead.
    pub fn max_units(mut self, units: u64) -> Self {
        self.stops = self.stops.max_units(units);
        self
    }

    /// Lets another thread of this rank stop this rank's PEs through
    /// `handle` ([`Limit::stop`], or [`Limit::stop_because`] with the
    /// reason), and caps this rank's work at the handle's own cap
    /// ([`Limit::new`]).
    pub fn stop_handle(mut self, handle: &'a Limit) -> Self {
        self.stops = self.stops.stop_handle(handle);
        self
    }

    /// Polls `check` on each rank about every 10 ms while the ranks work;
    /// the first reason it returns stops the rank (a program that catches
    /// signals returns [`StopReason::Signal`] once one came).
    pub fn stop_when(mut self, check: impl Fn() -> Option<StopReason> + Sync + 'a) -> Self {
        self.stops = self.stops.stop_when(check);
        self
    }

    /// This rank's limit: the [`stop_handle`](Self::stop_handle), or the
    /// run's own (this rank's share of [`max_units`](Self::max_units)).
    /// Pieces that must count against it before the run (a codec that
    /// wraps them itself) use this one.
    pub fn limit(&self, mpi: &Mpi) -> &Limit {
        match self.stops.handle() {
            Some(handle) => handle,
            None => self.own.get_or_init(|| match self.stops.cap() {
                Some(max) => Limit::new(max.div_ceil(mpi.size() as u64).max(1)),
                None => Limit::unbounded(),
            }),
        }
    }

    /// The deadline, if any (the first call fixes the start of
    /// [`deadline`](Self::deadline)).
    fn resolved_deadline(&self) -> Option<Instant> {
        self.stops.deadline_from(*self.started.get_or_init(Instant::now))
    }

    /// Runs `root`, whose pieces cross between ranks by `codec`, on every
    /// rank (every rank calls it, with the same `Run`) to its end or its
    /// first stop. Rank 0 gets the outcome, with
    /// [`stopped`](Outcome::stopped) set when any rank stopped with work
    /// left (the strongest reason of all ranks: a signal, a stop request,
    /// the deadline, the cap); the others get `None`. Only rank 0's `root`
    /// is used.
    pub fn run<C>(&self, mpi: &Mpi, codec: &C, root: C::Work) -> Result<Option<Outcome<Out<C>>>, Error>
    where
        C: Codec,
        C::Work: Clone,
        Out<C>: Serialize + DeserializeOwned,
    {
        let deadline = self.resolved_deadline();
        let limit = self.limit(mpi);
        let check = || {
            self.stops.poll(limit, deadline);
        };
        // A deadline already past, or a stop already asked for, stops the
        // pieces at their first check.
        check();
        let every = deadline.map_or(WATCH, |d| {
            (d.saturating_duration_since(Instant::now()) / 10).clamp(Duration::from_millis(1), WATCH)
        });
        let watched = self.stops.watched();
        let limited = LimitedCodec::new(codec, limit);
        let root = Limited::new(root, limit);
        let over = AtomicBool::new(false);
        let result = thread::scope(|s| {
            if watched {
                s.spawn(|| {
                    while !over.load(Ordering::Relaxed) {
                        check();
                        thread::sleep(every);
                    }
                });
            }
            let result = crate::run(mpi, &limited, root, &self.config);
            over.store(true, Ordering::Relaxed);
            result
        });
        let outcome = result?;
        // A collective: every rank whose run succeeded calls it.
        let stopped = from_code(mpi.max(code(limit.partial_because())));
        Ok(outcome.map(|o| Outcome { stopped, ..o }))
    }
}

/// A stop reason's rank among the ranks' reasons: the strongest wins.
fn code(reason: Option<StopReason>) -> i64 {
    match reason {
        None => 0,
        Some(StopReason::WorkCap) => 1,
        Some(StopReason::Deadline) => 2,
        Some(StopReason::Requested) => 3,
        Some(StopReason::Signal) => 4,
    }
}

/// The reason of [`code`].
fn from_code(code: i64) -> Option<StopReason> {
    match code {
        1 => Some(StopReason::WorkCap),
        2 => Some(StopReason::Deadline),
        3 => Some(StopReason::Requested),
        4 => Some(StopReason::Signal),
        _ => None,
    }
}
