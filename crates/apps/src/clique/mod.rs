//! Maximum clique and k-clique decision on DIMACS graphs, by branch and bound
//! with bitset colouring bounds (Tomita's MCQ/MCS as San Segundo's BBMC
//! implements them, with re-colouring, infra-chromatic sets and, as an
//! option, MaxSAT-style unit propagation over the colour classes), and a local
//! search (Pullan and Hoos's DLS-MC) in bursts beside it for a good
//! incumbent early.
//!
//! * [`Graph`] — adjacency bitsets up to 4096 vertices, sorted neighbour lists
//!   above (`O(n + m)`), and families with a known clique number
//!   (complete, Turán, cycle, Petersen, Hamming and Johnson graphs), random
//!   graphs;
//! * [`dimacs`] — the `.clq` file format, with typed errors;
//! * [`CliqueSearch`] — the search: [`CliqueSearch::max_clique`] for ω and a
//!   maximum clique, [`CliqueSearch::k_clique`] for "is there a clique of `k`
//!   vertices?", which stops every PE at the first witness.
//!
//! ```
//! use treelb_apps::clique::{dimacs, CliqueSearch};
//! let g = dimacs::parse_str("p edge 5 7\ne 1 2\ne 1 3\ne 2 3\ne 3 4\ne 4 5\ne 3 5\ne 2 4\n")?;
//! let search = CliqueSearch::max_clique(&g);
//! let (_, stats) = treelb::seq::run_search(&search);
//! let (omega, clique) = search.incumbent.into_best().unwrap();
//! assert_eq!(omega, 3);
//! assert!(g.is_clique(&clique));
//! # Ok::<(), dimacs::DimacsError>(())
//! ```

pub mod dimacs;
mod graph;
mod local;
mod search;

pub use dimacs::{DimacsError, DimacsWarning};
pub use graph::{DENSE_MAX_VERTICES, Graph};
pub use search::{
    CliqueNode, CliqueSearch, GREEDY_CHUNK_COST, Mode, Options, ROOT_PARTS_DENSITY, ROOT_PARTS_SPREAD,
    SetupTimes, TooLarge,
};
