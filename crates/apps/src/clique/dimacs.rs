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
//! not UTF-8 elsewhere makes that line fail to parse). Every malformed input
//! is a [`DimacsError`] naming the line and what was expected there.

use std::io::BufRead;
use std::path::Path;

use super::Graph;
use super::graph::DenseBits;

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
    /// A `p` line that is not `p edge N M` or `p col N M`.
    #[error("line {line}: expected a problem line `p edge N M` or `p col N M`, found `{found}`")]
    BadHeader {
        /// The 1-based line number.
        line: usize,
        /// The offending line.
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
        /// The offending line.
        found: String,
    },
    /// An `n` line that is not `n V W` with two integers.
    #[error("line {line}: expected a vertex weight `n V W` with two integers, found `{found}`")]
    BadVertexWeight {
        /// The 1-based line number.
        line: usize,
        /// The offending line.
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
        /// The offending line.
        found: String,
    },
    /// Data after an `END` line.
    #[error("line {line}: expected nothing after `END` (line {end}), found `{found}`")]
    AfterEnd {
        /// The 1-based line number.
        line: usize,
        /// The line of `END`.
        end: usize,
        /// The offending line.
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
    let mut reader_state = Reader::default();
    for_each_line(reader, &mut reader_state)?;
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
        let text = String::from_utf8_lossy(bytes);
        let mut fields = text.split_whitespace();
        let Some(kind) = fields.next() else {
            return Ok(());
        };
        if kind.starts_with('c') {
            // A comment: the line starts with `c` (some files write `c---`).
            return Ok(());
        }
        if let Some(end) = self.end {
            return Err(DimacsError::AfterEnd { line, end, found: text.trim().to_owned() });
        }
        // The fields after the first: at most three are ever wanted, so a
        // fourth only marks the line as too long (no allocation per line).
        let mut held = [""; 4];
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
            "p" => {
                if let Some((_, first)) = self.header {
                    return Err(DimacsError::DuplicateHeader { line, first });
                }
                let bad = || DimacsError::BadHeader { line, found: text.trim().to_owned() };
                let [format, n, m] = rest[..] else {
                    return Err(bad());
                };
                if format != "edge" && format != "col" && format != "edges" {
                    return Err(bad());
                }
                let n: usize = n.parse().map_err(|_| bad())?;
                self.declared = m.parse().map_err(|_| bad())?;
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
            "e" => {
                let Some(&(n, _)) = self.header.as_ref() else {
                    return Err(DimacsError::DataBeforeHeader { line, what: "edge" });
                };
                let bad = || DimacsError::BadEdge { line, found: text.trim().to_owned() };
                let [u, v] = rest[..] else {
                    return Err(bad());
                };
                let u: u64 = u.parse().map_err(|_| bad())?;
                let v: u64 = v.parse().map_err(|_| bad())?;
                self.add(edge(u, v, n, line)?);
            }
            "n" => {
                let Some(&(n, _)) = self.header.as_ref() else {
                    return Err(DimacsError::DataBeforeHeader { line, what: "vertex weight" });
                };
                let bad = || DimacsError::BadVertexWeight { line, found: text.trim().to_owned() };
                let [v, w] = rest[..] else {
                    return Err(bad());
                };
                let v: u64 = v.parse().map_err(|_| bad())?;
                let _w: i64 = w.parse().map_err(|_| bad())?;
                vertex(v, n, line)?;
            }
            "END" if rest.is_empty() => self.end = Some(line),
            _ => return Err(DimacsError::UnknownLine { line, found: text.trim().to_owned() }),
        }
        Ok(())
    }
}

/// Reads every line of `reader` into `r`, with its 1-based number, as
/// bytes without the line end (`\n` or `\r\n`), as `crate::text::Lines`
/// reads them, but in place in the reader's buffer: a line is copied only
/// when it straddles two fills of the buffer, and is checked for UTF-8
/// only if the general path makes it text. A plain edge line is read where
/// it lies, in the same pass that finds its end ([`scan_edge`]); the end
/// of any other line is found with `memchr`.
fn for_each_line<R: BufRead>(mut reader: R, r: &mut impl LineSink) -> Result<(), DimacsError> {
    fn strip(line: &[u8]) -> &[u8] {
        line.strip_suffix(b"\r").unwrap_or(line)
    }
    let mut line = 0;
    let mut carry: Vec<u8> = Vec::new();
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            if !carry.is_empty() {
                // The last line, without a line end: nothing stripped.
                r.line(line + 1, &carry)?;
            }
            return Ok(());
        }
        let mut start = 0;
        loop {
            if carry.is_empty()
                && let Some((u, v, end)) = scan_edge(&buf[start..])
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
            let end = start + at;
            line += 1;
            if carry.is_empty() {
                r.line(line, strip(&buf[start..end]))?;
            } else {
                carry.extend_from_slice(&buf[start..end]);
                r.line(line, strip(&carry))?;
                carry.clear();
            }
            start = end + 1;
        }
        carry.extend_from_slice(&buf[start..]);
        let used = buf.len();
        reader.consume(used);
    }
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
        for_each_line(std::io::BufReader::with_capacity(capacity, bytes), &mut got).unwrap();
        got.lines
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

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The lines read in place are those of `crate::text::Lines`, with
        /// their numbers, whatever the buffer's size (lines straddling
        /// fills included).
        #[test]
        fn lines_in_place_are_the_texts_lines(
            bytes in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'\r'), Just(b'\n'), Just(0xe9u8)], 0..40),
            capacity in 1usize..8,
        ) {
            let expected: Vec<(usize, String)> =
                crate::text::Lines::new(&bytes[..]).map(Result::unwrap).collect();
            prop_assert_eq!(read_in_place(&bytes, capacity, false), expected);
        }

        /// Plain edge lines read in place, wherever the buffer's fills cut
        /// them, are the lines of `crate::text::Lines` that `plain_edge`
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
            let expected: Vec<(usize, String)> = crate::text::Lines::new(&bytes[..])
                .map(Result::unwrap)
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
