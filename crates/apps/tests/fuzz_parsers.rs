//! Fuzzed parsers: random and mutated files for the DIMACS, TSPLIB (problem
//! and tour), knapsack, trace (`treelb_threads::trace`) and UTS-parameter
//! parsers. Whatever the input, a
//! parser returns `Ok` or an error that names its line (UTS flags: the flag)
//! — never a panic, never a hang — and the errors of the instance files
//! (DIMACS, TSPLIB, knapsack) hold no control character: the input they
//! quote is escaped, so that a file cannot drive the terminal that shows
//! the error.
//!
//! The inputs start from real files — the samples below, and the benchmark
//! instances in `../shared/instances` beside the checkout when it is there
//! — and are mutated: bytes flipped, lines dropped, doubled or swapped,
//! numbers replaced by huge, negative or malformed ones, garbage, escape
//! sequences and non-UTF-8 bytes inserted, line ends turned into CRLF, the file cut
//! anywhere. Every input is at most [`MAX_INPUT`] bytes, and every case runs
//! on its own thread with a time limit ([`CASE_TIMEOUT`]) that fails the test
//! loudly.
//!
//! The number of cases per parser is `PROPTEST_CASES` (64 if unset, so the
//! ordinary test run stays fast); CI runs many more (`.ci/run`).

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError};

use treelb_apps::clique::dimacs;
use treelb_apps::knapsack;
use treelb_apps::tsp::tsplib;
use treelb_apps::uts::Params;
use treelb_threads::trace::Trace;

/// The largest input a case feeds a parser.
const MAX_INPUT: usize = 256 * 1024;
/// The longest one parse may take (generous: CI machines are loaded).
const CASE_TIMEOUT: Duration = Duration::from_secs(20);

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64);
    Config { cases, failure_persistence: None, max_shrink_iters: 512, ..Config::default() }
}

const DIMACS: &str =
    "c a small graph\nc with comments\np edge 5 6\ne 1 2\ne 2 3\ne 3 4\ne 4 5\ne 5 1\ne 1 3\n";
const DIMACS_WEIGHTS: &str = "p col 4 3\nn 1 5\nn 2 7\ne 1 2\ne 2 3\ne 3 4\nEND\n";
const TSP_COORDS: &str = "NAME : tiny\nTYPE : TSP\nCOMMENT : five cities\nDIMENSION : 5\n\
EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 3 4\n3 6 0\n4 3 -4\n5 1.5 2.25\nEOF\n";
const TSP_GEO: &str = "NAME: geo\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: GEO\nNODE_COORD_SECTION\n\
1 38.24 20.42\n2 39.57 26.15\n3 40.56 25.32\nEOF\n";
const TSP_MATRIX: &str = "NAME: m\nTYPE: TSP\nDIMENSION: 4\nEDGE_WEIGHT_TYPE: EXPLICIT\n\
EDGE_WEIGHT_FORMAT: UPPER_ROW\nEDGE_WEIGHT_SECTION\n1 2 3\n4 5\n6\nEOF\n";
const TSP_LOWER: &str = "NAME: l\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\n\
EDGE_WEIGHT_FORMAT: LOWER_DIAG_ROW\nEDGE_WEIGHT_SECTION\n0\n1 0\n2 3 0\nFIXED_EDGES_SECTION\n1 2\n-1\nEOF\n";
const TOUR: &str = "NAME : tiny.opt.tour\nTYPE : TOUR\nDIMENSION : 5\nTOUR_SECTION\n1\n3\n2\n5\n4\n-1\nEOF\n";
const KNAPSACK: &str = "4 10\n# profit weight\n10 5\n40 4\n30 6\n50 3\n";
const TRACE: &str = "# treelb trace: one line per interval\n# command: treelb uts --tree T1 --trace t.csv\n\
pe,start_ns,end_ns,state\n0,0,1200,working\n0,1200,1300,splitting\n0,1300,1350,sending\n0,1350,9000,working\n\
1,0,900,idle\n1,900,1400,requesting\n1,1400,9000,working\n";
const UTS: &[&str] = &[
    "-t 0 -b 2000 -q 0.124875 -m 8 -r 42",
    "-t 1 -a 3 -d 10 -b 4 -r 19",
    "-t 2 -a 0 -d 16 -b 6 -r 502 -q 0.234375 -m 4 -f 0.5",
    "-t 3 -d 5 -b 4 -g 2",
];

