//! Reproductions of the seeds' results: each runs simulations (or the
//! allocation process), compares the measurements with the paper's
//! prediction by a [`Verdict`] computed from the numbers, and writes a
//! section of `docs/reproductions/README.md` with its plot.
//!
//! One file per reproduction: its data (a function of a [`Scale`], so the
//! tests run the same code at [`Scale::Tiny`] and `treelb sim reproduce` at
//! [`Scale::Full`]), its verdict (a pure function of the data and the
//! paper's constants, so a test can feed a wrong constant and watch it
//! fail) and its section. The prose that does not depend on the data lives
//! beside them in `text/`.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::engine::{SimReport, process_cpu_seconds};
use crate::plot::{PlotError, short};
use crate::queue::Time;
use crate::sweep::Observer;

mod allocation;
mod backtrack;
mod bound;
mod claims;
mod costmodel;
mod exponential;
mod fig2;
mod iso;
mod kimura;
mod mandelbrot;
mod maxload;
mod multilevel;
mod sharing;
mod speed;
mod timings;
mod trim;
mod verdict;

pub use allocation::*;
pub use backtrack::*;
pub use bound::*;
pub use claims::*;
pub use costmodel::*;
pub use exponential::*;
pub use fig2::*;
pub use iso::*;
pub use kimura::*;
pub use mandelbrot::*;
pub use maxload::*;
pub use multilevel::*;
pub use sharing::*;
pub use speed::*;
pub use trim::*;
pub use verdict::{Check, Outcome, Slope, Verdict};

/// How large the reproductions are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scale {
    /// The sizes of the papers (minutes).
    Full,
    /// Smaller sweeps (about a minute): the same headline verdicts, with
    /// the checks that the smaller ranges cannot decide marked undecided.
    Quick,
    /// For tests (seconds).
    Tiny,
}

/// Messages of a run, as the simulator counted them: requests and their
/// answers, load queries and their answers, pushes, the hub's messages.
pub fn messages(r: &SimReport) -> u64 {
    r.messages
}

/// The time one reproduction took.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Timing {
    /// The reproduction.
    pub name: String,
    /// Wall-clock seconds.
    pub wall: f64,
    /// CPU seconds of the process (all its threads), if known.
    pub cpu: Option<f64>,
}

/// Everything `treelb sim reproduce` measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct All {
    /// The scale.
    pub scale: Scale,
    /// Reproduction 1.
    pub fig2: Fig2,
    /// Reproduction 2.
    pub iso: Iso,
    /// Reproduction 3.
    pub bound: Bound,
    /// Reproduction 4, single level.
    pub kimura: Kimura,
    /// Reproduction 4, multi-level.
    pub multilevel: Multi,
    /// Reproduction 5.
    pub allocation: Allocation,
    /// Reproduction 6.
    pub maxload: MaxLoad,
    /// Reproduction 7.
    pub sharing: Sharing,
    /// The two cost models side by side.
    pub cost_models: CostModels,
    /// Reproduction 9 (absent from reports written before it existed).
    #[serde(default)]
    pub trim: Option<Trim>,
    /// Reproduction 10 (absent from reports written before it existed).
    #[serde(default)]
    pub backtracking: Option<Backtracking>,
    /// Reproduction 11 (absent from reports written before it existed).
    #[serde(default)]
    pub multi_exponential: Option<MultiExp>,
    /// Reproduction 12 (absent from reports written before it existed).
    #[serde(default)]
    pub claims: Option<Claims>,
    /// The simulator's speed.
    pub speed: Speed,
    /// The time each reproduction took.
    pub seconds: Vec<Timing>,
    /// Cores available to the run (absent from reports written before it
    /// was recorded).
    #[serde(default)]
    pub cores: Option<usize>,
    /// How much other processes loaded the machine while the reproductions
    /// ran, where the caller measured it (the simulated numbers do not
    /// depend on it; the wall times do).
    #[serde(default)]
    pub load: Option<Load>,
}

/// The load other processes put on the machine during a run.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Load {
    /// The share of all cores (0 to 1) that other processes kept busy.
    pub others_share: f64,
    /// Whether that counts as a loaded machine (the caller's threshold).
    pub loaded: bool,
}

