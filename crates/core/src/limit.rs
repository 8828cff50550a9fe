//! A cap on the work of a run: [`Limited`] pieces stop every PE once the
//! pieces of one [`Limit`] have done its number of units, or once
//! [`Limit::stop`] was called (from another thread: a Ctrl-C handler, a
//! watchdog).
//!
//! The stop is the early stop of decision searches
//! ([`Work::should_stop`]): a runtime asks after every slice of Δt units,
//! and once the limit is reached the PE drops the rest of its piece and
//! every PE stops (the threads runtime), or the PE starts and gives away
//! nothing more (MPI, where each rank holds its own `Limit`). The run ends
//! with the output of the work done, and [`Limit::interrupted`] says that
//! it is partial: work was dropped. The units done may pass the limit by up
//! to one slice per PE.
//!
//! ```
//! use treelb::limit::{Limit, Limited};
//! use treelb::search::{BinaryTree, DfsWork, SplitPolicy};
//! use treelb::{seq, Work};
//!
//! let limit = Limit::new(10_000);
//! let (nodes, units) = seq::run_work(Limited::new(DfsWork::new(&BinaryTree(20), SplitPolicy::OldestHalf), &limit));
//! assert!(limit.reached() && limit.interrupted());
//! assert!(nodes >= 10_000 && nodes < (1 << 21) - 1);
//! assert_eq!(units, limit.units());
//!
//! // Exactly enough: the limit is reached, but nothing was dropped.
//! let enough = Limit::new((1 << 21) - 1);
//! let (nodes, _) = seq::run_work(Limited::new(DfsWork::new(&BinaryTree(20), SplitPolicy::OldestHalf), &enough));
//! assert!(enough.reached() && !enough.interrupted());
//! assert_eq!(nodes, (1 << 21) - 1);
//! ```

use std::fmt;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::{Progress, Work};

/// Why a run stopped before its work was done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// Its deadline passed ([`Limit::check_deadline`]).
    Deadline,
    /// Its pieces did the most units of work the [`Limit`] allows.
    WorkCap,
    /// A signal (Ctrl-C, SIGTERM) asked it to stop: what a program that
    /// handles signals passes to [`Limit::stop_because`].
    Signal,
    /// [`Limit::stop`] was called.
    Requested,
}

impl StopReason {
    /// Every reason, in the order of their codes.
    const ALL: [StopReason; 4] =
        [StopReason::Deadline, StopReason::WorkCap, StopReason::Signal, StopReason::Requested];

    fn code(self) -> u8 {
        StopReason::ALL.iter().position(|&r| r == self).map_or(0, |i| i as u8 + 1)
    }

    fn from_code(code: u8) -> Option<StopReason> {
        StopReason::ALL.get(usize::from(code).checked_sub(1)?).copied()
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StopReason::Deadline => "the deadline",
            StopReason::WorkCap => "the cap on the units of work",
            StopReason::Signal => "a signal",
            StopReason::Requested => "a stop request",
        })
    }
}

/// The deadline of a run given both ways: the earlier of a fixed instant
/// `at` and `after` counted from `started`; whichever is given, or none.
///
/// ```
/// use std::time::{Duration, Instant};
/// use treelb::limit::deadline;
/// let t = Instant::now();
/// let s = Duration::from_secs(1);
/// assert_eq!(deadline(Some(t + 5 * s), Some(2 * s), t), Some(t + 2 * s));
/// assert_eq!(deadline(Some(t + s), None, t), Some(t + s));
/// assert_eq!(deadline(None, Some(s), t), Some(t + s));
/// assert_eq!(deadline(None, None, t), None);
/// ```
pub fn deadline(at: Option<Instant>, after: Option<Duration>, started: Instant) -> Option<Instant> {
    match (at, after) {
        (Some(at), Some(after)) => Some(at.min(started + after)),
        (at, after) => at.or_else(|| after.map(|a| started + a)),
    }
}

/// What [`Stops::stop_when`] polls.
type StopWhen<'a> = Box<dyn Fn() -> Option<StopReason> + Sync + 'a>;

