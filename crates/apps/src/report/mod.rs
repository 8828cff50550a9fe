//! The report of a run of an application: what it was asked
//! ([`Report::instance`]), what it found ([`Report::answer`]), checked
//! against the published answer where one is known, how the run was set
//! up ([`RunSetup`]) and what the PEs did — serializable (the `treelb`
//! command prints it as JSON with `--json`), and with the answer also as
//! [`Line`]s for people.
//!
//! Each application's module here turns what a run found into an
//! [`Answered`]: the instance, the answer, its lines and the verdict of the
//! check; [`Report::new`] adds the run.
//!
//! ```
//! use treelb::search::{DfsWork, SplitPolicy};
//! use treelb::RunSpec;
//! use treelb_apps::nqueens::NQueens;
//! use treelb_apps::report::{Report, RunSetup, nqueens};
//!
//! let spec = RunSpec::default();
//! let search = NQueens::new(8)?;
//! let config = treelb_threads::Config::with_spec(2, spec.clone());
//! let outcome = treelb_threads::run(DfsWork::new(&search, SplitPolicy::default()), &config)?;
//! let answered = nqueens::answer(8, false, outcome.output, outcome.stopped.is_some());
//! assert!(answered.ok); // 92 solutions, as published
//! let setup = RunSetup::new("threads", 2, &spec, SplitPolicy::default());
//! let report = Report::new("nqueens", answered, "work units", setup, outcome.stats, None);
//! assert_eq!(report.lines[0].note.as_deref(), Some("published: 92 ✓"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Branch and bound reports its proof beside the answer ([`bnb`]); a
//! tree-size estimate has a report of its own ([`estimate`]).

use serde::Serialize;
use treelb::{MIN_MEASURED_WALL, PeStats, RunSpec, RunStats, SplitPolicy};

pub mod bnb;
pub mod clique;
pub mod connect4;
pub mod estimate;
pub mod integrate;
pub mod knapsack;
pub mod mandelbrot;
pub mod nqueens;
pub mod tsp;
pub mod uts;

mod text;

pub use text::pe_table;
pub use treelb_files::text::human_rate;

/// How the run was configured, as reported.
#[derive(Clone, Debug, Serialize)]
pub struct RunSetup {
    /// The runtime: `threads` or `mpi`.
    pub runtime: &'static str,
    /// The PEs (with MPI: ranks × threads per rank).
    pub threads: usize,
    /// Δt, in units of work.
    pub budget: u64,
    /// The strategy, by name.
    pub strategy: String,
    /// The initial distribution, by name.
    pub init: String,
    /// The split policy, by name.
    pub split_policy: String,
    /// The seed of the strategies' random choices.
    pub seed: u64,
    /// The limit on the units of work, if any.
    pub max_nodes: Option<u64>,
    /// The time limit, in seconds, if any.
    pub time_limit_secs: Option<f64>,
    /// Branch and bound broke ties by the witness
    /// ([`Incumbent::break_ties`](treelb::Incumbent::break_ties)).
    pub deterministic: bool,
}

impl RunSetup {
    /// A run on `threads` PEs of `runtime`, balanced by `spec`, its pieces
    /// split by `split_policy`; no limits, ties not broken.
    pub fn new(runtime: &'static str, threads: usize, spec: &RunSpec, split_policy: SplitPolicy) -> Self {
        RunSetup {
            runtime,
            threads,
            budget: spec.budget.get(),
            strategy: spec.strategy.to_string(),
            init: spec.init.to_string(),
            split_policy: split_policy.to_string(),
            seed: spec.seed,
            max_nodes: None,
            time_limit_secs: None,
            deterministic: false,
        }
    }
}

/// One line of the answer: a label and a value (and an optional note).
#[derive(Debug, Serialize)]
pub struct Line {
    /// What the value is: `nodes`, `ω`.
    pub label: &'static str,
    /// The value, written out.
    pub value: String,
    /// A remark on it: `published: 4130071 ✓`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Line {
    /// The line `label value`, without a note.
    pub fn new(label: &'static str, value: impl ToString) -> Self {
        Line { label, value: value.to_string(), note: None }
    }

