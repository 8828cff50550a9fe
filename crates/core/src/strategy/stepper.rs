//! A deterministic driver that steps every PE in turn on one thread: the
//! reference for what the strategy machines decide when nothing about
//! timing varies.
//!
//! Messages wait in per-PE FIFO queues; a step of a PE is one slice of Δt
//! units (or, idle, one [`Event::Idle`]) followed by every message waiting
//! for it; the hub answers at once. A run is a function of the spec and the
//! work alone, so its decisions — every action each PE's machine returned —
//! can be compared with another driver's, and tests of strategies run
//! without threads. Termination is read off the driver's own count of
//! pieces, which it sees all of.
//!
//! ```
//! use treelb::search::{BinaryTree, DfsWork, SplitPolicy};
//! use treelb::strategy::stepper::Stepper;
//! use treelb::{RunSpec, Strategy};
//!
//! for strategy in Strategy::ALL {
//!     let spec = RunSpec { budget: treelb::spec::Budget::of(64), ..RunSpec::with_strategy(strategy) };
//!     let run = Stepper::new(spec, 4).run(DfsWork::new(&BinaryTree(14), SplitPolicy::OldestHalf));
//!     assert_eq!(run.output, (1 << 15) - 1, "{strategy}");
//! }
//! ```

use std::collections::VecDeque;

use crate::spec::unpack;
use crate::{PeStats, Reduce, RunSpec, Work};

use super::{Action, Balance, Decision, Event, Hub, HubAction, HubEvent, Machine, Pool, decide, pieces_held};

/// A message between PEs (or from the hub).
#[derive(Debug)]
enum Msg<W> {
    Request { from: usize },
    Answer { from: usize, piece: Option<W> },
    Ticket(u64),
    MostLoaded(Option<usize>),
    LoadQuery { from: usize },
    Load { from: usize, load: u64 },
    Push { from: usize, piece: W },
    Demand,
}

/// One PE of the stepper.
struct StepPe<W: Work> {
    piece: Option<W>,
    pool: Pool<W>,
    machine: Machine,
    inbox: VecDeque<Msg<W>>,
    acc: W::Output,
    stats: PeStats,
    decisions: Vec<Decision>,
}

/// What a stepped run produced.
#[derive(Debug)]
pub struct Stepped<O> {
    /// The merged output.
    pub output: O,
    /// Per-PE counters (times are zero: the stepper has no clock).
    pub pes: Vec<PeStats>,
    /// Every decision of each PE's machine, in order.
    pub decisions: Vec<Vec<Decision>>,
    /// Steps taken (one per PE per round).
    pub steps: u64,
}

/// The stepping driver of `p` PEs under a spec.
#[derive(Debug)]
pub struct Stepper {
    spec: RunSpec,
    p: usize,
    /// Give up (panic) after this many steps: a strategy that never ends.
    pub max_steps: u64,
}

impl Stepper {
    /// A stepper for `p` PEs.
    pub fn new(spec: RunSpec, p: usize) -> Self {
        Stepper { spec, p: p.max(1), max_steps: 50_000_000 }
    }

    /// Runs `root` to the end.
    ///
    /// # Panics
    /// If the run takes more than [`max_steps`](Self::max_steps) steps, or a
    /// machine asks for something its strategy never does.
    pub fn run<W: Work + Clone>(&self, root: W) -> Stepped<W::Output> {
        let (spec, p) = (&self.spec, self.p);
        let all: Vec<usize> = (0..p).collect();
        let shares = spec.initial_shares(&root, p, &all, false);
        drop(root);
        let mut live = 0usize;
        let mut pes: Vec<StepPe<W>> = shares
            .into_iter()
            .enumerate()
            .map(|(me, list)| {
                let (pieces, acc, units) = unpack(list);
                let mut pool = Pool::new();
                for piece in pieces {
                    live += 1;
                    pool.push(piece, me);
                }
                StepPe {
                    piece: None,
                    pool,
                    machine: spec.machine(me, p),
                    inbox: VecDeque::new(),
                    acc,
                    stats: PeStats { pe: me, work_units: units, ..PeStats::default() },
                    decisions: Vec::new(),
                }
            })
            .collect();
        let mut hub: Hub<W> = spec.hub(p, |pe| !pes[pe].pool.is_empty());
        let mut steps = 0u64;
        // Every piece is counted from its split to its end: none is left
        // (held, pooled, in a message or at the hub) once the count is 0.
        while live > 0 {
            for me in 0..p {
                steps += 1;
                assert!(
                    steps <= self.max_steps,
                    "{} did not end within {} steps",
                    spec.strategy,
                    self.max_steps
                );
                step(&mut pes, &mut hub, &mut live, me, spec.budget.get());
            }
        }
        let mut output = W::Output::default();
        let mut stats = Vec::with_capacity(p);
        let mut decisions = Vec::with_capacity(p);
        for (me, pe) in pes.into_iter().enumerate() {
            output.merge(pe.acc);
            let mut s = pe.stats;
            s.add_tally(&pe.machine.tally());
            if me == 0 {
                s.add_tally(&hub.tally());
            }
            stats.push(s);
            decisions.push(pe.decisions);
        }
        Stepped { output, pes: stats, decisions, steps }
    }
}

