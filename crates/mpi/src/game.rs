//! Game-tree searches across MPI ranks, one window search after another.
//!
//! A game search — solving a position with a sequence of null-window
//! searches, say — is driven by rank 0: it decides which position and which
//! window come next from the values of the previous searches. [`Windows`]
//! runs that dialogue: rank 0 calls [`Windows::search`] for each window, which
//! broadcasts the position and the window to the other ranks and searches it
//! with them; the other ranks call [`Windows::serve`], which takes part in
//! every search rank 0 starts until rank 0 calls [`Windows::finish`]. All
//! the searches are runs of one [`Session`], so the ranks set up once and a
//! game's state (its transposition table) lives on from window to window.
//!
//! Each search runs young brothers wait ([`treelb::game::YbwWork`]) with
//! the rank state of [`treelb::game::Net`]: results and aborts of frames
//! travel between ranks, and [`Windows::finish`] sums what they sent over
//! all ranks.

use std::cell::Cell;

use serde::{Deserialize, Serialize};
use treelb::game::{Game, GameOutput, Net, NetStats, YbwWork};

use crate::wire::{GameCodec, from_bytes, to_bytes};
use crate::{Config, Error, Mpi, Session};

/// What rank 0 broadcasts to the serving ranks.
#[derive(Serialize, Deserialize)]
enum Command<P> {
    /// Take part in the search of `pos` with the window `(alpha, beta)`.
    Search { pos: P, alpha: i32, beta: i32 },
    /// The game search is over; `ok`: it succeeded.
    Done { ok: bool },
}

/// Window searches of one game across the ranks (see the [module
/// documentation](self)).
pub struct Windows<'m> {
    mpi: &'m Mpi,
    session: Session<'m>,
    ybw: bool,
    runs: Cell<u64>,
    waves: Cell<u64>,
    stats: Cell<NetStats>,
}

/// What the window searches of all ranks did, summed at rank 0 by
/// [`Windows::finish`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WindowsSummary {
    /// Window searches run.
    pub searches: u64,
    /// Termination waves over all searches.
    pub waves: u64,
    /// What the ranks sent each other: results, aborts, and results for
    /// frames already finished.
    pub net: NetStats,
}

impl<'m> Windows<'m> {
    /// Starts the session on every rank (a collective); `ybw`: young
    /// brothers wait (false: no waiting for eldest brothers).
    ///
    /// # Errors
    /// If the configuration is refused (see [`Session::new`]).
    pub fn start(mpi: &'m Mpi, config: &Config, ybw: bool) -> Result<Windows<'m>, Error> {
        Ok(Windows {
            mpi,
            session: Session::new(mpi, config)?,
            ybw,
            runs: Cell::new(0),
            waves: Cell::new(0),
            stats: Cell::new(NetStats::default()),
        })
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.mpi.rank()
    }

    /// The ranks.
    pub fn size(&self) -> usize {
        self.mpi.size()
    }

    /// The thread support MPI gave (see [`Mpi::thread_support`]).
    pub fn thread_support(&self) -> &'static str {
        self.mpi.thread_support()
    }

    fn broadcast<P: Serialize + for<'de> Deserialize<'de>>(&self, command: Option<Command<P>>) -> Command<P> {
        let mut bytes = command.map(|c| to_bytes(&c)).unwrap_or_default();
        self.mpi.broadcast(&mut bytes);
        from_bytes(&bytes).expect("a command from rank 0")
    }

    /// Rank 0: one window search of `pos`, the other ranks serving it; the
    /// value and the nodes of all ranks.
    ///
    /// # Panics
    /// On a rank other than 0, or if the search ends without the root's
    /// value.
    pub fn search<G>(&self, game: &G, pos: G::Position, alpha: i32, beta: i32) -> GameOutput
    where
        G: Game,
        G::Position: Serialize + serde::de::DeserializeOwned,
    {
        assert_eq!(self.rank(), 0, "only rank 0 starts a window search");
        let command = Command::Search { pos, alpha, beta };
        let Command::Search { pos, alpha, beta } = self.broadcast(Some(command)) else {
            unreachable!("rank 0 broadcast a search")
        };
        let output = self.window(game, pos, alpha, beta);
        assert!(output.value.is_some(), "the search across ranks ended without the root's value");
        output
    }

    /// A rank other than 0: takes part in rank 0's window searches until
    /// rank 0 ends the game search; rank 0's verdict.
    pub fn serve<G>(&self, game: &G) -> bool
    where
        G: Game,
        G::Position: Serialize + serde::de::DeserializeOwned,
    {
        loop {
            match self.broadcast::<G::Position>(None) {
                Command::Search { pos, alpha, beta } => {
                    self.window(game, pos, alpha, beta);
                }
                Command::Done { ok } => return ok,
            }
        }
    }

    /// One run of the session: every rank holds its own rank state (`Net`)
    /// for it; the root piece starts on rank 0, whose output (all ranks'
    /// merged) has the value.
    fn window<G>(&self, game: &G, pos: G::Position, alpha: i32, beta: i32) -> GameOutput
    where
        G: Game,
        G::Position: Serialize + serde::de::DeserializeOwned,
    {
        let net = Net::new(self.rank(), self.size(), self.ybw);
        let codec = GameCodec::new(game, &net);
        let root = YbwWork::new(game, pos, alpha, beta, self.ybw).with_net(&net);
        let outcome =
            self.session.run(&codec, root).unwrap_or_else(|e| panic!("a checked configuration failed: {e}"));
        let s = net.stats();
        let mut t = self.stats.get();
        t.results += s.results;
        t.aborts += s.aborts;
        t.discarded += s.discarded;
        self.stats.set(t);
        self.runs.set(self.runs.get() + 1);
        match outcome {
            Some(o) => {
                self.waves.set(self.waves.get() + o.waves);
                o.output
            }
            None => GameOutput::default(),
        }
    }

    /// Ends the game search on every rank (a collective): rank 0 tells the
    /// serving ranks it is over, with its verdict `ok`, and gets the sum of
    /// what all ranks sent; the other ranks get `None`.
    pub fn finish(self, ok: bool) -> Option<WindowsSummary> {
        if self.rank() == 0 {
            self.broadcast::<()>(Some(Command::Done { ok }));
        }
        let all = self.mpi.gather(&to_bytes(&self.stats.get()))?;
        let mut net = NetStats::default();
        for bytes in all {
            let s: NetStats = from_bytes(&bytes).expect("statistics of a rank");
            net.results += s.results;
            net.aborts += s.aborts;
            net.discarded += s.discarded;
        }
        Some(WindowsSummary { searches: self.runs.get(), waves: self.waves.get(), net })
    }
}
