//! Max-load visiting (Loui and Sohoni, [Loui & Sohoni 1989]): an idle PE visits the PE
//! with the largest *reported* load; loads are reported lazily.
//!
//! Every PE has an entry in a [`LoadHeap`] holding the load it last
//! *reported*; the heap lives in the run's [`Hub`](super::Hub) (one
//! structure, as [Loui & Sohoni 1989] assumes: a locked heap on shared memory, a heap at
//! PE 0 that reports and look-ups reach as messages on MPI and in the
//! simulator). Reporting every change would make the heap a bottleneck, so a
//! PE reports (a [`LazyReporter`] decides) only when `⌈log_ρ L⌉` of its
//! actual load `L` grows past that of its last report; a decrease is
//! reported when a visit takes work away (the victim knows its new load) and
//! when the PE runs dry (it reports 0).
//!
//! ## Why lazy reports are enough
//! Between two reports a PE's actual load is at most ρ times its reported
//! load (otherwise `⌈log_ρ L⌉` would have grown and it would have
//! reported). Reports may overstate a load that shrank by work alone; such
//! a stale entry costs a visit that finds less than promised, after which the
//! victim's report is corrected. So the PE with the largest report has at
//! least `1/ρ` of the largest actual load among PEs whose reports are
//! current, and an idle PE that visits it takes a constant fraction of
//! that. Loui and Sohoni show that with ρ < 3/2 and visits that take between
//! 1/3 and 2/3 of the victim's load, `k` PEs finish with `O(k log n)` heap
//! operations (Theorems 1–2); each report is one operation of `O(log k)`
//! steps. A PE reports at most `⌈log_ρ L_max⌉` times per growth from 1 to
//! `L_max` — the reason the rule is logarithmic.
//!
//! ```
//! use treelb::strategy::maxload::{LazyReporter, LoadHeap};
//!
//! let mut heap = LoadHeap::new(3);
//! let mut reporter = LazyReporter::new(1.4);
//! // PE 1's load grows 1, 2, …, 100: it reports only when ⌈log_1.4 L⌉ grows.
//! let mut reports = Vec::new();
//! for l in 1..=100 {
//!     if reporter.is_due(l) {
//!         reporter.reported(l);
//!         heap.set(1, l);
//!         reports.push(l);
//!     }
//! }
//! assert_eq!(reports, [1, 2, 3, 4, 6, 8, 11, 15, 21, 29, 41, 57, 80]);
//! heap.set(2, 7);
//! assert_eq!(heap.max(), Some((1, 80))); // the last report
//! heap.set(1, 0); // PE 1 ran dry
//! assert_eq!(heap.max(), Some((2, 7)));
//! ```

use super::{Action, Actions, Balance, Event, Tally, answer_request, emit};

/// The default ρ of lazy load reports, below the 3/2 that Loui and Sohoni's
/// analysis requires.
pub const DEFAULT_RHO: f64 = 1.4;

/// Decides when a PE reports its load: when `⌈log_ρ L⌉` exceeds that of the
/// last reported load. The check on the busy path is one comparison against
/// a precomputed threshold.
#[derive(Clone, Debug)]
pub struct LazyReporter {
    rho: f64,
    ln_rho: f64,
    /// The largest load that needs no report: `⌊ρ^⌈log_ρ r⌉⌋` for the last
    /// report `r ≥ 1`, 0 for `r = 0`.
    threshold: u64,
}

impl LazyReporter {
    /// A reporter with ratio `rho` (> 1), starting from a reported load of 0.
    ///
    /// # Panics
    /// If `rho` is not greater than 1 and finite.
    pub fn new(rho: f64) -> Self {
        assert!(rho.is_finite() && rho > 1.0, "ρ must be a finite number above 1, not {rho}");
        LazyReporter { rho, ln_rho: rho.ln(), threshold: 0 }
    }

    /// Whether a PE whose load is now `load` must report it.
    #[inline]
    pub fn is_due(&self, load: u64) -> bool {
        load > self.threshold
    }

    /// Records that `load` was reported (a growth, or a decrease after a
    /// visit or at the end of a piece).
    pub fn reported(&mut self, load: u64) {
        self.threshold = if load == 0 { 0 } else { (self.level_top(load).floor() as u64).max(load) };
    }

