//! The multi-level producer/consumer scheme of Kimura and Ichiyoshi
//! ([Kimura & Ichiyoshi 1992] §2.5, §5; Furuichi et al.'s scheme on the Multi-PSI).
//!
//! One producer cannot feed many consumers: it makes one subtask every
//! 1/λ, and with p consumers the subtasks must be small enough that the
//! last ones do not leave consumers idle, so many, so the producer becomes
//! the bottleneck (isoefficiency p² log p, [`crate::producer`]). The
//! ℓ-level scheme is a tree: the root producer divides the task into
//! subtasks for `f₁` second-level producers, each of which divides its
//! subtask into subsubtasks for `f₂` producers of the next level, and so
//! on; the producers of level ℓ feed `f_ℓ` consumers each. There are
//! `p = f₁ · f₂ ⋯ f_ℓ` consumers (the paper's p; the producers come on top).
//!
//! ## The model
//!
//! The paper's, defined by induction on ℓ: the (ℓ+1)-level scheme is the
//! single-level scheme whose consumers are groups of PEs, each executing a
//! subtask with the ℓ-level scheme. So a group takes its next subtask only
//! when every piece of the current one is done, and a producer
//!
//! * receives a task of size S (ticks of consumer work) and cuts it into
//!   pieces of mean size `g` (its level's *grain*): S/g equal pieces in the
//!   deterministic case; for random sizes, at the points of a renewal
//!   process whose gaps have the level's [`Sizes`] distribution with mean
//!   `g` (exponential gaps give i.i.d. exponential pieces and a geometric
//!   number of them, the paper's exponential case), so the pieces add up
//!   to S exactly;
//! * makes piece n at `n · t_produce` after the task arrived (production
//!   rate λ = 1/`t_produce`, common to all levels, as in the paper);
//! * hands each piece, in order, to the first child whose request is
//!   waiting, once it is made: piece n starts at `max(O_n, Z_n) + T_rout`
//!   (Definition 1 of [Kimura & Ichiyoshi 1992], with the message time `T_rout` of a request
//!   and of the piece; the paper's model is `T_rout = 0`);
//! * knows its task is done when every child's last request has arrived,
//!   and then asks its own parent for the next one. The root knows the
//!   whole task is done `ℓ · T_rout` after the last piece ends: termination
//!   detection is the reports climbing the tree.
//!
//! A group starts each subtask with all its members idle, so its time for a
//! piece depends only on the piece: the simulation is a recursion over the
//! levels, a queue of `f_i` servers per producer and task. With equal
//! pieces every group of a level sees the same few sizes, and those times
//! are computed once (the deterministic case of a 16-million-consumer tree
//! takes milliseconds).
//!
//! ## Granularity
//!
//! A producer of level i keeps its children busy when it makes pieces about
//! as fast as they finish them, ρ_i ≈ 1 in the paper's terms: its children
//! hold `P_{i+1}` consumers each, `P_i = f_i ⋯ f_ℓ` below it in all, so a
//! piece of size g keeps a child busy `g / P_{i+1}` and the producer makes
//! `f_i` pieces in that time if `g = P_i · t_produce`.
//! [`Multilevel::with_rho`] sets the grains `g_i = ρ_i · P_i · t_produce`;
//! [`best_rho`] searches for the ρ_i that maximise efficiency (the paper's
//! η_max), and [`isoefficiency`] the work that reaches a target η_max.
//!
//! ```
//! use treelb_sim::multilevel::Multilevel;
//! use treelb_sim::producer::Sizes;
//! // 1024 consumers under 32 second-level producers; 10 ticks per piece;
//! // the root's pieces 16 times the size that keeps pace with its groups.
//! let tree = Multilevel::with_rho(vec![32, 32], &[16.0, 1.0], Sizes::Exponential, 10, 0).unwrap();
//! assert_eq!((tree.consumers(), tree.producers()), (1024, 33));
//! let run = tree.time(1 << 28, 7);
//! assert!(run.t_par >= (1 << 28) / 1024);
//! assert!(run.efficiency > 0.7 && run.efficiency <= 1.0);
//! ```

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fmt;
use std::time::Instant;

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::engine::SimReport;
use crate::platform::{Costs, Network, Platform};
use crate::producer::Sizes;
use crate::queue::Time;
use crate::sweep::Observer;
use crate::utilization::Recorder;

