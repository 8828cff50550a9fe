//! How pieces of work, results and statistics cross process boundaries.
//!
//! A piece travels as bytes in the [postcard] format (serde's data model,
//! variable-length integers, no field names or type tags). A [`Codec`] turns
//! pieces into bytes and back; the receiving side may need context the bytes
//! do not carry — a [`DfsWork`] holds a reference to its search, so
//! [`DfsCodec`] sends the open nodes and the generation and rebuilds the
//! piece against the receiving rank's own copy of the search. Applications
//! only derive `Serialize` and `Deserialize` for their node and output
//! types. Work that is not a search (an integral, the Mandelbrot set)
//! implements [`Rebuild`]: its pieces travel as their state, by
//! [`StateCodec`], and the receiving rank's copy of the computation
//! rebuilds them.
//!
//! A piece's stack is written by its search's hook
//! ([`Search::serialize_stack`]): by default each open node on its own.
//! Nodes that hold their paths as chains of shared `Arc` links (knapsack,
//! clique, TSP) would each write their whole chain that way, `d²` links for
//! a stack `d` levels deep; their searches write the stack with
//! [`treelb::search::chain::serialize_stack`] instead, each link once, and
//! read it back with the links shared as they were sent: bytes, time and
//! memory linear in the links plus the nodes (the form, and why it is
//! correct: [`treelb::search::chain`]).

use serde::de::{DeserializeOwned, DeserializeSeed, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use treelb::bound::{NodeBound, OpenBounds, Watched};
use treelb::game::{Game, GameMessage, Net, YbwWork};
use treelb::limit::{Limit, Limited};
use treelb::search::{DfsWork, Entry, Search, SplitPolicy};
use treelb::work::Rebuild;
use treelb::{PeStats, Work};

use crate::shared::Shared;

/// An error decoding bytes received from another rank.
#[derive(Debug)]
pub struct DecodeError(postcard::Error);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "malformed message from another rank: {}", self.0)
    }
}

impl std::error::Error for DecodeError {}

/// Turns pieces of one kind of work into bytes and back.
///
/// `encode` followed by `decode` (on any rank of the same run) must give a
/// piece holding exactly the same work, at the same generation.
pub trait Codec: Sync {
    /// The pieces this codec carries.
    type Work: Work;

    /// Appends the wire form of `piece` to `out`.
    fn encode(&self, piece: Self::Work, out: &mut Vec<u8>);

    /// Rebuilds a piece from its wire form.
    fn decode(&self, bytes: &[u8]) -> Result<Self::Work, DecodeError>;

    /// The state that the ranks' copies of the computation keep in step
    /// (the incumbent of a branch-and-bound search; see [`crate::shared`]).
    /// The default, none, costs the driver nothing.
    fn shared(&self) -> Option<&dyn Shared> {
        None
    }

    /// Whether the computation cannot run across ranks without its
    /// [`shared`](Self::shared) state (a branch and bound:
    /// [`Search::keeps_incumbent`]); the runtime then refuses to run
    /// it on more than one rank without that state
    /// ([`crate::check_shared`]). Default: no.
    fn needs_shared(&self) -> bool {
        false
    }

    /// Whether the computation is decided on this rank (a decision search
    /// holds its witness) and every PE should stop: the idle PEs' view of
    /// [`Work::should_stop`]. Default: never.
    fn should_stop(&self) -> bool {
        false
    }

    /// [`Codec::encode`] for a piece that goes to rank `to`: for pieces
    /// that stay linked to where they came from (a game search's pieces
    /// report their values to their frame's rank). The default ignores
    /// the destination.
    fn encode_to(&self, piece: Self::Work, to: usize, out: &mut Vec<u8>) {
        let _ = to;
        self.encode(piece, out);
    }

    /// Appends the computation's own messages to other ranks that are ready
    /// to go (a game search's results and aborts, see [`Note`]). The driver
    /// asks after every slice of work and every poll, and before its PE
    /// tells the termination detector it is idle. The default has none.
    fn take_notes(&self, out: &mut Vec<Note>) {
        let _ = out;
    }

