//! The MPI runtime under `mpirun`: exact answers for every one of the 13
//! strategies — UTS, N-Queens, maximum clique and TSP at 1 to 4 ranks
//! (oversubscribed) and in hybrid mode (2 ranks × 2 threads) — both
//! initializations, a slowed-down rank, and more ranks than work; branch and
//! bound (maximum clique, k-clique decisions, knapsack, TSP) with the
//! published or the dynamic program's optimum and an independently checked
//! witness.
//!
//! Built only with the `mpi` feature (`required-features` in Cargo.toml);
//! a missing `mpirun` skips every test that needs it, with a line on the
//! terminal, or fails it where `TREELB_REQUIRE` names `mpi`. Every `mpirun`
//! runs under a hard time limit: a hung run is killed and the test fails
//! with its output.

mod common;

use std::collections::HashSet;
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// How many `mpirun` may run at once. One at a time left a core idle for
/// much of the file's run: each `mpirun` spends about half a second
/// starting, mostly waiting, and ranks without work back off and sleep.
/// Two at a time took the file from 262 to 152 s on a 2-core machine; more
/// would only oversubscribe the cores further (the default test threads
/// are as many as the cores).
const CONCURRENT_MPIRUNS: usize = 2;

/// The number of `mpirun` running, and its signal when one ends.
static RUNNING: Mutex<usize> = Mutex::new(0);
static ENDED: Condvar = Condvar::new();

/// Places among the [`CONCURRENT_MPIRUNS`]; held while an `mpirun` runs.
struct Slot(usize);

impl Slot {
    /// Waits for a free place and takes it.
    fn take() -> Slot {
        Slot::take_n(1)
    }

    /// Waits until no `mpirun` runs and takes every place: for a run that
    /// measures the machine.
    fn take_all() -> Slot {
        Slot::take_n(CONCURRENT_MPIRUNS)
    }

    fn take_n(n: usize) -> Slot {
        let mut running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        while *running + n > CONCURRENT_MPIRUNS {
            running = ENDED.wait(running).unwrap_or_else(|e| e.into_inner());
        }
        *running += n;
        Slot(n)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        *RUNNING.lock().unwrap_or_else(|e| e.into_inner()) -= self.0;
        ENDED.notify_all();
    }
}

/// Time limit of one `mpirun`.
const LIMIT: Duration = Duration::from_secs(120);

/// Whether `mpirun` runs; where it does not, the test skips with a line
/// on the terminal, or fails if `TREELB_REQUIRE` names `mpi` (as `.ci/run`
/// does once it has installed Open MPI).
fn require_mpirun() -> bool {
    common::outside_program("mpi", &["mpirun"], MPI_INSTALL).is_some()
}

/// How to install what the tests need.
const MPI_INSTALL: &str = "apt-get install openmpi-bin libopenmpi-dev";

/// A missing `mpirun` fails the tests where `TREELB_REQUIRE` names `mpi` …
#[test]
#[should_panic(expected = "no working `mpirun` on the PATH")]
fn a_missing_mpirun_fails_the_tests_where_required() {
    common::absent("mpi", "mpirun", MPI_INSTALL, "chromium,mpi");
}

/// … and is a skip elsewhere.
#[test]
fn a_missing_mpirun_skips_the_tests_elsewhere() {
    common::absent("mpi", "mpirun", MPI_INSTALL, "chromium");
    common::absent("mpi", "mpirun", MPI_INSTALL, "");
}

/// Runs `treelb ARGS --runtime mpi` on `np` ranks; returns rank 0's stdout.
fn mpirun(np: usize, args: &[&str], env: &[(&str, &str)]) -> String {
    mpirun_with_stderr(np, args, env).0
}

/// [`mpirun`], returning stdout and stderr.
fn mpirun_with_stderr(np: usize, args: &[&str], env: &[(&str, &str)]) -> (String, String) {
    // --progress: rank 0 describes the runtime in a line on stderr.
    let (o, e) = mpirun_exact(np, &[args, &["--runtime", "mpi", "--progress"]].concat(), env);
    assert!(e.contains("treelb: mpi: "), "rank 0 did not report the runtime\nstderr:\n{e}");
    (o, e)
}

/// Runs `treelb ARGS` (exactly these) on `np` ranks under the time limit;
/// returns rank 0's stdout and stderr, and fails unless `mpirun` succeeded.
fn mpirun_exact(np: usize, args: &[&str], env: &[(&str, &str)]) -> (String, String) {
    let (status, o, e) = mpirun_status(np, args, env);
    let shown = format!("mpirun -np {np} treelb {}", args.join(" "));
    assert!(status.success(), "`{shown}` failed ({status})\nstdout:\n{o}\nstderr:\n{e}");
    (o, e)
}

/// [`mpirun_exact`], returning the exit status of `mpirun` instead of
/// failing on a non-zero one.
fn mpirun_status(
    np: usize,
    args: &[&str],
    env: &[(&str, &str)],
) -> (std::process::ExitStatus, String, String) {
    let _slot = Slot::take();
    let mut cmd = Command::new("mpirun");
    cmd.args(["--oversubscribe", "--allow-run-as-root", "-np", &np.to_string()])
        .arg(env!("CARGO_BIN_EXE_treelb"))
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let shown = format!("mpirun -np {np} treelb {}", args.join(" "));
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("{shown}: cannot start mpirun: {e}"));
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let (mut o, mut e) = (String::new(), String::new());
        let _ = out.read_to_string(&mut o);
        let _ = err.read_to_string(&mut e);
        (o, e)
    });
    let Some(status) = common::wait_within(&mut child, LIMIT) else {
        let (o, e) = reader.join().unwrap_or_default();
        panic!("HUNG: `{shown}` ran past {LIMIT:?} and was killed\nstdout:\n{o}\nstderr:\n{e}");
    };
    let (o, e) = reader.join().expect("reader thread");
    (status, o, e)
}