/// The most levels a tree may have.
pub const MAX_LEVELS: usize = 8;

/// The most consumers a tree may have.
pub const MAX_CONSUMERS: u64 = 1 << 24;

/// Why a tree cannot be built.
#[derive(Clone, Debug, PartialEq)]
pub enum TreeError {
    /// No level, or more than [`MAX_LEVELS`].
    Levels(usize),
    /// A level's fan-out is 0.
    ZeroFanout {
        /// The level (1 = the root producer).
        level: usize,
    },
    /// The fan-outs multiply to more than [`MAX_CONSUMERS`] consumers.
    TooManyConsumers,
    /// The grains and fan-outs differ in number.
    GrainCount {
        /// Levels given by the fan-outs.
        levels: usize,
        /// Grains given.
        grains: usize,
    },
    /// A grain is below one tick, or not finite.
    Grain {
        /// The level (1 = the root producer).
        level: usize,
        /// The grain given.
        grain: f64,
    },
}

impl fmt::Display for TreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TreeError::Levels(n) => write!(f, "a producer tree has 1 to {MAX_LEVELS} levels, not {n}"),
            TreeError::ZeroFanout { level } => write!(f, "level {level}: a fan-out must be at least 1"),
            TreeError::TooManyConsumers => {
                write!(f, "the fan-outs multiply to more than {MAX_CONSUMERS} consumers")
            }
            TreeError::GrainCount { levels, grains } => {
                write!(f, "{levels} levels need {levels} grains (or ρ values), got {grains}")
            }
            TreeError::Grain { level, grain } => {
                write!(f, "level {level}: a grain must be a number of at least 1 tick, got {grain}")
            }
        }
    }
}

impl std::error::Error for TreeError {}

/// A producer tree: fan-outs, grains and costs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Multilevel {
    /// The fan-out of the producers of each level, root first; the last
    /// level's producers feed consumers.
    pub fanout: Vec<u32>,
    /// The mean size of the pieces each level's producers hand out, ticks.
    pub grain: Vec<f64>,
    /// How piece sizes are distributed.
    pub sizes: Sizes,
    /// 1/λ: the ticks a producer spends on one piece.
    pub t_produce: Time,
    /// The ticks a message (a request, a piece) takes.
    pub t_rout: Time,
}

/// What one run of a tree did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// The work: the sum of the consumers' pieces.
    pub t_seq: Time,
    /// When the root knows that every piece is done.
    pub t_par: Time,
    /// `t_seq / (p · t_par)` with p consumers.
    pub efficiency: f64,
    /// Pieces handed out by each level's producers, root first.
    pub pieces: Vec<u64>,
}

/// What a producer's task cost: the time until its producer knows it is
/// done, and the pieces handed out below it.
#[derive(Clone, Copy, Debug, Default)]
struct Exec {
    dur: Time,
    pieces: [u64; MAX_LEVELS],
}

/// Per-consumer accounting of a recorded run.
struct Record {
    busy: Vec<Time>,
    received: Vec<u64>,
    last_end: Time,
    util: Recorder,
}

/// The simulation state of one run.
struct Engine<'a> {
    tree: &'a Multilevel,
    rng: SmallRng,
    /// `P_{i+1}`: consumers under one child of a level-i producer.
    below: Vec<u64>,
    /// Reused per level: the children's request times, and the pieces.
    heaps: Vec<BinaryHeap<Reverse<(Time, u32)>>>,
    cuts: Vec<Vec<Time>>,
    /// Deterministic pieces, unrecorded: the time of a task by level and size.
    memo: Option<HashMap<(usize, Time), Exec>>,
    record: Option<Record>,
}

