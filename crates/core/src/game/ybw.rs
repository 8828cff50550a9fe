//! Parallel alpha-beta as a piece of work: [`YbwWork`], young brothers wait.
//!
//! # The protocol
//!
//! A piece searches its part of the game tree exactly as the sequential
//! [`alpha_beta`](super::alpha_beta) does, with an explicit stack of
//! *frames*: a frame is a position being searched, its window `(α, β)`,
//! its children best-first and how many of them were started. Every frame
//! but the top one has exactly one child in progress — the frame above it
//! (or, for the top frame, the next position the piece expands). One unit
//! of work is the expansion of one position.
//!
//! **Eldest brother.** When another PE asks for work, the piece gives away
//! an unstarted child of one of its frames — but only of a frame whose
//! eldest child (the first in the game's order) has returned its value.
//! Before that the frame's window is the one its parent gave; after it, α
//! has usually risen to the value of the best move (in a well-ordered tree
//! the eldest is the best), so the younger brothers are searched with the
//! window a sequential search would use for them, and most of them are cut
//! off quickly, as sequentially. A parallel search that gives younger
//! brothers away earlier searches them with a wider window and does work a
//! sequential search never does: that is the *search overhead* this rule
//! bounds. (`ybw = false` drops the rule, to measure what it buys.)
//!
//! **Urgency.** Of the frames whose young brothers may go, the piece gives
//! from the shallowest: first the shared frames up its chain of links (see
//! below; the one nearest the root first), then the lowest frame of its
//! stack, and of that frame the next child in the game's order. The shallowest frames are the ones on
//! the principal variation of the piece's subtree, whose values every
//! deeper frame waits for; a child given away from deep in the stack would
//! be small and likely cut off.
//!
//! **Shared frames and windows.** To give children of a frame away, the
//! piece turns the frame into a *shared frame* behind a lock (`Shared`):
//! the frame's window, its children and a count of the children in
//! progress, plus the frames below it in the stack (its ancestors), which
//! become the shared frame's *continuation*, and the shared frame the
//! piece reported to before (its *up* link). The piece keeps the frames
//! above — its child's subtree — and now reports to the shared frame. The
//! given child travels with the window `(−β, −α)` of the shared frame at
//! that moment and a link to it. A window taken early is at least as wide
//! as the frame's current one, and a fail-soft result of a wider window is
//! a correct bound for a narrower one, so no later update needs to reach
//! the stolen piece.
//!
//! **Values flow back.** A piece whose stack empties has the value of a
//! child of its shared frame and reports it under the frame's lock: the
//! frame's α rises as it would sequentially; if unstarted children remain,
//! the piece takes the next one with the current window and goes on. The
//! report that leaves the frame with no child unstarted and none in
//! progress — the *last* one — finishes the frame (its value is its α) and
//! the reporting piece takes over the continuation: the ancestors become
//! its stack, the up link its link, and it delivers the frame's value to
//! the top ancestor as a sequential search returns from a call. Each
//! frame is finished exactly once (its lock orders the reports; the count
//! reaches zero once), so every position's value is computed exactly once
//! and from all its children's values — as sequentially, which is why the
//! parallel search returns a correct value (the same exact value from
//! [`solve`](super::solve), though fail-soft bounds and node counts may
//! differ from the sequential ones).
//!
//! **Abort.** A report whose value reaches the shared frame's β cuts the
//! frame off at once: the frame's value is final (a fail-high bound needs
//! no other child), the reporting piece takes over the continuation as
//! above, and the frame is marked *aborted*. Its children in progress —
//! on this or other PEs — are refuted work: every piece checks, before each
//! slice of Δt units, whether its link or any shared frame up the chain of
//! links is aborted (the chain only runs through shared frames, at most one
//! per level of the tree), and if so drops its stack and ends. So a stolen
//! piece notices an abort within one slice of Δt nodes, and pieces stolen
//! from it notice the same abort through their chains. A report that
//! reaches a frame already finished is discarded. Nodes expanded since a
//! piece's last report that counted are added to
//! [`GameOutput::aborted_nodes`] when its work is dropped.
//!
//! **Which balancers.** A piece can give work only where the protocol
//! allows (an eldest brother known, a child unstarted), so its
//! [`split`](crate::Work::split) often answers `None`, and a split mutates
//! shared frames. That fits the receiver-initiated strategies — random
//! polling, global and asynchronous round robin — where a piece is split
//! only when an idle PE asks, and the answer "nothing to give" is part of
//! the protocol. The pushing strategies split busy pieces on their own
//! schedule, the static ones cut the root once before the run (when it is
//! atomic: no eldest brother has returned yet), the hub strategies keep
//! pieces in a central pool or heap by load, and selective initialization
//! splits copies of the root on every PE (copies of shared frames would
//! report twice): the `connect4` command refuses them in one line. Across
//! MPI ranks a value must flow back to a shared frame in another address
//! space: [`super::remote`] does it with messages (a stolen piece carries
//! its frame's owner rank and id; results and aborts are messages handled
//! at polls, results counted by the termination detector like work; a
//! proxy frame on the thief's side lets this protocol run unchanged below
//! it), designed and argued in `docs/ybwc-mpi.md`.
//!
//! **Termination.** Every piece ends (its work is finite, or it is
//! aborted); the root frame is finished by exactly one piece, which puts
//! the value into the output. The runtime's termination detection sees
//! the run end when every piece has ended, by which time the root value is
//! in one PE's output.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use super::remote::{Net, RemoteLink};
use super::{Bound, Expansion, Game};
use crate::{Progress, Reduce, Work};

