//! Game searches — a sequence of window searches of alpha-beta under young
//! brothers wait — on the threads of one machine or across the ranks that
//! `mpirun` started: [`GameRun`].
//!
//! A game is solved by several searches of one position with narrowing
//! windows (`treelb::game::solve_root`, Connect Four's null windows), each
//! decided from the values of the ones before. [`GameRun::search`] runs
//! one window search on the PEs ([`Pes`]: one setting switches between
//! threads and ranks). Across ranks rank 0 drives: it calls `search` for
//! each window, which broadcasts the position and the window to the other
//! ranks; they meanwhile only call [`GameRun::serve`], which takes part in
//! every search rank 0 starts until rank 0 calls [`GameRun::finish`]. All
//! the window searches are runs of one `treelb_mpi::Session`, so the ranks
//! set up once and keep their transposition tables from window to window.
//!
//! ```
//! use treelb::game::{GameOutput, solve_root};
//! use treelb_apps::gametree::GameTree;
//! use treelb_run::game::GameRun;
//! use treelb_run::{Pes, RunSpec};
//!
//! let tree = GameTree { branching: 3, depth: 5, weight: 10, ordering: 0.5, seed: 1 };
//! let games = GameRun::builder(RunSpec::default()).start(Pes::Threads(2))?;
//! // Every rank but 0 serves until rank 0 finishes (on threads, nothing).
//! assert_eq!(games.rank(), 0);
//! let o: GameOutput = solve_root(tree.bound(), false, |a, b| games.search(&tree, tree.root(), a, b));
//! let sequential = treelb::game::alpha_beta_output(&tree, &tree.root(), -tree.bound(), tree.bound());
//! assert_eq!(o.value, sequential.value);
//! assert!(games.finish(true).is_none()); // a summary only across ranks
//! # Ok::<(), treelb_run::Error>(())
//! ```

use std::fmt;

use serde::Serialize;
use serde::de::DeserializeOwned;
use treelb::game::{Game, GameOutput, STRATEGIES, YbwWork, alpha_beta_output};
use treelb::{Init, RunSpec, Strategy};

#[cfg(feature = "mpi")]
pub use treelb_mpi::game::WindowsSummary;

use crate::{Error, Pes};

/// How a [`GameRun`] is set up: the balancing, thread pinning and whether
/// young brothers wait; [`start`](Self::start) starts it on the PEs.
#[derive(Clone, Debug)]
pub struct GameRunBuilder {
    spec: RunSpec,
    pin: bool,
    ybw: bool,
    sequential: bool,
}

/// What a game search does not run under ([`supports`]); its
/// [`Display`](fmt::Display) names the setting and says why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unsupported {
    /// A strategy outside [`STRATEGIES`].
    Strategy(Strategy),
    /// An initialization other than from the root.
    Init(Init),
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unsupported::Strategy(s) => {
                let names: Vec<&str> = STRATEGIES.iter().map(|s| s.name()).collect();
                write!(
                    f,
                    "strategy {s} is not supported: a game search gives work away only when asked ({}), \
                     not by pushing, through a hub, or statically before any eldest brother has returned",
                    names.join(", ")
                )
            }
            Unsupported::Init(i) => {
                write!(f, "init {i} is not supported: the root is atomic until its eldest brother returns")
            }
        }
    }
}

impl std::error::Error for Unsupported {}

/// Whether game searches run under `spec`: a strategy of [`STRATEGIES`],
/// from the root.
///
/// ```
/// use treelb::{Init, RunSpec, Strategy};
/// use treelb_run::game::{Unsupported, supports};
///
/// assert_eq!(supports(&RunSpec::default()), Ok(()));
/// let pushing = RunSpec { strategy: Strategy::WorkSharing, ..RunSpec::default() };
/// assert_eq!(supports(&pushing), Err(Unsupported::Strategy(Strategy::WorkSharing)));
/// let selective = RunSpec { init: Init::Selective, ..RunSpec::default() };
/// assert_eq!(supports(&selective), Err(Unsupported::Init(Init::Selective)));
/// ```
pub fn supports(spec: &RunSpec) -> Result<(), Unsupported> {
    if !STRATEGIES.contains(&spec.strategy) {
        return Err(Unsupported::Strategy(spec.strategy));
    }
    if spec.init != Init::Root {
        return Err(Unsupported::Init(spec.init));
    }
    Ok(())
}

