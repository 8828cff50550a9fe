//! Chains of shared links: a node's path from the root as `Arc` links, each
//! pointing to its parent's, so that siblings share their common prefix
//! instead of copying it.
//!
//! # Dropping
//!
//! Dropping such a chain the derived way recurses once per link: a search
//! a hundred thousand levels deep (a knapsack of 100,000 items) overflows
//! the thread's stack when its open nodes are dropped — at the end of a
//! run stopped early, or when a piece is given away. [`unlink`] drops the
//! links one after the other instead, in a loop, and stops at the first
//! link that another chain still holds (that chain drops the rest later).
//!
//! ```
//! use std::sync::Arc;
//! use treelb::search::chain::unlink;
//!
//! struct Link {
//!     prev: Option<Arc<Link>>,
//! }
//! impl Drop for Link {
//!     fn drop(&mut self) {
//!         unlink(self.prev.take(), |l| l.prev.take());
//!     }
//! }
//! // A million links, dropped without a million stack frames.
//! let mut last = None;
//! for _ in 0..1_000_000 {
//!     last = Some(Arc::new(Link { prev: last }));
//! }
//! drop(last);
//! ```
//!
//! # On the wire
//!
//! A piece of a search `d` levels deep holds about `d` open nodes (a level
//! or two of siblings per level), each with a chain of up to `d` links. Each
//! node serialized on its own writes its whole chain: about `d²/2` links
//! for `d` distinct ones (a knapsack of 20,000 items: 198 MB for one PE's
//! stack). [`serialize_stack`] writes a whole stack of nodes whose chains a
//! [`Chains`] describes instead, each distinct link once, and
//! [`deserialize_stack`] rebuilds the links shared as they were. A
//! [`Search`](super::Search) whose nodes are chained says so by overriding
//! [`Search::serialize_stack`](super::Search::serialize_stack) and
//! [`Search::deserialize_stack`](super::Search::deserialize_stack) with
//! these two; a runtime that sends pieces or writes them to a checkpoint
//! calls those hooks.
//!
//! The form, in serde's data model: a sequence of the stack's entries,
//! bottom first, each a tuple `(first, links, last, head)`:
//!
//! * `first`: the entry's level mark;
//! * `links`: the links of its chain that no earlier entry's chain holds,
//!   root-most first, each a pair `(parent, step)`: the link's own data
//!   ([`Chains::step`]) and its parent as a distance back in the order in
//!   which the links are written, over the whole stack — `0`: it has none
//!   (it is the root-most link), `k ≥ 1`: the link written `k` places before
//!   it;
//! * `last`: the node's own last link, as a distance back from the end of
//!   the links written so far (`0`: the node has no chain; usually `1`);
//! * `head`: the rest of the node ([`Chains::head`]).
//!
//! **Why each link is written once, and after its parent.** The encoder
//! numbers the links in the order it writes them, in a map from address
//! ([`Arc::as_ptr`]) to number. The addresses tell links apart: every link
//! is held by the borrowed stack for the whole encoding, so no two live
//! links share one. For each entry it walks the node's chain from its last
//! link towards the root and stops at the first link already numbered (or
//! past the root): by induction every ancestor of a numbered link is
//! numbered, so the links passed are exactly the chain's unwritten ones,
//! and writing them root-most first puts every parent before its child —
//! a distance of at least 1. Each step of a walk either numbers a new link
//! or ends the walk, so encoding costs one map look-up per distinct link
//! plus one per entry: the bytes, the time and the memory are linear in
//! the number of distinct links plus the number of entries.
//!
//! **Why decoding gives the same piece.** The decoder keeps a table of the
//! links rebuilt so far, in the same order: link `i` is
//! [`Chains::link`] of its step and of table entry `i − k`, a link rebuilt
//! from the same data in the same way, so by induction on `i` every rebuilt
//! chain reads as the sent one; a node is [`Chains::join`] of its head and
//! its last link's table entry. Nodes that shared a link on the sending
//! side share the one rebuilt `Arc`: the decoded stack has the sent stack's
//! shape in memory, linear as well. A distance that points before the
//! first link (`k > i`), or a last link past the table, is an error, never
//! a panic; a parent is always an earlier link, so malformed bytes cannot
//! make a cycle.
//!
//! ```
//! use std::sync::Arc;
//! use treelb::search::chain::{self, Chains};
//! use treelb::search::{Children, DfsWork, Search, SplitPolicy};
//! use treelb::{seq, Work};
//!
//! /// One bit of a string, linked to the bits before it.
//! struct Bit {
//!     bit: bool,
//!     prev: Option<Arc<Bit>>,
//! }
//! impl Drop for Bit {
//!     fn drop(&mut self) {
//!         chain::unlink(self.prev.take(), |l| l.prev.take());
//!     }
//! }
//!
//! /// A bit string: its length, its number of ones and its last bit.
//! struct Node {
//!     len: u32,
//!     ones: u32,
//!     last: Option<Arc<Bit>>,
//! }
//! /// How a `Node` holds its bits.
//! struct Bits;
//! impl Chains for Bits {
//!     type Node = Node;
//!     type Link = Bit;
//!     type Step = bool;
//!     type Head = (u32, u32);
//!     fn last(node: &Node) -> Option<&Arc<Bit>> {
//!         node.last.as_ref()
//!     }
//!     fn prev(link: &Bit) -> Option<&Arc<Bit>> {
//!         link.prev.as_ref()
//!     }
//!     fn step(link: &Bit) -> impl serde::Serialize + '_ {
//!         link.bit
//!     }
//!     fn head(node: &Node) -> impl serde::Serialize + '_ {
//!         (node.len, node.ones)
//!     }
//!     fn link(bit: bool, prev: Option<Arc<Bit>>) -> Bit {
//!         Bit { bit, prev }
//!     }
//!     fn join((len, ones): (u32, u32), last: Option<Arc<Bit>>) -> Node {
//!         Node { len, ones, last }
//!     }
//! }
//!
//! /// Counts the bit strings of up to `self.0` bits with at most two ones.
//! struct Strings(u32);
//! impl Search for Strings {
//!     type Node = Node;
//!     type Output = u64;
//!     fn root(&self) -> Node {
//!         Node { len: 0, ones: 0, last: None }
//!     }
//!     fn expand(&self, node: Node, acc: &mut u64, children: &mut Children<'_, Node>) {
//!         *acc += 1;
//!         if node.len < self.0 {
//!             // A zero pushed last: the search dives along zeros, a one
//!             // left open at every level.
//!             let bits: &[bool] = if node.ones < 2 { &[true, false] } else { &[false] };
//!             for &bit in bits {
//!                 let last = Some(Arc::new(Bit { bit, prev: node.last.clone() }));
//!                 children.push(Node { len: node.len + 1, ones: node.ones + u32::from(bit), last });
//!             }
//!         }
//!     }
//!     fn serialize_stack<Z: serde::Serializer>(
//!         &self,
//!         stack: &[treelb::search::Entry<Node>],
//!         serializer: Z,
//!     ) -> Result<Z::Ok, Z::Error> {
//!         chain::serialize_stack::<Bits, _>(stack, serializer)
//!     }
//!     fn deserialize_stack<'de, D: serde::Deserializer<'de>>(
//!         &self,
//!         deserializer: D,
//!     ) -> Result<Vec<treelb::search::Entry<Node>>, D::Error> {
//!         chain::deserialize_stack::<Bits, _>(deserializer)
//!     }
//! }
//!
//! let search = Strings(120);
//! let mut piece = DfsWork::new(&search, SplitPolicy::OldestHalf);
//! let mut count = 0;
//! piece.work(100, &mut count); // a dive: 100 open nodes, chains up to 100 links
//! let (stack, generation) = piece.into_parts();
//! let mut json = Vec::new();
//! chain::serialize_stack::<Bits, _>(&stack, &mut serde_json::Serializer::new(&mut json)).unwrap();
//! // Each of the 200 links once, not once per node that holds it.
//! assert!(json.len() < 40 * stack.len(), "{} bytes", json.len());
//! let back = chain::deserialize_stack::<Bits, _>(&mut serde_json::Deserializer::from_slice(&json)).unwrap();
//! let sent = seq::run_work(DfsWork::from_parts(&search, stack, generation, SplitPolicy::OldestHalf)).0;
//! let received = seq::run_work(DfsWork::from_parts(&search, back, generation, SplitPolicy::OldestHalf)).0;
//! assert_eq!(sent, received);
//! ```

