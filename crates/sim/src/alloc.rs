//! Balls into bins: the allocation results of the lecture (`002_…`, "How to
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

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

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
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x5EED_0000_0000_0000 ^ p as u64);
    let mut load = vec![0u32; p];
    let mut max = 0;
    for _ in 0..p {
        let target = match rule {
            Placement::Random => rng.random_range(0..p),
            Placement::Uniform(d) => {
                let mut best = rng.random_range(0..p);
                let mut ties = 1u32;
                for _ in 1..d {
                    let c = rng.random_range(0..p);
                    if load[c] < load[best] {
                        best = c;
                        ties = 1;
                    } else if load[c] == load[best] {
                        // Reservoir choice among equally loaded candidates.
                        ties += 1;
                        if rng.random_range(0..ties) == 0 {
                            best = c;
                        }
                    }
                }
                best
            }
            Placement::AlwaysGoLeft(d) => {
                let d = d.max(1) as usize;
                let group = p.div_ceil(d);
                let mut best = usize::MAX;
                for g in 0..d {
                    let lo = g * group;
                    let hi = ((g + 1) * group).min(p);
                    if lo >= hi {
                        break;
                    }
                    let c = rng.random_range(lo..hi);
                    // Strictly less: ties stay with the leftmost group.
                    if best == usize::MAX || load[c] < load[best] {
                        best = c;
                    }
                }
                best
            }
        };
        load[target] += 1;
        max = max.max(load[target]);
    }
    max
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
