//! The benchmark workloads and the engines that run them, in process.

use std::fmt;
use std::num::NonZero;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use treelb::search::{DfsWork, Search, SplitPolicy};
use treelb::seq;
use treelb::{Init, RunStats, Strategy};
use treelb_apps::bnb::BnbStats;
use treelb_apps::clique::{CliqueSearch, dimacs};
use treelb_apps::connect4::{Connect4, Position};
use treelb_apps::knapsack::{Class, Knapsack, Spec};
use treelb_apps::mandelbrot::{Mandelbrot, Method, View};
use treelb_apps::nqueens::{NQueens, NQueensResult};
use treelb_apps::tsp::{AscentParams, Tsp, TspSearch, tsplib};
use treelb_apps::uts::{SampleTree, Uts, UtsResult};

use crate::forkjoin::{self, Cutoff, STACK_BYTES};

/// A tree to count — a UTS sample tree or an N-Queens board — or a branch
/// and bound search, whose tree depends on the order in which the engine
/// finds its solutions.
#[derive(Clone, Debug)]
pub enum Workload {
    /// A UTS sample tree with its published statistics.
    Uts(&'static SampleTree),
    /// N-Queens on an `n × n` board: the whole tree (no symmetry), or with
    /// `mirror` half of it counted twice (`nqueens:N:mirror`, see
    /// `NQueens::with_mirror`).
    NQueens {
        /// The board size.
        n: u32,
        /// Whether half of the mirror symmetry is searched.
        mirror: bool,
    },
    /// Maximum clique of a DIMACS graph of `../shared/instances/clique/`,
    /// by its name (`brock200_1`), started from the greedy clique.
    Clique(String),
    /// 0/1 knapsack on a generated instance (`CLASS:N:R:SEED`).
    Knapsack(Spec),
    /// Connect Four: the first `count` positions of a set of
    /// `crates/apps/tests/data/connect4/` (`moves12`, `moves20`, `moves30`:
    /// random positions after that many moves, each with its exact score by
    /// Pascal Pons's solver), solved one after the other with one
    /// transposition table of 2^24 entries, as Pons's `c4solver` solves a
    /// list on its standard input. The sequential solver only (the parallel
    /// game search is `treelb connect4`).
    Connect4 {
        /// The set's name.
        set: String,
        /// How many of its positions.
        count: usize,
    },
    /// The Mandelbrot set's standard view at 1000 iterations, by escape time
    /// per pixel or by rectangle subdivision from an 8×8 grid of tiles
    /// (`mandelbrot[:pixels|subdivide][:WxH]`): the lecture's case for
    /// static against dynamic assignment. The sequential baseline and
    /// treelb run it (it is a `Work`, not a `Search`).
    Mandelbrot {
        /// Escape time per pixel, or subdivision.
        method: Method,
        /// Pixels across.
        width: u32,
        /// Pixels down.
        height: u32,
    },
    /// The travelling salesman by the 1-tree branch and bound: a TSPLIB
    /// file of `../shared/instances/tsp/` by its name (`att48`) or
    /// `random:N:SEED` (N random points in [0, 1000]², as `treelb tsp
    /// --random N --instance-seed SEED`); started from the heuristic tour
    /// unless `seeded` is false (`/unseeded`).
    Tsp {
        /// The file's name, or `random:N:SEED`.
        instance: String,
        /// Whether the search starts from the heuristic tour.
        seeded: bool,
    },
}

/// The shared benchmark instances: `TREELB_INSTANCES` if set, else the
/// folder beside the checkout.
pub fn instances() -> PathBuf {
    std::env::var_os("TREELB_INSTANCES").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/instances"),
        PathBuf::from,
    )
}

/// The published optimum of `file` (`brock200_1.clq`, `att48.tsp`): the
/// last column of its row in the tables of the instances' README, which
/// gives ω for the DIMACS graphs and the optimal tour length for the
/// TSPLIB files. `None` if the README or the row is missing.
pub fn published_optimum(file: &str) -> Option<i64> {
    let readme = std::fs::read_to_string(instances().join("README.md")).ok()?;
    readme.lines().find_map(|line| {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // `| file | … | optimum |` splits into ["", file, …, optimum, ""].
        if cells.len() < 4 || cells[1] != file {
            return None;
        }
        cells[cells.len() - 2].replace(',', "").parse().ok()
    })
}

