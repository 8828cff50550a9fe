//! Search permits: idle PEs look for work only on cores that nobody works
//! on, and the others sleep without costing a cycle.
//!
//! Under the strategies where an idle PE keeps asking other PEs until one
//! gives it work (random polling, both round robins, max-load), every idle
//! PE that asks, fails and asks again takes processor time. With one PE per
//! core that time is free: the core has nothing else to do. With many more
//! PEs than cores (thousands of threads on two cores) the askers would take
//! the cores from the PEs that hold work. The gate lets an idle PE ask only
//! while fewer PEs work or ask than there are cores: it must hold a permit,
//! and a permit is taken only while `working + holders < cores`. The others
//! wait in a first-in first-out queue, without a thread (see `sched`). A holder that gets work gives
//! its permit up as it starts working (the sum stays the same); a PE whose
//! piece runs out stops counting as working and, being idle now, is the
//! first to take the core it freed. So on C cores at most C PEs work or
//! ask at any time — the run on thousands of PEs looks, to the cores, like
//! the run on C — and a holder never takes a core from a working PE, which
//! is why it may keep asking without sleeping.
//!
//! ## Why it changes no decision and loses no PE
//! The gate only delays when a PE's machine hears [`Idle`]: which PE a
//! machine asks, what it gives and what it counts are the machine's
//! decisions, made the same way whenever they are made (the back-off already
//! leaves the timing to the driver). A waiting PE without a permit still
//! answers what reaches it (requests and pushes wake it).
//!
//! *No work is left undone:* while any piece exists, some PE holds it
//! (working) or it is in transit to a PE that asked; a working PE never
//! needs a permit. Room for an asker appears only when a PE stops working,
//! and that PE takes it at once (it goes idle and enters the gate, or the
//! run is over); a holder that leaves without work hands its permit to the
//! longest waiter. The
//! run ends when the live-work counter reaches zero, which wakes every PE,
//! queued or not. A permit holder never waits for another permit holder:
//! requests to idle PEs under these strategies are refused at once (their
//! request slots are closed, see `mailbox`), so a holder waits only for a
//! busy PE's answer, which comes at that PE's next poll.
//!
//! Every operation takes the gate's lock for O(1) work: a counter, a queue
//! push or pop; the working count changes once per piece, not per slice.
//!
//! [`Idle`]: treelb::strategy::Event::Idle

use std::collections::VecDeque;
use std::sync::Mutex;

/// The permits and the queue of PEs waiting for one.
pub(crate) struct Gate {
    state: Mutex<State>,
}

struct State {
    /// Cores: the most PEs that work or ask at once.
    cores: usize,
    /// PEs that work a piece (counted from the gate's view: see
    /// [`Gate::start_work`]).
    working: usize,
    /// PEs that hold a permit.
    holders: usize,
    /// PEs waiting for a permit, longest waiter first.
    queue: VecDeque<usize>,
    /// Which PEs hold a permit (granted while queued, or taken).
    holds: Vec<bool>,
    /// Which PEs are in the queue.
    queued: Vec<bool>,
}

impl State {
    fn room(&self) -> bool {
        self.working + self.holders < self.cores
    }

    /// Hands permits to the longest waiters while there is room; the PEs to
    /// wake go to `wake`.
    fn grant(&mut self, wake: &mut Vec<usize>) {
        while self.room()
            && let Some(next) = self.queue.pop_front()
        {
            self.queued[next] = false;
            self.holds[next] = true;
            self.holders += 1;
            wake.push(next);
        }
    }
}

impl Gate {
    /// A gate for PEs `0..p` on `cores` cores (at least 1).
    pub(crate) fn new(cores: usize, p: usize) -> Self {
        Gate {
            state: Mutex::new(State {
                cores: cores.max(1),
                working: 0,
                holders: 0,
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
    /// one, was handed one while queued, or there is room); otherwise it
    /// joins the queue (once) and is woken when handed a permit. A PE
    /// that asks here is running already, so it takes free room before the
    /// queue does (waking a queued PE instead would cost a context switch
    /// and leave this one to queue).
    pub(crate) fn enter(&self, me: usize) -> bool {
        let mut s = self.lock();
        if s.holds[me] {
            return true;
        }
        if s.room() {
            s.holders += 1;
            s.holds[me] = true;
            return true;
        }
        if !s.queued[me] {
            s.queued[me] = true;
            s.queue.push_back(me);
        }
        false
    }

    /// PE `me` starts working a piece: it gives up its permit, if it holds
    /// one, and counts as working.
    pub(crate) fn start_work(&self, me: usize) {
        let mut s = self.lock();
        if std::mem::replace(&mut s.holds[me], false) {
            s.holders -= 1;
        }
        s.working += 1;
    }

    /// PE `me` stopped working (its piece is exhausted or the run ends).
    /// It is idle now and asks for the core it freed first (see
    /// [`Gate::enter`]), so nobody is woken here.
    pub(crate) fn stop_work(&self) {
        let mut s = self.lock();
        s.working -= 1;
    }

    /// PE `me` leaves the idle phase without work (the run ends): gives up
    /// its permit. Returns the PEs to wake.
    pub(crate) fn leave(&self, me: usize) -> Vec<usize> {
        let mut s = self.lock();
        let mut wake = Vec::new();
        if std::mem::replace(&mut s.holds[me], false) {
            s.holders -= 1;
            s.grant(&mut wake);
        }
        wake
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn only_idle_cores_ask() {
        let gate = Gate::new(2, 5);
        gate.start_work(0); // PE 0 starts with the root
        assert!(gate.enter(1)); // one core is free: PE 1 asks
        assert!(gate.enter(1)); // still holds it
        assert!(!gate.enter(2)); // both cores taken: queued
        assert!(!gate.enter(3));
        assert!(!gate.enter(2)); // queued once
        gate.start_work(1); // PE 1 got work: its permit goes with it
        assert!(!gate.enter(4)); // two PEs work: nobody asks
        gate.stop_work(); // PE 0 ran out
        assert!(gate.enter(0)); // and takes the core it freed
        assert!(!gate.enter(4));
        assert_eq!(gate.leave(0), vec![2]); // PE 0 leaves without work: the longest waiter
        assert!(gate.enter(2));
        assert_eq!(gate.leave(1), Vec::<usize>::new()); // holds none
    }
}