    /// ρ^⌈log_ρ L⌉ for `load` = L ≥ 1: the least power of ρ that is at least
    /// L. The logarithm gives the exponent in O(1) (ρ may be close to 1, where
    /// a level holds few loads); the two loops only correct its rounding.
    fn level_top(&self, load: u64) -> f64 {
        let l = load as f64;
        let mut k = (l.ln() / self.ln_rho).ceil().max(0.0);
        while self.rho.powf(k) < l {
            k += 1.0;
        }
        while k > 0.0 && self.rho.powf(k - 1.0) >= l {
            k -= 1.0;
        }
        self.rho.powf(k)
    }
}

/// An indexed binary max-heap of the loads reported by `k` PEs: `set`
/// (increase or decrease one PE's load) and `max` in `O(log k)`, and a count
/// of the operations and of the sift steps they took.
#[derive(Clone, Debug)]
pub struct LoadHeap {
    /// Heap order: PE indices.
    heap: Vec<usize>,
    /// Position of each PE in `heap`.
    pos: Vec<usize>,
    /// Reported load of each PE.
    load: Vec<u64>,
    ops: u64,
    steps: u64,
}

impl LoadHeap {
    /// A heap of `k` PEs, all with load 0.
    pub fn new(k: usize) -> Self {
        LoadHeap { heap: (0..k).collect(), pos: (0..k).collect(), load: vec![0; k], ops: 0, steps: 0 }
    }

    /// The number of PEs.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether the heap has no PEs.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// The load PE `pe` reported last.
    pub fn load(&self, pe: usize) -> u64 {
        self.load[pe]
    }

    /// Sets PE `pe`'s reported load (an increase or a decrease).
    pub fn set(&mut self, pe: usize, load: u64) {
        self.ops += 1;
        let old = std::mem::replace(&mut self.load[pe], load);
        let i = self.pos[pe];
        if load > old {
            self.sift_up(i);
        } else if load < old {
            self.sift_down(i);
        }
    }

    /// The PE with the largest reported load and that load, if it is
    /// positive. Counts as one operation.
    pub fn max(&mut self) -> Option<(usize, u64)> {
        self.ops += 1;
        let &top = self.heap.first()?;
        (self.load[top] > 0).then_some((top, self.load[top]))
    }

    /// Operations so far (`set` and `max`).
    pub fn operations(&self) -> u64 {
        self.ops
    }

    /// Sift steps so far (swaps along a root path): the `O(log k)` cost of
    /// the operations.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.heap.swap(i, j);
        self.pos[self.heap[i]] = i;
        self.pos[self.heap[j]] = j;
        self.steps += 1;
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.load[self.heap[parent]] >= self.load[self.heap[i]] {
                break;
            }
            self.swap(i, parent);
            i = parent;
        }
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut largest = i;
            if l < n && self.load[self.heap[l]] > self.load[self.heap[largest]] {
                largest = l;
            }
            if r < n && self.load[self.heap[r]] > self.load[self.heap[largest]] {
                largest = r;
            }
            if largest == i {
                break;
            }
            self.swap(i, largest);
            i = largest;
        }
    }
}

/// The machine of max-load visiting, per PE.
///
/// * Busy: after each slice, a report if [`LazyReporter::is_due`]; after a
///   visit took part of the piece, the new load (0 if nothing went).
/// * Exhausted: a report of 0, so that idle PEs stop visiting this one.
/// * Idle: ask the hub for the most loaded PE, then request work from it;
///   if the hub names nobody (or this PE), wait and ask again.
///
/// ```
/// use treelb::strategy::{Action, Actions, Balance, Event};
/// use treelb::strategy::maxload::MaxLoad;
/// let mut m = MaxLoad::new(0, 1.4);
/// let mut out = Actions::new();
/// m.on(Event::Slice { load: 10 }, &mut out);
/// assert_eq!(out.to_vec(), [Action::Report { load: 10 }]);
/// out.clear();
/// m.on(Event::Slice { load: 9 }, &mut out); // work alone shrank it: no report
/// assert!(out.is_empty());
/// m.on(Event::Exhausted, &mut out);
/// assert_eq!(out.to_vec(), [Action::Report { load: 0 }]);
/// ```
#[derive(Clone, Debug)]
pub struct MaxLoad {
    me: usize,
    reporter: LazyReporter,
    /// The load this PE reported last.
    last: u64,
    /// A look-up or a request is out and unanswered.
    pending: bool,
    tally: Tally,
}

