//! The strategies where work is *pushed* rather than stolen: work sharing
//! (randomized, extreme, two-choice and always-go-left placement),
//! centralized master–worker, and static assignment.
//!
//! Every PE owns a pool of waiting pieces (master–worker: one central pool,
//! largest piece first). A PE works one piece at a time; when it runs out it
//! takes the oldest piece of its pool, and only with an empty pool is it
//! idle — an idle PE asks nobody, it waits for a push. What a busy PE does
//! every Δt units of work (the same place where random polling checks for a
//! request) is the strategy:
//!
//! * `extreme-work-sharing` — splits its piece and pushes the part to a PE
//!   chosen at random, every time (`002_…`: every new subproblem goes to a
//!   random pool; here, every Δt's worth of it). The most uniform load, the
//!   most traffic.
//! * `work-sharing` — offers a part to a PE chosen at random; the offer is
//!   declined if that PE's pool already holds a piece (`002_…`: "even if
//!   the work assignment can be rejected, the communication overhead
//!   increases"). Pools hold at most one piece, so a PE that runs out
//!   usually finds its next piece at once.
//! * `two-choice` — as work sharing, to the less loaded of two PEs chosen at
//!   random (load = pieces in its pool, then whether it is busy; ties at
//!   random).
//! * `always-go-left` — as two-choice, with one candidate from each half of
//!   the PEs and ties to the left half.
//! * `master-worker` — a busy PE splits only when some PE waits and the
//!   central pool is empty, and pushes the part into the central pool; idle
//!   PEs take the largest piece there (by [`Work::load`]).
//! * `static-block`, `static-cyclic`, `static-random` — the root is cut into
//!   at least [`STATIC_PIECES_PER_PE`] parts per PE before the run (by
//!   selective initialization, in one descent of the splitting tree:
//!   `treelb::init::selective_shares`), each part is
//!   assigned to one PE once, and nothing moves afterwards.
//!
//! Termination is the same live-piece counter as random polling (see
//! `termination`): a push counts its piece before the piece becomes
//! visible in a pool, and a piece is uncounted when it is exhausted.

use std::collections::{BinaryHeap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crossbeam_utils::CachePadded;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use treelb::placement;
use treelb::strategy::VictimSelector;
use treelb::{PeStats, Reduce, Strategy, Work};

use crate::Shared;
use crate::backoff::{Backoff, RETRY_PATIENCE};
use crate::pe::{Exit, Phases, run_phases};
use crate::trace::{State, Tracer};

/// Parts per PE that static assignment cuts the root into (at least; the
/// number of parts is a power of two).
pub const STATIC_PIECES_PER_PE: usize = 16;

/// Whether a strategy runs on pools (this module) rather than by stealing.
pub(crate) fn uses_pools(strategy: Strategy) -> bool {
    matches!(
        strategy,
        Strategy::WorkSharing
            | Strategy::ExtremeWorkSharing
            | Strategy::TwoChoice
            | Strategy::AlwaysGoLeft
            | Strategy::MasterWorker
            | Strategy::StaticBlock
            | Strategy::StaticCyclic
            | Strategy::StaticRandom
    )
}

/// One PE's pool: waiting pieces, oldest first, with the PE that pushed
/// each; its length and whether its owner is busy, readable without the
/// lock by PEs that choose where to push.
pub(crate) struct Pool<W> {
    queue: Mutex<VecDeque<(W, usize)>>,
    len: CachePadded<AtomicUsize>,
    busy: AtomicBool,
}

impl<W> Pool<W> {
    pub(crate) fn new() -> Self {
        Pool {
            queue: Mutex::new(VecDeque::new()),
            len: CachePadded::new(AtomicUsize::new(0)),
            busy: AtomicBool::new(false),
        }
    }

    fn push(&self, piece: W, from: usize) {
        let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        q.push_back((piece, from));
        self.len.store(q.len(), Ordering::Relaxed);
    }

    fn pop(&self) -> Option<(W, usize)> {
        if self.len.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        let item = q.pop_front();
        self.len.store(q.len(), Ordering::Relaxed);
        item
    }

    /// The load that two-choice and always-go-left compare: pieces waiting,
    /// then whether the owner is busy.
    fn load(&self) -> u64 {
        2 * self.len.load(Ordering::Relaxed) as u64 + u64::from(self.busy.load(Ordering::Relaxed))
    }
}

/// A piece in the central pool of master–worker, ordered by load (largest
/// first), then by arrival (oldest first).
struct Ranked<W> {
    load: u64,
    seq: u64,
    piece: W,
    /// Split off by a busy PE (not the root).
    sent: bool,
}

impl<W> PartialEq for Ranked<W> {
    fn eq(&self, other: &Self) -> bool {
        (self.load, self.seq) == (other.load, other.seq)
    }
}
impl<W> Eq for Ranked<W> {}
impl<W> PartialOrd for Ranked<W> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<W> Ord for Ranked<W> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.load.cmp(&other.load).then(other.seq.cmp(&self.seq))
    }
}

