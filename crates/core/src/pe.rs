//! One processing element, with no transport in it: the piece, the pool,
//! the strategy machine and the counters of a PE, behind a handful of calls.
//!
//! A PE of any driver does the same things around its strategy machine
//! ([`Machine`]): it works on its piece a slice of Δt units at a time,
//! takes the next piece from its pool when the piece runs out, tells the
//! machine what happened (a slice done, the piece exhausted, the PE idle),
//! turns each message that arrives into an [`Event`], and carries out the
//! machine's [`Action`]s — above all the three that move work ([`Action::Give`],
//! [`Action::Push`], [`Action::Deposit`]: split the piece, send the part,
//! report [`Event::Served`]). [`Pe`] is all of that, written once, as a
//! state machine in the manner of a sans-I/O protocol implementation: the
//! driver hands it what happened ([`work`](Pe::work), [`handle`](Pe::handle),
//! [`idle`](Pe::idle)) and takes what it has to send
//! ([`poll_transmit`](Pe::poll_transmit)).
//!
//! **The PE owns** its piece and its pool of waiting pieces ([`Waiting`]), its
//! machine, the output it accumulates, its counters ([`PeStats`]: work
//! units, splits, pieces sent and received; the machine's [`Tally`](crate::strategy::Tally) is
//! added by [`finish`](Pe::finish)) and, if asked to, the log of its
//! machine's decisions ([`Decision`], for [`replay`](crate::strategy::replay)).
//! Every piece it sends travels by value in a [`Transmit`].
//!
//! **The driver owns** everything else:
//!
//! * *transport* — delivering each [`Transmit`] (to a PE, or to the run's
//!   [`Hub`](crate::strategy::Hub), wherever the driver keeps it) and
//!   handing what arrives to the receiver's [`handle`](Pe::handle); the
//!   hub's answers become messages by [`Message::from_hub`];
//! * *time* — when a slice is worked, when a message is looked at (at once,
//!   or at the next probe), what anything costs;
//! * *waiting* — when an idle PE tells its machine again that it is idle
//!   (its back-off, parking);
//! * *termination* — the PE does not know when the run is over; a driver
//!   that counts pieces reads splits off [`stats`](Pe::stats) and
//!   exhaustions off [`work`](Pe::work), and feeds [`Event::Over`] through
//!   [`handle_event`](Pe::handle_event) if its machines must release what
//!   they hold.
//!
//! The transmits of one call are queued in the order the machine decided
//! them (a part given, then what the machine decided on hearing it was
//! served); a driver that delivers them in that order, before it calls the
//! PE again, runs the strategy exactly as every other driver does.
//!
//! The logic itself — an action carried out, a message taken in — is
//! [`feed`] and [`receive`], over a [`Body`]: where the piece, the pool and
//! the machine are kept. [`Pe`] is one body, which keeps them itself and
//! queues its messages. A driver that must keep them in storage of its own
//! (the simulator: 16384 PEs' state small and apart, pieces in flight by
//! slot, time advanced by every send) implements [`Body`] over that storage
//! and runs the same logic, without the queue.
//!
//! Two PEs under random polling, the driver a pair of queues:
//!
//! ```
//! use treelb::pe::{Message, Pe, Transmit};
//! use treelb::search::{BinaryTree, DfsWork, SplitPolicy};
//! use treelb::RunSpec;
//!
//! let spec = RunSpec::default(); // random polling
//! let root = DfsWork::new(&BinaryTree(10), SplitPolicy::OldestHalf);
//! let mut pe0 = Pe::new(0, spec.machine(0, 2), [root], 0u64, 0);
//! let mut pe1 = Pe::new(1, spec.machine(1, 2), [], 0u64, 0);
//!
//! pe0.work(8); // 8 nodes of the tree
//! pe1.idle(false); // PE 1 has nothing: its machine asks PE 0
//! let Some(Transmit::Pe { to: 0, message }) = pe1.poll_transmit() else { panic!() };
//! assert!(matches!(message, Message::Request { from: 1 }));
//! pe0.handle(message); // PE 0 is busy: it splits and answers with a part
//! let Some(Transmit::Pe { to: 1, message }) = pe0.poll_transmit() else { panic!() };
//! assert!(matches!(message, Message::Answer { from: 0, piece: Some(_) }));
//! pe1.handle(message);
//! assert!(pe1.holds_piece());
//!
//! // Each works its piece to the end.
//! while pe0.work(64).is_some_and(|p| !p.is_exhausted()) {}
//! while pe1.work(64).is_some_and(|p| !p.is_exhausted()) {}
//! let (a, b) = (pe0.finish(), pe1.finish());
//! assert_eq!(a.output + b.output, (1 << 11) - 1); // every node, once
//! assert_eq!((a.stats.splits, b.stats.pieces_received), (1, 1));
//! ```

