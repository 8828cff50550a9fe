//! Traces of a run: when each PE was working, requesting, idle, splitting
//! or sending.
//!
//! In a traced run (`Config::trace` of the threads and the MPI runtimes),
//! every PE records its state changes into its own buffer: a timestamp (nanoseconds since the run
//! started, from one `Instant` shared by all PEs) and the new state, packed
//! into one `u64`, pushed onto a `Vec` reserved before the run. No locks, no
//! atomics, nothing shared: a PE only writes its own buffer, and the buffers
//! are collected after the PEs have stopped. Only *changes* are recorded, at
//! the places where the loop changes what it does (the start of a busy
//! phase, a split, a request, a failed request), never per unit of work;
//! the finest grain is one slice of Δt units. Without tracing the PEs hold
//! no buffer and each of those places costs one predictable branch.
//!
//! Beside its states, a PE records [`Mark`]s in a second buffer: each
//! request it sends (and to whom), each piece it gives or receives (and
//! to or from whom), and the units of work each busy phase did. They are
//! what a replay in the simulator compares and measures, and what the
//! arrows between PEs of the Chrome trace-event export ([`Trace::write_chrome`],
//! for Perfetto) are drawn from.
//!
//! After the run, the events become [`Interval`]s that tile `[0, wall]` for
//! every PE: [`Trace`]. It writes and reads a CSV file that a person can
//! read and a program can parse ([`Trace::write_csv`], [`Trace::parse`]):
//!
//! ```text
//! # any number of comment lines
//! pe,start_ns,end_ns,state
//! 0,0,18211,splitting
//! 0,18211,40027,idle
//! 0,40027,1296002,working
//! pe,at_ns,mark,value
//! 0,18000,give,1
//! 1,40020,receive,0
//! 0,1296002,worked,331872
//! ```
//!
//! The second header, [`MARKS_HEADER`], and the marks after it are absent
//! from a trace without marks.
//!
//! ```
//! use treelb::trace::{Interval, State, Trace};
//!
//! let trace = Trace {
//!     notes: vec!["a hand-made trace".into()],
//!     wall_ns: 100,
//!     pes: vec![vec![
//!         Interval { start_ns: 0, end_ns: 60, state: State::Working },
//!         Interval { start_ns: 60, end_ns: 100, state: State::Idle },
//!     ]],
//!     marks: vec![],
//! };
//! let mut csv = Vec::new();
//! trace.write_csv(&mut csv).unwrap();
//! let back = Trace::parse(std::str::from_utf8(&csv).unwrap()).unwrap();
//! assert_eq!(back, trace);
//! assert_eq!(back.time_in(0, State::Working), 60);
//! ```

use std::fmt;
use std::io::{self, Write};
use std::str::FromStr;
use std::time::Instant;

use serde::{Deserialize, Serialize};

/// What a PE is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum State {
    /// Working a piece (between polls of its request slot or pushes).
    Working = 0,
    /// Without work, with a request out: waiting for the answer (random
    /// polling and the other stealing strategies; master–worker: waiting
    /// on the central pool).
    Requesting = 1,
    /// Without work and without a request out: between requests after a
    /// rejection, waiting for a push into its pool, starting, or done.
    Idle = 2,
    /// Splitting its piece for another PE (answering a request, or pushing).
    Splitting = 3,
    /// Handing the part (or "no work") to the other PE.
    Sending = 4,
}

impl State {
    /// Every state, in the order of the plots' stacks (working at the bottom).
    pub const ALL: [State; 5] =
        [State::Working, State::Splitting, State::Sending, State::Requesting, State::Idle];

    /// The name in trace files: `working`, `requesting`, `idle`, `splitting`, `sending`.
    pub fn name(self) -> &'static str {
        match self {
            State::Working => "working",
            State::Requesting => "requesting",
            State::Idle => "idle",
            State::Splitting => "splitting",
            State::Sending => "sending",
        }
    }

    fn from_bits(bits: u64) -> State {
        match bits {
            0 => State::Working,
            1 => State::Requesting,
            3 => State::Splitting,
            4 => State::Sending,
            _ => State::Idle,
        }
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for State {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        State::ALL.into_iter().find(|st| st.name() == s).ok_or_else(|| {
            let names: Vec<_> = State::ALL.iter().map(|st| st.name()).collect();
            format!("unknown state `{s}` (expected one of: {})", names.join(", "))
        })
    }
}

/// Bits of a packed event that hold the state.
const STATE_BITS: u32 = 3;

/// Events reserved per PE before the run (8 bytes each).
const RESERVED_EVENTS: usize = 4096;