/// The value on the report line that starts with `label`.
fn value(report: &str, label: &str) -> u64 {
    let line = report
        .lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no `{label}` line in:\n{report}"));
    line.split_whitespace().nth(label.split_whitespace().count()).and_then(|v| v.parse().ok()).unwrap_or_else(
        || {
            panic!("no number on `{line}`");
        },
    )
}

/// Every strategy, by name.
fn strategies() -> impl Iterator<Item = &'static str> {
    treelb::Strategy::ALL.into_iter().map(treelb::Strategy::name)
}

/// Every strategy on two rank counts of 1 to 4, both odd or both even, so
/// that each rank count meets half the strategies, and with the two
/// initializations: (ranks, strategy, init).
fn sweep() -> impl Iterator<Item = (usize, &'static str, &'static str)> {
    strategies()
        .enumerate()
        .flat_map(|(i, strategy)| [1 + i % 4, 1 + (i + 2) % 4].map(|np| (np, strategy, init(i + np / 2))))
}

const INITS: [&str; 2] = ["root", "selective"];

/// The initialization of the `i`-th run of a sweep: both, in turn.
fn init(i: usize) -> &'static str {
    INITS[i % 2]
}

#[test]
fn uts_t1_exact_for_every_strategy_init_and_rank_count() {
    if !require_mpirun() {
        return;
    }
    // T1's published count under every strategy and both initializations
    // on 3 ranks; on 1 to 4 ranks, T1's shape two levels shallower (its
    // count, 257042, is the sequential one: crates/apps/tests/parallel.rs
    // checks it on threads under every strategy).
    for strategy in strategies() {
        for init in INITS {
            let out = mpirun(3, &["uts", "--tree", "T1", "--strategy", strategy, "--init", init], &[]);
            assert_eq!(value(&out, "nodes"), 4_130_071, "np 3, {strategy}, {init}:\n{out}");
        }
    }
    let shallow = ["uts", "-t", "1", "-a", "3", "-d", "8", "-b", "4", "-r", "19"];
    for (np, strategy, init) in sweep() {
        let out = mpirun(np, &[&shallow[..], &["--strategy", strategy, "--init", init]].concat(), &[]);
        assert_eq!(value(&out, "nodes"), 257_042, "np {np}, {strategy}, {init}:\n{out}");
        assert!(out.contains(&format!("{np} MPI PEs")), "{out}");
    }
}

#[test]
fn uts_t3_exact_for_every_strategy_and_rank_count() {
    if !require_mpirun() {
        return;
    }
    for np in [2, 4] {
        for (i, strategy) in strategies().enumerate() {
            let init = init(i + np);
            let out = mpirun(np, &["uts", "--tree", "T3", "--strategy", strategy, "--init", init], &[]);
            assert_eq!(value(&out, "nodes"), 4_112_897, "np {np}, {strategy}, {init}:\n{out}");
        }
    }
}

#[test]
fn nqueens_12_exact_for_every_strategy_and_rank_count() {
    if !require_mpirun() {
        return;
    }
    for (np, strategy, init) in sweep() {
        let out = mpirun(np, &["nqueens", "12", "--strategy", strategy, "--init", init], &[]);
        assert_eq!(value(&out, "solutions"), 14_200, "np {np}, {strategy}, {init}:\n{out}");
    }
}

#[test]
fn hybrid_two_ranks_of_two_threads_for_every_strategy() {
    if !require_mpirun() {
        return;
    }
    let clique = shared_instance("clique/brock200_4.clq");
    let tsp = shared_instance("tsp/bays29.tsp");
    for (i, strategy) in strategies().enumerate() {
        let init = init(i);
        let common = ["--threads", "2", "--strategy", strategy, "--init", init];
        let out = mpirun(2, &[&["uts", "--tree", "T1"][..], &common].concat(), &[]);
        assert_eq!(value(&out, "nodes"), 4_130_071, "{strategy}, {init}:\n{out}");
        assert!(out.contains("4 MPI PEs"), "{out}");
        // The other applications on every other strategy, in turn.
        if i % 2 == 0 {
            let out = mpirun(2, &[&["uts", "--tree", "T3"][..], &common].concat(), &[]);
            assert_eq!(value(&out, "nodes"), 4_112_897, "{strategy}, {init}:\n{out}");
            let out = mpirun(2, &[&["clique", &clique][..], &common].concat(), &[]);
            assert_eq!(value(&out, "ω"), 17, "{strategy}, {init}:\n{out}");
        } else {
            let out = mpirun(2, &[&["nqueens", "12"][..], &common].concat(), &[]);
            assert_eq!(value(&out, "solutions"), 14_200, "{strategy}, {init}:\n{out}");
            let out = mpirun(2, &[&["tsp", &tsp, "--expect", "2020"][..], &common].concat(), &[]);
            assert!(out.contains("(expected: 2020 ✓)"), "{strategy}, {init}:\n{out}");
        }
    }
}

#[test]
fn compare_runs_every_strategy_across_ranks() {
    if !require_mpirun() {
        return;
    }
    let (out, _) =
        mpirun_exact(2, &["compare", "nqueens:10", "--runtime", "mpi", "--repeat", "1", "--json"], &[]);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(report["runtime"], "mpi", "{out}");
    assert_eq!(report["threads"], 2, "{out}");
    let rows = report["rows"].as_array().expect("rows");
    let names: Vec<&str> = rows.iter().map(|r| r["strategy"].as_str().unwrap()).collect();
    assert_eq!(names, strategies().collect::<Vec<_>>());
    for r in rows {
        let e = r["efficiency"].as_f64().unwrap();
        assert!(e > 0.0 && e < 2.0, "{r}");
    }
    // Hybrid: 2 ranks of 2 threads, two strategies.
    let (out, _) = mpirun_exact(
        2,
        &[
            "compare",
            "T3",
            "--runtime",
            "mpi",
            "--threads",
            "2",
            "--strategies",
            "random-polling,max-load",
            "--repeat",
            "1",
        ],
        &[],
    );
    assert!(out.contains("4 MPI PEs") && out.contains("max-load"), "{out}");
}