impl GameRunBuilder {
    /// Pins each PE thread to a core of its own (threads; see
    /// `treelb_threads::Config::pin`).
    pub fn pin(mut self, pin: bool) -> Self {
        self.pin = pin;
        self
    }

    /// Whether young brothers wait for their eldest brother (the default);
    /// `false` gives every brother away at once.
    pub fn ybw(mut self, ybw: bool) -> Self {
        self.ybw = ybw;
        self
    }

    /// Whether [`GameRun::search`] runs the sequential alpha-beta baseline
    /// instead of the PEs (`false` by default); across ranks the others
    /// serve all the same.
    pub fn sequential(mut self, sequential: bool) -> Self {
        self.sequential = sequential;
        self
    }

    /// Starts the game searches on `pes`: across ranks a collective, every
    /// rank starts its session.
    ///
    /// # Errors
    /// If the runtime refuses the configuration.
    #[cfg_attr(not(feature = "mpi"), allow(clippy::unnecessary_wraps))]
    pub fn start(self, pes: Pes<'_>) -> Result<GameRun<'_>, Error> {
        let GameRunBuilder { spec, pin, ybw, sequential } = self;
        let strategy = spec.strategy;
        let on = match pes {
            Pes::Threads(threads) => On::Threads(treelb_threads::Config {
                pin,
                ..treelb_threads::Config::with_spec(threads, spec)
            }),
            #[cfg(feature = "mpi")]
            Pes::Mpi(mpi) => {
                let config = treelb_mpi::Config {
                    threads: mpi.threads(),
                    spec,
                    slow: None,
                    record_decisions: false,
                    trace: false,
                };
                On::Mpi(Box::new(treelb_mpi::game::Windows::start(mpi, &config, ybw)?), mpi.threads())
            }
            #[cfg(not(feature = "mpi"))]
            Pes::_Never(never, _) => match never {},
        };
        Ok(GameRun { on, ybw, sequential, strategy })
    }
}

/// Window searches of a game on threads or across MPI ranks (see the
/// [module documentation](self)).
pub struct GameRun<'m> {
    on: On<'m>,
    ybw: bool,
    sequential: bool,
    strategy: Strategy,
}

