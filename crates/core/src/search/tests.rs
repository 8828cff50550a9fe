//! Exactly-once accounting: whatever sequence of work steps and splits is
//! applied to pieces of a random tree, every node is expanded exactly once.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;
use crate::seq;

/// A pseudo-random tree defined by a seed: a node is (id, depth) and the number
/// of its children is a hash of its id, so the tree is irregular but fixed.
struct RandomTree {
    seed: u64,
    max_children: u64,
    max_depth: u32,
}

fn mix(mut z: u64) -> u64 {
    // splitmix64's finaliser
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// How many times each node id was expanded.
#[derive(Default, Debug, PartialEq, Eq)]
struct Visits(BTreeMap<u64, u32>);

impl Reduce for Visits {
    fn merge(&mut self, other: Self) {
        for (id, n) in other.0 {
            *self.0.entry(id).or_default() += n;
        }
    }
}

impl Search for RandomTree {
    type Node = (u64, u32);
    type Output = Visits;

    fn root(&self) -> (u64, u32) {
        (mix(self.seed), 0)
    }

    fn expand(&self, (id, depth): (u64, u32), acc: &mut Visits, children: &mut Children<'_, (u64, u32)>) {
        *acc.0.entry(id).or_default() += 1;
        if depth < self.max_depth {
            let n = mix(id ^ 0x5555) % (self.max_children + 1);
            for i in 0..n {
                children.push((mix(id.wrapping_add(i + 1)), depth + 1));
            }
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    Work { piece: usize, budget: u64 },
    Split { piece: usize },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (any::<usize>(), 0u64..20).prop_map(|(piece, budget)| Op::Work { piece, budget }),
        any::<usize>().prop_map(|piece| Op::Split { piece }),
    ]
}

fn policy() -> impl Strategy<Value = SplitPolicy> {
    prop_oneof![Just(SplitPolicy::OldestHalf), Just(SplitPolicy::Bottom)]
}

proptest! {
    #[test]
    fn splits_and_work_steps_expand_every_node_exactly_once(
        seed in any::<u64>(),
        max_children in 0u64..6,
        max_depth in 0u32..7,
        policy in policy(),
        ops in proptest::collection::vec(op(), 0..200),
    ) {
        let tree = RandomTree { seed, max_children, max_depth };
        let (expected, expected_nodes) = seq::run_search(&tree);
        prop_assert!(expected.0.values().all(|&n| n == 1), "the random tree repeats a node id");

        let mut pieces = vec![DfsWork::new(&tree, policy)];
        let mut acc = Visits::default();
        let mut units = 0;
        for op in ops {
            match op {
                Op::Work { piece, budget } => {
                    let i = piece % pieces.len();
                    let progress = pieces[i].work(budget, &mut acc);
                    units += progress.used(budget);
                    prop_assert!(progress.used(budget) <= budget);
                    if progress.is_exhausted() {
                        prop_assert_eq!(pieces[i].open_nodes(), 0);
                        if pieces.len() > 1 {
                            pieces.swap_remove(i);
                        }
                    }
                }
                Op::Split { piece } => {
                    let i = piece % pieces.len();
                    let generation = pieces[i].generation();
                    let before = pieces[i].open_nodes();
                    match pieces[i].split() {
                        Some(other) => {
                            prop_assert!(before >= 2);
                            prop_assert!(other.open_nodes() >= 1 && pieces[i].open_nodes() >= 1);
                            prop_assert_eq!(other.open_nodes() + pieces[i].open_nodes(), before);
                            prop_assert_eq!(other.generation(), generation + 1);
                            prop_assert_eq!(pieces[i].generation(), generation + 1);
                            pieces.push(other);
                        }
                        None => {
                            prop_assert!(before < 2);
                            prop_assert_eq!(pieces[i].generation(), generation);
                        }
                    }
                }
            }
        }
        for mut piece in pieces {
            loop {
                let progress = piece.work(7, &mut acc);
                units += progress.used(7);
                if progress.is_exhausted() {
                    break;
                }
            }
        }
        prop_assert_eq!(units, expected_nodes);
        prop_assert_eq!(acc, expected);
    }
}

/// A stack 0 | 1 2 3 | 4 5 (levels of 1, 3 and 2 nodes) split by each policy.
fn three_levels(policy: SplitPolicy) -> (Vec<u32>, Vec<usize>, Option<Vec<u32>>) {
    let mut nodes: Vec<u32> = (0..6).collect();
    let mut levels = vec![0, 1, 4];
    let given = split::take(policy, &mut nodes, &mut levels);
    (nodes, levels, given)
}

#[test]
fn oldest_half_gives_a_lone_bottom_node_whole() {
    let (nodes, levels, given) = three_levels(SplitPolicy::OldestHalf);
    assert_eq!(given, Some(vec![0]));
    assert_eq!(nodes, [1, 2, 3, 4, 5]);
    assert_eq!(levels, [0, 3]);
}

#[test]
fn oldest_half_gives_half_of_the_bottom_level_rounded_down() {
    let mut nodes: Vec<u32> = (0..7).collect();
    let mut levels = vec![0, 5];
    assert_eq!(split::take(SplitPolicy::OldestHalf, &mut nodes, &mut levels), Some(vec![0, 1]));
    assert_eq!(nodes, [2, 3, 4, 5, 6]);
    assert_eq!(levels, [0, 3]);
}

#[test]
fn bottom_gives_one_node() {
    let mut nodes: Vec<u32> = (0..7).collect();
    let mut levels = vec![0, 5];
    assert_eq!(split::take(SplitPolicy::Bottom, &mut nodes, &mut levels), Some(vec![0]));
    assert_eq!(levels, [0, 4]);
    let (nodes, levels, given) = three_levels(SplitPolicy::Bottom);
    assert_eq!((nodes.len(), levels, given), (5, vec![0, 3], Some(vec![0])));
}

#[test]
fn a_single_open_node_is_atomic() {
    for policy in SplitPolicy::ALL {
        let mut nodes = vec![7u32];
        let mut levels = vec![0];
        assert_eq!(split::take(policy, &mut nodes, &mut levels), None);
        assert_eq!((nodes, levels), (vec![7], vec![0]));
    }
}

#[test]
fn policies_parse_from_their_names() {
    for policy in SplitPolicy::ALL {
        assert_eq!(policy.name().parse::<SplitPolicy>(), Ok(policy));
    }
    let err = "newest".parse::<SplitPolicy>().unwrap_err();
    assert_eq!(err.to_string(), "unknown split policy `newest` (expected one of: oldest-half, bottom)");
}
