//! The shared target counter of global round robin: one `u64` in an MPI
//! window at rank 0, read and incremented by one-sided
//! `MPI_Fetch_and_op(…, MPI_SUM)` under a passive-target `lock_all` epoch.
//! rsmpi 0.8 has no one-sided API, so this module calls the C functions
//! through `mpi::ffi`.

use std::os::raw::c_void;
use std::ptr;

use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::CommunicatorCollectives;

/// The window holding the counter, created collectively over `comm`.
pub(crate) struct SharedCounter {
    win: ffi::MPI_Win,
}

// SAFETY: an MPI window handle may be used from any thread when MPI runs
// with MPI_THREAD_MULTIPLE, which the driver requires before it shares the
// counter between threads (hybrid mode); in single-threaded mode only the
// main thread touches it.
unsafe impl Sync for SharedCounter {}
// SAFETY: as above.
unsafe impl Send for SharedCounter {}

impl SharedCounter {
    /// Creates the window (collective over `comm`): 8 bytes at rank 0, none
    /// elsewhere, the counter at 0; opens a passive-target epoch everywhere.
    pub(crate) fn new(comm: &SimpleCommunicator) -> Self {
        let size: ffi::MPI_Aint = if comm.rank() == 0 { 8 } else { 0 };
        let mut base: *mut u64 = ptr::null_mut();
        let mut win = ffi::MPI_Win(ptr::null_mut());
        // SAFETY: valid communicator and out-pointers; MPI allocates `size`
        // bytes aligned for any type and stores their address in `base`.
        unsafe {
            ffi::MPI_Win_allocate(
                size,
                8,
                ffi::RSMPI_INFO_NULL,
                comm.as_raw(),
                ptr::from_mut(&mut base).cast::<c_void>(),
                &mut win,
            );
        }
        if comm.rank() == 0 {
            // SAFETY: rank 0 owns 8 bytes at `base`; no epoch is open yet, so
            // no other process accesses them.
            unsafe { base.write(0) };
        }
        comm.barrier();
        // SAFETY: `win` is the window just created on every process.
        unsafe { ffi::MPI_Win_lock_all(0, win) };
        SharedCounter { win }
    }

    /// Takes the next ticket: the counter's value before adding 1.
    pub(crate) fn next_ticket(&self) -> u64 {
        let one: u64 = 1;
        let mut old: u64 = 0;
        // SAFETY: `one` and `old` live through the call, which completes the
        // operation (flush) before returning; the target displacement 0 is
        // inside rank 0's 8 bytes; the epoch opened in `new` is still open.
        unsafe {
            ffi::MPI_Fetch_and_op(
                ptr::from_ref(&one).cast::<c_void>(),
                ptr::from_mut(&mut old).cast::<c_void>(),
                ffi::RSMPI_UINT64_T,
                0,
                0,
                ffi::RSMPI_SUM,
                self.win,
            );
            ffi::MPI_Win_flush(0, self.win);
        }
        old
    }

    /// Closes the epoch and frees the window (collective).
    pub(crate) fn free(mut self) {
        // SAFETY: the epoch opened in `new` is closed once, then the window
        // freed once; every process calls this after its last ticket.
        unsafe {
            ffi::MPI_Win_unlock_all(self.win);
            ffi::MPI_Win_free(&mut self.win);
        }
    }
}
