//! `treelb compare`: every strategy on one workload, side by side — a thin
//! alias of the benchmark harness: `treelb compare W --strategies LIST -p P`
//! runs what `treelb bench --workloads W --engines seq,treelb --strategies
//! LIST -p P` runs ([`super::bench`]), and prints it as the strategies'
//! table with their balancing counters. The runs, the ratios and the rows
//! are [`treelb_bench::compare`]'s: each strategy `repeat` times, each run
//! in its own process with a time limit and its answer checked, the
//! fastest reported; with `--runtime mpi` (under `mpirun`) across the
//! ranks, rank 0 printing the median of `repeat` runs.

use std::io::Write;

use comfy_table::{Cell, CellAlignment, Table, presets::UTF8_FULL_CONDENSED};
use treelb_bench::compare::{Comparison, Plan, Row, runs_across_ranks};
use treelb_bench::harness;
use treelb_bench::workload::Workload;

use crate::args::CompareArgs;
use crate::config::{Error, err, threads};

pub(crate) fn run(args: &CompareArgs, out: &mut impl Write) -> Result<bool, Error> {
    if let Some(path) = &args.html {
        // Refuse an unwritable page before the runs, not after them.
        crate::outputs::check("--html", path)?;
    }
    let workload: Workload = args.workload.parse().map_err(|e| err!("{e}"))?;
    let mut plan = Plan {
        workload,
        strategies: super::bench::strategies(&args.strategies)?,
        threads: 0,
        repeat: args.repeat,
        timeout: args.timeout,
        budget: args.budget.budget,
        init: args.init.0,
    };
    if args.runtime.available()?.name() == "mpi" {
        if matches!(plan.workload, Workload::Mandelbrot { .. }) {
            return Err(err!(
                "--runtime mpi: compare runs the searches (UTS trees, nqueens:N) across ranks, not the Mandelbrot set"
            ));
        }
        if !runs_across_ranks(&plan.workload) {
            let w = &plan.workload;
            return Err(err!("--runtime mpi: compare runs UTS trees and nqueens:N across ranks, not {w}"));
        }
        #[cfg(feature = "mpi")]
        {
            plan.threads = args.threads.unwrap_or(1);
            let Some(report) = plan.run_mpi().map_err(|e| err!("{e}"))? else { return Ok(true) };
            return print(&report, args, out);
        }
        #[cfg(not(feature = "mpi"))]
        unreachable!("--runtime mpi is refused without the feature");
    }
    plan.threads = threads(args.threads);
    let exe = std::env::current_exe().map_err(|e| err!("cannot find this program: {e}"))?;
    let command = harness::command_line("treelb", std::env::args().skip(1));
    let (report, failures) =
        plan.run(vec![exe.into_os_string(), "bench".into()], command).map_err(|e| err!("{e}"))?;
    let printed = print(&report, args, out)?;
    for failure in &failures {
        eprintln!("treelb compare: {failure}");
    }
    Ok(printed && failures.is_empty())
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

/// A row's cells, under [`HEADER`].
fn cells(r: &Row) -> [String; 10] {
    let [speedup, efficiency] = r.figures();
    let t = &r.traffic;
    [
        r.strategy.to_string(),
        format!("{:.3}", r.wall_secs),
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

/// The comparison as one HTML page: what ran, the table, the efficiencies
/// as bars.
fn html_page(report: &Comparison) -> String {
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
    let rows: Vec<[String; 10]> = report.rows.iter().map(cells).collect();
    page.heading("Strategies side by side").table(&HEADER, &rows);
    page.paragraph(&report.legend());
    let bars: Vec<(String, f64)> =
        report.rows.iter().map(|r| (r.strategy.to_string(), r.efficiency)).collect();
    page.heading("Efficiency: T_seq / (P · T_P)").svg(&crate::html::bar_chart("efficiency", &bars, 1.0));
    page.finish()
}

/// Prints the comparison: JSON, markdown or a table.
fn print(report: &Comparison, args: &CompareArgs, out: &mut impl Write) -> Result<bool, Error> {
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
        report.init,
        report.reported,
        report.repeat,
        report.seq_secs,
        report.machine
    );
    if args.markdown {
        let command: Vec<String> = std::env::args().skip(1).collect();
        writeln!(out, "`treelb {}`\n\n{heading}\n", command.join(" "))?;
        writeln!(out, "| {} |\n|{}", HEADER.join(" | "), "---|".repeat(HEADER.len()))?;
        for r in &report.rows {
            writeln!(out, "| {} |", cells(r).join(" | "))?;
        }
        writeln!(out, "\n{}", report.legend())?;
        return Ok(true);
    }
    writeln!(out, "{heading}")?;
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED);
    table.set_header(HEADER);
    for r in &report.rows {
        table.add_row(cells(r).map(|s| Cell::new(s).set_alignment(CellAlignment::Right)));
    }
    writeln!(out, "{table}")?;
    writeln!(out, "{}", report.legend())?;
    Ok(true)
}
