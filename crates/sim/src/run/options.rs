//! A run as a command line gives it: numbers, and specifications as text
//! (`--workload uts:T1`, `--network torus-3d`, `--rho best`), checked and
//! made into a [`RunConfig`]; every error names the option it is about.
//!
//! ```
//! use treelb_sim::run::Options;
//!
//! let options = Options { workload: Some("alpha:0.5".into()), work: 100_000, pes: 16, ..Options::default() };
//! let outcome = options.run().unwrap();
//! assert_eq!(outcome.report.work_units, 100_000);
//! let bad = Options { workload: Some("beta:1".into()), ..Options::default() };
//! assert!(bad.config().unwrap_err().to_string().starts_with("--workload: expected alpha:A"));
//! ```

use std::fmt;
use std::str::FromStr;

use treelb::spec::{Budget, Rho};
use treelb::{Init, RunSpec, SplitPolicy, Strategy};
use treelb_apps::uts::{Params, SampleTree};

use super::{Granularity, IidTree, Outcome, RunConfig, RunError, TreeShape, Workload};
use crate::engine::REFERENCE_BUDGET;
use crate::loggp::LogGpParams;
use crate::multilevel::MAX_LEVELS;
use crate::platform::{Costs, Model, Platform};

/// The options of one simulated run, by the names of `treelb sim run`'s
/// flags; [`Default`] gives that command's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// `--strategy`.
    pub strategy: Strategy,
    /// `--init`.
    pub init: Init,
    /// `--pes`: P.
    pub pes: u32,
    /// `--network`: a [`Network`](crate::Network) by name.
    pub network: String,
    /// `--workload`: `alpha:A`, `alpha:LO..0.5`, `uts:TREE`, `uts:"FLAGS"`
    /// or `iid:SIZES` (`None`: [`Options::DEFAULT_WORKLOAD`]).
    pub workload: Option<String>,
    /// `--work`: T_seq of abstract and i.i.d. workloads, in ticks.
    pub work: u64,
    /// `--atomic`: `T_atomic` of abstract workloads.
    pub atomic: u64,
    /// `--max-generation`: `h` of abstract workloads.
    pub max_generation: Option<u32>,
    /// `--node-cost`: ticks per UTS node.
    pub node_cost: u64,
    /// `--split-policy` of UTS workloads.
    pub split_policy: SplitPolicy,
    /// `--fanout F1,F2,…`: the multilevel tree's fan-outs.
    pub fanout: Option<String>,
    /// `--grain`: multilevel's granularity control on tree-shaped work,
    /// the pieces a producer cuts per child (0: none).
    pub grain: u32,
    /// `--levels`: producer levels of i.i.d. subtasks without `--fanout`.
    pub levels: u64,
    /// `--rho`: max-load's ρ, or the granularity of i.i.d. subtasks'
    /// levels ([`Granularity`]).
    pub rho: String,
    /// `--t-produce`: 1/λ of i.i.d. subtasks.
    pub t_produce: Option<u64>,
    /// `--t-rout`: ticks per message hop (`None`, here and for the other
    /// costs: [`Costs::default`]'s).
    pub t_rout: Option<u64>,
    /// `--t-split`: ticks a split costs.
    pub t_split: Option<u64>,
    /// `--t-poll`: ticks a probe of the message queue costs.
    pub t_poll: Option<u64>,
    /// `--t-counter`: ticks the hub spends per message.
    pub t_counter: Option<u64>,
    /// `--t-word`: ticks one word of a piece adds to its travel.
    pub t_word: Option<u64>,
    /// `--overhead`: an [`Overhead`](crate::platform::Overhead) by name.
    pub overhead: String,
    /// `--message-size`: a [`MessageSize`](crate::platform::MessageSize).
    pub message_size: String,
    /// `--model`: `seeds` or `loggp`.
    pub model: String,
    /// The LogGP flags (`--o-send`, `--latency`, `--gap`, …).
    pub loggp: LogGpParams,
    /// `--budget`: Δt (`None`: [`REFERENCE_BUDGET`]).
    pub budget: Option<Budget>,
    /// `--seed`.
    pub seed: u64,
    /// `--max-events`.
    pub max_events: Option<u64>,
    /// `--per-pe`.
    pub per_pe: bool,
}

impl Options {
    /// The workload without `--workload`.
    pub const DEFAULT_WORKLOAD: &'static str = "alpha:0.333";
}

