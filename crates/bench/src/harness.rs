//! The benchmark harness: every engine and every peer on every workload,
//! each run in its own process with a time limit, every answer checked,
//! engines alternating round by round, the fastest of N runs, and the
//! report as JSON, Markdown, the command line and the machine.
//!
//! # How a run is measured
//!
//! A [`Matrix`] names the workloads and the runners: treelb's engines
//! ([`Engine`]: the sequential baseline, treelb per strategy and per P,
//! rayon and chili with and without a depth cutoff) and the [`Peer`]
//! programs given by path. Each run of an engine is the harness's own
//! program started again with `--one ENGINE --workload W …` (the
//! [`Matrix::child`] prefix), which runs that one search in process and
//! prints a [`ChildReport`] line; each run of a peer is the peer's own
//! program. Both go through [`child::run`], which kills the run (and its
//! process group) at the time limit.
//!
//! Rounds alternate the runners: round 1 runs every runner once, then round
//! 2, …, so that a burst of load from elsewhere spreads over all of them
//! and the ratios within one run stay fair. The fastest of the rounds
//! counts: on a shared machine other processes only ever add time.
//!
//! # How answers are checked
//!
//! Every run's answer is compared, as soon as it arrives, with the
//! workload's reference: the published answer where there is one (UTS
//! sample trees' node, leaf and depth counts, N-Queens solution counts,
//! ω of the DIMACS graphs and the optimal tours of TSPLIB files, the last
//! two read from the instances' README), else the first answer an engine
//! gave (a generated knapsack's optimum, a random TSP's tour). On trees that
//! every engine expands alike (UTS, N-Queens) the node counts must agree
//! too. A run that disagrees, ends with an error or passes its time limit
//! marks its row as failed (`mismatch`, `failed`, `timeout`), stops that
//! runner's later rounds, and makes [`Report::ok`] false: the command
//! exits non-zero. A failure is never dropped from the report.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde::Serialize;
use treelb::{Init, Strategy};

use crate::child::{self, ChildReport, Failure, Usage};
use crate::forkjoin::STACK_BYTES;
use crate::host::{Host, LOADED_SHARE, load_average};
use crate::peers::Peer;
use crate::workload::{Answer, Engine, RunOpts, Traffic, Workload};

/// The named suites of `treelb bench SUITE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suite {
    /// Small trees with published counts (T1, T3, N-Queens 12): a smoke
    /// test of every runner in seconds.
    Quick,
    /// The engines side by side on UTS, N-Queens, a clique and a knapsack
    /// (the suite of `docs/benchmarks/*-engines/`).
    Engines,
    /// The branch and bound table: maximum clique, knapsack and TSP,
    /// sequential and at P = all cores (docs/benchmarks/README.md, "Branch and bound").
    Bnb,
    /// Maximum clique on the DIMACS graphs that solve in seconds, beside the
    /// clique peers.
    Clique,
    /// The TSPLIB files of 76 to 150 cities.
    Tsp,
}

impl Suite {
    /// Every suite.
    pub const ALL: [Suite; 5] = [Suite::Quick, Suite::Engines, Suite::Bnb, Suite::Clique, Suite::Tsp];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Suite::Quick => "quick",
            Suite::Engines => "engines",
            Suite::Bnb => "bnb",
            Suite::Clique => "clique",
            Suite::Tsp => "tsp",
        }
    }

    /// Its workloads.
    pub fn workloads(self) -> &'static [&'static str] {
        match self {
            Suite::Quick => &["T1", "T3", "nqueens:12"],
            Suite::Engines => &[
                "T1",
                "T3",
                "T1L",
                "T3L",
                "nqueens:15",
                "nqueens:16",
                "clique:brock200_1",
                "knapsack:strongly-correlated:90:1000:4",
            ],
            Suite::Bnb => &[
                "clique:brock200_1",
                "clique:brock200_4",
                "clique:keller4",
                "clique:hamming8-4",
                "knapsack:strongly-correlated:90:1000:4",
                "tsp:bays29",
                "tsp:att48",
                "tsp:berlin52",
                "tsp:att48/unseeded",
                "tsp:random:100:1",
                "tsp:random:130:1",
            ],
            Suite::Clique => &[
                "clique:brock200_1",
                "clique:brock200_4",
                "clique:keller4",
                "clique:hamming8-4",
                "clique:C125.9",
                "clique:p_hat300-1",
                "clique:gen200_p0.9_44",
                "clique:MANN_a27",
                "clique:p_hat700-2",
            ],
            Suite::Tsp => &[
                "tsp:pr76",
                "tsp:eil76",
                "tsp:rat99",
                "tsp:kroA100",
                "tsp:lin105",
                "tsp:ch130",
                "tsp:kroA150",
            ],
        }
    }

    /// The engines it runs unless `--engines` says otherwise.
    pub fn engines(self) -> Vec<Engine> {
        match self {
            Suite::Quick | Suite::Engines => Engine::ALL.to_vec(),
            Suite::Bnb | Suite::Clique | Suite::Tsp => vec![Engine::Seq, Engine::Treelb],
        }
    }

    /// treelb's numbers of PEs unless `--threads` says otherwise, for a
    /// machine of `cores` cores.
    pub fn threads(self, cores: usize) -> Vec<usize> {
        let mut p = match self {
            Suite::Quick | Suite::Engines => vec![1, cores, 2 * cores, 4 * cores],
            Suite::Bnb | Suite::Tsp => vec![cores],
            Suite::Clique => vec![1, cores],
        };
        p.dedup();
        p
    }
}

