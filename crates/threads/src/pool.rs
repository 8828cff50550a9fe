//! Worker threads that outlive one run.
//!
//! ## Lifecycle
//! [`Pool::new`] starts the workers; they wait, parked on a condition
//! variable, until a run hands them a job, and between runs cost nothing.
//! A run ([`Pool::run`]) cuts the root on the calling thread, builds the
//! PEs' state, hands the job "take PEs from this run's queue until all
//! have finished" (see `sched`) to as many workers as it needs, runs the
//! same job on the calling thread (unless the caller watches the run with
//! a monitor), waits until every worker has left the job, and merges the
//! PEs' results. Dropping the pool stops and joins the workers.
//!
//! ## How a run is handed over, and why no worker sees two runs mixed
//! The pool's lock guards three fields: the current job (a reference to a
//! closure on the caller's stack), how many more workers may join it, and
//! how many workers are inside it. A run publishes its job under the lock
//! and wakes the workers it wants. A worker joins only under the lock,
//! only while the job is published and wanted, and counts itself inside;
//! it reads the job's reference at that moment. When the job is done (all
//! PEs finished: nothing is left for anyone to take) the run withdraws the
//! job under the lock, so no worker joins any more, and waits until the
//! count of workers inside is zero. Only then does it return, and only then
//! can the closure on its stack go away or the next run publish its job. So
//! a worker runs exactly the job it joined, that job is alive while it
//! runs, and a worker that wakes late finds no job (or the next one, which
//! it then joins properly) — never a mix.
//!
//! The withdrawal and the wait happen in a guard's `drop`, so that they
//! happen also when the calling thread unwinds.
//!
//! Runs on one pool are serialized: a second run from another thread
//! waits until the first has returned. A run started from inside a run on
//! the same pool (in `work` or `split`) would wait for itself; it is refused
//! with a panic that says so. The global pool behind [`crate::run`] never
//! refuses: when it is busy, that call runs on a pool of its own.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::thread::{self, JoinHandle};

/// A job: run by every thread of a run until the run's PEs are done.
type Job = dyn Fn() + Sync;

/// The handover state, under the pool's lock.
struct Handover {
    /// The current job, with its lifetime erased (see [`JobRef`]).
    job: Option<JobRef>,
    /// How many more workers may join it.
    wanted: usize,
    /// How many workers are inside it.
    inside: usize,
    /// The pool is being dropped.
    shutdown: bool,
}

