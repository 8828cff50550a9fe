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

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use clap::Args;
use serde::Serialize;
use serde::de::DeserializeOwned;
use treelb::Incumbent;
use treelb::limit::Limit;
use treelb_checkpoint::{Checkpoint, DEFAULT_EVERY, Out, Saved, Segment};
use treelb_mpi::wire::Codec;

use crate::cmd::Ran;
use crate::config::{Error, RunConfig, Runtime, err};

/// `--checkpoint FILE --checkpoint-every DURATION`: the options of every run
/// command that checkpoints.
#[derive(Clone, Debug, Default, Args)]
pub(crate) struct CheckpointArgs {
    /// Write the run's state to FILE every --checkpoint-every (atomically:
    /// FILE is always a whole checkpoint); `treelb resume FILE` continues
    /// the run after a crash
    #[arg(long, value_name = "FILE", help_heading = crate::args::heading::LIMITS)]
    pub(crate) checkpoint: Option<String>,
    /// How often to checkpoint, e.g. 60s, 10m, 1h, 500ms [default: 60s]
    #[arg(long, value_name = "DURATION", requires = "checkpoint", value_parser = crate::args::parse::duration, help_heading = crate::args::heading::LIMITS)]
    pub(crate) checkpoint_every: Option<Duration>,
}

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
        let plan = Plan { path: PathBuf::from(path), every, argv, input: None, resume };
        if kind == Runtime::Threads {
            plan.check()?;
        }
        Ok(Some(plan))
    }

    /// Refuses a path the run could not write, or would destroy, and a
    /// checkpoint another run holds (taking the lock and letting it go).
    fn check(&self) -> Result<(), Error> {
        let at = |e: treelb_checkpoint::Error| err!("--checkpoint {e}");
        match self.resume {
            None => drop(Checkpoint::create(&self.path).map_err(at)?),
            Some(_) => {
                treelb_checkpoint::file::check_target(&self.path).map_err(at)?;
                drop(treelb_checkpoint::Lock::acquire(&self.path).map_err(at)?);
            }
        }
        Ok(())
    }

    /// The checkpoint, locked for the run: a new one, or the one resumed.
    fn open(&self) -> Result<Checkpoint, Error> {
        let at = |e: treelb_checkpoint::Error| err!("--checkpoint {e}");
        let checkpoint = match self.resume {
            None => Checkpoint::create(&self.path),
            Some(_) => Checkpoint::resume(&self.path),
        }
        .map_err(at)?;
        let mut checkpoint = checkpoint.every(self.every).map_err(at)?.describe(self.argv.clone());
        if let Some(input) = &self.input {
            checkpoint.bind_input(input).map_err(at)?;
        }
        Ok(checkpoint)
    }
}

/// Binds a checkpointed run to its input file: its SHA-1 goes into every
/// checkpoint, and a resume against a changed file is refused. Nothing
/// without `--checkpoint`.
pub(crate) fn bind_input(cfg: &mut RunConfig, path: &Path) -> Result<(), Error> {
    if let Some(plan) = cfg.checkpoint.as_mut() {
        plan.input = Some(path.to_owned());
    }
    Ok(())
}

/// Refuses `--checkpoint` for a command whose output does not carry over
/// between segments (an image written as it is computed, a floating-point
/// estimate whose sum depends on the order of the pieces).
pub(crate) fn refuse(cfg: &RunConfig, command: &str) -> Result<(), Error> {
    match &cfg.checkpoint {
        Some(_) => Err(err!(
            "--checkpoint: {command} does not checkpoint (uts, nqueens, clique, knapsack and tsp do)"
        )),
        None => Ok(()),
    }
}

/// Runs `root` on the threads runtime in segments of about `plan.every`,
/// writing a checkpoint after each ([`Checkpoint::run`]); from the saved
/// state instead of `root` when resuming. A run stopped by `--max-nodes`,
/// `--time-limit` or a signal writes no checkpoint for its last segment:
/// the previous one stays.
pub(crate) fn run_threads<C>(
    codec: &C,
    root: C::Work,
    cfg: &RunConfig,
    plan: &Plan,
    expected_units: Option<u64>,
    unit: &'static str,
    incumbent: Option<&Incumbent<Vec<u32>>>,
) -> Result<Ran<Out<C>>, Error>
where
    C: Codec,
    C::Work: Clone,
    Out<C>: Serialize + DeserializeOwned,
{
    let checkpoint = plan.open()?;
    let limit = cfg.max_nodes.map_or_else(Limit::unbounded, Limit::new);
    crate::cmd::catch_signals();
    let done = checkpoint.run(codec, root, incumbent, |bag| {
        let (output, stats) = crate::cmd::run_threads_limited(bag, cfg, expected_units, unit, &limit)?;
        Ok::<_, Error>(Segment::new(output, stats, limit.partial_because()))
    })?;
    Ok(Ran { output: done.output, stats: done.stats, stopped: done.stopped })
}

/// [`run_threads`] across the MPI ranks ([`treelb_checkpoint::run_mpi`]):
/// rank 0 alone opens (and locks) the checkpoint; each rank stops after
/// its share of --max-nodes, at the time limit or on a signal. `None` on
/// ranks other than 0.
#[cfg(feature = "mpi")]
pub(crate) fn run_mpi<C>(
    codec: &C,
    root: C::Work,
    cfg: &RunConfig,
    plan: &Plan,
    incumbent: Option<&Incumbent<Vec<u32>>>,
) -> Result<Option<Ran<Out<C>>>, Error>
where
    C: Codec,
    C::Work: Clone,
    Out<C>: Serialize + DeserializeOwned,
{
    let config = treelb_mpi::Config {
        threads: cfg.threads,
        spec: cfg.spec.clone(),
        slow: None,
        record_decisions: false,
    };
    config.validate()?;
    crate::cmd::catch_signals();
    let mpi = treelb_mpi::Mpi::init(config.threads)?;
    let limit =
        cfg.max_nodes.map_or_else(Limit::unbounded, |max| Limit::new(max.div_ceil(mpi.size() as u64).max(1)));
    let run = crate::cmd::mpi::mpi_run(config, cfg, &limit);
    let result = treelb_checkpoint::run_mpi(&mpi, &run, || plan.open(), codec, root, incumbent);
    crate::cmd::mpi::finalize(mpi);
    Ok(result?.map(|done| Ran { output: done.output, stats: done.stats, stopped: done.stopped }))
}
