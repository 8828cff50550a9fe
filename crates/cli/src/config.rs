//! Checked configuration: what the command line asked for, validated.

use std::io::IsTerminal;
use std::time::Duration;

use treelb::spec::Budget;
use treelb::{RunSpec, SplitPolicy};

pub(crate) use crate::apps::{App, AppDefaults, Runtime, app};
use crate::args::RunArgs;
pub(crate) use crate::error::{Error, bytes, err, number, numbers, positive};

/// The number of PEs: given, or all cores.
pub(crate) fn threads(value: Option<usize>) -> usize {
    value.unwrap_or_else(|| treelb_threads::Config::default().threads)
}

pub(crate) use treelb_run::progress::Feedback;

/// What `--progress` and `--quiet` ask for, where stderr is a terminal or
/// not ([`Feedback::decide`]): progress on a terminal only.
pub(crate) fn feedback(args: &crate::args::FeedbackArgs) -> Feedback {
    Feedback::decide(args.quiet || args.no_progress, args.progress, std::io::stderr().is_terminal())
}

/// A validated run configuration: the balancing ([`RunSpec`], the same for
/// every runtime) and what each runtime and the report need besides.
#[derive(Clone, Debug)]
pub(crate) struct RunConfig {
    /// Threads or MPI.
    pub(crate) kind: Runtime,
    /// PEs on the threads runtime; threads per rank with MPI.
    pub(crate) threads: usize,
    /// How to balance.
    pub(crate) spec: RunSpec,
    /// `--pin` (threads runtime).
    pub(crate) pin: bool,
    pub(crate) split_policy: SplitPolicy,
    pub(crate) json: bool,
    /// What the run shows on stderr while it runs.
    pub(crate) feedback: Feedback,
    /// `--quiet`: no notes on stderr either (errors and warnings remain).
    pub(crate) quiet: bool,
    /// `--trace FILE`: where the trace goes.
    pub(crate) trace: Option<String>,
    /// `--max-nodes N`: the run stops after about N units of work.
    pub(crate) max_nodes: Option<u64>,
    /// `--time-limit DURATION`: the run stops after about this long.
    pub(crate) time_limit: Option<Duration>,
    /// `--deterministic`: branch and bound breaks ties by the witness.
    pub(crate) deterministic: bool,
    /// `--checkpoint FILE --checkpoint-every DURATION`, and the state a
    /// resumed run continues from.
    pub(crate) checkpoint: Option<treelb_checkpoint::Plan>,
}

impl RunConfig {
    /// Binds a checkpointed run to its input file: its SHA-1 goes into
    /// every checkpoint, and a resume against a changed file is refused.
    /// Nothing without `--checkpoint`.
    pub(crate) fn bind_input(&mut self, path: &std::path::Path) {
        if let Some(plan) = self.checkpoint.as_mut() {
            plan.input = Some(path.to_owned());
        }
    }

    /// Refuses `--checkpoint` for a command whose output does not carry
    /// over between segments (an image written as it is computed, a
    /// floating-point estimate whose sum depends on the order of the
    /// pieces).
    pub(crate) fn refuse_checkpoint(&self, command: &str) -> Result<(), Error> {
        match &self.checkpoint {
            Some(_) => Err(err!(
                "--checkpoint: {command} does not checkpoint (uts, nqueens, clique, knapsack and tsp do)"
            )),
            None => Ok(()),
        }
    }
}

impl RunConfig {
    /// The configuration of an application without defaults of its own.
    pub(crate) fn from_args(args: &RunArgs) -> Result<Self, Error> {
        Self::with_defaults(args, AppDefaults::default())
    }

