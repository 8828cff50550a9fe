//! One PE across MPI ranks: Figure 1 of [Sanders 1999], driving the run's strategy
//! machine (`treelb::strategy`) — the same machines the threads runtime and
//! the simulator drive.
//!
//! ```text
//! loop
//!     while I ≠ ∅:  work(I, Δt); [tell the machine: a slice with load L];
//!                   probe: every message that arrived goes to the machine
//!                   (requests, load queries, demands, answers, pushes) or,
//!                   at PE 0, to the hub
//!     take the oldest piece of the pool as I, if any
//!     while I = ∅:  probe; tell the machine "idle"; run the detector
//! until the detector announces termination; then drain
//! ```
//!
//! Every action of the machine becomes a non-blocking send (or, for PE 0's
//! own messages to the hub, a call). Pieces — answers with work, pushes,
//! parts for the central pool and pieces it hands out — are the messages
//! the four-counter detector counts; a PE is idle for it when it holds no
//! piece, its pool is empty and (PE 0) the central pool is empty.
//!
//! ## The drain
//! When the detector announces termination no work is left anywhere, but
//! other messages may be: requests of PEs that have not heard yet, load
//! queries and their answers, the hub's demands and their answers, and the
//! one-way messages — improvements of the incumbent, load reports,
//! requests to the central pool. MPI must find none of them in flight at
//! `MPI_Finalize`. So after termination a PE starts nothing and answers
//! everything (requests with "no work", load queries with 0, demands with
//! "no part"), in two stages:
//!
//! 1. Every PE waits for every answer it is owed (PE 0 also for the answers
//!    to the hub's demands). A request, query or demand is owed by its
//!    sender until answered, so once *every* PE has its answers, none of
//!    these nor their answers is in flight.
//! 2. Thread 0 of each rank, once all its threads are through stage 1,
//!    joins a non-blocking all-to-all of the one-way messages each rank
//!    sent to each (they all go to thread 0 of a rank); it completes only
//!    when every rank has joined, that is when stage 1 is over everywhere,
//!    and nobody sends a one-way message after stage 1 (no work, no new
//!    attempts). Thread 0 then receives until it has every one-way message
//!    sent to its rank, answering requests meanwhile, and releases its
//!    threads.
//!
//! Termination signals need no counting: a PE reaches stage 1 only after
//! it received the detector's final signal and forwarded it.

use std::mem::ManuallyDrop;
use std::sync::atomic::Ordering;
use std::thread;
use std::time::{Duration, Instant};