/// The central pool of master–worker and the number of PEs waiting on it.
pub(crate) struct Central<W> {
    heap: Mutex<(BinaryHeap<Ranked<W>>, u64)>,
    len: CachePadded<AtomicUsize>,
    waiting: CachePadded<AtomicUsize>,
}

impl<W: Work> Central<W> {
    pub(crate) fn new() -> Self {
        Central {
            heap: Mutex::new((BinaryHeap::new(), 0)),
            len: CachePadded::new(AtomicUsize::new(0)),
            waiting: CachePadded::new(AtomicUsize::new(0)),
        }
    }

    fn push(&self, piece: W, sent: bool) {
        let load = piece.load();
        let mut guard = self.heap.lock().unwrap_or_else(|e| e.into_inner());
        let (heap, seq) = &mut *guard;
        *seq += 1;
        heap.push(Ranked { load, seq: *seq, piece, sent });
        self.len.store(heap.len(), Ordering::Relaxed);
    }

    fn pop(&self) -> Option<(W, bool)> {
        if self.len.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let mut guard = self.heap.lock().unwrap_or_else(|e| e.into_inner());
        let item = guard.0.pop();
        self.len.store(guard.0.len(), Ordering::Relaxed);
        item.map(|r| (r.piece, r.sent))
    }
}

/// One PE of a pool-based strategy.
pub(crate) struct PoolPe<'a, W: Work> {
    me: usize,
    p: usize,
    shared: &'a Shared<W>,
    budget: u64,
    strategy: Strategy,
    victims: VictimSelector,
    rng: SmallRng,
    pub(crate) acc: W::Output,
    pub(crate) stats: PeStats,
    /// The recorder of state changes, if the run is traced.
    pub(crate) tracer: Option<Tracer>,
}

impl<'a, W: Work> PoolPe<'a, W> {
    pub(crate) fn new(me: usize, shared: &'a Shared<W>, budget: u64, strategy: Strategy, seed: u64) -> Self {
        let p = shared.mailboxes.len();
        PoolPe {
            me,
            p,
            shared,
            budget,
            strategy,
            victims: VictimSelector::new(strategy, me, p, seed),
            rng: SmallRng::seed_from_u64(seed ^ (me as u64).wrapping_mul(0xA076_1D64_78BD_642F) ^ 0x9001),
            acc: W::Output::default(),
            stats: PeStats { pe: me, ..PeStats::default() },
            tracer: None,
        }
    }

    /// A state change, for the trace (nothing if the run is not traced).
    #[inline]
    pub(crate) fn mark(&mut self, state: State) {
        if let Some(tracer) = &mut self.tracer {
            tracer.enter(state);
        }
    }

    /// Counts work done outside the loop (selective initialization).
    pub(crate) fn add_initial(&mut self, output: W::Output, units: u64) {
        self.acc.merge(output);
        self.stats.work_units += units;
    }

    /// Puts a piece into this PE's own pool (or the central one). The piece
    /// must already be counted as live.
    pub(crate) fn keep(&self, piece: W) {
        match &self.shared.central {
            Some(central) if self.strategy == Strategy::MasterWorker => central.push(piece, false),
            _ => self.shared.pools[self.me].push(piece, self.me),
        }
    }

    /// Runs the PE until termination, starting with `piece`.
    pub(crate) fn run(&mut self, piece: Option<W>) -> Exit {
        run_phases(self, piece)
    }

    /// The next piece: from the own pool, or the central one.
    fn take(&mut self) -> Option<W> {
        if self.strategy == Strategy::MasterWorker {
            let central = self.shared.central.as_ref().expect("master-worker has a central pool");
            let (piece, sent) = central.pop()?;
            if sent {
                self.stats.pieces_received += 1;
            }
            return Some(piece);
        }
        let (piece, from) = self.shared.pools[self.me].pop()?;
        if from != self.me {
            self.stats.pieces_received += 1;
        }
        Some(piece)
    }

    /// Idle: waits for a piece in the pool, or for the end.
    fn find_work(&mut self) -> Result<W, Exit> {
        if let Some(piece) = self.take() {
            return Ok(piece);
        }
        let central = self.shared.central.as_ref().filter(|_| self.strategy == Strategy::MasterWorker);
        if let Some(c) = central {
            c.waiting.fetch_add(1, Ordering::Relaxed);
        }
        // Master–worker: waiting is a request to the busy PEs.
        self.mark(if central.is_some() { State::Requesting } else { State::Idle });
        let mut backoff = Backoff::new(RETRY_PATIENCE);
        let result = loop {
            if let Some(piece) = self.take() {
                break Ok(piece);
            }
            if self.shared.termination.is_done() {
                break Err(if self.shared.aborted() { Exit::Aborted } else { Exit::Done });
            }
            backoff.wait();
        };
        if let Some(c) = central {
            c.waiting.fetch_sub(1, Ordering::Relaxed);
        }
        result
    }

