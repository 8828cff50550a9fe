//! What each application takes of the runtime's options, in one table:
//! its defaults, the unit of its work and the options it refuses; and which
//! runtime runs the PEs.

use treelb::SplitPolicy;
use treelb::spec::Budget;

use crate::error::{Error, err};

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
/// accepts, with its own defaults (`args::command` writes them); an option it
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
