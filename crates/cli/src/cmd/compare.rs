//! `treelb compare`: every strategy on one workload, side by side.
//!
//! Each strategy runs `repeat` times; the run with the median wall time is
//! reported, with the efficiency against the sequential baseline (fastest of
//! `repeat` runs on the same node code) and what the balancing cost:
//! requests sent and failed, pieces transferred, the PEs' idle fraction,
//! heap operations (max-load).
//!
//! Workloads: UTS sample trees, `nqueens:N`, and the Mandelbrot set
//! (`mandelbrot[:pixels|subdivide][:WxH]`, the standard view at 1000
//! iterations, subdivision from 8×8 tiles), the lecture's case for static
//! against dynamic assignment.
//!
//! With `--runtime mpi` (under `mpirun`) the searches run across the ranks:
//! every rank takes part in every run, rank 0 runs the sequential baseline
//! while the others sleep, and rank 0 prints the comparison.

use std::fmt::Debug;
use std::io::Write;
use std::time::Duration;

use clap::Args;
use comfy_table::{Cell, CellAlignment, Table, presets::UTF8_FULL_CONDENSED};
use serde::Serialize;
use treelb::RunSpec;
use treelb::search::{DfsWork, Search};
use treelb::{Init, RunStats, SplitPolicy, Strategy, Work, seq};
use treelb_apps::mandelbrot::{Mandelbrot, Method, View};
use treelb_threads::{Config, SUPPORTED_STRATEGIES};

use crate::args::InitArg;
use crate::config::{Error, Runtime, err, number, threads};
use treelb_apps::nqueens::NQueens;
use treelb_apps::uts::Uts;

/// Times `f` `repeat` times; returns the fastest time and the last value.
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

/// A workload of `compare`, checked.
enum Workload {
    Uts(String, Uts),
    NQueens(String, NQueens),
}

impl Workload {
    /// Parses `T1`, `T3L`, … (UTS sample trees) or `nqueens:N`.
    fn parse(spec: &str) -> Result<Workload, Error> {
        match spec.split_once(':') {
            Some(("nqueens", n)) => Ok(Workload::NQueens(
                spec.to_owned(),
                NQueens::new(number(&format!("{spec}: N"), n)?)?.with_bulk_rows(0),
            )),
            Some(_) => Err(err!("unknown workload `{spec}` (expected a UTS sample tree or nqueens:N)")),
            None => {
                let tree = super::uts::sample(spec)?;
                Ok(Workload::Uts(tree.name.to_owned(), Uts::new(super::uts::sample_params(tree))?))
            }
        }
    }

    fn name(&self) -> &str {
        match self {
            Workload::Uts(name, _) | Workload::NQueens(name, _) => name,
        }
    }
}

fn cpu_model() -> String {
    treelb_bench::machine::Machine::detect().cpu_model
}

/// `treelb compare`
#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// The workload: a UTS sample tree (T1, T3, T1L, …), nqueens:N, or
    /// `mandelbrot[:pixels|subdivide][:WxH]` (default subdivide, 1024x768)
    #[arg(value_name = "WORKLOAD")]
    pub(crate) workload: String,
    /// Strategies, comma-separated, or `all` (every strategy the threads
    /// runtime runs)
    #[arg(long, value_name = "LIST", default_value = "all")]
    pub(crate) strategies: String,
    /// Runs per strategy; the median is reported
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = crate::args::parse::repeat)]
    pub(crate) repeat: usize,
    /// Number of PEs [default: all cores]; with --runtime mpi, threads per
    /// rank [default: 1]
    #[arg(short = 'p', long, value_name = "P", value_parser = crate::args::parse::threads)]
    pub(crate) threads: Option<usize>,
    /// Where the PEs run: threads (this process) or mpi (the ranks mpirun
    /// started; needs the `mpi` feature)
    #[arg(long, value_name = "RUNTIME", value_enum, default_value_t = Runtime::Threads)]
    pub(crate) runtime: Runtime,
    /// Δt: units of work between two checks for requests
    #[arg(long, value_name = "UNITS", default_value_t = treelb_threads::DEFAULT_BUDGET, value_parser = crate::args::parse::positive)]
    pub(crate) budget: u64,
    /// How the root reaches the PEs
    #[arg(long, value_name = "INIT", value_enum, default_value_t = InitArg(Init::Root))]
    pub(crate) init: InitArg,
    /// Print the comparison as JSON on stdout instead of a table
    #[arg(long, conflicts_with = "markdown")]
    pub(crate) json: bool,
    /// Print the comparison as a markdown table (with its command line)
    #[arg(long)]
    pub(crate) markdown: bool,
    /// Also write the comparison as one self-contained HTML page (the table
    /// and a chart of the efficiencies, inline)
    #[arg(long, value_name = "FILE")]
    pub(crate) html: Option<String>,
}

