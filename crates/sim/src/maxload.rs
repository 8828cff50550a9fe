//! Loui and Sohoni's max-load visiting ([Loui & Sohoni 1989]), counted in heap
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

use std::cmp::Reverse;
use std::collections::BinaryHeap;

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

/// How tasks that arrive are dealt to the processors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Arrivals {
    /// Each task to a processor drawn at random.
    #[default]
    Random,
    /// Round robin over the processors, one task at a time: the spread that
    /// maximizes [Loui & Sohoni 1989] Theorem 3's sum Σᵢ log_ρ n′ᵢ of reports (every
    /// processor gets n′/k), with the initial tasks all on processor 0 (the
    /// largest first maximum, m(0) = n, of Theorem 1's proof).
    RoundRobin,
}

/// Which global structure finds the processor to visit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scheme {
    /// Loui and Sohoni: a heap of lazily reported loads, visit the maximum.
    /// Each operation on the heap is ⌈log₂ k⌉ shared-memory accesses.
    MaxLoad,
    /// Manber's scheme ([Loui & Sohoni 1989] §2, after Manber 1986): an m-ary tree over
    /// the processors whose nodes say which leaves have tasks to give; a
    /// search reads the m children of each node on its way down
    /// (m·⌈log_m k⌉ accesses) and visits the first such processor it finds
    /// from a random start; a processor that gains or loses something to
    /// give updates the nodes above it (⌈log_m k⌉ accesses). No load reports.
    Manber {
        /// The tree's arity m.
        arity: u32,
    },
}

/// What [`run_concurrent`] simulates.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConcurrentSetup {
    /// The tasks, processors and reporting rule.
    pub base: MaxLoadSetup,
    /// How arriving tasks are dealt.
    pub arrivals: Arrivals,
    /// The global structure.
    pub scheme: Scheme,
    /// One shared-memory access, in task times (a task takes 1).
    pub access: f64,
    /// A visit (reaching the victim's segment, splitting it), in task times.
    pub visit: f64,
}

/// What [`run_concurrent`] counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ConcurrentCounts {
    /// Ticks until every task is done.
    pub ticks: u64,
    /// Visits that moved tasks.
    pub visits: u64,
    /// Operations on the global structure (heap operations, or tree
    /// searches and updates).
    pub operations: u64,
    /// Of them, load reports of arrivals (the max-load scheme only).
    pub reports: u64,
    /// Shared-memory accesses: the paper's *potential* collisions
    /// (every access is priced as one).
    pub accesses: u64,
    /// Operations that found the global structure in use by another
    /// processor and waited: measured collisions at the structure.
    pub structure_collisions: u64,
    /// Visitors that found their victim's segment being split by another
    /// visitor and waited: measured visiting collisions.
    pub visit_collisions: u64,
    /// The most load reports one processor sent.
    pub max_reports_per_pe: u64,
}

impl ConcurrentCounts {
    /// Measured collisions: at the global structure and at the victims.
    pub fn collisions(&self) -> u64 {
        self.structure_collisions + self.visit_collisions
    }
}

/// ⌈log_m k⌉ for m ≥ 2, at least 1.
fn ceil_log(k: usize, m: u32) -> u64 {
    let (mut levels, mut span) = (0u64, 1u64);
    while span < k as u64 {
        span *= u64::from(m.max(2));
        levels += 1;
    }
    levels.max(1)
}

