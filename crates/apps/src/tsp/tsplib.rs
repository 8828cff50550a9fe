//! The TSPLIB 95 format of symmetric travelling salesman instances, with
//! TSPLIB's own distance functions and rounding rules, and its tour files.
//!
//! Supported: `TYPE: TSP`; `EDGE_WEIGHT_TYPE` `EXPLICIT` (with
//! `EDGE_WEIGHT_FORMAT` `FULL_MATRIX`, `UPPER_ROW`, `LOWER_ROW`,
//! `UPPER_DIAG_ROW`, `LOWER_DIAG_ROW`, `UPPER_COL`, `LOWER_COL`,
//! `UPPER_DIAG_COL`, `LOWER_DIAG_COL`), `EUC_2D`, `EUC_3D`, `CEIL_2D`,
//! `MAN_2D`, `MAN_3D`, `MAX_2D`, `MAX_3D`, `GEO` and `ATT`; the sections
//! `NODE_COORD_SECTION`, `EDGE_WEIGHT_SECTION`, `DISPLAY_DATA_SECTION`
//! (read and checked, not used) and `FIXED_EDGES_SECTION` (edges every tour
//! must contain). Header lines are `KEY : VALUE` (spaces around the colon
//! optional). A coordinate section has one node per line, `N X Y` (`N X Y
//! Z` in 3-D), as every TSPLIB file writes it, so that a line short of a
//! number is reported as such; the numbers of the other sections may be
//! spread over lines in any way. `GEO` coordinates are checked: latitudes
//! within ±90, longitudes within ±180 (`DDD.MM`), minutes below 60.
//!
//! The file is read as bytes: a `COMMENT` may hold any (a byte that is not
//! UTF-8 becomes U+FFFD there; elsewhere it fails its line), and a byte
//! order mark at the start is skipped. Every malformed input is a
//! [`TsplibError`] naming its line; the input it quotes is escaped and cut
//! short ([`crate::input::quote`]). A line may hold at most
//! [`MAX_LINE_BYTES`](crate::input::MAX_LINE_BYTES) (1 MiB), the whole
//! input at most [`MAX_INPUT_BYTES`] (1 GiB), a tour [`MAX_TOUR_BYTES`]
//! (64 MiB).
//!
//! The distance functions (TSPLIB 95, §2.1–2.6), with `nint(x) = ⌊x + 0.5⌋`:
//!
//! * `EUC_2D`, `EUC_3D`: `nint(√(dx² + dy² [+ dz²]))`; `CEIL_2D`: `⌈√(dx² + dy²)⌉`;
//! * `MAN_*`: `nint(|dx| + |dy| [+ |dz|])`; `MAX_*`: `max(nint(|dx|), nint(|dy|) [, nint(|dz|)])`;
//! * `GEO`: coordinates are `DDD.MM` (degrees and minutes); with
//!   `PI = 3.141592`, a coordinate `x` is the angle
//!   `PI · (deg + 5·(x − deg)/3) / 180` where `deg` is `x` truncated towards
//!   zero (the reference code's `(int) x`; the published optima depend on
//!   it), and the distance is
//!   `(int)(RRR · acos(½((1 + q1)·q2 − (1 − q1)·q3)) + 1)` with
//!   `RRR = 6378.388`, `q1 = cos(lon_i − lon_j)`, `q2 = cos(lat_i − lat_j)`,
//!   `q3 = cos(lat_i + lat_j)`;
//! * `ATT` (pseudo-Euclidean): `r = √((dx² + dy²)/10)`, `t = nint(r)`, the
//!   distance is `t + 1` if `t < r`, else `t`.

use std::fmt;
use std::io::BufRead;
use std::path::Path;

use serde::Serialize;

use super::{Tsp, find};
use crate::input::{self, LimitError, quote};

/// The largest `DIMENSION` accepted (the distance matrix has `n²` entries).
pub const MAX_DIMENSION: usize = 4096;

/// The largest TSPLIB instance read, in bytes: 1 GiB. The largest explicit
/// matrices of TSPLIB take a few megabytes, and a `FULL_MATRIX` of
/// [`MAX_DIMENSION`] nodes about 200 MB even with 13-digit weights; a larger
/// input is refused ([`LimitError::InputTooLarge`]) before it fills the
/// memory.
pub const MAX_INPUT_BYTES: u64 = 1 << 30;

/// The largest TSPLIB tour read, in bytes: 64 MiB (a tour of
/// [`MAX_DIMENSION`] nodes takes about 20 KB).
pub const MAX_TOUR_BYTES: u64 = 64 << 20;

/// How edge weights are given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EdgeWeightType {
    /// Listed in an `EDGE_WEIGHT_SECTION`.
    Explicit,
    /// Euclidean in the plane, rounded to the nearest integer.
    Euc2d,
    /// Euclidean in space, rounded to the nearest integer.
    Euc3d,
    /// Euclidean in the plane, rounded up.
    Ceil2d,
    /// Manhattan in the plane.
    Man2d,
    /// Manhattan in space.
    Man3d,
    /// Maximum metric in the plane.
    Max2d,
    /// Maximum metric in space.
    Max3d,
    /// Geographical distance on the idealised Earth.
    Geo,
    /// Pseudo-Euclidean (the `att` instances).
    Att,
}