#[test]
fn a_slow_rank_still_gives_the_exact_count() {
    if !require_mpirun() {
        return;
    }
    for (np, slow) in [(2, "0:200"), (3, "1:200")] {
        let out = mpirun(np, &["uts", "--tree", "T1"], &[("TREELB_MPI_SLOW", slow)]);
        assert_eq!(value(&out, "nodes"), 4_130_071, "np {np}, slow {slow}:\n{out}");
    }
}

#[test]
fn more_ranks_than_work_terminates() {
    if !require_mpirun() {
        return;
    }
    // N-Queens 4 (a tree of a few nodes) and 1 (a single node) on 8 ranks:
    // most ranks never see work, and selective initialization leaves most
    // of them without a share.
    for init in INITS {
        let out = mpirun(8, &["nqueens", "4", "--init", init], &[]);
        assert_eq!(value(&out, "solutions"), 2, "{init}:\n{out}");
        let out = mpirun(8, &["nqueens", "1", "--init", init], &[]);
        assert_eq!(value(&out, "solutions"), 1, "{init}:\n{out}");
    }
}

// Branch and bound. The instance files are read from ../shared/instances
// beside the checkout (see /README.md of that folder for the optima).

use common::{numbers_on_line, shared_instance};

/// The edges of a DIMACS graph file (1-based, both directions), read here
/// so that witnesses are checked independently of treelb.
fn dimacs_edges(file: &str) -> HashSet<(u32, u32)> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut edges = HashSet::new();
    for line in text.lines().filter(|l| l.starts_with("e ")) {
        let v: Vec<u32> = line.split_whitespace().skip(1).map(|x| x.parse().expect("a vertex")).collect();
        edges.insert((v[0], v[1]));
        edges.insert((v[1], v[0]));
    }
    edges
}

/// Asserts that `vertices` are `size` distinct, pairwise adjacent vertices.
fn assert_clique(edges: &HashSet<(u32, u32)>, vertices: &[u32], size: usize, context: &str) {
    assert_eq!(vertices.len(), size, "{context}");
    assert_eq!(vertices.iter().collect::<HashSet<_>>().len(), size, "distinct: {context}");
    for (i, &u) in vertices.iter().enumerate() {
        for &v in &vertices[i + 1..] {
            assert!(edges.contains(&(u, v)), "{u} and {v} are not adjacent: {context}");
        }
    }
}

/// The number of improvement messages on rank 0's runtime line.
fn improvement_messages(stderr: &str) -> u64 {
    let line =
        stderr.lines().find(|l| l.contains("improvement messages")).unwrap_or_else(|| panic!("{stderr}"));
    let before = line.split(" improvement messages").next().unwrap_or_default();
    before.rsplit(' ').next().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{line}"))
}

#[test]
fn max_clique_exact_for_every_strategy_init_and_rank_count() {
    if !require_mpirun() {
        return;
    }
    // brock200_4, ω = 17, without the greedy start so that the ranks find
    // (and broadcast) several improvements.
    let file = shared_instance("clique/brock200_4.clq");
    let edges = dimacs_edges(&file);
    for (np, strategy, init) in sweep() {
        let args = ["clique", &file, "--no-heuristic", "--strategy", strategy, "--init", init];
        let (out, err) = mpirun_with_stderr(np, &args, &[]);
        let context = format!("np {np}, {strategy}, {init}:\n{out}");
        assert_eq!(value(&out, "ω"), 17, "{context}");
        assert_clique(&edges, &numbers_on_line(&out, "clique"), 17, &context);
        if np > 1 {
            assert!(improvement_messages(&err) > 0, "no improvement was broadcast: {context}\n{err}");
        }
    }
}

#[test]
fn k_clique_decisions_stop_on_every_rank() {
    if !require_mpirun() {
        return;
    }
    // keller4: ω = 11, so a clique of 11 vertices exists and one of 12 not.
    let file = shared_instance("clique/keller4.clq");
    let edges = dimacs_edges(&file);
    for (np, init) in [(2, "root"), (3, "selective")] {
        let out = mpirun(np, &["clique", &file, "--k", "11", "--init", init], &[]);
        let context = format!("np {np}, {init}, k 11:\n{out}");
        assert!(out.contains("there is a clique of 11 vertices"), "{context}");
        assert_clique(&edges, &numbers_on_line(&out, "witness"), 11, &context);
        let out = mpirun(np, &["clique", &file, "--k", "12", "--init", init], &[]);
        assert!(out.contains("there is no clique of 12 vertices"), "np {np}, {init}, k 12:\n{out}");
        assert!(!out.contains("witness"), "{out}");
    }
    // Every strategy stops at the witness, and says "no" when there is none.
    for (i, strategy) in strategies().enumerate() {
        let init = init(i);
        let out = mpirun(2, &["clique", &file, "--k", "11", "--strategy", strategy, "--init", init], &[]);
        assert!(out.contains("there is a clique of 11 vertices"), "{strategy}, {init}:\n{out}");
        assert_clique(&edges, &numbers_on_line(&out, "witness"), 11, &out);
        let out = mpirun(3, &["clique", &file, "--k", "12", "--strategy", strategy, "--init", init], &[]);
        assert!(out.contains("there is no clique of 12 vertices"), "{strategy}, {init}:\n{out}");
    }
    // A decision in hybrid mode: the witness stops the other threads too.
    let out = mpirun(2, &["clique", &file, "--k", "11", "--threads", "2", "--init", "selective"], &[]);
    assert!(out.contains("there is a clique of 11 vertices"), "{out}");
    assert_clique(&edges, &numbers_on_line(&out, "witness"), 11, &out);
}

