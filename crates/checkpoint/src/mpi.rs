//! Checkpointed runs across MPI ranks ([`run_mpi`]).

use serde::Serialize;
use serde::de::DeserializeOwned;
use treelb::Incumbent;
use treelb_mpi::wire::{Codec, from_bytes, to_bytes};
use treelb_mpi::{Mpi, Run};

use crate::{Checkpoint, Checkpointed, Drain, Error, Out, Resumable, ResumableCodec, State, encode_pieces};

/// [`Checkpoint::run`] across the MPI ranks: every rank calls it, with
/// the same `run` (whose deadline, cap and stop handle span the segments),
/// and runs each segment; each rank's drain opens the checkpoint's interval
/// after its first work, on its own clock; after the segment rank 0
/// gathers the pieces every rank set aside (when no message is in flight
/// any more), writes the checkpoint, and the next segment starts from them
/// at rank 0.
///
/// Rank 0 alone calls `open` — [`Checkpoint::create`] for a new run,
/// [`Checkpoint::resume`] to continue one — and holds the file and its
/// lock; it tells the other ranks the interval and the saved incumbent.
/// If `open` fails every rank returns: rank 0 the error, the others
/// `Ok(None)`. The outcome, too, is rank 0's (`None` elsewhere).
///
/// A segment stopped early (the deadline, the cap, a stop) ends the run
/// with a partial output and [`Checkpointed::stopped`] set, and writes no
/// checkpoint: the previous one stays the one to resume.
///
/// `incumbent`: the shared incumbent of a branch and bound (which `codec`
/// keeps in step across the ranks, `DfsCodec::with_shared`), saved with
/// each checkpoint and restored on every rank when resuming.
///
/// ```no_run
/// use std::time::Duration;
/// use treelb::search::{BinaryTree, SplitPolicy};
/// use treelb_checkpoint::{Checkpoint, run_mpi};
/// use treelb_mpi::wire::DfsCodec;
/// use treelb_mpi::{Config, Mpi, Run};
///
/// // Under `mpirun -np 2`: every rank runs this.
/// let mpi = Mpi::init(1).unwrap();
/// let tree = BinaryTree(30);
/// let codec = DfsCodec::new(&tree, SplitPolicy::OldestHalf);
/// let open = || Checkpoint::create("tree.ckpt")?.every(Duration::from_secs(60));
/// let run = Run::new(Config::default());
/// if let Some(done) = run_mpi(&mpi, &run, open, &codec, codec.root(), None)? {
///     assert_eq!(done.output, (1 << 31) - 1); // rank 0: every node, once
/// }
/// # Ok::<(), treelb_checkpoint::Error>(())
/// ```
pub fn run_mpi<C, E>(
    mpi: &Mpi,
    run: &Run<'_>,
    open: impl FnOnce() -> Result<Checkpoint, E>,
    codec: &C,
    root: C::Work,
    incumbent: Option<&Incumbent<Vec<u32>>>,
) -> Result<Option<Checkpointed<Out<C>>>, E>
where
    C: Codec,
    C::Work: Clone,
    Out<C>: Serialize + DeserializeOwned,
    E: From<Error>,
{
    let rank = mpi.rank();
    // Rank 0 opens the checkpoint and restores the state it holds; every
    // rank learns whether that failed.
    let opened = (rank == 0).then(|| {
        let checkpoint = open()?;
        let state = State::start(&checkpoint, codec, root, incumbent)?;
        Ok::<_, E>((checkpoint, state))
    });
    if mpi.any(matches!(opened, Some(Err(_)))) {
        return match opened {
            Some(Err(e)) => Err(e),
            _ => Ok(None),
        };
    }
    let (checkpoint, mut state) = match opened.transpose()? {
        Some((checkpoint, state)) => (Some(checkpoint), state),
        // The other ranks start empty: rank 0 holds the pieces, as it
        // holds the root of a fresh run.
        None => (
            None,
            State { pieces: Vec::new(), output: Out::<C>::default(), stats: Default::default(), count: 0 },
        ),
    };
    // Rank 0 tells the others the interval and the saved incumbent.
    let mut shared = match &checkpoint {
        Some(c) => to_bytes(&(c.interval(), incumbent.and_then(Incumbent::snapshot))),
        None => Vec::new(),
    };
    mpi.broadcast(&mut shared);
    let (every, best): (std::time::Duration, Option<(i64, Vec<u32>)>) =
        from_bytes(&shared).map_err(|e| Error::from(treelb_mpi::Error::Decode(e.to_string())))?;
    if let (Some(inc), Some((value, witness))) = (incumbent, best) {
        inc.offer(value, || witness.clone());
    }
    let mut stopped = None;
    while mpi.any(!state.pieces.is_empty()) {
        let drain = Drain::new(every);
        let result = {
            let bags = ResumableCodec::new(codec, &drain);
            let bag = Resumable::new(std::mem::take(&mut state.pieces), &drain);
            run.run(mpi, &bags, bag)
        };
        if let Some(o) = result.map_err(Error::from)? {
            stopped = o.stopped;
            state.add(o.output, &o.stats);
        }
        if mpi.any(run.limit(mpi).interrupted()) {
            break;
        }
        let mine = encode_pieces(codec, drain.into_pieces());
        if let Some(all) = mpi.gather(&to_bytes(&mine)) {
            let decode = |e: treelb_mpi::wire::DecodeError| {
                Error::from(treelb_mpi::Error::Decode(format!("checkpoint: pieces from a rank: {e}")))
            };
            for bytes in all {
                let list: Vec<Vec<u8>> = from_bytes(&bytes).map_err(decode)?;
                for piece in list {
                    state.pieces.push(codec.decode(&piece).map_err(decode)?);
                }
            }
            if let Some(checkpoint) = &checkpoint {
                state.write(checkpoint, codec, incumbent)?;
            }
        }
    }
    if rank != 0 {
        return Ok(None);
    }
    Ok(Some(state.finish(stopped)))
}
