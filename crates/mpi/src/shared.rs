//! Branch and bound across ranks: the incumbent that every rank's copy of
//! the search must learn about, and the initial cut that must not depend on
//! it.
//!
//! ## One incumbent per rank
//! Every rank builds its own copy of the search, so every rank has its own
//! [`Incumbent`]; the threads of one rank (hybrid mode) share it. A codec
//! that carries a branch-and-bound search names that state
//! ([`Codec::shared`], set with
//! [`DfsCodec::with_shared`](crate::wire::DfsCodec::with_shared)) through
//! the small trait [`Shared`]: a version number, the wire form of the best
//! solution, and a way to offer a remote one. Counting searches (UTS,
//! N-Queens) name none, and the driver then does nothing extra at all.
//!
//! ## The improvement broadcast
//! After every slice of Δt units a PE compares the incumbent's version (one
//! relaxed load, [`Incumbent::improvements`]) with the last one it looked
//! at. Only when it changed does it encode the best value with its witness,
//! and only if that value beats the best one the rank knows every rank has
//! (the last one it sent or received), it sends it with a non-blocking send
//! to thread 0 of every other rank — all-to-all, `R − 1` messages of a few
//! hundred bytes per improvement. Improvements are rare (a search finds a
//! handful, each strictly better than the last), so the sender's cost is
//! small next to the work; a hypercube relay would cut it to `log₂ R`
//! sends per improvement but adds a hop of latency to every one and a
//! forwarding rule, which pays only for rank counts far beyond the ones this
//! runtime is run with. A receiving rank [`Incumbent::offer`]s the value, so
//! a stale or worse one changes nothing; a received value is not sent on
//! (its sender reached every rank itself).
//!
//! Improvement messages are not work: the four-counter detector does not
//! count them, and a run terminates when no *work* is left, whatever
//! improvements are still travelling. They are drained separately: every
//! rank counts the improvements it sends to each rank, and after
//! termination the ranks exchange these counts in a non-blocking
//! all-to-all (which also replaces the barrier of the drain: it completes
//! only once every rank has entered it). Each rank keeps receiving until it
//! has received what was sent to it, so no improvement is in flight at
//! `MPI_Finalize`. After termination nobody works, so nobody sends new ones.
//!
//! ## Why the answer is exact
//! A subtree is only ever pruned because its bound cannot beat a value some
//! rank really achieved (its own incumbent, or one received, which a rank
//! found and holds a witness for). So the best solution of the whole tree
//! is found by the rank that explores its subtree, or it is pruned by an
//! equally good solution found elsewhere. The broadcasts only speed pruning
//! up; the answer does not rely on them: every rank sends its best value and
//! witness with its results, and rank 0 offers them all to its incumbent.
//!
//! ## Decision searches stop everywhere
//! A decision search reports [`Search::should_stop`](treelb::Search::should_stop)
//! once its incumbent holds a witness. That witness is an improvement, so
//! it reaches every rank like any other, and offering it there makes that
//! rank's copy of the search stop too: no separate stop message is needed.
//! A stopped PE drops the rest of its piece, answers every request with "no
//! work", sends no more requests, and drops pieces that were already on
//! their way to it (they are received, so the detector's counts stay
//! consistent). The detector then finds every PE idle and no work in flight,
//! and the run ends as usual; the witness reaches rank 0 with the results.
//!
//! ## Selective initialization cuts the same tree on every rank
//! Splitting a [`DfsWork`](treelb::search::DfsWork) moves open nodes and
//! never looks at the incumbent (`treelb::search::split`). But a piece of a
//! single open node must be *worked* before it splits, and expanding a
//! branch-and-bound node reads the incumbent (to prune children, or to
//! choose which ones to create) and may improve it. Ranks that cut the
//! broadcast root with different incumbents could therefore cut different
//! trees and lose or duplicate subtrees. [`rank_shares`] makes the cut the
//! same everywhere: it runs on the rank's calling thread before any PE
//! starts (so no local thread has improved the incumbent yet) and before the
//! first probe for messages (so no remote improvement has been offered); it
//! starts from the incumbent the search was built with, which is the same on
//! every rank because every rank builds the same search; and for a search
//! with shared state it descends the whole splitting tree, all `P` shares in
//! the same order on every rank, so every piece is cut by the same sequence
//! of operations from the same state. (A counting search descends only the
//! paths to the rank's own shares: its cut depends on nothing else.)

