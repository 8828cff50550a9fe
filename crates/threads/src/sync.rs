//! The synchronization primitives of the PE protocols, switchable to
//! [`loom`](https://docs.rs/loom)'s model-checked versions.
//!
//! Normal builds re-export `std::sync`, so they are unchanged in behaviour
//! and cost. Built with `RUSTFLAGS="--cfg loom"` (see `.ci/loom.sh`), the
//! mailbox and termination protocols use loom's atomics and mutex instead,
//! and the `loom_tests` module explores their interleavings. Only the
//! mailbox, the termination detector and the PEs' turns on threads
//! (`sched`) import from here: they are the protocols the loom models
//! check.

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering, fence};
#[cfg(not(loom))]
pub(crate) use std::sync::{Condvar, Mutex, MutexGuard};

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering, fence};
#[cfg(loom)]
pub(crate) use loom::sync::{Condvar, Mutex, MutexGuard};
