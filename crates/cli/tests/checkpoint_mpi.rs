//! Checkpoint and resume under `mpirun`: a rank of a UTS T1 run and of a
//! maximum clique run is killed with SIGKILL at a random time (a node
//! dies; mpirun then ends the job), and `mpirun treelb resume FILE` on
//! another number of ranks gives exactly the answer of an uninterrupted
//! run. Eight repetitions of each, the two applications side by side.
//!
//! Built only with the `mpi` feature (`required-features` in Cargo.toml);
//! a missing `mpirun` skips the test with a line on the terminal, or fails
//! it where `TREELB_REQUIRE` names `mpi`. Every process runs under a hard time limit and
//! the test fails loudly, with what it printed, when it is hit.

#[allow(dead_code)] // not every helper is used here
mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{json_report as report, output_within, shared_instance};

/// Time limit of one `mpirun`.
const LIMIT: Duration = Duration::from_secs(120);

/// `mpirun` with the options of every run here: oversubscribed (more
/// ranks than cores), allowed as root.
fn mpirun(np: u64) -> Command {
    let mut cmd = Command::new("mpirun");
    cmd.args(["--oversubscribe", "--allow-run-as-root", "-np", &np.to_string()])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .arg(env!("CARGO_BIN_EXE_treelb"));
    cmd
}

/// The processes whose parent is `pid` (from /proc).
fn children(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else { continue };
        let ppid = rest.split_whitespace().nth(1).and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(pid)
            && let Ok(child) = entry.file_name().to_string_lossy().parse()
        {
            found.push(child);
        }
    }
    found
}

fn sigkill(pid: u32) {
    let _ = Command::new("kill").args(["-9", &pid.to_string()]).stderr(Stdio::null()).status();
}

/// Starts `mpirun -np NP treelb ARGS`, kills one of its ranks with SIGKILL
/// `after` its first checkpoint appeared in `file`, and waits (under the
/// time limit) for mpirun to end.
fn run_and_kill_a_rank(np: u64, args: &[&str], file: &Path, after: Duration, victim: u64) {
    let mut child =
        mpirun(np).args(args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("mpirun starts");
    let start = Instant::now();
    let mut checkpointed: Option<Instant> = None;
    while checkpointed.is_none_or(|t| t.elapsed() < after) {
        if child.try_wait().unwrap().is_some() {
            return; // finished before the kill
        }
        if checkpointed.is_none() && file.exists() {
            checkpointed = Some(Instant::now());
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("HUNG: no checkpoint within {LIMIT:?}: treelb {}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let ranks = children(child.id());
    if let Some(&rank) = ranks.get(victim as usize % ranks.len().max(1)) {
        sigkill(rank);
    }
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > after + LIMIT {
            for rank in children(child.id()) {
                sigkill(rank);
            }
            let _ = child.kill();
            let _ = child.wait();
            panic!("HUNG: mpirun did not end within {LIMIT:?} of a rank's death: treelb {}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    // Ranks that outlived mpirun: end them too.
    for rank in ranks {
        sigkill(rank);
    }
}

/// The kill times' generator (the seed is printed for replays).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

#[test]
fn uts_runs_whose_rank_was_killed_resume_to_the_exact_count_on_other_ranks() {
    killed_and_resumed("uts", &["uts", "--tree", "T1"], "nodes", 4_130_071);
}

#[test]
fn clique_runs_whose_rank_was_killed_resume_to_the_exact_optimum_on_other_ranks() {
    let graph = shared_instance("clique/brock200_1.clq");
    killed_and_resumed("clique", &["clique", &graph, "--no-heuristic"], "omega", 21);
}

/// Eight runs of `treelb ARGS` (application `name`), each with a rank
/// killed at a random time and resumed on another number of ranks, give
/// `expected` as the report's `answer.field`. The two applications' tests
/// run side by side (two `mpirun` at a time: each spends much of its time
/// starting and ending ranks).
fn killed_and_resumed(name: &str, args: &[&str], field: &str, expected: u64) {
    if common::outside_program("mpi", &["mpirun"], "apt-get install openmpi-bin libopenmpi-dev").is_none() {
        return;
    }
    let seed = std::env::var("TREELB_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
    });
    eprintln!("{name}: kill times from TREELB_TEST_SEED={seed}");
    let mut rng = Rng(seed);
    let dir = std::env::temp_dir().join(format!("treelb-checkpoint-mpi-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // How long an uninterrupted checkpointed run takes here and now (the
    // machine may be loaded): checkpoints come every twentieth of it, and a
    // kill lands within an eighth of it after the first checkpoint appeared
    // (most of the run is mpirun starting the ranks), so most kills hit a
    // run in the middle, with a checkpoint to resume from.
    let length = {
        let file = dir.join("timed.ckpt");
        let mut cmd = mpirun(2);
        cmd.args(args).args(["--runtime", "mpi", "--no-progress", "--json", "--checkpoint"]);
        cmd.args([file.to_str().unwrap(), "--checkpoint-every", "100ms"]);
        let start = Instant::now();
        let o = output_within(cmd, LIMIT);
        let length = start.elapsed();
        assert_eq!(report(&o, name)["answer"][field].as_u64(), Some(expected), "{name}, uninterrupted");
        length
    };
    eprintln!("{name}: the uninterrupted run took {length:?}");
    let mut resumed_mid_run = 0;
    for rep in 0..8 {
        let file = dir.join(format!("{rep}.ckpt"));
        let f = file.to_str().unwrap();
        let np = 2 + rng.below(2);
        let after = length.mul_f64(rng.below(126) as f64 / 1000.0);
        let every = format!("{}ms", (length.as_millis() / 20).max(5));
        let mut full = args.to_vec();
        full.extend(["--runtime", "mpi", "--no-progress", "--checkpoint", f, "--checkpoint-every", &every]);
        run_and_kill_a_rank(np, &full, &file, after, rng.below(4));
        if !Path::new(f).exists() {
            continue; // ended before its first checkpoint
        }
        let before = std::fs::read(f).unwrap();
        let resume_np = 1 + rng.below(3);
        let mut cmd = mpirun(resume_np);
        cmd.args(["resume", f, "--json", "--no-progress"]);
        let o = output_within(cmd, LIMIT);
        let what = format!(
            "rep {rep}: {name} on {np} ranks, a rank killed {after:?} after the first checkpoint, resumed on {resume_np}"
        );
        let json = report(&o, &what);
        assert_eq!(json["answer"][field].as_u64(), Some(expected), "{what}");
        assert_eq!(json["interrupted"], false, "{what}");
        if before != std::fs::read(f).unwrap() {
            resumed_mid_run += 1;
        }
    }
    eprintln!("{name}: {resumed_mid_run} of 8 runs were resumed from the middle");
    assert!(resumed_mid_run >= 2, "{name}: only {resumed_mid_run} of 8 runs were resumed from the middle");
    std::fs::remove_dir_all(&dir).unwrap();
}
