//! Work stealing ([Sanders 1999] Figure 1; [Lecture, load balancing] "Work Stealing"): an idle PE
//! asks one victim at a time for work; a busy PE that finds a request
//! splits its piece and sends one part, and an idle one answers "no work".
//!
//! The three ways of choosing the victim:
//!
//! * **random polling** — a PE chosen uniformly at random among the others;
//! * **asynchronous round robin** — the PE's own target, `me + 1, me + 2, …`
//!   modulo P, skipping itself;
//! * **global round robin** — the next value of one counter shared by all
//!   PEs, modulo P (a ticket naming the asker itself is skipped). The
//!   counter is the [`Hub`](super::Hub)'s; drivers may keep it as a shared
//!   atomic or a one-sided MPI window, which give the same tickets.
//!
//! In hybrid runs (threads inside MPI ranks) the PEs come in *groups* of
//! equal size; an idle PE asks a random member of its own group while
//! another member holds work, and otherwise a member of another group, the
//! group chosen by the rule above among groups — the two-level hierarchy of
//! [Kimura & Ichiyoshi 1992].

use crate::rng::SplitMix64;

use super::{Action, Actions, Balance, Event, Strategy, Tally, answer_request, emit};

/// The per-PE state that picks the next PE to ask.
///
/// ```
/// use treelb::strategy::stealing::{Victims, VictimSelector};
/// let mut s = VictimSelector::new(Victims::Random, 2, 4, 7);
/// for _ in 0..100 {
///     let v = s.next_victim().unwrap();
///     assert!(v < 4 && v != 2);
/// }
/// assert_eq!(VictimSelector::new(Victims::Random, 0, 1, 7).next_victim(), None);
///
/// let mut s = VictimSelector::new(Victims::OwnCounter, 2, 4, 7);
/// let order: Vec<_> = (0..5).map(|_| s.next_victim().unwrap()).collect();
/// assert_eq!(order, [3, 0, 1, 3, 0]);
/// ```
#[derive(Clone, Debug)]
pub struct VictimSelector {
    me: u32,
    p: u32,
    /// PEs per group (1: no groups).
    group: u32,
    /// Asynchronous round robin: the next target group.
    target: u32,
    rng: SplitMix64,
    victims: Victims,
}

/// How victims are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Victims {
    /// Uniformly at random among the others (random polling).
    Random,
    /// From the PE's own counter (asynchronous round robin).
    OwnCounter,
    /// From tickets of the shared counter (global round robin).
    SharedCounter,
}

impl Victims {
    /// The victim rule of a stealing strategy (random for the others).
    pub fn of(strategy: Strategy) -> Victims {
        match strategy {
            Strategy::AsyncRoundRobin => Victims::OwnCounter,
            Strategy::GlobalRoundRobin => Victims::SharedCounter,
            _ => Victims::Random,
        }
    }
}

impl VictimSelector {
    /// The selector of PE `me` of `p`, its random stream seeded from the
    /// run's `seed` so that a run's choices are reproducible per PE.
    pub fn new(victims: Victims, me: usize, p: usize, seed: u64) -> Self {
        VictimSelector::grouped(victims, me, p, 1, seed)
    }

    /// The same, with PEs in groups of `group` (`p` a multiple of it).
    pub fn grouped(victims: Victims, me: usize, p: usize, group: usize, seed: u64) -> Self {
        let group = group.max(1);
        debug_assert!(p.is_multiple_of(group), "{p} PEs do not form groups of {group}");
        let groups = (p / group).max(1);
        let small = |n: usize| u32::try_from(n).expect("at most 2³² PEs");
        VictimSelector {
            me: small(me),
            p: small(p),
            group: small(group),
            target: small((me / group + 1) % groups),
            rng: SplitMix64::stream(seed, me, 0x5EED_0001),
            victims,
        }
    }

    fn me(&self) -> usize {
        self.me as usize
    }

    fn group(&self) -> usize {
        self.group as usize
    }

