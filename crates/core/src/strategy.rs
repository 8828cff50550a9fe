//! Balancing strategies: whom an idle PE asks for work.
//!
//! A strategy is a plain state machine with no threads and no messages in it,
//! so every driver (threads now; MPI and the simulator share the vocabulary)
//! runs the same decisions. [`Strategy`] names the scheme; [`VictimSelector`]
//! is the per-PE state that picks the next PE to ask.

use std::fmt;
use std::str::FromStr;

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// A load-balancing scheme, selectable by name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// Random polling (`003_…`, Figure 1): an idle PE asks a PE chosen
    /// uniformly at random among the others; a busy PE that finds a request
    /// splits its piece and sends one part.
    #[default]
    RandomPolling,
}

impl Strategy {
    /// Every strategy, in documentation order.
    pub const ALL: [Strategy; 1] = [Strategy::RandomPolling];

    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::RandomPolling => "random-polling",
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Strategy {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Strategy::ALL.into_iter().find(|x| x.name() == s).ok_or_else(|| {
            let names: Vec<_> = Strategy::ALL.iter().map(|x| x.name()).collect();
            format!("unknown strategy `{s}` (expected one of: {})", names.join(", "))
        })
    }
}

/// The per-PE state of a strategy that chooses whom to ask for work.
#[derive(Clone, Debug)]
pub struct VictimSelector {
    me: usize,
    p: usize,
    rng: SmallRng,
}

impl VictimSelector {
    /// The selector of PE `me` of `p`, seeded from the run's `seed` so that a
    /// run's choices are reproducible per PE.
    pub fn new(_strategy: Strategy, me: usize, p: usize, seed: u64) -> Self {
        // Distinct, well-mixed streams per PE from one run seed.
        let stream = seed ^ (me as u64).wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        VictimSelector { me, p, rng: SmallRng::seed_from_u64(stream) }
    }

    /// The next PE to ask: uniformly random among the other PEs, or `None` if
    /// there is no other PE.
    ///
    /// ```
    /// use treelb::strategy::{Strategy, VictimSelector};
    /// let mut s = VictimSelector::new(Strategy::RandomPolling, 2, 4, 7);
    /// for _ in 0..100 {
    ///     let v = s.next_victim().unwrap();
    ///     assert!(v < 4 && v != 2);
    /// }
    /// assert_eq!(VictimSelector::new(Strategy::RandomPolling, 0, 1, 7).next_victim(), None);
    /// ```
    #[inline]
    pub fn next_victim(&mut self) -> Option<usize> {
        if self.p < 2 {
            return None;
        }
        let v = self.rng.random_range(0..self.p - 1);
        Some(if v >= self.me { v + 1 } else { v })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_polling_is_uniform_over_the_other_pes() {
        let p = 5;
        let mut hits = [0u32; 5];
        let mut s = VictimSelector::new(Strategy::RandomPolling, 3, p, 1);
        for _ in 0..50_000 {
            hits[s.next_victim().unwrap()] += 1;
        }
        assert_eq!(hits[3], 0);
        for (pe, &h) in hits.iter().enumerate().filter(|&(pe, _)| pe != 3) {
            assert!((11_000..14_000).contains(&h), "PE {pe} asked {h} times of 50000");
        }
    }

    #[test]
    fn names_round_trip() {
        for s in Strategy::ALL {
            assert_eq!(s.name().parse::<Strategy>(), Ok(s));
        }
        assert!("round-robin-ish".parse::<Strategy>().unwrap_err().contains("random-polling"));
    }
}