use std::collections::VecDeque;

use crate::strategy::{
    Action, Actions, Balance, Decision, Event, HubAction, HubEvent, Machine, Waiting, decide, pieces_held,
};
use crate::{PeStats, Progress, Work};

/// A message from one PE to another (or from the hub to a PE). Pieces
/// travel by value.
#[derive(Debug)]
pub enum Message<W> {
    /// PE `from` asks for work.
    Request {
        /// The asking PE.
        from: usize,
    },
    /// The answer to a request: a piece, or "no work". The hub's central
    /// pool answers as PE 0.
    Answer {
        /// The answering PE.
        from: usize,
        /// The part given, if any.
        piece: Option<W>,
    },
    /// PE `from` pushed a piece into the receiver's pool.
    Push {
        /// The pushing PE.
        from: usize,
        /// The piece.
        piece: W,
    },
    /// Global round robin: the hub's ticket.
    Ticket(u64),
    /// Max-load: the hub names the most loaded PE, if any.
    MostLoaded(Option<usize>),
    /// PE `from` asks for the receiver's load.
    LoadQuery {
        /// The asking PE.
        from: usize,
    },
    /// PE `from` answers a load query: it holds `load` pieces.
    Load {
        /// The PE that was asked.
        from: usize,
        /// The pieces it holds ([`pieces_held`]).
        load: u64,
    },
    /// Master–worker: the hub asks for a part.
    Demand,
}

impl<W> Message<W> {
    /// The hub's answer as a message, and the PE it goes to.
    ///
    /// ```
    /// use treelb::pe::Message;
    /// use treelb::strategy::HubAction;
    /// let (to, m) = Message::<()>::from_hub(HubAction::Ticket { to: 3, ticket: 9 });
    /// assert_eq!(to, 3);
    /// assert!(matches!(m, Message::Ticket(9)));
    /// ```
    pub fn from_hub(action: HubAction<W>) -> (usize, Message<W>) {
        match action {
            HubAction::Ticket { to, ticket } => (to, Message::Ticket(ticket)),
            HubAction::MostLoaded { to, pe } => (to, Message::MostLoaded(pe)),
            HubAction::Hand { to, piece } => (to, Message::Answer { from: 0, piece: Some(piece) }),
            HubAction::Demand { to } => (to, Message::Demand),
        }
    }

    /// Whether the message carries a piece.
    pub fn carries_piece(&self) -> bool {
        matches!(self, Message::Answer { piece: Some(_), .. } | Message::Push { .. })
    }
}

/// Something a PE has to send: a message to a PE, or one to the run's hub.
#[derive(Debug)]
pub enum Transmit<W> {
    /// A message to PE `to`.
    Pe {
        /// The receiving PE.
        to: usize,
        /// The message.
        message: Message<W>,
    },
    /// A message to the hub (a deposited part travels with its load).
    Hub(HubEvent<W>),
}

/// What a PE leaves at the end of a run.
#[derive(Debug)]
pub struct Finished<O> {
    /// The output it accumulated.
    pub output: O,
    /// Its counters, its machine's tally added.
    pub stats: PeStats,
    /// Its machine's decisions, if they were recorded (else empty).
    pub decisions: Vec<Decision>,
}

/// One processing element: its piece, its pool, its strategy machine, its
/// output and counters, and the messages it has to send. See the
/// [module documentation](self) for the contract with its driver.
#[derive(Debug)]
pub struct Pe<W: Work> {
    me: usize,
    piece: Option<W>,
    pool: Waiting<W>,
    machine: Machine,
    wants_slices: bool,
    acc: W::Output,
    stats: PeStats,
    decisions: Option<Vec<Decision>>,
    out: VecDeque<Transmit<W>>,
}

