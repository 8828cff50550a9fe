//! The work-stealing simulation: `003_…` Figure 1 as a discrete-event model.
//!
//! Each PE is in one of two states.
//!
//! * **Busy** — it holds a piece. It works Δt, probes its message queue
//!   (`T_poll`), and if a request is waiting it splits its piece (`T_split`)
//!   and sends one part, or answers "no work" if the piece is atomic. One
//!   request is served per probe; others wait in the PE's FIFO queue.
//! * **Idle** — it has no piece. It picks a victim with its
//!   [`VictimSelector`] (random polling, asynchronous round robin) or asks
//!   the shared counter for a ticket first (global round robin), sends a
//!   request and waits. Requests that reach an idle PE are rejected at once.
//!
//! Probes that nobody asked for change nothing, so a busy PE whose piece
//! knows its size ([`SimWork::remaining`]) is not stepped Δt by Δt: the
//! simulator schedules the end of the piece, and only when a request arrives
//! does it compute the next probe (`start + (j+1)·Δt + j·T_poll`) and work
//! the piece up to it. Pieces of unknown size (real trees) are worked Δt at
//! a time, one event per probe.
//!
//! The run ends when no piece is left, neither on a PE nor in a message,
//! plus the termination detection delay of the [`Machine`].

use std::time::Instant;

use serde::{Deserialize, Serialize};
use treelb::init::selective;
use treelb::strategy::VictimSelector;
use treelb::{Init, Progress, Reduce, Strategy};

use crate::machine::Machine;
use crate::queue::{EventQueue, Kind, Msg, Time};
use crate::utilization::{Recorder, Utilization};
use crate::workload::SimWork;

/// What to simulate, apart from the workload.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimConfig {
    /// The machine: P, network, costs.
    pub machine: Machine,
    /// The balancing strategy.
    pub strategy: Strategy,
    /// How the root reaches the PEs.
    pub init: Init,
    /// Seeds the PEs' choices.
    pub seed: u64,
    /// The ticks one unit of the workload's work takes (1 for abstract
    /// pieces, the cost of a node for a tree).
    pub unit_ticks: Time,
    /// Stop after this many events (the report then says `complete: false`).
    pub max_events: u64,
}

impl SimConfig {
    /// A configuration with one tick per unit of work and no event limit.
    pub fn new(machine: Machine, strategy: Strategy, init: Init, seed: u64) -> Self {
        SimConfig { machine, strategy, init, seed, unit_ticks: 1, max_events: u64::MAX }
    }
}

/// The work-stealing strategies, which [`simulate`] runs.
pub const STEALING: [Strategy; 3] =
    [Strategy::RandomPolling, Strategy::GlobalRoundRobin, Strategy::AsyncRoundRobin];

/// What one simulated PE did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeReport {
    /// Ticks holding a piece (working, probing, splitting).
    pub busy: Time,
    /// Ticks without a piece, up to the end of the run.
    pub idle: Time,
    /// Units of work done.
    pub work_units: u64,
    /// Requests sent.
    pub requests_sent: u64,
    /// Requests sent that were answered "no work".
    pub requests_failed: u64,
    /// Pieces given away.
    pub pieces_sent: u64,
    /// Pieces received (not counting the initial one).
    pub pieces_received: u64,
}

/// The result of a simulated run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimReport {
    /// The strategy's name.
    pub strategy: String,
    /// The initialization's name.
    pub init: String,
    /// The machine.
    pub machine: Machine,
    /// `T_seq`: the sequential time of the work done, in ticks.
    pub t_seq: Time,
    /// `T_par`: the time until termination is detected, in ticks.
    pub t_par: Time,
    /// The time the last piece was exhausted.
    pub t_last_work: Time,
    /// `T_seq / (P · T_par)`.
    pub efficiency: f64,
    /// Units of work done, summed over PEs.
    pub work_units: u64,
    /// Requests for work sent.
    pub requests: u64,
    /// Requests answered "no work".
    pub requests_failed: u64,
    /// Pieces moved between PEs.
    pub transfers: u64,
    /// Global round robin: tickets taken from the shared counter.
    pub counter_ops: u64,
    /// Events processed.
    pub events: u64,
    /// Whether the run finished (false if it hit the event limit).
    pub complete: bool,
    /// Wall-clock seconds the simulation took.
    pub wall_seconds: f64,
    /// PE utilization over time.
    pub utilization: Utilization,
    /// Per PE (empty unless asked for).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub per_pe: Vec<PeReport>,
    /// The levels of a producer tree, root first (empty for other
    /// strategies).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub levels: Vec<crate::multilevel::Level>,
}

