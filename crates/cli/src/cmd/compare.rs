//! `treelb compare`: every strategy on one workload, side by side — a thin
//! alias of the benchmark harness: `treelb compare W --strategies LIST -p P`
//! runs what `treelb bench --workloads W --engines seq,treelb --strategies
//! LIST -p P` runs ([`super::bench`]), and prints it as the strategies'
//! table with their balancing counters.
//!
//! Each strategy runs `repeat` times, each run in its own process with a
//! time limit and its answer checked against the sequential baseline's; the
//! fastest run is reported, with the efficiency against the sequential
//! baseline (fastest of `repeat` runs on the same node code) and what the
//! balancing cost in that run: requests sent and failed, pieces
//! transferred, the PEs' idle fraction, heap operations (max-load).
//!
//! Workloads: the harness's (UTS sample trees, `nqueens:N`, `clique:NAME`,
//! `knapsack:…`, `tsp:…`) and the Mandelbrot set
//! (`mandelbrot[:pixels|subdivide][:WxH]`, the standard view at 1000
//! iterations, subdivision from 8×8 tiles), the lecture's case for static
//! against dynamic assignment.
//!
//! With `--runtime mpi` (under `mpirun`) the searches run across the ranks.
//! There the ranks `mpirun` started are the processes, and a run needs all
//! of them: every rank takes part in every run in process, rank 0 runs the
//! sequential baseline while the others sleep, and rank 0 prints the
//! comparison (the median of `repeat` runs, as before).

use std::io::Write;

use comfy_table::{Cell, CellAlignment, Table, presets::UTF8_FULL_CONDENSED};
use serde::Serialize;
use treelb::{Init, MIN_MEASURED_WALL, Strategy};
use treelb_bench::harness::{self, Matrix, Status};
use treelb_bench::host::Host;
use treelb_bench::workload::{Engine, Workload};

use crate::args::CompareArgs;
use crate::config::{Error, err, threads};
#[cfg(feature = "mpi")]
use std::fmt::Debug;
#[cfg(feature = "mpi")]
use std::time::Duration;
#[cfg(feature = "mpi")]
use treelb::search::Search;
#[cfg(feature = "mpi")]
use treelb::{RunSpec, RunStats, SplitPolicy, seq};

/// One strategy's reported run (the fastest; the median under MPI).
#[derive(Debug, Serialize)]
struct Row {
    strategy: Strategy,
    wall_secs: f64,
    /// T_seq / T_P.
    speedup: f64,
    /// T_seq / (P · T_P): the speedup per PE.
    efficiency: f64,
    /// Whether both T_seq and T_P last at least [`MIN_MEASURED_WALL`]; a
    /// shorter run's speedup is shown as "too short to measure".
    measurable: bool,
    requests_sent: u64,
    requests_failed: u64,
    pieces_transferred: u64,
    /// Messages sent (requests, answers, queries, pushes, reports, the
    /// hub's).
    messages: u64,
    /// Operations on the shared load heap (max-load).
    heap_ops: u64,
    /// Σ idle / Σ (busy + idle) over the PEs.
    idle_fraction: f64,
}

#[derive(Debug, Serialize)]
struct CompareReport {
    workload: String,
    machine: String,
    runtime: &'static str,
    /// PEs in all.
    threads: usize,
    budget: treelb::spec::Budget,
    init: Init,
    repeat: usize,
    /// Which of the `repeat` runs each row is: `fastest` or `median`.
    reported: &'static str,
    seq_secs: f64,
    rows: Vec<Row>,
}

/// Times `f` `repeat` times; returns the fastest time and the last value.
#[cfg(feature = "mpi")]
fn time<T>(repeat: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut times = Vec::with_capacity(repeat);
    let mut last = None;
    for _ in 0..repeat {
        let start = std::time::Instant::now();
        let value = f();
        times.push(start.elapsed());
        last = Some(value);
    }
    (times.into_iter().min().expect("repeat is at least 1"), last.expect("repeat is at least 1"))
}

/// A strategy's row: its median run against the sequential time.
#[cfg(feature = "mpi")]
fn row(strategy: Strategy, mut runs: Vec<RunStats>, seq_secs: f64) -> Row {
    runs.sort_by_key(|r| r.wall);
    let median = &runs[runs.len() / 2];
    let total = median.total();
    let pe_time: Duration = total.busy + total.idle;
    let wall = median.wall.as_secs_f64();
    Row {
        strategy,
        wall_secs: wall,
        speedup: seq_secs / wall,
        efficiency: seq_secs / (median.pes.len() as f64 * wall),
        measurable: seq_secs.min(wall) >= MIN_MEASURED_WALL.as_secs_f64(),
        requests_sent: total.requests_sent,
        requests_failed: total.requests_failed,
        pieces_transferred: total.pieces_sent,
        messages: total.messages,
        heap_ops: total.heap_ops,
        idle_fraction: if pe_time.is_zero() { 0.0 } else { total.idle.as_secs_f64() / pe_time.as_secs_f64() },
    }
}