use serde::Serialize;
use serde::de::DeserializeOwned;
use treelb::RunSpec;
use treelb::incumbent::{Incumbent, Sense};
use treelb::init::Share;

use crate::wire::{Codec, DecodeError, from_bytes};

/// State that the ranks' copies of a search keep in step: the incumbent of
/// a branch-and-bound search.
///
/// Values are compared by their *key*, an `i64` where larger is better.
pub trait Shared: Sync {
    /// A number that changes whenever the local state improves (one relaxed
    /// load).
    fn version(&self) -> u64;

    /// The key of the local state, `None` before any solution.
    fn key(&self) -> Option<i64>;

    /// Appends the wire form of the local best to `out` and returns its key;
    /// `None` (and nothing appended) if there is nothing to send yet — no
    /// solution, or a better value whose witness is still being stored.
    fn encode(&self, out: &mut Vec<u8>) -> Option<i64>;

    /// Offers a state received from another rank (a worse one changes
    /// nothing) and returns its key.
    fn apply(&self, bytes: &[u8]) -> Result<i64, DecodeError>;
}

/// The key of `value`: larger is better.
fn key(sense: Sense, value: i64) -> i64 {
    match sense {
        Sense::Maximize => value,
        Sense::Minimize => value.checked_neg().unwrap_or(i64::MAX),
    }
}

/// The wire form of an improvement: the value and its witness.
#[derive(Serialize)]
struct Best<'a, T> {
    value: i64,
    witness: &'a T,
}

/// The incumbent of a branch-and-bound search is shared state: its version
/// is [`Incumbent::improvements`], an improvement travels as the value and
/// its witness, and a remote one is [`Incumbent::offer`]ed.
///
/// ```
/// use treelb::incumbent::{Incumbent, Sense};
/// use treelb_mpi::shared::Shared;
///
/// let here = Incumbent::new(Sense::Minimize);
/// here.offer(50, || vec![0u32, 2, 1]);
/// let there = Incumbent::<Vec<u32>>::new(Sense::Minimize);
/// let mut bytes = Vec::new();
/// let key = here.encode(&mut bytes).unwrap();
/// assert_eq!(there.apply(&bytes).unwrap(), key);
/// assert_eq!(there.snapshot(), Some((50, vec![0, 2, 1])));
/// ```
impl<T> Shared for Incumbent<T>
where
    T: Serialize + DeserializeOwned + Clone + Send,
{
    fn version(&self) -> u64 {
        self.improvements()
    }

    fn key(&self) -> Option<i64> {
        self.best().map(|v| key(self.sense(), v))
    }

    fn encode(&self, out: &mut Vec<u8>) -> Option<i64> {
        let (value, witness) = self.snapshot()?;
        // The value is published before its witness is stored: if a better
        // value is already there, its witness is on its way; send later.
        if self.best() != Some(value) {
            return None;
        }
        let best = Best { value, witness: &witness };
        *out = postcard::to_extend(&best, std::mem::take(out)).expect("plain data serializes");
        Some(key(self.sense(), value))
    }

    fn apply(&self, bytes: &[u8]) -> Result<i64, DecodeError> {
        let (value, witness): (i64, T) = from_bytes(bytes)?;
        self.offer(value, || witness);
        Ok(key(self.sense(), value))
    }
}