impl EdgeWeightType {
    const NAMES: [(&'static str, EdgeWeightType); 10] = [
        ("EXPLICIT", EdgeWeightType::Explicit),
        ("EUC_2D", EdgeWeightType::Euc2d),
        ("EUC_3D", EdgeWeightType::Euc3d),
        ("CEIL_2D", EdgeWeightType::Ceil2d),
        ("MAN_2D", EdgeWeightType::Man2d),
        ("MAN_3D", EdgeWeightType::Man3d),
        ("MAX_2D", EdgeWeightType::Max2d),
        ("MAX_3D", EdgeWeightType::Max3d),
        ("GEO", EdgeWeightType::Geo),
        ("ATT", EdgeWeightType::Att),
    ];

    /// The TSPLIB keyword.
    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, t)| *t == self).map(|(n, _)| *n).unwrap_or("?")
    }

    /// The number of coordinates per node (0 for explicit weights).
    pub fn dimensions(self) -> usize {
        match self {
            EdgeWeightType::Explicit => 0,
            EdgeWeightType::Euc3d | EdgeWeightType::Man3d | EdgeWeightType::Max3d => 3,
            _ => 2,
        }
    }

    /// The distance between two nodes by TSPLIB's rules.
    ///
    /// ```
    /// use treelb_apps::tsp::EdgeWeightType;
    /// assert_eq!(EdgeWeightType::Euc2d.distance([0.0, 0.0, 0.0], [1.0, 1.0, 0.0]), 1); // nint(1.414)
    /// assert_eq!(EdgeWeightType::Ceil2d.distance([0.0, 0.0, 0.0], [1.0, 1.0, 0.0]), 2);
    /// assert_eq!(EdgeWeightType::Att.distance([0.0, 0.0, 0.0], [10.0, 0.0, 0.0]), 4); // √10 = 3.16 → 4
    /// ```
    pub fn distance(self, a: [f64; 3], b: [f64; 3]) -> i64 {
        self.distance_f64(a, b) as i64
    }

    /// [`EdgeWeightType::distance`] before the conversion to an integer: a
    /// whole number, or infinite or NaN where the coordinates are too far
    /// apart (the conversion would saturate).
    pub fn distance_f64(self, a: [f64; 3], b: [f64; 3]) -> f64 {
        let nint = |x: f64| (x + 0.5).floor();
        let (dx, dy, dz) = (a[0] - b[0], a[1] - b[1], a[2] - b[2]);
        match self {
            EdgeWeightType::Explicit => panic!("explicit weights have no distance function"),
            EdgeWeightType::Euc2d => nint((dx * dx + dy * dy).sqrt()),
            EdgeWeightType::Euc3d => nint((dx * dx + dy * dy + dz * dz).sqrt()),
            EdgeWeightType::Ceil2d => (dx * dx + dy * dy).sqrt().ceil(),
            EdgeWeightType::Man2d => nint(dx.abs() + dy.abs()),
            EdgeWeightType::Man3d => nint(dx.abs() + dy.abs() + dz.abs()),
            EdgeWeightType::Max2d => nint(dx.abs()).max(nint(dy.abs())),
            EdgeWeightType::Max3d => nint(dx.abs()).max(nint(dy.abs())).max(nint(dz.abs())),
            EdgeWeightType::Att => {
                let r = ((dx * dx + dy * dy) / 10.0).sqrt();
                let t = nint(r);
                if t < r { t + 1.0 } else { t }
            }
            EdgeWeightType::Geo => {
                // TSPLIB's truncated π, on purpose: the published optima use it.
                #[allow(clippy::approx_constant)]
                const PI: f64 = 3.141592;
                const RRR: f64 = 6378.388;
                let radians = |x: f64| {
                    let deg = x.trunc();
                    let min = x - deg;
                    PI * (deg + 5.0 * min / 3.0) / 180.0
                };
                let (lat_a, lon_a, lat_b, lon_b) =
                    (radians(a[0]), radians(a[1]), radians(b[0]), radians(b[1]));
                let q1 = (lon_a - lon_b).cos();
                let q2 = (lat_a - lat_b).cos();
                let q3 = (lat_a + lat_b).cos();
                let d = RRR * (0.5 * ((1.0 + q1) * q2 - (1.0 - q1) * q3)).acos() + 1.0;
                // As the reference's `(int)`: truncated, and 0 where acos
                // of a rounded 1 + ε is NaN.
                if d.is_nan() { 0.0 } else { d.trunc() }
            }
        }
    }
}

impl fmt::Display for EdgeWeightType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How an `EDGE_WEIGHT_SECTION` lists the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EdgeWeightFormat {
    /// No section: weights come from a distance function.
    Function,
    /// The whole matrix, row by row.
    FullMatrix,
    /// The upper triangle without the diagonal, row by row.
    UpperRow,
    /// The lower triangle without the diagonal, row by row.
    LowerRow,
    /// The upper triangle with the diagonal, row by row.
    UpperDiagRow,
    /// The lower triangle with the diagonal, row by row.
    LowerDiagRow,
    /// The upper triangle without the diagonal, column by column.
    UpperCol,
    /// The lower triangle without the diagonal, column by column.
    LowerCol,
    /// The upper triangle with the diagonal, column by column.
    UpperDiagCol,
    /// The lower triangle with the diagonal, column by column.
    LowerDiagCol,
}

impl EdgeWeightFormat {
    const NAMES: [(&'static str, EdgeWeightFormat); 10] = [
        ("FUNCTION", EdgeWeightFormat::Function),
        ("FULL_MATRIX", EdgeWeightFormat::FullMatrix),
        ("UPPER_ROW", EdgeWeightFormat::UpperRow),
        ("LOWER_ROW", EdgeWeightFormat::LowerRow),
        ("UPPER_DIAG_ROW", EdgeWeightFormat::UpperDiagRow),
        ("LOWER_DIAG_ROW", EdgeWeightFormat::LowerDiagRow),
        ("UPPER_COL", EdgeWeightFormat::UpperCol),
        ("LOWER_COL", EdgeWeightFormat::LowerCol),
        ("UPPER_DIAG_COL", EdgeWeightFormat::UpperDiagCol),
        ("LOWER_DIAG_COL", EdgeWeightFormat::LowerDiagCol),
    ];

    /// The TSPLIB keyword.
    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, t)| *t == self).map(|(n, _)| *n).unwrap_or("?")
    }

    /// The entries `(i, j)` of the matrix in the order the section lists
    /// them, for `n` nodes.
    pub fn entries(self, n: usize) -> Vec<(usize, usize)> {
        let mut e = Vec::new();
        // Row-wise upper triangle = column-wise lower triangle of the
        // transpose, which is the same matrix: the column formats are the
        // row formats of the other triangle.
        let (upper, diag) = match self {
            EdgeWeightFormat::Function => return e,
            EdgeWeightFormat::FullMatrix => {
                return (0..n).flat_map(|i| (0..n).map(move |j| (i, j))).collect();
            }
            EdgeWeightFormat::UpperRow | EdgeWeightFormat::LowerCol => (true, false),
            EdgeWeightFormat::LowerRow | EdgeWeightFormat::UpperCol => (false, false),
            EdgeWeightFormat::UpperDiagRow | EdgeWeightFormat::LowerDiagCol => (true, true),
            EdgeWeightFormat::LowerDiagRow | EdgeWeightFormat::UpperDiagCol => (false, true),
        };
        for i in 0..n {
            let columns =
                if upper { (if diag { i } else { i + 1 })..n } else { 0..(if diag { i + 1 } else { i }) };
            e.extend(columns.map(|j| (i, j)));
        }
        e
    }
}

