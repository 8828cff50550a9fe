//! Centralized master–worker ([Lecture, load balancing] "Dynamic Load Balancing": "a
//! centralized priority queue of tasks, administered by a master assigning
//! tasks to slaves … assign larger tasks at the beginning and smaller tasks
//! near the end").
//!
//! The master is the run's [`Hub`](super::Hub): it holds the central pool,
//! ordered largest piece first (by [`Work::load`](crate::Work::load)), then
//! oldest. Every PE is a worker:
//!
//! * an idle worker asks the master for a piece ([`Action::AskMaster`]); the
//!   master hands it the largest piece of the pool, or, if the pool is
//!   empty, keeps it waiting;
//! * while workers wait and the pool is empty, the master *demands* a part
//!   from busy workers, one demand per waiting worker, round robin over the
//!   workers it believes busy (those it handed a piece to, and those that
//!   started with one); a demanded worker splits its piece at its next poll
//!   and deposits one part into the central pool ([`Action::Deposit`]). If
//!   its piece does not split yet (a search's root has one open node) it
//!   keeps the demand and tries again after each slice; if it has no piece,
//!   or its piece ends first, it tells the master it has none
//!   ([`Action::NoPart`]) and is not asked again until it gets a piece;
//! * a deposited part goes straight to the worker that has waited longest.
//!
//! Every piece that moves passes through the master: the scheme's
//! bottleneck, and the reason it is the baseline for the distributed ones.

use std::collections::{BinaryHeap, VecDeque};

use super::{Action, Actions, Balance, Event, Tally, emit};

/// The machine of a worker under master–worker.
///
/// ```
/// use treelb::strategy::{Action, Actions, Balance, Event};
/// use treelb::strategy::master::Worker;
/// let mut w = Worker::new();
/// let mut out = Actions::new();
/// w.on(Event::Idle { local_work: false }, &mut out);
/// w.on(Event::Idle { local_work: false }, &mut out); // still waiting: nothing new
/// assert_eq!(out.to_vec(), [Action::AskMaster]);
/// out.clear();
/// w.on(Event::Demand { busy: true }, &mut out);
/// assert_eq!(out.to_vec(), [Action::Deposit]);
/// out.clear();
/// w.on(Event::Served { given: false, load: 1 }, &mut out); // atomic for now
/// w.on(Event::Slice { load: 3 }, &mut out); // try again
/// assert_eq!(out.to_vec(), [Action::Deposit]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Worker {
    /// Asked the master and not handed a piece yet.
    waiting: bool,
    /// A demand of the master this worker has not answered yet.
    demanded: bool,
    tally: Tally,
}

impl Worker {
    /// A worker.
    pub fn new() -> Self {
        Worker::default()
    }
}

impl Balance for Worker {
    fn on(&mut self, event: Event, out: &mut Actions) {
        match event {
            Event::Idle { .. } if !self.waiting => {
                self.waiting = true;
                emit(out, &mut self.tally, Action::AskMaster);
            }
            Event::Answer { work, .. } => {
                self.waiting = false;
                self.tally.requests_failed += u64::from(!work);
            }
            // The master wants a part: the driver splits the piece.
            Event::Demand { busy } => {
                self.tally.requests_received += 1;
                if busy {
                    self.demanded = true;
                    emit(out, &mut self.tally, Action::Deposit);
                } else {
                    emit(out, &mut self.tally, Action::NoPart);
                }
            }
            // Not given: the piece does not split yet; try after the next
            // slice.
            Event::Served { given: true, .. } => self.demanded = false,
            Event::Slice { .. } if self.demanded => emit(out, &mut self.tally, Action::Deposit),
            Event::Exhausted if self.demanded => {
                self.demanded = false;
                emit(out, &mut self.tally, Action::NoPart);
            }
            Event::Request { from, .. } => {
                self.tally.requests_received += 1;
                emit(out, &mut self.tally, Action::Refuse { to: from });
            }
            Event::LoadQuery { from } => emit(out, &mut self.tally, Action::ReplyLoad { to: from }),
            _ => {}
        }
    }

    /// A demand is answered after a slice once the piece splits.
    fn wants_slices(&self) -> bool {
        true
    }

    fn tally(&self) -> Tally {
        self.tally
    }
}

/// A piece in the central pool: largest load first, then oldest.
#[derive(Debug)]
struct Ranked<T> {
    load: u64,
    seq: u64,
    piece: T,
}

impl<T> PartialEq for Ranked<T> {
    fn eq(&self, other: &Self) -> bool {
        (self.load, self.seq) == (other.load, other.seq)
    }
}
impl<T> Eq for Ranked<T> {}
impl<T> PartialOrd for Ranked<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Ranked<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.load.cmp(&other.load).then(other.seq.cmp(&self.seq))
    }
}

/// What the master asks its driver to do.
#[derive(Debug, PartialEq, Eq)]
pub enum Order<T> {
    /// Hand `piece` to worker `to` (the answer to its request).
    Hand {
        /// The worker.
        to: usize,
        /// The piece.
        piece: T,
    },
    /// Ask busy worker `to` for a part of its piece.
    Demand {
        /// The worker.
        to: usize,
    },
}

