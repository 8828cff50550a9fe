//! The suite: which configurations run, each in its own child process, the
//! fastest of N runs, checked answers, and the report as markdown and JSON.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

use serde::Serialize;

use crate::child::{self, ChildReport, Usage};
use crate::forkjoin::STACK_BYTES;
use crate::machine::Machine;
use crate::uts_c::UtsC;
use crate::workload::{Engine, Workload};

/// The workloads of the full suite.
pub const FULL: [&str; 8] = [
    "T1",
    "T3",
    "T1L",
    "T3L",
    "nqueens:15",
    "nqueens:16",
    "clique:brock200_1",
    "knapsack:strongly-correlated:90:1000:4",
];
/// The workloads of `--quick`: published counts, a fraction of a second each.
pub const QUICK: [&str; 3] = ["T1", "T3", "nqueens:12"];

/// What to run.
#[derive(Debug)]
pub struct Plan {
    /// The trees.
    pub workloads: Vec<Workload>,
    /// The engines (rows whose engine is not listed are skipped).
    pub engines: Vec<Engine>,
    /// Runs per configuration; the fastest counts.
    pub repeat: usize,
    /// The cores of the machine: P = cores is "all cores".
    pub cores: usize,
    /// Overrides every workload's cutoff depth.
    pub cutoff: Option<u32>,
    /// The C reference, if built.
    pub uts_c: Option<UtsC>,
    /// Why the C reference is or is not in the table.
    pub uts_c_note: String,
    /// The program to run for each measurement (this binary).
    pub exe: PathBuf,
}

/// One configuration: an engine at a number of PEs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Spec {
    engine: Engine,
    threads: usize,
}

impl Plan {
    fn specs(&self, workload: &Workload) -> Vec<Spec> {
        let c = self.cores;
        let mut specs = vec![Spec { engine: Engine::Seq, threads: 1 }];
        if workload.uts_sample().is_some() && self.uts_c.is_some() {
            specs.push(Spec { engine: Engine::UtsC, threads: 1 });
        }
        for p in [1, c, 2 * c, 4 * c] {
            specs.push(Spec { engine: Engine::Treelb, threads: p });
        }
        for engine in [Engine::RayonJoin, Engine::RayonCutoff, Engine::ChiliJoin, Engine::ChiliCutoff] {
            specs.push(Spec { engine, threads: c });
        }
        specs.dedup();
        specs.retain(|s| self.engines.contains(&s.engine));
        specs
    }

    fn measure(&self, workload: &Workload, spec: Spec) -> Result<(ChildReport, Usage), String> {
        if spec.engine == Engine::UtsC {
            let (uts_c, tree) = (self.uts_c.as_ref(), workload.uts_sample());
            let (Some(uts_c), Some(tree)) = (uts_c, tree) else {
                return Err("the C reference runs only UTS sample trees, and only when built".to_owned());
            };
            return uts_c.run(tree.flags);
        }
        let mut command = Command::new(&self.exe);
        command
            .args(["--one", spec.engine.name(), "--workload", &workload.to_string()])
            .args(["--threads", &spec.threads.to_string()]);
        if spec.engine.is_chili() {
            // The fork-join engines recurse as deep as the tree; chili's
            // workers are plain `std::thread`s, sized by this variable.
            command.env("RUST_MIN_STACK", STACK_BYTES.to_string());
        }
        if let Some(d) = self.cutoff {
            command.args(["--cutoff-depth", &d.to_string()]);
        }
        let (stdout, usage) = child::run(&mut command)?;
        let report: ChildReport = serde_json::from_str(stdout.trim())
            .map_err(|e| format!("{workload} {}: unreadable child report {stdout:?}: {e}", spec.engine))?;
        Ok((report, usage))
    }

    /// Runs every configuration of every workload `repeat` times (rounds
    /// interleave the configurations, so a burst of load on the machine
    /// spreads over all of them), checks every answer, and returns the report.
    pub fn run(&self, command: String, machine: Machine, nice: i32) -> Result<Report, String> {
        let mut workloads = Vec::new();
        for workload in &self.workloads {
            let specs = self.specs(workload);
            let mut runs: Vec<Vec<(ChildReport, Usage)>> = vec![Vec::new(); specs.len()];
            for round in 1..=self.repeat {
                for (spec, runs) in specs.iter().zip(&mut runs) {
                    let (report, usage) = self.measure(workload, *spec)?;
                    eprintln!(
                        "treelb-bench: {workload} {} P={} run {round}/{}: {:.3} s",
                        spec.engine, spec.threads, self.repeat, report.wall_secs
                    );
                    runs.push((report, usage));
                }
            }
            workloads.push(self.summarize(workload, &specs, runs)?);
        }
        Ok(Report {
            command,
            machine,
            nice,
            repeat: self.repeat,
            uts_c: self.uts_c_note.clone(),
            uts_c_build: self.uts_c.as_ref().map(|c| c.build_command.clone()),
            workloads,
        })
    }

