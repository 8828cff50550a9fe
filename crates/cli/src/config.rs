//! Checked configuration: what the command line asked for, validated.

use std::any::Any;
use std::fmt;
use std::io::{self, IsTerminal};
use std::str::FromStr;
use std::time::Duration;

use treelb::spec::Budget;
use treelb::{RunSpec, SplitPolicy};

use crate::args::RunArgs;

/// Why a command failed: a one-line message for the user (what was
/// wrong, and where), and for failures of input or output the
/// [`io::ErrorKind`], so that a closed pipe is told apart by its kind, not
/// by its message.
#[derive(Debug)]
pub(crate) enum Error {
    /// Bad input, or a check that failed: the message names what and where.
    Input(String),
    /// An input or output operation failed.
    Io(io::ErrorKind, String),
    /// An output file could not be written after the report was printed
    /// (see [`crate::outputs`]): exit code 4.
    Unwritten(String),
}

impl Error {
    /// The [`io::ErrorKind`] of a failed input or output operation.
    pub(crate) fn io_kind(&self) -> Option<io::ErrorKind> {
        match self {
            Error::Input(_) | Error::Unwritten(_) => None,
            Error::Io(kind, _) => Some(*kind),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input(msg) | Error::Io(_, msg) | Error::Unwritten(msg) => f.write_str(msg),
        }
    }
}

impl<E: std::error::Error + 'static> From<E> for Error {
    fn from(e: E) -> Self {
        let message = e.to_string();
        match (&e as &dyn Any).downcast_ref::<io::Error>() {
            Some(io) => Error::Io(io.kind(), message),
            None => Error::Input(message),
        }
    }
}

/// Builds an [`Error`] from a format string.
macro_rules! err {
    ($($t:tt)*) => { $crate::config::Error::Input(format!($($t)*)) };
}
pub(crate) use err;

/// Parses a number given to `flag`, with the flag's name in the error.
pub(crate) fn number<T: FromStr>(flag: &str, value: &str) -> Result<T, Error> {
    value.trim().parse().map_err(|_| err!("{flag} expects a non-negative integer, got `{value}`"))
}

/// Parses a number that must be at least 1.
pub(crate) fn positive(flag: &str, value: &str) -> Result<u64, Error> {
    match number::<u64>(flag, value)? {
        0 => Err(err!("{flag} must be at least 1, got 0")),
        n => Ok(n),
    }
}

/// The number of PEs: given, or all cores.
pub(crate) fn threads(value: Option<usize>) -> usize {
    value.unwrap_or_else(|| treelb_threads::Config::default().threads)
}

/// Which runtime runs the PEs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Runtime {
    /// Threads of this process.
    Threads,
    /// MPI ranks (times threads per rank); needs a build with `--features mpi`.
    Mpi,
}

impl Runtime {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Runtime::Threads => "threads",
            Runtime::Mpi => "mpi",
        }
    }

    /// The runtime, if this build has it.
    pub(crate) fn available(self) -> Result<Self, Error> {
        match self {
            Runtime::Mpi if !cfg!(feature = "mpi") => {
                Err(err!("--runtime mpi: this treelb was built without MPI (build with `--features mpi`)"))
            }
            r => Ok(r),
        }
    }
}

/// How a run shows itself on stderr while it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Feedback {
    /// Nothing: `--quiet`, or stderr is not a terminal.
    Off,
    /// A bar that redraws itself after the first second, with the
    /// incumbents above it: stderr is a terminal.
    Terminal,
    /// Plain lines that a log keeps: `--progress` where stderr is not a
    /// terminal.
    Lines,
}

impl Feedback {
    /// What `--progress` and `--quiet` ask for, where stderr is a terminal
    /// or not: progress on a terminal only, as cargo and ripgrep do.
    pub(crate) fn from_args(args: &crate::args::FeedbackArgs) -> Self {
        Self::decide(args, std::io::stderr().is_terminal())
    }

    fn decide(args: &crate::args::FeedbackArgs, terminal: bool) -> Self {
        match (args.quiet || args.no_progress, args.progress, terminal) {
            (true, _, _) => Feedback::Off,
            (false, _, true) => Feedback::Terminal,
            (false, true, false) => Feedback::Lines,
            (false, false, false) => Feedback::Off,
        }
    }

    /// Whether anything is shown.
    pub(crate) fn on(self) -> bool {
        self != Feedback::Off
    }
}

/// What an application sets where the command line is silent: a value on
/// the command line always wins. Each application declares its own (TSP's
/// nodes are subgradient ascents, so it checks for requests after every
/// node; integration always splits its list of intervals by age).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AppDefaults {
    /// Δt when `--budget` is not given [default: the runtime's].
    pub(crate) budget: Option<Budget>,
    /// The split policy when `--split-policy` is not given.
    pub(crate) split_policy: Option<SplitPolicy>,
}

