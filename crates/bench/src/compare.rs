//! Every strategy on one workload, side by side: the comparison behind
//! `treelb compare`.
//!
//! A [`Plan`] names the workload, the strategies and the number of PEs.
//! [`Plan::run`] runs it in the [`harness`](crate::harness): the sequential baseline and
//! treelb per strategy, each run in its own process with a time limit and
//! its answer checked against the baseline's, the fastest of `repeat` runs
//! reported. With the feature `mpi`, `Plan::run_mpi` runs the searches
//! across the ranks `mpirun` started instead: every rank takes part in
//! every run in process, rank 0 runs the sequential baseline while the
//! others sleep, and the median of `repeat` runs is reported.
//!
//! Each [`Row`] holds a strategy's wall time, its speedup and efficiency
//! against the baseline, whether both runs were long enough for the ratio
//! to mean anything ([`MIN_MEASURED_WALL`]), and what the balancing cost in
//! that run ([`Traffic`]).

use std::ffi::OsString;
use std::time::Duration;

use comfy_table::{Cell, CellAlignment, Table, presets::UTF8_FULL_CONDENSED};
use serde::Serialize;
use treelb::spec::Budget;
use treelb::{Init, MIN_MEASURED_WALL, Strategy};

use crate::harness::{Matrix, Status};
use crate::host::Host;
use crate::html::{Page, bar_chart};
use crate::workload::{Engine, Traffic, Workload};

/// One strategy's reported run (the fastest; the median under MPI).
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The strategy.
    pub strategy: Strategy,
    /// Its wall time, seconds.
    pub wall_secs: f64,
    /// T_seq / T_P.
    pub speedup: f64,
    /// T_seq / (P · T_P): the speedup per PE.
    pub efficiency: f64,
    /// Whether both T_seq and T_P last at least [`MIN_MEASURED_WALL`]; a
    /// shorter run's speedup is shown as "too short to measure".
    pub measurable: bool,
    /// What balancing cost in this run.
    #[serde(flatten)]
    pub traffic: Traffic,
}

impl Row {
    /// The row of a run of `strategy` on `pes` PEs that took `wall_secs`,
    /// against a sequential baseline of `seq_secs`.
    pub fn new(strategy: Strategy, wall_secs: f64, pes: usize, seq_secs: f64, traffic: Traffic) -> Row {
        Row {
            strategy,
            wall_secs,
            speedup: seq_secs / wall_secs,
            efficiency: seq_secs / (pes as f64 * wall_secs),
            measurable: seq_secs.min(wall_secs) >= MIN_MEASURED_WALL.as_secs_f64(),
            traffic,
        }
    }

    /// The speedup and the efficiency as shown (three decimals), or "too
    /// short" twice when the runs were too short to measure.
    pub fn figures(&self) -> [String; 2] {
        if self.measurable {
            [format!("{:.3}", self.speedup), format!("{:.3}", self.efficiency)]
        } else {
            ["too short".to_owned(), "too short".to_owned()]
        }
    }
}

/// The comparison: what ran, where, and one [`Row`] per strategy that
/// completed.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// The workload (`T1`, `nqueens:10`).
    pub workload: String,
    /// The CPU model.
    pub machine: String,
    /// `threads` or `mpi`.
    pub runtime: &'static str,
    /// PEs in all.
    pub threads: usize,
    /// Δt.
    pub budget: Budget,
    /// How the root reached the PEs.
    pub init: Init,
    /// Runs per strategy.
    pub repeat: usize,
    /// Which of the `repeat` runs each row is: `fastest` or `median`.
    pub reported: &'static str,
    /// The sequential baseline's time, seconds.
    pub seq_secs: f64,
    /// One row per strategy, in the plan's order.
    pub rows: Vec<Row>,
}

impl Comparison {
    /// What the figures mean, for the line under the table; and, if a run
    /// was too short, why it shows none.
    pub fn legend(&self) -> String {
        let mut legend = "speedup = T_seq / T_P (the sequential baseline's time over the strategy's); \
                          efficiency = speedup / P"
            .to_owned();
        if self.rows.iter().any(|r| !r.measurable) {
            legend.push_str(&format!(
                "; \"too short\": T_seq or T_P under {} ms, where starting and stopping weigh more than the \
                 balancing (docs/benchmarks/2026-11-27-short-runs)",
                MIN_MEASURED_WALL.as_millis()
            ));
        }
        legend
    }
}

