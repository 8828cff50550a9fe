//! Balancing strategies as state machines: every rule of every scheme,
//! written once, with no threads, no messages and no clock in it.
//!
//! A PE's [`Machine`] takes [`Event`]s — a slice of Δt units done with load
//! L, a request or an answer or a push or a load arrived, the PE ran idle —
//! and returns [`Action`]s: send a request to PE j, split and send a part to
//! j, query j's load, push a part to j, report a load, ask the master. The
//! three drivers carry the actions out in their medium and turn what arrives
//! back into events:
//!
//! * the threads runtime (`treelb-threads`): a message is a write into the
//!   receiver's slot or pool, a query a read of what the receiver published;
//! * the MPI runtime (`treelb-mpi`): a message is an `MPI_Isend`, answered
//!   at the receiver's next probe;
//! * the simulator (`treelb-sim`): a message is an event `T_rout` later.
//!
//! What the medium dictates stays in the drivers — termination detection,
//! wire formats, when an idle PE tries again (its back-off), parking — but no
//! rule of a strategy: whom to ask, what to give, where to push, when to
//! report, which piece the master hands out.
//!
//! The strategies, by family (one module each):
//!
//! | module | strategies | the rule |
//! |---|---|---|
//! | [`stealing`] | `random-polling`, `global-round-robin`, `async-round-robin` | an idle PE asks a victim; a busy one splits for it ([Sanders 1999] Fig. 1, [Lecture, load balancing]) |
//! | [`pushing`] | `work-sharing`, `extreme-work-sharing`, `two-choice`, `always-go-left` | a busy PE pushes parts into other PEs' pools ([Lecture, load balancing]) |
//! | [`maxload`] | `max-load` | idle PEs visit the largest *reported* load; lazy ⌈log_ρ L⌉ reports ([Loui & Sohoni 1989]) |
//! | [`multilevel`] | `multilevel` | a PE asks only its producer in a tree with a fan-out per level ([Kimura & Ichiyoshi 1992]) |
//! | [`master`] | `master-worker` | one central pool, largest piece first, refilled on demand |
//! | [`static_assign`] | `static-block`, `static-cyclic`, `static-random` | the root is cut once; nothing moves ([Lecture, load balancing]) |
//!
//! Some strategies need one structure for the whole run — the target
//! counter of global round robin, the heap of reported loads of max-load,
//! the central pool of master–worker. That is the [`Hub`], another machine
//! with the same shape; the drivers place it where their medium allows (a
//! lock or an atomic on shared memory, PE 0 on MPI and in the simulator).
//!
//! A scripted run of random polling on two PEs:
//!
//! ```
//! use treelb::strategy::{Action, Actions, Balance, Event, Machine};
//! use treelb::RunSpec;
//!
//! let spec = RunSpec::default(); // random polling
//! let (mut pe0, mut pe1) = (spec.machine(0, 2), spec.machine(1, 2));
//! let mut out = Actions::new();
//! pe1.on(Event::Idle { local_work: false }, &mut out); // PE 1 has nothing
//! assert_eq!(out.to_vec(), [Action::Request { to: 0 }]);
//! out.clear();
//! pe0.on(Event::Request { from: 1, busy: true }, &mut out); // PE 0 is busy
//! assert_eq!(out.to_vec(), [Action::Give { to: 1 }]);
//! out.clear();
//! pe1.on(Event::Answer { from: 0, work: true }, &mut out);
//! assert!(out.is_empty());
//! assert_eq!(pe1.tally().requests_sent, 1);
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub mod master;
pub mod maxload;
pub mod multilevel;
pub mod pushing;
pub mod static_assign;
pub mod stealing;
pub mod stepper;

mod hub;
#[cfg(test)]
mod tests;

pub use hub::{Hub, HubAction, HubEvent};