impl fmt::Display for EdgeWeightFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a TSPLIB file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TsplibError {
    /// The file could not be read.
    #[error("cannot read the instance: {0}")]
    Io(#[from] std::io::Error),
    /// A line longer than [`MAX_LINE_BYTES`](crate::input::MAX_LINE_BYTES),
    /// or an input larger than [`MAX_INPUT_BYTES`].
    #[error(transparent)]
    Limit(#[from] LimitError),
    /// A line that is no known keyword.
    #[error(
        "line {line}: expected a TSPLIB keyword (NAME, TYPE, DIMENSION, EDGE_WEIGHT_TYPE, …, a section or EOF), found `{found}`"
    )]
    UnknownKeyword {
        /// The 1-based line number.
        line: usize,
        /// The offending line, as [`quote`] shows it.
        found: String,
    },
    /// A keyword with a value that cannot be used.
    #[error("line {line}: expected {expected} after {keyword}, found `{found}`")]
    BadValue {
        /// The 1-based line number.
        line: usize,
        /// The keyword.
        keyword: &'static str,
        /// What was expected.
        expected: &'static str,
        /// The value found, as [`quote`] shows it.
        found: String,
    },
    /// A valid TSPLIB value this solver does not handle.
    #[error("line {line}: {keyword} {found} is not supported (expected {expected})")]
    Unsupported {
        /// The 1-based line number.
        line: usize,
        /// The keyword.
        keyword: &'static str,
        /// What is supported.
        expected: &'static str,
        /// The value found, as [`quote`] shows it.
        found: String,
    },
    /// A keyword or section given twice.
    #[error("line {line}: {keyword} given a second time")]
    Duplicate {
        /// The 1-based line number.
        line: usize,
        /// The keyword.
        keyword: &'static str,
    },
    /// A section before the header says what it needs.
    #[error("line {line}: expected {needed} before {section}")]
    SectionTooEarly {
        /// The 1-based line number.
        line: usize,
        /// The section.
        section: &'static str,
        /// The keyword that must come first.
        needed: &'static str,
    },
    /// A token in a section that is not the number expected.
    #[error("line {line}: expected {expected} in {section}, found `{found}`")]
    BadNumber {
        /// The 1-based line number.
        line: usize,
        /// The section.
        section: &'static str,
        /// What was expected.
        expected: &'static str,
        /// The token found, as [`quote`] shows it.
        found: String,
    },
    /// A line of a coordinate section that is not one node, `N X Y` (or
    /// `N X Y Z`).
    #[error("line {line}: expected a node line `{pattern}` in {section}, found `{found}` ({why})")]
    BadNodeLine {
        /// The 1-based line number.
        line: usize,
        /// The section.
        section: &'static str,
        /// The line expected: `N X Y` or `N X Y Z`.
        pattern: &'static str,
        /// The line found, as [`quote`] shows it.
        found: String,
        /// What is wrong: too few or too many numbers.
        why: &'static str,
    },
    /// A section that ended before all its data.
    #[error("line {line}: expected {expected} more number(s) in {section}, found {found}")]
    SectionTooShort {
        /// The 1-based line number where the data ended.
        line: usize,
        /// The section.
        section: &'static str,
        /// How many numbers were still expected.
        expected: usize,
        /// What came instead: a line in backticks, as [`quote`] shows it,
        /// or "the end of the input".
        found: String,
    },
    /// A coordinate section with another number of nodes than `DIMENSION`.
    #[error("line {line}: {section} lists {found} nodes, but DIMENSION is {dimension}{detail}")]
    NodeCount {
        /// The 1-based line where the difference shows.
        line: usize,
        /// The section.
        section: &'static str,
        /// `DIMENSION`.
        dimension: usize,
        /// The nodes the section lists.
        found: usize,
        /// What stood where the next node was due, if the section is
        /// short (`` (found `EOF` where node 10 was due)``), else empty.
        detail: String,
    },
    /// A node number outside `1..=DIMENSION`.
    #[error("line {line}: expected a node number between 1 and {n} in {section}, found {node}")]
    NodeOutOfRange {
        /// The 1-based line number.
        line: usize,
        /// The section.
        section: &'static str,
        /// The node number found.
        node: i64,
        /// The dimension.
        n: usize,
    },
    /// A node listed twice in a coordinate section.
    #[error("line {line}: node {node} listed a second time in {section}")]
    DuplicateNode {
        /// The 1-based line number.
        line: usize,
        /// The section.
        section: &'static str,
        /// The node number.
        node: usize,
    },
    /// An asymmetric full matrix.
    #[error("line {line}: expected a symmetric matrix, but d({i},{j}) = {dij} and d({j},{i}) = {dji}")]
    Asymmetric {
        /// The line of the later of the two entries.
        line: usize,
        /// First node (1-based).
        i: usize,
        /// Second node (1-based).
        j: usize,
        /// `d(i, j)`.
        dij: i64,
        /// `d(j, i)`.
        dji: i64,
    },
    /// A fixed edge that no tour can contain.
    #[error("line {line}: the fixed edge {a}–{b} {why}")]
    BadFixedEdge {
        /// The 1-based line number.
        line: usize,
        /// First node (1-based).
        a: i64,
        /// Second node (1-based).
        b: i64,
        /// Why it is impossible.
        why: &'static str,
    },
    /// A required keyword or section that never came.
    #[error("line {line}: expected {what} in the instance, but the input ended without it")]
    Missing {
        /// The line where the input ended (`EOF`, or the line after the
        /// last).
        line: usize,
        /// The keyword or section.
        what: &'static str,
    },
    /// A distance too large for the search's sums (from coordinates too
    /// far apart, or an explicit weight).
    #[error(
        "line {line}: the distance between nodes {i} and {j} is {distance:e}, too large (at most {max} in \
         absolute value)",
        max = super::MAX_DISTANCE
    )]
    TooLarge {
        /// The line of the later of the two nodes' coordinates, or of the
        /// weight.
        line: usize,
        /// First node (1-based).
        i: usize,
        /// Second node (1-based).
        j: usize,
        /// The distance.
        distance: f64,
    },
}