/// The TSP instance `instance` names (`att48` or `random:N:SEED`).
fn tsp_instance(instance: &str) -> Result<Tsp, String> {
    match instance.strip_prefix("random:") {
        Some(spec) => {
            let bad = || format!("tsp:{instance}: expected random:N:SEED, e.g. random:100:1");
            let (n, seed) = spec.split_once(':').ok_or_else(bad)?;
            let n: usize = n.parse().map_err(|_| bad())?;
            if !(3..=10_000).contains(&n) {
                return Err(bad());
            }
            Ok(Tsp::random_euclidean(n, 1000.0, seed.parse().map_err(|_| bad())?))
        }
        None => {
            let path = instances().join("tsp").join(format!("{instance}.tsp"));
            tsplib::read_file(&path).map_err(|e| format!("{}: {e}", path.display()))
        }
    }
}

/// `CLASS:N:R:SEED` of a generated knapsack instance.
fn knapsack_spec(spec: &str) -> Result<Spec, String> {
    let bad = || format!("knapsack:{spec}: expected CLASS:N:R:SEED, e.g. strongly-correlated:90:1000:4");
    let f: Vec<&str> = spec.split(':').collect();
    let [class, n, range, seed] = f[..] else { return Err(bad()) };
    let class: Class = class.parse().map_err(|_| bad())?;
    let range: i64 = range.parse().map_err(|_| bad())?;
    if !(1..=1 << 30).contains(&range) {
        return Err(bad());
    }
    Ok(Spec::new(class, n.parse().map_err(|_| bad())?, range, seed.parse().map_err(|_| bad())?))
}

impl FromStr for Workload {
    type Err = String;

    /// `T1`, `T3L`, … (UTS sample trees, any case), `nqueens:N`,
    /// `clique:NAME`, `knapsack:CLASS:N:R:SEED` or `tsp:NAME[/unseeded]`.
    fn from_str(spec: &str) -> Result<Workload, String> {
        if let Some(name) = spec.strip_prefix("clique:") {
            let path = instances().join("clique").join(format!("{name}.clq"));
            if !path.is_file() {
                return Err(format!("{spec}: no file {}", path.display()));
            }
            return Ok(Workload::Clique(name.to_owned()));
        }
        if let Some(k) = spec.strip_prefix("knapsack:") {
            return knapsack_spec(k).map(Workload::Knapsack);
        }
        if let Some(rest) = spec.strip_prefix("connect4:") {
            let (set, count) = match rest.split_once(':') {
                Some((set, n)) => {
                    let n = n.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                        format!("{spec}: the number of positions `{n}` is not a positive integer")
                    })?;
                    (set, Some(n))
                }
                None => (rest, None),
            };
            let all = connect4_set(set)?;
            let count = count.unwrap_or(all.len());
            if count > all.len() {
                return Err(format!("{spec}: the set has {} positions", all.len()));
            }
            return Ok(Workload::Connect4 { set: set.to_owned(), count });
        }
        if spec == "mandelbrot" || spec.starts_with("mandelbrot:") {
            let (mut method, mut size) = (Method::Subdivide, (1024, 768));
            for part in spec.split(':').skip(1) {
                if let Ok(m) = part.parse::<Method>() {
                    method = m;
                } else if let Some((w, h)) = part.split_once('x') {
                    let n = |v: &str, what: &str| {
                        v.parse::<u32>().map_err(|_| format!("{spec}: the {what} `{v}` is not a number"))
                    };
                    size = (n(w, "width")?, n(h, "height")?);
                } else {
                    return Err(format!(
                        "{spec}: `{part}` is neither a method (pixels, subdivide) nor a size WxH"
                    ));
                }
            }
            let workload = Workload::Mandelbrot { method, width: size.0, height: size.1 };
            workload.mandelbrot()?;
            return Ok(workload);
        }
        if let Some(t) = spec.strip_prefix("tsp:") {
            let (instance, seeded) = match t.strip_suffix("/unseeded") {
                Some(instance) => (instance, false),
                None => (t, true),
            };
            if instance.starts_with("random:") {
                tsp_instance(instance)?;
            } else {
                let path = instances().join("tsp").join(format!("{instance}.tsp"));
                if !path.is_file() {
                    return Err(format!("{spec}: no file {}", path.display()));
                }
            }
            return Ok(Workload::Tsp { instance: instance.to_owned(), seeded });
        }
        if let Some(n) = spec.strip_prefix("nqueens:") {
            let (n, mirror) = n.strip_suffix(":mirror").map_or((n, false), |n| (n, true));
            let n: u32 = n.parse().map_err(|_| format!("{spec}: the board size is not a number"))?;
            NQueens::new(n).map_err(|e| e.to_string())?;
            return Ok(Workload::NQueens { n, mirror });
        }
        SampleTree::find(spec).map(Workload::Uts).ok_or_else(|| {
            format!(
                "unknown workload `{spec}` (expected a UTS sample tree such as T1, nqueens:N, clique:NAME, \
                 knapsack:CLASS:N:R:SEED or tsp:NAME)"
            )
        })
    }
}

