//! `--runtime mpi`: a search, an integration or the Mandelbrot set across
//! the ranks that `mpirun` started.

use serde::Serialize;
use serde::de::DeserializeOwned;
use treelb::bound::{NodeBound, OpenBounds};
use treelb::limit::{Limit, StopReason};
use treelb::search::Search;
use treelb::{Incumbent, Work};
use treelb_apps::bnb::BnbStats;
use treelb_mpi::wire::{Codec, DfsCodec, WatchedCodec};
use treelb_mpi::{Mpi, Slow};

use super::Ran;

use crate::config::{Error, RunConfig};

/// The environment variable that slows one rank down (tests): `RANK:MICROS`
/// makes rank RANK sleep MICROS µs after every slice of Δt units.
const SLOW_VAR: &str = "TREELB_MPI_SLOW";

/// Initializes MPI, runs the search on every rank, finalizes MPI. Rank 0
/// gets the outcome (and prints the runtime's own figures on stderr), the
/// others `None`.
pub(crate) fn run_search<S>(search: &S, cfg: &RunConfig) -> Result<Option<Ran<S::Output>>, Error>
where
    S: Search,
    S::Node: Clone + Serialize + DeserializeOwned,
    S::Output: Serialize + DeserializeOwned,
{
    let codec = DfsCodec::new(search, cfg.split_policy);
    let root = codec.root();
    run_codec(&codec, root, cfg)
}

/// [`run_search`] for a branch-and-bound search whose ranks keep
/// `incumbent` in step: improvements are broadcast while the ranks work, and
/// after the run rank 0's copy holds the best of all ranks. The pieces
/// record the bounds of the open nodes dropped when the run is stopped
/// (`open`, reduced over the ranks to rank 0's); `watch` is called on rank
/// 0 before the run (to show the improvements that reach it).
pub(crate) fn run_bnb<S>(
    search: &S,
    incumbent: &Incumbent<Vec<u32>>,
    cfg: &RunConfig,
    open: &OpenBounds,
    watch: &dyn Fn(),
) -> Result<Option<Ran<BnbStats>>, Error>
where
    S: NodeBound<Output = BnbStats>,
    S::Node: Clone + Serialize + DeserializeOwned,
{
    let (config, mpi) = start(cfg)?;
    if mpi.rank() == 0 {
        watch();
    }
    let limit = rank_limit(cfg, &mpi);
    let codec =
        WatchedCodec::new(DfsCodec::new(search, cfg.split_policy).with_shared(incumbent), open, &limit);
    let root = codec.root();
    run_on(mpi, &config, &codec, root, cfg, &limit, Some(open))
}

/// Runs `root`, whose pieces cross between ranks by `codec`, on every rank:
/// [`run_search`] for work that is not a search (integration, the
/// Mandelbrot set).
pub(crate) fn run_codec<C>(codec: &C, root: C::Work, cfg: &RunConfig) -> Result<Option<Ran<Out<C>>>, Error>
where
    C: Codec,
    C::Work: Clone,
    Out<C>: Serialize + DeserializeOwned,
{
    let (config, mpi) = start(cfg)?;
    let limit = rank_limit(cfg, &mpi);
    run_on(mpi, &config, codec, root, cfg, &limit, None)
}

/// The runtime's configuration, and MPI initialized (with Ctrl-C and
/// SIGTERM caught first).
fn start(cfg: &RunConfig) -> Result<(treelb_mpi::Config, Mpi), Error> {
    let slow = match std::env::var(SLOW_VAR) {
        Ok(v) => Some(
            Slow::parse(&v)
                .ok_or_else(|| crate::config::err!("{SLOW_VAR}: expected RANK:MICROS, got `{v}`"))?,
        ),
        Err(_) => None,
    };
    let config =
        treelb_mpi::Config { threads: cfg.threads, spec: cfg.spec.clone(), slow, record_decisions: false };
    config.validate()?;
    super::catch_signals();
    let mpi = Mpi::init(config.threads)?;
    Ok((config, mpi))
}

/// This rank's limit: with `--max-nodes` its share of the units; else
/// unbounded, stopped only by a signal or the time limit.
fn rank_limit(cfg: &RunConfig, mpi: &Mpi) -> Limit {
    match cfg.max_nodes {
        Some(max) => Limit::new(max.div_ceil(mpi.size() as u64).max(1)),
        None => Limit::unbounded(),
    }
}

/// Runs `root` under this rank's `limit` on every rank
/// ([`treelb_mpi::Run`]: `limit` is this rank's stop handle, stopped at the
/// time limit or on a signal — mpirun forwards a Ctrl-C to every rank),
/// then finalizes MPI.
fn run_on<C>(
    mpi: Mpi,
    config: &treelb_mpi::Config,
    codec: &C,
    root: C::Work,
    cfg: &RunConfig,
    limit: &Limit,
    open: Option<&OpenBounds>,
) -> Result<Option<Ran<Out<C>>>, Error>
where
    C: Codec,
    C::Work: Clone,
    Out<C>: Serialize + DeserializeOwned,
{
    let support = mpi.thread_support();
    let result = mpi_run(config.clone(), cfg, limit).run(&mpi, codec, root);
    // A collective: every rank that got this far calls it.
    if let (Some(open), true) = (open, result.is_ok()) {
        mpi.merge_open(open);
    }
    finalize(mpi);
    let Some(o) = result? else {
        return Ok(None);
    };
    let busy = o.stats.total().busy.as_secs_f64();
    let probe_share = if busy > 0.0 { o.probe.nanos * 1e-9 * o.probe.probes as f64 / busy } else { 0.0 };
    let broadcasts = if codec.shared().is_some() {
        format!("; {} improvement messages", o.improvements)
    } else {
        String::new()
    };
    // A line on the runtime, with the progress (on a terminal, or
    // --progress): a normal run prints nothing on stderr.
    if cfg.feedback.on() {
        eprintln!(
            "treelb: mpi: {} ranks × {} threads ({support}); one empty probe costs {:.0} ns, {} probes ≈ {:.2} % of busy time; {} termination waves{broadcasts}",
            o.ranks,
            o.threads,
            o.probe.nanos,
            o.probe.probes,
            100.0 * probe_share,
            o.waves
        );
    }
    Ok(Some(Ran { output: o.output, stats: o.stats, stopped: o.stopped }))
}

/// The library's run across the ranks for the command's options: `limit`
/// (this rank's share of `--max-nodes`) as the stop handle, the command's
/// deadline (`--time-limit` after its first run started), and a signal
/// caught by the command as a stop.
pub(crate) fn mpi_run<'a>(
    config: treelb_mpi::Config,
    cfg: &RunConfig,
    limit: &'a Limit,
) -> treelb_mpi::Run<'a> {
    let run = treelb_mpi::Run::new(config)
        .stop_handle(limit)
        .stop_when(|| super::signalled().then_some(StopReason::Signal));
    match super::deadline(cfg) {
        Some(at) => run.deadline_at(at),
        None => run,
    }
}

/// Ends MPI on this rank ([`Mpi::finalize`]): without `MPI_Finalize` at
/// rank 0 when a signal is ending the job, so that its partial report
/// (exit code 3) gets out.
pub(crate) fn finalize(mpi: Mpi) {
    mpi.finalize(super::signalled());
}

/// The output of a codec's pieces.
type Out<C> = <<C as Codec>::Work as Work>::Output;
