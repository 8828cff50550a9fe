//! Parallel alpha-beta on synthetic game trees: the sequential baseline, and
//! the threads runtime under random polling at P = 1 and P = 2 with and
//! without young brothers wait. Prints one line per configuration: time,
//! nodes, aborted nodes, speedup, efficiency and search overhead (nodes
//! over sequential nodes), totals over the seeds. Each tree is solved
//! exactly by null-window searches ([`treelb::game::solve`]), as Connect
//! Four is.
//!
//! `cargo run --release -p treelb-apps --example gametree_bench -- B D ORDERING SEEDS [P]`

use std::time::Instant;

use treelb::game::{SeqStats, YbwWork, alpha_beta, solve};
use treelb::{RunSpec, Strategy};
use treelb_apps::gametree::GameTree;
use treelb_threads::{Config, run};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: gametree_bench BRANCHING DEPTH ORDERING SEEDS [P]";
    if args.len() < 4 {
        eprintln!("{usage}");
        std::process::exit(2);
    }
    let num = |i: usize, what: &str| -> f64 {
        args[i].parse().unwrap_or_else(|_| {
            eprintln!("gametree_bench: {what} `{}` is not a number ({usage})", args[i]);
            std::process::exit(2)
        })
    };
    let (branching, depth, ordering, seeds) =
        (num(0, "BRANCHING") as u32, num(1, "DEPTH") as u32, num(2, "ORDERING"), num(3, "SEEDS") as u64);
    let p = if args.len() > 4 { num(4, "P") as usize } else { 2 };
    let trees: Vec<GameTree> =
        (0..seeds).map(|seed| GameTree { branching, depth, weight: 10, ordering, seed }).collect();
    println!(
        "synthetic trees: branching {branching}, depth {depth}, ordering {ordering}, {seeds} seeds, null-window solves"
    );
    println!(
        "{:<28} {:>10} {:>14} {:>12} {:>8} {:>8} {:>9}",
        "run", "time (s)", "nodes", "aborted", "speedup", "effic.", "overhead"
    );
    let start = Instant::now();
    let mut seq_nodes = 0;
    let mut values = Vec::new();
    for t in &trees {
        let b = t.bound();
        let mut stats = SeqStats::default();
        values.push(solve(-b, b, |lo, hi| alpha_beta(t, &t.root(), lo, hi, &mut stats)));
        seq_nodes += stats.nodes;
    }
    let seq_time = start.elapsed().as_secs_f64();
    println!(
        "{:<28} {seq_time:>10.3} {seq_nodes:>14} {:>12} {:>8} {:>8} {:>9}",
        "sequential alpha-beta", 0, "1.00", "1.00", "1.00"
    );
    for (pes, ybw) in [(1, true), (p, true), (p, false)] {
        let cfg = Config::with_spec(pes, RunSpec { strategy: Strategy::RandomPolling, ..RunSpec::default() });
        let start = Instant::now();
        let (mut nodes, mut aborted) = (0, 0);
        for (t, &v) in trees.iter().zip(&values) {
            let b = t.bound();
            let value = solve(-b, b, |lo, hi| {
                let out =
                    run(YbwWork::new(t, t.root(), lo, hi, ybw), &cfg).expect("a valid configuration").output;
                nodes += out.nodes;
                aborted += out.aborted_nodes;
                out.value.expect("the root's value")
            });
            assert_eq!(value, v, "the parallel value differs from the sequential one");
        }
        let time = start.elapsed().as_secs_f64();
        let speedup = seq_time / time;
        let name = format!("P = {pes}, {}", if ybw { "young brothers wait" } else { "no waiting" });
        println!(
            "{name:<28} {time:>10.3} {nodes:>14} {aborted:>12} {speedup:>8.2} {:>8.2} {:>9.2}",
            speedup / pes as f64,
            nodes as f64 / seq_nodes as f64
        );
    }
}
