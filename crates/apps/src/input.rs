//! What the instance-file parsers ([`crate::clique::dimacs`],
//! [`crate::tsp::tsplib`], [`crate::knapsack`]) share: lines read as bytes
//! within limits, and input shown safely in their error messages.
//!
//! * **Bytes, not text.** A byte that is not UTF-8 (a Latin-1 `é` in a
//!   comment) is no reason to reject a file: a line is split into fields at
//!   whitespace (as [`str::split_whitespace`] splits it), and a field that
//!   is not UTF-8 is simply not a number or a keyword, so the line fails to
//!   parse with its line number, like any other bad text.
//! * **Limits.** No line may be longer than [`MAX_LINE_BYTES`]; a longer one
//!   is refused as soon as the limit is passed, without reading the rest of
//!   it (`/dev/zero` is one endless line). Each format also has a limit on
//!   the size of the whole input, far above its largest real instances:
//!   [`dimacs::MAX_INPUT_BYTES`](crate::clique::dimacs::MAX_INPUT_BYTES)
//!   and [`tsplib::MAX_INPUT_BYTES`](crate::tsp::tsplib::MAX_INPUT_BYTES)
//!   (1 GiB), [`tsplib::MAX_TOUR_BYTES`](crate::tsp::tsplib::MAX_TOUR_BYTES)
//!   (64 MiB), [`knapsack::MAX_INPUT_BYTES`](crate::knapsack::MAX_INPUT_BYTES)
//!   (256 MiB). Both limits are a [`LimitError`].
//! * **A byte order mark** (UTF-8, `EF BB BF`) at the start of a file is
//!   skipped.
//! * **Quoting.** Every piece of input an error message repeats goes through
//!   [`quote`]: control characters and bytes that are not UTF-8 are escaped
//!   (`\x1b`, `\u{9b}`, `\xff`), so that a file cannot set a terminal's
//!   title or clear its screen through an error message, and the text is
//!   cut after [`MAX_QUOTE_CHARS`] characters.

use std::io::{self, BufRead};

use std::ops::Range;
pub use treelb_files::text::{MAX_QUOTE_CHARS, command_line, escape, escape_path, escape_text, quote};

/// The longest line accepted, in bytes (without its line end): 1 MiB. The
/// longest lines of real instances are a few kilobytes (a row of a TSPLIB
/// matrix).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// An input beyond a limit of the reader.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    /// A line longer than [`MAX_LINE_BYTES`].
    #[error("line {line}: longer than {} (a binary file?)", size(*.limit))]
    LineTooLong {
        /// The 1-based line number.
        line: usize,
        /// The limit in bytes ([`MAX_LINE_BYTES`]).
        limit: u64,
    },
    /// An input larger than the limit of its format.
    #[error("line {line}: the input is larger than {}, the limit for {what}", size(*.limit))]
    InputTooLarge {
        /// The 1-based line that holds the first byte past the limit.
        line: usize,
        /// The limit in bytes.
        limit: u64,
        /// The format, with an article ("a DIMACS graph").
        what: &'static str,
    },
}

/// A size in bytes as people write it: `1 MiB`, `64 KiB`, `100 bytes`.
fn size(bytes: u64) -> String {
    for (unit, shift) in [("GiB", 30), ("MiB", 20), ("KiB", 10)] {
        if bytes >= 1 << shift && bytes.trailing_zeros() >= shift {
            return format!("{} {unit}", bytes >> shift);
        }
    }
    format!("{bytes} bytes")
}

// that is not UTF-8 is not whitespace).
#[inline]
pub(crate) fn space_len(bytes: &[u8]) -> usize {
    match bytes.first() {
        None => 0,
        Some(&b) if b < 0x80 => usize::from(is_ascii_space(b)),
        Some(_) => non_ascii_space_len(bytes),
    }
}

/// Whether an ASCII byte is whitespace as [`char::is_whitespace`] has it
/// (`u8::is_ascii_whitespace` leaves out the vertical tab).
#[inline(always)]
fn is_ascii_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ')
}

