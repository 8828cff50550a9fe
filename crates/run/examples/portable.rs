//! One program, threads or MPI by one setting: a 0/1 knapsack (Pisinger's
//! strongly correlated class, N items) solved by branch and bound under a
//! deadline, with an optional checkpoint file, reporting the best packing's
//! value and the bound the run proved.
//!
//! ```text
//! cargo build --release -p treelb-run --example portable
//! target/release/examples/portable --threads 2 80 60
//! optimum 250061, proven optimal (1 rank × 2 threads)
//!
//! cargo build --release -p treelb-run --features mpi --example portable
//! mpirun -np 2 target/release/examples/portable --mpi 80 60
//! optimum 250061, proven optimal (2 ranks × 1 threads)
//! mpirun -np 2 target/release/examples/portable --mpi 400 0.2
//! stopped by the deadline: best 1234567, proven bound ≤ 1234600, gap 0.0027 % (2 ranks × 1 threads)
//! ```
//!
//! With `--checkpoint FILE` the run writes its state there every 100 ms;
//! `--resume FILE` continues from it.

use std::process::ExitCode;
use std::time::Duration;

use treelb::search::SplitPolicy;
use treelb_apps::knapsack::{Class, Knapsack, Spec};
use treelb_checkpoint::Checkpoint;
use treelb_run::{Pes, Run, RunSpec};

const USAGE: &str = "usage: portable [--mpi] [--threads P] [--checkpoint FILE | --resume FILE] N SECONDS   (N items, 1 to 10000)";

/// The command line.
struct Args {
    mpi: bool,
    threads: usize,
    checkpoint: Option<(String, bool)>,
    items: usize,
    seconds: f64,
}

fn parse() -> Option<Args> {
    let mut args = std::env::args().skip(1);
    let (mut mpi, mut threads, mut checkpoint, mut rest) = (false, None, None, Vec::new());
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--mpi" => mpi = true,
            "--threads" => threads = Some(args.next()?.parse().ok().filter(|&p| p >= 1)?),
            "--checkpoint" => checkpoint = Some((args.next()?, false)),
            "--resume" => checkpoint = Some((args.next()?, true)),
            _ => rest.push(arg),
        }
    }
    let [items, seconds] = rest.as_slice() else { return None };
    Some(Args {
        mpi,
        threads: threads.unwrap_or(if mpi { 1 } else { 2 }),
        checkpoint,
        items: items.parse().ok().filter(|n| (1..=10_000).contains(n))?,
        seconds: seconds.parse().ok().filter(|s: &f64| s.is_finite() && *s >= 0.0)?,
    })
}

fn main() -> ExitCode {
    let Some(args) = parse() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    #[cfg(feature = "mpi")]
    let mpi = match args.mpi.then(|| treelb_mpi::Mpi::init(args.threads)).transpose() {
        Ok(mpi) => mpi,
        Err(e) => {
            eprintln!("portable: {e}");
            return ExitCode::from(2);
        }
    };
    // The one setting: where the PEs are.
    let pes = match args.mpi {
        false => Pes::Threads(args.threads),
        #[cfg(feature = "mpi")]
        true => Pes::Mpi(mpi.as_ref().expect("initialized above")),
        #[cfg(not(feature = "mpi"))]
        true => {
            eprintln!("portable: --mpi needs the build with `--features mpi`");
            return ExitCode::from(2);
        }
    };

    let instance = Spec::new(Class::StronglyCorrelated, args.items, 10_000, 2).generate();
    let search = Knapsack::new(&instance);
    let mut run = Run::new(RunSpec::default()).deadline(Duration::from_secs_f64(args.seconds));
    if let Some((path, resume)) = args.checkpoint {
        run = run.checkpoint(move || match resume {
            true => Checkpoint::resume(path),
            false => Checkpoint::create(path)?.every(Duration::from_millis(100)),
        });
    }
    let outcome = match run.run_bnb(pes, &search, SplitPolicy::OldestHalf, &search.incumbent) {
        Ok(Some(outcome)) => outcome,
        // Another MPI rank: rank 0 reports.
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("portable: {e}");
            return ExitCode::FAILURE;
        }
    };
    let where_ = format!(
        "{} rank{} × {} threads",
        outcome.ranks,
        if outcome.ranks == 1 { "" } else { "s" },
        outcome.threads
    );
    let best = search.incumbent.best().map_or_else(|| "none".to_owned(), |v| v.to_string());
    let proof = outcome.bound.expect("a branch and bound's outcome has its proof");
    match outcome.stopped {
        None => println!("optimum {best}, proven optimal ({where_})"),
        Some(reason) => {
            let bound = proof.bound.map_or_else(|| "none".to_owned(), |b| format!("≤ {b}"));
            let gap = proof.gap.map_or_else(|| "unknown".to_owned(), |g| format!("{:.4} %", 100.0 * g));
            println!("stopped by {reason}: best {best}, proven bound {bound}, gap {gap} ({where_})");
        }
    }
    ExitCode::SUCCESS
}
