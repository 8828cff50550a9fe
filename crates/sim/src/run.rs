//! One simulated run, configured from plain values: the machine, the
//! balancing, the workload and what the report keeps (`treelb sim run`).
//!
//! [`RunConfig::run`] picks the model the workload needs: the
//! [`engine`](crate::engine) for tree-shaped work — abstract pieces that
//! split in a ratio α ([Sanders 1994]) or a UTS tree — under any strategy,
//! and the producer tree of [`multilevel`](crate::multilevel) for Kimura and
//! Ichiyoshi's i.i.d. subtasks ([Kimura & Ichiyoshi 1992]). Its [`Outcome`]
//! is the run's [`SimReport`] and what the work turned out to be, both
//! serializable. [`Options`] makes one from a command line's values
//! (`--workload uts:T1`).
//!
//! ```
//! use treelb::{RunSpec, Strategy};
//! use treelb_sim::run::{RunConfig, Workload};
//! use treelb_sim::{AlphaDist, Costs, Platform, Network};
//!
//! let machine = Platform::new(64, Network::Crossbar, Costs::default());
//! let spec = RunSpec { strategy: Strategy::RandomPolling, ..RunSpec::default() };
//! let workload = Workload::Alpha {
//!     dist: AlphaDist::Fixed { alpha: 1.0 / 3.0 },
//!     work: 1_000_000,
//!     atomic: 100,
//!     max_generation: None,
//! };
//! let outcome = RunConfig::new(machine, spec, workload).run().unwrap();
//! assert_eq!(outcome.report.work_units, 1_000_000);
//! assert_eq!(outcome.workload.to_string(), "abstract, α = 0.3333333333333333, T_atomic = 100");
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use treelb::search::DfsWork;
use treelb::spec::SpecError;
use treelb::{Init, RunSpec, SplitPolicy, Strategy};
use treelb_apps::uts::{Params, ParamsError, Uts, UtsResult};

use crate::engine::{SimConfig, SimReport, simulate_with};
use crate::multilevel::{MAX_LEVELS, Multilevel, Search, TreeError, best_rho, theorem4_fanout};
use crate::platform::{Network, Platform};
use crate::producer::Sizes;
use crate::queue::Time;
use crate::workload::{AlphaDist, AlphaModel};

/// What one run simulates, and on what.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunConfig {
    /// P, the network and the costs.
    pub machine: Platform,
    /// How to balance: strategy, initialization, seed, Δt, and the
    /// strategies' parameters (max-load's ρ, the fan-outs of the engine's
    /// multilevel tree).
    pub spec: RunSpec,
    /// What is worked on.
    pub workload: Workload,
    /// Stop after this many events (the report then says `complete:
    /// false`); `None`: no limit. Not for i.i.d. subtasks, whose tree is
    /// computed level by level.
    pub max_events: Option<u64>,
    /// Keep every PE's counters in [`SimReport::per_pe`].
    pub per_pe: bool,
}

/// The work of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Workload {
    /// Abstract pieces of hidden size that split in a ratio α
    /// ([`AlphaModel`], seeded with the run's seed).
    Alpha {
        /// How α is drawn.
        dist: AlphaDist,
        /// T_seq, in ticks (one tick a unit).
        work: u64,
        /// `T_atomic`: pieces below this size do not split.
        atomic: u64,
        /// `h`: pieces of this generation do not split (`None`: no limit).
        max_generation: Option<u32>,
    },
    /// A UTS tree, searched depth first ([`DfsWork`]).
    Uts {
        /// What the tree is called in the report: a sample tree's name or
        /// the reference's flags.
        tree: String,
        /// The tree's parameters.
        params: Params,
        /// Ticks one node costs.
        node_ticks: Time,
        /// Which open nodes a split gives away.
        split_policy: SplitPolicy,
    },
    /// Kimura and Ichiyoshi's i.i.d. subtasks, made by a tree of producers
    /// for the P consumers (strategy multilevel only).
    Iid(IidTree),
}