/// Max-load visiting (or Manber's scheme) with the processors acting at the
/// same time, and the collisions that actually happen counted.
///
/// Time runs in ticks of one task each. Within a tick, every processor that
/// is idle draws an instant in [0, 1) at which it turns to the global
/// structure; operations on the structure are atomic and serialized, each
/// taking its accesses × [`ConcurrentSetup::access`]: an operation that
/// finds the structure busy waits for it (a *structure collision*). A visit
/// to the processor found takes [`ConcurrentSetup::visit`]; the structure
/// learns the two new loads only when it ends, so a processor that looks
/// meanwhile finds the same victim and waits at its segment (a *visiting
/// collision*), then takes half of what is left (the paper allows a third
/// to two thirds). A report found stale (the victim has fewer than two
/// tasks) is corrected and the search repeated. Processors that find
/// nothing before the tick ends look again in the next tick. Arrivals are
/// spread over the tick at random instants and reported lazily.
///
/// ```
/// use treelb_sim::maxload::*;
/// let base = MaxLoadSetup { k: 16, initial: 1 << 12, arriving: 0, batch: 1, rho: 1.4 };
/// let s = ConcurrentSetup { base, arrivals: Arrivals::Random, scheme: Scheme::MaxLoad, access: 1e-3, visit: 0.02 };
/// let c = run_concurrent(&s, 1);
/// assert!(c.visits >= 15 && c.collisions() <= c.accesses);
/// ```
pub fn run_concurrent(s: &ConcurrentSetup, seed: u64) -> ConcurrentCounts {
    let b = &s.base;
    let k = b.k.max(1);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut load = vec![0u64; k];
    let mut heap = LoadHeap::new(k);
    let mut reporters: Vec<LazyReporter> = (0..k).map(|_| LazyReporter::new(b.rho.max(1.000_001))).collect();
    // Manber: whether the tree shows processor i as having tasks to give.
    let mut shown = vec![false; k];
    let mut c = ConcurrentCounts::default();
    let (search_accesses, update_accesses) = match s.scheme {
        Scheme::MaxLoad => {
            let a = ceil_log(k, 2);
            (a, a)
        }
        Scheme::Manber { arity } => {
            let h = ceil_log(k, arity);
            (u64::from(arity) * h, h)
        }
    };
    let access = s.access.max(1e-9);
    // The structure is free from this instant (within the tick) on.
    let mut free_at;
    let operate = |c: &mut ConcurrentCounts, at: f64, accesses: u64, free_at: &mut f64| -> f64 {
        c.operations += 1;
        c.accesses += accesses;
        let start = if *free_at > at {
            c.structure_collisions += 1;
            *free_at
        } else {
            at
        };
        *free_at = start + accesses as f64 * access;
        *free_at
    };
    load[0] = b.initial;
    heap.set(0, b.initial);
    reporters[0].reported(b.initial);
    shown[0] = b.initial >= 2;
    let total = b.initial + b.arriving;
    let batches = b.arriving.div_ceil(b.batch.max(1));
    let horizon = (total / k as u64).max(1);
    let (mut arrived, mut left, mut next_rr) = (0u64, total, 0usize);
    // The events of a tick, in time order: (instant in 10⁻¹² ticks, kind,
    // processor, other) with kinds ARRIVE (other = tasks), VISIT_ENDS
    // (other = victim) and LOOK.
    const ARRIVE: u8 = 0;
    const VISIT_ENDS: u8 = 1;
    const LOOK: u8 = 2;
    let at = |t: f64| (t.min(0.999_999) * 1e12) as u64;
    let mut queue: BinaryHeap<Reverse<(u64, u8, usize, u64)>> = BinaryHeap::new();
    // The end of the visit in progress at each victim.
    let mut splitting = vec![f64::NEG_INFINITY; k];
    let mut reports = vec![0u64; k];
    while left > 0 {
        c.ticks += 1;
        free_at = 0.0;
        let due = if batches == 0 { 0 } else { (c.ticks * batches / horizon).min(batches) };
        while arrived < due {
            let i = match s.arrivals {
                Arrivals::Random => rng.random_range(0..k),
                Arrivals::RoundRobin => {
                    next_rr = (next_rr + 1) % k;
                    next_rr
                }
            };
            let tasks = b.batch.max(1).min(b.arriving - arrived * b.batch.max(1));
            queue.push(Reverse((at(rng.random::<f64>()), ARRIVE, i, tasks)));
            arrived += 1;
        }
        for (i, &l) in load.iter().enumerate() {
            if l == 0 {
                queue.push(Reverse((at(rng.random::<f64>()), LOOK, i, 0)));
            }
        }
        splitting.iter_mut().for_each(|x| *x = f64::NEG_INFINITY);
        while let Some(Reverse((key, kind, i, other))) = queue.pop() {
            let now = key as f64 / 1e12;
            match kind {
                ARRIVE => {
                    load[i] += other;
                    match s.scheme {
                        Scheme::MaxLoad => {
                            if reporters[i].is_due(load[i]) {
                                operate(&mut c, now, update_accesses, &mut free_at);
                                heap.set(i, load[i]);
                                reporters[i].reported(load[i]);
                                c.reports += 1;
                                reports[i] += 1;
                            }
                        }
                        Scheme::Manber { .. } => {
                            if load[i] >= 2 && !shown[i] {
                                operate(&mut c, now, update_accesses, &mut free_at);
                                shown[i] = true;
                            }
                        }
                    }
                }
                VISIT_ENDS => {
                    // Visitor i ends its visit to j: takes half of what j has.
                    let j = other as usize;
                    let moved = load[j] / 2;
                    load[j] -= moved;
                    load[i] += moved;
                    if moved > 0 {
                        c.visits += 1;
                    }
                    let end = match s.scheme {
                        Scheme::MaxLoad => {
                            let t = operate(&mut c, now, update_accesses, &mut free_at);
                            heap.set(j, load[j]);
                            reporters[j].reported(load[j]);
                            let t = operate(&mut c, t, update_accesses, &mut free_at);
                            heap.set(i, load[i]);
                            reporters[i].reported(load[i]);
                            t
                        }
                        Scheme::Manber { .. } => {
                            let mut t = now;
                            for (x, has) in [(j, load[j] >= 2), (i, load[i] >= 2)] {
                                if shown[x] != has {
                                    t = operate(&mut c, t, update_accesses, &mut free_at);
                                    shown[x] = has;
                                }
                            }
                            t
                        }
                    };
                    if load[i] == 0 && end < 1.0 {
                        queue.push(Reverse((at(end), LOOK, i, 0)));
                    }
                }
                _ => {
                    // LOOK: processor i looks for a victim.
                    if load[i] > 0 {
                        continue;
                    }
                    let found_at = operate(&mut c, now, search_accesses, &mut free_at);
                    let victim = match s.scheme {
                        Scheme::MaxLoad => heap.max().filter(|&(_, r)| r > 0).map(|(j, _)| j),
                        Scheme::Manber { .. } => {
                            let start = rng.random_range(0..k);
                            (0..k).map(|d| (start + d) % k).find(|&j| shown[j] && j != i)
                        }
                    };
                    let Some(j) = victim else { continue };
                    if found_at >= 1.0 {
                        continue;
                    }
                    let mut t_visit = found_at;
                    if splitting[j] >= t_visit {
                        // Another visitor is splitting j's segment: wait.
                        c.visit_collisions += 1;
                        t_visit = splitting[j];
                    }
                    if load[j] < 2 || j == i {
                        // Stale: correct the structure, look again.
                        let t = operate(&mut c, t_visit, update_accesses, &mut free_at);
                        match s.scheme {
                            Scheme::MaxLoad => {
                                heap.set(j, 0);
                                reporters[j].reported(0);
                            }
                            Scheme::Manber { .. } => shown[j] = false,
                        }
                        if t < 1.0 {
                            queue.push(Reverse((at(t), LOOK, i, 0)));
                        }
                        continue;
                    }
                    // A visit that would outlast the tick ends at its end.
                    let ends = t_visit + s.visit;
                    splitting[j] = ends;
                    queue.push(Reverse((at(ends), VISIT_ENDS, i, j as u64)));
                }
            }
        }
        // Every processor with tasks does one.
        for (i, l) in load.iter_mut().enumerate() {
            if *l > 0 {
                *l -= 1;
                left -= 1;
                if *l == 1 && matches!(s.scheme, Scheme::Manber { .. }) && shown[i] {
                    // Nothing left to give: the tree learns it.
                    c.operations += 1;
                    c.accesses += update_accesses;
                    shown[i] = false;
                }
            }
        }
    }
    c.max_reports_per_pe = reports.iter().copied().max().unwrap_or(0);
    c
}