/// What one benchmark runs ([`Suite::lists`]).
#[derive(Clone, Debug)]
pub struct Lists {
    /// The workloads, checked.
    pub workloads: Vec<Workload>,
    /// The engines.
    pub engines: Vec<Engine>,
    /// treelb's numbers of PEs.
    pub threads: Vec<usize>,
}

impl Suite {
    /// Its workloads, engines and numbers of PEs (on `cores` cores), each
    /// replaced by the list given, comma-separated as `--workloads`,
    /// `--engines` and `--threads` take them ([`list`]); every workload is
    /// checked here, before the first one runs.
    ///
    /// ```
    /// use treelb_bench::harness::Suite;
    ///
    /// let lists = Suite::Quick.lists(Some("T1, nqueens:9"), None, Some("2"), 4).unwrap();
    /// assert_eq!((lists.workloads.len(), lists.threads), (2, vec![2]));
    /// assert_eq!(Suite::Quick.lists(None, None, None, 4).unwrap().threads, [1, 4, 8, 16]);
    /// assert!(Suite::Quick.lists(Some("bogus"), None, None, 4).unwrap_err().starts_with("--workloads: "));
    /// ```
    pub fn lists(
        self,
        workloads: Option<&str>,
        engines: Option<&str>,
        threads: Option<&str>,
        cores: usize,
    ) -> Result<Lists, String> {
        let workloads = match workloads {
            Some(w) => list("--workloads", w, str::parse::<Workload>)?,
            None => self.workloads().iter().map(|w| w.parse()).collect::<Result<_, _>>()?,
        };
        let engines = match engines {
            Some(e) => list("--engines", e, str::parse::<Engine>)?,
            None => self.engines(),
        };
        let threads = match threads {
            Some(p) => list("--threads", p, pes)?,
            None => self.threads(cores),
        };
        Ok(Lists { workloads, engines, threads })
    }
}

/// The PEs and the strategy of one measurement in its own process
/// (`treelb bench --one`), as given: one number of PEs (1 if none) and a
/// strategy by name (the runtime's default if none).
///
/// ```
/// use treelb::Strategy;
/// use treelb_bench::harness::one_options;
///
/// assert_eq!(one_options(None, None), Ok((1, Strategy::default())));
/// assert_eq!(one_options(Some("4"), Some("work-sharing")), Ok((4, Strategy::WorkSharing)));
/// assert!(one_options(Some("1,2"), None).is_err());
/// ```
pub fn one_options(threads: Option<&str>, strategy: Option<&str>) -> Result<(usize, Strategy), String> {
    let threads = match threads {
        None => 1,
        Some(p) => p.trim().parse().ok().filter(|&p| (1..=4096).contains(&p)).ok_or_else(|| {
            format!("--threads: `{p}` is not a number of PEs from 1 to 4096 (--one takes one)")
        })?,
    };
    let strategy = match strategy {
        None => Strategy::default(),
        Some(s) => s.parse().map_err(|e| format!("--strategy: {e}"))?,
    };
    Ok((threads, strategy))
}

impl std::str::FromStr for Suite {
    type Err = String;

    fn from_str(s: &str) -> Result<Suite, String> {
        Suite::ALL.into_iter().find(|x| x.name() == s).ok_or_else(|| {
            let names: Vec<_> = Suite::ALL.iter().map(|x| x.name()).collect();
            format!("unknown suite `{s}` (expected one of {})", names.join(", "))
        })
    }
}

/// What runs a workload: one of treelb's engines at a number of PEs (and,
/// for treelb, a strategy), or a peer program.
#[derive(Clone, Debug)]
pub enum Runner {
    /// An engine of this repository, run by the harness's own program.
    Engine {
        /// The engine.
        engine: Engine,
        /// PEs.
        threads: usize,
        /// treelb's strategy (treelb only).
        strategy: Option<Strategy>,
    },
    /// A peer program.
    Peer(Peer),
}

impl Runner {
    /// Its name in tables: `seq`, `treelb`, `treelb max-load`,
    /// `rayon-cutoff`, `peer glasgow`.
    pub fn label(&self) -> String {
        match self {
            Runner::Engine { engine, strategy: Some(s), .. } if *s != Strategy::default() => {
                format!("{engine} {s}")
            }
            Runner::Engine { engine, .. } => engine.to_string(),
            Runner::Peer(peer) => format!("peer {peer}"),
        }
    }

    fn threads(&self) -> usize {
        match self {
            Runner::Engine { threads, .. } => *threads,
            Runner::Peer(_) => 1,
        }
    }
}

