//! `treelb compare`: every strategy on one workload, side by side.
//!
//! Each strategy runs `repeat` times; the run with the median wall time is
//! reported, with the efficiency against the sequential baseline (fastest of
//! `repeat` runs on the same node code) and what the balancing cost:
//! requests sent and failed, pieces transferred, the PEs' idle fraction.

use std::fmt::Debug;
use std::io::Write;
use std::time::Duration;

use clap::Args;
use comfy_table::{Cell, CellAlignment, Table, presets::UTF8_FULL_CONDENSED};
use serde::Serialize;
use treelb::search::{DfsWork, Search};
use treelb::{Init, RunStats, SplitPolicy, Strategy, seq};
use treelb_threads::{Config, SUPPORTED_STRATEGIES};

use super::bench::{Workload, cpu_model, time};
use crate::config::{Error, err, positive, threads};

/// `treelb compare`
#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// The workload: a UTS sample tree (T1, T3, T1L, …) or nqueens:N
    #[arg(value_name = "WORKLOAD")]
    pub(crate) workload: String,
    /// Strategies, comma-separated, or `all` (every strategy the threads
    /// runtime runs)
    #[arg(long, value_name = "LIST", default_value = "all")]
    pub(crate) strategies: String,
    /// Runs per strategy; the median is reported
    #[arg(long, value_name = "N", default_value = "3")]
    pub(crate) repeat: String,
    /// Number of PEs [default: all cores]
    #[arg(short = 'p', long, value_name = "P")]
    pub(crate) threads: Option<String>,
    /// Δt: units of work between two checks for requests
    #[arg(long, value_name = "UNITS", default_value_t = treelb_threads::DEFAULT_BUDGET.to_string())]
    pub(crate) budget: String,
    /// How the root reaches the PEs: root or selective
    #[arg(long, value_name = "INIT", default_value = "root")]
    pub(crate) init: String,
    /// Print the comparison as JSON on stdout instead of a table
    #[arg(long)]
    pub(crate) json: bool,
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
    /// Σ idle / Σ (busy + idle) over the PEs.
    idle_fraction: f64,
}

#[derive(Debug, Serialize)]
struct CompareReport {
    workload: String,
    machine: String,
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
                Err(err!("--strategies: `{strategy}` does not run on the threads runtime yet"))
            }
        })
        .collect()
}

fn compare<S>(
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
    let (seq_time, (expected, _)) = time(repeat, || seq::run_search(search));
    let seq_secs = seq_time.as_secs_f64();
    let mut rows = Vec::new();
    for &strategy in strategies {
        let config = Config { strategy, ..config.clone() };
        let mut runs: Vec<RunStats> = Vec::with_capacity(repeat);
        for _ in 0..repeat {
            let outcome = treelb_threads::run(DfsWork::new(search, SplitPolicy::OldestHalf), &config)?;
            if outcome.output != expected {
                return Err(err!("{strategy} gave {:?}, the sequential run {expected:?}", outcome.output));
            }
            runs.push(outcome.stats);
        }
        runs.sort_by_key(|r| r.wall);
        let median = &runs[runs.len() / 2];
        let total = median.total();
        let pe_time: Duration = total.busy + total.idle;
        let wall = median.wall.as_secs_f64();
        rows.push(Row {
            strategy,
            wall_secs: wall,
            efficiency: seq_secs / (config.threads as f64 * wall),
            requests_sent: total.requests_sent,
            requests_failed: total.requests_failed,
            pieces_transferred: total.pieces_sent,
            idle_fraction: if pe_time.is_zero() {
                0.0
            } else {
                total.idle.as_secs_f64() / pe_time.as_secs_f64()
            },
        });
    }
    Ok((seq_secs, rows))
}

pub(crate) fn run(args: &CompareArgs, out: &mut impl Write) -> Result<bool, Error> {
    let workload = Workload::parse(&args.workload)?;
    let strategies = strategies(&args.strategies)?;
    if strategies.is_empty() {
        return Err(err!("--strategies is empty"));
    }
    let repeat =
        usize::try_from(positive("--repeat", &args.repeat)?).map_err(|_| err!("--repeat is too large"))?;
    let init: Init = args.init.parse().map_err(|e| err!("--init: {e}"))?;
    let config = Config {
        threads: threads(args.threads.as_deref())?,
        budget: positive("--budget", &args.budget)?,
        init,
        ..Config::default()
    };
    let (seq_secs, rows) = match &workload {
        Workload::Uts(_, uts) => compare(uts, &config, &strategies, repeat)?,
        Workload::NQueens(_, problem) => compare(problem, &config, &strategies, repeat)?,
    };
    let report = CompareReport {
        workload: workload.name().to_owned(),
        machine: cpu_model(),
        threads: config.threads,
        budget: config.budget,
        init,
        repeat,
        seq_secs,
        rows,
    };
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
        return Ok(true);
    }
    writeln!(
        out,
        "{} · {} threads · Δt {} · init {} · median of {} · sequential {:.3} s ({})",
        report.workload, report.threads, report.budget, init, repeat, seq_secs, report.machine
    )?;
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED);
    table.set_header(["strategy", "wall s", "efficiency", "req sent", "req failed", "transfers", "idle %"]);
    for r in &report.rows {
        table.add_row(
            [
                r.strategy.to_string(),
                format!("{:.3}", r.wall_secs),
                format!("{:.3}", r.efficiency),
                r.requests_sent.to_string(),
                r.requests_failed.to_string(),
                r.pieces_transferred.to_string(),
                format!("{:.1}", 100.0 * r.idle_fraction),
            ]
            .map(|s| Cell::new(s).set_alignment(CellAlignment::Right)),
        );
    }
    writeln!(out, "{table}")?;
    Ok(true)
}
