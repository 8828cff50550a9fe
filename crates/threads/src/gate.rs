//! Search permits: how many idle PEs may look for work at once, and how the
//! others sleep without costing a cycle.
//!
//! Under the strategies where an idle PE keeps asking other PEs until one
//! gives it work (random polling, both round robins, max-load), every idle
//! PE that asks, fails and asks again takes processor time. With one PE per
//! core that time is free: the core has nothing else to do. With many more
//! PEs than cores (thousands of threads on two cores) the askers would take
//! the cores from the PEs that hold work. The gate bounds the askers: an
//! idle PE must hold one of `permits` permits (the number of cores) to send
//! requests; the others wait in a first-in first-out queue, parked, until a
//! holder gets work and hands its permit to the longest waiter.
//!
//! ## Why it changes no decision and loses no PE
//! The gate only delays when a PE's machine hears [`Idle`]: which PE a
//! machine asks, what it gives and what it counts are the machine's
//! decisions, made the same way whenever they are made (the back-off already
//! leaves the timing to the driver). A parked PE without a permit still
//! answers what reaches it: pushes and requests unpark it.
//!
//! *No PE waits forever:* a permit is held by a PE that looks for work; it is
//! given back when that PE gets work (handed to the front of the queue if
//! anyone waits, or kept free) and a PE that gets a free or handed permit is
//! unparked. The run ends when the live-work counter reaches zero, which
//! unparks every PE, queued or not. A permit holder never waits for another
//! permit holder: requests to idle PEs under these strategies are refused at
//! once (their request slots are closed, see `mailbox`), so a holder waits
//! only for a busy PE's answer, which comes at that PE's next poll.
//!
//! Every operation takes the gate's lock for O(1) work: a queue push or pop.
//!
//! [`Idle`]: treelb::strategy::Event::Idle

use std::collections::VecDeque;
use std::sync::Mutex;

/// The permits and the queue of PEs waiting for one.
pub(crate) struct Gate {
    state: Mutex<State>,
}

struct State {
    /// Permits nobody holds.
    free: usize,
    /// PEs waiting for a permit, longest waiter first.
    queue: VecDeque<usize>,
    /// Which PEs hold a permit (granted while queued, or taken when free).
    holds: Vec<bool>,
    /// Which PEs are in the queue.
    queued: Vec<bool>,
}

impl Gate {
    /// A gate with `permits` permits (at least 1) for PEs `0..p`.
    pub(crate) fn new(permits: usize, p: usize) -> Self {
        Gate {
            state: Mutex::new(State {
                free: permits.max(1),
                queue: VecDeque::new(),
                holds: vec![false; p],
                queued: vec![false; p],
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// PE `me` wants to look for work: true if it holds a permit (it had
    /// one, was handed one while queued, or took a free one); otherwise it
    /// joins the queue (once) and is unparked when handed a permit.
    pub(crate) fn enter(&self, me: usize) -> bool {
        let mut s = self.lock();
        if s.holds[me] {
            return true;
        }
        if s.free > 0 {
            s.free -= 1;
            s.holds[me] = true;
            return true;
        }
        if !s.queued[me] {
            s.queued[me] = true;
            s.queue.push_back(me);
        }
        false
    }

    /// PE `me` got work: gives its permit back, to the longest waiter if
    /// there is one. Returns the PE to unpark. Nothing if `me` holds none.
    pub(crate) fn leave(&self, me: usize) -> Option<usize> {
        let mut s = self.lock();
        if !std::mem::replace(&mut s.holds[me], false) {
            return None;
        }
        match s.queue.pop_front() {
            Some(next) => {
                s.queued[next] = false;
                s.holds[next] = true;
                Some(next)
            }
            None => {
                s.free += 1;
                None
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn permits_go_to_the_longest_waiter() {
        let gate = Gate::new(1, 4);
        assert!(gate.enter(0));
        assert!(gate.enter(0)); // still holds it
        assert!(!gate.enter(2));
        assert!(!gate.enter(1));
        assert!(!gate.enter(2)); // queued once
        assert_eq!(gate.leave(0), Some(2));
        assert_eq!(gate.leave(0), None); // holds none any more
        assert!(gate.enter(2));
        assert_eq!(gate.leave(2), Some(1));
        assert_eq!(gate.leave(1), None); // nobody waits: the permit is free
        assert!(gate.enter(3));
    }
}