use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use serde::de::{self, DeserializeOwned, DeserializeSeed, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, SerializeTuple};
use serde::{Deserializer, Serialize, Serializer};

use super::Entry;

/// Drops the chain that starts at `first` iteratively: while this is the
/// last holder of a link, takes the link's parent out of it (`prev`) before
/// the link is dropped, so that no drop recurses into the next. A link's
/// own `Drop` calls it with its parent.
pub fn unlink<T>(first: Option<Arc<T>>, mut prev: impl FnMut(&mut T) -> Option<Arc<T>>) {
    let mut next = first;
    while let Some(link) = next {
        next = match Arc::try_unwrap(link) {
            Ok(mut last_holder) => prev(&mut last_holder),
            // Shared with another chain, which drops it in turn.
            Err(_) => None,
        };
    }
}

/// How the nodes of a search (of type [`Chains::Node`]) hold their paths
/// as chains of shared links: what [`serialize_stack`] and
/// [`deserialize_stack`] need to write each link of a stack once and to
/// rebuild the links shared. A search implements it on a type of its own,
/// often an empty one, that names the node type, so that its link type can
/// stay private.
///
/// The contract: [`Chains::link`] of a link's [`Chains::step`] (read back
/// as [`Chains::Step`]) and of its parent is the same link, and
/// [`Chains::join`] of a node's [`Chains::head`] (read back as
/// [`Chains::Head`]) and of its last link is the same node. `step` and
/// `head` return borrowed forms, so that writing copies nothing; their
/// serde forms must be those of `Step` and `Head` (a `&[u64]` is read back
/// as a `Box<[u64]>`, a tuple of fields as the same tuple). A link should
/// drop its parent with [`unlink`]: a decoded chain is as deep as the sent
/// one. See the [module documentation](self) for an example.
pub trait Chains {
    /// The nodes.
    type Node;
    /// One link of a node's chain.
    type Link;
    /// A link's own data, as it is read back.
    type Step: DeserializeOwned;
    /// A node without its chain, as it is read back.
    type Head: DeserializeOwned;

