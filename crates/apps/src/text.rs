//! Reading the lines of instance files as bytes: a byte that is not UTF-8
//! (a Latin-1 `é` in a comment) is no reason to reject a file; it becomes
//! U+FFFD, so that a comment keeps whatever it says and any other line that
//! holds one fails to parse with its line number, like any other bad text.

use std::borrow::Cow;
use std::io::{self, BufRead};

/// The lines of `reader` with their 1-based numbers, without the line end
/// (`\n` or `\r\n`); bytes that are not UTF-8 become U+FFFD.
pub(crate) struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    line: usize,
}

impl<R: BufRead> Lines<R> {
    pub(crate) fn new(reader: R) -> Self {
        Lines { reader, buf: Vec::new(), line: 0 }
    }
}

impl<R: BufRead> Lines<R> {
    /// The next line, borrowed from the reader's buffer: no allocation
    /// unless it holds bytes that are not UTF-8 (large files of short
    /// lines, such as a DIMACS graph's edges, read at the speed of the
    /// parsing itself).
    pub(crate) fn read(&mut self) -> Option<io::Result<(usize, Cow<'_, str>)>> {
        self.buf.clear();
        match self.reader.read_until(b'\n', &mut self.buf) {
            Ok(0) => None,
            Ok(_) => {
                self.line += 1;
                if self.buf.last() == Some(&b'\n') {
                    self.buf.pop();
                    if self.buf.last() == Some(&b'\r') {
                        self.buf.pop();
                    }
                }
                Some(Ok((self.line, String::from_utf8_lossy(&self.buf))))
            }
            Err(e) => Some(Err(e)),
        }
    }
}

impl<R: BufRead> Iterator for Lines<R> {
    type Item = io::Result<(usize, String)>;

    fn next(&mut self) -> Option<Self::Item> {
        self.read().map(|read| read.map(|(line, text)| (line, text.into_owned())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_numbered_and_any_byte_is_read() {
        let bytes: &[u8] = b"c caf\xe9\r\np edge 2 1\n\ne 1 2";
        let lines: Vec<(usize, String)> = Lines::new(bytes).map(Result::unwrap).collect();
        assert_eq!(
            lines,
            [
                (1, "c caf\u{FFFD}".to_owned()),
                (2, "p edge 2 1".to_owned()),
                (3, String::new()),
                (4, "e 1 2".to_owned())
            ]
        );
    }
}