    /// Applies one of the computation's own messages from another rank; it
    /// may give this rank a piece of work, which the driver puts into the
    /// receiving PE's pool. `acc` is the receiving PE's output. Only
    /// computations that send notes receive them: the default fails.
    fn receive_note(
        &self,
        bytes: &[u8],
        acc: &mut <Self::Work as Work>::Output,
    ) -> Result<Option<Self::Work>, DecodeError> {
        let _ = (bytes, acc);
        Err(DecodeError(postcard::Error::DeserializeBadEncoding))
    }
}

/// A message of the computation's own to another rank, beside the pieces
/// the balancer moves (a game search's results and aborts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// The rank it goes to (its first PE receives it).
    pub to: usize,
    /// Whether applying it can create work where it arrives: then the
    /// termination detector counts it like a piece (sent when sent,
    /// received when applied), so a run cannot end while one is in flight.
    /// Otherwise it is a one-way message, received before the drain ends.
    pub counted: bool,
    /// Its wire form, for [`Codec::receive_note`].
    pub bytes: Vec<u8>,
}

/// The codec of a game search's pieces ([`YbwWork`]) across ranks: a piece
/// given away travels as one position with its window and the link to its
/// frame on the giving rank, which registers the frame; values come back
/// and cutoffs go out as [`Note`]s (see [`treelb::game::remote`] and
/// `docs/ybwc-mpi.md`). Every rank holds its own copy of the game (its own
/// transposition table) and its own [`Net`] for the search.
pub struct GameCodec<'g, G: Game> {
    game: &'g G,
    net: &'g Net<G::Position>,
}

impl<'g, G: Game> GameCodec<'g, G> {
    /// The codec of the pieces of a search of `game` whose rank state is `net`.
    pub fn new(game: &'g G, net: &'g Net<G::Position>) -> Self {
        GameCodec { game, net }
    }

    fn export(&self, piece: YbwWork<'g, G>, to: Option<usize>, out: &mut Vec<u8>)
    where
        G::Position: Serialize,
    {
        let wire = self.net.export(piece, to).unwrap_or_else(|e| panic!("rank {}: {e}", self.net.rank()));
        *out = postcard::to_extend(&wire, std::mem::take(out)).expect("pieces of work serialize");
    }
}

impl<'g, G> Codec for GameCodec<'g, G>
where
    G: Game,
    G::Position: Serialize + DeserializeOwned,
{
    type Work = YbwWork<'g, G>;

    /// A piece without a known destination: its frame's aborts go to every
    /// other rank.
    fn encode(&self, piece: YbwWork<'g, G>, out: &mut Vec<u8>) {
        self.export(piece, None, out);
    }

    fn encode_to(&self, piece: YbwWork<'g, G>, to: usize, out: &mut Vec<u8>) {
        self.export(piece, Some(to), out);
    }

    fn decode(&self, bytes: &[u8]) -> Result<YbwWork<'g, G>, DecodeError> {
        Ok(self.net.import(self.game, postcard::from_bytes(bytes).map_err(DecodeError)?))
    }

    fn take_notes(&self, out: &mut Vec<Note>) {
        let mut messages = Vec::new();
        self.net.take_outgoing(&mut messages);
        out.extend(messages.into_iter().map(|m| Note {
            to: m.to,
            counted: m.message.counted(),
            bytes: to_bytes(&m.message),
        }));
    }

    fn receive_note(
        &self,
        bytes: &[u8],
        acc: &mut <Self::Work as Work>::Output,
    ) -> Result<Option<YbwWork<'g, G>>, DecodeError> {
        let message: GameMessage = from_bytes(bytes)?;
        Ok(self.net.receive(self.game, message, acc))
    }
}

