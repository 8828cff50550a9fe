//! The PE loop: Figure 1 of `003_…` in one function.
//!
//! ```text
//! loop
//!     while I ≠ ∅:  work(I, Δt); if a request from PE j is pending:
//!                       split I, send one part to j (or "no work" if atomic)
//!     while I = ∅:  send a request to a random PE k; while waiting for the
//!                   answer, answer every request with "no work"
//! until termination
//! ```

use std::sync::atomic::Ordering;
use std::time::Instant;

use treelb::load::LazyReporter;
use treelb::strategy::VictimSelector;
use treelb::{PeStats, Reduce, Work};

use crate::Shared;
use crate::backoff::{Backoff, REPLY_PATIENCE, RETRY_PATIENCE};
use crate::mailbox::{Reply, Request};
use crate::trace::{State, Tracer};

/// The two phases of a PE, busy and idle, as [`run_phases`] alternates
/// them: the stealing PE here and the pool PE of `pool` differ only in what
/// each phase does.
pub(crate) trait Phases<W: Work> {
    /// The run's shared state.
    fn shared(&self) -> &Shared<W>;
    /// The PE's counters.
    fn stats(&mut self) -> &mut PeStats;
    /// Busy: works `work` until it is exhausted (`None`) or the run ends.
    fn work_on(&mut self, work: W) -> Option<Exit>;
    /// After a piece is exhausted, before it is uncounted.
    fn piece_done(&mut self) {}
    /// Idle: the next piece, or why there is none.
    fn find_work(&mut self) -> Result<W, Exit>;
}

/// Runs a PE until termination, starting with `piece`: busy while it holds
/// a piece, idle while it looks for one, with the time of each phase added
/// to its statistics.
pub(crate) fn run_phases<W: Work, P: Phases<W>>(pe: &mut P, mut piece: Option<W>) -> Exit {
    let mut since = Instant::now();
    let mut lap = || {
        let now = Instant::now();
        let d = now - since;
        since = now;
        d
    };
    loop {
        if let Some(work) = piece.take() {
            let exit = pe.work_on(work);
            pe.stats().busy += lap();
            if let Some(exit) = exit {
                return exit;
            }
            pe.piece_done();
            if pe.shared().termination.piece_exhausted() {
                pe.shared().wake_monitor();
                return Exit::Done;
            }
        }
        let found = pe.find_work();
        pe.stats().idle += lap();
        match found {
            Ok(work) => piece = Some(work),
            Err(exit) => return exit,
        }
    }
}

/// Why a PE's loop ended.
pub(crate) enum Exit {
    /// Termination was detected.
    Done,
    /// The run was aborted.
    Aborted,
}

/// One processing element: its index, its piece, its output and counters.
pub(crate) struct Pe<'a, W: Work> {
    me: usize,
    shared: &'a Shared<W>,
    budget: u64,
    victims: VictimSelector,
    pub(crate) acc: W::Output,
    pub(crate) stats: PeStats,
    /// Max-load visiting: when this PE's load is due to be reported.
    pub(crate) reporter: Option<LazyReporter>,
    /// The recorder of state changes, if the run is traced.
    pub(crate) tracer: Option<Tracer>,
}

