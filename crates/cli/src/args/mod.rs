//! The command line as clap parses it; `config` turns it into checked values.

use clap::{Args, CommandFactory, Parser, Subcommand};
use treelb::Init;
use treelb_apps::knapsack::Class;
use treelb_apps::mandelbrot::Method;

pub(crate) use crate::apps::Runtime;

mod game;
mod run;
mod sim;

pub(crate) use game::{Connect4Args, GameTreeArgs, SearchArgs};
pub(crate) use run::{
    BudgetArg, CheckpointArgs, ClassArg, FeedbackArgs, InitArg, MethodArg, RunArgs, heading, parse,
};
pub(crate) use sim::{
    CalibrateArgs, FreezeArgs, MeasureArgs, PingPongArgs, PredictArgs, ReplayArgs, ReproduceArgs, SimArgs,
    SimCommand, SimRunArgs, YbwcArgs,
};

/// Dynamic load balancing of tree-shaped computations.
///
/// Runs an application on P worker threads under a balancing strategy and
/// reports the answer, the time and what every processing element (PE) did.
#[derive(Debug, Parser)]
#[command(name = "treelb", version, about, max_term_width = 100)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Count the nodes of an Unbalanced Tree Search (UTS) tree.
    ///
    /// Either a sample tree by name (--tree T1; the default) or the reference
    /// code's parameters (-t -b -r -m -q -a -d -f -g).
    // `-q` is the reference code's q here: `--quiet` keeps only its long name.
    #[command(mut_arg("quiet", |a| a.short(None)))]
    Uts(Box<UtsArgs>),
    /// Count the solutions of the N-Queens problem on an N×N board.
    Nqueens(NqueensArgs),
    /// Time the sequential baseline, treelb at P = 1 and at P = all cores.
    Bench(BenchArgs),
    /// Run every strategy on one workload and compare them side by side.
    Compare(CompareArgs),
    /// Simulate load balancing on a discrete-event model of P PEs, or
    /// reproduce the seeds' figures.
    Sim(Box<SimArgs>),
    /// Maximum clique of a DIMACS graph (or, with --k, is there a K-clique?).
    ///
    /// Branch and bound with bitset colouring bounds; prints ω and a maximum
    /// clique (1-based, verified). With --k K, stops every PE at the first
    /// clique of K vertices.
    Clique(CliqueArgs),
    /// Connect Four solved exactly: score (Pons's convention), best move, nodes.
    Connect4(Connect4Args),
    /// A synthetic game tree solved by parallel alpha-beta: its value, nodes
    /// and aborted nodes (--check: beside the sequential value).
    Gametree(GameTreeArgs),
    /// 0/1 knapsack: a generated instance (Pisinger's classes) or a file.
    ///
    /// Branch and bound with the Dantzig bound, items sorted by ratio;
    /// prints the optimum and the packing; --dp checks it by dynamic
    /// programming.
    Knapsack(KnapsackArgs),
    /// Shortest tour of a symmetric TSPLIB instance (or of random points).
    ///
    /// Branch and bound with Held–Karp 1-tree bounds; prints the optimal
    /// length and a tour (1-based, verified). A node is a subgradient ascent,
    /// so Δt defaults to 1 node here.
    Tsp(TspArgs),
    /// Adaptive Gauss–Kronrod integration of a test integrand (see --list).
    ///
    /// A piece of work is a list of intervals; a split gives away the oldest,
    /// widest half. Prints the value, the error estimate and the closed form.
    Integrate(IntegrateArgs),
    /// The Mandelbrot set by escape time over a view of the complex plane.
    ///
    /// Pixel by pixel, or by rectangle subdivision (a rectangle whose
    /// boundary is in the set is filled without computing it); a unit of
    /// work is one iteration. Writes PNGs coloured by escape time and by
    /// the PE that made each pixel.
    Mandelbrot(MandelbrotArgs),
    /// Draw a trace written by `--trace`: PE utilization over time and a
    /// timeline of every PE's states.
    ///
    /// Prints the share of PE-time in each state; --out draws the fraction
    /// of PEs in each state over time (stacked), --timeline one row per PE
    /// coloured by state. PNG or SVG by the file's extension. --chrome
    /// writes Chrome trace-event JSON for Perfetto (ui.perfetto.dev).
    PlotTrace(PlotTraceArgs),
    /// Continue a run from its checkpoint (--checkpoint FILE).
    ///
    /// The checkpoint holds the command line of the run; the resumed run
    /// gives exactly the answer of an uninterrupted one, with any number of
    /// threads (--threads) or MPI ranks (run it under mpirun), and keeps
    /// checkpointing to FILE.
    Resume(ResumeArgs),
    /// Write a shell completion script to stdout.
    ///
    /// bash: `treelb completions bash > ~/.local/share/bash-completion/completions/treelb`;
    /// zsh: into a directory of `$fpath` as `_treelb`; fish:
    /// `~/.config/fish/completions/treelb.fish`.
    Completions(CompletionsArgs),
}

