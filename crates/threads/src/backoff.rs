//! The idle PE's wait: [`treelb::backoff`]'s policy, carried out with this
//! thread's clock and scheduler.

use std::time::Instant;

use treelb::backoff::{Backoff as Policy, Patience, Pause};

pub(crate) use treelb::backoff::Patience as Wait;

/// An escalating wait that started when it was made.
#[derive(Debug)]
pub(crate) struct Backoff {
    policy: Policy,
    since: Instant,
}

impl Backoff {
    /// A wait that starts now.
    pub(crate) fn new(patience: Patience) -> Self {
        Backoff { policy: Policy::new(patience), since: Instant::now() }
    }

    /// Waits once, a little longer than last time.
    pub(crate) fn wait(&mut self) {
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
