//! The synchronization primitives of the PE protocols, switchable to
//! [`loom`](https://docs.rs/loom)'s model-checked versions.
//!
//! Normal builds re-export `std::sync`, so they are unchanged in behaviour
//! and cost. Built with `RUSTFLAGS="--cfg loom"` (see `.ci/loom.sh`), the
//! mailbox and termination protocols use loom's atomics and mutex instead,
//! and the `loom_tests` module explores their interleavings. Only the
//! mailbox and the termination detector import from here: they are the two
//! protocols the loom models check.

#[cfg(not(loom))]
pub(crate) use std::sync::Mutex;
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};

#[cfg(loom)]
pub(crate) use loom::sync::Mutex;
#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
