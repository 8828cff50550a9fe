//! The 0/1 knapsack problem: branch and bound with the Dantzig bound, items
//! sorted by profit/weight ratio, Pisinger's instance classes, and a dynamic
//! program to check the optimum.
//!
//! * [`Instance`], [`Item`] — an instance, its feasibility check
//!   ([`Instance::profit_of`]) and the dynamic program
//!   ([`Instance::dp_optimum`]);
//! * [`Spec`], [`Class`] — the generator: uncorrelated, weakly and strongly
//!   correlated, subset-sum instances from a seed;
//! * [`parse_str`], [`read_file`] — the plain `N CAPACITY` / `PROFIT WEIGHT`
//!   text format, with typed errors;
//! * [`Knapsack`] — the search; the best packing is in
//!   [`Knapsack::incumbent`] after the run.
//!
//! ```
//! use treelb_apps::knapsack::{Class, Knapsack, Spec};
//! let instance = Spec::new(Class::StronglyCorrelated, 25, 100, 1).generate();
//! let search = Knapsack::new(&instance);
//! let (stats, _) = treelb::seq::run_search(&search);
//! let (best, items) = search.incumbent.into_best().unwrap();
//! assert_eq!(instance.profit_of(&items), Some(best));
//! assert_eq!(instance.dp_optimum(1 << 20), Some(best));
//! ```

mod instance;
mod search;

pub use instance::{
    Class, Instance, InstanceError, Item, MAX_INPUT_BYTES, MAX_VALUE, ParseClassError, ParseError, Spec,
    parse, parse_str, read_file,
};
pub use search::{Knapsack, KnapsackNode};