/// The codec of [`DfsWork`]: the open nodes with their level marks and the
/// generation go over the wire, as the tuple `(generation, stack)`, the
/// stack in the form of the search's [`Search::serialize_stack`]; the
/// receiver supplies the search and the split policy.
///
/// ```
/// use treelb::search::{DfsWork, SplitPolicy};
/// use treelb::{seq, Work};
/// use treelb_apps::nqueens::NQueens;
/// use treelb_mpi::wire::{Codec, DfsCodec};
///
/// let queens = NQueens::new(8).unwrap();
/// let codec = DfsCodec::new(&queens, SplitPolicy::OldestHalf);
/// let mut piece = DfsWork::new(&queens, SplitPolicy::OldestHalf);
/// let mut acc = Default::default();
/// piece.work(10, &mut acc);
/// let mut bytes = Vec::new();
/// codec.encode(piece.split().unwrap(), &mut bytes);
/// let other = codec.decode(&bytes).unwrap();
/// assert_eq!(other.generation(), 1);
/// let total = seq::run_work(piece).0.solutions + seq::run_work(other).0.solutions;
/// assert_eq!(total + acc.solutions, 92);
/// ```
pub struct DfsCodec<'s, S: Search> {
    search: &'s S,
    policy: SplitPolicy,
    shared: Option<&'s dyn Shared>,
}

impl<'s, S: Search> DfsCodec<'s, S> {
    /// The codec for pieces of `search` split by `policy`.
    pub fn new(search: &'s S, policy: SplitPolicy) -> Self {
        DfsCodec { search, policy, shared: None }
    }

    /// The same codec, naming the state the ranks' copies of the search
    /// share: the incumbent of a branch-and-bound search (any
    /// [`treelb::Incumbent`] whose witness serializes). The driver then
    /// broadcasts its improvements and gathers the best at rank 0; see
    /// [`crate::shared`].
    ///
    /// ```
    /// use treelb::search::SplitPolicy;
    /// use treelb_apps::knapsack::{Class, Knapsack, Spec};
    /// use treelb_mpi::wire::{Codec, DfsCodec};
    ///
    /// let instance = Spec::new(Class::WeaklyCorrelated, 20, 100, 1).generate();
    /// let search = Knapsack::new(&instance);
    /// let codec = DfsCodec::new(&search, SplitPolicy::OldestHalf).with_shared(&search.incumbent);
    /// assert!(codec.shared().is_some());
    /// ```
    pub fn with_shared(self, shared: &'s dyn Shared) -> Self {
        DfsCodec { shared: Some(shared), ..self }
    }

    /// The root piece of the search.
    pub fn root(&self) -> DfsWork<'s, S> {
        DfsWork::new(self.search, self.policy)
    }
}

/// The wire form of a [`DfsWork`]'s stack, as its search writes it
/// ([`Search::serialize_stack`]).
struct StackOut<'a, S: Search> {
    search: &'a S,
    stack: &'a [Entry<S::Node>],
}

impl<S: Search> Serialize for StackOut<'_, S>
where
    S::Node: Serialize,
{
    fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        self.search.serialize_stack(self.stack, serializer)
    }
}

/// Reads a [`DfsWork`]'s wire form, `(generation, stack)`, the stack as its
/// search reads it ([`Search::deserialize_stack`]).
struct DfsIn<'s, S>(&'s S);

impl<'de, S: Search> Visitor<'de> for DfsIn<'_, S>
where
    S::Node: DeserializeOwned,
{
    type Value = (u32, Vec<Entry<S::Node>>);

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a piece of work: its generation and its stack")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let short = |read| serde::de::Error::invalid_length(read, &"a generation and a stack");
        let generation = seq.next_element()?.ok_or_else(|| short(0))?;
        let stack = seq.next_element_seed(StackIn(self.0))?.ok_or_else(|| short(1))?;
        Ok((generation, stack))
    }
}

/// Reads the stack of a [`DfsWork`] with its search's hook.
struct StackIn<'s, S>(&'s S);

impl<'de, S: Search> DeserializeSeed<'de> for StackIn<'_, S>
where
    S::Node: DeserializeOwned,
{
    type Value = Vec<Entry<S::Node>>;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        self.0.deserialize_stack(deserializer)
    }
}

