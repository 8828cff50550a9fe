//! Non-blocking sends that own their buffers.
//!
//! `MPI_Isend` needs its buffer until the send completes. rsmpi ties a
//! request to a buffer that outlives it; the outbox gives each message a
//! heap buffer, leaked for the lifetime of the request (rsmpi's
//! `StaticScope`), and frees it when `MPI_Test` reports completion.

use mpi::Tag;
use mpi::point_to_point::Destination;
use mpi::request::{Request, StaticScope};
use mpi::topology::{Communicator, SimpleCommunicator};

/// The sends of one PE that have not completed yet.
pub(crate) struct Outbox {
    pending: Vec<Request<'static, [u8]>>,
}

impl Outbox {
    pub(crate) fn new() -> Self {
        Outbox { pending: Vec::new() }
    }

    /// Starts sending `bytes` to `rank` of `comm` with `tag`; returns at once.
    pub(crate) fn send(&mut self, comm: &SimpleCommunicator, rank: usize, tag: Tag, bytes: Vec<u8>) {
        let buf: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        let rank = i32::try_from(rank).expect("rank fits MPI's int");
        let request = comm.process_at_rank(rank).immediate_send_with_tag(StaticScope, buf, tag);
        self.pending.push(request);
    }

    /// Frees the buffers of completed sends. Cheap when nothing is pending.
    #[inline]
    pub(crate) fn progress(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let mut i = 0;
        while i < self.pending.len() {
            let request = self.pending.swap_remove(i);
            match request.test_with_data() {
                Ok((_status, buf)) => {
                    // SAFETY: `buf` is the slice leaked from a `Box<[u8]>` in
                    // `send`; its request completed, so MPI no longer reads it,
                    // and no other reference to it exists.
                    drop(unsafe { Box::from_raw(std::ptr::from_ref(buf).cast_mut()) });
                }
                Err(request) => {
                    self.pending.push(request);
                    let last = self.pending.len() - 1;
                    self.pending.swap(i, last);
                    i += 1;
                }
            }
        }
    }

    /// Whether every send has completed.
    pub(crate) fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }
}

impl Drop for Outbox {
    fn drop(&mut self) {
        // Every driver path flushes before it drops the outbox; a pending
        // request here is a bug (and rsmpi would panic on it anyway).
        debug_assert!(self.pending.is_empty() || std::thread::panicking(), "dropping unfinished sends");
        if !self.pending.is_empty() {
            // Leak rather than free buffers that MPI may still read.
            std::mem::forget(std::mem::take(&mut self.pending));
        }
    }
}
