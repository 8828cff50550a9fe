//! `--checkpoint FILE --checkpoint-every DURATION` and `treelb resume FILE`:
//! a long run writes its state to FILE every DURATION, and a run that died
//! (a node crashed, the job was killed) continues from the last checkpoint
//! with exactly the answer an uninterrupted run gives.
//!
//! The protocol, the file and its safety are the library's
//! ([`treelb_checkpoint`], its [`Plan`]); this module turns the options
//! into a plan and stores the command line as the run's description (so
//! that `resume` rebuilds the same computation).

use std::sync::{Arc, OnceLock};

use treelb_checkpoint::{DEFAULT_EVERY, Plan, Saved};

use crate::apps::Runtime;
use crate::args::CheckpointArgs;
use crate::error::{Error, err};

/// What `treelb resume` hands to the command it re-runs.
struct Resuming {
    saved: Arc<Saved>,
    argv: Vec<String>,
}

static RESUMING: OnceLock<Resuming> = OnceLock::new();

/// Makes the next run command continue from `saved` (called by `treelb
/// resume` before it runs the saved command line `argv`).
pub(crate) fn set_resuming(saved: Saved, argv: Vec<String>) {
    let _ = RESUMING.set(Resuming { saved: Arc::new(saved), argv });
}

/// The plan of `--checkpoint` and `--checkpoint-every`, if checkpointing.
/// On threads the path is checked at once, before the input is read (see
/// [`Checkpoint::create`](treelb_checkpoint::Checkpoint::create)); across
/// MPI ranks rank 0 checks it when the run starts.
pub(crate) fn plan(args: &CheckpointArgs, kind: Runtime) -> Result<Option<Plan>, Error> {
    let Some(path) = &args.checkpoint else {
        return Ok(None);
    };
    if path.is_empty() {
        return Err(err!("--checkpoint expects a file name, got an empty one"));
    }
    let every = args.checkpoint_every.unwrap_or(DEFAULT_EVERY);
    if every < treelb_checkpoint::MIN_EVERY {
        return Err(err!("--checkpoint-every {every:?} is below the least interval, 1ms"));
    }
    let (argv, resume) = match RESUMING.get() {
        Some(r) => (r.argv.clone(), Some(r.saved.clone())),
        None => (std::env::args().skip(1).collect(), None),
    };
    let plan = Plan::new(path, every, argv, resume);
    if kind == Runtime::Threads {
        plan.check().map_err(|e| err!("--checkpoint {e}"))?;
    }
    Ok(Some(plan))
}