impl SimReport {
    /// Events processed per wall-clock second.
    pub fn events_per_second(&self) -> f64 {
        self.events as f64 / self.wall_seconds.max(1e-9)
    }
}

/// The CPU time this thread has used, in seconds, if the system tells
/// (Linux: `/proc/thread-self/schedstat`). Unlike wall-clock time it does
/// not count the time other processes of a shared machine take the core.
pub fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// Why a simulation could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub Strategy);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the simulator does not run `{}` on tree-shaped work", self.0)
    }
}

impl std::error::Error for Unsupported {}

/// The state of a PE that almost every event reads, kept apart from the
/// rest so that the states of 16384 PEs fit in a core's L2 cache.
#[derive(Clone, Copy, Debug)]
struct Hot {
    /// Bumped whenever the scheduled `Poll`/`Done` of this PE is superseded.
    epoch: u32,
    /// Holds a piece.
    busy: bool,
    /// Busy and running with nobody asking: only `Done` is scheduled, and
    /// the piece has not been worked since `run_start`.
    running: bool,
    /// The first and last requester waiting for this PE's next probe
    /// ([`NONE`] if none); the queue is linked through `Sim::next`.
    head: u32,
    tail: u32,
    /// When the current run started (if `running`).
    run_start: Time,
}

/// No PE: the end of a request queue.
const NONE: u32 = u32::MAX;

impl Default for Hot {
    fn default() -> Self {
        Hot { epoch: 0, busy: false, running: false, head: NONE, tail: NONE, run_start: 0 }
    }
}

/// What an idle PE needs to ask for work.
struct Asker {
    selector: VictimSelector,
    requests_sent: u64,
    requests_failed: u64,
}

/// A PE's piece and counters, together because the events that touch one
/// touch the other.
struct Slot<W> {
    piece: Option<W>,
    c: Counters,
}

/// The rest of a PE's counters.
#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    busy: Time,
    busy_since: Time,
    work_units: u64,
    pieces_sent: u64,
    pieces_received: u64,
}

struct Sim<W: SimWork> {
    cfg: SimConfig,
    m: Machine,
    q: EventQueue,
    hot: Vec<Hot>,
    slots: Vec<Slot<W>>,
    /// The piece on its way to each PE (a PE has at most one request, so
    /// at most one piece, in flight).
    inbox: Vec<Option<W>>,
    /// The request queues, linked through the requesters: `next[r]` follows
    /// requester `r` in the queue it waits in (a PE has at most one request
    /// out, so it waits in at most one queue).
    next: Vec<u32>,
    askers: Vec<Asker>,
    /// Pieces anywhere: on PEs and in messages.
    live: u64,
    busy: u64,
    util: Recorder,
    output: W::Output,
    /// Budget of one Δt, in units of work.
    budget: u64,
    counter_free: Time,
    counter_next: u64,
    counter_ops: u64,
}

/// Simulates `root` under `cfg`: the work-stealing strategies ([`STEALING`])
/// here, the work-sharing ones in [`crate::sharing`].
///
/// Returns the report and the merged output of the work (which equals the
/// sequential output: the simulator runs the real `work` and `split`).
pub fn simulate<W: SimWork>(root: W, cfg: &SimConfig) -> Result<(SimReport, W::Output), Unsupported> {
    simulate_with(root, cfg, false)
}