    fn summarize(
        &self,
        workload: &Workload,
        specs: &[Spec],
        runs: Vec<Vec<(ChildReport, Usage)>>,
    ) -> Result<WorkloadReport, String> {
        let expected = workload.expected();
        // The reference answer: the published one, else the first engine's.
        let first = &runs[0][0].0.answer;
        let nodes = workload.uts_sample().map_or(first.nodes, |t| t.nodes);
        for (spec, runs) in specs.iter().zip(&runs) {
            for (report, _) in runs {
                let answer = &report.answer;
                let agrees = match (&expected, spec.engine) {
                    // The C reference's summary line has the nodes only.
                    (_, Engine::UtsC) => answer.nodes == nodes,
                    (Some(expected), _) => answer.summary == *expected && answer.nodes == nodes,
                    (None, _) if !workload.fixed_tree() => answer.summary == first.summary,
                    (None, _) => answer == first,
                };
                if !agrees {
                    return Err(format!(
                        "{workload}: {} at P = {} found {:?}, expected {} ({nodes} nodes)",
                        spec.engine,
                        spec.threads,
                        answer,
                        expected.as_deref().unwrap_or(&first.summary)
                    ));
                }
            }
        }
        let fastest = |runs: &[(ChildReport, Usage)]| -> (ChildReport, Usage) {
            runs.iter()
                .min_by(|a, b| a.0.wall_secs.total_cmp(&b.0.wall_secs))
                .cloned()
                .expect("at least one run")
        };
        let best: Vec<_> = runs.iter().map(|r| fastest(r)).collect();
        let time_of = |pred: &dyn Fn(&Spec) -> bool| {
            specs
                .iter()
                .zip(&best)
                .filter(|(s, _)| pred(s))
                .map(|(_, b)| b.0.wall_secs)
                .min_by(f64::total_cmp)
        };
        let t_seq = time_of(&|s| s.engine == Engine::Seq);
        let t_rayon = time_of(&|s| s.engine.is_rayon() && s.threads == self.cores);
        let t_chili = time_of(&|s| s.engine.is_chili() && s.threads == self.cores);
        let rows = specs
            .iter()
            .zip(&runs)
            .zip(&best)
            .map(|((spec, runs), (report, usage))| {
                let wall = report.wall_secs;
                let used_cores = spec.threads.min(self.cores) as f64;
                Row {
                    engine: spec.engine,
                    threads: spec.threads,
                    cutoff_depth: matches!(spec.engine, Engine::RayonCutoff | Engine::ChiliCutoff)
                        .then(|| self.cutoff.unwrap_or_else(|| workload.default_cutoff())),
                    wall_secs: wall,
                    runs_wall_secs: runs.iter().map(|r| r.0.wall_secs).collect(),
                    // Branch and bound: each engine's own expanded nodes.
                    nodes_per_sec: if workload.fixed_tree() { nodes } else { report.answer.nodes } as f64
                        / wall,
                    efficiency: t_seq.map(|t| t / (used_cores * wall)),
                    vs_rayon: t_rayon.map(|t| t / wall),
                    vs_chili: t_chili.map(|t| t / wall),
                    cpu_secs: usage.cpu_secs,
                    cores_busy: usage.cpu_secs / wall,
                    cpu_over_wall_p: usage.cpu_secs / (wall * spec.threads as f64),
                    max_rss_mib: runs.iter().map(|r| r.1.max_rss_kib).max().unwrap_or(0) as f64 / 1024.0,
                }
            })
            .collect();
        Ok(WorkloadReport { workload: workload.to_string(), title: workload.title(), nodes, rows })
    }
}

/// One configuration's figures: the fastest of its runs.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The engine.
    pub engine: Engine,
    /// PEs (worker threads).
    pub threads: usize,
    /// The fork-join cutoff depth, for the cutoff variants.
    pub cutoff_depth: Option<u32>,
    /// The fastest wall time, seconds.
    pub wall_secs: f64,
    /// Every run's wall time, seconds, in order.
    pub runs_wall_secs: Vec<f64>,
    /// Nodes per second of the fastest run.
    pub nodes_per_sec: f64,
    /// T_seq / (min(P, cores) · T).
    pub efficiency: Option<f64>,
    /// T of the faster rayon variant at P = cores, over T: above 1 is faster than rayon.
    pub vs_rayon: Option<f64>,
    /// The same against chili.
    pub vs_chili: Option<f64>,
    /// User + system CPU time of the fastest run's process, seconds.
    pub cpu_secs: f64,
    /// CPU time / wall time: how many cores the run kept busy.
    pub cores_busy: f64,
    /// CPU time / (wall time · P).
    pub cpu_over_wall_p: f64,
    /// Peak resident set of the runs' processes (largest of the runs), MiB.
    pub max_rss_mib: f64,
}

