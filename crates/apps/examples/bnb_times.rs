//! Sequential and parallel times of the branch-and-bound applications: wall
//! time, expanded nodes, speedup, and time per node against the sequential
//! solver on the same node code.
//!
//! ```text
//! cargo build --release -p treelb-apps --example bnb_times
//! nice -n -20 target/release/examples/bnb_times              # the whole suite, a Markdown table
//! target/release/examples/bnb_times --repeat 1 --threads 4 clique brock200_2 keller4
//! target/release/examples/bnb_times knapsack strongly-correlated:60:1000:1 tsp att48/unseeded random:80:1
//! ```
//!
//! With no instances, runs the suite of `docs/benchmarks/2026-11-22-bnb.md`:
//! maximum clique on brock200_1, brock200_4, keller4 and hamming8-4; a
//! strongly correlated knapsack (n = 90, seconds sequentially); TSP on
//! bays29, att48 and berlin52 (with the initial tour, as `treelb tsp` runs
//! them), att48 without it, and 100 and 130 random points (about 25 s
//! sequentially). Otherwise `APP NAME...`
//! groups, where APP is `clique` (a DIMACS file of
//! `../shared/instances/clique/`), `knapsack` (`CLASS:N:R:SEED`, a generated
//! instance) or `tsp` (a TSPLIB file of `../shared/instances/tsp/`, or
//! `random:N:SEED`, either with `/unseeded`).
//!
//! Every figure is the fastest of `--repeat` runs (default 3); the node
//! counts are those of that run (a parallel run's count varies from run to
//! run: search anomalies). The search is set up (instance read, initial
//! incumbent found) outside the timed region, the same for both. The
//! optimum is checked against the sequential one and its witness verified
//! in every run.

use std::path::PathBuf;
use std::time::Instant;

use treelb::RunSpec;
use treelb::Search;
use treelb::search::{DfsWork, SplitPolicy};
use treelb_apps::bnb::BnbStats;
use treelb_apps::clique::{CliqueSearch, dimacs};
use treelb_apps::knapsack::{Class, Knapsack, Spec};
use treelb_apps::tsp::{AscentParams, Tsp, TspSearch, tsplib};
use treelb_threads::{Config, DEFAULT_BUDGET, run};

/// The suite run when no instances are given.
const SUITE: [(&str, &str); 11] = [
    ("clique", "brock200_1"),
    ("clique", "brock200_4"),
    ("clique", "keller4"),
    ("clique", "hamming8-4"),
    ("knapsack", "strongly-correlated:90:1000:4"),
    ("tsp", "bays29"),
    ("tsp", "att48"),
    ("tsp", "berlin52"),
    ("tsp", "att48/unseeded"),
    ("tsp", "random:100:1"),
    ("tsp", "random:130:1"),
];

fn instances() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/instances")
}

/// One timed run.
#[derive(Clone, Copy, Debug)]
struct Run {
    wall: f64,
    /// Σ busy time over the PEs (the wall time when sequential).
    busy: f64,
    stats: BnbStats,
}

impl Run {
    /// Time per expanded node, in microseconds, of busy time.
    fn micros_per_node(&self) -> f64 {
        1e6 * self.busy / self.stats.branched.max(1) as f64
    }
}

/// A measured instance.
struct Row {
    app: &'static str,
    name: String,
    optimum: i64,
    threads: usize,
    seq: Run,
    par: Run,
}

/// Times `repeat` sequential runs and `repeat` runs on `threads` PEs of the
/// search `make` builds, checking every run's optimum with `check` (which
/// verifies the witness and returns the value).
fn measure<S>(
    make: impl Fn() -> S,
    check: impl Fn(S) -> i64,
    threads: usize,
    budget: u64,
    repeat: usize,
) -> (i64, Run, Run)
where
    S: Search<Output = BnbStats>,
    S::Node: Clone,
{
    let mut optimum = None;
    let mut agree = |value: i64| match optimum {
        None => optimum = Some(value),
        Some(o) => assert_eq!(value, o, "a run found another optimum"),
    };
    let fastest = |a: Option<Run>, b: Run| Some(a.filter(|a| a.wall <= b.wall).unwrap_or(b));
    let mut seq: Option<Run> = None;
    for _ in 0..repeat {
        let search = make();
        let start = Instant::now();
        let (stats, _) = treelb::seq::run_search(&search);
        let wall = start.elapsed().as_secs_f64();
        agree(check(search));
        seq = fastest(seq, Run { wall, busy: wall, stats });
    }
    let mut par: Option<Run> = None;
    for _ in 0..repeat {
        let search = make();
        let config = Config { threads, spec: RunSpec { budget, ..RunSpec::default() }, ..Config::default() };
        let outcome = run(DfsWork::new(&search, SplitPolicy::default()), &config).expect("a valid config");
        let busy = outcome.stats.pes.iter().map(|p| p.busy.as_secs_f64()).sum();
        let run = Run { wall: outcome.stats.wall.as_secs_f64(), busy, stats: outcome.output };
        agree(check(search));
        par = fastest(par, run);
    }
    (optimum.expect("at least one run"), seq.expect("repeat ≥ 1"), par.expect("repeat ≥ 1"))
}