/// [`simulate`], keeping the per-PE reports if `per_pe`.
///
/// The work-sharing strategies ([`crate::sharing::SHARING`]) are passed on
/// to [`crate::sharing::simulate`], the static ones
/// ([`crate::static_assign::STATIC`]) to [`crate::static_assign::simulate`].
pub fn simulate_with<W: SimWork>(
    root: W,
    cfg: &SimConfig,
    per_pe: bool,
) -> Result<(SimReport, W::Output), Unsupported> {
    if crate::sharing::SHARING.contains(&cfg.strategy) {
        let (mut r, out) = crate::sharing::simulate(root, cfg)?;
        if !per_pe {
            r.per_pe.clear();
        }
        return Ok((r, out));
    }
    if crate::static_assign::STATIC.contains(&cfg.strategy) {
        let (mut r, out) = crate::static_assign::simulate(root, cfg)?;
        if !per_pe {
            r.per_pe.clear();
        }
        return Ok((r, out));
    }
    if !STEALING.contains(&cfg.strategy) {
        return Err(Unsupported(cfg.strategy));
    }
    let wall = Instant::now();
    let m = cfg.machine;
    let p = m.p as usize;
    let unit = cfg.unit_ticks.max(1);
    let mut sim = Sim {
        cfg: *cfg,
        m,
        q: EventQueue::default(),
        hot: vec![Hot::default(); p],
        slots: (0..p).map(|_| Slot { piece: None, c: Counters::default() }).collect(),
        inbox: (0..p).map(|_| None).collect(),
        next: vec![NONE; p],
        askers: (0..p)
            .map(|i| Asker {
                selector: VictimSelector::new(cfg.strategy, i, p, cfg.seed),
                requests_sent: 0,
                requests_failed: 0,
            })
            .collect(),
        live: 0,
        busy: 0,
        util: Recorder::default(),
        output: W::Output::default(),
        budget: (m.costs.dt / unit).max(1),
        counter_free: 0,
        counter_next: 0,
        counter_ops: 0,
    };
    match cfg.init {
        Init::Root => {
            sim.live = 1;
            sim.inbox[0] = Some(root);
            sim.q.push(0, Kind::Arrive { to: 0, msg: Msg::Init });
            for pe in 1..p {
                sim.ask(pe as u32, 0);
            }
        }
        Init::Selective => {
            // Broadcast the root, then every PE splits its copy ⌈log₂ P⌉
            // times by the bits of its index. Each split costs T_split, and
            // the work done on pieces too small to split is done by every PE
            // of a group (PE 0's share is the longest such path).
            let start = m.broadcast_delay();
            let shares: Vec<_> = (0..p).map(|pe| selective(&root, pe, p)).collect();
            let redundant = shares[0].units * unit;
            for (pe, share) in shares.into_iter().enumerate() {
                sim.output.merge(share.output);
                sim.slots[pe].c.work_units += share.units;
                match share.piece {
                    Some(piece) => {
                        let ready = start + Time::from(piece.generation()) * m.costs.t_split + redundant;
                        sim.live += 1;
                        sim.inbox[pe] = Some(piece);
                        sim.q.push(ready, Kind::Arrive { to: pe as u32, msg: Msg::Init });
                    }
                    None => sim.ask(pe as u32, start + redundant),
                }
            }
        }
    }
    let mut events = 0u64;
    let mut now = 0;
    let mut complete = true;
    let mut t_last = 0;
    if sim.live > 0 {
        while let Some(ev) = sim.q.pop() {
            events += 1;
            now = ev.time;
            if let Some(&next) = sim.q.peek_same_time() {
                sim.prefetch(next);
            }
            match ev.kind {
                Kind::Arrive { to, msg } => sim.arrive(now, to, msg),
                Kind::Poll { pe, epoch } => {
                    if sim.hot[pe as usize].epoch == epoch {
                        sim.poll(now, pe);
                    }
                }
                Kind::Done { pe, epoch } => {
                    if sim.hot[pe as usize].epoch == epoch {
                        sim.done(now, pe);
                        if sim.live == 0 {
                            t_last = now;
                            break;
                        }
                    }
                }
            }
            if events >= cfg.max_events {
                complete = false;
                t_last = now;
                break;
            }
        }
    }
    let t_par = t_last + if complete { m.termination_delay() } else { 0 };
    let _ = now;
    let mut per = Vec::with_capacity(if per_pe { p } else { 0 });
    let (mut work_units, mut requests, mut failed, mut transfers) = (0, 0, 0, 0);
    for i in 0..p {
        let c = &mut sim.slots[i].c;
        if sim.hot[i].busy {
            c.busy += t_last - c.busy_since;
        }
        let a = &sim.askers[i];
        work_units += c.work_units;
        requests += a.requests_sent;
        failed += a.requests_failed;
        transfers += c.pieces_received;
        if per_pe {
            per.push(PeReport {
                busy: c.busy,
                idle: t_par - c.busy,
                work_units: c.work_units,
                requests_sent: a.requests_sent,
                requests_failed: a.requests_failed,
                pieces_sent: c.pieces_sent,
                pieces_received: c.pieces_received,
            });
        }
    }
    let t_seq = work_units * unit;
    let report = SimReport {
        strategy: cfg.strategy.name().to_owned(),
        init: cfg.init.name().to_owned(),
        machine: m,
        t_seq,
        t_par,
        t_last_work: t_last,
        efficiency: if t_par == 0 { 1.0 } else { t_seq as f64 / (f64::from(m.p) * t_par as f64) },
        work_units,
        requests,
        requests_failed: failed,
        transfers,
        counter_ops: sim.counter_ops,
        events,
        complete,
        wall_seconds: wall.elapsed().as_secs_f64(),
        utilization: sim.util.finish(t_par, m.p),
        per_pe: per,
        levels: Vec::new(),
    };
    Ok((report, sim.output))
}

