//! A run's checkpointing decided before the run, opened when it starts:
//! [`Plan`].

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::{Checkpoint, Error, Saved};

/// A run's checkpointing: where, how often, the run's description written
/// into every checkpoint, the input file it is bound to, and the saved
/// state it resumes, if it does. [`check`](Plan::check) refuses a bad path
/// before the input is read and keeps the checkpoint locked;
/// [`open`](Plan::open) hands it to the run (what `treelb_run`'s
/// `Run::checkpoint` opens).
///
/// ```
/// use std::time::Duration;
/// use treelb_checkpoint::Plan;
///
/// let path = std::env::temp_dir().join(format!("treelb-plan-doc-{}.ckpt", std::process::id()));
/// let plan = Plan::new(&path, Duration::from_secs(60), vec!["uts".to_owned()], None);
/// plan.check()?; // the file is created and locked, before the run
/// let checkpoint = plan.open()?; // the same one, for the run
/// # drop(checkpoint); std::fs::remove_file(&path).ok();
/// # Ok::<(), treelb_checkpoint::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Plan {
    /// The checkpoint file.
    pub path: PathBuf,
    /// The time between two checkpoints.
    pub every: Duration,
    /// What ran (a command line), written into every checkpoint.
    pub description: Vec<String>,
    /// The input file, once known: its SHA-1 goes into every checkpoint,
    /// and a resume against a changed file is refused.
    pub input: Option<PathBuf>,
    /// The state to continue from.
    pub resume: Option<Arc<Saved>>,
    /// The checkpoint [`check`](Plan::check) opened, locked, kept for the
    /// run: no other run can take it between the check and the run.
    opened: Arc<Mutex<Option<Checkpoint>>>,
}

impl Plan {
    /// Checkpoints to `path` every `every`, describing the run as
    /// `description`; continuing from `resume` if given.
    pub fn new(
        path: impl Into<PathBuf>,
        every: Duration,
        description: Vec<String>,
        resume: Option<Arc<Saved>>,
    ) -> Plan {
        Plan { path: path.into(), every, description, input: None, resume, opened: Arc::default() }
    }

    /// Refuses a path the run could not write, or would destroy, and a
    /// checkpoint another run holds; keeps the checkpoint it opened, locked,
    /// for [`open`](Plan::open).
    pub fn check(&self) -> Result<(), Error> {
        let checkpoint = self.open_file()?;
        *self.opened.lock().unwrap_or_else(PoisonError::into_inner) = Some(checkpoint);
        Ok(())
    }

    /// The checkpoint file, locked: a new one, or the one resumed.
    fn open_file(&self) -> Result<Checkpoint, Error> {
        match self.resume {
            None => Checkpoint::create(&self.path),
            Some(_) => Checkpoint::resume(&self.path),
        }
    }

    /// The checkpoint, locked for the run, as the run writes it: the one
    /// [`check`](Plan::check) opened, or (when nothing checked it, as on
    /// MPI's rank 0 when the run starts) opened now.
    pub fn open(&self) -> Result<Checkpoint, Error> {
        let opened = self.opened.lock().unwrap_or_else(PoisonError::into_inner).take();
        let checkpoint = match opened {
            Some(checkpoint) => checkpoint,
            None => self.open_file()?,
        };
        let mut checkpoint = checkpoint.every(self.every)?.describe(self.description.clone());
        if let Some(input) = &self.input {
            checkpoint.bind_input(input)?;
        }
        Ok(checkpoint)
    }
}