/// The benchmark instances beside the checkout, if they are there.
fn shared(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/instances").join(kind)
}

/// The seeds of a format: the samples, and the instance files ending in
/// `ext` (cut to [`MAX_INPUT`]) when they are present.
fn seeds(samples: &[&str], kind: &str, ext: &str) -> Vec<Vec<u8>> {
    let mut all: Vec<Vec<u8>> = samples.iter().map(|s| s.as_bytes().to_vec()).collect();
    if let Ok(dir) = std::fs::read_dir(shared(kind)) {
        let mut files: Vec<PathBuf> = dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().ends_with(ext))
            .collect();
        files.sort();
        for file in files {
            let mut bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            bytes.truncate(MAX_INPUT);
            all.push(bytes);
        }
    }
    all
}

/// Numbers that break careless parsers.
const ODD_NUMBERS: &[&str] = &[
    "0",
    "-1",
    "-0",
    "1e300",
    "-1e300",
    "1e-300",
    "NaN",
    "inf",
    "-inf",
    "65536",
    "65537",
    "2147483648",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551616",
    "99999999999999999999999999999999",
    "0x10",
    "1.5",
    "+3",
    "",
];

/// One change to a file.
#[derive(Clone, Debug)]
enum Mutation {
    /// XOR the byte at (position mod length) with a value.
    Flip(usize, u8),
    /// Insert these bytes at (position mod length + 1).
    Insert(usize, Vec<u8>),
    /// Delete up to `len` bytes from (position mod length).
    Delete(usize, usize),
    /// Cut the file at (position mod length + 1).
    Truncate(usize),
    /// Drop line (index mod lines).
    DropLine(usize),
    /// Repeat line (index mod lines).
    DupLine(usize),
    /// Swap lines i and j (mod lines).
    SwapLines(usize, usize),
    /// Replace the (index mod count)-th number of the file.
    Number(usize, &'static str),
    /// Every `\n` becomes `\r\n`.
    Crlf,
    /// A Latin-1 byte (é) or another byte that is not UTF-8 at a position.
    Latin1(usize, u8),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1..=255u8).prop_map(|(i, x)| Mutation::Flip(i, x)),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..16)).prop_map(|(i, b)| Mutation::Insert(i, b)),
        (any::<usize>(), prop::sample::select(vec![" ", "\n", "\t", "\0", "p edge 3 3\n", "e", "-1\n", ":"]))
            .prop_map(|(i, s)| Mutation::Insert(i, s.as_bytes().to_vec())),
        (
            any::<usize>(),
            prop::sample::select(vec![
                "\x1b]0;PWNED\x07",
                "\x1b[2J",
                "\u{9b}2J",
                "\u{202e}",
                "\u{feff}",
                "\x7f",
                "\r"
            ])
        )
            .prop_map(|(i, s)| Mutation::Insert(i, s.as_bytes().to_vec())),
        (any::<usize>(), 1..64usize).prop_map(|(i, n)| Mutation::Delete(i, n)),
        any::<usize>().prop_map(Mutation::Truncate),
        any::<usize>().prop_map(Mutation::DropLine),
        any::<usize>().prop_map(Mutation::DupLine),
        (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Mutation::SwapLines(i, j)),
        (any::<usize>(), prop::sample::select(ODD_NUMBERS)).prop_map(|(i, n)| Mutation::Number(i, n)),
        (any::<usize>(), prop::sample::select(ODD_NUMBERS)).prop_map(|(i, n)| Mutation::Number(i, n)),
        Just(Mutation::Crlf),
        (any::<usize>(), prop::sample::select(vec![0xE9u8, 0xFF, 0x80, 0xC3]))
            .prop_map(|(i, b)| Mutation::Latin1(i, b)),
    ]
}

