//! Young brothers wait across address spaces: the state one rank keeps for
//! the frames it shares with other ranks ([`Net`]), the wire form of a
//! stolen piece ([`StolenPiece`]) and the messages that carry values and
//! cutoffs between ranks ([`GameMessage`]).
//!
//! In one address space a piece reports to its shared frame through an
//! `Arc` and notices a cutoff above it by reading the `aborted` flags up
//! its chain of `Arc`s (see [`super::ybw`]). Across ranks neither pointer
//! exists, so:
//!
//! * **A piece given to another rank** carries its position, its window
//!   and a *remote link* ([`RemoteLink`]: the owner rank and the frame's
//!   id) instead of the `Arc`. The owner *registers* the frame: id → the
//!   frame and the ranks it gave children of it to (its *thieves*). Ids
//!   are a counter per rank that is never reused during a run, so a link
//!   names one frame.
//! * **On the thief's side** the link becomes a *proxy*: a shared frame
//!   with no children and only an `aborted` flag, at the top of the chain
//!   of every piece stolen from that frame, so the local protocol (chains
//!   of `Arc`s, `refuted`, urgency, local splits) runs unchanged below it.
//!   Pieces stolen from the same remote frame share one proxy.
//! * **A piece whose stack empties under a proxy** sends
//!   [`GameMessage::Result`] (the value and the nodes it expanded since it
//!   last reported) to the owner and ends. The owner applies it exactly as
//!   a local report: α rises, a value that reaches β cuts the frame off,
//!   the last report finishes it. What the local protocol hands the
//!   reporting piece — the next unstarted child, or the continuation of a
//!   finished frame — becomes a new piece on the *owner* ([`Net::receive`]
//!   returns it for the rank's pool): the owner holds the frame, its
//!   children and its continuation, and the thief asks for work again like
//!   any idle PE. A result for a frame that is no longer registered (it
//!   was finished, or cut off above) is discarded and its nodes counted as
//!   aborted.
//! * **A cutoff** anywhere on a rank (a local report or an applied result
//!   that reaches β) makes the rank look through its registry for frames
//!   whose chain of links is now refuted — the cut frame itself, and
//!   registered frames below it — and send [`GameMessage::Abort`] to each of
//!   their thieves, and unregister them. **An abort arriving** sets the
//!   proxy's flag (the pieces under it drop their stacks at their next
//!   slice) and runs the same look-up, so the abort travels down every chain
//!   of steals, one message per rank boundary. The rank remembers aborted
//!   links, so a piece that arrives after the abort of its link is dropped
//!   unworked.
//!
//! A frame is registered when a child of it is given away
//! ([`Net::export`]). If its chain is refuted by then (a cutoff above it
//! raced with the split, possible with several threads per rank), the
//! thief is sent an abort at once instead, so no stolen piece of a refuted
//! subtree goes unaborted.
//!
//! The runtime carries the messages: it takes them from
//! [`Net::take_outgoing`] after every slice and every poll, and hands
//! incoming ones to [`Net::receive`]. A `Result` may create work at its
//! receiver, so the runtime's termination detector must count it like a
//! piece of work (sent when sent, received when applied); an `Abort` never
//! creates work and needs only to be received before the processes end.
//! Why the search then returns the exact value and leaves no refuted
//! subtree running is explained in `docs/ybwc-mpi.md`.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use serde::{Deserialize, Serialize};

use super::ybw::{Shared, refuted};
use super::{Game, GameOutput, YbwWork};

/// A shared frame on some rank: its owner and its id there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RemoteLink {
    /// The rank that holds the frame.
    pub owner: usize,
    /// The frame's id on that rank (never 0).
    pub id: u64,
}

/// A message of a game search between ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GameMessage {
    /// The value of a child of the frame `link`, to its owner, with the
    /// nodes the sender expanded for it since it last reported.
    Result {
        /// The frame.
        link: RemoteLink,
        /// The child's value (from the child's side to move).
        value: i32,
        /// Nodes expanded for it, counted as aborted if it is discarded.
        nodes: u64,
    },
    /// The frame `link` was cut off: pieces under it are refuted.
    Abort {
        /// The frame.
        link: RemoteLink,
    },
}

impl GameMessage {
    /// Whether the runtime's termination detector must count the message
    /// like work: a result may create work where it arrives, an abort never.
    pub fn counted(&self) -> bool {
        matches!(self, GameMessage::Result { .. })
    }
}