impl Multilevel {
    /// A tree with the given fan-outs (root first) and grains (mean piece
    /// size per level, in ticks), checked.
    pub fn new(
        fanout: Vec<u32>,
        grain: Vec<f64>,
        sizes: Sizes,
        t_produce: Time,
        t_rout: Time,
    ) -> Result<Self, TreeError> {
        if fanout.is_empty() || fanout.len() > MAX_LEVELS {
            return Err(TreeError::Levels(fanout.len()));
        }
        if let Some(i) = fanout.iter().position(|&f| f == 0) {
            return Err(TreeError::ZeroFanout { level: i + 1 });
        }
        let p = fanout.iter().try_fold(1u64, |acc, &f| acc.checked_mul(u64::from(f)));
        if p.is_none_or(|p| p > MAX_CONSUMERS) {
            return Err(TreeError::TooManyConsumers);
        }
        if grain.len() != fanout.len() {
            return Err(TreeError::GrainCount { levels: fanout.len(), grains: grain.len() });
        }
        if let Some(i) = grain.iter().position(|g| !(g.is_finite() && *g >= 1.0)) {
            return Err(TreeError::Grain { level: i + 1, grain: grain[i] });
        }
        Ok(Multilevel { fanout, grain, sizes, t_produce, t_rout })
    }

    /// A tree whose level-i grain is `ρ_i · P_i · t_produce`, `P_i` the
    /// consumers under a level-i producer (ρ_i = 1: it makes pieces as
    /// fast as its children finish them; a `t_produce` of 0 counts as 1).
    ///
    /// ```
    /// use treelb_sim::multilevel::Multilevel;
    /// use treelb_sim::producer::Sizes;
    /// let t = Multilevel::with_rho(vec![8, 4], &[1.0, 2.0], Sizes::Deterministic, 10, 0).unwrap();
    /// assert_eq!(t.grain, [320.0, 80.0]);
    /// ```
    pub fn with_rho(
        fanout: Vec<u32>,
        rho: &[f64],
        sizes: Sizes,
        t_produce: Time,
        t_rout: Time,
    ) -> Result<Self, TreeError> {
        if rho.len() != fanout.len() {
            return Err(TreeError::GrainCount { levels: fanout.len(), grains: rho.len() });
        }
        let grain = (0..fanout.len())
            .map(|i| {
                let under: f64 = fanout[i..].iter().map(|&f| f64::from(f)).product();
                rho[i] * under * t_produce.max(1) as f64
            })
            .collect();
        Multilevel::new(fanout, grain, sizes, t_produce, t_rout)
    }

    /// ρ_i of each level: the grain over `P_i · t_produce` (see
    /// [`with_rho`](Self::with_rho)).
    pub fn rho(&self) -> Vec<f64> {
        (0..self.levels())
            .map(|i| {
                let under: f64 = self.fanout[i..].iter().map(|&f| f64::from(f)).product();
                self.grain[i] / (under * self.t_produce.max(1) as f64)
            })
            .collect()
    }

    /// ℓ, the number of producer levels.
    pub fn levels(&self) -> usize {
        self.fanout.len()
    }

    /// p, the number of consumers: the product of the fan-outs.
    pub fn consumers(&self) -> u32 {
        self.fanout.iter().product()
    }

    /// The number of producers: `1 + f₁ + f₁f₂ + …` (not counted in p).
    pub fn producers(&self) -> u32 {
        let mut width = 1;
        let mut total = 0;
        for &f in &self.fanout {
            total += width;
            width *= f;
        }
        total
    }

    /// Runs the tree on a task of `work` ticks (seed for the piece sizes).
    pub fn time(&self, work: Time, seed: u64) -> Run {
        let mut e = Engine::new(self, seed, false);
        let x = e.exec(0, work.max(1), 0, 0);
        self.run_of(work.max(1), &x)
    }

    /// The "collective" mean efficiency of `trials` runs (seeds `seed`,
    /// `seed + 1`, …): `Σ T₁ / (p Σ T_p)`, the paper's η.
    pub fn efficiency(&self, work: Time, trials: u32, seed: u64) -> f64 {
        let trials = if self.sizes == Sizes::Deterministic { 1 } else { trials.max(1) };
        let mut sum_par = 0.0;
        for k in 0..trials {
            sum_par += self.time(work, seed.wrapping_add(u64::from(k))).t_par as f64;
        }
        work.max(1) as f64 * f64::from(trials) / (f64::from(self.consumers()) * sum_par)
    }