impl<'s, S> Codec for DfsCodec<'s, S>
where
    S: Search,
    S::Node: Serialize + DeserializeOwned,
{
    type Work = DfsWork<'s, S>;

    fn encode(&self, piece: DfsWork<'s, S>, out: &mut Vec<u8>) {
        let (stack, generation) = piece.into_parts();
        let wire = (generation, StackOut { search: self.search, stack: &stack });
        // Writing to a Vec cannot fail; serializing plain data cannot either.
        *out = postcard::to_extend(&wire, std::mem::take(out)).expect("pieces of work serialize");
    }

    fn decode(&self, bytes: &[u8]) -> Result<DfsWork<'s, S>, DecodeError> {
        let mut de = postcard::Deserializer::from_bytes(bytes);
        let (generation, stack) =
            serde::Deserializer::deserialize_tuple(&mut de, 2, DfsIn(self.search)).map_err(DecodeError)?;
        Ok(DfsWork::from_parts(self.search, stack, generation, self.policy))
    }

    fn shared(&self) -> Option<&dyn Shared> {
        self.shared
    }

    fn needs_shared(&self) -> bool {
        self.search.keeps_incumbent()
    }

    #[inline]
    fn should_stop(&self) -> bool {
        self.search.should_stop()
    }
}

/// The codec of [`Limited`] pieces: the pieces of `inner`, counted against
/// this rank's [`Limit`] once they arrive. The rank stops (works and gives
/// away nothing more) when its limit is reached; see [`treelb::limit`].
///
/// ```
/// use treelb::limit::{Limit, Limited};
/// use treelb::search::SplitPolicy;
/// use treelb::Work;
/// use treelb_apps::nqueens::NQueens;
/// use treelb_mpi::wire::{Codec, DfsCodec, LimitedCodec};
///
/// let queens = NQueens::new(8).unwrap();
/// let limit = Limit::new(5);
/// let inner = DfsCodec::new(&queens, SplitPolicy::OldestHalf);
/// let codec = LimitedCodec::new(&inner, &limit);
/// let mut piece = Limited::new(inner.root(), &limit);
/// piece.work(5, &mut Default::default());
/// let mut bytes = Vec::new();
/// codec.encode(piece.split().unwrap(), &mut bytes);
/// assert!(codec.decode(&bytes).unwrap().should_stop());
/// assert!(codec.should_stop());
/// ```
pub struct LimitedCodec<'c, C> {
    inner: &'c C,
    limit: &'c Limit,
}

impl<'c, C: Codec> LimitedCodec<'c, C> {
    /// The pieces of `inner`, counted against `limit`.
    pub fn new(inner: &'c C, limit: &'c Limit) -> Self {
        LimitedCodec { inner, limit }
    }
}

impl<'c, C: Codec> Codec for LimitedCodec<'c, C>
where
    C::Work: 'c,
{
    type Work = Limited<'c, C::Work>;

    fn encode(&self, piece: Limited<'c, C::Work>, out: &mut Vec<u8>) {
        self.inner.encode(piece.into_inner(), out);
    }

    fn decode(&self, bytes: &[u8]) -> Result<Limited<'c, C::Work>, DecodeError> {
        Ok(Limited::new(self.inner.decode(bytes)?, self.limit))
    }

    fn shared(&self) -> Option<&dyn Shared> {
        self.inner.shared()
    }

    fn needs_shared(&self) -> bool {
        self.inner.needs_shared()
    }

    #[inline]
    fn should_stop(&self) -> bool {
        self.limit.reached() || self.inner.should_stop()
    }

    fn encode_to(&self, piece: Limited<'c, C::Work>, to: usize, out: &mut Vec<u8>) {
        self.inner.encode_to(piece.into_inner(), to, out);
    }

    fn take_notes(&self, out: &mut Vec<Note>) {
        self.inner.take_notes(out);
    }

    fn receive_note(
        &self,
        bytes: &[u8],
        acc: &mut <Self::Work as Work>::Output,
    ) -> Result<Option<Limited<'c, C::Work>>, DecodeError> {
        Ok(self.inner.receive_note(bytes, acc)?.map(|piece| Limited::new(piece, self.limit)))
    }
}

/// The codec of a [`Rebuild`] computation's pieces: a piece travels as its
/// state ([`Rebuild::detach`]) and the receiving rank's copy of the
/// computation rebuilds it ([`Rebuild::rebuild`]).
///
/// ```
/// use treelb::Work;
/// use treelb_apps::integrate::Integral;
/// use treelb_mpi::wire::{Codec, StateCodec};
///
/// let integral = Integral::new(|x: f64| x.sqrt(), 0.0, 1.0, 1e-12).unwrap();
/// let codec = StateCodec(&integral);
/// let mut piece = integral.work();
/// piece.work(5, &mut Default::default());
/// let mut bytes = Vec::new();
/// codec.encode(piece.split().unwrap(), &mut bytes);
/// assert_eq!(codec.decode(&bytes).unwrap().generation(), 1);
/// ```
pub struct StateCodec<R>(pub R);

