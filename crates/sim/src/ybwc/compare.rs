//! The model beside a real runtime: young brothers wait on the same
//! synthetic trees, simulated at some numbers of PEs and run on the
//! threads runtime at others, each with and without waiting (`treelb sim
//! ybwc`).
//!
//! Both are measured against the same sequential alpha-beta: the model in
//! simulated time ([`simulate_ybwc`]), the threads runtime in wall time,
//! the fastest of a few runs (as the sequential baseline is timed). Every
//! value either finds is checked against the sequential one.
//!
//! ```
//! use treelb_sim::sweep::Quiet;
//! use treelb_sim::ybwc::compare::{Compare, Engine, compare};
//!
//! let cfg = Compare { pes: vec![4], threads: vec![2], repeat: 1, depth: 5, seeds: 2, ..Compare::default() };
//! let c = compare(&cfg, &mut Quiet).unwrap();
//! // The model and the threads runtime, each with and without waiting.
//! assert_eq!(c.rows.len(), 4);
//! assert_eq!((c.rows[0].engine, c.rows[0].p, c.rows[0].ybw), (Engine::Model, 4, true));
//! assert!(c.rows.iter().all(|r| r.nodes >= r.aborted_nodes && r.overhead > 0.0));
//! ```

use std::fmt;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use treelb::game::{YbwWork, solve};
use treelb::spec::{Budget, SpecError};
use treelb::{RunSpec, Strategy};
use treelb_apps::gametree::GameTree;

use super::{sequential, simulate_ybwc};
use crate::platform::{Costs, Network, Platform};
use crate::queue::Time;
use crate::sweep::Observer;

/// The most PEs the model simulates here.
pub const MAX_SIMULATED_PES: u32 = 1 << 16;

/// The most PEs of the threads runtime.
pub const MAX_THREADS: usize = 1024;

/// The trees, the numbers of PEs and the costs of a comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Compare {
    /// Children of every inner position.
    pub branching: u32,
    /// Depth of the leaves.
    pub depth: u32,
    /// Probability that a position's children come best-first.
    pub ordering: f64,
    /// Trees: seeds 0, 1, … up to this number.
    pub seeds: u64,
    /// PEs the model simulates (1 to [`MAX_SIMULATED_PES`]).
    pub pes: Vec<u32>,
    /// PEs of the threads runtime on the same trees (1 to [`MAX_THREADS`];
    /// none: the model alone).
    pub threads: Vec<usize>,
    /// Runs of each threads configuration, with and without waiting in
    /// turn; the fastest counts. Also the runs of the sequential baseline.
    pub repeat: u32,
    /// Ticks one position costs in the model.
    pub node_ticks: Time,
    /// Δt of random polling, in positions.
    pub budget: Budget,
    /// The model's costs, on a crossbar.
    pub costs: Costs,
}

impl Default for Compare {
    /// Branching 8, depth 9, ordering 0.9, 3 trees; the model at 2, 4, 8,
    /// 16 and 64 PEs, the threads runtime at 2, 4 and 8, fastest of 3; a
    /// position 10 ticks, the default Δt and costs.
    fn default() -> Self {
        Compare {
            branching: 8,
            depth: 9,
            ordering: 0.9,
            seeds: 3,
            pes: vec![2, 4, 8, 16, 64],
            threads: vec![2, 4, 8],
            repeat: 3,
            node_ticks: 10,
            budget: Budget::DEFAULT,
            costs: Costs::default(),
        }
    }
}

impl Compare {
    /// The synthetic trees, one per seed.
    pub fn trees(&self) -> Vec<GameTree> {
        (0..self.seeds)
            .map(|seed| GameTree {
                branching: self.branching,
                depth: self.depth,
                weight: 10,
                ordering: self.ordering,
                seed,
            })
            .collect()
    }

    /// How both engines balance: random polling with Δt = `budget`.
    pub fn spec(&self) -> RunSpec {
        RunSpec { strategy: Strategy::RandomPolling, budget: self.budget, ..RunSpec::default() }
    }