/// The i.i.d. subtask model on a producer tree ([`Multilevel`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IidTree {
    /// How subtask sizes are distributed.
    pub sizes: Sizes,
    /// The total work t₁, in ticks.
    pub work: Time,
    /// The producers' fan-outs.
    pub shape: TreeShape,
    /// The levels' granularity.
    pub rho: Granularity,
    /// 1/λ, ticks a producer spends making one piece (`None`: the
    /// machine's `T_split`).
    pub t_produce: Option<Time>,
}

/// The fan-outs of a producer tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TreeShape {
    /// Given, root first; they multiply to P.
    Fanout(Vec<u32>),
    /// This many levels (1 to [`MAX_LEVELS`]), the root's degree after
    /// Theorem 4 of [Kimura & Ichiyoshi 1992] ([`theorem4_fanout`]).
    Levels(usize),
}

/// The granularity ρ of each level of a producer tree: the grain of level
/// i is ρ_i · (consumers below) · `t_produce` ([`Multilevel::with_rho`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Granularity {
    /// The most efficient ρ on this run's seed ([`best_rho`]: a few dozen
    /// runs of the tree).
    Best,
    /// One value for every level, or one per level, root first.
    Rho(Vec<f64>),
}

impl FromStr for Granularity {
    type Err = String;

    /// `best`, or positive numbers separated by commas.
    ///
    /// ```
    /// use treelb_sim::run::Granularity;
    /// assert_eq!("best".parse(), Ok(Granularity::Best));
    /// assert_eq!("4, 1".parse(), Ok(Granularity::Rho(vec![4.0, 1.0])));
    /// assert!("4,0".parse::<Granularity>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "best" {
            return Ok(Granularity::Best);
        }
        let one =
            |x: &str| {
                x.trim().parse::<f64>().ok().filter(|r| r.is_finite() && *r > 0.0).ok_or_else(|| {
                    format!("expected `best` or positive numbers separated by commas, got `{x}`")
                })
            };
        s.split(',').map(one).collect::<Result<_, _>>().map(Granularity::Rho)
    }
}

/// A simulated run: its report and what it worked on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The report.
    pub report: SimReport,
    /// The workload as the run found it.
    pub workload: WorkloadSummary,
}

/// What a run worked on; its [`Display`](fmt::Display) is one line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum WorkloadSummary {
    /// Abstract pieces.
    Alpha {
        /// How α was drawn.
        dist: AlphaDist,
        /// `T_atomic`.
        atomic: u64,
    },
    /// A UTS tree.
    Uts {
        /// The tree's name in the configuration.
        tree: String,
        /// Its nodes, leaves and depth.
        result: UtsResult,
        /// Ticks one node cost.
        node_ticks: Time,
        /// The split policy.
        split_policy: SplitPolicy,
    },
    /// I.i.d. subtasks on a producer tree.
    Iid {
        /// How subtask sizes were distributed.
        sizes: Sizes,
        /// The total work t₁, in ticks.
        work: Time,
        /// 1/λ, ticks per piece made.
        t_produce: Time,
        /// ρ of each level, root first.
        rho: Vec<f64>,
        /// Producers besides the P consumers.
        producers: u32,
    },
}

impl fmt::Display for WorkloadSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkloadSummary::Alpha { dist, atomic } => write!(f, "abstract, {dist}, T_atomic = {atomic}"),
            WorkloadSummary::Uts { tree, result, node_ticks, split_policy } => {
                write!(f, "UTS {tree}: {result}, {node_ticks} ticks per node, {split_policy}")
            }
            WorkloadSummary::Iid { sizes, work, t_produce, rho, producers } => {
                let rho: Vec<String> = rho.iter().map(|r| format!("{r:.2}")).collect();
                write!(
                    f,
                    "i.i.d. subtasks ({sizes} sizes), T₁ = {work} ticks, 1/λ = {t_produce} ticks per piece, \
                     ρ = {} ({producers} producers besides the P consumers)",
                    rho.join(", ")
                )
            }
        }
    }
}