/// A load-balancing scheme, selectable by name. The names are the same in
/// every driver (threads runtime, MPI runtime, simulator).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// Random polling ([Sanders 1999], Figure 1): an idle PE asks a PE chosen
    /// uniformly at random among the others; a busy PE that finds a request
    /// splits its piece and sends one part.
    #[default]
    RandomPolling,
    /// Global round robin ([Lecture, load balancing], "Work Stealing"): idle PEs take their
    /// victims in turn from one shared target counter.
    GlobalRoundRobin,
    /// Asynchronous round robin ([Lecture, load balancing]): every PE asks the PEs in turn,
    /// from its own target counter incremented modulo P.
    AsyncRoundRobin,
    /// Randomized work sharing ([Lecture, load balancing], "Work Sharing"): a busy PE offers
    /// part of its work to a PE chosen at random, which declines if its pool
    /// holds a piece.
    WorkSharing,
    /// Extreme work sharing ([Lecture, load balancing]): every slice's worth of new work goes
    /// to the pool of a PE chosen at random.
    ExtremeWorkSharing,
    /// Work sharing whose offers go to the less loaded of two random PEs
    /// ([Lecture, load balancing], "Uniform Allocation"), ties at random.
    TwoChoice,
    /// Work sharing whose offers go to the less loaded of one random PE from
    /// each half, ties to the left ([Lecture, load balancing], "Non-uniform Allocation").
    AlwaysGoLeft,
    /// Loui and Sohoni ([Loui & Sohoni 1989]): idle PEs visit the PE with the largest
    /// reported load; loads are reported lazily, when ⌈log_ρ L⌉ grows.
    MaxLoad,
    /// The multi-level producer/consumer scheme analysed by Kimura and
    /// Ichiyoshi ([Kimura & Ichiyoshi 1992]): a tree of producers with a fan-out per level.
    Multilevel,
    /// A central pool hands out pieces, largest first, and asks busy PEs for
    /// parts when it runs dry.
    MasterWorker,
    /// Static assignment of contiguous blocks of the root's parts.
    StaticBlock,
    /// Static assignment of the root's parts round robin.
    StaticCyclic,
    /// Static assignment of the root's parts at random.
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

    /// What it does, in one line (for listings such as `--help`).
    pub fn description(self) -> &'static str {
        match self {
            Strategy::RandomPolling => "an idle PE asks a random PE for half of its work",
            Strategy::GlobalRoundRobin => "idle PEs take victims in turn from one shared counter",
            Strategy::AsyncRoundRobin => "each PE asks the others in turn, from its own counter",
            Strategy::WorkSharing => "busy PEs offer work to a random PE",
            Strategy::ExtremeWorkSharing => "every slice's new work goes to a random PE's pool",
            Strategy::TwoChoice => "offers go to the less loaded of two random PEs",
            Strategy::AlwaysGoLeft => "offers go to the less loaded of one PE from each half",
            Strategy::MaxLoad => "idle PEs visit the PE with the largest reported load (--rho)",
            Strategy::Multilevel => "a tree of producers with a fan-out per level (--fanout)",
            Strategy::MasterWorker => "a central pool hands out pieces, largest first",
            Strategy::StaticBlock => "the root's parts in contiguous blocks, nothing moves",
            Strategy::StaticCyclic => "the root's parts round robin, nothing moves",
            Strategy::StaticRandom => "the root's parts at random, nothing moves",
        }
    }

    /// Whether PEs keep a pool of waiting pieces under this strategy (the
    /// pushing and static strategies): a PE that runs out takes the oldest
    /// piece of its pool ([`Waiting`]) and is idle only when it is empty.
    pub fn uses_pools(self) -> bool {
        self.is_pushing() || self.is_static()
    }

    /// Whether busy PEs push work (the [`pushing`] family).
    pub fn is_pushing(self) -> bool {
        matches!(
            self,
            Strategy::WorkSharing
                | Strategy::ExtremeWorkSharing
                | Strategy::TwoChoice
                | Strategy::AlwaysGoLeft
        )
    }

    /// Whether the root is cut once and nothing moves ([`static_assign`]).
    pub fn is_static(self) -> bool {
        matches!(self, Strategy::StaticBlock | Strategy::StaticCyclic | Strategy::StaticRandom)
    }

    /// Whether idle PEs draw tickets from the hub's shared counter (global
    /// round robin): a driver may keep that counter apart from the hub, as
    /// one atomic or a one-sided MPI window, which give the same tickets.
    pub fn takes_tickets(self) -> bool {
        self == Strategy::GlobalRoundRobin
    }

    /// Whether an idle PE keeps asking other PEs until one gives it work
    /// (random polling, both round robins, max-load): its machine answers
    /// every failed attempt with another, so an idle PE looks for work the
    /// whole time it is idle, and a request that reaches an idle PE is
    /// refused at once (an idle PE has nothing to keep it for). Under the
    /// other strategies an idle PE waits for a message — a push, its
    /// producer's or the master's answer — or for the end, and sends
    /// nothing in the meantime.
    ///
    /// Drivers that must share processors among more PEs than there are
    /// use it to decide whom to let ask, and whether a request to an idle PE
    /// needs to be kept.
    ///
    /// ```
    /// use treelb::Strategy;
    /// let askers: Vec<_> = Strategy::ALL.into_iter().filter(|s| s.idle_keeps_asking()).collect();
    /// assert_eq!(
    ///     askers,
    ///     [Strategy::RandomPolling, Strategy::GlobalRoundRobin, Strategy::AsyncRoundRobin, Strategy::MaxLoad]
    /// );
    /// ```
    pub fn idle_keeps_asking(self) -> bool {
        matches!(
            self,
            Strategy::RandomPolling
                | Strategy::GlobalRoundRobin
                | Strategy::AsyncRoundRobin
                | Strategy::MaxLoad
        )
    }

    /// Whether the run needs a [`Hub`]: the shared counter of global round
    /// robin, the load heap of max-load, the central pool of master–worker.
    pub fn uses_hub(self) -> bool {
        matches!(self, Strategy::GlobalRoundRobin | Strategy::MaxLoad | Strategy::MasterWorker)
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

/// What happened to a PE, as its machine hears it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Event {
    /// The PE holds no piece and its pool is empty: at the start, after its
    /// piece ran out, after an attempt to get work failed, and again each
    /// time the driver's back-off expires. While an attempt is outstanding
    /// (a request out, a query unanswered) it changes nothing, so drivers
    /// may repeat it freely. `local_work`: some other PE of this PE's group
    /// (its MPI rank, in hybrid mode) holds work; `false` where there are no
    /// groups.
    Idle {
        /// Another PE of this PE's group holds work.
        local_work: bool,
    },
    /// A slice of Δt units is done and the piece still holds work; `load` is
    /// the piece's [`Work::load`](crate::Work::load) (for a search: its open
    /// nodes). Drivers send it only to machines that
    /// [want slices](Balance::wants_slices).
    Slice {
        /// The piece's load after the slice.
        load: u64,
    },
    /// The PE's piece is exhausted (its pool may still hold pieces).
    Exhausted,
    /// PE `from` asks for work. `busy`: this PE holds a piece it may split.
    Request {
        /// The asking PE.
        from: usize,
        /// This PE holds a piece.
        busy: bool,
    },
    /// The driver carried out [`Action::Give`], [`Action::Push`] or
    /// [`Action::Deposit`]: `given` whether a part went (false: there was
    /// no piece, or it did not split), `load` what the piece holds now.
    Served {
        /// A part went.
        given: bool,
        /// The piece's load afterwards (0 without a piece).
        load: u64,
    },
    /// The answer to this PE's request (or, under master–worker, to its
    /// request to the master) arrived; `work` whether it carried a piece.
    Answer {
        /// Who answered.
        from: usize,
        /// A piece came with it.
        work: bool,
    },
    /// Global round robin: the ticket the shared counter gave this PE.
    Ticket(u64),
    /// Max-load: the hub names the PE with the largest reported load, or
    /// `None` if no PE reports any.
    MostLoaded(Option<usize>),
    /// PE `from` asks for this PE's load (the pushing strategies' query).
    LoadQuery {
        /// The asking PE.
        from: usize,
    },
    /// The answer to this PE's load query: PE `from` holds `load` pieces
    /// (see [`pieces_held`]).
    Load {
        /// The PE that was asked.
        from: usize,
        /// The pieces it holds.
        load: u64,
    },
    /// PE `from` pushed a piece into this PE's pool.
    Pushed {
        /// The pushing PE.
        from: usize,
    },
    /// Master–worker: the central pool is empty while PEs wait, and the hub
    /// asks this PE for a part. `busy`: this PE holds a piece.
    Demand {
        /// This PE holds a piece.
        busy: bool,
    },
    /// The run is over (termination was detected): answer whatever this PE
    /// still holds (a producer of `multilevel` holds its children's requests
    /// while it has nothing to give). A machine releases a few at a time:
    /// drivers repeat the event until it returns no action. Only drivers
    /// that wait for every answer before they stop need it (MPI's drain).
    Over,
}

