//! How an idle PE waits for messages without taking the core from busy ones:
//! spin briefly (an answer usually comes within one Δt of the victim's
//! work), then yield the time slice, then sleep for doubling intervals up to
//! a cap. With more ranks than cores, sleeping ranks leave the cores to the
//! busy ones; the cap bounds how late a sleeping PE notices a message.

use std::time::{Duration, Instant};

const SPIN: Duration = Duration::from_micros(20);
const YIELD_UNTIL: Duration = Duration::from_micros(300);
const MAX_SLEEP: Duration = Duration::from_micros(250);

/// An escalating wait, restarted whenever something happens.
pub(crate) struct Backoff {
    since: Instant,
    sleep_exp: u32,
}

impl Backoff {
    pub(crate) fn new() -> Self {
        Backoff { since: Instant::now(), sleep_exp: 0 }
    }

    /// Waits once, a little longer than last time.
    pub(crate) fn wait(&mut self) {
        let waited = self.since.elapsed();
        if waited < SPIN {
            for _ in 0..64 {
                std::hint::spin_loop();
            }
        } else if waited < YIELD_UNTIL {
            std::thread::yield_now();
        } else {
            std::thread::sleep(Duration::from_micros(1 << self.sleep_exp).min(MAX_SLEEP));
            self.sleep_exp = (self.sleep_exp + 1).min(8);
        }
    }
}
