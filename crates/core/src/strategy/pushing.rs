//! Work sharing ([Lecture, load balancing] "Work Sharing", "How to Assign Work?"): busy PEs
//! push work into other PEs' pools instead of idle PEs asking for it.
//!
//! Every PE keeps its waiting pieces ([`Waiting`](super::Waiting)) besides the one
//! it works on; when its piece runs out it takes the oldest piece of its
//! pool, and only with an empty pool is it idle — an idle PE asks nobody, it
//! waits for a push. After every slice of Δt units a busy PE decides, by the
//! strategy, where a part of its piece should go:
//!
//! * **extreme work sharing** — split and push to a PE chosen at random,
//!   every slice, unconditionally: the most uniform load, the most traffic;
//! * **randomized work sharing** — *offer* a part to a PE chosen at random:
//!   ask its load and push only if its pool is empty (the lecture's "the work
//!   assignment can be rejected");
//! * **two-choice** (uniform allocation) — ask the loads of two distinct PEs
//!   chosen at random and offer to the less loaded, ties at random;
//! * **always-go-left** (non-uniform allocation) — ask one PE at random from
//!   each half of the PEs and offer to the less loaded, ties to the left.
//!
//! The load compared is the number of pieces a PE holds
//! ([`pieces_held`](super::pieces_held): its current piece and its pool), and
//! an offer is accepted — the part pushed — only if the chosen PE holds at
//! most [`ACCEPT_AT_MOST`] piece, i.e. its pool is empty. A PE has at most
//! one round of queries out at a time: the next round starts only after the
//! last answer of this one, which bounds the offers in flight to one per PE.
//! Load queries are messages like any other (answered at the receiver's
//! next poll on MPI and in the simulator, by reading what the receiver
//! published on shared memory), and they are counted.

use super::stealing::{VictimSelector, Victims};
use super::{Action, Actions, Balance, Event, Strategy, Tally, emit};

/// An offer is accepted if the chosen PE holds at most this many pieces:
/// the one it works on, none waiting.
pub const ACCEPT_AT_MOST: u64 = 1;

/// Where the pushing strategies place work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Extreme work sharing: push every slice to a random PE.
    Extreme,
    /// Randomized work sharing: offer to one random PE.
    Random,
    /// Two-choice: offer to the less loaded of two random PEs, ties at random.
    TwoChoice,
    /// Always-go-left: offer to the less loaded of one PE per half, ties left.
    AlwaysGoLeft,
}

impl Placement {
    /// The placement of a pushing strategy (`None` for the others).
    pub fn of(strategy: Strategy) -> Option<Placement> {
        match strategy {
            Strategy::ExtremeWorkSharing => Some(Placement::Extreme),
            Strategy::WorkSharing => Some(Placement::Random),
            Strategy::TwoChoice => Some(Placement::TwoChoice),
            Strategy::AlwaysGoLeft => Some(Placement::AlwaysGoLeft),
            _ => None,
        }
    }
}

/// The index among `loads` of the candidate to place work on: the least
/// loaded; among equal loads the leftmost (`tie = None`, always-go-left) or
/// the `tie`-th of them modulo their number (uniform allocation, two-choice:
/// the caller draws `tie` as 64 random bits, every time, so that a PE's
/// random stream does not depend on the loads it saw; the modulo's bias is
/// below 2⁻⁶⁰ for any number of candidates).
///
/// ```
/// use treelb::strategy::pushing::least_loaded;
/// assert_eq!(least_loaded(&[3, 1, 2], None), 1);
/// assert_eq!(least_loaded(&[1, 4, 1], None), 0);
/// assert_eq!(least_loaded(&[1, 4, 1], Some(1)), 2);
/// assert_eq!(least_loaded(&[1, 4, 2], Some(1)), 0);
/// ```
pub fn least_loaded(loads: &[u64], tie: Option<u64>) -> usize {
    let min = loads.iter().copied().min().expect("at least one candidate");
    let ties = loads.iter().filter(|&&l| l == min).count();
    let pick = tie.map_or(0, |t| (t % ties as u64) as usize);
    loads.iter().enumerate().filter(|&(_, &l)| l == min).nth(pick).map(|(i, _)| i).expect("pick < ties")
}

/// Candidates of always-go-left: one PE at random from each of `d` equal
/// groups of `0..p` (left group first), never `me` (a group holding only
/// `me` offers nothing).
///
/// ```
/// use treelb::strategy::stealing::{Victims, VictimSelector};
/// use treelb::strategy::pushing::group_candidates;
/// let mut rng = VictimSelector::new(Victims::Random, 1, 8, 3);
/// let c = group_candidates(1, 8, 2, &mut rng);
/// assert!(c[0] < 4 && c[0] != 1 && c[1] >= 4);
/// ```
pub fn group_candidates(me: usize, p: usize, d: usize, rng: &mut VictimSelector) -> Vec<usize> {
    let d = d.clamp(1, p.max(1));
    let mut out = Vec::with_capacity(d);
    for g in 0..d {
        let (lo, hi) = (g * p / d, (g + 1) * p / d);
        let size = hi - lo - usize::from((lo..hi).contains(&me));
        if size == 0 {
            continue;
        }
        let mut v = lo + rng.below(size);
        if (lo..hi).contains(&me) && v >= me {
            v += 1;
        }
        out.push(v);
    }
    out
}