impl<W: Work> Pe<W> {
    /// PE `me` with its machine, its initial pieces (in its pool, as its
    /// own), and the output and units of work its initial share already
    /// holds (see [`spec::unpack`](crate::spec::unpack)).
    pub fn new(
        me: usize,
        machine: Machine,
        pieces: impl IntoIterator<Item = W>,
        acc: W::Output,
        units: u64,
    ) -> Self {
        let mut pool = Waiting::new();
        for piece in pieces {
            pool.push(piece, me);
        }
        Pe {
            me,
            piece: None,
            pool,
            wants_slices: machine.wants_slices(),
            machine,
            acc,
            stats: PeStats { pe: me, work_units: units, ..PeStats::default() },
            decisions: None,
            out: VecDeque::new(),
        }
    }

    /// Records every decision of the machine from now on
    /// ([`finish`](Self::finish) returns them).
    pub fn record_decisions(&mut self) {
        self.decisions.get_or_insert_with(Vec::new);
    }

    /// This PE's index.
    pub fn me(&self) -> usize {
        self.me
    }

    /// Whether the PE holds a piece it is working on.
    pub fn holds_piece(&self) -> bool {
        self.piece.is_some()
    }

    /// Pieces waiting in the pool.
    pub fn pooled(&self) -> usize {
        self.pool.len()
    }

    /// Whether the PE has no work at all: no piece, nothing pooled.
    pub fn is_idle(&self) -> bool {
        self.piece.is_none() && self.pool.is_empty()
    }

    /// The pieces the PE holds, as load queries are answered
    /// ([`pieces_held`]).
    pub fn load(&self) -> u64 {
        pieces_held(self.piece.is_some(), self.pool.len())
    }

    /// The counters so far (without the machine's tally).
    pub fn stats(&self) -> &PeStats {
        &self.stats
    }

    /// The strategy machine.
    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    /// The strategy machine, to set it up (queue trimming, say) before the
    /// run.
    pub fn machine_mut(&mut self) -> &mut Machine {
        &mut self.machine
    }

    /// The output accumulated so far.
    pub fn output(&self) -> &W::Output {
        &self.acc
    }

    /// One slice of work: takes the oldest pooled piece if the PE holds
    /// none, does up to `budget` units on its piece and tells the machine
    /// ([`Event::Exhausted`], or [`Event::Slice`] to machines that want
    /// slices). `None`: there was no piece to work on.
    pub fn work(&mut self, budget: u64) -> Option<Progress> {
        if self.piece.is_none()
            && let Some((piece, from)) = self.pool.take()
        {
            if from != self.me {
                self.stats.pieces_received += 1;
            }
            self.piece = Some(piece);
        }
        let piece = self.piece.as_mut()?;
        let progress = piece.work(budget, &mut self.acc);
        self.stats.work_units += progress.used(budget);
        if progress.is_exhausted() {
            self.piece = None;
            self.handle_event(Event::Exhausted);
        } else if self.wants_slices {
            let load = piece.load();
            self.handle_event(Event::Slice { load });
        }
        Some(progress)
    }

    /// A message arrived: keeps the piece it carries (as the piece to work
    /// on if the PE holds none and it is an answer, in the pool otherwise)
    /// and tells the machine.
    pub fn handle(&mut self, message: Message<W>) {
        receive(&mut Own(self), message);
    }

    /// Tells the machine the PE is idle ([`Event::Idle`]) if it has no work
    /// at all; returns whether it did. `local_work`: another PE of this
    /// PE's group holds work (hybrid runs; `false` otherwise).
    pub fn idle(&mut self, local_work: bool) -> bool {
        let idle = self.is_idle();
        if idle {
            self.handle_event(Event::Idle { local_work });
        }
        idle
    }

    /// Feeds an event to the machine as it is and carries out its actions
    /// (for events the driver makes itself: [`Event::Over`], a request it
    /// trims).
    pub fn handle_event(&mut self, event: Event) {
        feed(&mut Own(self), event);
    }

    /// The next message to send, in the order they were decided.
    pub fn poll_transmit(&mut self) -> Option<Transmit<W>> {
        self.out.pop_front()
    }

    /// The output, the counters with the machine's tally, and the decisions.
    pub fn finish(self) -> Finished<W::Output> {
        let mut stats = self.stats;
        stats.add_tally(&self.machine.tally());
        Finished { output: self.acc, stats, decisions: self.decisions.unwrap_or_default() }
    }
}

