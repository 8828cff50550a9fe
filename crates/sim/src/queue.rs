//! The event queue: events ordered by (time, sequence number).
//!
//! Two events at the same simulated time leave the queue in the order they
//! were scheduled, so a run is a function of its seed alone (the idea of
//! simcore's `impl Ord for Event`). Events are a small `Copy` enum, not boxed
//! trait objects: the queue moves 32-byte values and never allocates once it
//! has grown.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// Simulated time, in ticks. Every cost of the machine model and every size
/// of work is a whole number of ticks, so times add exactly.
pub type Time = u64;

/// What happens at an event. PE indices are `u32`, which keeps an event at
/// 32 bytes (half a cache line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A message arrives at PE `to`.
    Arrive {
        /// The receiving PE.
        to: u32,
        /// The message.
        msg: Msg,
    },
    /// PE `pe` probes its message queue (a busy PE, every Δt of work).
    /// Stale if `epoch` is not the PE's current epoch.
    Poll {
        /// The polling PE.
        pe: u32,
        /// The PE's epoch when the poll was scheduled.
        epoch: u32,
    },
    /// PE `pe` exhausts its piece. Stale if `epoch` is not current.
    Done {
        /// The PE whose piece is exhausted.
        pe: u32,
        /// The PE's epoch when the event was scheduled.
        epoch: u32,
    },
}

/// A message between PEs (or to the shared counter of global round robin).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Msg {
    /// A request for work from PE `from`.
    Request {
        /// The requesting PE.
        from: u32,
    },
    /// "No work": the answer to a request that could not be served.
    Reject,
    /// A piece of work; the piece itself waits in the receiver's inbox
    /// (a PE has at most one request, so at most one piece, in flight).
    Work,
    /// The initial piece of selective initialization (not a transfer).
    Init,
    /// Global round robin: a request for a ticket from PE `from`, at the
    /// counter.
    Ticket {
        /// The PE that wants a ticket.
        from: u32,
    },
    /// Global round robin: the counter's answer, the ticket modulo P.
    TicketReply {
        /// The ticket value modulo P.
        ticket: u32,
    },
    /// Work sharing: a piece pushed by another PE (the piece waits in the
    /// sender-indexed push pool).
    Push {
        /// The index of the pushed piece in the pool of pieces in flight.
        slot: u32,
    },
}

/// An event: when, and what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// When it happens.
    pub time: Time,
    /// What happens.
    pub kind: Kind,
}

/// An event of the far future, ordered by (time, sequence number).
#[derive(Clone, Copy, Debug)]
struct Far {
    time: Time,
    seq: u64,
    kind: Kind,
}

impl PartialEq for Far {
    fn eq(&self, other: &Self) -> bool {
        (self.time, self.seq) == (other.time, other.seq)
    }
}

impl Eq for Far {}

impl PartialOrd for Far {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Far {
    /// Earlier first; among equal times, scheduled first.
    fn cmp(&self, other: &Self) -> Ordering {
        (self.time, self.seq).cmp(&(other.time, other.seq))
    }
}

/// The number of ticks the wheel covers (a power of two).
const SPAN: usize = 1 << 12;
const MASK: Time = SPAN as Time - 1;
const WORDS: usize = SPAN / 64;

/// A priority queue of events, earliest first, and among equal times in the
/// order they were scheduled.
///
/// A binary heap over all pending events spends most of its time missing the
/// cache (tens of thousands of events, 15 levels). Most events of a load
/// balancing run are due within a few message times, so the queue is a
/// *timing wheel*: one FIFO bucket per tick for the next 65536 ticks, a bitmap of the non-empty buckets, and a binary heap only for
/// events further ahead (pieces that end long from now). A far event moves
/// into its bucket as soon as its time enters the wheel's window, before
/// anything else can be scheduled at that time, so each bucket holds its
/// events in the order they were scheduled: the queue yields exactly the
/// (time, sequence number) order of a heap.
///
/// ```
/// use treelb_sim::queue::{EventQueue, Kind};
/// let mut q = EventQueue::default();
/// q.push(5, Kind::Done { pe: 1, epoch: 0 });
/// q.push(3, Kind::Done { pe: 2, epoch: 0 });
/// q.push(1 << 20, Kind::Done { pe: 3, epoch: 0 });
/// q.push(5, Kind::Done { pe: 0, epoch: 0 });
/// let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|e| (e.time, e.kind)).collect();
/// assert_eq!(order, [
///     (3, Kind::Done { pe: 2, epoch: 0 }),
///     (5, Kind::Done { pe: 1, epoch: 0 }), // scheduled before PE 0's
///     (5, Kind::Done { pe: 0, epoch: 0 }),
///     (1 << 20, Kind::Done { pe: 3, epoch: 0 }),
/// ]);
/// ```
#[derive(Debug)]
pub struct EventQueue {
    /// Bucket `t & MASK` holds the events at time `t`, for `now <= t < now + SPAN`.
    wheel: Vec<Vec<Kind>>,
    /// Bit `i` is set iff bucket `i` is non-empty.
    occupied: Vec<u64>,
    /// Bit `w` is set iff word `w` of `occupied` is non-zero.
    summary: [u64; WORDS / 64],
    /// The time of the bucket being drained.
    now: Time,
    /// The next unread event of the current bucket.
    head: usize,
    /// Events at `now + SPAN` or later.
    far: BinaryHeap<Reverse<Far>>,
    len: usize,
    seq: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            wheel: vec![Vec::new(); SPAN],
            occupied: vec![0; WORDS],
            summary: [0; WORDS / 64],
            now: 0,
            head: 0,
            far: BinaryHeap::new(),
            len: 0,
            seq: 0,
        }
    }
}

