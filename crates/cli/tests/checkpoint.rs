//! Checkpoint and resume on the threads runtime: runs killed with SIGKILL at
//! random times and resumed (with another number of threads) give exactly
//! the answer of an uninterrupted run; damaged checkpoints and changed input
//! files are refused in one line with exit code 2.
//!
//! Every process runs under a hard time limit and the test fails loudly,
//! with what the process printed, when it is hit.

#[allow(dead_code)] // not every helper is used here
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::{json_report as report, output_within, shared_instance};

/// Time limit of one `treelb` process.
const LIMIT: Duration = Duration::from_secs(120);

/// The published size of UTS T1.
const T1_NODES: u64 = 4_130_071;

/// The clique number of brock200_1.
const BROCK200_1_OMEGA: u64 = 21;

fn treelb(args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_treelb"));
    cmd.args(args);
    output_within(cmd, LIMIT)
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("treelb-checkpoint-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A small deterministic generator for the kill times (the seed is
/// printed, so that a failure can be replayed).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

fn seed() -> u64 {
    let seed = std::env::var("TREELB_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
    });
    eprintln!("kill times from TREELB_TEST_SEED={seed}");
    seed
}

/// Starts `treelb ARGS`, kills it with SIGKILL after `after` (if it is still
/// running), and waits for it.
fn run_and_kill(args: &[&str], after: Duration) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_treelb"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("treelb starts");
    let start = Instant::now();
    while start.elapsed() < after {
        if child.try_wait().unwrap().is_some() {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill(); // SIGKILL
    let _ = child.wait();
}

/// The answer of a resumed run: UTS nodes or the clique number.
fn answer(json: &serde_json::Value) -> u64 {
    json["answer"]["nodes"].as_u64().or_else(|| json["answer"]["omega"].as_u64()).expect("nodes or omega")
}

#[test]
fn killed_runs_resume_to_the_exact_answer_ten_times() {
    let dir = scratch("kill");
    let graph = shared_instance("clique/brock200_1.clq");
    let mut rng = Rng(seed());
    let runs: [(&str, Vec<&str>, u64); 2] = [
        ("uts", vec!["uts", "--tree", "T1"], T1_NODES),
        ("clique", vec!["clique", &graph, "--no-heuristic"], BROCK200_1_OMEGA),
    ];
    // How long an uninterrupted run takes here and now (the machine may be
    // loaded): kills land between 10 % and 90 % of it, and checkpoints come
    // every twentieth of it, so most kills hit a run with a checkpoint.
    let lengths: Vec<Duration> = runs
        .iter()
        .map(|(name, args, expected)| {
            let file = dir.join(format!("{name}-timed.ckpt"));
            let mut full = args.clone();
            full.extend(["--threads", "2", "--no-progress", "--json", "--budget", "64"]);
            full.extend(["--checkpoint", file.to_str().unwrap(), "--checkpoint-every", "50ms"]);
            let start = Instant::now();
            let o = treelb(&full);
            let length = start.elapsed();
            assert_eq!(answer(&report(&o, name)), *expected, "{name}, uninterrupted");
            length
        })
        .collect();
    eprintln!("uninterrupted runs took {lengths:?}");
    let mut resumed_mid_run = 0;
    for rep in 0..10 {
        for ((name, args, expected), length) in runs.iter().zip(&lengths) {
            let file = dir.join(format!("{name}-{rep}.ckpt"));
            let file = file.to_str().unwrap();
            let threads = (1 + rng.below(3)).to_string();
            let kill_after = length.mul_f64((10 + rng.below(81)) as f64 / 100.0);
            let every = format!("{}ms", (length.as_millis() / 20).max(5));
            let mut full = args.clone();
            full.extend(["--threads", &threads, "--no-progress", "--checkpoint", file]);
            full.extend(["--checkpoint-every", &every, "--budget", "64"]);
            run_and_kill(&full, kill_after);
            if !Path::new(file).exists() {
                // Killed before its first checkpoint: nothing to resume (a
                // fresh run is what a user would start).
                continue;
            }
            let before = std::fs::read(file).unwrap();
            let resume_threads = (1 + rng.below(4)).to_string();
            let o = treelb(&["resume", file, "--threads", &resume_threads, "--json", "--no-progress"]);
            let what = format!(
                "rep {rep}: {name} killed after {kill_after:?} on {threads} threads, resumed on {resume_threads}"
            );
            let json = report(&o, &what);
            assert_eq!(answer(&json), *expected, "{what}");
            assert_eq!(json["interrupted"], false, "{what}");
            // A resumed run with pieces left rewrites the checkpoint.
            if before != std::fs::read(file).unwrap() {
                resumed_mid_run += 1;
            }
        }
    }
    // Most kills land inside a run with a checkpoint; if few did, the test
    // tested nothing.
    assert!(resumed_mid_run >= 5, "only {resumed_mid_run} of 20 runs were resumed from the middle");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Kills a run as soon as its first checkpoint exists; returns the file.
fn checkpoint_mid_run(dir: &Path, args: &[&str]) -> PathBuf {
    let file = dir.join("mid.ckpt");
    let mut full: Vec<&str> = args.to_vec();
    full.extend(["--no-progress", "--checkpoint", file.to_str().unwrap(), "--checkpoint-every", "20ms"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_treelb"))
        .args(&full)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("treelb starts");
    let start = Instant::now();
    while !file.exists() {
        assert!(start.elapsed() < LIMIT, "HUNG: no checkpoint after {LIMIT:?}");
        assert!(child.try_wait().unwrap().is_none(), "the run ended before its first checkpoint");
        std::thread::sleep(Duration::from_millis(1));
    }
    let _ = child.kill();
    let _ = child.wait();
    file
}

#[test]
fn resuming_with_another_number_of_threads_gives_the_same_answer() {
    let dir = scratch("threads");
    let file = checkpoint_mid_run(&dir, &["uts", "--tree", "T1", "--threads", "2"]);
    let saved = std::fs::read(&file).unwrap();
    for threads in ["1", "3", "5"] {
        std::fs::write(&file, &saved).unwrap();
        let o = treelb(&["resume", file.to_str().unwrap(), "-p", threads, "--json", "--no-progress"]);
        let json = report(&o, &format!("resume on {threads} threads"));
        assert_eq!(answer(&json), T1_NODES, "{threads} threads");
        // The statistics of the run go on: the saved ones plus the rest.
        let pes = json["pes"].as_array().unwrap();
        assert!(pes.len() >= threads.parse::<usize>().unwrap());
    }
    // A finished run's last checkpoint holds no piece: resuming it reports
    // the answer at once.
    let o = treelb(&["resume", file.to_str().unwrap(), "--json", "--no-progress"]);
    assert_eq!(answer(&report(&o, "resume a finished run")), T1_NODES);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs `treelb ARGS`, expects exit code 2 and one line on stderr
/// containing `needle`.
fn refused(args: &[&str], needle: &str) {
    let o = treelb(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: one line expected: {err}");
    assert!(err.starts_with("treelb: ") && err.contains(needle), "{args:?}: `{needle}` expected: {err}");
}

#[test]
fn damaged_checkpoints_and_changed_inputs_are_refused_in_one_line() {
    let dir = scratch("damage");
    let file = dir.join("q.ckpt");
    let f = file.to_str().unwrap();
    let o = treelb(&["nqueens", "9", "--no-progress", "--checkpoint", f, "--checkpoint-every", "1ms"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let good = std::fs::read(&file).unwrap();
    let bad = dir.join("bad.ckpt");
    let b = bad.to_str().unwrap();

    std::fs::write(&bad, &good[..good.len() - 7]).unwrap();
    refused(&["resume", b], "truncated or damaged checkpoint");
    std::fs::write(&bad, &good[..20]).unwrap();
    refused(&["resume", b], "truncated checkpoint");
    let mut flipped = good.clone();
    flipped[40] ^= 1;
    std::fs::write(&bad, &flipped).unwrap();
    refused(&["resume", b], "corrupt checkpoint");
    std::fs::write(&bad, b"p edge 3 1\ne 1 2\n").unwrap();
    refused(&["resume", b], "not a treelb checkpoint");
    refused(&["resume", dir.join("missing.ckpt").to_str().unwrap()], "missing.ckpt");
    // The good one still resumes to the answer (92 · … solutions of 9 queens: 352).
    let o = treelb(&["resume", f, "--json", "--no-progress"]);
    assert_eq!(report(&o, "resume nqueens")["answer"]["solutions"], 352);

    // A graph file changed after the checkpoint was written.
    let graph = dir.join("g.col");
    std::fs::copy(shared_instance("clique/brock200_4.clq"), &graph).unwrap();
    let g = graph.to_str().unwrap();
    let ck = dir.join("g.ckpt");
    let c = ck.to_str().unwrap();
    let o = treelb(&["clique", g, "--no-progress", "--checkpoint", c, "--checkpoint-every", "1ms"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = treelb(&["resume", c, "--no-progress"]);
    assert!(o.status.success(), "an unchanged graph resumes: {}", String::from_utf8_lossy(&o.stderr));
    let mut text = std::fs::read(&graph).unwrap();
    text.extend_from_slice(b"c one more comment\n");
    std::fs::write(&graph, &text).unwrap();
    refused(&["resume", c], "changed since the checkpoint was written");

    // Options: a bad duration, commands that do not checkpoint.
    refused(
        &["uts", "--checkpoint", c, "--checkpoint-every", "soon"],
        "invalid value 'soon' for '--checkpoint-every <DURATION>'",
    );
    refused(&["integrate", "sqrt", "--checkpoint", c], "--checkpoint does not apply to integrate");
    refused(&["mandelbrot", "--checkpoint", c], "--checkpoint does not apply to mandelbrot");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A checkpoint path the run could not write, or whose file a checkpoint
/// would destroy, is refused before any work (T3L would run for minutes),
/// and nothing at the path is touched.
#[test]
fn checkpoint_paths_are_checked_before_the_work_and_nothing_is_overwritten() {
    let dir = scratch("paths");
    fn run(path: &str) -> [&str; 8] {
        ["uts", "--tree", "T3L", "-p", "2", "--no-progress", "--checkpoint", path]
    }
    let missing = dir.join("nodir/x.ckpt");
    refused(&run(missing.to_str().unwrap()), "no directory for the checkpoint");
    refused(&run(dir.to_str().unwrap()), "is a directory");
    refused(&run("/dev/full"), "is a device; a checkpoint replaces only a regular file");
    assert!(!std::fs::metadata("/dev/full").unwrap().is_file(), "/dev/full is still a device");
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, "VICTIM ORIGINAL CONTENT").unwrap();
    refused(&run(notes.to_str().unwrap()), "is not a treelb checkpoint; refusing to overwrite it");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "VICTIM ORIGINAL CONTENT");
    let link = dir.join("link.ckpt");
    std::os::unix::fs::symlink(&notes, &link).unwrap();
    refused(&run(link.to_str().unwrap()), "is a symbolic link");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "VICTIM ORIGINAL CONTENT");

    // An earlier run's checkpoint is not replaced by a new run: resume it.
    let file = checkpoint_mid_run(&dir, &["uts", "--tree", "T1", "--threads", "2"]);
    let f = file.to_str().unwrap();
    let saved = std::fs::read(&file).unwrap();
    refused(&run(f), "holds the checkpoint of a run");
    assert_eq!(std::fs::read(&file).unwrap(), saved);

    // Two resumes of one checkpoint: the second is refused while the first
    // runs, and the first gives the exact answer.
    let mut first = Command::new(env!("CARGO_BIN_EXE_treelb"))
        .args(["resume", f, "-p", "1", "--json", "--no-progress", "--checkpoint-every", "10ms"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("treelb starts");
    let start = Instant::now();
    let mut refusals = 0;
    // Once the first resume has written a checkpoint of its own, it holds
    // the lock: a second resume meanwhile is refused.
    while first.try_wait().unwrap().is_none() && start.elapsed() < LIMIT {
        if std::fs::read(&file).is_ok_and(|now| now != saved) {
            let o = treelb(&["resume", f, "--json", "--no-progress"]);
            if first.try_wait().unwrap().is_none() {
                let err = String::from_utf8_lossy(&o.stderr);
                assert_eq!(o.status.code(), Some(2), "a second resume while the first runs: {err}");
                assert!(err.contains("another run holds this checkpoint"), "{err}");
                refusals += 1;
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let out = first.wait_with_output().unwrap();
    assert_eq!(answer(&report(&out, "the first resume")), T1_NODES);
    eprintln!("second resumes refused while the first ran: {refusals}");
    std::fs::remove_dir_all(&dir).unwrap();
}
