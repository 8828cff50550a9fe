//! Per-PE request and reply slots: the only state PEs share besides the
//! termination counter.
//!
//! Every PE owns one [`Mailbox`]:
//!
//! * `request` holds the index of one PE that asks this PE for work, the
//!   master's [`DEMAND`] for a part (master–worker), or [`NO_REQUEST`]. A requester claims the slot with a compare-and-swap from
//!   `NO_REQUEST` to its own index; if another request is already there, the
//!   claim fails at once and counts as a rejected request (the owner would
//!   have answered it "no work" after serving the first one anyway). The owner
//!   checks the slot every Δt units of work with one relaxed load — the whole
//!   cost of polling on the busy path — and takes a request with a swap.
//!   [`ABORT`] in the slot tells the owner to stop at once (a PE panicked).
//!   [`CLOSED`]: the owner is idle and would answer any request "no work"
//!   (the strategies whose idle PEs always refuse, see [`Mailbox::close`]);
//!   a requester's claim fails at once, as if the slot were taken, and
//!   the owner is not woken for nothing.
//! * `reply` is where the PE that took this PE's request answers it: exactly
//!   one answer per accepted request, either a piece of work or "no work".
//!
//! ## Memory ordering
//! The requester publishes "I am waiting" (`reply_state = WAITING`, relaxed)
//! before its compare-and-swap (`AcqRel`) makes the request visible; the owner
//! takes the request with an `Acquire` swap, so it sees `WAITING` and cannot
//! have its answer overwritten. The answer's payload is written under the
//! reply mutex before `reply_state` is stored with `Release`; the requester
//! reads the state with `Acquire` before it locks the mutex to take the piece.

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicU8, AtomicU64, AtomicUsize, Mutex, Ordering};

/// The request slot holds no request.
pub(crate) const NO_REQUEST: usize = usize::MAX;
/// The request slot tells its owner to stop: the run is being aborted.
pub(crate) const ABORT: usize = usize::MAX - 1;
/// The request slot holds the master's demand for a part (master–worker).
pub(crate) const DEMAND: usize = usize::MAX - 2;
/// The request slot is closed: its owner is idle and refuses every request.
pub(crate) const CLOSED: usize = usize::MAX - 3;

const WAITING: u8 = 0;
const NO_WORK: u8 = 1;
const WORK: u8 = 2;

/// The answer to a request for work, as the requester sees it.
pub(crate) enum Reply<W> {
    /// No answer yet.
    Waiting,
    /// The asked PE had nothing to give.
    NoWork,
    /// A piece of work.
    Work(W),
}

/// What the owner found in its request slot.
pub(crate) enum Request {
    /// The PE with this index asks for work.
    From(usize),
    /// The master wants a part for the central pool.
    Demand,
    /// Stop: the run is aborted.
    Abort,
}

/// One PE's request and reply slots, each on its own cache line, and its
/// progress counter for the monitor.
pub(crate) struct Mailbox<W> {
    request: CachePadded<AtomicUsize>,
    reply_state: CachePadded<AtomicU8>,
    reply: Mutex<Option<W>>,
    units: CachePadded<AtomicU64>,
}

impl<W> Mailbox<W> {
    pub(crate) fn new() -> Self {
        Mailbox {
            request: CachePadded::new(AtomicUsize::new(NO_REQUEST)),
            reply_state: CachePadded::new(AtomicU8::new(WAITING)),
            reply: Mutex::new(None),
            units: CachePadded::new(AtomicU64::new(0)),
        }
    }

    /// A mailbox whose request slot starts closed: its owner is idle until
    /// it works a piece (and opens the slot first), so that requests sent
    /// before its thread even started fail at once instead of waiting for
    /// it.
    pub(crate) fn closed() -> Self {
        let mailbox = Mailbox::new();
        mailbox.request.store(CLOSED, Ordering::Relaxed);
        mailbox
    }

    /// Owner: is anything in the request slot? One relaxed load; the busy
    /// path calls this every Δt units of work.
    #[inline]
    pub(crate) fn has_request(&self) -> bool {
        self.request.load(Ordering::Relaxed) != NO_REQUEST
    }

    /// Owner: takes what is in the request slot, if anything.
    #[inline]
    pub(crate) fn take_request(&self) -> Option<Request> {
        if !self.has_request() {
            return None;
        }
        match self.request.load(Ordering::Relaxed) {
            ABORT => Some(Request::Abort),
            CLOSED => None,
            _ => match self.request.swap(NO_REQUEST, Ordering::Acquire) {
                NO_REQUEST => None,
                ABORT => Some(Request::Abort),
                DEMAND => Some(Request::Demand),
                from => Some(Request::From(from)),
            },
        }
    }