/// Every strategy on `search` across the ranks `mpirun` started: `Some` on
/// rank 0, `None` on the others.
#[cfg(feature = "mpi")]
fn compare_search_mpi<S>(
    search: &S,
    threads: usize,
    spec: &RunSpec,
    strategies: &[Strategy],
    repeat: usize,
) -> Result<Option<(f64, usize, Vec<Row>)>, Error>
where
    S: Search,
    S::Node: Clone + Serialize + serde::de::DeserializeOwned,
    S::Output: PartialEq + Debug + Serialize + serde::de::DeserializeOwned,
{
    use treelb_mpi::wire::DfsCodec;
    let mpi = treelb_mpi::Mpi::init(threads)?;
    let root = mpi.rank() == 0;
    // The baseline on rank 0 alone; the others sleep until it is done.
    let baseline = root.then(|| time(repeat, || seq::run_search(search).0));
    mpi.barrier();
    let codec = DfsCodec::new(search, SplitPolicy::default());
    let mut rows = Vec::new();
    let mut pes = 0;
    for &strategy in strategies {
        let config = treelb_mpi::Config {
            threads,
            spec: RunSpec { strategy, ..spec.clone() },
            slow: None,
            record_decisions: false,
        };
        let mut runs: Vec<RunStats> = Vec::with_capacity(repeat);
        for _ in 0..repeat {
            if let Some(outcome) = treelb_mpi::run(&mpi, &codec, codec.root(), &config)? {
                let expected = &baseline.as_ref().expect("rank 0 ran the baseline").1;
                if outcome.output != *expected {
                    return Err(err!(
                        "{strategy}: gave {:?}, the sequential run {expected:?}",
                        outcome.output
                    ));
                }
                pes = outcome.stats.pes.len();
                runs.push(outcome.stats);
            }
        }
        if root {
            let seq_secs = baseline.as_ref().expect("rank 0 ran the baseline").0.as_secs_f64();
            rows.push(row(strategy, runs, seq_secs));
        }
    }
    Ok(baseline.map(|(t, _)| (t.as_secs_f64(), pes, rows)))
}

/// `--runtime mpi`: the searches across the ranks, in process.
#[cfg(feature = "mpi")]
fn compare_mpi(
    args: &CompareArgs,
    workload: &Workload,
    strategies: &[Strategy],
) -> Result<Option<CompareReport>, Error> {
    use treelb_apps::nqueens::NQueens;
    use treelb_apps::uts::Uts;
    let per_rank = args.threads.unwrap_or(1);
    let budget = args.budget.or(workload.default_budget());
    let spec = treelb::RunSpec { budget, init: args.init.0, ..treelb::RunSpec::default() };
    let result = match workload {
        Workload::Uts(tree) => {
            compare_search_mpi(&Uts::new(tree.params())?, per_rank, &spec, strategies, args.repeat)?
        }
        Workload::NQueens { n, mirror } => compare_search_mpi(
            &NQueens::new(*n)?.with_bulk_rows(0).with_mirror(*mirror),
            per_rank,
            &spec,
            strategies,
            args.repeat,
        )?,
        _ => {
            return Err(err!(
                "--runtime mpi: compare runs UTS trees and nqueens:N across ranks, not {workload}"
            ));
        }
    };
    Ok(result.map(|(seq_secs, pes, rows)| CompareReport {
        workload: workload.to_string(),
        machine: Host::detect().cpu_model,
        runtime: "mpi",
        threads: pes,
        budget: spec.budget,
        init: spec.init,
        repeat: args.repeat,
        reported: "median",
        seq_secs,
        rows,
    }))
}

