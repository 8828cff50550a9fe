//! One module per subcommand, and the run shared by all applications.

pub(crate) mod bench;
pub(crate) mod bnb;
pub(crate) mod calibrate;
mod checkpointed;
pub(crate) mod clique;
pub(crate) mod compare;
pub(crate) mod connect4;
pub(crate) mod estimate;
pub(crate) mod integrate;
pub(crate) mod knapsack;
pub(crate) mod mandelbrot;
#[cfg(feature = "mpi")]
pub(crate) mod mpi;
pub(crate) mod nqueens;
pub(crate) mod plot_trace;
pub(crate) mod resume;
pub(crate) mod sim;
pub(crate) mod sim_ybwc;
pub(crate) mod tsp;
pub(crate) mod uts;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Once, OnceLock};
use std::time::{Duration, Instant};

use treelb::limit::{Limit, StopReason};
use treelb::search::{DfsWork, Search};
use treelb::{RunStats, Work};
use treelb_threads::Run;

use crate::config::{Error, RunConfig};
use crate::progress::Progress;

/// How a run command ended: its exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// The answer is complete (and matched the published one where known):
    /// exit code 0.
    Done,
    /// The answer did not match, or is not trustworthy: exit code 1.
    Failed,
    /// `--max-nodes`, `--time-limit` or a signal stopped the run; the
    /// report is partial: exit code 3.
    Interrupted,
}

impl From<bool> for Status {
    fn from(ok: bool) -> Self {
        if ok { Status::Done } else { Status::Failed }
    }
}

/// The end of a run: the merged output, the statistics, and why
/// `--max-nodes`, `--time-limit` or a signal stopped it before the work was
/// done, if one did.
pub(crate) struct Ran<O> {
    pub(crate) output: O,
    pub(crate) stats: RunStats,
    /// Why the output is partial, if it is.
    pub(crate) stopped: Option<StopReason>,
}

impl<O> Ran<O> {
    /// Whether the output is partial.
    pub(crate) fn interrupted(&self) -> bool {
        self.stopped.is_some()
    }
}

/// Set by the first Ctrl-C (SIGINT) or SIGTERM during a run.
static SIGNALLED: AtomicBool = AtomicBool::new(false);

/// Whether a signal stopped the run.
pub(crate) fn signalled() -> bool {
    SIGNALLED.load(Ordering::SeqCst)
}

/// When the command's first run started (set by [`catch_signals`]): the
/// time limit counts from here, across the segments of a checkpointed run.
static STARTED: OnceLock<Instant> = OnceLock::new();

/// The command's deadline: `--time-limit` after its first run started.
pub(crate) fn deadline(cfg: &RunConfig) -> Option<Instant> {
    cfg.time_limit.map(|t| *STARTED.get_or_init(Instant::now) + t)
}

/// Checks the stops that come from outside the work — a signal, the
/// command's deadline — and stops `limit` with the reason if one has come.
/// Returns whether the run is being stopped. (An MPI rank's watchdog, and
/// the poll of a phase before the run, like TSP's root; a run on threads
/// has the library's [`Run`] watch its deadline.)
pub(crate) fn check_stop(cfg: &RunConfig, limit: &Limit) -> bool {
    if signalled() {
        limit.stop_because(StopReason::Signal);
    }
    limit.check_deadline(deadline(cfg))
}

/// How often a run on threads looks for a signal (the library's [`Run`]
/// watches the deadline on its own).
const STOP_CHECKS: Duration = Duration::from_millis(100);

/// Installs, once, the handler that turns Ctrl-C and SIGTERM into a stop of
/// the run: the first signal stops every PE after its current slice and the
/// run ends with a partial report (exit code 3), its trace written; a
/// second signal ends the process at once (exit code 130). Under `mpirun`,
/// which forwards a Ctrl-C to every rank as SIGINT or SIGTERM, every rank
/// stops its own PEs and the partial results still reach rank 0.
pub(crate) fn catch_signals() {
    STARTED.get_or_init(Instant::now);
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            if SIGNALLED.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
        });
    });
}