impl<R: Rebuild> Codec for StateCodec<R> {
    type Work = R::Work;

    fn encode(&self, piece: R::Work, out: &mut Vec<u8>) {
        *out = postcard::to_extend(&self.0.detach(piece), std::mem::take(out))
            .expect("pieces of work serialize");
    }

    fn decode(&self, bytes: &[u8]) -> Result<R::Work, DecodeError> {
        Ok(self.0.rebuild(from_bytes(bytes)?))
    }
}

/// The codec of [`Watched`] pieces of a branch and bound: the inner piece
/// travels, emptied on the sending rank (its drop records nothing there)
/// and watched again, for the receiving rank's `limit` into its `open`,
/// where it arrives.
pub struct WatchedCodec<'a, S: NodeBound> {
    inner: DfsCodec<'a, S>,
    open: &'a OpenBounds,
    limit: &'a Limit,
}

impl<'a, S: NodeBound> WatchedCodec<'a, S> {
    /// The pieces of `inner`, watched for `limit`, recording into `open`.
    pub fn new(inner: DfsCodec<'a, S>, open: &'a OpenBounds, limit: &'a Limit) -> Self {
        WatchedCodec { inner, open, limit }
    }

    /// The whole search as one watched piece.
    pub fn root(&self) -> Watched<'a, S> {
        Watched::new(self.inner.root(), self.open, self.limit)
    }
}

impl<'a, S> Codec for WatchedCodec<'a, S>
where
    S: NodeBound,
    S::Node: Serialize + DeserializeOwned,
{
    type Work = Watched<'a, S>;

    fn encode(&self, piece: Watched<'a, S>, out: &mut Vec<u8>) {
        self.inner.encode(piece.take(), out);
    }

    fn decode(&self, bytes: &[u8]) -> Result<Watched<'a, S>, DecodeError> {
        Ok(Watched::new(self.inner.decode(bytes)?, self.open, self.limit))
    }

    fn shared(&self) -> Option<&dyn Shared> {
        self.inner.shared()
    }

    fn needs_shared(&self) -> bool {
        self.inner.needs_shared()
    }

    #[inline]
    fn should_stop(&self) -> bool {
        self.inner.should_stop()
    }
}

/// Serializes any value to postcard bytes.
pub fn to_bytes<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    postcard::to_stdvec(value).expect("plain data serializes")
}

/// Deserializes postcard bytes.
pub fn from_bytes<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, DecodeError> {
    postcard::from_bytes(bytes).map_err(DecodeError)
}

/// What one rank reports to rank 0 at the end: its output and the
/// statistics of its PEs (one per thread).
#[derive(Serialize, Deserialize)]
pub struct RankReport<O> {
    /// The rank's merged output.
    pub output: O,
    /// One entry per PE (thread) of the rank.
    pub pes: Vec<PeStats>,
    /// Termination waves this rank took part in.
    pub waves: u64,
    /// Probes for messages done by the rank's PEs.
    pub probes: u64,
    /// Improvement messages of the shared state the rank sent.
    pub improvements: u64,
    /// The rank's best solution in the wire form of [`Shared::encode`], for
    /// computations with shared state.
    pub best: Option<Vec<u8>>,
    /// Its PEs' decisions, if they were recorded (else empty).
    pub decisions: Vec<Vec<treelb::strategy::Decision>>,
    /// Its PEs' trace on its own clock, and the clock's offset from rank
    /// 0's in nanoseconds (add it to be on rank 0's), if the run is traced.
    pub trace: Option<(treelb::trace::Trace, i64)>,
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use treelb::Reduce;
    use treelb::seq;
    use treelb_apps::clique::{CliqueSearch, Graph, Mode, Options};
    use treelb_apps::knapsack::{Class, Knapsack, Spec};
    use treelb_apps::tsp::{AscentParams, Tsp, TspSearch};
    use treelb_apps::uts::{SAMPLE_TREES, Uts};