/// What to run: the workloads × engines × strategies × P of one benchmark.
#[derive(Clone, Debug)]
pub struct Matrix {
    /// The workloads, in order.
    pub workloads: Vec<Workload>,
    /// The engines (each workload's runners keep only these).
    pub engines: Vec<Engine>,
    /// treelb's strategies: one row per strategy and P.
    pub strategies: Vec<Strategy>,
    /// treelb's numbers of PEs.
    pub threads: Vec<usize>,
    /// The cores of the machine: rayon and chili run on this many threads,
    /// and efficiency divides by min(P, cores).
    pub cores: usize,
    /// Runs per runner; the fastest counts.
    pub repeat: usize,
    /// The time limit of one run.
    pub timeout: Duration,
    /// Overrides every workload's fork-join cutoff depth.
    pub cutoff: Option<u32>,
    /// Overrides every workload's Δt.
    pub budget: Option<treelb::spec::Budget>,
    /// How the root reaches treelb's PEs (default: the runtime's).
    pub init: Option<Init>,
    /// The peer programs.
    pub peers: Vec<Peer>,
    /// How an engine's run is started: the program and the arguments
    /// before `--one` (e.g. `treelb bench`).
    pub child: Vec<OsString>,
    /// A folder for the peers' input files (cleaned graphs).
    pub scratch: PathBuf,
    /// Print a progress line per run on standard error.
    pub progress: bool,
}

/// How a row ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Every run gave the reference answer.
    Ok,
    /// A run gave another answer.
    Mismatch,
    /// A run passed the time limit and was killed.
    Timeout,
    /// A run ended with an error.
    Failed,
}

impl Status {
    fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Mismatch => "MISMATCH",
            Status::Timeout => "TIMEOUT",
            Status::Failed => "FAILED",
        }
    }
}

/// One runner's figures on one workload.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The runner's name (`seq`, `treelb`, `peer glasgow`).
    pub runner: String,
    /// The engine (`seq`, `treelb`, `rayon-cutoff`, …) or `peer`.
    pub engine: String,
    /// PEs (1 for peers).
    pub threads: usize,
    /// treelb's strategy.
    pub strategy: Option<String>,
    /// The fork-join cutoff depth, for the cutoff variants.
    pub cutoff_depth: Option<u32>,
    /// How it went.
    pub status: Status,
    /// What went wrong, if anything.
    pub message: Option<String>,
    /// The answer of its last run.
    pub answer: Option<String>,
    /// Nodes of the fastest run (a branch and bound engine's own expanded
    /// nodes; none for peers that do not report them).
    pub nodes: Option<u64>,
    /// The fastest run's wall time, seconds: the traversal alone for the
    /// engines, the whole process for the peers.
    pub wall_secs: Option<f64>,
    /// Every completed run's wall time, seconds, in order.
    pub runs_wall_secs: Vec<f64>,
    /// The fastest run's whole-process wall time, seconds.
    pub process_secs: Option<f64>,
    /// User + system CPU time of the fastest run's process, seconds.
    pub cpu_secs: Option<f64>,
    /// Peak resident set of the runs' processes (largest), MiB.
    pub max_rss_mib: Option<f64>,
    /// Nodes per second of the fastest run.
    pub nodes_per_sec: Option<f64>,
    /// Its time over the sequential baseline's (P = 1 cost + 1); for a
    /// peer, its process's wall time over the baseline's process's.
    pub over_seq: Option<f64>,
    /// T_seq / T, for treelb and the fork-join engines.
    #[serde(default)]
    pub speedup: Option<f64>,
    /// T_seq / (min(P, cores) · T), for treelb and the fork-join engines.
    pub efficiency: Option<f64>,
    /// What balancing cost in the fastest run (treelb only).
    pub balance: Option<Traffic>,
}

/// One workload's rows.
#[derive(Clone, Debug, Serialize)]
pub struct WorkloadReport {
    /// The workload (`T1`, `nqueens:15`, `clique:brock200_1`).
    pub workload: String,
    /// Its title.
    pub title: String,
    /// The reference answer (published, or the first engine's).
    pub reference: Option<String>,
    /// Whether the reference is published (true) or the first engine's.
    pub published: bool,
    /// One row per runner.
    pub rows: Vec<Row>,
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The command that produced it.
    pub command: String,
    /// Where.
    pub machine: Host,
    /// The scheduling priority (nice value) of the run.
    pub nice: i32,
    /// Load average (1, 5, 15 minutes) before the first run.
    pub load_before: Option<[f64; 3]>,
    /// Load average after the last run.
    pub load_after: Option<[f64; 3]>,
    /// The share of the cores that other processes took during the runs
    /// (see [`crate::host::OthersMeter`]), where it could be measured.
    pub others_share: Option<f64>,
    /// Runs per runner.
    pub repeat: usize,
    /// The time limit of one run, seconds.
    pub timeout_secs: f64,
    /// The peers, by path.
    pub peers: Vec<Peer>,
    /// The workloads.
    pub workloads: Vec<WorkloadReport>,
    /// Every failure, one line each.
    pub failures: Vec<String>,
}

