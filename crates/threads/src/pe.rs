//! The PE loop: Figure 1 of [Sanders 1999] in one function, for every strategy.
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
//! report — is the strategy machine's ([`treelb::strategy`]), and the
//! carrying out of its actions and the taking in of messages is the core
//! PE's ([`treelb::pe::feed`], [`treelb::pe::receive`]); this module is the
//! [`Body`] they work on, on shared memory:
//!
//! * a request is a compare-and-swap into the victim's request slot, the
//!   answer a write into the requester's reply slot ([`crate::mailbox`]);
//! * a push is an append to the target's pool under its lock;
//! * a load query is a read of what the target published (its pieces held),
//!   answered at once;
//! * every message wakes its receiver, and an idle PE with nothing to do
//!   waits, giving its thread to other PEs (see `sched` and `gate`): with
//!   thousands of PEs on a few cores, idle PEs cost
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

use treelb::pe::{self as core_pe, Body, Message};
use treelb::strategy::{
    Actions, Balance, Decision, Event, HubAction, HubEvent, Machine, decide, pieces_held,
};
use treelb::{PeStats, Reduce, Work};

use crate::Shared;
use crate::mailbox::{Reply, Request};
use crate::trace::{State, Tracer, What};
use treelb::backoff::{Patience, Waiter};

/// What a turn of [`Pe::step`] ended with.
pub(crate) enum Step {
    /// The PE waits for a message: call `step` again after the next one.
    Wait,
    /// The PE would wait a moment by itself (it asks again by itself), but
    /// other PEs wait for the thread: call `step` again after their turns.
    Yield,
    /// The PE is done with this run.
    Exit(Exit),
}