    /// One run, reported like a run of the message-passing machine: the
    /// consumers are the PEs (per-PE busy and idle time, utilization over
    /// time), requests are the consumers' and producers' requests, transfers
    /// the pieces handed out, `events` the requests served. The machine is
    /// a crossbar with `T_rout` = `t_rout` and `T_split` = `t_produce`.
    pub fn report(&self, work: Time, seed: u64) -> SimReport {
        let wall = Instant::now();
        let work = work.max(1);
        let p = self.consumers();
        let mut e = Engine::new(self, seed, true);
        let x = e.exec(0, work, 0, 0);
        let run = self.run_of(work, &x);
        let rec = e.record.take().expect("a recorded run");
        // A request waits at its producer until a piece is made for it (a
        // producer without pieces asks its own parent), so every consumer
        // and producer but the root sends one request per piece it gets and
        // a last one, which termination answers.
        let per_pe: Vec<treelb::PeStats> = (0..p as usize)
            .map(|i| treelb::PeStats {
                pe: i,
                busy: std::time::Duration::from_nanos(rec.busy[i]),
                // A simulated PE has its processor to itself.
                cpu: std::time::Duration::from_nanos(rec.busy[i]),
                idle: std::time::Duration::from_nanos(run.t_par - rec.busy[i]),
                work_units: rec.busy[i],
                requests_sent: rec.received[i] + 1,
                requests_failed: 1,
                pieces_received: rec.received[i],
                messages: 2 * (rec.received[i] + 1),
                ..treelb::PeStats::default()
            })
            .collect();
        let transfers: u64 = run.pieces.iter().sum();
        let last = u64::from(p + self.producers() - 1);
        let costs = Costs { t_rout: self.t_rout, t_split: self.t_produce, ..Costs::default() };
        SimReport {
            strategy: treelb::Strategy::Multilevel.name().to_owned(),
            init: treelb::Init::Root.name().to_owned(),
            machine: Platform::new(p, Network::Crossbar, costs),
            budget: 0,
            t_seq: run.t_seq,
            t_par: run.t_par,
            t_last_work: rec.last_end,
            efficiency: run.efficiency,
            work_units: run.t_seq,
            requests: transfers + last,
            requests_failed: last,
            transfers,
            messages: 2 * (transfers + last),
            counter_ops: 0,
            heap_ops: 0,
            events: transfers + last,
            max_queue: 0,
            request_arrivals: 0,
            queue_encountered: 0,
            complete: true,
            core_switches: 0,
            wall_seconds: wall.elapsed().as_secs_f64(),
            utilization: rec.util.finish(run.t_par, p),
            per_pe,
            levels: (0..self.levels())
                .map(|i| Level { fanout: self.fanout[i], grain: self.grain[i], pieces: run.pieces[i] })
                .collect(),
            decisions: Vec::new(),
        }
    }

    fn run_of(&self, work: Time, x: &Exec) -> Run {
        Run {
            t_seq: work,
            t_par: x.dur,
            efficiency: work as f64 / (f64::from(self.consumers()) * x.dur.max(1) as f64),
            pieces: x.pieces[..self.levels()].to_vec(),
        }
    }
}

/// The fan-out, grain and pieces of one level of a simulated producer tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Level {
    /// The fan-out of this level's producers.
    pub fanout: u32,
    /// The mean piece size they aim for, in ticks.
    pub grain: f64,
    /// The pieces they handed out.
    pub pieces: u64,
}

impl<'a> Engine<'a> {
    fn new(tree: &'a Multilevel, seed: u64, record: bool) -> Self {
        let l = tree.levels();
        let below = (0..l).map(|i| tree.fanout[i + 1..].iter().map(|&f| u64::from(f)).product()).collect();
        let p = tree.consumers() as usize;
        Engine {
            tree,
            rng: SmallRng::seed_from_u64(seed ^ 0x6D75_6C74_696C_6576),
            below,
            heaps: (0..l).map(|i| BinaryHeap::with_capacity(tree.fanout[i] as usize)).collect(),
            cuts: vec![Vec::new(); l],
            memo: (tree.sizes == Sizes::Deterministic && !record).then(HashMap::new),
            record: record.then(|| Record {
                busy: vec![0; p],
                received: vec![0; p],
                last_end: 0,
                util: Recorder::default(),
            }),
        }
    }