/// Asks the CPU to bring the cache line of `r` closer, without waiting
/// for it (a hint: no effect on what the program computes).
#[inline(always)]
fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: [1] `_mm_prefetch` needs SSE, which every x86_64 CPU has
    // (it is in the target's baseline features); [2] a prefetch never
    // faults and writes nothing, and the pointer comes from a live
    // reference anyway.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((r as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

impl<W: SimWork> Sim<W> {
    /// Starts fetching the state of the PE the event `next` is about, so
    /// that the misses of 16384 PEs' random accesses overlap with the work
    /// of the current event.
    #[inline(always)]
    fn prefetch(&self, next: Kind) {
        let pe = match next {
            Kind::Arrive { to, .. } => to,
            Kind::Poll { pe, .. } | Kind::Done { pe, .. } => pe,
        } as usize;
        prefetch(&self.hot[pe]);
        prefetch(&self.slots[pe]);
        prefetch(&self.askers[pe]);
    }

    fn unit(&self) -> Time {
        self.cfg.unit_ticks.max(1)
    }

    /// Appends requester `from` to PE `to`'s queue.
    #[inline]
    fn enqueue(&mut self, to: u32, from: u32) {
        self.next[from as usize] = NONE;
        let h = &mut self.hot[to as usize];
        if h.head == NONE {
            h.head = from;
        } else {
            self.next[h.tail as usize] = from;
        }
        h.tail = from;
    }

    /// Removes the first requester of PE `id`'s queue.
    #[inline]
    fn dequeue(&mut self, id: u32) -> Option<u32> {
        let h = &mut self.hot[id as usize];
        let from = h.head;
        if from == NONE {
            return None;
        }
        h.head = self.next[from as usize];
        if h.head == NONE {
            h.tail = NONE;
        }
        Some(from)
    }

    /// PE `pe` is idle at time `t` and asks for work.
    fn ask(&mut self, pe: u32, t: Time) {
        let sel = &mut self.askers[pe as usize].selector;
        if sel.uses_global_counter() {
            if self.m.p > 1 {
                self.q.push(t + self.m.delay(pe, 0), Kind::Arrive { to: 0, msg: Msg::Ticket { from: pe } });
            }
        } else if let Some(victim) = sel.next_victim() {
            self.request(pe, victim as u32, t);
        }
    }

    #[inline]
    fn request(&mut self, pe: u32, victim: u32, t: Time) {
        self.askers[pe as usize].requests_sent += 1;
        self.q
            .push(t + self.m.delay(pe, victim), Kind::Arrive { to: victim, msg: Msg::Request { from: pe } });
    }

    #[inline]
    fn send(&mut self, from: u32, to: u32, t: Time, msg: Msg) {
        self.q.push(t + self.m.delay(from, to), Kind::Arrive { to, msg });
    }

    #[inline]
    fn arrive(&mut self, now: Time, to: u32, msg: Msg) {
        match msg {
            Msg::Request { from } => self.request_arrives(now, to, from),
            Msg::Reject => {
                self.askers[to as usize].requests_failed += 1;
                self.ask(to, now);
            }
            Msg::Work | Msg::Init => {
                let i = to as usize;
                let slot = &mut self.slots[i];
                slot.piece = self.inbox[i].take();
                debug_assert!(slot.piece.is_some());
                let c = &mut slot.c;
                if msg == Msg::Work {
                    c.pieces_received += 1;
                }
                c.busy_since = now;
                self.hot[i].busy = true;
                self.busy += 1;
                self.util.set(now, self.busy);
                self.start_run(now, to);
            }
            Msg::Ticket { from } => {
                // The counter serves tickets one at a time, in arrival order.
                let start = now.max(self.counter_free);
                self.counter_free = start + self.m.costs.t_counter;
                let ticket = (self.counter_next % u64::from(self.m.p)) as u32;
                self.counter_next += 1;
                self.counter_ops += 1;
                self.send(0, from, self.counter_free, Msg::TicketReply { ticket });
            }
            Msg::TicketReply { ticket } => {
                match self.askers[to as usize].selector.victim_from_ticket(u64::from(ticket)) {
                    Some(victim) => self.request(to, victim as u32, now),
                    None => self.ask(to, now),
                }
            }
            Msg::Push { .. } | Msg::Ack => unreachable!("work sharing messages in a work-stealing run"),
        }
    }

