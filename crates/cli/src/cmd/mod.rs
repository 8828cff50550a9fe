//! One module per subcommand, and the run shared by all applications.

pub(crate) mod bench;
pub(crate) mod bnb;
pub(crate) mod clique;
pub(crate) mod compare;
pub(crate) mod integrate;
pub(crate) mod knapsack;
pub(crate) mod mandelbrot;
#[cfg(feature = "mpi")]
pub(crate) mod mpi;
pub(crate) mod nqueens;
pub(crate) mod sim;
pub(crate) mod tsp;
pub(crate) mod uts;

use std::time::Duration;

use treelb::search::{DfsWork, Search};
use treelb_threads::{Outcome, run_with_monitor};

use crate::config::{Error, RunConfig};
use crate::progress::Progress;

/// Runs a search on the threads runtime with a progress indicator.
pub(crate) fn run_search<S>(
    search: &S,
    cfg: &RunConfig,
    expected_units: Option<u64>,
    unit: &'static str,
) -> Result<Outcome<S::Output>, Error>
where
    S: Search,
    S::Node: Clone,
{
    if cfg.kind == crate::config::Runtime::Mpi {
        return Err(crate::config::err!(
            "--runtime mpi runs uts, nqueens, clique, knapsack and tsp (this command needs --runtime threads)"
        ));
    }
    let mut progress = Progress::new(cfg.progress, expected_units, unit);
    let root = DfsWork::new(search, cfg.split_policy);
    let outcome = run_with_monitor(root, &cfg.runtime, Duration::from_millis(100), |s| progress.update(s))?;
    progress.finish();
    Ok(outcome)
}

/// Runs a search whose nodes and output serialize: on the threads runtime,
/// or across MPI ranks with `--runtime mpi`. `None` on MPI ranks other than
/// 0, which print nothing.
pub(crate) fn run_portable<S>(
    search: &S,
    cfg: &RunConfig,
    expected_units: Option<u64>,
    unit: &'static str,
) -> Result<Option<Outcome<S::Output>>, Error>
where
    S: Search,
    S::Node: Clone + serde::Serialize + serde::de::DeserializeOwned,
    S::Output: serde::Serialize + serde::de::DeserializeOwned,
{
    match cfg.kind {
        crate::config::Runtime::Threads => run_search(search, cfg, expected_units, unit).map(Some),
        #[cfg(feature = "mpi")]
        crate::config::Runtime::Mpi => mpi::run_search(search, cfg),
        #[cfg(not(feature = "mpi"))]
        crate::config::Runtime::Mpi => unreachable!("--runtime mpi is refused without the feature"),
    }
}
