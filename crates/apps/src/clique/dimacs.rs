//! The DIMACS graph format of the second DIMACS implementation challenge
//! (`.clq` files).
//!
//! ```text
//! c a comment
//! p edge 4 3        (some files say `p col 4 3`)
//! e 1 2
//! e 2 3
//! e 3 4
//! ```
//!
//! * `c` lines are comments; blank lines are ignored;
//! * exactly one `p` line, before any edge: `p edge N M` or `p col N M`
//!   with `N` vertices and `M` edges;
//! * `e U V` lines, vertices numbered from 1. An edge may be listed twice (in
//!   either direction). A count `M` of the header that is neither the
//!   number of `e` lines nor the number of distinct edges is a
//!   [`DimacsWarning`] of [`parse_with_warnings`], not an error: files in
//!   the wild disagree with their own headers;
//! * `n V W` lines (vertex weights of weighted instances) are checked and
//!   ignored;
//! * a line `END` ends the data (some challenge files have one); nothing
//!   but comments and blank lines may follow it.
//!
//! The file is read as bytes: a comment may hold any bytes (a byte that is
//! not UTF-8 elsewhere makes that line fail to parse); a byte order mark at
//! the start is skipped. Every malformed input is a [`DimacsError`] naming
//! the line and what was expected there; the input it quotes is escaped and
//! cut short ([`quote`]). A line may hold at most [`MAX_LINE_BYTES`]
//! (1 MiB), the whole input at most [`MAX_INPUT_BYTES`] (1 GiB).

use std::io::BufRead;
use std::path::Path;

use super::Graph;
use super::graph::DenseBits;
use crate::input::{self, LimitError, MAX_LINE_BYTES, quote};

/// The largest DIMACS input read, in bytes: 1 GiB. The largest graphs of
/// the DIMACS challenges take a few megabytes (keller5.clq 2.4 MB, keller6
/// and MANN_a81 about 60 MB); a larger input is refused
/// ([`LimitError::InputTooLarge`]) before it fills the memory.
pub const MAX_INPUT_BYTES: u64 = 1 << 30;

/// The largest number of vertices accepted (vertex numbers are 32-bit).
pub const MAX_VERTICES: usize = 1 << 28;

/// The most memory the graph of a `p` line may ask for, in bytes, before a
/// single edge is read ([`estimate_bytes`]).
pub const MAX_GRAPH_BYTES: usize = 1 << 31;

/// The bytes a graph of `n` vertices takes before its edges: adjacency
/// bitsets (`n²/8`) up to [`super::DENSE_MAX_VERTICES`] vertices, one empty
/// neighbour list per vertex above. Each edge adds 8 bytes to a sparse
/// graph (and 8 while it is read), as the file lists it.
pub fn estimate_bytes(n: usize) -> usize {
    if n <= super::DENSE_MAX_VERTICES {
        n * n.div_ceil(64) * 8
    } else {
        n.saturating_mul(std::mem::size_of::<Vec<u32>>() + 4)
    }
}

