//! Workloads: what the simulated PEs work on.
//!
//! Every workload is a [`treelb::Work`] — the same trait the threads runtime
//! runs — so the simulator splits pieces exactly as a runtime would, and
//! selective initialization is `treelb::init::selective` itself. The
//! simulator also needs to know what a unit of work costs in ticks, and, for
//! speed, how much work a piece still holds if that is known ([`SimWork`]).
//!
//! * [`AlphaPiece`] — Sanders' abstract model ([Sanders 1994] §5.3, [Sanders 1999] §1.2):
//!   a piece of hidden size v splits into αv and (1-α)v, α drawn from an
//!   [`AlphaDist`]; it is atomic once it is at most `T_atomic` or after `h`
//!   generations. One unit of work is one tick.
//! * `DfsWork<Uts>` — a real UTS tree from `treelb-apps`; expanding one node
//!   costs a configurable number of ticks.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use treelb::rng::mix;
use treelb::search::{DfsWork, Search};
use treelb::{Progress, Work};

/// A [`Work`] the simulator can run: cloneable (selective initialization
/// splits copies of the root) and, if it can, telling its remaining work.
pub trait SimWork: Work + Clone {
    /// The units of work left in this piece, if known exactly. A piece that
    /// knows it lets the simulator skip the probes of a busy PE that nobody
    /// asks for work (one event per piece instead of one per Δt).
    fn remaining(&self) -> Option<u64> {
        None
    }
}

impl<S: Search> SimWork for DfsWork<'_, S> where S::Node: Clone {}

/// How the split ratio α ∈ (0, 1/2] of an [`AlphaPiece`] is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum AlphaDist {
    /// Always the same α (1/3 is the 1:2 splitting of [Sanders 1994] Figure 2).
    Fixed {
        /// The ratio.
        alpha: f64,
    },
    /// Uniform in `[min, 1/2]`.
    Uniform {
        /// The smallest ratio.
        min: f64,
    },
    /// `α = min(1/2, (v/T_atomic)^(-a))` for a piece of size v: the part
    /// split off holds `T_atomic^a · v^(1-a)`, so a piece of size w needs
    /// about `(w/T_atomic)^a / a` splits to become atomic — [Sanders 1994]'s
    /// h(w) = O(w^a), the last column of its Figure 3 (a search tree whose
    /// height is polynomial in its size, split at the root).
    Power {
        /// The exponent a ∈ (0, 1).
        a: f64,
    },
}

impl AlphaDist {
    /// α for a uniform random number `u ∈ [0, 1)`, a piece of size `left`
    /// and `T_atomic` = `atomic`.
    #[inline]
    fn sample(self, u: f64, left: u64, atomic: u64) -> f64 {
        match self {
            AlphaDist::Fixed { alpha } => alpha,
            AlphaDist::Uniform { min } => min + (0.5 - min) * u,
            AlphaDist::Power { a } => (left as f64 / atomic.max(1) as f64).powf(-a).min(0.5),
        }
    }
}

impl fmt::Display for AlphaDist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AlphaDist::Fixed { alpha } => write!(f, "α = {alpha}"),
            AlphaDist::Uniform { min } => write!(f, "α uniform in [{min}, 0.5]"),
            AlphaDist::Power { a } => write!(f, "α = (v/T_atomic)^(-{a})"),
        }
    }
}

impl FromStr for AlphaDist {
    type Err = String;

    /// `0.333` (fixed), `0.1..0.5` / `uniform:0.1` (uniform from 0.1) or
    /// `power:0.33` (h(w) = w^0.33).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some(a) = s.strip_prefix("power:") {
            let a: f64 = a.trim().parse().map_err(|_| format!("`{a}` is not a number"))?;
            return if a > 0.0 && a < 1.0 {
                Ok(AlphaDist::Power { a })
            } else {
                Err(format!("the exponent of power:a must be in (0, 1), got {a}"))
            };
        }
        let num = |t: &str| -> Result<f64, String> {
            let x: f64 = t.trim().parse().map_err(|_| format!("`{t}` is not a number"))?;
            if x > 0.0 && x <= 0.5 { Ok(x) } else { Err(format!("α must be in (0, 0.5], got {x}")) }
        };
        if let Some(min) = s.strip_prefix("uniform:") {
            return Ok(AlphaDist::Uniform { min: num(min)? });
        }
        if let Some((lo, hi)) = s.split_once("..") {
            if (num(hi)? - 0.5).abs() > 1e-12 {
                return Err("a uniform α must range up to 0.5".into());
            }
            return Ok(AlphaDist::Uniform { min: num(lo)? });
        }
        Ok(AlphaDist::Fixed { alpha: num(s)? })
    }
}

/// The parameters shared by all pieces of one abstract computation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct AlphaModel {
    /// `T_seq`: the size of the root, in ticks (= units of work).
    pub total: u64,
    /// How α is drawn.
    pub dist: AlphaDist,
    /// `T_atomic`: a piece of at most this size does not split.
    pub atomic: u64,
    /// `h`: a piece of this generation does not split.
    pub max_generation: u32,
    /// Seeds the hidden split ratios (not the PEs' choices).
    pub seed: u64,
}