impl Row {
    /// The row's cells, under [`Comparison::HEADER`].
    pub fn cells(&self) -> [String; 10] {
        let [speedup, efficiency] = self.figures();
        let t = &self.traffic;
        [
            self.strategy.to_string(),
            format!("{:.3}", self.wall_secs),
            speedup,
            efficiency,
            t.requests_sent.to_string(),
            t.requests_failed.to_string(),
            t.pieces_transferred.to_string(),
            t.messages.to_string(),
            t.heap_ops.to_string(),
            format!("{:.1}", 100.0 * t.idle_fraction),
        ]
    }
}

impl Comparison {
    /// The columns of the comparison's table.
    pub const HEADER: [&str; 10] = [
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

    /// What ran, in one line above the table.
    pub fn heading(&self) -> String {
        let pes = if self.runtime == "mpi" { "MPI PEs" } else { "threads" };
        format!(
            "{} · {} {pes} · Δt {} · init {} · {} of {} · sequential {:.3} s ({})",
            self.workload,
            self.threads,
            self.budget,
            self.init,
            self.reported,
            self.repeat,
            self.seq_secs,
            self.machine
        )
    }

    /// The comparison as text: the heading, a table and the legend.
    pub fn text(&self) -> String {
        let mut table = Table::new();
        table.load_style(UTF8_FULL_CONDENSED);
        table.set_header(Self::HEADER);
        for r in &self.rows {
            table.add_row(r.cells().map(|s| Cell::new(s).set_alignment(CellAlignment::Right)));
        }
        format!("{}\n{table}\n{}\n", self.heading(), self.legend())
    }

    /// The comparison as Markdown, under the `command` that made it.
    pub fn markdown(&self, command: &str) -> String {
        let mut md = format!("`{command}`\n\n{}\n\n", self.heading());
        md.push_str(&format!("| {} |\n|{}\n", Self::HEADER.join(" | "), "---|".repeat(Self::HEADER.len())));
        for r in &self.rows {
            md.push_str(&format!("| {} |\n", r.cells().join(" | ")));
        }
        md.push_str(&format!("\n{}\n", self.legend()));
        md
    }

    /// The comparison as one HTML page ([`crate::html`]): the `command`
    /// that made it, what ran, the table, the efficiencies as bars.
    pub fn html(&self, command: &str) -> String {
        let mut page = Page::new(&format!("treelb compare {}", self.workload));
        page.code(command).paragraph(&format!(
            "{} runtime, {} PEs, Δt {}, init {}, {} of {} runs; sequential baseline {:.3} s; {}",
            self.runtime,
            self.threads,
            self.budget,
            self.init,
            self.reported,
            self.repeat,
            self.seq_secs,
            self.machine
        ));
        let rows: Vec<[String; 10]> = self.rows.iter().map(Row::cells).collect();
        page.heading("Strategies side by side").table(&Self::HEADER, &rows);
        page.paragraph(&self.legend());
        let bars: Vec<(String, f64)> =
            self.rows.iter().map(|r| (r.strategy.to_string(), r.efficiency)).collect();
        page.heading("Efficiency: T_seq / (P · T_P)").svg(&bar_chart("efficiency", &bars, 1.0));
        page.finish()
    }
}

/// What to compare.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The workload.
    pub workload: Workload,
    /// The strategies, in the order of the rows.
    pub strategies: Vec<Strategy>,
    /// PEs ([`Plan::run`]); threads per rank (`Plan::run_mpi`).
    pub threads: usize,
    /// Runs per strategy, at least 1.
    pub repeat: usize,
    /// The time limit of one run ([`Plan::run`]).
    pub timeout: Duration,
    /// Δt (default: the workload's).
    pub budget: Option<Budget>,
    /// How the root reaches the PEs.
    pub init: Init,
}

impl Plan {
    /// The Δt of the runs: the one given, or the workload's default.
    pub fn budget(&self) -> Budget {
        self.budget.unwrap_or(self.workload.default_budget())
    }

