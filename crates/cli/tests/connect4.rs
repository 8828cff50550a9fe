//! `treelb connect4` as a user runs it: exact scores and best moves (checked
//! against Pons's solver), a checked set of positions, mismatches exit with
//! 1, bad input and unsupported options with one line and exit code 2.
//! Every run of the binary is killed and fails its test after 120 s.

#[allow(dead_code)] // helpers of the other CLI tests
mod common;

use std::process::{Command, Output};

const LIMIT: std::time::Duration = std::time::Duration::from_secs(120);

fn treelb(args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_treelb"));
    cmd.args(args);
    common::output_within(cmd, LIMIT)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A committed position set of the apps crate.
fn data(name: &str) -> String {
    format!("{}/../apps/tests/data/connect4/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_position_gets_its_score_and_best_move() {
    // Pons's solver, -a: column scores -8 -5 -11 -8 -3 -7 -7.
    let o = treelb(&["connect4", "71352242461454177511", "-p", "2", "--tt-log2", "18"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("score: -3 "), "{out}");
    assert!(out.contains("best move: 5\n"), "{out}");
    let o = treelb(&["connect4", "31733265144527321443", "--sequential", "--weak", "--tt-log2", "18"]);
    let out = text(&o.stdout);
    assert!(out.contains("score: 1 (the side to move wins)") && out.contains("best move: 1\n"), "{out}");
}

#[test]
fn a_checked_set_has_no_mismatch() {
    let file = data("moves30.txt");
    for extra in [
        &["-p", "2"][..],
        &["-p", "2", "--no-ybw", "--strategy", "async-round-robin"],
        &["--sequential"],
        &["-p", "3", "--tt-per-pe"],
    ] {
        let mut args = vec!["connect4", "--file", &file, "--tt-log2", "20"];
        args.extend_from_slice(extra);
        let o = treelb(&args);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let out = text(&o.stdout);
        assert!(out.contains("Connect Four, 1000 positions"), "{out}");
        assert!(out.contains("checked: 1000, mismatches: 0"), "{out}");
    }
}

#[test]
fn a_mismatch_exits_with_1() {
    let dir = std::env::temp_dir().join(format!("treelb-c4-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("wrong.txt");
    std::fs::write(&file, "# Pons: 71352242461454177511 -3\n71352242461454177511 -4\n37475\n").unwrap();
    let o = treelb(&["connect4", "--file", file.to_str().unwrap(), "--tt-log2", "16"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stdout).contains("checked: 1, mismatches: 1"), "{}", text(&o.stdout));
    assert_eq!(text(&o.stderr), "treelb: mismatch: position 71352242461454177511: score -3, expected -4\n");
    std::fs::write(&file, "4453 -2\n4459\n").unwrap();
    let o = treelb(&["connect4", "--file", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.ends_with("wrong.txt:2: position `4459`: move 4: `9` is not a column (1 to 7)\n"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `treelb gametree`: a synthetic tree's value equals the sequential one,
/// by one full-window search and by null-window searches, with and without
/// waiting; the nodes of aborted subtrees are reported.
#[test]
fn a_synthetic_game_tree_gets_the_sequential_value() {
    for tree in 0..4u64 {
        let t = tree.to_string();
        let mut args =
            vec!["gametree", "--branching", "6", "--depth", "7", "--tree", &t, "--check", "-p", "2"];
        if tree % 2 == 1 {
            args.push("--null-windows");
        }
        if tree >= 2 {
            args.push("--no-ybw");
        }
        let o = treelb(&args);
        let out = text(&o.stdout);
        assert!(o.status.success(), "{args:?}: {out}{}", text(&o.stderr));
        let v = out.lines().find_map(|l| l.strip_prefix("value: ")).unwrap_or_else(|| panic!("{out}"));
        assert!(out.contains(&format!("sequential: value {v},")), "{out}");
        assert!(out.lines().any(|l| l.starts_with("aborted nodes: ")), "{out}");
    }
}

#[test]
fn bad_input_and_unsupported_options_get_one_line_and_exit_code_2() {
    for (args, expected) in [
        (
            &["connect4", "1212121"][..],
            "position `1212121`: move 7: column 1 wins the game, which is then over",
        ),
        (&["connect4", "4444444"], "position `4444444`: move 7: column 4 is full"),
        (&["connect4", "44", "--strategy", "work-sharing"], "--strategy work-sharing is not supported"),
        (&["connect4", "44", "--strategy", "static-block"], "--strategy static-block is not supported"),
        (&["connect4", "44", "--init", "selective"], "--init does not apply to connect4"),
        (&["connect4", "44", "--tt-log2", "99"], "--tt-log2 must be between 4 and 32, got 99"),
        (&["connect4", "--file", "/nonexistent/c4.txt"], "--file /nonexistent/c4.txt: "),
        (&["connect4", "44", "--time-limit", "1s"], "--time-limit does not apply to connect4"),
        (&["connect4", "44", "--max-nodes", "100"], "--max-nodes does not apply to connect4"),
        (&["connect4", "44", "--deterministic"], "--deterministic does not apply to connect4"),
        (&["connect4", "44", "--split-policy", "bottom"], "--split-policy does not apply to connect4"),
        (&["gametree", "--trace", "/tmp/t.csv"], "--trace does not apply to gametree"),
        (&["connect4", "44", "--checkpoint", "/tmp/c4.ckpt"], "--checkpoint does not apply to connect4"),
        (&["sim", "ybwc", "--ordering", "1.5"], "--ordering must be between 0 and 1, got 1.5"),
        (&["gametree", "--ordering", "1.5"], "--ordering must be between 0 and 1, got 1.5"),
        (&["gametree", "--strategy", "work-sharing"], "gametree: --strategy work-sharing is not supported"),
        (&["gametree", "--weight", "0"], "invalid value '0' for '--weight <WEIGHT>'"),
        (&["sim", "ybwc", "-p", "0"], "-p: simulated PEs must be between 1 and 65536, got 0"),
    ] {
        let o = treelb(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = text(&o.stderr);
        assert!(err.contains(expected) && err.lines().count() == 1, "{args:?}: {err}");
    }
}

#[test]
fn generated_positions_are_open_and_distinct() {
    let o = treelb(&["connect4", "--generate", "50", "--moves", "16", "--seed", "4"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let lines: std::collections::HashSet<&str> = out.lines().collect();
    assert_eq!(lines.len(), 50);
    assert!(lines.iter().all(|l| l.len() == 16 && l.bytes().all(|b| (b'1'..=b'7').contains(&b))));
}

#[test]
fn a_table_per_pe_and_the_log_of_window_searches() {
    let o = treelb(&[
        "connect4",
        "71352242461454177511",
        "-p",
        "2",
        "--tt-log2",
        "16",
        "--tt-per-pe",
        "--verbose",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("a table per PE") && out.contains("score: -3 "), "{out}");
    // One line per window search: the exact solve's, then the best move's.
    let err = text(&o.stderr);
    let searches: Vec<&str> = err.lines().filter(|l| l.starts_with("treelb: 20 moves, window (")).collect();
    assert!(searches.len() >= 2, "{err}");
    assert!(searches.iter().all(|l| l.contains(" nodes, ")), "{err}");
    // The score alone: no search for a best move, so fewer window searches.
    let o = treelb(&["connect4", "71352242461454177511", "--sequential", "--score-only", "--verbose"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("score: -3 ") && !out.contains("best move"), "{out}");
    assert!(text(&o.stderr).lines().count() < err.lines().count(), "{}", text(&o.stderr));
}

#[test]
fn the_ybwc_model_and_the_threads_runtime_print_side_by_side() {
    let o = treelb(&[
        "sim",
        "ybwc",
        "--branching",
        "5",
        "--depth",
        "7",
        "--seeds",
        "2",
        "-p",
        "2,8",
        "--threads",
        "2",
        "--repeat",
        "1",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let rows: Vec<&str> =
        out.lines().filter(|l| l.starts_with("model ") || l.starts_with("threads ")).collect();
    // Model at 2 and 8 PEs, threads at 2, each with and without waiting.
    assert_eq!(rows.len(), 6, "{out}");
    for r in &rows {
        // The last four columns: overhead, aborted %, speedup, efficiency.
        let numbers: Vec<f64> = r.split_whitespace().rev().take(4).map(|w| w.parse().unwrap()).collect();
        let (aborted, overhead) = (numbers[2], numbers[3]);
        assert!(overhead > 0.5 && overhead < 20.0 && (0.0..=100.0).contains(&aborted), "{r}");
    }
}
