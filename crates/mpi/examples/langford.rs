//! A search of one's own across MPI ranks: the Langford pairings L(2, N)
//! (the sequences of 1, 1, 2, 2, …, N, N in which the two k's are k
//! numbers apart), counted on every rank that `mpirun` started, under an
//! optional deadline in seconds.
//!
//! ```text
//! cargo build --release -p treelb-mpi --features mpi --example langford
//! mpirun -np 2 target/release/examples/langford 12
//! L(2,12) = 108144 (2 ranks)
//! mpirun -np 2 target/release/examples/langford 16 0.5
//! stopped by the deadline: 1234567 sequences found in time (2 ranks)
//! ```
//!
//! (Published: L(2,11) = 17792, L(2,12) = 108144; OEIS A014552.)

use std::process::ExitCode;
use std::time::Duration;

use treelb::search::SplitPolicy;
use treelb_apps::langford::Langford;
use treelb_mpi::wire::DfsCodec;
use treelb_mpi::{Config, Mpi, Run};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n = args.first().and_then(|a| a.parse::<u32>().ok()).filter(|n| (1..=16).contains(n));
    let deadline = match args.get(1).map(|s| s.parse::<f64>()) {
        None => Ok(None),
        Some(Ok(s)) if s.is_finite() && s >= 0.0 => Ok(Some(Duration::from_secs_f64(s))),
        Some(_) => Err(()),
    };
    let (Some(n), Ok(deadline)) = (n, deadline) else {
        eprintln!("usage: mpirun -np R langford N [SECONDS]   (N from 1 to 16)");
        return ExitCode::from(2);
    };
    let mpi = match Mpi::init(1) {
        Ok(mpi) => mpi,
        Err(e) => {
            eprintln!("langford: {e}");
            return ExitCode::from(2);
        }
    };
    let search = Langford::new(n);
    let codec = DfsCodec::new(&search, SplitPolicy::OldestHalf);
    let mut run = Run::new(Config::default());
    if let Some(deadline) = deadline {
        run = run.deadline(deadline);
    }
    match run.run(&mpi, &codec, codec.root()) {
        // Rank 0 reports.
        Ok(Some(outcome)) => {
            let ranks = outcome.ranks;
            match outcome.stopped {
                None => println!("L(2,{n}) = {} ({ranks} ranks)", Langford::pairings(outcome.output)),
                Some(reason) => {
                    println!(
                        "stopped by {reason}: {} sequences found in time ({ranks} ranks)",
                        outcome.output
                    )
                }
            }
            ExitCode::SUCCESS
        }
        Ok(None) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("langford: {e}");
            ExitCode::from(2)
        }
    }
}