/// The command line's model: clap's from the types below, with each
/// application's runtime options made its own from [`crate::apps::APPS`]:
/// its defaults and unit of work in the help of `--budget`,
/// `--split-policy` and `--max-nodes`, and the options it refuses hidden.
pub(crate) fn command() -> clap::Command {
    let mut command = Cli::command();
    for app in &crate::apps::APPS {
        command = command.mut_subcommand(app.name, |sub| for_app(sub, app));
    }
    // The other commands that take --budget, and their defaults.
    let runtime = treelb::spec::Budget::DEFAULT;
    let tsp = treelb_apps::tsp::BUDGET;
    for (name, what) in [("bench", "Δt of treelb's runs"), ("compare", "Δt of the runs")] {
        let help = format!("{what}, at least 1 [default: {runtime}; {tsp} on the TSP, as `treelb tsp`]");
        command = command.mut_subcommand(name, |sub| sub.mut_arg("budget", |a| a.help(help)));
    }
    let sim_run = format!(
        "Δt: units of work between probes (as in runs of the runtimes; one unit takes 1 tick of abstract \
         work, --node-cost ticks of a tree), at least 1 [default: {}]",
        treelb_sim::engine::REFERENCE_BUDGET
    );
    let sim_ybwc =
        format!("Δt: positions between probes (the model and the threads runtime) [default: {runtime}]");
    command = command.mut_subcommand("sim", |sim| {
        sim.mut_subcommand("run", |sub| sub.mut_arg("budget", |a| a.help(sim_run)))
            .mut_subcommand("ybwc", |sub| sub.mut_arg("budget", |a| a.help(sim_ybwc)))
    });
    command
}

/// The runtime's options of `sub` as application `app` takes them.
fn for_app(mut sub: clap::Command, app: &crate::apps::App) -> clap::Command {
    let unit = app.unit;
    let budget = format!(
        "Δt: units of work ({unit}) between two checks for requests, at least 1 [default: {}]",
        app.budget()
    );
    let split = format!("Which open nodes a split gives away [default: {}]", app.split_policy());
    let note = if app.max_nodes_note.is_empty() { String::new() } else { format!(" {}", app.max_nodes_note) };
    let max_nodes = format!(
        "Stop after about N units of work ({unit}) with a partial report marked interrupted and exit code 3; \
         with --runtime mpi each rank stops after its share N/ranks. An integer or a whole number in \
         scientific notation (1e6).{note}"
    );
    sub = sub
        .mut_arg("budget", |a| a.help(budget))
        .mut_arg("split_policy", |a| a.help(split))
        .mut_arg("max_nodes", |a| a.help(max_nodes));
    for (id, _) in app.refused {
        sub = sub.mut_arg(*id, |a| a.hide(true));
    }
    sub
}

