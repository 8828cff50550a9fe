//! One module per subcommand, and the run shared by all applications.

pub(crate) mod bench;
pub(crate) mod bnb;
pub(crate) mod calibrate;
pub(crate) mod clique;
pub(crate) mod compare;
pub(crate) mod connect4;
pub(crate) mod estimate;
pub(crate) mod integrate;
pub(crate) mod knapsack;
pub(crate) mod mandelbrot;
pub(crate) mod nqueens;
pub(crate) mod plot_trace;
pub(crate) mod resume;
pub(crate) mod sim;
pub(crate) mod sim_replay;
pub(crate) mod sim_ybwc;
pub(crate) mod tsp;
pub(crate) mod uts;

use treelb::limit::StopReason;

use crate::config::RunConfig;

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

/// The status of a run that `--max-nodes`, `--time-limit` or a signal
/// stopped after `units` units of work, after one line on stderr saying so
/// (the report on stdout is marked too).
pub(crate) fn interrupted(cfg: &RunConfig, stopped: Option<StopReason>, units: u64, unit: &str) -> Status {
    let reason = crate::report::stop_reason(cfg, stopped);
    if cfg.quiet {
        return Status::Interrupted;
    }
    let line = if stopped == Some(StopReason::Signal) {
        format!("treelb: interrupted by {reason} after {units} {unit}; the report is partial\n")
    } else {
        format!("treelb: interrupted: {reason} reached after {units} {unit}; the report is partial\n")
    };
    // One write: `eprintln!` writes its pieces one by one to the unbuffered
    // stderr, and under `mpirun` another process's message could land
    // between them (seen: mpirun's notice of rank 0's exit status inside
    // this line).
    let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), line.as_bytes());
    Status::Interrupted
}