    /// Checks the ordering and the numbers of PEs.
    pub fn validate(&self) -> Result<(), CompareError> {
        if !(0.0..=1.0).contains(&self.ordering) {
            return Err(CompareError::Ordering(self.ordering));
        }
        if let Some(&p) = self.pes.iter().find(|&&p| p == 0 || p > MAX_SIMULATED_PES) {
            return Err(CompareError::SimulatedPes(p));
        }
        if let Some(&p) = self.threads.iter().find(|&&p| p == 0 || p > MAX_THREADS) {
            return Err(CompareError::Threads(p));
        }
        Ok(self.spec().validate()?)
    }
}

/// Why a comparison cannot run.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum CompareError {
    /// An ordering outside 0 to 1.
    Ordering(f64),
    /// A number of simulated PEs outside 1 to [`MAX_SIMULATED_PES`].
    SimulatedPes(u32),
    /// A number of threads outside 1 to [`MAX_THREADS`].
    Threads(usize),
    /// The balancing specification is invalid.
    Spec(SpecError),
}

impl fmt::Display for CompareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompareError::Ordering(o) => write!(f, "the ordering must be between 0 and 1, got {o}"),
            CompareError::SimulatedPes(p) => {
                write!(f, "simulated PEs must be between 1 and {MAX_SIMULATED_PES}, got {p}")
            }
            CompareError::Threads(p) => {
                write!(f, "PEs of the threads runtime must be between 1 and {MAX_THREADS}, got {p}")
            }
            CompareError::Spec(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for CompareError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CompareError::Spec(e) => Some(e),
            _ => None,
        }
    }
}

impl From<SpecError> for CompareError {
    fn from(e: SpecError) -> Self {
        CompareError::Spec(e)
    }
}

/// What ran a row of a [`Comparison`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Engine {
    /// The simulator, in simulated time.
    Model,
    /// The threads runtime, in wall time.
    Threads,
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Engine::Model => "model",
            Engine::Threads => "threads",
        })
    }
}

/// One engine at one number of PEs, with or without waiting, over all
/// trees.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// What ran it.
    pub engine: Engine,
    /// PEs.
    pub p: usize,
    /// Whether young brothers waited for their eldest.
    pub ybw: bool,
    /// Positions expanded by all PEs.
    pub nodes: u64,
    /// Of those, positions in subtrees thrown away.
    pub aborted_nodes: u64,
    /// Search overhead: nodes over the sequential search's nodes.
    pub overhead: f64,
    /// The sequential time over the parallel time: simulated for the
    /// model, wall-clock (fastest runs) for the threads runtime.
    pub speedup: f64,
}

impl Row {
    /// Percent of the nodes in subtrees thrown away.
    pub fn aborted_percent(&self) -> f64 {
        100.0 * self.aborted_nodes as f64 / self.nodes.max(1) as f64
    }

    /// The speedup over P.
    pub fn efficiency(&self) -> f64 {
        self.speedup / self.p as f64
    }
}

/// The outcome of [`compare`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Positions the sequential alpha-beta expanded, over all trees.
    pub seq_nodes: u64,
    /// Its wall time, the fastest of `repeat` runs, in seconds.
    pub seq_seconds: f64,
    /// The model's rows (in the order of `pes`, with waiting first), then
    /// the threads runtime's (in the order of `threads`).
    pub rows: Vec<Row>,
    /// The cores this process could use.
    pub cores: usize,
}

