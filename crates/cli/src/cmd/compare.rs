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

use treelb_bench::compare::{Comparison, Plan, across_ranks};
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
        strategies: harness::strategies(&args.strategies).map_err(|e| err!("{e}"))?,
        threads: 0,
        repeat: args.repeat,
        timeout: args.timeout,
        budget: args.budget.budget,
        init: args.init.0,
    };
    if args.runtime.available()?.name() == "mpi" {
        across_ranks(&plan.workload).map_err(|e| err!("--runtime mpi: {e}"))?;
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

/// Prints the comparison: JSON, markdown or a table.
fn print(report: &Comparison, args: &CompareArgs, out: &mut impl Write) -> Result<bool, Error> {
    let command = format!("treelb {}", std::env::args().skip(1).collect::<Vec<_>>().join(" "));
    if let Some(path) = &args.html {
        // Written after the report, see `crate::outputs`.
        let page = report.html(&command);
        crate::outputs::later("--html", path, move |w| w.write_all(page.as_bytes()));
    }
    if args.json {
        serde_json::to_writer_pretty(&mut *out, report)?;
        writeln!(out)?;
    } else if args.markdown {
        write!(out, "{}", report.markdown(&command))?;
    } else {
        write!(out, "{}", report.text())?;
    }
    Ok(true)
}
