//! Game-tree search: the negamax value of a two-player zero-sum game by
//! alpha-beta pruning, sequentially ([`alpha_beta`]) and as a piece of work
//! that treelb's balancers share out under the young-brothers-wait concept
//! ([`YbwWork`], see the [`ybw`] module for the protocol).
//!
//! A game only says how a position expands ([`Game::expand`]): its value if
//! it is decided (a terminal position, or bounds that already settle the
//! window), otherwise its children ordered best-first by the game's own
//! heuristic, and the window narrowed by what the game knows (bounds of
//! the score, a transposition table). Values are from the side to move's
//! point of view (negamax): a child's value negated is the parent's value
//! of that move.
//!
//! Search results follow the fail-soft convention of the sequential
//! algorithm: a search of `p` with the window `(α, β)` returns `v` with
//!
//! * `v ≤ α` ⇒ the true value is at most `v` (fail low),
//! * `v ≥ β` ⇒ the true value is at least `v` (fail high),
//! * otherwise `v` is the true value.
//!
//! [`solve`] finds the exact value by a sequence of null-window searches
//! (`β = α + 1`), narrowing `[lo, hi]` with each answer, as Pons's Connect
//! Four solver does; any window search — sequential or parallel — can drive
//! it, and because every answer is a correct bound, every driver gives the
//! same exact value (the numbers of nodes differ).

pub mod remote;
pub mod ybw;

pub use remote::{GameMessage, Net, NetStats, Outgoing, RemoteLink, StolenPiece};
pub use ybw::{GameOutput, YbwWork};

use crate::Strategy;

/// The strategies a game search runs under: those where a PE gives work
/// only when an idle PE asks for it (not by pushing, through a hub, or
/// statically before any eldest brother has returned).
pub const STRATEGIES: [Strategy; 3] =
    [Strategy::RandomPolling, Strategy::GlobalRoundRobin, Strategy::AsyncRoundRobin];

/// What [`Game::expand`] found out about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expansion {
    /// The search of this position returns this value at once: the
    /// position is decided, or the game's bounds leave the window empty
    /// (then the value is such a bound, correct in the fail-soft sense).
    Value(i32),
    /// Search the children (pushed best-first, at least one) with this
    /// window, the given one narrowed by the game's bounds (`alpha < beta`).
    Search {
        /// The narrowed lower end of the window.
        alpha: i32,
        /// The narrowed upper end of the window.
        beta: i32,
    },
}

/// Which kind of bound a search result is, for [`Game::record`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true value is at least the recorded one (the search failed high).
    Lower,
    /// The true value is at most the recorded one (it failed low, or it is
    /// exact).
    Upper,
}

/// A two-player zero-sum game with perfect information, as the search sees it.
pub trait Game: Sync {
    /// A position: what must be stored to expand it later.
    type Position: Clone + Send;

    /// Expands `pos` for a search with the window `(alpha, beta)`, `alpha <
    /// beta`: either its value, or its children pushed onto `children`
    /// (empty on entry) best-first and the window to search them with.
    fn expand(
        &self,
        pos: &Self::Position,
        alpha: i32,
        beta: i32,
        children: &mut Vec<Self::Position>,
    ) -> Expansion;

    /// Learns the result of a finished search of `pos` (for a transposition
    /// table). The default forgets it.
    fn record(&self, _pos: &Self::Position, _value: i32, _bound: Bound) {}
}

/// Counters of a sequential search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeqStats {
    /// Positions expanded.
    pub nodes: u64,
}

/// Plain sequential alpha-beta (negamax, fail-soft) of `pos` with the window
/// `(alpha, beta)`, `alpha < beta`: the same node code and move order as the
/// parallel search, one position at a time. Recursive: the depth of the game
/// tree must fit on the stack.
///
/// ```
/// use treelb::game::{alpha_beta, Expansion, Game, SeqStats};
/// /// Nim with one heap: take 1 or 2; who cannot move loses (−1).
/// struct Nim;
/// impl Game for Nim {
///     type Position = u32;
///     fn expand(&self, &n: &u32, alpha: i32, beta: i32, c: &mut Vec<u32>) -> Expansion {
///         if n == 0 { return Expansion::Value(-1); }
///         c.extend((1..=2.min(n)).map(|k| n - k));
///         Expansion::Search { alpha, beta }
///     }
/// }
/// let mut stats = SeqStats::default();
/// // Multiples of 3 are lost for the side to move.
/// assert_eq!(alpha_beta(&Nim, &9, -1, 1, &mut stats), -1);
/// assert_eq!(alpha_beta(&Nim, &10, -1, 1, &mut stats), 1);
/// ```
pub fn alpha_beta<G: Game>(game: &G, pos: &G::Position, alpha: i32, beta: i32, stats: &mut SeqStats) -> i32 {
    let mut spare = Vec::new();
    search(game, pos, alpha, beta, stats, &mut spare)
}

