//! `treelb bench`: the sequential baseline against treelb at P = 1 and P =
//! all cores, on the same node code, fastest of repeated runs.

use std::fmt::Debug;
use std::io::Write;
use std::time::{Duration, Instant};

use comfy_table::{Cell, CellAlignment, Table, presets::UTF8_FULL_CONDENSED};
use serde::Serialize;
use treelb::search::{DfsWork, Search, SplitPolicy};
use treelb::seq;
use treelb_apps::nqueens::NQueens;
use treelb_apps::uts::Uts;
use treelb_threads::Config;

use crate::args::BenchArgs;
use crate::config::{Error, err, number, threads};
use crate::report::human_rate;

/// One workload's measurements.
#[derive(Debug, Serialize)]
struct Row {
    workload: String,
    nodes: u64,
    seq_secs: f64,
    p1_secs: f64,
    /// (T(P=1) − T_seq) / T_seq.
    p1_overhead: f64,
    threads: usize,
    par_secs: f64,
    speedup: f64,
    /// T_seq / (P · T(P)).
    efficiency: f64,
}

#[derive(Debug, Serialize)]
struct BenchReport {
    command: String,
    machine: String,
    cores: usize,
    repeat: usize,
    budget: u64,
    rows: Vec<Row>,
}

/// Times `f` `repeat` times; returns the fastest time and the last value.
/// The fastest, not the median: on a shared machine other processes only
/// ever add time, so the minimum is the estimate least disturbed by them.
pub(crate) fn time<T>(repeat: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut times = Vec::with_capacity(repeat);
    let mut last = None;
    for _ in 0..repeat {
        let start = Instant::now();
        let value = f();
        times.push(start.elapsed());
        last = Some(value);
    }
    (times.into_iter().min().expect("repeat is at least 1"), last.expect("repeat is at least 1"))
}

fn measure<S>(name: &str, search: &S, repeat: usize, p: usize, budget: u64) -> Result<Row, Error>
where
    S: Search,
    S::Node: Clone,
    S::Output: PartialEq + Debug,
{
    let (seq_time, (expected, nodes)) = time(repeat, || seq::run_search(search));
    let parallel = |threads: usize| -> Result<Duration, Error> {
        let config = Config::with_spec(threads, treelb::RunSpec { budget, ..treelb::RunSpec::default() });
        let (t, outcome) =
            time(repeat, || treelb_threads::run(DfsWork::new(search, SplitPolicy::default()), &config));
        let outcome = outcome?;
        if outcome.output != expected {
            return Err(err!(
                "{name}: P = {threads} gave {:?}, the sequential run {expected:?}",
                outcome.output
            ));
        }
        Ok(t)
    };
    let p1 = parallel(1)?;
    let par = parallel(p)?;
    let (s, t1, tp) = (seq_time.as_secs_f64(), p1.as_secs_f64(), par.as_secs_f64());
    Ok(Row {
        workload: name.to_owned(),
        nodes,
        seq_secs: s,
        p1_secs: t1,
        p1_overhead: t1 / s - 1.0,
        threads: p,
        par_secs: tp,
        speedup: s / tp,
        efficiency: s / (p as f64 * tp),
    })
}

/// A benchmark workload, checked.
pub(crate) enum Workload {
    Uts(String, Uts),
    NQueens(String, NQueens),
}

impl Workload {
    /// Parses `T1`, `T3L`, … (UTS sample trees) or `nqueens:N`.
    pub(crate) fn parse(spec: &str) -> Result<Workload, Error> {
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

    pub(crate) fn name(&self) -> &str {
        match self {
            Workload::Uts(name, _) | Workload::NQueens(name, _) => name,
        }
    }
}

pub(crate) fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

pub(crate) fn run(args: &BenchArgs, out: &mut impl Write) -> Result<bool, Error> {
    let (repeat, p, budget) = (args.repeat, threads(args.threads), args.budget);
    // Every workload is checked before the first one runs.
    let workloads = args
        .workloads
        .split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(Workload::parse)
        .collect::<Result<Vec<_>, _>>()?;
    if workloads.is_empty() {
        return Err(err!("--workloads is empty"));
    }
    let mut rows = Vec::new();
    for workload in &workloads {
        eprintln!("treelb bench: {} …", workload.name());
        rows.push(match workload {
            Workload::NQueens(name, problem) => measure(name, problem, repeat, p, budget)?,
            Workload::Uts(name, uts) => measure(name, uts, repeat, p, budget)?,
        });
    }
    let report = BenchReport {
        command: std::env::args().collect::<Vec<_>>().join(" "),
        machine: cpu_model(),
        cores: Config::default().threads,
        repeat,
        budget,
        rows,
    };
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
        return Ok(true);
    }
    writeln!(
        out,
        "{} · {} cores · fastest of {} runs · Δt {}",
        report.machine, report.cores, repeat, budget
    )?;
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED);
    table.set_header([
        "workload",
        "nodes",
        "seq s",
        "seq nodes/s",
        "P=1 s",
        "P=1 cost",
        "P",
        "P s",
        "speedup",
        "efficiency",
    ]);
    for r in &report.rows {
        table.add_row(
            [
                r.workload.clone(),
                r.nodes.to_string(),
                format!("{:.3}", r.seq_secs),
                human_rate(r.nodes as f64 / r.seq_secs),
                format!("{:.3}", r.p1_secs),
                format!("{:+.1} %", 100.0 * r.p1_overhead),
                r.threads.to_string(),
                format!("{:.3}", r.par_secs),
                format!("{:.2}", r.speedup),
                format!("{:.3}", r.efficiency),
            ]
            .map(|s| Cell::new(s).set_alignment(CellAlignment::Right)),
        );
    }
    writeln!(out, "{table}")?;
    Ok(true)
}