/// One PE's recorder: its state changes, packed as `ns << 3 | state`, and
/// its marks; a driver keeps one per PE of a traced run.
#[derive(Debug)]
pub struct Tracer {
    start: Instant,
    current: State,
    events: Vec<u64>,
    marks: Vec<Mark>,
}

impl Tracer {
    /// A recorder whose PE is idle from `start` on.
    pub fn new(start: Instant) -> Self {
        Tracer {
            start,
            current: State::Idle,
            events: Vec::with_capacity(RESERVED_EVENTS),
            marks: Vec::with_capacity(RESERVED_EVENTS),
        }
    }

    /// Something happened now (a request, a piece given or received, a
    /// busy phase ended).
    #[inline]
    pub fn mark(&mut self, what: What) {
        let at_ns = self.start.elapsed().as_nanos() as u64;
        self.marks.push(Mark { at_ns, what });
    }

    /// The PE enters `state` now (nothing is recorded if it is in it already).
    #[inline]
    pub fn enter(&mut self, state: State) {
        if state != self.current {
            let ns = self.start.elapsed().as_nanos() as u64;
            self.record(ns, state);
        }
    }

    /// The PE enters `state` at `ns` nanoseconds after the start.
    pub fn record(&mut self, ns: u64, state: State) {
        self.current = state;
        self.events.push(ns << STATE_BITS | state as u64);
    }

    /// The intervals from 0 to `wall_ns` (see [`finish_intervals`](Self::finish_intervals))
    /// and the marks, clamped into `[0, wall_ns]`.
    pub fn finish(mut self, wall_ns: u64) -> (Vec<Interval>, Vec<Mark>) {
        let mut marks = std::mem::take(&mut self.marks);
        let mut at = 0;
        for m in &mut marks {
            m.at_ns = m.at_ns.clamp(at, wall_ns);
            at = m.at_ns;
        }
        (self.finish_intervals(wall_ns), marks)
    }

    /// The intervals from 0 to `wall_ns`: the PE is idle until its first
    /// event; empty intervals are dropped and equal neighbours merged.
    pub fn finish_intervals(self, wall_ns: u64) -> Vec<Interval> {
        let mut intervals: Vec<Interval> = Vec::with_capacity(self.events.len() + 1);
        let mut at = 0;
        let mut state = State::Idle;
        let close = |intervals: &mut Vec<Interval>, end: u64, state: State, start: u64| {
            if end <= start {
                return;
            }
            match intervals.last_mut() {
                Some(last) if last.state == state => last.end_ns = end,
                _ => intervals.push(Interval { start_ns: start, end_ns: end, state }),
            }
        };
        for &event in &self.events {
            // A clock that ran backwards or past the end is clamped.
            let ns = (event >> STATE_BITS).clamp(at, wall_ns);
            close(&mut intervals, ns, state, at);
            at = ns;
            state = State::from_bits(event & ((1 << STATE_BITS) - 1));
        }
        close(&mut intervals, wall_ns, state, at);
        intervals
    }
}

/// A PE was in `state` from `start_ns` (inclusive) to `end_ns` (exclusive),
/// in nanoseconds since the run started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interval {
    /// When the PE entered the state.
    pub start_ns: u64,
    /// When it left it.
    pub end_ns: u64,
    /// The state.
    pub state: State,
}

impl Interval {
    /// The length in nanoseconds.
    pub fn len_ns(&self) -> u64 {
        self.end_ns - self.start_ns
    }
}

/// Something a PE did at one moment, beside its states: a request sent, a
/// piece given or received, a busy phase ended with the units it worked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum What {
    /// It asked PE `to` for work.
    Request {
        /// The PE asked.
        to: usize,
    },
    /// It sent a piece to PE `to` (an answer with work, or a push).
    Give {
        /// The receiving PE.
        to: usize,
    },
    /// It got a piece from PE `from` (an answer with work, or a pushed
    /// piece taken from its pool).
    Receive {
        /// The PE that sent it.
        from: usize,
    },
    /// A busy phase ended: the PE worked `units` units of work in it (the
    /// piece it held, less what it gave away meanwhile).
    Worked {
        /// Units of work done in the phase.
        units: u64,
    },
}

impl What {
    /// The name in trace files: `request`, `give`, `receive`, `worked`.
    pub fn name(self) -> &'static str {
        match self {
            What::Request { .. } => "request",
            What::Give { .. } => "give",
            What::Receive { .. } => "receive",
            What::Worked { .. } => "worked",
        }
    }

    /// The number in trace files: the other PE, or the units worked.
    pub fn value(self) -> u64 {
        match self {
            What::Request { to } | What::Give { to } => to as u64,
            What::Receive { from } => from as u64,
            What::Worked { units } => units,
        }
    }

    /// The mark named `name` with the number `value` (see [`name`](Self::name)).
    pub fn from_name(name: &str, value: u64) -> Option<What> {
        let pe = usize::try_from(value).ok();
        Some(match name {
            "request" => What::Request { to: pe? },
            "give" => What::Give { to: pe? },
            "receive" => What::Receive { from: pe? },
            "worked" => What::Worked { units: value },
            _ => return None,
        })
    }
}

