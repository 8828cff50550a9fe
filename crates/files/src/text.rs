//! Text shown to people: every piece of input a message or a report
//! repeats — a name read from a file, a file name from the command line —
//! goes through [`quote`] or [`escape`], so that a file cannot set a
//! terminal's title, clear its screen or reorder the text around it.
//!
//! Control characters (C0 and C1, DEL) and the invisible characters that
//! reorder or hide text are escaped (`\x1b`, `\u{9b}`, `\u{202e}`), and a
//! byte that is not UTF-8 is shown as `\xff`.

/// The most characters of input an error message quotes; a longer quote is
/// cut there and ends with `…`.
pub const MAX_QUOTE_CHARS: usize = 60;

/// `bytes` as an error message may show them: valid UTF-8 as it is, except
/// control characters (C0 and C1, DEL) and the invisible characters that
/// reorder or hide text (bidirectional controls, zero-width characters, the
/// line and paragraph separators, a byte order mark), which are escaped as
/// `\t`, `\r`, `\n`, `\x1b`, `\u{9b}`, `\u{202e}`; a byte that is not UTF-8
/// is shown as `\xff`. The result holds at most [`MAX_QUOTE_CHARS`]
/// characters and then `…`.
///
/// ```
/// use treelb_files::text::quote;
/// assert_eq!(quote(b"e 1 x"), "e 1 x");
/// assert_eq!(quote(b"\x1b]0;PWNED\x07\x1b[2J"), r"\x1b]0;PWNED\x07\x1b[2J");
/// assert_eq!(quote("caf\u{e9} \u{9b}".as_bytes()), r"café \u{9b}");
/// assert_eq!(quote(b"caf\xe9\tau lait"), r"caf\xe9\tau lait");
/// assert_eq!(quote(&[b'x'; 100]), format!("{}…", "x".repeat(60)));
/// ```
pub fn quote(bytes: &[u8]) -> String {
    quote_within(bytes, MAX_QUOTE_CHARS)
}

/// `bytes` escaped as [`quote`] escapes them, but not cut: for what a
/// message or a report must show whole, like a file name given on the
/// command line or a name read from a file.
///
/// ```
/// use treelb_files::text::escape;
/// let long = format!("runs/{}/trace.csv", "x".repeat(100));
/// assert_eq!(escape(long.as_bytes()), long);
/// assert_eq!(escape(b"a\x1b]0;PWNED\x07.tsp"), r"a\x1b]0;PWNED\x07.tsp");
/// ```
pub fn escape(bytes: &[u8]) -> String {
    quote_within(bytes, usize::MAX)
}

/// `text` with its control and invisible characters escaped as [`quote`]
/// escapes them, not cut; borrowed when there is nothing to escape (the
/// common case: a report's lines).
///
/// ```
/// use treelb_files::text::escape_text;
/// assert!(matches!(escape_text("kroA200 (200 nodes)"), std::borrow::Cow::Borrowed(_)));
/// assert_eq!(escape_text("x\u{1b}[2J\u{202e}"), r"x\x1b[2J\u{202e}");
/// ```
pub fn escape_text(text: &str) -> std::borrow::Cow<'_, str> {
    if text.chars().any(escaped) {
        std::borrow::Cow::Owned(escape(text.as_bytes()))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// Whether [`quote`] shows `c` escaped: control characters (C0 and C1,
/// DEL) and the invisible characters that reorder or hide text.
fn escaped(c: char) -> bool {
    matches!(
        c,
        '\0'..='\x1f'
            | '\x7f'
            | '\u{80}'..='\u{9f}'
            | '\u{61c}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{2069}'
            | '\u{feff}'
    )
}

/// A path as a message shows it: its bytes through [`escape`].
///
/// ```
/// use std::path::Path;
/// use treelb_files::text::escape_path;
/// assert_eq!(escape_path(Path::new("out/\u{1b}[2J.csv")), r"out/\x1b[2J.csv");
/// ```
pub fn escape_path(path: &std::path::Path) -> String {
    escape(path.as_os_str().as_encoded_bytes())
}

/// [`quote`] cut after `limit` characters.
fn quote_within(bytes: &[u8], limit: usize) -> String {
    let mut out = Quote { text: String::new(), chars: 0, limit };
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if !out.push_char(c) {
                return out.cut();
            }
        }
        for &b in chunk.invalid() {
            if !out.push(&format!("\\x{b:02x}")) {
                return out.cut();
            }
        }
    }
    out.text
}

/// A quote being written: its text and how many characters it holds.
struct Quote {
    text: String,
    chars: usize,
    /// The most characters it may hold.
    limit: usize,
}

impl Quote {
    /// One character, escaped if it must be; `false` if it does not fit.
    fn push_char(&mut self, c: char) -> bool {
        match c {
            '\t' => self.push("\\t"),
            '\n' => self.push("\\n"),
            '\r' => self.push("\\r"),
            '\0'..='\x1f' | '\x7f' => self.push(&format!("\\x{:02x}", c as u32)),
            c if escaped(c) => self.push(&format!("\\u{{{:x}}}", c as u32)),
            c => self.push(c.encode_utf8(&mut [0; 4])),
        }
    }

    /// A piece of the quote, whole or not at all; `false` if it does not
    /// fit in its limit.
    fn push(&mut self, piece: &str) -> bool {
        let n = piece.chars().count();
        if self.chars.saturating_add(n) > self.limit {
            return false;
        }
        self.text.push_str(piece);
        self.chars += n;
        true
    }

    /// The quote of an input that goes on.
    fn cut(mut self) -> String {
        self.text.push('…');
        self.text
    }
}

/// A rate or a count for people: `4.91 M`, `12.00 k`, `7`.
///
/// ```
/// use treelb_files::text::human_rate;
/// assert_eq!(human_rate(4_910_000.0), "4.91 M");
/// assert_eq!(human_rate(999.0), "999");
/// ```
pub fn human_rate(x: f64) -> String {
    match x {
        x if x >= 1e9 => format!("{:.2} G", x / 1e9),
        x if x >= 1e6 => format!("{:.2} M", x / 1e6),
        x if x >= 1e3 => format!("{:.2} k", x / 1e3),
        x => format!("{x:.0}"),
    }
}

/// A command line as one string a POSIX shell reads back the same: each
/// argument quoted where it holds anything but letters, digits and
/// `-_=:,./+@%`.
///
/// ```
/// use treelb_files::text::command_line;
/// let args = ["bench", "--out", "a b", "it's"].map(String::from);
/// assert_eq!(command_line("treelb", args), r"treelb bench --out 'a b' 'it'\''s'");
/// ```
pub fn command_line(program: &str, args: impl IntoIterator<Item = String>) -> String {
    let quote = |a: String| {
        if !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "-_=:,./+@%".contains(c)) {
            a
        } else {
            format!("'{}'", a.replace('\'', r"'\''"))
        }
    };
    std::iter::once(program.to_owned()).chain(args.into_iter().map(quote)).collect::<Vec<_>>().join(" ")
}