/// One round of load queries: the candidates and their answers so far.
#[derive(Clone, Copy, Debug)]
struct Round {
    candidates: [usize; 2],
    n: usize,
    loads: [Option<u64>; 2],
}

/// The machine of the pushing strategies, per PE.
///
/// ```
/// use treelb::strategy::{Action, Actions, Balance, Event, Strategy};
/// use treelb::strategy::pushing::Pushing;
/// let mut m = Pushing::new(Strategy::WorkSharing, 0, 2, 9);
/// let mut out = Actions::new();
/// m.on(Event::Slice { load: 5 }, &mut out); // offer to PE 1: ask its load
/// assert_eq!(out.to_vec(), [Action::QueryLoad { to: 1 }]);
/// out.clear();
/// m.on(Event::Load { from: 1, load: 0 }, &mut out); // PE 1 is idle
/// assert_eq!(out.to_vec(), [Action::Push { to: 1 }]);
/// out.clear();
/// m.on(Event::Slice { load: 5 }, &mut out);
/// m.on(Event::Load { from: 1, load: 2 }, &mut out); // its pool holds a piece
/// assert_eq!(out.to_vec(), [Action::QueryLoad { to: 1 }]);
/// assert_eq!((m.tally().requests_sent, m.tally().requests_failed), (2, 1));
/// ```
#[derive(Clone, Debug)]
pub struct Pushing {
    placement: Placement,
    me: usize,
    p: usize,
    rng: VictimSelector,
    round: Option<Round>,
    tally: Tally,
}

impl Pushing {
    /// PE `me` of `p` under a pushing `strategy`.
    ///
    /// # Panics
    /// If `strategy` is not one of the four pushing strategies.
    pub fn new(strategy: Strategy, me: usize, p: usize, seed: u64) -> Self {
        let placement = Placement::of(strategy).expect("a pushing strategy");
        Pushing {
            placement,
            me,
            p,
            rng: VictimSelector::new(Victims::Random, me, p, seed),
            round: None,
            tally: Tally::default(),
        }
    }

    /// The candidates of a new round (none if there is no other PE).
    fn candidates(&mut self) -> ([usize; 2], usize) {
        let mut c = [0; 2];
        match self.placement {
            Placement::Extreme | Placement::Random => match self.rng.random_other() {
                Some(v) => {
                    c[0] = v;
                    (c, 1)
                }
                None => (c, 0),
            },
            Placement::TwoChoice => {
                let Some(a) = self.rng.random_other() else { return (c, 0) };
                c[0] = a;
                if self.p < 3 {
                    return (c, 1);
                }
                // A second PE, other than this one and the first.
                let (lo, hi) = (a.min(self.me), a.max(self.me));
                let mut b = self.rng.below(self.p - 2);
                if b >= lo {
                    b += 1;
                }
                if b >= hi {
                    b += 1;
                }
                c[1] = b;
                (c, 2)
            }
            Placement::AlwaysGoLeft => {
                let g = group_candidates(self.me, self.p, 2, &mut self.rng);
                for (slot, &v) in c.iter_mut().zip(&g) {
                    *slot = v;
                }
                (c, g.len())
            }
        }
    }

    /// The last answer of a round is in: offer to the chosen candidate.
    fn decide(&mut self, round: Round, out: &mut Actions) {
        let loads: Vec<u64> = round.loads[..round.n].iter().map(|l| l.expect("all answered")).collect();
        let tie = match self.placement {
            // Drawn every time: the stream does not depend on the loads.
            Placement::TwoChoice => Some(self.rng.bits()),
            _ => None,
        };
        let i = least_loaded(&loads, tie);
        if loads[i] <= ACCEPT_AT_MOST {
            emit(out, &mut self.tally, Action::Push { to: round.candidates[i] });
        } else {
            self.tally.requests_failed += 1;
        }
    }
}

impl Balance for Pushing {
    fn on(&mut self, event: Event, out: &mut Actions) {
        match event {
            Event::Slice { .. } => {
                if self.placement == Placement::Extreme {
                    if let Some(to) = self.rng.random_other() {
                        emit(out, &mut self.tally, Action::Push { to });
                    }
                    return;
                }
                if self.round.is_some() {
                    return;
                }
                let (candidates, n) = self.candidates();
                if n == 0 {
                    return;
                }
                self.tally.requests_sent += 1;
                self.round = Some(Round { candidates, n, loads: [None; 2] });
                for &to in &candidates[..n] {
                    emit(out, &mut self.tally, Action::QueryLoad { to });
                }
            }
            Event::Load { from, load } => {
                let Some(mut round) = self.round else { return };
                if let Some(i) =
                    (0..round.n).find(|&i| round.candidates[i] == from && round.loads[i].is_none())
                {
                    round.loads[i] = Some(load);
                }
                if round.loads[..round.n].iter().all(Option::is_some) {
                    self.round = None;
                    self.decide(round, out);
                } else {
                    self.round = Some(round);
                }
            }
            Event::LoadQuery { from } => emit(out, &mut self.tally, Action::ReplyLoad { to: from }),
            // Nobody steals under work sharing; answer anyway.
            Event::Request { from, .. } => {
                self.tally.requests_received += 1;
                emit(out, &mut self.tally, Action::Refuse { to: from });
            }
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
