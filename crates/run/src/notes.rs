//! What a run says about itself for people besides its output: the MPI
//! runtime's figures in one line ([`Outcome::mpi_line`],
//! [`GamesSummary`]'s `Display`), and the notes a trace carries about the
//! run that wrote it ([`trace_notes`]), which `treelb sim replay` reads
//! back.

use std::fmt;
use std::time::Duration;

use treelb::RunSpec;
use treelb::search::SplitPolicy;

use crate::Outcome;
use crate::game::GamesSummary;

impl<O> Outcome<O> {
    /// The MPI runtime's figures in one line, for a run across ranks:
    /// `mpi: 2 ranks × 1 threads (MPI_THREAD_FUNNELED); one empty probe
    /// costs 150 ns, …`. `None` on threads.
    pub fn mpi_line(&self) -> Option<String> {
        let figures = self.mpi?;
        let busy = self.stats.total().busy.as_secs_f64();
        let probe = figures.probe;
        let probe_share = if busy > 0.0 { probe.nanos * 1e-9 * probe.probes as f64 / busy } else { 0.0 };
        let broadcasts = if figures.improvements > 0 {
            format!("; {} improvement messages", figures.improvements)
        } else {
            String::new()
        };
        Some(format!(
            "mpi: {} ranks × {} threads ({}); one empty probe costs {:.0} ns, {} probes ≈ {:.2} % of busy time; {} termination waves{broadcasts}",
            self.ranks,
            self.threads,
            figures.thread_support,
            probe.nanos,
            probe.probes,
            100.0 * probe_share,
            figures.waves
        ))
    }
}

impl fmt::Display for GamesSummary {
    /// `mpi: 2 ranks × 1 threads (…); 12 window searches, …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mpi: {} ranks × {} threads ({})", self.ranks, self.threads, self.thread_support)?;
        #[cfg(feature = "mpi")]
        {
            let w = self.windows;
            write!(
                f,
                "; {} window searches, {} termination waves; {} results and {} aborts sent between ranks, \
                 {} results for frames already finished",
                w.searches, w.waves, w.net.results, w.net.aborts, w.net.discarded
            )?;
        }
        Ok(())
    }
}

/// The notes of the trace of a run under `spec` with `split_policy` on
/// `pes` PEs that took `wall`, started as `program ARGS…`: what the trace's
/// lines mean, the command line (quoted for a shell), the setup, and —
/// for `treelb sim replay` to read back — the specification, the split
/// policy and the arguments as JSON.
///
/// ```
/// use std::time::Duration;
/// use treelb::{RunSpec, SplitPolicy};
///
/// let args = ["uts".to_owned(), "--tree".to_owned(), "T 1".to_owned()];
/// let notes = treelb_run::trace_notes(&RunSpec::default(), 2, SplitPolicy::Bottom, Duration::ZERO, "treelb", &args);
/// assert!(notes.contains(&"command: treelb uts --tree 'T 1'".to_owned()));
/// assert!(notes.contains(&"split-policy: bottom".to_owned()));
/// ```
pub fn trace_notes(
    spec: &RunSpec,
    pes: usize,
    split_policy: SplitPolicy,
    wall: Duration,
    program: &str,
    args: &[String],
) -> Vec<String> {
    vec![
        "treelb trace: one line per interval in which a PE stayed in one state; times in ns since the run started".into(),
        "states: working, splitting (cutting a piece for another PE), sending (handing it over), requesting (a request out, waiting for the answer), idle".into(),
        "marks (after `pe,at_ns,mark,value`): request (value: the PE asked), give (to), receive (from), worked (the units of a busy phase)".into(),
        format!("command: {}", treelb_files::text::command_line(program, args.iter().cloned())),
        format!(
            "strategy: {}, threads: {}, budget: {}, init: {}, split policy: {}, wall: {:.6} s",
            spec.strategy,
            pes,
            spec.budget,
            spec.init,
            split_policy,
            wall.as_secs_f64()
        ),
        format!("spec: {}", serde_json::to_string(spec).unwrap_or_default()),
        format!("split-policy: {split_policy}"),
        format!("argv: {}", serde_json::to_string(args).unwrap_or_default()),
    ]
}
