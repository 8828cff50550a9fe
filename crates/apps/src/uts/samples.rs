//! The sample trees of the UTS distribution (`sample_trees.sh`) with their
//! published statistics.

use super::params::Params;
use super::tree::UtsResult;

/// A named sample tree of the UTS distribution with its published statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampleTree {
    /// The name, e.g. `"T1"`.
    pub name: &'static str,
    /// What kind of tree it is, as `sample_trees.sh` describes it.
    pub description: &'static str,
    /// The reference's flags that generate the tree.
    pub flags: &'static str,
    /// The published number of nodes.
    pub nodes: u64,
    /// The published number of leaves, where published.
    pub leaves: Option<u64>,
    /// The published tree depth (largest node height), where published.
    pub max_depth: Option<u64>,
}

/// The sample trees, smallest group first.
///
/// `default` is the tree of the reference's default parameters (its size and
/// leaves as the reference's verification code lists them). The others are
/// the trees of `sample_trees.sh` with their published statistics. This
/// implementation reproduces every published statistic of all of them except
/// the wicked large trees T1WL, T2WL and T3WL (150–300 billion nodes), which
/// have not been run; the tests check `default` and T1–T5.
pub const SAMPLE_TREES: &[SampleTree] = &[
    sample("default", "Geometric [linear dec.]", "", 1_732, Some(1_050), None),
    // Small workloads (~4 million nodes).
    sample("T1", "Geometric [fixed]", "-t 1 -a 3 -d 10 -b 4 -r 19", 4_130_071, Some(3_305_118), Some(10)),
    sample("T2", "Geometric [cyclic]", "-t 1 -a 2 -d 16 -b 6 -r 502", 4_117_769, Some(2_342_762), Some(81)),
    sample("T3", "Binomial", "-t 0 -b 2000 -q 0.124875 -m 8 -r 42", 4_112_897, Some(3_599_034), Some(1_572)),
    sample(
        "T4",
        "Hybrid",
        "-t 2 -a 0 -d 16 -b 6 -r 1 -q 0.234375 -m 4",
        4_132_453,
        Some(3_108_986),
        Some(134),
    ),
    sample(
        "T5",
        "Geometric [linear dec.]",
        "-t 1 -a 0 -d 20 -b 4 -r 34",
        4_147_582,
        Some(2_181_318),
        Some(20),
    ),
    // Large workloads (~100 million nodes).
    sample("T1L", "Geometric [fixed]", "-t 1 -a 3 -d 13 -b 4 -r 29", 102_181_082, Some(81_746_377), Some(13)),
    sample(
        "T2L",
        "Geometric [cyclic]",
        "-t 1 -a 2 -d 23 -b 7 -r 220",
        96_793_510,
        Some(53_791_152),
        Some(67),
    ),
    sample(
        "T3L",
        "Binomial",
        "-t 0 -b 2000 -q 0.200014 -m 5 -r 7",
        111_345_631,
        Some(89_076_904),
        Some(17_844),
    ),
    // Extra large workloads (~1.6 billion nodes).
    sample(
        "T1XL",
        "Geometric [fixed]",
        "-t 1 -a 3 -d 15 -b 4 -r 29",
        1_635_119_272,
        Some(1_308_100_063),
        Some(15),
    ),
    // Extra extra large workloads (~3-10 billion nodes).
    sample("T1XXL", "Geometric [fixed]", "-t 1 -a 3 -d 15 -b 4 -r 19", 4_230_646_601, None, Some(15)),
    sample("T3XXL", "Binomial", "-t 0 -b 2000 -q 0.499995 -m 2 -r 316", 2_793_220_501, None, None),
    sample(
        "T2XXL",
        "Binomial",
        "-t 0 -b 2000 -q 0.499999995 -m 2 -r 0",
        10_612_052_303,
        Some(5_306_027_151),
        Some(216_370),
    ),
    // Wicked large workloads (~150-300 billion nodes).
    sample(
        "T1WL",
        "Geometric [fixed]",
        "-t 1 -a 3 -d 18 -b 4 -r 19",
        270_751_679_750,
        Some(216_601_257_283),
        Some(18),
    ),
    sample(
        "T2WL",
        "Binomial",
        "-t 0 -b 2000 -q 0.4999999995 -m 2 -r 559",
        295_393_891_003,
        Some(147_696_946_501),
        Some(1_021_239),
    ),
    sample(
        "T3WL",
        "Binomial",
        "-t 0 -b 2000 -q 0.4999995 -m 2 -r 559",
        157_063_495_159,
        Some(78_531_748_579),
        Some(758_577),
    ),
];

const fn sample(
    name: &'static str,
    description: &'static str,
    flags: &'static str,
    nodes: u64,
    leaves: Option<u64>,
    max_depth: Option<u64>,
) -> SampleTree {
    SampleTree { name, description, flags, nodes, leaves, max_depth }
}

impl SampleTree {
    /// The sample tree of the given name (ignoring ASCII case), if any.
    ///
    /// ```
    /// use treelb_apps::uts::SampleTree;
    /// assert_eq!(SampleTree::find("t3").unwrap().nodes, 4_112_897);
    /// assert!(SampleTree::find("T9").is_none());
    /// ```
    pub fn find(name: &str) -> Option<&'static SampleTree> {
        SAMPLE_TREES.iter().find(|s| s.name.eq_ignore_ascii_case(name))
    }

    /// The parameters of the tree.
    pub fn params(&self) -> Params {
        Params::from_uts_str(self.flags).expect("the flags of every sample tree are valid")
    }

    /// Whether `result` agrees with every published statistic of the tree.
    pub fn matches(&self, result: &UtsResult) -> bool {
        result.nodes == self.nodes
            && self.leaves.is_none_or(|leaves| result.leaves == leaves)
            && self.max_depth.is_none_or(|depth| result.max_depth == depth)
    }
}

/// The names of all sample trees, in the order of [`SAMPLE_TREES`].
pub fn sample_names() -> impl Iterator<Item = &'static str> {
    SAMPLE_TREES.iter().map(|s| s.name)
}

impl Params {
    /// The parameters of the named sample tree (ignoring ASCII case) and its
    /// published number of nodes; see [`SAMPLE_TREES`].
    ///
    /// ```
    /// use treelb_apps::uts::Params;
    /// let (params, nodes) = Params::sample("T1").unwrap();
    /// assert_eq!((params.gen_mx, params.root_seed, nodes), (10, 19, 4_130_071));
    /// ```
    pub fn sample(name: &str) -> Option<(Params, u64)> {
        SampleTree::find(name).map(|s| (s.params(), s.nodes))
    }
}
