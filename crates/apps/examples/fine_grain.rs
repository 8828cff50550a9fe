//! One timed run of one workload on one engine, for the fine-grain
//! benchmark of `docs/benchmarks/2026-11-24-fine-grain/` (its `run.py` runs
//! this program once per measurement, alternating the engines).
//!
//! ```text
//! cargo build --release -p treelb-apps --example fine_grain
//! target/release/examples/fine_grain ENGINE WORKLOAD
//! ```
//!
//! ENGINE is `seq` (`treelb::seq::run_search`: the DFS loop over the
//! application's `expand`, no runtime), `treelb-1` or `treelb-2`
//! (`treelb_threads::run` with 1 or 2 PEs, default configuration),
//! `kernel` (N-Queens only: `NQueens::count_sequential`, the bitboard
//! kernel alone; `kernel-portable`, `kernel-bmi`, `kernel-avx512`: the same
//! with that compilation of the kernel, see `nqueens::Kernel`), or `seq-node`, `treelb-node-1`, `treelb-node-2` (N-Queens
//! only: every node its own expansion, `with_bulk_rows(0)`). WORKLOAD is
//! `nqueens:N` (`nqueens:N:mirror`: half of the mirror symmetry, see
//! `NQueens::with_mirror`), a UTS sample tree (`T1L`), `clique:NAME` (a DIMACS file of
//! `../shared/instances/clique/`) or `knapsack:CLASS:N:R:SEED`.
//!
//! `FINE_GRAIN_BULK_ROWS=R` in the environment sets N-Queens'
//! `with_bulk_rows(R)` (the default is `DEFAULT_BULK_ROWS`).
//!
//! Prints one line: `ENGINE WORKLOAD WALL_SECONDS NODES ANSWER`, where the
//! wall time covers the search alone (the instance is built before the
//! clock starts) and NODES counts the tree's nodes (UTS, N-Queens) or the
//! expanded nodes (branch and bound). Published answers are checked; a
//! mismatch exits with code 1, bad arguments with code 2.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use treelb::search::{DfsWork, Search, SplitPolicy};
use treelb_apps::clique::{CliqueSearch, dimacs};
use treelb_apps::knapsack::{Class, Knapsack, Spec};
use treelb_apps::nqueens::{Kernel, NQueens};
use treelb_apps::uts::{SampleTree, Uts};
use treelb_threads::{Config, run};

/// The shared benchmark instances, beside the checkout.
fn instances() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/instances")
}

/// Runs `search` on `engine` (`seq`, `treelb-1`, `treelb-2`); returns the
/// wall time and the output.
fn timed<S: Search>(search: &S, engine: &str) -> Result<(f64, S::Output), String>
where
    S::Node: Clone,
{
    let start = Instant::now();
    let output = match engine {
        "seq" | "seq-node" => treelb::seq::run_search(search).0,
        "treelb-1" | "treelb-2" | "treelb-node-1" | "treelb-node-2" => {
            let threads = if engine.ends_with('1') { 1 } else { 2 };
            let config = Config { threads, ..Config::default() };
            run(DfsWork::new(search, SplitPolicy::default()), &config).map_err(|e| e.to_string())?.output
        }
        _ => return Err(format!("unknown engine `{engine}` for this workload")),
    };
    Ok((start.elapsed().as_secs_f64(), output))
}

/// The measurement: wall seconds, nodes, the answer in words, and whether
/// it matches the published one (where there is one).
fn measure(engine: &str, workload: &str) -> Result<(f64, u64, String, bool), String> {
    if let Some(n) = workload.strip_prefix("nqueens:") {
        let (n, mirror) = n.strip_suffix(":mirror").map_or((n, false), |n| (n, true));
        let n = n.parse().map_err(|_| format!("{workload}: the board size is not a number"))?;
        let mut problem = NQueens::new(n).map_err(|e| e.to_string())?.with_mirror(mirror);
        if engine.contains("node") {
            problem = problem.with_bulk_rows(0);
        } else if let Ok(rows) = std::env::var("FINE_GRAIN_BULK_ROWS") {
            let rows = rows.parse().map_err(|_| format!("FINE_GRAIN_BULK_ROWS={rows}: not a number"))?;
            problem = problem.with_bulk_rows(rows);
        }
        if let Some(name) = engine.strip_prefix("kernel-") {
            let kernel = Kernel::ALL
                .into_iter()
                .find(|k| k.name() == name)
                .ok_or_else(|| format!("{engine}: no such kernel (portable, bmi, avx512)"))?;
            problem = problem
                .with_kernel(kernel)
                .ok_or_else(|| format!("{engine}: this processor cannot run the kernel"))?;
        }
        let (secs, result) = if engine.starts_with("kernel") {
            let start = Instant::now();
            let result = problem.count_sequential();
            (start.elapsed().as_secs_f64(), result)
        } else {
            timed(&problem, engine)?
        };
        let ok = NQueens::known_solutions(n).is_none_or(|s| s == result.solutions);
        return Ok((secs, result.nodes, format!("{}-solutions", result.solutions), ok));
    }
    if let Some(name) = workload.strip_prefix("clique:") {
        let path = instances().join("clique").join(format!("{name}.clq"));
        let graph = dimacs::read_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let search = CliqueSearch::max_clique(&graph);
        let (secs, stats) = timed(&search, engine)?;
        let best = search.incumbent.best().map_or("none".to_owned(), |b| b.to_string());
        return Ok((secs, stats.branched, format!("optimum-{best}"), true));
    }
    if let Some(spec) = workload.strip_prefix("knapsack:") {
        let bad = || format!("{workload}: expected knapsack:CLASS:N:R:SEED");
        let f: Vec<&str> = spec.split(':').collect();
        let [class, n, range, seed] = f[..] else { return Err(bad()) };
        let class: Class = class.parse().map_err(|_| bad())?;
        let spec = Spec::new(
            class,
            n.parse().map_err(|_| bad())?,
            range.parse().map_err(|_| bad())?,
            seed.parse().map_err(|_| bad())?,
        );
        let search = Knapsack::new(&spec.generate());
        let (secs, stats) = timed(&search, engine)?;
        let best = search.incumbent.best().map_or("none".to_owned(), |b| b.to_string());
        return Ok((secs, stats.branched, format!("optimum-{best}"), true));
    }
    let tree = SampleTree::find(workload).ok_or_else(|| format!("unknown workload `{workload}`"))?;
    let uts = Uts::new(tree.params()).map_err(|e| e.to_string())?;
    let (secs, result) = timed(&uts, engine)?;
    Ok((secs, result.nodes, format!("{}-leaves", result.leaves), tree.matches(&result)))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [engine, workload] = &args[..] else {
        eprintln!("fine_grain: expected ENGINE WORKLOAD (see the program's documentation)");
        return ExitCode::from(2);
    };
    match measure(engine, workload) {
        Ok((secs, nodes, answer, ok)) => {
            println!("{engine} {workload} {secs:.6} {nodes} {answer}");
            if ok {
                ExitCode::SUCCESS
            } else {
                eprintln!("fine_grain: {workload}: {answer} is not the published answer");
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("fine_grain: {e}");
            ExitCode::from(2)
        }
    }
}