/// What a PE's machine asks its driver to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Action {
    /// Send a request for work to PE `to`; its answer comes back as
    /// [`Event::Answer`].
    Request {
        /// The PE asked.
        to: usize,
    },
    /// Split the piece and send one part to PE `to` in answer to its request
    /// ("no work" if the piece does not split); then report
    /// [`Event::Served`].
    Give {
        /// The requester.
        to: usize,
    },
    /// Multi-level granularity control ([Kimura & Ichiyoshi 1992] §2.5): answer
    /// PE `to`'s request with a piece of generation `generation` at least —
    /// one this PE cut earlier and keeps in its pool, else a part split off
    /// its piece and cut down to that generation, the other parts of each
    /// cut kept in the pool for later requests ([`pe::cut`](crate::pe::cut));
    /// then report [`Event::Served`]. "No work" if the PE has no pooled
    /// piece and its piece does not split.
    Produce {
        /// The requester.
        to: usize,
        /// The least generation of the piece given.
        generation: u32,
    },
    /// Answer PE `to`'s request with "no work".
    Refuse {
        /// The requester.
        to: usize,
    },
    /// Global round robin: draw a ticket from the shared counter (the
    /// [`Hub`]); it comes back as [`Event::Ticket`].
    TakeTicket,
    /// Max-load: ask the hub which PE reported the largest load; the answer
    /// comes back as [`Event::MostLoaded`].
    QueryMostLoaded,
    /// Max-load: report this PE's load to the hub.
    Report {
        /// The load reported.
        load: u64,
    },
    /// Ask PE `to` for its load; the answer comes back as [`Event::Load`].
    QueryLoad {
        /// The PE asked.
        to: usize,
    },
    /// Answer PE `to`'s load query with the pieces this PE holds
    /// ([`pieces_held`]).
    ReplyLoad {
        /// The PE that asked.
        to: usize,
    },
    /// Split the piece and push one part into PE `to`'s pool (nothing if it
    /// does not split); then report [`Event::Served`].
    Push {
        /// The receiving PE.
        to: usize,
    },
    /// Master–worker: ask the hub's central pool for a piece; it comes back
    /// as [`Event::Answer`] when there is one.
    AskMaster,
    /// Master–worker: split the piece and, if it splits, put one part into
    /// the hub's central pool; then report [`Event::Served`].
    Deposit,
    /// Master–worker: tell the hub this PE has no part for it (no piece).
    NoPart,
}