    fn t1() -> Uts {
        let tree = SAMPLE_TREES.iter().find(|t| t.name == "T1").unwrap();
        Uts::new(treelb_apps::uts::Params::from_uts_str(tree.flags).unwrap()).unwrap()
    }

    #[test]
    fn uts_pieces_survive_the_wire_and_partition_the_tree() {
        let uts = Uts::new(treelb_apps::uts::Params::default()).unwrap();
        let (expected, _) = seq::run_search(&uts);
        for policy in SplitPolicy::ALL {
            let codec = DfsCodec::new(&uts, policy);
            let mut piece = codec.root();
            let mut total = Default::default();
            let mut sent = Vec::new();
            // Work a little, ship a split-off part, repeat.
            while !piece.work(7, &mut total).is_exhausted() {
                if let Some(part) = piece.split() {
                    let g = part.generation();
                    let mut bytes = Vec::new();
                    codec.encode(part, &mut bytes);
                    let back = codec.decode(&bytes).unwrap();
                    assert_eq!(back.generation(), g);
                    sent.push(back);
                }
            }
            for part in sent {
                total.merge(seq::run_work(part).0);
            }
            assert_eq!(total, expected, "{policy}");
        }
    }

    #[test]
    fn a_uts_node_costs_about_its_state() {
        let uts = t1();
        let codec = DfsCodec::new(&uts, SplitPolicy::OldestHalf);
        let mut bytes = Vec::new();
        codec.encode(codec.root(), &mut bytes);
        // 20 bytes of SHA-1 state, the height, the level mark, lengths.
        assert!(bytes.len() <= 26, "{} bytes", bytes.len());
    }

    /// A piece split off a game search travels with its frame's link; its
    /// value comes back as a counted note that the owner applies, and the
    /// search finds the minimax value.
    #[test]
    fn game_pieces_travel_and_their_values_come_back() {
        use treelb::game::{GameOutput, Net, YbwWork};
        use treelb_apps::gametree::GameTree;
        for seed in 0..20 {
            let tree = GameTree { branching: 4, depth: 6, weight: 10, ordering: 0.9, seed };
            let expected = tree.minimax(&tree.root());
            let (a, b) = (Net::new(0, 2, true), Net::new(1, 2, true));
            let (ca, cb) = (GameCodec::new(&tree, &a), GameCodec::new(&tree, &b));
            let mut piece = YbwWork::new(&tree, tree.root(), -100, 100, true).with_net(&a);
            let mut out = GameOutput::default();
            let stolen = loop {
                assert!(!piece.work(1, &mut out).is_exhausted(), "tree {seed}: nothing to steal");
                if let Some(part) = piece.split() {
                    break part;
                }
            };
            let mut bytes = Vec::new();
            ca.encode_to(stolen, 1, &mut bytes);
            let mut thief = cb.decode(&bytes).unwrap();
            while !thief.work(1000, &mut out).is_exhausted() {}
            let mut notes = Vec::new();
            cb.take_notes(&mut notes);
            assert_eq!(notes.len(), 1, "tree {seed}");
            assert!(notes[0].counted && notes[0].to == 0);
            let mut pieces = vec![piece];
            pieces.extend(ca.receive_note(&notes[0].bytes, &mut out).unwrap());
            for mut p in pieces {
                while !p.work(1000, &mut out).is_exhausted() {}
            }
            assert_eq!(out.value, Some(expected), "tree {seed}");
            assert_eq!(a.registered(), 0);
            assert!(ca.receive_note(&[0xFF, 0xFF, 0xFF], &mut out).is_err());
        }
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let uts = t1();
        let codec = DfsCodec::new(&uts, SplitPolicy::OldestHalf);
        assert!(codec.decode(&[0xFF, 0xFF, 0xFF]).is_err());

        // A knapsack stack: entries (first, new links, last, (level, cap,
        // profit)), a link (parent, item); distances count back.
        let instance = Spec::new(Class::StronglyCorrelated, 20, 100, 1).generate();
        let search = Knapsack::new(&instance);
        let codec = DfsCodec::new(&search, SplitPolicy::OldestHalf);
        let head = (3u32, 10i64, 50i64);
        // An entry without its head: its level mark, new links, last link.
        type Bare = (bool, Vec<(u64, u32)>, u64);
        let stack = |entries: Vec<Bare>| {
            let entries: Vec<_> =
                entries.into_iter().map(|(first, links, last)| (first, links, last, head)).collect();
            to_bytes(&(4u32, entries))
        };
        let valid =
            stack(vec![(true, vec![(0, 1), (1, 2)], 1), (false, vec![], 2), (false, vec![(2, 0)], 1)]);
        let piece = codec.decode(&valid).unwrap();
        assert_eq!((piece.open_nodes(), piece.generation()), (3, 4));
        // A parent before the first link, a last link past the table, also
        // in an entry after valid ones.
        for bad in [
            stack(vec![(true, vec![(1, 1)], 1)]),
            stack(vec![(true, vec![(0, 1), (3, 2)], 1)]),
            stack(vec![(true, vec![(0, 1)], 1), (false, vec![(2, 2)], 1)]),
            stack(vec![(true, vec![(0, 1)], 2)]),
            stack(vec![(true, vec![], 1)]),
            stack(vec![(true, vec![(0, 1), (1, 2)], 1), (false, vec![], 3)]),
            stack(vec![(true, vec![(0, 1)], u64::MAX)]),
            stack(vec![(true, vec![(u64::MAX, 1)], 1)]),
        ] {
            assert!(codec.decode(&bad).is_err());
        }
        // Every proper prefix of a real piece falls short.
        let mut piece = codec.root();
        piece.work(12, &mut Default::default());
        let mut bytes = Vec::new();
        codec.encode(piece, &mut bytes);
        for end in 0..bytes.len() {
            assert!(codec.decode(&bytes[..end]).is_err(), "{end} of {} bytes", bytes.len());
        }
    }