/// The initial pieces of the `threads` PEs of rank `rank` of `ranks`, in
/// thread order (PE `g = rank · threads + t` for thread `t`), each a list
/// of shares: under selective initialization one share each
/// (`treelb::init::selective`), under static assignment the PE's parts
/// ([`RunSpec::initial_shares`]).
///
/// Call it before any PE of the rank works and before any message is
/// received: see the module documentation for why every rank then cuts the
/// same tree. With shared state (`codec.shared()`), the whole splitting
/// tree is descended on every rank; otherwise only the paths to this rank's
/// shares (static parts: always the whole tree).
///
/// ```
/// use treelb::search::SplitPolicy;
/// use treelb::{seq, Init, Reduce, RunSpec};
/// use treelb_apps::nqueens::NQueens;
/// use treelb_mpi::shared::rank_shares;
/// use treelb_mpi::wire::DfsCodec;
///
/// let queens = NQueens::new(8).unwrap();
/// let codec = DfsCodec::new(&queens, SplitPolicy::OldestHalf);
/// let spec = RunSpec { init: Init::Selective, ..RunSpec::default() };
/// let mut total = treelb_apps::nqueens::NQueensResult::default();
/// for rank in 0..3 {
///     for share in rank_shares(&codec, &spec, &codec.root(), rank, 2, 3).into_iter().flatten() {
///         total.merge(share.output);
///         if let Some(piece) = share.piece {
///             total.merge(seq::run_work(piece).0);
///         }
///     }
/// }
/// assert_eq!(total.solutions, 92);
/// ```
pub fn rank_shares<C>(
    codec: &C,
    spec: &RunSpec,
    root: &C::Work,
    rank: usize,
    threads: usize,
    ranks: usize,
) -> Vec<Vec<Share<C::Work>>>
where
    C: Codec,
    C::Work: Clone,
{
    let mine: Vec<usize> = (rank * threads..(rank + 1) * threads).collect();
    spec.initial_shares(root, ranks * threads, &mine, codec.shared().is_some())
}

#[cfg(test)]
mod tests {
    use treelb::search::SplitPolicy;
    use treelb::seq;
    use treelb_apps::clique::{CliqueSearch, Graph};
    use treelb_apps::knapsack::{Class, Knapsack, Spec};

    use super::*;
    use crate::wire::DfsCodec;

    #[test]
    fn improvements_round_trip_and_only_improve() {
        let a = Incumbent::<Vec<u32>>::new(Sense::Maximize);
        let b = Incumbent::<Vec<u32>>::new(Sense::Maximize);
        let mut bytes = Vec::new();
        assert_eq!(a.encode(&mut bytes), None, "nothing to send yet");
        assert!(bytes.is_empty());
        assert_eq!((a.version(), a.key()), (0, None));
        a.offer(7, || vec![1, 2, 3]);
        assert_eq!(a.version(), 1);
        assert_eq!(a.encode(&mut bytes), Some(7));
        b.offer(9, || vec![4]);
        // A worse remote value is ignored, its key still reported.
        assert_eq!(b.apply(&bytes).unwrap(), 7);
        assert_eq!(b.snapshot(), Some((9, vec![4])));
        assert_eq!(b.version(), 1);
        bytes.clear();
        assert_eq!(b.encode(&mut bytes), Some(9));
        assert_eq!(a.apply(&bytes).unwrap(), 9);
        assert_eq!(a.snapshot(), Some((9, vec![4])));
        assert_eq!(a.version(), 2);
        assert!(a.apply(&[0xFF, 0xFF]).is_err());
    }

    #[test]
    fn minimising_keys_are_negated() {
        let a = Incumbent::new(Sense::Minimize);
        a.offer(20, || 1u8);
        let mut bytes = Vec::new();
        assert_eq!(a.encode(&mut bytes), Some(-20));
        assert_eq!(a.key(), Some(-20));
        let b = Incumbent::with_solution(Sense::Minimize, 30, 2u8);
        assert_eq!(b.apply(&bytes).unwrap(), -20);
        assert_eq!(b.into_best(), Some((20, 1)));
    }

    #[test]
    fn counting_codecs_share_nothing() {
        let queens = treelb_apps::nqueens::NQueens::new(6).unwrap();
        let codec = DfsCodec::new(&queens, SplitPolicy::OldestHalf);
        assert!(codec.shared().is_none());
        assert!(!codec.should_stop());
    }

    fn selective() -> RunSpec {
        RunSpec { init: treelb::Init::Selective, ..RunSpec::default() }
    }

    /// A graph whose maximum clique the unseeded search improves many times.
    fn graph() -> Graph {
        Graph::random(60, 0.7, 5)
    }