/// A [`What`] at `at_ns` nanoseconds since the run started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    /// When.
    pub at_ns: u64,
    /// What.
    pub what: What,
}

/// What every PE did when: per PE, its intervals in time order, and the
/// marks of its requests, of the pieces it gave and received and of the
/// work of its busy phases.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trace {
    /// Free text, written as the file's comment lines (e.g. the command
    /// that made the run).
    pub notes: Vec<String>,
    /// The length of the run in nanoseconds (in a trace of a run, every PE's
    /// intervals end there; a parsed trace: the latest end).
    pub wall_ns: u64,
    /// Per PE, its intervals in time order, without overlaps.
    pub pes: Vec<Vec<Interval>>,
    /// Per PE, its marks in time order (empty in a trace of states alone;
    /// may be shorter than `pes`: PEs past its end have none).
    pub marks: Vec<Vec<Mark>>,
}

/// The header line of a trace file.
pub const CSV_HEADER: &str = "pe,start_ns,end_ns,state";

/// The header line of a trace file's second part, its marks.
pub const MARKS_HEADER: &str = "pe,at_ns,mark,value";

/// A trace file that cannot be read: where, and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The line, from 1.
    pub line: usize,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

impl Trace {
    /// Nanoseconds that PE `pe` spent in `state`.
    pub fn time_in(&self, pe: usize, state: State) -> u64 {
        self.pes.get(pe).map_or(0, |iv| iv.iter().filter(|i| i.state == state).map(Interval::len_ns).sum())
    }

    /// The share of all PE-time spent in each state, in the order of
    /// [`State::ALL`]; zeros for an empty trace.
    pub fn shares(&self) -> [f64; 5] {
        let mut ns = [0u64; 5];
        for interval in self.pes.iter().flatten() {
            ns[slot(interval.state)] += interval.len_ns();
        }
        let total: u64 = ns.iter().sum();
        ns.map(|n| if total == 0 { 0.0 } else { n as f64 / total as f64 })
    }

    /// The run cut into `buckets` equal spans of `[0, wall]`: in each, the
    /// mean fraction of the PEs in each state, in the order of
    /// [`State::ALL`] (time a PE has no interval for counts in none).
    ///
    /// ```
    /// use treelb::trace::{Interval, State, Trace};
    /// let w = |s, e| Interval { start_ns: s, end_ns: e, state: State::Working };
    /// let i = |s, e| Interval { start_ns: s, end_ns: e, state: State::Idle };
    /// let t = Trace { pes: vec![vec![w(0, 100)], vec![i(0, 50), w(50, 100)]], wall_ns: 100, ..Trace::default() };
    /// let b = t.buckets(2);
    /// assert_eq!(b[0][0], 0.5); // working in the first half: one PE of two
    /// assert_eq!(b[1][0], 1.0);
    /// assert_eq!(b[0][4], 0.5); // idle
    /// ```
    pub fn buckets(&self, buckets: usize) -> Vec<[f64; 5]> {
        let pes = self.pes.len().max(1) as f64;
        let sums = bucket_sums(self.pes.iter().flatten(), self.wall_ns, buckets);
        let width = self.wall_ns.max(1) as f64 / sums.len() as f64;
        sums.into_iter().map(|s| s.map(|v| v / (width * pes))).collect()
    }

    /// Like [`buckets`](Self::buckets) for PE `pe` alone: the fraction of
    /// each span it spent in each state.
    pub fn pe_buckets(&self, pe: usize, buckets: usize) -> Vec<[f64; 5]> {
        let intervals = self.pes.get(pe).map_or(&[][..], Vec::as_slice);
        let sums = bucket_sums(intervals.iter(), self.wall_ns, buckets);
        let width = self.wall_ns.max(1) as f64 / sums.len() as f64;
        sums.into_iter().map(|s| s.map(|v| v / width)).collect()
    }