/// A message to send: the destination rank and the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// The rank it goes to.
    pub to: usize,
    /// What it says.
    pub message: GameMessage,
}

/// The wire form of a piece given to another rank: one position to search
/// with its window under a remote frame.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StolenPiece<P> {
    /// The position.
    pub pos: P,
    /// The lower end of its window.
    pub alpha: i32,
    /// The upper end of its window.
    pub beta: i32,
    /// The frame whose child it is.
    pub link: RemoteLink,
    /// Whether young brothers wait for their eldest.
    pub ybw: bool,
    /// The piece's generation.
    pub generation: u32,
}

/// Why a piece cannot travel to another rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotStolen;

impl std::fmt::Display for NotStolen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("only a piece split off a shared frame travels between ranks")
    }
}

impl std::error::Error for NotStolen {}

/// Counters of the messages a rank sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetStats {
    /// Results sent.
    pub results: u64,
    /// Aborts sent.
    pub aborts: u64,
    /// Results received for frames no longer registered (discarded).
    pub discarded: u64,
}

/// What one rank knows of the frames it shares with other ranks (see the
/// module documentation). One per rank and search; the rank's threads
/// share it.
pub struct Net<P> {
    rank: usize,
    ybw: bool,
    state: Mutex<NetState<P>>,
}

struct Registered<P> {
    frame: Arc<Shared<P>>,
    /// Ranks given children of the frame; `None` among them: every other
    /// rank (a piece sent without a known destination).
    thieves: Vec<Option<usize>>,
}

struct NetState<P> {
    next_id: u64,
    registry: HashMap<u64, Registered<P>>,
    proxies: HashMap<RemoteLink, Weak<Shared<P>>>,
    aborted: HashSet<RemoteLink>,
    outgoing: Vec<Outgoing>,
    stats: NetStats,
    ranks: usize,
}