fn clique(name: &str, threads: usize, repeat: usize) -> Row {
    let path = instances().join("clique").join(format!("{name}.clq"));
    let g = dimacs::read_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let check = |s: CliqueSearch| {
        let (omega, c) = s.incumbent.into_best().expect("a clique");
        assert!(g.is_clique(&c) && c.len() as i64 == omega, "the witness is a clique of ω vertices");
        omega
    };
    let (optimum, seq, par) =
        measure(|| CliqueSearch::max_clique(&g), check, threads, DEFAULT_BUDGET, repeat);
    Row { app: "clique", name: name.to_owned(), optimum, threads, seq, par }
}

/// `NAME` is `CLASS:N:R:SEED`, e.g. `strongly-correlated:60:1000:1`.
fn knapsack(name: &str, threads: usize, repeat: usize) -> Row {
    let f: Vec<&str> = name.split(':').collect();
    assert_eq!(f.len(), 4, "a knapsack instance is CLASS:N:R:SEED, got {name}");
    let spec = Spec::new(
        f[0].parse::<Class>().expect("a class"),
        f[1].parse().expect("N"),
        f[2].parse().expect("R"),
        f[3].parse().expect("SEED"),
    );
    let instance = spec.generate();
    let check = |s: Knapsack| {
        let (best, items) = s.incumbent.into_best().expect("a packing");
        assert_eq!(instance.profit_of(&items), Some(best), "the packing achieves the profit");
        best
    };
    let (optimum, seq, par) = measure(|| Knapsack::new(&instance), check, threads, DEFAULT_BUDGET, repeat);
    Row { app: "knapsack", name: name.to_owned(), optimum, threads, seq, par }
}

/// `NAME` is a TSPLIB file's name (`att48`), `random:N:SEED` (N random
/// points in [0, 1000]², as `treelb tsp --random N --instance-seed SEED`),
/// either followed by `/unseeded` to start without the initial tour.
fn tsp(name: &str, threads: usize, repeat: usize) -> Row {
    let (instance, seeded) = match name.strip_suffix("/unseeded") {
        Some(instance) => (instance, false),
        None => (name, true),
    };
    let tsp = match instance.strip_prefix("random:") {
        Some(spec) => {
            let (n, seed) = spec.split_once(':').expect("random:N:SEED");
            Tsp::random_euclidean(n.parse().expect("N"), 1000.0, seed.parse().expect("SEED"))
        }
        None => {
            let path = instances().join("tsp").join(format!("{instance}.tsp"));
            tsplib::read_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        }
    };
    let check = |s: TspSearch| {
        let (length, tour) = s.incumbent.into_best().expect("a tour");
        assert_eq!(tsp.tour_length(&tour), Some(length), "the tour has the reported length");
        length
    };
    let make = || TspSearch::with_params(&tsp, AscentParams::for_n(tsp.n()), seeded);
    // A node is a subgradient ascent: answer requests after every node.
    let (optimum, seq, par) = measure(make, check, threads, 1, repeat);
    Row { app: "tsp", name: name.to_owned(), optimum, threads, seq, par }
}

/// The machine: CPU model, cores, compiler.
fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let rustc = std::process::Command::new("rustc")
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| "rustc (unknown version)".to_owned());
    format!("{model} · {cores} cores · {rustc}")
}

fn print_header(repeat: usize) {
    println!("{} · fastest of {repeat} runs", machine());
    println!();
    println!(
        "| app | instance | optimum | seq s | seq expanded | P | P s | P expanded | speedup | expanded P/seq \
         | µs/node seq | µs/node P |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
}

fn print_row(r: &Row) {
    println!(
        "| {} | {} | {} | {:.3} | {} | {} | {:.3} | {} | {:.2} | {:.3} | {:.2} | {:.2} |",
        r.app,
        r.name,
        r.optimum,
        r.seq.wall,
        r.seq.stats.branched,
        r.threads,
        r.par.wall,
        r.par.stats.branched,
        r.seq.wall / r.par.wall,
        r.par.stats.branched as f64 / r.seq.stats.branched.max(1) as f64,
        r.seq.micros_per_node(),
        r.par.micros_per_node(),
    );
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut option = |flag: &str| -> Option<usize> {
        let i = args.iter().position(|a| a == flag)?;
        let value = args.get(i + 1).unwrap_or_else(|| panic!("{flag} takes a number")).parse();
        args.drain(i..i + 2);
        Some(value.unwrap_or_else(|_| panic!("{flag} takes a number")))
    };
    let repeat = option("--repeat").unwrap_or(3).max(1);
    let threads = option("--threads").unwrap_or_else(|| Config::default().threads).max(1);

    let mut work: Vec<(String, String)> = Vec::new();
    let mut app = None;
    for a in args {
        match a.as_str() {
            "clique" | "knapsack" | "tsp" => app = Some(a),
            name => work.push((app.clone().expect("usage: bnb_times [APP NAME...]..."), name.to_owned())),
        }
    }
    if work.is_empty() {
        work = SUITE.iter().map(|&(a, n)| (a.to_owned(), n.to_owned())).collect();
    }
    print_header(repeat);
    for (app, name) in &work {
        let row = match app.as_str() {
            "clique" => clique(name, threads, repeat),
            "knapsack" => knapsack(name, threads, repeat),
            _ => tsp(name, threads, repeat),
        };
        print_row(&row);
    }
}