    /// Cuts a task of `size` into the pieces of level `level`.
    fn cut(&mut self, level: usize, size: Time, out: &mut Vec<Time>) {
        out.clear();
        let g = self.tree.grain[level];
        match self.tree.sizes {
            Sizes::Deterministic => {
                let n = ((size as f64 / g).round() as u64).clamp(1, size);
                let (s, n128) = (u128::from(size), u128::from(n));
                // Piece k covers [k·S/n, (k+1)·S/n): sizes differ by at most 1.
                out.extend((0..n128).map(|k| ((k + 1) * s / n128 - k * s / n128) as Time));
            }
            sizes => {
                let (mut pos, mut last) = (0.0f64, 0);
                while last < size {
                    pos += sizes.sample(g, self.rng.random::<f64>());
                    let x = if pos >= size as f64 { size } else { (pos.round() as Time).min(size) };
                    if x > last {
                        out.push(x - last);
                        last = x;
                    }
                }
            }
        }
    }

    /// A level-`level` producer receives a task of `size` at absolute time
    /// `t0`; its consumers are `leaf0 ..`. Returns when it knows the task
    /// is done (relative to `t0`) and what was handed out.
    fn exec(&mut self, level: usize, size: Time, t0: Time, leaf0: u64) -> Exec {
        if let Some(memo) = &self.memo
            && let Some(x) = memo.get(&(level, size))
        {
            return *x;
        }
        let tree = self.tree;
        let last_level = level + 1 == tree.levels();
        let (d, u) = (tree.t_rout, tree.t_produce);
        let mut pieces = std::mem::take(&mut self.cuts[level]);
        self.cut(level, size, &mut pieces);
        let mut heap = std::mem::take(&mut self.heaps[level]);
        heap.clear();
        // Every child's request is waiting when the task arrives.
        heap.extend((0..tree.fanout[level]).map(|c| Reverse((0, c))));
        let mut x = Exec::default();
        let mut end = 0;
        for (n, &piece) in pieces.iter().enumerate() {
            let made = (n as Time + 1) * u;
            // The first waiting child gets the piece; its next request goes
            // back into the heap (replacing the top sifts down only once).
            let mut top = heap.peek_mut().expect("a producer has children");
            let Reverse((ready, c)) = *top;
            let start = made.max(ready) + d;
            let first = leaf0 + u64::from(c) * self.below[level];
            let dur = if last_level {
                if let Some(r) = &mut self.record {
                    let i = first as usize;
                    r.busy[i] += piece;
                    r.received[i] += 1;
                    r.last_end = r.last_end.max(t0 + start + piece);
                    r.util.add_interval(t0 + start, t0 + start + piece);
                }
                piece
            } else {
                let sub = self.exec(level + 1, piece, t0 + start, first);
                for (a, b) in x.pieces.iter_mut().zip(sub.pieces) {
                    *a += b;
                }
                sub.dur
            };
            let back = start + dur + d;
            end = end.max(back);
            *top = Reverse((back, c));
        }
        x.dur = end;
        x.pieces[level] += pieces.len() as u64;
        self.cuts[level] = pieces;
        self.heaps[level] = heap;
        if let Some(memo) = &mut self.memo {
            memo.insert((level, size), x);
        }
        x
    }
}

/// What a search over granularities and work keeps fixed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Search {
    /// How piece sizes are distributed.
    pub sizes: Sizes,
    /// 1/λ, ticks per piece made.
    pub t_produce: Time,
    /// Ticks per message (0 in the paper's model).
    pub t_rout: Time,
    /// Runs per evaluation (1 suffices for equal pieces).
    pub trials: u32,
    /// The seed of the first run of each evaluation (every evaluation uses
    /// the same seeds, so that nearby granularities compare fairly).
    pub seed: u64,
    /// The η_max to reach ([`isoefficiency`]).
    pub target: f64,
    /// Bisection steps on log₂ W after bracketing (precision 2^(1/2^steps)).
    pub steps: u32,
    /// Give up above this work.
    pub max_work: Time,
}

