//! How an idle PE waits without taking the core from busy ones.
//!
//! A wait escalates in three stages: spinning for a few microseconds (an
//! answer usually arrives within one Δt of the victim's work, tens of
//! microseconds), then yielding the time slice for as long as the wait's
//! *patience* lasts, then sleeping for doubling intervals up to a cap. Yielding costs a busy PE nothing when there are spare cores and hands
//! the core over when there are not (more PEs than cores); sleeping stops an
//! idle PE from polling at all once waiting has gone on for a while. The cap
//! bounds how late a sleeping PE notices work or termination.
//!
//! Two patiences: waiting for the answer to a request that a PE has accepted
//! (it is owed, and comes at the victim's next poll, within about one Δt of
//! work) is worth a long yield phase; waiting before the next request after
//! a rejection is not.

use std::time::{Duration, Instant};

const MAX_SLEEP: Duration = Duration::from_micros(500);

/// How long to spin, and how long to yield, while an accepted request's
/// answer is on its way.
pub(crate) const REPLY_PATIENCE: Patience =
    Patience { spin: Duration::from_micros(100), yield_until: Duration::from_millis(2) };
/// The same between requests after a rejection.
pub(crate) const RETRY_PATIENCE: Patience =
    Patience { spin: Duration::from_micros(20), yield_until: Duration::from_micros(200) };

/// How long a wait spins, and until when it yields, before it sleeps.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Patience {
    spin: Duration,
    yield_until: Duration,
}

/// An escalating wait: spin, then yield until the patience runs out, then
/// sleep.
#[derive(Debug)]
pub(crate) struct Backoff {
    patience: Patience,
    since: Instant,
    sleep_exp: u32,
}

impl Backoff {
    /// A wait that starts now.
    pub(crate) fn new(patience: Patience) -> Self {
        Backoff { patience, since: Instant::now(), sleep_exp: 0 }
    }

    /// Waits once, a little longer than last time.
    pub(crate) fn wait(&mut self) {
        let waited = self.since.elapsed();
        if waited < self.patience.spin {
            for _ in 0..64 {
                std::hint::spin_loop();
            }
        } else if waited < self.patience.yield_until {
            std::thread::yield_now();
        } else {
            std::thread::sleep(Duration::from_micros(1 << self.sleep_exp).min(MAX_SLEEP));
            self.sleep_exp = (self.sleep_exp + 1).min(10);
        }
    }
}
