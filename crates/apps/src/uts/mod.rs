//! Unbalanced Tree Search (UTS): counting the nodes of a random tree that is
//! generated on the fly, bit for bit as the reference implementation (`uts.c`
//! with the SHA-1 generator `rng/brg_sha1.c`) generates it.
//!
//! * [`rng`] — the splittable SHA-1 random number generator;
//! * [`Params`] — the tree's parameters, parsed from the reference's flags
//!   ([`Params::from_uts_args`]) and validated;
//! * [`Uts`] — the tree as a [`treelb::Search`], with [`UtsResult`] as output;
//! * [`SAMPLE_TREES`] — the reference's sample trees with their published
//!   node counts.
//!
//! ```
//! use treelb_apps::uts::{Params, SampleTree, Uts};
//!
//! // The reference's flags, parsed and validated.
//! let params = Params::from_uts_args(["-t", "1", "-a", "3", "-d", "5", "-b", "4", "-r", "19"])?;
//! let (result, _) = treelb::seq::run_search(&Uts::new(params)?);
//! assert_eq!(result.max_depth, 5);
//!
//! // A published sample tree.
//! let sample = SampleTree::find("default").unwrap();
//! let (result, _) = treelb::seq::run_search(&Uts::new(sample.params())?);
//! assert!(sample.matches(&result));
//! # Ok::<(), treelb_apps::uts::ParamsError>(())
//! ```

mod params;
pub mod rng;
mod samples;
mod size;
mod tree;

pub use params::{GeoShape, MAX_NUM_CHILDREN, Params, ParamsError, TreeType};
pub use samples::{SAMPLE_TREES, SampleTree, sample_names};
pub use size::{DEFAULT_SIZE_LIMIT, TooBig};
pub use tree::{Uts, UtsNode, UtsResult};
