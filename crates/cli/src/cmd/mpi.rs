//! `--runtime mpi`: a search across the ranks that `mpirun` started.

use serde::Serialize;
use serde::de::DeserializeOwned;
use treelb::search::Search;
use treelb_mpi::shared::Shared;
use treelb_mpi::wire::DfsCodec;
use treelb_mpi::{Mpi, Slow};
use treelb_threads::Outcome;

use crate::config::{Error, RunConfig};

/// The environment variable that slows one rank down (tests): `RANK:MICROS`
/// makes rank RANK sleep MICROS µs after every slice of Δt units.
const SLOW_VAR: &str = "TREELB_MPI_SLOW";

/// Initializes MPI, runs the search on every rank, finalizes MPI. Rank 0
/// gets the outcome (and prints the runtime's own figures on stderr), the
/// others `None`.
pub(crate) fn run_search<S>(search: &S, cfg: &RunConfig) -> Result<Option<Outcome<S::Output>>, Error>
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
) -> Result<Option<Outcome<S::Output>>, Error>
where
    S: Search,
    S::Node: Clone + Serialize + DeserializeOwned,
    S::Output: Serialize + DeserializeOwned,
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
    let mut codec = DfsCodec::new(search, cfg.split_policy);
    if let Some(shared) = shared {
        codec = codec.with_shared(shared);
    }
    let result = treelb_mpi::run(&mpi, &codec, codec.root(), &config);
    drop(mpi); // MPI_Finalize: nothing is in flight any more.
    let Some(o) = result? else {
        return Ok(None);
    };
    let busy = o.stats.total().busy.as_secs_f64();
    let probe_share = if busy > 0.0 { o.probe.nanos * 1e-9 * o.probe.probes as f64 / busy } else { 0.0 };
    let broadcasts =
        if shared.is_some() { format!("; {} improvement messages", o.improvements) } else { String::new() };
    eprintln!(
        "treelb: mpi: {} ranks × {} threads ({support}); one empty probe costs {:.0} ns, {} probes ≈ {:.2} % of busy time; {} termination waves{broadcasts}",
        o.ranks,
        o.threads,
        o.probe.nanos,
        o.probe.probes,
        100.0 * probe_share,
        o.waves
    );
    Ok(Some(Outcome { output: o.output, stats: o.stats, trace: None, decisions: None }))
}