/// A number token of a section: its line, and where it lies on the line
/// read last (`Lines::current`).
struct Token {
    line: usize,
    at: std::ops::Range<usize>,
}

/// Line-by-line reader that hands out the whitespace-separated tokens of
/// sections and whole lines for the header.
struct Lines<R> {
    lines: input::Lines<R>,
    /// The section line read last, whose tokens are `pending`.
    current: Vec<u8>,
    /// Tokens left on `current`, in order.
    pending: std::collections::VecDeque<Token>,
    /// The line number of the last line read.
    line: usize,
    /// A line pushed back for the header parser.
    pushed: Option<(usize, Vec<u8>)>,
}

impl<R: BufRead> Lines<R> {
    /// The lines of an instance of at most `limit` bytes.
    fn new(reader: R, limit: u64) -> Self {
        Lines {
            lines: input::Lines::new(reader, limit, "a TSPLIB instance"),
            current: Vec::new(),
            pending: Default::default(),
            line: 0,
            pushed: None,
        }
    }

    /// The next line, with its number.
    fn next_line(&mut self) -> Result<Option<(usize, Vec<u8>)>, TsplibError> {
        if let Some(p) = self.pushed.take() {
            return Ok(Some(p));
        }
        let Some((line, text)) = self.lines.next_line::<TsplibError>()? else {
            return Ok(None);
        };
        self.line = line;
        Ok(Some((line, text.to_vec())))
    }

    /// The next line of a section that is not blank, read into `current`,
    /// with its number: `None` at the end of the input or at a line that
    /// starts with a letter (a keyword), which is pushed back.
    fn section_line(&mut self) -> Result<Option<usize>, TsplibError> {
        loop {
            let line = match self.pushed.take() {
                Some((line, text)) => {
                    self.current = text;
                    line
                }
                None => match self.lines.next_line::<TsplibError>()? {
                    Some((line, text)) => {
                        self.line = line;
                        self.current.clear();
                        self.current.extend_from_slice(text);
                        line
                    }
                    None => return Ok(None),
                },
            };
            let trimmed = input::trim(&self.current);
            if trimmed.is_empty() {
                continue;
            }
            if trimmed[0].is_ascii_alphabetic() {
                self.pushed = Some((line, std::mem::take(&mut self.current)));
                return Ok(None);
            }
            return Ok(Some(line));
        }
    }

    /// The next number token of a section: `None` at the end of the input or
    /// at a line that starts with a letter (a keyword), which is pushed back.
    fn token(&mut self) -> Result<Option<Token>, TsplibError> {
        loop {
            if let Some(t) = self.pending.pop_front() {
                return Ok(Some(t));
            }
            let Some(line) = self.section_line()? else {
                return Ok(None);
            };
            self.pending.extend(input::field_ranges(&self.current).map(|at| Token { line, at }));
        }
    }

    /// The bytes of a token.
    fn text(&self, token: &Token) -> &[u8] {
        &self.current[token.at.clone()]
    }

    /// The line where the data ended (for "too short" errors).
    fn here(&self) -> (usize, String) {
        match &self.pushed {
            Some((line, text)) => (*line, format!("`{}`", quote(input::trim(text)))),
            None => (self.line + 1, "the end of the input".to_owned()),
        }
    }

    /// After a section: tokens left on its last line are an error.
    fn finish_section(&mut self, section: &'static str) -> Result<(), TsplibError> {
        match self.pending.pop_front() {
            None => Ok(()),
            Some(t) => Err(TsplibError::BadNumber {
                line: t.line,
                section,
                expected: "the end of the section",
                found: quote(self.text(&t)),
            }),
        }
    }
}

/// Whether `text` reads as a line of a coordinate section (its first
/// token a node number).
fn is_node_line(text: &[u8]) -> bool {
    input::fields(text).next().is_some_and(|t| input::number::<u64>(t).is_some())
}

/// A number of a section, parsed.
fn number<T: std::str::FromStr>(
    lines: &mut Lines<impl BufRead>,
    section: &'static str,
    expected: &'static str,
    remaining: usize,
) -> Result<(T, usize), TsplibError> {
    let Some(token) = lines.token()? else {
        let (line, found) = lines.here();
        return Err(TsplibError::SectionTooShort { line, section, expected: remaining, found });
    };
    let text = lines.text(&token);
    match input::number(text) {
        Some(v) => Ok((v, token.line)),
        None => Err(TsplibError::BadNumber { line: token.line, section, expected, found: quote(text) }),
    }
}