/// Why a DIMACS file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DimacsError {
    /// The file could not be read.
    #[error("cannot read the graph: {0}")]
    Io(#[from] std::io::Error),
    /// A line longer than [`MAX_LINE_BYTES`], or an input larger than
    /// [`MAX_INPUT_BYTES`].
    #[error(transparent)]
    Limit(#[from] LimitError),
    /// A `p` line that is not `p edge N M` or `p col N M`.
    #[error("line {line}: expected a problem line `p edge N M` or `p col N M`, found `{found}`")]
    BadHeader {
        /// The 1-based line number.
        line: usize,
        /// The offending line, as [`quote`] shows it.
        found: String,
    },
    /// A second `p` line.
    #[error("line {line}: a second problem line (the first is on line {first})")]
    DuplicateHeader {
        /// The 1-based line number of the second `p` line.
        line: usize,
        /// The line number of the first.
        first: usize,
    },
    /// More vertices than [`MAX_VERTICES`].
    #[error("line {line}: {n} vertices are too many (at most {max})", max = MAX_VERTICES)]
    TooManyVertices {
        /// The 1-based line number of the `p` line.
        line: usize,
        /// The number of vertices the header declares.
        n: usize,
    },
    /// A graph whose vertices alone would take more than
    /// [`MAX_GRAPH_BYTES`].
    #[error(
        "line {line}: a graph of {n} vertices needs {mib} MiB before its edges, more than the limit of {limit} MiB",
        mib = bytes.div_ceil(1 << 20),
        limit = MAX_GRAPH_BYTES >> 20
    )]
    TooLarge {
        /// The 1-based line number of the `p` line.
        line: usize,
        /// The number of vertices the header declares.
        n: usize,
        /// The estimate of [`estimate_bytes`].
        bytes: usize,
    },
    /// An `e` or `n` line before the `p` line.
    #[error("line {line}: expected the problem line `p edge N M` before the first {what}")]
    DataBeforeHeader {
        /// The 1-based line number.
        line: usize,
        /// "edge" or "vertex weight".
        what: &'static str,
    },
    /// An `e` line that is not `e U V` with two integers.
    #[error("line {line}: expected an edge `e U V` with two vertex numbers, found `{found}`")]
    BadEdge {
        /// The 1-based line number.
        line: usize,
        /// The offending line, as [`quote`] shows it.
        found: String,
    },
    /// An `n` line that is not `n V W` with two integers.
    #[error("line {line}: expected a vertex weight `n V W` with two integers, found `{found}`")]
    BadVertexWeight {
        /// The 1-based line number.
        line: usize,
        /// The offending line, as [`quote`] shows it.
        found: String,
    },
    /// A vertex number outside `1..=N`.
    #[error("line {line}: expected a vertex number between 1 and {n}, found {vertex}")]
    VertexOutOfRange {
        /// The 1-based line number.
        line: usize,
        /// The vertex number as written (1-based).
        vertex: u64,
        /// The number of vertices of the header.
        n: usize,
    },
    /// An edge from a vertex to itself.
    #[error(
        "line {line}: expected an edge between two different vertices, found the self-loop {vertex}–{vertex}"
    )]
    SelfLoop {
        /// The 1-based line number.
        line: usize,
        /// The vertex (1-based).
        vertex: u64,
    },
    /// A line that is none of `c`, `p`, `e`, `n`, `END`.
    #[error("line {line}: expected a `c`, `p`, `e` or `n` line, found `{found}`")]
    UnknownLine {
        /// The 1-based line number.
        line: usize,
        /// The offending line, as [`quote`] shows it.
        found: String,
    },
    /// Data after an `END` line.
    #[error("line {line}: expected nothing after `END` (line {end}), found `{found}`")]
    AfterEnd {
        /// The 1-based line number.
        line: usize,
        /// The line of `END`.
        end: usize,
        /// The offending line, as [`quote`] shows it.
        found: String,
    },
    /// The input ended without a `p` line.
    #[error("line {line}: the input ended without a problem line `p edge N M`")]
    MissingHeader {
        /// The line after the last one.
        line: usize,
    },
}

/// Something odd about a DIMACS file that does not keep it from being read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DimacsWarning {
    /// The problem line's edge count is neither the number of `e` lines
    /// nor the number of distinct edges.
    #[error(
        "line {line}: the problem line declares {declared} edges, the file lists {lines} edge lines \
         ({distinct} distinct edges)"
    )]
    EdgeCount {
        /// The line of the `p` line.
        line: usize,
        /// `M` of the `p` line.
        declared: u64,
        /// The number of `e` lines.
        lines: u64,
        /// The number of distinct edges.
        distinct: u64,
    },
}