    /// Writes the trace as CSV: the notes as `# ` comment lines, the header
    /// [`CSV_HEADER`], then one line per interval, PE by PE.
    pub fn write_csv<W: Write>(&self, mut out: W) -> io::Result<()> {
        // Formatted by hand into a buffer: a trace can have millions of lines.
        let mut buf = Vec::with_capacity(1 << 16);
        for line in self.notes.iter().flat_map(|n| if n.is_empty() { vec![""] } else { n.lines().collect() })
        {
            if line.is_empty() {
                writeln!(buf, "#")?;
            } else {
                writeln!(buf, "# {line}")?;
            }
        }
        writeln!(buf, "{CSV_HEADER}")?;
        for (pe, intervals) in self.pes.iter().enumerate() {
            for i in intervals {
                push_u64(&mut buf, pe as u64);
                buf.push(b',');
                push_u64(&mut buf, i.start_ns);
                buf.push(b',');
                push_u64(&mut buf, i.end_ns);
                buf.push(b',');
                buf.extend_from_slice(i.state.name().as_bytes());
                buf.push(b'\n');
                if buf.len() > (1 << 16) - 128 {
                    out.write_all(&buf)?;
                    buf.clear();
                }
            }
        }
        if self.marks.iter().any(|m| !m.is_empty()) {
            writeln!(buf, "{MARKS_HEADER}")?;
            for (pe, marks) in self.marks.iter().enumerate() {
                for m in marks {
                    push_u64(&mut buf, pe as u64);
                    buf.push(b',');
                    push_u64(&mut buf, m.at_ns);
                    buf.push(b',');
                    buf.extend_from_slice(m.what.name().as_bytes());
                    buf.push(b',');
                    push_u64(&mut buf, m.what.value());
                    buf.push(b'\n');
                    if buf.len() > (1 << 16) - 128 {
                        out.write_all(&buf)?;
                        buf.clear();
                    }
                }
            }
        }
        out.write_all(&buf)?;
        out.flush()
    }

    /// [`parse`](Self::parse) for the bytes of a file: bytes that are not
    /// UTF-8 (a Latin-1 letter in a note) become U+FFFD, so that a note keeps
    /// whatever it says and any other line that holds one fails with its
    /// line number.
    ///
    /// ```
    /// use treelb::trace::{Trace, CSV_HEADER};
    /// let file = format!("# caf\u{e9} note\n{CSV_HEADER}\n0,0,5,working\n").into_bytes();
    /// let mut latin1 = file.clone();
    /// latin1.splice(5..7, [0xE9]); // the é as one Latin-1 byte
    /// assert_eq!(Trace::parse_bytes(&latin1).unwrap().wall_ns, 5);
    /// let e = Trace::parse_bytes(b"pe,start_ns,end_ns,state\n0,0,\xff,working\n").unwrap_err();
    /// assert_eq!(e.line, 2);
    /// ```
    pub fn parse_bytes(bytes: &[u8]) -> Result<Trace, ParseError> {
        Trace::parse(&String::from_utf8_lossy(bytes))
    }

