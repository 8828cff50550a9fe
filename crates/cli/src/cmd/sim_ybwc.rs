//! `treelb sim ybwc`: the simulator's model of young brothers wait on
//! synthetic game trees beside the threads runtime on the same trees
//! (`treelb_sim::ybwc::compare`).

use std::io::{IsTerminal, Write};

use treelb::spec::Budget;
use treelb_sim::Costs;
use treelb_sim::ybwc::compare::{Compare, CompareError, MAX_SIMULATED_PES, MAX_THREADS, compare};

use crate::args::YbwcArgs;
use crate::config::{Error, err};
use crate::progress::Phases;

/// Runs `treelb sim ybwc`.
pub(crate) fn run(a: &YbwcArgs, out: &mut dyn Write) -> Result<bool, Error> {
    let cfg = Compare {
        branching: a.branching,
        depth: a.depth,
        ordering: a.ordering,
        seeds: a.seeds,
        pes: a.pes.clone(),
        threads: a.threads.clone(),
        repeat: a.repeat,
        node_ticks: a.node_ticks,
        budget: a.budget.or(Budget::DEFAULT),
        costs: Costs::default(),
    };
    let mut bar = Phases::new(std::io::stderr().is_terminal());
    let c = compare(&cfg, &mut bar).map_err(|e| match e {
        CompareError::Ordering(o) => err!("--ordering must be between 0 and 1, got {o}"),
        CompareError::SimulatedPes(p) => {
            err!("-p: simulated PEs must be between 1 and {MAX_SIMULATED_PES}, got {p}")
        }
        CompareError::Threads(p) => err!("--threads: PEs must be between 1 and {MAX_THREADS}, got {p}"),
        e => err!("sim ybwc: {e}"),
    })?;
    bar.finish();
    write!(out, "{}", c.table(&cfg))?;
    Ok(true)
}
