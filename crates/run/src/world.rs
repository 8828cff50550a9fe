//! Where a program's PEs are, set up once per process: [`World`].

use crate::Pes;

/// The PEs of a program, set up once per process and ended once: threads
/// of this process, or the ranks that `mpirun` started, with MPI
/// initialized by `World::mpi` (with the feature `mpi`) and finalized by
/// [`World::end`]. Every run of the program takes its
/// [`pes`](World::pes).
///
/// ```
/// use treelb_run::World;
///
/// let world = World::Threads(2);
/// assert!(world.pes().gets_outcome());
/// world.end();
/// ```
pub enum World {
    /// This many threads of this process.
    Threads(usize),
    /// The ranks of MPI, initialized.
    #[cfg(feature = "mpi")]
    Mpi(treelb_mpi::Mpi),
}

impl World {
    /// Initializes MPI for `threads` PEs per rank ([`treelb_mpi::Mpi::init`]).
    #[cfg(feature = "mpi")]
    pub fn mpi(threads: usize) -> Result<World, crate::Error> {
        Ok(World::Mpi(treelb_mpi::Mpi::init(threads)?))
    }

    /// Where the PEs of a run are.
    pub fn pes(&self) -> Pes<'_> {
        match self {
            World::Threads(threads) => Pes::Threads(*threads),
            #[cfg(feature = "mpi")]
            World::Mpi(mpi) => Pes::Mpi(mpi),
        }
    }

    /// Ends MPI on this rank (`treelb_mpi::Mpi::finalize`), if it was
    /// initialized: without `MPI_Finalize` at rank 0 when a signal caught
    /// by [`signals`](crate::signals) is ending the job, so that its
    /// partial report gets out.
    pub fn end(self) {
        match self {
            World::Threads(_) => {}
            #[cfg(feature = "mpi")]
            World::Mpi(mpi) => mpi.finalize(crate::signals::caught()),
        }
    }
}
