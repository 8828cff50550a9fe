//! Split policies for the DFS stack: which open nodes a donor gives away.

use std::fmt;
use std::str::FromStr;

use super::Entry;

/// Which open nodes of a DFS stack a split gives away.
///
/// Both policies give away nodes from the *bottom* of the stack — the oldest
/// generation, the roots of the largest unexplored subtrees — and keep the
/// donor's current path intact. A stack with fewer than two open nodes is
/// atomic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SplitPolicy {
    /// Half of the oldest generation (the bottom level of the stack), rounded
    /// down; a bottom level of one node is given away whole if the donor keeps
    /// other open nodes. The lecture's rule (`002_…`, "Donating Work"): a node
    /// migrates with half of its siblings, so it takes part in at most
    /// ⌈log₂ d⌉ donations for branching factor `d`.
    #[default]
    OldestHalf,
    /// The single bottom-most open node.
    Bottom,
}

impl SplitPolicy {
    /// Every policy, in the order the documentation lists them.
    pub const ALL: [SplitPolicy; 2] = [SplitPolicy::OldestHalf, SplitPolicy::Bottom];

    /// The policy's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            SplitPolicy::OldestHalf => "oldest-half",
            SplitPolicy::Bottom => "bottom",
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
    };
    let mut given: Vec<Entry<N>> = stack.drain(..count).collect();
    // The given nodes form one level; what stays keeps a level at the bottom.
    given[0].first = true;
    stack[0].first = true;
    Some(given)
}
