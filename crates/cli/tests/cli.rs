//! The `treelb` binary as a user runs it.
//!
//! * answers: UTS sample trees and N-Queens print their published counts;
//! * reports: the table and the JSON carry the same numbers;
//! * bad input: every kind gets one line on stderr and exit code 2, never a
//!   panic trace;
//! * every run of the binary is killed and fails its test after 120 s.

mod common;

use std::process::{Command, Output};

/// Time limit of one run of the binary: a hung run is killed and fails its
/// test.
const LIMIT: std::time::Duration = std::time::Duration::from_secs(120);

fn treelb(args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_treelb"));
    cmd.args(args);
    common::output_within(cmd, LIMIT)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn uts_t1_on_two_threads_prints_the_published_count() {
    let o = treelb(&["uts", "--tree", "T1", "--threads", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("nodes         4130071  (published: 4130071 ✓)"), "{out}");
    assert!(out.contains("2 threads"), "{out}");
    assert!(out.contains("\n  machine       "), "the processor it ran on: {out}");
    assert!(out.contains("│ all"), "the per-PE table has a total row: {out}");
}

#[test]
fn uts_reference_flags_give_the_same_tree() {
    let o = treelb(&[
        "uts",
        "-t",
        "0",
        "-b",
        "2000",
        "-q",
        "0.124875",
        "-m",
        "8",
        "-r",
        "42",
        "--threads",
        "3",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert_eq!(json["answer"]["nodes"], 4_112_897);
    assert_eq!(json["app"], "uts");
    assert_eq!(json["pes"].as_array().unwrap().len(), 3);
    assert_eq!(json["work_units"], 4_112_897);
    assert_eq!(json["setup"]["threads"], 3);
    // The processor the run ran on: at least the CPUs this process may use.
    assert!(json["machine"]["cpus"].as_u64().unwrap() >= 1, "{}", json["machine"]);
    assert!(json["machine"].get("model_name").is_some(), "{}", json["machine"]);
}

#[test]
fn nqueens_with_every_option() {
    let o = treelb(&[
        "nqueens",
        "10",
        "-p",
        "4",
        "--budget",
        "7",
        "--split-policy",
        "bottom",
        "--init",
        "selective",
        "--seed",
        "5",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert_eq!(json["answer"]["solutions"], 724);
    assert_eq!(json["answer"]["published_solutions"], 724);
    assert_eq!(json["setup"]["split_policy"], "bottom");
    assert_eq!(json["setup"]["init"], "selective");
    assert_eq!(json["setup"]["budget"], 7);
}

#[test]
fn nqueens_with_the_mirror_counts_the_whole_tree() {
    let json = |args: &[&str]| {
        let o = treelb(args);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).expect("valid JSON")
    };
    let whole = json(&["nqueens", "11", "-p", "2", "--json"]);
    let half = json(&["nqueens", "11", "-p", "2", "--mirror", "--json"]);
    assert_eq!(half["answer"]["solutions"], 2_680);
    assert_eq!(half["answer"]["nodes"], whole["answer"]["nodes"]);
    assert_eq!(half["instance"]["mirror"], true);
    assert_eq!(whole["instance"]["mirror"], false);
}

#[test]
fn list_shows_the_sample_trees() {
    let o = treelb(&["uts", "--list"]);
    assert!(o.status.success());
    let out = stdout(&o);
    for name in ["T1 ", "T3 ", "T1L", "T3L"] {
        assert!(out.contains(name), "{out}");
    }
}

#[test]
fn bench_reports_efficiency() {
    let o = treelb(&[
        "bench",
        "--workloads",
        "nqueens:8,default",
        "--engines",
        "seq,treelb",
        "--repeat",
        "1",
        "-p",
        "2",
        "--json",
        "--no-write",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    let workloads = json["workloads"].as_array().unwrap();
    assert_eq!(workloads.len(), 2);
    for (w, nodes) in workloads.iter().zip([2057, 1732]) {
        let rows = w["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 2);
        assert!(rows.iter().all(|r| r["nodes"] == nodes), "{rows:?}");
        assert!(rows[1]["efficiency"].as_f64().unwrap() > 0.0);
    }
}

#[test]
fn compare_runs_every_strategy_of_the_runtime() {
    let o = treelb(&["compare", "nqueens:9", "-p", "3", "--repeat", "2", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    let names: Vec<&str> =
        json["rows"].as_array().unwrap().iter().map(|r| r["strategy"].as_str().unwrap()).collect();
    let all: Vec<&str> = treelb::Strategy::ALL.iter().map(|s| s.name()).collect();
    assert_eq!(names, all);
    let o = treelb(&["compare", "T1", "--strategies", "async-round-robin", "--repeat", "1", "-p", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("async-round-robin"));
    let o = treelb(&["compare", "nqueens:8", "--strategies", "static-cyclic", "--repeat", "1", "--markdown"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("| static-cyclic | "), "{}", stdout(&o));
    // The lecture's Mandelbrot comparison: static against dynamic.
    let o = treelb(&[
        "compare",
        "mandelbrot:subdivide:120x90",
        "--strategies",
        "static-block,static-cyclic,random-polling,max-load",
        "--repeat",
        "1",
        "-p",
        "3",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert_eq!(json["rows"].as_array().unwrap().len(), 4);
    assert_eq!(json["rows"][0]["pieces_transferred"], 0, "static assignment moves nothing");
}

#[test]
fn bad_input_gets_one_line_and_exit_code_2() {
    let cases: &[(&[&str], &str)] = &[
        (&["uts", "--tree", "T9"], "unknown sample tree `T9`"),
        (&["uts", "--threads", "0"], "invalid value '0' for '--threads <P>': must be at least 1"),
        (&["uts", "--threads", "-3"], "error"),
        (&["uts", "--budget", "0"], "invalid value '0' for '--budget <UNITS>': must be at least 1"),
        (
            &["uts", "--budget", "lots"],
            "invalid value 'lots' for '--budget <UNITS>': expects a positive integer",
        ),
        (
            &["uts", "--split-policy", "top"],
            "invalid value 'top' for '--split-policy <POLICY>' [possible values: oldest-half,",
        ),
        (
            &["uts", "--init", "everywhere"],
            "invalid value 'everywhere' for '--init <INIT>' [possible values: root, selective]",
        ),
        (
            &["uts", "--strategy", "guess"],
            "invalid value 'guess' for '--strategy <NAME>' [possible values: random-polling,",
        ),
        (
            &["nqueens", "8", "--strategy", "max-load", "--rho", "2"],
            "invalid value '2' for '--rho <RHO>': must lie strictly between 1 and 1.5",
        ),
        (
            &["nqueens", "8", "--strategy", "multilevel", "--fanout", "2,x"],
            "invalid value 'x' for '--fanout <D,D,…>'",
        ),
        (
            &["nqueens", "8", "--max-nodes", "0"],
            "invalid value '0' for '--max-nodes <N>': must be at least 1",
        ),
        (
            &["nqueens", "8", "--max-nodes", "1.5e3x"],
            "invalid value '1.5e3x' for '--max-nodes <N>': expects a whole number",
        ),
        (
            &["nqueens", "8", "--fanout", "4,0"],
            "invalid value '0' for '--fanout <D,D,…>': must be at least 1",
        ),
        (&["nqueens", "8", "--rho", "x"], "invalid value 'x' for '--rho <RHO>': expects a number"),
        (&["nqueens", "8", "--threads", "-1"], "invalid value '-1' for '--threads <P>': must be at least 1"),
        (
            &["nqueens", "8", "--threads", "two"],
            "invalid value 'two' for '--threads <P>': expects a positive integer",
        ),
        (
            &["nqueens", "8", "--threads", "100000"],
            "invalid value '100000' for '--threads <P>': too many (at most 4096)",
        ),
        (
            &["nqueens", "8", "--time-limit", "garbage"],
            "invalid value 'garbage' for '--time-limit <DURATION>': expects a duration: a number with a unit (ms, s, m, h, d), such as 250ms, 90s, 5m or 1h30m",
        ),
        (
            &["nqueens", "8", "--time-limit", "3 fortnights"],
            "invalid value '3 fortnights' for '--time-limit <DURATION>': `fortnights` is not a unit of time",
        ),
        (&["nqueens", "8", "--init", "all"], "invalid value 'all' for '--init <INIT>'"),
        (&["uts", "-t", "7"], "UTS parameters"),
        (&["uts", "-t", "0", "-b", "2000", "-q", "0.5", "-m", "4"], "UTS parameters"),
        (&["uts", "-q", "1.5", "-t", "0"], "UTS parameters"),
        (&["uts", "-b", "nan"], "UTS parameters"),
        // Unbounded or astronomically large trees (they ran until killed).
        (&["uts", "-t", "0", "-q", "0.2", "-m", "5"], "q * m = 0.2 * 5 = 1 is not below 1"),
        (
            &["uts", "-t", "0", "-b", "2000", "-q", "0.5", "-m", "2", "-r", "8"],
            "the expected tree size is infinite",
        ),
        (&["uts", "-t", "0", "-q", "0.2", "-m", "5", "--max-nodes", "1000"], "is not below 1"),
        (&["uts", "-t", "1", "-a", "3", "-d", "1000000", "-b", "4"], "the expected tree size is infinite"),
        (&["uts", "-t", "3", "-d", "50", "-b", "4"], "is 1.69e30 nodes, above the limit of 1e11 nodes"),
        (&["uts", "-b", "1e9"], "above the limit of 1e11 nodes (--max-nodes N"),
        (&["uts", "-g", "1000000000"], "SHA-1 evaluations per child (-g) = 2.83e11, above the limit"),
        (&["uts", "--tree", "T1WL"], "the published tree size is 2.71e11 nodes, above the limit"),
        (&["uts", "--tree", "T1", "-d", "3"], "cannot be used with"),
        (&["uts", "--frobnicate"], "unexpected argument"),
        (&["nqueens", "0"], "n = 0"),
        (&["nqueens", "33"], "n = 33"),
        (&["nqueens", "eight"], "invalid value 'eight' for '<N>'"),
        (&["bench", "--no-write", "--workloads", "T1,sudoku:9"], "unknown workload `sudoku:9`"),
        (
            &["bench", "--no-write", "--repeat", "0"],
            "invalid value '0' for '--repeat <N>': must be at least 1",
        ),
        (&["compare", "T7"], "unknown workload `T7`"),
        (&["compare", "mandelbrot:9"], "`9` is neither a method"),
        (&["compare", "mandelbrot:0x10"], "at least one pixel"),
        (&["compare", "T1", "--strategies", "fastest"], "unknown strategy `fastest`"),
        (
            &["compare", "T1", "--runtime", "cluster"],
            "invalid value 'cluster' for '--runtime <RUNTIME>' [possible values: threads, mpi]",
        ),
        (
            &["compare", "mandelbrot", "--runtime", "mpi"],
            if cfg!(feature = "mpi") { "not the Mandelbrot set" } else { "built without MPI" },
        ),
        (&["frobnicate"], "unrecognized subcommand"),
    ];
    for (args, message) in cases {
        let o = treelb(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: expected `{message}` in: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?} printed to stdout");
    }
}

/// A fresh directory for the files one test writes.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("treelb-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// The size and the RGB bytes of a PNG.
fn read_png(path: &std::path::Path) -> (u32, u32, Vec<u8>) {
    let decoder =
        png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).expect("the PNG exists")));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut data = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut data).expect("one frame");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    data.truncate(info.buffer_size());
    (info.width, info.height, data)
}

#[test]
fn mandelbrot_writes_both_images_and_counts_the_set() {
    let dir = scratch("mandelbrot");
    let (image, pes) = (dir.join("m.png"), dir.join("pe.png"));
    let o = treelb(&[
        "mandelbrot",
        "--width",
        "64",
        "--height",
        "48",
        "--max-iter",
        "200",
        "--view",
        "-2,0.5,-1.25,1.25",
        "--method",
        "subdivide",
        "--out",
        image.to_str().unwrap(),
        "--pe-out",
        pes.to_str().unwrap(),
        "-p",
        "2",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert_eq!(json["app"], "mandelbrot");
    assert_eq!(json["answer"]["pixels"], 3072);
    assert_eq!(json["answer"]["in_set"], 756);
    let counts = &json["answer"]["counts"];
    assert_eq!(counts["computed"].as_u64().unwrap() + counts["filled"].as_u64().unwrap(), 3072);
    assert!(counts["filled"].as_u64().unwrap() > 0);
    assert_eq!(counts["iterations"], 126_130);
    assert_eq!(json["work_units"], 126_130);
    let per_pe: Vec<u64> =
        json["answer"]["pixels_per_pe"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert_eq!(per_pe.iter().sum::<u64>(), 3072);
    assert_eq!(json["instance"]["method"], "subdivide");
    let (w, h, rgb) = read_png(&image);
    assert_eq!((w, h, rgb.len()), (64, 48, 64 * 48 * 3));
    let black = rgb.chunks(3).filter(|p| p == &[0, 0, 0]).count();
    assert_eq!(black, 756, "the set is black");
    assert_eq!(read_png(&pes).0, 64);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn mandelbrot_report_for_people() {
    let o = treelb(&["mandelbrot", "--width", "40", "--height", "30", "--max-iter", "100", "-p", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for expected in [
        "40 × 30 = 1200",
        "in set",
        "area",
        "(in-set pixels × pixel area; the set's area is ≈ 1.5066)",
        "pixels by PE",
        "│ all",
    ] {
        assert!(out.contains(expected), "`{expected}` in: {out}");
    }
    // Centre and extent: a view inside the cardioid is all in the set.
    let o = treelb(&[
        "mandelbrot",
        "--center",
        "-0.3,0",
        "--extent",
        "0.2",
        "--width",
        "30",
        "--height",
        "20",
        "--method",
        "subdivide",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert_eq!(json["answer"]["in_set"], 600);
    assert_eq!(json["answer"]["counts"]["fills"], 1);
    assert_eq!(json["instance"]["view"]["y1"], 0.2 * 20.0 / 30.0 / 2.0);
    // A grid of tiles under static assignment: the same image.
    let o = treelb(&[
        "mandelbrot",
        "--width",
        "64",
        "--height",
        "48",
        "--max-iter",
        "200",
        "--view",
        "-2,0.5,-1.25,1.25",
        "--method",
        "subdivide",
        "--tiles",
        "4",
        "--strategy",
        "static-cyclic",
        "-p",
        "3",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert_eq!(json["answer"]["in_set"], 756);
    assert_eq!(json["instance"]["tiles"], 4);
    assert_eq!(json["setup"]["strategy"], "static-cyclic");
}

#[test]
fn mandelbrot_bad_input_gets_one_line_and_exit_code_2() {
    let dir = scratch("mandelbrot-bad");
    let same = dir.join("same.png");
    let same = same.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["mandelbrot", "--width", "0"], "invalid value '0' for '--width <W>': must be at least 1"),
        (
            &["mandelbrot", "--height", "tall"],
            "invalid value 'tall' for '--height <H>': expects a positive integer",
        ),
        (&["mandelbrot", "--max-iter", "0"], "invalid value '0' for '--max-iter <N>': must be at least 1"),
        (
            &["mandelbrot", "--width", "99999999999"],
            "invalid value '99999999999' for '--width <W>': too large",
        ),
        (&["mandelbrot", "--width", "100000", "--height", "100000"], "is too many"),
        (&["mandelbrot", "--view", "0.5,-2,-1,1"], "--view: the view"),
        (&["mandelbrot", "--view", "1,2,3"], "--view expects X0,X1,Y0,Y1, got `1,2,3`"),
        (&["mandelbrot", "--view", "-2,nan,-1,1"], "--view expects X0,X1,Y0,Y1"),
        (&["mandelbrot", "--view", "1,1.0000000000000002,0,1"], "too narrow"),
        (&["mandelbrot", "--center", "x,0"], "--center expects RE,IM, got `x,0`"),
        (&["mandelbrot", "--center", "-0.5,0", "--extent", "0"], "--extent: the extent 0 must be positive"),
        (&["mandelbrot", "--extent", "-1"], "--extent: the extent -1 must be positive"),
        (&["mandelbrot", "--view", "-2,1,-1,1", "--center", "0,0"], "cannot be used with"),
        (
            &["mandelbrot", "--method", "fast"],
            "invalid value 'fast' for '--method <METHOD>' [possible values: pixels, subdivide]",
        ),
        (
            &["mandelbrot", "--min-area", "0"],
            "invalid value '0' for '--min-area <PIXELS>': must be at least 1",
        ),
        (&["mandelbrot", "--tiles", "0"], "invalid value '0' for '--tiles <N>': must be at least 1"),
        (&["mandelbrot", "--tiles", "1000"], "--tiles 1000 is too many (at most 256)"),
        (&["mandelbrot", "--strategy", "guess"], "invalid value 'guess' for '--strategy <NAME>'"),
        (&["mandelbrot", "--threads", "0"], "invalid value '0' for '--threads <P>': must be at least 1"),
        (&["mandelbrot", "--out", "/nonexistent/dir/m.png"], "--out /nonexistent/dir/m.png:"),
        (&["mandelbrot", "--pe-out", "/"], "--pe-out /:"),
        (&["mandelbrot", "--out", same, "--pe-out", same], "--out and --pe-out name the same file"),
        // Memory: 16384 × 16384 took 4.7 GB.
        (
            &["mandelbrot", "--width", "16384", "--height", "16384"],
            "16384 × 16384 pixels need about 4.5 GiB of memory (18 bytes a pixel), above --max-memory 2.0 GiB",
        ),
        (
            &["mandelbrot", "--width", "2000", "--height", "2000", "--max-memory", "50M"],
            "above --max-memory 50.0 MiB",
        ),
        (&["mandelbrot", "--max-memory", "1x"], "--max-memory: unknown unit in `1x`"),
        (&["mandelbrot", "--max-memory", "0"], "--max-memory expects a positive number of bytes"),
    ];
    for (args, message) in cases {
        let o = treelb(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: expected `{message}` in: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?} printed to stdout");
    }
    assert!(!std::path::Path::new(same).exists(), "nothing was written");
    std::fs::remove_dir_all(dir).ok();
}

// Branch and bound and integration (issue 7's done criteria): the instance
// files are read from ../shared/instances beside the checkout.

use common::{numbers_on_line, shared_instance};

#[test]
fn clique_brock200_1_prints_21_and_the_clique() {
    let file = shared_instance("clique/brock200_1.clq");
    let o = treelb(&["clique", &file, "--threads", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("ω             21  (clique number)"), "{out}");
    let clique = numbers_on_line(&out, "clique");
    assert_eq!(clique.len(), 21, "{out}");
    assert!(clique.iter().all(|&v| (1..=200).contains(&v)), "1-based vertices: {out}");
    assert!(out.contains("verified: 21 pairwise adjacent vertices"), "{out}");

    let o =
        treelb(&["clique", &file, "-p", "3", "--strategy", "async-round-robin", "--expect", "21", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert_eq!(json["app"], "clique");
    assert_eq!(json["answer"]["omega"], 21);
    assert_eq!(json["answer"]["clique"].as_array().unwrap().len(), 21);
    assert_eq!(json["answer"]["verified"], true);
    assert_eq!(json["instance"]["edges"], 14_834);
    assert_eq!(json["pes"].as_array().unwrap().len(), 3);

    let o = treelb(&["clique", &file, "-p", "2", "--propagate", "--expect", "21"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("ω             21  (expected: 21 ✓)"), "{}", stdout(&o));
    for flag in [
        "--resolve",
        "--no-resolve",
        "--filter",
        "--partite",
        "--no-partite",
        "--root-parts",
        "--no-root-parts",
    ] {
        let o = treelb(&["clique", &file, "-p", "2", flag, "--expect", "21"]);
        assert!(o.status.success(), "{flag}: {}", stderr(&o));
    }
    for pair in [
        ["--resolve", "--no-resolve"],
        ["--partite", "--no-partite"],
        ["--partite", "--filter"],
        ["--root-parts", "--no-root-parts"],
    ] {
        let o = treelb(&["clique", &file, pair[0], pair[1]]);
        assert_eq!(o.status.code(), Some(2), "{pair:?} conflict: {}", stderr(&o));
    }
}

#[test]
fn clique_expect_mismatch_exits_1_and_decisions_say_yes_or_no() {
    let file = shared_instance("clique/keller4.clq");
    let o = treelb(&["clique", &file, "-p", "2", "--expect", "12"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).contains("MISMATCH: expected 12"));
    let o = treelb(&["clique", &file, "-p", "2", "--k", "11", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert_eq!(json["answer"]["exists"], true);
    assert_eq!(json["answer"]["clique"].as_array().unwrap().len(), 11);
    let o = treelb(&["clique", &file, "-p", "2", "--k", "12"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("there is no clique of 12 vertices"), "{}", stdout(&o));
}

#[test]
fn tsp_prints_the_optimal_length_and_tour() {
    // TSPLIB's published optimum: bays29 (EXPLICIT FULL_MATRIX) 2020.
    let o = treelb(&["tsp", &shared_instance("tsp/bays29.tsp"), "--threads", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("length        2020  (optimal tour length)"), "{out}");
    let mut tour = numbers_on_line(&out, "tour");
    tour.sort_unstable();
    assert_eq!(tour, (1..=29).collect::<Vec<_>>(), "a permutation of the 29 nodes: {out}");

    let o = treelb(&["tsp", &shared_instance("tsp/bays29.tsp"), "-p", "2", "--expect", "2020"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("length        2020  (expected: 2020 ✓)"), "{}", stdout(&o));

    // att48 (ATT distances) without the initial tour, on 4 PEs.
    let o = treelb(&["tsp", &shared_instance("tsp/att48.tsp"), "-p", "4", "--no-heuristic", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert_eq!(json["answer"]["length"], 10_628);
    assert_eq!(json["answer"]["verified"], true);
    assert_eq!(json["answer"]["tour"].as_array().unwrap().len(), 48);

    // gr17 (EXPLICIT LOWER_DIAG_ROW), checked by the Held–Karp program.
    let o = treelb(&["tsp", &shared_instance("tsp/gr17.tsp"), "-p", "2", "--dp"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("Held–Karp DP: 2085 ✓"), "{}", stdout(&o));
    let o = treelb(&["tsp", &shared_instance("tsp/gr17.tsp"), "-p", "2", "--expect", "2000"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

#[test]
fn knapsack_matches_its_dynamic_program() {
    let o = treelb(&["knapsack", "-n", "60", "--instance-seed", "1", "-p", "2", "--dp", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert_eq!(json["answer"]["optimum"], json["answer"]["dp_optimum"]);
    assert!(json["answer"]["optimum"].as_i64().unwrap() > 0);
}

#[test]
fn integrate_reports_value_error_and_closed_form() {
    let o = treelb(&["integrate", "--list"]);
    assert!(o.status.success());
    let out = stdout(&o);
    for name in ["sqrt ", "inv-sqrt", "log ", "sin-recip", "peak", "kink"] {
        assert!(out.contains(name), "{out}");
    }

    let o = treelb(&["integrate", "sqrt", "-p", "2", "--tol", "1e-12", "--compare-seq"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for label in [
        "value",
        "error estimate",
        "closed form",
        "difference",
        "intervals",
        "sequential",
        "speedup",
        "utilization",
    ] {
        assert!(out.lines().any(|l| l.trim_start().starts_with(label)), "{label}: {out}");
    }
    assert!(out.contains("within the tolerance ✓"), "{out}");
    assert!(out.contains("≤ 1e-12 ✓"), "{out}");
    assert!(out.contains("│ all"), "the per-PE table: {out}");

    let o = treelb(&["integrate", "sin-recip", "-p", "3", "--strategy", "global-round-robin", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    let answer = &json["answer"];
    let exact = 1f64.cos() - 100f64.cos();
    assert_eq!(answer["exact"].as_f64().unwrap(), exact);
    assert!((answer["value"].as_f64().unwrap() - exact).abs() < 1e-9, "{answer}");
    assert!(answer["error_estimate"].as_f64().unwrap() <= 1e-10, "{answer}");
    assert_eq!(json["work_units"], answer["evaluated"]);
    assert_eq!(answer["evaluated"].as_u64().unwrap(), 2 * answer["accepted"].as_u64().unwrap() - 1);
    assert_eq!(json["setup"]["strategy"], "global-round-robin");
    assert_eq!(json["pes"].as_array().unwrap().len(), 3);
}

#[test]
fn integrate_never_reports_a_numerical_failure_as_success() {
    // Past 1022 bisections of [0, 1] the width underflows and 1/√0 = ∞
    // made the value NaN with exit code 0: refused before the run.
    let o = treelb(&["integrate", "inv-sqrt", "--max-depth", "1100", "-p", "2"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--max-depth: 1100 bisections are too deep"), "{err}");
    assert!(err.contains("at most 1022"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(o.stdout.is_empty());
    // The deepest allowed depth gives a finite, converged value.
    let o = treelb(&["integrate", "inv-sqrt", "--max-depth", "1022", "-p", "2", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert!((json["answer"]["value"].as_f64().unwrap() - 2.0).abs() < 1e-10, "{json}");
    assert_eq!(json["answer"]["converged"], true);
    // Too shallow for the singularity: the report says so, and so do the
    // stderr line and the exit code.
    let o = treelb(&["integrate", "inv-sqrt", "--max-depth", "40", "-p", "2"]);
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(out.contains("NOT CONVERGED"), "{out}");
    assert!(err.contains("integrate inv-sqrt: did not converge"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// The expected size of a UTS tree of given parameters is reported; a
/// sample tree's published count stands alone, with no other size beside
/// it; a normal run prints nothing on stderr.
#[test]
fn uts_reports_the_expected_size_of_a_tree_without_a_published_count() {
    let o = treelb(&["uts", "-t", "0", "-b", "2000", "-q", "0.124875", "-m", "8", "-r", "43", "-p", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    assert!(stdout(&o).contains("expected      2000001 nodes  (the mean size over the random root state)"));
    let o = treelb(&["uts", "--tree", "T1", "-p", "2"]);
    assert_eq!(stderr(&o), "");
    let out = stdout(&o);
    assert!(out.contains("nodes         4130071  (published: 4130071 ✓)"), "{out}");
    assert!(!out.contains("expected"), "{out}");
    // The flags of a sample tree are that tree: T3L (q * m > 1) runs.
    let flags = ["uts", "-t", "0", "-b", "2000", "-q", "0.200014", "-m", "5", "-r", "7"];
    let o = treelb(&[&flags[..], &["--max-nodes", "10000", "--json"]].concat());
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert_eq!(json["instance"]["sample"], "T3L");
    assert_eq!(json["instance"]["expected_nodes"], serde_json::Value::Null);
    // Beyond the limit with --max-nodes: runs, bounded.
    let o = treelb(&["uts", "-t", "3", "-d", "50", "-b", "4", "-p", "2", "--max-nodes", "20000", "--json"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert!(json["instance"]["expected_nodes"].as_f64().unwrap() > 1e30);
}

/// `--max-nodes N` stops every run command after about N units of work
/// (they ran to the end, however long): a partial report marked
/// interrupted, one line on stderr, exit code 3.
#[test]
fn max_nodes_stops_every_run_command_with_a_partial_report() {
    let graph = shared_instance("clique/brock200_4.clq");
    let keller = shared_instance("clique/keller4.clq");
    // kroA100 needs tens of nodes (att48 is proven at the root).
    let tsp = shared_instance("tsp/kroA100.tsp");
    let cases: &[(&[&str], u64, &str)] = &[
        (&["uts", "--tree", "T1L"], 200_000, "nodes"),
        (&["uts", "-t", "1", "-a", "3", "-d", "1000000", "-b", "4"], 50_000, "nodes"),
        // N-Queens 16 has about 1.3 M work units (19,688 subtrees of 12 rows, 64 each).
        (&["nqueens", "16"], 5_000, "work units"),
        (&["clique", &graph, "--no-heuristic"], 2_000, "work units"),
        // keller4 without a 12-clique: 2,340 work units in all.
        (&["clique", &keller, "--k", "12"], 500, "work units"),
        (&["knapsack", "-n", "200", "--class", "strongly-correlated"], 1_000, "nodes"),
        (&["tsp", &tsp], 5, "nodes"),
        (&["integrate", "inv-sqrt", "--tol", "1e-14", "--budget", "1"], 20, "intervals"),
        (&["mandelbrot", "--width", "400", "--height", "300"], 100_000, "iterations"),
    ];
    for (args, max, unit) in cases {
        let max_s = max.to_string();
        let all = [&args[..], &["-p", "2", "--max-nodes", &max_s, "--json"]].concat();
        let o = treelb(&all);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(3), "{all:?}: {err}");
        assert!(
            err.contains(&format!("treelb: interrupted: --max-nodes {max} reached after")),
            "{all:?}: {err}"
        );
        assert!(err.contains(unit), "{all:?}: {err}");
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
        assert_eq!(json["interrupted"], true, "{all:?}");
        assert_eq!(json["setup"]["max_nodes"], *max, "{all:?}");
        let units = json["work_units"].as_u64().unwrap();
        // At most one slice of Δt (or one mandelbrot pixel's orbit, one
        // TSP ascent) per PE beyond the limit.
        assert!(units >= *max && units <= max + 2 * 1000, "{all:?}: {units} units");
    }
    // The report for people says so at its top.
    let o = treelb(&["nqueens", "15", "-p", "2", "--max-nodes", "5e3"]);
    assert_eq!(o.status.code(), Some(3));
    let out = stdout(&o);
    assert!(out.lines().nth(1).unwrap().contains("INTERRUPTED"), "{out}");
    assert!(out.contains("partial: the published count is 2279184"), "{out}");
    // A limit the run does not pass changes nothing (4130071: exactly T1).
    for max in ["5000000", "4130071"] {
        let o = treelb(&["uts", "--tree", "T1", "-p", "2", "--max-nodes", max, "--json"]);
        assert!(o.status.success(), "{max}: {}", stderr(&o));
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
        let got = (json["interrupted"].clone(), json["answer"]["nodes"].clone());
        assert_eq!(got, (false.into(), 4_130_071.into()), "{max}");
    }
}

/// Every strategy stops at the limit (the hub's, the pushing and the
/// static ones included): no hang, exit code 3.
#[test]
fn max_nodes_stops_every_strategy() {
    for strategy in treelb::Strategy::ALL.map(treelb::Strategy::name) {
        for init in ["root", "selective"] {
            let args = ["uts", "--tree", "T3L", "-p", "3", "--max-nodes", "300000", "--strategy", strategy];
            let o = treelb(&[&args[..], &["--init", init, "--json"]].concat());
            assert_eq!(o.status.code(), Some(3), "{strategy}, {init}: {}", stderr(&o));
            let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
            assert_eq!(json["interrupted"], true, "{strategy}");
        }
    }
}

#[test]
fn bnb_and_integrate_bad_input_gets_one_line_and_exit_code_2() {
    let missing = shared_instance("clique/no-such-graph.clq");
    let tsp_as_graph = shared_instance("tsp/burma14.tsp");
    let graph_as_tsp = shared_instance("clique/keller4.clq");
    let cases: &[(&[&str], &str)] = &[
        (&["clique", &missing], "no-such-graph.clq"),
        (&["clique", &tsp_as_graph], "line 1: expected a `c`, `p`, `e` or `n` line"),
        (&["clique", &graph_as_tsp, "--k", "many"], "invalid value 'many' for '--k <K>'"),
        (&["clique", &graph_as_tsp, "--k", "3", "--expect", "11"], "does not go with --k"),
        (&["tsp", &graph_as_tsp], "keller4.clq: line 1"),
        (
            &["tsp"],
            "required arguments were not provided: <FILE|--random <N>> (usage: treelb tsp <FILE|--random <N>>)",
        ),
        (&["clique"], "required arguments were not provided: <FILE> (usage: treelb clique <FILE>)"),
        (&["nqueens"], "required arguments were not provided: <N> (usage: treelb nqueens <N>)"),
        (&["tsp", "--random", "0"], "invalid value '0' for '--random <N>': 0 is not in 1..="),
        (
            &["knapsack", "--class", "hard"],
            "invalid value 'hard' for '--class <CLASS>' [possible values: uncorrelated,",
        ),
        (&["knapsack", "--items", "x"], "invalid value 'x' for '--items <N>'"),
        (
            &["integrate"],
            "required arguments were not provided: <NAME|--list> (usage: treelb integrate <NAME|--list>)",
        ),
        (&["integrate", "tan"], "unknown integrand `tan` (known: sqrt, inv-sqrt"),
        (&["integrate", "sqrt", "--tol", "0"], "--tol expects a positive number"),
        (&["integrate", "sqrt", "--tol", "tiny"], "--tol expects a positive number"),
        (&["integrate", "sqrt", "--tol", "inf"], "--tol expects a positive number"),
        (&["integrate", "sqrt", "--max-depth", "-1"], "error"),
        (&["integrate", "sqrt", "--split-policy", "bottom"], "oldest half of its interval list"),
        (
            &["integrate", "sqrt", "--split-policy", "oldest-half"],
            "--split-policy does not apply to integrate",
        ),
        (
            &["integrate", "sqrt", "--threads", "0"],
            "invalid value '0' for '--threads <P>': must be at least 1",
        ),
        (&["integrate", "sqrt", "--strategy", "guess"], "invalid value 'guess' for '--strategy <NAME>'"),
    ];
    for (args, message) in cases {
        let o = treelb(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: expected `{message}` in: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?} printed to stdout");
    }
}

/// Instance files are read as bytes and every error names its line: a
/// Latin-1 byte in a DIMACS comment was rejected without a line, a TSPLIB
/// coordinate 1e300 said "the input ended without it", knapsack said
/// `item 0` for the item on line 2, a DIMACS edge count that disagrees with
/// the file passed silently.
#[test]
fn instance_files_are_bytes_and_errors_name_their_lines() {
    let dir = scratch("parsers");
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).expect("a scratch file");
        path.to_str().unwrap().to_owned()
    };
    let latin1 = write("latin1.clq", b"c Graphe de d\xe9monstration\np edge 3 3\ne 1 2\ne 2 3\ne 1 3\n");
    // --no-progress: not even the live incumbent lines on stderr.
    let o = treelb(&["clique", &latin1, "-p", "2", "--no-progress"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("ω             3"), "{}", stdout(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));

    let miscounted = write("miscounted.clq", b"p edge 3 7\ne 1 2\ne 2 3\n");
    let o = treelb(&["clique", &miscounted, "-p", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("treelb: warning: ")
            && err.contains(
                "miscounted.clq: line 1: the problem line declares 7 edges, the file lists 2 edge lines"
            ),
        "{err}"
    );

    let far = write(
        "far.tsp",
        b"NAME: far\nTYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 1e300 0\n3 0 1\nEOF\n",
    );
    let bad_byte = write("bad.clq", b"p edge 3 1\ne 1 \xe9\n");
    let knapsack = write("items.txt", b"# caf\xe9\n2 10\n3 4\n5 0\n");
    let cases: &[(&[&str], &str)] = &[
        (&["tsp", &far], "far.tsp: line 7: the distance between nodes 1 and 2 is inf, too large"),
        (&["clique", &bad_byte], "bad.clq: line 2: expected an edge `e U V` with two vertex numbers"),
        (&["knapsack", &knapsack], "items.txt: line 4: item 2: profit 5 and weight 0 must be between 1 and"),
    ];
    for (args, message) in cases {
        let o = treelb(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: expected `{message}` in: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err}");
    }
}

/// A sparse graph is held in `O(n + m)`: 65,536 vertices with one edge
/// (25 s when every graph was an `n²/8`-byte bitset matrix) give ω = 2 at
/// once; a header that asks for more memory than allowed is refused on its
/// line, naming the size.
#[test]
fn clique_on_a_huge_sparse_graph_and_an_absurd_header() {
    let dir = scratch("sparse-clique");
    let one = dir.join("one-edge.clq");
    std::fs::write(&one, "p edge 65536 1\ne 1 65536\n").expect("a scratch file");
    let o = treelb(&["clique", one.to_str().unwrap(), "-p", "2", "--json", "--no-progress"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert_eq!(report["answer"]["omega"], 2);
    assert_eq!(report["answer"]["clique"], serde_json::json!([1, 65536]));
    let huge = dir.join("huge.clq");
    std::fs::write(&huge, "c far too many\np edge 200000000 1\ne 1 2\n").expect("a scratch file");
    let o = treelb(&["clique", huge.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("huge.clq: line 2: a graph of 200000000 vertices needs 5341 MiB before its edges, more than the limit of 2048 MiB"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// Reads a trace file as the `plot-trace --json` summary sees it.
fn trace_summary(file: &std::path::Path) -> serde_json::Value {
    let o = treelb(&["plot-trace", file.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("valid JSON")
}

#[test]
fn trace_then_plot_trace_draws_utilization_and_timeline() {
    let dir = scratch("trace");
    let (csv, png, svg) = (dir.join("t.csv"), dir.join("u.png"), dir.join("timeline.svg"));
    let o = treelb(&["uts", "--tree", "T1", "--threads", "2", "--trace", csv.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("published: 4130071 ✓"));
    let text = std::fs::read_to_string(&csv).expect("the trace was written");
    assert!(text.starts_with("# treelb trace"), "{text:.200}");
    assert!(text.contains("\n# command: treelb uts --tree T1 --threads 2 --trace "), "{text:.600}");
    assert!(text.contains("\npe,start_ns,end_ns,state\n0,0,"), "{text:.800}");
    assert!(text.contains(",working\n"));

    let o = treelb(&[
        "plot-trace",
        csv.to_str().unwrap(),
        "--out",
        png.to_str().unwrap(),
        "--timeline",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("2 PEs"), "{out}");
    assert!(out.contains("working %"), "{out}");
    assert!(out.contains("│ all"), "{out}");
    let (w, h, pixels) = read_png(&png);
    assert_eq!((w, h), (800, 480));
    // Working green is drawn.
    assert!(pixels.chunks(3).any(|p| p == [44, 160, 44]), "no working colour in the plot");
    let svg_text = std::fs::read_to_string(&svg).expect("the timeline was written");
    assert!(svg_text.starts_with("<svg") && svg_text.contains("<rect"), "{svg_text:.300}");

    let json = trace_summary(&csv);
    assert_eq!(json["pes"], 2);
    let working = json["shares"][0][1].as_f64().unwrap();
    assert_eq!(json["shares"][0][0], "working");
    assert!(working > 0.5 && working <= 1.0, "{json}");
}

#[test]
fn every_run_command_takes_trace() {
    let dir = scratch("trace-all");
    let clique = shared_instance("clique/brock200_1.clq");
    let runs: &[&[&str]] = &[
        &["nqueens", "9", "--strategy", "work-sharing"],
        &["clique", &clique, "--strategy", "master-worker"],
        &["knapsack", "-n", "30", "--strategy", "static-cyclic"],
        &["tsp", "--random", "9", "--strategy", "multilevel"],
        &["integrate", "sqrt", "--strategy", "max-load"],
        &["mandelbrot", "--width", "40", "--height", "40", "--strategy", "two-choice"],
    ];
    for (i, args) in runs.iter().enumerate() {
        let csv = dir.join(format!("{i}.csv"));
        let mut all = args.to_vec();
        all.extend(["-p", "3", "--no-progress", "--trace", csv.to_str().unwrap()]);
        let o = treelb(&all);
        assert!(o.status.success(), "{all:?}: {}", stderr(&o));
        let json = trace_summary(&csv);
        assert_eq!(json["pes"], 3, "{all:?}");
        let notes = json["notes"].to_string();
        assert!(notes.contains(&format!("command: treelb {}", args[0])), "{all:?}: {notes}");
    }
}

#[test]
fn trace_and_plot_trace_bad_input_gets_one_line_and_exit_code_2() {
    let dir = scratch("trace-bad");
    let not_trace = dir.join("not.csv");
    std::fs::write(&not_trace, "# a note\npe,start,end\n").unwrap();
    let overlap = dir.join("overlap.csv");
    std::fs::write(&overlap, "pe,start_ns,end_ns,state\n0,0,10,working\n0,5,20,idle\n").unwrap();
    let empty = dir.join("empty.csv");
    std::fs::write(&empty, "pe,start_ns,end_ns,state\n").unwrap();
    let (not_trace, overlap, empty) =
        (not_trace.to_str().unwrap(), overlap.to_str().unwrap(), empty.to_str().unwrap());
    let cases: &[(&[&str], &str)] = &[
        (&["plot-trace", not_trace], "line 2: expected the header `pe,start_ns,end_ns,state`"),
        (&["plot-trace", overlap], "line 3: PE 0's interval starts at 5, before its previous one ends (10)"),
        (&["plot-trace", empty], "the trace has no intervals"),
        (&["plot-trace", "/nonexistent/t.csv"], "/nonexistent/t.csv: "),
        (&["plot-trace", overlap, "--out", "u.jpg"], "--out u.jpg: the image must end in .png or .svg"),
        (&["plot-trace", overlap, "--timeline", "t"], "--timeline t: the image must end in .png or .svg"),
        (&["plot-trace", overlap, "--out", "a.png", "--timeline", "a.png"], "name the same file"),
        (
            &["plot-trace", overlap, "--buckets", "0"],
            "invalid value '0' for '--buckets <N>': must be at least 1",
        ),
        (&["uts", "--trace", "/nonexistent/dir/t.csv"], "--trace /nonexistent/dir/t.csv: "),
    ];
    for (args, message) in cases {
        let o = treelb(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: expected `{message}` in: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err}");
        assert!(o.stdout.is_empty(), "{args:?} printed to stdout");
    }
}

#[test]
fn plot_trace_reads_any_byte_in_a_note_and_names_the_line_of_a_bad_one() {
    let dir = scratch("trace-latin1");
    let note = dir.join("note.csv");
    std::fs::write(&note, b"# caf\xe9\npe,start_ns,end_ns,state\n0,0,10,working\n").unwrap();
    let summary = trace_summary(&note);
    assert_eq!(summary["intervals"], 1);
    assert_eq!(summary["notes"][0], "caf\u{FFFD}");
    let row = dir.join("row.csv");
    std::fs::write(&row, b"pe,start_ns,end_ns,state\n0,0,1\xe90,working\n").unwrap();
    let o = treelb(&["plot-trace", row.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("line 2: end_ns must be a non-negative integer"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
}

/// `--help` of every run command names every strategy (the list is written
/// out in the help text; this keeps it from drifting from the strategies).
#[test]
fn help_lists_every_strategy() {
    for command in ["uts", "nqueens", "clique", "knapsack", "tsp", "integrate", "mandelbrot"] {
        let out = treelb(&[command, "--help"]);
        assert!(out.status.success(), "{command} --help");
        let help = stdout(&out);
        for strategy in treelb::Strategy::ALL {
            assert!(help.contains(strategy.name()), "`treelb {command} --help` does not name {strategy}");
        }
    }
}

/// Ctrl-C (SIGINT) during a long threads run: every PE stops after its
/// slice, the report is marked interrupted (exit code 3), and the trace of
/// the run so far is written (it held an older file's contents until then).
#[test]
fn a_signal_ends_the_run_with_a_partial_report_and_its_trace() {
    let dir = std::env::temp_dir().join(format!("treelb-sigint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("t.csv");
    std::fs::write(&trace, "an older file\n").unwrap();
    // T1XL has 1.6 billion nodes: minutes at P = 2, so the signal comes
    // long before its end.
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_treelb"));
    cmd.args(["uts", "--tree", "T1XL", "--threads", "2", "--progress", "--trace"]).arg(&trace);
    // The first stderr line comes after the handler is installed, just
    // before the PEs start.
    let (code, out, rest) = common::signal_once_started(
        cmd,
        |first| first.starts_with("treelb: started a run of 1635119272 nodes on 2 PEs"),
        std::time::Duration::ZERO,
        |pid| common::send_signal(pid, "INT"),
        LIMIT,
        "SIGINT",
    );
    assert_eq!(code, Some(3), "{out}\n{rest}");
    assert!(out.contains("INTERRUPTED") && out.contains("a signal"), "{out}");
    assert!(rest.contains("interrupted by a signal"), "{rest}");
    let written = std::fs::read_to_string(&trace).unwrap();
    assert!(written.starts_with("# ") && written.lines().count() > 3, "{written}");
    assert!(!written.contains("an older file"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs that take minutes (or centuries) if nothing stops them, one per run
/// command that a time limit can catch mid-run (integration converges in
/// milliseconds: `--max-nodes` above stops it).
fn long_runs() -> Vec<Vec<String>> {
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    vec![
        s(&["uts", "--tree", "T1XL"]),
        s(&["nqueens", "18"]),
        s(&["clique", &shared_instance("clique/keller5.clq")]),
        s(&["clique", &shared_instance("clique/keller5.clq"), "--k", "28"]),
        s(&["knapsack", "-n", "10000", "--range", "10000", "--class", "strongly-correlated"]),
        s(&["tsp", &shared_instance("tsp/kroA200.tsp")]),
        s(&["mandelbrot", "--width", "1500", "--height", "1500", "--max-iter", "100000"]),
    ]
}

/// `--time-limit` stops every run command: a partial report marked
/// interrupted that names the limit, one line on stderr, exit code 3.
#[test]
fn time_limit_stops_every_run_command_with_a_partial_report() {
    for args in long_runs() {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let all = [&args[..], &["-p", "2", "--time-limit", "300ms", "--json"]].concat();
        let o = treelb(&all);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(3), "{all:?}: {err}");
        assert!(err.contains("treelb: interrupted: --time-limit 0.3 s reached after"), "{all:?}: {err}");
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
        assert_eq!(json["interrupted"], true, "{all:?}");
        assert_eq!(json["stopped_by"], "--time-limit 0.3 s", "{all:?}");
        assert_eq!(json["setup"]["time_limit_secs"], 0.3, "{all:?}");
    }
    // For people: at the top, with the cause.
    let o = treelb(&["nqueens", "18", "-p", "2", "--time-limit", "200ms"]);
    assert_eq!(o.status.code(), Some(3));
    let out = stdout(&o);
    assert!(out.lines().nth(1).unwrap().contains("stopped by --time-limit 0.2 s"), "{out}");
    // A limit the run does not reach changes nothing.
    let o = treelb(&["uts", "--tree", "T1", "-p", "2", "--time-limit", "1h", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert_eq!(
        (json["interrupted"].clone(), json["answer"]["nodes"].clone()),
        (false.into(), 4_130_071.into())
    );
    // Bad durations: one line naming the flag, exit code 2.
    for (bad, message) in [
        ("5", "expects a duration: a number with a unit"),
        ("1x", "`x` is not a unit of time"),
        ("0ms", "must be more than 0"),
    ] {
        let o = treelb(&["nqueens", "8", "--time-limit", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        let err = stderr(&o);
        assert!(err.contains("--time-limit") && err.contains(message) && err.lines().count() == 1, "{err}");
    }
}

/// The value of an interrupted branch-and-bound run is never reported as the
/// optimum: its proven bound is on the right side of the true optimum for
/// every kind of stop point (several `--max-nodes`, strategies and P), and
/// the value is on the other side.
#[test]
fn an_interrupted_branch_and_bound_run_reports_a_proven_bound() {
    let brock = shared_instance("clique/brock200_4.clq");
    let att48 = shared_instance("tsp/att48.tsp");
    // (arguments, the optimum, maximizing?)
    let cases: Vec<(Vec<&str>, i64, bool)> = vec![
        (vec!["clique", &brock, "--no-heuristic"], 17, true),
        (vec!["knapsack", "-n", "60", "--class", "strongly-correlated", "--range", "1000"], 0, true),
        (vec!["tsp", &att48], 10628, false),
    ];
    let knapsack_optimum = {
        let o =
            treelb(&["knapsack", "-n", "60", "--class", "strongly-correlated", "--range", "1000", "--json"]);
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
        assert_eq!(json["answer"]["proven_optimal"], true);
        assert_eq!(json["answer"]["bound"], json["answer"]["optimum"]);
        json["answer"]["optimum"].as_i64().unwrap()
    };
    let mut gaps = 0;
    for (args, optimum, maximize) in cases {
        let optimum = if optimum == 0 { knapsack_optimum } else { optimum };
        for (i, max) in ["3", "40", "300", "2000"].into_iter().enumerate() {
            for strategy in ["random-polling", "work-sharing", "master-worker", "static-cyclic"] {
                let p = ["1", "2", "3"][i % 3];
                let all =
                    [&args[..], &["-p", p, "--max-nodes", max, "--strategy", strategy, "--json"]].concat();
                let o = treelb(&all);
                let err = stderr(&o);
                if o.status.code() == Some(0) {
                    continue; // the search ended before the limit
                }
                assert_eq!(o.status.code(), Some(3), "{all:?}: {err}");
                let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
                let a = &json["answer"];
                let value = ["omega", "optimum", "length"].iter().find_map(|k| a[k].as_i64()).unwrap();
                let bound = a["bound"].as_i64();
                let proven = a["proven_optimal"].as_bool().unwrap();
                if maximize {
                    assert!(value <= optimum && bound.is_none_or(|b| b >= optimum), "{all:?}: {a}");
                } else {
                    assert!(value >= optimum && bound.is_none_or(|b| b <= optimum), "{all:?}: {a}");
                }
                assert_eq!(proven, bound == Some(value), "{all:?}: {a}");
                if proven {
                    assert_eq!(value, optimum, "{all:?}");
                } else {
                    gaps += 1;
                    assert!(a["gap"].as_f64().is_none_or(|g| g > 0.0), "{all:?}: {a}");
                }
            }
        }
    }
    assert!(gaps > 10, "only {gaps} runs stopped with a gap");
    // For people: "best found … (not proven optimal; bound ≤ …, gap …)".
    let o = treelb(&["clique", &brock, "--no-heuristic", "-p", "2", "--max-nodes", "500"]);
    assert_eq!(o.status.code(), Some(3));
    let out = stdout(&o);
    let line = out.lines().find(|l| l.trim_start().starts_with("ω")).unwrap();
    assert!(line.contains("best found") && line.contains("(not proven optimal; bound ≤ "), "{out}");
    assert!(line.contains(", gap "), "{out}");
}

/// Each improvement of the incumbent is shown on stderr as it happens
/// (elapsed time, value), and `--json` carries the same timeline instead.
#[test]
fn branch_and_bound_shows_each_improvement() {
    let brock = shared_instance("clique/brock200_4.clq");
    // Without the initial tour, eil76's search improves its tour several
    // times (att48's root bound makes its first tour the optimum).
    let eil76 = shared_instance("tsp/eil76.tsp");
    let runs: [(&[&str], bool); 3] = [
        (&["clique", &brock, "--no-heuristic"], true),
        (&["knapsack", "-n", "200", "--class", "weakly-correlated"], true),
        (&["tsp", &eil76, "--no-heuristic"], false),
    ];
    for (args, maximize) in runs {
        // Without a terminal, the improvements show only when asked.
        let o = treelb(&[args, &["-p", "2"]].concat());
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("treelb: incumbent"), "{args:?}: {}", stderr(&o));
        let o = treelb(&[args, &["-p", "2", "--progress"]].concat());
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let seen: Vec<(f64, i64)> = stderr(&o)
            .lines()
            .filter_map(|l| l.strip_prefix("treelb: incumbent "))
            .map(|l| {
                let (value, secs) = l.split_once(" at ").unwrap();
                (secs.trim_end_matches(" s").parse().unwrap(), value.parse().unwrap())
            })
            .collect();
        assert!(seen.len() >= 2, "{args:?}: {seen:?}");
        for w in seen.windows(2) {
            assert!(w[0].0 <= w[1].0, "{args:?}: time goes back: {seen:?}");
            assert!(if maximize { w[0].1 < w[1].1 } else { w[0].1 > w[1].1 }, "{args:?}: {seen:?}");
        }
        let o = treelb(&[args, &["-p", "2", "--json", "--quiet"]].concat());
        assert!(stderr(&o).is_empty(), "{args:?}: --quiet prints nothing: {}", stderr(&o));
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
        let timeline = json["answer"]["improvements"].as_array().unwrap();
        assert!(timeline.len() >= 2, "{args:?}");
        let last = timeline.last().unwrap()["value"].as_i64().unwrap();
        let value = ["omega", "optimum", "length"].iter().find_map(|k| json["answer"][k].as_i64()).unwrap();
        assert_eq!(last, value, "{args:?}: the timeline ends at the answer");
        // --no-progress is quiet too.
        let o = treelb(&[args, &["-p", "2", "--no-progress"]].concat());
        assert!(!stderr(&o).contains("treelb: incumbent"), "{args:?}");
    }
}

/// The witness of a `--deterministic` run, as printed in its JSON.
fn witness(args: &[&str], p: usize, strategy: &str) -> String {
    let p = p.to_string();
    let all = [args, &["-p", &p, "--strategy", strategy, "--deterministic", "--json"]].concat();
    let o = treelb(&all);
    assert!(o.status.success(), "{all:?}: {}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    let a = &json["answer"];
    assert_eq!(a["deterministic"], true);
    let value = ["omega", "optimum", "length"].iter().find_map(|k| a[k].as_i64()).unwrap();
    let w = ["clique", "items", "tour"].iter().find_map(|k| a.get(k)).unwrap();
    format!("{value}: {w}")
}

/// `--deterministic`: the same optimum and the byte-identical witness for
/// P = 1, 2, 3, 4, 8 and every one of the 13 strategies, on instances with
/// many optimal solutions (C125.9 has several maximum cliques, a subset-sum
/// knapsack many optimal packings; ulysses16).
#[test]
fn deterministic_witnesses_are_identical_for_every_p_and_strategy() {
    let c125 = shared_instance("clique/C125.9.clq");
    let ulysses = shared_instance("tsp/ulysses16.tsp");
    let runs: [&[&str]; 3] = [
        &["clique", &c125],
        &["knapsack", "-n", "16", "--class", "subset-sum", "--range", "100"],
        &["tsp", &ulysses],
    ];
    for args in runs {
        let first = witness(args, 1, "random-polling");
        for strategy in treelb::Strategy::ALL.map(treelb::Strategy::name) {
            for p in [1, 2, 3, 4, 8] {
                assert_eq!(witness(args, p, strategy), first, "{args:?} P = {p} {strategy}");
            }
        }
    }
    // Not a vacuous test: without the flag, the witness depends on the
    // schedule on these instances (some P and strategy give another one).
    // Which one is up to the schedule, so a busy machine may give the same
    // witness in every one of a pass's twelve runs; up to five passes.
    let mut seen = std::collections::HashSet::new();
    for _pass in 0..5 {
        for strategy in ["random-polling", "static-cyclic", "work-sharing", "master-worker"] {
            for p in ["1", "4", "8"] {
                let o =
                    treelb(&["clique", &c125, "--no-heuristic", "-p", p, "--strategy", strategy, "--json"]);
                let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
                seen.insert(json["answer"]["clique"].to_string());
            }
        }
        if seen.len() > 1 {
            break;
        }
    }
    assert!(seen.len() > 1, "C125.9's maximum clique never changed in five passes: {seen:?}");
    // Decisions stop at their first witness: refused.
    let o = treelb(&["clique", &c125, "--k", "8", "--deterministic"]);
    assert_eq!(o.status.code(), Some(2));
    let o = treelb(&["nqueens", "8", "--deterministic"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--deterministic does not apply to nqueens"), "{}", stderr(&o));
}

/// Ctrl-C during a branch-and-bound run: the partial report has the best
/// clique found and the proven bound, exit code 3.
#[test]
fn a_signal_stops_branch_and_bound_with_its_bound() {
    let keller = shared_instance("clique/keller5.clq");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_treelb"));
    cmd.args(["clique", &keller, "--threads", "2", "--progress"]);
    // The first line says that the run started (then come the incumbents).
    let (code, out, rest) = common::signal_once_started(
        cmd,
        |first| first.starts_with("treelb: started a run on 2 PEs"),
        std::time::Duration::from_millis(200),
        |pid| common::send_signal(pid, "INT"),
        LIMIT,
        "SIGINT",
    );
    assert_eq!(code, Some(3), "{out}\n{rest}");
    assert!(out.contains("stopped by a signal (Ctrl-C or SIGTERM)"), "{out}");
    assert!(out.contains("best found") && out.contains("not proven optimal; bound ≤"), "{out}");
    assert!(rest.contains("interrupted by a signal"), "{rest}");
}

/// Every output option is checked before the work: a missing directory, a
/// file where a directory should be, a directory where the file should
/// be: one line naming the option and the path, exit code 2, nothing on
/// stdout. The commands' work would take minutes (T1XL's 1.6 billion
/// nodes, a deep Mandelbrot image, the full reproductions, a calibration):
/// the 120 s limit of each run fails the test if the work starts.
#[test]
fn output_paths_are_checked_before_the_work() {
    let dir = std::env::temp_dir().join(format!("treelb-outputs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let missing = dir.join("missing").join("x");
    let (missing, under_file, dir_s) = (
        missing.to_str().unwrap().to_owned(),
        file.join("x").to_str().unwrap().to_owned(),
        dir.to_str().unwrap().to_owned(),
    );
    let missing_png = format!("{missing}.png");
    let deep = ["mandelbrot", "--width", "3000", "--height", "3000", "--max-iter", "1000000"];
    let cases: Vec<(Vec<&str>, &str, String)> = vec![
        (vec!["uts", "--tree", "T1XL", "-p", "2", "--trace", &missing], "--trace", missing.clone()),
        (
            vec!["uts", "--tree", "T1XL", "-p", "2", "--trace", &dir_s],
            "--trace",
            format!("{dir_s}: it is a directory"),
        ),
        (vec!["tsp", "--random", "400", "--trace", &under_file], "--trace", format!("{under_file}:")),
        ([&deep[..], &["--out", &missing_png]].concat(), "--out", missing_png.clone()),
        ([&deep[..], &["--pe-out", &missing_png]].concat(), "--pe-out", missing_png.clone()),
        (vec!["compare", "T1XL", "--html", &missing], "--html", missing.clone()),
        (vec!["plot-trace", "/nonexistent/t.csv", "--out", &missing_png], "--out", missing_png.clone()),
        (
            vec!["plot-trace", "/nonexistent/t.csv", "--timeline", &missing_png],
            "--timeline",
            missing_png.clone(),
        ),
        (vec!["plot-trace", "/nonexistent/t.csv", "--html", &missing], "--html", missing.clone()),
        (vec!["bench", "--out", &under_file], "--out", under_file.clone()),
        (vec!["sim", "run", "--plot", &missing_png], "--plot", missing_png.clone()),
        (vec!["sim", "reproduce", "--out", &under_file], "--out", under_file.clone()),
        (vec!["sim", "calibrate", "--out", &under_file], "--out", under_file.clone()),
        (vec!["sim", "predict", "--out", &under_file], "--out", under_file.clone()),
        (
            vec!["sim", "freeze", "--calibration", "/nonexistent", "--cases", "2:all", "--out", &under_file],
            "--out",
            under_file.clone(),
        ),
        (vec!["sim", "measure", "/nonexistent", "--out", &under_file], "--out", under_file.clone()),
    ];
    for (args, option, path) in &cases {
        let o = treelb(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with(&format!("treelb: error: {option} {path}")), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err}");
        assert!(o.stdout.is_empty(), "{args:?} printed to stdout");
    }
    // Nothing was created where the paths pointed, and no probe is left.
    let mut left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    left.sort();
    assert_eq!(left, ["a-file"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A file that cannot be written after the work (a full disk) loses no
/// answer: the report is printed first, then one line names the option,
/// the path and the error, and the exit code is 4.
#[test]
fn an_output_that_fails_at_the_end_comes_after_the_report() {
    let o = treelb(&["uts", "--tree", "T1", "-p", "2", "--trace", "/dev/full"]);
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(4), "{err}");
    assert!(out.contains("nodes         4130071  (published: 4130071 ✓)"), "{out}");
    assert!(err.starts_with("treelb: error: --trace /dev/full: No space left on device"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata("/dev/full").unwrap().file_type().is_char_device(), "/dev/full was replaced");
}

/// A trace replaces the file whole at the end, keeping the old contents
/// until then (see also `a_signal_ends_the_run_with_a_partial_report_and_its_trace`),
/// and a device is written in place, never replaced.
#[test]
fn a_trace_replaces_its_file_and_writes_devices_in_place() {
    let dir = std::env::temp_dir().join(format!("treelb-trace-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("t.csv");
    std::fs::write(&trace, "an older file\n").unwrap();
    let o = treelb(&["uts", "--tree", "T1", "-p", "2", "--trace", trace.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let written = std::fs::read_to_string(&trace).unwrap();
    assert!(written.starts_with("# treelb trace") && !written.contains("an older file"), "{written}");
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["t.csv"], "no temporary file left");
    let o = treelb(&["uts", "--tree", "T1", "-p", "2", "--trace", "/dev/null"]);
    assert!(o.status.success(), "{}", stderr(&o));
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// TSP's root phase (initial tour, Held–Karp ascent, cutting-plane LP)
/// takes minutes on 400 random points: `--time-limit` stops it, and the
/// partial report has the heuristic's tour and the root's bound so far.
#[test]
fn a_time_limit_stops_the_tsp_root_phase_with_a_partial_report() {
    let o = treelb(&["tsp", "--random", "400", "-p", "2", "--time-limit", "1s", "--json"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("treelb: interrupted: --time-limit 1 s reached after 0 nodes"),
        "{}",
        stderr(&o)
    );
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert_eq!(
        (json["interrupted"].clone(), json["stopped_by"].clone()),
        (true.into(), "--time-limit 1 s".into())
    );
    let answer = &json["answer"];
    assert_eq!(answer["root_phase"]["stopped"], true, "{answer}");
    assert_eq!((answer["branched"].clone(), json["work_units"].clone()), (0.into(), 0.into()), "no search");
    assert_eq!(answer["proven_optimal"], false);
    assert_eq!(answer["verified"], true);
    let (length, bound) = (answer["length"].as_i64().unwrap(), answer["bound"].as_i64().unwrap());
    assert_eq!(answer["initial_tour"].as_i64(), Some(length), "the heuristic's tour");
    assert_eq!(answer["root_bound"].as_i64(), Some(bound));
    // A 1-tree bound: within a few per cent below the tour.
    assert!(bound < length && bound as f64 > 0.8 * length as f64, "bound {bound}, tour {length}");
    // For people: the interruption at the top, the bound, the root phase.
    let o = treelb(&["tsp", "--random", "400", "-p", "2", "--time-limit", "500ms"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.lines().nth(1).unwrap().contains("stopped by --time-limit 0.5 s after 0 nodes"), "{out}");
    assert!(out.contains("best found") && out.contains("not proven optimal; bound ≥"), "{out}");
    assert!(out.contains("root phase    stopped after"), "{out}");
}

/// Ctrl-C during TSP's root phase: the same partial report, exit code 3,
/// instead of the process ending by the signal.
#[test]
fn a_signal_stops_the_tsp_root_phase_with_a_partial_report() {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_treelb"));
    cmd.args(["tsp", "--random", "400", "--threads", "2", "--progress"]);
    let (code, out, rest) = common::signal_once_started(
        cmd,
        |first| first.starts_with("treelb: tsp: bounding the root of 400 nodes"),
        std::time::Duration::from_millis(200),
        |pid| common::send_signal(pid, "INT"),
        LIMIT,
        "SIGINT",
    );
    assert_eq!(code, Some(3), "{out}\n{rest}");
    assert!(out.contains("stopped by a signal (Ctrl-C or SIGTERM) after 0 nodes"), "{out}");
    assert!(out.contains("root phase    stopped after"), "{out}");
    assert!(out.contains("best found") && out.contains("not proven optimal; bound ≥"), "{out}");
    assert!(rest.contains("interrupted by a signal"), "{rest}");
}

/// Ctrl-C while `clique --estimate` probes: the estimate so far, exit code 3.
#[test]
fn a_signal_ends_the_probing_with_the_estimate_so_far() {
    let keller = shared_instance("clique/keller4.clq");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_treelb"));
    cmd.args(["clique", &keller, "--k", "12", "--estimate", "10m", "--json", "--progress"]);
    // The first line says the probing has begun, Ctrl-C handled.
    let (code, out, rest) = common::signal_once_started(
        cmd,
        |first| first.starts_with("treelb: probing the tree for 10m"),
        std::time::Duration::from_millis(200),
        |pid| common::send_signal(pid, "INT"),
        LIMIT,
        "SIGINT",
    );
    assert_eq!(code, Some(3), "{out}\n{rest}");
    let json: serde_json::Value = serde_json::from_str(&out).expect("a JSON report");
    assert_eq!(json["estimate"]["interrupted"], true, "{json}");
    assert!(json["estimate"]["probes"].as_u64().unwrap() > 0, "{json}");
    assert!(rest.contains("probing stopped by a signal"), "{rest}");
}

/// An application's own default (TSP's Δt = 1, integration's split policy)
/// applies only where the command line is silent: an explicit `--budget`
/// is honoured, even when it equals the runtime's default.
#[test]
fn explicit_flags_win_over_the_applications_defaults() {
    let budget = |args: &[&str]| {
        let o = treelb(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
        (json["setup"]["budget"].clone(), json["setup"]["split_policy"].clone())
    };
    let tsp = ["tsp", "--random", "9", "-p", "2", "--json"];
    assert_eq!(budget(&tsp), (1.into(), "half-each-level".into()));
    for given in ["256", "64", "2"] {
        let got = budget(&[&tsp[..], &["--budget", given]].concat());
        assert_eq!(got.0, given.parse::<u64>().unwrap(), "--budget {given}");
    }
    let integrate = ["integrate", "sqrt", "-p", "2", "--json"];
    assert_eq!(budget(&integrate), (256.into(), "oldest-half".into()));
    assert_eq!(budget(&[&integrate[..], &["--budget", "5"]].concat()).0, 5);
    assert_eq!(budget(&["nqueens", "6", "-p", "2", "--json"]), (256.into(), "half-each-level".into()));
}

/// `treelb completions SHELL` writes a script that names the subcommands
/// and the strategies; an unknown shell is bad input.
#[test]
fn completions_for_bash_zsh_and_fish() {
    for shell in ["bash", "zsh", "fish"] {
        let o = treelb(&["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let script = stdout(&o);
        for word in ["nqueens", "plot-trace", "random-polling", "half-each-level", "max-nodes"] {
            assert!(script.contains(word), "{shell}: no `{word}` in the script");
        }
    }
    let o = treelb(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("invalid value 'tcsh' for '<SHELL>'"), "{}", stderr(&o));
}

/// `--help` lists the values of every closed set, each with a line.
#[test]
fn help_lists_the_values_of_every_closed_set() {
    let out = stdout(&treelb(&["knapsack", "--help"]));
    for value in
        ["oldest-half", "bottom", "half-each-level", "root", "selective", "threads", "mpi", "subset-sum"]
    {
        assert!(out.contains(&format!("- {value}:")), "`{value}` in: {out}");
    }
    let out = stdout(&treelb(&["mandelbrot", "--help"]));
    assert!(out.contains("- subdivide:"), "{out}");
    let out = stdout(&treelb(&["sim", "run", "--help"]));
    for value in ["random-polling", "static-random", "selective", "half-each-level"] {
        assert!(out.contains(&format!("- {value}:")), "`{value}` in: {out}");
    }
    let o = treelb(&["sim", "run", "--pes", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("invalid value '0' for '--pes <P>'"), "{}", stderr(&o));
}

/// `sim run --model loggp`: the LogGP parameters reach the simulator and
/// its report; the seeds' model stays the default and refuses LogGP's
/// flags.
#[test]
fn sim_run_prices_messages_by_loggp_when_asked() {
    let run = |extra: &[&str]| {
        let mut args = vec!["sim", "run", "-p", "16", "--work", "1000000", "--seed", "3", "--json"];
        args.extend_from_slice(extra);
        common::json_report(&treelb(&args), "sim run")
    };
    let seeds = run(&[]);
    assert_eq!(seeds["machine"]["costs"]["model"]["kind"], "seeds", "{seeds}");
    let cheap = run(&["--model", "loggp", "--o-send", "10", "--o-recv", "10", "--latency", "50"]);
    let model = &cheap["machine"]["costs"]["model"];
    assert_eq!(
        (model["kind"].as_str(), model["inter"]["o_send"].as_u64()),
        (Some("loggp"), Some(10)),
        "{cheap}"
    );
    let dear =
        run(&["--model", "loggp", "--o-send", "10", "--o-recv", "10", "--latency", "50", "--gap", "20"]);
    assert_eq!(dear["machine"]["costs"]["model"]["inter"]["gap_milli"], 20_000);
    let t_par = |j: &serde_json::Value| j["t_par"].as_u64().unwrap();
    assert!(t_par(&dear) > t_par(&cheap), "{} vs {}", t_par(&dear), t_par(&cheap));
    let o = treelb(&["sim", "run", "-p", "4", "--work", "100000", "--model", "loggp", "--pes-per-node", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("network       LogGP o_s 100"), "{}", stdout(&o));
    let o = treelb(&["sim", "run", "--latency", "5"]);
    assert!(!o.status.success() && stderr(&o).contains("need --model loggp"), "{}", stderr(&o));
    let o = treelb(&["sim", "run", "--model", "logp"]);
    assert!(!o.status.success() && stderr(&o).contains("unknown cost model `logp`"), "{}", stderr(&o));
}

/// `clique --estimate`: the probes' estimate of keller4's proof tree (`--k
/// 12`: there is no clique of 12 vertices) lies within a few standard
/// errors of the nodes the search expands, and the report says what it is.
#[test]
fn clique_estimate_measures_the_proof_tree() {
    let file = shared_instance("clique/keller4.clq");
    let o = treelb(&["clique", &file, "--k", "12", "-p", "1", "--json"]);
    let run = common::json_report(&o, "the search");
    let nodes = run["answer"]["branched"].as_f64().unwrap() + run["answer"]["pruned"].as_f64().unwrap();
    assert!(nodes > 1000.0, "a tree worth estimating: {nodes}");

    let o = treelb(&["clique", &file, "--k", "12", "--estimate", "300ms", "--seed", "7", "--json"]);
    let json = common::json_report(&o, "the estimate");
    let e = &json["estimate"];
    let (mean, err) = (e["nodes"]["mean"].as_f64().unwrap(), e["nodes"]["std_error"].as_f64().unwrap());
    assert!(e["probes"].as_u64().unwrap() >= 100, "{json}");
    assert!(err > 0.0 && err < 0.2 * mean, "{json}");
    assert!((mean - nodes).abs() < 6.0 * err + 0.02 * nodes, "{mean} ± {err} vs {nodes} nodes");
    assert!(e["sequential_secs"]["mean"].as_f64().unwrap() > 0.0, "{json}");
    assert_eq!(e["seed"], 7);
    assert!(
        json["title"].as_str().unwrap().starts_with("Tree-size estimate — Clique of 12 vertices?"),
        "{json}"
    );

    // A graph without edges: the root has no children, one probe is the
    // whole tree.
    let empty = std::env::temp_dir().join(format!("treelb-estimate-{}.clq", std::process::id()));
    std::fs::write(&empty, "p edge 3 0\n").unwrap();
    let o = treelb(&["clique", empty.to_str().unwrap(), "--estimate", "10s", "--json"]);
    std::fs::remove_file(&empty).ok();
    let json = common::json_report(&o, "the estimate of a one-node tree");
    assert_eq!(json["estimate"]["exact"], true, "{json}");
    assert_eq!(
        (json["estimate"]["probes"].as_u64(), json["estimate"]["nodes"]["mean"].as_f64()),
        (Some(1), Some(1.0))
    );

    let o = treelb(&["clique", &file, "--estimate", "100ms"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for label in ["probes", "nodes", "sequential", "deepest probe", "incumbent"] {
        assert!(out.lines().any(|l| l.trim_start().starts_with(label)), "{label}: {out}");
    }
}

#[test]
fn clique_estimate_refuses_what_does_not_go_with_it() {
    let file = shared_instance("clique/keller4.clq");
    for extra in [
        &["--compare-seq"][..],
        &["--expect", "11"],
        &["--verbose"],
        &["--time-limit", "1s"],
        &["--max-nodes", "100"],
        &["--trace", "/tmp/never-written.csv"],
    ] {
        let mut args = vec!["clique", &file, "--estimate", "1s"];
        args.extend_from_slice(extra);
        let o = treelb(&args);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("does not go with it") && err.contains(extra[0]), "{extra:?}: {err}");
    }
    let o = treelb(&["clique", &file, "--estimate", "soon"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--estimate"), "{}", stderr(&o));
}

/// Terminal manners, as cargo and ripgrep have them: without a terminal a
/// run writes no progress or incumbent lines into a redirected stderr;
/// `--progress` asks for plain lines anyway, `--quiet` for none; colours
/// follow `NO_COLOR` (which wins over `CLICOLOR_FORCE`).
#[test]
fn progress_only_on_a_terminal_or_when_asked_and_no_colour_under_no_color() {
    let knapsack = ["knapsack", "-n", "60", "-p", "2"];
    let o = treelb(&knapsack);
    assert!(o.status.success());
    assert_eq!(stderr(&o), "", "a redirected stderr gets nothing");
    let o = treelb(&[&knapsack[..], &["--progress"]].concat());
    let err = stderr(&o);
    assert!(err.starts_with("treelb: started a run on 2 PEs"), "{err}");
    assert!(err.lines().skip(1).all(|l| l.starts_with("treelb: incumbent ")), "{err}");
    let o = treelb(&["nqueens", "18", "-p", "2", "--time-limit", "100ms", "-q"]);
    assert_eq!((o.status.code(), stderr(&o).as_str()), (Some(3), ""), "--quiet: no note either");
    let help = |env: &[(&str, &str)]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_treelb"));
        cmd.args(["uts", "--help"]).env_remove("NO_COLOR").envs(env.iter().copied());
        common::output_within(cmd, LIMIT).stdout
    };
    assert!(help(&[("CLICOLOR_FORCE", "1")]).contains(&0x1b), "the help has colours when forced");
    assert!(!help(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]).contains(&0x1b), "NO_COLOR wins");
    assert!(!help(&[]).contains(&0x1b), "no colours into a pipe");
}

/// The help groups the runtime's options under headings and offers each
/// application only the options it takes.
#[test]
fn help_is_grouped_and_offers_only_what_the_command_takes() {
    let help = |args: &[&str]| stdout(&treelb(args));
    let uts = help(&["uts", "--help"]);
    for heading in ["\nRun:\n", "\nBalancing:\n", "\nLimits:\n", "\nOutput:\n"] {
        assert!(uts.contains(heading), "{heading:?} in {uts}");
    }
    assert!(!help(&["nqueens", "--help"]).contains("--deterministic"));
    assert!(help(&["clique", "--help"]).contains("--deterministic"));
    assert!(uts.contains("[default: 256]") && !uts.contains("tsp: 1"), "{uts}");
    assert!(help(&["tsp", "--help"]).contains("[default: 1]"));
    assert!(!uts.contains("greedy starts"), "uts's --max-nodes does not speak of clique");
    let connect4 = help(&["connect4", "--help"]);
    for absent in ["--time-limit", "--max-nodes", "--checkpoint", "--trace", "--init"] {
        assert!(!connect4.contains(absent), "{absent} in {connect4}");
    }
    // A usage that shows an argument as optional accepts its absence.
    for (command, usage) in [
        ("integrate", "<NAME|--list>"),
        ("tsp", "<FILE|--random <N>>"),
        ("connect4", "<POSITION|--file <FILE>|--generate <N>>"),
    ] {
        assert!(help(&[command, "--help"]).contains(&format!("Usage: treelb {command} [OPTIONS] {usage}")));
        let o = treelb(&[command]);
        assert_eq!(o.status.code(), Some(2), "{command}");
        assert!(stderr(&o).contains(usage), "{command}: {}", stderr(&o));
    }
}

/// Two PEs sharing the cores with three busy threads per core of another
/// process: busy by the wall clock nearly all the time, but each ran about
/// a quarter of it. The utilization, from the PEs' CPU time, says so; busy
/// time by the wall clock would say about 1.
#[test]
fn a_time_shared_run_reports_the_utilization_it_got() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let stop = Arc::new(AtomicBool::new(false));
    let spinners: Vec<_> = (0..3 * cores)
        .map(|_| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            })
        })
        .collect();
    let o = treelb(&["nqueens", "15", "-p", "2", "--json"]);
    stop.store(true, Ordering::Relaxed);
    for s in spinners {
        s.join().unwrap();
    }
    let json = common::json_report(&o, "nqueens 15 beside busy threads");
    let utilization = json["utilization"].as_f64().unwrap();
    let (busy, wall): (f64, f64) = (
        json["pes"].as_array().unwrap().iter().map(|p| p["busy"].as_f64().unwrap()).sum(),
        json["wall_secs"].as_f64().unwrap(),
    );
    assert!(busy / (2.0 * wall) > 0.8, "both PEs hold work nearly all the time: {json}");
    assert!(utilization < 0.6, "two PEs beside {} busy threads: utilization {utilization}", 3 * cores);
    assert_eq!(json["measurable"], true);
}

/// A search 100,000 levels deep stopped early: its open nodes share their
/// paths as chains of links, which are dropped link by link (dropped
/// recursively, they overflowed the stack and aborted the process).
#[test]
fn a_stopped_deep_search_reports_instead_of_overflowing_its_stack() {
    for p in ["1", "2"] {
        let o = treelb(&["knapsack", "-n", "100000", "-p", p, "--time-limit", "1s", "--json", "--quiet"]);
        assert_eq!(o.status.code(), Some(3), "P = {p}: {}", stderr(&o));
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a JSON report");
        assert_eq!(json["interrupted"], true);
        assert!(json["answer"]["optimum"].as_i64().is_some(), "P = {p}: the best found is reported");
    }
}

/// An endless input (`/dev/zero`) is refused once its first line passes
/// 1 MiB: one line on stderr that names the limit, exit code 2, at once
/// (`treelb clique /dev/zero` read the line to 4.1 GB and aborted on a
/// failed allocation of 8 GiB, exit code 134).
#[cfg(unix)]
#[test]
fn an_endless_input_is_refused_at_the_line_limit() {
    for args in [["clique", "/dev/zero"], ["tsp", "/dev/zero"], ["knapsack", "/dev/zero"]] {
        let start = std::time::Instant::now();
        let o = treelb(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("/dev/zero: line 1: longer than 1 MiB (a binary file?)"), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err}");
        assert!(start.elapsed() < std::time::Duration::from_secs(20), "{args:?}: {:?}", start.elapsed());
    }
}

/// The input an error quotes reaches the terminal escaped: a line that
/// would set the terminal's title and clear its screen is shown as
/// `\x1b]0;PWNED\x07\x1b[2J`, not obeyed.
#[test]
fn errors_show_the_control_characters_of_the_input_visibly() {
    let dir = scratch("escapes");
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).expect("a scratch file");
        path.to_str().unwrap().to_owned()
    };
    let clique = write("title.clq", b"p edge 3 1\ne 1 \x1b]0;PWNED\x07\x1b[2J\n");
    let tsp = write("title.tsp", b"NAME: x\n\x1b]0;PWNED\x07\x1b[2J\n");
    let knapsack = write("title.txt", b"1 10\n\x1b]0;PWNED\x07\x1b[2J 4\n");
    for (args, message) in [
        (
            ["clique", &clique],
            r"title.clq: line 2: expected an edge `e U V` with two vertex numbers, found `e 1 \x1b]0;PWNED\x07\x1b[2J`",
        ),
        (["tsp", &tsp], r"found `\x1b]0;PWNED\x07\x1b[2J`"),
        (
            ["knapsack", &knapsack],
            r"title.txt: line 2: expected item 1 as `PROFIT WEIGHT` (two integers), found `\x1b]0;PWNED\x07\x1b[2J 4`",
        ),
    ] {
        let o = treelb(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: expected `{message}` in: {err:?}");
        assert!(!err.trim_end_matches('\n').chars().any(char::is_control), "{args:?}: {err:?}");
    }
}

/// A name read from a file and a path given on the command line reach the
/// terminal escaped in reports, errors and warnings alike: no raw escape
/// byte in stdout or stderr, the sequence shown as `\x1b]0;PWNED\x07`.
#[test]
fn names_and_paths_reach_the_terminal_escaped() {
    let dir = scratch("hostile-names");
    let hostile = "\x1b]0;PWNED\x07";
    let shown = r"\x1b]0;PWNED\x07";
    // A TSPLIB file whose NAME and COMMENT hold the sequence, in a file
    // whose name holds it too.
    let tsp = dir.join(format!("{hostile}.tsp"));
    let points: String =
        (0..8).map(|i| format!("{} {} {}\n", i + 1, (i * 37) % 100, (i * 61) % 100)).collect();
    std::fs::write(
        &tsp,
        format!("NAME: {hostile}\nCOMMENT: {hostile}\nTYPE: TSP\nDIMENSION: 8\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n{points}EOF\n"),
    )
    .unwrap();
    let tsp = tsp.to_str().unwrap();
    let out_png = dir.join(format!("{hostile}.png"));
    let missing = dir.join(hostile).join("t.csv");
    let clique = dir.join(format!("{hostile}.clq"));
    // A warning names the file: its `p` line counts 2 edges, it lists 1.
    std::fs::write(&clique, "p edge 3 2\ne 1 2\n").unwrap();
    let absent = format!("{tsp}.missing");
    let runs: Vec<Vec<&str>> = vec![
        vec!["tsp", tsp, "-p", "2"],
        vec!["tsp", tsp, "-p", "2", "--json"],
        vec!["tsp", tsp, "-p", "2", "--progress", "--time-limit", "1ns"],
        vec!["mandelbrot", "--width", "64", "--height", "48", "--out", out_png.to_str().unwrap()],
        vec!["uts", "--tree", "T1", "--trace", missing.to_str().unwrap()],
        vec!["clique", clique.to_str().unwrap()],
        vec!["tsp", &absent],
        vec!["uts", "--tree", hostile],
    ];
    for args in &runs {
        let o = treelb(args);
        let (out, err) = (stdout(&o), stderr(&o));
        assert!(!o.stdout.contains(&0x1b) && !o.stderr.contains(&0x1b), "{args:?}: {out:?} {err:?}");
        assert!(
            out.contains(shown) || err.contains(shown) || out.contains(r"\u001b]0;PWNED\u0007"),
            "{args:?}: {out} {err}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Blind forecasts: a bad case set, a file that is no forecast file,
/// results that are no results and a calibration that cannot measure
/// T_split each get one line and exit code 2, and write nothing.
#[test]
fn blind_forecast_commands_refuse_bad_input_in_one_line() {
    let dir = std::env::temp_dir().join(format!("treelb-blind-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let junk = dir.join("junk.json");
    std::fs::write(&junk, "{\"not\": \"forecasts\"}").unwrap();
    let (junk, out) = (junk.to_str().unwrap().to_owned(), dir.join("r.md").to_str().unwrap().to_owned());
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["sim", "freeze", "--calibration", &junk, "--cases", "16", "--out", &out],
            "treelb: error: --cases: `16` is not [mpi:|mpi-tcp:]PES:STRATEGIES",
        ),
        (
            vec!["sim", "freeze", "--calibration", &junk, "--cases", "4:fastest", "--out", &out],
            "treelb: error: --cases: unknown strategy `fastest`",
        ),
        (
            vec!["sim", "freeze", "--calibration", &junk, "--cases", "4:all", "--out", &out],
            "not a calibration of `treelb sim calibrate`",
        ),
        (vec!["sim", "measure", &junk, "--out", &out], "not a forecast file of `treelb sim freeze`"),
        (
            vec!["sim", "measure", "--from-results", &junk, "--out", &out],
            "not the JSON results of `treelb sim measure`",
        ),
        // A calibration whose searches are too small to split: no T_split,
        // refused instead of a file that `sim freeze` could not read.
        (
            vec!["sim", "calibrate", "--apps", "nqueens:4", "--repeat", "1", "--out", &out],
            "none of the applications was large enough to split",
        ),
        (
            vec!["sim", "calibrate", "--apps", "kclique:x:brock200_1.clq", "--out", &out],
            "treelb: error: --apps kclique:x:brock200_1.clq: K `x`: invalid digit",
        ),
        (
            vec!["sim", "calibrate", "--apps", "kclique:22", "--out", &out],
            "treelb: error: --apps kclique:22: not kclique:K:FILE",
        ),
    ];
    for (args, expected) in &cases {
        let o = treelb(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err}");
    }
    assert!(!dir.join("r.md").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_threads_trace_opens_as_chrome_trace_events_and_replays_in_the_simulator() {
    let dir = scratch("trace-chrome");
    let (csv, chrome) = (dir.join("t.csv"), dir.join("t.json"));
    let o = treelb(&["uts", "--tree", "T1", "-p", "2", "--no-progress", "--trace", csv.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.contains("\npe,at_ns,mark,value\n"), "the trace has marks: {text:.400}");
    let o = treelb(&["plot-trace", csv.to_str().unwrap(), "--chrome", chrome.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("wrote "), "{}", stdout(&o));
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&chrome).unwrap()).expect("valid JSON");
    let phases = common::validate_chrome_trace(&json);
    assert!(phases["X"] > 0 && phases["M"] >= 5, "{phases:?}");
    // T1 under random polling on 2 PEs: PE 1 starts without work, so at
    // least one piece moves.
    assert!(phases.get("s").copied().unwrap_or(0) >= 1, "{phases:?}");
    assert!(phases.get("i").copied().unwrap_or(0) >= 1, "{phases:?}");
    // The validator catches a flow without its finish.
    let mut broken = json.clone();
    let events = broken["traceEvents"].as_array_mut().unwrap();
    let finish = events.iter().position(|e| e["ph"] == "f").unwrap();
    events.remove(finish);
    assert!(std::panic::catch_unwind(|| common::validate_chrome_trace(&broken)).is_err());

    // The replay: the same tree, all of its nodes, on as many PEs.
    let o = treelb(&["sim", "replay", csv.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    common::check_replay(&r, 2);
    let o = treelb(&["sim", "replay", csv.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("2 PEs, random-polling") && out.contains("same victim") && out.contains("│ all"),
        "{out}"
    );
}
