//! The command line as clap parses it; `config` turns it into checked values.

use clap::{Args, Parser, Subcommand};

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
    Uts(Box<UtsArgs>),
    /// Count the solutions of the N-Queens problem on an N×N board.
    Nqueens(NqueensArgs),
    /// Time the sequential baseline, treelb at P = 1 and at P = all cores.
    Bench(BenchArgs),
    /// Run every strategy on one workload and compare them side by side.
    Compare(crate::cmd::compare::CompareArgs),
    /// Simulate load balancing on a discrete-event model of P PEs, or
    /// reproduce the seeds' figures.
    Sim(Box<crate::cmd::sim::SimArgs>),
    /// Maximum clique of a DIMACS graph (or, with --k, is there a K-clique?).
    ///
    /// Branch and bound with bitset colouring bounds; prints ω and a maximum
    /// clique (1-based, verified). With --k K, stops every PE at the first
    /// clique of K vertices.
    Clique(CliqueArgs),
    /// Connect Four solved exactly: score (Pons's convention), best move, nodes.
    Connect4(crate::cmd::connect4::Connect4Args),
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
    /// coloured by state. PNG or SVG by the file's extension.
    PlotTrace(PlotTraceArgs),
    /// Continue a run from its checkpoint (--checkpoint FILE).
    ///
    /// The checkpoint holds the command line of the run; the resumed run
    /// gives exactly the answer of an uninterrupted one, with any number of
    /// threads (--threads) or MPI ranks (run it under mpirun), and keeps
    /// checkpointing to FILE.
    Resume(crate::cmd::resume::ResumeArgs),
}

/// How to run: the options every application takes.
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// Number of PEs (worker threads) [default: all cores]
    #[arg(short = 'p', long, value_name = "P")]
    pub(crate) threads: Option<String>,
    /// threads (the PEs are threads of this process) or mpi (the PEs are the
    /// ranks that mpirun starts, times --threads per rank [default 1]; needs
    /// a build with the `mpi` feature)
    #[arg(long, value_name = "RUNTIME", default_value = "threads")]
    pub(crate) runtime: String,
    /// Δt: units of work (nodes) between two checks for requests
    #[arg(long, value_name = "UNITS", default_value_t = treelb_threads::DEFAULT_BUDGET.to_string())]
    pub(crate) budget: String,
    /// Which open nodes a split gives away: half-each-level, oldest-half or
    /// bottom [default: half-each-level]
    #[arg(long, value_name = "POLICY")]
    pub(crate) split_policy: Option<String>,
    /// How the root reaches the PEs: root (PE 0 starts) or selective
    #[arg(long, value_name = "INIT", default_value = "root")]
    pub(crate) init: String,
    /// Balancing strategy: random-polling, global-round-robin,
    /// async-round-robin, work-sharing, extreme-work-sharing, two-choice,
    /// always-go-left, max-load, multilevel, master-worker, static-block,
    /// static-cyclic or static-random (the README's table says what each
    /// does)
    #[arg(long, value_name = "NAME", default_value = "random-polling")]
    pub(crate) strategy: String,
    /// multilevel: fan-out of each level of the producer tree, root first,
    /// e.g. 4,2 [default: Kimura and Ichiyoshi's Theorem 4]
    #[arg(long, value_name = "D,D,…")]
    pub(crate) fanout: Option<String>,
    /// max-load: ratio ρ of lazy load reports (a PE reports when ⌈log_ρ L⌉
    /// grows), 1 < ρ < 1.5
    #[arg(long, value_name = "RHO", default_value = "1.4")]
    pub(crate) rho: String,
    /// Seed of the PEs' random choices
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<String>,
    /// Pin PE i to the i-th core (threads runtime; off by default)
    #[arg(long)]
    pub(crate) pin: bool,
    /// Print the report as JSON on stdout instead of tables
    #[arg(long)]
    pub(crate) json: bool,
    /// Never show a progress indicator
    #[arg(long)]
    pub(crate) no_progress: bool,
    /// Stop after about N units of work (nodes; intervals for integrate,
    /// iterations for mandelbrot) with a partial report marked interrupted
    /// and exit code 3; with --runtime mpi each rank stops after its share
    /// N/ranks. Also lifts the UTS limit on the expected tree size
    #[arg(long, value_name = "N")]
    pub(crate) max_nodes: Option<String>,
    /// Stop after DURATION of wall time (e.g. 90s, 5m, 1h30m, 250ms) with a
    /// partial report marked interrupted and exit code 3; with --runtime mpi
    /// every rank stops at the same time and rank 0 reports
    #[arg(long, value_name = "DURATION")]
    pub(crate) time_limit: Option<String>,
    /// Branch and bound (clique, knapsack, tsp): the same optimal solution
    /// for every P, strategy and runtime (of equal values, the smallest
    /// witness wins); explores the ties, so it costs nodes
    #[arg(long)]
    pub(crate) deterministic: bool,
    /// Record when each PE was working, requesting, idle, splitting or
    /// sending, into FILE (CSV, one line per interval; draw it with `treelb
    /// plot-trace FILE`)
    #[arg(long, value_name = "FILE")]
    pub(crate) trace: Option<String>,
    #[command(flatten)]
    pub(crate) checkpoint: crate::checkpoint::CheckpointArgs,
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
    #[arg(value_name = "N")]
    pub(crate) n: String,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