/// Parses a DIMACS graph from a string.
///
/// ```
/// use treelb_apps::clique::dimacs;
/// let g = dimacs::parse_str("c triangle\np col 3 3\ne 1 2\ne 2 3\ne 1 3\n")?;
/// assert_eq!((g.n(), g.edge_count()), (3, 3));
/// let e = dimacs::parse_str("p edge 3 1\ne 1 4\n").unwrap_err();
/// assert_eq!(e.to_string(), "line 2: expected a vertex number between 1 and 3, found 4");
/// # Ok::<(), dimacs::DimacsError>(())
/// ```
pub fn parse_str(text: &str) -> Result<Graph, DimacsError> {
    parse(text.as_bytes())
}

/// Reads a DIMACS graph from a file.
pub fn read_file(path: impl AsRef<Path>) -> Result<Graph, DimacsError> {
    let file = std::fs::File::open(path)?;
    parse(std::io::BufReader::new(file))
}

/// Parses a DIMACS graph from a reader.
pub fn parse(reader: impl BufRead) -> Result<Graph, DimacsError> {
    parse_with_warnings(reader).map(|(graph, _)| graph)
}

/// Reads a DIMACS graph from a file, with the [`DimacsWarning`]s about it.
pub fn read_file_with_warnings(path: impl AsRef<Path>) -> Result<(Graph, Vec<DimacsWarning>), DimacsError> {
    let file = std::fs::File::open(path)?;
    parse_with_warnings(std::io::BufReader::with_capacity(1 << 16, file))
}

/// Parses a DIMACS graph from a reader, with the [`DimacsWarning`]s about
/// it.
///
/// ```
/// use treelb_apps::clique::dimacs;
/// let (g, warnings) = dimacs::parse_with_warnings("p edge 3 5\ne 1 2\ne 2 3\n".as_bytes())?;
/// assert_eq!(g.edge_count(), 2);
/// assert_eq!(
///     warnings[0].to_string(),
///     "line 1: the problem line declares 5 edges, the file lists 2 edge lines (2 distinct edges)"
/// );
/// # Ok::<(), dimacs::DimacsError>(())
/// ```
pub fn parse_with_warnings(reader: impl BufRead) -> Result<(Graph, Vec<DimacsWarning>), DimacsError> {
    parse_within(reader, MAX_INPUT_BYTES)
}

/// [`parse_with_warnings`] with a limit of `limit` bytes on the input.
fn parse_within(reader: impl BufRead, limit: u64) -> Result<(Graph, Vec<DimacsWarning>), DimacsError> {
    let mut reader_state = Reader::default();
    for_each_line(reader, limit, &mut reader_state)?;
    reader_state.finish()
}

/// The state of a read: the header (vertex count and line), the edges as
/// they come, the `END` line.
#[derive(Default)]
struct Reader {
    header: Option<(usize, usize)>,
    edges: Option<Edges>,
    end: Option<usize>,
    declared: u64,
    edge_lines: u64,
    last: usize,
}

/// The edges read so far: set in the adjacency bits of a dense graph at
/// once, listed for a sparse graph, which is built at the end in `O(n + m)`
/// memory.
enum Edges {
    Dense(DenseBits),
    Sparse(Vec<(u32, u32)>),
}

/// Where [`for_each_line`] puts the lines it reads.
trait LineSink {
    /// A plain edge line `e U V` ([`scan_edge`]), read in place; `false`:
    /// read it as any other line.
    fn plain(&mut self, line: usize, u: u64, v: u64) -> Result<bool, DimacsError>;

    /// Any other line, without its line end.
    fn line(&mut self, line: usize, bytes: &[u8]) -> Result<(), DimacsError>;
}

impl Reader {
    /// One edge, checked ([`edge`]), after the header.
    #[inline]
    fn add(&mut self, (u, v): (u32, u32)) {
        match self.edges.as_mut().expect("the header came first") {
            Edges::Dense(bits) => bits.add(u as usize, v as usize),
            Edges::Sparse(list) => list.push((u, v)),
        }
        self.edge_lines += 1;
    }

