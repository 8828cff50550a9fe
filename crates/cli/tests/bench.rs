//! `treelb bench`, the benchmark harness, end to end on a tiny suite: the
//! sequential baseline and treelb at P = 1 and 2, each run in its own
//! process, plus peer programs given by path — one right, one that prints a
//! wrong answer, one that hangs. The wrong answer must be reported as a
//! mismatch and the hang as a timeout, the exit code must say so, and the
//! report must be written (JSON, Markdown, command, machine). No timing is
//! checked. Every run of the binary is killed and fails its test after
//! 300 s.

#[allow(dead_code)] // not every helper is used here
mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const LIMIT: std::time::Duration = std::time::Duration::from_secs(300);

fn treelb(args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_treelb"));
    cmd.args(args);
    common::output_within(cmd, LIMIT)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("treelb-bench-test-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A peer program: a shell script.
fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!("{name}={}", path.display())
}

fn rows(report: &serde_json::Value, workload: &str) -> Vec<serde_json::Value> {
    let w = report["workloads"].as_array().unwrap().iter().find(|w| w["workload"] == workload).unwrap();
    w["rows"].as_array().unwrap().clone()
}

fn row<'a>(rows: &'a [serde_json::Value], runner: &str, p: u64) -> &'a serde_json::Value {
    rows.iter()
        .find(|r| r["runner"] == runner && r["threads"] == p)
        .unwrap_or_else(|| panic!("no row {runner} P = {p} in {rows:?}"))
}

