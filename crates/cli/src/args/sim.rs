//! The arguments of `treelb sim` and its subcommands.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use treelb_sim::run::Options;

use super::run::{BudgetArg, InitArg, SplitPolicyArg, StrategyArg, parse};

/// The applications calibrated by default: two UTS sample trees, N-Queens
/// and a DIMACS clique instance (found as `clique_file` of `treelb sim calibrate` finds it).
pub(crate) const DEFAULT_APPS: &str = "uts:T1,uts:T3,nqueens:14,clique:brock200_1.clq";

/// `treelb sim`
#[derive(Debug, Args)]
pub(crate) struct SimArgs {
    #[command(subcommand)]
    pub(crate) command: SimCommand,
}

#[derive(Debug, Subcommand)]
pub(crate) enum SimCommand {
    /// Simulate one run and print what happened.
    Run(Box<SimRunArgs>),
    /// Run the reproductions of the seeds' results and write a report with plots.
    Reproduce(ReproduceArgs),
    /// Young brothers wait on synthetic game trees: the model beside the threads runtime.
    Ybwc(YbwcArgs),
    /// Measure on this machine the costs the simulator's model needs (JSON).
    Calibrate(CalibrateArgs),
    /// Predict real runs with the calibrated model and set them beside
    /// measured ones (Markdown).
    Predict(PredictArgs),
    /// Blind forecasts: simulate runs with a calibration and write the
    /// forecasts (JSON), to be committed before the runs (`sim measure`).
    Freeze(FreezeArgs),
    /// Run the cases of a forecast file on this machine and write the
    /// error figures and verdicts (Markdown and JSON).
    Measure(MeasureArgs),
    /// T_rout between MPI ranks 0 and 1 (run under `mpirun` by `treelb sim calibrate --mpi`).
    #[command(hide = true)]
    PingPong(PingPongArgs),
    /// Replay a `uts` run's --trace in the simulator, with the costs
    /// measured in the trace, and compare: T_par, per-PE busy time,
    /// requests, transfers, and the victims of the requests.
    Replay(ReplayArgs),
}

/// The defaults of `treelb sim run`: the library's ([`Options::default`]),
/// so that the command line and the library cannot disagree.
fn run_default() -> Options {
    Options::default()
}

