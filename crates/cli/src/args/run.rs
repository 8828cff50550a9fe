//! The options of a run, shared by every application (`--threads`,
//! `--strategy`, `--budget`, the limits, the outputs), and the value types
//! and parsers of every command's options.

use std::time::Duration;

use clap::builder::PossibleValue;
use clap::{Args, ValueEnum};
use treelb::spec::Rho;
use treelb::{Init, SplitPolicy, Strategy};
use treelb_apps::knapsack::Class;
use treelb_apps::mandelbrot::Method;

use crate::apps::Runtime;

/// `--budget UNITS`: Δt, defined once for every command that takes it.
/// Each command says its own default in the help (`args::command` writes it)
/// and applies it where the option is absent.
#[derive(Clone, Copy, Debug, Default, clap::Args)]
pub(crate) struct BudgetArg {
    /// Δt: units of work between two checks for requests, at least 1
    /// [default: set per command]
    #[arg(allow_negative_numbers = true, long, value_name = "UNITS", value_parser = parse::budget, help_heading = heading::BALANCING)]
    pub(crate) budget: Option<treelb::spec::Budget>,
}

impl BudgetArg {
    /// The Δt given, or `default`.
    pub(crate) fn or(self, default: treelb::spec::Budget) -> treelb::spec::Budget {
        self.budget.unwrap_or(default)
    }
}

/// The headings under which `--help` groups the runtime's options (the
/// application's own come first, under "Options").
pub(crate) mod heading {
    /// The PEs and the runtime that runs them.
    pub(crate) const RUN: &str = "Run";
    /// How the work moves between PEs.
    pub(crate) const BALANCING: &str = "Balancing";
    /// When the run stops early, and what survives it.
    pub(crate) const LIMITS: &str = "Limits";
    /// What the run prints and writes.
    pub(crate) const OUTPUT: &str = "Output";
}

/// How to run: the options every application takes (an application's
/// `--help` shows only those it accepts: [`crate::apps::APPS`]).
///
/// `--budget` and `--split-policy` have no clap default: an application may
/// declare its own ([`crate::apps::AppDefaults`]), and a value given on
/// the command line always wins over both.
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// Number of PEs (worker threads), 1 to 4096 [default: all cores]
    #[arg(allow_negative_numbers = true, short = 'p', long, value_name = "P", value_parser = parse::threads, help_heading = heading::RUN)]
    pub(crate) threads: Option<usize>,
    /// threads (the PEs are threads of this process) or mpi (the PEs are the
    /// ranks that mpirun starts, times --threads per rank [default 1]; needs
    /// a build with the `mpi` feature)
    #[arg(long, value_name = "RUNTIME", value_enum, default_value_t = Runtime::Threads, help_heading = heading::RUN)]
    pub(crate) runtime: Runtime,
    /// Seed of the PEs' random choices
    #[arg(long, value_name = "N", help_heading = heading::RUN)]
    pub(crate) seed: Option<u64>,
    /// Pin PE i to the i-th core (threads runtime; off by default)
    #[arg(long, help_heading = heading::RUN)]
    pub(crate) pin: bool,
    /// Balancing strategy (the README's table says what each does)
    #[arg(long, value_name = "NAME", value_enum, default_value_t = StrategyArg(Strategy::RandomPolling), help_heading = heading::BALANCING)]
    pub(crate) strategy: StrategyArg,
    #[command(flatten)]
    pub(crate) budget: BudgetArg,
    /// Which open nodes a split gives away [default: set per application]
    #[arg(long, value_name = "POLICY", value_enum, help_heading = heading::BALANCING)]
    pub(crate) split_policy: Option<SplitPolicyArg>,
    /// How the root reaches the PEs
    #[arg(long, value_name = "INIT", value_enum, default_value_t = InitArg(Init::Root), help_heading = heading::BALANCING)]
    pub(crate) init: InitArg,
    /// multilevel: fan-out of each level of the producer tree, root first,
    /// each 1 to 4096, e.g. 4,2 [default: Kimura and Ichiyoshi's Theorem 4]
    #[arg(allow_negative_numbers = true, long, value_name = "D,D,…", value_delimiter = ',', value_parser = parse::fanout, help_heading = heading::BALANCING)]
    pub(crate) fanout: Vec<usize>,
    /// max-load: ratio ρ of lazy load reports (a PE reports when ⌈log_ρ L⌉
    /// grows), 1 < ρ < 1.5
    #[arg(allow_negative_numbers = true, long, value_name = "RHO", value_parser = parse::rho, default_value_t = Rho::DEFAULT, help_heading = heading::BALANCING)]
    pub(crate) rho: Rho,
    /// Stop after about N units of work with a partial report marked
    /// interrupted and exit code 3; with --runtime mpi each rank stops
    /// after its share N/ranks. An integer or a whole number in scientific
    /// notation (1e6)
    #[arg(allow_negative_numbers = true, long, value_name = "N", value_parser = parse::count, help_heading = heading::LIMITS)]
    pub(crate) max_nodes: Option<u64>,
    /// Stop after DURATION of wall time (e.g. 90s, 5m, 1h30m, 250ms) with a
    /// partial report marked interrupted and exit code 3; with --runtime mpi
    /// every rank stops at the same time and rank 0 reports
    #[arg(long, value_name = "DURATION", value_parser = parse::duration, help_heading = heading::LIMITS)]
    pub(crate) time_limit: Option<std::time::Duration>,
    #[command(flatten)]
    pub(crate) checkpoint: CheckpointArgs,
    /// The same optimal solution for every P, strategy and runtime (of
    /// equal values, the smallest witness wins); explores the ties, so it
    /// costs nodes
    #[arg(long)]
    pub(crate) deterministic: bool,
    /// Print the report as JSON on stdout instead of tables
    #[arg(long, help_heading = heading::OUTPUT)]
    pub(crate) json: bool,
    /// Record when each PE was working, requesting, idle, splitting or
    /// sending, and its requests and pieces given and received, into FILE
    /// (CSV, one line per interval, then the marks; draw it with `treelb
    /// plot-trace FILE`, replay it with `treelb sim replay FILE`)
    #[arg(long, value_name = "FILE", help_heading = heading::OUTPUT)]
    pub(crate) trace: Option<String>,
    #[command(flatten)]
    pub(crate) feedback: FeedbackArgs,
}

