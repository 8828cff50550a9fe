//! # treelb-bench — the benchmark harness of `treelb bench`
//!
//! One application [`Search`](treelb::Search) — a UTS sample tree, an
//! N-Queens board, a maximum clique, a knapsack, a TSP tour (and the
//! Mandelbrot set, and lists of Connect Four positions) — runs under:
//!
//! * the sequential baseline, [`treelb::seq::run_search`] (no runtime);
//! * treelb's threads runtime, per strategy and per number of PEs;
//! * rayon and chili, as the recursive `join` traversals of [`forkjoin`], with
//!   and without a depth cutoff;
//! * public programs for the same job, given by path ([`peers`]): the UTS
//!   reference `uts-seq`, the Glasgow Subgraph Solver and cliquer, N-Queens
//!   counters, Pascal Pons's Connect Four solver.
//!
//! [`harness`] runs every one of them in its own process ([`child`]) with a
//! time limit, alternating them round by round and keeping the fastest of
//! N runs, checks every answer against the published one (or the first
//! engine's), and writes the report as JSON and Markdown with the command
//! line and the [`host`]. The `treelb bench` command is its front end;
//! [`compare`] is the side-by-side of the strategies behind `treelb
//! compare`, and [`trace_plot`] the summary and plots of a threads run's
//! trace behind `treelb plot-trace`.
//! This crate is not published: rayon and chili are dependencies of the
//! comparison only, never of treelb.

pub mod child;
pub mod compare;
pub mod forkjoin;
pub mod harness;
pub mod host;
pub mod html;
pub mod peers;
pub mod trace_plot;
pub mod uts_c;
pub mod workload;