/// `treelb sim run`
#[derive(Debug, Args)]
pub(crate) struct SimRunArgs {
    /// Balancing strategy (multilevel also runs Kimura and Ichiyoshi's model
    /// of i.i.d. subtasks: --workload iid:SIZES)
    #[arg(long, value_name = "NAME", value_enum, default_value_t = StrategyArg(run_default().strategy))]
    pub(crate) strategy: StrategyArg,
    /// How the root reaches the PEs
    #[arg(long, value_name = "INIT", value_enum, default_value_t = InitArg(run_default().init))]
    pub(crate) init: InitArg,
    /// Number of simulated PEs, 1 to 2^24
    #[arg(short = 'p', long, value_name = "P", default_value_t = run_default().pes,
          value_parser = clap::value_parser!(u32).range(1..=1 << 24))]
    pub(crate) pes: u32,
    /// Network: crossbar, fat-tree, torus-3d, torus-2d, ring
    #[arg(long, value_name = "NET", default_value_t = run_default().network)]
    pub(crate) network: String,
    /// Workload: alpha:A (split ratio A), alpha:LO..0.5 (uniform), uts:TREE
    /// (a UTS sample tree, e.g. uts:T1) or uts:"-t 1 -a 3 -d 10 -b 4 -r 19";
    /// with --strategy multilevel also the i.i.d. subtask model of [Kimura & Ichiyoshi 1992],
    /// iid:SIZES with SIZES deterministic, exponential or uniform
    /// [default: alpha:0.333]
    #[arg(long, value_name = "SPEC")]
    pub(crate) workload: Option<String>,
    /// Abstract and i.i.d. workloads: total work T_seq (t₁ of [Kimura & Ichiyoshi 1992]), in ticks
    #[arg(allow_negative_numbers = true, short = 'w', long, value_name = "TICKS", default_value_t = run_default().work, value_parser = parse::positive)]
    pub(crate) work: u64,
    /// Abstract workloads: T_atomic, the size below which a piece does not split
    #[arg(long, value_name = "TICKS", default_value_t = run_default().atomic)]
    pub(crate) atomic: u64,
    /// Abstract workloads: h, the generation from which a piece does not split
    #[arg(long, value_name = "H")]
    pub(crate) max_generation: Option<u32>,
    /// UTS: ticks per node expanded
    #[arg(allow_negative_numbers = true, long, value_name = "TICKS", default_value_t = run_default().node_cost, value_parser = parse::positive)]
    pub(crate) node_cost: u64,
    /// UTS: which open nodes a split gives away
    #[arg(long, value_name = "POLICY", value_enum, default_value_t = SplitPolicyArg(run_default().split_policy))]
    pub(crate) split_policy: SplitPolicyArg,
    /// Multilevel: fan-out of each level's producers, root first (e.g. 64,16;
    /// on i.i.d. subtasks the product is P) [default: the runtimes' tree; on
    /// i.i.d. subtasks --levels levels, the root's degree after Theorem 4 of
    /// [Kimura & Ichiyoshi 1992], the others even]
    #[arg(long, value_name = "F1,F2,...")]
    pub(crate) fanout: Option<String>,
    /// Multilevel on tree-shaped work: granularity control, the pieces a
    /// producer cuts per child (each level's pieces that many times its
    /// fan-out smaller than the level above's); 0: none, a child gets the
    /// part its producer's piece splits off
    #[arg(long, value_name = "PIECES", default_value_t = run_default().grain)]
    pub(crate) grain: u32,
    /// Multilevel on i.i.d. subtasks: the number of producer levels when
    /// --fanout is not given
    #[arg(allow_negative_numbers = true, long, value_name = "L", default_value_t = run_default().levels, value_parser = parse::positive)]
    pub(crate) levels: u64,
    /// Max-load: ρ of the lazy load reports, between 1 and 1.5 [default: 1.4].
    /// Multilevel on i.i.d. subtasks: granularity ρ per level (one value for
    /// all, or one per level), the grain of level i being ρ_i · (consumers
    /// below) · T_produce; `best` searches for the most efficient ρ on this
    /// run's seed (a few dozen runs of the tree)
    #[arg(long, value_name = "RHO", default_value_t = run_default().rho)]
    pub(crate) rho: String,
    /// Multilevel: 1/λ, ticks a producer spends making one piece [default: T_split]
    #[arg(long, value_name = "TICKS")]
    pub(crate) t_produce: Option<u64>,
    /// T_rout: ticks per message hop
    #[arg(long, value_name = "TICKS")]
    pub(crate) t_rout: Option<u64>,
    /// T_split: ticks a split costs
    #[arg(long, value_name = "TICKS")]
    pub(crate) t_split: Option<u64>,
    /// What a message costs its two ends: `send-receive` ([Sanders 1999] §1.1: the
    /// sender and the receiver each spend T_rout; termination needs up to
    /// two waves) or `latency` (optimistic: the message only travels)
    #[arg(long, value_name = "MODEL", default_value_t = run_default().overhead)]
    pub(crate) overhead: String,
    /// Ticks one word of a piece's message adds to its travel ([Sanders 1994]'s
    /// s(w) · t_word)
    #[arg(long, value_name = "TICKS")]
    pub(crate) t_word: Option<u64>,
    /// Words of a piece of w units: `constant` (1), `log` (⌈log₂ w⌉) or
    /// `power:B` (⌈w^B⌉, 0 ≤ B < 1)
    #[arg(long, value_name = "SIZE", default_value_t = run_default().message_size)]
    pub(crate) message_size: String,
    /// T_poll: ticks a probe of the message queue costs
    #[arg(long, value_name = "TICKS")]
    pub(crate) t_poll: Option<u64>,
    /// Cost model of messages, start-up and termination: `seeds` (the
    /// papers': T_rout per hop, --overhead, termination a constant
    /// 3⌈log₂ P⌉·T_rout) or `loggp` (overheads o_s and o_r charged to the
    /// PEs, latency L per hop, gap G per byte, one message at a time through
    /// a PE's interface; the broadcast of selective initialization and the
    /// termination waves are messages; unset parameters come from T_rout)
    #[arg(long, value_name = "MODEL", default_value_t = run_default().model)]
    pub(crate) model: String,
    /// LogGP: o_s, ticks the sender spends on a message
    #[arg(long, value_name = "TICKS", help_heading = "LogGP (--model loggp)")]
    pub(crate) o_send: Option<u64>,
    /// LogGP: o_r, ticks the receiver spends on a message
    #[arg(long, value_name = "TICKS", help_heading = "LogGP (--model loggp)")]
    pub(crate) o_recv: Option<u64>,
    /// LogGP: L, ticks per hop between nodes
    #[arg(long, value_name = "TICKS", help_heading = "LogGP (--model loggp)")]
    pub(crate) latency: Option<u64>,
    /// LogGP: G, ticks per byte at each network interface (a request has
    /// --header-bytes, a piece s(w) words more) [default: 0]
    #[arg(long, value_name = "TICKS", help_heading = "LogGP (--model loggp)")]
    pub(crate) gap: Option<f64>,
    /// LogGP: PEs per node (consecutive PEs); messages within a node cost
    /// --intra-latency and --intra-overhead [default: 1]
    #[arg(long, value_name = "N", help_heading = "LogGP (--model loggp)")]
    pub(crate) pes_per_node: Option<u32>,
    /// LogGP: L within a node, ticks [default: --latency]
    #[arg(long, value_name = "TICKS", help_heading = "LogGP (--model loggp)")]
    pub(crate) intra_latency: Option<u64>,
    /// LogGP: o_s and o_r within a node, ticks [default: --o-send, --o-recv]
    #[arg(long, value_name = "TICKS", help_heading = "LogGP (--model loggp)")]
    pub(crate) intra_overhead: Option<u64>,
    /// LogGP: bytes of a message without a piece [default: 16]
    #[arg(long, value_name = "BYTES", help_heading = "LogGP (--model loggp)")]
    pub(crate) header_bytes: Option<u64>,
    /// LogGP: bytes of one word of a piece (s(w) words, --message-size) [default: 8]
    #[arg(long, value_name = "BYTES", help_heading = "LogGP (--model loggp)")]
    pub(crate) word_bytes: Option<u64>,
    #[command(flatten)]
    pub(crate) budget: BudgetArg,
    /// Ticks the hub spends per message (global round robin's counter,
    /// max-load's heap, master–worker's central pool)
    #[arg(long, value_name = "TICKS")]
    pub(crate) t_counter: Option<u64>,
    /// Seed of the PEs' random choices
    #[arg(long, value_name = "N", default_value_t = run_default().seed)]
    pub(crate) seed: u64,
    /// Stop after this many events
    #[arg(allow_negative_numbers = true, long, value_name = "N", value_parser = parse::positive)]
    pub(crate) max_events: Option<u64>,
    /// Print the report as JSON on stdout
    #[arg(long)]
    pub(crate) json: bool,
    /// Include every PE's counters in the JSON
    #[arg(long)]
    pub(crate) per_pe: bool,
    /// Draw PE utilization over time to this file (.png or .svg)
    #[arg(long, value_name = "FILE")]
    pub(crate) plot: Option<PathBuf>,
}