/// Why a run cannot be simulated.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum RunError {
    /// The balancing specification is invalid.
    Spec(SpecError),
    /// The UTS parameters describe no tree.
    Uts(ParamsError),
    /// I.i.d. subtasks under a strategy other than multilevel.
    IidNeedsMultilevel(Strategy),
    /// A producer tree on a network other than the crossbar.
    IidOffCrossbar(Network),
    /// A producer tree that does not start from its root.
    IidNotFromRoot(Init),
    /// A producer tree under a cost model other than the seeds' (its
    /// messages are the seeds' `T_rout`).
    IidNotSeeds,
    /// An event limit on a producer tree.
    IidEventLimit,
    /// Fan-outs of a producer tree that do not multiply to P.
    FanoutProduct {
        /// Their product.
        product: u64,
        /// P.
        p: u32,
    },
    /// A number of levels of a producer tree outside 1 to [`MAX_LEVELS`].
    Levels(usize),
    /// Values of ρ neither one nor one per level.
    RhoCount {
        /// Values given.
        given: usize,
        /// Levels of the tree.
        levels: usize,
    },
    /// The producer tree cannot be built.
    Tree(TreeError),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Spec(e) => e.fmt(f),
            RunError::Uts(e) => e.fmt(f),
            RunError::IidNeedsMultilevel(s) => write!(
                f,
                "the i.i.d. subtask model runs with the strategy multilevel, not {s} \
                 (one level is the single-level producer/consumer scheme)"
            ),
            RunError::IidOffCrossbar(n) => write!(
                f,
                "the producer tree is not placed on a network; multilevel runs on a crossbar, not on {n}"
            ),
            RunError::IidNotSeeds => {
                write!(f, "the producer tree prices its messages with the seeds' T_rout, not with LogGP")
            }
            RunError::IidNotFromRoot(i) => {
                write!(f, "a producer tree starts from its root producer, not with {i} initialization")
            }
            RunError::IidEventLimit => f.write_str(
                "the producer tree is computed level by level, not event by event: no event limit",
            ),
            RunError::FanoutProduct { product, p } => {
                write!(f, "the fan-outs multiply to {product}, but P is {p}")
            }
            RunError::Levels(l) => write!(f, "a producer tree has 1 to {MAX_LEVELS} levels, not {l}"),
            RunError::RhoCount { given, levels } => write!(f, "{given} values of ρ for {levels} levels"),
            RunError::Tree(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RunError::Spec(e) => Some(e),
            RunError::Uts(e) => Some(e),
            RunError::Tree(e) => Some(e),
            _ => None,
        }
    }
}

impl From<SpecError> for RunError {
    fn from(e: SpecError) -> Self {
        RunError::Spec(e)
    }
}

impl From<TreeError> for RunError {
    fn from(e: TreeError) -> Self {
        RunError::Tree(e)
    }
}

impl RunConfig {
    /// A run of `workload` on `machine` under `spec`, without an event
    /// limit or per-PE counters.
    pub fn new(machine: Platform, spec: RunSpec, workload: Workload) -> Self {
        RunConfig { machine, spec, workload, max_events: None, per_pe: false }
    }

    /// Simulates the run.
    pub fn run(&self) -> Result<Outcome, RunError> {
        let spec = &self.spec;
        if matches!(self.workload, Workload::Iid(_)) && spec.strategy != Strategy::Multilevel {
            return Err(RunError::IidNeedsMultilevel(spec.strategy));
        }
        spec.validate()?;
        let mut cfg = SimConfig::new(self.machine, spec.clone());
        if let Some(m) = self.max_events {
            cfg.max_events = m;
        }
        let (report, workload) = match &self.workload {
            &Workload::Alpha { dist, work, atomic, max_generation } => {
                let model = AlphaModel {
                    total: work,
                    dist,
                    atomic,
                    max_generation: max_generation.unwrap_or(u32::MAX),
                    seed: spec.seed,
                };
                let (r, _) = simulate_with(model.root(), &cfg, self.per_pe)?;
                (r, WorkloadSummary::Alpha { dist, atomic })
            }
            Workload::Uts { tree, params, node_ticks, split_policy } => {
                let uts = Uts::new(*params).map_err(RunError::Uts)?;
                cfg.unit_ticks = *node_ticks;
                let (r, result) = simulate_with(DfsWork::new(&uts, *split_policy), &cfg, self.per_pe)?;
                let summary = WorkloadSummary::Uts {
                    tree: tree.clone(),
                    result,
                    node_ticks: cfg.unit_ticks,
                    split_policy: *split_policy,
                };
                (r, summary)
            }
            Workload::Iid(tree) => self.producer_tree(tree)?,
        };
        Ok(Outcome { report, workload })
    }

