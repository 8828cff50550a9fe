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

use treelb::Strategy;

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
    let threads = match &args.threads {
        None => 1,
        Some(p) => p.trim().parse().ok().filter(|&p| (1..=4096).contains(&p)).ok_or_else(|| {
            err!("--threads: `{p}` is not a number of PEs from 1 to 4096 (--one takes one)")
        })?,
    };
    let strategy = match &args.strategy {
        None => Strategy::default(),
        Some(s) => s.parse().map_err(|e| err!("--strategy: {e}"))?,
    };
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
    // Every workload is checked before the first one runs.
    let workloads = match &args.workloads {
        Some(w) => harness::list("--workloads", w, str::parse::<Workload>).map_err(|e| err!("{e}"))?,
        None => {
            suite.workloads().iter().map(|w| w.parse()).collect::<Result<_, _>>().map_err(|e| err!("{e}"))?
        }
    };
    let engines = match &args.engines {
        Some(e) => harness::list("--engines", e, str::parse::<Engine>).map_err(|e| err!("{e}"))?,
        None => suite.engines(),
    };
    let threads = match &args.threads {
        Some(p) => harness::list("--threads", p, harness::pes).map_err(|e| err!("{e}"))?,
        None => suite.threads(cores),
    };
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
