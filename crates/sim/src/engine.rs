//! The simulation: every strategy's machine (`treelb::strategy`) on the
//! discrete-event machine model, [Sanders 1999] Figure 1 as events.
//!
//! Each PE is in one of two states.
//!
//! * **Busy** — it holds a piece. It works Δt, probes its message queue
//!   (`T_poll`), tells its machine about the slice if the machine wants to
//!   hear ([`Balance::wants_slices`]), and handles the messages that
//!   arrived: at most one split for another PE (a request, a demand of the
//!   master) per probe — others wait for the next probe — and every other
//!   message (load queries and their answers, pushes, the hub's answers).
//!   Every split costs `T_split`.
//! * **Idle** — it has no piece and its pool is empty. It handles every
//!   message as it arrives and tells its machine it is idle after each;
//!   the machine decides whether to ask anyone (an idle PE that waits for a
//!   push, or for the end, does nothing).
//!
//! A message from PE i to PE j arrives `T_rout · max(1, d(i, j))` after it
//! is sent ([`Platform::delay`]) under the seeds' model; under LogGP
//! ([`crate::loggp`]) it leaves through the sender's network interface
//! after the messages before it, its head travels `L` per hop, and it
//! arrives when the receiver's interface has taken its bytes in (a
//! [`Kind::Wire`] event, then the arrival), the ends paying `o_s` and
//! `o_r`. The run's hub (the counter of global
//! round robin, the load heap of max-load, the central pool of
//! master–worker) sits at PE 0 and serves one message per `T_counter`, in
//! arrival order; every message to and from it travels the network.
//!
//! Messages that a busy PE nobody writes to would find are none, so a busy
//! PE whose piece knows its size ([`SimWork::remaining`]) and whose machine
//! does not want slices (the stealing strategies, multilevel, static) is not
//! stepped Δt by Δt: the simulator schedules the end of the piece, and only
//! when a message arrives does it compute the next probe
//! (`start + (j+1)·Δt + j·T_poll`) and work the piece up to it. Pieces of
//! unknown size (real trees) and machines that want slices are worked Δt at
//! a time, one event per probe.
//!
//! What a PE does with its machine's actions and with the messages that
//! reach it is the logic of `treelb::pe` ([`treelb::pe::feed`],
//! [`treelb::pe::receive`]), run over the simulator's own storage: pieces
//! in flight by slot in one table, the machines apart from the pieces, every
//! send and split advancing the PE's clock by its cost. The simulator owns
//! the time: when a slice is worked (a piece of known size in one step),
//! when a busy PE probes, which message waits for the next probe.
//!
//! The run ends when no piece is left — on a PE, in a pool, in a message or
//! at the hub — plus the termination detection delay of the [`Platform`]
//! under the seeds' model; under LogGP, when the messages of termination
//! detection have reached every PE ([`loggp::termination`]). Selective
//! initialization starts after the seeds' constant broadcast delay, or
//! under LogGP when the broadcast's messages reach each PE
//! ([`loggp::broadcast`]); with root initialization the first requests
//! are messages like any other under both.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use treelb::pe::{self, Body, Message};
use treelb::spec::SpecError;
use treelb::strategy::{Actions, Balance, Event, Hub, HubAction, HubEvent, Waiting, decide, pieces_held};
use treelb::{Init, PeStats, Progress, Reduce, RunSpec, Strategy, Work};

use crate::loggp::{self, LogGp, Nics};
use crate::platform::{Cores, Model, Platform};
use crate::queue::{EventQueue, HUB, Kind, Msg, NONE, Tag, Time, decode_load, encode_load};
use crate::utilization::{Recorder, Utilization};
use crate::workload::SimWork;

/// What to simulate, apart from the workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimConfig {
    /// The machine: P, network, costs.
    pub machine: Platform,
    /// How to balance: the same specification the runtimes take (Δt in
    /// units of work, as everywhere).
    pub spec: RunSpec,
    /// The ticks one unit of the workload's work takes (1 for abstract
    /// pieces, the cost of a node for a tree).
    pub unit_ticks: Time,
    /// Stop after this many events (the report then says `complete: false`).
    pub max_events: u64,
    /// Record every decision of every PE's machine in
    /// [`SimReport::decisions`] (for conformance tests).
    #[serde(default)]
    pub record_decisions: bool,
    /// Queue trimming of the stealing strategies ([Sanders 1999] Theorem 2): at
    /// most this many requests wait for a busy PE's probe; one more is
    /// answered "no work" on arrival (`None`: off, the default).
    #[serde(default)]
    pub trim: Option<usize>,
    /// PEs that share fewer cores than there are PEs ([`Cores`]: run to
    /// idle, or time sharing with a quantum); `None` (the default), or as
    /// many cores as PEs: every PE has a core of its own.
    #[serde(default)]
    pub cores: Option<Cores>,
}

/// The Δt of the machine model's reference runs (the reproductions, the
/// `treelb sim run` default): 100 units, so that with the default
/// `T_poll` = 1 probing costs 1 % of an abstract piece's work.
pub const REFERENCE_BUDGET: treelb::spec::Budget = treelb::spec::Budget::of(100);

impl SimConfig {
    /// A configuration with one tick per unit of work and no event limit.
    pub fn new(machine: Platform, spec: RunSpec) -> Self {
        SimConfig {
            machine,
            spec,
            unit_ticks: 1,
            max_events: u64::MAX,
            record_decisions: false,
            trim: None,
            cores: None,
        }
    }

