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
    /// A message arrives at PE `to` (or at the hub, [`HUB`]).
    Arrive {
        /// The receiving PE.
        to: u32,
        /// The message.
        msg: Msg,
    },
    /// The head of a message reaches the network interface of PE `to` (or
    /// of the hub's PE): under LogGP, the interface takes its bytes in
    /// after those of the messages before it, and then it arrives.
    Wire {
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

/// What a message is. Messages to the hub carry a `Hub…` tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Tag {
    /// A request for work.
    Request,
    /// The answer to a request (or the master's hand-out): `value` is the
    /// piece's slot in the table of pieces in flight, or [`NONE`] for "no
    /// work".
    Answer,
    /// A piece a PE starts with (selective initialization, static parts):
    /// `value` is its slot. Not a transfer.
    Init,
    /// A load query.
    LoadQuery,
    /// The answer to a load query: `value` is the load ([`encode_load`]).
    Load,
    /// A piece pushed into the receiver's pool: `value` is its slot.
    Push,
    /// Master–worker: the hub wants a part.
    Demand,
    /// The hub's ticket (global round robin), modulo P.
    Ticket,
    /// The hub's answer to a look-up (max-load): the PE, or [`NONE`].
    MostLoaded,
    /// To the hub: a ticket, please.
    HubTicket,
    /// To the hub: a load report (`value`: [`encode_load`]).
    HubReport,
    /// To the hub: which PE has the largest reported load?
    HubQuery,
    /// To the hub: a piece from the central pool, please.
    HubAsk,
    /// To the hub: a part for the central pool (`value`: its slot), or
    /// [`NONE`] for none.
    HubDeposit,
}

const TAGS: [Tag; 14] = [
    Tag::Request,
    Tag::Answer,
    Tag::Init,
    Tag::LoadQuery,
    Tag::Load,
    Tag::Push,
    Tag::Demand,
    Tag::Ticket,
    Tag::MostLoaded,
    Tag::HubTicket,
    Tag::HubReport,
    Tag::HubQuery,
    Tag::HubAsk,
    Tag::HubDeposit,
];

/// No piece, no PE: the `value` of an answer without work.
pub const NONE: u32 = u32::MAX;

/// The PE index that names the hub as a message's receiver.
pub const HUB: u32 = u32::MAX;

/// A load in 32 bits: the bits of the nearest `f32`, which order like the
/// loads they encode (exact up to 2²⁴, within 6·10⁻⁸ above).
///
/// ```
/// use treelb_sim::queue::{decode_load, encode_load};
/// assert_eq!(decode_load(encode_load(12345)), 12345);
/// assert!(encode_load(3_000_000_000) > encode_load(2_999_000_000));
/// ```
pub fn encode_load(load: u64) -> u32 {
    (load as f32).to_bits()
}

/// The load of [`encode_load`].
pub fn decode_load(bits: u32) -> u64 {
    f32::from_bits(bits) as u64
}

/// A message: its tag and sender packed into one word (PE indices fit 24
/// bits: the simulator runs at most 2²⁴ PEs), and one word of payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Msg {
    head: u32,
    /// The payload: a slot, a load, a ticket, a PE, by the tag.
    pub value: u32,
}

impl Msg {
    /// A message of kind `tag` from PE `from`.
    #[inline]
    pub fn new(tag: Tag, from: u32, value: u32) -> Msg {
        debug_assert!(from < 1 << 24, "PE {from} does not fit 24 bits");
        Msg { head: from | (tag as u32) << 24, value }
    }

    /// What the message is.
    #[inline]
    pub fn tag(self) -> Tag {
        TAGS[(self.head >> 24) as usize]
    }

    /// The sending PE.
    #[inline]
    pub fn from(self) -> u32 {
        self.head & 0xFF_FFFF
    }
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

/// Ticks per block: the first level of the wheel has one bucket per tick of
/// the current block.
const SPAN: u64 = 1 << 12;
/// Blocks ahead that the second level holds, one bucket per block.
const BLOCKS: u64 = 1 << 12;
const WORDS: usize = (SPAN / 64) as usize;
const BWORDS: usize = (BLOCKS / 64) as usize;

/// A priority queue of events, earliest first, and among equal times in the
/// order they were scheduled.
///
/// A binary heap over all pending events spends most of its time missing the
/// cache (tens of thousands of events, 15 levels). Most events of a load
/// balancing run are due within a few message times, and the others (pieces
/// that end much later) within a few thousand, so the queue is a two-level
/// *timing wheel*. Time is cut into blocks of 4096 ticks. The first level
/// has one FIFO bucket per tick of the current block; the second one bucket
/// per block for the next 4096 blocks (events unsorted, with their times);
/// a binary heap holds only what lies beyond (16.7 million ticks ahead).
/// Bitmaps find the next non-empty bucket. When the current block is
/// drained, the next non-empty block is poured into the first level, after
/// the far events that entered the second level's range have moved into it.
///
/// Every move happens before anything else can be scheduled at the moved
/// events' times, and moves keep order, so each first-level bucket holds its
/// events in the order they were scheduled: the queue yields exactly the
/// (time, sequence number) order of a heap.
///
/// ```
/// use treelb_sim::queue::{EventQueue, Kind};
/// let mut q = EventQueue::default();
/// q.push(5, Kind::Done { pe: 1, epoch: 0 });
/// q.push(3, Kind::Done { pe: 2, epoch: 0 });
/// q.push(1 << 30, Kind::Done { pe: 3, epoch: 0 });
/// q.push(1 << 20, Kind::Done { pe: 4, epoch: 0 });
/// q.push(5, Kind::Done { pe: 0, epoch: 0 });
/// let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|e| (e.time, e.kind)).collect();
/// assert_eq!(order, [
///     (3, Kind::Done { pe: 2, epoch: 0 }),
///     (5, Kind::Done { pe: 1, epoch: 0 }), // scheduled before PE 0's
///     (5, Kind::Done { pe: 0, epoch: 0 }),
///     (1 << 20, Kind::Done { pe: 4, epoch: 0 }),
///     (1 << 30, Kind::Done { pe: 3, epoch: 0 }),
/// ]);
/// ```
#[derive(Debug)]
pub struct EventQueue {
    /// Bucket `t % SPAN` holds the events at time `t` of the current block.
    wheel: Vec<Vec<Kind>>,
    /// Bit `i` is set iff first-level bucket `i` is non-empty.
    occupied: [u64; WORDS],
    /// The current block, `now / SPAN`.
    block: u64,
    /// The time of the bucket being drained.
    now: Time,
    /// The next unread event of the current bucket.
    head: usize,
    /// Bucket `b % BLOCKS` holds the events of block `b`, for
    /// `block < b < block + BLOCKS`.
    blocks: Vec<Vec<(Time, Kind)>>,
    /// Bit `i` is set iff second-level bucket `i` is non-empty.
    block_occupied: [u64; BWORDS],
    /// Events of block `block + BLOCKS` or later.
    far: BinaryHeap<Reverse<Far>>,
    len: usize,
    seq: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            wheel: vec![Vec::new(); SPAN as usize],
            occupied: [0; WORDS],
            block: 0,
            now: 0,
            head: 0,
            blocks: vec![Vec::new(); BLOCKS as usize],
            block_occupied: [0; BWORDS],
            far: BinaryHeap::new(),
            len: 0,
            seq: 0,
        }
    }
}