/// The result of a game search, merged over PEs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GameOutput {
    /// The value of the root (fail-soft, for the root's window); `None`
    /// until the root frame is finished.
    pub value: Option<i32>,
    /// Positions expanded.
    pub nodes: u64,
    /// Positions expanded by pieces whose work was then thrown away: they
    /// were aborted by a cutoff above them, or their value reached a frame
    /// already cut off.
    pub aborted_nodes: u64,
}

impl Reduce for GameOutput {
    fn merge(&mut self, other: Self) {
        self.value = self.value.or(other.value);
        self.nodes += other.nodes;
        self.aborted_nodes += other.aborted_nodes;
    }
}

/// One position being searched: its window, its children best-first, and
/// how many of them were started.
struct Frame<P> {
    pos: P,
    alpha: i32,
    beta: i32,
    children: Vec<P>,
    next: usize,
}

impl<P: Clone> Clone for Frame<P> {
    fn clone(&self) -> Self {
        Frame {
            pos: self.pos.clone(),
            alpha: self.alpha,
            beta: self.beta,
            children: self.children.clone(),
            next: self.next,
        }
    }
}

/// A frame whose children are searched by several pieces (see the module
/// documentation), or the *proxy* of a frame on another rank
/// ([`super::remote`]).
pub(super) struct Shared<P> {
    /// The shared frame the piece that shared this one reported to.
    pub(super) up: Option<Arc<Shared<P>>>,
    /// Set when the frame is cut off: its children in progress are refuted.
    pub(super) aborted: AtomicBool,
    /// A proxy: the frame this one stands for, on another rank. A proxy has
    /// no children and is never finished here; a piece whose stack empties
    /// under it sends its value to the owner.
    pub(super) remote: Option<RemoteLink>,
    /// The id under which the frame is registered on its rank because a
    /// child of it went to another rank (0: not registered).
    pub(super) id: AtomicU64,
    state: Mutex<SharedState<P>>,
}

pub(super) struct SharedState<P> {
    frame: Frame<P>,
    /// Children started and not yet reported.
    in_progress: usize,
    /// The frame's value is known (every child reported, or a cutoff).
    finished: bool,
    /// The frames below it when it was shared, bottom first.
    continuation: Vec<Frame<P>>,
}