/// `treelb sim reproduce`
#[derive(Debug, Args)]
pub(crate) struct ReproduceArgs {
    /// Where to write README.md, the plots and data.json
    #[arg(long, value_name = "DIR", default_value = "docs/reproductions")]
    pub(crate) out: PathBuf,
    /// Smaller sweeps (about a minute): the same headline verdicts; checks the smaller ranges cannot decide are marked undecided (?)
    #[arg(long)]
    pub(crate) quick: bool,
    /// Never show a progress bar
    #[arg(long)]
    pub(crate) no_progress: bool,
    /// Render the report and plots from the `data.json` of an earlier run
    /// instead of simulating (the report's text and verdicts are recomputed
    /// from its numbers)
    #[arg(long, value_name = "FILE", conflicts_with = "quick")]
    pub(crate) from_data: Option<PathBuf>,
}

/// `treelb sim ybwc`
#[derive(Debug, Args)]
pub(crate) struct YbwcArgs {
    /// Children of every inner position
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub(crate) branching: u32,
    /// Depth of the leaves
    #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u32).range(1..=40))]
    pub(crate) depth: u32,
    /// Probability that a position's children come best-first
    #[arg(long, default_value_t = 0.9)]
    pub(crate) ordering: f64,
    /// Trees (seeds 0, 1, …)
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub(crate) seeds: u64,
    /// Simulated PEs
    #[arg(short = 'p', long, value_name = "P,P,…", value_delimiter = ',', default_value = "2,4,8,16,64")]
    pub(crate) pes: Vec<u32>,
    /// PEs of the threads runtime on the same trees (none: model only)
    #[arg(long, value_name = "P,P,…", value_delimiter = ',', default_value = "2,4,8")]
    pub(crate) threads: Vec<usize>,
    /// Runs of each threads configuration (alternating with and without
    /// waiting); the fastest counts
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub(crate) repeat: u32,
    /// Ticks one position costs in the model (a message costs T_rout = 100)
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) node_ticks: u64,
    #[command(flatten)]
    pub(crate) budget: BudgetArg,
}