/// Where the window searches run.
enum On<'m> {
    /// The threads runtime, with its configuration.
    Threads(treelb_threads::Config),
    /// The session of window searches across ranks, and the threads per
    /// rank.
    #[cfg(feature = "mpi")]
    Mpi(Box<treelb_mpi::game::Windows<'m>>, usize),
    /// Never built: keeps the lifetime used without the feature `mpi`.
    #[cfg(not(feature = "mpi"))]
    _Never(std::convert::Infallible, std::marker::PhantomData<&'m ()>),
}

impl GameRun<'_> {
    /// A game run balanced by `spec`, young brothers waiting, no pinning.
    pub fn builder(spec: RunSpec) -> GameRunBuilder {
        GameRunBuilder { spec, pin: false, ybw: true, sequential: false }
    }

    /// Whether the searches run across MPI ranks.
    pub fn on_ranks(&self) -> bool {
        !matches!(self.on, On::Threads(_))
    }

    /// This process's rank (0 on threads).
    pub fn rank(&self) -> usize {
        match &self.on {
            On::Threads(_) => 0,
            #[cfg(feature = "mpi")]
            On::Mpi(windows, _) => windows.rank(),
            #[cfg(not(feature = "mpi"))]
            On::_Never(never, _) => match *never {},
        }
    }

    /// The processes (1 on threads) and the PEs of each.
    pub fn pes(&self) -> (usize, usize) {
        match &self.on {
            On::Threads(config) => (1, config.threads),
            #[cfg(feature = "mpi")]
            On::Mpi(windows, threads) => (windows.size(), *threads),
            #[cfg(not(feature = "mpi"))]
            On::_Never(never, _) => match *never {},
        }
    }

    /// Whether young brothers wait.
    pub fn ybw(&self) -> bool {
        self.ybw
    }

    /// How the searches run, in words: `sequential alpha-beta`, or the PEs
    /// (`4 PEs`, `2 ranks × 1 threads`), the strategy and whether young
    /// brothers wait.
    ///
    /// ```
    /// use treelb_run::game::GameRun;
    /// use treelb_run::{Pes, RunSpec};
    ///
    /// let games = GameRun::builder(RunSpec::default()).start(Pes::Threads(2))?;
    /// assert_eq!(games.describe(), "2 PEs, random-polling, young brothers wait");
    /// # Ok::<(), treelb_run::Error>(())
    /// ```
    pub fn describe(&self) -> String {
        if self.sequential {
            return "sequential alpha-beta".to_owned();
        }
        let pes = match self.pes() {
            (ranks, threads) if self.on_ranks() => format!("{ranks} ranks × {threads} threads"),
            (_, threads) => format!("{threads} PEs"),
        };
        let waiting = if self.ybw { "young brothers wait" } else { "no waiting for eldest brothers" };
        format!("{pes}, {}, {waiting}", self.strategy)
    }

    /// One window search of `pos` with the window `(alpha, beta)`, called
    /// on rank 0 only (across ranks the others [`serve`](Self::serve) it):
    /// the value and the nodes of all PEs (of the sequential baseline if
    /// the builder asked for [`sequential`](GameRunBuilder::sequential)).
    ///
    /// # Panics
    /// If the threads runtime refuses the configuration it was started
    /// with, which [`GameRunBuilder::start`] checked.
    pub fn search<G>(&self, game: &G, pos: G::Position, alpha: i32, beta: i32) -> GameOutput
    where
        G: Game,
        G::Position: Serialize + DeserializeOwned,
    {
        if self.sequential {
            return alpha_beta_output(game, &pos, alpha, beta);
        }
        match &self.on {
            On::Threads(config) => {
                let root = YbwWork::new(game, pos, alpha, beta, self.ybw);
                match treelb_threads::run(root, config) {
                    Ok(outcome) => outcome.output,
                    Err(e) => panic!("a checked configuration failed: {e}"),
                }
            }
            #[cfg(feature = "mpi")]
            On::Mpi(windows, _) => windows.search(game, pos, alpha, beta),
            #[cfg(not(feature = "mpi"))]
            On::_Never(never, _) => match *never {},
        }
    }

    /// On a rank other than 0: takes part in every window search rank 0
    /// starts, until rank 0 [`finish`](Self::finish)es; returns rank 0's
    /// verdict. On threads (and rank 0) there is nothing to serve: `true`.
    pub fn serve<G>(&self, game: &G) -> bool
    where
        G: Game,
        G::Position: Serialize + DeserializeOwned,
    {
        match &self.on {
            On::Threads(_) => {
                let _ = game;
                true
            }
            #[cfg(feature = "mpi")]
            On::Mpi(windows, _) => windows.serve(game),
            #[cfg(not(feature = "mpi"))]
            On::_Never(never, _) => match *never {},
        }
    }

    /// Ends the game searches: across ranks a collective, where rank 0
    /// tells the serving ranks the searches are over, with its verdict
    /// `ok`, and gets what all ranks did; `None` on threads and on the
    /// other ranks.
    #[cfg(feature = "mpi")]
    pub fn finish(self, ok: bool) -> Option<GamesSummary> {
        match self.on {
            On::Threads(_) => None,
            On::Mpi(windows, threads) => {
                let (ranks, thread_support) = (windows.size(), windows.thread_support());
                windows.finish(ok).map(|windows| GamesSummary { ranks, threads, thread_support, windows })
            }
        }
    }

    /// Ends the game searches: `None` (a summary only across MPI ranks).
    #[cfg(not(feature = "mpi"))]
    pub fn finish(self, ok: bool) -> Option<GamesSummary> {
        let _ = ok;
        match self.on {
            On::Threads(_) => None,
            On::_Never(never, _) => match never {},
        }
    }
}

/// What the window searches across MPI ranks did, at rank 0
/// ([`GameRun::finish`]).
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct GamesSummary {
    /// The ranks.
    pub ranks: usize,
    /// PEs per rank.
    pub threads: usize,
    /// The thread support MPI provided, by its MPI name.
    pub thread_support: &'static str,
    /// The searches, their termination waves and the messages between
    /// ranks, summed over all ranks.
    #[cfg(feature = "mpi")]
    pub windows: WindowsSummary,
}
