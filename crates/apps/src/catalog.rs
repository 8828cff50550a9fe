//! What each application takes of a run's options, in one table: its
//! defaults where the caller is silent, the unit of its work, and the
//! options it does not support, each with the reason.
//!
//! TSP's nodes are subgradient ascents, so it checks for requests after
//! every node; integration always splits its list of intervals by age; a
//! game search gives work away only when asked. A front end applies
//! [`App::budget`] and [`App::split_policy`] where its user gave no value,
//! and refuses what [`App::refuses`] names.
//!
//! ```
//! use treelb_apps::catalog::App;
//!
//! let tsp = App::named("tsp").unwrap();
//! assert_eq!(tsp.budget(), treelb_apps::tsp::BUDGET);
//! assert_eq!(tsp.unit, "nodes");
//! assert!(App::named("connect4").unwrap().refuses("time_limit").is_some());
//! ```

use treelb::SplitPolicy;
use treelb::spec::Budget;

/// What an application sets where its caller is silent; a value the caller
/// gives always wins.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Defaults {
    /// Δt [default: the runtime's, [`Budget::DEFAULT`]].
    pub budget: Option<Budget>,
    /// The split policy [default: the runtime's, [`SplitPolicy::default`]].
    pub split_policy: Option<SplitPolicy>,
}

impl Defaults {
    /// The runtime's own defaults.
    pub const RUNTIME: Defaults = Defaults { budget: None, split_policy: None };
}

/// What an application takes of a run's options, in one place.
#[derive(Clone, Copy, Debug)]
pub struct App {
    /// Its name (the command that runs it).
    pub name: &'static str,
    /// Its defaults.
    pub defaults: Defaults,
    /// What one unit of its work is, for Δt and a cap on the work.
    pub unit: &'static str,
    /// A sentence more on the cap on the work, or "".
    pub max_nodes_note: &'static str,
    /// The options it does not support, by name (words joined by `_`:
    /// `split_policy`, `time_limit`), each with the reason.
    pub refused: &'static [(&'static str, &'static str)],
}

/// Why an application whose answer does not depend on the schedule refuses
/// `deterministic`.
const NOT_BNB: (&str, &str) = (
    "deterministic",
    "it is for branch and bound (clique, knapsack, tsp), whose witness may depend on the schedule",
);
/// Why an application refuses checkpoints.
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

/// Every application that runs on a runtime.
pub const APPS: [App; 9] = [
    App {
        name: "uts",
        defaults: Defaults::RUNTIME,
        unit: "nodes",
        max_nodes_note: "Also lifts the limit on the expected size of a tree of given parameters.",
        refused: &[NOT_BNB],
    },
    App {
        name: "nqueens",
        defaults: Defaults::RUNTIME,
        unit: "nodes",
        max_nodes_note: "A node counts 1 and a subtree of the last rows counted at once 64.",
        refused: &[NOT_BNB],
    },
    App {
        name: "clique",
        defaults: Defaults::RUNTIME,
        unit: "nodes",
        max_nodes_note: "A node counts 1 and a chunk of 16 greedy starts 256.",
        refused: &[],
    },
    App { name: "knapsack", defaults: Defaults::RUNTIME, unit: "nodes", max_nodes_note: "", refused: &[] },
    App {
        name: "tsp",
        // A node is a subgradient ascent: requests are checked after each.
        defaults: Defaults { budget: Some(crate::tsp::BUDGET), split_policy: None },
        unit: "nodes",
        max_nodes_note: "",
        refused: &[],
    },
    App {
        name: "integrate",
        // A piece is a list of intervals, split by age.
        defaults: Defaults { budget: None, split_policy: Some(SplitPolicy::OldestHalf) },
        unit: "intervals",
        max_nodes_note: "",
        refused: &[
            NOT_BNB,
            NO_CHECKPOINT[0],
            NO_CHECKPOINT[1],
            ("split_policy", "integrate always gives away the oldest half of its interval list"),
        ],
    },
    App {
        name: "mandelbrot",
        defaults: Defaults::RUNTIME,
        unit: "iterations",
        max_nodes_note: "",
        refused: &[
            NOT_BNB,
            NO_CHECKPOINT[0],
            NO_CHECKPOINT[1],
            ("split_policy", "a piece of the image splits by its own rule (rows of pixels, or rectangles)"),
        ],
    },
    App { name: "connect4", defaults: Defaults::RUNTIME, unit: "nodes", max_nodes_note: "", refused: &GAME },
    App { name: "gametree", defaults: Defaults::RUNTIME, unit: "nodes", max_nodes_note: "", refused: &GAME },
];

impl App {
    /// The application `name` of [`APPS`], if it runs on a runtime.
    pub fn named(name: &str) -> Option<&'static App> {
        APPS.iter().find(|a| a.name == name)
    }

    /// Δt where the caller does not set it.
    pub fn budget(&self) -> Budget {
        self.defaults.budget.unwrap_or(Budget::DEFAULT)
    }

    /// The split policy where the caller does not set it.
    pub fn split_policy(&self) -> SplitPolicy {
        self.defaults.split_policy.unwrap_or_default()
    }

    /// Why the application does not support the option `name`, if it does
    /// not.
    pub fn refuses(&self, name: &str) -> Option<&'static str> {
        self.refused.iter().find(|(id, _)| *id == name).map(|(_, why)| *why)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_applications_defaults_and_refusals() {
        assert_eq!(App::named("uts").unwrap().budget(), Budget::DEFAULT);
        assert_eq!(App::named("integrate").unwrap().split_policy(), SplitPolicy::OldestHalf);
        assert_eq!(App::named("tsp").unwrap().budget(), Budget::of(1));
        assert!(App::named("bench").is_none());
        let clique = App::named("clique").unwrap();
        assert_eq!(clique.refuses("deterministic"), None);
        assert!(App::named("uts").unwrap().refuses("deterministic").unwrap().contains("branch and bound"));
    }
}