impl AppDefaults {
    /// The runtime's own defaults.
    pub(crate) const RUNTIME: AppDefaults = AppDefaults { budget: None, split_policy: None };
}

/// What an application takes of the runtime's options, in one place: its
/// defaults where the command line is silent, the unit of its work, and the
/// options it refuses. `--help` shows each application only the options it
/// accepts, with its own defaults ([`crate::args::command`]); an option it
/// refuses is hidden there and, given anyway, refused with its reason
/// ([`App::refuse_given`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct App {
    /// The subcommand.
    pub(crate) name: &'static str,
    /// Its defaults.
    pub(crate) defaults: AppDefaults,
    /// What one unit of its work is, for `--budget` and `--max-nodes`.
    pub(crate) unit: &'static str,
    /// A sentence more on `--max-nodes`, or "".
    pub(crate) max_nodes_note: &'static str,
    /// The runtime's options it refuses (clap ids), each with the reason.
    pub(crate) refuses: &'static [(&'static str, &'static str)],
}

/// Why an application whose answer does not depend on the schedule refuses
/// `--deterministic`.
const NOT_BNB: (&str, &str) = (
    "deterministic",
    "it is for branch and bound (clique, knapsack, tsp), whose witness may depend on the schedule",
);
/// Why an application refuses `--checkpoint`.
const NO_CHECKPOINT: [(&str, &str); 2] = [
    ("checkpoint", "only uts, nqueens, clique, knapsack and tsp checkpoint"),
    ("checkpoint_every", "only uts, nqueens, clique, knapsack and tsp checkpoint"),
];
/// What a game search refuses besides.
const GAME: [(&str, &str); 10] = [
    NOT_BNB,
    NO_CHECKPOINT[0],
    NO_CHECKPOINT[1],
    ("split_policy", "a game search gives away the younger brothers of a node whose eldest has returned"),
    ("init", "the root is atomic until its eldest brother returns"),
    ("max_nodes", "a stopped game search has no value"),
    ("time_limit", "a stopped game search has no value"),
    ("trace", "a game search is not traced"),
    ("fanout", "a game search gives work away only when asked, so multilevel's producer tree does not apply"),
    ("rho", "a game search gives work away only when asked, so max-load's reports do not apply"),
];

/// Every application that runs on the runtime.
pub(crate) const APPS: [App; 9] = [
    App {
        name: "uts",
        defaults: AppDefaults::RUNTIME,
        unit: "nodes",
        max_nodes_note: "Also lifts the limit on the expected size of a tree of given parameters.",
        refuses: &[NOT_BNB],
    },
    App {
        name: "nqueens",
        defaults: AppDefaults::RUNTIME,
        unit: "nodes",
        max_nodes_note: "A node counts 1 and a subtree of the last rows counted at once 64.",
        refuses: &[NOT_BNB],
    },
    App {
        name: "clique",
        defaults: AppDefaults::RUNTIME,
        unit: "nodes",
        max_nodes_note: "A node counts 1 and a chunk of 16 greedy starts 256.",
        refuses: &[],
    },
    App { name: "knapsack", defaults: AppDefaults::RUNTIME, unit: "nodes", max_nodes_note: "", refuses: &[] },
    App {
        name: "tsp",
        // A node is a subgradient ascent: requests are checked after each.
        defaults: AppDefaults { budget: Some(treelb_apps::tsp::BUDGET), split_policy: None },
        unit: "nodes",
        max_nodes_note: "",
        refuses: &[],
    },
    App {
        name: "integrate",
        // A piece is a list of intervals, split by age.
        defaults: AppDefaults { budget: None, split_policy: Some(SplitPolicy::OldestHalf) },
        unit: "intervals",
        max_nodes_note: "",
        refuses: &[
            NOT_BNB,
            NO_CHECKPOINT[0],
            NO_CHECKPOINT[1],
            ("split_policy", "integrate always gives away the oldest half of its interval list"),
        ],
    },
    App {
        name: "mandelbrot",
        defaults: AppDefaults::RUNTIME,
        unit: "iterations",
        max_nodes_note: "",
        refuses: &[
            NOT_BNB,
            NO_CHECKPOINT[0],
            NO_CHECKPOINT[1],
            ("split_policy", "a piece of the image splits by its own rule (rows of pixels, or rectangles)"),
        ],
    },
    App {
        name: "connect4",
        defaults: AppDefaults::RUNTIME,
        unit: "nodes",
        max_nodes_note: "",
        refuses: &GAME,
    },
    App {
        name: "gametree",
        defaults: AppDefaults::RUNTIME,
        unit: "nodes",
        max_nodes_note: "",
        refuses: &GAME,
    },
];

/// The application `name` of [`APPS`].
pub(crate) fn app(name: &str) -> &'static App {
    App::named(name).unwrap_or_else(|| panic!("`{name}` is not in APPS"))
}