impl Action {
    /// Whether carrying the action out puts a message on the wire (all do:
    /// a request, an answer, a query, a reply, a push, a report, a part).
    /// Counted at the sender, one per action: [`Tally::messages`].
    pub const fn is_message(self) -> bool {
        true
    }
}

/// The load the pushing strategies compare: the pieces a PE holds — the
/// one it works on, if any, and those waiting in its pool. Every driver
/// answers a load query with this.
///
/// ```
/// use treelb::strategy::pieces_held;
/// assert_eq!(pieces_held(true, 2), 3);
/// assert_eq!(pieces_held(false, 0), 0);
/// ```
#[inline]
pub fn pieces_held(working: bool, pool_len: usize) -> u64 {
    u64::from(working) + pool_len as u64
}

/// A PE's waiting pieces under the pushing and static strategies: first in,
/// first out — a PE that runs out takes the oldest piece, so work spreads
/// in the order it was pushed. Each piece remembers the PE that pushed it.
///
/// ```
/// use treelb::strategy::Waiting;
/// let mut pool = Waiting::new();
/// pool.push("a", 1);
/// pool.push("b", 2);
/// assert_eq!(pool.take(), Some(("a", 1)));
/// assert_eq!(pool.len(), 1);
/// ```
#[derive(Clone, Debug)]
pub struct Waiting<T> {
    queue: std::collections::VecDeque<(T, usize)>,
}

