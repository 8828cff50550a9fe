//! Balls into bins: the allocation results of the lecture ([Lecture, load balancing], "How to
//! Assign Work?").
//!
//! p clients each place one task of equal size on one of p servers, without
//! knowing of each other. The maximum load of a server is
//!
//! * Θ(log p / log log p) if each picks a server at random (randomized work
//!   sharing);
//! * log log p / log d ± Θ(1) if each asks d random servers and takes the
//!   least loaded, ties at random (uniform allocation, two-choice for d = 2);
//! * log log p / (d log φ_d) ± Θ(1) if the servers form d groups, each
//!   client asks one random server per group and takes the least loaded,
//!   ties to the leftmost ("always go left"); φ_d is the d-th generalized
//!   golden ratio (φ₂ ≈ 1.618, φ₃ ≈ 1.839).
//!
//! No simulator is needed: the placement is the whole process.

use serde::{Deserialize, Serialize};
use treelb::rng::SplitMix64;
use treelb::strategy::pushing::least_loaded;

/// A placement rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Placement {
    /// One server at random.
    Random,
    /// The least loaded of `d` servers at random, ties at random.
    Uniform(u32),
    /// The least loaded of one random server from each of `d` equal groups,
    /// ties to the leftmost group.
    AlwaysGoLeft(u32),
}

impl Placement {
    /// A short name for tables and legends.
    pub fn label(self) -> String {
        match self {
            Placement::Random => "random".into(),
            Placement::Uniform(d) => format!("{d}-choice"),
            Placement::AlwaysGoLeft(d) => format!("always-go-left d={d}"),
        }
    }
}

/// Places `p` tasks on `p` servers by `rule`; returns the maximum load.
///
/// ```
/// use treelb_sim::alloc::{max_load, Placement};
/// let random = max_load(1 << 16, Placement::Random, 1);
/// let two = max_load(1 << 16, Placement::Uniform(2), 1);
/// assert!(two < random);
/// assert!(two >= 2);
/// ```
pub fn max_load(p: usize, rule: Placement, seed: u64) -> u32 {
    assert!(p >= 1);
    let mut rng = SplitMix64::new(seed ^ 0x5EED_0000_0000_0000 ^ p as u64);
    let mut load = vec![0u64; p];
    let mut max = 0;
    let mut candidates = Vec::new();
    for _ in 0..p {
        // The candidates, then the runtime's own rule among them
        // (`treelb::strategy::pushing::least_loaded`): ties at random for
        // uniform allocation, to the left for always-go-left.
        candidates.clear();
        let tie = match rule {
            Placement::Random => {
                candidates.push(rng.below(p as u64) as usize);
                None
            }
            Placement::Uniform(d) => {
                candidates.extend((0..d.max(1)).map(|_| rng.below(p as u64) as usize));
                Some(rng.next_u64())
            }
            Placement::AlwaysGoLeft(d) => {
                let d = d.max(1) as usize;
                let group = p.div_ceil(d);
                for g in 0..d {
                    let (lo, hi) = (g * group, ((g + 1) * group).min(p));
                    if lo >= hi {
                        break;
                    }
                    candidates.push(lo + rng.below((hi - lo) as u64) as usize);
                }
                None
            }
        };
        let loads: Vec<u64> = candidates.iter().map(|&c| load[c]).collect();
        let target = candidates[least_loaded(&loads, tie)];
        load[target] += 1;
        max = max.max(load[target]);
    }
    max as u32
}

/// The mean maximum load over `trials` seeds.
pub fn mean_max_load(p: usize, rule: Placement, trials: u32, seed: u64) -> f64 {
    let sum: u64 =
        (0..trials).map(|t| u64::from(max_load(p, rule, seed.wrapping_add(u64::from(t) * 7919)))).sum();
    sum as f64 / f64::from(trials.max(1))
}

/// The d-th generalized golden ratio φ_d: the root in (1, 2) of
/// x^d = 1 + x + … + x^(d-1) (φ₂ = 1.618…, φ₃ = 1.839…).
///
/// ```
/// use treelb_sim::alloc::golden;
/// assert!((golden(2) - 1.618_034).abs() < 1e-6);
/// assert!((golden(3) - 1.839_287).abs() < 1e-6);
/// ```
pub fn golden(d: u32) -> f64 {
    let f = |x: f64| x.powi(d as i32) - (0..d).map(|k| x.powi(k as i32)).sum::<f64>();
    let (mut lo, mut hi) = (1.0, 2.0);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}