#[test]
fn a_tiny_suite_checks_every_answer_and_reports_mismatches_and_timeouts() {
    let dir = scratch("peers");
    let right = script(&dir, "right", r#"echo "Solutions for $1: 92""#);
    let wrong = script(&dir, "wrong", r#"echo "Solutions for $1: 93""#);
    // It hangs in a grandchild too, as a wrapper script around a solver
    // would: the harness kills the whole process group.
    let hang = script(&dir, "hang", "sleep 600 & sleep 600");
    let out = dir.join("report");
    let o = treelb(&[
        "bench",
        "--workloads",
        "nqueens:8,default",
        "--engines",
        "seq,treelb",
        "-p",
        "1,2",
        "--repeat",
        "2",
        "--timeout",
        "3s",
        "--nqueens-peer",
        &right,
        "--nqueens-peer",
        &wrong,
        "--nqueens-peer",
        &hang,
        "--out",
        out.to_str().unwrap(),
        "--progress",
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "a mismatch and a timeout fail the run: {stderr}");
    assert!(stderr.contains("[1/"), "a progress line per run with --progress: {stderr}");

    let json = std::fs::read_to_string(out.join("results.json")).expect("results.json is written");
    let report: serde_json::Value = serde_json::from_str(&json).expect("results.json is JSON");
    let queens = rows(&report, "nqueens:8");
    for p in [1, 2] {
        let r = row(&queens, "treelb", p);
        assert_eq!(r["status"], "ok");
        assert_eq!(r["answer"], "92 solutions");
        assert_eq!(r["nodes"], 2057);
        assert_eq!(r["runs_wall_secs"].as_array().unwrap().len(), 2);
    }
    assert_eq!(row(&queens, "seq", 1)["nodes"], 2057);
    assert_eq!(row(&queens, "peer right", 1)["status"], "ok");
    let w = row(&queens, "peer wrong", 1);
    assert_eq!(w["status"], "mismatch");
    assert_eq!(w["message"], "found `93 solutions`, expected `92 solutions`");
    // A failed runner is not run again in later rounds.
    assert_eq!(w["runs_wall_secs"].as_array().unwrap().len(), 1);
    let h = row(&queens, "peer hang", 1);
    assert_eq!(h["status"], "timeout");
    assert_eq!(h["message"], "killed after the time limit of 3.0 s");
    assert_eq!(h["wall_secs"], serde_json::Value::Null);
    // The UTS tree `default`: its published counts, no N-Queens peer.
    let uts = rows(&report, "default");
    assert_eq!(uts.len(), 3);
    for r in &uts {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["nodes"], 1732, "{r}");
    }
    let failures: Vec<&str> =
        report["failures"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    assert_eq!(failures.len(), 2, "{failures:?}");
    assert!(failures[0].starts_with("nqueens:8 peer wrong P=1: MISMATCH"), "{failures:?}");
    assert!(failures[1].starts_with("nqueens:8 peer hang P=1: TIMEOUT"), "{failures:?}");

    let md = std::fs::read_to_string(out.join("results.md")).unwrap();
    assert!(md.contains("**2 failure(s):**"), "{md}");
    assert!(
        md.contains("| peer wrong | 1 | MISMATCH: found `93 solutions`, expected `92 solutions` |"),
        "{md}"
    );
    let command = std::fs::read_to_string(out.join("command.txt")).unwrap();
    assert!(
        command.starts_with("treelb bench --workloads nqueens:8,default --engines seq,treelb"),
        "{command}"
    );
    let machine = std::fs::read_to_string(out.join("machine.txt")).unwrap();
    assert!(machine.contains(" cores\n"), "{machine}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn every_engine_agrees_on_the_quick_trees_and_the_branch_and_bound_optima() {
    // Every engine of the library on small trees; published counts.
    let o = treelb(&[
        "bench",
        "--workloads",
        "nqueens:9,default,clique:keller4,tsp:ulysses16,knapsack:strongly-correlated:24:100:5",
        "--engines",
        "seq,treelb,rayon-join,rayon-cutoff,chili-join,chili-cutoff",
        "-p",
        "2",
        "--repeat",
        "1",
        "--no-write",
        "--json",
        "--no-progress",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = common::json_report(&o, "treelb bench");
    assert!(report["failures"].as_array().unwrap().is_empty());
    let reference = |w: &str| {
        let w = report["workloads"].as_array().unwrap().iter().find(|x| x["workload"] == w).unwrap().clone();
        (
            w["reference"].as_str().unwrap().to_owned(),
            w["published"].as_bool().unwrap(),
            w["rows"].as_array().unwrap().len(),
        )
    };
    assert_eq!(reference("nqueens:9"), ("352 solutions".to_owned(), true, 6));
    assert_eq!(reference("clique:keller4"), ("optimum 11".to_owned(), true, 6));
    assert_eq!(reference("tsp:ulysses16"), ("optimum 6859".to_owned(), true, 6));
    // A generated knapsack has no published optimum: the first engine's.
    assert!(!reference("knapsack:strongly-correlated:24:100:5").1);
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    for (args, message) in [
        (&["bench", "sprint"][..], "unknown suite `sprint` (expected one of quick"),
        (&["bench", "--workloads", "T1,sudoku:9"], "--workloads: unknown workload `sudoku:9`"),
        (&["bench", "--engines", "seq,openmp"], "--engines: unknown engine `openmp`"),
        (&["bench", "-p", "0"], "--threads: `0` is not a number of PEs"),
        (&["bench", "--strategies", "fastest"], "--strategies: unknown strategy `fastest`"),
        (
            &["bench", "--glasgow", "/nonexistent/glasgow"],
            "--glasgow: glasgow: no program /nonexistent/glasgow",
        ),
        (&["bench", "--nqueens-peer", "x"], "--nqueens-peer: --nqueens-peer x: expected NAME=PATH"),
        (&["bench", "--workloads", "tsp:nosuch"], "tsp:nosuch: no file"),
    ] {
        let o = treelb(args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

#[test]
fn connect4_positions_reach_the_peer_on_its_standard_input() {
    let dir = scratch("c4");
    // Answers 3 for every position: right for the first of moves30 (3),
    // wrong for the second (−6).
    let c4 = script(&dir, "c4solver", r#"while read -r p; do echo "$p 3"; done"#);
    let path = c4.split_once('=').unwrap().1;
    let run = |workload: &str| {
        treelb(&[
            "bench",
            "--workloads",
            workload,
            "--repeat",
            "1",
            "--no-write",
            "--json",
            "--c4solver",
            path,
        ])
    };
    let o = run("connect4:moves30:1");
    let report = common::json_report(&o, "connect4:moves30:1");
    let one = rows(&report, "connect4:moves30:1");
    // The sequential solver and the peer; no engine that does not run it.
    let runners: Vec<&str> = one.iter().map(|r| r["runner"].as_str().unwrap()).collect();
    assert_eq!(runners, ["seq", "peer c4solver"]);
    assert!(one.iter().all(|r| r["status"] == "ok"), "{one:?}");
    let o = run("connect4:moves30:2");
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let two = rows(&report, "connect4:moves30:2");
    assert_eq!(row(&two, "seq", 1)["status"], "ok");
    assert_eq!(row(&two, "peer c4solver", 1)["status"], "mismatch");
    std::fs::remove_dir_all(&dir).ok();
}
