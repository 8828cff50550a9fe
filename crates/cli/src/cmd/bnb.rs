//! What the branch-and-bound subcommands (`clique`, `knapsack`, `tsp`)
//! share: the run, with the improvements shown as they come and its proof
//! ([`treelb_apps::report::bnb`]).

use serde::Serialize;
use serde::de::DeserializeOwned;
use treelb::Incumbent;
use treelb::bound::NodeBound;
use treelb_apps::bnb::BnbStats;
pub(crate) use treelb_apps::report::bnb::{Improvement, Proof, Sequential, Timeline};

use crate::config::{Error, RunConfig};

/// The end of a branch-and-bound run: the runtime's and the proof.
pub(crate) struct BnbRan {
    pub(crate) ran: treelb_run::Outcome<BnbStats>,
    pub(crate) proof: Proof,
}

/// Runs a branch-and-bound search whose answer is in `incumbent` (a field of
/// the search): on the threads runtime, or across MPI ranks with `--runtime
/// mpi`, where the ranks broadcast improvements and rank 0's `incumbent`
/// ends up holding the best of all ranks. `None` on the other ranks, which
/// print nothing.
///
/// With `--deterministic` the incumbent breaks ties by the witness (see
/// [`treelb::incumbent`]); improvements are shown on stderr as they happen
/// (on MPI, at rank 0 as they reach it), unless `--json` or
/// `--no-progress`; a stopped run reports the proven bound. `unit` names
/// the search's units of work ([`treelb::Search::cost`]) in the progress
/// line.
pub(crate) fn run<S>(
    search: &S,
    incumbent: &Incumbent<Vec<u32>>,
    cfg: &RunConfig,
    unit: &'static str,
) -> Result<Option<BnbRan>, Error>
where
    S: NodeBound<Output = BnbStats>,
    S::Node: Clone + Serialize + DeserializeOwned,
{
    if cfg.deterministic {
        incumbent.break_ties();
    }
    let timeline = Timeline::new();
    let print = cfg.feedback.on();
    // The process that prints the report shows the improvements as they
    // come (across ranks, as they reach rank 0).
    let watch = || {
        timeline.watch(incumbent, move |Improvement { secs, value }| {
            if print {
                eprintln!("treelb: incumbent {value} at {secs:.3} s");
            }
        });
    };
    let Some(mut ran) = crate::run::bnb(search, incumbent, cfg, unit, watch)? else {
        return Ok(None);
    };
    let bound = ran.bound.take().expect("a branch and bound's outcome has its proof");
    let proof = Proof::new(bound, cfg.deterministic, timeline.improvements());
    Ok(Some(BnbRan { ran, proof }))
}
