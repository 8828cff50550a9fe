//! A piece of a tree-shaped computation: [`Work`].
//!
//! Following Sanders' model ([Sanders 1999] §1.2), a processing element (PE) holds at
//! most one piece of work `I` at a time. It can
//!
//! * *work* on it: `work(I, Δt)` performs up to `Δt` units of sequential work
//!   and says whether `I` is now exhausted;
//! * *split* it: `split(I) -> (I₁, I₂)` with `T(I) = T(I₁) + T(I₂)` — nothing
//!   lost, nothing done twice. A split may fail when the piece is atomic;
//! * tell its *generation*: `gen(I₁) = gen(I₂) = gen(I) + 1`, the number of
//!   splits between the root and this piece. The splitting depth `h` of the
//!   analysis bounds it.
//!
//! A piece that holds a reference to its computation (an integrand, a
//! view of the plane) cannot cross to another process as it is: its
//! computation, a [`Rebuild`], turns it into plain state and back.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::Reduce;

/// What a call to [`Work::work`] achieved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// The whole budget was used and the piece still holds work.
    Pending,
    /// The piece is exhausted; `used` units of the budget were spent on it.
    Exhausted {
        /// Units of work done in this call (at most the budget).
        used: u64,
    },
}

impl Progress {
    /// Whether the piece is exhausted.
    #[inline]
    pub fn is_exhausted(self) -> bool {
        matches!(self, Progress::Exhausted { .. })
    }

    /// Units of work done in a call with the given budget.
    #[inline]
    pub fn used(self, budget: u64) -> u64 {
        match self {
            Progress::Pending => budget,
            Progress::Exhausted { used } => used,
        }
    }
}

/// A piece of a tree-shaped computation that one PE works on.
///
/// The contract, which every runtime and every strategy relies on:
///
/// 1. [`work`](Work::work) does at most `budget` units of sequential work and
///    folds their results into `acc`. It returns [`Progress::Pending`] only if
///    it used the whole budget and work remains; once it returns
///    [`Progress::Exhausted`], the piece holds no work.
/// 2. [`split`](Work::split) moves part of the remaining work into a new piece
///    and returns it, or returns `None` (and changes nothing) if the piece is
///    atomic. Work done on `self` and on the returned piece together is exactly
///    the work `self` held before the split. Both pieces have generation
///    `generation() + 1` of the original.
/// 3. Splitting and working are deterministic: the same piece, split or worked
///    the same way, gives the same pieces. (Selective initialization relies on
///    this to split a broadcast root identically on every PE.)
///
/// `Work: Send` because a split-off piece travels to another PE.
pub trait Work: Send {
    /// The result of this computation, merged across pieces and PEs.
    type Output: Reduce;

    /// Does up to `budget` units of sequential work, folding results into `acc`.
    fn work(&mut self, budget: u64, acc: &mut Self::Output) -> Progress;

    /// Splits off part of the remaining work, or returns `None` if atomic.
    fn split(&mut self) -> Option<Self>
    where
        Self: Sized;

    /// The number of splits between the root and this piece.
    fn generation(&self) -> u32;

    /// An estimate of the work left in this piece, in the work's own units
    /// (for a DFS stack: the number of open nodes). Load-based strategies use
    /// it; the default says nothing is known.
    fn load(&self) -> u64 {
        0
    }

    /// Whether the whole computation is decided and every PE should stop (a
    /// decision search found its witness). Runtimes check it after every
    /// slice of work; the default never stops early.
    fn should_stop(&self) -> bool {
        false
    }
}

/// A computation whose pieces travel as plain state: the state is what a
/// piece holds of its own (its intervals, its tasks, its generation), and
/// the computation supplies the rest when it rebuilds the piece, on
/// another process holding the same computation.
///
/// `rebuild(detach(p))` must give a piece holding exactly the work of `p`,
/// at the same generation. Implemented on a reference to the computation
/// when its pieces borrow it.
///
/// ```
/// use treelb::work::{Rebuild, Work};
/// use treelb::Progress;
///
/// /// Counts the numbers of a range; a piece is a range of its own.
/// struct Count { lo: u64, hi: u64, generation: u32 }
///
/// impl Work for Count {
///     type Output = u64;
///     fn work(&mut self, budget: u64, acc: &mut u64) -> Progress {
///         let n = budget.min(self.hi - self.lo);
///         (self.lo, *acc) = (self.lo + n, *acc + n);
///         if self.lo == self.hi { Progress::Exhausted { used: n } } else { Progress::Pending }
///     }
///     fn split(&mut self) -> Option<Self> {
///         let mid = self.lo + (self.hi - self.lo) / 2;
///         (mid > self.lo).then(|| {
///             self.generation += 1;
///             let hi = std::mem::replace(&mut self.hi, mid);
///             Count { lo: mid, hi, generation: self.generation }
///         })
///     }
///     fn generation(&self) -> u32 { self.generation }
/// }
///
/// /// The ranges need no context: their state is the whole piece.
/// struct Ranges;
///
/// impl Rebuild for Ranges {
///     type Work = Count;
///     type State = (u64, u64, u32);
///     fn detach(&self, p: Count) -> (u64, u64, u32) { (p.lo, p.hi, p.generation) }
///     fn rebuild(&self, (lo, hi, generation): (u64, u64, u32)) -> Count { Count { lo, hi, generation } }
/// }
///
/// let mut root = Count { lo: 0, hi: 100, generation: 0 };
/// let half = Ranges.rebuild(Ranges.detach(root.split().unwrap()));
/// assert_eq!((half.lo, half.hi, half.generation()), (50, 100, 1));
/// ```
pub trait Rebuild: Sync {
    /// The pieces of the computation.
    type Work: Work;

    /// What a piece holds of its own.
    type State: Serialize + DeserializeOwned;

    /// The state of `piece`, without the computation.
    fn detach(&self, piece: Self::Work) -> Self::State;

    /// The piece of this computation that holds `state`.
    fn rebuild(&self, state: Self::State) -> Self::Work;
}
