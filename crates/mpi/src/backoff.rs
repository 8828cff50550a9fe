//! How an idle PE waits for messages: [`treelb::backoff`]'s policy (the
//! same as the threads runtime's), carried out with this thread's clock and
//! scheduler. With more ranks than cores, sleeping ranks leave the cores to
//! the busy ones; the policy's cap bounds how late a sleeping PE notices a
//! message.

use std::time::Instant;

use treelb::backoff::{Backoff as Policy, Patience, Pause};

/// An escalating wait that started when it was made.
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