    /// The line with `note`.
    #[must_use]
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }
}

/// An application's answer to one instance, checked: what its report shows
/// before the figures of the run.
#[derive(Debug)]
pub struct Answered<I, A> {
    /// A one-line description of the instance (and the question).
    pub title: String,
    /// The instance's parameters.
    pub instance: I,
    /// The answer, as data.
    pub answer: A,
    /// The answer, as lines for people.
    pub lines: Vec<Line>,
    /// The answer matched the published or independently checked one,
    /// where one is known (a partial answer is not checked).
    pub ok: bool,
}

/// Everything a run reports.
#[derive(Debug, Serialize)]
pub struct Report<I: Serialize, A: Serialize> {
    /// The application: "uts", "nqueens".
    pub app: &'static str,
    /// A one-line description of the instance.
    pub title: String,
    /// The instance's parameters.
    pub instance: I,
    /// The answer, as data.
    pub answer: A,
    /// The answer, as lines for people (not in the JSON).
    #[serde(skip)]
    pub lines: Vec<Line>,
    /// The unit of work ("nodes").
    pub unit: &'static str,
    /// A limit or a signal stopped the run before its work was done: the
    /// answer is partial.
    pub interrupted: bool,
    /// What stopped it, in words, if it was interrupted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<String>,
    /// How the run was configured.
    pub setup: RunSetup,
    /// The run's wall time.
    pub wall_secs: f64,
    /// The units of work of all PEs.
    pub work_units: u64,
    /// Units of work per second of wall time.
    pub units_per_sec: f64,
    /// The PEs' utilization, Σ CPU time while busy / (P · wall)
    /// ([`RunStats::utilization`]).
    pub utilization: f64,
    /// Whether the run lasted long enough for `utilization` to mean
    /// something ([`RunStats::measurable`]).
    pub measurable: bool,
    /// Each PE's statistics.
    pub pes: Vec<PeStats>,
    /// The sequential run's wall time, in seconds, if one was made for
    /// comparison ([`with_sequential`](Self::with_sequential)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequential_secs: Option<f64>,
    /// T_seq / T_P (`null` where either run was too short to measure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speedup: Option<Option<f64>>,
    /// The processor of the process that made the report (with MPI,
    /// rank 0's). A run resumed from a checkpoint reports its last
    /// segment's.
    pub machine: Processor,
}

impl<I: Serialize, A: Serialize> Report<I, A> {
    /// The report of a run of `app` that `answered`, counting its work in
    /// `unit`s, set up as `setup` says, with the statistics `stats`;
    /// `stopped_by`: what stopped it before its work was done, in words, if
    /// anything did.
    pub fn new(
        app: &'static str,
        answered: Answered<I, A>,
        unit: &'static str,
        setup: RunSetup,
        stats: RunStats,
        stopped_by: Option<String>,
    ) -> Self {
        let Answered { title, instance, answer, lines, ok: _ } = answered;
        Report {
            app,
            title,
            instance,
            answer,
            lines,
            unit,
            interrupted: stopped_by.is_some(),
            stopped_by,
            // The PEs that ran (with MPI: ranks × threads per rank).
            setup: RunSetup { threads: stats.pes.len(), ..setup },
            wall_secs: stats.wall.as_secs_f64(),
            work_units: stats.work_units(),
            units_per_sec: stats.units_per_sec(),
            utilization: stats.utilization(),
            measurable: stats.measurable(),
            pes: stats.pes,
            sequential_secs: None,
            speedup: None,
            machine: Processor::detect(),
        }
    }

    /// The report of a run whose sequential time is known: it gives the
    /// speedup T_seq / T_P too, where both runs lasted at least
    /// [`MIN_MEASURED_WALL`].
    #[must_use]
    pub fn with_sequential(mut self, seq_secs: Option<f64>) -> Self {
        if let Some(seq) = seq_secs {
            let measurable = seq.min(self.wall_secs) >= MIN_MEASURED_WALL.as_secs_f64();
            self.sequential_secs = Some(seq);
            self.speedup = Some(measurable.then(|| seq / self.wall_secs));
        }
        self
    }
}