/// The master's state: the central pool, the waiting workers, the workers
/// it believes busy, the demands out.
///
/// ```
/// use treelb::strategy::master::{Master, Order};
/// let mut m: Master<&str> = Master::new(3, |pe| pe == 0); // PE 0 holds the root
/// let mut out = Vec::new();
/// m.ask(1, &mut out); // PE 1 waits; the pool is empty: demand from PE 0
/// assert_eq!(out, [Order::Demand { to: 0 }]);
/// out.clear();
/// m.deposit(0, Some(("part", 7)), &mut out);
/// assert_eq!(out, [Order::Hand { to: 1, piece: "part" }]);
/// ```
#[derive(Debug)]
pub struct Master<T> {
    pool: BinaryHeap<Ranked<T>>,
    seq: u64,
    /// Workers waiting for a piece, longest first.
    waiting: VecDeque<usize>,
    /// Workers believed to hold a piece that may split.
    busy: Vec<bool>,
    /// Workers with a demand out.
    demanded: Vec<bool>,
    /// Demands out.
    out: usize,
    /// Workers to demand from next, in turn: every worker that is busy
    /// and has no demand out is in it (and others may be, until they come
    /// up: they are skipped then), each at most once.
    turns: VecDeque<usize>,
    /// Whether a worker is in `turns`.
    in_turns: Vec<bool>,
}

impl<T> Master<T> {
    /// The master of `p` workers; `busy(pe)` says who starts with a piece.
    pub fn new(p: usize, busy: impl Fn(usize) -> bool) -> Self {
        let busy: Vec<bool> = (0..p).map(busy).collect();
        Master {
            pool: BinaryHeap::new(),
            seq: 0,
            waiting: VecDeque::new(),
            turns: (0..p).filter(|&w| busy[w]).collect(),
            in_turns: busy.clone(),
            busy,
            demanded: vec![false; p],
            out: 0,
        }
    }

    /// Pieces in the central pool.
    pub fn pooled(&self) -> usize {
        self.pool.len()
    }

    /// Demands sent and not answered yet.
    pub fn demands_out(&self) -> usize {
        self.out
    }

    /// Drops every piece of the central pool (the computation is decided:
    /// the rest of the work is not needed); returns how many.
    pub fn discard_pooled(&mut self) -> usize {
        let n = self.pool.len();
        self.pool.clear();
        n
    }

    /// The run is over: forget the waiting workers, so that no demand
    /// follows (answers to the demands already out are still taken).
    pub fn close(&mut self) {
        self.waiting.clear();
    }

    fn hand(&mut self, to: usize, piece: T, out: &mut Vec<Order<T>>) {
        self.busy[to] = true;
        self.enqueue(to);
        out.push(Order::Hand { to, piece });
    }

    /// Puts worker `w` at the back of the turns, unless it is in them.
    fn enqueue(&mut self, w: usize) {
        if !std::mem::replace(&mut self.in_turns[w], true) {
            self.turns.push_back(w);
        }
    }

    /// Worker `from` asks for a piece.
    pub fn ask(&mut self, from: usize, out: &mut Vec<Order<T>>) {
        self.busy[from] = false;
        match self.pool.pop() {
            Some(r) => self.hand(from, r.piece, out),
            None => {
                self.waiting.push_back(from);
                self.demand(out);
            }
        }
    }

    /// Worker `from` answers a demand: a part of its piece with its load, or
    /// nothing (it holds no piece, or the piece does not split).
    pub fn deposit(&mut self, from: usize, part: Option<(T, u64)>, out: &mut Vec<Order<T>>) {
        if std::mem::replace(&mut self.demanded[from], false) {
            self.out -= 1;
        }
        match part {
            Some((piece, load)) => match self.waiting.pop_front() {
                Some(to) => self.hand(to, piece, out),
                None => {
                    self.seq += 1;
                    self.pool.push(Ranked { load, seq: self.seq, piece });
                }
            },
            // Not splittable now: not demanded again until it gets a piece.
            None => self.busy[from] = false,
        }
        if self.busy[from] {
            self.enqueue(from);
        }
        self.demand(out);
    }

    /// One demand per waiting worker, to busy workers in turn.
    ///
    /// Amortized O(1) per call: a worker enters the turns only when it
    /// becomes a candidate (handed a piece, or its demand answered while
    /// busy) and leaves them when it comes up, so the entries skipped —
    /// workers that stopped being candidates while queued — are paid for
    /// by their entering.
    fn demand(&mut self, out: &mut Vec<Order<T>>) {
        while self.out < self.waiting.len() {
            let Some(w) = self.turns.pop_front() else { break };
            self.in_turns[w] = false;
            if self.busy[w] && !self.demanded[w] {
                self.demanded[w] = true;
                self.out += 1;
                out.push(Order::Demand { to: w });
            }
        }
    }
}