impl<'a, W: Work> Pe<'a, W> {
    pub(crate) fn new(me: usize, shared: &'a Shared<W>, budget: u64, victims: VictimSelector) -> Self {
        Pe {
            me,
            shared,
            budget,
            victims,
            acc: W::Output::default(),
            stats: PeStats { pe: me, ..PeStats::default() },
            reporter: None,
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

    /// Runs the PE until termination, starting with `piece`.
    pub(crate) fn run(&mut self, piece: Option<W>) -> Exit {
        run_phases(self, piece)
    }

    /// Busy phase: works the piece in slices of Δt, serving requests between
    /// slices, until it is exhausted (`None`) or the run aborts.
    fn work_on(&mut self, mut work: W) -> Option<Exit> {
        self.mark(State::Working);
        let mailbox = &self.shared.mailboxes[self.me];
        loop {
            let progress = work.work(self.budget, &mut self.acc);
            self.stats.work_units += progress.used(self.budget);
            mailbox.publish_units(self.stats.work_units);
            if progress.is_exhausted() {
                return None;
            }
            if work.should_stop() {
                // The computation is decided: stop everyone, drop the rest.
                self.shared.stop_all();
                return Some(Exit::Aborted);
            }
            // Max-load visiting: a lazy report when ⌈log_ρ L⌉ has grown.
            if let Some(reporter) = &self.reporter {
                let load = work.load();
                if reporter.is_due(load) {
                    self.report(load);
                }
            }
            // The poll: one relaxed load unless somebody asked.
            if mailbox.has_request() {
                match mailbox.take_request() {
                    Some(Request::From(requester)) => self.serve(requester, &mut work),
                    Some(Request::Abort) => return Some(Exit::Aborted),
                    None => {}
                }
            }
        }
    }

    /// Splits the piece for `requester` and sends one part, or "no work".
    fn serve(&mut self, requester: usize, work: &mut W) {
        self.stats.requests_received += 1;
        self.mark(State::Splitting);
        let part = work.split();
        if part.is_some() {
            self.stats.splits += 1;
            self.stats.pieces_sent += 1;
            // Counted before it becomes visible: see `termination`.
            self.shared.termination.piece_sent();
        }
        if self.reporter.is_some() {
            // The visit changed this PE's load: report the new one (0 if the
            // piece cannot be split, so that idle PEs stop visiting it).
            let load = if part.is_some() { work.load() } else { 0 };
            self.report(load);
        }
        self.mark(State::Sending);
        self.shared.mailboxes[requester].answer(part);
        self.mark(State::Working);
    }

    /// Max-load visiting: puts this PE's load into the shared heap.
    fn report(&mut self, load: u64) {
        let Some(loads) = &self.shared.loads else { return };
        let mut heap = loads.lock().unwrap_or_else(|e| e.into_inner());
        if heap.load(self.me) != load {
            heap.set(self.me, load);
            self.stats.heap_ops += 1;
        }
        drop(heap);
        if let Some(reporter) = &mut self.reporter {
            reporter.reported(load);
        }
    }

    /// Answers a pending request with "no work". Returns false on abort.
    fn reject_pending(&mut self) -> bool {
        match self.shared.mailboxes[self.me].take_request() {
            Some(Request::From(requester)) => {
                self.stats.requests_received += 1;
                self.shared.mailboxes[requester].answer(None);
                true
            }
            Some(Request::Abort) => false,
            None => true,
        }
    }

    /// Idle phase: asks PEs chosen by the strategy until one sends work.
    fn find_work(&mut self) -> Result<W, Exit> {
        let shared = self.shared;
        let mine = &shared.mailboxes[self.me];
        let mut backoff = Backoff::new(RETRY_PATIENCE);
        self.mark(State::Idle);
        loop {
            if !self.reject_pending() {
                return Err(Exit::Aborted);
            }
            if shared.termination.is_done() {
                return Err(self.exit_reason());
            }
            let Some(victim) = self.next_victim() else {
                backoff.wait();
                continue;
            };
            mine.expect_reply();
            self.stats.requests_sent += 1;
            self.mark(State::Requesting);
            if !shared.mailboxes[victim].post_request(self.me) {
                self.stats.requests_failed += 1;
                self.mark(State::Idle);
                backoff.wait();
                continue;
            }
            let mut waiting = Backoff::new(REPLY_PATIENCE);
            loop {
                match mine.reply() {
                    Reply::Work(work) => {
                        self.stats.pieces_received += 1;
                        return Ok(work);
                    }
                    Reply::NoWork => {
                        self.stats.requests_failed += 1;
                        self.mark(State::Idle);
                        break;
                    }
                    Reply::Waiting => {
                        if !self.reject_pending() {
                            return Err(Exit::Aborted);
                        }
                        if shared.termination.is_done() {
                            return Err(self.exit_reason());
                        }
                        waiting.wait();
                    }
                }
            }
            backoff.wait();
        }
    }

    /// Whom to ask next: the strategy's choice; for global round robin the
    /// next ticket of the shared counter (a ticket naming this PE is skipped);
    /// for max-load the PE with the largest reported load; for multilevel
    /// this PE's producer.
    fn next_victim(&mut self) -> Option<usize> {
        if let Some(tree) = &self.shared.tree {
            return tree.parent(self.me);
        }
        if let Some(loads) = &self.shared.loads {
            let best = loads.lock().unwrap_or_else(|e| e.into_inner()).max();
            self.stats.heap_ops += 1;
            return best.map(|(pe, _)| pe).filter(|&pe| pe != self.me);
        }
        if !self.victims.uses_global_counter() {
            return self.victims.next_victim();
        }
        if self.shared.mailboxes.len() < 2 {
            return None;
        }
        loop {
            let ticket = self.shared.round_robin.fetch_add(1, Ordering::Relaxed);
            if let Some(victim) = self.victims.victim_from_ticket(ticket) {
                return Some(victim);
            }
        }
    }

    fn exit_reason(&self) -> Exit {
        if self.shared.aborted() { Exit::Aborted } else { Exit::Done }
    }
}

impl<W: Work> Phases<W> for Pe<'_, W> {
    fn shared(&self) -> &Shared<W> {
        self.shared
    }

    fn stats(&mut self) -> &mut PeStats {
        &mut self.stats
    }

    fn work_on(&mut self, work: W) -> Option<Exit> {
        Pe::work_on(self, work)
    }

    /// Max-load visiting: a PE without work reports load 0.
    fn piece_done(&mut self) {
        if self.reporter.is_some() {
            self.report(0);
        }
    }

    fn find_work(&mut self) -> Result<W, Exit> {
        Pe::find_work(self)
    }
}