    /// The number of groups (ranks, in hybrid runs).
    fn groups(&self) -> usize {
        (self.p / self.group).max(1) as usize
    }

    /// A uniformly random member of group `g` other than this PE.
    fn member(&mut self, g: usize) -> Option<usize> {
        let lo = g * self.group();
        let mine = (lo..lo + self.group()).contains(&self.me());
        let size = self.group() - usize::from(mine);
        if size == 0 {
            return None;
        }
        // One candidate needs no draw: without groups, the victim stream is
        // one draw per choice.
        let mut v = lo + if size == 1 { 0 } else { self.rng.below(size as u64) as usize };
        if mine && v >= self.me() {
            v += 1;
        }
        Some(v)
    }

    /// A PE of this PE's own group other than itself, at random (`None`
    /// without groups).
    pub fn local(&mut self) -> Option<usize> {
        if self.group < 2 {
            return None;
        }
        self.member(self.me() / self.group())
    }

    /// Whether victims come from tickets of the shared counter: then the
    /// driver draws a ticket and [`victim_from_ticket`](Self::victim_from_ticket)
    /// names the victim.
    pub fn uses_tickets(&self) -> bool {
        self.victims == Victims::SharedCounter
    }

    /// The next PE to ask (for global round robin: a random one; see
    /// [`victim_from_ticket`](Self::victim_from_ticket)), or `None` if there
    /// is no other group.
    #[inline]
    pub fn next_victim(&mut self) -> Option<usize> {
        let groups = self.groups();
        let mine = self.me() / self.group();
        if groups < 2 {
            return if self.group > 1 { self.local() } else { None };
        }
        let g = match self.victims {
            Victims::OwnCounter => {
                let mut g = self.target as usize;
                if g == mine {
                    g = (g + 1) % groups;
                }
                self.target = ((g + 1) % groups) as u32;
                g
            }
            _ => {
                let g = self.rng.below(groups as u64 - 1) as usize;
                if g >= mine { g + 1 } else { g }
            }
        };
        self.member(g)
    }

    /// A PE other than this one, uniformly at random (`None` if P = 1): the
    /// random choice of the pushing strategies.
    #[inline]
    pub fn random_other(&mut self) -> Option<usize> {
        if self.p < 2 {
            return None;
        }
        let v = self.rng.below(u64::from(self.p) - 1) as usize;
        Some(if v >= self.me() { v + 1 } else { v })
    }

    /// A uniform integer in `0..n`, from the same stream (candidates).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        self.rng.below(n as u64) as usize
    }

    /// 64 random bits from the same stream (ties).
    #[inline]
    pub fn bits(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// Global round robin: the PE that a ticket of the shared counter names
    /// (a group, then a member of it), or `None` if it names this PE's group
    /// (the machine then draws the next ticket).
    ///
    /// ```
    /// use treelb::strategy::stealing::{Victims, VictimSelector};
    /// let mut s = VictimSelector::new(Victims::SharedCounter, 1, 3, 0);
    /// let victims: Vec<_> = (0..4).map(|t| s.victim_from_ticket(t)).collect();
    /// assert_eq!(victims, [Some(0), None, Some(2), Some(0)]);
    /// ```
    #[inline]
    pub fn victim_from_ticket(&mut self, ticket: u64) -> Option<usize> {
        let g = (ticket % self.groups() as u64) as usize;
        if g == self.me() / self.group() {
            return None;
        }
        self.member(g)
    }
}