/// Everything the header and sections said, before the instance is built.
#[derive(Default)]
struct Parsed {
    name: Option<String>,
    comment: Option<String>,
    dimension: Option<usize>,
    weight_type: Option<EdgeWeightType>,
    weight_format: Option<EdgeWeightFormat>,
    coords: Option<(Vec<[f64; 3]>, Vec<usize>)>,
    matrix: Option<Vec<i64>>,
    /// The last line read: where a missing keyword or section was due.
    end: usize,
    fixed: Vec<(u32, u32)>,
    display: bool,
    type_seen: bool,
    /// The coordinate section that the previous line ended, and its
    /// `DIMENSION`: a node line right after it is one node too many.
    after_coords: Option<(&'static str, usize)>,
}

/// Parses a TSPLIB instance from a string.
///
/// ```
/// use treelb_apps::tsp::tsplib;
/// let text = "NAME: square\nTYPE: TSP\nDIMENSION: 4\nEDGE_WEIGHT_TYPE: EUC_2D\n\
///             NODE_COORD_SECTION\n1 0 0\n2 0 3\n3 4 3\n4 4 0\nEOF\n";
/// let tsp = tsplib::parse_str(text)?;
/// assert_eq!(tsp.n(), 4);
/// assert_eq!(tsp.dist(0, 2), 5);
/// assert_eq!(tsp.tour_length(&[0, 1, 2, 3]), Some(14));
/// let bad = tsplib::parse_str("DIMENSION: 4\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 0 x\n");
/// assert_eq!(
///     bad.unwrap_err().to_string(),
///     "line 5: expected a coordinate in NODE_COORD_SECTION, found `x`"
/// );
/// # Ok::<(), tsplib::TsplibError>(())
/// ```
pub fn parse_str(text: &str) -> Result<Tsp, TsplibError> {
    parse(text.as_bytes())
}

/// Reads a TSPLIB instance from a file.
pub fn read_file(path: impl AsRef<Path>) -> Result<Tsp, TsplibError> {
    parse(std::io::BufReader::new(std::fs::File::open(path)?))
}

/// Splits a header line into its keyword and value: `KEY : VALUE`,
/// `KEY: VALUE`, `KEY :VALUE`, or a bare `KEY` (sections, `EOF`).
fn keyword(text: &[u8]) -> (&[u8], &[u8]) {
    let text = input::trim(text);
    let end =
        (0..text.len()).find(|&i| text[i] == b':' || input::space_len(&text[i..]) > 0).unwrap_or(text.len());
    let (key, rest) = text.split_at(end);
    let rest = input::trim_start(rest);
    let value = input::trim(rest.strip_prefix(b":").unwrap_or(rest));
    (key, value)
}

/// Parses a TSPLIB instance from a reader.
pub fn parse(reader: impl BufRead) -> Result<Tsp, TsplibError> {
    parse_within(reader, MAX_INPUT_BYTES)
}

/// [`parse`] with a limit of `limit` bytes on the input.
fn parse_within(reader: impl BufRead, limit: u64) -> Result<Tsp, TsplibError> {
    let mut lines = Lines::new(reader, limit);
    let mut p = Parsed::default();
    let mut ended = false;
    while let Some((line, text)) = lines.next_line()? {
        p.end = line;
        if input::trim(&text).is_empty() {
            continue;
        }
        let after_coords = p.after_coords.take();
        let (key, raw_value) = keyword(&text);
        // Keywords are ASCII: one that is not UTF-8 is no keyword.
        let key = std::str::from_utf8(key).unwrap_or("\u{fffd}");
        let value_text = String::from_utf8_lossy(raw_value);
        let value: &str = &value_text;
        let bad = |keyword: &'static str, expected: &'static str| TsplibError::BadValue {
            line,
            keyword,
            expected,
            found: quote(raw_value),
        };
        match key {
            "EOF" => {
                ended = true;
                break;
            }
            "NAME" => p.name = Some(value.to_owned()),
            "COMMENT" => {
                let c = p.comment.get_or_insert_with(String::new);
                if !c.is_empty() {
                    c.push_str("; ");
                }
                c.push_str(value);
            }
            "TYPE" => {
                if p.type_seen {
                    return Err(TsplibError::Duplicate { line, keyword: "TYPE" });
                }
                p.type_seen = true;
                let kind = value.split_whitespace().next().unwrap_or("");
                match kind {
                    "TSP" => {}
                    "ATSP" | "SOP" | "HCP" | "CVRP" | "TOUR" => {
                        return Err(TsplibError::Unsupported {
                            line,
                            keyword: "TYPE",
                            expected: "TSP, a symmetric travelling salesman instance",
                            found: quote(raw_value),
                        });
                    }
                    _ => return Err(bad("TYPE", "TSP")),
                }
            }
            "DIMENSION" => {
                if p.dimension.is_some() {
                    return Err(TsplibError::Duplicate { line, keyword: "DIMENSION" });
                }
                let n: usize = value.parse().map_err(|_| bad("DIMENSION", "the number of nodes"))?;
                if n == 0 || n > MAX_DIMENSION {
                    return Err(bad("DIMENSION", "a number of nodes between 1 and 4096"));
                }
                p.dimension = Some(n);
            }
            "EDGE_WEIGHT_TYPE" => {
                if p.weight_type.is_some() {
                    return Err(TsplibError::Duplicate { line, keyword: "EDGE_WEIGHT_TYPE" });
                }
                let found = EdgeWeightType::NAMES.iter().find(|(n, _)| *n == value).map(|(_, t)| *t);
                p.weight_type = Some(found.ok_or_else(|| match value {
                    "XRAY1" | "XRAY2" | "SPECIAL" => TsplibError::Unsupported {
                        line,
                        keyword: "EDGE_WEIGHT_TYPE",
                        expected: "EXPLICIT, EUC_2D, EUC_3D, CEIL_2D, MAN_2D, MAN_3D, MAX_2D, MAX_3D, GEO or ATT",
                        found: quote(raw_value),
                    },
                    _ => bad(
                        "EDGE_WEIGHT_TYPE",
                        "EXPLICIT, EUC_2D, EUC_3D, CEIL_2D, MAN_2D, MAN_3D, MAX_2D, MAX_3D, GEO or ATT",
                    ),
                })?);
            }
            "EDGE_WEIGHT_FORMAT" => {
                if p.weight_format.is_some() {
                    return Err(TsplibError::Duplicate { line, keyword: "EDGE_WEIGHT_FORMAT" });
                }
                let found = EdgeWeightFormat::NAMES.iter().find(|(n, _)| *n == value).map(|(_, t)| *t);
                p.weight_format = Some(found.ok_or_else(|| {
                    bad(
                        "EDGE_WEIGHT_FORMAT",
                        "FUNCTION, FULL_MATRIX or a triangular format such as UPPER_ROW",
                    )
                })?);
            }
            "NODE_COORD_TYPE" => {
                if !["TWOD_COORDS", "THREED_COORDS", "NO_COORDS"].contains(&value) {
                    return Err(bad("NODE_COORD_TYPE", "TWOD_COORDS, THREED_COORDS or NO_COORDS"));
                }
            }
            "DISPLAY_DATA_TYPE" => {
                if !["COORD_DISPLAY", "TWOD_DISPLAY", "NO_DISPLAY"].contains(&value) {
                    return Err(bad("DISPLAY_DATA_TYPE", "COORD_DISPLAY, TWOD_DISPLAY or NO_DISPLAY"));
                }
            }
            "EDGE_DATA_FORMAT" | "CAPACITY" => {
                return Err(TsplibError::Unsupported {
                    line,
                    keyword: if key == "CAPACITY" { "CAPACITY" } else { "EDGE_DATA_FORMAT" },
                    expected: "the keywords of a complete symmetric TSP",
                    found: quote(raw_value),
                });
            }
            "NODE_COORD_SECTION" => {
                const S: &str = "NODE_COORD_SECTION";
                let n = p.dimension.ok_or(TsplibError::SectionTooEarly {
                    line,
                    section: S,
                    needed: "DIMENSION",
                })?;
                if p.coords.is_some() {
                    return Err(TsplibError::Duplicate { line, keyword: S });
                }
                let weight_type = p.weight_type.ok_or(TsplibError::SectionTooEarly {
                    line,
                    section: S,
                    needed: "EDGE_WEIGHT_TYPE",
                })?;
                // EXPLICIT instances may carry (2-D) coordinates too.
                let dims = weight_type.dimensions().max(2);
                let geo = weight_type == EdgeWeightType::Geo;
                p.coords = Some(coordinates(&mut lines, S, n, dims, geo)?);
                p.after_coords = Some((S, n));
            }
            "DISPLAY_DATA_SECTION" => {
                const S: &str = "DISPLAY_DATA_SECTION";
                let n = p.dimension.ok_or(TsplibError::SectionTooEarly {
                    line,
                    section: S,
                    needed: "DIMENSION",
                })?;
                if p.display {
                    return Err(TsplibError::Duplicate { line, keyword: S });
                }
                p.display = true;
                coordinates(&mut lines, S, n, 2, false)?;
                p.after_coords = Some((S, n));
            }
            "EDGE_WEIGHT_SECTION" => {
                const S: &str = "EDGE_WEIGHT_SECTION";
                let n = p.dimension.ok_or(TsplibError::SectionTooEarly {
                    line,
                    section: S,
                    needed: "DIMENSION",
                })?;
                let format = p.weight_format.ok_or(TsplibError::SectionTooEarly {
                    line,
                    section: S,
                    needed: "EDGE_WEIGHT_FORMAT",
                })?;
                if format == EdgeWeightFormat::Function {
                    return Err(bad("EDGE_WEIGHT_FORMAT", "a matrix format for an EDGE_WEIGHT_SECTION"));
                }
                if p.matrix.is_some() {
                    return Err(TsplibError::Duplicate { line, keyword: S });
                }
                p.matrix = Some(matrix(&mut lines, format, n)?);
            }
            "FIXED_EDGES_SECTION" => {
                const S: &str = "FIXED_EDGES_SECTION";
                let n = p.dimension.ok_or(TsplibError::SectionTooEarly {
                    line,
                    section: S,
                    needed: "DIMENSION",
                })?;
                p.fixed = fixed_edges(&mut lines, n)?;
            }
            "TOUR_SECTION" | "DEPOT_SECTION" | "DEMAND_SECTION" | "EDGE_DATA_SECTION" => {
                return Err(TsplibError::Unsupported {
                    line,
                    keyword: "section",
                    expected: "the sections of a symmetric TSP",
                    found: key.to_owned(),
                });
            }
            _ => {
                if let Some((section, dimension)) = after_coords.filter(|_| is_node_line(&text)) {
                    // More nodes than DIMENSION: count them all.
                    let mut found = dimension + 1;
                    while let Some((_, next)) = lines.next_line()? {
                        if !is_node_line(&next) {
                            break;
                        }
                        found += 1;
                    }
                    return Err(TsplibError::NodeCount {
                        line,
                        section,
                        dimension,
                        found,
                        detail: String::new(),
                    });
                }
                return Err(TsplibError::UnknownKeyword { line, found: quote(input::trim(&text)) });
            }
        }
    }
    if !ended {
        // The input ended without EOF: what is missing was due after its
        // last line.
        p.end += 1;
    }
    build(p)
}

/// Reads `n` lines `i x y [z]` of a coordinate section: the coordinates
/// and the line of each node. `geo`: the coordinates are `GEO` latitudes
/// and longitudes, checked.
fn coordinates(
    lines: &mut Lines<impl BufRead>,
    section: &'static str,
    n: usize,
    dims: usize,
    geo: bool,
) -> Result<(Vec<[f64; 3]>, Vec<usize>), TsplibError> {
    let pattern = if dims == 3 { "N X Y Z" } else { "N X Y" };
    let mut coords = vec![[f64::NAN; 3]; n];
    let mut seen = vec![false; n];
    let mut at = vec![0; n];
    for k in 0..n {
        let Some(line) = lines.section_line()? else {
            let (line, found) = lines.here();
            if k == 0 {
                return Err(TsplibError::SectionTooShort { line, section, expected: n * (dims + 1), found });
            }
            // The section ended (a keyword or the end of the file) before
            // DIMENSION nodes.
            let detail = format!(" (found {found} where node {} was due)", k + 1);
            return Err(TsplibError::NodeCount { line, section, dimension: n, found: k, detail });
        };
        let text = &lines.current[..];
        let bad_line =
            |why| TsplibError::BadNodeLine { line, section, pattern, found: quote(input::trim(text)), why };
        // The node number and its coordinates, one line each.
        let mut fields = input::fields(text);
        let mut held: [&[u8]; 4] = [b""; 4];
        for slot in &mut held[..=dims] {
            *slot = fields.next().ok_or_else(|| bad_line("too few numbers"))?;
        }
        let bad_number =
            |expected, field: &[u8]| TsplibError::BadNumber { line, section, expected, found: quote(field) };
        let node: i64 = input::number(held[0]).ok_or_else(|| bad_number("a node number", held[0]))?;
        let i = usize::try_from(node)
            .ok()
            .filter(|i| (1..=n).contains(i))
            .ok_or(TsplibError::NodeOutOfRange { line, section, node, n })?;
        if std::mem::replace(&mut seen[i - 1], true) {
            return Err(TsplibError::DuplicateNode { line, section, node: i });
        }
        at[i - 1] = line;
        for (d, slot) in coords[i - 1].iter_mut().enumerate().take(dims) {
            let field = held[d + 1];
            let x: f64 = input::number(field).ok_or_else(|| bad_number("a coordinate", field))?;
            if !x.is_finite() {
                return Err(bad_number("a finite coordinate", field));
            }
            if geo && d < 2 {
                geo_check(x, d == 0).map_err(|expected| bad_number(expected, field))?;
            }
            *slot = x;
        }
        if dims == 2 {
            coords[i - 1][2] = 0.0;
        }
        if let Some(extra) = fields.next() {
            if k + 1 == n {
                return Err(bad_number("the end of the section", extra));
            }
            return Err(bad_line("too many numbers"));
        }
    }
    lines.finish_section(section)?;
    Ok((coords, at))
}

/// A `GEO` coordinate `DDD.MM` checked: what was expected if it is out of
/// range (a latitude within ±90 degrees, a longitude within ±180, minutes
/// below 60).
fn geo_check(x: f64, latitude: bool) -> Result<(), &'static str> {
    // `12.60` is 12.5999…96 as a double: its minutes, 59.99…96, are 60
    // but for the rounding of the decimal number.
    const ROUNDING: f64 = 1e-9;
    let minutes = x.abs().fract() * 100.0;
    if latitude && x.abs() > 90.0 {
        Err("a GEO latitude DDD.MM between -90 and 90")
    } else if !latitude && x.abs() > 180.0 {
        Err("a GEO longitude DDD.MM between -180 and 180")
    } else if minutes + ROUNDING >= 60.0 {
        Err("a GEO coordinate DDD.MM with minutes MM below 60")
    } else {
        Ok(())
    }
}

