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
//! The heap F and the lazy reporting rule are the runtime's own
//! (`treelb::strategy::maxload`: [`LoadHeap`], [`LazyReporter`]): the same
//! code decides when a PE reports here and in every driver. Each operation
//! on F is one *step*, costing O(log k) shared-memory accesses (potential
//! collisions). The paper proves O(k log n) steps, so
//! O(k log k log n) collisions, for k processors and n tasks in the worst
//! case, against Manber's lower bound Ω(k log n).
//!
//! The model is synchronous and unit-time (one task per processor per tick);
//! visits are instantaneous. It counts what the paper counts and nothing
//! else.

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};
use treelb::strategy::maxload::{LazyReporter, LoadHeap};

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
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut load = vec![0u64; k];
    let mut heap = LoadHeap::new(k);
    let mut reporters: Vec<LazyReporter> = (0..k).map(|_| LazyReporter::new(s.rho.max(1.000_001))).collect();
    let mut c = Counts::default();
    // A report of PE i's actual load (a visit's new loads, a correction).
    let set = |heap: &mut LoadHeap, reporters: &mut [LazyReporter], i: usize, l: u64| {
        heap.set(i, l);
        reporters[i].reported(l);
    };
    load[0] = s.initial;
    set(&mut heap, &mut reporters, 0, s.initial);
    // Arrivals are spread over the time the work takes on k processors.
    let total = s.initial + s.arriving;
    let batches = s.arriving.div_ceil(s.batch.max(1));
    let horizon = (total / k as u64).max(1);
    let mut arrived = 0u64;
    let mut left = total;
    let mut idle = Vec::with_capacity(k);
    while left > 0 {
        c.ticks += 1;
        // Arrivals due by this tick, reported lazily.
        let due = if batches == 0 { 0 } else { (c.ticks * batches / horizon).min(batches) };
        while arrived < due {
            let i = rng.random_range(0..k);
            let a = s.batch.min(s.arriving - arrived * s.batch);
            load[i] += a;
            arrived += 1;
            if reporters[i].is_due(load[i]) {
                set(&mut heap, &mut reporters, i, load[i]);
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
                let top = heap.max();
                c.max_ops += 1;
                let Some((j, _)) = top else { break };
                if load[j] >= 2 && j != i {
                    let moved = load[j] / 2;
                    load[j] -= moved;
                    load[i] += moved;
                    set(&mut heap, &mut reporters, j, load[j]);
                    set(&mut heap, &mut reporters, i, load[i]);
                    c.visit_updates += 2;
                    c.visits += 1;
                    break;
                }
                // Stale report (or a single task in progress): correct it.
                let l = if load[j] >= 2 { load[j] } else { 0 };
                if heap.load(j) == l {
                    break;
                }
                set(&mut heap, &mut reporters, j, l);
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