impl<T> Default for Waiting<T> {
    fn default() -> Self {
        Waiting { queue: std::collections::VecDeque::new() }
    }
}

impl<T> Waiting<T> {
    /// An empty pool.
    pub fn new() -> Self {
        Waiting::default()
    }

    /// A piece pushed by PE `from` (a PE's own initial pieces: itself).
    pub fn push(&mut self, piece: T, from: usize) {
        self.queue.push_back((piece, from));
    }

    /// The oldest waiting piece and the PE that pushed it.
    pub fn take(&mut self) -> Option<(T, usize)> {
        self.queue.pop_front()
    }

    /// Pieces waiting.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether no piece waits.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

/// The actions of one event: at most [`Actions::CAPACITY`], kept inline
/// (no allocation on any driver's path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Actions {
    len: u8,
    items: [Action; Actions::CAPACITY],
}

impl Serialize for Actions {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Actions {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let items = Vec::<Action>::deserialize(deserializer)?;
        if items.len() > Actions::CAPACITY {
            return Err(serde::de::Error::invalid_length(items.len(), &"at most Actions::CAPACITY actions"));
        }
        let mut actions = Actions::new();
        for action in items {
            actions.push(action);
        }
        Ok(actions)
    }
}

impl Default for Actions {
    fn default() -> Self {
        Actions::new()
    }
}

impl Actions {
    /// The most actions one event can produce.
    pub const CAPACITY: usize = 4;

    /// No actions.
    #[inline]
    pub const fn new() -> Self {
        // The filler is never read: only `items[..len]` is.
        Actions { len: 0, items: [Action::NoPart; Actions::CAPACITY] }
    }

    /// Appends an action.
    #[inline]
    pub fn push(&mut self, action: Action) {
        let i = usize::from(self.len);
        assert!(i < Actions::CAPACITY, "a machine produced more than {} actions", Actions::CAPACITY);
        self.items[i] = action;
        self.len += 1;
    }

    /// The actions, in order.
    #[inline]
    pub fn as_slice(&self) -> &[Action] {
        &self.items[..usize::from(self.len)]
    }

    /// The actions, in order, as a vector (for tests and scripts).
    pub fn to_vec(&self) -> Vec<Action> {
        self.as_slice().to_vec()
    }

    /// The actions, in order.
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = Action> + '_ {
        self.as_slice().iter().copied()
    }

    /// Whether there is none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Removes every action.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }
}

/// What a PE's machine decided over a run, counted where it decides (so
/// every driver counts the same way).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Attempts to get work from another PE (requests; under the pushing
    /// strategies, offers: one per round of load queries; under
    /// master–worker, requests to the central pool).
    pub requests_sent: u64,
    /// Attempts that brought nothing (answered "no work"; offers declined
    /// because every candidate's pool held a piece).
    pub requests_failed: u64,
    /// Requests for work (or demands of the master) this PE received.
    pub requests_received: u64,
    /// Operations on the shared load heap of max-load (reports and
    /// look-ups) caused by this PE.
    pub heap_ops: u64,
    /// Messages this PE sent: one per action (the hub's own messages are
    /// counted at PE 0).
    pub messages: u64,
}

impl Tally {
    /// Adds another tally to this one.
    pub fn add(&mut self, other: &Tally) {
        self.requests_sent += other.requests_sent;
        self.requests_failed += other.requests_failed;
        self.requests_received += other.requests_received;
        self.heap_ops += other.heap_ops;
        self.messages += other.messages;
    }
}