/// [`space_len`] of bytes that start with a byte above ASCII.
fn non_ascii_space_len(bytes: &[u8]) -> usize {
    let head = &bytes[..bytes.len().min(4)];
    let valid = match std::str::from_utf8(head) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    };
    valid.chars().next().filter(|c| c.is_whitespace()).map_or(0, char::len_utf8)
}

/// The length of the whitespace character at `bytes[i]` ([`space_len`]),
/// at the speed of a byte comparison for ASCII.
#[inline(always)]
fn space_at(bytes: &[u8], i: usize) -> usize {
    let b = bytes[i];
    if b < 0x80 { usize::from(is_ascii_space(b)) } else { non_ascii_space_len(&bytes[i..]) }
}

/// The byte ranges of the fields of `bytes`: the runs between whitespace,
/// as [`str::split_whitespace`] finds them in the text (a byte that is not
/// UTF-8 belongs to a field).
pub(crate) fn field_ranges(bytes: &[u8]) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            match space_at(bytes, i) {
                0 => break,
                n => i += n,
            }
        }
        if i == bytes.len() {
            return None;
        }
        let start = i;
        while i < bytes.len() && space_at(bytes, i) == 0 {
            i += 1;
        }
        Some(start..i)
    })
}

/// The fields of `bytes` ([`field_ranges`]).
pub(crate) fn fields(bytes: &[u8]) -> impl Iterator<Item = &[u8]> + '_ {
    field_ranges(bytes).map(move |r| &bytes[r])
}

/// `bytes` without the whitespace at either end.
pub(crate) fn trim(bytes: &[u8]) -> &[u8] {
    let start = bytes.len() - trim_start(bytes).len();
    let (mut i, mut end) = (start, start);
    while i < bytes.len() {
        match space_at(bytes, i) {
            0 => {
                i += 1;
                end = i;
            }
            n => i += n,
        }
    }
    &bytes[start..end]
}

/// `bytes` without the whitespace at the start.
pub(crate) fn trim_start(mut bytes: &[u8]) -> &[u8] {
    loop {
        match space_len(bytes) {
            0 => return bytes,
            n => bytes = &bytes[n..],
        }
    }
}

/// A field as a number, if it is UTF-8 and parses.
pub(crate) fn number<T: std::str::FromStr>(field: &[u8]) -> Option<T> {
    std::str::from_utf8(field).ok()?.parse().ok()
}

/// Line `line` of a file without the byte order mark it may start with
/// (only the first line can).
#[inline]
pub(crate) fn skip_bom(line: usize, bytes: &[u8]) -> &[u8] {
    if line == 1 { bytes.strip_prefix(BOM).unwrap_or(bytes) } else { bytes }
}

/// The lines of a reader, numbered from 1, as bytes without the line end
/// (`\n` or `\r\n`) and without a byte order mark at the start, within
/// [`MAX_LINE_BYTES`] per line and `limit` bytes in all.
pub(crate) struct Lines<R> {
    /// The reader, stopped one byte past the limit.
    reader: io::Take<R>,
    /// The line being read.
    buf: Vec<u8>,
    /// The number of the last line read.
    line: usize,
    /// The bytes read so far.
    read: u64,
    /// The most bytes the input may take.
    limit: u64,
    /// The format, for [`LimitError::InputTooLarge`].
    what: &'static str,
    /// Whether the line end of the last line read was the byte past the
    /// limit: the next read is the error.
    over: bool,
}

impl<R: BufRead> Lines<R> {
    /// The lines of `reader`, which may hold at most `limit` bytes of
    /// `what` ("a TSPLIB instance").
    pub(crate) fn new(reader: R, limit: u64, what: &'static str) -> Self {
        let reader = reader.take(limit.saturating_add(1));
        Lines { reader, buf: Vec::new(), line: 0, read: 0, limit, what, over: false }
    }