#[test]
fn tsp_optimum_for_every_strategy_and_rank_count() {
    if !require_mpirun() {
        return;
    }
    let file = shared_instance("tsp/bays29.tsp");
    for (np, strategy, init) in sweep() {
        let out =
            mpirun(np, &["tsp", &file, "--expect", "2020", "--strategy", strategy, "--init", init], &[]);
        assert!(
            out.contains("length        2020  (expected: 2020 ✓)"),
            "np {np}, {strategy}, {init}:\n{out}"
        );
    }
}

#[test]
fn knapsack_and_tsp_optima_on_two_ranks() {
    if !require_mpirun() {
        return;
    }
    for init in INITS {
        let out = mpirun(2, &["knapsack", "-n", "60", "--instance-seed", "1", "--dp", "--init", init], &[]);
        let optimum = value(&out, "optimum");
        assert!(out.contains(&format!("dynamic program: {optimum} ✓")), "{init}:\n{out}");
    }
    // TSPLIB's published optimum: bays29 (EXPLICIT FULL_MATRIX) 2020, once
    // from the heuristic tour and once from none.
    let file = shared_instance("tsp/bays29.tsp");
    for extra in [&[][..], &["--no-heuristic", "--init", "selective"][..]] {
        let out = mpirun(2, &[&["tsp", &file, "--expect", "2020"][..], extra].concat(), &[]);
        assert!(out.contains("length        2020  (expected: 2020 ✓)"), "{extra:?}:\n{out}");
        let mut tour = numbers_on_line(&out, "tour");
        tour.sort_unstable();
        assert_eq!(tour, (1..=29).collect::<Vec<_>>(), "a permutation of the 29 nodes: {out}");
    }
}

#[test]
fn branch_and_bound_in_hybrid_mode() {
    if !require_mpirun() {
        return;
    }
    let file = shared_instance("clique/brock200_4.clq");
    let edges = dimacs_edges(&file);
    for init in INITS {
        let args = ["clique", &file, "--no-heuristic", "--threads", "2", "--init", init];
        let out = mpirun(2, &args, &[]);
        assert_eq!(value(&out, "ω"), 17, "{init}:\n{out}");
        assert!(out.contains("4 MPI PEs"), "{out}");
        assert_clique(&edges, &numbers_on_line(&out, "clique"), 17, &out);
    }
    let out = mpirun(2, &["knapsack", "-n", "60", "--instance-seed", "1", "--dp", "--threads", "2"], &[]);
    assert!(out.contains("✓"), "{out}");
}

/// `--pin`, a flag of the threads runtime alone, is refused with `--runtime mpi`, with
/// one line naming it, before MPI starts (so no mpirun is needed).
#[test]
fn pin_is_refused_on_mpi() {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_treelb"));
    cmd.args(["uts", "--tree", "T1", "--runtime", "mpi", "--pin"]);
    let out = cmd.output().expect("treelb runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--pin") && stderr.contains("not with --runtime mpi"), "{stderr}");
}

