//! How short a run may be before its utilization stops meaning anything:
//! the cost of starting the PEs and of detecting termination, measured,
//! against the threshold [`treelb::MIN_MEASURED_WALL`] below which a report
//! says "too short to measure".
//!
//! ```text
//! cargo run --release -p treelb-bench --example short_runs -- [--repeat N] [--out DIR]
//! ```
//!
//! N-Queens of growing N (6 to 14; from microseconds to tens of
//! milliseconds) runs N times (default 200) at P = 2 on the persistent
//! pool. Per size: the median wall time, the median utilization (Σ CPU time
//! busy / (P · wall)) and the median fixed cost, wall − Σ busy / P (busy by
//! the wall clock): the time a PE held no work in a run whose work could
//! keep both busy (the start, the first steals, termination). The CPU time
//! also leaves out what the machine gave to others, which is not a cost of
//! starting or stopping. Also the cost of one read of the
//! thread's CPU clock, which every busy phase pays twice. The verdict: the
//! threshold holds if every size whose median wall reaches it has a fixed
//! cost of at most 1 % of its wall time. With `--out`, writes `results.md`
//! there.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use treelb::search::{DfsWork, SplitPolicy};
use treelb_apps::nqueens::NQueens;
use treelb_threads::Config;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut repeat, mut out) = (200usize, None);
    while let Some(a) = args.next() {
        match (a.as_str(), args.next()) {
            ("--repeat", Some(n)) => repeat = n.parse().unwrap_or(0),
            ("--out", Some(dir)) => out = Some(dir),
            _ => {
                eprintln!("short_runs: usage: short_runs [--repeat N] [--out DIR]");
                std::process::exit(2);
            }
        }
    }
    if repeat == 0 {
        eprintln!("short_runs: --repeat must be at least 1");
        std::process::exit(2);
    }
    // One read of the thread's CPU clock.
    let reads = 200_000;
    let t = Instant::now();
    let mut last = Duration::ZERO;
    for _ in 0..reads {
        last = last.max(cpu_time::ThreadTime::now().as_duration());
    }
    let read_ns = t.elapsed().as_nanos() as f64 / f64::from(reads);
    assert!(last > Duration::ZERO);

    let threshold = treelb::MIN_MEASURED_WALL.as_secs_f64();
    let mut md = String::new();
    let _ = writeln!(md, "# Short runs: what starting and stopping the PEs cost\n");
    let _ = writeln!(
        md,
        "Measured with `cargo run --release -p treelb-bench --example short_runs -- --repeat {repeat}` on {} ({} CPUs); \
         medians of {repeat} runs at P = 2 on the persistent pool. Fixed cost = wall − Σ busy / P, busy by the wall clock \
         (the time a PE held no work: the start, the first steals, termination); utilization = Σ CPU time busy / (P · wall). \
         One read of the thread's CPU clock: {read_ns:.0} ns (every busy phase reads it twice).\n",
        treelb_bench::host::Processor::detect(),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    let _ = writeln!(md, "| search | nodes | wall ms | utilization | fixed cost µs | fixed cost / wall |");
    let _ = writeln!(md, "|---|--:|--:|--:|--:|--:|");
    let mut holds = true;
    for n in 6..=14 {
        let q = NQueens::new(n).expect("a board size");
        let (mut walls, mut utils, mut fixed) = (Vec::new(), Vec::new(), Vec::new());
        let mut nodes = 0;
        for _ in 0..repeat {
            let o = treelb_threads::run(DfsWork::new(&q, SplitPolicy::default()), &Config::new(2)).unwrap();
            nodes = o.output.nodes;
            let wall = o.stats.wall.as_secs_f64();
            let busy = o.stats.total().busy.as_secs_f64();
            walls.push(wall);
            utils.push(o.stats.utilization());
            fixed.push(wall - busy / 2.0);
        }
        let (wall, util, cost) = (median(walls), median(utils), median(fixed));
        if wall >= threshold && cost > 0.01 * wall {
            holds = false;
        }
        let _ = writeln!(
            md,
            "| N-Queens {n} | {nodes} | {:.3} | {util:.3} | {:.1} | {:.2} % |",
            wall * 1e3,
            cost * 1e6,
            100.0 * cost / wall
        );
    }
    let _ = writeln!(
        md,
        "\nThreshold {} ms: {}.",
        treelb::MIN_MEASURED_WALL.as_millis(),
        if holds {
            "holds (every run of at least that long spent at most 1 % of its wall time on starting and stopping)"
        } else {
            "does not hold (a run of at least that long spent more than 1 % of its wall time on starting and stopping)"
        }
    );
    print!("{md}");
    if let Some(dir) = out {
        std::fs::create_dir_all(&dir).expect("the output directory");
        std::fs::write(std::path::Path::new(&dir).join("results.md"), &md).expect("results.md");
    }
}
