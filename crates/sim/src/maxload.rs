//! Loui and Sohoni's max-load visiting (`004_…`), counted in heap
//! operations.
//!
//! k processors share a heap F of *reported* loads. A processor whose local
//! segment runs empty performs `max` on F and visits the processor with the
//! largest reported load, taking half of its tasks (between one third and
//! two thirds, as the paper allows); both new loads are recorded (`incr`,
//! `decr`). Reported loads are never lowered by work, only by visits, so a
//! visit can find the victim's actual load smaller than reported; the visitor
//! then corrects that report (`decr`) and tries the next maximum. Tasks that
//! arrive are reported lazily: a processor reports only when ⌈log_ρ L⌉ of its
//! load L grows.
//!
//! Each operation on F is one *step*, costing O(log k) shared-memory
//! accesses (potential collisions). The paper proves O(k log n) steps, so
//! O(k log k log n) collisions, for k processors and n tasks in the worst
//! case, against Manber's lower bound Ω(k log n).
//!
//! The model is synchronous and unit-time (one task per processor per tick);
//! visits are instantaneous. It counts what the paper counts and nothing
//! else.

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

/// A max segment tree over k reported values: the heap F.
struct Heap {
    size: usize,
    tree: Vec<(i64, u32)>,
}

impl Heap {
    fn new(k: usize) -> Self {
        let size = k.next_power_of_two();
        let mut tree = vec![(i64::MIN, 0); 2 * size];
        for i in 0..k {
            tree[size + i] = (-1, i as u32);
        }
        let mut h = Heap { size, tree };
        for i in (1..size).rev() {
            h.tree[i] = h.tree[2 * i].max(h.tree[2 * i + 1]);
        }
        h
    }

    fn set(&mut self, i: usize, v: i64) {
        let mut n = self.size + i;
        self.tree[n].0 = v;
        while n > 1 {
            n /= 2;
            self.tree[n] = self.tree[2 * n].max(self.tree[2 * n + 1]);
        }
    }

    fn get(&self, i: usize) -> i64 {
        self.tree[self.size + i].0
    }

    /// The processor with the largest reported value (ties: highest index).
    fn max(&self) -> (i64, usize) {
        let (v, i) = self.tree[1];
        (v, i as usize)
    }
}

/// One run's counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Ticks until every task is done.
    pub ticks: u64,
    /// Visits that moved tasks.
    pub visits: u64,
    /// `max` operations.
    pub max_ops: u64,
    /// `incr`/`decr` recording a visit's new loads.
    pub visit_updates: u64,
    /// `decr` correcting a report found stale at a visit.
    pub corrections: u64,
    /// `incr` reporting arrivals (lazily, when ⌈log_ρ L⌉ grows).
    pub reports: u64,
}

impl Counts {
    /// All heap operations (steps).
    pub fn steps(&self) -> u64 {
        self.max_ops + self.visit_updates + self.corrections + self.reports
    }
}

/// What to run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MaxLoadSetup {
    /// Processors.
    pub k: usize,
    /// Tasks in the system at the start, all on processor 0.
    pub initial: u64,
    /// Tasks that arrive later, in batches at random processors.
    pub arriving: u64,
    /// Tasks per arriving batch.
    pub batch: u64,
    /// ρ of the lazy reporting rule (> 1).
    pub rho: f64,
}

/// ⌈log_ρ L⌉, and −1 for an empty segment.
fn level(load: u64, ln_rho: f64) -> i64 {
    if load == 0 { -1 } else { ((load as f64).ln() / ln_rho - 1e-9).ceil().max(0.0) as i64 }
}

/// Runs max-load visiting to the end and counts its heap operations.
///
/// ```
/// use treelb_sim::maxload::{run, MaxLoadSetup};
/// let c = run(&MaxLoadSetup { k: 64, initial: 1 << 16, arriving: 0, batch: 1, rho: 2.0 }, 1);
/// assert!(c.ticks >= (1 << 16) / 64);
/// assert!(c.visits >= 63);
/// ```
pub fn run(s: &MaxLoadSetup, seed: u64) -> Counts {
    let k = s.k.max(1);
    let ln_rho = s.rho.max(1.000_001).ln();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut load = vec![0u64; k];
    let mut heap = Heap::new(k);
    let mut c = Counts::default();
    load[0] = s.initial;
    heap.set(0, level(s.initial, ln_rho));
    // Arrivals are spread over the time the work takes on k processors.
    let total = s.initial + s.arriving;
    let batches = s.arriving.div_ceil(s.batch.max(1));
    let horizon = (total / k as u64).max(1);
    let mut arrived = 0u64;
    let mut left = total;
    let mut idle = Vec::with_capacity(k);
    while left > 0 {
        c.ticks += 1;
        // Arrivals due by this tick.
        let due = if batches == 0 { 0 } else { (c.ticks * batches / horizon).min(batches) };
        while arrived < due {
            let i = rng.random_range(0..k);
            let a = s.batch.min(s.arriving - arrived * s.batch);
            load[i] += a;
            arrived += 1;
            let l = level(load[i], ln_rho);
            if l > heap.get(i) {
                heap.set(i, l);
                c.reports += 1;
            }
        }
        // Every processor with tasks does one.
        idle.clear();
        for (i, l) in load.iter_mut().enumerate() {
            if *l > 0 {
                *l -= 1;
                left -= 1;
            }
            if *l == 0 {
                idle.push(i);
            }
        }
        // Idle processors visit the largest reported load.
        for &i in &idle {
            if load[i] > 0 {
                continue;
            }
            loop {
                let (reported, j) = heap.max();
                c.max_ops += 1;
                if reported < 0 {
                    break;
                }
                if load[j] >= 2 && j != i {
                    let moved = load[j] / 2;
                    load[j] -= moved;
                    load[i] += moved;
                    heap.set(j, level(load[j], ln_rho));
                    heap.set(i, level(load[i], ln_rho));
                    c.visit_updates += 2;
                    c.visits += 1;
                    break;
                }
                // Stale report (or a single task in progress): correct it.
                let l = if load[j] >= 2 { level(load[j], ln_rho) } else { -1 };
                if heap.get(j) == l {
                    break;
                }
                heap.set(j, l);
                c.corrections += 1;
            }
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_processor_does_everything_alone() {
        let c = run(&MaxLoadSetup { k: 1, initial: 1000, arriving: 500, batch: 10, rho: 2.0 }, 3);
        // All the work, plus ticks waiting for the last arrivals.
        assert!(c.ticks >= 1500 && c.ticks < 1600, "{}", c.ticks);
        assert_eq!(c.visits, 0);
    }

    #[test]
    fn lazy_reports_are_fewer() {
        let eager =
            run(&MaxLoadSetup { k: 32, initial: 1 << 12, arriving: 1 << 16, batch: 1, rho: 1.0001 }, 3);
        let lazy = run(&MaxLoadSetup { k: 32, initial: 1 << 12, arriving: 1 << 16, batch: 1, rho: 2.0 }, 3);
        assert!(lazy.reports < eager.reports, "{} vs {}", lazy.reports, eager.reports);
    }
}