fn lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes.split_inclusive(|&b| b == b'\n').map(<[u8]>::to_vec).collect()
}

/// The byte ranges of the numbers (digit runs with a sign or a point) in
/// `bytes`.
fn numbers(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut all = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let mut start = i;
            if start > 0 && bytes[start - 1] == b'-' {
                start -= 1;
            }
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            all.push((start, i));
        } else {
            i += 1;
        }
    }
    all
}

fn apply(mut bytes: Vec<u8>, m: &Mutation) -> Vec<u8> {
    let len = bytes.len();
    match m {
        Mutation::Flip(i, x) if len > 0 => bytes[i % len] ^= x,
        Mutation::Insert(i, b) => {
            let at = if len == 0 { 0 } else { i % len + 1 };
            bytes.splice(at..at, b.iter().copied());
        }
        Mutation::Delete(i, n) if len > 0 => {
            let from = i % len;
            bytes.drain(from..(from + n).min(len));
        }
        Mutation::Truncate(i) if len > 0 => bytes.truncate(i % len + 1),
        Mutation::DropLine(i) => {
            let mut ls = lines(&bytes);
            if !ls.is_empty() {
                let k = i % ls.len();
                ls.remove(k);
            }
            bytes = ls.concat();
        }
        Mutation::DupLine(i) => {
            let mut ls = lines(&bytes);
            if !ls.is_empty() {
                let k = i % ls.len();
                let l = ls[k].clone();
                ls.insert(k, l);
            }
            bytes = ls.concat();
        }
        Mutation::SwapLines(i, j) => {
            let mut ls = lines(&bytes);
            if !ls.is_empty() {
                let n = ls.len();
                ls.swap(i % n, j % n);
            }
            bytes = ls.concat();
        }
        Mutation::Number(i, n) => {
            let all = numbers(&bytes);
            if !all.is_empty() {
                let (a, b) = all[i % all.len()];
                bytes.splice(a..b, n.bytes());
            }
        }
        Mutation::Crlf => {
            let mut out = Vec::with_capacity(len + len / 8);
            for &b in &bytes {
                if b == b'\n' {
                    out.push(b'\r');
                }
                out.push(b);
            }
            bytes = out;
        }
        Mutation::Latin1(i, b) => {
            let at = if len == 0 { 0 } else { i % (len + 1) };
            bytes.insert(at, *b);
        }
        _ => {}
    }
    bytes.truncate(MAX_INPUT);
    bytes
}

/// A generated file; shown as text (lossy) when a case fails.
#[derive(Clone)]
struct Input(Vec<u8>);

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(&self.0))
    }
}

/// A seed with up to eight mutations, or random bytes.
fn input(seeds: Vec<Vec<u8>>) -> impl Strategy<Value = Input> {
    let mutated = (prop::sample::select(seeds), prop::collection::vec(mutation(), 0..8))
        .prop_map(|(seed, ms)| ms.iter().fold(seed, apply));
    prop_oneof![
        8 => mutated,
        1 => prop::collection::vec(any::<u8>(), 0..512),
        1 => prop::collection::vec(prop::sample::select(b"pe ncEND:-0123456789.\n\r\t#".to_vec()), 0..512),
    ]
    .prop_map(Input)
}

/// Runs `parse` on its own thread: its error message, `None` for `Ok`. A
/// panic fails the case with the panic's message; a parse that takes longer
/// than [`CASE_TIMEOUT`] fails the whole test at once.
fn run_case<F>(what: &str, bytes: &[u8], parse: F) -> Result<Option<String>, TestCaseError>
where
    F: FnOnce(&[u8]) -> Option<String> + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    let owned = bytes.to_vec();
    std::thread::spawn(move || {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parse(&owned)));
        let _ = tx.send(result);
    });
    match rx.recv_timeout(CASE_TIMEOUT) {
        Ok(Ok(outcome)) => Ok(outcome),
        Ok(Err(payload)) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(TestCaseError::fail(format!("{what} panicked: {msg}")))
        }
        Err(_) => panic!(
            "{what} did not finish within {CASE_TIMEOUT:?} on this input ({} bytes): {:?}",
            bytes.len(),
            String::from_utf8_lossy(&bytes[..bytes.len().min(2000)])
        ),
    }
}