/// One strategy's median run.
#[derive(Debug, Serialize)]
struct Row {
    strategy: Strategy,
    wall_secs: f64,
    /// T_seq / (P · T_P).
    efficiency: f64,
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
    budget: u64,
    init: Init,
    repeat: usize,
    seq_secs: f64,
    rows: Vec<Row>,
}

/// The strategies a `--strategies` list names, each checked.
fn strategies(list: &str) -> Result<Vec<Strategy>, Error> {
    if list.trim() == "all" {
        return Ok(SUPPORTED_STRATEGIES.to_vec());
    }
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|name| {
            let strategy: Strategy = name.parse().map_err(|e| err!("--strategies: {e}"))?;
            if SUPPORTED_STRATEGIES.contains(&strategy) {
                Ok(strategy)
            } else {
                Err(err!("--strategies: `{strategy}` does not run on this runtime"))
            }
        })
        .collect()
}

/// The sequential baseline and every strategy on `root()`, each checked
/// against the sequential output.
fn compare<W, O>(
    sequential: impl Fn() -> O,
    root: impl Fn() -> W,
    same: impl Fn(&O, W::Output) -> Result<(), String>,
    config: &Config,
    strategies: &[Strategy],
    repeat: usize,
) -> Result<(f64, Vec<Row>), Error>
where
    W: Work + Clone,
{
    let (seq_time, expected) = time(repeat, &sequential);
    let seq_secs = seq_time.as_secs_f64();
    let mut rows = Vec::new();
    for &strategy in strategies {
        let mut config = config.clone();
        config.spec.strategy = strategy;
        let mut runs: Vec<RunStats> = Vec::with_capacity(repeat);
        for _ in 0..repeat {
            let outcome = treelb_threads::run(root(), &config)?;
            same(&expected, outcome.output).map_err(|e| err!("{strategy}: {e}"))?;
            runs.push(outcome.stats);
        }
        rows.push(row(strategy, runs, seq_secs));
    }
    Ok((seq_secs, rows))
}

/// A strategy's row: its median run against the sequential time.
fn row(strategy: Strategy, mut runs: Vec<RunStats>, seq_secs: f64) -> Row {
    runs.sort_by_key(|r| r.wall);
    let median = &runs[runs.len() / 2];
    let total = median.total();
    let pe_time: Duration = total.busy + total.idle;
    let wall = median.wall.as_secs_f64();
    Row {
        strategy,
        wall_secs: wall,
        efficiency: seq_secs / (median.pes.len() as f64 * wall),
        requests_sent: total.requests_sent,
        requests_failed: total.requests_failed,
        pieces_transferred: total.pieces_sent,
        messages: total.messages,
        heap_ops: total.heap_ops,
        idle_fraction: if pe_time.is_zero() { 0.0 } else { total.idle.as_secs_f64() / pe_time.as_secs_f64() },
    }
}

/// [`compare_search`] across the ranks `mpirun` started: `Some` on rank 0,
/// `None` on the others.
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
        let config = treelb_mpi::Config { threads, spec: RunSpec { strategy, ..spec.clone() }, slow: None };
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