/// `treelb uts`
#[derive(Debug, Args)]
pub(crate) struct UtsArgs {
    /// A sample tree: T1, T2, T3, T4, T5, T1L, T3L, ... (see --list)
    #[arg(long, value_name = "NAME", conflicts_with_all = ["t", "b", "r", "m", "q", "a", "d", "f", "g"])]
    pub(crate) tree: Option<String>,
    /// List the sample trees and exit
    #[arg(long)]
    pub(crate) list: bool,
    /// Tree type: 0 binomial, 1 geometric, 2 hybrid, 3 balanced
    #[arg(short = 't', value_name = "TYPE")]
    pub(crate) t: Option<String>,
    /// Branching factor of the root
    #[arg(short = 'b', value_name = "B0")]
    pub(crate) b: Option<String>,
    /// Seed of the root's random state
    #[arg(short = 'r', value_name = "SEED")]
    pub(crate) r: Option<String>,
    /// Binomial: children of a non-leaf
    #[arg(short = 'm', value_name = "M")]
    pub(crate) m: Option<String>,
    /// Binomial: probability of a non-leaf
    #[arg(short = 'q', value_name = "Q")]
    pub(crate) q: Option<String>,
    /// Geometric shape: 0 linear, 1 exponential, 2 cyclic, 3 fixed
    #[arg(short = 'a', value_name = "SHAPE")]
    pub(crate) a: Option<String>,
    /// Geometric/balanced: depth parameter
    #[arg(short = 'd', value_name = "DEPTH")]
    pub(crate) d: Option<String>,
    /// Hybrid: fraction of the depth where geometric turns binomial
    #[arg(short = 'f', value_name = "FRACTION")]
    pub(crate) f: Option<String>,
    /// Compute granularity: SHA-1 evaluations per child
    #[arg(short = 'g', value_name = "G")]
    pub(crate) g: Option<String>,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

impl UtsArgs {
    /// The reference-code flags given, as `["-t", "1", ...]`.
    pub(crate) fn reference_flags(&self) -> Vec<String> {
        let flags = [
            ("-t", &self.t),
            ("-b", &self.b),
            ("-r", &self.r),
            ("-m", &self.m),
            ("-q", &self.q),
            ("-a", &self.a),
            ("-d", &self.d),
            ("-f", &self.f),
            ("-g", &self.g),
        ];
        flags
            .into_iter()
            .filter_map(|(flag, value)| value.as_ref().map(|v| [flag.to_owned(), v.clone()]))
            .flatten()
            .collect()
    }
}

/// `treelb nqueens`
#[derive(Debug, Args)]
pub(crate) struct NqueensArgs {
    /// Board size N (1 to 32)
    #[arg(value_name = "N", value_parser = clap::value_parser!(u32))]
    pub(crate) n: u32,
    /// Search half of the board's mirror symmetry and count it twice (the
    /// counts are the whole tree's; about half the work)
    #[arg(long)]
    pub(crate) mirror: bool,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

/// `treelb bench`
#[derive(Debug, Args)]
pub(crate) struct BenchArgs {
    /// A named suite: quick (T1, T3, N-Queens 12), engines (UTS, N-Queens,
    /// a clique and a knapsack under every engine), bnb (clique, knapsack
    /// and TSP), clique (the DIMACS graphs that solve in seconds), tsp
    /// (TSPLIB, 76 to 150 cities) [default: quick]
    #[arg(value_name = "SUITE")]
    pub(crate) suite: Option<String>,
    /// Workloads, comma-separated, instead of the suite's: UTS sample trees
    /// (T1, T3L, …), nqueens:N, clique:NAME, knapsack:CLASS:N:R:SEED,
    /// tsp:NAME[/unseeded], tsp:random:N:SEED, connect4:SET[:N] or
    /// mandelbrot[:pixels|subdivide][:WxH]
    #[arg(long, value_name = "LIST")]
    pub(crate) workloads: Option<String>,
    /// Engines, comma-separated: seq, treelb, rayon-join, rayon-cutoff,
    /// chili-join, chili-cutoff [default: the suite's]
    #[arg(long, value_name = "LIST")]
    pub(crate) engines: Option<String>,
    /// treelb's strategies, comma-separated, or `all`: one row per
    /// strategy and P
    #[arg(long, value_name = "LIST", default_value = "random-polling")]
    pub(crate) strategies: String,
    /// treelb's numbers of PEs, comma-separated [default: the suite's, e.g.
    /// 1,C,2C,4C for C cores]
    #[arg(short = 'p', long, value_name = "LIST")]
    pub(crate) threads: Option<String>,
    /// Rounds: every runner once per round, the fastest counts
    #[arg(allow_negative_numbers = true, long, value_name = "N", default_value_t = 3, value_parser = parse::repeat)]
    pub(crate) repeat: usize,
    /// Time limit of one run: a run past it is killed and reported as a
    /// failure
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = parse::duration)]
    pub(crate) timeout: std::time::Duration,
    #[command(flatten)]
    pub(crate) budget: BudgetArg,
    /// How the root reaches treelb's PEs
    #[arg(long, value_name = "INIT", value_enum, default_value_t = InitArg(Init::Root))]
    pub(crate) init: InitArg,
    /// The depth above which the cutoff variants of rayon and chili fork
    /// [default: per workload]
    #[arg(long, value_name = "DEPTH")]
    pub(crate) cutoff_depth: Option<u32>,
    /// The UTS reference's `uts-seq` binary, run on the UTS trees
    #[arg(long, value_name = "PATH")]
    pub(crate) uts_seq: Option<std::path::PathBuf>,
    /// The UTS reference's sources (uts.c, uts.h, a depth-first driver,
    /// rng/): built with g++ and run on the UTS trees; also TREELB_UTS_C
    #[arg(long, value_name = "DIR")]
    pub(crate) uts_c: Option<std::path::PathBuf>,
    /// The Glasgow Subgraph Solver's `glasgow_clique_solver`, run on the
    /// clique workloads
    #[arg(long, value_name = "PATH")]
    pub(crate) glasgow: Option<std::path::PathBuf>,
    /// `cliquer`, run on the clique workloads
    #[arg(long, value_name = "PATH")]
    pub(crate) cliquer: Option<std::path::PathBuf>,
    /// NAME=PATH of an N-Queens counter run as `PATH N` on the nqueens
    /// workloads (repeatable)
    #[arg(long, value_name = "NAME=PATH")]
    pub(crate) nqueens_peer: Vec<String>,
    /// Pascal Pons's Connect Four solver `c4solver`, run on the connect4
    /// workloads (the positions on its standard input)
    #[arg(long, value_name = "PATH")]
    pub(crate) c4solver: Option<std::path::PathBuf>,
    /// Where to write results.json, results.md, command.txt and
    /// machine.txt [default: bench-results/DATE-MACHINE/ in the current
    /// directory]
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<std::path::PathBuf>,
    /// Write no files: print the report only
    #[arg(long, conflicts_with = "out")]
    pub(crate) no_write: bool,
    /// Print the report as JSON on stdout instead of Markdown
    #[arg(long)]
    pub(crate) json: bool,
    /// A line per run on stderr: on a terminal, or with --progress; never
    /// with --quiet
    #[command(flatten)]
    pub(crate) feedback: FeedbackArgs,

