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

/// A load-balancing scheme, selectable by name. The names are the same in
/// every driver (threads runtime, simulator, MPI); a driver that does not run
/// a scheme says so when it is asked to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// Random polling (`003_…`, Figure 1): an idle PE asks a PE chosen
    /// uniformly at random among the others; a busy PE that finds a request
    /// splits its piece and sends one part.
    #[default]
    RandomPolling,
    /// Global round robin (`002_…`, "Work Stealing"): idle PEs take their
    /// victims in turn from one shared target counter.
    GlobalRoundRobin,
    /// Asynchronous round robin (`002_…`): every PE asks the PEs in turn,
    /// from its own target counter incremented modulo P.
    AsyncRoundRobin,
    /// Randomized work sharing (`002_…`, "Work Sharing"): a busy PE pushes
    /// part of its work to a PE chosen at random.
    WorkSharing,
    /// Extreme work sharing (`002_…`): every new subproblem goes to the pool
    /// of a PE chosen at random.
    ExtremeWorkSharing,
    /// Work sharing whose pushes go to the least loaded of `d` random PEs
    /// (`002_…`, "Uniform Allocation").
    TwoChoice,
    /// Work sharing whose pushes go to the least loaded of one random PE from
    /// each of `d` groups, ties to the left (`002_…`, "Non-uniform
    /// Allocation").
    AlwaysGoLeft,
    /// Loui and Sohoni (`004_…`): idle PEs visit the PE with the largest
    /// reported load; loads are reported lazily, when ⌈log_ρ L⌉ grows.
    MaxLoad,
    /// The multi-level producer/consumer scheme analysed by Kimura and
    /// Ichiyoshi (`001_…`): a tree of producers with a fan-out per level.
    Multilevel,
    /// A central master hands out pieces, largest first.
    MasterWorker,
    /// Static assignment of contiguous blocks of the root's subproblems.
    StaticBlock,
    /// Static assignment of the root's subproblems round robin.
    StaticCyclic,
    /// Static assignment of the root's subproblems at random.
    StaticRandom,
}

impl Strategy {
    /// Every strategy, in documentation order.
    pub const ALL: [Strategy; 13] = [
        Strategy::RandomPolling,
        Strategy::GlobalRoundRobin,
        Strategy::AsyncRoundRobin,
        Strategy::WorkSharing,
        Strategy::ExtremeWorkSharing,
        Strategy::TwoChoice,
        Strategy::AlwaysGoLeft,
        Strategy::MaxLoad,
        Strategy::Multilevel,
        Strategy::MasterWorker,
        Strategy::StaticBlock,
        Strategy::StaticCyclic,
        Strategy::StaticRandom,
    ];

    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::RandomPolling => "random-polling",
            Strategy::GlobalRoundRobin => "global-round-robin",
            Strategy::AsyncRoundRobin => "async-round-robin",
            Strategy::WorkSharing => "work-sharing",
            Strategy::ExtremeWorkSharing => "extreme-work-sharing",
            Strategy::TwoChoice => "two-choice",
            Strategy::AlwaysGoLeft => "always-go-left",
            Strategy::MaxLoad => "max-load",
            Strategy::Multilevel => "multilevel",
            Strategy::MasterWorker => "master-worker",
            Strategy::StaticBlock => "static-block",
            Strategy::StaticCyclic => "static-cyclic",
            Strategy::StaticRandom => "static-random",
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

/// The per-PE state of a work-stealing strategy: whom to ask next.
///
/// * Random polling: a PE chosen uniformly at random among the others.
/// * Asynchronous round robin: the PE's own target, `me + 1, me + 2, …`
///   modulo P, skipping itself.
/// * Global round robin: the next value of one counter shared by all PEs;
///   the driver owns the counter (a shared atomic, a message to the PE that
///   holds it, a one-sided fetch-and-add) and passes each ticket to
///   [`VictimSelector::victim_from_ticket`].
///
/// Other strategies use random choices where they need a PE at random.
#[derive(Clone, Debug)]
pub struct VictimSelector {
    me: usize,
    p: usize,
    rng: SmallRng,
    strategy: Strategy,
    /// Asynchronous round robin: the next target.
    target: usize,
}

impl VictimSelector {
    /// The selector of PE `me` of `p`, seeded from the run's `seed` so that a
    /// run's choices are reproducible per PE.
    pub fn new(strategy: Strategy, me: usize, p: usize, seed: u64) -> Self {
        // Distinct, well-mixed streams per PE from one run seed.
        let stream = seed ^ (me as u64).wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        VictimSelector { me, p, rng: SmallRng::seed_from_u64(stream), strategy, target: (me + 1) % p.max(1) }
    }

    /// Whether the victims come from a counter shared by all PEs (global
    /// round robin): then the driver calls
    /// [`victim_from_ticket`](Self::victim_from_ticket) instead of
    /// [`next_victim`](Self::next_victim).
    pub fn uses_global_counter(&self) -> bool {
        self.strategy == Strategy::GlobalRoundRobin
    }

    /// The next PE to ask, or `None` if there is no other PE: uniformly at
    /// random for random polling (and every strategy without a rule of its
    /// own), the PE's own round-robin target for asynchronous round robin.
    ///
    /// ```
    /// use treelb::strategy::{Strategy, VictimSelector};
    /// let mut s = VictimSelector::new(Strategy::RandomPolling, 2, 4, 7);
    /// for _ in 0..100 {
    ///     let v = s.next_victim().unwrap();
    ///     assert!(v < 4 && v != 2);
    /// }
    /// assert_eq!(VictimSelector::new(Strategy::RandomPolling, 0, 1, 7).next_victim(), None);
    ///
    /// let mut s = VictimSelector::new(Strategy::AsyncRoundRobin, 2, 4, 7);
    /// let order: Vec<_> = (0..5).map(|_| s.next_victim().unwrap()).collect();
    /// assert_eq!(order, [3, 0, 1, 3, 0]);
    /// ```
    #[inline]
    pub fn next_victim(&mut self) -> Option<usize> {
        if self.p < 2 {
            return None;
        }
        if self.strategy == Strategy::AsyncRoundRobin {
            if self.target == self.me {
                self.target = (self.target + 1) % self.p;
            }
            let v = self.target;
            self.target = (v + 1) % self.p;
            return Some(v);
        }
        self.random_other()
    }

    /// A PE other than this one, uniformly at random (`None` if P = 1).
    #[inline]
    pub fn random_other(&mut self) -> Option<usize> {
        if self.p < 2 {
            return None;
        }
        let v = self.rng.random_range(0..self.p - 1);
        Some(if v >= self.me { v + 1 } else { v })
    }

    /// Global round robin: the PE that a ticket of the shared counter names,
    /// or `None` if it names this PE (the driver then draws the next ticket).
    ///
    /// ```
    /// use treelb::strategy::{Strategy, VictimSelector};
    /// let s = VictimSelector::new(Strategy::GlobalRoundRobin, 1, 3, 0);
    /// let victims: Vec<_> = (0..4).map(|t| s.victim_from_ticket(t)).collect();
    /// assert_eq!(victims, [Some(0), None, Some(2), Some(0)]);
    /// ```
    #[inline]
    pub fn victim_from_ticket(&self, ticket: u64) -> Option<usize> {
        let v = (ticket % self.p as u64) as usize;
        (v != self.me).then_some(v)
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