    /// Kimura and Ichiyoshi's producer tree over the P consumers.
    fn producer_tree(&self, t: &IidTree) -> Result<(SimReport, WorkloadSummary), RunError> {
        let m = &self.machine;
        if m.network != Network::Crossbar {
            return Err(RunError::IidOffCrossbar(m.network));
        }
        if m.costs.model != crate::platform::Model::Seeds {
            return Err(RunError::IidNotSeeds);
        }
        if self.spec.init != Init::Root {
            return Err(RunError::IidNotFromRoot(self.spec.init));
        }
        if self.max_events.is_some() {
            return Err(RunError::IidEventLimit);
        }
        let fanout = match &t.shape {
            TreeShape::Fanout(f) => {
                let product = f.iter().fold(1u64, |a, &x| a.saturating_mul(u64::from(x)));
                if product != u64::from(m.p) {
                    return Err(RunError::FanoutProduct { product, p: m.p });
                }
                f.clone()
            }
            &TreeShape::Levels(l) if (1..=MAX_LEVELS).contains(&l) => theorem4_fanout(m.p, l),
            &TreeShape::Levels(l) => return Err(RunError::Levels(l)),
        };
        let t_produce = t.t_produce.unwrap_or(m.costs.t_split);
        let rho = match &t.rho {
            Granularity::Best => {
                let search = Search {
                    sizes: t.sizes,
                    t_produce,
                    t_rout: m.costs.t_rout,
                    trials: 1,
                    seed: self.spec.seed,
                    target: 1.0,
                    steps: 0,
                    max_work: t.work,
                };
                best_rho(&fanout, &search, t.work, None).1
            }
            Granularity::Rho(v) if v.len() == 1 => vec![v[0]; fanout.len()],
            Granularity::Rho(v) if v.len() == fanout.len() => v.clone(),
            Granularity::Rho(v) => return Err(RunError::RhoCount { given: v.len(), levels: fanout.len() }),
        };
        let tree = Multilevel::with_rho(fanout, &rho, t.sizes, t_produce, m.costs.t_rout)?;
        let mut report = tree.report(t.work, self.spec.seed);
        if !self.per_pe {
            report.per_pe.clear();
        }
        let summary = WorkloadSummary::Iid {
            sizes: t.sizes,
            work: t.work,
            t_produce,
            rho: tree.rho(),
            producers: tree.producers(),
        };
        Ok((report, summary))
    }
}

/// The PEs busy over a run's time, in percent, time in units of `T_rout`:
/// the chart of `treelb sim run --plot`.
#[cfg(feature = "report")]
pub fn utilization_chart(r: &SimReport) -> crate::plot::Chart {
    use crate::plot::{Chart, Legend, Series, Style};
    let t_rout = r.machine.costs.t_rout.max(1) as f64;
    Chart {
        title: format!("{} ({} init), P = {}", r.strategy, r.init, r.machine.p),
        x_label: "time (T_rout)".into(),
        y_label: "PEs busy (%)".into(),
        log_x: false,
        log_y: false,
        y_range: Some((0.0, 105.0)),
        legend: Legend::LowerRight,
        series: vec![Series::new(
            "utilization",
            r.utilization.points().map(|(t, u)| (t / t_rout, 100.0 * u)).collect(),
            Style::Line,
            0,
        )],
    }
}

mod options;
mod summary;

pub use options::{OptionError, Options};

#[cfg(test)]
mod tests;