    /// Internal: run one measurement in this process and print its report
    /// (what each of the harness's child processes does)
    #[arg(long, hide = true, value_name = "ENGINE", requires = "workload")]
    pub(crate) one: Option<String>,
    /// Internal: the workload of `--one`
    #[arg(long, hide = true, value_name = "WORKLOAD")]
    pub(crate) workload: Option<String>,
    /// Internal: the strategy of `--one`
    #[arg(long, hide = true, value_name = "STRATEGY")]
    pub(crate) strategy: Option<String>,
}

/// `treelb clique`
#[derive(Debug, Args)]
pub(crate) struct CliqueArgs {
    /// A graph in DIMACS format (`p edge N M` or `p col N M`, then `e U V`)
    #[arg(value_name = "FILE")]
    pub(crate) file: String,
    /// Decide whether a clique of K vertices exists, instead of maximising
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32))]
    pub(crate) k: Option<u32>,
    /// Check ω against this value: exit code 1 if it differs
    #[arg(long, value_name = "OMEGA", value_parser = clap::value_parser!(i64))]
    pub(crate) expect: Option<i64>,
    /// Start with no incumbent (no greedy clique first)
    #[arg(long)]
    pub(crate) no_heuristic: bool,
    /// Prune the branching set by unit propagation over the colour classes
    /// too (MaxSAT reasoning): fewer nodes, each dearer. Max-resolution,
    /// on by default, implies it; this flag matters with --no-resolve
    #[arg(long)]
    pub(crate) propagate: bool,
    /// Max-resolution (implies --propagate): each inconsistent set of
    /// colour classes is transformed instead of frozen, so that its classes
    /// serve again. Default: on (graphs of more than 4096 vertices with an
    /// edge, searched by parts, take it only when asked)
    #[arg(long, conflicts_with = "no_resolve")]
    pub(crate) resolve: bool,
    /// No max-resolution, even where it is on by default
    #[arg(long)]
    pub(crate) no_resolve: bool,
    /// Filtering phase: a node colours its children's candidates before
    /// pushing them and leaves out those with nothing to branch on (the same
    /// tree without its leaves)
    #[arg(long)]
    pub(crate) filter: bool,
    /// Partite mode: a node whose colouring partitions its candidates into
    /// one class more than the incumbent leaves room for searches its
    /// subtree by arc consistency over the classes, branching on the
    /// smallest. Default: on where the graph is renumbered colour sorted
    /// (keller graphs), off elsewhere; off with --filter
    #[arg(long, conflicts_with_all = ["no_partite", "filter"])]
    pub(crate) partite: bool,
    /// No partite mode, even where it is on by default
    #[arg(long)]
    pub(crate) no_partite: bool,
    /// Split the root by parts: one child per vertex, searching the
    /// cliques whose other vertices all come before it in the search's
    /// numbering (the degeneracy order, or colour sorted), the lowest
    /// first. Default: on where the degrees are spread on a graph of
    /// density at least 0.4 (the p_hat-2 and p_hat-3 graphs), off elsewhere
    #[arg(long, conflicts_with = "no_root_parts")]
    pub(crate) root_parts: bool,
    /// No root split by parts, even where it is on by default
    #[arg(long)]
    pub(crate) no_root_parts: bool,
    /// Also run the same search sequentially and report its time and nodes
    #[arg(long)]
    pub(crate) compare_seq: bool,
    /// Also report the time of each phase: parsing, ordering, the bitset
    /// graph, the search and its greedy starts (always in --json)
    #[arg(long, short = 'v')]
    pub(crate) verbose: bool,
    /// Do not search: estimate the size of the search tree (nodes and
    /// sequential time, with their standard errors) from random
    /// root-to-leaf probes for DURATION, e.g. 30s (Knuth's estimator, on
    /// one thread). The tree is the one the greedy clique prunes; with --k
    /// ω+1, the tree of the proof that ω is optimal
    #[arg(long, value_name = "DURATION", value_parser = parse::duration)]
    pub(crate) estimate: Option<std::time::Duration>,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