/// Reads an explicit matrix in `format`.
fn matrix(
    lines: &mut Lines<impl BufRead>,
    format: EdgeWeightFormat,
    n: usize,
) -> Result<Vec<i64>, TsplibError> {
    const S: &str = "EDGE_WEIGHT_SECTION";
    let entries = format.entries(n);
    let total = entries.len();
    let mut m = vec![0i64; n * n];
    let mut set = vec![false; n * n];
    for (k, (i, j)) in entries.into_iter().enumerate() {
        let (w, line): (i64, usize) = number(lines, S, "an integer edge weight", total - k)?;
        if i == j {
            continue;
        }
        if w.unsigned_abs() > super::MAX_DISTANCE as u64 {
            return Err(TsplibError::TooLarge { line, i: i + 1, j: j + 1, distance: w as f64 });
        }
        if set[j * n + i] && m[j * n + i] != w {
            return Err(TsplibError::Asymmetric { line, i: j + 1, j: i + 1, dij: m[j * n + i], dji: w });
        }
        m[i * n + j] = w;
        m[j * n + i] = w;
        set[i * n + j] = true;
    }
    lines.finish_section(S)?;
    Ok(m)
}

/// Reads fixed edges `a b` up to the terminating `-1`.
fn fixed_edges(lines: &mut Lines<impl BufRead>, n: usize) -> Result<Vec<(u32, u32)>, TsplibError> {
    const S: &str = "FIXED_EDGES_SECTION";
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut degree = vec![0u8; n];
    loop {
        let (a, line): (i64, usize) = number(lines, S, "a node number or -1", 1)?;
        if a == -1 {
            break;
        }
        let (b, _): (i64, usize) = number(lines, S, "a node number", 1)?;
        let check = |v: i64| {
            usize::try_from(v).ok().filter(|v| (1..=n).contains(v)).ok_or(TsplibError::NodeOutOfRange {
                line,
                section: S,
                node: v,
                n,
            })
        };
        let (u, v) = (check(a)? - 1, check(b)? - 1);
        let bad = |why| TsplibError::BadFixedEdge { line, a, b, why };
        if u == v {
            return Err(bad("is a loop"));
        }
        let key = (u.min(v) as u32, u.max(v) as u32);
        if edges.contains(&key) {
            return Err(bad("is listed twice"));
        }
        degree[u] += 1;
        degree[v] += 1;
        if degree[u] > 2 || degree[v] > 2 {
            return Err(bad("gives a node more than two fixed edges"));
        }
        edges.push(key);
        if closes_short_cycle(&edges, n) {
            return Err(bad("closes a cycle through fewer than all nodes"));
        }
    }
    lines.finish_section(S)?;
    Ok(edges)
}