/// `--progress` and `--quiet`: what a run shows on stderr while it runs.
#[derive(Clone, Copy, Debug, Default, Args)]
pub(crate) struct FeedbackArgs {
    /// Show progress on stderr even when it is not a terminal: a line when
    /// the run starts, one per improvement of the incumbent, and the work
    /// done at growing intervals [default: only on a terminal]
    #[arg(long, conflicts_with = "quiet", help_heading = heading::OUTPUT)]
    pub(crate) progress: bool,
    /// Show nothing on stderr while the run runs (no progress, no
    /// incumbents, no notes); errors and warnings still appear
    #[arg(short = 'q', long, help_heading = heading::OUTPUT)]
    pub(crate) quiet: bool,
    /// No progress and no incumbents on stderr, even on a terminal (the
    /// notes of an interrupted run remain)
    #[arg(long, conflicts_with = "progress", help_heading = heading::OUTPUT)]
    pub(crate) no_progress: bool,
}

/// A closed set of names from `treelb` made a clap [`ValueEnum`], so that
/// `--help` lists every name (with a line on each) and completions offer
/// them: a wrapper around the library's type, whose `ALL` and `name` give
/// the names, so that the command line and the library cannot disagree.
macro_rules! value_enum {
    ($(#[$doc:meta])* $wrapper:ident($inner:ty), $n:expr, $help:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) struct $wrapper(pub(crate) $inner);

        impl ValueEnum for $wrapper {
            fn value_variants<'a>() -> &'a [Self] {
                const VARIANTS: [$wrapper; $n] = {
                    let mut v = [$wrapper(<$inner>::ALL[0]); $n];
                    let mut i = 0;
                    while i < $n {
                        v[i] = $wrapper(<$inner>::ALL[i]);
                        i += 1;
                    }
                    v
                };
                &VARIANTS
            }

            fn to_possible_value(&self) -> Option<PossibleValue> {
                let help: fn($inner) -> &'static str = $help;
                Some(PossibleValue::new(self.0.name()).help(help(self.0)))
            }
        }

        impl std::fmt::Display for $wrapper {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.0.name())
            }
        }
    };
}

value_enum!(
    /// `--strategy`: a [`Strategy`].
    StrategyArg(Strategy),
    13,
    Strategy::description
);

value_enum!(
    /// `knapsack --class`: a [`Class`] of Pisinger's generated instances.
    ClassArg(Class),
    4,
    Class::description
);

value_enum!(
    /// `mandelbrot --method`: a [`Method`].
    MethodArg(Method),
    2,
    Method::description
);

value_enum!(
    /// `--init`: an [`Init`].
    InitArg(Init),
    2,
    Init::description
);

value_enum!(
    /// `--split-policy`: a [`SplitPolicy`].
    SplitPolicyArg(SplitPolicy),
    3,
    SplitPolicy::description
);

/// clap value parsers: each error is the part after clap's `invalid value
/// 'V' for '--flag <NAME>': `, so that the message names the flag and the
/// value, on one line.
pub(crate) mod parse {
    use treelb::spec::Rho;
    pub(crate) use treelb_files::values::{count, dimension, duration, fanout, positive, repeat, threads};

    /// Δt (`--budget`): a whole number of units, at least 1.
    pub(crate) fn budget(value: &str) -> Result<treelb::spec::Budget, String> {
        positive(value).map(treelb::spec::Budget::of)
    }

    /// `--rho`: strictly between 1 and 1.5.
    pub(crate) fn rho(value: &str) -> Result<Rho, String> {
        let rho: f64 = value.trim().parse().map_err(|_| "expects a number".to_owned())?;
        Rho::new(rho)
            .map_err(|_| "must lie strictly between 1 and 1.5 (Loui and Sohoni's ρ < 3/2)".to_owned())
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn rho_lies_strictly_between_1_and_1_5() {
            assert!(super::rho("1.5").is_err());
            assert_eq!(super::rho("1.25").map(|r| r.value()), Ok(1.25));
        }
    }
}

/// `--checkpoint FILE --checkpoint-every DURATION`: the options of every run
/// command that checkpoints.
#[derive(Clone, Debug, Default, Args)]
pub(crate) struct CheckpointArgs {
    /// Write the run's state to FILE every --checkpoint-every (atomically:
    /// FILE is always a whole checkpoint); `treelb resume FILE` continues
    /// the run after a crash
    #[arg(long, value_name = "FILE", help_heading = heading::LIMITS)]
    pub(crate) checkpoint: Option<String>,
    /// How often to checkpoint, e.g. 60s, 10m, 1h, 500ms [default: 60s]
    #[arg(long, value_name = "DURATION", requires = "checkpoint", value_parser = parse::duration, help_heading = heading::LIMITS)]
    pub(crate) checkpoint_every: Option<Duration>,
}
