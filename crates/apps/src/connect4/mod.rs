//! Connect Four (7 columns × 6 rows), solved exactly by alpha-beta.
//!
//! Scores follow Pascal Pons's solver (`PascalPons/connect4`,
//! `Solver::solve`): 0 for a draw; if the side to move wins, 22 minus the
//! number of its own stones on the board when it wins, counting the
//! winning one (a win at once from a position of `n` moves scores
//! `(7·6 + 1 − n) / 2`); if it loses, the negative of the opponent's score.
//! The sooner the win, the higher the score. The empty board scores 1: the
//! first player wins, with its last stone.
//!
//! The node code is Pons's: a position that can win at once has its score;
//! otherwise only moves that do not lose at once are searched, best-first
//! by the number of open threes they make (ties: centre columns first), the
//! window is narrowed by the bounds of any score still reachable and by a
//! transposition table of lower and upper bounds ([`Table`]), shared by all
//! PEs without locks ([`Connect4::new`]) or one per PE
//! ([`Connect4::per_pe`], as PEs in separate address spaces would have).

mod book;
mod position;
mod table;

pub use book::{BookError, TooFew, describe_score, parse_positions, random_positions, read_positions};
pub use position::{CELLS, COLUMN_ORDER, HEIGHT, ParseError, Position, WIDTH, column_mask};
pub use table::Table;

use treelb::game::{Bound, Expansion, Game, GameOutput, alpha_beta_output, solve};

/// A solved position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Solved {
    /// The exact score (with `weak`: its sign, 1 win, 0 draw, −1 loss).
    pub score: i32,
    /// A best move, as a column from 1 to 7; `None` on a full board (or
    /// when no best move was asked for).
    pub best_move: Option<u32>,
    /// Positions expanded, finding the score and the best move.
    pub nodes: u64,
    /// Of those, positions in subtrees a cutoff aborted (parallel searches).
    pub aborted_nodes: u64,
}

/// Connect Four as a [`Game`], with its transposition table(s).
#[derive(Debug)]
pub struct Connect4 {
    /// One table shared by all PEs, or one per PE.
    tables: Vec<Table>,
    /// Which PE runs on the calling thread (with one table per PE).
    pe: fn() -> Option<usize>,
}

impl Connect4 {
    /// The game with one transposition table of `2^log2_entries` entries (8
    /// bytes each), shared by all PEs.
    pub fn new(log2_entries: u32) -> Self {
        Connect4 { tables: vec![Table::new(log2_entries)], pe: || None }
    }

    /// The game with one table of `2^log2_entries` entries for each of `pes`
    /// PEs: the PE that expands a position (or reports a result) uses table
    /// `pe() mod pes`, where `pe` says which PE runs on the calling thread
    /// (table 0 outside a run, e.g. for [`Connect4::solve_sequential`]).
    /// A PE then learns nothing from what other PEs searched, as with
    /// tables in separate address spaces; every bound in any table is
    /// still correct, so values do not change, only nodes.
    ///
    /// ```
    /// use treelb_apps::connect4::{Connect4, Position};
    /// let game = Connect4::per_pe(16, 2, || None);
    /// assert_eq!(game.tables().len(), 2);
    /// let p = Position::parse("37475").unwrap();
    /// assert_eq!(game.solve_sequential(&p, false).score, -18);
    /// ```
    pub fn per_pe(log2_entries: u32, pes: usize, pe: fn() -> Option<usize>) -> Self {
        Connect4 { tables: (0..pes.max(1)).map(|_| Table::new(log2_entries)).collect(), pe }
    }

    /// The transposition table (the first one, with a table per PE).
    pub fn table(&self) -> &Table {
        &self.tables[0]
    }

    /// Every transposition table: one if shared, else one per PE.
    pub fn tables(&self) -> &[Table] {
        &self.tables
    }

    /// The table of the PE running on this thread.
    #[inline]
    fn table_here(&self) -> &Table {
        match self.tables.len() {
            1 => &self.tables[0],
            n => &self.tables[(self.pe)().unwrap_or(0) % n],
        }
    }

    /// The range of scores `[lo, hi]` the exact solve searches in: every
    /// score still possible, or `[−1, 1]` for `weak` (win, draw or loss).
    pub fn range(pos: &Position, weak: bool) -> (i32, i32) {
        if weak {
            return (-1, 1);
        }
        let n = pos.moves() as i32;
        (-(CELLS as i32 - n) / 2, (CELLS as i32 + 1 - n) / 2)
    }

    /// Solves `pos` exactly (or win/draw/loss with `weak`) by null-window
    /// searches that `search(position, α, β)` carries out — sequentially or
    /// in parallel — and finds a best move: the first candidate (see
    /// [`Connect4::candidate_columns`]) whose null-window test shows it
    /// reaches the score.
    pub fn solve_with(
        &self,
        pos: &Position,
        weak: bool,
        search: impl FnMut(&Position, i32, i32) -> GameOutput,
    ) -> Solved {
        self.solve_with_options(pos, weak, true, search)
    }

