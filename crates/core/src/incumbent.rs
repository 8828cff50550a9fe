//! Shared state of optimisation and decision searches: the incumbent.
//!
//! Counting problems visit every node whatever the schedule. Branch and bound
//! does not: a node whose bound cannot beat the best solution found so far —
//! the *incumbent* — is pruned, so what one PE finds changes what the others
//! expand. [`Incumbent`] is that shared best solution:
//!
//! * every PE reads its value with one relaxed atomic load
//!   ([`Incumbent::can_improve`], [`Incumbent::best`]) — no lock on the hot
//!   path;
//! * an improvement is published with a compare-and-swap on the value
//!   ([`Incumbent::offer`]); only a successful improver takes the witness
//!   lock, so the lock is taken once per improvement, never per node.
//!
//! A search holds its incumbent (it lives as long as the search and is shared
//! with it by every PE) and reads the answer from it after the run.
//!
//! ## Search anomalies
//! Because pruning depends on when an improvement becomes visible, a parallel
//! run may expand more nodes than the sequential one (it explores a subtree
//! before the incumbent that would prune it is found elsewhere) or fewer (a
//! PE finds a good solution early in a part of the tree the sequential order
//! reaches late). The optimum is the same; the expanded-node count is not, and
//! reports show it beside the sequential count.
//!
//! ## Decision searches
//! A decision search ("is there a clique of size k?") stops as soon as any PE
//! finds a witness: it offers the witness and reports
//! [`Search::should_stop`](crate::Search::should_stop) from then on, which the
//! runtimes check after every slice of Δt units of work.
//!
//! ## Deterministic answers
//! The optimum does not depend on the schedule, but *which* optimal solution
//! a run reports does: the first one found wins. [`Incumbent::break_ties`]
//! makes the witness a function of the instance alone: among solutions of
//! equal value the smallest witness (by `Ord`) wins, and
//! [`Incumbent::can_improve`] keeps subtrees whose bound *equals* the
//! incumbent (they may hold a smaller witness of the same value). Then every
//! optimal solution is reached by some PE — no subtree that contains one is
//! pruned — and offered, and the offers keep the least: every schedule ends
//! with the least optimal witness. The price is the subtrees of bound equal
//! to the optimum, which a normal run prunes.
//!
//! ## Watching improvements
//! [`Incumbent::observe`] installs a function called with every strict
//! improvement of the value, on the thread that made it (a live display of
//! the incumbent; improvements received from other processes included).
//!
//! ## Memory ordering
//! The value is an `AtomicI64` holding the objective in "larger is better"
//! form (negated when minimising). Readers use `Relaxed`: a stale value only
//! costs a node that could have been pruned, never correctness, because the
//! value only ever improves. The witness is stored under a mutex after the
//! value's compare-and-swap; an improver stores its witness only if no better
//! one is already there, so once all offers have returned, the witness
//! achieves the value.

use std::cmp::Ordering as Order;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// Whether larger or smaller objective values are better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sense {
    /// Larger is better (maximum clique, knapsack profit).
    Maximize,
    /// Smaller is better (tour length).
    Minimize,
}

impl Sense {
    /// The value in "larger is better" form.
    #[inline]
    fn key(self, value: i64) -> i64 {
        match self {
            Sense::Maximize => value,
            // i64::MIN has no negation; saturate (it is "no value" anyway).
            Sense::Minimize => value.checked_neg().unwrap_or(i64::MAX),
        }
    }
}

/// "No incumbent yet", in key form.
const NONE: i64 = i64::MIN;

/// The best solution found so far, shared by all PEs of a run.
///
/// ```
/// use treelb::incumbent::{Incumbent, Sense};
/// let best = Incumbent::new(Sense::Minimize);
/// assert!(best.can_improve(100));
/// assert!(best.offer(42, || "tour A"));
/// assert!(!best.offer(50, || "tour B")); // worse: not taken
/// assert!(!best.can_improve(42)); // a bound of 42 cannot beat 42
/// assert_eq!(best.into_best(), Some((42, "tour A")));
/// ```
pub struct Incumbent<T> {
    sense: Sense,
    key: AtomicI64,
    improvements: AtomicU64,
    witness: Mutex<Option<(i64, T)>>,
    /// [`Incumbent::break_ties`]: equal values compete by their witnesses.
    ties: AtomicBool,
    /// The order of witnesses, set with `ties`.
    order: OnceLock<fn(&T, &T) -> Order>,
    /// Called with every strict improvement of the value.
    observer: OnceLock<Box<dyn Fn(i64) + Send + Sync>>,
}

