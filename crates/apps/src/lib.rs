//! Applications of `treelb` whose answers are known exactly, so that every
//! run of every load balancer can be checked:
//!
//! * [`uts`] — the Unbalanced Tree Search benchmark, bit-exact with its
//!   reference implementation, with the published sizes of its sample trees;
//! * [`nqueens`] — counting the solutions of the N-Queens problem;
//! * [`clique`] — maximum clique and k-clique decision on DIMACS graphs
//!   (branch and bound with colouring bounds; decision with early stop);
//! * [`knapsack`] — the 0/1 knapsack (branch and bound with the Dantzig
//!   bound), Pisinger's instance classes, a dynamic-programming check;
//! * [`tsp`] — the symmetric travelling salesman problem on TSPLIB files
//!   (branch and bound with Held–Karp 1-tree bounds), a Held–Karp
//!   dynamic-programming check;
//! * [`langford`] — counting the Langford pairings L(2, N), a small
//!   search whose nodes serialize (the library's examples use it);
//! * [`integrate`] — adaptive Gauss–Kronrod integration, a [`treelb::Work`]
//!   that is not a tree search: a piece is a list of intervals;
//! * [`mandelbrot`] — the Mandelbrot set by escape time, pixel by pixel or
//!   by rectangle subdivision (filling rectangles whose boundary is in the
//!   set), an image of iteration counts and of the PE that made each pixel.
//!
//! All but `integrate` and `mandelbrot` are [`treelb::Search`]es:
//! [`treelb::DfsWork`] makes them pieces of work for a runtime, and
//! [`treelb::seq::run_search`] runs them sequentially. The branch-and-bound
//! applications keep their answer in a shared [`treelb::Incumbent`] and count
//! nodes in [`bnb::BnbStats`]. `integrate` and `mandelbrot` implement
//! [`treelb::Work`] themselves ([`treelb::seq::run_work`] runs them
//! sequentially).
//!
//! The instance-file parsers share [`input`]: lines read as bytes within
//! limits, and input quoted safely in their error messages. [`output`]
//! checks output paths before the work and writes files whole after it.
//! [`report`] is what a run of an application reports: its answer checked
//! against the published one, the proof of a branch and bound, the run's
//! set-up and statistics, serializable. [`catalog`] says what each
//! application takes of a run's options: its defaults (TSP's Δt), the unit
//! of its work, what it does not support.

pub mod bnb;
pub mod catalog;
pub mod clique;
pub mod connect4;
pub mod gametree;
pub mod input;
pub mod integrate;
pub mod knapsack;
pub mod langford;
pub mod mandelbrot;
pub mod nqueens;
pub mod report;
pub use treelb_files::output;
pub mod splitmix;
pub mod tsp;
pub mod uts;
