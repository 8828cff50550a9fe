//! Sets of positions: files of positions with their known scores, random
//! positions for benchmarks, and scores in words.

use std::collections::HashSet;

use treelb::rng::SplitMix64;

use super::{Position, WIDTH};

/// A line of a positions file that does not read (its number counted from
/// 1).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BookError {
    /// The score after the position is not an integer.
    #[error("{line}: score `{score}` is not an integer")]
    BadScore {
        /// The line.
        line: usize,
        /// The score as written.
        score: String,
    },
    /// More than a position and a score on the line.
    #[error("{line}: unexpected `{extra}` after the score")]
    Extra {
        /// The line.
        line: usize,
        /// The first word after the score.
        extra: String,
    },
}

/// The positions of a positions file, each with its score if the file
/// gives one: a line holds `POSITION [SCORE]`; blank lines and lines
/// starting with `#` are skipped. The positions are not parsed.
///
/// ```
/// use treelb_apps::connect4::read_positions;
///
/// let text = "# Pons's test set\n2252576253462244111563365343671351441 -1\n\n4455\n";
/// let book = read_positions(text).unwrap();
/// assert_eq!(book, [("2252576253462244111563365343671351441".into(), Some(-1)), ("4455".into(), None)]);
/// assert_eq!(read_positions("44 x").unwrap_err().to_string(), "1: score `x` is not an integer");
/// ```
pub fn read_positions(text: &str) -> Result<Vec<(String, Option<i32>)>, BookError> {
    let mut positions = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        let pos = words.next().unwrap_or_default().to_owned();
        let score = match words.next() {
            Some(s) => {
                Some(s.parse::<i32>().map_err(|_| BookError::BadScore { line: i + 1, score: s.into() })?)
            }
            None => None,
        };
        if let Some(extra) = words.next() {
            return Err(BookError::Extra { line: i + 1, extra: extra.into() });
        }
        positions.push((pos, score));
    }
    Ok(positions)
}

/// The positions of a positions file ([`read_positions`]), each parsed,
/// with its score if the file gives one. An error starts with `name` (the
/// file as shown to the user) and the line of a score that does not read,
/// or the number of a position (counted from 1) that does not parse.
///
/// ```
/// use treelb_apps::connect4::parse_positions;
///
/// let positions = parse_positions("set.txt", "4453 -2\n44\n").unwrap();
/// assert_eq!((positions[0].0.as_str(), positions[0].2), ("4453", Some(-2)));
/// assert!(parse_positions("set.txt", "4\n48\n").unwrap_err().starts_with("set.txt:2: position `48`: "));
/// ```
pub fn parse_positions(name: &str, text: &str) -> Result<Vec<(String, Position, Option<i32>)>, String> {
    let positions = read_positions(text).map_err(|e| format!("{name}:{e}"))?;
    let parse = |(i, (text, score)): (usize, (String, Option<i32>))| match Position::parse(&text) {
        Ok(position) => Ok((text, position, score)),
        Err(e) => Err(format!("{name}:{}: position `{text}`: {e}", i + 1)),
    };
    positions.into_iter().enumerate().map(parse).collect()
}

/// Fewer distinct random positions than asked for turned up
/// ([`random_positions`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("found only {found} distinct positions of {moves} moves")]
pub struct TooFew {
    /// The distinct positions found.
    pub found: usize,
    /// Their number of moves.
    pub moves: u32,
}

/// `count` distinct random positions of `moves` moves, in their notation,
/// by a [`SplitMix64`] seeded with `seed`: uniformly random columns that
/// do not win (the game stays open), ending in a position where the side to
/// move cannot win at once. The iterator ends with a [`TooFew`] when
/// distinct positions stop turning up (after `1000 · count + 100000`
/// attempts in all).
///
/// ```
/// use treelb_apps::connect4::{Position, random_positions};
///
/// let found: Vec<String> = random_positions(5, 8, 1).collect::<Result<_, _>>().unwrap();
/// assert_eq!(found.len(), 5);
/// assert!(found.iter().all(|p| Position::parse(p).unwrap().moves() == 8));
/// assert!(random_positions(5, 0, 1).any(|p| p.is_err()));
/// ```
pub fn random_positions(count: u64, moves: u32, seed: u64) -> impl Iterator<Item = Result<String, TooFew>> {
    let mut rng = SplitMix64::new(seed);
    let mut seen = HashSet::new();
    let (mut attempts, mut failed) = (0u64, false);
    std::iter::from_fn(move || {
        while !failed && (seen.len() as u64) < count {
            attempts += 1;
            if attempts > count * 1000 + 100_000 {
                failed = true;
                return Some(Err(TooFew { found: seen.len(), moves }));
            }
            let mut p = Position::new();
            let mut text = String::new();
            let mut open = true;
            for _ in 0..moves {
                let cols: Vec<u32> = (0..WIDTH).filter(|&c| p.can_play(c) && !p.is_winning_move(c)).collect();
                if cols.is_empty() {
                    open = false;
                    break;
                }
                let c = cols[rng.below(cols.len() as u64) as usize];
                p.play_column(c);
                text.push(char::from(b'1' + c as u8));
            }
            if open && !p.can_win_next() && seen.insert(p.key()) {
                return Some(Ok(text));
            }
        }
        None
    })
}

/// What a score means, in words (with `weak`, a score is only its sign),
/// as a note to follow the score: ` (draw)`, ` (the side to move wins,
/// with its stone number 21)`.
///
/// ```
/// use treelb_apps::connect4::describe_score;
///
/// assert_eq!(describe_score(0, false), " (draw)");
/// assert_eq!(describe_score(1, false), " (the side to move wins, with its stone number 21)");
/// assert_eq!(describe_score(-1, true), " (the side to move loses)");
/// ```
pub fn describe_score(score: i32, weak: bool) -> String {
    match (score.signum(), weak) {
        (0, _) => " (draw)".into(),
        (1, true) => " (the side to move wins)".into(),
        (-1, true) => " (the side to move loses)".into(),
        (1, false) => format!(" (the side to move wins, with its stone number {})", 22 - score),
        _ => format!(" (the side to move loses, to the opponent's stone number {})", 22 + score),
    }
}