use mpi::point_to_point::{MatchedReceiveVec, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::CommunicatorCollectives;
use treelb::pe::{self, Body, Message};
use treelb::strategy::{
    Actions, Balance, Decision, Event, Hub, HubAction, HubEvent, Machine, Waiting, decide, pieces_held,
};
use treelb::termination::{FourCounter, Signal};
use treelb::trace::{State, Tracer, What};
use treelb::{PeStats, Work};

use crate::driver::kind::*;
use crate::driver::{Ctx, Out, PeResult, Start};
use crate::outbox::Outbox;
use crate::wire::{self, Codec, Note};
use treelb::backoff::{Patience, Waiter};

thread_local! {
    /// The global index of the PE this thread runs, while it runs one.
    static CURRENT_PE: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// The global index (`rank · threads + thread`) of the PE running on this
/// thread, inside [`crate::run`] (in `work` and `split` of a piece); `None`
/// on any other thread. While a rank cuts its initial shares (selective
/// initialization, static assignment) it is the rank's first PE, whose
/// thread does the cutting. Applications use it to show which PE did which part of the work (the
/// Mandelbrot image coloured by PE).
pub fn current_pe() -> Option<usize> {
    CURRENT_PE.with(|c| c.get())
}

/// Sets what [`current_pe`] says on this thread.
pub(crate) fn set_current_pe(pe: Option<usize>) {
    CURRENT_PE.with(|c| c.set(pe));
}

/// The body of PE thread `t` of this rank.
pub(crate) fn pe_main<C>(
    ctx: &Ctx<'_, C>,
    t: usize,
    (pieces, output, units): Start<C::Work>,
    world: Option<&SimpleCommunicator>,
) -> PeResult<Out<C>>
where
    C: Codec,
    C::Work: Clone,
{
    let g = ctx.rank * ctx.threads + t;
    set_current_pe(Some(g));
    let p = ctx.ranks * ctx.threads;
    let spec = &ctx.config.spec;
    let machine = spec.grouped_machine(g, p, ctx.threads);
    let mut pool = Waiting::new();
    for piece in pieces {
        pool.push(piece, g);
    }
    // The hub lives at PE 0 (global round robin takes its tickets from an
    // MPI window instead). Which PEs start with a piece is not known here
    // beyond `may_start_busy`: a demand to a PE whose share came out empty
    // is answered "no part".
    let hub = (g == 0 && spec.strategy.uses_hub()).then(|| spec.hub(p, |pe| spec.may_start_busy(pe)));
    let mut pe = Pe {
        ctx,
        t,
        g,
        comms: ctx.comms(),
        fc: FourCounter::new(g, p),
        outbox: Outbox::new(),
        wants_slices: machine.wants_slices(),
        machine,
        pool,
        hub,
        acc: output,
        stats: PeStats { pe: g, work_units: units, ..PeStats::default() },
        probes: 0,
        owed: 0,
        queried: false,
        since: Instant::now(),
        scratch: Vec::new(),
        notes: Vec::new(),
        seen: 0,
        one_way_received: 0,
        improvements: 0,
        terminated: false,
        decisions: ctx.config.record_decisions.then(Vec::new),
        tracer: ctx.config.trace.then(|| Tracer::new(ctx.start)),
    };
    pe.run(world);
    set_current_pe(None);
    let mut stats = pe.stats;
    stats.add_tally(&pe.machine.tally());
    if let Some(hub) = &pe.hub {
        stats.add_tally(&hub.tally());
    }
    PeResult {
        output: pe.acc,
        stats,
        probes: pe.probes,
        waves: pe.fc.wave(),
        improvements: pe.improvements,
        decisions: pe.decisions,
        tracer: pe.tracer,
    }
}

/// One PE: its machine, pool, detector, sends in flight, counters, output.
struct Pe<'a, C: Codec> {
    ctx: &'a Ctx<'a, C>,
    t: usize,
    g: usize,
    comms: Vec<ManuallyDrop<SimpleCommunicator>>,
    fc: FourCounter,
    outbox: Outbox,
    machine: Machine,
    /// Whether the machine wants [`Event::Slice`] (read once).
    wants_slices: bool,
    /// Waiting pieces: initial ones, pushed ones, answers.
    pool: Waiting<C::Work>,
    /// PE 0: the hub of max-load or master–worker.
    hub: Option<Hub<Vec<u8>>>,
    acc: Out<C>,
    stats: PeStats,
    probes: u64,
    /// Answers this PE is owed: to its request, its load queries, its
    /// look-up at the hub.
    owed: usize,
    /// A load query arrived since the idle loop last looked: a busy PE
    /// waits for this PE's answer before it can push ([`Pe::find_work`]).
    queried: bool,
    since: Instant,
    scratch: Vec<u8>,
    /// The computation's notes on their way out (reused).
    notes: Vec<Note>,
    /// The version of the shared state this PE last looked at.
    seen: u64,
    /// One-way messages received (thread 0 only).
    one_way_received: u64,
    /// Improvement messages sent.
    improvements: u64,
    /// The detector announced termination: start nothing, answer everything.
    terminated: bool,
    /// The machine's decisions, if they are recorded.
    decisions: Option<Vec<Decision>>,
    /// The recorder of states and marks, if the run is traced.
    tracer: Option<Tracer>,
}

impl<C> Pe<'_, C>
where
    C: Codec,
{
    /// Figure 1: work while there is work, look for work while there is
    /// none, until the detector announces termination; then drain.
    fn run(&mut self, world: Option<&SimpleCommunicator>) {
        self.since = Instant::now();
        // Cutting the initial shares may have improved the incumbent.
        self.share();
        loop {
            if let Some((piece, from)) = self.pool.take() {
                if from != self.g {
                    self.stats.pieces_received += 1;
                    self.note(What::Receive { from });
                }
                // The thread's CPU clock over the busy phase: time the
                // machine gave to other processes is not work.
                let clock = cpu_time::ThreadTime::try_now().ok();
                self.work_on(piece);
                let lap = self.lap();
                self.stats.busy += lap;
                self.stats.cpu += clock.and_then(|c| c.try_elapsed().ok()).map_or(lap, |cpu| cpu.min(lap));
                continue;
            }
            let found = self.find_work();
            let lap = self.lap();
            self.stats.idle += lap;
            if !found {
                break;
            }
        }
        self.drain(world);
        let lap = self.lap();
        self.stats.idle += lap;
    }

    /// A state change, for the trace (nothing if the run is not traced).
    #[inline]
    fn mark(&mut self, state: State) {
        if let Some(tracer) = &mut self.tracer {
            tracer.enter(state);
        }
    }

    /// A request, a piece given or received, a busy phase's units, for the
    /// trace.
    #[inline]
    fn note(&mut self, what: What) {
        if let Some(tracer) = &mut self.tracer {
            tracer.mark(what);
        }
    }

    fn lap(&mut self) -> Duration {
        let now = Instant::now();
        let d = now - self.since;
        self.since = now;
        d
    }

    /// Whether the computation is decided (a decision search holds its
    /// witness): nothing is given away or started any more.
    fn stopped(&self) -> bool {
        self.ctx.codec.should_stop()
    }

    /// Busy phase: slices of Δt units, a probe after each.
    fn work_on(&mut self, mut work: C::Work) {
        let budget = self.ctx.config.spec.budget.get();
        let slow = self.ctx.config.slow.filter(|s| s.rank == self.ctx.rank).map(|s| s.pause);
        self.ctx.shared.busy.fetch_add(1, Ordering::Relaxed);
        self.mark(State::Working);
        let units = self.stats.work_units;
        loop {
            if work.should_stop() {
                // Decided before this piece started (a piece from the pool
                // after the stop): drop it unworked.
                break;
            }
            let progress = work.work(budget, &mut self.acc);
            self.stats.work_units += progress.used(budget);
            self.share();
            self.relay();
            if progress.is_exhausted() {
                break;
            }
            if work.should_stop() {
                // The computation is decided: the rest of the piece is
                // dropped, requests get "no work" from now on.
                break;
            }
            if let Some(pause) = slow {
                thread::sleep(pause);
            }
            if self.wants_slices {
                let load = work.load();
                self.feed(Event::Slice { load }, Some(&mut work));
            }
            self.poll(Some(&mut work));
            self.outbox.progress();
        }
        self.ctx.shared.busy.fetch_sub(1, Ordering::Relaxed);
        let worked = self.stats.work_units - units;
        self.note(What::Worked { units: worked });
        self.mark(State::Idle);
        self.feed(Event::Exhausted, None);
    }

    /// Idle phase: probes, tells the machine it is idle, runs the detector,
    /// until a piece is in the pool (`true`) or the run is over (`false`).
    fn find_work(&mut self) -> bool {
        // Between attempts: escalates over the whole idle phase, so a PE
        // that keeps hearing "no work" ends up sleeping. Waiting for an
        // answer it is owed: yields rather than sleeps.
        //
        // A load query starts the escalation again. Under the pushing
        // strategies an idle PE asks nobody and waits for a push, and the
        // busy PE that would push to it has one round of load queries out
        // at a time: it pushes only once this PE has answered. A PE that
        // slept up to `MAX_SLEEP` between probes would hold every pusher's
        // round for that long, and the pushes would come at that pace
        // instead of one round trip's; asked, the PE spins and yields
        // again, so the answer and then the push are taken in at once. A
        // PE that nobody asks still ends up sleeping.
        let mut between = Waiter::new(Patience::RETRY);
        let mut answer = Waiter::new(Patience::REPLY);
        self.queried = false;
        loop {
            let activity = self.poll(None);
            if std::mem::take(&mut self.queried) {
                between = Waiter::new(Patience::RETRY);
            }
            if self.stopped() {
                // Decided: what arrived (and was counted) is dropped, the
                // central pool's pieces too.
                while self.pool.take().is_some() {}
                if let Some(hub) = &mut self.hub {
                    hub.discard_pooled();
                }
            } else if !self.pool.is_empty() {
                return true;
            }
            if self.hub.as_ref().is_none_or(|h| h.pooled() == 0) {
                self.detect();
                if self.fc.is_terminated() {
                    self.terminated = true;
                    if let Some(hub) = &mut self.hub {
                        hub.close();
                    }
                    // Answer what the machine holds (a producer's held
                    // requests): the drain waits for every answer.
                    loop {
                        let mut body = At::new(self, None);
                        pe::feed(&mut body, Event::Over);
                        if body.actions == 0 {
                            break;
                        }
                    }
                    return false;
                }
            }
            if !self.stopped() {
                let local_work = self.ctx.threads > 1 && self.ctx.shared.busy.load(Ordering::Relaxed) > 0;
                self.feed(Event::Idle { local_work }, None);
                if !self.pool.is_empty() {
                    continue; // the hub at PE 0 handed it a piece at once
                }
            }
            if !activity {
                if self.owed > 0 {
                    answer.wait();
                } else {
                    between.wait();
                }
            }
            self.outbox.progress();
        }
    }

    /// Sends an improvement of the shared state, if there is one the other
    /// ranks may not have: a relaxed load when nothing changed.
    fn share(&mut self) {
        let Some(shared) = self.ctx.state else { return };
        let version = shared.version();
        if version == self.seen {
            return;
        }
        let mut bytes = Vec::new();
        let Some(key) = shared.encode(&mut bytes) else {
            return; // a witness is being stored: look again after the next slice
        };
        self.seen = version;
        let known = &self.ctx.shared.known;
        if known.fetch_max(key, Ordering::AcqRel) >= key {
            return;
        }
        let threads = self.ctx.threads;
        for rank in (0..self.ctx.ranks).filter(|&r| r != self.ctx.rank) {
            self.improvements += 1;
            self.send_one_way(rank * threads, IMPROVE, bytes.clone());
        }
    }

    /// Sends the computation's notes ([`Codec::take_notes`]) to thread 0 of
    /// their ranks: a counted one as work for the detector (counted before
    /// the PE can next tell the detector it is idle, since every path to
    /// the detector passes a poll, which relays), the others as one-way
    /// messages for the drain. After termination no piece is left, so no
    /// note can matter: they are dropped unsent (an abort forwarded in the
    /// drain).
    fn relay(&mut self) {
        self.ctx.codec.take_notes(&mut self.notes);
        if self.notes.is_empty() {
            return;
        }
        let mut notes = std::mem::take(&mut self.notes);
        if !self.terminated {
            let threads = self.ctx.threads;
            for note in notes.drain(..) {
                if note.counted {
                    self.fc.work_sent();
                    self.send(note.to * threads, NOTE_COUNTED, note.bytes);
                } else {
                    self.send_one_way(note.to * threads, NOTE_ONE_WAY, note.bytes);
                }
            }
        }
        notes.clear();
        self.notes = notes;
    }

    /// Applies a note of the computation that arrived; a piece it gives goes
    /// into the pool.
    fn receive_note(&mut self, bytes: &[u8], from: usize) {
        let piece = self
            .ctx
            .codec
            .receive_note(bytes, &mut self.acc)
            .unwrap_or_else(|e| panic!("PE {}: a note from PE {from}: {e}", self.g));
        if let Some(piece) = piece {
            self.pool.push(piece, self.g);
        }
    }

    /// Receives every message that is there and hands it to the machine
    /// (or the hub, or the computation); `work` is the piece, while busy.
    /// Then relays the computation's notes. Returns whether anything
    /// arrived.
    fn poll(&mut self, work: Option<&mut C::Work>) -> bool {
        let activity = self.receive_all(work);
        self.relay();
        activity
    }

    /// [`Pe::poll`] without relaying.
    fn receive_all(&mut self, mut work: Option<&mut C::Work>) -> bool {
        let threads = self.ctx.threads;
        let mut activity = false;
        loop {
            self.probes += 1;
            let Some(probed) = self.comms[self.t].any_process().immediate_matched_probe() else {
                return activity;
            };
            activity = true;
            let (bytes, status) = probed.matched_receive_vec::<u8>();
            let tag = status.tag();
            let from = status.source_rank() as usize * threads + (tag / KINDS) as usize;
            // Events that only concern this PE's own attempts are not told
            // after termination: they could start new ones.
            let live = !self.terminated;
            let message = match tag % KINDS {
                REQUEST => Some(Message::Request { from }),
                WORK => {
                    self.owed -= 1;
                    self.fc.work_received();
                    Some(Message::Answer { from, piece: Some(self.decode(&bytes, from)) })
                }
                NO_WORK => {
                    self.owed -= 1;
                    if work.is_none() {
                        self.mark(State::Idle);
                    }
                    live.then_some(Message::Answer { from, piece: None })
                }
                LOAD_QUERY => {
                    self.queried = true;
                    Some(Message::LoadQuery { from })
                }
                LOAD => {
                    self.owed -= 1;
                    let load: u64 = self.decode_value(&bytes, from);
                    live.then_some(Message::Load { from, load })
                }
                PUSH => {
                    self.fc.work_received();
                    Some(Message::Push { from, piece: self.decode(&bytes, from) })
                }
                DEMAND => Some(Message::Demand),
                MOST_LOADED => {
                    self.owed -= 1;
                    let pe: Option<u64> = self.decode_value(&bytes, from);
                    live.then_some(Message::MostLoaded(pe.map(|pe| pe as usize)))
                }
                HAND => {
                    self.fc.work_received();
                    Some(Message::Answer { from, piece: Some(self.decode(&bytes, from)) })
                }
                HUB_REPORT => {
                    self.one_way_received += 1;
                    let load: u64 = self.decode_value(&bytes, from);
                    At::new(self, work.as_deref_mut()).hub_message(HubEvent::Report { from, load });
                    None
                }
                HUB_QUERY => {
                    At::new(self, work.as_deref_mut()).hub_message(HubEvent::QueryMostLoaded { from });
                    None
                }
                HUB_ASK => {
                    self.one_way_received += 1;
                    At::new(self, work.as_deref_mut()).hub_message(HubEvent::Ask { from });
                    None
                }
                HUB_DEPOSIT => {
                    self.fc.work_received();
                    let (load, piece): (u64, Vec<u8>) = self.decode_value(&bytes, from);
                    At::new(self, work.as_deref_mut())
                        .hub_message(HubEvent::Deposit { from, part: Some((piece, load)) });
                    None
                }
                HUB_NO_PART => {
                    At::new(self, work.as_deref_mut()).hub_message(HubEvent::Deposit { from, part: None });
                    None
                }
                SIGNAL => {
                    let signal: Signal = self.decode_value(&bytes, from);
                    let (outbox, comms, t) = (&mut self.outbox, &self.comms, self.t);
                    self.fc.on_signal(from, signal, &mut |to, s| {
                        send_to(outbox, comms, threads, t, to, SIGNAL, wire::to_bytes(&s));
                    });
                    None
                }
                IMPROVE => {
                    self.one_way_received += 1;
                    let shared = self
                        .ctx
                        .state
                        .unwrap_or_else(|| panic!("PE {}: an improvement without shared state", self.g));
                    let key = shared
                        .apply(&bytes)
                        .unwrap_or_else(|e| panic!("PE {}: improvement from PE {from}: {e}", self.g));
                    // Its sender sent it to every rank.
                    self.ctx.shared.known.fetch_max(key, Ordering::AcqRel);
                    None
                }
                NOTE_COUNTED => {
                    self.fc.work_received();
                    self.receive_note(&bytes, from);
                    None
                }
                NOTE_ONE_WAY => {
                    self.one_way_received += 1;
                    self.receive_note(&bytes, from);
                    None
                }
                other => panic!("PE {}: message of unknown kind {other} from PE {from}", self.g),
            };
            if let Some(message) = message {
                pe::receive(&mut At::new(self, work.as_deref_mut()), message);
            }
        }
    }

    fn decode(&self, bytes: &[u8], from: usize) -> C::Work {
        self.ctx.codec.decode(bytes).unwrap_or_else(|e| panic!("PE {}: a piece from PE {from}: {e}", self.g))
    }

    fn decode_value<T: serde::de::DeserializeOwned>(&self, bytes: &[u8], from: usize) -> T {
        wire::from_bytes(bytes).unwrap_or_else(|e| panic!("PE {}: a message from PE {from}: {e}", self.g))
    }

    /// Feeds an event to the machine and carries out its actions
    /// ([`pe::feed`]); `work` is the piece, if the PE holds one.
    fn feed(&mut self, event: Event, work: Option<&mut C::Work>) {
        pe::feed(&mut At::new(self, work), event);
    }

    /// The wire form of `piece`, going to PE `to` (`None`: the hub).
    fn encode(&mut self, piece: C::Work, to: Option<usize>) -> Vec<u8> {
        let mut buf = std::mem::take(&mut self.scratch);
        buf.clear();
        match to {
            Some(to) => self.ctx.codec.encode_to(piece, to / self.ctx.threads, &mut buf),
            None => self.ctx.codec.encode(piece, &mut buf),
        }
        buf
    }

    fn send(&mut self, to: usize, kind: i32, bytes: Vec<u8>) {
        send_to(&mut self.outbox, &self.comms, self.ctx.threads, self.t, to, kind, bytes);
    }

    /// A message nobody answers: counted per destination rank, so that the
    /// drain can wait for every one.
    fn send_one_way(&mut self, to: usize, kind: i32, bytes: Vec<u8>) {
        self.ctx.shared.one_way_sent[to / self.ctx.threads].fetch_add(1, Ordering::Relaxed);
        self.send(to, kind, bytes);
    }

    /// Runs the detector (the PE is idle).
    fn detect(&mut self) {
        let (outbox, comms, t, threads) = (&mut self.outbox, &self.comms, self.t, self.ctx.threads);
        self.fc.idle(&mut |to, s| send_to(outbox, comms, threads, t, to, SIGNAL, wire::to_bytes(&s)));
    }

    /// After termination: the two stages of the module documentation; then
    /// let every send complete.
    fn drain(&mut self, world: Option<&SimpleCommunicator>) {
        let mut backoff = Waiter::new(Patience::RETRY);
        // Stage 1: every answer this PE (and the hub) is owed.
        while self.owed > 0 || self.hub.as_ref().is_some_and(|h| h.demands_out() > 0) {
            if !self.poll(None) {
                self.outbox.progress();
                backoff.wait();
            }
        }
        let shared = &self.ctx.shared;
        shared.replied.fetch_add(1, Ordering::AcqRel);
        if let Some(world) = world {
            // Thread 0: once every thread of this rank is through stage 1,
            // stage 2.
            while shared.replied.load(Ordering::Acquire) < self.ctx.threads {
                if !self.poll(None) {
                    self.outbox.progress();
                    backoff.wait();
                }
            }
            self.drain_one_way(world, &mut backoff);
            shared.drained.store(true, Ordering::Release);
        } else {
            while !shared.drained.load(Ordering::Acquire) {
                if !self.poll(None) {
                    self.outbox.progress();
                    backoff.wait();
                }
            }
        }
        while !self.outbox.is_empty() {
            self.outbox.progress();
            backoff.wait();
        }
    }

    /// Thread 0, stage 2: a non-blocking all-to-all of the numbers of
    /// one-way messages each rank sent to each other one (it completes only
    /// once every rank has entered it); then receive until every one-way
    /// message sent to this rank is in, answering requests meanwhile.
    fn drain_one_way(&mut self, world: &SimpleCommunicator, backoff: &mut Waiter) {
        let sent: Vec<u64> = self.ctx.shared.one_way_sent.iter().map(|n| n.load(Ordering::Acquire)).collect();
        let mut incoming = vec![0u64; self.ctx.ranks];
        mpi::request::scope(|scope| {
            let mut exchange = world.immediate_all_to_all_into(scope, &sent[..], &mut incoming[..]);
            loop {
                match exchange.test() {
                    Ok(_) => break,
                    Err(pending) => exchange = pending,
                }
                if !self.poll(None) {
                    self.outbox.progress();
                    backoff.wait();
                }
            }
        });
        let expected: u64 = incoming.iter().sum();
        while self.one_way_received < expected {
            if !self.poll(None) {
                self.outbox.progress();
                backoff.wait();
            }
        }
    }
}

/// A PE with the piece it works on, if any: the body of the PE logic of
/// `treelb::pe` ([`pe::feed`], [`pe::receive`]). Its parts are the pieces
/// themselves, encoded when they are sent (for their destination rank);
/// the hub at PE 0 is reached by calls, the others' hubs by messages.
struct At<'p, 'a, 'w, C: Codec> {
    pe: &'p mut Pe<'a, C>,
    work: Option<&'w mut C::Work>,
    /// Actions decided through this body (the release of held requests
    /// after termination repeats until there are none).
    actions: usize,
}

