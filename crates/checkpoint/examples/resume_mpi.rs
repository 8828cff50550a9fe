//! The `resume` example across MPI ranks: it counts the Langford pairings
//! L(2, N) on every rank that `mpirun` started, rank 0 writing a checkpoint
//! every 100 ms (or every EVERY_MS milliseconds, a third argument). Killed at any moment (a rank killed with SIGKILL ends the
//! job) and started again with the same arguments, on any number of
//! ranks, it continues from its last checkpoint and prints the same count
//! an uninterrupted run prints.
//!
//! ```text
//! cargo build --release -p treelb-checkpoint --features mpi --example resume_mpi
//! mpirun -np 2 target/release/examples/resume_mpi langford.ckpt 12
//! L(2,12) = 108144 (new run, 5 checkpoints, 2 ranks)
//! ```
//!
//! (Published: L(2,11) = 17792, L(2,12) = 108144; OEIS A014552.)

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use treelb::search::SplitPolicy;
use treelb_apps::langford::Langford;
use treelb_checkpoint::{Checkpoint, Error, run_mpi};
use treelb_mpi::wire::DfsCodec;
use treelb_mpi::{Config, Mpi, Run};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(file), Some(n)) = (args.first(), args.get(1).and_then(|a| a.parse::<u32>().ok())) else {
        eprintln!("usage: mpirun -np R resume_mpi CHECKPOINT N [EVERY_MS]   (N from 1 to 16)");
        return ExitCode::from(2);
    };
    let every = match args.get(2).map(|a| a.parse::<u64>()) {
        None => Duration::from_millis(100),
        Some(Ok(ms)) if ms >= 1 => Duration::from_millis(ms),
        Some(_) => {
            eprintln!("EVERY_MS is a number of milliseconds, at least 1, got {}", args[2]);
            return ExitCode::from(2);
        }
    };
    if !(1..=16).contains(&n) {
        eprintln!("N from 1 to 16, got {n}");
        return ExitCode::from(2);
    }
    let mpi = match Mpi::init(1) {
        Ok(mpi) => mpi,
        Err(e) => {
            eprintln!("resume_mpi: {e}");
            return ExitCode::from(2);
        }
    };
    match count(&mpi, Path::new(file), n, every) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("resume_mpi: {e}");
            ExitCode::from(2)
        }
    }
}

fn count(mpi: &Mpi, file: &Path, n: u32, every: Duration) -> Result<(), Error> {
    let description = vec!["langford".to_owned(), n.to_string()];
    let search = Langford::new(n);
    let codec = DfsCodec::new(&search, SplitPolicy::OldestHalf);
    // Rank 0 continues the run the file holds, or starts one.
    let mut resuming = false;
    let open = || {
        resuming = std::fs::metadata(file).is_ok_and(|m| m.len() > 0);
        let checkpoint = if resuming { Checkpoint::resume(file)? } else { Checkpoint::create(file)? };
        if resuming && checkpoint.description() != description {
            return Err(Error::Mismatch {
                path: file.to_owned(),
                reason: format!("a checkpoint of {:?}, not of {description:?}", checkpoint.description()),
            });
        }
        Ok(checkpoint.every(every)?.describe(description.clone()))
    };
    let run = Run::new(Config::default());
    let done = run_mpi(mpi, &run, open, &codec, codec.root(), None)?;
    if let Some(done) = done {
        let how = if resuming { "resumed" } else { "new run" };
        let plural = if done.checkpoints == 1 { "" } else { "s" };
        println!(
            "L(2,{n}) = {} ({how}, {} checkpoint{plural}, {} ranks)",
            Langford::pairings(done.output),
            done.checkpoints,
            mpi.size()
        );
    }
    Ok(())
}
