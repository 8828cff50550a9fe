//! `--runtime mpi`: a search, an integration or the Mandelbrot set across
//! the ranks that `mpirun` started.

use serde::Serialize;
use serde::de::DeserializeOwned;
use treelb::Work;
use treelb::limit::Limit;
use treelb::search::Search;
use treelb_apps::integrate::{Integral, Intervals};
use treelb_apps::mandelbrot::{Mandelbrot, Piece, PieceState};
use treelb_mpi::shared::Shared;
use treelb_mpi::wire::{Codec, DecodeError, DfsCodec, LimitedCodec};
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
    run_shared(search, None, cfg)
}

/// [`run_search`] for a search whose ranks keep `shared` in step (the
/// incumbent of a branch-and-bound search): improvements are broadcast while
/// the ranks work, and after the run rank 0's copy holds the best of all
/// ranks.
pub(crate) fn run_shared<S>(
    search: &S,
    shared: Option<&dyn Shared>,
    cfg: &RunConfig,
) -> Result<Option<Ran<S::Output>>, Error>
where
    S: Search,
    S::Node: Clone + Serialize + DeserializeOwned,
    S::Output: Serialize + DeserializeOwned,
{
    let mut codec = DfsCodec::new(search, cfg.split_policy);
    if let Some(shared) = shared {
        codec = codec.with_shared(shared);
    }
    let root = codec.root();
    run_codec(&codec, root, cfg)
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
    let slow = match std::env::var(SLOW_VAR) {
        Ok(v) => Some(
            Slow::parse(&v)
                .ok_or_else(|| crate::config::err!("{SLOW_VAR}: expected RANK:MICROS, got `{v}`"))?,
        ),
        Err(_) => None,
    };
    let config = treelb_mpi::Config { threads: cfg.threads, spec: cfg.spec.clone(), slow };
    config.validate()?;
    let mpi = Mpi::init(config.threads)?;
    let support = mpi.thread_support();
    let (result, interrupted) = match cfg.max_nodes {
        None => (treelb_mpi::run(&mpi, codec, root, &config), false),
        Some(max) => {
            // Each rank stops after its share of the limit.
            let limit = Limit::new(max.div_ceil(mpi.size() as u64).max(1));
            let limited = LimitedCodec::new(codec, &limit);
            let root = treelb::limit::Limited::new(root, &limit);
            let result = treelb_mpi::run(&mpi, &limited, root, &config);
            // A collective: every rank that got this far calls it.
            let interrupted = result.is_ok() && mpi.any(limit.interrupted());
            (result, interrupted)
        }
    };
    drop(mpi); // MPI_Finalize: nothing is in flight any more.
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
    eprintln!(
        "treelb: mpi: {} ranks × {} threads ({support}); one empty probe costs {:.0} ns, {} probes ≈ {:.2} % of busy time; {} termination waves{broadcasts}",
        o.ranks,
        o.threads,
        o.probe.nanos,
        o.probe.probes,
        100.0 * probe_share,
        o.waves
    );
    Ok(Some(Ran { output: o.output, stats: o.stats, interrupted }))
}

/// The output of a codec's pieces.
type Out<C> = <<C as Codec>::Work as Work>::Output;

/// The codec of an integration's pieces: the intervals and the generation
/// travel; the receiver supplies its own copy of the integral.
pub(crate) struct IntervalsCodec<'p, F>(pub(crate) &'p Integral<F>);

impl<'p, F: Fn(f64) -> f64 + Sync> Codec for IntervalsCodec<'p, F> {
    type Work = Intervals<'p, F>;

    fn encode(&self, piece: Intervals<'p, F>, out: &mut Vec<u8>) {
        out.extend(treelb_mpi::wire::to_bytes(&piece.into_parts()));
    }

    fn decode(&self, bytes: &[u8]) -> Result<Intervals<'p, F>, DecodeError> {
        let (intervals, generation) = treelb_mpi::wire::from_bytes(bytes)?;
        Ok(self.0.piece(intervals, generation))
    }
}

/// The codec of Mandelbrot pieces: their state (tasks, the job in progress
/// and its orbit, the generation) travels; the receiver supplies the view.
pub(crate) struct PieceCodec(pub(crate) Mandelbrot);

impl Codec for PieceCodec {
    type Work = Piece;

    fn encode(&self, piece: Piece, out: &mut Vec<u8>) {
        out.extend(treelb_mpi::wire::to_bytes(&piece.into_state()));
    }

    fn decode(&self, bytes: &[u8]) -> Result<Piece, DecodeError> {
        let state: PieceState = treelb_mpi::wire::from_bytes(bytes)?;
        Ok(self.0.piece(state))
    }
}
