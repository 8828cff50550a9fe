//! Ctrl-C (SIGINT) and SIGTERM as a stop of a run.
//!
//! After [`catch`], the first such signal makes [`caught`] true: a run
//! built with [`Run::stop_on_signals`](crate::Run::stop_on_signals) then
//! stops every PE after its current slice and returns its partial outcome,
//! stopped by [`StopReason::Signal`](crate::StopReason::Signal) (a
//! checkpointed run keeps its last checkpoint); a second signal ends the
//! process at once, with exit code 130. Under `mpirun`, which forwards a
//! Ctrl-C to every rank as SIGINT or SIGTERM, every rank stops its own PEs
//! and the partial results still reach rank 0.
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

use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the first signal after [`catch`].
static CAUGHT: AtomicBool = AtomicBool::new(false);

/// Installs, once per process, the handler of Ctrl-C and SIGTERM (see the
/// [module documentation](self)). A handler the program installed before
/// through the `ctrlc` crate stays, and this one is not installed.
pub fn catch() {
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