impl<P: Clone> Net<P> {
    /// The state of rank `rank` of `ranks` for one search, with young
    /// brothers waiting for their eldest (`ybw`) or not.
    pub fn new(rank: usize, ranks: usize, ybw: bool) -> Self {
        Net {
            rank,
            ybw,
            state: Mutex::new(NetState {
                next_id: 1,
                registry: HashMap::new(),
                proxies: HashMap::new(),
                aborted: HashSet::new(),
                outgoing: Vec::new(),
                stats: NetStats::default(),
                ranks,
            }),
        }
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    fn lock(&self) -> MutexGuard<'_, NetState<P>> {
        // A panic elsewhere stops the whole run; the state is not read again.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The messages sent so far, and results discarded.
    pub fn stats(&self) -> NetStats {
        self.lock().stats
    }

    /// Frames registered now (for tests: none is left after a search).
    pub fn registered(&self) -> usize {
        self.lock().registry.len()
    }

    /// Turns a piece split off for rank `to` (`None`: not known; aborts
    /// then go to every rank) into its wire form, registering its frame.
    pub fn export<G: Game<Position = P>>(
        &self,
        piece: YbwWork<'_, G>,
        to: Option<usize>,
    ) -> Result<StolenPiece<P>, NotStolen> {
        let ((pos, alpha, beta), frame, ybw, generation) = piece.into_stolen().ok_or(NotStolen)?;
        if frame.remote.is_some() {
            return Err(NotStolen);
        }
        let mut st = self.lock();
        let mut id = frame.id.load(Ordering::Acquire);
        if id == 0 {
            id = st.next_id;
            st.next_id += 1;
            frame.id.store(id, Ordering::Release);
        }
        let link = RemoteLink { owner: self.rank, id };
        if refuted(Some(&frame)) {
            // Cut off above (or at) the frame since the split: the thief
            // drops the piece when the abort arrives.
            st.registry.remove(&id);
            st.push_abort(self.rank, link, to);
        } else {
            let entry = st.registry.entry(id).or_insert_with(|| Registered { frame, thieves: Vec::new() });
            if !entry.thieves.contains(&to) {
                entry.thieves.push(to);
            }
        }
        Ok(StolenPiece { pos, alpha, beta, link, ybw, generation })
    }

    /// Rebuilds a piece that arrived from another rank, under the proxy of
    /// its link (dropped unworked if the link was aborted already).
    pub fn import<'g, G: Game<Position = P>>(&'g self, game: &'g G, wire: StolenPiece<P>) -> YbwWork<'g, G> {
        let StolenPiece { pos, alpha, beta, link, ybw, generation } = wire;
        let proxy = {
            let mut st = self.lock();
            let aborted = st.aborted.contains(&link);
            match st.proxies.get(&link).and_then(Weak::upgrade) {
                Some(p) => p,
                None => {
                    if st.proxies.len() >= 64 {
                        st.proxies.retain(|_, w| w.strong_count() > 0);
                    }
                    let p = Arc::new(Shared::proxy(link, pos.clone(), aborted));
                    st.proxies.insert(link, Arc::downgrade(&p));
                    p
                }
            }
        };
        YbwWork::linked(game, self, Some((pos, alpha, beta)), proxy, ybw, generation, 0)
    }

    /// Takes the messages to send (in the order they were made).
    pub fn take_outgoing(&self, out: &mut Vec<Outgoing>) {
        let mut st = self.lock();
        if !st.outgoing.is_empty() {
            out.append(&mut st.outgoing);
        }
    }

    /// Applies a message from another rank. A result may give this rank a
    /// new piece (the frame's next child, or its continuation), returned for
    /// the rank's pool; the root's value, if the result finishes the root
    /// frame, and nodes of discarded results go into `out`.
    pub fn receive<'g, G: Game<Position = P>>(
        &'g self,
        game: &'g G,
        message: GameMessage,
        out: &mut GameOutput,
    ) -> Option<YbwWork<'g, G>> {
        match message {
            GameMessage::Result { link, value, nodes } => {
                debug_assert_eq!(link.owner, self.rank, "a result for another rank's frame");
                let frame = {
                    let mut st = self.lock();
                    match st.registry.get(&link.id) {
                        Some(r) => Arc::clone(&r.frame),
                        None => {
                            st.stats.discarded += 1;
                            drop(st);
                            out.aborted_nodes += nodes;
                            return None;
                        }
                    }
                };
                let mut piece = YbwWork::linked(game, self, None, frame, self.ybw, 0, nodes);
                piece.deliver(value, out);
                piece.has_todo().then_some(piece)
            }
            GameMessage::Abort { link } => {
                let mut st = self.lock();
                st.aborted.insert(link);
                if let Some(proxy) = st.proxies.remove(&link).and_then(|w| w.upgrade()) {
                    proxy.aborted.store(true, Ordering::Release);
                }
                st.abort_refuted(self.rank);
                None
            }
        }
    }

    /// A piece under the proxy of `link` has the value `value` for it,
    /// after expanding `nodes` positions.
    pub(super) fn send_result(&self, link: RemoteLink, value: i32, nodes: u64) {
        let mut st = self.lock();
        st.stats.results += 1;
        st.outgoing.push(Outgoing { to: link.owner, message: GameMessage::Result { link, value, nodes } });
    }

    /// The shared frame `frame` of this rank was finished: unregister it
    /// and, if it was cut off, abort every refuted subtree on other ranks.
    pub(super) fn finished(&self, frame: &Shared<P>) {
        let id = frame.id.load(Ordering::Acquire);
        let cut = frame.aborted.load(Ordering::Acquire);
        if id == 0 && !cut {
            return;
        }
        let mut st = self.lock();
        if cut {
            st.abort_refuted(self.rank);
        }
        st.registry.remove(&id);
    }
}

impl<P> NetState<P> {
    /// Sends an abort of `link` to `to` (`None`: every other rank).
    fn push_abort(&mut self, rank: usize, link: RemoteLink, to: Option<usize>) {
        let targets: Vec<usize> = match to {
            Some(r) => vec![r],
            None => (0..self.ranks).filter(|&r| r != rank).collect(),
        };
        for to in targets {
            self.stats.aborts += 1;
            self.outgoing.push(Outgoing { to, message: GameMessage::Abort { link } });
        }
    }

    /// Aborts and unregisters every registered frame whose chain of links
    /// is refuted.
    fn abort_refuted(&mut self, rank: usize) {
        if self.registry.is_empty() {
            return;
        }
        let dead: Vec<u64> =
            self.registry.iter().filter(|(_, r)| refuted(Some(&r.frame))).map(|(&id, _)| id).collect();
        for id in dead {
            let r = self.registry.remove(&id).expect("listed");
            let link = RemoteLink { owner: rank, id };
            let mut all = false;
            for to in r.thieves {
                match to {
                    Some(to) => self.push_abort(rank, link, Some(to)),
                    None => all = true,
                }
            }
            if all {
                self.push_abort(rank, link, None);
            }
        }
    }
}