/// A PE's state as a driver keeps it: what [`feed`] and [`receive`] need to
/// carry out a machine's actions and to take in a message. [`Pe`] keeps it
/// itself; a driver that keeps its PEs' pieces and machines in storage of
/// its own (the simulator: pieces in flight by slot, machines apart from
/// pieces) implements this over that storage and runs the same logic.
pub trait Body {
    /// A part split off, as the driver carries it: the piece itself, or a
    /// handle to it.
    type Part;

    /// This PE's index.
    fn me(&self) -> usize;

    /// Feeds `event` to the PE's machine (through
    /// [`decide`], recording the decision if the
    /// driver records them) and returns its actions.
    fn decide(&mut self, event: Event) -> Actions;

    /// Whether the PE holds a piece it may split.
    fn busy(&self) -> bool;

    /// The pieces the PE holds ([`pieces_held`]).
    fn held(&self) -> u64;

    /// Splits the PE's piece, if it has one, and counts the split: the part
    /// (`None`: no piece, or it did not split) and the piece's load
    /// afterwards (0 without a piece).
    fn split_off(&mut self) -> (Option<Self::Part>, u64);

    /// A piece of generation `generation` at least for another PE
    /// ([`Action::Produce`]): a piece waiting in the PE's pool, else a part
    /// split off its piece and [`cut`] down, the other parts of the cut
    /// going to the pool; with the piece's load afterwards, as
    /// [`split_off`](Body::split_off). By default the part as
    /// [`split_off`](Body::split_off) gives it, for drivers that keep no
    /// pool of their own pieces.
    fn produce(&mut self, generation: u32) -> (Option<Self::Part>, u64) {
        let _ = generation;
        self.split_off()
    }

    /// The load of a part ([`Work::load`]): what a deposit tells the hub.
    fn part_load(&self, part: &Self::Part) -> u64;

    /// Sends `message` to PE `to`.
    fn send(&mut self, to: usize, message: Message<Self::Part>);

    /// Sends `event` to the run's hub.
    fn send_hub(&mut self, event: HubEvent<Self::Part>);

    /// Keeps a piece that arrived from PE `from`: the answer to a request
    /// (`answer`), or a push.
    fn accept(&mut self, piece: Self::Part, from: usize, answer: bool);
}

/// Feeds `event` to a PE's machine and carries out its actions, in order:
/// a part given, pushed or deposited is split off and sent, and the
/// machine hears [`Event::Served`] before the next action.
pub fn feed<B: Body>(body: &mut B, event: Event) {
    let actions = body.decide(event);
    for action in actions.iter() {
        act(body, action);
    }
}

/// Takes in a message that reached a PE: keeps the piece it carries
/// ([`Body::accept`]) and feeds the machine the event it stands for.
pub fn receive<B: Body>(body: &mut B, message: Message<B::Part>) {
    let busy = body.busy();
    let event = match message {
        Message::Request { from } => Event::Request { from, busy },
        Message::Answer { from, piece } => {
            let work = piece.is_some();
            if let Some(piece) = piece {
                body.accept(piece, from, true);
            }
            Event::Answer { from, work }
        }
        Message::Push { from, piece } => {
            body.accept(piece, from, false);
            Event::Pushed { from }
        }
        Message::Ticket(t) => Event::Ticket(t),
        Message::MostLoaded(pe) => Event::MostLoaded(pe),
        Message::LoadQuery { from } => Event::LoadQuery { from },
        Message::Load { from, load } => Event::Load { from, load },
        Message::Demand => Event::Demand { busy },
    };
    feed(body, event);
}