    /// A reference run: `strategy` from `init` with the run seed `seed`,
    /// Δt = [`REFERENCE_BUDGET`], the other parameters at their defaults.
    pub fn model(machine: Platform, strategy: Strategy, init: Init, seed: u64) -> Self {
        let spec = RunSpec { strategy, init, seed, budget: REFERENCE_BUDGET, ..RunSpec::default() };
        SimConfig::new(machine, spec)
    }

    /// Δt in ticks: the one place where units of work become time.
    pub fn dt_ticks(&self) -> Time {
        self.spec.budget.get() * self.unit_ticks.max(1)
    }
}

/// The result of a simulated run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimReport {
    /// The strategy's name.
    pub strategy: String,
    /// The initialization's name.
    pub init: String,
    /// The machine.
    pub machine: Platform,
    /// Δt, in units of work.
    pub budget: u64,
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
    /// Attempts to get work (requests; offers under the pushing
    /// strategies; requests to the central pool under master–worker).
    pub requests: u64,
    /// Attempts that brought nothing.
    pub requests_failed: u64,
    /// Pieces moved between PEs (through the hub: counted once).
    pub transfers: u64,
    /// Messages sent by all PEs and the hub.
    pub messages: u64,
    /// Messages the hub served (tickets, load reports and look-ups,
    /// requests and parts of the central pool).
    pub counter_ops: u64,
    /// Operations on max-load's heap of reported loads.
    pub heap_ops: u64,
    /// Events processed.
    pub events: u64,
    /// The most requests for work that ever waited at once for one busy
    /// PE's probe.
    #[serde(default)]
    pub max_queue: u64,
    /// Requests for work that reached a PE (not the hub), idle or busy.
    #[serde(default)]
    pub request_arrivals: u64,
    /// The requests already waiting at the PE that each of them found on
    /// arrival (0 at an idle PE), summed: over `request_arrivals`, the
    /// mean queue length a request encounters ([Sanders 1999] Lemma 1).
    #[serde(default)]
    pub queue_encountered: u64,
    /// Whether the run finished (false if it hit the event limit).
    pub complete: bool,
    /// Hand-overs of a core from one PE to another, when PEs share fewer
    /// cores ([`SimConfig::cores`]); 0 otherwise.
    #[serde(default)]
    pub core_switches: u64,
    /// Wall-clock seconds the simulation took.
    pub wall_seconds: f64,
    /// PE utilization over time.
    pub utilization: Utilization,
    /// Per PE (empty unless asked for). Busy and idle are ticks, written as
    /// nanoseconds (one tick, one nanosecond).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub per_pe: Vec<PeStats>,
    /// The levels of a producer tree of the i.i.d. subtask model, root
    /// first (empty otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub levels: Vec<crate::multilevel::Level>,
    /// Every decision of every PE's machine, if
    /// [`SimConfig::record_decisions`] asked for them.
    #[serde(skip)]
    pub decisions: Vec<Vec<treelb::strategy::Decision>>,
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

/// The CPU time all threads of this process have used, in seconds, if the
/// system tells (Linux: `utime + stime` of `/proc/self/stat`, in the
/// kernel's fixed user-visible clock of 100 ticks per second). The
/// reproductions run independent simulations on every core, so a section's
/// cost is this, not one thread's.
pub fn process_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) is in parentheses and may hold spaces:
    // count the fields after its closing parenthesis; utime and stime are
    // fields 14 and 15, the 12th and 13th after it.
    let mut rest = s.get(s.rfind(')')? + 1..)?.split_whitespace().skip(11);
    let utime: u64 = rest.next()?.parse().ok()?;
    let stime: u64 = rest.next()?.parse().ok()?;
    Some((utime + stime) as f64 / 100.0)
}

/// The state of a PE that almost every event reads, kept apart from the
/// rest so that the states of 16384 PEs fit in a core's L2 cache.
#[derive(Clone, Copy, Debug, Default)]
struct Hot {
    /// Bumped whenever the scheduled `Poll`/`Done` of this PE is superseded.
    epoch: u32,
    /// Holds a piece.
    busy: bool,
    /// Busy and running with nobody writing to it: only `Done` is
    /// scheduled, and the piece has not been worked since `run_start`.
    running: bool,
    /// Whether the machine wants slices (read once).
    slices: bool,
    /// When the current run started (if `running`).
    run_start: Time,
    /// Holds one of the shared cores (always false when every PE has a
    /// core of its own).
    on_core: bool,
}

/// A PE's piece, pool and counters (its machine and its messages waiting
/// live apart: each event touches only what it needs, and 16384 PEs' state
/// stays small).
struct Pe<W> {
    piece: Option<W>,
    pool: Waiting<W>,
    work_units: u64,
    splits: u32,
    pieces_sent: u32,
    pieces_received: u32,
    busy_since: Time,
    busy: Time,
    /// When it last got a core (with shared cores).
    core_since: Time,
}