impl All {
    /// Every verdict, with the reproduction it belongs to.
    pub fn verdicts(&self) -> Vec<(&'static str, Verdict)> {
        let mut v = vec![
            ("1. utilization over time ([Sanders 1994] Figure 2)", self.fig2.verdict()),
            ("2. isoefficiency ([Sanders 1994] Figure 3, [Lecture, load balancing])", self.iso.verdict()),
            ("3. the T_par bound ([Sanders 1999] Theorem 1)", self.bound.verdict()),
            (
                "4a. single-level producer/consumer ([Kimura & Ichiyoshi 1992] Proposition 1, Theorems 1–2)",
                self.kimura.verdict(),
            ),
            (
                "4b. multi-level isoefficiency ([Kimura & Ichiyoshi 1992] Theorem 3)",
                self.multilevel.verdict(),
            ),
            ("4c. root fan-out ([Kimura & Ichiyoshi 1992] Theorem 4)", self.multilevel.fanout_verdict()),
            ("5. allocation ([Lecture, load balancing])", self.allocation.verdict()),
            ("6. max-load visiting ([Loui & Sohoni 1989] Theorem 2)", self.maxload.verdict()),
            ("7. stealing against sharing ([Lecture, load balancing])", self.sharing.verdict()),
        ];
        if !self.maxload.concurrent.is_empty() {
            v.insert(
                8,
                (
                    "6b. max-load, concurrent: collisions, reports, ρ, worst case, Manber ([Loui & Sohoni 1989] Theorems 1–4)",
                    self.maxload.concurrent_verdict(),
                ),
            );
        }
        if let Some(t) = &self.trim {
            v.push(("9. T_par w.h.p. with queue trimming ([Sanders 1999] Theorem 2)", t.verdict()));
        }
        if let Some(b) = &self.backtracking {
            v.push(("10. backtracking and extreme work sharing ([Lecture, load balancing])", b.verdict()));
        }
        if let Some(m) = &self.multi_exponential {
            v.push((
                "11. multi-level, exponential subtasks and ℓ = 3 ([Kimura & Ichiyoshi 1992] Theorems 3–4)",
                m.verdict(),
            ));
        }
        if let Some(c) = &self.claims {
            v.push((
                "12. termination's time, queue lengths, node durations ([Sanders 1999], [Lecture, load balancing])",
                c.verdict(),
            ));
        }
        v
    }
}

/// Runs every reproduction.
pub fn all(scale: Scale, obs: &mut dyn Observer) -> All {
    let mut seconds = Vec::new();
    let mut timed = |name: &str, (wall, cpu): (Instant, Option<f64>), obs: &mut dyn Observer| {
        let cpu = cpu.zip(process_cpu_seconds()).map(|(a, b)| b - a);
        let wall = wall.elapsed().as_secs_f64();
        obs.section(name, wall, cpu);
        seconds.push(Timing { name: name.to_owned(), wall, cpu });
    };
    let now = || (Instant::now(), process_cpu_seconds());
    let t = now();
    obs.phase("Figure 2", 1);
    let fig2 = fig2(scale);
    obs.step();
    timed("1. utilization ([Sanders 1994] Figure 2)", t, obs);
    let t = now();
    let iso = iso(scale, obs);
    timed("2. isoefficiency", t, obs);
    let t = now();
    let bound = bound(scale, obs);
    timed("3. T_par bound ([Sanders 1999])", t, obs);
    let t = now();
    let kimura = kimura(scale, obs);
    timed("4a. single-level producer/consumer ([Kimura & Ichiyoshi 1992])", t, obs);
    let t = now();
    let multilevel = multilevel(scale, obs);
    timed("4b. multi-level producer/consumer ([Kimura & Ichiyoshi 1992])", t, obs);
    let t = now();
    let allocation = allocation(scale, obs);
    timed("5. allocation ([Lecture, load balancing])", t, obs);
    let t = now();
    let maxload = maxload(scale, obs);
    timed("6. max-load visiting ([Loui & Sohoni 1989])", t, obs);
    let t = now();
    let sharing = sharing(scale, obs);
    timed("7. stealing vs sharing ([Lecture, load balancing])", t, obs);
    let t = now();
    let cost_models = cost_models(scale, obs);
    timed("8. the cost models", t, obs);
    let t = now();
    let trim = Some(trim(scale, obs));
    timed("9. queue trimming ([Sanders 1999] Theorem 2)", t, obs);
    let t = now();
    let backtracking = Some(backtracking(scale, obs));
    timed("10. backtracking ([Lecture, load balancing])", t, obs);
    let t = now();
    let multi_exponential = Some(multi_exponential(scale, obs));
    timed("11. multi-level, exponential subtasks ([Kimura & Ichiyoshi 1992])", t, obs);
    let t = now();
    let claims = Some(claims(scale, obs));
    timed(
        "12. termination, queue lengths, node durations ([Sanders 1999], [Lecture, load balancing])",
        t,
        obs,
    );
    let t = now();
    let speed = speed(scale, obs);
    timed("simulator speed", t, obs);
    All {
        scale,
        fig2,
        iso,
        bound,
        kimura,
        multilevel,
        allocation,
        maxload,
        sharing,
        cost_models,
        trim,
        backtracking,
        multi_exponential,
        claims,
        speed,
        seconds,
        cores: std::thread::available_parallelism().ok().map(|n| n.get()),
        load: None,
    }
}