/// The status of a run that `--max-nodes`, `--time-limit` or a signal
/// stopped after `units` units of work, after one line on stderr saying so
/// (the report on stdout is marked too).
pub(crate) fn interrupted(cfg: &RunConfig, stopped: Option<StopReason>, units: u64, unit: &str) -> Status {
    let reason = crate::report::stop_reason(cfg, stopped);
    if cfg.quiet {
        return Status::Interrupted;
    }
    if stopped == Some(StopReason::Signal) {
        eprintln!("treelb: interrupted by {reason} after {units} {unit}; the report is partial");
    } else {
        eprintln!("treelb: interrupted: {reason} reached after {units} {unit}; the report is partial");
    }
    Status::Interrupted
}

/// The limit of a run: `--max-nodes`, or none but the stops a signal or
/// `--time-limit` ask for (an unbounded limit touches no shared counter per
/// slice).
pub(crate) fn limit_of(cfg: &RunConfig) -> Limit {
    cfg.max_nodes.map_or_else(Limit::unbounded, Limit::new)
}

/// Runs `root` on the threads runtime with a progress indicator and, with
/// `--trace FILE`, writes the trace there after the report (the path was
/// checked before the run, see [`crate::outputs`]).
pub(crate) fn run_threads<W: Work + Clone>(
    root: W,
    cfg: &RunConfig,
    expected_units: Option<u64>,
    unit: &'static str,
) -> Result<Ran<W::Output>, Error> {
    let limit = limit_of(cfg);
    run_threads_on(root, cfg, expected_units, unit, &limit)
}

/// [`run_threads`] under a given limit (made by [`limit_of`]), which a
/// signal or the time limit stops.
pub(crate) fn run_threads_on<W: Work + Clone>(
    root: W,
    cfg: &RunConfig,
    expected_units: Option<u64>,
    unit: &'static str,
    limit: &Limit,
) -> Result<Ran<W::Output>, Error> {
    catch_signals();
    let (output, stats) = run_threads_limited(root, cfg, expected_units, unit, limit)?;
    Ok(Ran { output, stats, stopped: limit.partial_because() })
}

/// `root` on the threads runtime under `limit`, which a signal or the
/// command's deadline stops: the library's [`Run`] with the progress
/// indicator as its observer.
pub(crate) fn run_threads_limited<W: Work + Clone>(
    root: W,
    cfg: &RunConfig,
    expected_units: Option<u64>,
    unit: &'static str,
    limit: &Limit,
) -> Result<(W::Output, RunStats), Error> {
    // `RunConfig` checked the trace's path before the run; an existing file
    // keeps its contents until the trace replaces it, after the report.
    let mut progress = Progress::new(cfg.feedback, expected_units, unit);
    progress.started(cfg);
    let mut run = Run::new(cfg.threads_config()).stop_handle(limit).observe(STOP_CHECKS, |s| {
        progress.update(s);
        if signalled() {
            limit.stop_because(StopReason::Signal);
        }
    });
    if let Some(at) = deadline(cfg) {
        run = run.deadline_at(at);
    }
    let mut outcome = run.run(root)?;
    progress.finish();
    if let (Some(path), Some(mut trace)) = (&cfg.trace, outcome.trace.take()) {
        let c = &cfg.spec;
        trace.notes = vec![
            "treelb trace: one line per interval in which a PE stayed in one state; times in ns since the run started".into(),
            "states: working, splitting (cutting a piece for another PE), sending (handing it over), requesting (a request out, waiting for the answer), idle".into(),
            format!("command: {}", command_line()),
            format!(
                "strategy: {}, threads: {}, budget: {}, init: {}, split policy: {}, wall: {:.6} s",
                c.strategy,
                cfg.threads,
                c.budget,
                c.init,
                cfg.split_policy,
                outcome.stats.wall.as_secs_f64()
            ),
        ];
        crate::outputs::later("--trace", path, move |w| trace.write_csv(w));
    }
    Ok((outcome.output, outcome.stats))
}

/// This process's command line, quoted for a POSIX shell where needed.
fn command_line() -> String {
    let quote = |a: String| {
        let plain = !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=,:+@%".contains(c));
        if plain { a } else { format!("'{}'", a.replace('\'', "'\\''")) }
    };
    let mut args = std::env::args();
    let program = args.next().map_or_else(
        || "treelb".to_owned(),
        |p| std::path::Path::new(&p).file_name().map_or(p.clone(), |n| n.to_string_lossy().into_owned()),
    );
    std::iter::once(program).chain(args.map(quote)).collect::<Vec<_>>().join(" ")
}

