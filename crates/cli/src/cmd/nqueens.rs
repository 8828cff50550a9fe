//! `treelb nqueens N`: count the solutions of N-Queens.

use std::io::Write;

use treelb_apps::nqueens::NQueens;
use treelb_apps::report::nqueens;

use super::Status;
use crate::args::NqueensArgs;
use crate::config::{Error, RunConfig};
use crate::report::{report, write};

/// The runtime's unit of work here: an expansion of one node is one, an
/// expansion that counts a whole subtree of the last rows at once is
/// `BULK_COST` (the tree's nodes are in the answer).
const UNIT: &str = "work units";

pub(crate) fn run(args: &NqueensArgs, out: &mut impl Write) -> Result<Status, Error> {
    let cfg = RunConfig::from_args(&args.run)?;
    cfg.refuse_deterministic("nqueens")?;
    let n = args.n;
    let problem = NQueens::new(n)?.with_mirror(args.mirror);
    let Some(outcome) = crate::run::search(&problem, &cfg, None, UNIT)? else {
        return Ok(Status::Done); // an MPI rank other than 0: rank 0 reports
    };
    let result = outcome.output;
    let (interrupted, units, stopped) =
        (outcome.stopped.is_some(), outcome.stats.work_units(), outcome.stopped);
    let answered = nqueens::answer(n, args.mirror, result, interrupted);
    let ok = answered.ok;
    write(&report("nqueens", answered, UNIT, &cfg, outcome.stats, stopped), cfg.json, out)?;
    if interrupted {
        return Ok(super::interrupted(&cfg, stopped, units, UNIT));
    }
    if !ok {
        eprintln!(
            "treelb: error: {} solutions found, the published count is {:?}",
            result.solutions,
            NQueens::known_solutions(n)
        );
    }
    Ok(ok.into())
}