impl fmt::Display for Workload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Workload::Uts(tree) => f.write_str(tree.name),
            Workload::NQueens { n, mirror } => {
                write!(f, "nqueens:{n}{}", if *mirror { ":mirror" } else { "" })
            }
            Workload::Clique(name) => write!(f, "clique:{name}"),
            Workload::Knapsack(k) => write!(f, "knapsack:{}:{}:{}:{}", k.class, k.n, k.range, k.seed),
            Workload::Tsp { instance, seeded } => {
                write!(f, "tsp:{instance}{}", if *seeded { "" } else { "/unseeded" })
            }
            Workload::Mandelbrot { method, width, height } => {
                write!(f, "mandelbrot:{method}:{width}x{height}")
            }
            Workload::Connect4 { set, count } => write!(f, "connect4:{set}:{count}"),
        }
    }
}

impl Workload {
    /// A longer name for tables: `UTS T1 (Geometric [fixed])`, `N-Queens 15`.
    pub fn title(&self) -> String {
        match self {
            Workload::Uts(tree) => format!("UTS {} — {} (`{}`)", tree.name, tree.description, tree.flags),
            Workload::NQueens { n, mirror } => {
                format!("N-Queens {n}{}", if *mirror { " (half of the mirror symmetry)" } else { "" })
            }
            Workload::Clique(name) => format!("Maximum clique, {name}"),
            Workload::Knapsack(k) => {
                format!(
                    "Knapsack, {} items, {}, coefficients up to {}, seed {}",
                    k.n, k.class, k.range, k.seed
                )
            }
            Workload::Mandelbrot { method, width, height } => {
                format!("Mandelbrot set, {width}×{height}, {method}")
            }
            Workload::Connect4 { set, count } => {
                format!("Connect Four, the first {count} positions of {set} (exact scores)")
            }
            Workload::Tsp { instance, seeded } => format!(
                "TSP, {instance}, {}",
                if *seeded { "from the heuristic tour" } else { "no initial tour" }
            ),
        }
    }

    /// Whether every engine expands the same nodes. Branch and bound does
    /// not: what is pruned depends on when each solution is found, so only
    /// the optimum is compared across engines, and each run's rate counts
    /// its own expanded nodes.
    pub fn fixed_tree(&self) -> bool {
        matches!(self, Workload::Uts(_) | Workload::NQueens { .. })
    }

