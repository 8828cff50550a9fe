//! How an idle PE waits for messages without taking the core from busy ones:
//! spin briefly (an answer usually comes within one Δt of the victim's
//! work), then yield the time slice, then sleep for doubling intervals up to
//! a cap. With more ranks than cores, sleeping ranks leave the cores to the
//! busy ones; the cap bounds how late a sleeping PE notices a message.

use std::time::{Duration, Instant};

const SPIN: Duration = Duration::from_micros(20);
const MAX_SLEEP: Duration = Duration::from_micros(250);

/// How long a wait yields before it starts sleeping.
#[derive(Clone, Copy)]
pub(crate) enum Patience {
    /// Waiting for the answer to a request: it is owed and comes at the
    /// victim's next probe, within about Δt of work; yield for up to 2 ms.
    Reply,
    /// Everything else (between requests after "no work", the drain).
    Idle,
}

/// An escalating wait.
pub(crate) struct Backoff {
    since: Instant,
    sleep_exp: u32,
    yield_until: Duration,
}

impl Backoff {
    pub(crate) fn new() -> Self {
        Backoff::with(Patience::Idle)
    }

    pub(crate) fn with(patience: Patience) -> Self {
        let yield_until = match patience {
            Patience::Reply => Duration::from_millis(2),
            Patience::Idle => Duration::from_micros(300),
        };
        Backoff { since: Instant::now(), sleep_exp: 0, yield_until }
    }

    /// Waits once, a little longer than last time.
    pub(crate) fn wait(&mut self) {
        let waited = self.since.elapsed();
        if waited < SPIN {
            for _ in 0..64 {
                std::hint::spin_loop();
            }
        } else if waited < self.yield_until {
            std::thread::yield_now();
        } else {
            std::thread::sleep(Duration::from_micros(1 << self.sleep_exp).min(MAX_SLEEP));
            self.sleep_exp = (self.sleep_exp + 1).min(8);
        }
    }
}