/// The contract of a strategy's per-PE state machine.
///
/// A driver calls [`on`](Balance::on) for every event and carries out the
/// actions in order. Machines hold no clock and do no I/O; two machines
/// built alike and fed the same events return the same actions.
pub trait Balance {
    /// Feeds one event; appends the actions it calls for to `out`.
    fn on(&mut self, event: Event, out: &mut Actions);

    /// Whether [`Event::Slice`] matters to this machine. Drivers skip it
    /// otherwise: the busy path of random polling stays one poll per Δt.
    fn wants_slices(&self) -> bool {
        false
    }

    /// Turns queue trimming ([Sanders 1999] §4, Theorem 2) on where the
    /// strategy has it: a busy PE keeps at most `limit` requests waiting for
    /// its next probe, and a driver refuses at once one more that arrives
    /// ([`trims_request`](Balance::trims_request)). Returns whether the
    /// machine trims — the stealing machines do
    /// ([`Stealing`](stealing::Stealing)); the others ignore it.
    fn enable_trimming(&mut self, limit: usize) -> bool {
        let _ = limit;
        false
    }

    /// Whether a request that reaches this PE while it is busy, and finds
    /// `waiting` requests already waiting for its next probe, is to be
    /// refused at once: the driver then feeds it as
    /// `Event::Request { busy: false }`, which the machine answers with
    /// [`Action::Refuse`]. Never without
    /// [`enable_trimming`](Balance::enable_trimming).
    ///
    /// ```
    /// use treelb::strategy::Balance;
    /// use treelb::{RunSpec, Strategy};
    /// let mut m = RunSpec::default().machine(0, 1024); // random polling
    /// assert!(!m.trims_request(1000)); // off by default
    /// assert!(m.enable_trimming(32));
    /// assert!(!m.trims_request(31));
    /// assert!(m.trims_request(32));
    /// let mut m = RunSpec::with_strategy(Strategy::WorkSharing).machine(0, 1024);
    /// assert!(!m.enable_trimming(32)); // no requests wait under pushing
    /// ```
    fn trims_request(&self, waiting: usize) -> bool {
        let _ = waiting;
        false
    }

    /// What the machine decided so far.
    fn tally(&self) -> Tally;
}

/// Counts an action into a tally: every action is one message; the
/// attempts and heap operations by kind.
#[inline]
pub(crate) fn count(tally: &mut Tally, action: Action) {
    tally.messages += u64::from(action.is_message());
    match action {
        Action::Request { .. } | Action::AskMaster => tally.requests_sent += 1,
        Action::Report { .. } | Action::QueryMostLoaded => tally.heap_ops += 1,
        _ => {}
    }
}

/// Pushes an action and counts it.
#[inline]
pub(crate) fn emit(out: &mut Actions, tally: &mut Tally, action: Action) {
    count(tally, action);
    out.push(action);
}

/// The answer of any PE to a request for work under strategies that steal
/// from busy PEs: split for it if busy, "no work" otherwise.
#[inline]
pub(crate) fn answer_request(from: usize, busy: bool, out: &mut Actions, tally: &mut Tally) {
    tally.requests_received += 1;
    emit(out, tally, if busy { Action::Give { to: from } } else { Action::Refuse { to: from } });
}

/// One decision of a PE's machine: the event a driver fed it and the
/// actions it returned. Drivers can record every decision of every PE
/// (`record_decisions` in their configurations), so that tests can replay
/// a run's decisions through fresh machines ([`replay`]) and compare what
/// two drivers decided. Decisions travel (a driver across processes
/// gathers them) in serde's data model, the actions as a sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// What the machine was told.
    pub event: Event,
    /// What it answered.
    pub actions: Actions,
}