    /// The graph, and the warnings about the file.
    fn finish(self) -> Result<(Graph, Vec<DimacsWarning>), DimacsError> {
        let (n, header) = self.header.ok_or(DimacsError::MissingHeader { line: self.last + 1 })?;
        let graph = match self.edges.expect("made with the header") {
            Edges::Dense(bits) => bits.finish(),
            Edges::Sparse(mut list) => Graph::from_edges(n, &mut list),
        };
        let distinct = graph.edge_count() as u64;
        let mut warnings = Vec::new();
        if self.declared != self.edge_lines && self.declared != distinct {
            warnings.push(DimacsWarning::EdgeCount {
                line: header,
                declared: self.declared,
                lines: self.edge_lines,
                distinct,
            });
        }
        Ok((graph, warnings))
    }
}

impl LineSink for Reader {
    /// Taken unless it comes before the header or after `END`, which the
    /// general path reports.
    #[inline]
    fn plain(&mut self, line: usize, u: u64, v: u64) -> Result<bool, DimacsError> {
        let (Some((n, _)), None) = (self.header, self.end) else {
            return Ok(false);
        };
        self.last = line;
        self.add(edge(u, v, n, line)?);
        Ok(true)
    }

    /// Any line, without its line end. The general path accepts every line
    /// the plain one does and reads it the same way.
    fn line(&mut self, line: usize, bytes: &[u8]) -> Result<(), DimacsError> {
        self.last = line;
        if let Some((u, v)) = plain_edge(bytes)
            && self.plain(line, u, v)?
        {
            return Ok(());
        }
        let mut fields = input::fields(bytes);
        let Some(kind) = fields.next() else {
            return Ok(());
        };
        if kind.starts_with(b"c") {
            // A comment: the line starts with `c` (some files write `c---`).
            return Ok(());
        }
        let found = || quote(input::trim(bytes));
        if let Some(end) = self.end {
            return Err(DimacsError::AfterEnd { line, end, found: found() });
        }
        // The fields after the first: at most three are ever wanted, so a
        // fourth only marks the line as too long (no allocation per line).
        let mut held: [&[u8]; 4] = [b""; 4];
        let mut count = 0;
        for field in fields {
            held[count.min(3)] = field;
            count += 1;
            if count > 4 {
                break;
            }
        }
        let rest = &held[..count.min(4)];
        match kind {
            b"p" => {
                if let Some((_, first)) = self.header {
                    return Err(DimacsError::DuplicateHeader { line, first });
                }
                let bad = || DimacsError::BadHeader { line, found: found() };
                let [format, n, m] = rest[..] else {
                    return Err(bad());
                };
                if format != b"edge" && format != b"col" && format != b"edges" {
                    return Err(bad());
                }
                let n: usize = input::number(n).ok_or_else(bad)?;
                self.declared = input::number(m).ok_or_else(bad)?;
                if n > MAX_VERTICES {
                    return Err(DimacsError::TooManyVertices { line, n });
                }
                let bytes = estimate_bytes(n);
                if bytes > MAX_GRAPH_BYTES {
                    return Err(DimacsError::TooLarge { line, n, bytes });
                }
                self.header = Some((n, line));
                self.edges = Some(if n <= super::DENSE_MAX_VERTICES {
                    Edges::Dense(DenseBits::new(n))
                } else {
                    Edges::Sparse(Vec::new())
                });
            }
            b"e" => {
                let Some(&(n, _)) = self.header.as_ref() else {
                    return Err(DimacsError::DataBeforeHeader { line, what: "edge" });
                };
                let bad = || DimacsError::BadEdge { line, found: found() };
                let [u, v] = rest[..] else {
                    return Err(bad());
                };
                let u: u64 = input::number(u).ok_or_else(bad)?;
                let v: u64 = input::number(v).ok_or_else(bad)?;
                self.add(edge(u, v, n, line)?);
            }
            b"n" => {
                let Some(&(n, _)) = self.header.as_ref() else {
                    return Err(DimacsError::DataBeforeHeader { line, what: "vertex weight" });
                };
                let bad = || DimacsError::BadVertexWeight { line, found: found() };
                let [v, w] = rest[..] else {
                    return Err(bad());
                };
                let v: u64 = input::number(v).ok_or_else(bad)?;
                let _w: i64 = input::number(w).ok_or_else(bad)?;
                vertex(v, n, line)?;
            }
            b"END" if rest.is_empty() => self.end = Some(line),
            _ => return Err(DimacsError::UnknownLine { line, found: found() }),
        }
        Ok(())
    }
}