/// One step of PE `me`.
fn step<W: Work>(pes: &mut [StepPe<W>], hub: &mut Hub<W>, live: &mut usize, me: usize, budget: u64) {
    if pes[me].piece.is_none()
        && let Some((piece, from)) = pes[me].pool.take()
    {
        if from != me {
            pes[me].stats.pieces_received += 1;
        }
        pes[me].piece = Some(piece);
    }
    if let Some(mut piece) = pes[me].piece.take() {
        let pe = &mut pes[me];
        let progress = piece.work(budget, &mut pe.acc);
        pe.stats.work_units += progress.used(budget);
        if progress.is_exhausted() {
            *live -= 1;
            feed(pes, hub, live, me, Event::Exhausted);
        } else {
            let wants = pes[me].machine.wants_slices();
            let load = piece.load();
            pes[me].piece = Some(piece);
            if wants {
                feed(pes, hub, live, me, Event::Slice { load });
            }
        }
    }
    while let Some(msg) = pes[me].inbox.pop_front() {
        let busy = pes[me].piece.is_some();
        let event = match msg {
            Msg::Request { from } => Event::Request { from, busy },
            Msg::Answer { from, piece } => {
                let work = piece.is_some();
                if let Some(piece) = piece {
                    pes[me].stats.pieces_received += 1;
                    if busy {
                        pes[me].pool.push(piece, from);
                    } else {
                        pes[me].piece = Some(piece);
                    }
                }
                Event::Answer { from, work }
            }
            Msg::Ticket(t) => Event::Ticket(t),
            Msg::MostLoaded(pe) => Event::MostLoaded(pe),
            Msg::LoadQuery { from } => Event::LoadQuery { from },
            Msg::Load { from, load } => Event::Load { from, load },
            Msg::Push { from, piece } => {
                pes[me].pool.push(piece, from);
                Event::Pushed { from }
            }
            Msg::Demand => Event::Demand { busy },
        };
        feed(pes, hub, live, me, event);
    }
    if pes[me].piece.is_none() && pes[me].pool.is_empty() {
        feed(pes, hub, live, me, Event::Idle { local_work: false });
    }
}

/// Feeds an event to PE `me`'s machine and carries out its actions.
fn feed<W: Work>(pes: &mut [StepPe<W>], hub: &mut Hub<W>, live: &mut usize, me: usize, event: Event) {
    let pe = &mut pes[me];
    let actions = decide(&mut pe.machine, event, Some(&mut pe.decisions));
    for action in actions.iter() {
        act(pes, hub, live, me, action);
    }
}

/// Splits PE `me`'s piece, if it has one; counts the split.
fn split_off<W: Work>(pe: &mut StepPe<W>, live: &mut usize) -> (Option<W>, u64) {
    let part = pe.piece.as_mut().and_then(Work::split);
    if part.is_some() {
        *live += 1;
        pe.stats.splits += 1;
        pe.stats.pieces_sent += 1;
    }
    (part, pe.piece.as_ref().map_or(0, Work::load))
}

fn act<W: Work>(pes: &mut [StepPe<W>], hub: &mut Hub<W>, live: &mut usize, me: usize, action: Action) {
    let mut from_hub = Vec::new();
    match action {
        Action::Request { to } => pes[to].inbox.push_back(Msg::Request { from: me }),
        Action::Refuse { to } => pes[to].inbox.push_back(Msg::Answer { from: me, piece: None }),
        Action::Give { to } => {
            let (part, load) = split_off(&mut pes[me], live);
            let given = part.is_some();
            pes[to].inbox.push_back(Msg::Answer { from: me, piece: part });
            feed(pes, hub, live, me, Event::Served { given, load });
        }
        Action::Push { to } => {
            let (part, load) = split_off(&mut pes[me], live);
            let given = part.is_some();
            if let Some(piece) = part {
                pes[to].inbox.push_back(Msg::Push { from: me, piece });
            }
            feed(pes, hub, live, me, Event::Served { given, load });
        }
        Action::Deposit => {
            let (part, load) = split_off(&mut pes[me], live);
            let given = part.is_some();
            if let Some(piece) = part {
                let part_load = piece.load();
                hub.on(HubEvent::Deposit { from: me, part: Some((piece, part_load)) }, &mut from_hub);
            }
            feed(pes, hub, live, me, Event::Served { given, load });
        }
        Action::NoPart => hub.on(HubEvent::Deposit { from: me, part: None }, &mut from_hub),
        Action::QueryLoad { to } => pes[to].inbox.push_back(Msg::LoadQuery { from: me }),
        Action::ReplyLoad { to } => {
            let load = pieces_held(pes[me].piece.is_some(), pes[me].pool.len());
            pes[to].inbox.push_back(Msg::Load { from: me, load });
        }
        Action::TakeTicket => hub.on(HubEvent::Ticket { from: me }, &mut from_hub),
        Action::QueryMostLoaded => hub.on(HubEvent::QueryMostLoaded { from: me }, &mut from_hub),
        Action::Report { load } => hub.on(HubEvent::Report { from: me, load }, &mut from_hub),
        Action::AskMaster => hub.on(HubEvent::Ask { from: me }, &mut from_hub),
    }
    for a in from_hub {
        match a {
            HubAction::Ticket { to, ticket } => pes[to].inbox.push_back(Msg::Ticket(ticket)),
            HubAction::MostLoaded { to, pe } => pes[to].inbox.push_back(Msg::MostLoaded(pe)),
            HubAction::Hand { to, piece } => {
                pes[to].inbox.push_back(Msg::Answer { from: 0, piece: Some(piece) })
            }
            HubAction::Demand { to } => pes[to].inbox.push_back(Msg::Demand),
        }
    }
}