/// Carries out one action.
#[inline]
fn act<B: Body>(body: &mut B, action: Action) {
    let me = body.me();
    match action {
        Action::Request { to } => body.send(to, Message::Request { from: me }),
        Action::Refuse { to } => body.send(to, Message::Answer { from: me, piece: None }),
        Action::Give { to } => {
            let (part, load) = body.split_off();
            let given = part.is_some();
            body.send(to, Message::Answer { from: me, piece: part });
            feed(body, Event::Served { given, load });
        }
        Action::Produce { to, generation } => {
            let (part, load) = body.produce(generation);
            let given = part.is_some();
            body.send(to, Message::Answer { from: me, piece: part });
            feed(body, Event::Served { given, load });
        }
        Action::Push { to } => {
            let (part, load) = body.split_off();
            let given = part.is_some();
            if let Some(piece) = part {
                body.send(to, Message::Push { from: me, piece });
            }
            feed(body, Event::Served { given, load });
        }
        Action::Deposit => {
            let (part, load) = body.split_off();
            let given = part.is_some();
            if let Some(piece) = part {
                let part_load = body.part_load(&piece);
                body.send_hub(HubEvent::Deposit { from: me, part: Some((piece, part_load)) });
            }
            feed(body, Event::Served { given, load });
        }
        Action::NoPart => body.send_hub(HubEvent::Deposit { from: me, part: None }),
        Action::QueryLoad { to } => body.send(to, Message::LoadQuery { from: me }),
        Action::ReplyLoad { to } => {
            let load = body.held();
            body.send(to, Message::Load { from: me, load });
        }
        Action::TakeTicket => body.send_hub(HubEvent::Ticket { from: me }),
        Action::QueryMostLoaded => body.send_hub(HubEvent::QueryMostLoaded { from: me }),
        Action::Report { load } => body.send_hub(HubEvent::Report { from: me, load }),
        Action::AskMaster => body.send_hub(HubEvent::Ask { from: me }),
    }
}

/// Cuts `part` down to `generation`: splits it until it is of that
/// generation at least (or does not split), going on with the lighter
/// side of each split and handing the other to `keep`, and returns the
/// last lighter side. The multi-level
/// scheme's granularity control ([`Action::Produce`]): a producer cuts
/// pieces of its level's grain, a piece's generation standing for its
/// size (each split halves it, or cuts it in the work's own ratio).
///
/// ```
/// use treelb::pe::cut;
/// use treelb::{Progress, Work};
///
/// /// The numbers of a range, split in halves.
/// struct Range { lo: u64, hi: u64, generation: u32 }
///
/// impl Work for Range {
///     type Output = u64;
///     fn work(&mut self, budget: u64, acc: &mut u64) -> Progress {
///         let n = budget.min(self.hi - self.lo);
///         (self.lo, *acc) = (self.lo + n, *acc + n);
///         if self.lo == self.hi { Progress::Exhausted { used: n } } else { Progress::Pending }
///     }
///     fn split(&mut self) -> Option<Self> {
///         let mid = self.lo + (self.hi - self.lo) / 2;
///         (mid > self.lo).then(|| {
///             self.generation += 1;
///             let hi = std::mem::replace(&mut self.hi, mid);
///             Range { lo: mid, hi, generation: self.generation }
///         })
///     }
///     fn generation(&self) -> u32 { self.generation }
///     fn load(&self) -> u64 { self.hi - self.lo }
/// }
///
/// let mut kept = Vec::new();
/// let part = cut(Range { lo: 0, hi: 1024, generation: 1 }, 4, |rest| kept.push(rest));
/// assert_eq!((part.generation(), part.hi - part.lo), (4, 128)); // three halvings
/// assert_eq!(kept.iter().map(|r| r.hi - r.lo).collect::<Vec<_>>(), [512, 256, 128]);
/// ```
pub fn cut<W: Work>(mut part: W, generation: u32, mut keep: impl FnMut(W)) -> W {
    while part.generation() < generation {
        let Some(mut other) = part.split() else { break };
        // Go on with the lighter side (by `Work::load`; the part split
        // off on a tie): the pieces given are at most about a halving per
        // generation, whatever the ratio the work splits in, and the
        // heavier remainders are cut again when they are given in turn.
        if part.load() < other.load() {
            std::mem::swap(&mut part, &mut other);
        }
        keep(part);
        part = other;
    }
    part
}

/// A [`Pe`] as the body of its own logic.
struct Own<'a, W: Work>(&'a mut Pe<W>);