    /// [`Connect4::solve_with`], finding a best move only if `best_move`
    /// (without it, the searches are exactly those of Pons's solver for
    /// the score).
    pub fn solve_with_options(
        &self,
        pos: &Position,
        weak: bool,
        best_move: bool,
        mut search: impl FnMut(&Position, i32, i32) -> GameOutput,
    ) -> Solved {
        let (mut nodes, mut aborted_nodes) = (0, 0);
        let mut run = |p: &Position, a: i32, b: i32| {
            let out = search(p, a, b);
            nodes += out.nodes;
            aborted_nodes += out.aborted_nodes;
            out.value.expect("a finished search has the root's value")
        };
        let (lo, hi) = Self::range(pos, weak);
        let mut score = solve(lo, hi, |a, b| run(pos, a, b));
        if weak {
            score = score.signum();
        }
        if !best_move {
            return Solved { score, best_move: None, nodes, aborted_nodes };
        }
        let candidates = Self::candidate_columns(pos);
        let mut best_move = candidates.last().copied();
        if let [tried @ .., _] = candidates.as_slice() {
            for &c in tried {
                let mut child = *pos;
                child.play_column(c);
                // The move reaches `score` iff the child's value is at most −score.
                if run(&child, -score, -score + 1) <= -score {
                    best_move = Some(c);
                    break;
                }
            }
        }
        Solved { score, best_move: best_move.map(|c| c + 1), nodes, aborted_nodes }
    }

    /// [`Connect4::solve_with`] by the sequential alpha-beta
    /// ([`alpha_beta_output`]).
    ///
    /// ```
    /// use treelb_apps::connect4::{Connect4, Position};
    /// let game = Connect4::new(20);
    /// // Pons's test set: position, score.
    /// let p = Position::parse("2252576253462244111563365343671351441").unwrap();
    /// assert_eq!(game.solve_sequential(&p, false).score, -1);
    /// ```
    pub fn solve_sequential(&self, pos: &Position, weak: bool) -> Solved {
        self.solve_with(pos, weak, |p, a, b| alpha_beta_output(self, p, a, b))
    }

    /// The moves of `pos` (as columns 0–6) worth trying for the best move,
    /// best-first: the winning one if there is one, else the moves that do
    /// not lose at once in search order, else every legal move.
    pub fn candidate_columns(pos: &Position) -> Vec<u32> {
        if let Some(c) = COLUMN_ORDER.iter().copied().find(|&c| pos.can_play(c) && pos.is_winning_move(c)) {
            return vec![c];
        }
        let possible = pos.non_losing_moves();
        let mut moves = ordered_moves(pos, possible);
        if moves.is_empty() {
            moves = COLUMN_ORDER.iter().copied().filter(|&c| pos.can_play(c)).collect();
        }
        moves
    }
}

/// The columns whose cell is in `possible`, best-first: by move score,
/// descending, ties in [`COLUMN_ORDER`].
fn ordered_moves(pos: &Position, possible: u64) -> Vec<u32> {
    let mut scored: Vec<(u32, u32)> = COLUMN_ORDER
        .iter()
        .filter_map(|&c| {
            let cell = possible & column_mask(c);
            (cell != 0).then(|| (pos.move_score(cell), c))
        })
        .collect();
    scored.sort_by_key(|s| std::cmp::Reverse(s.0)); // stable: ties keep the column order
    scored.into_iter().map(|(_, c)| c).collect()
}

impl Game for Connect4 {
    type Position = Position;

    fn expand(
        &self,
        pos: &Position,
        mut alpha: i32,
        mut beta: i32,
        children: &mut Vec<Position>,
    ) -> Expansion {
        let n = pos.moves() as i32;
        let cells = CELLS as i32;
        if pos.can_win_next() {
            return Expansion::Value((cells + 1 - n) / 2);
        }
        let possible = pos.non_losing_moves();
        if possible == 0 {
            return Expansion::Value(-(cells - n) / 2);
        }
        if n >= cells - 2 {
            return Expansion::Value(0);
        }
        // The opponent cannot win at once: at best it wins with its next-but-one move.
        let min = -(cells - 2 - n) / 2;
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return Expansion::Value(alpha);
            }
        }
        // We cannot win at once: at best with our next-but-one move.
        let max = (cells - 1 - n) / 2;
        if beta > max {
            beta = max;
            if alpha >= beta {
                return Expansion::Value(beta);
            }
        }
        match self.table_here().get(pos.key()) {
            Some((v, Bound::Lower)) if alpha < v => {
                alpha = v;
                if alpha >= beta {
                    return Expansion::Value(alpha);
                }
            }
            Some((v, Bound::Upper)) if beta > v => {
                beta = v;
                if alpha >= beta {
                    return Expansion::Value(beta);
                }
            }
            _ => {}
        }
        let mut scored = [(0u32, 0u64); WIDTH as usize];
        let mut k = 0;
        for &c in &COLUMN_ORDER {
            let cell = possible & column_mask(c);
            if cell != 0 {
                // Insertion sort, descending by score, ties in column order.
                let s = pos.move_score(cell);
                let mut i = k;
                while i > 0 && scored[i - 1].0 < s {
                    scored[i] = scored[i - 1];
                    i -= 1;
                }
                scored[i] = (s, cell);
                k += 1;
            }
        }
        children.extend(scored[..k].iter().map(|&(_, cell)| {
            let mut child = *pos;
            child.play(cell);
            child
        }));
        Expansion::Search { alpha, beta }
    }

    fn record(&self, pos: &Position, value: i32, bound: Bound) {
        self.table_here().put(pos.key(), value, bound);
    }
}

#[cfg(test)]
mod tests;
