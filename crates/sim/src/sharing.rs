//! Work sharing: busy PEs push work (`002_…`, "Work Sharing" and "How to
//! Assign Work?"), on the same machine model as [`crate::engine`].
//!
//! Every PE keeps a pool of pieces besides the one it works on; when its
//! piece runs out it takes the oldest piece of its pool, and only with an
//! empty pool is it idle. A busy PE probes every Δt; at a probe it may split
//! its piece (`T_split`) and push the split-off part to another PE's pool.
//! The strategies differ in when they push and where to:
//!
//! * **extreme work sharing** — at every probe, to a PE chosen at random
//!   (every split goes away: the most uniform load, the most messages);
//! * **randomized work sharing** — like extreme, but a PE has at most one
//!   push in flight: it pushes again only after the receiver's acknowledgement
//!   (one message back) has arrived;
//! * **two-choice** — as work sharing, to the less loaded of two PEs chosen
//!   at random (load = pieces held), ties at random;
//! * **always-go-left** — as work sharing, to the least loaded of one random
//!   PE from each half of the machine, ties to the left half.
//!
//! The loads compared by two-choice and always-go-left are read when the
//! push is decided, an idealization: the query round trip is folded into the
//! acknowledgement that throttles the sender.
//!
//! Random choices come from the PE's `treelb::strategy::VictimSelector`
//! (`random_other`), as in the runtimes.

use std::time::Instant;

use treelb::strategy::VictimSelector;
use treelb::{Init, Progress, Strategy};

use crate::engine::{SimConfig, SimReport, Unsupported};
use crate::machine::Machine;
use crate::queue::{EventQueue, Kind, Msg, Time};
use crate::utilization::Recorder;
use crate::workload::SimWork;

/// The work-sharing strategies, which [`simulate`] runs.
pub const SHARING: [Strategy; 4] =
    [Strategy::WorkSharing, Strategy::ExtremeWorkSharing, Strategy::TwoChoice, Strategy::AlwaysGoLeft];

struct Pe<W> {
    piece: Option<W>,
    /// Pieces waiting, oldest first.
    pool: std::collections::VecDeque<W>,
    epoch: u32,
    /// A push is in flight (waiting for its acknowledgement).
    pushing: bool,
    busy_since: Time,
    busy: Time,
    work_units: u64,
    pushes: u64,
    received: u64,
    selector: VictimSelector,
}

struct Sim<W: SimWork> {
    cfg: SimConfig,
    m: Machine,
    q: EventQueue,
    pes: Vec<Pe<W>>,
    /// Pieces in flight with their senders, by slot; freed slots are reused.
    flight: Vec<Option<(W, u32)>>,
    free: Vec<u32>,
    live: u64,
    busy: u64,
    util: Recorder,
    output: W::Output,
    budget: u64,
}

/// Simulates a work-sharing strategy ([`SHARING`]) on `root` from PE 0.
///
/// ```
/// use treelb::{Init, Strategy};
/// use treelb_sim::{AlphaDist, AlphaModel, Costs, Machine, Network, SimConfig};
/// let model = AlphaModel { total: 1_000_000, dist: AlphaDist::Uniform { min: 0.2 }, atomic: 500,
///                          max_generation: 64, seed: 1 };
/// let machine = Machine::new(32, Network::Crossbar, Costs::default());
/// let cfg = SimConfig::new(machine, Strategy::TwoChoice, Init::Root, 3);
/// let (report, done) = treelb_sim::sharing::simulate(model.root(), &cfg).unwrap();
/// assert_eq!(done, 1_000_000);
/// assert!(report.transfers > 0);
/// ```
pub fn simulate<W: SimWork>(root: W, cfg: &SimConfig) -> Result<(SimReport, W::Output), Unsupported> {
    if !SHARING.contains(&cfg.strategy) || cfg.init != Init::Root {
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
        pes: (0..p)
            .map(|i| Pe {
                piece: None,
                pool: Default::default(),
                epoch: 0,
                pushing: false,
                busy_since: 0,
                busy: 0,
                work_units: 0,
                pushes: 0,
                received: 0,
                selector: VictimSelector::new(cfg.strategy, i, p, cfg.seed),
            })
            .collect(),
        flight: Vec::new(),
        free: Vec::new(),
        live: 1,
        busy: 0,
        util: Recorder::default(),
        output: W::Output::default(),
        budget: (m.costs.dt / unit).max(1),
    };
    sim.pes[0].piece = Some(root);
    sim.pes[0].busy_since = 0;
    sim.busy = 1;
    sim.util.set(0, 1);
    sim.step(0, 0);
    let mut events = 0u64;
    let mut t_last = 0;
    let mut complete = true;
    while let Some(ev) = sim.q.pop() {
        events += 1;
        let now = ev.time;
        match ev.kind {
            Kind::Poll { pe, epoch } if sim.pes[pe as usize].epoch == epoch => sim.probe(now, pe),
            Kind::Done { pe, epoch } if sim.pes[pe as usize].epoch == epoch => {
                sim.done(now, pe);
                if sim.live == 0 {
                    t_last = now;
                    break;
                }
            }
            Kind::Arrive { to, msg: Msg::Push { slot } } => sim.receive(now, to, slot),
            Kind::Arrive { to, msg: Msg::Ack } => {
                // The acknowledgement of a push: the sender may push again.
                sim.pes[to as usize].pushing = false;
            }
            _ => {}
        }
        if events >= cfg.max_events {
            complete = false;
            t_last = now;
            break;
        }
    }
    let t_par = t_last + if complete { m.termination_delay() } else { 0 };
    let (mut work_units, mut pushes) = (0, 0);
    let mut per = Vec::new();
    for pe in &mut sim.pes {
        if pe.piece.is_some() {
            pe.busy += t_last - pe.busy_since;
        }
        work_units += pe.work_units;
        pushes += pe.pushes;
        per.push(crate::engine::PeReport {
            busy: pe.busy,
            idle: t_par - pe.busy,
            work_units: pe.work_units,
            requests_sent: 0,
            requests_failed: 0,
            pieces_sent: pe.pushes,
            pieces_received: pe.received,
        });
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
        requests: 0,
        requests_failed: 0,
        transfers: pushes,
        counter_ops: 0,
        events,
        complete,
        wall_seconds: wall.elapsed().as_secs_f64(),
        utilization: sim.util.finish(t_par, m.p),
        per_pe: per,
        levels: Vec::new(),
    };
    Ok((report, sim.output))
}

