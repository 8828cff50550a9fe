//! `treelb sim` from its arguments to its report and files.

mod common;

use std::process::Command;

/// `treelb sim ARGS…`: its report, or its error line.
fn sim(args: &[&str]) -> Result<String, String> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_treelb"));
    cmd.arg("sim").args(args);
    let o = common::output_within(cmd, std::time::Duration::from_secs(600));
    if o.status.success() {
        Ok(String::from_utf8(o.stdout).expect("utf-8"))
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

#[test]
fn multilevel_runs_by_name_and_reports_its_tree() {
    let out = sim(&[
        "run",
        "--strategy",
        "multilevel",
        "-p",
        "64",
        "--fanout",
        "8,8",
        "--rho",
        "4,1",
        "--work",
        "2000000",
        "--workload",
        "iid:deterministic",
        "--t-rout",
        "0",
        "--json",
        "--per-pe",
    ])
    .unwrap();
    let r: treelb_sim::SimReport = serde_json::from_str(&out).unwrap();
    assert_eq!((r.strategy.as_str(), r.machine.p, r.t_seq), ("multilevel", 64, 2_000_000));
    assert_eq!(r.levels.iter().map(|l| l.grain).collect::<Vec<_>>(), [4.0 * 64.0 * 10.0, 8.0 * 10.0]);
    assert_eq!(r.per_pe.len(), 64);
    // The default search for ρ, three even levels, and the summary.
    let out = sim(&[
        "run",
        "--strategy",
        "multilevel",
        "-p",
        "64",
        "--levels",
        "3",
        "--work",
        "1000000",
        "--workload",
        "iid:exponential",
    ])
    .unwrap();
    assert!(out.contains("tree          3 levels: fan-out 16 × 2 × 2"), "{out}");
    assert!(out.contains("exponential sizes"), "{out}");
}

#[test]
fn run_writes_json_with_per_pe_times_and_plots() {
    let dir = std::env::temp_dir().join(format!("treelb-sim-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (strategy, file) in [("random-polling", "u.svg"), ("two-choice", "u.png")] {
        let plot = dir.join(file);
        let out = sim(&[
            "run",
            "--strategy",
            strategy,
            "-p",
            "16",
            "--work",
            "1000000",
            "--network",
            "torus-2d",
            "--json",
            "--per-pe",
            "--plot",
            plot.to_str().unwrap(),
        ])
        .unwrap();
        let r: treelb_sim::SimReport = serde_json::from_str(&out).unwrap();
        assert_eq!((r.t_seq, r.per_pe.len()), (1_000_000, 16), "{strategy}");
        assert!(!r.utilization.values.is_empty(), "{strategy}");
        let bytes = std::fs::read(&plot).unwrap();
        if file.ends_with(".svg") {
            assert!(String::from_utf8_lossy(&bytes).contains("<svg"), "{strategy}");
        } else {
            assert_eq!(&bytes[1..4], b"PNG", "{strategy}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn multilevel_says_what_does_not_fit() {
    let fails = |args: &[&str], what: &str| {
        let e = sim(args).unwrap_err().to_string();
        assert!(e.contains(what), "{args:?}: {e}");
    };
    let iid = |extra: &[&'static str]| {
        let mut v = vec!["run", "--strategy", "multilevel", "--workload", "iid:exponential"];
        v.extend_from_slice(extra);
        v
    };
    fails(&iid(&["-p", "64", "--fanout", "8,4"]), "multiply to 32");
    fails(&iid(&["-p", "64", "--rho", "1,2,3"]), "3 values for 2 levels");
    fails(&iid(&["--rho", "fast"]), "--rho");
    fails(&iid(&["--network", "ring"]), "crossbar");
    fails(&["run", "--strategy", "multilevel", "--workload", "iid:pareto"], "pareto");
    fails(&["run", "--strategy", "multilevel", "--fanout", "4,0"], "at least 1");
    fails(&["run", "--strategy", "max-load", "--rho", "1.6"], "--rho");
    fails(&["run", "--workload", "iid:uniform"], "--strategy multilevel");
    fails(&iid(&["--init", "selective"]), "--init selective: a producer tree starts from its root producer");
    fails(&iid(&["--max-events", "3"]), "--max-events: the producer tree is computed level by level");
    fails(&iid(&["--levels", "9"]), "--levels 9: at most 8 levels");
    fails(&["run", "--workload", "uts:-x 1"], "--workload: ");
    fails(&["run", "--workload", "beta:1"], "expected alpha:A");
}

#[test]
fn calibrate_then_predict_writes_the_table() {
    let dir = std::env::temp_dir().join(format!("treelb-calibrate-{}", std::process::id()));
    let (cal, md) = (dir.join("c.json"), dir.join("c.md"));
    let out = sim(&[
        "calibrate",
        "--apps",
        "uts:default,nqueens:6",
        "--cores",
        "2",
        "--repeat",
        "2",
        "--out",
        cal.to_str().unwrap(),
    ])
    .unwrap();
    assert!(out.contains("uts:default: 1732 units"), "{out}");
    let c: serde_json::Value = serde_json::from_slice(&std::fs::read(&cal).unwrap()).unwrap();
    for key in ["t_split", "t_poll", "t_rout_threads", "t_wake", "quantum"] {
        assert!(c[key].as_f64().is_some_and(|x| x > 0.0 && x.is_finite()), "{key}: {c}");
    }
    // Linux's base slice on 2 cores.
    assert_eq!(c["quantum"].as_f64(), Some(1.5e6), "{c}");
    assert_eq!(c["cores"].as_u64(), Some(2), "{c}");
    assert!(c["t_rout_mpi"].is_null(), "{c}");
    sim(&[
        "predict",
        "--calibration",
        cal.to_str().unwrap(),
        "--out",
        md.to_str().unwrap(),
        "--pes",
        "2,8",
        "--repeat",
        "1",
    ])
    .unwrap();
    let text = std::fs::read_to_string(&md).unwrap();
    // Two applications × five strategies at P = 2 and 8, and the four
    // predictions beyond one machine.
    for app in ["uts:default", "nqueens:6"] {
        for p in [2, 8] {
            let rows: Vec<&str> =
                text.lines().filter(|l| l.starts_with(&format!("| {app} | threads | {p} |"))).collect();
            assert_eq!(rows.len(), 5, "{text}");
            for row in rows {
                // | app | runtime | P | strategy | bound | measured | predicted | …
                let cells: Vec<&str> = row.split('|').map(str::trim).collect();
                let bound: f64 = cells[5].parse().unwrap();
                let predicted: f64 = cells[7].parse().unwrap();
                assert_eq!(bound, if p == 2 { 1.0 } else { 0.25 }, "{row}");
                // 8 PEs on the 2 modelled cores: never above C / P.
                assert!(predicted <= bound + 1e-3, "{row}");
            }
        }
    }
    assert_eq!(text.lines().filter(|l| l.starts_with("| torus-3d |")).count(), 2, "{text}");
    assert!(text.contains("threads: run to idle on C cores"), "{text}");
    assert!(text.contains("**MPI.** Not run"), "{text}");
    assert!(text.contains("treelb sim calibrate --out"), "{text}");
    let e = sim(&["calibrate", "--apps", "chess:1", "--out", cal.to_str().unwrap()]).unwrap_err().to_string();
    assert!(e.contains("chess") && e.contains("--apps"), "{e}");
    let e =
        sim(&["predict", "--calibration", cal.to_str().unwrap(), "--ranks", "2,x"]).unwrap_err().to_string();
    assert!(e.contains("--ranks") && e.contains("`x`"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