struct Sim<W: SimWork> {
    m: Platform,
    q: EventQueue,
    hot: Vec<Hot>,
    pes: Vec<Pe<W>>,
    machines: Vec<treelb::strategy::Machine>,
    /// Every PE's decisions, if recorded.
    logs: Option<Vec<Vec<treelb::strategy::Decision>>>,
    /// Messages that arrived while a PE was busy, for its next probe.
    inbox: Vec<VecDeque<Msg>>,
    /// The requests for work among them.
    waiting: Vec<u32>,
    /// The most requests that ever waited at one PE.
    max_queue: u32,
    /// Requests that reached a PE.
    request_arrivals: u64,
    /// The queue lengths they found there, summed.
    queue_encountered: u64,
    /// Whether some machine trims its queue.
    trims: bool,
    /// Pieces in flight (in messages, or in the hub's central pool), by
    /// slot; freed slots are reused.
    flight: Vec<Option<W>>,
    free: Vec<u32>,
    hub: Hub<u32>,
    /// When the hub is free to serve the next message.
    hub_free: Time,
    hub_ops: u64,
    /// Pieces anywhere: on PEs, in pools, in messages, at the hub.
    live: u64,
    busy: u64,
    util: Recorder,
    output: W::Output,
    /// Δt in units of work, and one unit in ticks.
    budget: u64,
    unit: Time,
    /// The shared cores, if fewer than the PEs.
    cores: Option<Cores>,
    /// Cores nobody holds (with shared cores); positive only while no
    /// busy PE waits in `ready`.
    free_cores: u32,
    /// Busy PEs waiting for a core, first in first out.
    ready: VecDeque<u32>,
    /// Whether a busy PE gives up its core after a quantum (then it is
    /// stepped Δt by Δt, so that it probes).
    preempts: bool,
    core_switches: u64,
    /// The LogGP parameters, if the platform's model is LogGP.
    loggp: Option<LogGp>,
    /// The PEs' network interfaces (LogGP only; the hub uses PE 0's).
    nics: Nics,
}

/// Simulates `root` under `cfg`: every strategy of `treelb::strategy`.
///
/// Returns the report and the merged output of the work (which equals the
/// sequential output: the simulator runs the real `work` and `split`).
pub fn simulate<W: SimWork>(root: W, cfg: &SimConfig) -> Result<(SimReport, W::Output), SpecError> {
    simulate_with(root, cfg, false)
}