/// [`compare`] for a search, on the DFS-stack adapter.
fn compare_search<S>(
    search: &S,
    config: &Config,
    strategies: &[Strategy],
    repeat: usize,
) -> Result<(f64, Vec<Row>), Error>
where
    S: Search,
    S::Node: Clone,
    S::Output: PartialEq + Debug,
{
    compare(
        || seq::run_search(search).0,
        || DfsWork::new(search, SplitPolicy::default()),
        |expected, output| {
            if *expected == output {
                Ok(())
            } else {
                Err(format!("gave {output:?}, the sequential run {expected:?}"))
            }
        },
        config,
        strategies,
        repeat,
    )
}

/// `mandelbrot[:pixels|subdivide][:WxH]`, or `None` if `spec` names
/// another workload.
fn mandelbrot(spec: &str) -> Result<Option<(Mandelbrot, Method)>, Error> {
    let mut parts = spec.split(':');
    if parts.next() != Some("mandelbrot") {
        return Ok(None);
    }
    let (mut method, mut size) = (Method::Subdivide, (1024, 768));
    for part in parts {
        if let Ok(m) = part.parse::<Method>() {
            method = m;
        } else if let Some((w, h)) = part.split_once('x') {
            size =
                (number::<u32>(&format!("{spec}: width"), w)?, number::<u32>(&format!("{spec}: height"), h)?);
        } else {
            return Err(err!("{spec}: `{part}` is neither a method (pixels, subdivide) nor a size WxH"));
        }
    }
    let m = Mandelbrot::new(View::STANDARD, size.0, size.1, 1000).map_err(|e| err!("{spec}: {e}"))?;
    // Subdivision from an 8×8 grid of tiles: the root splits at once, so
    // static assignment cuts it without computing frames first.
    let tiles = 8.min(size.0).min(size.1);
    Ok(Some((m.with_tiles(tiles), method)))
}

pub(crate) fn run(args: &CompareArgs, out: &mut impl Write) -> Result<bool, Error> {
    if let Some(path) = &args.html {
        // Refuse an unwritable page before the runs, not after them.
        std::fs::File::create(path).map_err(|e| err!("--html {path}: {e}"))?;
    }
    let fractal = mandelbrot(&args.workload)?;
    let workload = match fractal {
        Some(_) => None,
        None => Some(Workload::parse(&args.workload)?),
    };
    let strategies = strategies(&args.strategies)?;
    if strategies.is_empty() {
        return Err(err!("--strategies is empty"));
    }
    let repeat = args.repeat;
    let init = args.init.0;
    let spec = RunSpec { budget: args.budget, init, ..RunSpec::default() };
    let runtime = args.runtime.available()?.name();
    if runtime == "mpi" {
        if fractal.is_some() {
            return Err(err!(
                "--runtime mpi: compare runs the searches (UTS trees, nqueens:N) across ranks, not the Mandelbrot set"
            ));
        }
        let per_rank = args.threads.unwrap_or(1);
        #[cfg(feature = "mpi")]
        {
            let result = match &workload {
                Some(Workload::Uts(_, uts)) => compare_search_mpi(uts, per_rank, &spec, &strategies, repeat)?,
                Some(Workload::NQueens(_, problem)) => {
                    compare_search_mpi(problem, per_rank, &spec, &strategies, repeat)?
                }
                None => unreachable!("the Mandelbrot set was refused above"),
            };
            let Some((seq_secs, pes, rows)) = result else { return Ok(true) };
            let report = CompareReport {
                workload: workload.as_ref().map_or(&args.workload[..], Workload::name).to_owned(),
                machine: cpu_model(),
                runtime,
                threads: pes,
                budget: spec.budget,
                init,
                repeat,
                seq_secs,
                rows,
            };
            return print(&report, args, out);
        }
        #[cfg(not(feature = "mpi"))]
        unreachable!("--runtime mpi is refused without the feature ({per_rank})");
    }
    let config = Config::with_spec(threads(args.threads), spec);
    let (seq_secs, rows) = match (&workload, &fractal) {
        (Some(Workload::Uts(_, uts)), _) => compare_search(uts, &config, &strategies, repeat)?,
        (Some(Workload::NQueens(_, problem)), _) => compare_search(problem, &config, &strategies, repeat)?,
        (None, Some((m, method))) => compare(
            || seq::run_work(m.work(*method)).0.into_image(m).map(|image| image.values),
            || m.work(*method),
            |expected, output| {
                let expected = expected.as_ref().map_err(ToString::to_string)?;
                let image = output.into_image(m).map_err(|e| e.to_string())?;
                if *expected == image.values {
                    Ok(())
                } else {
                    Err("a different image than the sequential run".into())
                }
            },
            &config,
            &strategies,
            repeat,
        )?,
        (None, None) => unreachable!("one of the two parses"),
    };
    let report = CompareReport {
        workload: workload.as_ref().map_or(&args.workload[..], Workload::name).to_owned(),
        machine: cpu_model(),
        runtime,
        threads: config.threads,
        budget: config.spec.budget,
        init,
        repeat,
        seq_secs,
        rows,
    };
    print(&report, args, out)
}