/// Reads every line of `reader` into `r`, with its 1-based number, as
/// bytes without the line end (`\n` or `\r\n`) and without a byte order
/// mark at the start, as `crate::input::Lines` reads them, but in place in
/// the reader's buffer: a line is copied only when it straddles two fills
/// of the buffer. A plain edge line is read where it lies, in the same pass
/// that finds its end ([`scan_edge`]); the end of any other line is found
/// with `memchr`. A line longer than [`MAX_LINE_BYTES`] is an error as soon
/// as that many of its bytes are read, and so is an input of more than
/// `limit` bytes (the reader is read no further).
fn for_each_line<R: BufRead>(reader: R, limit: u64, r: &mut impl LineSink) -> Result<(), DimacsError> {
    fn strip(line: &[u8]) -> &[u8] {
        line.strip_suffix(b"\r").unwrap_or(line)
    }
    let mut reader = reader.take(limit.saturating_add(1));
    let mut read = 0u64;
    let mut line = 0;
    let mut carry: Vec<u8> = Vec::new();
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            if !carry.is_empty() {
                // The last line, without a line end: nothing stripped.
                r.line(line + 1, input::skip_bom(line + 1, &carry))?;
            }
            return Ok(());
        }
        let mut start = 0;
        loop {
            if carry.is_empty()
                && let Some((u, v, end)) = scan_edge(&buf[start..])
                && end <= MAX_LINE_BYTES
                && buf.get(start + end) == Some(&b'\n')
            {
                line += 1;
                if !r.plain(line, u, v)? {
                    r.line(line, strip(&buf[start..start + end]))?;
                }
                start += end + 1;
                continue;
            }
            let Some(at) = memchr::memchr(b'\n', &buf[start..]) else {
                break;
            };
            if carry.len() + at > MAX_LINE_BYTES {
                return Err(too_long(line + 1));
            }
            let end = start + at;
            line += 1;
            if carry.is_empty() {
                r.line(line, input::skip_bom(line, strip(&buf[start..end])))?;
            } else {
                carry.extend_from_slice(&buf[start..end]);
                r.line(line, input::skip_bom(line, strip(&carry)))?;
                carry.clear();
            }
            start = end + 1;
        }
        if carry.len() + (buf.len() - start) > MAX_LINE_BYTES {
            return Err(too_long(line + 1));
        }
        carry.extend_from_slice(&buf[start..]);
        let used = buf.len();
        reader.consume(used);
        read += used as u64;
        if read > limit {
            // The byte past the limit ends line `line`, or is in the next.
            let line = line + usize::from(!carry.is_empty());
            return Err(too_large(line, limit));
        }
    }
}

/// The error of a line longer than [`MAX_LINE_BYTES`] (out of the way of
/// the loop that reads lines).
#[cold]
#[inline(never)]
fn too_long(line: usize) -> DimacsError {
    LimitError::LineTooLong { line, limit: MAX_LINE_BYTES as u64 }.into()
}

/// The error of an input larger than `limit` (out of the way of the loop
/// that reads lines).
#[cold]
#[inline(never)]
fn too_large(line: usize, limit: u64) -> DimacsError {
    LimitError::InputTooLarge { line, limit, what: "a DIMACS graph" }.into()
}

/// The two numbers of a line `e U V` written plainly: spaces or tabs
/// around the fields, a carriage return at the end, numbers of at most 19
/// decimal digits (so below 2^64); `None` for any other line. The lines it
/// reads are a subset of those the general path accepts as edges, with the
/// same numbers (`str::split_whitespace` and `u64::from_str`).
fn plain_edge(line: &[u8]) -> Option<(u64, u64)> {
    scan_edge(line).and_then(|(u, v, end)| (end == line.len()).then_some((u, v)))
}

