//! A model of young brothers wait: parallel alpha-beta
//! ([`treelb::game::YbwWork`]) on synthetic game trees
//! ([`treelb_apps::gametree::GameTree`]), in simulated time.
//!
//! The simulator runs the real piece of work, as it does for every workload
//! (see [`crate::workload`]): the same frames, eldest-brother rule, shared
//! frames, windows, aborts and urgency as the threads runtime, and the same
//! strategy machine deciding who asks whom. What the model replaces is
//! time: expanding one position costs `node_ticks` ticks, a message, a
//! split and a probe cost what the [`Platform`] says, and a PE works its
//! piece in slices of Δt positions, each slice done at once at the start of
//! its Δt (so a cutoff found in a slice reaches the shared frame at the
//! slice's start, and a stolen piece notices an abort at its next slice, as
//! on the threads runtime, within Δt).
//!
//! A tree is solved exactly as the runtimes solve it: by null-window
//! searches ([`treelb::game::solve`]), each a run of its own that starts
//! from the root on PE 0 and ends with termination detection. The
//! sequential time is the sequential alpha-beta's nodes (same node code,
//! same move order, same null windows) times `node_ticks`, so
//!
//! * efficiency = `T_seq / (P · T_par)`, with `T_par` summed over the
//!   searches, counts both the balancing costs and the search overhead;
//! * search overhead = nodes at P over sequential nodes, the extra work a
//!   parallel alpha-beta does because younger brothers are searched with
//!   windows a sequential search would have narrowed, and work on subtrees
//!   that a cutoff refutes ([`YbwcPoint::aborted_nodes`]).
//!
//! The search overhead depends on which pieces are stolen when, not on the
//! machine's speed, so it is what the model and a runtime measuring the
//! same trees can be compared on; the efficiency of the model is the one a
//! machine with these costs and P cores would have.

use treelb::game::{Game, SeqStats, YbwWork, alpha_beta, solve};
use treelb::spec::SpecError;
use treelb::{RunSpec, Strategy};
use treelb_apps::gametree::GameTree;

use crate::engine::{SimConfig, simulate};
use crate::platform::Platform;
use crate::queue::Time;
use crate::workload::SimWork;

pub mod compare;
mod table;

impl<G: Game> SimWork for YbwWork<'_, G> {}

/// The sequential solution of a set of trees: their exact values, and the
/// positions expanded by the null-window searches of plain alpha-beta.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sequential {
    /// The exact value of each tree.
    pub values: Vec<i32>,
    /// Positions expanded, over all trees.
    pub nodes: u64,
}

/// Solves every tree sequentially (the baseline of [`simulate_ybwc`]).
///
/// ```
/// use treelb_apps::gametree::GameTree;
/// let t = GameTree { branching: 3, depth: 4, weight: 5, ordering: 1.0, seed: 1 };
/// let s = treelb_sim::ybwc::sequential(&[t]);
/// assert_eq!(s.values, vec![t.minimax(&t.root())]);
/// ```
pub fn sequential(trees: &[GameTree]) -> Sequential {
    let mut nodes = 0;
    let values = trees
        .iter()
        .map(|t| {
            let b = t.bound();
            let mut stats = SeqStats::default();
            let v = solve(-b, b, |lo, hi| alpha_beta(t, &t.root(), lo, hi, &mut stats));
            nodes += stats.nodes;
            v
        })
        .collect();
    Sequential { values, nodes }
}

/// One simulated configuration, over all trees of a set.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct YbwcPoint {
    /// Simulated PEs.
    pub p: u32,
    /// Whether young brothers waited for their eldest.
    pub ybw: bool,
    /// Positions the sequential search expanded.
    pub seq_nodes: u64,
    /// Positions expanded by all PEs.
    pub nodes: u64,
    /// Of those, positions in subtrees thrown away (aborted by a cutoff, or
    /// whose value reached a frame already cut off).
    pub aborted_nodes: u64,
    /// Simulated time of all null-window searches, in ticks.
    pub t_par: Time,
    /// Simulated time of the sequential search, in ticks.
    pub t_seq: Time,
    /// Null-window searches run.
    pub searches: u64,
}

impl YbwcPoint {
    /// `T_seq / (P · T_par)`.
    pub fn efficiency(&self) -> f64 {
        self.t_seq as f64 / (f64::from(self.p) * self.t_par as f64)
    }

    /// `T_seq / T_par`.
    pub fn speedup(&self) -> f64 {
        self.t_seq as f64 / self.t_par as f64
    }

    /// Nodes at P over sequential nodes.
    pub fn overhead(&self) -> f64 {
        self.nodes as f64 / self.seq_nodes as f64
    }
}

