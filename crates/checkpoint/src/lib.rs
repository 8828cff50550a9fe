//! Checkpoint and resume for treelb runs: a long run writes its state to a
//! file every few minutes, and a run that died (a node crashed, the job was
//! killed, the machine rebooted) continues from the last checkpoint to
//! exactly the answer an uninterrupted run gives — with any number of PEs,
//! on threads or across MPI ranks.
//!
//! ```
//! use std::time::Duration;
//! use treelb::search::{BinaryTree, SplitPolicy};
//! use treelb_checkpoint::{Checkpoint, Segment};
//! use treelb_mpi::wire::DfsCodec;
//! use treelb_threads::{Config, Run};
//!
//! let dir = std::env::temp_dir().join(format!("treelb-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("tree.ckpt");
//! # let _ = std::fs::remove_file(&path);
//!
//! let tree = BinaryTree(16);
//! let codec = DfsCodec::new(&tree, SplitPolicy::OldestHalf);
//! let checkpoint = Checkpoint::create(&path)?.every(Duration::from_millis(2))?;
//! let done = checkpoint.run(&codec, codec.root(), None, |bag| {
//!     let outcome = Run::new(Config::new(2)).run(bag).expect("a valid configuration");
//!     Ok::<_, treelb_checkpoint::Error>(Segment::new(outcome.output, outcome.stats, outcome.stopped))
//! })?;
//! assert_eq!(done.output, (1 << 17) - 1); // every node, once
//! assert!(done.stopped.is_none());
//!
//! // The last checkpoint records the finished run: no piece is left.
//! drop(checkpoint);
//! let saved = treelb_checkpoint::read(&path)?;
//! assert!(saved.pieces.is_empty());
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok::<(), treelb_checkpoint::Error>(())
//! ```
//!
//! A resumed run is [`Checkpoint::resume`] on the file and the same call
//! of [`Checkpoint::run`]: the saved pieces replace the root.
//!
//! # What a checkpoint holds
//!
//! A description of the run in the caller's words (the `treelb` command
//! stores its command line, so that `treelb resume` rebuilds the same
//! computation), the SHA-1 of its input file, the open pieces of work of
//! every PE, the output merged so far (node counts, solutions,
//! branch-and-bound counters), the incumbent of a branch-and-bound search
//! and the statistics of the run so far. Pieces are bytes of the wire
//! format of [`treelb_mpi::wire`] (a [`Codec`]): the application's nodes
//! serialize with serde there already, and [`treelb::Work`] itself needs no
//! serde bound. The file format is in [`file`](mod@file).
//!
//! # The protocol: a drain, not a stop
//!
//! A consistent snapshot needs every piece of work to be in exactly one
//! place. The runtimes move pieces between PEs all the time (answers in
//! mailboxes, pools of pushed pieces, the hub's central pool, messages
//! between ranks), and stopping them in the middle of a move is where work
//! gets lost or counted twice. So a checkpoint does not stop the runtime:
//! it lets the runtime finish, with every piece set aside instead of
//! worked.
//!
//! The run is cut in *segments*. A segment is an ordinary run of the
//! runtime (any strategy, threads or MPI) whose root is a [`Resumable`]: a
//! bag of pieces together with a reference to the segment's [`Drain`].
//! The drain opens `every` after the first call of `work` in this process
//! (counting from the first work keeps the runtime's start-up out, so that
//! every segment does some work). From then on, every call of `work` on a
//! `Resumable` moves all the pieces it holds, untouched, into the drain's
//! store and reports the piece exhausted, having done no work. Splitting an
//! emptied bag gives nothing.
//!
//! Why the segment ends, and ends with every piece in the store exactly
//! once: the runtime's termination detection (a live-piece counter on
//! threads, the four-counter method across MPI ranks) ends a run only when
//! every piece it ever created was worked to exhaustion — a piece waiting
//! in a mailbox, a pool or a message is live and is worked after it
//! arrives. Every piece worked after the drain opened is emptied into the
//! store at that call; a piece exhausted before is finished work, and its
//! results are in the output. A piece is moved, never copied, so each open
//! node is in the store once, and no node in the store was expanded
//! (expansion happens only inside `work`, which moved the bag before
//! expanding anything). The runtime's own termination protocol therefore
//! guarantees: *output of the segment + work of the stored pieces = work
//! of the segment's root*. On MPI each rank's drain holds the pieces its
//! PEs set aside; rank 0 gathers them after the run (a collective, when no
//! message is in flight any more).
//!
//! The writer then encodes the stored pieces, the merged output (earlier
//! segments and this one), the incumbent and the statistics, writes them
//! atomically ([`file::write_atomic`]: the file is always either the
//! previous checkpoint or the new one, never a mix) and starts the next
//! segment with the stored pieces as its root. A run that dies between
//! checkpoints loses the work of the current segment only: resuming adds
//! the saved output to the output of the saved pieces, which is exactly
//! the output of the work not yet done when the checkpoint was taken. When
//! no piece is left the run is over; a last checkpoint with no pieces
//! records the final answer.
//!
//! Resuming works with any number of PEs: the saved pieces are one bag,
//! and the runtime's initialization splits the bag over the PEs like any
//! root (a bag of several pieces splits by handing half of them over).
//!
//! Branch and bound: the incumbent is saved with its witness and offered
//! to the search's incumbent before the resumed run; pruning against it is
//! sound because it is a real solution. The optimum is exact; the numbers
//! of branched and pruned nodes depend on timing as in any parallel run.
//!
//! # Across MPI ranks
//!
//! With the feature `mpi`, `run_mpi` runs the segments across the MPI
//! ranks under a `treelb_mpi::Run` — its deadline, cap and stop handle
//! span the segments. Rank 0 alone opens and locks the checkpoint and
//! writes it; each rank's drain sets its PEs' pieces aside, and rank 0
//! gathers them between two segments. The example
//! `crates/checkpoint/examples/resume_mpi.rs` is a search of one's own,
//! killed under `mpirun` and resumed.
//!
//! A segment stopped early (a deadline, a cap on the work, a signal) ends
//! the run with a partial output and writes no checkpoint for that
//! segment: its pieces were stopped, not drained, and the previous
//! checkpoint stays the one to resume.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use treelb::limit::StopReason;
use treelb::{Incumbent, Reduce, RunStats, Work};
use treelb_mpi::wire::{Codec, from_bytes, to_bytes};