    /// The UTS sample tree, if this is one.
    pub fn uts_sample(&self) -> Option<&'static SampleTree> {
        match self {
            Workload::Uts(tree) => Some(tree),
            _ => None,
        }
    }

    /// The depth above which the fork-join engines with a cutoff fork (see
    /// [`Cutoff::Depth`]), chosen by a sweep over depths 2, 4, 6 and 8 on T1,
    /// T3 and N-Queens 13 (fastest rayon at P = 2 on the 2-core machine of
    /// `docs/benchmarks/archive/2026-11-22-epyc-2core-engines/`):
    ///
    /// * geometric UTS trees (branching 4): depth 6, 4^6 ≈ 4,000 subtrees;
    /// * binomial UTS trees: depth 8. The root has 2,000 children and every
    ///   level below about as many nodes, so any depth gives ~2,000
    ///   subtrees, and none evens out their sizes;
    /// * N-Queens: depth 6, some 10^5 partial placements of six queens.
    pub fn default_cutoff(&self) -> u32 {
        match self {
            Workload::Uts(tree) if tree.flags.starts_with("-t 0") => 8,
            _ => 6,
        }
    }

    /// The answer every engine must give, where it is known beforehand:
    /// the published statistics of a UTS sample tree, the known number of
    /// N-Queens solutions, the published ω of a DIMACS graph and the
    /// published optimal tour of a TSPLIB file (both read from the
    /// instances' README). Node counts of N-Queens are compared across
    /// engines instead; a generated knapsack's optimum is compared with the
    /// first engine's.
    pub fn expected(&self) -> Option<String> {
        match self {
            Workload::Uts(tree) => Some(uts_summary(tree.nodes, tree.leaves?, tree.max_depth?)),
            Workload::NQueens { n, .. } => NQueens::known_solutions(*n).map(nqueens_summary),
            Workload::Clique(name) => published_optimum(&format!("{name}.clq")).map(optimum_summary),
            Workload::Tsp { instance, .. } => {
                published_optimum(&format!("{instance}.tsp")).map(optimum_summary)
            }
            Workload::Knapsack(_) | Workload::Mandelbrot { .. } => None,
            Workload::Connect4 { set, count } => {
                let scores: Vec<i32> = connect4_set(set).ok()?.iter().take(*count).map(|p| p.1).collect();
                Some(connect4_summary(&scores))
            }
        }
    }

    /// Whether `engine` runs this workload: rayon and chili run the
    /// searches only, Connect Four runs on the sequential solver only.
    pub fn runs_on(&self, engine: Engine) -> bool {
        match self {
            Workload::Mandelbrot { .. } => matches!(engine, Engine::Seq | Engine::Treelb),
            Workload::Connect4 { .. } => engine == Engine::Seq,
            _ => true,
        }
    }

    /// The positions of a `connect4:` workload, one per line
    /// (`POSITION`), for the peers that read them on standard input.
    pub fn connect4_positions(&self) -> Option<String> {
        let Workload::Connect4 { set, count } = self else { return None };
        let set = connect4_set(set).ok()?;
        Some(set.iter().take(*count).map(|(p, _)| format!("{p}\n")).collect())
    }

    /// The Mandelbrot set of a `mandelbrot:` workload, checked.
    fn mandelbrot(&self) -> Result<Mandelbrot, String> {
        let Workload::Mandelbrot { width, height, .. } = *self else {
            return Err(format!("{self} is not the Mandelbrot set"));
        };
        let m = Mandelbrot::new(View::STANDARD, width, height, 1000).map_err(|e| format!("{self}: {e}"))?;
        // Subdivision from an 8×8 grid of tiles: the root splits at once,
        // so static assignment cuts it without computing frames first.
        Ok(m.with_tiles(8.min(width).min(height)))
    }

    /// Δt of treelb's runs unless the command line sets it: one node
    /// between two checks for requests on the TSP, whose node is a whole
    /// subgradient ascent; the runtime's default elsewhere.
    pub fn default_budget(&self) -> treelb::spec::Budget {
        match self {
            Workload::Tsp { .. } => treelb_apps::tsp::BUDGET,
            _ => treelb::spec::Budget::DEFAULT,
        }
    }

    /// Runs the workload once on `engine`; returns the wall time of the
    /// traversal and its answer. The instance is read and the search set up
    /// (initial incumbent found) before the clock starts. A branch and
    /// bound run's witness (the clique, the packing, the tour) is checked:
    /// one that does not achieve the reported value makes the answer say so.
    pub fn run(&self, engine: Engine, opts: &RunOpts) -> Result<(Duration, Answer), String> {
        self.measure(engine, opts).map(|m| (m.time, m.answer))
    }

    /// [`Workload::run`], with the balancing counters of a treelb run.
    pub fn measure(&self, engine: Engine, opts: &RunOpts) -> Result<Measured, String> {
        let cutoff = Cutoff::Depth(opts.cutoff.unwrap_or_else(|| self.default_cutoff()));
        let budget = opts.budget.unwrap_or_else(|| self.default_budget());
        let config = treelb_threads::Config::with_spec(
            opts.threads,
            treelb::RunSpec {
                strategy: opts.strategy,
                budget,
                init: opts.init.unwrap_or_default(),
                ..treelb::RunSpec::default()
            },
        );
        let measured = |(time, answer, balance)| Measured { time, answer, balance };
        match self {
            Workload::Uts(tree) => {
                let uts = Uts::new(tree.params()).map_err(|e| e.to_string())?;
                let (time, result, balance) = run_engine(&uts, engine, &config, cutoff)?;
                Ok(measured((time, Answer::from(result), balance)))
            }
            Workload::NQueens { n, mirror } => {
                let problem = NQueens::new(*n).map_err(|e| e.to_string())?.with_mirror(*mirror);
                let (time, result, balance) = run_engine(&problem, engine, &config, cutoff)?;
                Ok(measured((time, Answer::from(result), balance)))
            }
            Workload::Clique(name) => {
                let path = instances().join("clique").join(format!("{name}.clq"));
                let graph = dimacs::read_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                let search = CliqueSearch::max_clique(&graph);
                let (time, stats, balance) = run_engine(&search, engine, &config, cutoff)?;
                let witness = search.incumbent.into_best();
                let valid = witness
                    .as_ref()
                    .is_none_or(|(omega, c)| graph.is_clique(c) && i64::try_from(c.len()) == Ok(*omega));
                Ok(measured((time, bnb_answer(stats, witness.map(|w| w.0), valid), balance)))
            }
            Workload::Knapsack(spec) => {
                let instance = spec.generate();
                let search = Knapsack::new(&instance);
                let (time, stats, balance) = run_engine(&search, engine, &config, cutoff)?;
                let witness = search.incumbent.into_best();
                let valid =
                    witness.as_ref().is_none_or(|(best, items)| instance.profit_of(items) == Some(*best));
                Ok(measured((time, bnb_answer(stats, witness.map(|w| w.0), valid), balance)))
            }
            Workload::Tsp { instance, seeded } => {
                let tsp = tsp_instance(instance)?;
                let search = TspSearch::with_params(&tsp, AscentParams::for_n(tsp.n()), *seeded);
                let (time, stats, balance) = run_engine(&search, engine, &config, cutoff)?;
                let witness = search.incumbent.into_best();
                let valid =
                    witness.as_ref().is_none_or(|(length, tour)| tsp.tour_length(tour) == Some(*length));
                Ok(measured((time, bnb_answer(stats, witness.map(|w| w.0), valid), balance)))
            }
            Workload::Connect4 { set, count } => {
                if engine != Engine::Seq {
                    return Err(format!("{engine} does not run Connect Four (the sequential solver does)"));
                }
                let positions = connect4_set(set)?
                    .into_iter()
                    .take(*count)
                    .map(|(p, _)| Position::parse(&p).map_err(|e| format!("{self}: {p}: {e}")))
                    .collect::<Result<Vec<_>, _>>()?;
                let solver = Connect4::new(24);
                let (time, solved) =
                    timed(|| positions.iter().map(|p| solver.solve_sequential(p, false)).collect::<Vec<_>>());
                let scores: Vec<i32> = solved.iter().map(|s| s.score).collect();
                let nodes = solved.iter().map(|s| s.nodes).sum();
                Ok(Measured {
                    time,
                    answer: Answer { nodes, summary: connect4_summary(&scores) },
                    balance: None,
                })
            }
            Workload::Mandelbrot { method, .. } => {
                let m = self.mandelbrot()?;
                let (time, piece, balance) = match engine {
                    Engine::Seq => {
                        let (time, (piece, _)) = timed(|| seq::run_work(m.work(*method)));
                        (time, piece, None)
                    }
                    Engine::Treelb => {
                        let start = Instant::now();
                        let outcome =
                            treelb_threads::run(m.work(*method), &config).map_err(|e| e.to_string())?;
                        (start.elapsed(), outcome.output, Some(Traffic::from(&outcome.stats)))
                    }
                    _ => return Err(format!("{engine} runs the searches, not the Mandelbrot set")),
                };
                let image = piece.into_image(&m).map_err(|e| e.to_string())?;
                Ok(Measured { time, answer: image_answer(&image.values), balance })
            }
        }
    }
}

