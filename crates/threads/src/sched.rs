//! Running P PEs on fewer threads: each PE is state that the threads of a
//! run pick up when it has something to do, and put down when it waits.
//!
//! A PE on a thread of its own parks when it waits for a message (an
//! answer, a request, a push, a search permit, the end of the run) and is
//! unparked by the sender. Here the PE's loop instead returns
//! [`Step::Wait`](crate::pe::Step) at that point, and the thread that ran
//! it takes the next PE from the run queue. A message for a waiting PE puts
//! it back into the queue. So a run of 4,096 PEs on two cores costs two
//! threads, not 4,096 thread starts, stacks, and wake-ups through the
//! operating system's scheduler.
//!
//! ## States
//! Every PE has one state word:
//!
//! * `WAITING`: its last turn ended in a wait; it is in no queue;
//! * `QUEUED`: it is in the run queue (each PE at most once);
//! * `RUNNING`: a thread runs its turn;
//! * `NOTIFIED`: a thread runs its turn, and a message came meanwhile;
//! * `FINISHED`: its loop has ended.
//!
//! A run starts with every PE `QUEUED`. A sender calls [`Sched::wake`]
//! after every message: `WAITING → QUEUED` (and the sender pushes the PE
//! into the queue), `RUNNING → NOTIFIED`, and nothing in the other states.
//! A thread takes a PE from the queue, sets `RUNNING` and runs a turn. If the
//! turn ends in a wait, the thread tries `RUNNING → WAITING`; if that fails
//! the state was `NOTIFIED`, and the thread queues the PE again
//! (`QUEUED`). If the turn ends the PE's loop, `FINISHED`.
//!
//! ## Why no message is lost
//! A PE's turn reads its messages after its thread set `RUNNING`; a sender
//! writes the message before it reads the state in `wake`. Both sides put a
//! sequentially consistent fence between their write and their read, so at
//! least one sees the other's write: either the turn sees the message, or
//! the sender sees `RUNNING` (then `NOTIFIED`, and the thread's
//! `RUNNING → WAITING` fails, so the PE runs again) or a later `WAITING`
//! (then it queues the PE). This is the same handshake as a park token:
//! a wake-up before the wait is not lost.
//!
//! *No PE runs on two threads at once:* only the thread that takes a PE
//! from the queue runs it, and a PE enters the queue only by a successful
//! `WAITING → QUEUED` (one sender wins) or by the thread that ran it, after
//! its turn.
//!
//! ## Why every PE gets a thread when it needs one
//! The queue is first in, first out, and a thread holds a PE for one turn.
//! A turn ends when the PE waits for a message (it frees the thread), when
//! its piece runs out or the run ends, or — the rule that makes this work
//! — when the PE would wait by itself (the back-off between two attempts
//! to find work, the spin for an answer) while other PEs are in the queue:
//! then it yields (`RUNNING → QUEUED`, to the back of the queue). So idle
//! PEs that keep asking each other cannot keep every thread while a PE
//! that holds work, or a request to answer, waits in the queue: every turn
//! is finite, and every queued PE's turn comes. A busy turn lasts until the
//! piece runs out, and busy PEs still answer requests at every poll, as on
//! threads of their own.
//!
//! ## The end of a run
//! `finished` counts the PEs in `FINISHED`. The run's threads take PEs
//! from the queue until it reaches P; the last PE to finish wakes the
//! threads that wait for the queue. Termination (see `termination`) wakes
//! every PE once, so every PE finishes after the live-work counter reached
//! zero or the run aborted.

use std::collections::VecDeque;
use std::thread::Thread;

use std::time::{Duration, Instant};

use crate::sync::{AtomicBool, AtomicU8, AtomicUsize, Condvar, Mutex, MutexGuard, Ordering, fence};

const WAITING: u8 = 0;
const QUEUED: u8 = 1;
const RUNNING: u8 = 2;
const NOTIFIED: u8 = 3;
const FINISHED: u8 = 4;

/// The PEs of one run, their states and the run queue.
pub(crate) struct Sched {
    states: Vec<AtomicU8>,
    queue: Mutex<Queue>,
    /// Threads that wait for the queue.
    ready: Condvar,
    /// The thread that watches the run, unparked when every PE finished.
    monitor: Option<Thread>,
    /// The queue's length, written under its lock, read without it by
    /// threads that watch for work before they sleep (a hint: the queue is
    /// read again under the lock).
    queued: AtomicUsize,
    /// Every PE has finished (a hint for the same threads).
    ended: AtomicBool,
}

/// How long a thread that finds the queue empty watches it before it
/// sleeps. Under the pushing strategies a PE's piece arrives every few
/// microseconds while one thread works and the other has no PE to run;
/// sleeping and being woken through the kernel each time cost more than
/// the pieces' work (a third of the processor time at P = 2 under extreme
/// work sharing). Watching costs at most this much processor time per
/// empty queue, and nothing under loom, whose models must not spin.
#[cfg(not(loom))]
const SPIN: Duration = Duration::from_micros(50);
#[cfg(loom)]
const SPIN: Duration = Duration::ZERO;