/// [`alpha_beta`] with spare child lists: a list is taken from `spare` for
/// each expansion and put back when the position returns, so that the
/// search allocates only as many lists as the tree is deep — as the
/// parallel search's pieces keep theirs — and not one per position.
fn search<G: Game>(
    game: &G,
    pos: &G::Position,
    alpha: i32,
    beta: i32,
    stats: &mut SeqStats,
    spare: &mut Vec<Vec<G::Position>>,
) -> i32 {
    debug_assert!(alpha < beta);
    stats.nodes += 1;
    let mut children = spare.pop().unwrap_or_default();
    children.clear();
    let (mut alpha, beta) = match game.expand(pos, alpha, beta, &mut children) {
        Expansion::Value(v) => {
            spare.push(children);
            return v;
        }
        Expansion::Search { alpha, beta } => (alpha, beta),
    };
    for child in &children {
        let score = -search(game, child, -beta, -alpha, stats, spare);
        if score >= beta {
            game.record(pos, score, Bound::Lower);
            spare.push(children);
            return score;
        }
        alpha = alpha.max(score);
    }
    game.record(pos, alpha, Bound::Upper);
    spare.push(children);
    alpha
}

/// One window search of `pos` by the sequential [`alpha_beta`], as a
/// parallel search reports it: the value and the nodes (none aborted).
pub fn alpha_beta_output<G: Game>(game: &G, pos: &G::Position, alpha: i32, beta: i32) -> GameOutput {
    let mut stats = SeqStats::default();
    let value = alpha_beta(game, pos, alpha, beta, &mut stats);
    GameOutput { value: Some(value), nodes: stats.nodes, aborted_nodes: 0 }
}

/// The exact value in `[lo, hi]` by null-window searches: `search(α, β)`
/// must return a fail-soft result of a window search (any driver). The
/// tested value is the middle of the range, moved towards 0 (halfway to
/// the nearer end) as Pons's solver does, since most positions are close to
/// a draw and a test near 0 settles more of them.
///
/// ```
/// // The true value is 7; a search that answers exactly is enough.
/// let v = treelb::game::solve(-20, 20, |a, b| 7.clamp(a, b));
/// assert_eq!(v, 7);
/// ```
pub fn solve(mut lo: i32, mut hi: i32, mut search: impl FnMut(i32, i32) -> i32) -> i32 {
    while lo < hi {
        let mut med = lo + (hi - lo) / 2;
        if med <= 0 && lo / 2 < med {
            med = lo / 2;
        } else if med >= 0 && hi / 2 > med {
            med = hi / 2;
        }
        let r = search(med, med + 1);
        if r <= med {
            hi = r;
        } else {
            lo = r;
        }
    }
    lo
}

/// The value of a root whose value lies in `[−bound, bound]`, by the
/// window searches `search(α, β)` carries out (sequential or parallel):
/// with `null_windows` by [`solve`], else by one search of the window
/// `(−bound − 1, bound + 1)`. The output holds the value and the nodes of
/// all the searches.
///
/// ```
/// use treelb::game::{GameOutput, solve_root};
///
/// // The true value is 7; each search expands 10 nodes.
/// let exact = |a: i32, b: i32| GameOutput { value: Some(7.clamp(a, b)), nodes: 10, aborted_nodes: 0 };
/// let null = solve_root(20, true, exact);
/// assert_eq!(null.value, Some(7));
/// assert!(null.nodes > 10);
/// assert_eq!(solve_root(20, false, exact).nodes, 10);
/// ```
pub fn solve_root(
    bound: i32,
    null_windows: bool,
    mut search: impl FnMut(i32, i32) -> GameOutput,
) -> GameOutput {
    let (mut nodes, mut aborted_nodes) = (0, 0);
    let mut run = |a: i32, b: i32| {
        let o = search(a, b);
        nodes += o.nodes;
        aborted_nodes += o.aborted_nodes;
        o.value.expect("a finished search has the root's value")
    };
    let value = if null_windows { solve(-bound, bound, &mut run) } else { run(-bound - 1, bound + 1) };
    GameOutput { value: Some(value), nodes, aborted_nodes }
}

#[cfg(test)]
mod tests;