/// `treelb sim calibrate`
#[derive(Debug, Args)]
pub(crate) struct CalibrateArgs {
    /// Where to write the calibration (JSON)
    #[arg(long, value_name = "FILE", default_value = "docs/reproductions/calibration.json")]
    pub(crate) out: PathBuf,
    /// The applications: uts:TREE, nqueens:N, clique:FILE.clq (a path, or a file of the shared instances), kclique:K:FILE.clq (is there a K-clique?), separated by commas
    #[arg(long, value_name = "LIST", default_value = DEFAULT_APPS)]
    pub(crate) apps: String,
    /// The cores of the modelled machine [default: the cores this process may use]
    #[arg(long, value_name = "C", value_parser = clap::value_parser!(u32).range(1..=1 << 20))]
    pub(crate) cores: Option<u32>,
    /// The scheduler's time slice for processes (MPI ranks), in microseconds
    /// [default: Linux's base slice, 750 µs · (1 + ⌊log₂ C⌋)]
    #[arg(long, value_name = "MICROS")]
    pub(crate) quantum_us: Option<f64>,
    /// Repetitions of each timing; the fastest counts
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub(crate) repeat: u32,
    /// Also measure T_rout between two MPI ranks: a ping-pong under
    /// `mpirun` (needs a build with `--features mpi`)
    #[arg(long)]
    pub(crate) mpi: bool,
    /// With --mpi, also over TCP on the loopback interface (`mpirun --mca
    /// pml ob1 --mca btl tcp,self`), for forecasts of `mpi-tcp:` cases
    #[arg(long, requires = "mpi")]
    pub(crate) mpi_tcp: bool,
}

/// `treelb sim predict`
#[derive(Debug, Args)]
pub(crate) struct PredictArgs {
    /// The calibration `treelb sim calibrate` wrote
    #[arg(long, value_name = "FILE", default_value = "docs/reproductions/calibration.json")]
    pub(crate) calibration: PathBuf,
    /// Where to write the table (Markdown)
    #[arg(long, value_name = "FILE", default_value = "docs/reproductions/calibration.md")]
    pub(crate) out: PathBuf,
    /// PEs of the threads runtime, separated by commas
    #[arg(long, value_name = "LIST", default_value = "2,4,8")]
    pub(crate) pes: String,
    /// Ranks of the MPI runs (`mpirun --oversubscribe -np N`), separated by
    /// commas; `none` for no MPI runs [default: 2,4,8 if the calibration
    /// measured MPI, none otherwise]
    #[arg(long, value_name = "LIST")]
    pub(crate) ranks: Option<String>,
    /// Repetitions of each real run; the fastest counts
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub(crate) repeat: u32,
}

/// `treelb sim freeze`
#[derive(Debug, Args)]
pub(crate) struct FreezeArgs {
    /// The calibration whose costs the simulator uses (`treelb sim calibrate`)
    #[arg(long, value_name = "FILE")]
    pub(crate) calibration: PathBuf,
    /// The runs to forecast for every calibrated application, as
    /// `[mpi:|mpi-tcp:]PES:STRATEGIES` (`16:all`, `2,4,8:random-polling,max-load`, `mpi-tcp:16:all`);
    /// repeat the option for more sets
    #[arg(long = "cases", value_name = "SET", required = true)]
    pub(crate) cases: Vec<String>,
    /// Where to write the forecasts (JSON)
    #[arg(long, value_name = "FILE")]
    pub(crate) out: PathBuf,
}

/// `treelb sim measure`
#[derive(Debug, Args)]
pub(crate) struct MeasureArgs {
    /// The forecast file `treelb sim freeze` wrote
    #[arg(value_name = "FORECASTS", required_unless_present = "from_results")]
    pub(crate) forecasts: Option<PathBuf>,
    /// Run nothing: recompute the figures and write the Markdown from the
    /// JSON results of an earlier `sim measure`
    #[arg(long, value_name = "FILE", conflicts_with_all = ["forecasts", "baseline"])]
    pub(crate) from_results: Option<PathBuf>,
    /// A calibration made on this machine just before: T₁ of each
    /// application from it [default: one-PE runs measured first]
    #[arg(long, value_name = "FILE")]
    pub(crate) baseline: Option<PathBuf>,
    /// Runs of each case
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub(crate) repeat: u32,
    /// Where to write the results (Markdown; the JSON goes beside it, with
    /// the extension `.json`)
    #[arg(long, value_name = "FILE")]
    pub(crate) out: PathBuf,
}

/// `treelb sim ping-pong` (under `mpirun`, started by `treelb sim
/// calibrate --mpi`)
#[derive(Debug, Args)]
pub(crate) struct PingPongArgs {
    /// Round trips per batch
    #[arg(long, value_name = "N", default_value_t = 2_000)]
    pub(crate) trips: u32,
    /// Batches; the fastest counts (many short ones: on a loaded machine
    /// some fall between the other processes' turns)
    #[arg(long, value_name = "N", default_value_t = 25)]
    pub(crate) batches: u32,
}

/// `treelb sim replay`
#[derive(Debug, Args)]
pub(crate) struct ReplayArgs {
    /// A trace file written by `--trace` on a `treelb uts` run (threads or MPI)
    #[arg(value_name = "TRACE")]
    pub(crate) file: String,
    /// Print the comparison as JSON
    #[arg(long)]
    pub(crate) json: bool,
}