/// [`simulate`], keeping the per-PE counters if `per_pe`.
pub fn simulate_with<W: SimWork>(
    root: W,
    cfg: &SimConfig,
    per_pe: bool,
) -> Result<(SimReport, W::Output), SpecError> {
    cfg.spec.validate()?;
    let wall = Instant::now();
    let m = cfg.machine;
    let p = m.p as usize;
    let spec = &cfg.spec;
    let unit = cfg.unit_ticks.max(1);
    let all: Vec<usize> = (0..p).collect();
    let shares = spec.initial_shares(&root, p, &all, false);
    drop(root);
    let busy_at_start: Vec<bool> = shares.iter().map(|list| list.iter().any(|s| s.piece.is_some())).collect();
    let mut sim: Sim<W> = Sim {
        m,
        q: EventQueue::default(),
        hot: vec![Hot::default(); p],
        pes: (0..p)
            .map(|_| Pe {
                piece: None,
                pool: Waiting::new(),
                work_units: 0,
                splits: 0,
                pieces_sent: 0,
                pieces_received: 0,
                busy_since: 0,
                busy: 0,
                core_since: 0,
            })
            .collect(),
        machines: (0..p).map(|me| spec.machine(me, p)).collect(),
        logs: cfg.record_decisions.then(|| vec![Vec::new(); p]),
        inbox: (0..p).map(|_| VecDeque::new()).collect(),
        waiting: vec![0; p],
        max_queue: 0,
        request_arrivals: 0,
        queue_encountered: 0,
        trims: false,
        flight: Vec::new(),
        free: Vec::new(),
        hub: spec.hub(p, |pe| busy_at_start[pe]),
        hub_free: 0,
        hub_ops: 0,
        live: 0,
        busy: 0,
        util: Recorder::default(),
        output: W::Output::default(),
        budget: spec.budget.get(),
        unit,
        cores: cfg.cores.filter(|c| c.cores < m.p),
        free_cores: 0,
        ready: VecDeque::new(),
        preempts: false,
        core_switches: 0,
        loggp: match m.costs.model {
            Model::LogGp(g) => Some(g),
            Model::Seeds => None,
        },
        nics: Nics::new(if matches!(m.costs.model, Model::LogGp(_)) { p } else { 0 }),
    };
    if let Some(c) = sim.cores {
        sim.free_cores = c.cores.max(1);
        sim.preempts = c.quantum.is_some();
    }
    for (i, hot) in sim.hot.iter_mut().enumerate() {
        hot.slices = sim.machines[i].wants_slices();
    }
    if let Some(limit) = cfg.trim {
        for m in &mut sim.machines {
            sim.trims |= m.enable_trimming(limit);
        }
    }
    // How the pieces reach the PEs: at once (root), or after the broadcast
    // of the root and each PE's own descent of the splitting tree to its
    // shares (selective initialization, static parts): one T_split per
    // split on its paths, plus the units of work done on pieces too small
    // to split, which every PE that descends does.
    let cut = spec.cuts_root();
    let start = if cut { m.broadcast_delay() } else { 0 };
    // Under LogGP the broadcast is messages: each PE starts when it has it.
    let reached =
        if cut && sim.loggp.is_some() { loggp::broadcast(&m, &mut sim.nics, 0) } else { Vec::new() };
    let redundant = if cut { shares.iter().flatten().map(|s| s.units).max().unwrap_or(0) * unit } else { 0 };
    let assignment = spec.static_assignment(p);
    for (pe, list) in shares.into_iter().enumerate() {
        let splits = match &assignment {
            Some(a) => descent_splits(a, pe),
            None => list.iter().filter_map(|s| s.piece.as_ref()).map(|w| u64::from(w.generation())).sum(),
        };
        let start = reached.get(pe).copied().unwrap_or(start);
        let ready = start + splits * m.costs.t_split + redundant;
        let mut any = false;
        for share in list {
            sim.output.merge(share.output);
            sim.pes[pe].work_units += share.units;
            if let Some(piece) = share.piece {
                any = true;
                sim.live += 1;
                let slot = sim.put(piece);
                sim.q.push(ready, Kind::Arrive { to: pe as u32, msg: Msg::new(Tag::Init, pe as u32, slot) });
            }
        }
        if !any {
            // Asks (or waits) from the moment it knows it has nothing.
            sim.q.push(
                if cut { ready } else { 0 },
                Kind::Arrive { to: pe as u32, msg: Msg::new(Tag::Init, pe as u32, NONE) },
            );
        }
    }
    let mut events = 0u64;
    let mut complete = true;
    let mut t_last = 0;
    let mut last_pe = 0;
    if sim.live > 0 {
        while let Some(ev) = sim.q.pop() {
            events += 1;
            let now = ev.time;
            if let Some(&next) = sim.q.peek_same_time() {
                sim.prefetch(next);
            }
            match ev.kind {
                Kind::Arrive { to: HUB, msg } => sim.at_hub(now, msg),
                Kind::Arrive { to, msg } => sim.arrive(now, to, msg),
                Kind::Wire { to, msg } => sim.wire(now, to, msg),
                Kind::Poll { pe, epoch } => {
                    if sim.hot[pe as usize].epoch == epoch {
                        sim.poll(now, pe);
                    }
                }
                Kind::Done { pe, epoch } => {
                    if sim.hot[pe as usize].epoch == epoch {
                        sim.done(now, pe);
                    }
                }
            }
            if sim.live == 0 {
                t_last = now;
                if let Kind::Done { pe, .. } | Kind::Poll { pe, .. } = ev.kind {
                    last_pe = pe;
                }
                break;
            }
            if events >= cfg.max_events {
                complete = false;
                t_last = now;
                break;
            }
        }
    }
    // Termination detection: the seeds' constant, or LogGP's messages.
    let t_par = match (complete, sim.loggp.is_some()) {
        (false, _) => t_last,
        (true, false) => t_last + m.termination_delay(),
        (true, true) => loggp::termination(&m, &mut sim.nics, t_last, last_pe),
    };
    let mut per = Vec::with_capacity(if per_pe { p } else { 0 });
    let mut total = PeStats::default();
    let hub_tally = sim.hub.tally();
    let heap_ops = sim.hub.heap_operations();
    for (i, pe) in sim.pes.iter_mut().enumerate() {
        if sim.hot[i].busy {
            // A run stopped by the event limit: a PE whose piece arrives
            // after the last event processed has not started it.
            pe.busy += t_last.saturating_sub(pe.busy_since);
        }
        let mut s = PeStats {
            pe: i,
            work_units: pe.work_units,
            splits: u64::from(pe.splits),
            pieces_sent: u64::from(pe.pieces_sent),
            pieces_received: u64::from(pe.pieces_received),
            ..PeStats::default()
        };
        s.add_tally(&sim.machines[i].tally());
        if i == 0 {
            s.add_tally(&hub_tally);
        }
        s.busy = Duration::from_nanos(pe.busy);
        // A simulated PE has its processor to itself.
        s.cpu = s.busy;
        s.idle = Duration::from_nanos(t_par - pe.busy);
        total.add(&s);
        if per_pe {
            per.push(s);
        }
    }
    let t_seq = total.work_units * unit;
    let report = SimReport {
        strategy: spec.strategy.name().to_owned(),
        init: spec.init.name().to_owned(),
        machine: m,
        budget: spec.budget.get(),
        t_seq,
        t_par,
        t_last_work: t_last,
        efficiency: if t_par == 0 { 1.0 } else { t_seq as f64 / (f64::from(m.p) * t_par as f64) },
        work_units: total.work_units,
        requests: total.requests_sent,
        requests_failed: total.requests_failed,
        transfers: total.pieces_received,
        messages: total.messages,
        counter_ops: sim.hub_ops,
        heap_ops,
        events,
        max_queue: u64::from(sim.max_queue),
        request_arrivals: sim.request_arrivals,
        queue_encountered: sim.queue_encountered,
        complete,
        core_switches: sim.core_switches,
        wall_seconds: wall.elapsed().as_secs_f64(),
        utilization: sim.util.finish(t_par, m.p),
        per_pe: per,
        levels: Vec::new(),
        decisions: sim.logs.take().unwrap_or_default(),
    };
    Ok((report, sim.output))
}

