//! The PE loop: Figure 1 of `003_…` in one function, for every strategy.
//!
//! ```text
//! loop
//!     while I ≠ ∅:  work(I, Δt); [tell the strategy: a slice with load L]
//!                   if a request from PE j is pending: tell the strategy
//!     take the oldest piece of the pool as I, if any
//!     while I = ∅:  tell the strategy "idle"; answer requests; wait for an
//!                   answer or a push
//! until termination
//! ```
//!
//! Every decision — whom to ask, what to give, where to push, when to
//! report — is the strategy machine's ([`treelb::strategy`]); this module
//! carries its actions out on shared memory:
//!
//! * a request is a compare-and-swap into the victim's request slot, the
//!   answer a write into the requester's reply slot ([`crate::mailbox`]);
//! * a push is an append to the target's pool under its lock;
//! * a load query is a read of what the target published (its pieces held),
//!   answered at once;
//! * every message unparks its receiver, and an idle PE with nothing to do
//!   parks (see `gate`): with thousands of PEs on a few cores, idle PEs cost
//!   nothing, and nothing is scanned per request;
//! * idle PEs of the strategies whose idle answer is always "no work"
//!   close their request slots, so that a request to them fails at once
//!   instead of waking them (see `mailbox`);
//! * the hub (load heap, central pool) is a lock: the PE that sends it a
//!   message runs it, and carries out what it answers; global round robin's
//!   counter is one atomic fetch-and-add (the hub's counter, without the
//!   lock).

use std::sync::atomic::Ordering;
use std::time::Instant;

use treelb::strategy::{Action, Balance, Decision, Event, HubAction, HubEvent, Machine, decide, pieces_held};
use treelb::{PeStats, Reduce, Work};

use crate::Shared;
use crate::backoff::{Backoff, Wait};
use crate::mailbox::{Reply, Request};
use crate::trace::{State, Tracer};

/// Why a PE's loop ended.
pub(crate) enum Exit {
    /// Termination was detected.
    Done,
    /// The run was aborted.
    Aborted,
}

/// Who an idle PE waits for an answer from.
#[derive(Clone, Copy, Debug)]
enum Awaiting {
    /// A PE it sent a request to.
    Pe(usize),
    /// The master (master–worker).
    Master,
}

/// One processing element: its index, its machine, its output and counters.
pub(crate) struct Pe<'a, W: Work> {
    me: usize,
    shared: &'a Shared<W>,
    budget: u64,
    machine: Machine,
    /// Whether the machine wants [`Event::Slice`]: read once, so that random
    /// polling's busy path is one poll per Δt.
    wants_slices: bool,
    /// The answer this PE waits for, if any.
    awaiting: Option<Awaiting>,
    pub(crate) acc: W::Output,
    pub(crate) stats: PeStats,
    /// The recorder of state changes, if the run is traced.
    pub(crate) tracer: Option<Tracer>,
    /// Every decision of the machine, if the run records them.
    pub(crate) decisions: Option<Vec<Decision>>,
}

impl<'a, W: Work> Pe<'a, W> {
    pub(crate) fn new(me: usize, shared: &'a Shared<W>, budget: u64, machine: Machine) -> Self {
        Pe {
            me,
            shared,
            budget,
            wants_slices: machine.wants_slices(),
            machine,
            awaiting: None,
            acc: W::Output::default(),
            stats: PeStats { pe: me, ..PeStats::default() },
            tracer: None,
            decisions: None,
        }
    }

    /// A state change, for the trace (nothing if the run is not traced).
    #[inline]
    pub(crate) fn mark(&mut self, state: State) {
        if let Some(tracer) = &mut self.tracer {
            tracer.enter(state);
        }
    }

    /// Counts work done outside the loop (cutting the initial pieces).
    pub(crate) fn add_initial(&mut self, output: W::Output, units: u64) {
        self.acc.merge(output);
        self.stats.work_units += units;
    }

    /// The machine's decisions, added to the counters at the end.
    pub(crate) fn finish_stats(&mut self) {
        let tally = self.machine.tally();
        self.stats.add_tally(&tally);
    }

