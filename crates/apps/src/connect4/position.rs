//! A Connect Four position as two bitboards (Pons's encoding).
//!
//! The 7 × 6 board is stored column by column, 7 bits per column (6 cells
//! and one spare bit on top that keeps shifts from wrapping into the next
//! column): bit `7c + r` is row `r` (0 at the bottom) of column `c`.
//! `mask` has a bit for every stone, `current` for the stones of the side
//! to move. `current + mask` identifies the position uniquely (adding the
//! bottom row of `mask`'s columns sets the bit above each column's top
//! stone), in 49 bits.

use std::fmt;

/// Columns of the board.
pub const WIDTH: u32 = 7;
/// Rows of the board.
pub const HEIGHT: u32 = 6;
/// Cells of the board.
pub const CELLS: u32 = WIDTH * HEIGHT;

const BOTTOM: u64 = {
    let mut m = 0;
    let mut c = 0;
    while c < WIDTH {
        m |= 1 << (c * (HEIGHT + 1));
        c += 1;
    }
    m
};
const BOARD: u64 = BOTTOM * ((1 << HEIGHT) - 1);

/// The columns in the order moves are tried when their heuristic scores tie:
/// the centre first, then outwards (left before right).
pub const COLUMN_ORDER: [u32; WIDTH as usize] = [3, 2, 4, 1, 5, 0, 6];

/// The cells of column `col`.
#[inline]
pub const fn column_mask(col: u32) -> u64 {
    ((1 << HEIGHT) - 1) << (col * (HEIGHT + 1))
}

/// A position: the stones, whose turn it is, how many moves were played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Position {
    current: u64,
    mask: u64,
    moves: u32,
}

/// A move sequence that is not a Connect Four game in progress.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// A character that is not a column digit 1–7.
    #[error("move {0}: `{1}` is not a column (1 to 7)")]
    NotAColumn(usize, char),
    /// A move into a full column.
    #[error("move {0}: column {1} is full")]
    Full(usize, u32),
    /// A move after which the game is over (the position has no value to search).
    #[error("move {0}: column {1} wins the game, which is then over")]
    Over(usize, u32),
}

impl Position {
    /// The empty board, first player to move.
    pub fn new() -> Self {
        Position::default()
    }

    /// The position after the moves of `notation`: one digit per move, the
    /// column from 1 (left) to 7 (right), the first player first (`4453`).
    /// A sequence that fills a column past the top or contains a winning
    /// move (the game would be over) is refused, as by Pons's solver.
    ///
    /// ```
    /// use treelb_apps::connect4::Position;
    /// let p = Position::parse("4453").unwrap();
    /// assert_eq!(p.moves(), 4);
    /// assert!(Position::parse("4448").is_err());
    /// assert!(Position::parse("1212121").is_err()); // the 7th move wins
    /// ```
    pub fn parse(notation: &str) -> Result<Self, ParseError> {
        let mut p = Position::new();
        for (i, ch) in notation.chars().enumerate() {
            let col = match ch.to_digit(10) {
                Some(d @ 1..=7) => d - 1,
                _ => return Err(ParseError::NotAColumn(i + 1, ch)),
            };
            if !p.can_play(col) {
                return Err(ParseError::Full(i + 1, col + 1));
            }
            if p.is_winning_move(col) {
                return Err(ParseError::Over(i + 1, col + 1));
            }
            p.play_column(col);
        }
        Ok(p)
    }

    /// Moves played so far.
    #[inline]
    pub fn moves(&self) -> u32 {
        self.moves
    }

    /// A unique key of the position (49 bits).
    #[inline]
    pub fn key(&self) -> u64 {
        self.current + self.mask
    }

    /// Whether column `col` (0-based) has room.
    #[inline]
    pub fn can_play(&self, col: u32) -> bool {
        self.mask & (1 << (HEIGHT - 1 + col * (HEIGHT + 1))) == 0
    }

    /// Plays in column `col` (0-based), which must have room.
    #[inline]
    pub fn play_column(&mut self, col: u32) {
        self.play((self.mask + (1 << (col * (HEIGHT + 1)))) & column_mask(col));
    }

    /// Plays the move given as its one-bit cell.
    #[inline]
    pub fn play(&mut self, cell: u64) {
        self.current ^= self.mask;
        self.mask |= cell;
        self.moves += 1;
    }

    /// Whether playing column `col` (0-based) wins at once.
    #[inline]
    pub fn is_winning_move(&self, col: u32) -> bool {
        self.winning_cells() & self.possible() & column_mask(col) != 0
    }

    /// Whether the side to move can win at once.
    #[inline]
    pub fn can_win_next(&self) -> bool {
        self.winning_cells() & self.possible() != 0
    }

    /// The cells where a stone can be played now.
    #[inline]
    pub fn possible(&self) -> u64 {
        (self.mask + BOTTOM) & BOARD
    }

    /// The playable cells that do not let the opponent win at once (only the
    /// one forced move if the opponent threatens to win; none if it
    /// threatens twice), and never under an opponent's winning cell. Only
    /// for positions where the side to move cannot win at once.
    #[inline]
    pub fn non_losing_moves(&self) -> u64 {
        let mut possible = self.possible();
        let opponent_win = winning_cells(self.current ^ self.mask, self.mask);
        let forced = possible & opponent_win;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return 0;
            }
            possible = forced;
        }
        possible & !(opponent_win >> 1)
    }

    /// How good a move is for ordering: the number of winning cells (open
    /// threes) the side to move has after it.
    #[inline]
    pub fn move_score(&self, cell: u64) -> u32 {
        winning_cells(self.current | cell, self.mask).count_ones()
    }

    /// The empty cells that complete four of the side to move.
    #[inline]
    fn winning_cells(&self) -> u64 {
        winning_cells(self.current, self.mask)
    }
}

impl fmt::Display for Position {
    /// The board, top row first: `x` for the first player, `o` for the second.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let first = if self.moves.is_multiple_of(2) { self.current } else { self.current ^ self.mask };
        for r in (0..HEIGHT).rev() {
            for c in 0..WIDTH {
                let bit = 1 << (r + c * (HEIGHT + 1));
                let ch = if self.mask & bit == 0 {
                    '.'
                } else if first & bit != 0 {
                    'x'
                } else {
                    'o'
                };
                write!(f, "{ch}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// The empty cells where a stone of `position` would complete four in a row.
#[inline]
fn winning_cells(position: u64, mask: u64) -> u64 {
    let h = HEIGHT as u64 + 1;
    // Vertical: three stones below.
    let mut r = (position << 1) & (position << 2) & (position << 3);
    // Horizontal and both diagonals: shifts by h, h − 1 and h + 1.
    for s in [h, h - 1, h + 1] {
        let p = (position << s) & (position << (2 * s));
        r |= p & (position << (3 * s));
        r |= p & (position >> s);
        let p = (position >> s) & (position >> (2 * s));
        r |= p & (position << s);
        r |= p & (position >> (3 * s));
    }
    r & (BOARD ^ mask)
}