/// The waits of an idle phase in progress, kept across [`Step::Wait`]s.
struct IdlePhase {
    /// Between attempts to find work (the back-off of the strategies that
    /// ask again by themselves).
    between: Waiter,
    /// For an answer, when PEs spin (every PE has a core).
    answer: Waiter,
    /// Whether the PE queued for a search permit.
    queued: bool,
}

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
    /// Whether [`Pe::step`] ran before.
    started: bool,
    /// Since when the current phase (busy or idle) lasts.
    since: Instant,
    /// The idle phase in progress, if the PE is idle.
    idle: Option<IdlePhase>,
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
            started: false,
            since: Instant::now(),
            idle: None,
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

    /// A request, a piece given or received, a busy phase's units, for the
    /// trace (nothing if the run is not traced).
    #[inline]
    fn note(&mut self, what: What) {
        if let Some(tracer) = &mut self.tracer {
            tracer.mark(what);
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

    /// Runs the PE until termination or until it has nothing to do but
    /// wait: busy while it holds a piece, idle while it looks for one, with
    /// the time of each phase added to its statistics.
    ///
    /// Where a PE on a thread of its own would park (waiting for an answer,
    /// a push, a permit or the end), this returns [`Step::Wait`] instead,
    /// and the scheduler (see `sched`) calls it again after the next
    /// message for this PE. The loop's position is kept in `self.idle`:
    /// a PE waits only in its idle phase, and every wait in that loop is
    /// followed by a fresh turn of it, so resuming at the top of the turn
    /// is what unparking did.
    pub(crate) fn step(&mut self) -> Step {
        if !self.started {
            self.started = true;
            self.since = Instant::now();
            if self.shared.termination.is_done() {
                return Step::Exit(self.exit_reason());
            }
        }
        loop {
            let piece = match self.idle.is_some() {
                false => match self.take_pooled() {
                    Some(piece) => piece,
                    None => {
                        if let Err(exit) = self.start_idle() {
                            return Step::Exit(exit);
                        }
                        continue;
                    }
                },
                true => {
                    let found = match self.idle_turns() {
                        Ok(found) => found,
                        Err(pause) => return pause,
                    };
                    self.idle = None;
                    if let Some(gate) = &self.shared.gate
                        && found.is_err()
                    {
                        for pe in gate.leave(self.me) {
                            self.shared.wake(pe);
                        }
                    }
                    let idle = self.lap();
                    self.stats.idle += idle;
                    match found {
                        Ok(piece) => piece,
                        Err(exit) => return Step::Exit(exit),
                    }
                }
            };
            // The thread's CPU clock, read as the busy phase begins and
            // ends (a busy phase never yields its thread to another PE):
            // time the machine gave to other processes is not work.
            let clock = cpu_time::ThreadTime::try_now().ok();
            let exit = self.work_on(piece);
            let busy = self.lap();
            self.stats.busy += busy;
            self.stats.cpu += clock.and_then(|c| c.try_elapsed().ok()).map_or(busy, |cpu| cpu.min(busy));
            if let Some(exit) = exit {
                return Step::Exit(exit);
            }
            self.feed(Event::Exhausted, None);
            if self.shared.termination.piece_exhausted() {
                self.shared.wake_all();
                return Step::Exit(Exit::Done);
            }
        }
    }

    /// The time since the last phase change.
    fn lap(&mut self) -> std::time::Duration {
        let now = Instant::now();
        let d = now - self.since;
        self.since = now;
        d
    }

    /// The oldest piece of this PE's pool (its initial pieces, or pushed).
    fn take_pooled(&mut self) -> Option<W> {
        let (piece, from) = self.shared.pools[self.me].take()?;
        if from != self.me {
            self.stats.pieces_received += 1;
            self.note(What::Receive { from });
        }
        Some(piece)
    }

    /// Busy phase: works the piece in slices of Δt, telling the machine
    /// about slices and requests, until it is exhausted (`None`) or the run
    /// aborts.
    fn work_on(&mut self, work: W) -> Option<Exit> {
        let units = self.stats.work_units;
        let exit = self.work_piece(work);
        let worked = self.stats.work_units - units;
        self.note(What::Worked { units: worked });
        exit
    }

    /// [`work_on`](Self::work_on) without its mark.
    fn work_piece(&mut self, mut work: W) -> Option<Exit> {
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
                    Some(Request::From(from)) => self.receive(Message::Request { from }, Some(&mut work)),
                    Some(Request::Demand) => self.receive(Message::Demand, Some(&mut work)),
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

    /// Idle phase, its start: tells the trace, closes the request slot
    /// (answering what is already there) and sets up the waits of the idle
    /// loop ([`Pe::idle_turns`]).
    ///
    /// An idle PE that has nothing to do waits: it is resumed by every
    /// message for it (an answer, a request, a push, a permit) and by the
    /// end of the run, so that thousands of idle PEs cost no processor time
    /// (see `gate`). Only a PE that holds a search permit (or every PE, when
    /// there are no more PEs than cores) waits by the back-off instead,
    /// because it asks again by itself.
    fn start_idle(&mut self) -> Result<(), Exit> {
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
        // A permit holder asks only on a core nobody works on (see `gate`):
        // it need not sleep between attempts.
        self.idle = Some(IdlePhase {
            between: Waiter::new(if shared.gate.is_some() { Patience::SEARCH } else { Patience::RETRY }),
            answer: Waiter::new(Patience::REPLY),
            queued: false,
        });
        Ok(())
    }

    /// The loop of the idle phase: `Ok` when a piece came or the run
    /// ended, `Err` when the PE must wait for a message or give its thread
    /// to other PEs (it is resumed here, at the top of a new turn).
    ///
    /// A PE that waits by itself (the back-off between attempts, the spin
    /// for an answer) does so only while no other PE waits for a thread:
    /// otherwise it yields, so that a PE that holds work never waits behind
    /// idle PEs that ask each other (see `sched`).
    fn idle_turns(&mut self) -> Result<Result<W, Exit>, Step> {
        let shared = self.shared;
        let mine = &shared.mailboxes[self.me];
        loop {
            if let Some(piece) = self.take_pooled() {
                return Ok(Ok(piece));
            }
            // A piece that came is taken before the requests: a demand or
            // request that came with it (the master hands a piece and
            // demands a part of it in one breath) is answered at the
            // piece's first poll, as a busy PE — answered here, as idle,
            // it would tell the master that this PE has nothing to split,
            // and the master would not ask it again while it works.
            if let Some(waited) = self.awaiting
                && let Reply::Work(work) = mine.reply()
            {
                return Ok(Ok(self.received(waited, work)));
            }
            if !self.serve_idle() {
                return Ok(Err(Exit::Aborted));
            }
            if shared.termination.is_done() {
                return Ok(Err(self.exit_reason()));
            }
            let phase = self.idle.as_mut().expect("in the idle phase");
            if self.awaiting.is_none() {
                if let Some(gate) = &shared.gate {
                    if !gate.enter(self.me) {
                        // Queued for a permit: resumed when handed one.
                        phase.queued = true;
                        return Err(Step::Wait);
                    }
                    if std::mem::take(&mut phase.queued) {
                        // The search starts now, not when the queueing did.
                        phase.between = Waiter::new(Patience::SEARCH);
                    }
                }
                phase.answer = Waiter::new(Patience::REPLY);
                self.feed(Event::Idle { local_work: false }, None);
            }
            let phase = self.idle.as_mut().expect("in the idle phase");
            match self.awaiting {
                // Nothing asked (or refused at once): a PE that asks again
                // by itself backs off; one that only waits for pushes, for
                // its producer's answer or for the end waits for a message.
                None if shared.closes_when_idle => {
                    if shared.sched.others_queued() {
                        return Err(Step::Yield);
                    }
                    phase.between.wait()
                }
                None => return Err(Step::Wait),
                Some(waited) => match mine.reply() {
                    Reply::Work(work) => return Ok(Ok(self.received(waited, work))),
                    Reply::NoWork => {
                        self.awaiting = None;
                        self.mark(State::Idle);
                        self.receive(Message::Answer { from: waited.pe(), piece: None }, None);
                        if shared.sched.others_queued() {
                            return Err(Step::Yield);
                        }
                        if let Some(phase) = self.idle.as_mut() {
                            phase.between.wait();
                        }
                    }
                    // The answer comes with a wake-up.
                    Reply::Waiting if shared.spins && !shared.sched.others_queued() => phase.answer.wait(),
                    Reply::Waiting => return Err(Step::Wait),
                },
            }
        }
    }

    /// The answer to this PE's request was a piece: tells the machine.
    fn received(&mut self, waited: Awaiting, work: W) -> W {
        self.awaiting = None;
        let mut body = Held { pe: self, work: None, got: None };
        core_pe::receive(&mut body, Message::Answer { from: waited.pe(), piece: Some(work) });
        body.got.expect("the answer's piece is kept")
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
            Request::From(from) => self.receive(Message::Request { from }, None),
            Request::Demand => self.receive(Message::Demand, None),
            Request::Abort => return false,
        }
        true
    }

    /// Feeds an event to the machine and carries out its actions
    /// ([`treelb::pe::feed`]); `work` is the piece, if the PE holds one.
    fn feed(&mut self, event: Event, work: Option<&mut W>) {
        core_pe::feed(&mut Held { pe: self, work, got: None }, event);
    }

    /// Takes in a message that reached this PE ([`treelb::pe::receive`]);
    /// `work` is the piece, if the PE holds one.
    fn receive(&mut self, message: Message<W>, work: Option<&mut W>) {
        core_pe::receive(&mut Held { pe: self, work, got: None }, message);
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

/// A PE as the body of the core PE logic ([`Body`]): its state, the piece
/// it works on (which lives on the stack of [`Pe::work_on`]), and the piece
/// an answer brought while it held none.
///
/// Messages travel on shared memory: a request is posted into the
/// receiver's slot (a taken slot is as good as "no work", fed back at once),
/// an answer written into the requester's reply slot, a push appended to
/// the receiver's pool; a load query is answered by reading what the
/// receiver published, and a ticket by the run's atomic counter, both fed
/// back at once; the hub runs under its lock in the sender's thread.
struct Held<'p, 'a, W: Work> {
    pe: &'p mut Pe<'a, W>,
    work: Option<&'p mut W>,
    got: Option<W>,
}

impl<W: Work> Held<'_, '_, W> {
    /// The state the PE returns to after splitting or sending.
    fn back(&self) -> State {
        if self.work.is_some() { State::Working } else { State::Idle }
    }

    /// Sends a message to the hub: runs it under its lock, then carries out
    /// what it answers (after the lock is released).
    fn hub(&mut self, event: HubEvent<W>) {
        let shared = self.pe.shared;
        let Some(hub) = &shared.hub else { unreachable!("a hub message in a run without a hub") };
        let mut answers = Vec::new();
        hub.lock().unwrap_or_else(|e| e.into_inner()).on(event, &mut answers);
        for answer in answers {
            match answer {
                HubAction::MostLoaded { to, pe } => {
                    debug_assert_eq!(to, self.pe.me);
                    core_pe::feed(self, Event::MostLoaded(pe));
                }
                HubAction::Ticket { to, ticket } => {
                    debug_assert_eq!(to, self.pe.me);
                    core_pe::feed(self, Event::Ticket(ticket));
                }
                HubAction::Hand { to, piece } => {
                    shared.mailboxes[to].answer(Some(piece));
                    shared.wake(to);
                }
                HubAction::Demand { to } => {
                    // Refused only when the run aborts.
                    let _ = shared.mailboxes[to].post_demand();
                    shared.wake(to);
                }
            }
        }
    }
}

impl<W: Work> Body for Held<'_, '_, W> {
    type Part = W;

    fn me(&self) -> usize {
        self.pe.me
    }

    #[inline]
    fn decide(&mut self, event: Event) -> Actions {
        decide(&mut self.pe.machine, event, self.pe.decisions.as_mut())
    }

    fn busy(&self) -> bool {
        self.work.is_some() || self.got.is_some()
    }

    fn held(&self) -> u64 {
        pieces_held(self.busy(), self.pe.shared.pools[self.pe.me].pooled())
    }

    /// Splits the piece for another PE: counts the part as live before
    /// anyone can see it (see `termination`).
    fn split_off(&mut self) -> (Option<W>, u64) {
        self.pe.mark(State::Splitting);
        let back = self.back();
        let Some(work) = self.work.as_deref_mut().or(self.got.as_mut()) else {
            self.pe.mark(back);
            return (None, 0);
        };
        let part = work.split();
        let load = work.load();
        if part.is_some() {
            self.pe.stats.splits += 1;
            self.pe.stats.pieces_sent += 1;
            self.pe.shared.termination.piece_sent();
        } else {
            self.pe.mark(back);
        }
        (part, load)
    }

    /// A pooled piece, else a part split off; cut down, each remainder
    /// counted live before it is pooled (see `termination`).
    fn produce(&mut self, generation: u32) -> (Option<W>, u64) {
        let part = match self.pe.take_pooled() {
            Some(piece) => {
                self.pe.stats.pieces_sent += 1;
                Some(piece)
            }
            None => self.split_off().0,
        };
        let part = part.map(|part| {
            let pe = &mut *self.pe;
            core_pe::cut(part, generation, |rest| {
                pe.stats.splits += 1;
                pe.shared.termination.piece_sent();
                pe.shared.pools[pe.me].push(rest, pe.me);
            })
        });
        (part, self.work.as_deref().or(self.got.as_ref()).map_or(0, Work::load))
    }

    fn part_load(&self, part: &W) -> u64 {
        part.load()
    }

    fn send(&mut self, to: usize, message: Message<W>) {
        let shared = self.pe.shared;
        let me = self.pe.me;
        match message {
            Message::Request { .. } => {
                shared.mailboxes[me].expect_reply();
                self.pe.note(What::Request { to });
                self.pe.mark(State::Requesting);
                if shared.mailboxes[to].post_request(me) {
                    self.pe.awaiting = Some(Awaiting::Pe(to));
                    shared.wake(to);
                } else {
                    // Its slot is taken: as good as "no work".
                    self.pe.mark(State::Idle);
                    core_pe::feed(self, Event::Answer { from: to, work: false });
                }
            }
            Message::Answer { piece, .. } => {
                let part = piece.is_some();
                if part {
                    self.pe.mark(State::Sending);
                    self.pe.note(What::Give { to });
                }
                shared.mailboxes[to].answer(piece);
                shared.wake(to);
                if part {
                    let back = self.back();
                    self.pe.mark(back);
                }
            }
            Message::Push { piece, .. } => {
                self.pe.mark(State::Sending);
                self.pe.note(What::Give { to });
                shared.pools[to].push(piece, me);
                shared.wake(to);
                let back = self.back();
                self.pe.mark(back);
            }
            Message::LoadQuery { .. } => {
                // The answer is what `to` published; its reply counts as
                // the message it would be elsewhere. The offer may follow
                // at once: it splits this piece.
                let load = shared.pools[to].held();
                self.pe.stats.messages += 1;
                core_pe::feed(self, Event::Load { from: to, load });
            }
            // Queries are answered by reading (above).
            Message::Load { .. } => {}
            Message::Ticket(_) | Message::MostLoaded(_) | Message::Demand => {
                unreachable!("a hub message from a PE")
            }
        }
    }

    fn send_hub(&mut self, event: HubEvent<W>) {
        match event {
            HubEvent::Ticket { .. } => {
                // The hub's counter as one atomic: the same tickets.
                let ticket = self.pe.shared.tickets.fetch_add(1, Ordering::Relaxed);
                self.pe.stats.messages += 1;
                core_pe::feed(self, Event::Ticket(ticket));
            }
            HubEvent::Ask { .. } => {
                self.pe.shared.mailboxes[self.pe.me].expect_reply();
                self.pe.awaiting = Some(Awaiting::Master);
                self.pe.mark(State::Requesting);
                self.hub(event);
            }
            HubEvent::Deposit { part: Some(_), .. } => {
                self.pe.mark(State::Sending);
                self.hub(event);
                let back = self.back();
                self.pe.mark(back);
            }
            _ => self.hub(event),
        }
    }

    fn accept(&mut self, piece: W, from: usize, answer: bool) {
        if answer {
            self.pe.stats.pieces_received += 1;
            self.pe.note(What::Receive { from });
            self.got = Some(piece);
        } else {
            // Counted received when taken from the pool.
            self.pe.shared.pools[self.pe.me].push(piece, from);
        }
    }
}

/// One PE's pool of waiting pieces, and what it publishes for load queries.
pub(crate) struct PoolSlot<W> {
    pool: std::sync::Mutex<treelb::strategy::Waiting<W>>,
    /// Pieces in the pool: read without the lock to skip an empty pool.
    pooled: crossbeam_utils::CachePadded<std::sync::atomic::AtomicUsize>,
    /// Whether the owner works a piece.
    working: std::sync::atomic::AtomicBool,
}

impl<W> PoolSlot<W> {
    pub(crate) fn new() -> Self {
        PoolSlot {
            pool: std::sync::Mutex::new(treelb::strategy::Waiting::new()),
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

    /// Pieces in the pool, as published.
    fn pooled(&self) -> usize {
        self.pooled.load(Ordering::Relaxed)
    }

    fn set_working(&self, working: bool) {
        self.working.store(working, Ordering::Relaxed);
    }

    /// The pieces the owner holds ([`pieces_held`]), as published.
    fn held(&self) -> u64 {
        pieces_held(self.working.load(Ordering::Relaxed), self.pooled.load(Ordering::Relaxed))
    }
}