/// A reference to a job on a caller's stack.
#[derive(Clone, Copy)]
struct JobRef(&'static Job);

/// What the workers and the runs share.
struct Inner {
    handover: Mutex<Handover>,
    /// Workers wait here for a job.
    work: Condvar,
    /// A run waits here for the workers to leave its job.
    left: Condvar,
    /// This pool's number, to recognize a run started from inside a run.
    id: usize,
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, Handover> {
        self.handover.lock().unwrap_or_else(|e| e.into_inner())
    }
}

thread_local! {
    /// The pool whose run this thread is in (as a worker or as the caller).
    static INSIDE: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Worker threads for runs, kept between runs (see the module's
/// documentation for the lifecycle and the handover protocol).
///
/// A run on a pool of `n` workers uses `min(P, n + 1)` threads: the
/// calling thread and up to `n` workers (`min(P, n)` workers when a
/// monitor watches the run from the calling thread). More PEs than threads
/// take turns on them: a PE occupies a thread only while it has something
/// to do (see [`crate::run`]).
///
/// ```
/// use treelb::search::{BinaryTree, DfsWork, SplitPolicy};
/// use treelb_threads::{Config, Pool};
///
/// let pool = Pool::new(2);
/// let config = Config::new(2);
/// for _ in 0..100 {
///     let outcome = pool.run(DfsWork::new(&BinaryTree(8), SplitPolicy::OldestHalf), &config).unwrap();
///     assert_eq!(outcome.output, 511);
/// }
/// ```
pub struct Pool {
    inner: Arc<Inner>,
    workers: Vec<JoinHandle<()>>,
    /// Serializes the runs on this pool.
    runs: Mutex<()>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool").field("workers", &self.workers.len()).finish()
    }
}

impl Pool {
    /// A pool of `workers` threads (at least one), parked until a run.
    pub fn new(workers: usize) -> Pool {
        Pool::build(workers, false)
    }

    /// A pool whose worker `i` is pinned to the `i`-th core the process may
    /// run on (modulo their number), for [`crate::Config::pin`].
    pub(crate) fn pinned(workers: usize) -> Pool {
        Pool::build(workers, true)
    }

    fn build(workers: usize, pin: bool) -> Pool {
        static IDS: AtomicUsize = AtomicUsize::new(0);
        let inner = Arc::new(Inner {
            handover: Mutex::new(Handover { job: None, wanted: 0, inside: 0, shutdown: false }),
            work: Condvar::new(),
            left: Condvar::new(),
            id: IDS.fetch_add(1, Ordering::Relaxed),
        });
        let cores = if pin { core_affinity::get_core_ids().unwrap_or_default() } else { Vec::new() };
        let workers = (0..workers.max(1))
            .map(|i| {
                let inner = Arc::clone(&inner);
                let core = (!cores.is_empty()).then(|| cores[i % cores.len()]);
                thread::Builder::new()
                    .name(format!("treelb-worker-{i}"))
                    .spawn(move || {
                        if let Some(core) = core {
                            // Best effort: an unpinned worker still runs.
                            core_affinity::set_for_current(core);
                        }
                        worker(&inner)
                    })
                    .expect("failed to spawn a worker thread")
            })
            .collect();
        Pool { inner, workers, runs: Mutex::new(()) }
    }

    /// The pool behind [`crate::run`]: one worker per core, started at the
    /// first run and kept until the process exits.
    pub fn global() -> &'static Pool {
        static GLOBAL: OnceLock<Pool> = OnceLock::new();
        GLOBAL.get_or_init(|| Pool::new(crate::machine_cores()))
    }

    /// The number of worker threads.
    pub fn workers(&self) -> usize {
        self.workers.len()
    }

    /// Whether the calling thread is inside a run on this pool.
    fn inside(&self) -> bool {
        INSIDE.with(|c| c.get()) == Some(self.inner.id)
    }

    /// Takes this pool for one run: waits for the run before it. Panics if
    /// the calling thread is inside a run on this pool already.
    pub(crate) fn take(&self) -> MutexGuard<'_, ()> {
        assert!(
            !self.inside(),
            "treelb_threads::Pool::run called from inside a run on the same pool (it would wait for itself)"
        );
        self.runs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes this pool for one run if nobody uses it.
    pub(crate) fn try_take(&self) -> Option<MutexGuard<'_, ()>> {
        if self.inside() {
            return None;
        }
        match self.runs.try_lock() {
            Ok(guard) => Some(guard),
            Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }

    /// Runs `job` on `helpers` workers, and on the calling thread too if
    /// `caller` is `Some`: then `caller` runs after `job` returned on this
    /// thread. Returns what `caller` returned once every worker has left
    /// the job. The pool must be taken ([`Pool::take`]).
    pub(crate) fn broadcast<'j, R>(
        &self,
        helpers: usize,
        job: &'j (dyn Fn() + Sync + 'j),
        caller: impl FnOnce() -> R,
    ) -> R {
        // SAFETY: the reference outlives its use. Workers read it only while
        // it is published (under the lock, see the module's documentation),
        // and `Withdraw::drop` below unpublishes it and waits until no worker
        // is inside it before this function returns or unwinds; `job`
        // outlives this function.
        let erased: &'static Job =
            unsafe { std::mem::transmute::<&'j (dyn Fn() + Sync + 'j), &'static Job>(job) };
        let _withdraw = Withdraw(&self.inner);
        let helpers = helpers.min(self.workers.len());
        {
            let mut h = self.inner.lock();
            h.job = Some(JobRef(erased));
            h.wanted = helpers;
            match helpers {
                0 => {}
                1 => self.inner.work.notify_one(),
                _ => self.inner.work.notify_all(),
            }
        }
        let was = INSIDE.with(|c| c.replace(Some(self.inner.id)));
        let _restore = Restore(was);
        caller()
    }
}

/// Puts back what [`INSIDE`] said before a run.
struct Restore(Option<usize>);

impl Drop for Restore {
    fn drop(&mut self) {
        INSIDE.with(|c| c.set(self.0));
    }
}

/// Withdraws a run's job and waits until no worker is inside it.
struct Withdraw<'a>(&'a Inner);

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        let mut h = self.0.lock();
        h.job = None;
        h.wanted = 0;
        while h.inside > 0 {
            h = self.0.left.wait(h).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// A worker's life: wait for a job it is wanted for, run it, repeat.
fn worker(inner: &Inner) {
    INSIDE.with(|c| c.set(Some(inner.id)));
    let mut h = inner.lock();
    loop {
        if h.shutdown {
            return;
        }
        match h.job {
            Some(JobRef(job)) if h.wanted > 0 => {
                h.wanted -= 1;
                h.inside += 1;
                drop(h);
                // The job catches the panics of the work; one that escapes
                // is a bug of this crate, and must not leave the run waiting
                // for this worker.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                h = inner.lock();
                h.inside -= 1;
                if h.inside == 0 {
                    inner.left.notify_all();
                }
            }
            _ => h = inner.work.wait(h).unwrap_or_else(|e| e.into_inner()),
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.inner.lock().shutdown = true;
        self.inner.work.notify_all();
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}