/// The stops a long run asks for, as one value that every runtime's run
/// takes the same way (`treelb_threads::Run::stops`, `treelb_mpi::Run::stops`,
/// `treelb_run::Run`): a deadline (a duration from the start of the run,
/// or a point in time, or both: the earlier counts), a cap on the units of
/// work, a stop handle another thread pulls ([`Limit::stop`]), and a
/// condition polled while the PEs work (a signal handler's flag).
///
/// A runtime resolves it when its run starts: the deadline by
/// [`deadline_from`](Self::deadline_from), the limit its pieces count
/// against is the [`handle`](Self::handle) if there is one (whose own cap
/// then counts) or a limit of its own of [`cap`](Self::cap) units, and its
/// watchdog calls [`poll`](Self::poll) every so often.
///
/// ```
/// use std::time::{Duration, Instant};
/// use treelb::limit::{Limit, StopReason, Stops};
///
/// let stops = Stops::new().deadline(Duration::from_secs(2)).max_units(1000);
/// let start = Instant::now();
/// assert_eq!(stops.deadline_from(start), Some(start + Duration::from_secs(2)));
/// assert_eq!(stops.cap(), Some(1000));
///
/// // The polled condition stops the limit with its reason.
/// let limit = Limit::unbounded();
/// let stops = Stops::new().stop_when(|| Some(StopReason::Signal));
/// assert!(stops.poll(&limit, None));
/// assert_eq!(limit.stop_reason(), Some(StopReason::Signal));
/// ```
#[derive(Default)]
pub struct Stops<'a> {
    at: Option<Instant>,
    after: Option<Duration>,
    max_units: Option<u64>,
    handle: Option<&'a Limit>,
    when: Option<StopWhen<'a>>,
}

impl fmt::Debug for Stops<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stops")
            .field("at", &self.at)
            .field("after", &self.after)
            .field("max_units", &self.max_units)
            .field("handle", &self.handle)
            .field("stop_when", &self.when.is_some())
            .finish()
    }
}

impl<'a> Stops<'a> {
    /// No stop: the run goes to its end.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stops the run once `after` has passed since it started.
    pub fn deadline(mut self, after: Duration) -> Self {
        self.after = Some(after);
        self
    }

    /// Stops the run at `at` (a deadline shared by several runs, such as
    /// the segments of a checkpointed computation).
    pub fn deadline_at(mut self, at: Instant) -> Self {
        self.at = Some(at);
        self
    }

    /// Stops the run once its pieces have done about `units` units of work
    /// (up to one slice of Δt per PE more). With a
    /// [`stop_handle`](Self::stop_handle), the handle's own cap counts
    /// instead.
    pub fn max_units(mut self, units: u64) -> Self {
        self.max_units = Some(units);
        self
    }

    /// Lets another thread stop the run through `handle` ([`Limit::stop`],
    /// or [`Limit::stop_because`] with the reason); the run's pieces count
    /// their units against it, and its own cap ([`Limit::new`]) counts.
    pub fn stop_handle(mut self, handle: &'a Limit) -> Self {
        self.handle = Some(handle);
        self
    }

    /// Polls `check` while the PEs work (every 10 ms or so); the first
    /// reason it returns stops the run (a program that catches signals
    /// returns [`StopReason::Signal`] once one came).
    pub fn stop_when(mut self, check: impl Fn() -> Option<StopReason> + Sync + 'a) -> Self {
        self.when = Some(Box::new(check));
        self
    }

    /// The polled condition's answer now ([`stop_when`](Self::stop_when)),
    /// if there is one: a run in several segments passes it on to each.
    pub fn polled(&self) -> Option<StopReason> {
        self.when.as_ref().and_then(|check| check())
    }

    /// The deadline of a run that started at `started`, if any.
    pub fn deadline_from(&self, started: Instant) -> Option<Instant> {
        deadline(self.at, self.after, started)
    }

    /// The cap on the units of work given by [`max_units`](Self::max_units).
    pub fn cap(&self) -> Option<u64> {
        self.max_units
    }