    /// Runs the PE until termination: busy while it holds a piece, idle
    /// while it looks for one, with the time of each phase added to its
    /// statistics.
    pub(crate) fn run(&mut self) -> Exit {
        let mut since = Instant::now();
        let mut lap = move || {
            let now = Instant::now();
            let d = now - since;
            since = now;
            d
        };
        loop {
            let piece = match self.take_pooled() {
                Some(piece) => piece,
                None => {
                    let found = self.find_work();
                    self.stats.idle += lap();
                    match found {
                        Ok(piece) => piece,
                        Err(exit) => return exit,
                    }
                }
            };
            let exit = self.work_on(piece);
            self.stats.busy += lap();
            if let Some(exit) = exit {
                return exit;
            }
            self.feed(Event::Exhausted, None);
            if self.shared.termination.piece_exhausted() {
                self.shared.wake_all();
                return Exit::Done;
            }
        }
    }

    /// The oldest piece of this PE's pool (its initial pieces, or pushed).
    fn take_pooled(&mut self) -> Option<W> {
        let (piece, from) = self.shared.pools[self.me].take()?;
        if from != self.me {
            self.stats.pieces_received += 1;
        }
        Some(piece)
    }

    /// Busy phase: works the piece in slices of Δt, telling the machine
    /// about slices and requests, until it is exhausted (`None`) or the run
    /// aborts.
    fn work_on(&mut self, mut work: W) -> Option<Exit> {
        self.mark(State::Working);
        let shared = self.shared;
        if let Some(gate) = &shared.gate {
            gate.start_work(self.me);
        }
        shared.pools[self.me].set_working(true);
        let mailbox = &shared.mailboxes[self.me];
        if shared.closes_when_idle {
            // Closed while idle (and before the PE started): requests may
            // come now.
            mailbox.open();
        }
        let exit = loop {
            if work.should_stop() {
                // Decided before this piece started (a piece from the pool
                // after the stop): drop it unworked.
                shared.stop_all();
                break Some(Exit::Aborted);
            }
            let progress = work.work(self.budget, &mut self.acc);
            self.stats.work_units += progress.used(self.budget);
            mailbox.publish_units(self.stats.work_units);
            if progress.is_exhausted() {
                break None;
            }
            if work.should_stop() {
                // The computation is decided: stop everyone, drop the rest.
                shared.stop_all();
                break Some(Exit::Aborted);
            }
            if self.wants_slices {
                let load = work.load();
                self.feed(Event::Slice { load }, Some(&mut work));
            }
            // The poll: one relaxed load unless somebody asked.
            if mailbox.has_request() {
                match mailbox.take_request() {
                    Some(Request::From(from)) => {
                        self.feed(Event::Request { from, busy: true }, Some(&mut work))
                    }
                    Some(Request::Demand) => self.feed(Event::Demand { busy: true }, Some(&mut work)),
                    Some(Request::Abort) => break Some(Exit::Aborted),
                    None => {}
                }
            }
        };
        shared.pools[self.me].set_working(false);
        if let Some(gate) = &shared.gate {
            gate.stop_work();
        }
        exit
    }

    /// Idle phase: tells the machine, answers requests, waits for an
    /// answer or a push, until a piece comes or the run ends.
    ///
    /// An idle PE that has nothing to do parks: it is unparked by every
    /// message for it (an answer, a request, a push, a permit) and by the
    /// end of the run, so that thousands of idle PEs cost no processor time
    /// (see `gate`). Only a PE that holds a search permit (or every PE, when
    /// there are no more PEs than cores) waits by the back-off instead,
    /// because it asks again by itself.
    fn find_work(&mut self) -> Result<W, Exit> {
        let shared = self.shared;
        let mine = &shared.mailboxes[self.me];
        self.mark(State::Idle);
        if shared.closes_when_idle {
            // Answer what is already there, then close the slot.
            while let Err(request) = mine.close() {
                if !self.serve(request) {
                    return Err(Exit::Aborted);
                }
            }
        }
        let found = self.idle_loop();
        if let Some(gate) = &shared.gate
            && found.is_err()
        {
            for pe in gate.leave(self.me) {
                shared.wake(pe);
            }
        }
        found
    }