impl<'p, 'a, 'w, C: Codec> At<'p, 'a, 'w, C> {
    fn new(pe: &'p mut Pe<'a, C>, work: Option<&'w mut C::Work>) -> Self {
        At { pe, work, actions: 0 }
    }

    /// A message to the hub (this is PE 0): runs it, sends or carries out
    /// what it answers (a demand to PE 0 itself splits its piece).
    fn hub_message(&mut self, event: HubEvent<Vec<u8>>) {
        let g = self.pe.g;
        let hub = self.pe.hub.as_mut().unwrap_or_else(|| panic!("PE {g}: a hub message without a hub"));
        let mut answers = Vec::new();
        hub.on(event, &mut answers);
        for answer in answers {
            match answer {
                HubAction::Ticket { .. } => unreachable!("global round robin's counter is an MPI window"),
                HubAction::MostLoaded { to, pe } if to != 0 => {
                    self.pe.send(to, MOST_LOADED, wire::to_bytes(&pe.map(|pe| pe as u64)));
                }
                HubAction::Hand { to, piece } if to != 0 => {
                    self.pe.fc.work_sent();
                    self.pe.send(to, HAND, piece);
                }
                HubAction::Demand { to } if to != 0 => self.pe.send(to, DEMAND, Vec::new()),
                HubAction::Hand { piece, .. } => {
                    // From the central pool to PE 0 itself: no message.
                    let piece = self.pe.decode(&piece, 0);
                    pe::receive(self, Message::Answer { from: 0, piece: Some(piece) });
                }
                HubAction::MostLoaded { pe, .. } => pe::receive(self, Message::MostLoaded(pe)),
                HubAction::Demand { .. } => pe::receive(self, Message::Demand),
            }
        }
    }
}