    /// The node's last link (`None`: the node has no chain yet).
    fn last(node: &Self::Node) -> Option<&Arc<Self::Link>>;

    /// The link before `link` (`None`: `link` is the root-most one).
    fn prev(link: &Self::Link) -> Option<&Arc<Self::Link>>;

    /// The data of `link` without its parent, to write.
    fn step(link: &Self::Link) -> impl Serialize + '_;

    /// The node without its chain, to write.
    fn head(node: &Self::Node) -> impl Serialize + '_;

    /// The link made of `step`, after `prev`.
    fn link(step: Self::Step, prev: Option<Arc<Self::Link>>) -> Self::Link;

    /// The node made of `head`, with `last` as its last link.
    fn join(head: Self::Head, last: Option<Arc<Self::Link>>) -> Self::Node;
}

/// Writes `stack` with each distinct link of its nodes' chains once: in
/// bytes, time and memory linear in the links plus the entries (the form
/// and why it is correct: the [module documentation](self)). For
/// [`Search::serialize_stack`](super::Search::serialize_stack).
pub fn serialize_stack<C: Chains, Z: Serializer>(
    stack: &[Entry<C::Node>],
    serializer: Z,
) -> Result<Z::Ok, Z::Error> {
    // The number of every link written so far, by address.
    let mut written: HashMap<*const C::Link, usize> = HashMap::new();
    // An entry's unwritten links, last first, then as written: root-most
    // first, with the distance back to the parent.
    let mut fresh: Vec<&Arc<C::Link>> = Vec::new();
    let mut links: Vec<(u64, &C::Link)> = Vec::new();
    let mut seq = serializer.serialize_seq(Some(stack.len()))?;
    for entry in stack {
        fresh.clear();
        // The number of the nearest link of the chain already written.
        let mut parent = None;
        let mut at = C::last(&entry.node);
        while let Some(link) = at {
            if let Some(&number) = written.get(&Arc::as_ptr(link)) {
                parent = Some(number);
                break;
            }
            fresh.push(link);
            at = C::prev(link);
        }
        links.clear();
        for &link in fresh.iter().rev() {
            let number = written.len();
            links.push((parent.map_or(0, |p| (number - p) as u64), &**link));
            written.insert(Arc::as_ptr(link), number);
            parent = Some(number);
        }
        // Now the number of the node's last link.
        let last = parent.map_or(0, |p| (written.len() - p) as u64);
        seq.serialize_element(&EntryOut::<C> { first: entry.first, links: &links, last, node: &entry.node })?;
    }
    seq.end()
}

/// One entry as [`serialize_stack`] writes it.
struct EntryOut<'a, C: Chains> {
    first: bool,
    links: &'a [(u64, &'a C::Link)],
    last: u64,
    node: &'a C::Node,
}

impl<C: Chains> Serialize for EntryOut<'_, C> {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        let mut tuple = serializer.serialize_tuple(4)?;
        tuple.serialize_element(&self.first)?;
        tuple.serialize_element(&LinksOut::<C>(self.links))?;
        tuple.serialize_element(&self.last)?;
        tuple.serialize_element(&C::head(self.node))?;
        tuple.end()
    }
}

