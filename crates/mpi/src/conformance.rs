//! The MPI runtime drives the same strategy machines as the other drivers
//! (`crates/sim/tests/conformance.rs` compares the stepper, the simulator
//! and the threads runtime): under `mpirun`, at 2 and 3 ranks of 1 and 2
//! threads, every PE's recorded decisions replay exactly through a fresh
//! machine for every strategy, every piece a PE gave away follows one of
//! its machine's decisions, and the answer is exact.
//!
//! The test starts `mpirun` on its own test binary, which runs the test
//! again on every rank with [`RANKS`] set; without `mpirun` it skips with
//! a line on the terminal, or fails where `TREELB_REQUIRE` names `mpi`.
//! Every `mpirun` runs under a hard time limit: a hung run is killed and
//! the test fails with its output.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use treelb::search::SplitPolicy;
use treelb::strategy::{Event, replay};
use treelb::{RunSpec, Strategy};
use treelb_apps::uts::{Params, Uts};

use crate::wire::DfsCodec;
use crate::{Config, Mpi, Session};

/// Set in the environment of the ranks that `mpirun` starts.
const RANKS: &str = "TREELB_MPI_CONFORMANCE_RANK";

/// Time limit of one `mpirun`.
const LIMIT: Duration = Duration::from_secs(180);

/// The test's name, as the harness filters it.
const NAME: &str = "conformance::every_pe_replays_its_decisions_on_every_rank";

/// A UTS tree of some ten thousand nodes (the one of the other drivers'
/// conformance tests).
fn tree() -> Uts {
    Uts::new(Params::from_uts_args(["-t", "1", "-a", "3", "-d", "8", "-b", "4", "-r", "19"]).unwrap())
        .unwrap()
}

fn spec(strategy: Strategy) -> RunSpec {
    RunSpec { strategy, budget: treelb::spec::Budget::of(16), seed: 2026, ..RunSpec::default() }
}

#[test]
fn every_pe_replays_its_decisions_on_every_rank() {
    if std::env::var_os(RANKS).is_some() {
        on_every_rank();
        return;
    }
    if !mpirun_runs() {
        return;
    }
    for np in [2, 3] {
        let out = mpirun(np);
        let line = format!("replayed {} strategies on {np} ranks", Strategy::ALL.len());
        assert!(out.contains(&line), "rank 0 did not report `{line}`:\n{out}");
    }
}

/// What every rank runs: each strategy at 1 and 2 threads per rank, the
/// decisions checked at rank 0.
fn on_every_rank() {
    let mpi = Mpi::init(2).expect("MPI with MPI_THREAD_MULTIPLE");
    let uts = tree();
    let (expected, _) = treelb::seq::run_search(&uts);
    let codec = DfsCodec::new(&uts, SplitPolicy::OldestHalf);
    let ranks = mpi.size();
    for strategy in Strategy::ALL {
        for threads in [1, 2] {
            let config =
                Config { threads, spec: spec(strategy), record_decisions: true, ..Config::default() };
            let session = Session::new(&mpi, &config).expect("a valid configuration");
            let Some(outcome) = session.run(&codec, codec.root()).expect("a run") else { continue };
            let at = format!("{strategy}, {ranks} ranks × {threads} threads");
            assert_eq!(outcome.output, expected, "{at}");
            let logs = outcome.decisions.expect("recorded");
            let p = ranks * threads;
            assert_eq!((logs.len(), outcome.stats.pes.len()), (p, p), "{at}");
            for (g, (log, stats)) in logs.iter().zip(&outcome.stats.pes).enumerate() {
                assert_eq!(stats.pe, g, "{at}");
                replay(spec(strategy).grouped_machine(g, p, threads), log)
                    .unwrap_or_else(|e| panic!("{at}, PE {g}: {e}"));
                let given =
                    log.iter().filter(|d| matches!(d.event, Event::Served { given: true, .. })).count();
                assert_eq!(given as u64, stats.pieces_sent, "{at}, PE {g}: pieces given without a decision");
            }
            assert!(logs.iter().all(|log| !log.is_empty()), "{at}: a PE decided nothing");
        }
    }
    if mpi.rank() == 0 {
        println!("replayed {} strategies on {ranks} ranks", Strategy::ALL.len());
    }
}

/// Whether `mpirun` runs: if not, a line on the terminal and a skip, or a
/// failure where `TREELB_REQUIRE` names `mpi`.
fn mpirun_runs() -> bool {
    let runs = Command::new("mpirun")
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if runs {
        return true;
    }
    let missing = "no working `mpirun` on the PATH (install: apt-get install openmpi-bin libopenmpi-dev)";
    let required = std::env::var("TREELB_REQUIRE").unwrap_or_default();
    if required.split(',').map(str::trim).any(|k| k == "mpi" || k == "all") {
        panic!("{missing}; TREELB_REQUIRE={required} says that the test must run");
    }
    let _ = writeln!(std::io::stderr(), "SKIPPED {NAME}: {missing}; TREELB_REQUIRE=mpi makes this a failure");
    false
}

/// Runs this test on `np` ranks under the time limit; rank 0's stdout.
fn mpirun(np: usize) -> String {
    let exe = std::env::current_exe().expect("the test binary");
    let mut child = Command::new("mpirun")
        .args(["--oversubscribe", "--allow-run-as-root", "-np", &np.to_string()])
        .arg(exe)
        .args(["--exact", NAME, "--nocapture", "--test-threads", "1"])
        .env(RANKS, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpirun starts");
    let (mut out, mut err) = (child.stdout.take().expect("piped"), child.stderr.take().expect("piped"));
    let reader = std::thread::spawn(move || {
        let (mut o, mut e) = (String::new(), String::new());
        let _ = out.read_to_string(&mut o);
        let _ = err.read_to_string(&mut e);
        (o, e)
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for mpirun") {
            break Some(status);
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let (o, e) = reader.join().expect("reader thread");
    let Some(status) = status else {
        panic!("HUNG: mpirun -np {np} ran past {LIMIT:?} and was killed\nstdout:\n{o}\nstderr:\n{e}");
    };
    assert!(status.success(), "mpirun -np {np} failed ({status})\nstdout:\n{o}\nstderr:\n{e}");
    o
}