    /// Runs the sequential baseline and every strategy on the threads
    /// runtime, each run in its own process started by `child` (the program
    /// and the arguments before `--one`, see [`Matrix::child`]); `command`
    /// is the command line recorded in the harness's report. Returns the
    /// comparison and the failures, one line each (a strategy that failed
    /// has no row); an error if the baseline failed.
    pub fn run(&self, child: Vec<OsString>, command: String) -> Result<(Comparison, Vec<String>), String> {
        let machine = Host::detect();
        let p = self.threads;
        let matrix = Matrix {
            workloads: vec![self.workload.clone()],
            engines: vec![Engine::Seq, Engine::Treelb],
            strategies: self.strategies.clone(),
            threads: vec![p],
            cores: machine.cores,
            repeat: self.repeat,
            timeout: self.timeout,
            cutoff: None,
            budget: self.budget,
            init: Some(self.init),
            peers: Vec::new(),
            child,
            scratch: std::env::temp_dir().join(format!("treelb-compare-{}", std::process::id())),
            progress: false,
        };
        let report = matrix.run(command, machine, crate::host::nice())?;
        let w = &report.workloads[0];
        let seq_secs =
            w.rows.iter().find(|r| r.engine == "seq").and_then(|r| r.wall_secs).ok_or_else(|| {
                format!("{}: the sequential baseline failed: {}", w.workload, report.failures.join("; "))
            })?;
        let rows = w
            .rows
            .iter()
            .filter(|r| r.engine == "treelb" && r.status == Status::Ok)
            .filter_map(|r| {
                let strategy = r.strategy.as_deref()?.parse().ok()?;
                Some(Row::new(strategy, r.wall_secs?, p, seq_secs, r.balance?))
            })
            .collect();
        let comparison = Comparison {
            workload: w.workload.clone(),
            machine: report.machine.cpu_model.clone(),
            runtime: "threads",
            threads: p,
            budget: self.budget(),
            init: self.init,
            repeat: self.repeat,
            reported: "fastest",
            seq_secs,
            rows,
        };
        Ok((comparison, report.failures))
    }
}

/// Whether [`Plan::run_mpi`](Plan) runs `workload` across ranks: the UTS
/// trees and N-Queens.
pub fn runs_across_ranks(workload: &Workload) -> bool {
    matches!(workload, Workload::Uts(_) | Workload::NQueens { .. })
}

/// [`runs_across_ranks`], or why not, in one line.
///
/// ```
/// use treelb_bench::compare::across_ranks;
///
/// assert_eq!(across_ranks(&"T1".parse().unwrap()), Ok(()));
/// let e = across_ranks(&"knapsack:strongly-correlated:40:100:1".parse().unwrap()).unwrap_err();
/// assert!(e.starts_with("compare runs UTS trees and nqueens:N across ranks, not "), "{e}");
/// ```
pub fn across_ranks(workload: &Workload) -> Result<(), String> {
    match workload {
        Workload::Mandelbrot { .. } => {
            Err("compare runs the searches (UTS trees, nqueens:N) across ranks, not the Mandelbrot set"
                .into())
        }
        w if !runs_across_ranks(w) => {
            Err(format!("compare runs UTS trees and nqueens:N across ranks, not {w}"))
        }
        _ => Ok(()),
    }
}

#[cfg(feature = "mpi")]
mod mpi {
    use std::fmt::Debug;
    use std::time::{Duration, Instant};

    use serde::Serialize;
    use serde::de::DeserializeOwned;
    use treelb::search::Search;
    use treelb::{RunSpec, RunStats, SplitPolicy, Strategy, seq};
    use treelb_apps::nqueens::NQueens;
    use treelb_apps::uts::Uts;
    use treelb_mpi::wire::DfsCodec;

    use super::{Comparison, Plan, Row};
    use crate::host::Host;
    use crate::workload::{Traffic, Workload};