/// The comparison as one HTML page: what ran, the table, the efficiencies
/// as bars.
fn html_page(report: &CompareReport) -> String {
    let mut page = crate::html::Page::new(&format!("treelb compare {}", report.workload));
    let command: Vec<String> = std::env::args().skip(1).collect();
    page.code(&format!("treelb {}", command.join(" "))).paragraph(&format!(
        "{} runtime, {} PEs, Δt {}, init {}, median of {} runs; sequential baseline {:.3} s; {}",
        report.runtime,
        report.threads,
        report.budget,
        report.init,
        report.repeat,
        report.seq_secs,
        report.machine
    ));
    let rows: Vec<Vec<String>> = report
        .rows
        .iter()
        .map(|r| {
            vec![
                r.strategy.to_string(),
                format!("{:.3}", r.wall_secs),
                format!("{:.3}", r.efficiency),
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
    let bars: Vec<(String, f64)> =
        report.rows.iter().map(|r| (r.strategy.to_string(), r.efficiency)).collect();
    page.heading("Efficiency: T_seq / (P · T_P)").svg(&crate::html::bar_chart("efficiency", &bars, 1.0));
    page.finish()
}

/// The columns of the comparison.
const HEADER: [&str; 9] = [
    "strategy",
    "wall s",
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
        std::fs::write(path, html_page(report)).map_err(|e| err!("--html {path}: {e}"))?;
    }
    if args.json {
        serde_json::to_writer_pretty(&mut *out, report)?;
        writeln!(out)?;
        return Ok(true);
    }
    let pes = if report.runtime == "mpi" { "MPI PEs" } else { "threads" };
    let heading = format!(
        "{} · {} {pes} · Δt {} · init {} · median of {} · sequential {:.3} s ({})",
        report.workload, report.threads, report.budget, init, repeat, seq_secs, report.machine
    );
    if args.markdown {
        let command: Vec<String> = std::env::args().skip(1).collect();
        writeln!(out, "`treelb {}`\n\n{heading}\n", command.join(" "))?;
        writeln!(
            out,
            "| strategy | wall s | efficiency | req sent | req failed | transfers | messages | heap ops | idle % |"
        )?;
        writeln!(out, "|---|---|---|---|---|---|---|---|---|")?;
        for r in &report.rows {
            writeln!(
                out,
                "| {} | {:.3} | {:.3} | {} | {} | {} | {} | {} | {:.1} |",
                r.strategy,
                r.wall_secs,
                r.efficiency,
                r.requests_sent,
                r.requests_failed,
                r.pieces_transferred,
                r.messages,
                r.heap_ops,
                100.0 * r.idle_fraction
            )?;
        }
        return Ok(true);
    }
    writeln!(out, "{heading}")?;
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED);
    table.set_header(HEADER);
    for r in &report.rows {
        table.add_row(
            [
                r.strategy.to_string(),
                format!("{:.3}", r.wall_secs),
                format!("{:.3}", r.efficiency),
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
    Ok(true)
}
