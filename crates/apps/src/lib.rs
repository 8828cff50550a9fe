//! Applications of `treelb` whose answers are known exactly, so that every run
//! of every load balancer can be checked:
//!
//! * [`uts`] — the Unbalanced Tree Search benchmark, bit-exact with its
//!   reference implementation, with the published sizes of its sample trees;
//! * [`nqueens`] — counting the solutions of the N-Queens problem.
//!
//! Both are [`treelb::Search`]es: [`treelb::DfsWork`] makes them pieces of
//! work for a runtime, and [`treelb::seq::run_search`] runs them sequentially.

pub mod nqueens;
pub mod uts;