    proptest::proptest! {
        /// Whatever the bytes, decoding a piece of a chained search gives a
        /// piece or an error.
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            let instance = Spec::new(Class::StronglyCorrelated, 20, 100, 1).generate();
            let search = Knapsack::new(&instance);
            let _ = DfsCodec::new(&search, SplitPolicy::OldestHalf).decode(&bytes);
            let tsp = Tsp::random_matrix(6, 50, 1);
            let search = TspSearch::new(&tsp);
            let _ = DfsCodec::new(&search, SplitPolicy::OldestHalf).decode(&bytes);
        }
    }

    /// Works `one`'s root piece `budget` expansions, sends it (`whole`) or
    /// the piece split off it to `other`, a copy of the same search given
    /// the same incumbent, and checks that the bytes are the same when the
    /// received piece is sent again (the same nodes, levels and shared
    /// links) and that both copies of the piece give the same output and
    /// incumbent.
    fn same_work_after_the_wire<S>(
        one: &S,
        other: &S,
        incumbent: impl Fn(&S) -> &treelb::Incumbent<Vec<u32>>,
        budget: u64,
        policy: SplitPolicy,
        whole: bool,
    ) -> Result<(), proptest::test_runner::TestCaseError>
    where
        S: Search,
        S::Node: Clone + Serialize + DeserializeOwned,
        S::Output: PartialEq + std::fmt::Debug,
    {
        let (from, to) = (DfsCodec::new(one, policy), DfsCodec::new(other, policy));
        let mut piece = from.root();
        if piece.work(budget, &mut Default::default()).is_exhausted() {
            return Ok(());
        }
        let sent = if whole { piece } else { piece.split().unwrap_or(piece) };
        if let Some((value, witness)) = incumbent(one).snapshot() {
            incumbent(other).offer(value, || witness);
        }
        let mut bytes = Vec::new();
        from.encode(sent.clone(), &mut bytes);
        let received =
            to.decode(&bytes).map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
        proptest::prop_assert_eq!(received.generation(), sent.generation());
        let mut again = Vec::new();
        to.encode(received.clone(), &mut again);
        proptest::prop_assert!(
            again == bytes,
            "sent again: {} bytes, {} the first time",
            again.len(),
            bytes.len()
        );
        proptest::prop_assert_eq!(seq::run_work(sent).0, seq::run_work(received).0);
        proptest::prop_assert_eq!(incumbent(one).snapshot(), incumbent(other).snapshot());
        Ok(())
    }

    fn policy() -> impl proptest::strategy::Strategy<Value = SplitPolicy> {
        proptest::sample::select(SplitPolicy::ALL.to_vec())
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(48))]

        #[test]
        fn knapsack_pieces_keep_their_work(
            seed in 0u64..1000, n in 10usize..60, class in 0usize..4, budget in 1u64..400,
            policy in policy(), whole: bool,
        ) {
            let instance = Spec::new(Class::ALL[class], n, 1000, seed).generate();
            let (one, other) = (Knapsack::new(&instance), Knapsack::new(&instance));
            same_work_after_the_wire(&one, &other, |s| &s.incumbent, budget, policy, whole)?;
        }

        #[test]
        fn clique_pieces_keep_their_work(
            seed in 0u64..1000, n in 10usize..50, density in 0.3f64..0.9, budget in 1u64..200,
            sparse: bool, policy in policy(), whole: bool,
        ) {
            let graph = Graph::random(n, density, seed);
            let mode = if sparse { Mode::Sparse } else { Mode::Dense };
            let options = Options { mode, ..Options::default() };
            let one = CliqueSearch::with_options(&graph, options).unwrap();
            let other = CliqueSearch::with_options(&graph, options).unwrap();
            same_work_after_the_wire(&one, &other, |s| &s.incumbent, budget, policy, whole)?;
        }

        #[test]
        fn tsp_pieces_keep_their_work(
            seed in 0u64..1000, n in 5usize..11, budget in 1u64..40, policy in policy(), whole: bool,
        ) {
            let tsp = Tsp::random_matrix(n, 100, seed);
            let params = AscentParams::for_n(n);
            let (one, other) = (TspSearch::with_params(&tsp, params, false), TspSearch::with_params(&tsp, params, false));
            same_work_after_the_wire(&one, &other, |s| &s.incumbent, budget, policy, whole)?;
        }
    }

    /// The stack of a knapsack search after `n` expansions on one piece (a
    /// dive about `n` levels deep): its wire form, and its open nodes.
    fn knapsack_stack(n: usize) -> (Vec<u8>, usize) {
        let instance = Spec::new(Class::StronglyCorrelated, n, 1000, 2).generate();
        let search = Knapsack::new(&instance);
        let codec = DfsCodec::new(&search, SplitPolicy::OldestHalf);
        let mut piece = codec.root();
        piece.work(n as u64, &mut Default::default());
        let open = piece.open_nodes();
        let mut bytes = Vec::new();
        codec.encode(piece, &mut bytes);
        // Rebuilt, and dropped link by link: a chain as deep as the search.
        assert_eq!(codec.decode(&bytes).unwrap().open_nodes(), open);
        (bytes, open)
    }

    /// Each link of a deep stack travels once: the bytes grow linearly
    /// with the depth (each node with its whole chain: 12 MB at 5,000
    /// items, 198 MB at 20,000).
    #[test]
    fn a_knapsack_stack_costs_bytes_linear_in_its_depth() {
        let (small, _) = knapsack_stack(5_000);
        let (large, open) = knapsack_stack(20_000);
        assert!(open > 10_000, "a dive of {open} open nodes");
        assert!(
            large.len() < 6 * small.len(),
            "{} bytes at 20,000 items, {} at 5,000",
            large.len(),
            small.len()
        );
        assert!(large.len() < 24 * open, "{} bytes for {open} open nodes", large.len());
        let (huge, open) = knapsack_stack(100_000);
        assert!(huge.len() < 24 * open && huge.len() < 4 << 20, "{} bytes for {open} open nodes", huge.len());
    }

    #[test]
    fn stats_round_trip() {
        let s = PeStats {
            pe: 3,
            work_units: 9,
            messages: 4,
            busy: Duration::from_micros(1500),
            ..PeStats::default()
        };
        let back: PeStats = from_bytes(&to_bytes(&s)).unwrap();
        assert_eq!(back, s);
    }
}