/// Feeds an event to a machine, carries its actions out with `act`, and
/// records the decision in `log` if there is one: the one way every driver
/// talks to its machines.
#[inline]
pub fn decide(machine: &mut Machine, event: Event, log: Option<&mut Vec<Decision>>) -> Actions {
    let mut actions = Actions::new();
    machine.on(event, &mut actions);
    if let Some(log) = log {
        log.push(Decision { event, actions });
    }
    actions
}

/// Replays one PE's recorded decisions through a fresh machine built like
/// the original (`machine`): `Ok` if it decides exactly the same, the first
/// difference otherwise. Machines hold no clock and no randomness of their
/// own beyond their seeded stream, so a driver that talks to its machines
/// only through [`decide`] always passes.
pub fn replay(mut machine: Machine, log: &[Decision]) -> Result<(), String> {
    for (i, d) in log.iter().enumerate() {
        let mut actions = Actions::new();
        machine.on(d.event, &mut actions);
        if actions != d.actions {
            return Err(format!(
                "decision {i}: {:?} gave {:?}, recorded {:?}",
                d.event,
                actions.to_vec(),
                d.actions.to_vec()
            ));
        }
    }
    Ok(())
}

/// One PE's strategy machine: the family of its run's strategy.
///
/// Built by [`RunSpec::machine`](crate::RunSpec::machine).
#[derive(Clone, Debug)]
pub enum Machine {
    /// Random polling, global and asynchronous round robin.
    Stealing(stealing::Stealing),
    /// Work sharing, extreme work sharing, two-choice, always-go-left (boxed:
    /// the largest machine, which keeps every other one small).
    Pushing(Box<pushing::Pushing>),
    /// Max-load visiting.
    MaxLoad(maxload::MaxLoad),
    /// The multi-level producer tree.
    Multilevel(multilevel::Multilevel),
    /// Master–worker.
    Master(master::Worker),
    /// Static block, cyclic and random assignment.
    Static(static_assign::Static),
}

impl Balance for Machine {
    #[inline]
    fn on(&mut self, event: Event, out: &mut Actions) {
        match self {
            Machine::Stealing(m) => m.on(event, out),
            Machine::Pushing(m) => m.on(event, out),
            Machine::MaxLoad(m) => m.on(event, out),
            Machine::Multilevel(m) => m.on(event, out),
            Machine::Master(m) => m.on(event, out),
            Machine::Static(m) => m.on(event, out),
        }
    }

    #[inline]
    fn wants_slices(&self) -> bool {
        match self {
            Machine::Stealing(m) => m.wants_slices(),
            Machine::Pushing(m) => m.wants_slices(),
            Machine::MaxLoad(m) => m.wants_slices(),
            Machine::Multilevel(m) => m.wants_slices(),
            Machine::Master(m) => m.wants_slices(),
            Machine::Static(m) => m.wants_slices(),
        }
    }

    #[inline]
    fn enable_trimming(&mut self, limit: usize) -> bool {
        match self {
            Machine::Stealing(m) => m.enable_trimming(limit),
            Machine::Pushing(m) => m.enable_trimming(limit),
            Machine::MaxLoad(m) => m.enable_trimming(limit),
            Machine::Multilevel(m) => m.enable_trimming(limit),
            Machine::Master(m) => m.enable_trimming(limit),
            Machine::Static(m) => m.enable_trimming(limit),
        }
    }

    #[inline]
    fn trims_request(&self, waiting: usize) -> bool {
        match self {
            Machine::Stealing(m) => m.trims_request(waiting),
            Machine::Pushing(m) => m.trims_request(waiting),
            Machine::MaxLoad(m) => m.trims_request(waiting),
            Machine::Multilevel(m) => m.trims_request(waiting),
            Machine::Master(m) => m.trims_request(waiting),
            Machine::Static(m) => m.trims_request(waiting),
        }
    }

    fn tally(&self) -> Tally {
        match self {
            Machine::Stealing(m) => m.tally(),
            Machine::Pushing(m) => m.tally(),
            Machine::MaxLoad(m) => m.tally(),
            Machine::Multilevel(m) => m.tally(),
            Machine::Master(m) => m.tally(),
            Machine::Static(m) => m.tally(),
        }
    }
}