    /// The loop of the idle phase (see [`Pe::find_work`]).
    fn idle_loop(&mut self) -> Result<W, Exit> {
        let shared = self.shared;
        let mine = &shared.mailboxes[self.me];
        // A permit holder asks only on a core nobody works on (see `gate`):
        // it need not sleep between attempts.
        let mut between = Backoff::new(if shared.gate.is_some() { Wait::SEARCH } else { Wait::RETRY });
        let mut answer = Backoff::new(Wait::REPLY);
        let mut queued = false;
        loop {
            if let Some(piece) = self.take_pooled() {
                return Ok(piece);
            }
            if !self.serve_idle() {
                return Err(Exit::Aborted);
            }
            if shared.termination.is_done() {
                return Err(self.exit_reason());
            }
            if self.awaiting.is_none() {
                if let Some(gate) = &shared.gate {
                    if !gate.enter(self.me) {
                        // Queued for a permit: unparked when handed one.
                        queued = true;
                        std::thread::park();
                        continue;
                    }
                    if std::mem::take(&mut queued) {
                        // The search starts now, not when the queueing did.
                        between = Backoff::new(Wait::SEARCH);
                    }
                }
                self.feed(Event::Idle { local_work: false }, None);
                answer = Backoff::new(Wait::REPLY);
            }
            match self.awaiting {
                // Nothing asked (or refused at once): a PE that asks again
                // by itself backs off; one that only waits for pushes, for
                // its producer's answer or for the end parks.
                None if shared.closes_when_idle => between.wait(),
                None => std::thread::park(),
                Some(waited) => match mine.reply() {
                    Reply::Work(work) => {
                        self.awaiting = None;
                        self.stats.pieces_received += 1;
                        self.feed(Event::Answer { from: waited.pe(), work: true }, None);
                        return Ok(work);
                    }
                    Reply::NoWork => {
                        self.awaiting = None;
                        self.mark(State::Idle);
                        self.feed(Event::Answer { from: waited.pe(), work: false }, None);
                        between.wait();
                    }
                    // The answer comes with an unpark.
                    Reply::Waiting if shared.spins => answer.wait(),
                    Reply::Waiting => std::thread::park(),
                },
            }
        }
    }

    /// Answers what reached this idle PE's request slot. Returns false on
    /// abort.
    fn serve_idle(&mut self) -> bool {
        match self.shared.mailboxes[self.me].take_request() {
            Some(request) => self.serve(request),
            None => true,
        }
    }

    /// Answers a request this idle PE took from its slot. Returns false on
    /// abort.
    fn serve(&mut self, request: Request) -> bool {
        match request {
            Request::From(from) => self.feed(Event::Request { from, busy: false }, None),
            Request::Demand => self.feed(Event::Demand { busy: false }, None),
            Request::Abort => return false,
        }
        true
    }

    /// Feeds an event to the machine and carries out its actions; `work`
    /// is the piece, if the PE holds one.
    fn feed(&mut self, event: Event, mut work: Option<&mut W>) {
        let actions = decide(&mut self.machine, event, self.decisions.as_mut());
        for action in actions.iter() {
            self.act(action, work.as_deref_mut());
        }
    }

    /// Splits `work` for another PE: counts the part as live before anyone
    /// can see it (see `termination`).
    fn split_for_other(&mut self, work: Option<&mut W>) -> (Option<W>, u64) {
        self.mark(State::Splitting);
        let Some(work) = work else { return (None, 0) };
        let part = work.split();
        if part.is_some() {
            self.stats.splits += 1;
            self.stats.pieces_sent += 1;
            self.shared.termination.piece_sent();
        }
        (part, work.load())
    }

    /// Carries out one action of the machine.
    fn act(&mut self, action: Action, work: Option<&mut W>) {
        let shared = self.shared;
        let busy = work.is_some();
        match action {
            Action::Request { to } => {
                shared.mailboxes[self.me].expect_reply();
                self.mark(State::Requesting);
                if shared.mailboxes[to].post_request(self.me) {
                    self.awaiting = Some(Awaiting::Pe(to));
                    shared.wake(to);
                } else {
                    // Its slot is taken: as good as "no work".
                    self.mark(State::Idle);
                    self.feed(Event::Answer { from: to, work: false }, None);
                }
            }
            Action::Give { to } => {
                let (part, load) = self.split_for_other(work);
                let given = part.is_some();
                self.mark(State::Sending);
                shared.mailboxes[to].answer(part);
                shared.wake(to);
                self.mark(if busy { State::Working } else { State::Idle });
                self.feed(Event::Served { given, load }, None);
            }
            Action::Refuse { to } => {
                shared.mailboxes[to].answer(None);
                shared.wake(to);
            }
            Action::Push { to } => {
                let (part, load) = self.split_for_other(work);
                let given = part.is_some();
                if let Some(part) = part {
                    self.mark(State::Sending);
                    shared.pools[to].push(part, self.me);
                    shared.wake(to);
                }
                self.mark(if busy { State::Working } else { State::Idle });
                self.feed(Event::Served { given, load }, None);
            }
            Action::QueryLoad { to } => {
                // The answer is what `to` published; its reply counts as
                // the message it would be elsewhere.
                let load = shared.pools[to].held();
                self.stats.messages += 1;
                // The offer may follow at once: it splits this piece.
                self.feed(Event::Load { from: to, load }, work);
            }
            Action::ReplyLoad { .. } => {} // queries are answered by reading (above)
            Action::TakeTicket => {
                // The hub's counter as one atomic: the same tickets.
                let ticket = shared.tickets.fetch_add(1, Ordering::Relaxed);
                self.stats.messages += 1;
                self.feed(Event::Ticket(ticket), None);
            }
            Action::Report { load } => self.hub(HubEvent::Report { from: self.me, load }),
            Action::QueryMostLoaded => self.hub(HubEvent::QueryMostLoaded { from: self.me }),
            Action::AskMaster => {
                shared.mailboxes[self.me].expect_reply();
                self.awaiting = Some(Awaiting::Master);
                self.mark(State::Requesting);
                self.hub(HubEvent::Ask { from: self.me });
            }
            Action::Deposit => {
                let (part, load) = self.split_for_other(work);
                let given = part.is_some();
                if let Some(part) = part {
                    self.mark(State::Sending);
                    let part_load = part.load();
                    self.hub(HubEvent::Deposit { from: self.me, part: Some((part, part_load)) });
                }
                self.mark(if busy { State::Working } else { State::Idle });
                self.feed(Event::Served { given, load }, None);
            }
            Action::NoPart => self.hub(HubEvent::Deposit { from: self.me, part: None }),
        }
    }