impl<T: fmt::Debug> fmt::Debug for Incumbent<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Incumbent")
            .field("sense", &self.sense)
            .field("best", &self.best())
            .field("improvements", &self.improvements())
            .field("ties", &self.ties.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl<T> Incumbent<T> {
    /// No solution yet.
    pub fn new(sense: Sense) -> Self {
        Incumbent {
            sense,
            key: AtomicI64::new(NONE),
            improvements: AtomicU64::new(0),
            witness: Mutex::new(None),
            ties: AtomicBool::new(false),
            order: OnceLock::new(),
            observer: OnceLock::new(),
        }
    }

    /// From now on, solutions of equal value compete by their witnesses: the
    /// smallest by `Ord` is kept, and subtrees whose bound equals the
    /// incumbent are not pruned (see the module documentation: the witness
    /// no longer depends on the schedule). Call it before the search starts.
    ///
    /// ```
    /// use treelb::incumbent::{Incumbent, Sense};
    /// let best = Incumbent::new(Sense::Maximize);
    /// best.break_ties();
    /// best.offer(3, || vec![2, 5, 7]);
    /// assert!(best.can_improve(3)); // an equal value may have a smaller witness
    /// assert!(best.offer(3, || vec![1, 5, 9]));
    /// assert!(!best.offer(3, || vec![4, 5, 6]));
    /// assert_eq!(best.into_best(), Some((3, vec![1, 5, 9])));
    /// ```
    pub fn break_ties(&self)
    where
        T: Ord,
    {
        let _ = self.order.set(T::cmp);
        self.ties.store(true, Ordering::Relaxed);
    }

    /// Whether [`break_ties`](Self::break_ties) was called.
    pub fn breaks_ties(&self) -> bool {
        self.ties.load(Ordering::Relaxed)
    }

    /// Calls `observer` with the value of every strict improvement from now
    /// on, on the thread that made it (several threads may call it at once,
    /// and improvements found at about the same time may arrive out of
    /// order). Only the first observer installed is kept; `false` if one was
    /// already there.
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use treelb::incumbent::{Incumbent, Sense};
    /// static SEEN: Mutex<Vec<i64>> = Mutex::new(Vec::new());
    /// let best = Incumbent::new(Sense::Minimize);
    /// assert!(best.observe(|v| SEEN.lock().unwrap().push(v)));
    /// best.offer(50, || ());
    /// best.offer(60, || ()); // worse: not an improvement
    /// best.offer(42, || ());
    /// assert_eq!(*SEEN.lock().unwrap(), [50, 42]);
    /// ```
    pub fn observe(&self, observer: impl Fn(i64) + Send + Sync + 'static) -> bool {
        self.observer.set(Box::new(observer)).is_ok()
    }

    /// Starts from a known solution (a heuristic's, say).
    pub fn with_solution(sense: Sense, value: i64, witness: T) -> Self {
        let incumbent = Self::new(sense);
        incumbent.offer(value, || witness);
        incumbent
    }

    /// The direction of optimisation.
    pub fn sense(&self) -> Sense {
        self.sense
    }

    /// The best value so far, if any. One relaxed load.
    #[inline]
    pub fn best(&self) -> Option<i64> {
        match self.key.load(Ordering::Relaxed) {
            NONE => None,
            key => Some(self.sense.key(key)),
        }
    }

    /// Could a solution of value `bound` (an optimistic bound on a subtree)
    /// be strictly better than the incumbent? If not, the subtree is pruned.
    /// One relaxed load.
    /// After [`break_ties`](Self::break_ties): could it be at least as good
    /// (an equal value may come with a smaller witness)?
    #[inline]
    pub fn can_improve(&self, bound: i64) -> bool {
        let key = self.sense.key(bound);
        let current = self.key.load(Ordering::Relaxed);
        key > current || (key == current && current != NONE && self.ties.load(Ordering::Relaxed))
    }

    /// Offers a solution of `value`; if it is strictly better than the
    /// incumbent, it becomes the incumbent (its witness is built by calling
    /// `witness`) and `true` is returned. After
    /// [`break_ties`](Self::break_ties), a solution of equal value with a
    /// smaller witness replaces the incumbent too.
    pub fn offer(&self, value: i64, witness: impl FnOnce() -> T) -> bool {
        let key = self.sense.key(value);
        let order = self.order.get().filter(|_| self.ties.load(Ordering::Relaxed));
        let mut current = self.key.load(Ordering::Relaxed);
        loop {
            if key < current || (key == current && order.is_none()) {
                return false;
            }
            if key == current {
                // A tie: decided by the witnesses, under the lock.
                break;
            }
            match self.key.compare_exchange_weak(current, key, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => {
                    if let Some(observer) = self.observer.get() {
                        observer(value);
                    }
                    break;
                }
                Err(now) => current = now,
            }
        }
        let witness = witness();
        let mut slot = self.witness.lock().unwrap_or_else(|e| e.into_inner());
        // A better offer may have stored its witness between our
        // compare-and-swap and this lock: keep the better one (of equal
        // values, the smaller witness when ties are broken). Every offer of
        // the final value gets here, so the least of their witnesses stays.
        let better = match slot.as_ref() {
            None => true,
            Some((v, w)) => {
                let old = self.sense.key(*v);
                old < key || (old == key && order.is_some_and(|cmp| cmp(&witness, w) == Order::Less))
            }
        };
        if better {
            *slot = Some((value, witness));
            self.improvements.fetch_add(1, Ordering::Relaxed);
        }
        better || key > current
    }

    /// How many offers improved the incumbent (a version number: drivers
    /// that broadcast improvements compare it with the last one sent).
    pub fn improvements(&self) -> u64 {
        self.improvements.load(Ordering::Relaxed)
    }

    /// The best value and its witness.
    pub fn into_best(self) -> Option<(i64, T)> {
        self.witness.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    /// A copy of the best value and its witness.
    pub fn snapshot(&self) -> Option<(i64, T)>
    where
        T: Clone,
    {
        self.witness.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Offers from several threads: the incumbent never gets worse, the
        /// final value is the best offered, and its witness achieves it.
        #[test]
        fn the_incumbent_only_improves_and_its_witness_achieves_it(
            maximize in any::<bool>(),
            offers in proptest::collection::vec(proptest::collection::vec(-1000i64..1000, 0..40), 1..4),
        ) {
            let sense = if maximize { Sense::Maximize } else { Sense::Minimize };
            let incumbent = Arc::new(Incumbent::<i64>::new(sense));
            let threads: Vec<_> = offers.clone().into_iter().map(|values| {
                let incumbent = Arc::clone(&incumbent);
                std::thread::spawn(move || {
                    let mut seen = Vec::new();
                    for v in values {
                        incumbent.offer(v, || v);
                        seen.push(incumbent.best().expect("an offer was made"));
                    }
                    seen
                })
            }).collect();
            for t in threads {
                let seen = t.join().unwrap();
                for pair in seen.windows(2) {
                    // Never worse than what this thread saw before.
                    prop_assert!(sense.key(pair[1]) >= sense.key(pair[0]));
                }
            }
            let all: Vec<i64> = offers.into_iter().flatten().collect();
            let incumbent = Arc::try_unwrap(incumbent).unwrap();
            let expected = if maximize { all.iter().max() } else { all.iter().min() }.copied();
            prop_assert_eq!(incumbent.best(), expected);
            match incumbent.into_best() {
                Some((value, witness)) => {
                    prop_assert_eq!(Some(value), expected);
                    prop_assert_eq!(witness, value);
                }
                None => prop_assert!(expected.is_none()),
            }
        }
    }

    proptest! {
        /// With ties broken, offers from several threads end with the best
        /// value and, of its offers, the least witness — whatever the
        /// interleaving — and the observer saw every strict improvement in
        /// increasing order per thread.
        #[test]
        fn broken_ties_keep_the_least_witness_of_the_best_value(
            offers in proptest::collection::vec(
                proptest::collection::vec((0i64..4, proptest::collection::vec(0u32..5, 0..4)), 0..30),
                1..4,
            ),
        ) {
            let incumbent = Arc::new(Incumbent::<Vec<u32>>::new(Sense::Maximize));
            incumbent.break_ties();
            let seen = Arc::new(Mutex::new(Vec::new()));
            let log = Arc::clone(&seen);
            incumbent.observe(move |v| log.lock().unwrap().push(v));
            let threads: Vec<_> = offers.clone().into_iter().map(|list| {
                let incumbent = Arc::clone(&incumbent);
                std::thread::spawn(move || {
                    for (v, w) in list {
                        incumbent.offer(v, || w);
                    }
                })
            }).collect();
            for t in threads {
                t.join().unwrap();
            }
            let all: Vec<(i64, Vec<u32>)> = offers.into_iter().flatten().collect();
            let best = all.iter().map(|(v, _)| *v).max();
            let least = all.iter().filter(|(v, _)| Some(*v) == best).map(|(_, w)| w.clone()).min();
            let seen = seen.lock().unwrap().clone();
            prop_assert_eq!(seen.iter().max().copied(), best);
            prop_assert!(seen.iter().all(|v| all.iter().any(|(o, _)| o == v)));
            let incumbent = Arc::try_unwrap(incumbent).unwrap();
            prop_assert_eq!(incumbent.into_best(), best.zip(least));
        }
    }

    #[test]
    fn pruning_compares_strictly() {
        let best = Incumbent::with_solution(Sense::Maximize, 10, ());
        assert!(!best.can_improve(10));
        assert!(best.can_improve(11));
        assert_eq!(best.improvements(), 1);
        let none = Incumbent::<()>::new(Sense::Minimize);
        assert!(none.can_improve(i64::MAX));
        assert_eq!(none.best(), None);
    }
}