/// One runner's runs so far.
struct Track {
    runner: Runner,
    runs: Vec<(ChildReport, Usage)>,
    status: Status,
    message: Option<String>,
    answer: Option<Answer>,
}

impl Matrix {
    /// The runners of `workload`, in table order.
    pub fn runners(&self, workload: &Workload) -> Vec<Runner> {
        let mut runners = Vec::new();
        let engine = |engine, threads, strategy| Runner::Engine { engine, threads, strategy };
        for &e in self.engines.iter().filter(|&&e| workload.runs_on(e)) {
            match e {
                Engine::Seq => runners.push(engine(e, 1, None)),
                Engine::Treelb => {
                    for &s in &self.strategies {
                        for &p in &self.threads {
                            runners.push(engine(e, p, Some(s)));
                        }
                    }
                }
                // The C reference runs as a peer (`--uts-c`).
                Engine::UtsC => {}
                _ => runners.push(engine(e, self.cores, None)),
            }
        }
        runners.extend(self.peers.iter().filter(|p| p.runs(workload)).cloned().map(Runner::Peer));
        runners
    }

    fn measure(&self, workload: &Workload, runner: &Runner) -> Result<(ChildReport, Usage), Failure> {
        match runner {
            Runner::Engine { engine, threads, strategy } => {
                let (program, prefix) = self.child.split_first().expect("the child command has a program");
                let mut command = Command::new(program);
                command
                    .args(prefix)
                    .args(["--one", engine.name(), "--workload", &workload.to_string()])
                    .args(["--threads", &threads.to_string()]);
                if let Some(s) = strategy {
                    command.args(["--strategy", s.name()]);
                }
                if let Some(d) = self.cutoff {
                    command.args(["--cutoff-depth", &d.to_string()]);
                }
                if let Some(b) = self.budget {
                    command.args(["--budget", &b.to_string()]);
                }
                if let Some(init) = self.init {
                    command.args(["--init", init.name()]);
                }
                if engine.is_chili() {
                    // The fork-join engines recurse as deep as the tree;
                    // chili's workers are plain `std::thread`s, sized by
                    // this variable.
                    command.env("RUST_MIN_STACK", STACK_BYTES.to_string());
                }
                let (stdout, usage) = child::run(&mut command, self.timeout)?;
                let line = stdout.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
                let report = serde_json::from_str(line)
                    .map_err(|e| Failure::Failed(format!("unreadable report {line:?}: {e}")))?;
                Ok((report, usage))
            }
            Runner::Peer(peer) => {
                let mut command = peer.command(workload, &self.scratch).map_err(Failure::Failed)?;
                let input = peer.input(workload, &self.scratch).map_err(Failure::Failed)?;
                let (stdout, usage) = child::run_with_input(&mut command, input.as_deref(), self.timeout)?;
                let answer = peer.answer(&stdout).map_err(Failure::Failed)?;
                Ok((ChildReport { wall_secs: usage.process_secs, answer, balance: None }, usage))
            }
        }
    }

    /// Runs every runner on every workload `repeat` times, rounds
    /// alternating the runners, checks every answer, and returns the
    /// report. Failures are in the report ([`Report::ok`]), not an `Err`:
    /// `Err` is for a plan that cannot run at all.
    pub fn run(&self, command: String, machine: Host, nice: i32) -> Result<Report, String> {
        if self.repeat == 0 {
            return Err("--repeat must be at least 1".to_owned());
        }
        if self.child.is_empty() {
            return Err("no program to run the engines with".to_owned());
        }
        let load_before = load_average();
        let others = crate::host::OthersMeter::start();
        let total: usize = self.workloads.iter().map(|w| self.runners(w).len() * self.repeat).sum();
        let mut done = 0;
        let mut failures = Vec::new();
        let mut workloads = Vec::new();
        for workload in &self.workloads {
            let expected = workload.expected();
            let published = expected.is_some();
            let mut reference: Option<Answer> = expected
                .map(|summary| Answer { nodes: workload.uts_sample().map_or(0, |t| t.nodes), summary });
            let mut ref_nodes: Option<u64> = workload.uts_sample().map(|t| t.nodes);
            let mut tracks: Vec<Track> = self
                .runners(workload)
                .into_iter()
                .map(|runner| Track {
                    runner,
                    runs: Vec::new(),
                    status: Status::Ok,
                    message: None,
                    answer: None,
                })
                .collect();
            for round in 1..=self.repeat {
                for track in &mut tracks {
                    done += 1;
                    if track.status != Status::Ok {
                        continue;
                    }
                    let label = track.runner.label();
                    let p = track.runner.threads();
                    let outcome = self.measure(workload, &track.runner);
                    let note = match outcome {
                        Err(failure) => {
                            track.status = match failure {
                                Failure::Timeout(_) => Status::Timeout,
                                Failure::Failed(_) => Status::Failed,
                            };
                            track.message = Some(failure.to_string());
                            failure.to_string()
                        }
                        Ok((report, usage)) => {
                            let answer = report.answer.clone();
                            let is_engine = matches!(track.runner, Runner::Engine { .. });
                            if reference.is_none() && is_engine {
                                reference = Some(answer.clone());
                            }
                            if ref_nodes.is_none() && is_engine && workload.fixed_tree() {
                                ref_nodes = Some(answer.nodes);
                            }
                            let verdict =
                                check(workload, &track.runner, &answer, reference.as_ref(), ref_nodes);
                            let secs_taken = report.wall_secs;
                            track.answer = Some(answer);
                            track.runs.push((report, usage));
                            match verdict {
                                Ok(()) => format!("{} s", secs(Some(secs_taken))),
                                Err(why) => {
                                    track.status = Status::Mismatch;
                                    track.message = Some(why.clone());
                                    why
                                }
                            }
                        }
                    };
                    if track.status != Status::Ok {
                        failures.push(format!(
                            "{workload} {label} P={p}: {} — {}",
                            track.status.name(),
                            track.message.as_deref().unwrap_or("")
                        ));
                    }
                    if self.progress {
                        eprintln!(
                            "treelb bench [{done}/{total}] {workload} {label} P={p} round {round}/{}: {note}",
                            self.repeat
                        );
                    }
                }
            }
            workloads.push(self.summarize(workload, tracks, reference, published));
        }
        Ok(Report {
            command,
            machine,
            nice,
            load_before,
            load_after: load_average(),
            others_share: others.and_then(|m| m.share()),
            repeat: self.repeat,
            timeout_secs: self.timeout.as_secs_f64(),
            peers: self.peers.clone(),
            workloads,
            failures,
        })
    }

