//! `treelb-bench`: treelb against rayon, chili, the sequential baseline and
//! the C reference of UTS, in one command.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use treelb_bench::child::ChildReport;
use treelb_bench::forkjoin::STACK_BYTES;
use treelb_bench::machine::Machine;
use treelb_bench::suite::{FULL, Plan, QUICK};
use treelb_bench::uts_c::UtsC;
use treelb_bench::workload::{Engine, Workload};

/// Runs the same application node code under the sequential baseline,
/// treelb (P = 1, cores, 2× and 4× cores), rayon and chili (and the C
/// reference `uts-seq` with `--uts-c`), fastest of N runs each in its own
/// process, and writes the table as markdown and JSON.
#[derive(Debug, Parser)]
#[command(name = "treelb-bench", version)]
struct Args {
    /// Small trees (T1, T3, N-Queens 12): a smoke test of every engine.
    #[arg(long)]
    quick: bool,
    /// Comma-separated workloads (UTS sample trees such as T1L, nqueens:N,
    /// clique:NAME of ../shared/instances/clique, knapsack:CLASS:N:R:SEED);
    /// overrides the default set.
    #[arg(long, value_delimiter = ',')]
    workloads: Option<Vec<String>>,
    /// Comma-separated engines to run (default: all of seq, uts-c, treelb,
    /// rayon-join, rayon-cutoff, chili-join, chili-cutoff).
    #[arg(long, value_delimiter = ',')]
    engines: Option<Vec<Engine>>,
    /// Runs per configuration; the fastest counts.
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    /// The depth above which the cutoff variants of rayon and chili fork
    /// (default: per workload, see the report).
    #[arg(long)]
    cutoff_depth: Option<u32>,
    /// Folder with the C reference's sources (uts.c, uts.h, a depth-first
    /// driver, rng/brg_sha1.c and headers); also read from TREELB_UTS_C.
    #[arg(long)]
    uts_c: Option<PathBuf>,
    /// Where to write engines.md and engines.json
    /// (default: docs/benchmarks/<date>-<machine>/).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print the table only; write no files.
    #[arg(long)]
    no_write: bool,

    /// Internal: run one measurement in this process and print its report.
    #[arg(long, hide = true, requires = "workload")]
    one: Option<Engine>,
    /// Internal: the workload of `--one`.
    #[arg(long, hide = true)]
    workload: Option<Workload>,
    /// Internal: the PEs of `--one`.
    #[arg(long, hide = true, default_value_t = 1)]
    threads: usize,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match (args.one, &args.workload) {
        (Some(engine), Some(workload)) => one(engine, workload, args.threads, args.cutoff_depth),
        _ => suite(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("treelb-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// One measurement, in a child process: the report is one JSON line.
fn one(engine: Engine, workload: &Workload, threads: usize, cutoff: Option<u32>) -> Result<(), String> {
    if engine.is_chili() && std::env::var_os("RUST_MIN_STACK").is_none() {
        return Err(format!("chili's workers need RUST_MIN_STACK (the suite sets it to {STACK_BYTES})"));
    }
    let (time, answer) = workload.run(engine, threads, cutoff)?;
    let report = ChildReport { wall_secs: time.as_secs_f64(), answer };
    println!("{}", serde_json::to_string(&report).map_err(|e| e.to_string())?);
    Ok(())
}

fn suite(args: &Args) -> Result<(), String> {
    if args.repeat == 0 {
        return Err("--repeat must be at least 1".to_owned());
    }
    let names: Vec<String> = match &args.workloads {
        Some(list) => list.clone(),
        None if args.quick => QUICK.map(str::to_owned).to_vec(),
        None => FULL.map(str::to_owned).to_vec(),
    };
    let workloads = names.iter().map(|n| n.parse()).collect::<Result<Vec<Workload>, _>>()?;
    let machine = Machine::detect();
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let uts_c_dir = args.uts_c.clone().or_else(|| std::env::var_os("TREELB_UTS_C").map(PathBuf::from));
    let (uts_c, uts_c_note) = match &uts_c_dir {
        None => (
            None,
            "not measured: the reference's C sources are not part of this repository; pass \
             --uts-c DIR (or TREELB_UTS_C=DIR) with uts.c, uts.h, its depth-first driver and rng/ to \
             build and run it."
                .to_owned(),
        ),
        Some(dir) => {
            let out = exe.parent().map_or_else(|| PathBuf::from("."), |p| p.join("uts-c"));
            let built = UtsC::build(dir, &out)?;
            (Some(built), format!("`uts-seq` built from {}", dir.display()))
        }
    };
    let plan = Plan {
        workloads,
        engines: args.engines.clone().unwrap_or_else(|| Engine::ALL.to_vec()),
        repeat: args.repeat,
        cores: machine.cores,
        cutoff: args.cutoff_depth,
        uts_c,
        uts_c_note,
        exe,
    };
    let command = std::env::args()
        .enumerate()
        .map(|(i, a)| if i == 0 { "treelb-bench".to_owned() } else { a })
        .collect::<Vec<_>>()
        .join(" ");
    let out = args.out.clone().unwrap_or_else(|| {
        PathBuf::from("docs/benchmarks").join(format!("{}-{}", machine.date, machine.slug()))
    });
    // SAFETY: getpriority reads the calling process's nice value; no pointers.
    let nice = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
    let report = plan.run(command, machine, nice)?;
    let markdown = report.markdown();
    println!("{markdown}");
    if !args.no_write {
        std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        let json = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        for (name, text) in [("engines.md", markdown), ("engines.json", json + "\n")] {
            let path = out.join(name);
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        eprintln!("treelb-bench: wrote {}/engines.md and engines.json", out.display());
    }
    Ok(())
}