/// Whether `message` names a line: `line N` with N ≥ 1.
fn names_a_line(message: &str) -> bool {
    message.match_indices("line ").any(|(i, _)| {
        let digits: String = message[i + 5..].chars().take_while(char::is_ascii_digit).collect();
        digits.parse::<u64>().is_ok_and(|n| n >= 1)
    })
}

/// Whether `message` names a UTS flag (`-q`) or parameter (`q`, `b0`, …) as
/// a word of its own.
fn names_a_parameter(message: &str) -> bool {
    const NAMES: [&str; 13] = ["t", "b", "b0", "r", "m", "q", "a", "d", "f", "g", "gen_mx", "UTS", "flag"];
    message.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).any(|word| NAMES.contains(&word))
}

/// The check of every file parser: `Ok`, or a one-line error with a line.
fn check_file<F>(what: &str, bytes: &[u8], parse: F) -> Result<(), TestCaseError>
where
    F: FnOnce(&[u8]) -> Option<String> + Send + 'static,
{
    check_message(what, bytes, run_case(what, bytes, parse)?)
}

/// The check of an instance-file parser: [`check_file`]'s, and no control
/// character (C0, DEL, C1) in the error, whatever the input holds.
fn check_instance_file<F>(what: &str, bytes: &[u8], parse: F) -> Result<(), TestCaseError>
where
    F: FnOnce(&[u8]) -> Option<String> + Send + 'static,
{
    let message = run_case(what, bytes, parse)?;
    if let Some(message) = &message {
        prop_assert!(
            !message.chars().any(char::is_control),
            "{what}: the error {message:?} holds a control character; input: {:?}",
            String::from_utf8_lossy(bytes)
        );
    }
    check_message(what, bytes, message)
}

/// An error message, if any, names its line and is one line.
fn check_message(what: &str, bytes: &[u8], message: Option<String>) -> Result<(), TestCaseError> {
    if let Some(message) = message {
        prop_assert!(
            names_a_line(&message) && !message.contains('\n'),
            "{what}: the error `{message}` names no line; input: {:?}",
            String::from_utf8_lossy(bytes)
        );
    }
    Ok(())
}

fn dimacs(bytes: &[u8]) -> Option<String> {
    dimacs::parse(bytes).err().map(|e| e.to_string())
}

fn tsp(bytes: &[u8]) -> Option<String> {
    tsplib::parse(bytes).err().map(|e| e.to_string())
}

fn tour(bytes: &[u8]) -> Option<String> {
    tsplib::parse_tour(bytes).err().map(|e| e.to_string())
}

fn trace(bytes: &[u8]) -> Option<String> {
    match Trace::parse_bytes(bytes) {
        Ok(trace) => {
            // What parses writes back and reads again alike.
            let mut out = Vec::new();
            trace.write_csv(&mut out).expect("writing to memory");
            let again = Trace::parse_bytes(&out).expect("a written trace parses");
            assert_eq!(again.pes, trace.pes, "a trace reads back as written");
            None
        }
        Err(e) => Some(e.to_string()),
    }
}

