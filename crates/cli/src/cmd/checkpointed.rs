//! Checkpointed runs: the segments of a run with `--checkpoint` on the
//! threads runtime and across MPI ranks, through the library's
//! [`treelb_checkpoint`] (the plan of the options is
//! [`crate::checkpoint::Plan`]).

use serde::Serialize;
use serde::de::DeserializeOwned;
use treelb::Incumbent;
use treelb::limit::Limit;
use treelb_checkpoint::{Out, Segment};
use treelb_mpi::wire::Codec;

use super::Ran;
use crate::checkpoint::Plan;
use crate::config::RunConfig;
use crate::error::Error;

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
    super::catch_signals();
    let done = checkpoint.run(codec, root, incumbent, |bag| {
        let (output, stats) = super::run_threads_limited(bag, cfg, expected_units, unit, &limit)?;
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
    super::catch_signals();
    let mpi = treelb_mpi::Mpi::init(config.threads)?;
    let limit =
        cfg.max_nodes.map_or_else(Limit::unbounded, |max| Limit::new(max.div_ceil(mpi.size() as u64).max(1)));
    let run = super::mpi::mpi_run(config, cfg, &limit);
    let result = treelb_checkpoint::run_mpi(&mpi, &run, || plan.open(), codec, root, incumbent);
    super::mpi::finalize(mpi);
    Ok(result?.map(|done| Ran { output: done.output, stats: done.stats, stopped: done.stopped }))
}