    /// Reads a trace written by [`write_csv`](Self::write_csv) (or by hand):
    /// `#` lines are notes, blank lines are skipped, the first other line is
    /// the header; every row names a PE, a start, an end not before the
    /// start and a state, and starts no earlier than the end of the PE's
    /// row before. PEs without rows have no intervals. A line
    /// [`MARKS_HEADER`] starts the marks: every row names a PE, a time not
    /// before the PE's mark before, a mark (`request`, `give`, `receive`,
    /// `worked`) and its number (the other PE, or the units worked).
    pub fn parse(text: &str) -> Result<Trace, ParseError> {
        let mut trace = Trace::default();
        let mut header = false;
        let mut in_marks = false;
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            let fail = |message: String| ParseError { line, message };
            let row = raw.trim();
            if let Some(note) = raw.trim_start().strip_prefix('#') {
                trace.notes.push(note.strip_prefix(' ').unwrap_or(note).to_owned());
                continue;
            }
            if row.is_empty() {
                continue;
            }
            if !header {
                if row != CSV_HEADER {
                    return Err(fail(format!("expected the header `{CSV_HEADER}`, found `{}`", clip(row))));
                }
                header = true;
                continue;
            }
            if row == MARKS_HEADER && !in_marks {
                in_marks = true;
                continue;
            }
            let fields: Vec<&str> = row.split(',').map(str::trim).collect();
            if in_marks {
                trace.parse_mark(&fields, row).map_err(fail)?;
                continue;
            }
            if fields.len() != 4 {
                return Err(fail(format!(
                    "expected 4 fields `pe,start_ns,end_ns,state`, found {}: `{}`",
                    fields.len(),
                    clip(row)
                )));
            }
            let number = |what: &str, value: &str| {
                value.parse::<u64>().map_err(|_| {
                    fail(format!("{what} must be a non-negative integer, found `{}`", clip(value)))
                })
            };
            let pe = number("pe", fields[0])?;
            let pe = usize::try_from(pe)
                .ok()
                .filter(|&pe| pe < 1 << 20)
                .ok_or_else(|| fail(format!("pe {pe} is too large")))?;
            let start_ns = number("start_ns", fields[1])?;
            let end_ns = number("end_ns", fields[2])?;
            if end_ns < start_ns {
                return Err(fail(format!("end_ns {end_ns} is before start_ns {start_ns}")));
            }
            let state: State = fields[3].parse().map_err(fail)?;
            if trace.pes.len() <= pe {
                trace.pes.resize_with(pe + 1, Vec::new);
            }
            let intervals = &mut trace.pes[pe];
            if let Some(last) = intervals.last()
                && start_ns < last.end_ns
            {
                return Err(fail(format!(
                    "PE {pe}'s interval starts at {start_ns}, before its previous one ends ({})",
                    last.end_ns
                )));
            }
            intervals.push(Interval { start_ns, end_ns, state });
            trace.wall_ns = trace.wall_ns.max(end_ns);
        }
        if !header {
            let line = text.lines().count().max(1);
            return Err(ParseError { line, message: format!("no header `{CSV_HEADER}`: not a trace file") });
        }
        Ok(trace)
    }

    /// Adds the PEs of `other` after this trace's, their times shifted by
    /// `offset_ns` (positive: later; times clamped at 0): how a trace of
    /// PEs on several clocks becomes one, given each clock's offset from
    /// the first. The wall becomes the latest end; the notes stay.
    ///
    /// ```
    /// use treelb::trace::{Interval, State, Trace};
    /// let w = |s, e| Interval { start_ns: s, end_ns: e, state: State::Working };
    /// let mut a = Trace { wall_ns: 10, pes: vec![vec![w(0, 10)]], ..Trace::default() };
    /// let b = Trace { wall_ns: 10, pes: vec![vec![w(0, 10)]], ..Trace::default() };
    /// a.append_shifted(b, -3);
    /// assert_eq!(a.pes[1], [w(0, 7)]);
    /// assert_eq!(a.wall_ns, 10);
    /// ```
    pub fn append_shifted(&mut self, other: Trace, offset_ns: i64) {
        let shift = |ns: u64| (ns as i64).saturating_add(offset_ns).max(0) as u64;
        let before = self.pes.len();
        self.marks.resize_with(before, Vec::new);
        for mut intervals in other.pes {
            for i in &mut intervals {
                i.start_ns = shift(i.start_ns);
                i.end_ns = shift(i.end_ns);
            }
            intervals.retain(|i| i.end_ns > i.start_ns);
            if let Some(last) = intervals.last() {
                self.wall_ns = self.wall_ns.max(last.end_ns);
            }
            self.pes.push(intervals);
        }
        for (pe, mut marks) in other.marks.into_iter().enumerate() {
            for m in &mut marks {
                m.at_ns = shift(m.at_ns);
            }
            self.marks.resize_with(self.marks.len().max(before + pe + 1), Vec::new);
            self.marks[before + pe] = marks;
        }
    }

    /// One row of the marks, into `self.marks`.
    fn parse_mark(&mut self, fields: &[&str], row: &str) -> Result<(), String> {
        if fields.len() != 4 {
            return Err(format!(
                "expected 4 fields `{MARKS_HEADER}`, found {}: `{}`",
                fields.len(),
                clip(row)
            ));
        }
        let number = |what: &str, value: &str| {
            value
                .parse::<u64>()
                .map_err(|_| format!("{what} must be a non-negative integer, found `{}`", clip(value)))
        };
        let pe = number("pe", fields[0])?;
        let pe = usize::try_from(pe)
            .ok()
            .filter(|&pe| pe < 1 << 20)
            .ok_or_else(|| format!("pe {pe} is too large"))?;
        let at_ns = number("at_ns", fields[1])?;
        let value = number("value", fields[3])?;
        let what = What::from_name(fields[2], value).ok_or_else(|| {
            format!("unknown mark `{}` (expected one of: request, give, receive, worked)", clip(fields[2]))
        })?;
        if self.marks.len() <= pe {
            self.marks.resize_with(pe + 1, Vec::new);
        }
        let marks = &mut self.marks[pe];
        if let Some(last) = marks.last()
            && at_ns < last.at_ns
        {
            return Err(format!("PE {pe}'s mark at {at_ns} is before its previous one ({})", last.at_ns));
        }
        marks.push(Mark { at_ns, what });
        Ok(())
    }

    /// The pieces that moved between PEs: `(from, sent_ns, to,
    /// received_ns)`, in the order they were sent. A [`What::Give`] of PE
    /// `a` to `b` is paired with `b`'s next unpaired [`What::Receive`] from
    /// `a` (first sent, first received; a piece still on its way at the
    /// end has none and is left out). Pieces through master–worker's
    /// central pool are given to the hub, not to a PE, and are not moves.
    ///
    /// ```
    /// use treelb::trace::{Mark, Trace, What};
    /// let m = |at_ns, what| Mark { at_ns, what };
    /// let t = Trace {
    ///     marks: vec![
    ///         vec![m(5, What::Give { to: 1 }), m(9, What::Give { to: 1 })],
    ///         vec![m(7, What::Receive { from: 0 }), m(12, What::Receive { from: 0 })],
    ///     ],
    ///     ..Trace::default()
    /// };
    /// assert_eq!(t.moves(), [(0, 5, 1, 7), (0, 9, 1, 12)]);
    /// ```
    pub fn moves(&self) -> Vec<(usize, u64, usize, u64)> {
        use std::collections::{HashMap, VecDeque};
        let mut received: HashMap<(usize, usize), VecDeque<u64>> = HashMap::new();
        for (pe, marks) in self.marks.iter().enumerate() {
            for m in marks {
                if let What::Receive { from } = m.what {
                    received.entry((from, pe)).or_default().push_back(m.at_ns);
                }
            }
        }
        let mut moves = Vec::new();
        for (pe, marks) in self.marks.iter().enumerate() {
            for m in marks {
                if let What::Give { to } = m.what
                    && let Some(at) = received.get_mut(&(pe, to)).and_then(VecDeque::pop_front)
                {
                    moves.push((pe, m.at_ns, to, at.max(m.at_ns)));
                }
            }
        }
        moves.sort_by_key(|&(from, sent, _, _)| (sent, from));
        moves
    }

    /// Writes the trace in the Chrome trace-event format (JSON, the format
    /// Perfetto and `chrome://tracing` open): one track per PE (process 0,
    /// thread = PE, named by metadata events), a complete event (`"ph":
    /// "X"`) per interval other than idle, an instant event (`"ph": "i"`)
    /// per request, and a flow (`"ph": "s"` at the sender, `"ph": "f"` at
    /// the receiver, one id each) per piece that moved ([`moves`](Self::moves)).
    /// Times are microseconds with nanosecond decimals; the notes are the
    /// file's `metadata`.
    ///
    /// ```
    /// use treelb::trace::{Interval, Mark, State, Trace, What};
    /// let w = |s, e| Interval { start_ns: s, end_ns: e, state: State::Working };
    /// let t = Trace {
    ///     notes: vec!["a \"quoted\" note".into()],
    ///     wall_ns: 2000,
    ///     pes: vec![vec![w(0, 2000)], vec![w(1500, 2000)]],
    ///     marks: vec![vec![Mark { at_ns: 1000, what: What::Give { to: 1 } }],
    ///                 vec![Mark { at_ns: 1500, what: What::Receive { from: 0 } }]],
    /// };
    /// let mut json = Vec::new();
    /// t.write_chrome(&mut json).unwrap();
    /// let json = String::from_utf8(json).unwrap();
    /// assert!(json.contains(r#""ph":"s""#) && json.contains(r#""ph":"f""#));
    /// assert!(json.contains(r#"a \"quoted\" note"#));
    /// ```
    pub fn write_chrome<W: Write>(&self, out: W) -> io::Result<()> {
        let mut out = io::BufWriter::with_capacity(1 << 16, out);
        let us = |ns: u64| format!("{}.{:03}", ns / 1000, ns % 1000);
        out.write_all(b"{\"displayTimeUnit\":\"ns\",\"metadata\":{\"notes\":[")?;
        for (i, note) in self.notes.iter().enumerate() {
            write!(out, "{}{}", if i > 0 { "," } else { "" }, json_string(note))?;
        }
        out.write_all(b"]},\"traceEvents\":[\n")?;
        out.write_all(br#"{"name":"process_name","ph":"M","pid":0,"tid":0,"args":{"name":"treelb run"}}"#)?;
        let pes = self.pes.len().max(self.marks.len());
        for pe in 0..pes {
            write!(
                out,
                ",\n{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":{pe},\"args\":{{\"name\":\"PE {pe}\"}}}}"
            )?;
            write!(
                out,
                ",\n{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":0,\"tid\":{pe},\"args\":{{\"sort_index\":{pe}}}}}"
            )?;
        }
        for (pe, intervals) in self.pes.iter().enumerate() {
            for i in intervals.iter().filter(|i| i.state != State::Idle) {
                write!(
                    out,
                    ",\n{{\"name\":\"{}\",\"cat\":\"state\",\"ph\":\"X\",\"pid\":0,\"tid\":{pe},\"ts\":{},\"dur\":{}}}",
                    i.state,
                    us(i.start_ns),
                    us(i.len_ns())
                )?;
            }
        }
        for (pe, marks) in self.marks.iter().enumerate() {
            for m in marks {
                match m.what {
                    What::Request { to } => write!(
                        out,
                        ",\n{{\"name\":\"request\",\"cat\":\"request\",\"ph\":\"i\",\"s\":\"t\",\"pid\":0,\"tid\":{pe},\"ts\":{},\"args\":{{\"to\":{to}}}}}",
                        us(m.at_ns)
                    )?,
                    What::Worked { units } => write!(
                        out,
                        ",\n{{\"name\":\"busy phase ends\",\"cat\":\"work\",\"ph\":\"i\",\"s\":\"t\",\"pid\":0,\"tid\":{pe},\"ts\":{},\"args\":{{\"units\":{units}}}}}",
                        us(m.at_ns)
                    )?,
                    What::Give { .. } | What::Receive { .. } => {}
                }
            }
        }
        for (id, (from, sent, to, received)) in self.moves().into_iter().enumerate() {
            write!(
                out,
                ",\n{{\"name\":\"piece\",\"cat\":\"piece\",\"ph\":\"s\",\"id\":{id},\"pid\":0,\"tid\":{from},\"ts\":{},\"args\":{{\"to\":{to}}}}}",
                us(sent)
            )?;
            write!(
                out,
                ",\n{{\"name\":\"piece\",\"cat\":\"piece\",\"ph\":\"f\",\"bp\":\"e\",\"id\":{id},\"pid\":0,\"tid\":{to},\"ts\":{},\"args\":{{\"from\":{from}}}}}",
                us(received)
            )?;
        }
        out.write_all(b"\n]}\n")?;
        out.flush()
    }
}

