//! # treelb-bench — the same node code under every engine
//!
//! One application [`Search`](treelb::Search) — a UTS sample tree, an
//! N-Queens board — runs under:
//!
//! * the sequential baseline, [`treelb::seq::run_search`] (no runtime);
//! * treelb's threads runtime at P = 1, all cores, and 2× and 4× oversubscribed;
//! * rayon and chili, as the recursive `join` traversals of [`forkjoin`], with
//!   and without a depth cutoff;
//! * the C reference of UTS ([`uts_c`]), when its sources are at hand.
//!
//! Every run is a child process of the benchmark binary ([`child`]), so its
//! CPU time and peak resident set are its own; the fastest of N runs counts;
//! every run's answer is checked. [`suite`] writes the table as markdown and
//! JSON. This crate is not published: rayon and chili are dependencies of the
//! comparison only, never of treelb.

pub mod child;
pub mod forkjoin;
pub mod machine;
pub mod suite;
pub mod uts_c;
pub mod workload;