    fn summarize(
        &self,
        workload: &Workload,
        tracks: Vec<Track>,
        reference: Option<Answer>,
        published: bool,
    ) -> WorkloadReport {
        let fastest = |t: &Track| -> Option<(ChildReport, Usage)> {
            t.runs.iter().min_by(|a, b| a.0.wall_secs.total_cmp(&b.0.wall_secs)).cloned()
        };
        let seq_best = tracks
            .iter()
            .filter(|t| matches!(t.runner, Runner::Engine { engine: Engine::Seq, .. }))
            .find_map(fastest);
        let t_seq = seq_best.as_ref().map(|b| b.0.wall_secs);
        // Peers are timed as whole processes: against the baseline's whole
        // process, set-up (reading the instance) included on both sides.
        let t_seq_process = seq_best.as_ref().map(|b| b.1.process_secs);
        let rows = tracks
            .iter()
            .map(|t| {
                let best = fastest(t);
                let wall = best.as_ref().map(|b| b.0.wall_secs);
                let (engine, strategy, cutoff_depth) = match &t.runner {
                    Runner::Engine { engine, strategy, .. } => (
                        engine.to_string(),
                        strategy.map(|s| s.to_string()),
                        matches!(engine, Engine::RayonCutoff | Engine::ChiliCutoff)
                            .then(|| self.cutoff.unwrap_or_else(|| workload.default_cutoff())),
                    ),
                    Runner::Peer(_) => ("peer".to_owned(), None, None),
                };
                let counts_nodes = match &t.runner {
                    Runner::Engine { .. } => true,
                    Runner::Peer(p) => p.counts_nodes(),
                };
                let nodes = best.as_ref().map(|b| b.0.answer.nodes).filter(|_| counts_nodes);
                let is_parallel_engine =
                    matches!(&t.runner, Runner::Engine { engine, .. } if *engine != Engine::Seq);
                let used_cores = t.runner.threads().min(self.cores) as f64;
                Row {
                    runner: t.runner.label(),
                    engine,
                    threads: t.runner.threads(),
                    strategy,
                    cutoff_depth,
                    status: t.status,
                    message: t.message.clone(),
                    answer: t.answer.as_ref().map(|a| a.summary.clone()),
                    nodes,
                    wall_secs: wall,
                    runs_wall_secs: t.runs.iter().map(|r| r.0.wall_secs).collect(),
                    process_secs: best.as_ref().map(|b| b.1.process_secs),
                    cpu_secs: best.as_ref().map(|b| b.1.cpu_secs),
                    max_rss_mib: t.runs.iter().map(|r| r.1.max_rss_kib).max().map(|k| k as f64 / 1024.0),
                    nodes_per_sec: nodes.zip(wall).map(|(n, w)| n as f64 / w),
                    over_seq: match &t.runner {
                        Runner::Peer(_) => wall.zip(t_seq_process).map(|(w, s)| w / s),
                        Runner::Engine { .. } => wall.zip(t_seq).map(|(w, s)| w / s),
                    },
                    speedup: wall.zip(t_seq).filter(|_| is_parallel_engine).map(|(w, s)| s / w),
                    efficiency: wall
                        .zip(t_seq)
                        .filter(|_| is_parallel_engine)
                        .map(|(w, s)| s / (used_cores * w)),
                    balance: best.as_ref().and_then(|b| b.0.balance),
                }
            })
            .collect();
        WorkloadReport {
            workload: workload.to_string(),
            title: workload.title(),
            reference: reference.map(|a| a.summary),
            published,
            rows,
        }
    }
}

