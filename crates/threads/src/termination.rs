//! Termination detection for the threads runtime: one counter of live work.
//!
//! ## The protocol
//! `live` counts the PEs that hold a piece of work plus the pieces in transit
//! between PEs:
//!
//! 1. At the start it is the number of PEs that start with a piece (1 with
//!    root initialization; with selective initialization every PE starts
//!    counted and takes itself off if its share is empty).
//! 2. A donor adds one *before* it puts a split-off piece into the requester's
//!    reply slot. The requester inherits that unit when it takes the piece.
//! 3. A PE subtracts one when its piece is exhausted. The PE that brings the
//!    counter to zero raises the `done` flag.
//! 4. A PE without work stops when it sees `done`.
//!
//! ## Why it is correct
//! *Safety (no PE stops while work exists):* work exists only in pieces held
//! by PEs or in transit, and every such piece is counted: a held piece from
//! the moment its PE got it (start, or inheritance from the donor's increment)
//! until it is exhausted, a piece in transit from the donor's increment on. A
//! piece in transit is already counted when the donor, still holding its own
//! counted piece, publishes it, so the counter never passes through zero
//! while a transfer happens. Hence `live > 0` whenever work exists, and `done`
//! is raised only when none does.
//!
//! *Stability:* new work only arises by splitting an existing piece, so once
//! no piece exists none ever will; `done` is final.
//!
//! *Liveness:* when the last piece is exhausted its PE brings `live` to zero,
//! raises `done` and then wakes every PE (once per run: O(P) in total,
//! nothing per request). Every idle PE checks `done` in each turn of its
//! waiting loop, before it waits or backs off; a PE waiting before `done`
//! was raised is woken after it and queued for a thread (the waking's fence
//! makes `done` visible to its next turn), and a PE running a turn meanwhile
//! is marked to run again instead of waiting (see `sched`), so all PEs stop.
//!
//! On shared memory one atomic counter is the cheapest sound detector: it is
//! touched once per transfer and once per exhausted piece, never on the
//! per-node path. (Distributed memory needs the four-counter wave of [Sanders 1999]
//! §2 instead, where no PE can read a global counter.)

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicBool, AtomicUsize, Ordering};

/// The live-work counter and the `done` flag.
pub(crate) struct Termination {
    live: CachePadded<AtomicUsize>,
    done: AtomicBool,
}

impl Termination {
    /// A detector for a run that starts with `live` counted pieces.
    pub(crate) fn new(live: usize) -> Self {
        Termination { live: CachePadded::new(AtomicUsize::new(live)), done: AtomicBool::new(live == 0) }
    }

    /// A donor is about to hand over a split-off piece.
    #[inline]
    pub(crate) fn piece_sent(&self) {
        self.live.fetch_add(1, Ordering::Relaxed);
    }

    /// A PE's piece is exhausted (or its share was empty). Returns true if
    /// this was the last piece: the computation is over.
    #[inline]
    pub(crate) fn piece_exhausted(&self) -> bool {
        // AcqRel: the PE that reaches zero has seen every other decrement, so
        // the `done` it raises follows all the work done by all PEs.
        if self.live.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.done.store(true, Ordering::Release);
            true
        } else {
            false
        }
    }

    /// Raises `done` without the counter reaching zero (the run is aborted).
    pub(crate) fn abort(&self) {
        self.done.store(true, Ordering::Release);
    }

    /// Is the computation over (or aborted)?
    #[inline]
    pub(crate) fn is_done(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn done_only_when_the_last_counted_piece_is_exhausted() {
        let t = Termination::new(1);
        assert!(!t.is_done());
        t.piece_sent(); // a transfer: donor and the piece in transit
        assert!(!t.piece_exhausted()); // the donor finishes first
        assert!(!t.is_done()); // the piece in transit keeps the run alive
        assert!(t.piece_exhausted()); // the receiver finishes it
        assert!(t.is_done());
    }

    #[test]
    fn nothing_to_do_is_done_at_once() {
        assert!(Termination::new(0).is_done());
    }
}