/// Solves the trees of `cfg` sequentially, with the model and on the
/// threads runtime; `obs` sees the phases (sequential, model, threads) and
/// their steps.
///
/// # Panics
///
/// If a parallel search finds another value than the sequential one.
pub fn compare(cfg: &Compare, obs: &mut dyn Observer) -> Result<Comparison, CompareError> {
    cfg.validate()?;
    let trees = cfg.trees();
    let spec = cfg.spec();
    let repeat = cfg.repeat.max(1);
    // The sequential baseline, timed as the threads runs are: fastest of N.
    obs.phase("sequential", u64::from(repeat));
    let mut seq_seconds = f64::INFINITY;
    let mut seq = None;
    for _ in 0..repeat {
        let start = Instant::now();
        let s = sequential(&trees);
        seq_seconds = seq_seconds.min(start.elapsed().as_secs_f64());
        seq = Some(s);
        obs.step();
    }
    let seq = seq.expect("at least one run");
    let mut rows = Vec::new();
    obs.phase("model", 2 * cfg.pes.len() as u64);
    for &p in &cfg.pes {
        for ybw in [true, false] {
            let machine = Platform::new(p, Network::Crossbar, cfg.costs);
            let point = simulate_ybwc(&trees, &seq, machine, &spec, cfg.node_ticks, ybw)?;
            rows.push(Row {
                engine: Engine::Model,
                p: p as usize,
                ybw,
                nodes: point.nodes,
                aborted_nodes: point.aborted_nodes,
                overhead: point.overhead(),
                speedup: point.speedup(),
            });
            obs.step();
        }
    }
    if !cfg.threads.is_empty() {
        obs.phase("threads", 2 * u64::from(repeat) * cfg.threads.len() as u64);
    }
    for &p in &cfg.threads {
        let mut best = [None::<Measured>, None];
        for _ in 0..repeat {
            for (k, ybw) in [true, false].into_iter().enumerate() {
                let m = on_threads(&trees, &seq.values, p, ybw, &spec);
                if best[k].as_ref().is_none_or(|b| m.seconds < b.seconds) {
                    best[k] = Some(m);
                }
                obs.step();
            }
        }
        for (k, m) in best.into_iter().enumerate() {
            let m = m.expect("at least one run");
            rows.push(Row {
                engine: Engine::Threads,
                p,
                ybw: k == 0,
                nodes: m.nodes,
                aborted_nodes: m.aborted,
                overhead: m.nodes as f64 / seq.nodes as f64,
                speedup: seq_seconds / m.seconds,
            });
        }
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    Ok(Comparison { seq_nodes: seq.nodes, seq_seconds, rows, cores })
}

/// One threads configuration's totals over the trees.
struct Measured {
    seconds: f64,
    nodes: u64,
    aborted: u64,
}

/// Solves every tree on the threads runtime; checks every value.
fn on_threads(trees: &[GameTree], values: &[i32], p: usize, ybw: bool, spec: &RunSpec) -> Measured {
    let cfg = treelb_threads::Config::with_spec(p, spec.clone());
    let start = Instant::now();
    let (mut nodes, mut aborted) = (0, 0);
    for (t, &v) in trees.iter().zip(values) {
        let b = t.bound();
        let value = solve(-b, b, |lo, hi| {
            let o = treelb_threads::run(YbwWork::new(t, t.root(), lo, hi, ybw), &cfg)
                .unwrap_or_else(|e| panic!("a checked configuration failed: {e}"))
                .output;
            nodes += o.nodes;
            aborted += o.aborted_nodes;
            o.value.expect("a finished search has the root's value")
        });
        assert_eq!(value, v, "the parallel value differs from the sequential one");
    }
    Measured { seconds: start.elapsed().as_secs_f64(), nodes, aborted }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::Quiet;

    #[test]
    fn what_cannot_be_compared() {
        let fails = |cfg: Compare| compare(&cfg, &mut Quiet).unwrap_err();
        assert_eq!(fails(Compare { ordering: 2.0, ..Compare::default() }), CompareError::Ordering(2.0));
        assert_eq!(fails(Compare { pes: vec![2, 0], ..Compare::default() }), CompareError::SimulatedPes(0));
        let too_many = Compare { threads: vec![MAX_THREADS + 1], ..Compare::default() };
        assert_eq!(fails(too_many), CompareError::Threads(MAX_THREADS + 1));
    }

    #[test]
    fn the_model_alone_has_a_row_per_p_and_waiting() {
        let cfg = Compare { pes: vec![1, 8], threads: vec![], depth: 6, ..Compare::default() };
        let c = compare(&cfg, &mut Quiet).unwrap();
        let shape: Vec<_> = c.rows.iter().map(|r| (r.engine, r.p, r.ybw)).collect();
        let model = Engine::Model;
        assert_eq!(shape, [(model, 1, true), (model, 1, false), (model, 8, true), (model, 8, false)]);
        // One PE searches exactly the sequential nodes, aborting none.
        assert_eq!((c.rows[0].nodes, c.rows[0].aborted_nodes, c.rows[0].overhead), (c.seq_nodes, 0, 1.0));
        assert!(c.rows.iter().all(|r| r.efficiency() > 0.0 && r.efficiency() <= 1.0 + 1e-9));
    }
}