impl MaxLoad {
    /// PE `me`'s machine, reporting with ratio `rho`.
    pub fn new(me: usize, rho: f64) -> Self {
        MaxLoad { me, reporter: LazyReporter::new(rho), last: 0, pending: false, tally: Tally::default() }
    }

    fn report(&mut self, load: u64, out: &mut Actions) {
        self.reporter.reported(load);
        if load != self.last {
            self.last = load;
            emit(out, &mut self.tally, Action::Report { load });
        }
    }
}

impl Balance for MaxLoad {
    fn on(&mut self, event: Event, out: &mut Actions) {
        match event {
            Event::Slice { load } if self.reporter.is_due(load) => self.report(load, out),
            Event::Served { given, load } => self.report(if given { load } else { 0 }, out),
            Event::Exhausted => self.report(0, out),
            Event::Idle { .. } if !self.pending => {
                self.pending = true;
                emit(out, &mut self.tally, Action::QueryMostLoaded);
            }
            Event::MostLoaded(pe) => match pe.filter(|&pe| pe != self.me) {
                Some(to) => emit(out, &mut self.tally, Action::Request { to }),
                // Nobody reports work: the driver waits and asks again.
                None => self.pending = false,
            },
            Event::Request { from, busy } => answer_request(from, busy, out, &mut self.tally),
            Event::Answer { work, .. } => {
                self.pending = false;
                self.tally.requests_failed += u64::from(!work);
            }
            Event::LoadQuery { from } => emit(out, &mut self.tally, Action::ReplyLoad { to: from }),
            _ => {}
        }
    }

    fn wants_slices(&self) -> bool {
        true
    }

    fn tally(&self) -> Tally {
        self.tally
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The heap's maximum is always the largest load set, under any
        /// sequence of increases and decreases.
        #[test]
        fn max_is_the_largest_reported_load(k in 1usize..20, sets in prop::collection::vec((0usize..20, 0u64..50), 0..200)) {
            let mut heap = LoadHeap::new(k);
            let mut loads = vec![0u64; k];
            for (pe, load) in sets {
                let pe = pe % k;
                heap.set(pe, load);
                loads[pe] = load;
                let best = *loads.iter().max().unwrap();
                match heap.max() {
                    None => prop_assert_eq!(best, 0),
                    Some((pe, load)) => {
                        prop_assert_eq!(load, best);
                        prop_assert_eq!(loads[pe], best);
                    }
                }
            }
        }

        /// Between reports the actual load is at most ρ times the reported
        /// one, and growth from 1 to L takes at most ⌈log_ρ L⌉ + 1 reports.
        #[test]
        fn lazy_reports_stay_within_rho(rho in 1.05f64..3.0, steps in prop::collection::vec(0u64..40, 1..100)) {
            let mut r = LazyReporter::new(rho);
            let mut reported = 0u64;
            let mut load = 0u64;
            let mut reports = 0u32;
            for s in steps {
                load += s;
                if r.is_due(load) {
                    r.reported(load);
                    reported = load;
                    reports += 1;
                }
                prop_assert!(load as f64 <= (reported as f64 * rho).max(1.0) + 1e-9 || load <= reported,
                    "load {} reported {}", load, reported);
            }
            if load > 0 {
                let bound = (load as f64).ln() / rho.ln() + 2.0;
                prop_assert!(f64::from(reports) <= bound, "{} reports for {}", reports, load);
            }
        }
    }

    #[test]
    fn operations_and_steps_are_counted() {
        let mut heap = LoadHeap::new(8);
        for pe in 0..8 {
            heap.set(pe, pe as u64 + 1);
        }
        assert_eq!(heap.operations(), 8);
        assert!(heap.steps() > 0);
        assert_eq!(heap.max(), Some((7, 8)));
        assert_eq!(heap.operations(), 9);
    }
}