/// `s` as a JSON string literal.
fn json_string(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            c if (c as u32) < 0x20 => q.push_str(&format!("\\u{:04x}", c as u32)),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// Nanoseconds in each state (in the order of [`State::ALL`]) in each of
/// `buckets` (at least 1) equal spans of `[0, wall_ns]`.
fn bucket_sums<'a>(
    intervals: impl Iterator<Item = &'a Interval>,
    wall_ns: u64,
    buckets: usize,
) -> Vec<[f64; 5]> {
    let n = buckets.max(1);
    let width = wall_ns.max(1) as f64 / n as f64;
    let mut sums = vec![[0.0f64; 5]; n];
    for interval in intervals {
        let (s, e) = (interval.start_ns as f64, interval.end_ns as f64);
        let first = ((s / width) as usize).min(n - 1);
        let last = ((e / width) as usize).min(n - 1);
        for (b, sum) in sums.iter_mut().enumerate().take(last + 1).skip(first) {
            let lo = s.max(b as f64 * width);
            let hi = e.min((b + 1) as f64 * width);
            if hi > lo {
                sum[slot(interval.state)] += hi - lo;
            }
        }
    }
    sums
}

/// The index of `state` in [`State::ALL`], as in [`Trace::shares`] and
/// [`Trace::buckets`].
///
/// ```
/// use treelb::trace::{State, slot};
/// assert!(State::ALL.iter().enumerate().all(|(i, &s)| slot(s) == i));
/// ```
pub fn slot(state: State) -> usize {
    match state {
        State::Working => 0,
        State::Splitting => 1,
        State::Sending => 2,
        State::Requesting => 3,
        State::Idle => 4,
    }
}

