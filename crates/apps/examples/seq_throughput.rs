//! Sequential throughput of the applications: runs `treelb::seq::run_search`
//! and prints nodes per second.
//!
//! ```text
//! cargo run --release -p treelb-apps --example seq_throughput -- T1 T3 nqueens:14
//! ```
//!
//! Arguments are UTS sample tree names (checked against their published
//! statistics) or `nqueens:N`; without arguments, T1, T3 and `nqueens:14`.

use std::process::ExitCode;
use std::time::Instant;

use treelb_apps::nqueens::NQueens;
use treelb_apps::uts::{SampleTree, Uts};

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        args = ["T1", "T3", "nqueens:14"].map(String::from).to_vec();
    }
    let mut ok = true;
    for arg in &args {
        if let Some(n) = arg.strip_prefix("nqueens:") {
            let n = match n.parse().map_err(|e| format!("{e}")).and_then(|n| NQueens::new(n).map_err(|e| e.to_string())) {
                Ok(problem) => problem,
                Err(e) => {
                    eprintln!("{arg}: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let start = Instant::now();
            let (result, expanded) = treelb::seq::run_search(&n);
            let secs = start.elapsed().as_secs_f64();
            let known = NQueens::known_solutions(n.n());
            let verdict = match known {
                Some(k) if k == result.solutions => "ok",
                Some(_) => "MISMATCH",
                None => "unknown",
            };
            ok &= verdict != "MISMATCH";
            println!("{arg:>12}: {result} [{verdict}] in {secs:.3} s = {:.1} M nodes/s", expanded as f64 / secs / 1e6);
        } else {
            let Some(sample) = SampleTree::find(arg) else {
                eprintln!("{arg}: no such sample tree");
                return ExitCode::FAILURE;
            };
            let uts = Uts::new(sample.params()).expect("sample trees are valid");
            let start = Instant::now();
            let (result, expanded) = treelb::seq::run_search(&uts);
            let secs = start.elapsed().as_secs_f64();
            let verdict = if sample.matches(&result) { "ok" } else { "MISMATCH" };
            ok &= sample.matches(&result);
            println!("{arg:>12}: {result} [{verdict}] in {secs:.3} s = {:.1} M nodes/s", expanded as f64 / secs / 1e6);
        }
    }
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