    /// The next line and its number, `None` at the end of the input. A
    /// line is read in the reader's chunks: one longer than
    /// [`MAX_LINE_BYTES`] is refused once that many bytes are read. The
    /// error of an input past the limit names the line that holds the first
    /// byte past it (its line end: the line is read, the error comes next).
    pub(crate) fn next_line<E>(&mut self) -> Result<Option<(usize, &[u8])>, E>
    where
        E: From<io::Error> + From<LimitError>,
    {
        if self.over {
            return Err(
                LimitError::InputTooLarge { line: self.line, limit: self.limit, what: self.what }.into()
            );
        }
        self.buf.clear();
        let mut any = false;
        let mut ended = false;
        while !ended {
            let available = match self.reader.fill_buf() {
                Ok(available) => available,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            };
            if available.is_empty() {
                break;
            }
            any = true;
            let take = match memchr::memchr(b'\n', available) {
                Some(at) => {
                    ended = true;
                    at
                }
                None => available.len(),
            };
            if self.buf.len() + take > MAX_LINE_BYTES {
                return Err(
                    LimitError::LineTooLong { line: self.line + 1, limit: MAX_LINE_BYTES as u64 }.into()
                );
            }
            self.buf.extend_from_slice(&available[..take]);
            let used = take + usize::from(ended);
            self.reader.consume(used);
            self.read += used as u64;
            if self.read > self.limit {
                if ended {
                    self.over = true;
                } else {
                    let (line, limit, what) = (self.line + 1, self.limit, self.what);
                    return Err(LimitError::InputTooLarge { line, limit, what }.into());
                }
            }
        }
        if !any {
            return Ok(None);
        }
        self.line += 1;
        let mut text = &self.buf[..];
        if ended {
            text = text.strip_suffix(b"\r").unwrap_or(text);
        }
        Ok(Some((self.line, skip_bom(self.line, text))))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Every line of `bytes`, as text (lossy), read through a buffer of
    /// `capacity` bytes.
    fn all_lines(bytes: &[u8], capacity: usize, limit: u64) -> Result<Vec<(usize, String)>, LimitError> {
        let mut lines = Lines::new(io::BufReader::with_capacity(capacity, bytes), limit, "a test");
        let mut all = Vec::new();
        while let Some((line, text)) = lines.next_line::<Error>().map_err(|e| e.0)? {
            all.push((line, String::from_utf8_lossy(text).into_owned()));
        }
        Ok(all)
    }

    /// The error of a test read.
    #[derive(Debug)]
    struct Error(LimitError);

    impl From<io::Error> for Error {
        fn from(e: io::Error) -> Self {
            panic!("reading memory: {e}")
        }
    }

    impl From<LimitError> for Error {
        fn from(e: LimitError) -> Self {
            Error(e)
        }
    }

    #[test]
    fn lines_are_numbered_and_any_byte_is_read() {
        let bytes: &[u8] = b"\xef\xbb\xbfc caf\xe9\r\np edge 2 1\n\ne 1 2\r";
        assert_eq!(
            all_lines(bytes, 3, 100).unwrap(),
            [
                (1, "c caf\u{FFFD}".to_owned()),
                (2, "p edge 2 1".to_owned()),
                (3, String::new()),
                (4, "e 1 2\r".to_owned()),
            ]
        );
        // Only the first line's byte order mark is skipped.
        assert_eq!(all_lines(b"a\n\xef\xbb\xbfb", 8, 100).unwrap()[1].1, "\u{feff}b");
    }

    #[test]
    fn a_long_line_is_refused_before_it_is_read_whole() {
        let endless = io::BufReader::new(io::repeat(b'0'));
        let mut lines = Lines::new(endless, u64::MAX, "a test");
        let error = lines.next_line::<Error>().unwrap_err().0;
        assert_eq!(error, LimitError::LineTooLong { line: 1, limit: MAX_LINE_BYTES as u64 });
        assert_eq!(error.to_string(), "line 1: longer than 1 MiB (a binary file?)");
        assert!(lines.buf.capacity() <= 2 * MAX_LINE_BYTES, "{}", lines.buf.capacity());
        // Up to the limit a line is read.
        let mut long = vec![b'x'; MAX_LINE_BYTES];
        long.extend_from_slice(b"\nnext\n");
        assert_eq!(all_lines(&long, 1000, u64::MAX).unwrap().len(), 2);
        long.insert(0, b'x');
        assert_eq!(
            all_lines(&long, 1000, u64::MAX),
            Err(LimitError::LineTooLong { line: 1, limit: MAX_LINE_BYTES as u64 })
        );
    }

    #[test]
    fn the_input_stops_at_its_limit() {
        let text = b"ab\ncd\nef\n";
        assert_eq!(all_lines(text, 2, 9).unwrap().len(), 3);
        for (limit, line) in [(8, 3), (6, 3), (5, 2), (3, 2), (2, 1), (0, 1)] {
            let error = all_lines(text, 2, limit).unwrap_err();
            assert_eq!(error, LimitError::InputTooLarge { line, limit, what: "a test" }, "limit {limit}");
        }
        let error = LimitError::InputTooLarge { line: 7, limit: 1 << 30, what: "a DIMACS graph" };
        assert_eq!(error.to_string(), "line 7: the input is larger than 1 GiB, the limit for a DIMACS graph");
        assert_eq!(
            (size(256 << 20), size(1000), size(3 << 10)),
            ("256 MiB".into(), "1000 bytes".into(), "3 KiB".into())
        );
    }

    #[test]
    fn fields_and_trimming_follow_str() {
        let text = " \tp\u{a0}edge 3\u{3000}1\r\n";
        let fields: Vec<&[u8]> = fields(text.as_bytes()).collect();
        let expected: Vec<&[u8]> = text.split_whitespace().map(str::as_bytes).collect();
        assert_eq!(fields, expected);
        assert_eq!(trim(text.as_bytes()), text.trim().as_bytes());
        assert_eq!(trim(b"  \xe9 x\xff  "), b"\xe9 x\xff");
        assert_eq!(number::<i64>(b"-12"), Some(-12));
        assert_eq!(number::<i64>(b"1\xe9"), None);
    }

    #[test]
    fn quotes_show_every_control_visibly() {
        assert_eq!(quote(b"\x00\x7f\r\n"), r"\x00\x7f\r\n");
        assert_eq!(quote("\u{202e}\u{200b}\u{2028}\u{feff}".as_bytes()), r"\u{202e}\u{200b}\u{2028}\u{feff}");
        // A piece is shown whole or not at all.
        let long = [&[b'y'; 58][..], b"\x1b"].concat();
        assert_eq!(quote(&long), format!("{}…", "y".repeat(58)));
        assert_eq!(quote(&[b'y'; 60]), "y".repeat(60));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The fields of any bytes are those `str::split_whitespace` finds
        /// in their lossy text, and trimming agrees with `str::trim`.
        #[test]
        fn fields_are_those_of_the_lossy_text(
            bytes in proptest::collection::vec(
                prop_oneof![
                    Just(vec![b' ']), Just(vec![b'\t']), Just(vec![0x0b]), Just(vec![b'a']), Just(vec![0xe9]),
                    Just(vec![0xe2]), Just(vec![0x80]), Just(vec![0xa8]), Just("\u{a0}".as_bytes().to_vec()),
                    Just("\u{2028}".as_bytes().to_vec()), Just("é".as_bytes().to_vec()), Just(vec![0xc2]),
                ],
                0..16,
            ),
        ) {
            let bytes = bytes.concat();
            let text = String::from_utf8_lossy(&bytes);
            let got: Vec<String> = fields(&bytes).map(|f| String::from_utf8_lossy(f).into_owned()).collect();
            let expected: Vec<&str> = text.split_whitespace().collect();
            prop_assert_eq!(got, expected);
            prop_assert_eq!(String::from_utf8_lossy(trim(&bytes)), text.trim());
        }

        /// A quote holds no control character and no more than its limit.
        #[test]
        fn quotes_hold_no_control(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let q = quote(&bytes);
            prop_assert!(!q.chars().any(char::is_control), "{:?}", q);
            prop_assert!(q.chars().count() <= MAX_QUOTE_CHARS + 1);
        }
    }
}