/// The best efficiency of a tree shape on a task of `work`, and the ρ per
/// level that gives it (the paper's η_max at the optimal granularity).
///
/// A coordinate search over log₂ ρ_i in steps of 1/4 (ρ from 1/4 to 1024),
/// from `start` if given (the optimum at a nearby work), otherwise from two
/// starting points, keeping the better: ρ = 1 everywhere, and the shape the
/// analysis suggests — ρ_ℓ = 1 at the consumers, and each level above making pieces
/// big enough for about 8 pieces per child of the level below, ρ_{i−1} =
/// 8 ρ_i f_i / f_{i−1} (a group must get tasks large against its own
/// production time to run them efficiently).
pub fn best_rho(fanout: &[u32], s: &Search, work: Time, start: Option<&[f64]>) -> (f64, Vec<f64>) {
    const LOW: i32 = -8;
    const HIGH: i32 = 40;
    let l = fanout.len();
    let quarter = |k: i32| 2f64.powf(f64::from(k) / 4.0);
    let to_exps = |r: &[f64]| -> Vec<i32> {
        r.iter().map(|x| ((x.log2() * 4.0).round() as i32).clamp(LOW, HIGH)).collect()
    };
    let mut cache: HashMap<Vec<i32>, f64> = HashMap::new();
    let mut eval = |e: &[i32]| -> f64 {
        if let Some(&v) = cache.get(e) {
            return v;
        }
        let rho: Vec<f64> = e.iter().map(|&k| quarter(k)).collect();
        let v = match Multilevel::with_rho(fanout.to_vec(), &rho, s.sizes, s.t_produce, s.t_rout) {
            Ok(t) => t.efficiency(work, s.trials, s.seed),
            Err(_) => 0.0,
        };
        cache.insert(e.to_vec(), v);
        v
    };
    let mut analysis = vec![1.0; l];
    for i in (1..l).rev() {
        analysis[i - 1] = 8.0 * analysis[i] * f64::from(fanout[i]) / f64::from(fanout[i - 1]);
    }
    let mut starts = match start.filter(|r| r.len() == l) {
        Some(r) => vec![to_exps(r)],
        None => vec![to_exps(&analysis), vec![0; l]],
    };
    let mut seen = Vec::new();
    starts.retain(|e| {
        let new = !seen.contains(e);
        seen.push(e.clone());
        new
    });
    // Equal pieces come in whole numbers, so efficiency has small plateaus
    // and steps in ρ: each line search looks up to `patience` steps beyond
    // the best point before it turns back (random sizes on common seeds
    // give a smoother surface).
    let patience = if s.sizes == Sizes::Deterministic { 4 } else { 2 };
    let mut overall: Option<(f64, Vec<i32>)> = None;
    for mut exps in starts {
        let mut best = eval(&exps);
        for _pass in 0..6 {
            let mut moved = false;
            for i in 0..l {
                for dir in [1, -1] {
                    let mut k = 1;
                    while k <= patience {
                        let mut e = exps.clone();
                        e[i] += dir * k;
                        if !(LOW..=HIGH).contains(&e[i]) {
                            break;
                        }
                        let v = eval(&e);
                        if v > best {
                            best = v;
                            exps = e;
                            moved = true;
                            k = 1;
                        } else {
                            k += 1;
                        }
                    }
                }
            }
            if !moved {
                break;
            }
        }
        if overall.as_ref().is_none_or(|(b, _)| best > *b) {
            overall = Some((best, exps));
        }
    }
    let (best, exps) = overall.expect("at least one start");
    (best, exps.iter().map(|&k| quarter(k)).collect())
}

/// The result of an isoefficiency search for one tree shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IsoTree {
    /// The fan-outs, root first.
    pub fanout: Vec<u32>,
    /// The work at which η_max reaches the target (ticks), if found.
    pub work: Option<Time>,
    /// η_max at that work.
    pub efficiency: f64,
    /// The ρ per level that gives it.
    pub rho: Vec<f64>,
}