    /// The configuration `args` ask for, with `defaults` where they are
    /// silent.
    pub(crate) fn with_defaults(args: &RunArgs, defaults: AppDefaults) -> Result<Self, Error> {
        let kind = args.runtime.available()?;
        let threads = match (kind, args.threads) {
            // One PE per rank unless --threads asks for the hybrid mode.
            (Runtime::Mpi, None) => 1,
            (_, t) => threads(t),
        };
        let spec = RunSpec {
            budget: args.budget.or(defaults.budget.unwrap_or(Budget::DEFAULT)),
            init: args.init.0,
            strategy: args.strategy.0,
            seed: args.seed.unwrap_or(RunSpec::default().seed),
            fanout: args.fanout.clone(),
            rho: args.rho,
            ..RunSpec::default()
        };
        if kind == Runtime::Mpi && args.pin {
            return Err(err!("--pin pins the threads runtime's PEs (not with --runtime mpi)"));
        }
        if args.trace.is_some() && args.checkpoint.checkpoint.is_some() {
            return Err(err!("--trace records one uninterrupted run; it does not go with --checkpoint"));
        }
        // A bad path fails before the run; the file is written after it.
        if let Some(path) = &args.trace {
            crate::outputs::check("--trace", path)?;
        }
        spec.validate().map_err(|e| err!("--strategy: {e}"))?;
        let split_policy = args.split_policy.map(|p| p.0).or(defaults.split_policy).unwrap_or_default();
        Ok(RunConfig {
            kind,
            threads,
            spec,
            pin: args.pin,
            split_policy,
            json: args.json,
            feedback: feedback(&args.feedback),
            quiet: args.feedback.quiet,
            trace: args.trace.clone(),
            max_nodes: args.max_nodes,
            time_limit: args.time_limit,
            deterministic: args.deterministic,
            checkpoint: crate::checkpoint::plan(&args.checkpoint, kind)?,
        })
    }

    /// Refuses `--deterministic` for `app`, which is not branch and bound.
    pub(crate) fn refuse_deterministic(&self, app: &str) -> Result<(), Error> {
        if self.deterministic {
            return Err(err!(
                "--deterministic applies to branch and bound (clique, knapsack, tsp), not to {app}, whose answer does not depend on the schedule"
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use treelb::Init;

    use super::*;

    /// The run arguments of `treelb nqueens 8 ARGS…`.
    fn parse(args: &[&str]) -> Result<RunArgs, clap::Error> {
        let cli = crate::args::Cli::try_parse_from(["treelb", "nqueens", "8"].iter().chain(args))?;
        match cli.command {
            crate::args::Command::Nqueens(a) => Ok(a.run),
            _ => unreachable!(),
        }
    }

    #[test]
    fn quiet_and_no_progress_parse() {
        assert!(parse(&["--no-progress"]).unwrap().feedback.no_progress);
        assert!(parse(&["-q"]).unwrap().feedback.quiet);
        assert!(parse(&["--progress", "--quiet"]).is_err());
    }

    #[test]
    fn good_arguments_become_a_config() {
        let a = parse(&[
            "-p",
            "2",
            "--budget",
            "64",
            "--split-policy",
            "bottom",
            "--init",
            "selective",
            "--seed",
            "9",
        ])
        .unwrap();
        let c = RunConfig::from_args(&a).unwrap();
        assert_eq!(c.threads, 2);
        assert_eq!(c.spec.budget.get(), 64);
        assert_eq!(c.spec.init, Init::Selective);
        assert_eq!(c.spec.seed, 9);
        assert_eq!(c.split_policy, SplitPolicy::Bottom);
        assert_eq!(c.max_nodes, None);
        for (given, n) in [("1000", 1000), ("1e6", 1_000_000), ("2.5e3", 2500)] {
            let c = RunConfig::from_args(&parse(&["--max-nodes", given]).unwrap()).unwrap();
            assert_eq!(c.max_nodes, Some(n), "{given}");
        }
    }

    #[test]
    fn an_explicit_flag_wins_over_the_applications_default() {
        let defaults =
            AppDefaults { budget: Some(Budget::of(1)), split_policy: Some(SplitPolicy::OldestHalf) };
        let c = RunConfig::with_defaults(&parse(&[]).unwrap(), defaults).unwrap();
        assert_eq!((c.spec.budget.get(), c.split_policy), (1, SplitPolicy::OldestHalf));
        // The runtime's default value, given explicitly, is honoured too.
        let given = parse(&["--budget", "256", "--split-policy", "bottom"]).unwrap();
        let c = RunConfig::with_defaults(&given, defaults).unwrap();
        assert_eq!((c.spec.budget.get(), c.split_policy), (256, SplitPolicy::Bottom));
        let c = RunConfig::from_args(&parse(&[]).unwrap()).unwrap();
        assert_eq!((c.spec.budget, c.split_policy), (Budget::DEFAULT, SplitPolicy::default()));
    }
}