/// What a run found: the number of nodes (for nodes/s) and a one-line
/// summary that every engine must agree on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// Nodes of the tree.
    pub nodes: u64,
    /// Everything the application reports, in words.
    pub summary: String,
}

/// The summary of a UTS answer: `4130071 nodes, 3305118 leaves, depth 10`.
pub fn uts_summary(nodes: u64, leaves: u64, depth: u64) -> String {
    format!("{nodes} nodes, {leaves} leaves, depth {depth}")
}

/// A branch and bound run: the optimum, and the nodes it branched on; a
/// witness that does not achieve the optimum makes the summary say so.
fn bnb_answer(stats: BnbStats, optimum: Option<i64>, valid_witness: bool) -> Answer {
    let summary = match optimum {
        None => "no solution".to_owned(),
        Some(v) if valid_witness => optimum_summary(v),
        Some(v) => format!("optimum {v} with a witness that does not achieve it"),
    };
    Answer { nodes: stats.branched, summary }
}

/// A computed image's answer: its pixels, and a checksum of their values
/// (FNV-1a) that every engine must reproduce.
fn image_answer(values: &[u32]) -> Answer {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in values.iter().flat_map(|v| v.to_le_bytes()) {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    Answer { nodes: values.len() as u64, summary: format!("{} pixels, checksum {hash:016x}", values.len()) }
}

/// One run in process: its time, its answer, and treelb's balancing
/// counters.
#[derive(Clone, Debug)]
pub struct Measured {
    /// Wall time of the traversal.
    pub time: Duration,
    /// What it found.
    pub answer: Answer,
    /// treelb's counters (treelb runs only).
    pub balance: Option<Traffic>,
}

/// What balancing cost in one treelb run, summed over its PEs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Traffic {
    /// Requests for work sent.
    pub requests_sent: u64,
    /// Requests answered with nothing.
    pub requests_failed: u64,
    /// Pieces of work transferred.
    pub pieces_transferred: u64,
    /// Messages sent (requests, answers, queries, pushes, reports, the
    /// hub's).
    pub messages: u64,
    /// Operations on the shared load heap (max-load).
    pub heap_ops: u64,
    /// Σ idle / Σ (busy + idle) over the PEs.
    pub idle_fraction: f64,
}

