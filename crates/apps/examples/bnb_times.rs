//! Sequential and parallel times of the branch-and-bound applications on the
//! shared benchmark instances.
//!
//! ```text
//! cargo run --release -p treelb-apps --example bnb_times -- clique brock200_2 keller4
//! ```
//!
//! Prints, per instance, the optimum, the sequential time and nodes, and the
//! time and nodes on P = 2 threads.

use std::path::PathBuf;
use std::time::Instant;

use treelb::search::{DfsWork, SplitPolicy};
use treelb_apps::clique::{CliqueSearch, dimacs};
use treelb_apps::knapsack::{Class, Knapsack, Spec};
use treelb_apps::tsp::{TspSearch, tsplib};
use treelb_threads::{Config, run};

fn instances() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/instances")
}

fn clique(name: &str, threads: &[usize]) {
    let g = dimacs::read_file(instances().join("clique").join(format!("{name}.clq"))).expect("readable");
    let search = CliqueSearch::max_clique(&g);
    let start = Instant::now();
    let (stats, _) = treelb::seq::run_search(&search);
    let secs = start.elapsed().as_secs_f64();
    let (omega, c) = search.incumbent.into_best().unwrap();
    assert!(g.is_clique(&c));
    println!("{name:<12} ω = {omega:<3} seq  {secs:>8.3} s  {stats}");
    for &p in threads {
        let search = CliqueSearch::max_clique(&g);
        let config = Config { threads: p, ..Config::default() };
        let outcome = run(DfsWork::new(&search, SplitPolicy::OldestHalf), &config).unwrap();
        let (o, _) = search.incumbent.into_best().unwrap();
        assert_eq!(o, omega);
        println!("{:<12} P = {p:<3} {:>8.3} s  {}", "", outcome.stats.wall.as_secs_f64(), outcome.output);
    }
}

/// `NAME` is `CLASS:N:R:SEED`, e.g. `strong:60:1000:1`.
fn knapsack(name: &str, threads: &[usize]) {
    let f: Vec<&str> = name.split(':').collect();
    let spec = Spec::new(
        f[0].parse::<Class>().unwrap(),
        f[1].parse().unwrap(),
        f[2].parse().unwrap(),
        f[3].parse().unwrap(),
    );
    let instance = spec.generate();
    let search = Knapsack::new(&instance);
    let start = Instant::now();
    let (stats, _) = treelb::seq::run_search(&search);
    let secs = start.elapsed().as_secs_f64();
    let (best, items) = search.incumbent.into_best().unwrap();
    assert_eq!(instance.profit_of(&items), Some(best));
    println!("{name:<22} z = {best:<9} seq  {secs:>8.3} s  {stats}");
    for &p in threads {
        let search = Knapsack::new(&instance);
        let config = Config { threads: p, ..Config::default() };
        let outcome = run(DfsWork::new(&search, SplitPolicy::OldestHalf), &config).unwrap();
        let (o, _) = search.incumbent.into_best().unwrap();
        assert_eq!(o, best);
        println!(
            "{:<22} P = {p:<3} {:>8.3} s  {}  per PE {:?}",
            "",
            outcome.stats.wall.as_secs_f64(),
            outcome.output,
            outcome.stats.pes.iter().map(|p| (p.work_units, p.busy.as_secs_f64())).collect::<Vec<_>>()
        );
    }
}

fn tsp(name: &str, threads: &[usize]) {
    let dir = instances().join("tsp");
    let tsp = tsplib::read_file(dir.join(format!("{name}.tsp"))).expect("readable");
    if let Ok(tour) = tsplib::read_tour_file(dir.join(format!("{name}.opt.tour"))) {
        println!("{name:<12} published tour length {:?}", tsp.tour_length(&tour));
    }
    let start = Instant::now();
    let seeded = std::env::var("UNSEEDED").is_err();
    let search = TspSearch::with_params(&tsp, treelb_apps::tsp::AscentParams::for_n(tsp.n()), seeded);
    let heur = search.incumbent.best();
    let setup = start.elapsed().as_secs_f64();
    let (stats, _) = treelb::seq::run_search(&search);
    let secs = start.elapsed().as_secs_f64();
    let (best, tour) = search.incumbent.into_best().unwrap();
    assert_eq!(tsp.tour_length(&tour), Some(best));
    println!("{name:<12} opt = {best:<7} seq  {secs:>8.3} s (heuristic {heur:?} in {setup:.3} s)  {stats}");
    for &p in threads {
        let search = TspSearch::with_params(&tsp, treelb_apps::tsp::AscentParams::for_n(tsp.n()), seeded);
        let config = Config { threads: p, budget: 1, ..Config::default() };
        let outcome = run(DfsWork::new(&search, SplitPolicy::OldestHalf), &config).unwrap();
        let (o, _) = search.incumbent.into_best().unwrap();
        assert_eq!(o, best);
        println!("{:<12} P = {p:<3} {:>8.3} s  {}", "", outcome.stats.wall.as_secs_f64(), outcome.output);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (app, names) = args.split_first().expect("usage: bnb_times APP INSTANCE...");
    let threads = [2];
    for name in names {
        match app.as_str() {
            "clique" => clique(name, &threads),
            "knapsack" => knapsack(name, &threads),
            "tsp" => tsp(name, &threads),
            other => panic!("unknown app {other}"),
        }
    }
}