/// Whether the edges (degrees at most 2) contain a cycle that is not a
/// Hamiltonian cycle.
fn closes_short_cycle(edges: &[(u32, u32)], n: usize) -> bool {
    let mut parent: Vec<usize> = (0..n).collect();
    for (k, &(a, b)) in edges.iter().enumerate() {
        let (ra, rb) = (find(&mut parent, a as usize), find(&mut parent, b as usize));
        if ra == rb {
            return !(k + 1 == n && edges.len() == n);
        }
        parent[ra] = rb;
    }
    false
}

/// The instance from what was parsed: the distance matrix by the weight type.
fn build(p: Parsed) -> Result<Tsp, TsplibError> {
    let line = p.end;
    let n = p.dimension.ok_or(TsplibError::Missing { line, what: "DIMENSION" })?;
    let weight_type = p.weight_type.ok_or(TsplibError::Missing { line, what: "EDGE_WEIGHT_TYPE" })?;
    let dist = match weight_type {
        EdgeWeightType::Explicit => {
            p.weight_format
                .ok_or(TsplibError::Missing { line, what: "EDGE_WEIGHT_FORMAT (EXPLICIT weights)" })?;
            p.matrix.ok_or(TsplibError::Missing { line, what: "EDGE_WEIGHT_SECTION (EXPLICIT weights)" })?
        }
        t => {
            let (coords, at) =
                p.coords.as_ref().ok_or(TsplibError::Missing { line, what: "NODE_COORD_SECTION" })?;
            let mut d = vec![0i64; n * n];
            for i in 0..n {
                for j in i + 1..n {
                    let w = t.distance_f64(coords[i], coords[j]);
                    if w.is_nan() || w.abs() > super::MAX_DISTANCE as f64 {
                        let line = at[i].max(at[j]);
                        return Err(TsplibError::TooLarge { line, i: i + 1, j: j + 1, distance: w });
                    }
                    let w = w as i64;
                    d[i * n + j] = w;
                    d[j * n + i] = w;
                }
            }
            d
        }
    };
    // The matrix is symmetric and its weights in range: checked above.
    let mut tsp = Tsp::from_matrix(n, dist).expect("a checked distance matrix");
    tsp.name = p.name.unwrap_or_default();
    tsp.comment = p.comment.unwrap_or_default();
    tsp.weight_type = Some(weight_type);
    tsp.weight_format = p.weight_format;
    tsp.fixed_edges = p.fixed;
    Ok(tsp)
}