/// The strategies' side-by-side in the harness: the sequential baseline and
/// treelb per strategy at P PEs, each run in its own process.
fn compare_threads(
    args: &CompareArgs,
    workload: Workload,
    strategies: Vec<Strategy>,
) -> Result<(CompareReport, Vec<String>), Error> {
    let machine = Host::detect();
    let p = threads(args.threads);
    let exe = std::env::current_exe().map_err(|e| err!("cannot find this program: {e}"))?;
    let budget = args.budget.or(workload.default_budget());
    let plan = Matrix {
        workloads: vec![workload],
        engines: vec![Engine::Seq, Engine::Treelb],
        strategies,
        threads: vec![p],
        cores: machine.cores,
        repeat: args.repeat,
        timeout: args.timeout,
        cutoff: None,
        budget: args.budget.budget,
        init: Some(args.init.0),
        peers: Vec::new(),
        child: vec![exe.into_os_string(), "bench".into()],
        scratch: std::env::temp_dir().join(format!("treelb-compare-{}", std::process::id())),
        progress: false,
    };
    let command = harness::command_line("treelb", std::env::args().skip(1));
    let report = plan.run(command, machine, treelb_bench::host::nice()).map_err(|e| err!("{e}"))?;
    let w = &report.workloads[0];
    let seq_secs = w.rows.iter().find(|r| r.engine == "seq").and_then(|r| r.wall_secs).ok_or_else(|| {
        err!("{}: the sequential baseline failed: {}", w.workload, report.failures.join("; "))
    })?;
    let rows = w
        .rows
        .iter()
        .filter(|r| r.engine == "treelb" && r.status == Status::Ok)
        .filter_map(|r| {
            let (wall, b) = (r.wall_secs?, r.balance?);
            Some(Row {
                strategy: r.strategy.as_deref()?.parse().ok()?,
                wall_secs: wall,
                speedup: seq_secs / wall,
                efficiency: seq_secs / (p as f64 * wall),
                measurable: seq_secs.min(wall) >= MIN_MEASURED_WALL.as_secs_f64(),
                requests_sent: b.requests_sent,
                requests_failed: b.requests_failed,
                pieces_transferred: b.pieces_transferred,
                messages: b.messages,
                heap_ops: b.heap_ops,
                idle_fraction: b.idle_fraction,
            })
        })
        .collect();
    let compare = CompareReport {
        workload: w.workload.clone(),
        machine: report.machine.cpu_model.clone(),
        runtime: "threads",
        threads: p,
        budget,
        init: args.init.0,
        repeat: args.repeat,
        reported: "fastest",
        seq_secs,
        rows,
    };
    Ok((compare, report.failures))
}

pub(crate) fn run(args: &CompareArgs, out: &mut impl Write) -> Result<bool, Error> {
    if let Some(path) = &args.html {
        // Refuse an unwritable page before the runs, not after them.
        crate::outputs::check("--html", path)?;
    }
    let workload: Workload = args.workload.parse().map_err(|e| err!("{e}"))?;
    let strategies = super::bench::strategies(&args.strategies)?;
    if args.runtime.available()?.name() == "mpi" {
        if matches!(workload, Workload::Mandelbrot { .. }) {
            return Err(err!(
                "--runtime mpi: compare runs the searches (UTS trees, nqueens:N) across ranks, not the Mandelbrot set"
            ));
        }
        #[cfg(feature = "mpi")]
        {
            let Some(report) = compare_mpi(args, &workload, &strategies)? else { return Ok(true) };
            return print(&report, args, out);
        }
        #[cfg(not(feature = "mpi"))]
        unreachable!("--runtime mpi is refused without the feature");
    }
    let (report, failures) = compare_threads(args, workload, strategies)?;
    let printed = print(&report, args, out)?;
    for failure in &failures {
        eprintln!("treelb compare: {failure}");
    }
    Ok(printed && failures.is_empty())
}

/// The comparison as one HTML page: what ran, the table, the efficiencies
/// as bars.
fn html_page(report: &CompareReport) -> String {
    let mut page = crate::html::Page::new(&format!("treelb compare {}", report.workload));
    let command: Vec<String> = std::env::args().skip(1).collect();
    page.code(&format!("treelb {}", command.join(" "))).paragraph(&format!(
        "{} runtime, {} PEs, Δt {}, init {}, {} of {} runs; sequential baseline {:.3} s; {}",
        report.runtime,
        report.threads,
        report.budget,
        report.init,
        report.reported,
        report.repeat,
        report.seq_secs,
        report.machine
    ));
    let rows: Vec<Vec<String>> = report
        .rows
        .iter()
        .map(|r| {
            let [speedup, efficiency] = figures(r);
            vec![
                r.strategy.to_string(),
                format!("{:.3}", r.wall_secs),
                speedup,
                efficiency,
                r.requests_sent.to_string(),
                r.requests_failed.to_string(),
                r.pieces_transferred.to_string(),
                r.messages.to_string(),
                r.heap_ops.to_string(),
                format!("{:.1}", 100.0 * r.idle_fraction),
            ]
        })
        .collect();
    page.heading("Strategies side by side").table(&HEADER, &rows);
    page.paragraph(&legend(report));
    let bars: Vec<(String, f64)> =
        report.rows.iter().map(|r| (r.strategy.to_string(), r.efficiency)).collect();
    page.heading("Efficiency: T_seq / (P · T_P)").svg(&crate::html::bar_chart("efficiency", &bars, 1.0));
    page.finish()
}