/// The first set bit at index `from` or after, in `bits` (no wrap-around).
fn next_set(bits: &[u64], from: usize) -> Option<usize> {
    let mut w = from / 64;
    if w >= bits.len() {
        return None;
    }
    let mut word = bits[w] & (!0u64 << (from % 64));
    loop {
        if word != 0 {
            return Some(w * 64 + word.trailing_zeros() as usize);
        }
        w += 1;
        if w == bits.len() {
            return None;
        }
        word = bits[w];
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
        let b = time / SPAN;
        if b == self.block {
            self.put(time, kind);
        } else if b - self.block < BLOCKS {
            self.put_block(time, kind);
        } else {
            self.far.push(Reverse(Far { time, seq: self.seq, kind }));
        }
    }

    #[inline]
    fn put(&mut self, time: Time, kind: Kind) {
        let i = (time % SPAN) as usize;
        self.wheel[i].push(kind);
        self.occupied[i / 64] |= 1 << (i % 64);
    }

    #[inline]
    fn put_block(&mut self, time: Time, kind: Kind) {
        let i = ((time / SPAN) % BLOCKS) as usize;
        self.blocks[i].push((time, kind));
        self.block_occupied[i / 64] |= 1 << (i % 64);
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        let i = (self.now % SPAN) as usize;
        if let Some(&kind) = self.wheel[i].get(self.head) {
            self.head += 1;
            self.len -= 1;
            return Some(Event { time: self.now, kind });
        }
        self.pop_slow()
    }

    /// The event [`pop`](Self::pop) returns next, if it is due at the same
    /// time as the last one popped (so that its PE's state can be fetched
    /// into the cache while the current event is handled).
    #[inline]
    pub fn peek_same_time(&self) -> Option<&Kind> {
        self.wheel[(self.now % SPAN) as usize].get(self.head)
    }

    #[cold]
    fn pop_slow(&mut self) -> Option<Event> {
        // The current bucket is drained: empty it, keeping its memory.
        let i = (self.now % SPAN) as usize;
        self.wheel[i].clear();
        self.head = 0;
        self.occupied[i / 64] &= !(1 << (i % 64));
        if self.len == 0 {
            return None;
        }
        if let Some(j) = next_set(&self.occupied, i + 1) {
            self.now = self.block * SPAN + j as Time;
            return self.pop();
        }
        // The block is drained: the next one is the nearest of the second
        // level's non-empty blocks and the far heap's first.
        let cur = (self.block % BLOCKS) as usize;
        let near = next_set(&self.block_occupied, cur + 1)
            .map(|j| j - cur)
            .or_else(|| {
                next_set(&self.block_occupied, 0).filter(|&j| j < cur).map(|j| j + BLOCKS as usize - cur)
            })
            .map(|d| self.block + d as u64);
        let far = self.far.peek().map(|Reverse(f)| f.time / SPAN);
        let next = match (near, far) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b).expect("pending events are somewhere"),
        };
        self.block = next;
        // Far events whose block entered the second level move there first,
        // then the new block moves into the first level.
        while let Some(Reverse(f)) = self.far.peek() {
            if f.time / SPAN - self.block >= BLOCKS {
                break;
            }
            let Reverse(f) = self.far.pop().expect("peeked");
            self.put_block(f.time, f.kind);
        }
        let bi = (self.block % BLOCKS) as usize;
        let mut moving = std::mem::take(&mut self.blocks[bi]);
        self.block_occupied[bi / 64] &= !(1 << (bi % 64));
        for (t, kind) in moving.drain(..) {
            self.put(t, kind);
        }
        self.blocks[bi] = moving;
        let j = next_set(&self.occupied, 0).expect("the new block has events");
        self.now = self.block * SPAN + j as Time;
        self.pop()
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
                let ahead = match rnd() % 20 {
                    0 => rnd() % (3 * SPAN * BLOCKS),
                    1 => rnd() % (4 * SPAN),
                    2 => rnd() % (BLOCKS * SPAN / 8),
                    3..=6 => 0,
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