/// Why a TSPLIB tour file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TourError {
    /// The file could not be read.
    #[error("cannot read the tour: {0}")]
    Io(#[from] std::io::Error),
    /// A line longer than [`MAX_LINE_BYTES`](crate::input::MAX_LINE_BYTES),
    /// or an input larger than [`MAX_TOUR_BYTES`].
    #[error(transparent)]
    Limit(#[from] LimitError),
    /// A malformed line or number.
    #[error("line {line}: expected {expected}, found `{found}`")]
    Bad {
        /// The 1-based line number.
        line: usize,
        /// What was expected.
        expected: &'static str,
        /// What was found, as [`quote`] shows it.
        found: String,
    },
    /// The tour is not a permutation of the nodes.
    #[error("line {line}: the tour is not a permutation of 1..={n}: {why}")]
    NotAPermutation {
        /// The 1-based line of the node out of range or repeated, or the
        /// line that ends the section when nodes are missing or extra.
        line: usize,
        /// The dimension.
        n: usize,
        /// What is wrong.
        why: String,
    },
}

/// Reads a TSPLIB tour (`.opt.tour`): `TYPE: TOUR`, `DIMENSION`, a
/// `TOUR_SECTION` of 1-based nodes ending with `-1`. Returns the 0-based
/// tour. The file is read as the instances are (a byte order mark skipped,
/// quoted input escaped), and may take at most [`MAX_TOUR_BYTES`].
///
/// ```
/// use treelb_apps::tsp::tsplib;
/// let tour = tsplib::parse_tour_str("TYPE : TOUR\nDIMENSION : 3\nTOUR_SECTION\n1\n3\n2\n-1\nEOF\n")?;
/// assert_eq!(tour, [0, 2, 1]);
/// # Ok::<(), tsplib::TourError>(())
/// ```
pub fn parse_tour_str(text: &str) -> Result<Vec<u32>, TourError> {
    parse_tour(text.as_bytes())
}

/// Reads a TSPLIB tour file.
pub fn read_tour_file(path: impl AsRef<Path>) -> Result<Vec<u32>, TourError> {
    parse_tour(std::io::BufReader::new(std::fs::File::open(path)?))
}

/// Reads a TSPLIB tour from a reader.
pub fn parse_tour(reader: impl BufRead) -> Result<Vec<u32>, TourError> {
    parse_tour_within(reader, MAX_TOUR_BYTES)
}

/// [`parse_tour`] with a limit of `limit` bytes on the input.
fn parse_tour_within(reader: impl BufRead, limit: u64) -> Result<Vec<u32>, TourError> {
    let mut n: Option<usize> = None;
    // The nodes, each with its line.
    let mut tour: Vec<(u32, usize)> = Vec::new();
    let mut in_section = false;
    // The line that ended the tour section (or the input).
    let mut end = 0;
    let mut lines = input::Lines::new(reader, limit, "a TSPLIB tour");
    while let Some((line, text)) = lines.next_line::<TourError>()? {
        end = line + 1;
        let trimmed = input::trim(text);
        if trimmed.is_empty() {
            continue;
        }
        if in_section {
            for token in input::fields(trimmed) {
                let bad = |expected| TourError::Bad { line, expected, found: quote(token) };
                let v: i64 = input::number(token).ok_or_else(|| bad("a node number or -1"))?;
                if v == -1 {
                    in_section = false;
                    end = line;
                    break;
                }
                let v =
                    u32::try_from(v).ok().filter(|&v| v >= 1).ok_or_else(|| bad("a positive node number"))?;
                if tour.len() >= MAX_DIMENSION {
                    return Err(bad("at most 4096 nodes (the largest DIMENSION)"));
                }
                tour.push((v - 1, line));
            }
            continue;
        }
        let (key, value) = keyword(trimmed);
        match key {
            b"EOF" => {
                end = line;
                break;
            }
            b"NAME" | b"COMMENT" | b"TYPE" => {}
            b"DIMENSION" => {
                let bad = || TourError::Bad {
                    line,
                    expected: "the number of nodes after DIMENSION (1 to 4096)",
                    found: quote(value),
                };
                let d: usize = input::number(value).ok_or_else(bad)?;
                if d == 0 || d > MAX_DIMENSION {
                    return Err(bad());
                }
                n = Some(d);
            }
            b"TOUR_SECTION" => in_section = true,
            _ => {
                return Err(TourError::Bad {
                    line,
                    expected: "a TSPLIB tour keyword",
                    found: quote(trimmed),
                });
            }
        }
    }
    let n = n.unwrap_or(tour.len());
    let mut seen = vec![false; n];
    for &(v, line) in &tour {
        let v = v as usize;
        if v >= n || std::mem::replace(&mut seen[v], true) {
            return Err(TourError::NotAPermutation {
                line,
                n,
                why: format!("node {} is out of range or repeated", v + 1),
            });
        }
    }
    if tour.len() != n {
        return Err(TourError::NotAPermutation {
            line: end.max(1),
            n,
            why: format!("{} nodes listed", tour.len()),
        });
    }
    let tour: Vec<u32> = tour.into_iter().map(|(v, _)| v).collect();
    Ok(tour)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_stops_at_its_limit() {
        let e = parse_within("NAME: x\nTYPE: TSP\n".as_bytes(), 10).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2: the input is larger than 10 bytes, the limit for a TSPLIB instance"
        );
        let e = parse_tour_within("TYPE: TOUR\nDIMENSION: 3\n".as_bytes(), 12).unwrap_err();
        assert_eq!(e.to_string(), "line 2: the input is larger than 12 bytes, the limit for a TSPLIB tour");
        assert!(matches!(e, TourError::Limit(LimitError::InputTooLarge { line: 2, limit: 12, .. })));
    }
}