impl Default for Options {
    fn default() -> Self {
        Options {
            strategy: Strategy::RandomPolling,
            init: Init::Root,
            pes: 1024,
            network: "crossbar".to_owned(),
            workload: None,
            work: 1_000_000_000,
            atomic: 100,
            max_generation: None,
            node_cost: 10,
            split_policy: SplitPolicy::OldestHalf,
            fanout: None,
            grain: treelb::spec::DEFAULT_GRAIN,
            levels: 2,
            rho: "best".to_owned(),
            t_produce: None,
            t_rout: None,
            t_split: None,
            t_poll: None,
            t_counter: None,
            t_word: None,
            overhead: "send-receive".to_owned(),
            message_size: "constant".to_owned(),
            model: "seeds".to_owned(),
            loggp: LogGpParams::default(),
            budget: None,
            seed: 1,
            max_events: None,
            per_pe: false,
        }
    }
}

/// Why the options make no run: one line naming the option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError(String);

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OptionError {}

/// An [`OptionError`] from a format string.
macro_rules! bad {
    ($($t:tt)*) => { OptionError(format!($($t)*)) };
}

/// `value` parsed, the error prefixed by `flag`.
fn parse<T: FromStr<Err = E>, E: fmt::Display>(flag: &str, value: &str) -> Result<T, OptionError> {
    value.parse().map_err(|e| bad!("{flag}: {e}"))
}

/// `--fanout F1,F2,…`: numbers of at least 1.
fn fanout<T: TryFrom<u64>>(list: &str) -> Result<Vec<T>, OptionError> {
    let one = |x: &str| {
        let n: u64 =
            x.trim().parse().map_err(|_| bad!("--fanout expects a non-negative integer, got `{x}`"))?;
        if n == 0 {
            return Err(bad!("--fanout must be at least 1, got 0"));
        }
        T::try_from(n).map_err(|_| bad!("--fanout: `{x}` is too large"))
    };
    list.split(',').map(one).collect()
}

impl Options {
    /// `--workload`, or its default.
    pub fn workload_spec(&self) -> &str {
        self.workload.as_deref().unwrap_or(Self::DEFAULT_WORKLOAD)
    }

    /// The costs: the defaults, with what the options give.
    pub fn costs(&self) -> Result<Costs, OptionError> {
        let mut c = Costs::default();
        c.t_rout = self.t_rout.unwrap_or(c.t_rout);
        c.t_split = self.t_split.unwrap_or(c.t_split);
        c.t_poll = self.t_poll.unwrap_or(c.t_poll);
        c.t_counter = self.t_counter.unwrap_or(c.t_counter);
        c.t_word = self.t_word.unwrap_or(c.t_word);
        c.overhead = parse("--overhead", &self.overhead)?;
        c.size = parse("--message-size", &self.message_size)?;
        c.model = match self.model.as_str() {
            "seeds" if self.loggp.is_empty() => Model::Seeds,
            "seeds" => {
                return Err(bad!("--o-send, --latency, --gap and the other LogGP flags need --model loggp"));
            }
            "loggp" => Model::LogGp(self.loggp.build(c.t_rout).map_err(|e| bad!("--gap: {e}"))?),
            other => return Err(bad!("--model: unknown cost model `{other}` (expected seeds or loggp)")),
        };
        Ok(c)
    }

