//! A deterministic driver that steps every PE in turn on one thread: the
//! reference for what the strategy machines decide when nothing about
//! timing varies.
//!
//! Each PE is a [`Pe`]; the stepper is its transport. Messages wait in
//! per-PE FIFO queues; a step of a PE is one slice of Δt units followed by
//! every message waiting for it and, if it is then without work, one
//! [`Event::Idle`](super::Event::Idle); the hub answers at once. A run is a
//! function of the spec and the work alone, so its decisions — every action each PE's machine returned —
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

use crate::pe::{Message, Pe, Transmit};
use crate::spec::unpack;
use crate::{PeStats, Reduce, RunSpec, Work};

use super::{Decision, Hub, HubAction};

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

/// The stepper's medium: a FIFO queue of messages per PE, and the hub.
struct Medium<W: Work> {
    inbox: Vec<VecDeque<Message<W>>>,
    hub: Hub<W>,
    /// Pieces in existence: split off and not yet exhausted.
    live: usize,
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
        let mut pes: Vec<Pe<W>> = shares
            .into_iter()
            .enumerate()
            .map(|(me, list)| {
                let (pieces, acc, units) = unpack(list);
                live += pieces.len();
                let mut pe = Pe::new(me, spec.machine(me, p), pieces, acc, units);
                pe.record_decisions();
                pe
            })
            .collect();
        let hub: Hub<W> = spec.hub(p, |pe| pes[pe].pooled() > 0);
        let mut medium = Medium { inbox: (0..p).map(|_| VecDeque::new()).collect(), hub, live };
        let mut steps = 0u64;
        // Every piece is counted from its split to its end: none is left
        // (held, pooled, in a message or at the hub) once the count is 0.
        while medium.live > 0 {
            for pe in &mut pes {
                steps += 1;
                assert!(
                    steps <= self.max_steps,
                    "{} did not end within {} steps",
                    spec.strategy,
                    self.max_steps
                );
                medium.step(pe, spec.budget.get());
            }
        }
        let mut output = W::Output::default();
        let mut stats = Vec::with_capacity(p);
        let mut decisions = Vec::with_capacity(p);
        for pe in pes {
            let me = pe.me();
            let done = pe.finish();
            output.merge(done.output);
            let mut s = done.stats;
            if me == 0 {
                s.add_tally(&medium.hub.tally());
            }
            stats.push(s);
            decisions.push(done.decisions);
        }
        Stepped { output, pes: stats, decisions, steps }
    }
}

impl<W: Work> Medium<W> {
    /// One step of a PE: a slice, every message waiting for it, and "idle"
    /// if it is then without work.
    fn step(&mut self, pe: &mut Pe<W>, budget: u64) {
        let me = pe.me();
        let splits = pe.stats().splits;
        if pe.work(budget).is_some_and(|p| p.is_exhausted()) {
            self.live -= 1;
        }
        self.deliver(pe);
        while let Some(message) = self.inbox[me].pop_front() {
            pe.handle(message);
            self.deliver(pe);
        }
        pe.idle(false);
        self.deliver(pe);
        self.live += (pe.stats().splits - splits) as usize;
    }

    /// Carries out what the PE has to send, in order: a message into its
    /// receiver's queue; one to the hub handled at once, the hub's answers
    /// into their receivers' queues.
    fn deliver(&mut self, pe: &mut Pe<W>) {
        let mut from_hub: Vec<HubAction<W>> = Vec::new();
        while let Some(t) = pe.poll_transmit() {
            match t {
                Transmit::Pe { to, message } => self.inbox[to].push_back(message),
                Transmit::Hub(event) => {
                    self.hub.on(event, &mut from_hub);
                    for a in from_hub.drain(..) {
                        let (to, message) = Message::from_hub(a);
                        self.inbox[to].push_back(message);
                    }
                }
            }
        }
    }
}
