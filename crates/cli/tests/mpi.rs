//! The MPI runtime under `mpirun`: exact counts for every strategy, both
//! initializations and 1 to 4 ranks (oversubscribed), hybrid ranks × threads,
//! a slowed-down rank, and more ranks than work.
//!
//! Needs the `mpi` feature and `mpirun` on the PATH; without either every
//! test says so on stderr and passes. Every `mpirun` runs under a hard time
//! limit: a hung run is killed and the test fails with its output.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One `mpirun` at a time: the runs oversubscribe the cores already.
static SERIAL: Mutex<()> = Mutex::new(());

/// Time limit of one `mpirun`.
const LIMIT: Duration = Duration::from_secs(120);

fn mpirun_available() -> bool {
    if !cfg!(feature = "mpi") {
        eprintln!("SKIPPED: treelb-cli was built without the `mpi` feature (cargo test --features mpi)");
        return false;
    }
    let found = Command::new("mpirun").arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status();
    if !matches!(found, Ok(s) if s.success()) {
        eprintln!("SKIPPED: no `mpirun` on the PATH (apt-get install openmpi-bin libopenmpi-dev)");
        return false;
    }
    true
}

/// Runs `treelb ARGS --runtime mpi` on `np` ranks; returns rank 0's stdout.
fn mpirun(np: usize, args: &[&str], env: &[(&str, &str)]) -> String {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut cmd = Command::new("mpirun");
    cmd.args(["--oversubscribe", "--allow-run-as-root", "-np", &np.to_string()])
        .arg(env!("CARGO_BIN_EXE_treelb"))
        .args(args)
        .args(["--runtime", "mpi", "--no-progress"])
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let shown = format!("mpirun -np {np} treelb {} --runtime mpi", args.join(" "));
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("{shown}: cannot start mpirun: {e}"));
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let (mut o, mut e) = (String::new(), String::new());
        let _ = out.read_to_string(&mut o);
        let _ = err.read_to_string(&mut e);
        (o, e)
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for mpirun") {
            break status;
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            let (o, e) = reader.join().unwrap_or_default();
            panic!("HUNG: `{shown}` ran past {LIMIT:?} and was killed\nstdout:\n{o}\nstderr:\n{e}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (o, e) = reader.join().expect("reader thread");
    assert!(status.success(), "`{shown}` failed ({status})\nstdout:\n{o}\nstderr:\n{e}");
    assert!(e.contains("treelb: mpi: "), "`{shown}`: rank 0 did not report the runtime\nstderr:\n{e}");
    o
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

const STRATEGIES: [&str; 3] = ["random-polling", "async-round-robin", "global-round-robin"];
const INITS: [&str; 2] = ["root", "selective"];

#[test]
fn uts_t1_exact_for_every_strategy_init_and_rank_count() {
    if !mpirun_available() {
        return;
    }
    for np in 1..=4 {
        for strategy in STRATEGIES {
            for init in INITS {
                let out = mpirun(np, &["uts", "--tree", "T1", "--strategy", strategy, "--init", init], &[]);
                assert_eq!(value(&out, "nodes"), 4_130_071, "np {np}, {strategy}, {init}:\n{out}");
                assert!(out.contains(&format!("{np} MPI PEs")), "{out}");
            }
        }
    }
}

#[test]
fn uts_t3_exact_for_every_strategy_init_and_rank_count() {
    if !mpirun_available() {
        return;
    }
    for np in 1..=4 {
        for strategy in STRATEGIES {
            for init in INITS {
                let out = mpirun(np, &["uts", "--tree", "T3", "--strategy", strategy, "--init", init], &[]);
                assert_eq!(value(&out, "nodes"), 4_112_897, "np {np}, {strategy}, {init}:\n{out}");
            }
        }
    }
}

#[test]
fn nqueens_12_exact_for_every_strategy_init_and_rank_count() {
    if !mpirun_available() {
        return;
    }
    for np in 1..=4 {
        for strategy in STRATEGIES {
            for init in INITS {
                let out = mpirun(np, &["nqueens", "12", "--strategy", strategy, "--init", init], &[]);
                assert_eq!(value(&out, "solutions"), 14_200, "np {np}, {strategy}, {init}:\n{out}");
            }
        }
    }
}

#[test]
fn hybrid_two_ranks_of_two_threads() {
    if !mpirun_available() {
        return;
    }
    for strategy in STRATEGIES {
        for init in INITS {
            let common = ["--threads", "2", "--strategy", strategy, "--init", init];
            let out = mpirun(2, &[&["uts", "--tree", "T1"][..], &common].concat(), &[]);
            assert_eq!(value(&out, "nodes"), 4_130_071, "{strategy}, {init}:\n{out}");
            assert!(out.contains("4 MPI PEs"), "{out}");
            let out = mpirun(2, &[&["uts", "--tree", "T3"][..], &common].concat(), &[]);
            assert_eq!(value(&out, "nodes"), 4_112_897, "{strategy}, {init}:\n{out}");
            let out = mpirun(2, &[&["nqueens", "12"][..], &common].concat(), &[]);
            assert_eq!(value(&out, "solutions"), 14_200, "{strategy}, {init}:\n{out}");
        }
    }
}

#[test]
fn a_slow_rank_still_gives_the_exact_count() {
    if !mpirun_available() {
        return;
    }
    for (np, slow) in [(2, "0:200"), (3, "1:200")] {
        let out = mpirun(np, &["uts", "--tree", "T1"], &[("TREELB_MPI_SLOW", slow)]);
        assert_eq!(value(&out, "nodes"), 4_130_071, "np {np}, slow {slow}:\n{out}");
    }
}

#[test]
fn more_ranks_than_work_terminates() {
    if !mpirun_available() {
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
