//! The arguments of the game searches, `treelb connect4` and `treelb gametree`.

use clap::Args;

use super::run::RunArgs;

/// `treelb connect4`
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("positions").required(true).args(["position", "file", "generate"])))]
pub(crate) struct Connect4Args {
    /// The position: the columns played, 1 to 7, first player first (e.g.
    /// 4453; "" for the empty board)
    #[arg(value_name = "POSITION")]
    pub(crate) position: Option<String>,
    /// Solve every position of FILE: one per line, `POSITION [SCORE]`; a
    /// score that differs is a mismatch (exit code 1)
    #[arg(long, value_name = "FILE")]
    pub(crate) file: Option<String>,
    /// With --file: print one line per position (position, score, nodes, ms)
    #[arg(long)]
    pub(crate) each: bool,
    /// Win, draw or loss only (1, 0, −1)
    #[arg(long)]
    pub(crate) weak: bool,
    /// Transposition table of 2^K entries of 8 bytes, shared by all PEs
    #[arg(long, value_name = "K", default_value = "24")]
    pub(crate) tt_log2: String,
    /// One transposition table of 2^K entries per PE instead of one shared
    #[arg(long)]
    pub(crate) tt_per_pe: bool,
    /// The score only, without searching for a best move (as Pons's
    /// solver does)
    #[arg(long)]
    pub(crate) score_only: bool,
    /// Print every window search (window, value, nodes, seconds) to stderr
    /// as it ends
    #[arg(long)]
    pub(crate) verbose: bool,
    /// Print N random positions of --moves moves instead of solving
    #[arg(long, value_name = "N")]
    pub(crate) generate: Option<String>,
    /// With --generate: moves per position (random play that never wins and
    /// leaves the side to move no win at once)
    #[arg(long, value_name = "M", default_value = "20")]
    pub(crate) moves: String,
    #[command(flatten)]
    pub(crate) search: SearchArgs,
}

/// How the searches of `connect4` and `gametree` run: on a runtime (its
/// flags), with or without young brothers waiting, or sequentially.
#[derive(Debug, Args)]
pub(crate) struct SearchArgs {
    /// Give younger brothers away before their eldest brother has returned
    /// (plain parallel alpha-beta, to measure what waiting buys)
    #[arg(long)]
    pub(crate) no_ybw: bool,
    /// Search by the sequential alpha-beta baseline instead of the runtime
    #[arg(long)]
    pub(crate) sequential: bool,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

/// `treelb gametree`
#[derive(Debug, Args)]
pub(crate) struct GameTreeArgs {
    /// Children of every inner position
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub(crate) branching: u32,
    /// Depth of the leaves
    #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u32).range(1..=40))]
    pub(crate) depth: u32,
    /// Probability that a position's children come best-first (0 to 1)
    #[arg(long, default_value_t = 0.9)]
    pub(crate) ordering: f64,
    /// Largest edge weight
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(i32).range(1..=1000))]
    pub(crate) weight: i32,
    /// Which tree: the seed of its hashes
    #[arg(long, value_name = "SEED", default_value_t = 0)]
    pub(crate) tree: u64,
    /// Find the value by null-window searches (as connect4 does) instead
    /// of one search with the full window
    #[arg(long)]
    pub(crate) null_windows: bool,
    /// Also search sequentially; exit code 1 unless the values agree
    #[arg(long)]
    pub(crate) check: bool,
    #[command(flatten)]
    pub(crate) search: SearchArgs,
}
