//! Results of pieces of work and their associative merge.
//!
//! Every PE accumulates the results of the pieces it works on into one value of
//! the work's output type; at the end the runtime merges the PEs' values. Because
//! the order in which pieces are done and merged depends on the schedule, the
//! merge must be associative and commutative, and `Default::default()` must be
//! its identity: then every schedule gives the same answer as the sequential run.

/// An output that PEs accumulate locally and the runtime merges at the end.
///
/// `merge` must be associative and commutative with `Self::default()` as the
/// identity. Counting, summing integers, keeping a maximum and taking the union
/// of disjoint sets all qualify; floating-point sums qualify only up to rounding
/// (use compensated summation where exact agreement matters).
///
/// ```
/// use treelb::Reduce;
/// let mut a = 3u64;
/// a.merge(4);
/// assert_eq!(a, 7);
/// ```
pub trait Reduce: Default + Send {
    /// Folds `other` into `self`.
    fn merge(&mut self, other: Self);
}

macro_rules! reduce_by_addition {
    ($($t:ty),*) => {$(
        impl Reduce for $t {
            #[inline]
            fn merge(&mut self, other: Self) {
                *self += other;
            }
        }
    )*};
}
reduce_by_addition!(u32, u64, u128, usize, i64, i128);

impl Reduce for () {
    fn merge(&mut self, _other: Self) {}
}

impl<A: Reduce, B: Reduce> Reduce for (A, B) {
    fn merge(&mut self, other: Self) {
        self.0.merge(other.0);
        self.1.merge(other.1);
    }
}

/// Merges every value of an iterator into one, starting from the identity.
///
/// ```
/// assert_eq!(treelb::reduce::merge_all([1u64, 2, 3]), 6);
/// ```
pub fn merge_all<R: Reduce>(values: impl IntoIterator<Item = R>) -> R {
    let mut acc = R::default();
    for v in values {
        acc.merge(v);
    }
    acc
}