    /// The limit a run's pieces count against: the
    /// [`stop_handle`](Self::stop_handle) if there is one, else a limit of
    /// [`cap`](Self::cap) units (unbounded without one), made once in `own`.
    pub fn limit<'s>(&self, own: &'s OnceLock<Limit>) -> &'s Limit
    where
        'a: 's,
    {
        match self.handle {
            Some(handle) => handle,
            None => own.get_or_init(|| self.max_units.map_or_else(Limit::unbounded, Limit::new)),
        }
    }

    /// The stop handle, if one was given.
    pub fn handle(&self) -> Option<&'a Limit> {
        self.handle
    }

    /// Whether a condition is polled ([`stop_when`](Self::stop_when)).
    pub fn polls(&self) -> bool {
        self.when.is_some()
    }

    /// Whether a watchdog must look at the run while it works: there is a
    /// deadline or a polled condition.
    pub fn watched(&self) -> bool {
        self.at.is_some() || self.after.is_some() || self.when.is_some()
    }

    /// One look of the watchdog: stops `limit` with the polled condition's
    /// reason, or at `deadline` once it passed; returns whether `limit` is
    /// stopped (for whatever reason).
    pub fn poll(&self, limit: &Limit, deadline: Option<Instant>) -> bool {
        if let Some(reason) = self.polled() {
            limit.stop_because(reason);
        }
        limit.check_deadline(deadline)
    }
}

/// The most units of work the pieces of a run may do, and how many they
/// did; shared by all [`Limited`] pieces of the run.
#[derive(Debug)]
pub struct Limit {
    max: u64,
    done: AtomicU64,
    /// A piece with work left was told to stop.
    dropped: AtomicBool,
    /// [`Limit::stop`] was called.
    stop: AtomicBool,
    /// The code of the first [`StopReason`] given, 0 for none.
    reason: AtomicU8,
}

impl Limit {
    /// A limit of `max` units.
    pub fn new(max: u64) -> Self {
        Limit {
            max,
            done: AtomicU64::new(0),
            dropped: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            reason: AtomicU8::new(0),
        }
    }

    /// No cap on the units, only [`stop`](Self::stop). Its pieces count
    /// nothing (no shared counter is touched per slice), so
    /// [`units`](Self::units) stays 0.
    ///
    /// ```
    /// use treelb::limit::{Limit, Limited};
    /// use treelb::{Progress, Work};
    /// use treelb::search::{Children, DfsWork, Search, SplitPolicy};
    ///
    /// struct Endless;
    /// impl Search for Endless {
    ///     type Node = ();
    ///     type Output = u64;
    ///     fn root(&self) {}
    ///     fn expand(&self, _: (), n: &mut u64, c: &mut Children<'_, ()>) { *n += 1; c.push(()); }
    /// }
    /// let limit = Limit::unbounded();
    /// let mut piece = Limited::new(DfsWork::new(&Endless, SplitPolicy::OldestHalf), &limit);
    /// let mut n = 0;
    /// assert_eq!(piece.work(1000, &mut n), Progress::Pending);
    /// assert!(!piece.should_stop());
    /// limit.stop(); // e.g. from a Ctrl-C handler
    /// assert!(piece.should_stop() && limit.interrupted() && limit.stopped());
    /// ```
    pub fn unbounded() -> Self {
        Limit::new(u64::MAX)
    }

    /// Asks every piece of this limit to stop at its next check (after its
    /// current slice of work); callable from any thread. The reason is
    /// [`StopReason::Requested`] unless another was given first.
    pub fn stop(&self) {
        self.stop_because(StopReason::Requested);
    }

    /// [`stop`](Self::stop), giving the reason; the first reason given is
    /// the one [`stop_reason`](Self::stop_reason) reports.
    ///
    /// ```
    /// use treelb::limit::{Limit, StopReason};
    /// let limit = Limit::unbounded();
    /// assert_eq!(limit.stop_reason(), None);
    /// limit.stop_because(StopReason::Signal);
    /// limit.stop(); // later: the signal stays the reason
    /// assert!(limit.stopped());
    /// assert_eq!(limit.stop_reason(), Some(StopReason::Signal));
    /// ```
    pub fn stop_because(&self, reason: StopReason) {
        let _ = self.reason.compare_exchange(0, reason.code(), Ordering::Relaxed, Ordering::Relaxed);
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Stops the pieces with [`StopReason::Deadline`] if `deadline` has
    /// passed; returns whether the limit is stopped (for whatever reason).
    /// A runtime's watchdog calls it every so often (the pieces themselves
    /// read no clock).
    pub fn check_deadline(&self, deadline: Option<Instant>) -> bool {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            self.stop_because(StopReason::Deadline);
        }
        self.stopped()
    }