    impl Plan {
        /// Runs every strategy across the ranks `mpirun` started, with
        /// [`Plan::threads`] PEs per rank: every rank must call it. Rank 0
        /// runs the sequential baseline while the others wait, and gets the
        /// comparison (the median of `repeat` runs per strategy); the other
        /// ranks get `None`. An error if a run's answer differs from the
        /// baseline's, or the workload is not one that
        /// [`runs_across_ranks`](super::runs_across_ranks).
        pub fn run_mpi(&self) -> Result<Option<Comparison>, String> {
            let spec = RunSpec { budget: self.budget(), init: self.init, ..RunSpec::default() };
            let result = match &self.workload {
                Workload::Uts(tree) => {
                    let uts = Uts::new(tree.params()).map_err(|e| e.to_string())?;
                    across_ranks(&uts, self.threads, &spec, &self.strategies, self.repeat)?
                }
                Workload::NQueens { n, mirror } => {
                    let board = NQueens::new(*n).map_err(|e| e.to_string())?;
                    let search = board.with_bulk_rows(0).with_mirror(*mirror);
                    across_ranks(&search, self.threads, &spec, &self.strategies, self.repeat)?
                }
                other => {
                    return Err(format!("compare runs UTS trees and nqueens:N across ranks, not {other}"));
                }
            };
            Ok(result.map(|(seq_secs, pes, rows)| Comparison {
                workload: self.workload.to_string(),
                machine: Host::detect().cpu_model,
                runtime: "mpi",
                threads: pes,
                budget: spec.budget,
                init: spec.init,
                repeat: self.repeat,
                reported: "median",
                seq_secs,
                rows,
            }))
        }
    }

    /// Times `f` `repeat` times; returns the fastest time and the last value.
    fn time<T>(repeat: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
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

    /// A strategy's row: its median run against the sequential time.
    fn median_row(strategy: Strategy, mut runs: Vec<RunStats>, seq_secs: f64) -> Row {
        runs.sort_by_key(|r| r.wall);
        let median = &runs[runs.len() / 2];
        Row::new(strategy, median.wall.as_secs_f64(), median.pes.len(), seq_secs, Traffic::from(median))
    }

    /// Every strategy on `search` across the ranks: the baseline's time, the
    /// PEs and the rows on rank 0, `None` on the others.
    fn across_ranks<S>(
        search: &S,
        threads: usize,
        spec: &RunSpec,
        strategies: &[Strategy],
        repeat: usize,
    ) -> Result<Option<(f64, usize, Vec<Row>)>, String>
    where
        S: Search,
        S::Node: Clone + Serialize + DeserializeOwned,
        S::Output: PartialEq + Debug + Serialize + DeserializeOwned,
    {
        let mpi = treelb_mpi::Mpi::init(threads).map_err(|e| e.to_string())?;
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
                trace: false,
            };
            let mut runs: Vec<RunStats> = Vec::with_capacity(repeat);
            for _ in 0..repeat {
                let outcome =
                    treelb_mpi::run(&mpi, &codec, codec.root(), &config).map_err(|e| e.to_string())?;
                if let Some(outcome) = outcome {
                    let expected = &baseline.as_ref().expect("rank 0 ran the baseline").1;
                    if outcome.output != *expected {
                        return Err(format!(
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
                rows.push(median_row(strategy, runs, seq_secs));
            }
        }
        Ok(baseline.map(|(t, _)| (t.as_secs_f64(), pes, rows)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comparison(rows: Vec<Row>) -> Comparison {
        let workload = Workload::NQueens { n: 8, mirror: false };
        Comparison {
            workload: workload.to_string(),
            machine: String::new(),
            runtime: "threads",
            threads: 4,
            budget: workload.default_budget(),
            init: Init::Root,
            repeat: 1,
            reported: "fastest",
            seq_secs: 1.0,
            rows,
        }
    }

    #[test]
    fn a_row_shows_its_ratios_only_when_both_runs_are_long_enough() {
        let long = Row::new(Strategy::default(), 0.5, 4, 1.0, Traffic::default());
        assert_eq!((long.speedup, long.efficiency), (2.0, 0.5));
        assert_eq!(long.figures(), ["2.000", "0.500"]);
        let short = Row::new(Strategy::default(), 0.001, 4, 1.0, Traffic::default());
        assert!(!short.measurable);
        assert_eq!(short.figures(), ["too short", "too short"]);
        assert!(!comparison(vec![long.clone()]).legend().contains("too short"));
        assert!(comparison(vec![long, short]).legend().contains("\"too short\": T_seq or T_P under"));
    }

    #[test]
    fn a_row_serializes_its_traffic_inline() {
        let row = Row::new(Strategy::default(), 0.5, 4, 1.0, Traffic { messages: 7, ..Traffic::default() });
        let json = serde_json::to_value(&row).unwrap();
        assert_eq!(json["messages"], 7);
        assert_eq!(json["measurable"], true);
    }
}