impl EventQueue {
    /// Schedules `kind` at `time`, which must not be before the last event
    /// popped.
    #[inline]
    pub fn push(&mut self, time: Time, kind: Kind) {
        debug_assert!(time >= self.now, "an event in the past: {time} < {}", self.now);
        self.seq += 1;
        self.len += 1;
        if time - self.now < SPAN as Time {
            self.put(time, kind);
        } else {
            self.far.push(Reverse(Far { time, seq: self.seq, kind }));
        }
    }

    #[inline]
    fn put(&mut self, time: Time, kind: Kind) {
        let b = (time & MASK) as usize;
        self.wheel[b].push(kind);
        self.occupied[b / 64] |= 1 << (b % 64);
        self.summary[b / 4096] |= 1 << ((b / 64) % 64);
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        let b = (self.now & MASK) as usize;
        if let Some(&kind) = self.wheel[b].get(self.head) {
            self.head += 1;
            self.len -= 1;
            return Some(Event { time: self.now, kind });
        }
        self.pop_slow()
    }

    #[cold]
    fn pop_slow(&mut self) -> Option<Event> {
        if self.len == 0 {
            return None;
        }
        // The current bucket is drained: empty it, keeping its memory.
        let b = (self.now & MASK) as usize;
        self.wheel[b].clear();
        self.head = 0;
        self.occupied[b / 64] &= !(1 << (b % 64));
        if self.occupied[b / 64] == 0 {
            self.summary[b / 4096] &= !(1 << ((b / 64) % 64));
        }
        let next = match self.next_occupied(b) {
            Some(nb) => self.now + ((nb as Time).wrapping_sub(b as Time) & MASK),
            None => self.far.peek().expect("pending events are somewhere").0.time,
        };
        self.now = next;
        // Far events whose time entered the window go to their buckets now,
        // before anything else can be scheduled at their times.
        while let Some(Reverse(f)) = self.far.peek() {
            if f.time - self.now >= SPAN as Time {
                break;
            }
            let Reverse(f) = self.far.pop().expect("peeked");
            self.put(f.time, f.kind);
        }
        self.pop()
    }

    /// The first non-empty bucket after `b`, going round the wheel.
    fn next_occupied(&self, b: usize) -> Option<usize> {
        let start = (b + 1) % SPAN;
        self.first_from(start).or_else(|| self.first_from(0).filter(|&x| x < start))
    }

    /// The first non-empty bucket at `start` or after (no wrap-around).
    fn first_from(&self, start: usize) -> Option<usize> {
        let w = start / 64;
        let bits = self.occupied[w] & (!0u64 << (start % 64));
        if bits != 0 {
            return Some(w * 64 + bits.trailing_zeros() as usize);
        }
        let w1 = w + 1;
        if w1 == WORDS {
            return None;
        }
        let mut sw = w1 / 64;
        let mut sbits = self.summary[sw] & (!0u64 << (w1 % 64));
        loop {
            if sbits != 0 {
                let word = sw * 64 + sbits.trailing_zeros() as usize;
                return Some(word * 64 + self.occupied[word].trailing_zeros() as usize);
            }
            sw += 1;
            if sw == WORDS / 64 {
                return None;
            }
            sbits = self.summary[sw];
        }
    }

    /// The number of events waiting.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no event is waiting.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of events ever scheduled.
    pub fn scheduled(&self) -> u64 {
        self.seq
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_is_small() {
        assert!(std::mem::size_of::<Kind>() <= 16, "{}", std::mem::size_of::<Kind>());
    }

    /// The wheel yields the same order as a heap over (time, sequence).
    #[test]
    fn same_order_as_a_heap() {
        let mut q = EventQueue::default();
        let mut heap = BinaryHeap::new();
        let mut x = 12345u64;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut seq, mut now) = (0u64, 0);
        for round in 0..200_000u64 {
            if rnd() % 3 != 0 || heap.is_empty() {
                let ahead = match rnd() % 10 {
                    0 => rnd() % (4 * SPAN as u64),
                    1..=3 => 0,
                    _ => rnd() % 300,
                };
                let kind = Kind::Done { pe: (round % 1000) as u32, epoch: round as u32 };
                q.push(now + ahead, kind);
                heap.push(Reverse(Far { time: now + ahead, seq, kind }));
                seq += 1;
            } else {
                let Reverse(f) = heap.pop().unwrap();
                let e = q.pop().unwrap();
                assert_eq!((e.time, e.kind), (f.time, f.kind));
                now = e.time;
            }
            assert_eq!(q.len(), heap.len());
        }
        while let Some(Reverse(f)) = heap.pop() {
            let e = q.pop().unwrap();
            assert_eq!((e.time, e.kind), (f.time, f.kind));
        }
        assert!(q.pop().is_none());
    }
}