    /// Why the pieces stop: the first reason given to
    /// [`stop_because`](Self::stop_because), else
    /// [`StopReason::WorkCap`] once the units reached the cap; `None`
    /// while neither happened.
    pub fn stop_reason(&self) -> Option<StopReason> {
        StopReason::from_code(self.reason.load(Ordering::Relaxed))
            .or_else(|| (self.units() >= self.max).then_some(StopReason::WorkCap))
    }

    /// The reason the output is partial, if it is: the
    /// [`stop_reason`](Self::stop_reason) once a piece with work left
    /// stopped ([`interrupted`](Self::interrupted)), else `None` (a stop
    /// that came after the last piece was done changes nothing).
    pub fn partial_because(&self) -> Option<StopReason> {
        self.interrupted().then(|| self.stop_reason().unwrap_or(StopReason::Requested))
    }

    /// Whether [`stop`](Self::stop) was called.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The limit.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// The units done so far by the pieces of this limit.
    pub fn units(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// Whether the pieces have done `max` units or more, or
    /// [`stop`](Self::stop) was called: from now on every piece with work
    /// left stops.
    pub fn reached(&self) -> bool {
        self.stopped() || self.units() >= self.max
    }

    /// Whether a piece with work left stopped at the limit: the output of
    /// the run is partial.
    pub fn interrupted(&self) -> bool {
        self.dropped.load(Ordering::Relaxed)
    }

    #[inline]
    fn add(&self, units: u64) {
        if units > 0 && self.max != u64::MAX {
            self.done.fetch_add(units, Ordering::Relaxed);
        }
    }
}

/// A piece of work that counts its units against a [`Limit`] and asks every
/// PE to stop once the limit is reached. Its parts share the limit.
#[derive(Debug)]
pub struct Limited<'l, W> {
    inner: W,
    limit: &'l Limit,
}

impl<'l, W> Limited<'l, W> {
    /// `inner`, counted against `limit`.
    pub fn new(inner: W, limit: &'l Limit) -> Self {
        Limited { inner, limit }
    }

    /// The piece without its limit.
    pub fn into_inner(self) -> W {
        self.inner
    }

    /// The piece.
    pub fn inner(&self) -> &W {
        &self.inner
    }
}

impl<W: Clone> Clone for Limited<'_, W> {
    fn clone(&self) -> Self {
        Limited { inner: self.inner.clone(), limit: self.limit }
    }
}

impl<W: Work> Work for Limited<'_, W> {
    type Output = W::Output;

    #[inline]
    fn work(&mut self, budget: u64, acc: &mut W::Output) -> Progress {
        let progress = self.inner.work(budget, acc);
        self.limit.add(progress.used(budget));
        progress
    }

    fn split(&mut self) -> Option<Self> {
        self.inner.split().map(|inner| Limited { inner, limit: self.limit })
    }

    fn generation(&self) -> u32 {
        self.inner.generation()
    }

    fn load(&self) -> u64 {
        self.inner.load()
    }

    /// Whether the computation is decided (the inner piece's own early
    /// stop) or the limit is reached. Runtimes ask it of pieces with work
    /// left, so the latter marks the run [interrupted](Limit::interrupted).
    #[inline]
    fn should_stop(&self) -> bool {
        if self.inner.should_stop() {
            return true;
        }
        if self.limit.reached() {
            self.limit.dropped.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{Children, DfsWork, Search, SplitPolicy};

    struct Chain(u32);

    impl Search for Chain {
        type Node = u32;
        type Output = u64;
        fn root(&self) -> u32 {
            0
        }
        fn expand(&self, d: u32, acc: &mut u64, c: &mut Children<'_, u32>) {
            *acc += 1;
            if d < self.0 {
                c.push(d + 1);
            }
        }
    }

    #[test]
    fn parts_share_the_limit_and_stop_together() {
        let search = Chain(1000);
        let limit = Limit::new(50);
        let mut piece = Limited::new(DfsWork::new(&search, SplitPolicy::OldestHalf), &limit);
        let mut acc = 0;
        assert_eq!(piece.work(30, &mut acc), Progress::Pending);
        assert!(!piece.should_stop());
        let other = piece.clone();
        assert_eq!(piece.work(30, &mut acc), Progress::Pending);
        assert!(!limit.interrupted());
        assert!(limit.reached() && piece.should_stop() && other.should_stop());
        assert!(limit.interrupted());
        assert_eq!((acc, limit.units(), limit.max()), (60, 60, 50));
    }
}