    /// Sends a message to the hub: runs it under its lock, then carries out
    /// what it answers (after the lock is released).
    fn hub(&mut self, event: HubEvent<W>) {
        let Some(hub) = &self.shared.hub else { unreachable!("a hub message in a run without a hub") };
        let mut answers = Vec::new();
        hub.lock().unwrap_or_else(|e| e.into_inner()).on(event, &mut answers);
        for answer in answers {
            match answer {
                HubAction::MostLoaded { to, pe } => {
                    debug_assert_eq!(to, self.me);
                    self.feed(Event::MostLoaded(pe), None);
                }
                HubAction::Ticket { to, ticket } => {
                    debug_assert_eq!(to, self.me);
                    self.feed(Event::Ticket(ticket), None);
                }
                HubAction::Hand { to, piece } => {
                    self.shared.mailboxes[to].answer(Some(piece));
                    self.shared.wake(to);
                }
                HubAction::Demand { to } => {
                    // Refused only when the run aborts.
                    let _ = self.shared.mailboxes[to].post_demand();
                    self.shared.wake(to);
                }
            }
        }
    }

    fn exit_reason(&self) -> Exit {
        if self.shared.aborted() { Exit::Aborted } else { Exit::Done }
    }
}

impl Awaiting {
    /// The PE the answer comes from (the master is at PE 0).
    fn pe(self) -> usize {
        match self {
            Awaiting::Pe(pe) => pe,
            Awaiting::Master => 0,
        }
    }
}

/// One PE's pool of waiting pieces, and what it publishes for load queries.
pub(crate) struct PoolSlot<W> {
    pool: std::sync::Mutex<treelb::strategy::Pool<W>>,
    /// Pieces in the pool: read without the lock to skip an empty pool.
    pooled: crossbeam_utils::CachePadded<std::sync::atomic::AtomicUsize>,
    /// Whether the owner works a piece.
    working: std::sync::atomic::AtomicBool,
}

impl<W> PoolSlot<W> {
    pub(crate) fn new() -> Self {
        PoolSlot {
            pool: std::sync::Mutex::new(treelb::strategy::Pool::new()),
            pooled: crossbeam_utils::CachePadded::new(std::sync::atomic::AtomicUsize::new(0)),
            working: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Adds a piece (already counted as live) pushed by PE `from`.
    pub(crate) fn push(&self, piece: W, from: usize) {
        let mut pool = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        pool.push(piece, from);
        self.pooled.store(pool.len(), Ordering::Release);
    }

    /// The oldest piece, if any; one relaxed load when there is none.
    #[inline]
    fn take(&self) -> Option<(W, usize)> {
        if self.pooled.load(Ordering::Acquire) == 0 {
            return None;
        }
        let mut pool = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        let item = pool.take();
        self.pooled.store(pool.len(), Ordering::Release);
        item
    }

    fn set_working(&self, working: bool) {
        self.working.store(working, Ordering::Relaxed);
    }

    /// The pieces the owner holds ([`pieces_held`]), as published.
    fn held(&self) -> u64 {
        pieces_held(self.working.load(Ordering::Relaxed), self.pooled.load(Ordering::Relaxed))
    }
}
