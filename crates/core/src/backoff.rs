//! How an idle PE waits without taking the core from busy ones: the policy,
//! with no clock in it.
//!
//! A wait escalates in three stages: spinning for a few microseconds (an
//! answer usually arrives within one Δt of the victim's work, tens of
//! microseconds), then yielding the time slice for as long as the wait's
//! [`Patience`] lasts, then sleeping for doubling intervals up to a cap.
//! Yielding costs a busy PE nothing when there are spare cores and hands the
//! core over when there are not (more PEs than cores); sleeping stops an idle
//! PE from polling at all once waiting has gone on for a while. The cap
//! bounds how late a sleeping PE notices work or termination.
//!
//! Two patiences: waiting for the answer to a request that is owed (it comes
//! at the victim's next poll, within about one Δt of work) is worth a long
//! yield phase; waiting before the next request after a rejection is not.
//!
//! [`Backoff`] has no clock: it is told the time waited so far, so the
//! policy is tested without sleeping. The runtimes (threads, MPI) wait with
//! [`Waiter`], which carries the policy out with this thread's clock and
//! scheduler; the simulator needs no back-off at all (an idle PE there
//! costs nothing). With more PEs than cores, sleeping PEs leave the cores to
//! the busy ones.
//!
//! ```
//! use std::time::Duration;
//! use treelb::backoff::{Backoff, Patience, Pause};
//! let mut b = Backoff::new(Patience::RETRY);
//! assert_eq!(b.pause(Duration::ZERO), Pause::Spin);
//! assert_eq!(b.pause(Duration::from_micros(100)), Pause::Yield);
//! assert_eq!(b.pause(Duration::from_millis(1)), Pause::Sleep(Duration::from_micros(1)));
//! assert_eq!(b.pause(Duration::from_millis(1)), Pause::Sleep(Duration::from_micros(2)));
//! ```

use std::time::{Duration, Instant};

/// The longest sleep of one pause.
pub const MAX_SLEEP: Duration = Duration::from_micros(500);

/// How long a wait spins, and until when it yields, before it sleeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Patience {
    /// Spin while less than this has been waited.
    pub spin: Duration,
    /// Then yield while less than this has been waited; sleep afterwards.
    pub yield_until: Duration,
}

impl Patience {
    /// Waiting for an answer that is owed (a request accepted by its victim,
    /// a load query, a ticket): spin 100 µs, yield up to 2 ms.
    pub const REPLY: Patience =
        Patience { spin: Duration::from_micros(100), yield_until: Duration::from_millis(2) };
    /// Waiting between attempts after "no work", for a push, for the end:
    /// spin 20 µs, yield up to 200 µs.
    pub const RETRY: Patience =
        Patience { spin: Duration::from_micros(20), yield_until: Duration::from_micros(200) };
    /// Asking again on a core that nobody works on (the threads runtime's
    /// search permits, with more PEs than cores): a hit may take thousands
    /// of attempts (random polling finds one busy PE among P with
    /// probability 1/P), each a compare-and-swap that fails at once, and the
    /// core would idle otherwise; spin 10 ms, yield up to 50 ms.
    pub const SEARCH: Patience =
        Patience { spin: Duration::from_millis(10), yield_until: Duration::from_millis(50) };
}

/// What a waiting PE should do now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pause {
    /// Spin briefly (a few dozen `spin_loop` hints).
    Spin,
    /// Yield the time slice.
    Yield,
    /// Sleep this long.
    Sleep(Duration),
}

/// An escalating wait: spin, then yield until the patience runs out, then
/// sleep for doubling intervals up to [`MAX_SLEEP`].
#[derive(Clone, Debug)]
pub struct Backoff {
    patience: Patience,
    sleep_exp: u32,
}

impl Backoff {
    /// A wait with the given patience.
    pub fn new(patience: Patience) -> Self {
        Backoff { patience, sleep_exp: 0 }
    }

    /// The next pause, after `waited` since the wait began; each sleep is
    /// twice the previous one, up to the cap.
    pub fn pause(&mut self, waited: Duration) -> Pause {
        if waited < self.patience.spin {
            Pause::Spin
        } else if waited < self.patience.yield_until {
            Pause::Yield
        } else {
            let sleep = Duration::from_micros(1 << self.sleep_exp).min(MAX_SLEEP);
            self.sleep_exp = (self.sleep_exp + 1).min(10);
            Pause::Sleep(sleep)
        }
    }
}

/// A [`Backoff`] carried out on this thread: the time waited is measured
/// from when the waiter was made, spinning is a few dozen `spin_loop`
/// hints, yielding and sleeping are the scheduler's.
///
/// ```
/// use treelb::backoff::{Patience, Waiter};
/// let mut wait = Waiter::new(Patience::RETRY);
/// for _ in 0..3 {
///     wait.wait(); // spins: the wait has just begun
/// }
/// ```
#[derive(Debug)]
pub struct Waiter {
    policy: Backoff,
    since: Instant,
}

impl Waiter {
    /// A wait that starts now.
    pub fn new(patience: Patience) -> Self {
        Waiter { policy: Backoff::new(patience), since: Instant::now() }
    }

    /// Waits once, a little longer than last time.
    pub fn wait(&mut self) {
        match self.policy.pause(self.since.elapsed()) {
            Pause::Spin => {
                for _ in 0..64 {
                    std::hint::spin_loop();
                }
            }
            Pause::Yield => std::thread::yield_now(),
            Pause::Sleep(d) => std::thread::sleep(d),
        }
    }
}