/// Runs a search on the threads runtime with a progress indicator.
pub(crate) fn run_search<S>(
    search: &S,
    cfg: &RunConfig,
    expected_units: Option<u64>,
    unit: &'static str,
) -> Result<Ran<S::Output>, Error>
where
    S: Search,
    S::Node: Clone,
{
    debug_assert_eq!(cfg.kind, crate::config::Runtime::Threads, "MPI runs go through run_portable");
    run_threads(DfsWork::new(search, cfg.split_policy), cfg, expected_units, unit)
}

/// Runs a search whose nodes and output serialize: on the threads runtime,
/// or across MPI ranks with `--runtime mpi`. `None` on MPI ranks other than
/// 0, which print nothing.
pub(crate) fn run_portable<S>(
    search: &S,
    cfg: &RunConfig,
    expected_units: Option<u64>,
    unit: &'static str,
) -> Result<Option<Ran<S::Output>>, Error>
where
    S: Search,
    S::Node: Clone + serde::Serialize + serde::de::DeserializeOwned,
    S::Output: serde::Serialize + serde::de::DeserializeOwned,
{
    if let Some(plan) = &cfg.checkpoint {
        return run_checkpointed(search, None, cfg, plan, expected_units, unit);
    }
    match cfg.kind {
        crate::config::Runtime::Threads => run_search(search, cfg, expected_units, unit).map(Some),
        #[cfg(feature = "mpi")]
        crate::config::Runtime::Mpi => mpi::run_search(search, cfg),
        #[cfg(not(feature = "mpi"))]
        crate::config::Runtime::Mpi => unreachable!("--runtime mpi is refused without the feature"),
    }
}

/// Runs `root`, the whole of `computation` (not a search: an integral, the
/// Mandelbrot set), on the command's runtime: on threads, or across MPI
/// ranks with its pieces travelling as their state. `None` on MPI ranks
/// other than 0.
pub(crate) fn run_rebuilt<R>(
    computation: R,
    root: R::Work,
    cfg: &RunConfig,
    unit: &'static str,
) -> Result<Option<Ran<<R::Work as Work>::Output>>, Error>
where
    R: treelb::work::Rebuild,
    R::Work: Clone,
    <R::Work as Work>::Output: serde::Serialize + serde::de::DeserializeOwned,
{
    match cfg.kind {
        crate::config::Runtime::Threads => run_threads(root, cfg, None, unit).map(Some),
        #[cfg(feature = "mpi")]
        crate::config::Runtime::Mpi => mpi::run_codec(&treelb_mpi::wire::StateCodec(computation), root, cfg),
        #[cfg(not(feature = "mpi"))]
        crate::config::Runtime::Mpi => {
            let _ = computation;
            unreachable!("--runtime mpi is refused without the feature")
        }
    }
}

/// A search run in checkpointed segments by `plan` (`--checkpoint`), on the
/// threads runtime or across MPI ranks; `incumbent` holds a
/// branch-and-bound search's answer, saved with the pieces and restored on
/// resume. `None` on MPI ranks other than 0.
pub(crate) fn run_checkpointed<S>(
    search: &S,
    incumbent: Option<&treelb::Incumbent<Vec<u32>>>,
    cfg: &RunConfig,
    plan: &crate::checkpoint::Plan,
    expected_units: Option<u64>,
    unit: &'static str,
) -> Result<Option<Ran<S::Output>>, Error>
where
    S: Search,
    S::Node: Clone + serde::Serialize + serde::de::DeserializeOwned,
    S::Output: serde::Serialize + serde::de::DeserializeOwned,
{
    match cfg.kind {
        crate::config::Runtime::Threads => {
            let codec = treelb_mpi::wire::DfsCodec::new(search, cfg.split_policy);
            let root = codec.root();
            checkpointed::run_threads(&codec, root, cfg, plan, expected_units, unit, incumbent).map(Some)
        }
        #[cfg(feature = "mpi")]
        crate::config::Runtime::Mpi => {
            let mut codec = treelb_mpi::wire::DfsCodec::new(search, cfg.split_policy);
            if let Some(incumbent) = incumbent {
                codec = codec.with_shared(incumbent);
            }
            let root = codec.root();
            checkpointed::run_mpi(&codec, root, cfg, plan, incumbent)
        }
        #[cfg(not(feature = "mpi"))]
        crate::config::Runtime::Mpi => unreachable!("--runtime mpi is refused without the feature"),
    }
}