/// Appends the decimal digits of `v`.
fn push_u64(buf: &mut Vec<u8>, mut v: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[i..]);
}

/// At most 40 characters of `s`, for error messages.
fn clip(s: &str) -> String {
    match s.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tracer_gives_intervals_that_tile_the_run() {
        let mut t = Tracer::new(Instant::now());
        t.record(0, State::Splitting);
        t.record(10, State::Idle);
        t.record(10, State::Working); // the empty idle interval is dropped
        t.record(30, State::Working);
        t.record(50, State::Splitting);
        t.record(40, State::Sending); // a clock that ran backwards
        t.record(70, State::Working);
        t.record(500, State::Idle); // past the end
        let iv = t.finish_intervals(100);
        let got: Vec<_> = iv.iter().map(|i| (i.start_ns, i.end_ns, i.state)).collect();
        assert_eq!(
            got,
            [
                (0, 10, State::Splitting),
                (10, 50, State::Working),
                (50, 50, State::Splitting),
                (50, 70, State::Sending),
                (70, 100, State::Working),
            ]
            .into_iter()
            .filter(|(s, e, _)| e > s)
            .collect::<Vec<_>>()
        );
    }

    #[test]
    fn enter_records_changes_only() {
        let mut t = Tracer::new(Instant::now());
        t.enter(State::Idle);
        assert!(t.events.is_empty());
        t.enter(State::Working);
        t.enter(State::Working);
        assert_eq!(t.events.len(), 1);
        let iv = t.finish_intervals(u64::MAX >> STATE_BITS);
        assert_eq!(iv.last().unwrap().state, State::Working);
    }

    #[test]
    fn bad_files_name_the_line_and_what_was_expected() {
        let cases = [
            ("", 1, "no header"),
            ("# only a note\n", 1, "no header"),
            ("pe,start,end,state\n", 1, "expected the header `pe,start_ns,end_ns,state`"),
            ("pe,start_ns,end_ns,state\n0,0,10\n", 2, "expected 4 fields"),
            ("pe,start_ns,end_ns,state\n0,0,10,working,x\n", 2, "expected 4 fields"),
            ("pe,start_ns,end_ns,state\n\n# x\nA,0,10,working\n", 4, "pe must be a non-negative integer"),
            ("pe,start_ns,end_ns,state\n0,-1,10,working\n", 2, "start_ns must be a non-negative integer"),
            ("pe,start_ns,end_ns,state\n0,0,1e3,working\n", 2, "end_ns must be a non-negative integer"),
            ("pe,start_ns,end_ns,state\n0,20,10,working\n", 2, "end_ns 10 is before start_ns 20"),
            ("pe,start_ns,end_ns,state\n0,0,10,busy\n", 2, "unknown state `busy` (expected one of: working"),
            ("pe,start_ns,end_ns,state\n0,0,10,idle\n1,0,5,idle\n0,5,20,working\n", 4, "before its previous"),
            ("pe,start_ns,end_ns,state\n99999999,0,1,idle\n", 2, "pe 99999999 is too large"),
        ];
        for (text, line, message) in cases {
            let e = Trace::parse(text).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e}");
            assert!(e.message.starts_with(message) || e.message.contains(message), "{text:?}: {e}");
            assert!(e.to_string().starts_with(&format!("line {line}: ")));
        }
    }

    #[test]
    fn a_file_round_trips() {
        let mut a = Tracer::new(Instant::now());
        a.record(0, State::Splitting);
        a.record(5, State::Working);
        a.record(80, State::Idle);
        let mut b = Tracer::new(Instant::now());
        b.record(7, State::Requesting);
        b.record(9, State::Working);
        b.record(20, State::Splitting);
        b.record(21, State::Sending);
        b.record(22, State::Working);
        let trace = Trace {
            notes: vec!["command: treelb uts --trace t.csv".into(), "".into()],
            wall_ns: 100,
            pes: vec![a.finish_intervals(100), b.finish_intervals(100), Vec::new(), vec![]],
            marks: Vec::new(),
        };
        let mut csv = Vec::new();
        trace.write_csv(&mut csv).unwrap();
        let text = String::from_utf8(csv).unwrap();
        assert!(text.starts_with("# command: treelb uts --trace t.csv\n#"));
        let back = Trace::parse(&text).unwrap();
        // PEs without intervals at the end are not in the file.
        assert_eq!(back.pes.len(), 2);
        assert_eq!(back.pes[..], trace.pes[..2]);
        assert_eq!((back.notes, back.wall_ns), (trace.notes, trace.wall_ns));
        let shares = Trace::parse(&text).unwrap().shares();
        assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        for state in State::ALL {
            assert_eq!(state.name().parse::<State>(), Ok(state));
        }
    }

    #[test]
    fn marks_round_trip_and_bad_ones_name_their_line() {
        let m = |at_ns, what| Mark { at_ns, what };
        let trace = Trace {
            notes: vec![],
            wall_ns: 50,
            pes: vec![vec![Interval { start_ns: 0, end_ns: 50, state: State::Working }]],
            marks: vec![
                vec![
                    m(1, What::Request { to: 1 }),
                    m(3, What::Give { to: 1 }),
                    m(50, What::Worked { units: 9 }),
                ],
                vec![m(4, What::Receive { from: 0 })],
            ],
        };
        let mut csv = Vec::new();
        trace.write_csv(&mut csv).unwrap();
        let text = String::from_utf8(csv).unwrap();
        assert!(text.contains("\npe,at_ns,mark,value\n0,1,request,1\n"), "{text}");
        assert_eq!(Trace::parse(&text).unwrap(), trace);
        assert_eq!(trace.moves(), [(0, 3, 1, 4)]);
        let head = "pe,start_ns,end_ns,state\n0,0,10,idle\npe,at_ns,mark,value\n";
        for (rows, message) in [
            ("0,5,steal,1\n", "unknown mark `steal`"),
            ("0,5,give\n", "expected 4 fields"),
            ("0,5,give,1\n0,4,give,1\n", "before its previous one"),
            ("0,x,give,1\n", "at_ns must be"),
        ] {
            let e = Trace::parse(&format!("{head}{rows}")).unwrap_err();
            assert!(e.message.contains(message), "{rows}: {e}");
        }
    }
}