/// `treelb knapsack`
#[derive(Debug, Args)]
pub(crate) struct KnapsackArgs {
    /// An instance: a line `N CAPACITY`, then N lines `PROFIT WEIGHT`
    /// [default: a generated instance]
    #[arg(value_name = "FILE")]
    pub(crate) file: Option<String>,
    /// Class of the generated instance: uncorrelated, weakly-correlated,
    /// strongly-correlated or subset-sum
    #[arg(long, value_name = "CLASS", value_enum, default_value_t = ClassArg(Class::StronglyCorrelated))]
    pub(crate) class: ClassArg,
    /// Number of items of the generated instance
    #[arg(short = 'n', long = "items", value_name = "N", default_value_t = 80, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=1 << 20))]
    pub(crate) n: usize,
    /// Weights (and profits) are drawn from 1..=R
    #[arg(long, value_name = "R", default_value_t = 1000, value_parser = clap::value_parser!(i64).range(1..=1 << 30))]
    pub(crate) range: i64,
    /// Seed of the generated instance (--seed is the PEs')
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub(crate) instance_seed: u64,
    /// Capacity h/(H+1) of the total weight: instance h of a series of H
    #[arg(long, value_name = "h", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) h: u32,
    /// H of the capacity rule
    #[arg(long, value_name = "H", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) series: u32,
    /// Check the optimum by dynamic programming (O(n × capacity))
    #[arg(long)]
    pub(crate) dp: bool,
    /// Also run the same search sequentially and report its time and nodes
    #[arg(long)]
    pub(crate) compare_seq: bool,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

/// `treelb tsp`
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("instance").required(true).args(["file", "random"])))]
pub(crate) struct TspArgs {
    /// A TSPLIB file (TYPE: TSP; EUC_2D, GEO, ATT, EXPLICIT matrices, …)
    #[arg(value_name = "FILE")]
    pub(crate) file: Option<String>,
    /// Instead of a file: N random points in [0, 1000]² (EUC_2D)
    #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=treelb_apps::tsp::tsplib::MAX_DIMENSION as u64), conflicts_with = "file")]
    pub(crate) random: Option<usize>,
    /// Seed of the random points (--seed is the PEs')
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub(crate) instance_seed: u64,
    /// Check the length against this value: exit code 1 if it differs
    #[arg(long, value_name = "LENGTH", value_parser = clap::value_parser!(i64))]
    pub(crate) expect: Option<i64>,
    /// Check the length with the Held–Karp dynamic program (n <= 20)
    #[arg(long)]
    pub(crate) dp: bool,
    /// Start with no incumbent (no initial tour)
    #[arg(long)]
    pub(crate) no_heuristic: bool,
    /// Also run the same search sequentially and report its time and nodes
    #[arg(long)]
    pub(crate) compare_seq: bool,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

/// `treelb integrate`
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["integrand", "list"])))]
pub(crate) struct IntegrateArgs {
    /// A test integrand by name: sqrt, inv-sqrt, log, sin-recip, ... (see --list)
    #[arg(value_name = "NAME")]
    pub(crate) integrand: Option<String>,
    /// List the test integrands and exit
    #[arg(long)]
    pub(crate) list: bool,
    /// Absolute tolerance: the sum of the accepted intervals' error estimates
    #[arg(long, value_name = "TOL", default_value = "1e-10")]
    pub(crate) tol: String,
    /// Bisections of the whole interval after which an interval is accepted
    #[arg(long, value_name = "DEPTH", default_value_t = treelb_apps::integrate::DEFAULT_MAX_DEPTH)]
    pub(crate) max_depth: u32,
    /// Also integrate sequentially and report the relative difference
    #[arg(long)]
    pub(crate) compare_seq: bool,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

/// `treelb mandelbrot`
#[derive(Debug, Args)]
pub(crate) struct MandelbrotArgs {
    /// Pixels across
    #[arg(allow_negative_numbers = true, long, value_name = "W", default_value_t = 640, value_parser = parse::dimension)]
    pub(crate) width: u32,
    /// Pixels down
    #[arg(allow_negative_numbers = true, long, value_name = "H", default_value_t = 640, value_parser = parse::dimension)]
    pub(crate) height: u32,
    /// Most iterations per pixel; a pixel that does not escape is in the set
    #[arg(allow_negative_numbers = true, long, value_name = "N", default_value_t = 1000, value_parser = parse::dimension)]
    pub(crate) max_iter: u32,
    /// Centre of the view [default: the standard view]
    #[arg(long, value_name = "RE,IM", allow_hyphen_values = true, conflicts_with = "view")]
    pub(crate) center: Option<String>,
    /// Width of the view along the real axis, around --center; the height
    /// follows from the pixels' aspect [default: 2.5]
    #[arg(long, value_name = "X", allow_hyphen_values = true, conflicts_with = "view")]
    pub(crate) extent: Option<String>,
    /// The view by its corners: real parts X0..X1, imaginary parts Y0..Y1
    /// [default: -2,0.5,-1.25,1.25]
    #[arg(long, value_name = "X0,X1,Y0,Y1", allow_hyphen_values = true)]
    pub(crate) view: Option<String>,
    /// pixels (every pixel by escape time) or subdivide (fill rectangles
    /// whose boundary is in the set)
    #[arg(long, value_name = "METHOD", value_enum, default_value_t = MethodArg(Method::Pixels))]
    pub(crate) method: MethodArg,
    /// Subdivide: rectangles of at most this many pixels are computed
    /// pixel by pixel
    #[arg(allow_negative_numbers = true, long, value_name = "PIXELS", default_value_t = treelb_apps::mandelbrot::DEFAULT_MIN_AREA, value_parser = parse::positive)]
    pub(crate) min_area: u64,
    /// Subdivide: start from a grid of N × N rectangles instead of the whole
    /// view, so that the root splits at once (static assignment)
    #[arg(allow_negative_numbers = true, long, value_name = "N", default_value_t = 1, value_parser = parse::dimension)]
    pub(crate) tiles: u32,
    /// Write the image, coloured by escape time (the set black), as PNG
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<String>,
    /// Write the image coloured by the PE that made each pixel (filled
    /// rectangles muted, the set darker), as PNG
    #[arg(long, value_name = "FILE")]
    pub(crate) pe_out: Option<String>,
    /// Also compute the image sequentially and report its time
    #[arg(long)]
    pub(crate) compare_seq: bool,
    /// Refuse images whose estimated memory (about 18 bytes a pixel, 24
    /// with MPI at rank 0) is above this many bytes; K, M, G, T suffixes
    /// (powers of 1024)
    #[arg(long, value_name = "BYTES", default_value = "2G")]
    pub(crate) max_memory: String,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

/// `treelb plot-trace`
#[derive(Debug, Args)]
pub(crate) struct PlotTraceArgs {
    /// A trace file written by `--trace`
    #[arg(value_name = "FILE")]
    pub(crate) file: String,
    /// Draw the PE utilization over time (stacked states) to this .png or .svg
    #[arg(long, value_name = "IMAGE")]
    pub(crate) out: Option<String>,
    /// Draw the per-PE timeline to this .png or .svg
    #[arg(long, value_name = "IMAGE")]
    pub(crate) timeline: Option<String>,
    /// Write one self-contained HTML page: the tables, and both plots
    /// inline as SVG
    #[arg(long, value_name = "FILE")]
    pub(crate) html: Option<String>,
    /// Write the trace as Chrome trace-event JSON, which Perfetto
    /// (ui.perfetto.dev) and chrome://tracing open: one track per PE, its
    /// states as slices, requests as instants, an arrow per piece that moved
    #[arg(long, value_name = "FILE")]
    pub(crate) chrome: Option<String>,
    /// Time spans of the utilization plot
    #[arg(allow_negative_numbers = true, long, value_name = "N", default_value_t = 200, value_parser = parse::positive)]
    pub(crate) buckets: u64,
    /// Print the summary as JSON on stdout instead of a table
    #[arg(long)]
    pub(crate) json: bool,
}

/// `treelb completions`
#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to write a completion script for
    #[arg(value_name = "SHELL", value_enum)]
    pub(crate) shell: clap_complete::Shell,
}

/// `treelb compare`
#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// The workload: a UTS sample tree (T1, T3, T1L, …), nqueens:N,
    /// clique:NAME, knapsack:CLASS:N:R:SEED, tsp:NAME, or
    /// `mandelbrot[:pixels|subdivide][:WxH]` (default subdivide, 1024x768)
    #[arg(value_name = "WORKLOAD")]
    pub(crate) workload: String,
    /// Strategies, comma-separated, or `all` (every strategy the threads
    /// runtime runs)
    #[arg(long, value_name = "LIST", default_value = "all")]
    pub(crate) strategies: String,
    /// Runs per strategy; the fastest is reported (under --runtime mpi, the
    /// median)
    #[arg(allow_negative_numbers = true, long, value_name = "N", default_value_t = 3, value_parser = crate::args::parse::repeat)]
    pub(crate) repeat: usize,
    /// Number of PEs [default: all cores]; with --runtime mpi, threads per
    /// rank [default: 1]
    #[arg(allow_negative_numbers = true, short = 'p', long, value_name = "P", value_parser = crate::args::parse::threads)]
    pub(crate) threads: Option<usize>,
    /// Where the PEs run: threads (this process) or mpi (the ranks mpirun
    /// started; needs the `mpi` feature)
    #[arg(long, value_name = "RUNTIME", value_enum, default_value_t = Runtime::Threads)]
    pub(crate) runtime: Runtime,
    #[command(flatten)]
    pub(crate) budget: crate::args::BudgetArg,
    /// How the root reaches the PEs
    #[arg(long, value_name = "INIT", value_enum, default_value_t = InitArg(Init::Root))]
    pub(crate) init: InitArg,
    /// Print the comparison as JSON on stdout instead of a table
    #[arg(long, conflicts_with = "markdown")]
    pub(crate) json: bool,
    /// Print the comparison as a markdown table (with its command line)
    #[arg(long)]
    pub(crate) markdown: bool,
    /// Time limit of one run (each in its own process): a run past it is
    /// killed and reported as a failure
    #[arg(long, value_name = "DURATION", default_value = "1h", value_parser = crate::args::parse::duration)]
    pub(crate) timeout: std::time::Duration,
    /// Also write the comparison as one self-contained HTML page (the table
    /// and a chart of the efficiencies, inline)
    #[arg(long, value_name = "FILE")]
    pub(crate) html: Option<String>,
}