/// Checks one answer against the workload's reference.
fn check(
    workload: &Workload,
    runner: &Runner,
    answer: &Answer,
    reference: Option<&Answer>,
    ref_nodes: Option<u64>,
) -> Result<(), String> {
    let Some(reference) = reference else {
        // A peer ran before any engine, on a workload with no published
        // answer: nothing to compare with yet.
        return Ok(());
    };
    let nodes_only = matches!(runner, Runner::Peer(p) if p.nodes_only());
    if nodes_only {
        return match ref_nodes {
            Some(n) if n != answer.nodes => Err(format!("found {} nodes, expected {n}", answer.nodes)),
            _ => Ok(()),
        };
    }
    if answer.summary != reference.summary {
        return Err(format!("found `{}`, expected `{}`", answer.summary, reference.summary));
    }
    let counts_nodes = match runner {
        Runner::Engine { .. } => workload.fixed_tree(),
        Runner::Peer(p) => p.counts_nodes(),
    };
    match ref_nodes {
        Some(n) if counts_nodes && n != answer.nodes => {
            Err(format!("found {} nodes, expected {n} (same answer, another tree)", answer.nodes))
        }
        _ => Ok(()),
    }
}

/// One measurement in this process: what `--one` does in the child. The
/// report is one JSON line.
pub fn one(engine: Engine, workload: &Workload, opts: &RunOpts) -> Result<String, String> {
    if engine.is_chili() && std::env::var_os("RUST_MIN_STACK").is_none() {
        return Err(format!("chili's workers need RUST_MIN_STACK (the harness sets it to {STACK_BYTES})"));
    }
    let m = workload.measure(engine, opts)?;
    let report = ChildReport { wall_secs: m.time.as_secs_f64(), answer: m.answer, balance: m.balance };
    serde_json::to_string(&report).map_err(|e| e.to_string())
}

/// A speedup or efficiency of `row` (by `figure`) with three decimals, or
/// "too short" where the row's time or the baseline's is under
/// [`treelb::MIN_MEASURED_WALL`].
fn measured(row: Option<&Row>, figure: impl Fn(&Row) -> Option<f64>) -> String {
    let Some(row) = row else { return "–".to_owned() };
    let min = treelb::MIN_MEASURED_WALL.as_secs_f64();
    match (row.wall_secs, row.speedup) {
        (Some(t), Some(speedup)) if t.min(speedup * t) < min => "too short".to_owned(),
        _ => opt(figure(row), 3),
    }
}

fn opt(x: Option<f64>, digits: usize) -> String {
    x.map_or_else(|| "–".to_owned(), |v| format!("{v:.digits$}"))
}

/// Seconds with four significant digits below 1 s (a tiny run's 0.0004212
/// is not 0.000), three decimals above.
fn secs(x: Option<f64>) -> String {
    match x {
        None => "–".to_owned(),
        Some(x) if x >= 1.0 || x == 0.0 => format!("{x:.3}"),
        Some(x) => {
            let digits = (3 - x.log10().floor() as i32).clamp(3, 9) as usize;
            format!("{x:.digits$}")
        }
    }
}

fn rate(x: Option<f64>) -> String {
    match x {
        None => "–".to_owned(),
        Some(x) if x >= 1e9 => format!("{:.2} G", x / 1e9),
        Some(x) if x >= 1e6 => format!("{:.2} M", x / 1e6),
        Some(x) => format!("{:.1} k", x / 1e3),
    }
}

impl Report {
    /// Whether every run of every row gave the reference answer in time.
    pub fn ok(&self) -> bool {
        self.failures.is_empty()
    }

    /// Whether other work kept the machine busy during the runs: other
    /// processes took [`LOADED_SHARE`] of the
    /// cores or more (or, where that cannot be measured, a load average of at
    /// least half a core before or after).
    pub fn loaded(&self) -> bool {
        match self.others_share {
            Some(share) => share >= LOADED_SHARE,
            None => [self.load_before, self.load_after].iter().flatten().any(|l| l[0] >= 0.5),
        }
    }

    fn row(w: &WorkloadReport, pred: impl Fn(&Row) -> bool) -> Option<&Row> {
        w.rows.iter().find(|r| pred(r))
    }

