//! `treelb bench`: the front end of the benchmark harness
//! ([`treelb_bench::harness`]). It turns the command line into a
//! [`Matrix`], runs it (each engine's run is this program started again with
//! `bench --one …`, each peer's run the peer's own program), prints the
//! report and writes it to `bench-results/DATE-MACHINE/` in the current
//! directory (`--out DIR` elsewhere: a run to keep goes under
//! `docs/benchmarks/`, with a README that says what it answers). A wrong answer,
//! a failed run or a run past `--timeout` makes the exit code 1.

use std::io::Write;
use std::path::PathBuf;

/// Where `treelb bench` writes its results without `--out`: a folder of the
/// current directory, outside the documentation.
pub(crate) const DEFAULT_OUT: &str = "bench-results";
use treelb_bench::harness::{self, Matrix, Suite};
use treelb_bench::host::Host;
use treelb_bench::peers::PeerPaths;
use treelb_bench::workload::{Engine, RunOpts, Workload};

use crate::args::BenchArgs;
use crate::config::{Error, err};

/// One measurement in this process (`--one`): what each engine's child
/// process does.
fn one(args: &BenchArgs, engine: &str, out: &mut impl Write) -> Result<bool, Error> {
    let engine: Engine = engine.parse().map_err(|e| err!("--one: {e}"))?;
    let spec = args.workload.as_deref().unwrap_or_default();
    let workload: Workload = spec.parse().map_err(|e| err!("--workload: {e}"))?;
    let (threads, strategy) =
        harness::one_options(args.threads.as_deref(), args.strategy.as_deref()).map_err(|e| err!("{e}"))?;
    let opts = RunOpts {
        threads,
        cutoff: args.cutoff_depth,
        strategy,
        budget: args.budget.budget,
        init: Some(args.init.0),
    };
    let line = harness::one(engine, &workload, &opts).map_err(|e| err!("{workload} on {engine}: {e}"))?;
    writeln!(out, "{line}")?;
    Ok(true)
}

pub(crate) fn run(args: &BenchArgs, out: &mut impl Write) -> Result<bool, Error> {
    if let Some(engine) = &args.one {
        return one(args, engine, out);
    }
    let suite: Suite = match &args.suite {
        None => Suite::Quick,
        Some(name) => name.parse().map_err(|e| err!("{e}"))?,
    };
    let machine = Host::detect();
    let cores = machine.cores;
    let lists =
        suite.lists(args.workloads.as_deref(), args.engines.as_deref(), args.threads.as_deref(), cores);
    let harness::Lists { workloads, engines, threads } = lists.map_err(|e| err!("{e}"))?;
    let scratch = std::env::temp_dir().join(format!("treelb-bench-{}", std::process::id()));
    let paths = PeerPaths {
        uts_seq: args.uts_seq.clone(),
        uts_c: args.uts_c.clone(),
        glasgow: args.glasgow.clone(),
        cliquer: args.cliquer.clone(),
        nqueens: args.nqueens_peer.clone(),
        c4solver: args.c4solver.clone(),
    };
    let built = |command: &str| eprintln!("treelb bench: built the UTS reference: {command}");
    let peers = paths.peers(&scratch, built).map_err(|e| err!("{e}"))?;
    let out_dir = if args.no_write {
        None
    } else {
        Some(args.out.clone().unwrap_or_else(|| {
            PathBuf::from(DEFAULT_OUT).join(format!("{}-{}", machine.date, machine.slug()))
        }))
    };
    if let Some(dir) = &out_dir {
        // Refuse an unwritable folder before the runs, not after them.
        crate::outputs::check_folder("--out", dir)?;
    }
    let exe = std::env::current_exe().map_err(|e| err!("cannot find this program: {e}"))?;
    let plan = Matrix {
        workloads,
        engines,
        strategies: harness::strategies(&args.strategies).map_err(|e| err!("{e}"))?,
        threads,
        cores,
        repeat: args.repeat,
        timeout: args.timeout,
        cutoff: args.cutoff_depth,
        budget: args.budget.budget,
        init: Some(args.init.0),
        peers,
        child: vec![exe.into_os_string(), "bench".into()],
        scratch: scratch.clone(),
        progress: crate::config::feedback(&args.feedback).on(),
    };
    let command = harness::command_line("treelb", std::env::args().skip(1));
    let report = plan.run(command, machine, treelb_bench::host::nice()).map_err(|e| err!("{e}"));
    std::fs::remove_dir_all(&scratch).ok();
    let report = report?;
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", report.markdown())?;
    }
    if let Some(dir) = &out_dir {
        // After the report: a failure here loses no result (exit code 4).
        out.flush()?;
        report
            .write(dir)
            .map_err(|e| Error::Unwritten(format!("--out: {e}; the report above is complete without it")))?;
        eprintln!(
            "treelb bench: wrote {}/results.md, results.json, command.txt and machine.txt",
            treelb_apps::input::escape_path(dir)
        );
    }
    for failure in &report.failures {
        eprintln!("treelb bench: {failure}");
    }
    Ok(report.ok())
}
