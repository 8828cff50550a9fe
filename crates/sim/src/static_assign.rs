//! Static assignment (`002_…`, "Static Load Balancing"): the root is cut
//! into pieces before the run and each PE works its share alone.
//!
//! PE 0 splits the root breadth first — always the oldest piece next — into
//! [`PIECES_PER_PE`]·P pieces (`T_split` each), then scatters them along a
//! binomial tree (`⌈log₂ P⌉·T_rout` on a crossbar). The pieces go to PEs in contiguous
//! blocks (static-block), round robin (static-cyclic) or uniformly at random
//! (static-random, from the PE 0's `VictimSelector`). No PE ever asks for
//! work: a PE's time is its pieces' work plus one probe per Δt, and the run
//! ends when the most loaded PE is done (plus termination detection).
//! Because nothing moves at run time, the model needs no event queue.

use std::collections::VecDeque;
use std::time::Instant;

use rand::RngExt;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use treelb::{Progress, Strategy};

use crate::engine::{PeReport, SimConfig, SimReport, Unsupported};
use crate::queue::Time;
use crate::utilization::Recorder;
use crate::workload::SimWork;

/// The static strategies, which [`simulate`] runs.
pub const STATIC: [Strategy; 3] = [Strategy::StaticBlock, Strategy::StaticCyclic, Strategy::StaticRandom];

/// Pieces cut per PE.
pub const PIECES_PER_PE: usize = 4;

/// Simulates a static assignment ([`STATIC`]) of `root`.
///
/// ```
/// use treelb::{Init, Strategy};
/// use treelb_sim::{AlphaDist, AlphaModel, Costs, Machine, Network, SimConfig};
/// let model = AlphaModel { total: 1_000_000, dist: AlphaDist::Uniform { min: 0.1 }, atomic: 10,
///                          max_generation: 64, seed: 1 };
/// let cfg = SimConfig::new(Machine::new(16, Network::Crossbar, Costs::default()),
///                          Strategy::StaticRandom, Init::Root, 1);
/// let (r, done) = treelb_sim::static_assign::simulate(model.root(), &cfg).unwrap();
/// assert_eq!((done, r.transfers), (1_000_000, 63));
/// ```
pub fn simulate<W: SimWork>(root: W, cfg: &SimConfig) -> Result<(SimReport, W::Output), Unsupported> {
    if !STATIC.contains(&cfg.strategy) {
        return Err(Unsupported(cfg.strategy));
    }
    let wall = Instant::now();
    let m = cfg.machine;
    let p = m.p as usize;
    let unit = cfg.unit_ticks.max(1);
    let costs = m.costs;
    // Cut the root breadth first.
    // A piece of a real tree that does not split yet (one open node) is
    // expanded a node at a time by PE 0 until it does; an abstract piece
    // that does not split is atomic for good.
    let mut pieces = VecDeque::from([root]);
    let mut splits = 0u64;
    let mut atomic = Vec::new();
    let mut output = W::Output::default();
    let mut root_units = 0u64;
    while pieces.len() + atomic.len() < PIECES_PER_PE * p {
        let Some(mut piece) = pieces.pop_front() else { break };
        match piece.split() {
            Some(other) => {
                splits += 1;
                pieces.push_back(piece);
                pieces.push_back(other);
            }
            None if piece.remaining().is_none() => match piece.work(1, &mut output) {
                Progress::Pending => {
                    root_units += 1;
                    pieces.push_front(piece);
                }
                Progress::Exhausted { used } => root_units += used,
            },
            None => atomic.push(piece),
        }
    }
    let mut pieces: Vec<W> = pieces.into_iter().chain(atomic).collect();
    let start = splits * costs.t_split + root_units * unit + m.broadcast_delay();
    let n = pieces.len();
    let mut rng = SmallRng::seed_from_u64(cfg.seed ^ 0x57A7_1C00);
    let owner = |k: usize, rng: &mut SmallRng| match cfg.strategy {
        Strategy::StaticBlock => k * p / n.max(1),
        Strategy::StaticCyclic => k % p,
        _ => rng.random_range(0..p),
    };
    let mut units = vec![0u64; p];
    units[0] = root_units;
    for (k, piece) in pieces.iter_mut().enumerate() {
        let pe = owner(k, &mut rng);
        // Work the piece to its end, Δt at a time (its size may be unknown).
        let budget = (costs.dt / unit).max(1);
        loop {
            match piece.work(budget, &mut output) {
                Progress::Pending => units[pe] += budget,
                Progress::Exhausted { used } => {
                    units[pe] += used;
                    break;
                }
            }
        }
    }
    let dt = (costs.dt / unit).max(1) * unit;
    let busy: Vec<Time> = units
        .iter()
        .map(|&u| {
            let work = u * unit;
            let probes = if work <= dt { 0 } else { work.div_ceil(dt) - 1 };
            work + probes * costs.t_poll
        })
        .collect();
    let t_last = start + busy.iter().copied().max().unwrap_or(0);
    let t_par = t_last + m.termination_delay();
    let mut util = Recorder::default();
    let mut ends: Vec<Time> = busy.iter().filter(|&&b| b > 0).map(|&b| start + b).collect();
    ends.sort_unstable();
    util.set(start, ends.len() as u64);
    for (i, &e) in ends.iter().enumerate() {
        util.set(e, (ends.len() - i - 1) as u64);
    }
    let work_units: u64 = units.iter().sum();
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
        transfers: n.saturating_sub(1) as u64,
        counter_ops: 0,
        events: 0,
        complete: true,
        wall_seconds: wall.elapsed().as_secs_f64(),
        utilization: util.finish(t_par, m.p),
        per_pe: units
            .iter()
            .zip(&busy)
            .map(|(&u, &b)| PeReport { busy: b, idle: t_par - b, work_units: u, ..PeReport::default() })
            .collect(),
        levels: Vec::new(),
    };
    Ok((report, output))
}
