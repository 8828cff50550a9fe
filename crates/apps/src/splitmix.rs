//! SplitMix64, the small deterministic generator behind the instance
//! generators ([`crate::clique::Graph::random`], [`crate::knapsack`],
//! [`crate::tsp`]): treelb's one generator, [`treelb::rng::SplitMix64`],
//! under the name the applications have always used.
//!
//! A generator of our own rather than a crate's keeps every generated
//! instance the same across dependency versions: a seed names an instance
//! for good.
//!
//! ```
//! use treelb_apps::splitmix::SplitMix64;
//! let mut a = SplitMix64::new(7);
//! let mut b = SplitMix64::new(7);
//! assert_eq!(a.next_u64(), b.next_u64());
//! assert!((1..=6).contains(&a.range(1, 6)));
//! ```

pub use treelb::rng::SplitMix64;