/// `treelb resume`
#[derive(Debug, Args)]
pub(crate) struct ResumeArgs {
    /// The checkpoint a run wrote with --checkpoint FILE
    #[arg(value_name = "FILE")]
    pub(crate) file: String,
    /// Number of PEs for the rest of the run (threads; threads per rank
    /// with --runtime mpi) [default: the checkpointed run's]
    #[arg(short = 'p', long, value_name = "P")]
    pub(crate) threads: Option<String>,
    /// How often to checkpoint from now on [default: the checkpointed run's]
    #[arg(long, value_name = "DURATION")]
    pub(crate) checkpoint_every: Option<String>,
    /// Print the report as JSON on stdout instead of tables
    #[arg(long, help_heading = heading::OUTPUT)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) feedback: FeedbackArgs,
}

#[cfg(test)]
mod tests {
    /// No short flag means two things in one command: UTS's `-q` is
    /// its q, not `--quiet` (clap checks this only where debug
    /// assertions are on; this test checks it in every build).
    #[test]
    fn no_short_flag_is_defined_twice_in_a_command() {
        let command = crate::args::command();
        command.clone().debug_assert();
        let nested = command.get_subcommands().flat_map(|s| s.get_subcommands());
        for sub in command.get_subcommands().chain(nested) {
            let mut shorts: Vec<char> = sub.get_arguments().filter_map(|a| a.get_short()).collect();
            let n = shorts.len();
            shorts.sort_unstable();
            shorts.dedup();
            assert_eq!(shorts.len(), n, "`treelb {}` defines a short flag twice", sub.get_name());
        }
        let uts = command.find_subcommand("uts").unwrap();
        let q: Vec<_> =
            uts.get_arguments().filter(|a| a.get_short() == Some('q')).map(|a| a.get_id()).collect();
        assert_eq!(q, ["q"]);
        let nqueens = command.find_subcommand("nqueens").unwrap();
        assert!(nqueens.get_arguments().any(|a| a.get_short() == Some('q') && a.get_id() == "quiet"));
    }