impl<C: Codec> Body for At<'_, '_, '_, C> {
    type Part = C::Work;

    fn me(&self) -> usize {
        self.pe.g
    }

    fn decide(&mut self, event: Event) -> Actions {
        let pe = &mut *self.pe;
        let actions = decide(&mut pe.machine, event, pe.decisions.as_mut());
        self.actions += actions.as_slice().len();
        actions
    }

    /// Holding a piece it may give away: not once the computation is
    /// decided or the run is over.
    fn busy(&self) -> bool {
        self.work.is_some() && !self.pe.stopped() && !self.pe.terminated
    }

    fn held(&self) -> u64 {
        pieces_held(self.work.is_some(), self.pe.pool.len())
    }

    /// Nothing once decided or over.
    fn split_off(&mut self) -> (Option<C::Work>, u64) {
        if self.pe.stopped() || self.pe.terminated {
            return (None, 0);
        }
        let Some(work) = self.work.as_deref_mut() else { return (None, 0) };
        if let Some(tracer) = &mut self.pe.tracer {
            tracer.enter(State::Splitting);
        }
        let part = work.split();
        let load = work.load();
        if part.is_some() {
            self.pe.stats.splits += 1;
            self.pe.stats.pieces_sent += 1;
        } else {
            self.pe.mark(State::Working);
        }
        (part, load)
    }

    /// A pooled piece, else a part split off; cut down, the remainders
    /// pooled (pieces that stay on this PE: the detector does not count
    /// them). Nothing once decided or over.
    fn produce(&mut self, generation: u32) -> (Option<C::Work>, u64) {
        if self.pe.stopped() || self.pe.terminated {
            return (None, 0);
        }
        let part = match self.pe.pool.take() {
            Some((piece, from)) => {
                if from != self.pe.g {
                    self.pe.stats.pieces_received += 1;
                    self.pe.note(What::Receive { from });
                }
                self.pe.stats.pieces_sent += 1;
                Some(piece)
            }
            None => self.split_off().0,
        };
        let part = part.map(|part| {
            let pe = &mut *self.pe;
            treelb::pe::cut(part, generation, |rest| {
                pe.stats.splits += 1;
                pe.pool.push(rest, pe.g);
            })
        });
        (part, self.work.as_deref().map_or(0, Work::load))
    }

    fn part_load(&self, part: &C::Work) -> u64 {
        part.load()
    }

    /// A part is counted as sent work before it can arrive (see
    /// `treelb::termination`); a request or load query is owed its answer.
    fn send(&mut self, to: usize, message: Message<C::Work>) {
        let back = if self.work.is_some() { State::Working } else { State::Idle };
        let pe = &mut *self.pe;
        match message {
            Message::Request { .. } => {
                pe.owed += 1;
                pe.note(What::Request { to });
                pe.mark(State::Requesting);
                pe.send(to, REQUEST, Vec::new());
            }
            Message::Answer { piece: Some(part), .. } => {
                pe.fc.work_sent();
                pe.mark(State::Sending);
                pe.note(What::Give { to });
                let bytes = pe.encode(part, Some(to));
                pe.send(to, WORK, bytes);
                pe.mark(back);
            }
            Message::Answer { piece: None, .. } => pe.send(to, NO_WORK, Vec::new()),
            Message::Push { piece, .. } => {
                pe.fc.work_sent();
                pe.mark(State::Sending);
                pe.note(What::Give { to });
                let bytes = pe.encode(piece, Some(to));
                pe.send(to, PUSH, bytes);
                pe.mark(back);
            }
            Message::LoadQuery { .. } => {
                pe.owed += 1;
                pe.send(to, LOAD_QUERY, Vec::new());
            }
            Message::Load { load, .. } => pe.send(to, LOAD, wire::to_bytes(&load)),
            Message::Ticket(_) | Message::MostLoaded(_) | Message::Demand => {
                unreachable!("only the hub sends tickets, loads and demands")
            }
        }
    }

    /// A ticket is taken from the counter window; PE 0's other messages to
    /// the hub are calls, the others' messages.
    fn send_hub(&mut self, event: HubEvent<C::Work>) {
        if let HubEvent::Ticket { .. } = event {
            let counter = self.pe.ctx.counter.as_ref().expect("global round robin has its counter");
            let ticket = counter.next_ticket();
            pe::receive(self, Message::Ticket(ticket));
            return;
        }
        let event = match event {
            HubEvent::Deposit { from, part: Some((piece, load)) } => {
                HubEvent::Deposit { from, part: Some((self.pe.encode(piece, None), load)) }
            }
            HubEvent::Deposit { from, part: None } => HubEvent::Deposit { from, part: None },
            HubEvent::Ticket { from } => HubEvent::Ticket { from },
            HubEvent::QueryMostLoaded { from } => HubEvent::QueryMostLoaded { from },
            HubEvent::Report { from, load } => HubEvent::Report { from, load },
            HubEvent::Ask { from } => HubEvent::Ask { from },
        };
        if self.pe.g == 0 {
            self.hub_message(event);
            return;
        }
        let pe = &mut *self.pe;
        match event {
            HubEvent::QueryMostLoaded { .. } => {
                pe.owed += 1;
                pe.send(0, HUB_QUERY, Vec::new());
            }
            HubEvent::Report { load, .. } => pe.send_one_way(0, HUB_REPORT, wire::to_bytes(&load)),
            HubEvent::Ask { .. } => pe.send_one_way(0, HUB_ASK, Vec::new()),
            HubEvent::Deposit { part: Some((bytes, load)), .. } => {
                pe.fc.work_sent();
                pe.send(0, HUB_DEPOSIT, wire::to_bytes(&(load, bytes)));
            }
            HubEvent::Deposit { part: None, .. } => pe.send(0, HUB_NO_PART, Vec::new()),
            HubEvent::Ticket { .. } => unreachable!("tickets come from the counter window"),
        }
    }

    /// An answer's piece (from a PE or the central pool) is counted
    /// received now and waits in the pool as the PE's own; a pushed piece
    /// is counted when it is taken from the pool.
    fn accept(&mut self, piece: C::Work, from: usize, answer: bool) {
        let pe = &mut *self.pe;
        if answer {
            pe.stats.pieces_received += 1;
            pe.note(What::Receive { from });
            pe.pool.push(piece, pe.g);
        } else {
            pe.pool.push(piece, from);
        }
    }
}

/// Starts a non-blocking send from thread `me_t` to PE `to` (global index).
fn send_to(
    outbox: &mut Outbox,
    comms: &[ManuallyDrop<SimpleCommunicator>],
    threads: usize,
    me_t: usize,
    to: usize,
    kind: i32,
    bytes: Vec<u8>,
) {
    let tag = kind + KINDS * me_t as i32;
    outbox.send(&comms[to % threads], to / threads, tag, bytes);
}