/// An entry's new links: pairs `(parent, step)`.
struct LinksOut<'a, C: Chains>(&'a [(u64, &'a C::Link)]);

impl<C: Chains> Serialize for LinksOut<'_, C> {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serializer.collect_seq(self.0.iter().map(|&(parent, link)| (parent, C::step(link))))
    }
}

/// Reads a stack written by [`serialize_stack`], rebuilding the links
/// shared as they were sent. Malformed input is an error: a link whose
/// parent is not an earlier link, a node whose last link was not read.
/// For [`Search::deserialize_stack`](super::Search::deserialize_stack).
pub fn deserialize_stack<'de, C: Chains, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<Entry<C::Node>>, D::Error> {
    deserializer.deserialize_seq(StackIn::<C>(PhantomData))
}

/// At most this many entries or links are allocated ahead on the word of
/// the input: a length that is a lie costs no more than this.
const AHEAD: usize = 4096;

/// Reads the sequence of entries.
struct StackIn<C>(PhantomData<C>);

impl<'de, C: Chains> Visitor<'de> for StackIn<C> {
    type Value = Vec<Entry<C::Node>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a stack of nodes with the links of their chains")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut table = Vec::new();
        let mut stack = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(AHEAD));
        while let Some(entry) = seq.next_element_seed(EntryIn::<C> { table: &mut table })? {
            stack.push(entry);
        }
        Ok(stack)
    }
}

/// Reads one entry, adding its links to the table of those read so far.
struct EntryIn<'t, C: Chains> {
    table: &'t mut Vec<Arc<C::Link>>,
}

impl<'de, C: Chains> DeserializeSeed<'de> for EntryIn<'_, C> {
    type Value = Entry<C::Node>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Entry<C::Node>, D::Error> {
        deserializer.deserialize_tuple(4, self)
    }
}

impl<'de, C: Chains> Visitor<'de> for EntryIn<'_, C> {
    type Value = Entry<C::Node>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an entry: its level mark, its new links, its last link and its node")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Entry<C::Node>, A::Error> {
        let short = |read| de::Error::invalid_length(read, &"an entry of 4 fields");
        let first: bool = seq.next_element()?.ok_or_else(|| short(0))?;
        seq.next_element_seed(LinksIn::<C> { table: &mut *self.table })?.ok_or_else(|| short(1))?;
        let last: u64 = seq.next_element()?.ok_or_else(|| short(2))?;
        let head: C::Head = seq.next_element()?.ok_or_else(|| short(3))?;
        let last = back(self.table, last).map_err(|()| {
            de::Error::custom(format_args!("a node's last link is {last} links back, past the first"))
        })?;
        Ok(Entry { node: C::join(head, last), first })
    }
}

/// Reads an entry's new links into the table.
struct LinksIn<'t, C: Chains> {
    table: &'t mut Vec<Arc<C::Link>>,
}

impl<'de, C: Chains> DeserializeSeed<'de> for LinksIn<'_, C> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, C: Chains> Visitor<'de> for LinksIn<'_, C> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("links as pairs of a parent and a step")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.table.reserve(seq.size_hint().unwrap_or(0).min(AHEAD));
        while let Some((parent, step)) = seq.next_element::<(u64, C::Step)>()? {
            let number = self.table.len();
            let prev = back(self.table, parent).map_err(|()| {
                de::Error::custom(format_args!(
                    "link {number} names a parent {parent} links back, past the first"
                ))
            })?;
            self.table.push(Arc::new(C::link(step, prev)));
        }
        Ok(())
    }
}