impl<W: SimWork> Sim<W> {
    /// The load a placement rule sees: pieces held.
    fn load(&self, pe: usize) -> usize {
        usize::from(self.pes[pe].piece.is_some()) + self.pes[pe].pool.len()
    }

    /// Where PE `id` pushes, by the strategy's placement rule.
    fn target(&mut self, id: usize) -> Option<usize> {
        let p = self.m.p as usize;
        match self.cfg.strategy {
            Strategy::TwoChoice => {
                let a = self.pes[id].selector.random_other()?;
                let b = self.pes[id].selector.random_other()?;
                let (la, lb) = (self.load(a), self.load(b));
                Some(if la < lb || (la == lb && self.pes[id].selector.random_other()? % 2 == 0) {
                    a
                } else {
                    b
                })
            }
            Strategy::AlwaysGoLeft => {
                // One PE from each half (excluding the pusher); ties go left.
                let half = p / 2;
                if half == 0 {
                    return None;
                }
                let pick = |sel: &mut VictimSelector, lo: usize, hi: usize| loop {
                    let v = sel.random_other()?;
                    if (lo..hi).contains(&v) {
                        return Some(v);
                    }
                    if hi - lo <= 1 && (lo..hi).contains(&id) {
                        return None;
                    }
                };
                let left = pick(&mut self.pes[id].selector, 0, half);
                let right = pick(&mut self.pes[id].selector, half, p);
                match (left, right) {
                    (Some(l), Some(r)) => Some(if self.load(r) < self.load(l) { r } else { l }),
                    (l, r) => l.or(r),
                }
            }
            _ => self.pes[id].selector.random_other(),
        }
    }

    /// PE `id` (holding a piece) works on from `t`: one Δt, then a probe.
    fn step(&mut self, t: Time, id: u32) {
        let unit = self.cfg.unit_ticks.max(1);
        let budget = self.budget;
        let pe = &mut self.pes[id as usize];
        pe.epoch = pe.epoch.wrapping_add(1);
        let piece = pe.piece.as_mut().expect("a working PE has a piece");
        match piece.work(budget, &mut self.output) {
            Progress::Pending => {
                pe.work_units += budget;
                self.q.push(t + budget * unit, Kind::Poll { pe: id, epoch: pe.epoch });
            }
            Progress::Exhausted { used } => {
                pe.work_units += used;
                self.q.push(t + used * unit, Kind::Done { pe: id, epoch: pe.epoch });
            }
        }
    }

    /// A probe: maybe split and push, then work on.
    fn probe(&mut self, now: Time, id: u32) {
        let i = id as usize;
        let costs = self.m.costs;
        let mut t = now + costs.t_poll;
        let throttled = self.cfg.strategy != Strategy::ExtremeWorkSharing && self.pes[i].pushing;
        if !throttled && let Some(to) = self.target(i) {
            let pe = &mut self.pes[i];
            if let Some(given) = pe.piece.as_mut().expect("a probing PE has a piece").split() {
                t += costs.t_split;
                pe.pushes += 1;
                pe.pushing = true;
                let slot = match self.free.pop() {
                    Some(s) => {
                        self.flight[s as usize] = Some((given, id));
                        s
                    }
                    None => {
                        self.flight.push(Some((given, id)));
                        (self.flight.len() - 1) as u32
                    }
                };
                self.live += 1;
                self.q.push(
                    t + self.m.delay(id, to as u32),
                    Kind::Arrive { to: to as u32, msg: Msg::Push { slot } },
                );
            }
        }
        self.step(t, id);
    }

    /// A pushed piece arrives: work on it if idle, else pool it; acknowledge.
    fn receive(&mut self, now: Time, to: u32, slot: u32) {
        let (piece, from) = self.flight[slot as usize].take().expect("a piece in flight");
        self.free.push(slot);
        let pe = &mut self.pes[to as usize];
        pe.received += 1;
        if pe.piece.is_none() {
            pe.piece = Some(piece);
            pe.busy_since = now;
            self.busy += 1;
            self.util.set(now, self.busy);
            self.step(now, to);
        } else {
            pe.pool.push_back(piece);
        }
        self.q.push(now + self.m.delay(to, from), Kind::Arrive { to: from, msg: Msg::Ack });
    }

    /// PE `id` exhausts its piece: the next from its pool, or idle.
    fn done(&mut self, now: Time, id: u32) {
        let pe = &mut self.pes[id as usize];
        pe.piece = pe.pool.pop_front();
        self.live -= 1;
        if pe.piece.is_some() {
            self.step(now, id);
        } else {
            pe.busy += now - pe.busy_since;
            self.busy -= 1;
            self.util.set(now, self.busy);
        }
    }
}