    #[inline]
    fn request_arrives(&mut self, now: Time, to: u32, from: u32) {
        let i = to as usize;
        let hot = self.hot[i];
        if !hot.busy {
            self.send(to, from, now, Msg::Reject);
            return;
        }
        self.enqueue(to, from);
        if hot.running {
            // The next probe at or after `now`: probe j starts at
            // start + (j+1)·Δt + j·T_poll.
            let unit = self.unit();
            let (dt, t_poll) = (self.budget * unit, self.m.costs.t_poll);
            let start = hot.run_start;
            let j = if now <= start + dt { 0 } else { (now - start - dt).div_ceil(dt + t_poll) };
            let probe = start + (j + 1) * dt + j * t_poll;
            let slot = &mut self.slots[i];
            let piece = slot.piece.as_mut().expect("a busy PE has a piece");
            let left = piece.remaining().expect("a running piece knows its size") * unit;
            if (j + 1) * dt < left {
                let units = (j + 1) * self.budget;
                let progress = piece.work(units, &mut self.output);
                debug_assert_eq!(progress, Progress::Pending);
                slot.c.work_units += units;
                let h = &mut self.hot[i];
                h.epoch = h.epoch.wrapping_add(1);
                h.running = false;
                self.q.push(probe, Kind::Poll { pe: to, epoch: h.epoch });
            }
            // Otherwise the piece ends before the next probe; `done` rejects.
        }
    }

    /// PE `id` starts (or resumes) working at time `t`.
    fn start_run(&mut self, t: Time, id: u32) {
        let i = id as usize;
        let unit = self.unit();
        let (budget, t_poll) = (self.budget, self.m.costs.t_poll);
        let h = &mut self.hot[i];
        h.epoch = h.epoch.wrapping_add(1);
        let epoch = h.epoch;
        let slot = &mut self.slots[i];
        let piece = slot.piece.as_mut().expect("a running PE has a piece");
        if h.head == NONE
            && let Some(left) = piece.remaining()
        {
            let (work, dt) = (left * unit, budget * unit);
            let probes = if work <= dt { 0 } else { work.div_ceil(dt) - 1 };
            h.running = true;
            h.run_start = t;
            self.q.push(t + work + probes * t_poll, Kind::Done { pe: id, epoch });
            return;
        }
        h.running = false;
        match piece.work(budget, &mut self.output) {
            Progress::Pending => {
                slot.c.work_units += budget;
                self.q.push(t + budget * unit, Kind::Poll { pe: id, epoch });
            }
            Progress::Exhausted { used } => {
                slot.c.work_units += used;
                self.q.push(t + used * unit, Kind::Done { pe: id, epoch });
            }
        }
    }

    /// A busy PE probes its queue at `now` and serves one request.
    fn poll(&mut self, now: Time, id: u32) {
        let i = id as usize;
        let costs = self.m.costs;
        let mut t = now + costs.t_poll;
        if let Some(from) = self.dequeue(id) {
            let slot = &mut self.slots[i];
            let piece = slot.piece.as_mut().expect("a polling PE has a piece");
            match piece.split() {
                Some(given) => {
                    t += costs.t_split;
                    slot.c.pieces_sent += 1;
                    self.inbox[from as usize] = Some(given);
                    self.live += 1;
                    self.send(id, from, t, Msg::Work);
                }
                None => self.send(id, from, t, Msg::Reject),
            }
        }
        self.start_run(t, id);
    }

    /// PE `id` exhausts its piece at `now`.
    fn done(&mut self, now: Time, id: u32) {
        let i = id as usize;
        let slot = &mut self.slots[i];
        let mut piece = slot.piece.take().expect("a finishing PE has a piece");
        let h = &mut self.hot[i];
        if h.running {
            let left = piece.remaining().unwrap_or(0);
            let progress = piece.work(left, &mut self.output);
            debug_assert!(progress.is_exhausted());
            slot.c.work_units += left;
        }
        h.busy = false;
        h.running = false;
        let c = &mut slot.c;
        c.busy += now - c.busy_since;
        self.live -= 1;
        self.busy -= 1;
        self.util.set(now, self.busy);
        if self.live == 0 {
            return;
        }
        while let Some(from) = self.dequeue(id) {
            self.send(id, from, now, Msg::Reject);
        }
        self.ask(id, now);
    }
}
