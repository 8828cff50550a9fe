//! The commands' runs: their options ([`RunConfig`]) made into the
//! library's [`treelb_run::Run`] — on threads, or across the MPI ranks
//! that `mpirun` started — with the command's own parts around it: Ctrl-C
//! and SIGTERM as a stop, `--time-limit` counted from the command's first
//! run, the progress indicator, the trace file, and MPI's start and end.

use std::time::{Duration, Instant};

use serde::Serialize;
use serde::de::DeserializeOwned;
use treelb::Incumbent;
use treelb::bound::NodeBound;
use treelb::search::Search;
use treelb_mpi::wire::Codec;
use treelb_run::{Out, Outcome, Pes, Run, Trace, World};

use crate::config::{RunConfig, Runtime};
use crate::error::{Error, err};
use crate::progress::Progress;

/// The command's deadline: `--time-limit` after its first run started
/// ([`treelb_run::signals::deadline`]).
pub(crate) fn deadline(cfg: &RunConfig) -> Option<Instant> {
    treelb_run::signals::deadline(cfg.time_limit)
}

/// How often the progress indicator is updated.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// Runs `root`, whose pieces travel by `codec` (between ranks, into a
/// checkpoint), as the command's options say. `None` on MPI ranks other
/// than 0, which print nothing.
pub(crate) fn work<C>(
    codec: &C,
    root: C::Work,
    cfg: &RunConfig,
    expected_units: Option<u64>,
    unit: &'static str,
) -> Result<Option<Outcome<Out<C>>>, Error>
where
    C: Codec,
    C::Work: Clone,
    Out<C>: Serialize + DeserializeOwned,
{
    with_run(cfg, expected_units, unit, |run, pes| run.run(pes, codec, root))
}

/// Runs `search` from its root as the command's options say. `None` on MPI
/// ranks other than 0.
pub(crate) fn search<S>(
    search: &S,
    cfg: &RunConfig,
    expected_units: Option<u64>,
    unit: &'static str,
) -> Result<Option<Outcome<S::Output>>, Error>
where
    S: Search,
    S::Node: Clone + Serialize + DeserializeOwned,
    S::Output: Serialize + DeserializeOwned,
{
    with_run(cfg, expected_units, unit, |run, pes| run.run_search(pes, search, cfg.split_policy))
}

/// Runs the branch and bound `search`, whose answer is kept in `incumbent`,
/// as the command's options say; `watch` is called before the run where
/// the report is printed (to show the improvements as they come). The
/// outcome has the run's proof. `None` on MPI ranks other than 0.
pub(crate) fn bnb<S>(
    search: &S,
    incumbent: &Incumbent<Vec<u32>>,
    cfg: &RunConfig,
    unit: &'static str,
    watch: impl FnOnce(),
) -> Result<Option<Outcome<S::Output>>, Error>
where
    S: NodeBound,
    S::Node: Clone + Serialize + DeserializeOwned,
    S::Output: Serialize + DeserializeOwned,
{
    with_run(cfg, None, unit, |run, pes| {
        if pes.gets_outcome() {
            watch();
        }
        run.run_bnb(pes, search, cfg.split_policy, incumbent)
    })
}

/// The library's run for the command's options, given to `go` with where
/// its PEs are (MPI initialized before and finalized after); the progress,
/// the line on MPI's own figures and the trace around it.
fn with_run<O>(
    cfg: &RunConfig,
    expected_units: Option<u64>,
    unit: &'static str,
    go: impl FnOnce(Run<'_>, Pes<'_>) -> Result<Option<Outcome<O>>, treelb_run::Error>,
) -> Result<Option<Outcome<O>>, Error> {
    treelb_run::signals::catch();
    let mut progress = Progress::new(cfg.feedback, expected_units, unit);
    let mut run = Run::new(cfg.spec.clone()).pin(cfg.pin).trace(cfg.trace.is_some()).stop_on_signals();
    if let Some(at) = deadline(cfg) {
        run = run.deadline_at(at);
    }
    if let Some(max) = cfg.max_nodes {
        run = run.max_units(max);
    }
    if let Some(plan) = &cfg.checkpoint {
        run = run.checkpoint(|| plan.open());
    }
    let checkpoint_error = |e: treelb_run::Error| match e {
        treelb_run::Error::Checkpoint(e) => err!("--checkpoint {e}"),
        e => Error::from(e),
    };
    let outcome = match cfg.kind {
        Runtime::Threads => {
            progress.started(cfg);
            let run = run.observe(PROGRESS_EVERY, |s| progress.update(s));
            let outcome = go(run, Pes::Threads(cfg.threads)).map_err(checkpoint_error)?;
            progress.finish();
            outcome
        }
        #[cfg(feature = "mpi")]
        Runtime::Mpi => {
            // Tests slow one rank down: `RANK:MICROS` after every slice.
            if let Some(slow) = treelb_mpi::Slow::from_env().map_err(|e| err!("{e}"))? {
                run = run.slow_rank(slow);
            }
            let world = world(cfg)?;
            let result = go(run, world.pes());
            world.end();
            result.map_err(checkpoint_error)?
        }
        #[cfg(not(feature = "mpi"))]
        Runtime::Mpi => unreachable!("--runtime mpi is refused without the feature"),
    };
    let Some(mut outcome) = outcome else {
        return Ok(None);
    };
    // A line on the runtime, with the progress (on a terminal, or
    // --progress): a normal run prints nothing on stderr.
    if let Some(line) = outcome.mpi_line().filter(|_| cfg.feedback.on()) {
        eprintln!("treelb: {line}");
    }
    if let (Some(path), Some(trace)) = (&cfg.trace, outcome.trace.take()) {
        write_trace(cfg, path, trace, outcome.stats.wall);
    }
    Ok(Some(outcome))
}

/// Writes the trace to `path` after the report (the path was checked
/// before the run, see [`crate::outputs`]), with notes on the run.
fn write_trace(cfg: &RunConfig, path: &str, mut trace: Trace, wall: Duration) {
    let mut args = std::env::args();
    let program = args.next().map_or_else(
        || "treelb".to_owned(),
        |p| std::path::Path::new(&p).file_name().map_or(p.clone(), |n| n.to_string_lossy().into_owned()),
    );
    let args: Vec<String> = args.collect();
    trace.notes = treelb_run::trace_notes(&cfg.spec, cfg.threads, cfg.split_policy, wall, &program, &args);
    crate::outputs::later("--trace", path, move |w| trace.write_csv(w));
}

/// The PEs of `cfg`: its threads, or the MPI ranks of `--runtime mpi`
/// (MPI initialized here).
pub(crate) fn world(cfg: &RunConfig) -> Result<World, Error> {
    match cfg.kind {
        Runtime::Threads => Ok(World::Threads(cfg.threads)),
        #[cfg(feature = "mpi")]
        Runtime::Mpi => Ok(World::mpi(cfg.threads)?),
        #[cfg(not(feature = "mpi"))]
        Runtime::Mpi => unreachable!("--runtime mpi is refused without the feature"),
    }
}