impl From<&RunStats> for Traffic {
    fn from(stats: &RunStats) -> Traffic {
        let total = stats.total();
        let pe_time = total.busy + total.idle;
        Traffic {
            requests_sent: total.requests_sent,
            requests_failed: total.requests_failed,
            pieces_transferred: total.pieces_sent,
            messages: total.messages,
            heap_ops: total.heap_ops,
            idle_fraction: if pe_time.is_zero() {
                0.0
            } else {
                total.idle.as_secs_f64() / pe_time.as_secs_f64()
            },
        }
    }
}

/// The positions and exact scores of a Connect Four set of
/// `crates/apps/tests/data/connect4/`.
fn connect4_set(set: &str) -> Result<Vec<(String, i32)>, String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../apps/tests/data/connect4")
        .join(format!("{set}.txt"));
    let text =
        std::fs::read_to_string(&path).map_err(|e| format!("connect4:{set}: {}: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            let mut f = l.split_whitespace();
            let (Some(p), Some(s)) = (f.next(), f.next().and_then(|s| s.parse().ok())) else {
                return Err(format!("{}:{}: expected `POSITION SCORE`", path.display(), i + 1));
            };
            Ok((p.to_owned(), s))
        })
        .collect()
}

/// The summary of a list of Connect Four scores: their number, sum and a
/// checksum of the list in order (FNV-1a), which every solver must match.
pub fn connect4_summary(scores: &[i32]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in scores.iter().flat_map(|v| v.to_le_bytes()) {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    let sum: i64 = scores.iter().map(|&s| i64::from(s)).sum();
    format!("{} positions, scores sum {sum}, checksum {hash:016x}", scores.len())
}

/// The summary of a branch and bound answer: `optimum 21`.
pub fn optimum_summary(value: i64) -> String {
    format!("optimum {value}")
}

/// How one engine runs: PEs, treelb's strategy and Δt, the fork-join
/// cutoff.
#[derive(Clone, Debug)]
pub struct RunOpts {
    /// PEs (worker threads).
    pub threads: usize,
    /// The depth above which the cutoff variants of rayon and chili fork
    /// (default: [`Workload::default_cutoff`]).
    pub cutoff: Option<u32>,
    /// treelb's load balancing strategy.
    pub strategy: Strategy,
    /// treelb's Δt (default: [`Workload::default_budget`]).
    pub budget: Option<treelb::spec::Budget>,
    /// How the root reaches treelb's PEs (default: the runtime's).
    pub init: Option<Init>,
}

impl Default for RunOpts {
    fn default() -> RunOpts {
        RunOpts { threads: 1, cutoff: None, strategy: Strategy::default(), budget: None, init: None }
    }
}

/// The summary of an N-Queens answer: `92 solutions`.
pub fn nqueens_summary(solutions: u64) -> String {
    format!("{solutions} solutions")
}

impl From<UtsResult> for Answer {
    fn from(r: UtsResult) -> Answer {
        Answer { nodes: r.nodes, summary: uts_summary(r.nodes, r.leaves, r.max_depth) }
    }
}

impl From<NQueensResult> for Answer {
    fn from(r: NQueensResult) -> Answer {
        Answer { nodes: r.nodes, summary: nqueens_summary(r.solutions) }
    }
}

impl Answer {
    /// The answer of the C reference, from its counts.
    pub fn uts(nodes: u64, leaves: u64, depth: u64) -> Answer {
        Answer { nodes, summary: uts_summary(nodes, leaves, depth) }
    }
}

/// How a tree is run. Every engine runs the same `Search::expand`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Engine {
    /// `treelb::seq::run_search`: a DFS loop, no runtime.
    Seq,
    /// `treelb_threads::run` on `DfsWork` (random polling, default Δt).
    Treelb,
    /// `rayon::join` at every node ([`Cutoff::None`]).
    RayonJoin,
    /// `rayon::join` above the cutoff depth, sequential below.
    RayonCutoff,
    /// chili's `Scope::join` at every node.
    ChiliJoin,
    /// chili's `Scope::join` above the cutoff depth, sequential below.
    ChiliCutoff,
    /// The C reference `uts-seq` (UTS only), run as its own program.
    UtsC,
}

