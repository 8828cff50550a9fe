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
    // The header (vertex count and line), then the edges as read: the
    // graph is built at the end, in `O(n + m)` memory when it is sparse.
    let mut graph: Option<(usize, usize)> = None;
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut end: Option<usize> = None;
    let (mut declared, mut edge_lines) = (0u64, 0u64);
    let mut last = 0;
    for_each_line(reader, |line, bytes| {
        last = line;
        // The common line, `e U V` in plain decimal, read byte by byte;
        // anything else (and an edge before the header or after `END`) takes
        // the general path below, which accepts every line this one does
        // and reads it the same way.
        if let (Some((u, v)), Some(&(n, _)), None) = (plain_edge(bytes), graph.as_ref(), end) {
            edges.push(edge(u, v, n, line)?);
            edge_lines += 1;
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
        if let Some(end) = end {
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
                if let Some((_, first)) = graph {
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
                declared = m.parse().map_err(|_| bad())?;
                if n > MAX_VERTICES {
                    return Err(DimacsError::TooManyVertices { line, n });
                }
                let bytes = estimate_bytes(n);
                if bytes > MAX_GRAPH_BYTES {
                    return Err(DimacsError::TooLarge { line, n, bytes });
                }
                graph = Some((n, line));
            }
            "e" => {
                let Some(&(n, _)) = graph.as_ref() else {
                    return Err(DimacsError::DataBeforeHeader { line, what: "edge" });
                };
                let bad = || DimacsError::BadEdge { line, found: text.trim().to_owned() };
                let [u, v] = rest[..] else {
                    return Err(bad());
                };
                let u: u64 = u.parse().map_err(|_| bad())?;
                let v: u64 = v.parse().map_err(|_| bad())?;
                edges.push(edge(u, v, n, line)?);
                edge_lines += 1;
            }
            "n" => {
                let Some(&(n, _)) = graph.as_ref() else {
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
            "END" if rest.is_empty() => end = Some(line),
            _ => return Err(DimacsError::UnknownLine { line, found: text.trim().to_owned() }),
        }
        Ok(())
    })?;
    let (n, header) = graph.ok_or(DimacsError::MissingHeader { line: last + 1 })?;
    let graph = Graph::from_edges(n, &mut edges);
    let distinct = graph.edge_count() as u64;
    let mut warnings = Vec::new();
    if declared != edge_lines && declared != distinct {
        warnings.push(DimacsWarning::EdgeCount { line: header, declared, lines: edge_lines, distinct });
    }
    Ok((graph, warnings))
}

/// Calls `f` with every line of `reader` and its 1-based number, as bytes
/// without the line end (`\n` or `\r\n`), as `crate::text::Lines` reads
/// them, but in place in the reader's buffer: a line is copied only when
/// it straddles two fills of the buffer, and is checked for UTF-8 only if
/// `f` makes it text (the edge lines of a DIMACS file are read as bytes by
/// [`plain_edge`]). p_hat700-2 (1.3 MB): 77 M → 53 M instructions.
fn for_each_line<R: BufRead>(
    mut reader: R,
    mut f: impl FnMut(usize, &[u8]) -> Result<(), DimacsError>,
) -> Result<(), DimacsError> {
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
                f(line + 1, &carry)?;
            }
            return Ok(());
        }
        let mut start = 0;
        while let Some(at) = buf[start..].iter().position(|&b| b == b'\n') {
            let end = start + at;
            line += 1;
            if carry.is_empty() {
                f(line, strip(&buf[start..end]))?;
            } else {
                carry.extend_from_slice(&buf[start..end]);
                f(line, strip(&carry))?;
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
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut i = 0;
    while i < line.len() && blank(line[i]) {
        i += 1;
    }
    if line.get(i) != Some(&b'e') {
        return None;
    }
    i += 1;
    let mut numbers = [0u64; 2];
    for number in &mut numbers {
        let start = i;
        while i < line.len() && blank(line[i]) {
            i += 1;
        }
        if i == start {
            return None;
        }
        let digits = i;
        while i < line.len() && line[i].is_ascii_digit() {
            *number = *number * 10 + u64::from(line[i] - b'0');
            i += 1;
        }
        if i == digits || i - digits > 19 {
            return None;
        }
    }
    line[i..].iter().all(|&b| blank(b) || b == b'\r').then_some((numbers[0], numbers[1]))
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
            let mut got = Vec::new();
            for_each_line(std::io::BufReader::with_capacity(capacity, &bytes[..]), |line, text| {
                got.push((line, String::from_utf8_lossy(text).into_owned()));
                Ok(())
            })
            .unwrap();
            prop_assert_eq!(got, expected);
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