/// The grammar of [`plain_edge`] read from the start of `bytes`: the two
/// numbers and where the trailing blanks and carriage returns after them
/// end (the line's end, if the line is a plain edge).
#[inline]
fn scan_edge(bytes: &[u8]) -> Option<(u64, u64, usize)> {
    let mut i = skip(bytes, 0, |b| b == b' ' || b == b'\t');
    if bytes.get(i) != Some(&b'e') {
        return None;
    }
    i += 1;
    let u = field(bytes, &mut i)?;
    let v = field(bytes, &mut i)?;
    Some((u, v, skip(bytes, i, |b| b == b' ' || b == b'\t' || b == b'\r')))
}

/// The first position from `i` on whose byte is not `skipped`.
#[inline(always)]
fn skip(bytes: &[u8], mut i: usize, skipped: impl Fn(u8) -> bool) -> usize {
    while let Some(&b) = bytes.get(i)
        && skipped(b)
    {
        i += 1;
    }
    i
}

/// One field of a plain edge at `*i`: at least one blank, then 1 to 19
/// decimal digits; `*i` is left after them.
#[inline(always)]
fn field(bytes: &[u8], i: &mut usize) -> Option<u64> {
    let start = *i;
    *i = skip(bytes, start, |b| b == b' ' || b == b'\t');
    if *i == start {
        return None;
    }
    let digits = *i;
    let mut x = 0u64;
    while let Some(&b) = bytes.get(*i)
        && b.is_ascii_digit()
    {
        // Wraps past 19 digits, and then the field is refused below (any
        // 19 digits fit in a u64), so a wrapped value is never used.
        x = x.wrapping_mul(10).wrapping_add(u64::from(b - b'0'));
        *i += 1;
    }
    (*i != digits && *i - digits <= 19).then_some(x)
}

/// The edge between the 1-based vertices `u` and `v` as 0-based indices,
/// checked: both on the graph, and not a loop.
fn edge(u: u64, v: u64, n: usize, line: usize) -> Result<(u32, u32), DimacsError> {
    let (u, v) = (vertex(u, n, line)?, vertex(v, n, line)?);
    if u == v {
        return Err(DimacsError::SelfLoop { line, vertex: u as u64 + 1 });
    }
    Ok((u as u32, v as u32))
}