impl Engine {
    /// Every engine, in table order.
    pub const ALL: [Engine; 7] = [
        Engine::Seq,
        Engine::UtsC,
        Engine::Treelb,
        Engine::RayonJoin,
        Engine::RayonCutoff,
        Engine::ChiliJoin,
        Engine::ChiliCutoff,
    ];

    /// The engine's name on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Seq => "seq",
            Engine::Treelb => "treelb",
            Engine::RayonJoin => "rayon-join",
            Engine::RayonCutoff => "rayon-cutoff",
            Engine::ChiliJoin => "chili-join",
            Engine::ChiliCutoff => "chili-cutoff",
            Engine::UtsC => "uts-c",
        }
    }

    /// Whether this is one of rayon's variants.
    pub fn is_rayon(self) -> bool {
        matches!(self, Engine::RayonJoin | Engine::RayonCutoff)
    }

    /// Whether this is one of chili's variants.
    pub fn is_chili(self) -> bool {
        matches!(self, Engine::ChiliJoin | Engine::ChiliCutoff)
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Engine {
    type Err = String;

    fn from_str(s: &str) -> Result<Engine, String> {
        Engine::ALL.into_iter().find(|e| e.name() == s).ok_or_else(|| {
            let names: Vec<_> = Engine::ALL.iter().map(|e| e.name()).collect();
            format!("unknown engine `{s}` (expected one of {})", names.join(", "))
        })
    }
}

/// Runs `search` once on `engine`; the time covers the traversal only
/// (rayon's and chili's pools are built before the clock starts; treelb
/// starts its PE threads inside `run`, so its time includes that).
fn run_engine<S>(
    search: &S,
    engine: Engine,
    config: &treelb_threads::Config,
    cutoff: Cutoff,
) -> Result<(Duration, S::Output, Option<Traffic>), String>
where
    S: Search,
    S::Node: Clone + Sync,
{
    let threads = config.threads;
    match engine {
        Engine::Seq => {
            let (time, output) = timed(|| seq::run_search(search).0);
            Ok((time, output, None))
        }
        Engine::Treelb => {
            let start = Instant::now();
            let outcome = treelb_threads::run(DfsWork::new(search, SplitPolicy::default()), config)
                .map_err(|e| e.to_string())?;
            Ok((start.elapsed(), outcome.output, Some(Traffic::from(&outcome.stats))))
        }
        Engine::RayonJoin | Engine::RayonCutoff => {
            let cutoff = if engine == Engine::RayonJoin { Cutoff::None } else { cutoff };
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .stack_size(STACK_BYTES)
                .build()
                .map_err(|e| e.to_string())?;
            let (time, output) = pool.install(|| timed(|| forkjoin::rayon_search(search, cutoff)));
            Ok((time, output, None))
        }
        Engine::ChiliJoin | Engine::ChiliCutoff => {
            let cutoff = if engine == Engine::ChiliJoin { Cutoff::None } else { cutoff };
            let thread_count = Some(NonZero::new(threads).ok_or("threads must be at least 1")?);
            // chili runs the root of the join tree on the thread that opens
            // the scope: give it the same large stack as the workers.
            std::thread::scope(|s| {
                std::thread::Builder::new()
                    .stack_size(STACK_BYTES)
                    .spawn_scoped(s, || {
                        let pool = chili::ThreadPool::with_config(chili::Config {
                            thread_count,
                            ..chili::Config::default()
                        });
                        let mut scope = pool.scope();
                        timed(|| forkjoin::chili_search(&mut scope, search, cutoff))
                    })
                    .map_err(|e| e.to_string())?
                    .join()
                    .map_err(|_| "the chili traversal panicked".to_owned())
            })
            .map(|(time, output)| (time, output, None))
        }
        Engine::UtsC => Err("the C reference runs as its own program, not in process".to_owned()),
    }
}

fn timed<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let start = Instant::now();
    let value = f();
    (start.elapsed(), value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workloads_print_as_they_parse() {
        for spec in
            ["T1", "nqueens:8", "clique:keller4", "knapsack:strongly-correlated:20:100:3", "tsp:att48"]
        {
            let w: Workload = spec.parse().unwrap();
            assert_eq!(w.to_string(), spec);
            assert_eq!(w.fixed_tree(), spec == "T1" || spec == "nqueens:8");
        }
    }

    #[test]
    fn bad_branch_and_bound_workloads_say_what_is_wrong() {
        let err = "clique:no-such-graph".parse::<Workload>().unwrap_err();
        assert!(err.contains("no file") && err.contains("no-such-graph.clq"), "{err}");
        for bad in [
            "knapsack:strong:20:100",
            "knapsack:heavy:20:100:3",
            "knapsack:strong:x:100:3",
            "knapsack:strong:20:0:3",
        ] {
            let err = bad.parse::<Workload>().unwrap_err();
            assert!(err.contains("expected CLASS:N:R:SEED"), "{bad}: {err}");
        }
    }

    #[test]
    fn every_engine_finds_the_same_optimum() {
        let knapsack: Workload = "knapsack:strongly-correlated:24:100:5".parse().unwrap();
        let clique: Workload = "clique:keller4".parse().unwrap();
        for w in [knapsack, clique] {
            let (_, seq) = w.run(Engine::Seq, &RunOpts::default()).unwrap();
            let opts = RunOpts { threads: 2, cutoff: Some(3), ..RunOpts::default() };
            for engine in [Engine::Treelb, Engine::RayonJoin, Engine::RayonCutoff, Engine::ChiliJoin] {
                let (_, answer) = w.run(engine, &opts).unwrap();
                assert_eq!(answer.summary, seq.summary, "{w} on {engine}");
            }
        }
        let keller4 = "clique:keller4".parse::<Workload>().unwrap();
        let (_, omega) = keller4.run(Engine::Seq, &RunOpts::default()).unwrap();
        assert_eq!(omega.summary, "optimum 11");
        assert_eq!(keller4.expected().as_deref(), Some("optimum 11"));
    }

    #[test]
    fn tsp_workloads_and_published_tours() {
        let w: Workload = "tsp:ulysses16".parse().unwrap();
        assert_eq!(w.expected().as_deref(), Some("optimum 6859"));
        let (_, answer) = w.run(Engine::Treelb, &RunOpts { threads: 2, ..RunOpts::default() }).unwrap();
        assert_eq!(answer.summary, "optimum 6859");
        for spec in ["tsp:att48/unseeded", "tsp:random:12:3"] {
            assert_eq!(spec.parse::<Workload>().unwrap().to_string(), spec);
        }
        assert_eq!(published_optimum("kroA200.tsp"), Some(29_368));
        assert_eq!(published_optimum("MANN_a27.clq"), Some(126));
        assert_eq!(published_optimum("no-such.tsp"), None);
        let m: Workload = "mandelbrot:pixels:40x30".parse().unwrap();
        assert_eq!(m.to_string(), "mandelbrot:pixels:40x30");
        let (_, seq) = m.run(Engine::Seq, &RunOpts::default()).unwrap();
        let (_, par) = m.run(Engine::Treelb, &RunOpts { threads: 2, ..RunOpts::default() }).unwrap();
        assert_eq!(seq, par);
        assert_eq!(seq.nodes, 1200);
        assert!(
            m.run(Engine::RayonJoin, &RunOpts::default()).unwrap_err().contains("not the Mandelbrot set")
        );
        assert!("mandelbrot:9".parse::<Workload>().unwrap_err().contains("`9` is neither a method"));
        assert!("mandelbrot:0x10".parse::<Workload>().unwrap_err().contains("pixel"));
        let c4: Workload = "connect4:moves30:5".parse().unwrap();
        assert_eq!(c4.to_string(), "connect4:moves30:5");
        let (_, answer) = c4.run(Engine::Seq, &RunOpts::default()).unwrap();
        assert_eq!(Some(answer.summary), c4.expected());
        assert!(!c4.runs_on(Engine::Treelb));
        assert_eq!(c4.connect4_positions().unwrap().lines().count(), 5);
        assert!("connect4:moves30:0".parse::<Workload>().unwrap_err().contains("not a positive integer"));
        assert!("connect4:moves30:100000".parse::<Workload>().unwrap_err().contains("the set has 1000"));
        let err = "tsp:random:2:1".parse::<Workload>().unwrap_err();
        assert!(err.contains("expected random:N:SEED"), "{err}");
    }
}
