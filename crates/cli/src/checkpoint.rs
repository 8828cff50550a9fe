//! `--checkpoint FILE --checkpoint-every DURATION` and `treelb resume FILE`:
//! a long run writes its state to FILE every DURATION, and a run that died
//! (a node crashed, the job was killed) continues from the last checkpoint
//! with exactly the answer an uninterrupted run gives.
//!
//! The protocol, the file and its safety are the library's
//! ([`treelb_checkpoint`]); this module turns the options into a plan,
//! stores the command line as the run's description (so that `resume`
//! rebuilds the same computation) and runs the segments on the runtime the
//! command chose.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use treelb_checkpoint::{Checkpoint, DEFAULT_EVERY, Saved};

use crate::apps::Runtime;
use crate::args::CheckpointArgs;
use crate::error::{Error, err};

/// A run's checkpointing: where, how often, what to write as the run's
/// description, and the saved state it resumes.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// The checkpoint file.
    pub(crate) path: PathBuf,
    /// The time between two checkpoints.
    pub(crate) every: Duration,
    /// The command line after the program name, written into every
    /// checkpoint.
    pub(crate) argv: Vec<String>,
    /// The input file, once the command has named it.
    pub(crate) input: Option<PathBuf>,
    /// The state to continue from (`treelb resume`).
    pub(crate) resume: Option<Arc<Saved>>,
    /// The checkpoint the early check opened (threads), locked, kept for
    /// the run: no other run can take it between the check and the run.
    opened: Arc<Mutex<Option<Checkpoint>>>,
}

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

impl Plan {
    /// The plan of `--checkpoint` and `--checkpoint-every`, if
    /// checkpointing. On threads the path is checked at once, before the
    /// input is read (see [`Checkpoint::create`]); across MPI ranks rank 0
    /// checks it when the run starts.
    pub(crate) fn from_args(args: &CheckpointArgs, kind: Runtime) -> Result<Option<Plan>, Error> {
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
        let plan =
            Plan { path: PathBuf::from(path), every, argv, input: None, resume, opened: Arc::default() };
        if kind == Runtime::Threads {
            plan.check()?;
        }
        Ok(Some(plan))
    }

    /// Refuses a path the run could not write, or would destroy, and a
    /// checkpoint another run holds; keeps the checkpoint it opened, locked,
    /// for [`open`](Plan::open).
    fn check(&self) -> Result<(), Error> {
        let checkpoint = self.open_file().map_err(|e| err!("--checkpoint {e}"))?;
        *self.opened.lock().unwrap_or_else(PoisonError::into_inner) = Some(checkpoint);
        Ok(())
    }

    /// The checkpoint file, locked: a new one, or the one resumed.
    fn open_file(&self) -> Result<Checkpoint, treelb_checkpoint::Error> {
        match self.resume {
            None => Checkpoint::create(&self.path),
            Some(_) => Checkpoint::resume(&self.path),
        }
    }

    /// The checkpoint, locked for the run, as the run writes it: the one the
    /// early check opened, or (across MPI ranks, on rank 0) opened now.
    pub(crate) fn open(&self) -> Result<Checkpoint, treelb_checkpoint::Error> {
        let opened = self.opened.lock().unwrap_or_else(PoisonError::into_inner).take();
        let checkpoint = match opened {
            Some(checkpoint) => checkpoint,
            None => self.open_file()?,
        };
        let mut checkpoint = checkpoint.every(self.every)?.describe(self.argv.clone());
        if let Some(input) = &self.input {
            checkpoint.bind_input(input)?;
        }
        Ok(checkpoint)
    }
}
