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
use treelb_bench::peers::{Peer, PeerKind};
use treelb_bench::uts_c::UtsC;
use treelb_bench::workload::{Engine, RunOpts, Workload};
use treelb_threads::SUPPORTED_STRATEGIES;

use crate::args::BenchArgs;
use crate::config::{Error, err};

/// The comma-separated items of `list`, each parsed, the flag named in
/// every error.
fn list<T>(flag: &str, list: &str, parse: impl Fn(&str) -> Result<T, String>) -> Result<Vec<T>, Error> {
    let items = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| parse(s).map_err(|e| err!("{flag}: {e}")))
        .collect::<Result<Vec<T>, Error>>()?;
    if items.is_empty() {
        return Err(err!("{flag} is empty"));
    }
    Ok(items)
}

/// The strategies of `--strategies`: a list, or `all`.
pub(crate) fn strategies(value: &str) -> Result<Vec<Strategy>, Error> {
    if value.trim() == "all" {
        return Ok(SUPPORTED_STRATEGIES.to_vec());
    }
    list("--strategies", value, |name| {
        let strategy: Strategy = name.parse()?;
        if SUPPORTED_STRATEGIES.contains(&strategy) {
            Ok(strategy)
        } else {
            Err(format!("`{strategy}` does not run on the threads runtime"))
        }
    })
}

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

/// The peers the command line names, each checked to exist; `--uts-c` is
/// built first.
fn peers(args: &BenchArgs, scratch: &std::path::Path) -> Result<Vec<Peer>, Error> {
    let mut peers = Vec::new();
    if let Some(path) = &args.uts_seq {
        peers.push(Peer::new("uts-seq", PeerKind::UtsSeq, path).map_err(|e| err!("--uts-seq: {e}"))?);
    }
    let uts_c = args.uts_c.clone().or_else(|| std::env::var_os("TREELB_UTS_C").map(PathBuf::from));
    if let Some(dir) = uts_c {
        let built = UtsC::build(&dir, &scratch.join("uts-c")).map_err(|e| err!("--uts-c: {e}"))?;
        eprintln!("treelb bench: built the UTS reference: {}", built.build_command);
        peers.push(Peer::uts_c(&built));
    }
    if let Some(path) = &args.glasgow {
        peers.push(Peer::new("glasgow", PeerKind::Glasgow, path).map_err(|e| err!("--glasgow: {e}"))?);
    }
    if let Some(path) = &args.cliquer {
        peers.push(Peer::new("cliquer", PeerKind::Cliquer, path).map_err(|e| err!("--cliquer: {e}"))?);
    }
    for spec in &args.nqueens_peer {
        peers.push(Peer::nqueens(spec).map_err(|e| err!("--nqueens-peer: {e}"))?);
    }
    if let Some(path) = &args.c4solver {
        peers.push(Peer::new("c4solver", PeerKind::C4solver, path).map_err(|e| err!("--c4solver: {e}"))?);
    }
    Ok(peers)
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
        Some(w) => list("--workloads", w, str::parse::<Workload>)?,
        None => {
            suite.workloads().iter().map(|w| w.parse()).collect::<Result<_, _>>().map_err(|e| err!("{e}"))?
        }
    };
    let engines = match &args.engines {
        Some(e) => list("--engines", e, str::parse::<Engine>)?,
        None => suite.engines(),
    };
    let threads = match &args.threads {
        Some(p) => list("--threads", p, |p| {
            p.parse()
                .ok()
                .filter(|&p| (1..=4096).contains(&p))
                .ok_or_else(|| format!("`{p}` is not a number of PEs from 1 to 4096"))
        })?,
        None => suite.threads(cores),
    };
    let scratch = std::env::temp_dir().join(format!("treelb-bench-{}", std::process::id()));
    let peers = peers(args, &scratch)?;
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
        strategies: strategies(&args.strategies)?,
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
