//! `treelb nqueens N`: count the solutions of N-Queens.

use std::io::Write;

use serde::Serialize;
use treelb_apps::nqueens::{NQueens, NQueensResult};

use super::Status;
use crate::args::NqueensArgs;
use crate::config::{Error, RunConfig};
use crate::report::{Line, report, write};

#[derive(Serialize)]
struct Instance {
    n: u32,
    mirror: bool,
}

#[derive(Serialize)]
struct Answer {
    #[serde(flatten)]
    result: NQueensResult,
    published_solutions: Option<u64>,
}

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
    let (interrupted, units, stopped) = (outcome.interrupted(), outcome.stats.work_units(), outcome.stopped);
    let published = NQueens::known_solutions(n);
    let mut solutions = Line::new("solutions", result.solutions);
    let matches = interrupted || published.is_none_or(|p| p == result.solutions);
    if let Some(p) = published.filter(|_| interrupted) {
        solutions = solutions.note(format!("partial: the published count is {p}"));
    } else if let Some(p) = published {
        solutions = solutions.note(if matches {
            format!("published: {p} ✓")
        } else {
            format!("MISMATCH: published {p}")
        });
    }
    let lines = vec![solutions, Line::new("nodes", result.nodes)];
    let answer = Answer { result, published_solutions: published };
    let title = format!("N-Queens, n = {n}");
    let report = report(
        "nqueens",
        title,
        Instance { n, mirror: args.mirror },
        answer,
        lines,
        UNIT,
        &cfg,
        outcome.stats,
        stopped,
    );
    write(&report, cfg.json, out)?;
    if interrupted {
        return Ok(super::interrupted(&cfg, stopped, units, UNIT));
    }
    if !matches {
        eprintln!(
            "treelb: error: {} solutions found, the published count is {published:?}",
            result.solutions
        );
    }
    Ok(matches.into())
}