/// Solves every tree by null-window searches of [`YbwWork`] on `machine`
/// (its P PEs, network and costs), under `spec` (random polling by default:
/// a game search gives work only when asked), a position costing
/// `node_ticks` ticks. Every value is checked against `seq`.
///
/// ```
/// use treelb::RunSpec;
/// use treelb_apps::gametree::GameTree;
/// use treelb_sim::{Costs, Platform, Network};
/// use treelb_sim::ybwc::{sequential, simulate_ybwc};
///
/// let trees: Vec<GameTree> =
///     (0..2).map(|seed| GameTree { branching: 4, depth: 7, weight: 10, ordering: 0.9, seed }).collect();
/// let seq = sequential(&trees);
/// let m = Platform::new(8, Network::Crossbar, Costs::default());
/// let spec = RunSpec { budget: treelb::spec::Budget::of(16), ..RunSpec::default() };
/// let point = simulate_ybwc(&trees, &seq, m, &spec, 10, true).unwrap();
/// assert_eq!(point.seq_nodes, seq.nodes);
/// assert!(point.nodes >= point.aborted_nodes);
/// assert!(point.efficiency() > 0.0 && point.efficiency() <= 1.0);
/// ```
pub fn simulate_ybwc(
    trees: &[GameTree],
    seq: &Sequential,
    machine: Platform,
    spec: &RunSpec,
    node_ticks: Time,
    ybw: bool,
) -> Result<YbwcPoint, SpecError> {
    assert_eq!(trees.len(), seq.values.len(), "one sequential value per tree");
    spec.validate()?;
    let node_ticks = node_ticks.max(1);
    let mut point = YbwcPoint {
        p: machine.p,
        ybw,
        seq_nodes: seq.nodes,
        nodes: 0,
        aborted_nodes: 0,
        t_par: 0,
        t_seq: seq.nodes * node_ticks,
        searches: 0,
    };
    for (t, &expected) in trees.iter().zip(&seq.values) {
        let b = t.bound();
        let value = solve(-b, b, |lo, hi| {
            // Every search with a seed of its own, as runs of a runtime are.
            let spec = RunSpec { seed: spec.seed.wrapping_add(point.searches), ..spec.clone() };
            point.searches += 1;
            let mut cfg = SimConfig::new(machine, spec);
            cfg.unit_ticks = node_ticks;
            let (report, out) =
                simulate(YbwWork::new(t, t.root(), lo, hi, ybw), &cfg).expect("the spec was validated");
            point.t_par += report.t_par;
            point.nodes += out.nodes;
            point.aborted_nodes += out.aborted_nodes;
            out.value.expect("a finished search has the root's value")
        });
        assert_eq!(value, expected, "the simulated search's value differs from the sequential one");
    }
    Ok(point)
}

/// The strategies under which [`simulate_ybwc`] may run: those where a PE
/// gives work only when an idle PE asks (see [`treelb::game::ybw`]).
pub const STRATEGIES: [Strategy; 3] =
    [Strategy::RandomPolling, Strategy::GlobalRoundRobin, Strategy::AsyncRoundRobin];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::{Costs, Network};

    fn trees(ordering: f64) -> Vec<GameTree> {
        (0..3).map(|seed| GameTree { branching: 5, depth: 8, weight: 10, ordering, seed }).collect()
    }

    #[test]
    fn one_pe_searches_exactly_the_sequential_nodes() {
        let t = trees(0.9);
        let seq = sequential(&t);
        let m = Platform::new(1, Network::Crossbar, Costs::default());
        let point = simulate_ybwc(&t, &seq, m, &RunSpec::default(), 10, true).unwrap();
        assert_eq!((point.nodes, point.aborted_nodes), (seq.nodes, 0));
        // One PE: the sequential time, plus a probe every Δt and the
        // (empty) termination detection of every search.
        assert!(point.t_par >= point.t_seq, "{point:?}");
        assert!(point.efficiency() > 0.9, "{point:?}");
    }

    #[test]
    fn values_agree_for_every_p_and_waiting_costs_less_overhead() {
        let t = trees(0.9);
        let seq = sequential(&t);
        let spec = RunSpec { budget: treelb::spec::Budget::of(8), ..RunSpec::default() };
        let mut overhead = Vec::new();
        for p in [2, 8, 32] {
            for ybw in [true, false] {
                let m = Platform::new(p, Network::Crossbar, Costs::default());
                let point = simulate_ybwc(&t, &seq, m, &spec, 10, ybw).unwrap();
                assert!(point.nodes >= point.aborted_nodes);
                overhead.push((p, ybw, point.overhead()));
            }
        }
        // On a well-ordered tree, giving younger brothers away before the
        // eldest returned searches more at 32 PEs than waiting does.
        let at = |p, ybw| overhead.iter().find(|o| o.0 == p && o.1 == ybw).unwrap().2;
        assert!(at(32, false) > at(32, true), "{overhead:?}");
    }

    #[test]
    fn the_same_seed_gives_the_same_simulation() {
        let t = trees(0.5);
        let seq = sequential(&t);
        let m = Platform::new(4, Network::Crossbar, Costs::default());
        let spec = RunSpec { budget: treelb::spec::Budget::of(8), seed: 5, ..RunSpec::default() };
        let a = simulate_ybwc(&t, &seq, m, &spec, 10, true).unwrap();
        let b = simulate_ybwc(&t, &seq, m, &spec, 10, true).unwrap();
        assert_eq!(a, b);
    }
}