/// The least-squares slope of log W against log P over the points (P, W)
/// with P ≥ `from`: the exponent of W's growth.
fn loglog_slope(points: &[(f64, f64)], from: u32) -> f64 {
    let pts: Vec<_> =
        points.iter().filter(|&&(p, _)| p >= f64::from(from)).map(|&(p, w)| (p.ln(), w.ln())).collect();
    crate::sweep::fit_line(&pts).0
}

fn pct(x: f64) -> String {
    format!("{:.1} %", 100.0 * x)
}

fn opt_time(t: Option<Time>, unit: Time) -> String {
    t.map_or("never".into(), |t| format!("{:.0}", t as f64 / unit as f64))
}

/// Writes the plots into `dir` and returns the markdown report.
pub fn write_report(all: &All, dir: &Path, command: &str) -> Result<String, PlotError> {
    let mut md = String::new();
    let w = &mut md;
    let _ = writeln!(w, "# Reproductions of the seeds' results\n");
    let _ = writeln!(
        w,
        "Generated by `{command}` with the discrete-event simulator of `crates/sim` \
         (scale {:?}). Every figure of the message-passing machine below is a simulation \
         of the scheduler that runs: each PE's decisions come from its \
         `treelb::strategy` machine — the one the threads and MPI runtimes drive — the \
         hub of a strategy sits at PE 0, pieces are `treelb::Work` values split by their \
         own `split`, and the initial pieces are `treelb::RunSpec::initial_shares`. What \
         changed when the strategies were unified, and why: [CHANGES.md](CHANGES.md). \
         Time is in ticks; unless said otherwise the cost model is the seeds' \
         ([Sanders 1999] §1.1): a message travels `T_rout` = 100 ticks per hop and costs its \
         sender and its receiver `T_rout` each; a split costs `T_split` = 10, a probe \
         `T_poll` = 1 every Δt = 100 ticks of work, and termination detection two waves \
         up a binomial reduction tree and the verdict down, `3⌈log₂ P⌉·T_rout` on a \
         crossbar. Section 8 sets it beside the optimistic model (messages cost their \
         ends nothing). The simulator's predictions of real runs on this machine, threads \
         and MPI, beside the runs: [calibration.md](calibration.md) (`treelb sim calibrate \
         --mpi`, then `treelb sim predict`).\n",
        all.scale
    );
    let f = &all.fig2;
    let sp = &all.speed;
    let cpu = sp.runs.iter().all(|r| r.cpu);
    let _ = writeln!(
        w,
        "**Simulator speed** (one core of a shared machine, million events per {} second, \
         median of {} runs; `cargo run --release -p treelb-sim --example throughput` runs \
         the same): P = {}, W = {} ticks, 1:2 splitting.\n",
        if cpu { "CPU" } else { "wall-clock" },
        sp.runs.first().map_or(0, |r| r.rates.len()),
        sp.p,
        short(sp.work as f64)
    );
    let _ =
        writeln!(w, "| strategy | initialization | events | M events/s | all runs |\n|---|---|---|---|---|");
    for r in &sp.runs {
        let all_rates: Vec<String> = r.rates.iter().map(|x| format!("{x:.1}")).collect();
        let _ = writeln!(
            w,
            "| {} | {} | {} | {:.1} | {} |",
            r.strategy,
            r.init,
            r.events,
            r.median(),
            all_rates.join(", ")
        );
    }
    let _ = writeln!(
        w,
        "\nFigure 2's two runs below (P = {}) took {:.2} s and {:.2} s of wall-clock time.\n",
        f.p, f.root.wall_seconds, f.selective.wall_seconds
    );
    let _ = writeln!(
        w,
        "Each reproduction's time: wall clock, and the CPU time of all the process's threads \
         (the independent simulations of a sweep run on all {} cores). {}\n",
        all.cores.map_or("the".to_owned(), |c| c.to_string()),
        match all.load {
            Some(l) => format!(
                "Other processes took {:.0} % of the machine's cores during the run{}.",
                100.0 * l.others_share,
                if l.loaded {
                    ": the machine was loaded, so the wall times are longer than on a quiet one"
                } else {
                    ""
                }
            ),
            None => "The load of the machine by other processes was not measured.".to_owned(),
        }
    );
    let _ = writeln!(w, "| reproduction | wall time | CPU time |\n|---|---|---|");
    for t in &all.seconds {
        let cpu = t.cpu.map_or("–".to_owned(), |c| format!("{c:.1} s"));
        let _ = writeln!(w, "| {} | {:.1} s | {cpu} |", t.name, t.wall);
    }
    let total_cpu: f64 = all.seconds.iter().filter_map(|t| t.cpu).sum();
    let _ = writeln!(
        w,
        "| **in all** | {:.1} s | {total_cpu:.1} s |",
        all.seconds.iter().map(|t| t.wall).sum::<f64>()
    );
    let _ = writeln!(w);
    let _ = writeln!(
        w,
        "**Verdicts**, computed from the numbers below (each section lists its checks, \
         their criteria and tolerances):\n\n| reproduction | verdict | checks passed |\n|---|---|---|"
    );
    for (name, v) in all.verdicts() {
        let counted: Vec<_> = v.checks.iter().filter(|c| !c.informational).collect();
        let passed = counted.iter().filter(|c| c.pass).count();
        let undecided = counted.iter().filter(|c| c.undecided).count();
        let decided = counted.len() - undecided;
        let also =
            if undecided > 0 { format!(", {undecided} undecided at this scale") } else { String::new() };
        let _ = writeln!(w, "| {name} | {} | {passed} of {decided}{also} |", v.outcome());
    }
    if let Some(c) = &all.claims {
        let open = c.undecided();
        let _ = writeln!(
            w,
            "\nNot decided yet, and not counted above: {} claims of the seeds, listed with the \
             reason in section 12 — {}.",
            open.len(),
            open.iter().map(|u| u.claim.as_str()).collect::<Vec<_>>().join("; ")
        );
    }
    let _ = writeln!(w);
    fig2::section(w, &all.fig2, dir)?;
    iso::section(w, &all.iso, dir)?;
    bound::section(w, &all.bound, dir)?;
    kimura::section(w, &all.kimura, dir)?;
    multilevel::section(w, &all.multilevel, dir)?;
    allocation::section(w, &all.allocation, dir)?;
    maxload::section(w, &all.maxload, dir)?;
    sharing::section(w, &all.sharing, dir)?;
    costmodel::section(w, &all.cost_models);
    if let Some(t) = &all.trim {
        trim::section(w, t);
    }
    if let Some(b) = &all.backtracking {
        backtrack::section(w, b);
    }
    if let Some(m) = &all.multi_exponential {
        exponential::section(w, m);
    }
    if let Some(c) = &all.claims {
        claims::section(w, c);
    }
    Ok(md)
}
