//! `treelb sim ybwc`: the simulator's model of young brothers wait on
//! synthetic game trees (`treelb_sim::ybwc`), side by side with the threads
//! runtime on the same trees.

use std::io::Write;
use std::time::Instant;

use treelb::game::{YbwWork, solve};
use treelb::spec::Budget;
use treelb::{RunSpec, Strategy};
use treelb_apps::gametree::GameTree;
use treelb_sim::ybwc::{YbwcPoint, sequential, simulate_ybwc};
use treelb_sim::{Costs, Machine, Network};

use crate::args::YbwcArgs;
use crate::config::{Error, err};

/// One configuration's totals over the trees.
struct Measured {
    seconds: f64,
    nodes: u64,
    aborted: u64,
}

/// Runs `treelb sim ybwc`.
pub(crate) fn run(a: &YbwcArgs, out: &mut dyn Write) -> Result<bool, Error> {
    if !(0.0..=1.0).contains(&a.ordering) {
        return Err(err!("--ordering must be between 0 and 1, got {}", a.ordering));
    }
    if let Some(&p) = a.pes.iter().find(|&&p| p == 0 || p > 1 << 16) {
        return Err(err!("-p: simulated PEs must be between 1 and 65536, got {p}"));
    }
    if let Some(&p) = a.threads.iter().find(|&&p| p == 0 || p > 1024) {
        return Err(err!("--threads: PEs must be between 1 and 1024, got {p}"));
    }
    let trees: Vec<GameTree> = (0..a.seeds)
        .map(|seed| GameTree {
            branching: a.branching,
            depth: a.depth,
            weight: 10,
            ordering: a.ordering,
            seed,
        })
        .collect();
    let spec = RunSpec {
        strategy: Strategy::RandomPolling,
        budget: a.budget.or(Budget::DEFAULT),
        ..RunSpec::default()
    };
    let costs = Costs::default();
    writeln!(
        out,
        "synthetic trees: branching {}, depth {}, ordering {}, {} seeds, solved by null-window searches; random polling, Δt = {}",
        a.branching, a.depth, a.ordering, a.seeds, spec.budget
    )?;
    writeln!(
        out,
        "model: crossbar, T_rout = {} ticks, T_split = {}, T_poll = {}, a position {} ticks",
        costs.t_rout, costs.t_split, costs.t_poll, a.node_ticks
    )?;
    // The sequential baseline, timed as the threads runs are: fastest of N.
    let mut seq_seconds = f64::INFINITY;
    let mut seq = None;
    for _ in 0..a.repeat {
        let start = Instant::now();
        let s = sequential(&trees);
        seq_seconds = seq_seconds.min(start.elapsed().as_secs_f64());
        seq = Some(s);
    }
    let seq = seq.expect("at least one run");
    writeln!(out, "sequential alpha-beta: {} nodes, {:.3} s", seq.nodes, seq_seconds)?;
    writeln!(out)?;
    writeln!(
        out,
        "{:<8} {:>5} {:<10} {:>9} {:>9} {:>9} {:>9}",
        "engine", "P", "waiting", "overhead", "aborted%", "speedup", "effic."
    )?;
    for &p in &a.pes {
        for ybw in [true, false] {
            let machine = Machine::new(p, Network::Crossbar, costs);
            let point: YbwcPoint = simulate_ybwc(&trees, &seq, machine, &spec, a.node_ticks, ybw)
                .map_err(|e| err!("sim ybwc: {e}"))?;
            let aborted = percent(point.aborted_nodes, point.nodes);
            row(out, "model", p as usize, ybw, point.overhead(), aborted, point.speedup())?;
        }
    }
    for &p in &a.threads {
        let mut best = [None::<Measured>, None];
        for _ in 0..a.repeat {
            for (k, ybw) in [true, false].into_iter().enumerate() {
                let m = on_threads(&trees, &seq.values, p, ybw, &spec);
                if best[k].as_ref().is_none_or(|b| m.seconds < b.seconds) {
                    best[k] = Some(m);
                }
            }
        }
        for (k, m) in best.into_iter().enumerate() {
            let m = m.expect("at least one run");
            let overhead = m.nodes as f64 / seq.nodes as f64;
            let aborted = percent(m.aborted, m.nodes);
            row(out, "threads", p, k == 0, overhead, aborted, seq_seconds / m.seconds)?;
        }
    }
    writeln!(out)?;
    writeln!(
        out,
        "overhead: nodes over sequential nodes; aborted%: of the nodes, those in subtrees thrown away; \
         threads: wall time, fastest of {}, on {} cores (more PEs than cores share them)",
        a.repeat,
        std::thread::available_parallelism().map_or(1, |n| n.get())
    )?;
    Ok(true)
}

/// Percent of `nodes` that `aborted` is.
fn percent(aborted: u64, nodes: u64) -> f64 {
    100.0 * aborted as f64 / nodes.max(1) as f64
}

fn row(
    out: &mut dyn Write,
    engine: &str,
    p: usize,
    ybw: bool,
    overhead: f64,
    aborted_percent: f64,
    speedup: f64,
) -> Result<(), Error> {
    writeln!(
        out,
        "{engine:<8} {p:>5} {:<10} {overhead:>9.3} {aborted_percent:>9.2} {speedup:>9.2} {:>9.2}",
        if ybw { "ybw" } else { "no waiting" },
        speedup / p as f64
    )?;
    Ok(())
}

/// Solves every tree on the threads runtime; checks every value.
fn on_threads(trees: &[GameTree], values: &[i32], p: usize, ybw: bool, spec: &RunSpec) -> Measured {
    let cfg = treelb_threads::Config::with_spec(p, spec.clone());
    let start = Instant::now();
    let (mut nodes, mut aborted) = (0, 0);
    for (t, &v) in trees.iter().zip(values) {
        let b = t.bound();
        let value = solve(-b, b, |lo, hi| {
            let o = treelb_threads::run(YbwWork::new(t, t.root(), lo, hi, ybw), &cfg)
                .unwrap_or_else(|e| panic!("a checked configuration failed: {e}"))
                .output;
            nodes += o.nodes;
            aborted += o.aborted_nodes;
            o.value.expect("a finished search has the root's value")
        });
        assert_eq!(value, v, "the parallel value differs from the sequential one");
    }
    Measured { seconds: start.elapsed().as_secs_f64(), nodes, aborted }
}