    /// Busy, marked as such for the placement of others' pushes.
    fn busy_on(&mut self, work: W) -> Option<Exit> {
        self.mark(State::Working);
        let pool = &self.shared.pools[self.me];
        pool.busy.store(true, Ordering::Relaxed);
        let exit = self.work_on(work);
        pool.busy.store(false, Ordering::Relaxed);
        exit
    }

    /// Busy: works the piece in slices of Δt and shares after each slice.
    fn work_on(&mut self, mut work: W) -> Option<Exit> {
        let mailbox = &self.shared.mailboxes[self.me];
        loop {
            let progress = work.work(self.budget, &mut self.acc);
            self.stats.work_units += progress.used(self.budget);
            mailbox.publish_units(self.stats.work_units);
            if progress.is_exhausted() {
                return None;
            }
            if work.should_stop() {
                self.shared.stop_all();
                return Some(Exit::Aborted);
            }
            if self.shared.termination.is_done() {
                // Only an abort ends the run while this piece is live.
                return Some(Exit::Aborted);
            }
            self.share(&mut work);
        }
    }

    /// What the strategy does between two slices.
    fn share(&mut self, work: &mut W) {
        match self.strategy {
            Strategy::ExtremeWorkSharing => {
                if let Some(target) = self.victims.random_other() {
                    self.push_to(target, work);
                }
            }
            Strategy::WorkSharing => {
                if let Some(target) = self.victims.random_other() {
                    self.offer(target, work);
                }
            }
            Strategy::TwoChoice => {
                if self.p < 2 {
                    return;
                }
                let a = self.victims.random_other().expect("p ≥ 2");
                let b = self.victims.random_other().expect("p ≥ 2");
                let loads = [self.shared.pools[a].load(), self.shared.pools[b].load()];
                let target = [a, b][placement::least_loaded(&loads, false, &mut self.rng)];
                self.offer(target, work);
            }
            Strategy::AlwaysGoLeft => {
                let candidates = placement::group_candidates(self.me, self.p, 2, &mut self.rng);
                if candidates.is_empty() {
                    return;
                }
                let loads: Vec<u64> = candidates.iter().map(|&c| self.shared.pools[c].load()).collect();
                let target = candidates[placement::least_loaded(&loads, true, &mut self.rng)];
                self.offer(target, work);
            }
            Strategy::MasterWorker => {
                let central = self.shared.central.as_ref().expect("master-worker has a central pool");
                if central.waiting.load(Ordering::Relaxed) > 0 && central.len.load(Ordering::Relaxed) == 0 {
                    self.stats.requests_received += 1;
                    self.mark(State::Splitting);
                    if let Some(part) = work.split() {
                        self.stats.splits += 1;
                        self.stats.pieces_sent += 1;
                        self.shared.termination.piece_sent();
                        self.mark(State::Sending);
                        central.push(part, true);
                    }
                    self.mark(State::Working);
                }
            }
            _ => {} // static: nothing moves
        }
    }

    /// An offer that the target declines if its pool holds a piece.
    fn offer(&mut self, target: usize, work: &mut W) {
        self.stats.requests_sent += 1;
        if self.shared.pools[target].len.load(Ordering::Relaxed) != 0 {
            self.stats.requests_failed += 1;
            return;
        }
        self.push_to(target, work);
    }

    /// Splits the piece and pushes the part to `target`'s pool.
    fn push_to(&mut self, target: usize, work: &mut W) {
        self.mark(State::Splitting);
        if let Some(part) = work.split() {
            self.stats.splits += 1;
            self.stats.pieces_sent += 1;
            // Counted before it becomes visible: see `termination`.
            self.shared.termination.piece_sent();
            self.mark(State::Sending);
            self.shared.pools[target].push(part, self.me);
        }
        self.mark(State::Working);
    }
}

impl<W: Work> Phases<W> for PoolPe<'_, W> {
    fn shared(&self) -> &Shared<W> {
        self.shared
    }

    fn stats(&mut self) -> &mut PeStats {
        &mut self.stats
    }

    fn work_on(&mut self, work: W) -> Option<Exit> {
        self.busy_on(work)
    }

    fn find_work(&mut self) -> Result<W, Exit> {
        PoolPe::find_work(self)
    }
}