/// The processor a process runs on, read from `/proc/cpuinfo` (Linux; the
/// fields are absent elsewhere). Cheap enough for every run's report: a
/// run carried over several starts of a virtual machine by checkpoints may
/// run its segments on different hosts, and the model name alone ("AMD
/// EPYC") does not tell them apart — the family, model and stepping do.
///
/// ```
/// let p = treelb_apps::report::Processor::parse("model name\t: AMD EPYC\ncpu family\t: 26\nmodel\t\t: 2\n", 2);
/// assert_eq!(p.to_string(), "AMD EPYC (family 26, model 2), 2 CPUs");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Processor {
    /// "model name" of the first processor listed.
    pub model_name: Option<String>,
    /// "cpu family" (x86).
    pub family: Option<u32>,
    /// "model" (x86).
    pub model: Option<u32>,
    /// "stepping" (x86).
    pub stepping: Option<u32>,
    /// Logical CPUs available to this process.
    pub cpus: usize,
}

impl Processor {
    /// The processor of this process.
    pub fn detect() -> Processor {
        use std::io::BufRead;
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        // The first processor's block only: the kernel produces the file as
        // it is read, a block per CPU, so on a machine of many CPUs reading
        // it whole costs every run's report far more than this one block.
        let mut first = String::new();
        if let Ok(file) = std::fs::File::open("/proc/cpuinfo") {
            for line in std::io::BufReader::with_capacity(4096, file).lines().map_while(Result::ok) {
                if line.trim().is_empty() {
                    break;
                }
                first.push_str(&line);
                first.push('\n');
            }
        }
        Processor::parse(&first, cpus)
    }

    /// The fields of the first processor in the text of `/proc/cpuinfo`.
    pub fn parse(cpuinfo: &str, cpus: usize) -> Processor {
        let mut p = Processor { cpus, ..Processor::default() };
        // The first block only: one processor's lines, up to a blank line.
        for line in cpuinfo.lines().take_while(|l| !l.trim().is_empty()) {
            let Some((key, value)) = line.split_once(':') else { continue };
            let value = value.trim();
            match key.trim() {
                "model name" if !value.is_empty() => p.model_name = Some(value.to_owned()),
                "cpu family" => p.family = value.parse().ok(),
                "model" => p.model = value.parse().ok(),
                "stepping" => p.stepping = value.parse().ok(),
                _ => {}
            }
        }
        p
    }

    /// "family 26, model 2, stepping 1": the fields present, or `None`.
    pub fn ids(&self) -> Option<String> {
        let ids: Vec<String> = [("family", self.family), ("model", self.model), ("stepping", self.stepping)]
            .into_iter()
            .filter_map(|(name, v)| v.map(|v| format!("{name} {v}")))
            .collect();
        (!ids.is_empty()).then(|| ids.join(", "))
    }
}

impl std::fmt::Display for Processor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.model_name.as_deref().unwrap_or("unknown processor"))?;
        if let Some(ids) = self.ids() {
            write!(f, " ({ids})")?;
        }
        write!(f, ", {} CPU{}", self.cpus, if self.cpus == 1 { "" } else { "s" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processor_from_the_first_block_of_cpuinfo() {
        let cpuinfo = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n\
                       model name\t: AMD EPYC\nstepping\t: 1\n\nprocessor\t: 1\nmodel name\t: Other\n";
        let p = Processor::parse(cpuinfo, 2);
        assert_eq!(p.model_name.as_deref(), Some("AMD EPYC"));
        assert_eq!((p.family, p.model, p.stepping), (Some(26), Some(2), Some(1)));
        assert_eq!(p.to_string(), "AMD EPYC (family 26, model 2, stepping 1), 2 CPUs");
        // No /proc/cpuinfo, or an architecture without these fields.
        let none = Processor::parse("", 1);
        assert_eq!(none, Processor { cpus: 1, ..Processor::default() });
        assert_eq!(none.to_string(), "unknown processor, 1 CPU");
        // A field that is not a number is left out, not guessed.
        assert_eq!(
            Processor::parse("cpu family\t: x86\nmodel\t: 85\n", 4).to_string(),
            "unknown processor (model 85), 4 CPUs"
        );
    }
}
