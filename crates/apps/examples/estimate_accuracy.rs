//! How close does Knuth's estimate ([`treelb::search::estimate`]) come to
//! the real size of a branch-and-bound tree? For each workload: the tree a
//! sequential search expands once the optimum is known, searched, then
//! estimated from random probes of the same tree for `--secs` seconds.
//!
//! ```text
//! cargo run --release -p treelb-apps --example estimate_accuracy -- [--secs S] [--seed N] WORKLOAD...
//!   clique:FILE:K          the proof that FILE has no clique of K vertices (K = ω + 1)
//!   knapsack:CLASS:N:SEED  a generated instance (R = 1000, capacity half the weight)
//!   tsp:FILE               a TSPLIB file
//! ```
//!
//! The knapsack and the TSP are searched once to find the optimum; the
//! measured tree is then that of a search seeded with it (the tree of the
//! proof), and the probes see the same incumbent. Prints a Markdown table
//! whose last column says whether the real size lies within three standard
//! errors of the estimate.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use treelb::rng::SplitMix64;
use treelb::search::Search;
use treelb::search::estimate::{TreeEstimate, probe};
use treelb_apps::bnb::BnbStats;
use treelb_apps::clique::{CliqueSearch, dimacs};
use treelb_apps::knapsack::{Class, Knapsack, Spec};
use treelb_apps::tsp::{AscentParams, TspSearch, tsplib};

/// The real tree: nodes and seconds of a sequential search.
fn search<S: Search<Output = BnbStats>>(s: &S) -> (u64, f64) {
    let clock = Instant::now();
    let (stats, _) = treelb::seq::run_search(s);
    (stats.nodes(), clock.elapsed().as_secs_f64())
}

/// Probes `s` for `secs` seconds.
fn estimate<S: Search>(s: &S, secs: f64, seed: u64) -> TreeEstimate {
    let mut rng = SplitMix64::new(seed);
    let mut e = TreeEstimate::default();
    let mut acc = S::Output::default();
    let clock = Instant::now();
    while clock.elapsed() < Duration::from_secs_f64(secs) {
        e.add(&probe(s, &mut acc, |k| rng.below(k as u64) as usize));
        if e.probes() == 1 && e.max_depth == 0 {
            break; // a root without children is the whole tree
        }
    }
    e
}

fn row(name: &str, (nodes, secs): (u64, f64), e: &TreeEstimate) -> String {
    let (mean, err) = (e.nodes.mean(), e.nodes.std_error());
    let within = (mean - nodes as f64).abs() <= 3.0 * err;
    format!(
        "| {name} | {nodes} | {mean:.0} ± {:.1} % | {:.2} | {secs:.3} | {:.3} ± {:.1} % | {:.2} | {} | {} |",
        100.0 * e.nodes.relative_error(),
        mean / nodes as f64,
        e.seconds.mean(),
        100.0 * e.seconds.relative_error(),
        e.seconds.mean() / secs,
        e.probes(),
        if within { "yes" } else { "no" }
    )
}

fn run(workload: &str, secs: f64, seed: u64) -> Result<String, String> {
    let parts: Vec<&str> = workload.split(':').collect();
    match parts[..] {
        ["clique", file, k] => {
            let g = dimacs::read_file(file).map_err(|e| format!("{file}: {e}"))?;
            let k: u32 = k.parse().map_err(|e| format!("{workload}: K: {e}"))?;
            let real = search(&CliqueSearch::k_clique(&g, k));
            let e = estimate(&CliqueSearch::k_clique(&g, k), secs, seed);
            let name = std::path::Path::new(file).file_stem().map_or(file.into(), |s| s.to_string_lossy());
            Ok(row(&format!("clique {name}, k = {k}"), real, &e))
        }
        ["knapsack", class, n, instance_seed] => {
            let class: Class = class.parse().map_err(|e| format!("{workload}: {e}"))?;
            let n = n.parse().map_err(|e| format!("{workload}: N: {e}"))?;
            let instance_seed = instance_seed.parse().map_err(|e| format!("{workload}: SEED: {e}"))?;
            let spec = Spec { class, n, range: 1000, seed: instance_seed, h: 1, series: 1 };
            let instance = spec.generate();
            let first = Knapsack::new(&instance);
            treelb::seq::run_search(&first);
            let (optimum, items) = first.incumbent.into_best().ok_or("no packing")?;
            let seeded = || {
                let s = Knapsack::new(&instance);
                s.incumbent.offer(optimum, || items.clone());
                s
            };
            let real = search(&seeded());
            let e = estimate(&seeded(), secs, seed);
            Ok(row(&format!("knapsack {class} n = {n} seed {instance_seed}"), real, &e))
        }
        ["tsp", file] => {
            let tsp = tsplib::read_file(file).map_err(|e| format!("{file}: {e}"))?;
            let make = || TspSearch::with_params(&tsp, AscentParams::for_n(tsp.n()), true);
            let first = make();
            treelb::seq::run_search(&first);
            let (length, tour) = first.incumbent.into_best().ok_or("no tour")?;
            let seeded = || {
                let s = make();
                s.incumbent.offer(length, || tour.clone());
                s
            };
            let real = search(&seeded());
            let e = estimate(&seeded(), secs, seed);
            Ok(row(&format!("tsp {}", tsp.name), real, &e))
        }
        _ => Err(format!("{workload}: expected clique:FILE:K, knapsack:CLASS:N:SEED or tsp:FILE")),
    }
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut secs, mut seed, mut workloads) = (10.0, 1, Vec::new());
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        let parsed = match a.as_str() {
            "--secs" => {
                value("--secs").and_then(|v| v.parse().map_err(|e| format!("--secs: {e}"))).map(|v| secs = v)
            }
            "--seed" => {
                value("--seed").and_then(|v| v.parse().map_err(|e| format!("--seed: {e}"))).map(|v| seed = v)
            }
            _ => {
                workloads.push(a);
                Ok(())
            }
        };
        if let Err(e) = parsed {
            eprintln!("estimate_accuracy: {e}");
            return ExitCode::from(2);
        }
    }
    println!(
        "| tree | nodes searched | estimate | estimate / nodes | search s | estimated s | estimated / search | probes | within 3 s.e. |"
    );
    println!("|---|--:|--:|--:|--:|--:|--:|--:|---|");
    for w in &workloads {
        match run(w, secs, seed) {
            Ok(line) => println!("{line}"),
            Err(e) => {
                eprintln!("estimate_accuracy: {e}");
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::SUCCESS
}