/// The work a tree shape needs for η_max ≥ `s.target`: bracketed by
/// doubling (or halving) from `guess`, then `s.steps` bisections on log W;
/// `work: None` above `s.max_work`, or if three doublings in a row gain
/// nothing.
pub fn isoefficiency(fanout: &[u32], s: &Search, guess: Time) -> IsoTree {
    let mut rho: Option<Vec<f64>> = None;
    let mut at = |w: Time| {
        let (e, r) = best_rho(fanout, s, w, rho.as_deref());
        rho = Some(r.clone());
        (e, r)
    };
    let found = |work, efficiency, rho| IsoTree { fanout: fanout.to_vec(), work, efficiency, rho };
    let mut hi = guess.max(2);
    let (mut e_hi, mut r_hi) = at(hi);
    let mut lo;
    if e_hi >= s.target {
        loop {
            lo = hi / 2;
            if lo < 2 {
                return found(Some(hi), e_hi, r_hi);
            }
            let (e, r) = at(lo);
            if e < s.target {
                break;
            }
            (hi, e_hi, r_hi) = (lo, e, r);
        }
    } else {
        // A shape that gains nothing from three doublings in a row will not
        // reach the target: give up rather than simulate ever larger tasks.
        let mut stalled = 0;
        loop {
            lo = hi;
            hi = hi.saturating_mul(2);
            if hi > s.max_work || stalled == 3 {
                return found(None, e_hi, r_hi);
            }
            let (e, r) = at(hi);
            stalled = if e < e_hi + 1e-3 { stalled + 1 } else { 0 };
            (e_hi, r_hi) = (e, r);
            if e_hi >= s.target {
                break;
            }
        }
    }
    for _ in 0..s.steps {
        let mid = ((lo as f64).ln() * 0.5 + (hi as f64).ln() * 0.5).exp().round() as Time;
        if mid <= lo || mid >= hi {
            break;
        }
        let (e, r) = at(mid);
        if e >= s.target {
            (hi, e_hi, r_hi) = (mid, e, r);
        } else {
            lo = mid;
        }
    }
    found(Some(hi), e_hi, r_hi)
}

/// The fan-outs of a tree of `levels` levels over `p` consumers that is as
/// even as the divisors of `p` allow, larger degrees towards the root: each
/// level takes the smallest divisor of what is left that is at least its
/// ℓ-th root.
///
/// ```
/// use treelb_sim::multilevel::even_fanout;
/// assert_eq!(even_fanout(4096, 2), [64, 64]);
/// assert_eq!(even_fanout(1024, 3), [16, 8, 8]);
/// assert_eq!(even_fanout(1000, 3), [10, 10, 10]);
/// assert_eq!(even_fanout(7, 2), [7, 1]);
/// ```
pub fn even_fanout(p: u32, levels: usize) -> Vec<u32> {
    let mut left = p.max(1);
    let mut out = Vec::with_capacity(levels);
    for k in (1..=levels).rev() {
        let root = f64::from(left).powf(1.0 / k as f64) - 1e-9;
        let f = (1..=left).find(|&d| left.is_multiple_of(d) && f64::from(d) >= root).unwrap_or(left);
        out.push(f);
        left /= f;
    }
    out
}