mod drain;
pub mod file;
#[cfg(feature = "mpi")]
mod mpi;
mod plan;
mod resume;

pub use drain::{Drain, Resumable, ResumableCodec, encode_pieces};
pub use file::{InputHash, Lock, Saved, read};
#[cfg(feature = "mpi")]
pub use mpi::run_mpi;
pub use plan::Plan;
pub use resume::CommandLine;

/// How often a run checkpoints unless told otherwise.
pub const DEFAULT_EVERY: Duration = Duration::from_secs(60);

/// The least interval between two checkpoints.
pub const MIN_EVERY: Duration = Duration::from_millis(1);

/// What went wrong with a checkpoint; each says it in one line, naming the
/// file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing a file failed.
    #[error("{}: {what}: {source}", path.display())]
    Io {
        /// What was being done.
        what: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The path cannot hold a checkpoint (a device, a directory, an
    /// existing file that is not a checkpoint, a checkpoint of another
    /// run).
    #[error("{}: {reason}", path.display())]
    Path {
        /// The checkpoint's path.
        path: PathBuf,
        /// Why not.
        reason: String,
    },
    /// Another run holds the checkpoint.
    #[error(
        "{}: another run holds this checkpoint (its lock {} is taken); two runs on one checkpoint would overwrite each other",
        path.display(),
        lock.display()
    )]
    Locked {
        /// The checkpoint's path.
        path: PathBuf,
        /// The lock file.
        lock: PathBuf,
    },
    /// The file is not a whole checkpoint of this format version.
    #[error("{}: {reason}", path.display())]
    NotACheckpoint {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The saved state does not fit the run resumed from it (a changed
    /// input file, pieces another codec wrote).
    #[error("{}: {reason}", path.display())]
    Mismatch {
        /// The checkpoint's path.
        path: PathBuf,
        /// What does not fit.
        reason: String,
    },
    /// An interval below [`MIN_EVERY`].
    #[error("checkpoint interval {0:?} is below the least interval, 1ms")]
    Interval(Duration),
    /// A segment's run across MPI ranks failed, or bytes from another rank
    /// did not decode (`run_mpi`, with the feature `mpi`).
    #[error("{0}")]
    Run(#[from] treelb_mpi::Error),
}

impl Error {
    fn io(what: &'static str, path: &Path, source: std::io::Error) -> Self {
        Error::Io { what, path: path.to_owned(), source }
    }
}

/// A run's checkpoint file: where, how often, what the run is, and the
/// state it resumes from. It holds the file's lock (see [`file`](mod@file)) until
/// dropped.
#[derive(Debug)]
pub struct Checkpoint {
    path: PathBuf,
    every: Duration,
    description: Vec<String>,
    input: Option<InputHash>,
    resume: Option<Saved>,
    _lock: Lock,
}

impl Checkpoint {
    /// The checkpoint of a new run at `path`, checked before any work:
    /// its directory exists, nothing but an empty regular file is there
    /// (an earlier run's checkpoint is refused — resume it or remove it —
    /// and so is any other file, which a checkpoint would destroy), and no
    /// other run holds it.
    pub fn create(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        if let Some(meta) = file::check_target(path)?
            && meta.len() > 0
        {
            let reason = match read(path) {
                Ok(saved) => format!(
                    "holds the checkpoint of a run ({} checkpoint{} written, {} open piece{}); resume it, or remove the file to start anew",
                    saved.count,
                    if saved.count == 1 { "" } else { "s" },
                    saved.pieces.len(),
                    if saved.pieces.len() == 1 { "" } else { "s" },
                ),
                Err(_) => "exists and is not a treelb checkpoint; refusing to overwrite it".into(),
            };
            return Err(Error::Path { path: path.to_owned(), reason });
        }
        let lock = Lock::acquire(path)?;
        Ok(Checkpoint {
            path: path.to_owned(),
            every: DEFAULT_EVERY,
            description: Vec::new(),
            input: None,
            resume: None,
            _lock: lock,
        })
    }

    /// The checkpoint at `path` of a run to continue: read whole, refused
    /// in one line if damaged or of another format version, and locked.
    /// It keeps the description and input of the saved run, and is
    /// written again as the run goes on.
    pub fn resume(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        file::check_target(path)?;
        let lock = Lock::acquire(path)?;
        let saved = read(path)?;
        Ok(Checkpoint {
            path: path.to_owned(),
            every: DEFAULT_EVERY,
            description: saved.description.clone(),
            input: saved.input.clone(),
            resume: Some(saved),
            _lock: lock,
        })
    }

    /// Checkpoints every `every` (of work in this process) instead of
    /// every [`DEFAULT_EVERY`].
    pub fn every(mut self, every: Duration) -> Result<Self, Error> {
        if every < MIN_EVERY {
            return Err(Error::Interval(every));
        }
        self.every = every;
        Ok(self)
    }

    /// Describes the run in every checkpoint (the `treelb` command writes
    /// its command line).
    pub fn describe(mut self, description: Vec<String>) -> Self {
        self.description = description;
        self
    }

    /// Binds the run to its input file: records its SHA-1 and, when
    /// resuming, refuses a file that changed since the checkpoint.
    pub fn bind_input(&mut self, input: &Path) -> Result<(), Error> {
        let hash = InputHash::of(input)?;
        if let Some(saved) = self.resume.as_ref().and_then(|s| s.input.as_ref())
            && saved.sha1 != hash.sha1
        {
            return Err(Error::Mismatch {
                path: self.path.clone(),
                reason: format!(
                    "the input file {} changed since the checkpoint was written (SHA-1 {}, the checkpoint's {}); refusing to resume against a different input",
                    input.display(),
                    hash.sha1,
                    saved.sha1
                ),
            });
        }
        self.input = Some(hash);
        Ok(())
    }

    /// The checkpoint's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The interval between two checkpoints.
    pub fn interval(&self) -> Duration {
        self.every
    }

    /// The description of the run.
    pub fn description(&self) -> &[String] {
        &self.description
    }

    /// The saved state this run continues from, if resuming.
    pub fn saved(&self) -> Option<&Saved> {
        self.resume.as_ref()
    }

    /// Runs `root` (or, when resuming, the saved pieces) in segments of
    /// about [`interval`](Self::interval), writing a checkpoint after each
    /// (see the crate's documentation). `segment` runs one segment on the
    /// caller's runtime — any strategy, any number of PEs — and returns
    /// what it did. `incumbent`: the shared incumbent of a branch and
    /// bound, saved with each checkpoint and restored on resume.
    pub fn run<C, F, E>(
        &self,
        codec: &C,
        root: C::Work,
        incumbent: Option<&Incumbent<Vec<u32>>>,
        mut segment: F,
    ) -> Result<Checkpointed<Out<C>>, E>
    where
        C: Codec,
        C::Work: Clone,
        Out<C>: Serialize + DeserializeOwned,
        F: for<'d> FnMut(Resumable<'d, C::Work>) -> Result<Segment<Out<C>>, E>,
        E: From<Error>,
    {
        let mut state = State::start(self, codec, root, incumbent)?;
        while !state.pieces.is_empty() {
            let drain = Drain::new(self.every);
            let bag = Resumable::new(std::mem::take(&mut state.pieces), &drain);
            let done = segment(bag)?;
            state.add(done.output, &done.stats);
            if done.stopped.is_some() {
                return Ok(state.finish(done.stopped));
            }
            state.pieces = drain.into_pieces();
            state.write(self, codec, incumbent)?;
        }
        Ok(state.finish(None))
    }
}

/// What one segment of a checkpointed run did (see [`Checkpoint::run`]).
#[derive(Clone, Debug)]
pub struct Segment<O> {
    /// Its output.
    pub output: O,
    /// Its statistics.
    pub stats: RunStats,
    /// Why it stopped before its work was done, if it did.
    pub stopped: Option<StopReason>,
}

impl<O> Segment<O> {
    /// A segment's output, statistics and stop.
    pub fn new(output: O, stats: RunStats, stopped: Option<StopReason>) -> Self {
        Segment { output, stats, stopped }
    }
}

/// The outcome of a checkpointed run: its segments together.
#[derive(Clone, Debug)]
pub struct Checkpointed<O> {
    /// The output of the whole run, the resumed part included.
    pub output: O,
    /// The statistics of all segments (per PE index, summed).
    pub stats: RunStats,
    /// Why the run stopped before its work was done, if it did.
    pub stopped: Option<StopReason>,
    /// How many checkpoints the run wrote, before a resume included.
    pub checkpoints: u64,
}

/// The output of a codec's pieces.
pub type Out<C> = <<C as Codec>::Work as Work>::Output;

/// The state a checkpointed run carries from segment to segment: for
/// runtimes whose segments need more than [`Checkpoint::run`] gives (the
/// MPI runtime gathers the ranks' pieces between two segments).
pub struct State<W: Work> {
    /// The open pieces.
    pub pieces: Vec<W>,
    /// The output of the work done.
    pub output: W::Output,
    /// The statistics of the segments so far.
    pub stats: RunStats,
    /// Checkpoints written so far.
    pub count: u64,
}

impl<W: Work> State<W> {
    /// The start of a run: `root` alone, or the saved state of
    /// `checkpoint` (whose incumbent goes into `incumbent`).
    pub fn start<C>(
        checkpoint: &Checkpoint,
        codec: &C,
        root: W,
        incumbent: Option<&Incumbent<Vec<u32>>>,
    ) -> Result<Self, Error>
    where
        C: Codec<Work = W>,
        W::Output: DeserializeOwned,
    {
        Self::from_saved(&checkpoint.path, checkpoint.resume.as_ref(), codec, root, incumbent)
    }

    /// [`State::start`] from `saved`, read earlier from the checkpoint at
    /// `path` (which names the file in errors): for the processes of a run
    /// that do not write the checkpoint themselves (MPI ranks other than
    /// 0 restore the incumbent from it).
    pub fn from_saved<C>(
        path: &Path,
        saved: Option<&Saved>,
        codec: &C,
        root: W,
        incumbent: Option<&Incumbent<Vec<u32>>>,
    ) -> Result<Self, Error>
    where
        C: Codec<Work = W>,
        W::Output: DeserializeOwned,
    {
        let Some(saved) = saved else {
            return Ok(State {
                pieces: vec![root],
                output: W::Output::default(),
                stats: RunStats::default(),
                count: 0,
            });
        };
        drop(root);
        let mismatch = |reason: String| Error::Mismatch { path: path.to_owned(), reason };
        let pieces = saved
            .pieces
            .iter()
            .enumerate()
            .map(|(i, b)| {
                codec.decode(b).map_err(|e| mismatch(format!("piece {} does not decode: {e}", i + 1)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let output = from_bytes(&saved.output)
            .map_err(|e| mismatch(format!("the saved output does not decode: {e}")))?;
        match (incumbent, &saved.incumbent) {
            (Some(inc), Some((value, witness))) => {
                inc.offer(*value, || witness.clone());
            }
            (None, Some(_)) => {
                return Err(mismatch("an incumbent is saved, but this run has none".into()));
            }
            _ => {}
        }
        Ok(State { pieces, output, stats: saved.stats.clone(), count: saved.count })
    }

    /// Adds a segment's output and statistics.
    pub fn add(&mut self, output: W::Output, stats: &RunStats) {
        self.output.merge(output);
        add_stats(&mut self.stats, stats);
    }

    /// Writes the checkpoint of this state; pieces are encoded from clones
    /// (the run goes on with them).
    pub fn write<C>(
        &mut self,
        checkpoint: &Checkpoint,
        codec: &C,
        incumbent: Option<&Incumbent<Vec<u32>>>,
    ) -> Result<(), Error>
    where
        C: Codec<Work = W>,
        W: Clone,
        W::Output: Serialize,
    {
        self.count += 1;
        let saved = Saved {
            description: checkpoint.description.clone(),
            input: checkpoint.input.clone(),
            output: to_bytes(&self.output),
            stats: self.stats.clone(),
            incumbent: incumbent.and_then(Incumbent::snapshot),
            pieces: encode_pieces(codec, self.pieces.clone()),
            count: self.count,
        };
        file::write_atomic(&checkpoint.path, &file::encode(&saved))
    }

    /// The outcome of the run so far.
    pub fn finish(self, stopped: Option<StopReason>) -> Checkpointed<W::Output> {
        Checkpointed { output: self.output, stats: self.stats, stopped, checkpoints: self.count }
    }
}

/// Adds the statistics of a segment to those of the run: PE by PE index
/// (a resumed run may have more or fewer PEs), wall times summed.
pub fn add_stats(total: &mut RunStats, segment: &RunStats) {
    total.wall += segment.wall;
    for (i, pe) in segment.pes.iter().enumerate() {
        if i >= total.pes.len() {
            total.pes.push(treelb::PeStats { pe: i, ..Default::default() });
        }
        total.pes[i].add(pe);
    }
}

#[cfg(test)]
mod tests;