impl<W: Work> Body for Own<'_, W> {
    type Part = W;

    fn me(&self) -> usize {
        self.0.me
    }

    fn decide(&mut self, event: Event) -> Actions {
        let pe = &mut *self.0;
        decide(&mut pe.machine, event, pe.decisions.as_mut())
    }

    fn busy(&self) -> bool {
        self.0.piece.is_some()
    }

    fn held(&self) -> u64 {
        self.0.load()
    }

    fn split_off(&mut self) -> (Option<W>, u64) {
        let pe = &mut *self.0;
        let part = pe.piece.as_mut().and_then(Work::split);
        if part.is_some() {
            pe.stats.splits += 1;
            pe.stats.pieces_sent += 1;
        }
        (part, pe.piece.as_ref().map_or(0, Work::load))
    }

    fn produce(&mut self, generation: u32) -> (Option<W>, u64) {
        let pe = &mut *self.0;
        let part = match pe.pool.take() {
            Some((piece, from)) => {
                if from != pe.me {
                    pe.stats.pieces_received += 1;
                }
                Some(piece)
            }
            None => pe.piece.as_mut().and_then(Work::split).inspect(|_| pe.stats.splits += 1),
        };
        let part = part.map(|part| {
            pe.stats.pieces_sent += 1;
            let (me, pool, splits) = (pe.me, &mut pe.pool, &mut pe.stats.splits);
            cut(part, generation, |rest| {
                *splits += 1;
                pool.push(rest, me);
            })
        });
        (part, pe.piece.as_ref().map_or(0, Work::load))
    }

    fn part_load(&self, part: &W) -> u64 {
        part.load()
    }

    fn send(&mut self, to: usize, message: Message<W>) {
        self.0.out.push_back(Transmit::Pe { to, message });
    }

    fn send_hub(&mut self, event: HubEvent<W>) {
        self.0.out.push_back(Transmit::Hub(event));
    }

    fn accept(&mut self, piece: W, from: usize, answer: bool) {
        let pe = &mut *self.0;
        // A piece is counted received once: here if it is taken up at
        // once, else when `work` takes it from the pool.
        if answer && pe.piece.is_none() {
            pe.stats.pieces_received += 1;
            pe.piece = Some(piece);
            return;
        }
        pe.pool.push(piece, from);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{BinaryTree, DfsWork, SplitPolicy};
    use crate::strategy::replay;
    use crate::{RunSpec, Strategy};

    fn root() -> DfsWork<'static, BinaryTree> {
        DfsWork::new(&BinaryTree(8), SplitPolicy::OldestHalf)
    }

    #[test]
    fn a_demand_of_the_master_deposits_a_part_at_the_hub() {
        let spec = RunSpec::with_strategy(Strategy::MasterWorker);
        let mut pe = Pe::new(1, spec.machine(1, 4), [root()], 0u64, 0);
        pe.record_decisions();
        assert!(pe.work(4).is_some_and(|p| !p.is_exhausted()));
        pe.handle(Message::Demand);
        let mut deposits = 0;
        while let Some(t) = pe.poll_transmit() {
            if let Transmit::Hub(HubEvent::Deposit { from: 1, part: Some((piece, load)) }) = t {
                assert_eq!(load, piece.load());
                deposits += 1;
            }
        }
        assert_eq!(deposits, 1);
        let done = pe.finish();
        assert_eq!((done.stats.splits, done.stats.pieces_sent, done.stats.work_units), (1, 1, 4));
        assert_eq!(replay(spec.machine(1, 4), &done.decisions), Ok(()));
    }

    #[test]
    fn a_pushed_piece_waits_in_the_pool_and_counts_once_taken() {
        let spec = RunSpec::with_strategy(Strategy::WorkSharing);
        let mut pe = Pe::new(0, spec.machine(0, 4), [], 0u64, 0);
        assert!(pe.is_idle());
        pe.handle(Message::Push { from: 3, piece: root() });
        assert!(!pe.holds_piece());
        assert_eq!((pe.pooled(), pe.load()), (1, 1));
        assert_eq!(pe.stats().pieces_received, 0);
        while pe.work(16).is_some_and(|p| !p.is_exhausted()) {}
        assert_eq!(pe.stats().pieces_received, 1);
        assert!(pe.is_idle());
        assert_eq!(*pe.output(), (1 << 9) - 1);
    }

    #[test]
    fn a_load_query_is_answered_with_the_pieces_held() {
        let spec = RunSpec::with_strategy(Strategy::TwoChoice);
        let mut pe = Pe::new(2, spec.machine(2, 4), [root(), root()], 0u64, 0);
        pe.work(1);
        pe.handle(Message::LoadQuery { from: 0 });
        let t = std::iter::from_fn(|| pe.poll_transmit())
            .find(|t| matches!(t, Transmit::Pe { message: Message::Load { .. }, .. }));
        assert!(matches!(t, Some(Transmit::Pe { to: 0, message: Message::Load { from: 2, load: 2 } })));
    }
}
