//! How an idle PE waits without taking the core from busy ones.
//!
//! The first few waits spin (work usually arrives within one Δt of the
//! victim's work), then the PE yields its time slice, then it sleeps for
//! doubling intervals up to a cap. On a machine with fewer cores than PEs,
//! yielding and sleeping let the busy PEs run; the cap bounds how late an
//! idle PE notices work or termination.

use std::time::Duration;

const SPIN_LIMIT: u32 = 6;
const YIELD_LIMIT: u32 = 12;
const MAX_SLEEP: Duration = Duration::from_micros(500);

/// An escalating wait: spin, then yield, then sleep.
#[derive(Debug, Default)]
pub(crate) struct Backoff {
    step: u32,
}

impl Backoff {
    /// Waits once, a little longer than last time.
    pub(crate) fn wait(&mut self) {
        if self.step <= SPIN_LIMIT {
            for _ in 0..1u32 << self.step {
                std::hint::spin_loop();
            }
        } else if self.step <= YIELD_LIMIT {
            std::thread::yield_now();
        } else {
            let exp = (self.step - YIELD_LIMIT).min(10);
            std::thread::sleep(Duration::from_micros(1 << exp).min(MAX_SLEEP));
        }
        self.step = self.step.saturating_add(1);
    }
}