impl<P> Shared<P> {
    /// The proxy of the remote frame `link`, holding `pos` as a placeholder
    /// frame without children.
    pub(super) fn proxy(link: RemoteLink, pos: P, aborted: bool) -> Self {
        Shared {
            up: None,
            aborted: AtomicBool::new(aborted),
            remote: Some(link),
            id: AtomicU64::new(0),
            state: Mutex::new(SharedState {
                frame: Frame { pos, alpha: 0, beta: 1, children: Vec::new(), next: 0 },
                in_progress: 0,
                finished: false,
                continuation: Vec::new(),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, SharedState<P>> {
        // A panic elsewhere stops the whole run; the state is not read again.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Whether `link` or a shared frame up its chain was cut off.
pub(super) fn refuted<P>(mut link: Option<&Arc<Shared<P>>>) -> bool {
    while let Some(s) = link {
        if s.aborted.load(Ordering::Acquire) {
            return true;
        }
        link = s.up.as_ref();
    }
    false
}

/// Whether `piece` works under a frame that was cut off (for tests).
#[cfg(test)]
pub(super) fn tests_refuted<G: Game>(piece: &YbwWork<'_, G>) -> bool {
    refuted(piece.link.as_ref())
}

/// What a report to a shared frame tells the reporting piece.
enum Reply<P> {
    /// Search this child of the frame with this window next.
    Next(P, i32, i32),
    /// Nothing to do here: other children are in progress, or the frame
    /// was already finished (`discarded`).
    Done { discarded: bool },
    /// The frame is finished with this value: go on with its continuation.
    Continue { value: i32, stack: Vec<Frame<P>>, link: Option<Arc<Shared<P>>> },
}

/// A piece of a parallel alpha-beta search under young brothers wait (see
/// the module documentation for the protocol and why it is correct).
///
/// The root piece searches `root` with a window; [`GameOutput::value`] of
/// the run's merged output is the fail-soft value of that search, the
/// same bound a sequential [`alpha_beta`](super::alpha_beta) would give up
/// to fail-soft slack (the same exact value when the true value lies inside
/// the window).
pub struct YbwWork<'g, G: Game> {
    game: &'g G,
    /// The position to expand next, with its window.
    todo: Option<(G::Position, i32, i32)>,
    stack: Vec<Frame<G::Position>>,
    /// The shared frame the bottom of the stack reports to; `None`: the root.
    link: Option<Arc<Shared<G::Position>>>,
    /// Whether young brothers wait for their eldest (false: any unstarted
    /// child may be given away).
    ybw: bool,
    generation: u32,
    /// Nodes expanded since the last report that counted.
    unreported: u64,
    /// Spare child lists, so that an expansion allocates nothing.
    spare: Vec<Vec<G::Position>>,
    /// The rank's state when the search runs across ranks
    /// ([`super::remote`]); `None` in one address space.
    net: Option<&'g Net<G::Position>>,
}

impl<'g, G: Game> YbwWork<'g, G> {
    /// The search of `root` with the window `(alpha, beta)`, `alpha < beta`,
    /// with young brothers waiting for their eldest (`ybw`) or not.
    pub fn new(game: &'g G, root: G::Position, alpha: i32, beta: i32, ybw: bool) -> Self {
        assert!(alpha < beta, "empty window ({alpha}, {beta})");
        YbwWork {
            game,
            todo: Some((root, alpha, beta)),
            stack: Vec::new(),
            link: None,
            ybw,
            generation: 0,
            unreported: 0,
            spare: Vec::new(),
            net: None,
        }
    }

    /// The same search as [`YbwWork::new`], as the root piece of a search
    /// across ranks whose rank state is `net` (see [`super::remote`]).
    pub fn with_net(mut self, net: &'g Net<G::Position>) -> Self {
        self.net = Some(net);
        self
    }

    /// A piece that searches `todo` (if any) under the shared frame `link`
    /// with `unreported` nodes to account for: a piece that arrived from
    /// another rank, or one that applies a remote child's value.
    pub(super) fn linked(
        game: &'g G,
        net: &'g Net<G::Position>,
        todo: Option<(G::Position, i32, i32)>,
        link: Arc<Shared<G::Position>>,
        ybw: bool,
        generation: u32,
        unreported: u64,
    ) -> Self {
        YbwWork {
            game,
            todo,
            stack: Vec::new(),
            link: Some(link),
            ybw,
            generation,
            unreported,
            spare: Vec::new(),
            net: Some(net),
        }
    }

    /// Takes apart a piece split off for another rank: its position and
    /// window, its link, whether young brothers wait, its generation.
    /// `None` unless the piece is a fresh split-off one (one position to
    /// search, no frames, linked to a shared frame).
    #[allow(clippy::type_complexity)]
    pub(super) fn into_stolen(
        self,
    ) -> Option<((G::Position, i32, i32), Arc<Shared<G::Position>>, bool, u32)> {
        if !self.stack.is_empty() {
            return None;
        }
        Some((self.todo?, self.link?, self.ybw, self.generation))
    }

    /// Whether the piece holds something to search (for tests and the
    /// rank state).
    pub(super) fn has_todo(&self) -> bool {
        self.todo.is_some()
    }

    /// Expands the position `todo` holds.
    fn expand(&mut self, pos: G::Position, alpha: i32, beta: i32, out: &mut GameOutput) {
        out.nodes += 1;
        self.unreported += 1;
        let mut children = self.spare.pop().unwrap_or_default();
        children.clear();
        match self.game.expand(&pos, alpha, beta, &mut children) {
            Expansion::Value(v) => {
                self.spare.push(children);
                self.deliver(v, out);
            }
            Expansion::Search { alpha, beta } => {
                debug_assert!(alpha < beta && !children.is_empty());
                if children.is_empty() {
                    self.spare.push(children);
                    return self.deliver(alpha, out);
                }
                self.todo = Some((children[0].clone(), -beta, -alpha));
                self.stack.push(Frame { pos, alpha, beta, children, next: 1 });
            }
        }
    }

    /// Returns the value `v` of the child in progress of the top frame (or
    /// of the link, when the stack is empty), as a sequential search returns
    /// from a call, until there is a next position to expand or the piece
    /// has ended.
    pub(super) fn deliver(&mut self, mut v: i32, out: &mut GameOutput) {
        loop {
            if let Some(top) = self.stack.last_mut() {
                let score = -v;
                if score >= top.beta {
                    self.game.record(&top.pos, score, Bound::Lower);
                    v = score;
                } else {
                    top.alpha = top.alpha.max(score);
                    if top.next < top.children.len() {
                        let child = top.children[top.next].clone();
                        top.next += 1;
                        self.todo = Some((child, -top.beta, -top.alpha));
                        return;
                    }
                    self.game.record(&top.pos, top.alpha, Bound::Upper);
                    v = top.alpha;
                }
                let frame = self.stack.pop().expect("the top frame");
                self.spare.push(frame.children);
                continue;
            }
            let Some(link) = self.link.take() else {
                out.value = Some(v);
                self.unreported = 0;
                return;
            };
            if let Some(remote) = link.remote {
                // The frame is on another rank: the value goes there, unless
                // the frame is known to be cut off already.
                match self.net {
                    Some(net) if !link.aborted.load(Ordering::Acquire) => {
                        net.send_result(remote, v, self.unreported);
                    }
                    _ => out.aborted_nodes += self.unreported,
                }
                self.unreported = 0;
                return;
            }
            let reply = self.report(&link, v);
            if let (Some(net), Reply::Continue { .. }) = (self.net, &reply) {
                // The frame is finished: by a cutoff, whose refuted subtrees
                // on other ranks must hear of it, or by its last child.
                net.finished(&link);
            }
            match reply {
                Reply::Next(child, alpha, beta) => {
                    self.unreported = 0;
                    self.todo = Some((child, alpha, beta));
                    self.link = Some(link);
                    return;
                }
                Reply::Done { discarded } => {
                    if discarded {
                        out.aborted_nodes += self.unreported;
                    }
                    self.unreported = 0;
                    return;
                }
                Reply::Continue { value, stack, link } => {
                    self.unreported = 0;
                    self.stack = stack;
                    self.link = link;
                    v = value;
                }
            }
        }
    }

    /// Reports the value `v` of one child of the shared frame `link`.
    fn report(&self, link: &Arc<Shared<G::Position>>, v: i32) -> Reply<G::Position> {
        let mut guard = link.lock();
        let st = &mut *guard;
        if st.finished {
            return Reply::Done { discarded: true };
        }
        st.in_progress -= 1;
        let score = -v;
        let f = &mut st.frame;
        let value = if score >= f.beta {
            self.game.record(&f.pos, score, Bound::Lower);
            link.aborted.store(true, Ordering::Release);
            score
        } else {
            f.alpha = f.alpha.max(score);
            if f.next < f.children.len() {
                let child = f.children[f.next].clone();
                f.next += 1;
                let (alpha, beta) = (-f.beta, -f.alpha);
                st.in_progress += 1;
                return Reply::Next(child, alpha, beta);
            }
            if st.in_progress > 0 {
                return Reply::Done { discarded: false };
            }
            self.game.record(&f.pos, f.alpha, Bound::Upper);
            f.alpha
        };
        st.finished = true;
        Reply::Continue { value, stack: std::mem::take(&mut st.continuation), link: link.up.clone() }
    }

    /// Whether frame `f` may give a child away now.
    fn may_give(&self, f: &Frame<G::Position>) -> bool {
        let eldest_known = if self.ybw { f.next >= 2 } else { f.next >= 1 };
        eldest_known && f.next < f.children.len()
    }

    /// Makes frame `i` of the stack shared (see the module documentation).
    fn share(&mut self, i: usize) -> Arc<Shared<G::Position>> {
        let mut rest = self.stack.split_off(i);
        let continuation = std::mem::replace(&mut self.stack, rest.split_off(1));
        let frame = rest.pop().expect("frame i");
        let shared = Arc::new(Shared {
            up: self.link.take(),
            aborted: AtomicBool::new(false),
            remote: None,
            id: AtomicU64::new(0),
            state: Mutex::new(SharedState { frame, in_progress: 1, finished: false, continuation }),
        });
        self.link = Some(Arc::clone(&shared));
        shared
    }

    fn child_piece(&mut self, link: Arc<Shared<G::Position>>, todo: (G::Position, i32, i32)) -> Self {
        self.generation += 1;
        YbwWork {
            game: self.game,
            todo: Some(todo),
            stack: Vec::new(),
            link: Some(link),
            ybw: self.ybw,
            generation: self.generation,
            unreported: 0,
            spare: Vec::new(),
            net: self.net,
        }
    }
}

impl<G: Game> Clone for YbwWork<'_, G> {
    /// A copy of the piece. Only a piece that never split is an independent
    /// copy (a root before the run): a clone of a piece with shared frames
    /// would report to them twice. Runtimes clone pieces only for selective
    /// initialization, which a game search does not use.
    fn clone(&self) -> Self {
        YbwWork {
            game: self.game,
            todo: self.todo.clone(),
            stack: self.stack.clone(),
            link: self.link.clone(),
            ybw: self.ybw,
            generation: self.generation,
            unreported: self.unreported,
            spare: Vec::new(),
            net: self.net,
        }
    }
}

impl<G: Game> std::fmt::Debug for YbwWork<'_, G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("YbwWork")
            .field("frames", &self.stack.len())
            .field("linked", &self.link.is_some())
            .field("generation", &self.generation)
            .finish()
    }
}

impl<G: Game> Work for YbwWork<'_, G> {
    type Output = GameOutput;

    fn work(&mut self, budget: u64, acc: &mut GameOutput) -> Progress {
        if refuted(self.link.as_ref()) {
            acc.aborted_nodes += self.unreported;
            self.unreported = 0;
            self.todo = None;
            for frame in self.stack.drain(..) {
                self.spare.push(frame.children);
            }
            self.link = None;
            return Progress::Exhausted { used: 0 };
        }
        let mut left = budget;
        while left > 0 {
            let Some((pos, alpha, beta)) = self.todo.take() else {
                break;
            };
            self.expand(pos, alpha, beta, acc);
            left -= 1;
        }
        if self.todo.is_none() {
            debug_assert!(self.stack.is_empty());
            // Dropping the link can finish no frame: only reports do.
            self.link = None;
            Progress::Exhausted { used: budget - left }
        } else {
            Progress::Pending
        }
    }

    fn split(&mut self) -> Option<Self> {
        // The shallowest first: of the shared frames up the chain of links
        // (each nearer the root than the last), the topmost with an
        // unstarted child. Nothing under a frame that was cut off.
        let mut shallowest = None;
        let mut up = self.link.clone();
        while let Some(s) = up {
            if s.aborted.load(Ordering::Acquire) {
                return None;
            }
            let st = s.lock();
            if !st.finished && st.frame.next < st.frame.children.len() {
                drop(st);
                shallowest = Some(Arc::clone(&s));
            }
            up = s.up.clone();
        }
        if let Some(link) = shallowest {
            let mut guard = link.lock();
            let st = &mut *guard;
            let f = &mut st.frame;
            if !st.finished && f.next < f.children.len() {
                let child = f.children[f.next].clone();
                f.next += 1;
                let todo = (child, -f.beta, -f.alpha);
                st.in_progress += 1;
                drop(guard);
                return Some(self.child_piece(Arc::clone(&link), todo));
            }
        }
        let i = self.stack.iter().position(|f| self.may_give(f))?;
        let shared = self.share(i);
        let todo = {
            let mut guard = shared.lock();
            let st = &mut *guard;
            let f = &mut st.frame;
            let child = f.children[f.next].clone();
            f.next += 1;
            let todo = (child, -f.beta, -f.alpha);
            st.in_progress += 1;
            todo
        };
        Some(self.child_piece(shared, todo))
    }

    fn generation(&self) -> u32 {
        self.generation
    }

    fn load(&self) -> u64 {
        self.stack.iter().map(|f| (f.children.len() - f.next) as u64).sum()
    }
}
