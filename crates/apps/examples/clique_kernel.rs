//! The sequential clique kernel alone, for instruction counts and per-node
//! costs: parses a DIMACS file, builds the search (greedy start included)
//! and runs `treelb::seq::run_search`, optionally stopping after a number of
//! expanded nodes (a proxy for instances that take minutes).
//!
//! ```text
//! cargo run --release -p treelb-apps --example clique_kernel -- FILE [--nodes N] [--repeat R]
//! valgrind --tool=callgrind target/release/examples/clique_kernel FILE --nodes 2000000
//! ```
//!
//! Prints the clique size found, the nodes branched and pruned, and the
//! time of the start (degeneracy order, bitset graph) and of the search
//! (which begins with the greedy clique's starts), fastest of `--repeat`
//! runs.

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use treelb::search::{Children, Search};
use treelb_apps::bnb::BnbStats;
use treelb_apps::clique::{CliqueNode, CliqueSearch, dimacs};

/// A clique search that expands at most `limit` nodes and drops the rest.
struct Limited<'a> {
    inner: &'a CliqueSearch,
    limit: u64,
    expanded: AtomicU64,
}

impl Search for Limited<'_> {
    type Node = CliqueNode;
    type Output = BnbStats;

    fn root(&self) -> CliqueNode {
        self.inner.root()
    }

    fn expand(&self, node: CliqueNode, acc: &mut BnbStats, children: &mut Children<'_, CliqueNode>) {
        if self.expanded.fetch_add(1, Ordering::Relaxed) < self.limit {
            self.inner.expand(node, acc, children);
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut file = None;
    let mut limit = u64::MAX;
    let mut repeat = 1;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            flag @ ("--nodes" | "--repeat") => {
                let Some(n) = it.next().and_then(|s| s.parse::<u64>().ok()) else {
                    eprintln!("clique_kernel: {flag} needs a number");
                    return ExitCode::from(2);
                };
                if flag == "--nodes" {
                    limit = n;
                } else {
                    repeat = n.max(1);
                }
            }
            f if f.starts_with("--") || file.is_some() => {
                eprintln!(
                    "clique_kernel: unexpected argument {f} (usage: clique_kernel FILE [--nodes N] [--repeat R])"
                );
                return ExitCode::from(2);
            }
            f => file = Some(f.to_string()),
        }
    }
    let Some(file) = file else {
        eprintln!("usage: clique_kernel FILE [--nodes N] [--repeat R]");
        return ExitCode::from(2);
    };
    let graph = match dimacs::read_file(&file) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{file}: {e}");
            return ExitCode::from(2);
        }
    };
    let (mut best_start, mut best_search) = (f64::MAX, f64::MAX);
    for _ in 0..repeat {
        let t0 = Instant::now();
        let search = CliqueSearch::max_clique(&graph);
        let start = t0.elapsed().as_secs_f64();
        let limited = Limited { inner: &search, limit, expanded: AtomicU64::new(0) };
        let t1 = Instant::now();
        let (stats, _) = treelb::seq::run_search(&limited);
        let secs = t1.elapsed().as_secs_f64();
        best_start = best_start.min(start);
        best_search = best_search.min(secs);
        let omega = search.incumbent.best().unwrap_or(0);
        println!(
            "{file}: best {omega} branched {} pruned {} start {:.2} ms search {:.2} ms (greedy starts {:.2} ms) ({:.2} µs/branched)",
            stats.branched,
            stats.pruned,
            start * 1e3,
            secs * 1e3,
            search.greedy_time().as_secs_f64() * 1e3,
            secs * 1e6 / stats.branched.max(1) as f64
        );
    }
    if repeat > 1 {
        println!("fastest: start {:.2} ms search {:.2} ms", best_start * 1e3, best_search * 1e3);
    }
    ExitCode::SUCCESS
}
