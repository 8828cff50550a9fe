//! Sequential throughput of the applications: runs `treelb::seq::run_search`
//! and prints nodes per second.
//!
//! ```text
//! cargo run --release -p treelb-apps --example seq_throughput -- T1 T3 nqueens:14
//! ```
//!
//! Arguments are UTS sample tree names (checked against their published
//! statistics) or `nqueens:N`; without arguments, T1, T3 and `nqueens:14`.

use std::fmt::Display;
use std::process::ExitCode;
use std::time::Instant;

use treelb::Search;
use treelb_apps::nqueens::NQueens;
use treelb_apps::uts::{SampleTree, Uts};

/// Runs `search` sequentially, prints its result and throughput, and checks
/// the result; returns whether the check passed.
fn run<S: Search>(label: &str, search: &S, check: impl FnOnce(&S::Output) -> Option<bool>) -> bool
where
    S::Output: Display,
{
    let start = Instant::now();
    let (result, expanded) = treelb::seq::run_search(search);
    let secs = start.elapsed().as_secs_f64();
    let verdict = check(&result);
    let verdict_text = match verdict {
        Some(true) => "ok",
        Some(false) => "MISMATCH",
        None => "not published",
    };
    let rate = expanded as f64 / secs / 1e6;
    println!("{label:>12}: {result} [{verdict_text}] in {secs:.3} s = {rate:.1} M nodes/s");
    verdict != Some(false)
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        args = ["T1", "T3", "nqueens:14"].map(String::from).to_vec();
    }
    let mut ok = true;
    for arg in &args {
        if let Some(n) = arg.strip_prefix("nqueens:") {
            let Some(problem) = n.parse().ok().and_then(|n| NQueens::new(n).ok()) else {
                eprintln!("{arg}: expected nqueens:N with 1 <= N <= 32");
                return ExitCode::FAILURE;
            };
            let known = NQueens::known_solutions(problem.n());
            ok &= run(arg, &problem, |r| known.map(|k| k == r.solutions));
        } else {
            let Some(sample) = SampleTree::find(arg) else {
                eprintln!("{arg}: no such sample tree");
                return ExitCode::FAILURE;
            };
            let uts = Uts::new(sample.params()).expect("sample trees are valid");
            ok &= run(arg, &uts, |r| Some(sample.matches(r)));
        }
    }
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