/// The machine of random polling, global and asynchronous round robin.
///
/// **Queue trimming** ([Sanders 1999] §4, Theorem 2; off unless
/// [`set_trimming`](Self::set_trimming) turns it on). A busy PE splits for
/// one request per probe, so requests can queue up behind a PE whose piece
/// is hard to split while the PEs that sent them sit idle; Theorem 2's
/// high-probability bound needs such queues to stay below order √P (or h ∈
/// Ω(P log P)). With trimming, a request that arrives while `limit`
/// requests already wait for this PE's next probe is answered "no work" at
/// once, so no queue ever holds more than `limit` requests. This is
/// correct because a trimmed request is, to its sender, a failed request
/// like any other: the sender picks a new victim and asks again, no piece
/// is lost or duplicated, and the bound's count of requests per split is
/// unchanged — only the waiting in long queues goes. A driver that keeps
/// requests waiting asks [`trims`](Self::trims) (or, through any machine,
/// [`Balance::trims_request`]) as one arrives and, if it
/// says so, feeds the request as `Event::Request { busy: false }` (this PE
/// will not split for it), which the machine answers with
/// [`Action::Refuse`].
#[derive(Clone, Debug)]
pub struct Stealing {
    victims: VictimSelector,
    /// A request (or a ticket) is out and unanswered.
    pending: bool,
    tally: Tally,
    /// Queue trimming: the most requests that may wait (`None`: off).
    trim: Option<usize>,
}

impl Stealing {
    /// PE `me` of `p` under `strategy` (one of the three; any other steals
    /// at random), in groups of `group` PEs (1: none).
    pub fn new(strategy: Strategy, me: usize, p: usize, group: usize, seed: u64) -> Self {
        Stealing {
            victims: VictimSelector::grouped(Victims::of(strategy), me, p, group, seed),
            pending: false,
            tally: Tally::default(),
            trim: None,
        }
    }

    /// Turns queue trimming on with at most `limit` requests waiting (the
    /// theorem's order: ⌈√P⌉), or off with `None`.
    ///
    /// ```
    /// use treelb::Strategy;
    /// use treelb::strategy::stealing::Stealing;
    /// let mut m = Stealing::new(Strategy::RandomPolling, 0, 1024, 1, 7);
    /// assert!(!m.trims(1000)); // off by default
    /// m.set_trimming(Some(32));
    /// assert!(!m.trims(31));
    /// assert!(m.trims(32));
    /// ```
    pub fn set_trimming(&mut self, limit: Option<usize>) {
        self.trim = limit;
    }

    /// Whether a request that arrives while this PE is busy and finds
    /// `waiting` requests already waiting for its next probe is to be
    /// answered "no work" at once (never without trimming).
    #[inline]
    pub fn trims(&self, waiting: usize) -> bool {
        self.trim.is_some_and(|limit| waiting >= limit)
    }

    fn ask(&mut self, victim: Option<usize>, out: &mut Actions) {
        if let Some(to) = victim {
            self.pending = true;
            emit(out, &mut self.tally, Action::Request { to });
        }
    }
}

impl Balance for Stealing {
    fn on(&mut self, event: Event, out: &mut Actions) {
        match event {
            Event::Idle { local_work } => {
                if self.pending {
                    return;
                }
                if local_work && let Some(v) = self.victims.local() {
                    return self.ask(Some(v), out);
                }
                if self.victims.uses_tickets() {
                    if self.victims.groups() > 1 {
                        self.pending = true;
                        emit(out, &mut self.tally, Action::TakeTicket);
                    } else {
                        let v = self.victims.local();
                        self.ask(v, out);
                    }
                } else {
                    let v = self.victims.next_victim();
                    self.ask(v, out);
                }
            }
            Event::Ticket(ticket) => match self.victims.victim_from_ticket(ticket) {
                Some(v) => self.ask(Some(v), out),
                None => emit(out, &mut self.tally, Action::TakeTicket),
            },
            Event::Request { from, busy } => answer_request(from, busy, out, &mut self.tally),
            Event::Answer { work, .. } => {
                self.pending = false;
                self.tally.requests_failed += u64::from(!work);
            }
            Event::LoadQuery { from } => emit(out, &mut self.tally, Action::ReplyLoad { to: from }),
            _ => {}
        }
    }

    fn enable_trimming(&mut self, limit: usize) -> bool {
        self.set_trimming(Some(limit));
        true
    }

    #[inline]
    fn trims_request(&self, waiting: usize) -> bool {
        self.trims(waiting)
    }

    fn tally(&self) -> Tally {
        self.tally
    }
}