/// The default tree of `levels` levels over `p` consumers, as the threads
/// runtime builds it: the root's degree after Kimura and Ichiyoshi's
/// Theorem 4, `c · p^(1/ℓ) · (ln p)^((ℓ−1)/2)` ([`treelb::strategy::multilevel::default_fanout`]),
/// rounded to the nearest divisor of `p` (on a log scale) that leaves every
/// level below a fan-out of at least 2, and the levels below as even as the
/// rest allows ([`even_fanout`]).
///
/// ```
/// use treelb_sim::multilevel::theorem4_fanout;
/// assert_eq!(theorem4_fanout(1024, 1), [1024]);
/// assert_eq!(theorem4_fanout(1024, 2), [256, 4]); // 2.28 · 32 · √(ln 1024) ≈ 192
/// assert_eq!(theorem4_fanout(4096, 3), [256, 4, 4]); // 2.28 · 16 · ln 4096 ≈ 303
/// ```
pub fn theorem4_fanout(p: u32, levels: usize) -> Vec<u32> {
    let p = p.max(1);
    if levels <= 1 {
        return vec![p];
    }
    let target = treelb::strategy::multilevel::default_fanout(p as usize, levels as u32)[0] as f64;
    // Every level below the root keeps a fan-out of at least 2 where p
    // allows it.
    let below = 1u32 << (levels - 1).min(31);
    let root = (1..=p)
        .filter(|&d| p.is_multiple_of(d) && (p / d >= below || d == 1))
        .min_by(|&a, &b| {
            let dist = |d: u32| (f64::from(d) / target).ln().abs();
            dist(a).total_cmp(&dist(b))
        })
        .unwrap_or(p);
    let mut out = vec![root];
    out.extend(even_fanout(p / root, levels - 1));
    out
}

/// Every way to write 2^k as ℓ power-of-two fan-outs of at least 2 whose
/// exponents are within one of k/ℓ (the candidate shapes of an
/// isoefficiency sweep; none if k < ℓ).
pub fn near_even_shapes(k: u32, levels: usize) -> Vec<Vec<u32>> {
    let lo = (k / levels as u32).saturating_sub(1).max(1);
    let hi = k.div_ceil(levels as u32) + 1;
    let mut out = Vec::new();
    let mut cur = Vec::with_capacity(levels);
    fn rec(k: u32, levels: usize, lo: u32, hi: u32, cur: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        if cur.len() == levels {
            if k == 0 {
                out.push(cur.iter().map(|&e| 1u32 << e).collect());
            }
            return;
        }
        for e in lo..=hi.min(k) {
            cur.push(e);
            rec(k - e, levels, lo, hi, cur, out);
            cur.pop();
        }
    }
    rec(k, levels, lo, hi, &mut cur, &mut out);
    out
}

/// Runs `f` on each shape (on all cores) and keeps the one needing the
/// least work, the first of the shapes in their order on a tie.
pub fn least_work(
    shapes: &[Vec<u32>],
    obs: &mut dyn Observer,
    f: impl Fn(&[u32]) -> IsoTree + Sync + Send,
) -> IsoTree {
    let mut best: Option<IsoTree> = None;
    for r in crate::sweep::par_map(shapes, |s| f(s)) {
        obs.step();
        let better = match (&best, r.work) {
            (None, _) => true,
            (Some(b), Some(w)) => b.work.is_none_or(|bw| w < bw),
            (Some(_), None) => false,
        };
        if better {
            best = Some(r);
        }
    }
    best.expect("at least one shape")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_add_up() {
        for sizes in Sizes::ALL {
            let t = Multilevel::new(vec![4], vec![37.0], sizes, 1, 0).unwrap();
            let mut e = Engine::new(&t, 3, false);
            let mut out = Vec::new();
            for size in [1, 36, 37, 1000, 123_457] {
                e.cut(0, size, &mut out);
                assert_eq!(out.iter().sum::<Time>(), size, "{sizes} {size}");
                assert!(out.iter().all(|&x| x > 0));
            }
            e.cut(0, 3700, &mut out);
            if sizes == Sizes::Deterministic {
                assert_eq!(out, vec![37; 100]);
            } else {
                assert!((40..=200).contains(&out.len()), "{sizes}: {} pieces", out.len());
            }
        }
    }

    #[test]
    fn shapes() {
        assert_eq!(near_even_shapes(4, 2), [vec![2, 8], vec![4, 4], vec![8, 2]]);
        assert_eq!(near_even_shapes(4, 3), [vec![2, 2, 4], vec![2, 4, 2], vec![4, 2, 2]]);
        assert!(near_even_shapes(2, 3).is_empty());
        assert!(near_even_shapes(9, 3).contains(&vec![8, 8, 8]));
        assert!(near_even_shapes(9, 3).iter().all(|s| s.iter().product::<u32>() == 512));
    }
}
