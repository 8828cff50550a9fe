//! Split policies for the DFS stack: which open nodes a donor gives away.

use std::fmt;
use std::str::FromStr;

use super::Entry;

/// Which open nodes of a DFS stack a split gives away.
///
/// Every policy gives away nodes the donor would reach last — the bottom of
/// the stack, or the bottom of each level — and keeps the donor's current
/// path intact. A stack with fewer than two open nodes is atomic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SplitPolicy {
    /// Half of the oldest generation (the bottom level of the stack), rounded
    /// down; a bottom level of one node is given away whole if the donor keeps
    /// other open nodes. The lecture's rule ([Lecture, load balancing], "Donating Work"): a node
    /// migrates with half of its siblings, so it takes part in at most
    /// ⌈log₂ d⌉ donations for branching factor `d`.
    OldestHalf,
    /// The single bottom-most open node.
    Bottom,
    /// Half of every level: of each level's `k` open nodes the bottom
    /// ⌊k/2⌋ go, and the odd node of a level of odd size goes alternately
    /// to the thief and stays with the donor (the thief first, from the
    /// bottom level up). Thief and donor get the same share of every
    /// generation, so the halves are even in expectation whatever the
    /// tree's shape. On deep, skinny trees (binomial UTS trees, where the
    /// bottom level soon holds one or two nodes of a subtree no larger than
    /// any other) a steal hands over half of all open subtrees, not one or
    /// two; a node still takes part in at most ⌈log₂ d⌉ donations for
    /// branching factor `d`, as with [`OldestHalf`](SplitPolicy::OldestHalf).
    /// The default: see `docs/benchmarks/` for the measurements.
    #[default]
    HalfEachLevel,
}

impl SplitPolicy {
    /// Every policy, in the order the documentation lists them.
    pub const ALL: [SplitPolicy; 3] =
        [SplitPolicy::OldestHalf, SplitPolicy::Bottom, SplitPolicy::HalfEachLevel];

    /// The policy's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            SplitPolicy::OldestHalf => "oldest-half",
            SplitPolicy::Bottom => "bottom",
            SplitPolicy::HalfEachLevel => "half-each-level",
        }
    }

    /// What a split gives away, in one line (for listings such as `--help`).
    pub fn description(self) -> &'static str {
        match self {
            SplitPolicy::OldestHalf => "half of the oldest generation of open nodes",
            SplitPolicy::Bottom => "the single bottom-most open node",
            SplitPolicy::HalfEachLevel => "half of every level of open nodes",
        }
    }
}

impl fmt::Display for SplitPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing an unknown split policy name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSplitPolicyError(String);

impl fmt::Display for ParseSplitPolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<_> = SplitPolicy::ALL.iter().map(|p| p.name()).collect();
        write!(f, "unknown split policy `{}` (expected one of: {})", self.0, names.join(", "))
    }
}

impl std::error::Error for ParseSplitPolicyError {}

impl FromStr for SplitPolicy {
    type Err = ParseSplitPolicyError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SplitPolicy::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| ParseSplitPolicyError(s.to_owned()))
    }
}

/// Removes the entries that `policy` gives away from the bottom of `stack` and
/// returns them as a stack of one level; `None` and no change if the stack
/// holds fewer than two nodes.
pub(super) fn take<N>(policy: SplitPolicy, stack: &mut Vec<Entry<N>>) -> Option<Vec<Entry<N>>> {
    if stack.len() < 2 {
        return None;
    }
    let count = match policy {
        SplitPolicy::OldestHalf => {
            let bottom_len = 1 + stack[1..].iter().take_while(|e| !e.first).count();
            (bottom_len / 2).max(1)
        }
        SplitPolicy::Bottom => 1,
        SplitPolicy::HalfEachLevel => return Some(half_each_level(stack)),
    };
    let mut given: Vec<Entry<N>> = stack.drain(..count).collect();
    // The given nodes form one level; what stays keeps a level at the bottom.
    given[0].first = true;
    stack[0].first = true;
    Some(given)
}

/// [`SplitPolicy::HalfEachLevel`] on a stack of at least two entries: moves
/// the bottom part of every level out, in one pass that compacts what stays
/// in place (the donor keeps its buffer), and marks the first entry of every
/// level on both sides.
fn half_each_level<N>(stack: &mut Vec<Entry<N>>) -> Vec<Entry<N>> {
    // Level sizes, bottom first (the bottom entry always starts a level).
    let mut sizes: Vec<usize> = Vec::new();
    for e in stack.iter() {
        match sizes.last_mut() {
            Some(n) if !e.first => *n += 1,
            _ => sizes.push(1),
        }
    }
    let mut odd_to_thief = true;
    let mut share = |k: usize| {
        let mut g = k / 2;
        if k % 2 == 1 {
            g += usize::from(odd_to_thief);
            odd_to_thief = !odd_to_thief;
        }
        g
    };
    let (mut level, mut pos, mut give) = (0, 0, share(sizes[0]));
    // The thief's part takes about half the entries; as much room again
    // lets its search grow without reallocating at once (a pushing
    // strategy splits every slice, and the reallocations showed in its
    // profile).
    let mut given: Vec<Entry<N>> = Vec::with_capacity(stack.len());
    given.extend(stack.extract_if(.., |e| {
        if pos == sizes[level] {
            level += 1;
            pos = 0;
            give = share(sizes[level]);
        }
        let to_thief = pos < give;
        // The first entry the donor keeps of this level starts it now
        // (the thief's part starts where the level did, flag and all).
        if pos == give {
            e.first = true;
        }
        pos += 1;
        to_thief
    }));
    debug_assert!(!given.is_empty() && !stack.is_empty());
    given
}