/// A 1-based vertex number as a 0-based index, checked.
fn vertex(v: u64, n: usize, line: usize) -> Result<usize, DimacsError> {
    match usize::try_from(v) {
        Ok(i) if (1..=n).contains(&i) => Ok(i - 1),
        _ => Err(DimacsError::VertexOutOfRange { line, vertex: v, n }),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The lines [`for_each_line`] reads, as text, and its plain edges as
    /// `edge U V` (or as text, when they are not taken).
    struct Record {
        take_plain: bool,
        lines: Vec<(usize, String)>,
    }

    impl LineSink for Record {
        fn plain(&mut self, line: usize, u: u64, v: u64) -> Result<bool, DimacsError> {
            if self.take_plain {
                self.lines.push((line, format!("edge {u} {v}")));
            }
            Ok(self.take_plain)
        }

        fn line(&mut self, line: usize, bytes: &[u8]) -> Result<(), DimacsError> {
            let text = match plain_edge(bytes) {
                Some((u, v)) if self.take_plain => format!("edge {u} {v}"),
                _ => String::from_utf8_lossy(bytes).into_owned(),
            };
            self.lines.push((line, text));
            Ok(())
        }
    }

    /// The lines of `bytes` as [`for_each_line`] reads them through a
    /// buffer of `capacity` bytes ([`Record`]).
    fn read_in_place(bytes: &[u8], capacity: usize, take_plain: bool) -> Vec<(usize, String)> {
        let mut got = Record { take_plain, lines: Vec::new() };
        for_each_line(std::io::BufReader::with_capacity(capacity, bytes), u64::MAX, &mut got).unwrap();
        got.lines
    }

    /// The lines of `bytes` as `crate::input::Lines` reads them, as text.
    fn lines_of(bytes: &[u8]) -> Vec<(usize, String)> {
        let mut lines = crate::input::Lines::new(bytes, u64::MAX, "a test");
        let mut all = Vec::new();
        while let Some((n, text)) = lines.next_line::<DimacsError>().unwrap() {
            all.push((n, String::from_utf8_lossy(text).into_owned()));
        }
        all
    }

    /// How the general path reads a line as an edge.
    fn general(line: &str) -> Option<(u64, u64)> {
        let fields: Vec<&str> = line.split_whitespace().collect();
        match fields[..] {
            ["e", u, v] => Some((u.parse().ok()?, v.parse().ok()?)),
            _ => None,
        }
    }

    #[test]
    fn plain_edges_and_the_rest() {
        assert_eq!(plain_edge(b"e 1 2"), Some((1, 2)));
        assert_eq!(plain_edge(b" \te\t10  200 \r"), Some((10, 200)));
        assert_eq!(plain_edge(b"e 9999999999999999999 1"), Some((9_999_999_999_999_999_999, 1)));
        for other in
            ["e 18446744073709551616 1", "e +1 2", "e1 2", "e 1", "e 1 2 3", "e 1\r2", "p edge 1 2", ""]
        {
            assert_eq!(plain_edge(other.as_bytes()), None, "{other:?}");
        }
    }

    /// The lines [`for_each_line`] reads through a buffer of `capacity`
    /// bytes within `limit` bytes, and the limit it stops at.
    fn read_within(bytes: &[u8], capacity: usize, limit: u64) -> (Vec<(usize, String)>, Option<LimitError>) {
        let mut got = Record { take_plain: false, lines: Vec::new() };
        let reader = std::io::BufReader::with_capacity(capacity, bytes);
        let error = for_each_line(reader, limit, &mut got).err().map(|e| match e {
            DimacsError::Limit(e) => e,
            e => panic!("{e}"),
        });
        (got.lines, error)
    }

    /// The lines `crate::input::Lines` reads within `limit` bytes, and the
    /// limit it stops at.
    fn lines_within(bytes: &[u8], limit: u64) -> (Vec<(usize, String)>, Option<LimitError>) {
        let mut lines = crate::input::Lines::new(bytes, limit, "a DIMACS graph");
        let mut all = Vec::new();
        loop {
            match lines.next_line::<DimacsError>() {
                Ok(Some((n, text))) => all.push((n, String::from_utf8_lossy(text).into_owned())),
                Ok(None) => return (all, None),
                Err(DimacsError::Limit(e)) => return (all, Some(e)),
                Err(e) => panic!("{e}"),
            }
        }
    }

    #[test]
    fn a_line_past_the_limit_is_refused_wherever_it_lies() {
        let long =
            |bytes: &[u8]| [&b"p edge 3 1\n"[..], bytes, &vec![b' '; MAX_LINE_BYTES], b"1 2\n"].concat();
        // A plain edge, and any other line, read in place (the whole input
        // is one buffer) or across the fills of a reader.
        for text in [long(b"e"), long(b"x")] {
            for error in
                [parse(&text[..]).unwrap_err(), parse(std::io::BufReader::new(&text[..])).unwrap_err()]
            {
                assert!(
                    matches!(error, DimacsError::Limit(LimitError::LineTooLong { line: 2, .. })),
                    "{error}"
                );
                assert_eq!(error.to_string(), "line 2: longer than 1 MiB (a binary file?)");
            }
        }
        // Up to the limit, the line is read.
        let mut fits = long(b"e");
        fits.drain(12..16);
        assert_eq!(parse(&fits[..]).unwrap().edge_count(), 1);
    }

    #[test]
    fn the_input_stops_at_its_limit() {
        let text = b"p edge 3 2\ne 1 2\ne 2 3\n";
        assert_eq!(parse_within(&text[..], 23).unwrap().0.edge_count(), 2);
        let error = parse_within(&text[..], 20).unwrap_err();
        assert_eq!(
            error.to_string(),
            "line 3: the input is larger than 20 bytes, the limit for a DIMACS graph"
        );
        assert_eq!(
            parse_within(&text[..], 16).unwrap_err().to_string(),
            "line 2: the input is larger than 16 bytes, the limit for a DIMACS graph"
        );
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let g = parse_str("\u{feff}p edge 2 1\ne 1 2\n").unwrap();
        assert_eq!(g.edge_count(), 1);
        // Elsewhere it is shown.
        assert_eq!(
            parse_str("p edge 2 1\n\u{feff}e 1 2\n").unwrap_err().to_string(),
            "line 2: expected a `c`, `p`, `e` or `n` line, found `\\u{feff}e 1 2`"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Within a limit on the input, the lines read in place and the
        /// error are those of `crate::input::Lines`, whatever the buffer's
        /// size.
        #[test]
        fn the_limit_is_where_the_texts_lines_stop(
            bytes in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'\r'), Just(b'\n')], 0..30),
            capacity in 1usize..8,
            limit in 0u64..32,
        ) {
            prop_assert_eq!(read_within(&bytes, capacity, limit), lines_within(&bytes, limit));
        }

        /// The lines read in place are those of `crate::input::Lines`, with
        /// their numbers, whatever the buffer's size (lines straddling
        /// fills included).
        #[test]
        fn lines_in_place_are_the_texts_lines(
            bytes in proptest::collection::vec(
                prop_oneof![Just(b'a'), Just(b'\r'), Just(b'\n'), Just(0xe9u8), Just(0xef), Just(0xbb), Just(0xbf)],
                0..40,
            ),
            capacity in 1usize..8,
        ) {
            let expected = lines_of(&bytes);
            prop_assert_eq!(read_in_place(&bytes, capacity, false), expected);
        }

        /// Plain edge lines read in place, wherever the buffer's fills cut
        /// them, are the lines of `crate::input::Lines` that `plain_edge`
        /// reads, with the same numbers; the others come whole.
        #[test]
        fn plain_lines_read_in_place_are_the_texts_lines(
            parts in proptest::collection::vec(
                prop_oneof![Just("e"), Just(" "), Just("\t"), Just("\r"), Just("\n"), Just("1"), Just("23"), Just("x")],
                0..60,
            ),
            capacity in 1usize..16,
        ) {
            let bytes = parts.concat().into_bytes();
            let expected: Vec<(usize, String)> = lines_of(&bytes)
                .into_iter()
                .map(|(n, text)| match plain_edge(text.as_bytes()) {
                    Some((u, v)) => (n, format!("edge {u} {v}")),
                    None => (n, text),
                })
                .collect();
            prop_assert_eq!(read_in_place(&bytes, capacity, true), expected);
        }

        /// Every line the fast path reads, the general path reads the same.
        #[test]
        fn plain_edges_are_read_as_the_general_path_reads_them(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just("e"), Just(" "), Just("\t"), Just("\r"), Just("1"), Just("0"), Just("9"),
                    Just("+"), Just("-"), Just("x"), Just("\u{a0}"), Just("12345678901234567890"),
                ],
                0..12,
            ),
            u in any::<u64>(),
            v in any::<u64>(),
        ) {
            let line = parts.concat();
            if let Some(edge) = plain_edge(line.as_bytes()) {
                prop_assert_eq!(Some(edge), general(&line));
            }
            let line = format!("e {u}\t{v} \r");
            prop_assert_eq!(plain_edge(line.as_bytes()), Some((u, v)).filter(|_| u < 10u64.pow(19) && v < 10u64.pow(19)));
            prop_assert_eq!(general(&line), Some((u, v)));
        }
    }
}