/// The splits PE `pe` makes to descend from the root to its static parts:
/// one per node of the splitting tree on the paths to them.
fn descent_splits(a: &treelb::strategy::static_assign::StaticAssignment, pe: usize) -> u64 {
    let bits = a.pieces().trailing_zeros();
    let mut nodes = std::collections::HashSet::new();
    for (j, &owner) in a.owners().iter().enumerate() {
        if owner == pe {
            for level in 1..=bits {
                nodes.insert((level, j >> (bits - level + 1)));
            }
        }
    }
    nodes.len() as u64
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
            Kind::Arrive { to: HUB, .. } | Kind::Wire { .. } => return,
            Kind::Arrive { to, .. } => to,
            Kind::Poll { pe, .. } | Kind::Done { pe, .. } => pe,
        } as usize;
        prefetch(&self.hot[pe]);
        prefetch(&self.pes[pe]);
        prefetch(&self.machines[pe]);
    }

    /// A piece into the table of pieces in flight.
    fn put(&mut self, piece: W) -> u32 {
        match self.free.pop() {
            Some(s) => {
                self.flight[s as usize] = Some(piece);
                s
            }
            None => {
                self.flight.push(Some(piece));
                (self.flight.len() - 1) as u32
            }
        }
    }

    /// A piece out of the table.
    fn take(&mut self, slot: u32) -> W {
        self.free.push(slot);
        self.flight[slot as usize].take().expect("a piece in flight")
    }

    /// PE `from` sends `msg` at `*t`: it spends the sending cost, then the
    /// message travels.
    #[inline]
    fn send(&mut self, from: u32, to: u32, t: &mut Time, msg: Msg) {
        self.send_words(from, to, t, msg, 0);
    }

    /// As [`send`](Self::send), for a message carrying a piece: its words
    /// (`s(w)`) add `t_word` each to the travel.
    #[inline]
    fn send_piece(&mut self, from: u32, to: u32, t: &mut Time, msg: Msg, slot: Option<u32>) {
        let extra = slot.map_or(0, |s| self.words_time(s));
        self.send_words(from, to, t, msg, extra);
    }

    /// The time the words of the piece in flight in `slot` add to its
    /// message's travel, `s(w) · t_word`.
    #[inline]
    fn words_time(&self, slot: u32) -> Time {
        let costs = &self.m.costs;
        if costs.t_word == 0 {
            return 0;
        }
        let w = self.flight[slot as usize].as_ref().map_or(0, Work::load);
        costs.size.words(w) * costs.t_word
    }

    #[inline]
    fn send_words(&mut self, from: u32, to: u32, t: &mut Time, msg: Msg, extra: Time) {
        if self.loggp.is_some() {
            let pe = if to == HUB { 0 } else { to };
            *t += self.m.send_overhead(from, pe);
            self.post(from, to, *t, msg);
            return;
        }
        *t += self.m.costs.end_cost();
        let at = if to == HUB { self.m.delay(from, 0) } else { self.m.delay(from, to) };
        self.q.push(*t + at + extra, Kind::Arrive { to, msg });
    }

    /// The bytes of `msg` under LogGP: a header, and the words of the piece
    /// it carries.
    #[inline]
    fn bytes(&self, g: &LogGp, msg: Msg) -> u64 {
        let piece = match msg.tag() {
            Tag::Answer | Tag::HubDeposit => msg.value != NONE,
            Tag::Push => true,
            _ => false,
        };
        let words = if piece {
            let w = self.flight[msg.value as usize].as_ref().map_or(0, Work::load);
            self.m.costs.size.words(w)
        } else {
            0
        };
        g.bytes(words)
    }

    /// LogGP: PE `from` (the hub: 0), having paid its sending overhead at
    /// `t`, hands `msg` to its network interface for `to`.
    #[inline]
    fn post(&mut self, from: u32, to: u32, t: Time, msg: Msg) {
        let g = self.loggp.expect("LogGP");
        let pe = if to == HUB { 0 } else { to };
        let bytes = self.bytes(&g, msg);
        let (head, tx) = self.nics.send(&self.m, from, pe, t, bytes);
        let kind = if tx == 0 { Kind::Arrive { to, msg } } else { Kind::Wire { to, msg } };
        self.q.push(head, kind);
    }

    /// LogGP: the head of `msg` reaches the interface of `to` at `now`; it
    /// arrives when the interface has taken its bytes in, after those of
    /// the messages whose heads came before.
    fn wire(&mut self, now: Time, to: u32, msg: Msg) {
        let g = self.loggp.expect("LogGP");
        let pe = if to == HUB { 0 } else { to };
        let tx = self.m.transmission(msg.from(), pe, self.bytes(&g, msg));
        let end = self.nics.receive(pe, now, tx);
        self.q.push(end, Kind::Arrive { to, msg });
    }

    /// A message reaches the hub: it serves messages one at a time, each
    /// taking `T_counter`, and answers from PE 0's place.
    fn at_hub(&mut self, now: Time, msg: Msg) {
        // The hub takes the message in (the receiving cost), spends
        // `T_counter` on it, and sends each answer (the sending cost), one
        // message after the other.
        let end = self.m.costs.end_cost();
        let start = now.max(self.hub_free);
        let taken = if self.loggp.is_some() { self.m.receive_overhead(msg.from(), 0) } else { end };
        let mut t = start + taken + self.m.costs.t_counter;
        self.hub_ops += 1;
        let from = msg.from() as usize;
        let event = match msg.tag() {
            Tag::HubTicket => HubEvent::Ticket { from },
            Tag::HubReport => HubEvent::Report { from, load: decode_load(msg.value) },
            Tag::HubQuery => HubEvent::QueryMostLoaded { from },
            Tag::HubAsk => HubEvent::Ask { from },
            Tag::HubDeposit => {
                let part = (msg.value != NONE).then(|| {
                    let load = self.flight[msg.value as usize].as_ref().map_or(0, Work::load);
                    (msg.value, load)
                });
                HubEvent::Deposit { from, part }
            }
            other => unreachable!("{other:?} at the hub"),
        };
        let mut answers = Vec::new();
        self.hub.on(event, &mut answers);
        let p = u64::from(self.m.p);
        for answer in answers {
            let (to, msg) = match answer {
                HubAction::Ticket { to, ticket } => (to, Msg::new(Tag::Ticket, 0, (ticket % p) as u32)),
                HubAction::MostLoaded { to, pe } => {
                    (to, Msg::new(Tag::MostLoaded, 0, pe.map_or(NONE, |pe| pe as u32)))
                }
                HubAction::Hand { to, piece } => (to, Msg::new(Tag::Answer, 0, piece)),
                HubAction::Demand { to } => (to, Msg::new(Tag::Demand, 0, 0)),
            };
            if self.loggp.is_some() {
                t += self.m.send_overhead(0, to as u32);
                self.post(0, to as u32, t, msg);
                continue;
            }
            t += end;
            // A piece handed out carries its words (`s(w)`).
            let words = match msg.tag() {
                Tag::Answer if msg.value != NONE => self.words_time(msg.value),
                _ => 0,
            };
            self.q.push(t + self.m.delay(0, to as u32) + words, Kind::Arrive { to: to as u32, msg });
        }
        self.hub_free = t;
    }

    /// A message reaches PE `to`: an idle PE handles it at once, a busy one
    /// at its next probe.
    #[inline]
    fn arrive(&mut self, now: Time, to: u32, msg: Msg) {
        let i = to as usize;
        let hot = self.hot[i];
        if msg.tag() == Tag::Request {
            self.request_arrivals += 1;
            if hot.busy {
                self.queue_encountered += u64::from(self.waiting[i]);
            }
        }
        if !hot.busy {
            let mut t = now;
            self.receive(to, msg, &mut t);
            // Answering someone else changes nothing about this PE's own
            // search for work: its machine need not hear "idle" again.
            if !matches!(msg.tag(), Tag::Request | Tag::LoadQuery | Tag::Demand) {
                self.settle(to, t);
            }
            return;
        }
        if msg.tag() == Tag::Request {
            if self.trims && self.machines[i].trims_request(self.waiting[i] as usize) {
                // Trimmed: answered "no work" on arrival, by the PE's
                // message handling, without delaying its piece.
                let mut t = now + self.m.receive_overhead(msg.from(), to);
                self.feed(to, Event::Request { from: msg.from() as usize, busy: false }, &mut t);
                return;
            }
            self.waiting[i] += 1;
            self.max_queue = self.max_queue.max(self.waiting[i]);
        }
        self.inbox[i].push_back(msg);
        if hot.running {
            // The next probe at or after `now`: probe j starts at
            // start + (j+1)·Δt + j·T_poll.
            let unit = self.unit;
            let (dt, t_poll) = (self.budget * unit, self.m.costs.t_poll);
            let start = hot.run_start;
            let j = if now <= start + dt { 0 } else { (now - start - dt).div_ceil(dt + t_poll) };
            let probe = start + (j + 1) * dt + j * t_poll;
            let pe = &mut self.pes[i];
            let piece = pe.piece.as_mut().expect("a busy PE has a piece");
            let left = piece.remaining().expect("a running piece knows its size") * unit;
            if (j + 1) * dt < left {
                let units = (j + 1) * self.budget;
                let progress = piece.work(units, &mut self.output);
                debug_assert_eq!(progress, Progress::Pending);
                pe.work_units += units;
                let h = &mut self.hot[i];
                h.epoch = h.epoch.wrapping_add(1);
                h.running = false;
                self.q.push(probe, Kind::Poll { pe: to, epoch: h.epoch });
            }
            // Otherwise the piece ends before the next probe; `done`
            // handles what waits.
        }
    }

    /// PE `pe` handles one message at time `*t` (a split advances it).
    fn receive(&mut self, pe: u32, msg: Msg, t: &mut Time) {
        let i = pe as usize;
        // Taking a message in costs the receiver (the initial broadcast's
        // cost is the broadcast delay).
        if msg.tag() != Tag::Init {
            *t += self.m.receive_overhead(msg.from(), pe);
        }
        let from = msg.from() as usize;
        let message = match msg.tag() {
            Tag::Request => Message::Request { from },
            Tag::Answer => Message::Answer { from, piece: (msg.value != NONE).then_some(msg.value) },
            Tag::Init => {
                if msg.value != NONE {
                    let piece = self.take(msg.value);
                    self.pes[i].pool.push(piece, i);
                }
                return;
            }
            Tag::LoadQuery => Message::LoadQuery { from },
            Tag::Load => Message::Load { from, load: decode_load(msg.value) },
            Tag::Push => Message::Push { from, piece: msg.value },
            Tag::Demand => Message::Demand,
            Tag::Ticket => Message::Ticket(u64::from(msg.value)),
            Tag::MostLoaded => Message::MostLoaded((msg.value != NONE).then_some(msg.value as usize)),
            other => unreachable!("{other:?} at a PE"),
        };
        pe::receive(&mut At { sim: self, pe, t }, message);
    }

    /// Feeds an event to PE `pe`'s machine at time `*t` and carries out its
    /// actions (the logic of `treelb::pe`).
    #[inline]
    fn feed(&mut self, pe: u32, event: Event, t: &mut Time) {
        pe::feed(&mut At { sim: self, pe, t }, event);
    }

    /// Splits PE `pe`'s piece for another PE (`T_split` if it splits).
    fn split_off(&mut self, pe: u32, t: &mut Time) -> (Option<u32>, u64) {
        let i = pe as usize;
        let Some(piece) = self.pes[i].piece.as_mut() else { return (None, 0) };
        let part = piece.split();
        let load = piece.load();
        let slot = part.map(|part| {
            *t += self.m.costs.t_split;
            let s = &mut self.pes[i];
            s.splits += 1;
            s.pieces_sent += 1;
            self.live += 1;
            self.put(part)
        });
        (slot, load)
    }

    /// A piece of generation `generation` at least for another PE
    /// (`treelb::pe::Body::produce`): a pooled piece, else a part split off
    /// PE `pe`'s piece and cut down, each split `T_split`, the remainders
    /// pooled.
    fn produce(&mut self, pe: u32, generation: u32, t: &mut Time) -> (Option<u32>, u64) {
        let i = pe as usize;
        let part = match self.pes[i].pool.take() {
            Some((piece, from)) => {
                if from != i {
                    self.pes[i].pieces_received += 1;
                }
                Some(piece)
            }
            None => {
                let Some(piece) = self.pes[i].piece.as_mut() else { return (None, 0) };
                let part = piece.split();
                if part.is_some() {
                    *t += self.m.costs.t_split;
                    self.pes[i].splits += 1;
                    self.live += 1;
                }
                part
            }
        };
        let slot = part.map(|part| {
            let (t_split, s) = (self.m.costs.t_split, &mut self.pes[i]);
            let mut cuts = 0u32;
            let part = treelb::pe::cut(part, generation, |rest| {
                cuts += 1;
                s.pool.push(rest, i);
            });
            s.splits += cuts;
            s.pieces_sent += 1;
            *t += Time::from(cuts) * t_split;
            self.live += u64::from(cuts);
            self.put(part)
        });
        (slot, self.pes[i].piece.as_ref().map_or(0, Work::load))
    }

    /// After an idle PE handled a message at `t`: it starts the oldest piece
    /// of its pool, if any, or tells its machine it is (still) idle.
    fn settle(&mut self, pe: u32, t: Time) {
        let i = pe as usize;
        if let Some((piece, from)) = self.pes[i].pool.take() {
            if from != i {
                self.pes[i].pieces_received += 1;
            }
            self.begin(pe, piece, t);
        } else {
            let mut t = t;
            self.feed(pe, Event::Idle { local_work: false }, &mut t);
            // The machine may have found a piece in the meantime (none of
            // its actions brings one back at once), so nothing else to do.
        }
    }

    /// PE `pe` takes `piece` at time `t` and works on.
    fn begin(&mut self, pe: u32, piece: W, t: Time) {
        let i = pe as usize;
        let p = &mut self.pes[i];
        debug_assert!(p.piece.is_none());
        p.piece = Some(piece);
        p.busy_since = t;
        self.hot[i].busy = true;
        self.busy += 1;
        self.util.set(t, self.busy);
        if self.cores.is_some() && !self.hot[i].on_core {
            // Shared cores: it works only once it holds one.
            if self.free_cores == 0 {
                self.ready.push_back(pe);
                return;
            }
            self.free_cores -= 1;
            self.grant(pe, t);
            return;
        }
        self.start_run(t, pe);
    }

    /// PE `pe` (busy, waiting) gets a core at `t`: after the hand-over it
    /// works on.
    ///
    /// A PE takes the core no earlier than it took its piece
    /// ([`Sim::begin`]): a PE that handled a message computes its times
    /// ahead of the event being processed, so the core another PE releases
    /// at `t` may be free before the waiting PE is ready for it; it then
    /// stays idle until then.
    fn grant(&mut self, pe: u32, t: Time) {
        let i = pe as usize;
        let switch = self.cores.map_or(0, |c| c.switch);
        self.hot[i].on_core = true;
        self.core_switches += 1;
        let t = t.max(self.pes[i].busy_since) + switch;
        self.pes[i].core_since = t;
        self.start_run(t, pe);
    }

    /// PE `pe` gives up its core at `t`: to the first PE that waits for
    /// one, if any.
    fn release(&mut self, pe: u32, t: Time) {
        let i = pe as usize;
        if !self.hot[i].on_core {
            return;
        }
        self.hot[i].on_core = false;
        match self.ready.pop_front() {
            Some(next) => self.grant(next, t),
            None => self.free_cores += 1,
        }
    }

    /// PE `pe` (busy) starts (or resumes) working at time `t`.
    fn start_run(&mut self, t: Time, id: u32) {
        let i = id as usize;
        let unit = self.unit;
        let (budget, t_poll) = (self.budget, self.m.costs.t_poll);
        let h = &mut self.hot[i];
        h.epoch = h.epoch.wrapping_add(1);
        let epoch = h.epoch;
        let pe = &mut self.pes[i];
        let piece = pe.piece.as_mut().expect("a running PE has a piece");
        if !h.slices
            && !self.preempts
            && self.inbox[i].is_empty()
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
                pe.work_units += budget;
                self.q.push(t + budget * unit, Kind::Poll { pe: id, epoch });
            }
            Progress::Exhausted { used } => {
                pe.work_units += used;
                self.q.push(t + used * unit, Kind::Done { pe: id, epoch });
            }
        }
    }

    /// A busy PE probes at `now`: tells its machine about the slice, handles
    /// what arrived (one split for another PE at most), and works on.
    fn poll(&mut self, now: Time, id: u32) {
        let i = id as usize;
        let mut t = now + self.m.costs.t_poll;
        if self.hot[i].slices {
            let load = self.pes[i].piece.as_ref().map_or(0, Work::load);
            self.feed(id, Event::Slice { load }, &mut t);
        }
        let waiting = self.inbox[i].len();
        let mut split = false;
        for _ in 0..waiting {
            let Some(msg) = self.inbox[i].pop_front() else { break };
            let splits = matches!(msg.tag(), Tag::Request | Tag::Demand);
            if splits && split {
                self.inbox[i].push_back(msg);
                continue;
            }
            split |= splits;
            self.waiting[i] -= u32::from(msg.tag() == Tag::Request);
            self.receive(id, msg, &mut t);
        }
        if self.preempts
            && !self.ready.is_empty()
            && let Some(q) = self.cores.and_then(|c| c.quantum)
            && t.saturating_sub(self.pes[i].core_since) >= q
        {
            // Time sharing: its quantum is over and another PE waits; it
            // goes to the back of the queue, the core to the front.
            self.hot[i].on_core = false;
            self.ready.push_back(id);
            let next = self.ready.pop_front().expect("a PE waits");
            self.grant(next, t);
            return;
        }
        self.start_run(t, id);
    }

    /// PE `id` exhausts its piece at `now`.
    fn done(&mut self, now: Time, id: u32) {
        let i = id as usize;
        let pe = &mut self.pes[i];
        let mut piece = pe.piece.take().expect("a finishing PE has a piece");
        let h = &mut self.hot[i];
        if h.running {
            let left = piece.remaining().unwrap_or(0);
            let progress = piece.work(left, &mut self.output);
            debug_assert!(progress.is_exhausted());
            pe.work_units += left;
        }
        drop(piece);
        h.busy = false;
        h.running = false;
        pe.busy += now - pe.busy_since;
        self.live -= 1;
        self.busy -= 1;
        self.util.set(now, self.busy);
        if self.live == 0 {
            return;
        }
        let mut t = now;
        self.feed(id, Event::Exhausted, &mut t);
        if let Some((piece, from)) = self.pes[i].pool.take() {
            if from != i {
                self.pes[i].pieces_received += 1;
            }
            self.begin(id, piece, t);
            return;
        }
        self.release(id, t);
        // Idle now: what waited is answered as an idle PE answers.
        self.waiting[i] = 0;
        while let Some(msg) = self.inbox[i].pop_front() {
            self.receive(id, msg, &mut t);
        }
        self.settle(id, t);
    }
}

