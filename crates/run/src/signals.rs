//! Ctrl-C (SIGINT) and SIGTERM as a stop of a run.
//!
//! After [`catch`], the first such signal makes [`caught`] true: a run
//! built with [`Run::stop_on_signals`](crate::Run::stop_on_signals) then
//! stops every PE after its current slice and returns its partial outcome,
//! stopped by [`StopReason::Signal`] (a checkpointed run keeps its last
//! checkpoint); a second signal ends the process at once, with exit code
//! 130. Under `mpirun`, which forwards a Ctrl-C to every rank as SIGINT or
//! SIGTERM, every rank stops its own PEs and the partial results still
//! reach rank 0.
//!
//! ```no_run
//! use treelb::search::SplitPolicy;
//! use treelb_apps::langford::Langford;
//! use treelb_run::{Pes, Run, RunSpec, StopReason};
//!
//! let outcome = Run::new(RunSpec::default())
//!     .stop_on_signals()
//!     .run_search(Pes::Threads(2), &Langford::new(16), SplitPolicy::OldestHalf)?
//!     .expect("threads: the caller always gets the outcome");
//! if outcome.stopped == Some(StopReason::Signal) {
//!     eprintln!("interrupted: {} pairings so far", Langford::pairings(outcome.output));
//! }
//! # Ok::<(), treelb_run::Error>(())
//! ```

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Once, OnceLock};
use std::time::{Duration, Instant};

use treelb::limit::{Limit, StopReason};

/// Set by the first signal after [`catch`].
static CAUGHT: AtomicBool = AtomicBool::new(false);

/// When [`catch`] was first called: the start of the process's runs.
static STARTED: OnceLock<Instant> = OnceLock::new();

/// Installs, once per process, the handler of Ctrl-C and SIGTERM (see the
/// [module documentation](self)), and starts the process's clock
/// ([`deadline`]). A handler the program installed before through the
/// `ctrlc` crate stays, and this one is not installed.
pub fn catch() {
    STARTED.get_or_init(Instant::now);
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            if CAUGHT.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
        });
    });
}

/// Whether a signal came since [`catch`].
pub fn caught() -> bool {
    CAUGHT.load(Ordering::SeqCst)
}

/// The instant `limit` after the first [`catch`] (or after this call, if
/// none came before): a time limit that counts from the process's first
/// run, across the segments of a checkpointed run and the phases before
/// it. `None` without a limit.
///
/// ```
/// use std::time::Duration;
///
/// treelb_run::signals::catch();
/// let a = treelb_run::signals::deadline(Some(Duration::from_secs(1))).unwrap();
/// let b = treelb_run::signals::deadline(Some(Duration::from_secs(1))).unwrap();
/// assert_eq!(a, b);
/// assert_eq!(treelb_run::signals::deadline(None), None);
/// ```
pub fn deadline(limit: Option<Duration>) -> Option<Instant> {
    limit.map(|t| *STARTED.get_or_init(Instant::now) + t)
}

/// Checks the stops that come from outside the work — a signal since
/// [`catch`], the `deadline` — and stops `limit` with the reason if one
/// has come. Returns whether the run is being stopped: the poll of a
/// phase outside the run (a search's root, bounded before the run starts;
/// the runs themselves are watched by [`Run`](crate::Run)).
pub fn check_stop(limit: &Limit, deadline: Option<Instant>) -> bool {
    if caught() {
        limit.stop_because(StopReason::Signal);
    }
    limit.check_deadline(deadline)
}