    /// The report as Markdown: the command, the machine, the failures, the
    /// headline per workload, one table per workload.
    pub fn markdown(&self) -> String {
        let m = &self.machine;
        let c = m.cores;
        let mut s = String::new();
        let _ = writeln!(s, "# Benchmark — {}\n", m.date);
        let _ = writeln!(s, "```sh\n{}\n```\n", self.command);
        let load = |l: Option<[f64; 3]>| {
            l.map_or("unknown".to_owned(), |l| format!("{:.2} {:.2} {:.2}", l[0], l[1], l[2]))
        };
        let _ = writeln!(
            s,
            "Machine: {}, {} cores; {}; nice {}. Fastest of {} rounds, the runners alternating within each \
             round, every run in its own process with a limit of {:.0} s. Load average before {}, after {}{}{}.\n",
            m.processor.ids().map_or_else(|| m.cpu_model.clone(), |ids| format!("{} ({ids})", m.cpu_model)),
            c,
            m.rustc,
            self.nice,
            self.repeat,
            self.timeout_secs,
            load(self.load_before),
            load(self.load_after),
            self.others_share.map_or(String::new(), |o| format!(
                "; other processes took {:.1} % of the cores during the runs",
                100.0 * o
            )),
            if self.loaded() {
                " — **the machine was loaded** by other work: compare ratios within this run only"
            } else {
                ""
            }
        );
        for p in &self.peers {
            let _ = writeln!(s, "* peer `{}`: `{}`", p.name, p.path.display());
        }
        if !self.peers.is_empty() {
            s.push('\n');
        }
        if self.ok() {
            let _ = writeln!(s, "Every answer matched its reference.\n");
        } else {
            let _ = writeln!(s, "**{} failure(s):**\n", self.failures.len());
            for f in &self.failures {
                let _ = writeln!(s, "* {f}");
            }
            s.push('\n');
        }
        let _ = writeln!(s, "## At a glance\n");
        let _ = writeln!(
            s,
            "P = {c} is all cores. P = 1 cost: treelb at P = 1 over the sequential baseline. Peers: their \
             process's wall time over the sequential baseline's process's, set-up included on both sides \
             (above 1: treelb is faster).\n"
        );
        let _ = writeln!(
            s,
            "| workload | answer | seq s | P = 1 cost | speedup P = {c} | efficiency P = {c} | rayon-cutoff ÷ treelb | \
             chili-cutoff ÷ treelb | peers ÷ seq |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
        for w in &self.workloads {
            let treelb = |p: usize| {
                Self::row(w, |r| r.engine == "treelb" && r.threads == p && r.runner == "treelb")
                    .and_then(|r| r.wall_secs)
            };
            let seq = Self::row(w, |r| r.engine == "seq");
            let vs = |engine: &str| {
                Self::row(w, |r| r.engine == engine)
                    .and_then(|r| r.wall_secs)
                    .zip(treelb(c))
                    .map(|(a, b)| a / b)
            };
            let peers: Vec<String> = w
                .rows
                .iter()
                .filter(|r| r.engine == "peer")
                .map(|r| format!("{} {}", r.runner.trim_start_matches("peer "), opt(r.over_seq, 2)))
                .collect();
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                w.workload,
                w.reference.as_deref().unwrap_or("–"),
                secs(seq.and_then(|r| r.wall_secs)),
                treelb(1)
                    .zip(seq.and_then(|r| r.wall_secs))
                    .map_or("–".to_owned(), |(t, s)| format!("{:+.1} %", 100.0 * (t / s - 1.0))),
                measured(Self::row(w, |r| r.runner == "treelb" && r.threads == c), |r| r.speedup),
                measured(Self::row(w, |r| r.runner == "treelb" && r.threads == c), |r| r.efficiency),
                opt(vs("rayon-cutoff"), 2),
                opt(vs("chili-cutoff"), 2),
                if peers.is_empty() { "–".to_owned() } else { peers.join(", ") },
            );
        }
        for w in &self.workloads {
            let _ = writeln!(
                s,
                "\n## {}\n\nReference answer: {} ({}).\n",
                w.title,
                w.reference.as_deref().unwrap_or("none"),
                if w.published { "published" } else { "the first engine's" }
            );
            let _ = writeln!(
                s,
                "| runner | P | status | time s | ÷ seq | speedup | efficiency | nodes | nodes/s | CPU s | peak RSS MiB |"
            );
            let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|");
            for r in &w.rows {
                let name = match r.cutoff_depth {
                    Some(d) => format!("{} (depth {d})", r.runner),
                    None => r.runner.clone(),
                };
                let status = match &r.message {
                    Some(m) => format!("{}: {}", r.status.name(), m.replace('|', "\\|")),
                    None => r.status.name().to_owned(),
                };
                let _ = writeln!(
                    s,
                    "| {name} | {} | {status} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    r.threads,
                    secs(r.wall_secs),
                    opt(r.over_seq, 3),
                    measured(Some(r), |r| r.speedup),
                    measured(Some(r), |r| r.efficiency),
                    r.nodes.map_or("–".to_owned(), |n| n.to_string()),
                    rate(r.nodes_per_sec),
                    opt(r.cpu_secs, 2),
                    opt(r.max_rss_mib, 1),
                );
            }
        }
        let _ = writeln!(
            s,
            "\ntime s: the traversal alone for treelb's engines (the instance read and the search set up \
             before the clock starts), the whole process for peers, whose ÷ seq is against the baseline's whole \
             process. speedup = T_seq / T; efficiency = T_seq / (min(P, cores) · T); \"too short\": T_seq or T \
             under 10 ms, where starting and stopping weigh more than the balancing \
             (docs/benchmarks/2026-11-27-short-runs). \
             CPU s = user + system time of the fastest run's process (its whole life); peak RSS is \
             `ru_maxrss` of the runs' processes (the largest). Branch and bound rows count each run's own \
             expanded nodes."
        );
        s
    }