    /// The run the options ask for.
    pub fn config(&self) -> Result<RunConfig, OptionError> {
        let machine = Platform::new(self.pes, parse("--network", &self.network)?, self.costs()?);
        let workload_spec = self.workload_spec();
        let (kind, spec) = workload_spec.split_once(':').unwrap_or((workload_spec, ""));
        let strategy = self.strategy;
        let run_spec = RunSpec {
            strategy,
            init: self.init,
            seed: self.seed,
            budget: self.budget.unwrap_or(REFERENCE_BUDGET),
            rho: if strategy == Strategy::MaxLoad && self.rho != "best" {
                Rho::new(parse("--rho", &self.rho)?).map_err(|e| bad!("--rho: {e}"))?
            } else {
                Rho::DEFAULT
            },
            fanout: match &self.fanout {
                Some(list) if kind != "iid" => fanout(list)?,
                _ => Vec::new(),
            },
            grain: self.grain,
        };
        let workload = match kind {
            "alpha" => Workload::Alpha {
                dist: parse("--workload", spec)?,
                work: self.work,
                atomic: self.atomic,
                max_generation: self.max_generation,
            },
            "uts" => Workload::Uts {
                tree: spec.to_owned(),
                params: match SampleTree::find(spec) {
                    Some(s) => s.params(),
                    None => Params::from_uts_str(spec).map_err(|e| bad!("--workload: {e}"))?,
                },
                node_ticks: self.node_cost,
                split_policy: self.split_policy,
            },
            "iid" => Workload::Iid(IidTree {
                sizes: parse("--workload", spec)?,
                work: self.work,
                shape: match &self.fanout {
                    Some(list) => TreeShape::Fanout(fanout(list)?),
                    None => TreeShape::Levels(usize::try_from(self.levels).unwrap_or(usize::MAX)),
                },
                rho: parse::<Granularity, _>("--rho", &self.rho)?,
                t_produce: self.t_produce,
            }),
            _ => {
                return Err(bad!(
                    "--workload: expected alpha:A, alpha:LO..0.5, uts:TREE or iid:SIZES, got `{workload_spec}`"
                ));
            }
        };
        Ok(RunConfig {
            max_events: self.max_events,
            per_pe: self.per_pe,
            ..RunConfig::new(machine, run_spec, workload)
        })
    }

    /// Simulates the run the options ask for.
    pub fn run(&self) -> Result<Outcome, OptionError> {
        self.config()?.run().map_err(|e| self.explain(e))
    }

    /// Why the run of these options cannot be simulated, in the options'
    /// words.
    pub fn explain(&self, e: RunError) -> OptionError {
        match e {
            RunError::IidNeedsMultilevel(_) => bad!(
                "--workload {}: the i.i.d. subtask model runs with --strategy multilevel \
                 (one level is the single-level producer/consumer scheme)",
                self.workload_spec()
            ),
            RunError::IidOffCrossbar(n) => {
                bad!(
                    "--network {n}: the producer tree is not placed on a network; multilevel runs on a crossbar"
                )
            }
            RunError::IidNotSeeds => {
                bad!(
                    "--model loggp: the producer tree prices its messages with the seeds' T_rout; use --model seeds"
                )
            }
            RunError::IidNotFromRoot(i) => {
                bad!("--init {i}: a producer tree starts from its root producer; use --init root")
            }
            RunError::IidEventLimit => {
                bad!("--max-events: the producer tree is computed level by level, not event by event")
            }
            RunError::FanoutProduct { product, p } => bad!(
                "--fanout {}: the fan-outs multiply to {product}, but --pes is {p}",
                self.fanout.as_deref().unwrap_or_default()
            ),
            RunError::Levels(_) => bad!("--levels {}: at most {MAX_LEVELS} levels", self.levels),
            RunError::RhoCount { given, levels } => bad!("--rho: {given} values for {levels} levels"),
            RunError::Uts(e) => bad!("--workload: {e}"),
            e => bad!("{e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_names_its_option() {
        let error = |o: Options| o.run().unwrap_err().to_string();
        let iid = |o: Options| Options { workload: Some("iid:exponential".into()), pes: 64, ..o };
        assert!(error(Options { network: "mesh".into(), ..Options::default() }).starts_with("--network: "));
        assert_eq!(
            error(Options {
                loggp: LogGpParams { o_send: Some(3), ..LogGpParams::default() },
                ..Options::default()
            }),
            "--o-send, --latency, --gap and the other LogGP flags need --model loggp"
        );
        assert!(error(iid(Options::default())).starts_with("--workload iid:exponential: "));
        let tree =
            iid(Options { strategy: Strategy::Multilevel, fanout: Some("8,4".into()), ..Options::default() });
        assert_eq!(error(tree), "--fanout 8,4: the fan-outs multiply to 32, but --pes is 64");
        let zero =
            Options { strategy: Strategy::Multilevel, fanout: Some("4,0".into()), ..Options::default() };
        assert_eq!(error(zero), "--fanout must be at least 1, got 0");
        let rho = Options { strategy: Strategy::MaxLoad, rho: "2".into(), ..Options::default() };
        assert!(error(rho).starts_with("--rho: "));
    }

    #[test]
    fn the_defaults_are_the_commands() {
        let c = Options::default().config().unwrap();
        assert_eq!(c.spec.budget, REFERENCE_BUDGET);
        assert_eq!(c.machine.p, 1024);
        assert!(matches!(c.workload, Workload::Alpha { work: 1_000_000_000, atomic: 100, .. }));
    }
}