/// PE `pe` of a simulation at time `*t`, as the body of the logic of
/// `treelb::pe`: its piece, pool and counters where the simulator keeps
/// them, a part in flight as its slot, and every send advancing the PE's
/// clock by its cost.
struct At<'a, W: SimWork> {
    sim: &'a mut Sim<W>,
    pe: u32,
    t: &'a mut Time,
}

impl<W: SimWork> Body for At<'_, W> {
    type Part = u32;

    #[inline]
    fn me(&self) -> usize {
        self.pe as usize
    }

    #[inline]
    fn decide(&mut self, event: Event) -> Actions {
        let i = self.pe as usize;
        let log = self.sim.logs.as_mut().map(|logs| &mut logs[i]);
        decide(&mut self.sim.machines[i], event, log)
    }

    #[inline]
    fn busy(&self) -> bool {
        self.sim.hot[self.pe as usize].busy
    }

    #[inline]
    fn held(&self) -> u64 {
        let p = &self.sim.pes[self.pe as usize];
        pieces_held(p.piece.is_some(), p.pool.len())
    }

    #[inline]
    fn split_off(&mut self) -> (Option<u32>, u64) {
        self.sim.split_off(self.pe, self.t)
    }

    #[inline]
    fn produce(&mut self, generation: u32) -> (Option<u32>, u64) {
        self.sim.produce(self.pe, generation, self.t)
    }

    #[inline]
    fn part_load(&self, slot: &u32) -> u64 {
        self.sim.flight[*slot as usize].as_ref().map_or(0, Work::load)
    }

    #[inline]
    fn send(&mut self, to: usize, message: Message<u32>) {
        let (pe, to, t) = (self.pe, to as u32, &mut *self.t);
        match message {
            Message::Request { .. } => self.sim.send(pe, to, t, Msg::new(Tag::Request, pe, 0)),
            Message::Answer { piece, .. } => {
                self.sim.send_piece(pe, to, t, Msg::new(Tag::Answer, pe, piece.unwrap_or(NONE)), piece)
            }
            Message::Push { piece, .. } => {
                self.sim.send_piece(pe, to, t, Msg::new(Tag::Push, pe, piece), Some(piece))
            }
            Message::LoadQuery { .. } => self.sim.send(pe, to, t, Msg::new(Tag::LoadQuery, pe, 0)),
            Message::Load { load, .. } => {
                self.sim.send(pe, to, t, Msg::new(Tag::Load, pe, encode_load(load)))
            }
            Message::Ticket(_) | Message::MostLoaded(_) | Message::Demand => {
                unreachable!("only the hub sends {message:?}")
            }
        }
    }

    #[inline]
    fn send_hub(&mut self, event: HubEvent<u32>) {
        let (pe, t) = (self.pe, &mut *self.t);
        match event {
            HubEvent::Ticket { .. } => self.sim.send(pe, HUB, t, Msg::new(Tag::HubTicket, pe, 0)),
            HubEvent::QueryMostLoaded { .. } => self.sim.send(pe, HUB, t, Msg::new(Tag::HubQuery, pe, 0)),
            HubEvent::Report { load, .. } => {
                self.sim.send(pe, HUB, t, Msg::new(Tag::HubReport, pe, encode_load(load)))
            }
            HubEvent::Ask { .. } => self.sim.send(pe, HUB, t, Msg::new(Tag::HubAsk, pe, 0)),
            HubEvent::Deposit { part: Some((slot, _)), .. } => {
                self.sim.send_piece(pe, HUB, t, Msg::new(Tag::HubDeposit, pe, slot), Some(slot))
            }
            HubEvent::Deposit { part: None, .. } => {
                self.sim.send(pe, HUB, t, Msg::new(Tag::HubDeposit, pe, NONE))
            }
        }
    }

    #[inline]
    fn accept(&mut self, slot: u32, from: usize, answer: bool) {
        let i = self.pe as usize;
        let piece = self.sim.take(slot);
        let p = &mut self.sim.pes[i];
        // An answer's piece is the PE's own from now on (it asked for it):
        // counted received once, here.
        if answer {
            p.pieces_received += 1;
            p.pool.push(piece, i);
        } else {
            p.pool.push(piece, from);
        }
    }
}