fn knapsack(bytes: &[u8]) -> Option<String> {
    knapsack::parse(bytes).err().map(|e| e.to_string())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn fuzz_dimacs(bytes in input(seeds(&[DIMACS, DIMACS_WEIGHTS], "clique", ".clq"))) {
        check_instance_file("the DIMACS parser", &bytes.0, dimacs)?;
    }

    #[test]
    fn fuzz_tsplib(bytes in input(seeds(&[TSP_COORDS, TSP_GEO, TSP_MATRIX, TSP_LOWER], "tsp", ".tsp"))) {
        check_instance_file("the TSPLIB parser", &bytes.0, tsp)?;
    }

    #[test]
    fn fuzz_tsplib_tour(bytes in input(seeds(&[TOUR], "tsp", ".tour"))) {
        check_instance_file("the TSPLIB tour parser", &bytes.0, tour)?;
    }

    #[test]
    fn fuzz_knapsack(bytes in input(seeds(&[KNAPSACK], "knapsack", ".txt"))) {
        check_instance_file("the knapsack parser", &bytes.0, knapsack)?;
    }

    #[test]
    fn fuzz_trace(bytes in input(vec![TRACE.as_bytes().to_vec()])) {
        check_file("the trace parser", &bytes.0, trace)?;
    }

    #[test]
    fn fuzz_uts_parameters(bytes in input(UTS.iter().map(|s| s.as_bytes().to_vec()).collect())) {
        // The flags come as one string (`--uts '…'`) or as arguments; an
        // error names the flag or the parameter that is wrong.
        let bytes = bytes.0;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let outcome = run_case("the UTS parameter parser", &bytes, move |_| {
            let one = Params::from_uts_str(&text);
            let args = Params::from_uts_args(text.split_whitespace());
            // Accepted parameters are also checked for sense.
            let checked = one.as_ref().map_err(|e| e.to_string()).and_then(|p| p.validate().map_err(|e| e.to_string()));
            match (&one, &args) {
                (Ok(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "one string and arguments read alike"),
                (Err(_), Err(_)) => {}
                (a, b) => panic!("one string gave {a:?}, arguments gave {b:?}"),
            }
            checked.err()
        })?;
        if let Some(message) = outcome {
            prop_assert!(
                names_a_parameter(&message) && !message.contains('\n'),
                "the error `{message}` names no flag or parameter; input: {:?}", String::from_utf8_lossy(&bytes)
            );
        }
    }
}

#[test]
fn mutations_change_what_they_say() {
    let seed = b"p edge 3 2\ne 1 2\ne 2 3\n".to_vec();
    assert_eq!(apply(seed.clone(), &Mutation::Number(1, "99")), b"p edge 3 99\ne 1 2\ne 2 3\n");
    assert_eq!(apply(seed.clone(), &Mutation::DropLine(1)), b"p edge 3 2\ne 2 3\n");
    assert_eq!(apply(seed.clone(), &Mutation::Crlf), b"p edge 3 2\r\ne 1 2\r\ne 2 3\r\n");
    assert_eq!(apply(seed.clone(), &Mutation::Truncate(3)), b"p ed");
    assert!(names_a_line("line 3: bad") && !names_a_line("no line") && !names_a_line("line 0: x"));
    assert!(names_a_parameter("q * m = 2 is above 1") && !names_a_parameter("the tree is infinite"));
}

/// Found by `fuzz_uts_parameters`: a hybrid tree with a geometric part of a
/// billion levels above a supercritical binomial part took minutes to
/// validate (its finite probability was folded level by level).
#[test]
fn a_deep_hybrid_tree_is_refused_at_once() {
    let deep = "-t 2 -a 0 -d 2147483648 -b 6 -r 502 -q 0.234375 -m 65536 -f 0.5";
    let message = run_case("the UTS parameter parser", deep.as_bytes(), |_| {
        Params::from_uts_str(deep).err().map(|e| e.to_string())
    })
    .expect("no panic")
    .expect("refused");
    assert!(message.contains("(-d)") && message.contains("(-f)"), "{message}");
    // Within the limit the fold still decides.
    let shallow = "-t 2 -a 0 -d 1000 -b 6 -r 502 -q 0.234375 -m 8 -f 0.5";
    let refused =
        Params::from_uts_str(shallow).expect_err("q * m = 1.875 below 500 levels of b ≈ 6").to_string();
    assert!(!refused.contains("(-f)"), "{refused}");
}
