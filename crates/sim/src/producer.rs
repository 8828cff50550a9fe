//! The single-level producer/consumer scheme of Kimura and Ichiyoshi
//! ([Kimura & Ichiyoshi 1992] §3): one producer divides a task into N subtasks, one every
//! 1/λ, and p consumers take them on demand.
//!
//! The model is their Definition 1, a queue with p servers: subtask n is
//! created at `O_n = U_1 + … + U_n`, starts at `X_n = max(O_n, Z_n)` where
//! `Z_n` is the time the first consumer becomes free, and ends at
//! `Y_n = X_n + R_n`; `T_p = max Y_n`. Communication latency is not in the
//! model (as in the paper). Efficiency is the "collective" mean
//! `η = Σ T₁ / (p Σ T_p)` over trials, and `η_max` is η at the best
//! granularity ν = E(N).
//!
//! Their results: with equal subtasks (deterministic case)
//! `1/η_max ≈ 1 + p²/(λ t₁)`; with exponentially distributed subtask sizes
//! `1/η_max ≈ 1 + ρ p² log p / (λ t₁)` for ρ = λ/(μp) > 1 — the load imbalance
//! of the last subtasks costs a factor log p. Subtask sizes of a general
//! distribution whose remaining life never grows (Theorem 2's "moderate
//! diversity"; here [`Sizes::Uniform`]) do no worse than exponential ones.
//!
//! The multi-level scheme, a tree of such producers, is [`crate::multilevel`].

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::str::FromStr;

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

/// How subtask sizes are distributed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sizes {
    /// Every subtask has size t₁/ν (the paper's deterministic case).
    Deterministic,
    /// Sizes are i.i.d. exponential with mean t₁/ν (the exponential case:
    /// a subtask's expected remaining life never shrinks).
    Exponential,
    /// Sizes are i.i.d. uniform in [0, 2t₁/ν]: a general distribution of
    /// moderate diversity (the expected remaining life only shrinks).
    Uniform,
}

impl Sizes {
    /// Every distribution, in the order of the paper.
    pub const ALL: [Sizes; 3] = [Sizes::Deterministic, Sizes::Exponential, Sizes::Uniform];

    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Sizes::Deterministic => "deterministic",
            Sizes::Exponential => "exponential",
            Sizes::Uniform => "uniform",
        }
    }

    /// A size of mean `mean` for a uniform random number `u ∈ [0, 1)`.
    ///
    /// ```
    /// use treelb_sim::producer::Sizes;
    /// assert_eq!(Sizes::Deterministic.sample(10.0, 0.9), 10.0);
    /// assert_eq!(Sizes::Uniform.sample(10.0, 0.25), 5.0);
    /// assert!((Sizes::Exponential.sample(10.0, 0.5) - 10.0 * 2f64.ln()).abs() < 1e-12);
    /// ```
    #[inline]
    pub fn sample(self, mean: f64, u: f64) -> f64 {
        match self {
            Sizes::Deterministic => mean,
            // Inverse transform; 1 - u avoids ln(0).
            Sizes::Exponential => -mean * (1.0 - u).ln(),
            Sizes::Uniform => 2.0 * mean * u,
        }
    }
}

impl fmt::Display for Sizes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Sizes {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Sizes::ALL.into_iter().find(|x| x.name() == s).ok_or_else(|| {
            let names: Vec<_> = Sizes::ALL.iter().map(|x| x.name()).collect();
            format!("unknown subtask size distribution `{s}` (expected one of: {})", names.join(", "))
        })
    }
}

/// The parallel time of one run: `nu` subtasks of the given sizes, produced
/// one every `1/lambda`, on `p` consumers. Returns (T₁, T_p).
pub fn run(p: usize, nu: usize, t1: f64, lambda: f64, sizes: Sizes, rng: &mut SmallRng) -> (f64, f64) {
    let mean = t1 / nu as f64;
    let u = 1.0 / lambda;
    // Free times of the consumers (as ordered bits of non-negative f64s).
    let mut free: BinaryHeap<Reverse<u64>> = (0..p).map(|_| Reverse(0f64.to_bits())).collect();
    let (mut total, mut end) = (0.0, 0.0f64);
    for n in 1..=nu {
        let created = n as f64 * u;
        let Reverse(first) = free.pop().expect("p ≥ 1 consumers");
        let start = created.max(f64::from_bits(first));
        let r = match sizes {
            Sizes::Deterministic => mean,
            _ => sizes.sample(mean, rng.random::<f64>()),
        };
        total += r;
        let done = start + r;
        end = end.max(done);
        free.push(Reverse(done.to_bits()));
    }
    (total, end)
}

/// The collective mean efficiency over `trials` runs.
pub fn efficiency(p: usize, nu: usize, t1: f64, lambda: f64, sizes: Sizes, trials: u32, seed: u64) -> f64 {
    let mut rng = SmallRng::seed_from_u64(seed);
    let (mut s1, mut sp) = (0.0, 0.0);
    for _ in 0..trials.max(1) {
        let (a, b) = run(p, nu, t1, lambda, sizes, &mut rng);
        s1 += a;
        sp += b;
    }
    s1 / (p as f64 * sp)
}

/// `η_max` and the best ν, scanning ν over a geometric grid (ratio 2^(1/8))
/// around ρ = 1, i.e. ν = λ t₁ / p, where the paper puts the optimum: from
/// ρ = 16 to ρ = 1/4.
pub fn best(p: usize, t1: f64, lambda: f64, sizes: Sizes, trials: u32, seed: u64) -> (f64, usize) {
    let centre = lambda * t1 / p as f64;
    let hi = (4.0 * centre).max(p as f64);
    let mut best = (0.0, p);
    let mut nu = (centre / 16.0).max(p as f64);
    while nu <= hi {
        let n = nu.round() as usize;
        let e = efficiency(p, n, t1, lambda, sizes, trials, seed);
        if e > best.0 {
            best = (e, n);
        }
        nu *= 2f64.powf(0.125);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_run_by_hand() {
        // 2 consumers, 4 subtasks of size 5, one produced per tick:
        // starts 1, 2, 6, 7; ends 6, 7, 11, 12.
        let mut rng = SmallRng::seed_from_u64(0);
        assert_eq!(run(2, 4, 20.0, 1.0, Sizes::Deterministic, &mut rng), (20.0, 12.0));
    }

    #[test]
    fn a_slow_producer_is_the_bottleneck() {
        // Subtasks of size 1 produced every 10 ticks: T_p = 10 ν + 1.
        let mut rng = SmallRng::seed_from_u64(0);
        assert_eq!(run(8, 100, 100.0, 0.1, Sizes::Deterministic, &mut rng).1, 1001.0);
    }
}