    /// Requester `me`: asks the owner of this mailbox for work. Returns false
    /// if the slot was taken (another request is pending, or the run aborts).
    /// The requester must have called [`Mailbox::expect_reply`] on its own
    /// mailbox first.
    pub(crate) fn post_request(&self, me: usize) -> bool {
        self.request.compare_exchange(NO_REQUEST, me, Ordering::AcqRel, Ordering::Relaxed).is_ok()
    }

    /// Owner, idle: closes the slot, so that requests fail at once instead
    /// of waiting for an answer that can only be "no work" (a refused claim
    /// counts as "no work" at the requester, see [`Mailbox::post_request`]).
    /// Only an empty slot closes, so no request is lost: if the slot holds
    /// one, it is taken out and returned (`Err`) for the owner to answer
    /// before it tries again; the abort mark is returned and stays. While
    /// the slot is closed no request arrives: requests are claimed only
    /// from an empty slot.
    pub(crate) fn close(&self) -> Result<(), Request> {
        match self.request.compare_exchange(NO_REQUEST, CLOSED, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) | Err(CLOSED) => Ok(()),
            Err(ABORT) => Err(Request::Abort),
            // A request: take it (the swap sees the latest value, which may
            // be the abort mark by now).
            Err(_) => match self.request.swap(NO_REQUEST, Ordering::Acquire) {
                ABORT => {
                    self.abort();
                    Err(Request::Abort)
                }
                DEMAND => Err(Request::Demand),
                NO_REQUEST | CLOSED => unreachable!("only the owner empties or closes its slot"),
                from => Err(Request::From(from)),
            },
        }
    }

    /// Owner, about to work: opens a closed slot. An abort mark stays (the
    /// owner's next poll finds it).
    pub(crate) fn open(&self) {
        let _ = self.request.compare_exchange(CLOSED, NO_REQUEST, Ordering::AcqRel, Ordering::Relaxed);
    }

    /// The master asks the owner for a part. Returns false if the slot was
    /// taken (the run aborts).
    pub(crate) fn post_demand(&self) -> bool {
        self.request.compare_exchange(NO_REQUEST, DEMAND, Ordering::AcqRel, Ordering::Relaxed).is_ok()
    }

    /// Tells the owner to stop.
    pub(crate) fn abort(&self) {
        // A swap rather than a store: every write to the slot is then a
        // read-modify-write, one chain in which the abort comes after the
        // writes it overwrites. Under the C++ memory model a store would do
        // the same, but loom 0.7 models a plain store that races with the
        // owner's swap as unordered with it, and lets the owner's loads miss
        // the abort forever. It costs nothing: once per PE, when a run stops
        // early.
        self.request.swap(ABORT, Ordering::Release);
    }

    /// Requester: prepares its own reply slot before posting a request.
    pub(crate) fn expect_reply(&self) {
        self.reply_state.store(WAITING, Ordering::Relaxed);
    }

    /// Answerer: puts the answer to a request into the requester's mailbox.
    pub(crate) fn answer(&self, piece: Option<W>) {
        match piece {
            Some(piece) => {
                *self.reply.lock().unwrap_or_else(|e| e.into_inner()) = Some(piece);
                self.reply_state.store(WORK, Ordering::Release);
            }
            None => self.reply_state.store(NO_WORK, Ordering::Release),
        }
    }

    /// Requester: the answer to its pending request, if it has arrived.
    #[inline]
    pub(crate) fn reply(&self) -> Reply<W> {
        match self.reply_state.load(Ordering::Acquire) {
            WAITING => Reply::Waiting,
            NO_WORK => Reply::NoWork,
            _ => match self.reply.lock().unwrap_or_else(|e| e.into_inner()).take() {
                Some(piece) => Reply::Work(piece),
                None => unreachable!("a WORK reply always carries a piece"),
            },
        }
    }

    /// Owner: publishes its work-unit count for the monitor.
    #[inline]
    pub(crate) fn publish_units(&self, units: u64) {
        self.units.store(units, Ordering::Relaxed);
    }

    /// Monitor: the owner's last published work-unit count.
    pub(crate) fn units(&self) -> u64 {
        self.units.load(Ordering::Relaxed)
    }
}
