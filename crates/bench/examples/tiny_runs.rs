//! Tiny searches in a loop: runs per second at P = 1 and P = 2 under the
//! sequential baseline, treelb on its persistent pool, treelb with a pool
//! started per run (threads spawned and joined every run, as before the
//! pool), and rayon's `join` on the same search; overhead per run in µs =
//! 1/rate − the sequential time, with a computed verdict against ≤ 50 µs
//! at P = 2.
//!
//! ```text
//! cargo run --release -p treelb-bench --example tiny_runs -- [--rounds N] [--seconds S] [--out DIR]
//! ```
//!
//! Each round runs every engine on every search for about S seconds (default
//! 0.2) in turn, so that a change in the machine's load hits every engine
//! alike; the rate of an engine is the best of the N rounds (default 5).
//! Every run's answer is checked against the sequential one. With `--out`,
//! writes `results.md` and `results.json` there.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use treelb::search::{DfsWork, Search, SplitPolicy};
use treelb::seq;
use treelb_apps::clique::{CliqueSearch, Graph};
use treelb_apps::nqueens::NQueens;
use treelb_apps::uts::{Params, Uts};
use treelb_bench::forkjoin::{Cutoff, rayon_search};
use treelb_threads::{Config, Pool};

/// The goal: overhead per run at P = 2.
const GOAL_US: f64 = 50.0;

const ENGINES: [&str; 4] = ["seq", "pool", "spawn-per-run", "rayon-join"];

/// One run of a search under an engine at P, returning its exact answer as
/// text.
type OneRun = Box<dyn Fn(&str, usize, &rayon::ThreadPool) -> String>;

/// A tiny search: a name, and how to run it.
struct Tiny {
    name: &'static str,
    run: OneRun,
}

fn engine<S>(search: &S, engine: &str, p: usize, rayon: &rayon::ThreadPool) -> S::Output
where
    S: Search + Sync,
    S::Node: Clone + Send + Sync,
    S::Output: Send,
{
    match engine {
        "seq" => seq::run_search(search).0,
        "pool" => {
            treelb_threads::run(DfsWork::new(search, SplitPolicy::default()), &Config::new(p)).unwrap().output
        }
        "spawn-per-run" => {
            Pool::new(p).run(DfsWork::new(search, SplitPolicy::default()), &Config::new(p)).unwrap().output
        }
        "rayon-join" => rayon.install(|| rayon_search(search, Cutoff::None)),
        _ => unreachable!("unknown engine {engine}"),
    }
}