/// The link `distance` places before the end of `table` (`0`: none); an
/// error if that is before its first.
fn back<L>(table: &[Arc<L>], distance: u64) -> Result<Option<Arc<L>>, ()> {
    if distance == 0 {
        return Ok(None);
    }
    let at = usize::try_from(distance).ok().and_then(|d| table.len().checked_sub(d)).ok_or(())?;
    table.get(at).cloned().map(Some).ok_or(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A link holding a number.
    struct Link {
        value: u32,
        prev: Option<Arc<Link>>,
    }

    impl Drop for Link {
        fn drop(&mut self) {
            unlink(self.prev.take(), |l| l.prev.take());
        }
    }

    /// A node: a tag and its chain.
    struct Node {
        tag: u8,
        last: Option<Arc<Link>>,
    }

    struct Numbers;

    impl Chains for Numbers {
        type Node = Node;
        type Link = Link;
        type Step = u32;
        type Head = u8;
        fn last(node: &Node) -> Option<&Arc<Link>> {
            node.last.as_ref()
        }
        fn prev(link: &Link) -> Option<&Arc<Link>> {
            link.prev.as_ref()
        }
        fn step(link: &Link) -> impl Serialize + '_ {
            link.value
        }
        fn head(node: &Node) -> impl Serialize + '_ {
            node.tag
        }
        fn link(value: u32, prev: Option<Arc<Link>>) -> Link {
            Link { value, prev }
        }
        fn join(tag: u8, last: Option<Arc<Link>>) -> Node {
            Node { tag, last }
        }
    }

    fn after(prev: &Option<Arc<Link>>, value: u32) -> Option<Arc<Link>> {
        Some(Arc::new(Link { value, prev: prev.clone() }))
    }

    fn values(node: &Node) -> Vec<u32> {
        let mut out = Vec::new();
        let mut at = node.last.as_deref();
        while let Some(link) = at {
            out.push(link.value);
            at = link.prev.as_deref();
        }
        out
    }

    fn write(stack: &[Entry<Node>]) -> String {
        let mut out = Vec::new();
        serialize_stack::<Numbers, _>(stack, &mut serde_json::Serializer::new(&mut out)).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn read(json: &str) -> Result<Vec<Entry<Node>>, serde_json::Error> {
        deserialize_stack::<Numbers, _>(&mut serde_json::Deserializer::from_str(json))
    }

    /// A root-most link 1; 2 after it; 3 and 4 both after 2; nodes on 4, on
    /// 3, on 2 (shared), with no chain, and on 4 again.
    fn sample() -> Vec<Entry<Node>> {
        let one = after(&None, 1);
        let two = after(&one, 2);
        let (three, four) = (after(&two, 3), after(&two, 4));
        [(0, &four, true), (1, &three, false), (2, &two, true), (3, &None, false), (4, &four, false)]
            .into_iter()
            .map(|(tag, last, first)| Entry { node: Node { tag, last: last.clone() }, first })
            .collect()
    }

    #[test]
    fn each_link_is_written_once_after_its_parent() {
        let json = write(&sample());
        assert_eq!(
            json,
            "[[true,[[0,1],[1,2],[1,4]],1,0],[false,[[2,3]],1,1],[true,[],3,2],[false,[],0,3],[false,[],2,4]]"
        );
    }

    #[test]
    fn a_read_stack_shares_its_links_as_the_written_one() {
        let sent = sample();
        let back = read(&write(&sent)).unwrap();
        let shape = |s: &[Entry<Node>]| -> Vec<(u8, bool, Vec<u32>)> {
            s.iter().map(|e| (e.node.tag, e.first, values(&e.node))).collect()
        };
        assert_eq!(shape(&back), shape(&sent));
        let link = |i: usize| back[i].node.last.as_ref().unwrap();
        assert!(Arc::ptr_eq(link(0), link(4)));
        assert!(Arc::ptr_eq(link(0).prev.as_ref().unwrap(), link(2)));
        assert!(Arc::ptr_eq(link(1).prev.as_ref().unwrap(), link(2)));
        // The table is gone: each link is held by its nodes and children.
        assert_eq!(Arc::strong_count(link(2)), 3);
        assert_eq!(write(&back), write(&sent));
    }

    #[test]
    fn malformed_tables_are_errors() {
        for (json, what) in [
            ("[[true,[[1,7]],1,0]]", "link 0 names a parent 1 links back"),
            ("[[true,[[0,7],[2,8]],1,0]]", "link 1 names a parent 2 links back"),
            ("[[true,[[0,7]],1,0],[false,[[18446744073709551615,8]],1,1]]", "link 1 names a parent"),
            ("[[true,[[0,7]],2,0]]", "a node's last link is 2 links back"),
            ("[[true,[],1,0]]", "a node's last link is 1 links back"),
            ("[[true,[[0,7]],1]]", "invalid length 3"),
            ("[[true,[[0,7]],1,0,5]]", "trailing"),
        ] {
            let error = read(json).err().unwrap_or_else(|| panic!("{json} was read")).to_string();
            assert!(error.contains(what), "{json}: {error}");
        }
    }

    #[test]
    fn a_deep_read_chain_drops_link_by_link() {
        let mut last = None;
        for value in 0..200_000 {
            last = after(&last, value);
        }
        let stack = vec![Entry { node: Node { tag: 0, last }, first: true }];
        let back = read(&write(&stack)).unwrap();
        drop(stack);
        assert_eq!(values(&back[0].node).len(), 200_000);
        drop(back);
    }
}