struct Queue {
    pes: VecDeque<usize>,
    /// PEs whose loop has ended.
    finished: usize,
    /// Threads waiting on `ready`, so that a push without sleepers costs no
    /// system call.
    sleeping: usize,
}

/// What a thread does with the PE whose turn it ran.
pub(crate) enum After {
    /// The turn ended in a wait.
    Wait,
    /// The turn gave the thread to the PEs in the queue: queue it again.
    Yield,
    /// The PE's loop ended.
    Finish,
}

impl Sched {
    /// `p` PEs, all queued in index order; `monitor` is unparked when all
    /// have finished.
    pub(crate) fn new(p: usize, monitor: Option<Thread>) -> Self {
        Sched {
            states: (0..p).map(|_| AtomicU8::new(QUEUED)).collect(),
            queue: Mutex::new(Queue { pes: (0..p).collect(), finished: 0, sleeping: 0 }),
            ready: Condvar::new(),
            monitor,
            queued: AtomicUsize::new(p),
            ended: AtomicBool::new(p == 0),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The number of PEs.
    pub(crate) fn len(&self) -> usize {
        self.states.len()
    }

    /// Whether every PE's loop has ended.
    pub(crate) fn all_finished(&self) -> bool {
        self.lock().finished == self.len()
    }

    /// Whether PEs wait in the queue for a thread.
    pub(crate) fn others_queued(&self) -> bool {
        !self.lock().pes.is_empty()
    }

    /// Called after every message for PE `pe` (see the module's
    /// documentation): queues it if it waits.
    #[inline]
    pub(crate) fn wake(&self, pe: usize) {
        // Pairs with the fence in `run`: the message written before this
        // fence is seen by the PE's turn, or the state read after it is
        // the turn's (see "Why no message is lost").
        fence(Ordering::SeqCst);
        let state = &self.states[pe];
        let mut s = state.load(Ordering::SeqCst);
        loop {
            let next = match s {
                WAITING => QUEUED,
                RUNNING => NOTIFIED,
                _ => return,
            };
            match state.compare_exchange(s, next, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => break,
                Err(now) => s = now,
            }
        }
        if s == WAITING {
            self.push(pe);
        }
    }

    /// Watches the queue's length, without its lock, until it is not
    /// empty, the run ends, or [`SPIN`] has passed.
    fn watch(&self) {
        let start = Instant::now();
        loop {
            for _ in 0..32 {
                if self.queued.load(Ordering::Relaxed) > 0 || self.ended.load(Ordering::Relaxed) {
                    return;
                }
                std::hint::spin_loop();
            }
            if start.elapsed() >= SPIN {
                return;
            }
        }
    }

    fn push(&self, pe: usize) {
        let mut q = self.lock();
        q.pes.push_back(pe);
        self.queued.store(q.pes.len(), Ordering::Relaxed);
        if q.sleeping > 0 {
            self.ready.notify_one();
        }
    }

    /// The next PE to run, or `None` when every PE has finished. Waits
    /// while the queue is empty: first by watching it for a moment (see
    /// [`SPIN`]), then asleep until a push or the end wakes it.
    pub(crate) fn next(&self) -> Option<usize> {
        let mut q = self.lock();
        let mut watched = false;
        loop {
            if let Some(pe) = q.pes.pop_front() {
                self.queued.store(q.pes.len(), Ordering::Relaxed);
                return Some(pe);
            }
            if q.finished == self.len() {
                return None;
            }
            if !std::mem::replace(&mut watched, true) && SPIN > Duration::ZERO {
                drop(q);
                self.watch();
                q = self.lock();
                continue;
            }
            q.sleeping += 1;
            q = self.ready.wait(q).unwrap_or_else(|e| e.into_inner());
            q.sleeping -= 1;
        }
    }

    /// Runs turns of PE `pe` (taken by [`Sched::next`]) with `turn` until
    /// it waits or finishes; requeues it if a message came during a turn
    /// that ended in a wait.
    pub(crate) fn run(&self, pe: usize, turn: impl FnOnce() -> After) {
        let state = &self.states[pe];
        state.store(RUNNING, Ordering::SeqCst);
        // Pairs with the fence in `wake`.
        fence(Ordering::SeqCst);
        match turn() {
            After::Wait => {
                if state.compare_exchange(RUNNING, WAITING, Ordering::SeqCst, Ordering::SeqCst).is_err() {
                    // NOTIFIED: a message came during the turn.
                    state.store(QUEUED, Ordering::SeqCst);
                    self.push(pe);
                }
            }
            After::Yield => {
                state.store(QUEUED, Ordering::SeqCst);
                self.push(pe);
            }
            After::Finish => {
                state.store(FINISHED, Ordering::SeqCst);
                let mut q = self.lock();
                q.finished += 1;
                if q.finished == self.len() {
                    self.ended.store(true, Ordering::Relaxed);
                    self.ready.notify_all();
                    if let Some(monitor) = &self.monitor {
                        monitor.unpark();
                    }
                }
            }
        }
    }
}