impl App {
    /// The application of subcommand `name`, if it runs on the runtime.
    pub(crate) fn named(name: &str) -> Option<&'static App> {
        APPS.iter().find(|a| a.name == name)
    }

    /// Δt where neither the command line nor the application sets it.
    pub(crate) fn budget(&self) -> Budget {
        self.defaults.budget.unwrap_or(Budget::DEFAULT)
    }

    /// The split policy where the command line does not set it.
    pub(crate) fn split_policy(&self) -> SplitPolicy {
        self.defaults.split_policy.unwrap_or_default()
    }

    /// Refuses the options of `matches` (this application's) that it does
    /// not take and that the command line gave.
    pub(crate) fn refuse_given(&self, matches: &clap::ArgMatches) -> Result<(), Error> {
        for (id, why) in self.refuses {
            let given = matches.try_contains_id(id).is_ok_and(|present| present)
                && matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine);
            if given {
                let flag = format!("--{}", id.replace('_', "-"));
                return Err(err!("{flag} does not apply to {}: {why}", self.name));
            }
        }
        Ok(())
    }
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
    pub(crate) checkpoint: Option<crate::checkpoint::Plan>,
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
        };
        if kind == Runtime::Mpi && args.trace.is_some() {
            return Err(err!("--trace records runs of the threads runtime (not with --runtime mpi)"));
        }
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
            feedback: Feedback::from_args(&args.feedback),
            quiet: args.feedback.quiet,
            trace: args.trace.clone(),
            max_nodes: args.max_nodes,
            time_limit: args.time_limit,
            deterministic: args.deterministic,
            checkpoint: crate::checkpoint::Plan::from_args(&args.checkpoint, kind)?,
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

    /// The configuration of the threads runtime.
    pub(crate) fn threads_config(&self) -> treelb_threads::Config {
        treelb_threads::Config {
            threads: self.threads,
            spec: self.spec.clone(),
            pin: self.pin,
            trace: self.trace.is_some(),
            record_decisions: false,
        }
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
    fn progress_shows_on_a_terminal_or_when_asked() {
        let ask = |progress, quiet| crate::args::FeedbackArgs { progress, quiet, no_progress: false };
        assert_eq!(Feedback::decide(&ask(false, false), true), Feedback::Terminal);
        assert_eq!(Feedback::decide(&ask(false, false), false), Feedback::Off);
        assert_eq!(Feedback::decide(&ask(true, false), false), Feedback::Lines);
        assert_eq!(Feedback::decide(&ask(true, false), true), Feedback::Terminal);
        assert_eq!(Feedback::decide(&ask(false, true), true), Feedback::Off);
        assert_eq!(Feedback::decide(&ask(false, true), false), Feedback::Off);
        let quiet_progress = crate::args::FeedbackArgs { progress: false, quiet: false, no_progress: true };
        assert_eq!(Feedback::decide(&quiet_progress, true), Feedback::Off);
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

    #[test]
    fn each_bad_argument_names_its_flag_and_value() {
        let cases: [(&[&str], &str); 15] = [
            (&["--max-nodes", "0"], "invalid value '0' for '--max-nodes <N>': must be at least 1"),
            (
                &["--max-nodes", "1.5e3x"],
                "invalid value '1.5e3x' for '--max-nodes <N>': expects a whole number",
            ),
            (&["--fanout", "4,0"], "invalid value '0' for '--fanout <D,D,…>': must be at least 1"),
            (&["--rho", "1.5"], "invalid value '1.5' for '--rho <RHO>': must lie strictly between 1 and 1.5"),
            (&["--rho", "x"], "invalid value 'x' for '--rho <RHO>': expects a number"),
            (&["--threads", "0"], "invalid value '0' for '--threads <P>': must be at least 1"),
            (&["--threads", "-1"], "invalid value '-1' for '--threads <P>': must be at least 1"),
            (
                &["--time-limit", "garbage"],
                "invalid value 'garbage' for '--time-limit <DURATION>': expects a duration: a number with a unit (ms, s, m, h, d), such as 250ms, 90s, 5m or 1h30m",
            ),
            (
                &["--time-limit", "3 fortnights"],
                "invalid value '3 fortnights' for '--time-limit <DURATION>': `fortnights` is not a unit of time",
            ),
            (&["--threads", "two"], "invalid value 'two' for '--threads <P>': expects a positive integer"),
            (&["--threads", "100000"], "invalid value '100000' for '--threads <P>': too many (at most 4096)"),
            (&["--budget", "0"], "invalid value '0' for '--budget <UNITS>': must be at least 1"),
            (&["--init", "all"], "invalid value 'all' for '--init <INIT>'"),
            (&["--split-policy", "top"], "invalid value 'top' for '--split-policy <POLICY>'"),
            (&["--strategy", "guess"], "invalid value 'guess' for '--strategy <NAME>'"),
        ];
        for (args, message) in cases {
            let e = parse(args).unwrap_err().render().to_string();
            assert!(e.starts_with(&format!("error: {message}")), "{args:?}: {e}");
        }
    }
}