/// The speedup and the efficiency of a row as shown, or "too short" twice.
fn figures(r: &Row) -> [String; 2] {
    if r.measurable {
        [format!("{:.3}", r.speedup), format!("{:.3}", r.efficiency)]
    } else {
        ["too short".to_owned(), "too short".to_owned()]
    }
}

/// What the figures mean, for the line under the table; and, if a run was
/// too short, why it shows none.
fn legend(report: &CompareReport) -> String {
    let mut legend = "speedup = T_seq / T_P (the sequential baseline's time over the strategy's); \
                      efficiency = speedup / P"
        .to_owned();
    if report.rows.iter().any(|r| !r.measurable) {
        legend.push_str(&format!(
            "; \"too short\": T_seq or T_P under {} ms, where starting and stopping weigh more than the \
             balancing (docs/benchmarks/2026-11-27-short-runs)",
            MIN_MEASURED_WALL.as_millis()
        ));
    }
    legend
}

/// The columns of the comparison.
const HEADER: [&str; 10] = [
    "strategy",
    "wall s",
    "speedup",
    "efficiency",
    "req sent",
    "req failed",
    "transfers",
    "messages",
    "heap ops",
    "idle %",
];

/// Prints the comparison: JSON, markdown or a table.
fn print(report: &CompareReport, args: &CompareArgs, out: &mut impl Write) -> Result<bool, Error> {
    let (init, repeat, seq_secs) = (report.init, report.repeat, report.seq_secs);
    if let Some(path) = &args.html {
        // Written after the report, see `crate::outputs`.
        let page = html_page(report);
        crate::outputs::later("--html", path, move |w| w.write_all(page.as_bytes()));
    }
    if args.json {
        serde_json::to_writer_pretty(&mut *out, report)?;
        writeln!(out)?;
        return Ok(true);
    }
    let pes = if report.runtime == "mpi" { "MPI PEs" } else { "threads" };
    let heading = format!(
        "{} · {} {pes} · Δt {} · init {} · {} of {} · sequential {:.3} s ({})",
        report.workload,
        report.threads,
        report.budget,
        init,
        report.reported,
        repeat,
        seq_secs,
        report.machine
    );
    if args.markdown {
        let command: Vec<String> = std::env::args().skip(1).collect();
        writeln!(out, "`treelb {}`\n\n{heading}\n", command.join(" "))?;
        writeln!(
            out,
            "| strategy | wall s | speedup | efficiency | req sent | req failed | transfers | messages | heap ops | idle % |"
        )?;
        writeln!(out, "|---|---|---|---|---|---|---|---|---|---|")?;
        for r in &report.rows {
            let [speedup, efficiency] = figures(r);
            writeln!(
                out,
                "| {} | {:.3} | {speedup} | {efficiency} | {} | {} | {} | {} | {} | {:.1} |",
                r.strategy,
                r.wall_secs,
                r.requests_sent,
                r.requests_failed,
                r.pieces_transferred,
                r.messages,
                r.heap_ops,
                100.0 * r.idle_fraction
            )?;
        }
        writeln!(out, "\n{}", legend(report))?;
        return Ok(true);
    }
    writeln!(out, "{heading}")?;
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED);
    table.set_header(HEADER);
    for r in &report.rows {
        let [speedup, efficiency] = figures(r);
        table.add_row(
            [
                r.strategy.to_string(),
                format!("{:.3}", r.wall_secs),
                speedup,
                efficiency,
                r.requests_sent.to_string(),
                r.requests_failed.to_string(),
                r.pieces_transferred.to_string(),
                r.messages.to_string(),
                r.heap_ops.to_string(),
                format!("{:.1}", 100.0 * r.idle_fraction),
            ]
            .map(|s| Cell::new(s).set_alignment(CellAlignment::Right)),
        );
    }
    writeln!(out, "{table}")?;
    writeln!(out, "{}", legend(report))?;
    Ok(true)
}