/// A trace of a run on two ranks: merged at rank 0, with both PEs' states
/// and the pieces that moved between them; it opens as Chrome trace-event
/// JSON and replays in the simulator.
#[test]
fn a_trace_across_ranks_is_merged_at_rank_0_opens_as_chrome_trace_events_and_replays() {
    if !require_mpirun() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("treelb-mpi-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (csv, chrome) = (dir.join("t.csv"), dir.join("t.json"));
    let out = mpirun(2, &["uts", "--tree", "T1", "--trace", csv.to_str().unwrap()], &[]);
    assert!(out.contains("published: 4130071 ✓"), "{out}");
    let text = std::fs::read_to_string(&csv).expect("rank 0 wrote the trace");
    let trace = treelb::trace::Trace::parse(&text).expect("a trace");
    assert_eq!(trace.pes.len(), 2, "both ranks' PEs: {text:.600}");
    assert!(trace.pes.iter().all(|p| p.iter().any(|i| i.state == treelb::trace::State::Working)));
    assert!(!trace.moves().is_empty(), "a piece moved from rank 0 to rank 1");
    let o = Command::new(env!("CARGO_BIN_EXE_treelb"))
        .args(["plot-trace", csv.to_str().unwrap(), "--chrome", chrome.to_str().unwrap()])
        .output()
        .expect("treelb runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&chrome).unwrap()).expect("JSON");
    let phases = common::validate_chrome_trace(&json);
    assert!(phases["X"] > 0 && phases["s"] >= 1, "{phases:?}");
    let o = Command::new(env!("CARGO_BIN_EXE_treelb"))
        .args(["sim", "replay", csv.to_str().unwrap(), "--json"])
        .output()
        .expect("treelb runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    common::check_replay(&serde_json::from_slice(&o.stdout).expect("JSON"), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A small checked set of Connect Four positions: the first `n` of the
/// positions after 20 moves and of those after 30 moves, with Pons's
/// scores, in a file of the test's own.
fn connect4_checked_set(n: usize, name: &str) -> std::path::PathBuf {
    let data = format!("{}/../apps/tests/data/connect4", env!("CARGO_MANIFEST_DIR"));
    let mut lines = Vec::new();
    for set in ["moves20.txt", "moves30.txt"] {
        let text = std::fs::read_to_string(format!("{data}/{set}")).expect("the checked sets");
        lines.extend(
            text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).take(n).map(String::from),
        );
    }
    let path = std::env::temp_dir().join(format!("treelb-mpi-{name}-{}.txt", std::process::id()));
    std::fs::write(&path, lines.join("\n") + "\n").expect("a temporary file");
    path
}

/// Young brothers wait across ranks: a checked set of Connect Four
/// positions gets Pons's scores at 1 to 4 ranks (and without waiting, and
/// in hybrid mode), with the messages of the search and the aborted nodes
/// reported.
#[test]
fn connect4_on_mpi_gives_pons_scores_at_every_rank_count() {
    if !require_mpirun() {
        return;
    }
    let file = connect4_checked_set(5, "connect4");
    let f = file.to_str().unwrap();
    let base = ["connect4", "--file", f, "--tt-log2", "20", "--score-only"];
    let runs: [(usize, &[&str]); 6] =
        [(1, &[]), (2, &[]), (3, &[]), (4, &[]), (2, &["--no-ybw"]), (2, &["--threads", "2"])];
    for (np, extra) in runs {
        let args = [&base[..], extra].concat();
        let (o, e) = mpirun_with_stderr(np, &args, &[]);
        assert!(o.contains("checked: 10, mismatches: 0"), "np {np} {extra:?}:\n{o}\n{e}");
        let aborted = value(&o, "aborted nodes:");
        let mean: f64 = o
            .lines()
            .find_map(|l| l.strip_prefix("mean nodes: "))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no mean nodes in:\n{o}"));
        assert!(aborted as f64 <= mean * 10.0, "aborted nodes {aborted} beyond all nodes {mean} × 10:\n{o}");
        assert!(e.contains("results and") && e.contains("aborts sent between ranks"), "np {np}: {e}");
    }
    std::fs::remove_file(file).ok();
}

/// One mpirun solves a file of several positions, each by several
/// null-window searches plus the searches for its best move, all runs of
/// one session of the MPI runtime driven by rank 0: every score is
/// Pons's, on 2 and 3 ranks, with and without a best move, and also
/// win/draw/loss only.
#[test]
fn a_file_of_positions_is_one_session_of_window_searches_on_mpi() {
    if !require_mpirun() {
        return;
    }
    let file = connect4_checked_set(4, "session");
    let f = file.to_str().unwrap();
    for np in [2, 3] {
        for extra in [&[][..], &["--score-only"][..], &["--weak"][..]] {
            let args = [&["connect4", "--file", f, "--tt-log2", "18", "--each"][..], extra].concat();
            let (o, e) = mpirun_with_stderr(np, &args, &[]);
            assert!(o.contains("checked: 8, mismatches: 0"), "np {np} {extra:?}:\n{o}\n{e}");
            let each = o.lines().filter(|l| l.starts_with(|c: char| c.is_ascii_digit())).count();
            assert_eq!(each, 8, "np {np} {extra:?}: one line per position:\n{o}");
            let windows = e
                .split_once(" window searches")
                .and_then(|(before, _)| before.rsplit(' ').next())
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or_else(|| panic!("no window searches in:\n{e}"));
            assert!(windows > 8, "np {np} {extra:?}: {windows} window searches for 8 positions\n{e}");
        }
    }
    std::fs::remove_file(file).ok();
}

/// A score that differs from the expected one is a mismatch on MPI too:
/// exit code 1, reported once (by rank 0).
#[test]
fn a_wrong_expected_score_is_a_mismatch_on_mpi() {
    if !require_mpirun() {
        return;
    }
    let file = std::env::temp_dir().join(format!("treelb-mpi-wrong-{}.txt", std::process::id()));
    // 37475 scores -18 (Pons); 5 is wrong.
    std::fs::write(&file, "37475 5\n").unwrap();
    let args = [
        "connect4",
        "--file",
        file.to_str().unwrap(),
        "--tt-log2",
        "16",
        "--runtime",
        "mpi",
        "--no-progress",
    ];
    let (status, o, e) = mpirun_status(2, &args, &[]);
    assert_eq!(status.code(), Some(1), "{o}\n{e}");
    assert!(o.contains("checked: 1, mismatches: 1"), "stdout:\n{o}\nstderr:\n{e}");
    assert_eq!(
        e.matches("mismatch: position 37475: score -18, expected 5").count(),
        1,
        "stdout:\n{o}\nstderr:\n{e}"
    );
    std::fs::remove_file(file).ok();
}

/// Synthetic game trees across 2 and 3 ranks: the value equals the
/// sequential one for several trees, by one full-window search and by
/// null-window searches, with and without young brothers waiting.
#[test]
fn synthetic_game_trees_on_mpi_give_the_sequential_value() {
    if !require_mpirun() {
        return;
    }
    for np in [2, 3] {
        for tree in 0..4u64 {
            let t = tree.to_string();
            let mut args = vec!["gametree", "--branching", "6", "--depth", "7", "--tree", &t, "--check"];
            if tree % 2 == 1 {
                args.push("--null-windows");
            }
            if tree == 2 {
                args.push("--no-ybw");
            }
            let o = mpirun(np, &args, &[]);
            let v = o.lines().find_map(|l| l.strip_prefix("value: ")).unwrap_or_else(|| panic!("{o}"));
            assert!(o.contains(&format!("sequential: value {v},")), "np {np}, tree {tree}:\n{o}");
            let nodes = value(&o, "nodes:");
            assert!(value(&o, "aborted nodes:") <= nodes, "{o}");
        }
    }
}

/// The RGB bytes of a PNG.
fn png_pixels(path: &std::path::Path) -> (u32, u32, Vec<u8>) {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut reader = png::Decoder::new(std::io::BufReader::new(file)).read_info().expect("a PNG");
    let mut data = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut data).expect("one frame");
    data.truncate(info.buffer_size());
    (info.width, info.height, data)
}

/// Integration runs across the ranks (it ran on threads in every rank and
/// printed one report per rank): one report, from rank 0, whose PEs are
/// the ranks, with the sequential run's value, for every strategy.
#[test]
fn integrate_runs_across_ranks_for_every_strategy() {
    if !require_mpirun() {
        return;
    }
    let mut threads = Command::new(env!("CARGO_BIN_EXE_treelb"));
    threads.args(["integrate", "sin-recip", "--tol", "1e-12", "-p", "1", "--json"]);
    let threads = common::output_within(threads, LIMIT);
    assert!(threads.status.success());
    let threads: serde_json::Value = serde_json::from_slice(&threads.stdout).expect("JSON");
    let sequential = threads["answer"]["value"].as_f64().unwrap();
    for (i, strategy) in strategies().enumerate() {
        let np = 2 + i % 2;
        let args = ["integrate", "sin-recip", "--tol", "1e-12", "--budget", "4", "--strategy", strategy];
        let args = [&args[..], &["--init", init(i), "--json"]].concat();
        let (out, _) = mpirun_with_stderr(np, &args, &[]);
        let report: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("one JSON report ({e}):\n{out}"));
        let context = format!("np {np}, {strategy}:\n{out}");
        assert_eq!(report["setup"]["runtime"], "mpi", "{context}");
        assert_eq!(report["pes"].as_array().unwrap().len(), np, "{context}");
        let value = report["answer"]["value"].as_f64().unwrap();
        assert!((value - sequential).abs() <= 1e-12 * sequential.abs(), "{value} vs {sequential}: {context}");
        assert_eq!(report["answer"]["evaluated"], threads["answer"]["evaluated"], "{context}");
        assert_eq!(report["answer"]["converged"], true, "{context}");
    }
    // Hybrid: 2 ranks × 2 threads.
    let (out, _) = mpirun_with_stderr(2, &["integrate", "peak", "--threads", "2", "--budget", "2"], &[]);
    assert!(out.contains("4 MPI PEs") && out.contains("within the tolerance ✓"), "{out}");
}

/// The Mandelbrot set runs across the ranks (it was refused): rank 0
/// gathers every pixel, and the image is the threads runtime's, pixel for
/// pixel, coloured by the PEs of all ranks.
#[test]
fn mandelbrot_runs_across_ranks_and_gathers_the_image() {
    if !require_mpirun() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("treelb-mpi-mandelbrot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let view = ["--width", "160", "--height", "120", "--max-iter", "300"];
    for method in ["pixels", "subdivide"] {
        let reference = dir.join(format!("threads-{method}.png"));
        let mut o = Command::new(env!("CARGO_BIN_EXE_treelb"));
        o.args(["mandelbrot", "--method", method, "-p", "1", "--json", "--out"]).arg(&reference).args(view);
        let o = common::output_within(o, LIMIT);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let threads: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        for (i, strategy) in
            strategies().enumerate().filter(|(i, _)| i % 2 == usize::from(method == "pixels"))
        {
            let np = 2 + i % 3;
            let image = dir.join(format!("mpi-{method}-{strategy}.png"));
            let pe_image = dir.join(format!("mpi-{method}-{strategy}-pe.png"));
            let args = [
                &["mandelbrot", "--method", method, "--budget", "500", "--strategy", strategy][..],
                &["--init", init(i), "--json", "--out", image.to_str().unwrap()],
                &["--pe-out", pe_image.to_str().unwrap()],
                &view,
            ]
            .concat();
            let (out, _) = mpirun_with_stderr(np, &args, &[]);
            let report: serde_json::Value =
                serde_json::from_str(&out).unwrap_or_else(|e| panic!("one JSON report ({e}):\n{out}"));
            let context = format!("np {np}, {method}, {strategy}:\n{out}");
            assert_eq!(report["setup"]["runtime"], "mpi", "{context}");
            assert_eq!(report["answer"]["in_set"], threads["answer"]["in_set"], "{context}");
            for count in ["computed", "filled", "in_set", "iterations"] {
                let (got, want) = (&report["answer"]["counts"][count], &threads["answer"]["counts"][count]);
                assert_eq!(got, want, "{count}: {context}");
            }
            let per_pe: Vec<u64> = report["answer"]["pixels_per_pe"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_u64().unwrap())
                .collect();
            assert!(per_pe.len() <= np, "{context}");
            assert_eq!(per_pe.iter().sum::<u64>(), 160 * 120, "every pixel has its PE: {context}");
            assert_eq!(png_pixels(&image), png_pixels(&reference), "{context}");
            assert_eq!(png_pixels(&pe_image).0, 160, "{context}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--max-nodes` stops the ranks (each after its share): rank 0 prints the
/// partial report, `mpirun` exits with 3, for every strategy.
#[test]
fn max_nodes_stops_every_rank() {
    if !require_mpirun() {
        return;
    }
    for (i, strategy) in strategies().enumerate() {
        let np = 2 + i % 2;
        let args =
            ["uts", "--tree", "T1L", "--max-nodes", "300000", "--strategy", strategy, "--init", init(i)];
        let all = [&args[..], &["--runtime", "mpi", "--no-progress", "--json"]].concat();
        let (status, out, err) = mpirun_status(np, &all, &[]);
        let context = format!("np {np}, {strategy}:\n{out}\n{err}");
        assert_eq!(status.code(), Some(3), "{context}");
        assert!(err.contains("treelb: interrupted: --max-nodes 300000 reached after"), "{context}");
        let report: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {context}"));
        assert_eq!(report["interrupted"], true, "{context}");
        let units = report["work_units"].as_u64().unwrap();
        assert!(units < 300_000 + 3 * 256 * 2, "{units}: {context}");
    }
    // A decision search interrupted before its answer says "unknown".
    let file = shared_instance("clique/keller4.clq");
    let all = ["clique", &file, "--k", "12", "--max-nodes", "3000", "--runtime", "mpi", "--no-progress"];
    let (status, out, err) = mpirun_status(3, &all, &[]);
    assert_eq!(status.code(), Some(3), "{out}\n{err}");
    assert!(out.contains("answer        unknown"), "{out}");
}

/// `--time-limit` stops every application on every rank at about the same
/// time: rank 0 prints the partial report (of all ranks' work), `mpirun`
/// exits with 3. Integration converges in milliseconds: `--max-nodes`
/// stops it mid-run instead.
#[test]
fn time_limit_stops_every_application_on_every_rank() {
    if !require_mpirun() {
        return;
    }
    let keller = shared_instance("clique/keller5.clq");
    let kro = shared_instance("tsp/kroA200.tsp");
    let runs: [&[&str]; 8] = [
        &["uts", "--tree", "T1XL", "--time-limit", "500ms"],
        &["nqueens", "18", "--time-limit", "500ms"],
        &["clique", &keller, "--time-limit", "500ms"],
        &[
            "knapsack",
            "-n",
            "10000",
            "--range",
            "10000",
            "--class",
            "strongly-correlated",
            "--time-limit",
            "500ms",
        ],
        &["tsp", &kro, "--time-limit", "500ms"],
        &[
            "mandelbrot",
            "--width",
            "1500",
            "--height",
            "1500",
            "--max-iter",
            "100000",
            "--time-limit",
            "500ms",
        ],
        &["integrate", "inv-sqrt", "--tol", "1e-14", "--budget", "1", "--max-nodes", "20"],
        &["clique", &keller, "--k", "28", "--time-limit", "500ms"],
    ];
    for (i, args) in runs.into_iter().enumerate() {
        let np = 2 + i % 2;
        let all = [args, &["--runtime", "mpi", "--no-progress", "--json"]].concat();
        let (status, out, err) = mpirun_status(np, &all, &[]);
        let context = format!("np {np}, {args:?}:\n{out}\n{err}");
        assert_eq!(status.code(), Some(3), "{context}");
        assert!(err.contains("treelb: interrupted: --"), "{context}");
        let report: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {context}"));
        assert_eq!(report["interrupted"], true, "{context}");
        let by = if args.contains(&"--max-nodes") { "--max-nodes 20" } else { "--time-limit 0.5 s" };
        assert_eq!(report["stopped_by"], by, "{context}");
        // Every rank's PEs are in the report.
        assert_eq!(report["pes"].as_array().unwrap().len(), np, "{context}");
    }
}

/// An interrupted branch-and-bound run across ranks reports a bound that
/// the optimum does not pass (the ranks' dropped open nodes reduced at rank
/// 0), for several stop points.
#[test]
fn an_interrupted_branch_and_bound_run_across_ranks_reports_a_proven_bound() {
    if !require_mpirun() {
        return;
    }
    let brock = shared_instance("clique/brock200_4.clq");
    let att48 = shared_instance("tsp/att48.tsp");
    let mut gaps = 0;
    for (i, max) in ["40", "400", "3000"].into_iter().enumerate() {
        let strategy = ["random-polling", "master-worker", "work-sharing"][i];
        let runs: [(&[&str], i64, bool); 2] =
            [(&["clique", &brock, "--no-heuristic"], 17, true), (&["tsp", &att48], 10628, false)];
        for (args, optimum, maximize) in runs {
            let max = if args[0] == "tsp" { "6" } else { max };
            let all = [args, &["--max-nodes", max, "--strategy", strategy, "--json"]].concat();
            let (status, out, err) =
                mpirun_status(2, &[&all[..], &["--runtime", "mpi", "--no-progress"]].concat(), &[]);
            let context = format!("{all:?}:\n{out}\n{err}");
            if status.success() {
                continue;
            }
            assert_eq!(status.code(), Some(3), "{context}");
            let report: serde_json::Value =
                serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {context}"));
            let a = &report["answer"];
            let value = ["omega", "length"].iter().find_map(|k| a[k].as_i64()).unwrap();
            let bound = a["bound"].as_i64();
            if maximize {
                assert!(value <= optimum && bound.is_none_or(|b| b >= optimum), "{context}");
            } else {
                assert!(value >= optimum && bound.is_none_or(|b| b <= optimum), "{context}");
            }
            if a["proven_optimal"] == false {
                gaps += 1;
            }
        }
    }
    assert!(gaps >= 2, "only {gaps} runs stopped with a gap");
}

/// `--deterministic` gives the threads runtime's witness on every number of
/// ranks and strategy.
#[test]
fn deterministic_witnesses_are_the_same_across_ranks_and_runtimes() {
    if !require_mpirun() {
        return;
    }
    let c125 = shared_instance("clique/C125.9.clq");
    let ulysses = shared_instance("tsp/ulysses16.tsp");
    let runs: [&[&str]; 3] = [
        &["clique", &c125, "--deterministic", "--json"],
        &["knapsack", "-n", "16", "--class", "subset-sum", "--range", "100", "--deterministic", "--json"],
        &["tsp", &ulysses, "--deterministic", "--json"],
    ];
    let answer = |out: &str, context: &str| -> String {
        let report: serde_json::Value =
            serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {context}"));
        let a = &report["answer"];
        let value = ["omega", "optimum", "length"].iter().find_map(|k| a[k].as_i64()).unwrap();
        let w = ["clique", "items", "tour"].iter().find_map(|k| a.get(k)).unwrap();
        format!("{value}: {w}")
    };
    for args in runs {
        let o = Command::new(env!("CARGO_BIN_EXE_treelb")).args(args).args(["-p", "3"]).output().unwrap();
        assert!(o.status.success());
        let threads = answer(&String::from_utf8_lossy(&o.stdout), "threads");
        for (i, strategy) in strategies().enumerate() {
            let np = 1 + i % 3;
            let all = [args, &["--strategy", strategy, "--init", init(i)]].concat();
            let (out, err) = mpirun_with_stderr(np, &all, &[]);
            assert_eq!(answer(&out, &err), threads, "np {np}, {all:?}");
        }
    }
}

/// Starts `mpirun -np 2 treelb clique keller5 --runtime mpi` (minutes of
/// work), waits until rank 0's run has started, calls `signal` with
/// mpirun's process id, and returns mpirun's exit code, rank 0's report and
/// stderr; fails if mpirun does not end within the time limit.
fn interrupt_mpirun(signal: impl FnOnce(u32)) -> (Option<i32>, String, String) {
    let _slot = Slot::take();
    let keller = shared_instance("clique/keller5.clq");
    let mut cmd = Command::new("mpirun");
    cmd.args(["--oversubscribe", "--allow-run-as-root", "-np", "2"])
        .arg(env!("CARGO_BIN_EXE_treelb"))
        .args(["clique", &keller, "--runtime", "mpi", "--progress"]);
    // Rank 0 shows the heuristic's clique once MPI is up and the run starts.
    common::signal_once_started(
        cmd,
        |first| first.starts_with("treelb: incumbent "),
        Duration::from_millis(500),
        signal,
        LIMIT,
        "the signal to mpirun or its ranks",
    )
}

/// A partial report of the clique run interrupted by a signal on both
/// ranks: the best clique found and its bound, the work of both ranks.
fn assert_partial_clique_report(out: &str, err: &str) {
    assert!(out.contains("stopped by a signal (Ctrl-C or SIGTERM)"), "{out}\n{err}");
    assert!(out.contains("best found") && out.contains("not proven optimal; bound ≤"), "{out}");
    assert!(out.contains("2 MPI PEs"), "{out}");
    assert!(err.contains("treelb: interrupted by a signal"), "{err}");
}

/// Ctrl-C to `mpirun` (SIGINT): mpirun ends the job — it signals every rank
/// (SIGTERM, a second later) and kills them a second after that. Every rank
/// stops on the signal, the partial results still reach rank 0, which
/// prints the report before the kill. mpirun then exits with its own code
/// for an aborted job (1), not rank 0's 3.
#[test]
fn ctrl_c_to_mpirun_gives_a_partial_report() {
    if !require_mpirun() {
        return;
    }
    let (code, out, err) = interrupt_mpirun(|pid| {
        let killed = Command::new("kill").args(["-INT", &pid.to_string()]).status().unwrap();
        assert!(killed.success());
    });
    assert_partial_clique_report(&out, &err);
    assert_ne!(code, Some(0), "{out}\n{err}");
}

/// SIGTERM to every rank (as a batch system's cancel or time limit sends
/// it): a partial report at rank 0 and exit code 3 from mpirun.
#[test]
fn sigterm_to_the_ranks_gives_a_partial_report_and_exit_code_3() {
    if !require_mpirun() {
        return;
    }
    let (code, out, err) = interrupt_mpirun(|pid| {
        let ranks = Command::new("pgrep").args(["-P", &pid.to_string()]).output().unwrap();
        let ranks: Vec<String> =
            String::from_utf8_lossy(&ranks.stdout).split_whitespace().map(String::from).collect();
        assert_eq!(ranks.len(), 2, "the ranks of mpirun {pid}: {ranks:?}");
        let killed = Command::new("kill").arg("-TERM").args(&ranks).status().unwrap();
        assert!(killed.success());
    });
    assert_partial_clique_report(&out, &err);
    assert_eq!(code, Some(3), "{out}\n{err}");
}

/// The blind forecasts' pipeline over TCP: a calibration with the ping-pong
/// through shared memory and through TCP on the loopback interface, a
/// forecast of an `mpi-tcp:` case, and its run under `mpirun` with Open
/// MPI's TCP transport (the same tree: the measurement checks the units).
#[test]
fn blind_forecasts_run_mpi_over_tcp() {
    if !require_mpirun() {
        return;
    }
    // It calibrates: the ping-pong times are the machine's alone.
    let _all = Slot::take_all();
    let dir = std::env::temp_dir().join(format!("treelb-mpi-tcp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (cal, fc, res) = (dir.join("c.json"), dir.join("f.json"), dir.join("r.md"));
    let run = |args: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_treelb"));
        // The `mpirun`s it starts, as root (CI), as the other tests' do.
        cmd.args(args).env("OMPI_ALLOW_RUN_AS_ROOT", "1").env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        let o = common::output_within(cmd, Duration::from_secs(240));
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let out = run(&[
        "sim",
        "calibrate",
        "--mpi",
        "--mpi-tcp",
        "--apps",
        "uts:T1",
        "--repeat",
        "1",
        "--out",
        cal.to_str().unwrap(),
    ]);
    assert!(out.contains("T_rout (MPI over TCP) "), "{out}");
    let c: serde_json::Value = serde_json::from_slice(&std::fs::read(&cal).unwrap()).unwrap();
    assert!(c["t_rout_mpi_tcp"].as_f64().is_some_and(|t| t > 0.0), "{c}");
    assert!(c["loggp"]["mpi_tcp"]["latency"].is_number(), "{c}");
    run(&[
        "sim",
        "freeze",
        "--calibration",
        cal.to_str().unwrap(),
        "--cases",
        "mpi-tcp:2:random-polling",
        "--out",
        fc.to_str().unwrap(),
    ]);
    let out = run(&["sim", "measure", fc.to_str().unwrap(), "--repeat", "1", "--out", res.to_str().unwrap()]);
    assert!(out.contains("uts:T1 MPI over TCP P = 2 random-polling: measured "), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
