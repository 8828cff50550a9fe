//! The drain of a segment: how a run sets its pieces aside, untouched, to
//! be written to the checkpoint (see the crate's documentation for why no
//! piece is lost or counted twice).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use treelb::{Progress, Work};
use treelb_mpi::wire::{Codec, DecodeError, from_bytes, to_bytes};

/// Where the pieces of a segment go once it is time to checkpoint.
///
/// The drain opens `every` after the first call of `work` on any bag of
/// this process, not after the segment started: the runtime's start-up
/// (an MPI barrier on a loaded machine can take longer than `every`) does
/// not count, so every segment does at least one slice of work and a run
/// always progresses.
#[derive(Debug)]
pub struct Drain<W> {
    every: Duration,
    deadline: OnceLock<Option<Instant>>,
    open: AtomicBool,
    store: Mutex<Vec<W>>,
}

impl<W> Drain<W> {
    /// A closed drain with an empty store, to open `every` after the first
    /// work.
    pub fn new(every: Duration) -> Self {
        Drain {
            every,
            deadline: OnceLock::new(),
            open: AtomicBool::new(false),
            store: Mutex::new(Vec::new()),
        }
    }

    /// Whether the pieces are to be set aside now (one relaxed load, and
    /// one reading of the clock while closed).
    fn is_open(&self) -> bool {
        if self.open.load(Ordering::Relaxed) {
            return true;
        }
        let now = Instant::now();
        // `None`: never (an interval past what the clock can add).
        if self.deadline.get_or_init(|| now.checked_add(self.every)).is_some_and(|d| now >= d) {
            self.open.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// From now on every piece is set aside at its next call of `work`.
    pub fn open(&self) {
        self.open.store(true, Ordering::Relaxed);
    }

    /// The pieces set aside.
    pub fn into_pieces(self) -> Vec<W> {
        self.store.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// A bag of pieces that moves itself into its [`Drain`] instead of working
/// once the drain is open (see the module's documentation).
#[derive(Debug)]
pub struct Resumable<'d, W> {
    pieces: Vec<W>,
    drain: &'d Drain<W>,
}

impl<W: Clone> Clone for Resumable<'_, W> {
    fn clone(&self) -> Self {
        Resumable { pieces: self.pieces.clone(), drain: self.drain }
    }
}

impl<'d, W> Resumable<'d, W> {
    /// The bag of `pieces`, set aside into `drain`.
    pub fn new(pieces: Vec<W>, drain: &'d Drain<W>) -> Self {
        Resumable { pieces, drain }
    }

    /// The number of pieces in the bag.
    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    /// Whether the bag is empty (worked out, or emptied into the drain).
    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }
}

impl<W: Work> Work for Resumable<'_, W> {
    type Output = W::Output;

    fn work(&mut self, budget: u64, acc: &mut W::Output) -> Progress {
        if self.drain.is_open() {
            if !self.pieces.is_empty() {
                let pieces = std::mem::take(&mut self.pieces);
                self.drain.store.lock().unwrap_or_else(|e| e.into_inner()).extend(pieces);
            }
            return Progress::Exhausted { used: 0 };
        }
        let mut used = 0;
        while used < budget {
            let Some(last) = self.pieces.last_mut() else {
                break;
            };
            match last.work(budget - used, acc) {
                Progress::Pending => return Progress::Pending,
                Progress::Exhausted { used: u } => {
                    used += u;
                    self.pieces.pop();
                }
            }
        }
        if self.pieces.is_empty() { Progress::Exhausted { used } } else { Progress::Pending }
    }

    fn split(&mut self) -> Option<Self> {
        if self.pieces.len() >= 2 {
            let given = self.pieces.split_off(self.pieces.len() / 2);
            return Some(Resumable { pieces: given, drain: self.drain });
        }
        let given = self.pieces.last_mut()?.split()?;
        Some(Resumable { pieces: vec![given], drain: self.drain })
    }

    fn generation(&self) -> u32 {
        self.pieces.last().map_or(0, W::generation)
    }

    fn load(&self) -> u64 {
        self.pieces.iter().map(W::load).sum()
    }

    fn should_stop(&self) -> bool {
        self.pieces.last().is_some_and(W::should_stop)
    }
}

/// The [`Codec`] of [`Resumable`] bags: the inner codec's bytes of each
/// piece, as a list.
pub struct ResumableCodec<'c, 'd, C: Codec> {
    inner: &'c C,
    drain: &'d Drain<C::Work>,
}

impl<'c, 'd, C: Codec> ResumableCodec<'c, 'd, C> {
    /// Bags of `inner`'s pieces, set aside into `drain`.
    pub fn new(inner: &'c C, drain: &'d Drain<C::Work>) -> Self {
        ResumableCodec { inner, drain }
    }
}

impl<'d, C: Codec> Codec for ResumableCodec<'_, 'd, C> {
    type Work = Resumable<'d, C::Work>;

    fn encode(&self, piece: Self::Work, out: &mut Vec<u8>) {
        out.extend(to_bytes(&encode_pieces(self.inner, piece.pieces)));
    }

    fn decode(&self, bytes: &[u8]) -> Result<Self::Work, DecodeError> {
        let list: Vec<Vec<u8>> = from_bytes(bytes)?;
        let pieces = list.iter().map(|b| self.inner.decode(b)).collect::<Result<_, _>>()?;
        Ok(Resumable { pieces, drain: self.drain })
    }

    fn shared(&self) -> Option<&dyn treelb_mpi::shared::Shared> {
        self.inner.shared()
    }

    fn needs_shared(&self) -> bool {
        self.inner.needs_shared()
    }

    fn should_stop(&self) -> bool {
        self.inner.should_stop()
    }
}

/// The wire bytes of each piece.
pub fn encode_pieces<C: Codec>(codec: &C, pieces: Vec<C::Work>) -> Vec<Vec<u8>> {
    pieces
        .into_iter()
        .map(|p| {
            let mut bytes = Vec::new();
            codec.encode(p, &mut bytes);
            bytes
        })
        .collect()
}