impl AlphaModel {
    /// The root piece.
    pub fn root(&self) -> AlphaPiece<'_> {
        AlphaPiece {
            model: self,
            left: self.total,
            generation: 0,
            state: mix(self.seed ^ 0xA076_1D64_78BD_642F),
        }
    }
}

/// A piece of an abstract computation: only its remaining size, its
/// generation and the state that decides how it splits.
///
/// Splitting is a function of the piece alone (contract 3 of
/// [`Work`]), so the copies of the root that selective initialization splits
/// on every PE split identically.
///
/// ```
/// use treelb::Work;
/// use treelb_sim::workload::{AlphaDist, AlphaModel};
/// let model = AlphaModel { total: 900, dist: AlphaDist::Fixed { alpha: 1.0 / 3.0 }, atomic: 10,
///                          max_generation: 64, seed: 1 };
/// let mut a = model.root();
/// let b = a.split().unwrap();
/// let mut sizes = [a.left(), b.left()];
/// sizes.sort();
/// assert_eq!(sizes, [300, 600]);
/// assert_eq!((a.generation(), b.generation()), (1, 1));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct AlphaPiece<'m> {
    model: &'m AlphaModel,
    left: u64,
    generation: u32,
    state: u64,
}

impl AlphaPiece<'_> {
    /// The work left, in ticks.
    pub fn left(&self) -> u64 {
        self.left
    }
}

impl Work for AlphaPiece<'_> {
    type Output = u64;

    #[inline]
    fn work(&mut self, budget: u64, acc: &mut u64) -> Progress {
        let used = budget.min(self.left);
        self.left -= used;
        *acc += used;
        if self.left == 0 { Progress::Exhausted { used } } else { Progress::Pending }
    }

    fn split(&mut self) -> Option<Self> {
        if self.generation >= self.model.max_generation || self.left <= self.model.atomic.max(1) {
            return None;
        }
        let r = mix(self.state);
        let u = (r >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        let alpha = self.model.dist.sample(u, self.left, self.model.atomic);
        let small = ((self.left as f64 * alpha).round() as u64).clamp(1, self.left - 1);
        // Which part leaves is not the balancer's choice: it cannot see sizes.
        let given = if r & 1 == 0 { small } else { self.left - small };
        self.left -= given;
        self.generation += 1;
        self.state = mix(r ^ 0x1);
        Some(AlphaPiece { model: self.model, left: given, generation: self.generation, state: mix(r ^ 0x2) })
    }

    #[inline]
    fn generation(&self) -> u32 {
        self.generation
    }

    fn load(&self) -> u64 {
        self.left
    }
}

impl SimWork for AlphaPiece<'_> {
    #[inline]
    fn remaining(&self) -> Option<u64> {
        Some(self.left)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_conserve_size_and_stop_at_h_or_atomic() {
        let model = AlphaModel {
            total: 1_000_000,
            dist: AlphaDist::Uniform { min: 0.1 },
            atomic: 50,
            max_generation: 12,
            seed: 3,
        };
        let mut pieces = vec![model.root()];
        let mut done = Vec::new();
        while let Some(mut p) = pieces.pop() {
            match p.split() {
                Some(q) => {
                    assert_eq!(p.generation(), q.generation());
                    pieces.push(p);
                    pieces.push(q);
                }
                None => {
                    assert!(p.generation() >= 12 || p.left() <= 50);
                    done.push(p);
                }
            }
        }
        assert_eq!(done.iter().map(|p| p.left()).sum::<u64>(), 1_000_000);
    }

    #[test]
    fn alpha_parses() {
        assert_eq!("0.333".parse(), Ok(AlphaDist::Fixed { alpha: 0.333 }));
        assert_eq!("0.1..0.5".parse(), Ok(AlphaDist::Uniform { min: 0.1 }));
        assert_eq!("uniform:0.2".parse(), Ok(AlphaDist::Uniform { min: 0.2 }));
        assert!("0.7".parse::<AlphaDist>().is_err());
        assert_eq!("power:0.25".parse(), Ok(AlphaDist::Power { a: 0.25 }));
        assert!("power:1".parse::<AlphaDist>().is_err());
    }

    /// The number of splits that make a piece atomic, following the larger
    /// part: about (w/T_atomic)^a / a under `Power`, so quadrupling w with
    /// a = 1/2 doubles it.
    #[test]
    fn power_law_splitting_depth_grows_like_w_to_the_a() {
        let depth = |total: u64| {
            let model = AlphaModel {
                total,
                dist: AlphaDist::Power { a: 0.5 },
                atomic: 100,
                max_generation: u32::MAX,
                seed: 5,
            };
            let mut piece = model.root();
            let mut splits = 0u32;
            while let Some(other) = piece.split() {
                if other.left() > piece.left() {
                    piece = other;
                }
                splits += 1;
            }
            splits
        };
        let (small, large) = (depth(1 << 24), depth(1 << 26));
        let ratio = f64::from(large) / f64::from(small);
        assert!((1.8..2.2).contains(&ratio), "{small} then {large} splits");
    }
}