    /// Writes `results.json`, `results.md`, `command.txt` and
    /// `machine.txt` into `dir` (created if missing), each whole (see
    /// [`treelb_apps::output::write`]).
    pub fn write(&self, dir: &Path) -> Result<(), String> {
        let shown = |p: &Path| treelb_apps::input::escape_path(p);
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", shown(dir)))?;
        let json = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        let m = &self.machine;
        let ids = m.processor.ids().map_or_else(String::new, |ids| format!("{ids}\n"));
        let machine = format!("{}\n{ids}{} cores\n{}\n{}\n", m.cpu_model, m.cores, m.rustc, m.date);
        for (name, text) in [
            ("results.json", json + "\n"),
            ("results.md", self.markdown()),
            ("command.txt", format!("{}\n", self.command)),
            ("machine.txt", machine),
        ] {
            let path = dir.join(name);
            treelb_apps::output::write_bytes(&path, text.as_bytes())
                .map_err(|e| format!("{}: {e}", shown(&path)))?;
        }
        Ok(())
    }
}

/// The command line as one string a shell reads back the same, with the
/// program named `program`.
pub use treelb_apps::input::command_line;

/// The comma-separated items of `list` given to `flag`, each parsed (empty
/// items skipped); an error names the flag, as does an empty list.
///
/// ```
/// use treelb_bench::harness::{list, pes};
///
/// assert_eq!(list("-p", "1, 2,,4", pes), Ok(vec![1, 2, 4]));
/// assert_eq!(list("-p", " ", pes), Err("-p is empty".to_owned()));
/// ```
pub fn list<T>(flag: &str, list: &str, parse: impl Fn(&str) -> Result<T, String>) -> Result<Vec<T>, String> {
    let items = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| parse(s).map_err(|e| format!("{flag}: {e}")))
        .collect::<Result<Vec<T>, String>>()?;
    if items.is_empty() {
        return Err(format!("{flag} is empty"));
    }
    Ok(items)
}

/// A number of PEs, from 1 to 4096.
pub fn pes(p: &str) -> Result<usize, String> {
    p.parse()
        .ok()
        .filter(|&p| (1..=4096).contains(&p))
        .ok_or_else(|| format!("`{p}` is not a number of PEs from 1 to 4096"))
}

/// The strategies of a list given to `--strategies`, each one the threads
/// runtime runs, or `all` of those.
pub fn strategies(value: &str) -> Result<Vec<Strategy>, String> {
    use treelb_threads::SUPPORTED_STRATEGIES;
    if value.trim() == "all" {
        return Ok(SUPPORTED_STRATEGIES.to_vec());
    }
    list("--strategies", value, |name| {
        let strategy: Strategy = name.parse()?;
        if SUPPORTED_STRATEGIES.contains(&strategy) {
            Ok(strategy)
        } else {
            Err(format!("`{strategy}` does not run on the threads runtime"))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suites_parse_and_their_workloads_too() {
        for suite in Suite::ALL {
            assert_eq!(suite.name().parse::<Suite>(), Ok(suite));
            for w in suite.workloads() {
                assert!(w.parse::<Workload>().is_ok(), "{suite:?}: {w}");
            }
        }
        assert!("fast".parse::<Suite>().unwrap_err().contains("expected one of quick"));
        assert_eq!(Suite::Engines.threads(2), [1, 2, 4, 8]);
        assert_eq!(Suite::Clique.threads(1), [1]);
        assert_eq!(secs(Some(0.000_421_23)), "0.0004212");
        assert_eq!(secs(Some(0.5)), "0.5000");
        assert_eq!(secs(Some(12.0)), "12.000");
    }

    #[test]
    fn command_lines_quote_what_a_shell_would_split() {
        let args = ["bench", "--out", "a b", "it's"].map(String::from);
        assert_eq!(command_line("treelb", args), r"treelb bench --out 'a b' 'it'\''s'");
    }

    #[test]
    fn answers_are_checked_against_the_reference() {
        let w: Workload = "nqueens:8".parse().unwrap();
        let seq = Runner::Engine { engine: Engine::Seq, threads: 1, strategy: None };
        let reference = Answer { nodes: 2057, summary: "92 solutions".into() };
        let same = reference.clone();
        assert_eq!(check(&w, &seq, &same, Some(&reference), Some(2057)), Ok(()));
        let other_tree = Answer { nodes: 2000, ..reference.clone() };
        assert!(
            check(&w, &seq, &other_tree, Some(&reference), Some(2057)).unwrap_err().contains("another tree")
        );
        let wrong = Answer { nodes: 2057, summary: "93 solutions".into() };
        assert_eq!(
            check(&w, &seq, &wrong, Some(&reference), Some(2057)),
            Err("found `93 solutions`, expected `92 solutions`".into())
        );
    }
}