    /// Every rank builds its own search, cuts its shares and works them to
    /// the end on its own (no broadcast at all): the shares of all ranks
    /// partition the tree exactly as one descent on one search does, and
    /// the best of the ranks is the optimum.
    #[test]
    fn every_rank_cuts_the_same_tree() {
        let g = graph();
        let reference = CliqueSearch::max_clique_unseeded(&g);
        seq::run_search(&reference);
        let omega = reference.incumbent.best().unwrap();
        for (ranks, threads) in [(3, 1), (2, 2), (3, 2), (5, 1)] {
            let p = ranks * threads;
            // One descent for all P shares on one search: the reference cut.
            let one = CliqueSearch::max_clique_unseeded(&g);
            let one_codec = DfsCodec::new(&one, SplitPolicy::OldestHalf).with_shared(&one.incumbent);
            let all: Vec<usize> = (0..p).collect();
            let mut expected = vec![Vec::new(); p];
            for (index, share) in treelb::init::selective_shares(&one_codec.root(), &all, p) {
                if let Some(piece) = share.piece {
                    one_codec.encode(piece, &mut expected[index]);
                }
            }
            let mut best = None;
            for rank in 0..ranks {
                let search = CliqueSearch::max_clique_unseeded(&g);
                let codec = DfsCodec::new(&search, SplitPolicy::OldestHalf).with_shared(&search.incumbent);
                let shares = rank_shares(&codec, &selective(), &codec.root(), rank, threads, ranks);
                assert_eq!(shares.len(), threads);
                for (t, share) in shares.into_iter().map(|mut list| list.remove(0)).enumerate() {
                    let mut bytes = Vec::new();
                    if let Some(piece) = share.piece {
                        codec.encode(piece, &mut bytes);
                        seq::run_work(codec.decode(&bytes).unwrap());
                    }
                    assert_eq!(bytes, expected[rank * threads + t], "{ranks} × {threads}: share {rank}.{t}");
                }
                best = best.max(search.incumbent.best());
            }
            assert_eq!(best, Some(omega), "{ranks} × {threads}");
        }
    }

    /// The same for the knapsack, with every share sent through the codec
    /// before it is worked.
    #[test]
    fn knapsack_shares_partition_the_search() {
        let instance = Spec::new(Class::StronglyCorrelated, 40, 1000, 2).generate();
        let optimum = instance.dp_optimum(1 << 24).unwrap();
        for ranks in 1..=4 {
            let mut best = None;
            for rank in 0..ranks {
                let search = Knapsack::new(&instance);
                let codec = DfsCodec::new(&search, SplitPolicy::OldestHalf).with_shared(&search.incumbent);
                for share in
                    rank_shares(&codec, &selective(), &codec.root(), rank, 1, ranks).into_iter().flatten()
                {
                    if let Some(piece) = share.piece {
                        let mut bytes = Vec::new();
                        codec.encode(piece, &mut bytes);
                        seq::run_work(codec.decode(&bytes).unwrap());
                    }
                }
                best = best.max(search.incumbent.best());
            }
            assert_eq!(best, Some(optimum), "{ranks} ranks");
        }
    }

    /// TSP pieces (decisions and multipliers) survive the wire: split pieces
    /// sent through the codec still find the optimal tour.
    #[test]
    fn tsp_pieces_survive_the_wire() {
        use treelb::Work;
        use treelb_apps::tsp::{Tsp, TspSearch, held_karp};
        let tsp = Tsp::random_euclidean(13, 1000.0, 4);
        let (optimum, _) = held_karp(&tsp).unwrap();
        let search = TspSearch::new(&tsp);
        let codec = DfsCodec::new(&search, SplitPolicy::OldestHalf).with_shared(&search.incumbent);
        let mut piece = codec.root();
        let mut stats = Default::default();
        let mut sent = Vec::new();
        while !piece.work(1, &mut stats).is_exhausted() {
            if let Some(part) = piece.split() {
                let mut bytes = Vec::new();
                codec.encode(part, &mut bytes);
                sent.push(codec.decode(&bytes).unwrap());
            }
        }
        for part in sent {
            seq::run_work(part);
        }
        assert_eq!(search.incumbent.best(), Some(optimum));
    }
}
