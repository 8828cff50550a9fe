//! A search of one's own that survives being killed: it counts the Langford
//! pairings L(2, N) — the sequences of 1, 1, 2, 2, …, N, N in which the two
//! k's are k numbers apart — on all cores, writing a checkpoint every
//! 100 ms. Killed at any moment (SIGKILL included) and started again with
//! the same arguments, it continues from its last checkpoint and prints the
//! same count an uninterrupted run prints.
//!
//! ```text
//! cargo run --release -p treelb-checkpoint --example resume -- langford.ckpt 12
//! L(2,12) = 108144 (new run, 4 checkpoints)
//! ```
//!
//! (Published: L(2,11) = 17792, L(2,12) = 108144; OEIS A014552.) The
//! search is `treelb_apps::langford`; `resume_mpi` is this example across
//! MPI ranks.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use treelb::search::SplitPolicy;
use treelb_apps::langford::Langford;
use treelb_checkpoint::{Checkpoint, Segment};
use treelb_mpi::wire::DfsCodec;
use treelb_threads::{Config, Run};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(file), Some(n)) = (args.first(), args.get(1).and_then(|a| a.parse::<u32>().ok())) else {
        eprintln!("usage: resume CHECKPOINT N   (N from 1 to 16)");
        return ExitCode::from(2);
    };
    if !(1..=16).contains(&n) {
        eprintln!("N from 1 to 16, got {n}");
        return ExitCode::from(2);
    }
    match count(Path::new(file), n) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("resume: {e}");
            ExitCode::from(2)
        }
    }
}

fn count(file: &Path, n: u32) -> Result<(), treelb_checkpoint::Error> {
    let description = vec!["langford".to_owned(), n.to_string()];
    // Continue the run the file holds, or start one.
    let resuming = file.exists() && std::fs::metadata(file).is_ok_and(|m| m.len() > 0);
    let checkpoint = if resuming { Checkpoint::resume(file)? } else { Checkpoint::create(file)? };
    if resuming && checkpoint.description() != description {
        eprintln!(
            "{}: a checkpoint of {:?}, not of {description:?}",
            file.display(),
            checkpoint.description()
        );
        std::process::exit(2);
    }
    let checkpoint = checkpoint.every(Duration::from_millis(100))?.describe(description);
    let search = Langford::new(n);
    let codec = DfsCodec::new(&search, SplitPolicy::OldestHalf);
    let done = checkpoint.run(&codec, codec.root(), None, |bag| {
        let outcome = Run::new(Config::default()).run(bag).expect("a valid configuration");
        Ok::<_, treelb_checkpoint::Error>(Segment::new(outcome.output, outcome.stats, outcome.stopped))
    })?;
    let how = if resuming { "resumed" } else { "new run" };
    let plural = if done.checkpoints == 1 { "" } else { "s" };
    println!(
        "L(2,{n}) = {} ({how}, {} checkpoint{plural})",
        Langford::pairings(done.output),
        done.checkpoints
    );
    Ok(())
}