/// `treelb bench`
#[derive(Debug, Args)]
pub(crate) struct BenchArgs {
    /// Workloads to time, comma-separated: UTS sample trees and nqueens:N
    #[arg(long, value_name = "LIST", default_value = "T1,T3,nqueens:14")]
    pub(crate) workloads: String,
    /// Runs per measurement; the fastest is reported
    #[arg(long, value_name = "N", default_value = "3")]
    pub(crate) repeat: String,
    /// PEs of the parallel measurement [default: all cores]
    #[arg(short = 'p', long, value_name = "P")]
    pub(crate) threads: Option<String>,
    /// Δt: units of work between two checks for requests
    #[arg(long, value_name = "UNITS", default_value_t = treelb_threads::DEFAULT_BUDGET.to_string())]
    pub(crate) budget: String,
    /// Print the results as JSON on stdout instead of a table
    #[arg(long)]
    pub(crate) json: bool,
}

/// `treelb clique`
#[derive(Debug, Args)]
pub(crate) struct CliqueArgs {
    /// A graph in DIMACS format (`p edge N M` or `p col N M`, then `e U V`)
    #[arg(value_name = "FILE")]
    pub(crate) file: String,
    /// Decide whether a clique of K vertices exists, instead of maximising
    #[arg(long, value_name = "K")]
    pub(crate) k: Option<String>,
    /// Check ω against this value: exit code 1 if it differs
    #[arg(long, value_name = "OMEGA")]
    pub(crate) expect: Option<String>,
    /// Start with no incumbent (no greedy clique first)
    #[arg(long)]
    pub(crate) no_heuristic: bool,
    /// Also run the same search sequentially and report its time and nodes
    #[arg(long)]
    pub(crate) compare_seq: bool,
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
    #[arg(long, value_name = "CLASS", default_value = "strongly-correlated")]
    pub(crate) class: String,
    /// Number of items of the generated instance
    #[arg(short = 'n', long = "items", value_name = "N", default_value = "80")]
    pub(crate) n: String,
    /// Weights (and profits) are drawn from 1..=R
    #[arg(long, value_name = "R", default_value = "1000")]
    pub(crate) range: String,
    /// Seed of the generated instance (--seed is the PEs')
    #[arg(long, value_name = "N", default_value = "2")]
    pub(crate) instance_seed: String,
    /// Capacity h/(H+1) of the total weight: instance h of a series of H
    #[arg(long, value_name = "h", default_value = "1")]
    pub(crate) h: String,
    /// H of the capacity rule
    #[arg(long, value_name = "H", default_value = "1")]
    pub(crate) series: String,
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
pub(crate) struct TspArgs {
    /// A TSPLIB file (TYPE: TSP; EUC_2D, GEO, ATT, EXPLICIT matrices, …)
    #[arg(value_name = "FILE", required_unless_present = "random")]
    pub(crate) file: Option<String>,
    /// Instead of a file: N random points in [0, 1000]² (EUC_2D)
    #[arg(long, value_name = "N", conflicts_with = "file")]
    pub(crate) random: Option<String>,
    /// Seed of the random points (--seed is the PEs')
    #[arg(long, value_name = "N", default_value = "1")]
    pub(crate) instance_seed: String,
    /// Check the length against this value: exit code 1 if it differs
    #[arg(long, value_name = "LENGTH")]
    pub(crate) expect: Option<String>,
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
pub(crate) struct IntegrateArgs {
    /// A test integrand by name: sqrt, inv-sqrt, log, sin-recip, ... (see --list)
    #[arg(value_name = "NAME", required_unless_present = "list")]
    pub(crate) integrand: Option<String>,
    /// List the test integrands and exit
    #[arg(long)]
    pub(crate) list: bool,
    /// Absolute tolerance: the sum of the accepted intervals' error estimates
    #[arg(long, value_name = "TOL", default_value = "1e-10")]
    pub(crate) tol: String,
    /// Bisections of the whole interval after which an interval is accepted
    #[arg(long, value_name = "DEPTH", default_value_t = treelb_apps::integrate::DEFAULT_MAX_DEPTH.to_string())]
    pub(crate) max_depth: String,
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
    #[arg(long, value_name = "W", default_value = "640")]
    pub(crate) width: String,
    /// Pixels down
    #[arg(long, value_name = "H", default_value = "640")]
    pub(crate) height: String,
    /// Most iterations per pixel; a pixel that does not escape is in the set
    #[arg(long, value_name = "N", default_value = "1000")]
    pub(crate) max_iter: String,
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
    #[arg(long, value_name = "METHOD", default_value = "pixels")]
    pub(crate) method: String,
    /// Subdivide: rectangles of at most this many pixels are computed
    /// pixel by pixel
    #[arg(long, value_name = "PIXELS", default_value_t = treelb_apps::mandelbrot::DEFAULT_MIN_AREA.to_string())]
    pub(crate) min_area: String,
    /// Subdivide: start from a grid of N × N rectangles instead of the whole
    /// view, so that the root splits at once (static assignment)
    #[arg(long, value_name = "N", default_value = "1")]
    pub(crate) tiles: String,
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
    /// Time spans of the utilization plot
    #[arg(long, value_name = "N", default_value = "200")]
    pub(crate) buckets: String,
    /// Print the summary as JSON on stdout instead of a table
    #[arg(long)]
    pub(crate) json: bool,
}