fn tiny_searches() -> Vec<Tiny> {
    let queens = NQueens::new(8).expect("8 queens");
    let t1 = Uts::new(
        Params::from_uts_args(["-t", "1", "-a", "3", "-d", "4", "-b", "4", "-r", "19"]).expect("T1"),
    )
    .expect("T1 cut to depth 4");
    let graph = Graph::random(30, 0.5, 1);
    vec![
        Tiny {
            name: "N-Queens 8",
            run: Box::new(move |e, p, r| {
                let out = engine(&queens, e, p, r);
                format!("{} solutions, {} nodes", out.solutions, out.nodes)
            }),
        },
        Tiny {
            name: "UTS T1 cut to depth 4",
            run: Box::new(move |e, p, r| {
                let out = engine(&t1, e, p, r);
                format!("{} nodes, {} leaves, depth {}", out.nodes, out.leaves, out.max_depth)
            }),
        },
        Tiny {
            name: "max clique G(30, 0.5)",
            // A new search every run: the incumbent lives in the search.
            run: Box::new(move |e, p, r| {
                let search = CliqueSearch::max_clique(&graph);
                engine(&search, e, p, r);
                format!("clique of {}", search.incumbent.best().unwrap_or(0))
            }),
        },
    ]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut rounds, mut seconds, mut out) = (5usize, 0.2f64, None);
    while let Some(a) = args.next() {
        let mut value = |what: &str| {
            args.next().unwrap_or_else(|| {
                eprintln!("tiny_runs: {a} needs {what}");
                std::process::exit(2)
            })
        };
        match a.as_str() {
            "--rounds" => rounds = value("a number").parse().unwrap_or(0),
            "--seconds" => seconds = value("a number").parse().unwrap_or(0.0),
            "--out" => out = Some(value("a directory")),
            _ => {
                eprintln!(
                    "tiny_runs: unknown argument `{a}` (usage: tiny_runs [--rounds N] [--seconds S] [--out DIR])"
                );
                std::process::exit(2)
            }
        }
    }
    if rounds == 0 || seconds <= 0.0 {
        eprintln!("tiny_runs: --rounds and --seconds must be positive");
        std::process::exit(2);
    }
    let load_before = one_minute_load();
    let others = treelb_bench::host::OthersMeter::start();
    let started = Instant::now();
    let searches = tiny_searches();
    let ps = [1usize, 2];
    let rayons: Vec<rayon::ThreadPool> =
        ps.iter().map(|&p| rayon::ThreadPoolBuilder::new().num_threads(p).build().unwrap()).collect();
    // best[search][p][engine]: runs per second; runs[...]: how many ran.
    let mut best = vec![vec![[0f64; ENGINES.len()]; ps.len()]; searches.len()];
    let mut answers = Vec::new();
    for tiny in &searches {
        answers.push((tiny.run)("seq", 1, &rayons[0]));
    }
    for round in 0..rounds {
        for (s, tiny) in searches.iter().enumerate() {
            for (i, &p) in ps.iter().enumerate() {
                // Rotate the engines' order each round.
                for k in 0..ENGINES.len() {
                    let e = (k + round) % ENGINES.len();
                    let name = ENGINES[e];
                    let t = Instant::now();
                    let mut n = 0u64;
                    while t.elapsed() < Duration::from_secs_f64(seconds) {
                        let answer = (tiny.run)(name, p, &rayons[i]);
                        assert_eq!(answer, answers[s], "{} under {name} at P = {p}", tiny.name);
                        n += 1;
                    }
                    let rate = n as f64 / t.elapsed().as_secs_f64();
                    best[s][i][e] = best[s][i][e].max(rate);
                }
            }
        }
        eprintln!("tiny_runs: round {} of {rounds} done", round + 1);
    }
    let load_after = one_minute_load();
    let others_share = others.and_then(|m| m.share());
    let loaded = others_share.map_or(load_before > 1.5, |share| share >= treelb_bench::host::LOADED_SHARE);
    let mut md = String::new();
    let _ = writeln!(md, "# Tiny searches in a loop: the persistent pool against spawn-per-run and rayon\n");
    let _ = writeln!(
        md,
        "Measured with `cargo run --release -p treelb-bench --example tiny_runs -- --rounds {rounds} --seconds {seconds} --out DIR` \
         on a machine with {} cores; load average {:.1} before and {:.1} after ({:.0} s){}{}.\n",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        load_before,
        load_after,
        started.elapsed().as_secs_f64(),
        others_share
            .map_or(String::new(), |o| format!("; other processes took {:.1} % of the cores", 100.0 * o)),
        if loaded { ": the machine was loaded by other work, so the rates are lower bounds" } else { "" }
    );
    let _ = writeln!(
        md,
        "Rate: runs per second, the best of {rounds} rounds of {seconds} s each (engines alternate within a round). \
         Overhead per run = 1/rate − the sequential time of one run (the inverse of the best sequential rate, \
         which does not depend on P); below 0 at P = 2: faster than the sequential run. \
         Goal: ≤ {GOAL_US} µs of overhead at P = 2. Every run's answer was checked.\n"
    );
    let _ = writeln!(
        md,
        "| search | answer | P | seq runs/s | pool runs/s | spawn-per-run runs/s | rayon-join runs/s | pool overhead µs | spawn overhead µs | rayon overhead µs | verdict (pool, P = 2) |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|---|");
    let mut json = Vec::new();
    let mut met = 0;
    for (s, tiny) in searches.iter().enumerate() {
        for (i, &p) in ps.iter().enumerate() {
            let r = best[s][i];
            // The sequential engine does not depend on P: its best rate
            // over both rows.
            let seq_rate = best[s].iter().map(|row| row[0]).fold(0.0, f64::max);
            let seq_us = 1e6 / seq_rate;
            let over = |rate: f64| 1e6 / rate - seq_us;
            let verdict = if p == 2 {
                if over(r[1]) <= GOAL_US {
                    met += 1;
                    "met".to_owned()
                } else {
                    format!("not met (> {GOAL_US} µs)")
                }
            } else {
                "—".to_owned()
            };
            let _ = writeln!(
                md,
                "| {} | {} | {p} | {:.0} | {:.0} | {:.0} | {:.0} | {:.1} | {:.1} | {:.1} | {verdict} |",
                tiny.name,
                answers[s],
                r[0],
                r[1],
                r[2],
                r[3],
                over(r[1]),
                over(r[2]),
                over(r[3])
            );
            json.push(format!(
                "{{\"search\":\"{}\",\"answer\":\"{}\",\"p\":{p},\"seq\":{:.1},\"pool\":{:.1},\"spawn_per_run\":{:.1},\"rayon_join\":{:.1},\"sequential_us\":{:.2},\"pool_overhead_us\":{:.2},\"spawn_overhead_us\":{:.2},\"rayon_overhead_us\":{:.2}}}",
                tiny.name, answers[s], r[0], r[1], r[2], r[3], seq_us, over(r[1]), over(r[2]), over(r[3])
            ));
        }
    }
    let _ = writeln!(
        md,
        "\nGoal (≤ {GOAL_US} µs of overhead at P = 2) met on {met} of {} searches.",
        searches.len()
    );
    print!("{md}");
    if let Some(dir) = out {
        std::fs::create_dir_all(&dir).expect("create the output directory");
        std::fs::write(format!("{dir}/results.md"), &md).expect("write results.md");
        std::fs::write(format!("{dir}/results.json"), format!("[\n{}\n]\n", json.join(",\n")))
            .expect("write results.json");
    }
}

/// The 1-minute load average, or 0 where unknown.
fn one_minute_load() -> f64 {
    treelb_bench::host::load_average().map_or(0.0, |l| l[0])
}