    /// Each application's help names its own defaults and offers only
    /// the options it accepts.
    #[test]
    fn each_application_offers_its_own_options() {
        let command = crate::args::command();
        let help = |app: &str, id: &str| {
            let sub = command.find_subcommand(app).unwrap();
            let arg = sub.get_arguments().find(|a| a.get_id() == id).unwrap();
            (arg.get_help().unwrap().to_string(), arg.is_hide_set())
        };
        let default = treelb::spec::Budget::DEFAULT;
        assert!(
            help("uts", "budget").0.contains(&format!(
                "(nodes) between two checks for requests, at least 1 [default: {default}]"
            ))
        );
        assert!(help("tsp", "budget").0.ends_with("[default: 1]"), "{:?}", help("tsp", "budget"));
        assert!(help("integrate", "max_nodes").0.contains("(intervals)"));
        assert!(help("mandelbrot", "max_nodes").0.contains("(iterations)"));
        assert!(!help("uts", "max_nodes").0.contains("greedy"));
        assert!(help("clique", "max_nodes").0.contains("greedy"));
        for app in ["clique", "knapsack", "tsp"] {
            assert!(!help(app, "deterministic").1, "{app}");
        }
        for app in ["uts", "nqueens", "integrate", "mandelbrot", "connect4", "gametree"] {
            assert!(help(app, "deterministic").1, "{app}");
        }
        assert!(help("connect4", "time_limit").1 && help("connect4", "init").1);
        assert!(!help("uts", "time_limit").1 && !help("uts", "checkpoint").1);
        assert!(help("integrate", "checkpoint").1 && help("integrate", "split_policy").1);
    }
}
