//! The hub: the one structure of a run that some strategies need, as a
//! state machine like the PEs' own.
//!
//! * **global round robin** — the shared target counter: a ticket is the
//!   counter's value before an increment ([Lecture, load balancing]: "a global target
//!   variable");
//! * **max-load** — the heap of reported loads ([Loui & Sohoni 1989]: a shared max-heap
//!   `F`): reports set a PE's entry, a look-up returns the PE with the
//!   largest reported load;
//! * **master–worker** — the central pool and its waiting workers
//!   ([`Master`]).
//!
//! Drivers place the hub where their medium allows: on shared memory a lock
//! around it (and the counter as one atomic, which gives the same tickets);
//! over MPI at PE 0, which serves hub messages at its polls (the counter as
//! a one-sided MPI window); in the simulator at PE 0, every message to and
//! from it a message of the machine model.

use super::master::{Master, Order};
use super::maxload::LoadHeap;
use super::{Strategy, Tally};

/// A message to the hub.
#[derive(Debug, PartialEq, Eq)]
pub enum HubEvent<T> {
    /// Global round robin: PE `from` wants a ticket.
    Ticket {
        /// The asking PE.
        from: usize,
    },
    /// Max-load: PE `from` reports its load.
    Report {
        /// The reporting PE.
        from: usize,
        /// Its load.
        load: u64,
    },
    /// Max-load: PE `from` asks for the most loaded PE.
    QueryMostLoaded {
        /// The asking PE.
        from: usize,
    },
    /// Master–worker: worker `from` asks for a piece.
    Ask {
        /// The asking worker.
        from: usize,
    },
    /// Master–worker: worker `from` answers a demand with a part and its
    /// load, or with nothing.
    Deposit {
        /// The answering worker.
        from: usize,
        /// The part and its load.
        part: Option<(T, u64)>,
    },
}

/// What the hub asks its driver to send.
#[derive(Debug, PartialEq, Eq)]
pub enum HubAction<T> {
    /// The answer to [`HubEvent::Ticket`].
    Ticket {
        /// The PE that asked.
        to: usize,
        /// The ticket.
        ticket: u64,
    },
    /// The answer to [`HubEvent::QueryMostLoaded`].
    MostLoaded {
        /// The PE that asked.
        to: usize,
        /// The PE with the largest reported load, if any reports work.
        pe: Option<usize>,
    },
    /// Master–worker: hand `piece` to worker `to` (an answer with work).
    Hand {
        /// The worker.
        to: usize,
        /// The piece.
        piece: T,
    },
    /// Master–worker: ask worker `to` for a part.
    Demand {
        /// The worker.
        to: usize,
    },
}

/// The hub of a run: whichever of the counter, the load heap and the
/// central pool its strategy uses. `T` is the drivers' piece (a piece of
/// work, or its bytes on MPI).
///
/// ```
/// use treelb::strategy::{Hub, HubAction, HubEvent, Strategy};
/// let mut hub: Hub<()> = Hub::new(Strategy::MaxLoad, 4, |_| false);
/// let mut out = Vec::new();
/// hub.on(HubEvent::Report { from: 2, load: 9 }, &mut out);
/// hub.on(HubEvent::QueryMostLoaded { from: 0 }, &mut out);
/// assert_eq!(out, [HubAction::MostLoaded { to: 0, pe: Some(2) }]);
/// ```
#[derive(Debug)]
pub struct Hub<T> {
    counter: u64,
    heap: Option<LoadHeap>,
    master: Option<Master<T>>,
    closed: bool,
    tally: Tally,
}

impl<T> Hub<T> {
    /// The hub of a run of `p` PEs under `strategy`; `busy(pe)` says which
    /// PEs start with a piece (the master demands parts from them first).
    pub fn new(strategy: Strategy, p: usize, busy: impl Fn(usize) -> bool) -> Self {
        Hub {
            counter: 0,
            heap: (strategy == Strategy::MaxLoad).then(|| LoadHeap::new(p)),
            master: (strategy == Strategy::MasterWorker).then(|| Master::new(p, busy)),
            closed: false,
            tally: Tally::default(),
        }
    }

    /// Handles one message; appends what to send to `out`.
    pub fn on(&mut self, event: HubEvent<T>, out: &mut Vec<HubAction<T>>) {
        match event {
            HubEvent::Ticket { from } => {
                let ticket = self.counter;
                self.counter += 1;
                self.tally.messages += 1;
                out.push(HubAction::Ticket { to: from, ticket });
            }
            HubEvent::Report { from, load } => self.heap().set(from, load),
            HubEvent::QueryMostLoaded { from } => {
                let pe = self.heap().max().map(|(pe, _)| pe);
                self.tally.messages += 1;
                out.push(HubAction::MostLoaded { to: from, pe });
            }
            HubEvent::Ask { .. } if self.closed => {}
            HubEvent::Ask { from } => {
                let mut orders = Vec::new();
                self.master().ask(from, &mut orders);
                self.orders(orders, out);
            }
            HubEvent::Deposit { from, part } => {
                let mut orders = Vec::new();
                self.master().deposit(from, part, &mut orders);
                self.orders(orders, out);
            }
        }
    }

    fn orders(&mut self, orders: Vec<Order<T>>, out: &mut Vec<HubAction<T>>) {
        for order in orders {
            self.tally.messages += 1;
            out.push(match order {
                Order::Hand { to, piece } => HubAction::Hand { to, piece },
                Order::Demand { to } => HubAction::Demand { to },
            });
        }
    }

    fn heap(&mut self) -> &mut LoadHeap {
        self.heap.as_mut().expect("load reports go to a max-load hub")
    }

    fn master(&mut self) -> &mut Master<T> {
        self.master.as_mut().expect("workers ask a master–worker hub")
    }

    /// Pieces waiting in the central pool (master–worker; 0 otherwise): the
    /// hub holds work while this is positive.
    pub fn pooled(&self) -> usize {
        self.master.as_ref().map_or(0, Master::pooled)
    }

    /// Demands of the central pool sent and not answered yet: replies the
    /// hub is owed (master–worker; 0 otherwise).
    pub fn demands_out(&self) -> usize {
        self.master.as_ref().map_or(0, Master::demands_out)
    }

    /// Drops every piece of the central pool (a decision search is decided:
    /// the rest of the work is not needed); returns how many.
    pub fn discard_pooled(&mut self) -> usize {
        self.master.as_mut().map_or(0, Master::discard_pooled)
    }

    /// The run is over (termination was detected): from now on the hub
    /// answers look-ups and takes answers to its demands, but sends no
    /// demand and hands nothing out, so that the drivers' drains see no new
    /// message appear. A request for a piece is dropped.
    pub fn close(&mut self) {
        self.closed = true;
        if let Some(m) = &mut self.master {
            m.close();
        }
    }

    /// Operations on the load heap so far (max-load).
    pub fn heap_operations(&self) -> u64 {
        self.heap.as_ref().map_or(0, LoadHeap::operations)
    }

    /// The hub's own messages (answers, hands, demands), for PE 0's tally.
    pub fn tally(&self) -> Tally {
        self.tally
    }
}