/// One workload's rows.
#[derive(Clone, Debug, Serialize)]
pub struct WorkloadReport {
    /// The workload's name (`T1`, `nqueens:15`).
    pub workload: String,
    /// Its title.
    pub title: String,
    /// Nodes of the tree.
    pub nodes: u64,
    /// One row per configuration.
    pub rows: Vec<Row>,
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The command that produced it.
    pub command: String,
    /// Where.
    pub machine: Machine,
    /// The scheduling priority (nice value) of the run.
    pub nice: i32,
    /// Runs per configuration.
    pub repeat: usize,
    /// Whether and how the C reference was measured.
    pub uts_c: String,
    /// The command that built the C reference.
    pub uts_c_build: Option<String>,
    /// The workloads.
    pub workloads: Vec<WorkloadReport>,
}

fn opt(x: Option<f64>, digits: usize) -> String {
    x.map_or_else(|| "–".to_owned(), |v| format!("{v:.digits$}"))
}

fn rate(x: f64) -> String {
    if x >= 1e9 {
        format!("{:.2} G", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.2} M", x / 1e6)
    } else {
        format!("{:.1} k", x / 1e3)
    }
}

impl Report {
    fn row<'a>(&'a self, w: &'a WorkloadReport, engine: Engine, threads: usize) -> Option<&'a Row> {
        w.rows.iter().find(|r| r.engine == engine && r.threads == threads)
    }

    /// The report as markdown: setup, the targets at a glance, one table per
    /// workload.
    pub fn markdown(&self) -> String {
        let m = &self.machine;
        let c = m.cores;
        let mut s = String::new();
        let _ = writeln!(s, "# treelb against rayon, chili and the sequential baseline — {}\n", m.date);
        let _ = writeln!(s, "```sh\n{}\n```\n", self.command);
        let _ = writeln!(
            s,
            "Machine: `lscpu` model \"{}\", {} cores; {}; nice {}; fastest of {} runs per configuration, \
             each run in its own process.\n",
            m.cpu_model, c, m.rustc, self.nice, self.repeat
        );
        let _ = writeln!(s, "C reference: {}", self.uts_c);
        if let Some(build) = &self.uts_c_build {
            let _ = writeln!(s, "(built with `{build}`).");
        }
        let _ = writeln!(s, "\n## At a glance\n");
        let _ = writeln!(
            s,
            "P = {c} is all cores. Ratios above 1 favour treelb. \"vs rayon\"/\"vs chili\": time of the faster \
             variant of each (join per node, or join above a depth cutoff) at P = {c} over treelb's at P = {c}.\n"
        );
        let _ = writeln!(
            s,
            "| workload | seq nodes/s | seq ÷ uts-c | P = 1 cost | efficiency P = {c} | vs rayon | vs chili | \
             P = {} ÷ P = {c} | P = {} ÷ P = {c} |",
            2 * c,
            4 * c
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
        for w in &self.workloads {
            let seq = self.row(w, Engine::Seq, 1);
            let t = |p| self.row(w, Engine::Treelb, p);
            let ratio = |a: Option<&Row>, b: Option<&Row>| a.zip(b).map(|(a, b)| a.wall_secs / b.wall_secs);
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                w.workload,
                seq.map_or("–".to_owned(), |r| rate(r.nodes_per_sec)),
                opt(ratio(self.row(w, Engine::UtsC, 1), seq), 2),
                ratio(t(1), seq).map_or("–".to_owned(), |r| format!("{:+.1} %", 100.0 * (r - 1.0))),
                opt(t(c).and_then(|r| r.efficiency), 3),
                opt(t(c).and_then(|r| r.vs_rayon), 2),
                opt(t(c).and_then(|r| r.vs_chili), 2),
                opt(ratio(t(c), t(2 * c)), 2),
                opt(ratio(t(c), t(4 * c)), 2),
            );
        }
        for w in &self.workloads {
            let _ = writeln!(s, "\n## {} — {} nodes\n", w.title, w.nodes);
            let _ = writeln!(
                s,
                "| engine | P | time s | nodes/s | efficiency | vs rayon | vs chili | CPU s | cores busy | peak RSS MiB |"
            );
            let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|");
            for r in &w.rows {
                let name = match r.cutoff_depth {
                    Some(d) => format!("{} (depth {d})", r.engine),
                    None => r.engine.to_string(),
                };
                let _ = writeln!(
                    s,
                    "| {name} | {} | {:.3} | {} | {} | {} | {} | {:.2} | {:.2} | {:.1} |",
                    r.threads,
                    r.wall_secs,
                    rate(r.nodes_per_sec),
                    opt(r.efficiency, 3),
                    opt(r.vs_rayon, 2),
                    opt(r.vs_chili, 2),
                    r.cpu_secs,
                    r.cores_busy,
                    r.max_rss_mib
                );
            }
        }
        let _ = writeln!(
            s,
            "\nefficiency = T_seq / (min(P, cores) · T). CPU s = user + system time of the fastest run's \
             process (its whole life: set-up included); cores busy = CPU s / time s, at most \
             min(P, cores) — more than the useful work (T_seq / time s) means PEs spin. Peak RSS is \
             `ru_maxrss` of the run's process (the largest over the runs)."
        );
        s
    }
}
