//! The whole suite as a user runs it, on the `--quick` trees with one run
//! each: every engine, each in its own process, must give the published
//! answer (T1 = 4,130,071 nodes, T3 = 4,112,897; N-Queens 12 = 14,200
//! solutions) and the same node count. No timing is checked.

use std::process::Command;

use treelb_apps::uts::SampleTree;

#[test]
fn quick_suite_agrees_on_every_answer() {
    let out = std::env::temp_dir().join(format!("treelb-bench-smoke-{}", std::process::id()));
    let status = Command::new(env!("CARGO_BIN_EXE_treelb-bench"))
        .args(["--quick", "--repeat", "1", "--out"])
        .arg(&out)
        .env_remove("TREELB_UTS_C")
        .status()
        .expect("the benchmark binary runs");
    // A wrong answer from any engine makes the suite fail.
    assert!(status.success(), "treelb-bench --quick failed: {status}");

    let json = std::fs::read_to_string(out.join("engines.json")).expect("the report is written");
    let report: serde_json::Value = serde_json::from_str(&json).expect("the report is JSON");
    let workloads = report["workloads"].as_array().expect("workloads");
    let names: Vec<_> = workloads.iter().map(|w| w["workload"].as_str().unwrap()).collect();
    assert_eq!(names, ["T1", "T3", "nqueens:12"]);
    for w in workloads {
        let name = w["workload"].as_str().unwrap();
        if let Some(tree) = SampleTree::find(name) {
            assert_eq!(w["nodes"].as_u64(), Some(tree.nodes), "{name}");
        }
        let engines: Vec<_> =
            w["rows"].as_array().unwrap().iter().map(|r| r["engine"].as_str().unwrap()).collect();
        for engine in ["seq", "treelb", "rayon-join", "rayon-cutoff", "chili-join", "chili-cutoff"] {
            assert!(engines.contains(&engine), "{name}: no {engine} row in {engines:?}");
        }
    }
    assert!(std::fs::read_to_string(out.join("engines.md")).unwrap().contains("| treelb | 1 |"));
    std::fs::remove_dir_all(&out).ok();
}
