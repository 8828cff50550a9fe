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

use crate::rng::mix;

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
    prop_oneof![Just(SplitPolicy::OldestHalf), Just(SplitPolicy::Bottom), Just(SplitPolicy::HalfEachLevel)]
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

/// A stack of nodes 0..n whose levels start at the given indices.
fn stack(n: u32, starts: &[u32]) -> Vec<Entry<u32>> {
    (0..n).map(|i| Entry { node: i, first: starts.contains(&i) }).collect()
}

/// The nodes of a stack and the indices where its levels start.
fn shape(stack: &[Entry<u32>]) -> (Vec<u32>, Vec<usize>) {
    (
        stack.iter().map(|e| e.node).collect(),
        stack.iter().enumerate().filter(|(_, e)| e.first).map(|(i, _)| i).collect(),
    )
}

#[test]
fn oldest_half_gives_a_lone_bottom_node_whole() {
    // 0 | 1 2 3 | 4 5
    let mut s = stack(6, &[0, 1, 4]);
    let given = split::take(SplitPolicy::OldestHalf, &mut s).unwrap();
    assert_eq!(shape(&given), (vec![0], vec![0]));
    assert_eq!(shape(&s), (vec![1, 2, 3, 4, 5], vec![0, 3]));
}

#[test]
fn oldest_half_gives_half_of_the_bottom_level_rounded_down() {
    // 0 1 2 3 4 | 5 6
    let mut s = stack(7, &[0, 5]);
    let given = split::take(SplitPolicy::OldestHalf, &mut s).unwrap();
    assert_eq!(shape(&given), (vec![0, 1], vec![0]));
    assert_eq!(shape(&s), (vec![2, 3, 4, 5, 6], vec![0, 3]));
    // A stack of one level of two nodes splits one and one.
    let mut s = stack(2, &[0]);
    let given = split::take(SplitPolicy::OldestHalf, &mut s).unwrap();
    assert_eq!((shape(&given), shape(&s)), ((vec![0], vec![0]), (vec![1], vec![0])));
}

#[test]
fn bottom_gives_one_node() {
    let mut s = stack(7, &[0, 5]);
    let given = split::take(SplitPolicy::Bottom, &mut s).unwrap();
    assert_eq!(shape(&given), (vec![0], vec![0]));
    assert_eq!(shape(&s), (vec![1, 2, 3, 4, 5, 6], vec![0, 4]));
    let mut s = stack(6, &[0, 1, 4]);
    let given = split::take(SplitPolicy::Bottom, &mut s).unwrap();
    assert_eq!(shape(&given), (vec![0], vec![0]));
    assert_eq!(shape(&s), (vec![1, 2, 3, 4, 5], vec![0, 3]));
}

#[test]
fn half_each_level_halves_every_level_and_alternates_the_odd_node() {
    // 0 1 2 | 3 | 4 5 6 7 | 8 9 10 — levels of 3, 1, 4, 3: the thief gets
    // 2 (odd: its turn), 0 (odd: the donor's turn), 2, 2 (odd: its turn).
    let mut s = stack(11, &[0, 3, 4, 8]);
    let given = split::take(SplitPolicy::HalfEachLevel, &mut s).unwrap();
    assert_eq!(shape(&given), (vec![0, 1, 4, 5, 8, 9], vec![0, 2, 4]));
    assert_eq!(shape(&s), (vec![2, 3, 6, 7, 10], vec![0, 1, 2, 4]));
    // Levels of one node each: every other one moves, the bottom one first.
    let mut s = stack(5, &[0, 1, 2, 3, 4]);
    let given = split::take(SplitPolicy::HalfEachLevel, &mut s).unwrap();
    assert_eq!(shape(&given), (vec![0, 2, 4], vec![0, 1, 2]));
    assert_eq!(shape(&s), (vec![1, 3], vec![0, 1]));
}

proptest! {
    /// Of every level of `k` nodes, the thief gets ⌊k/2⌋ or ⌈k/2⌉ and the
    /// donor the rest, both in stack order, with their level marks intact.
    #[test]
    fn half_each_level_splits_every_level_evenly(levels in proptest::collection::vec(1u32..9, 2..12)) {
        let starts: Vec<u32> = levels.iter().scan(0, |at, &k| { let s = *at; *at += k; Some(s) }).collect();
        let n: u32 = levels.iter().sum();
        let mut s = stack(n, &starts);
        let given = split::take(SplitPolicy::HalfEachLevel, &mut s).unwrap();
        let level_of = |node: u32| starts.iter().rposition(|&st| st <= node).unwrap();
        for side in [&given, &s] {
            prop_assert!(side[0].first);
            for w in side.windows(2) {
                prop_assert!(w[0].node < w[1].node);
                // A level starts exactly where the original level changes.
                prop_assert_eq!(w[1].first, level_of(w[0].node) != level_of(w[1].node));
            }
        }
        for (l, &k) in levels.iter().enumerate() {
            let g = given.iter().filter(|e| level_of(e.node) == l).count() as u32;
            prop_assert!(g == k / 2 || g == k.div_ceil(2));
            // The thief's nodes of a level are its bottom ones.
            prop_assert!(given.iter().filter(|e| level_of(e.node) == l).all(|e| e.node < starts[l] + g));
        }
        prop_assert_eq!(given.len() + s.len(), n as usize);
    }
}

#[test]
fn a_single_open_node_is_atomic() {
    for policy in SplitPolicy::ALL {
        let mut s = stack(1, &[0]);
        assert!(split::take(policy, &mut s).is_none());
        assert_eq!(shape(&s), (vec![0], vec![0]));
    }
}

#[test]
fn expansion_pushes_one_level_per_node() {
    let tree = RandomTree { seed: 3, max_children: 4, max_depth: 5 };
    let mut piece = DfsWork::new(&tree, SplitPolicy::OldestHalf);
    let mut acc = Visits::default();
    piece.work(3, &mut acc);
    // Every level starts with a flagged entry and the bottom entry is one.
    assert!(piece.stack.first().is_none_or(|e| e.first));
}

#[test]
fn policies_parse_from_their_names() {
    for policy in SplitPolicy::ALL {
        assert_eq!(policy.name().parse::<SplitPolicy>(), Ok(policy));
    }
    let err = "newest".parse::<SplitPolicy>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown split policy `newest` (expected one of: oldest-half, bottom, half-each-level)"
    );
}

/// A binary tree whose nodes at depth `heavy` and below cost `cost` units.
struct Weighted {
    tree: BinaryTree,
    heavy: u32,
    cost: u64,
}

impl Search for Weighted {
    type Node = u32;
    type Output = u64;

    fn root(&self) -> u32 {
        self.tree.root()
    }

    fn cost(&self, depth: &u32) -> u64 {
        if *depth >= self.heavy { self.cost } else { 1 }
    }

    fn expand(&self, depth: u32, acc: &mut u64, children: &mut Children<'_, u32>) {
        self.tree.expand(depth, acc, children);
    }
}

/// A slice ends once its units are spent, counting each expansion at its
/// cost, and still expands at least one node; the units it reports when the
/// piece runs dry are those spent, at most the budget.
#[test]
fn a_slice_counts_each_expansion_at_its_cost() {
    let search = Weighted { tree: BinaryTree(3), heavy: 2, cost: 5 };
    let mut piece = DfsWork::new(&search, SplitPolicy::default());
    let mut acc = 0u64;
    // Depths 0 and 1 cost 1 each, the first node of depth 2 costs 5: 7
    // units in three expansions.
    assert!(matches!(piece.work(7, &mut acc), Progress::Pending));
    assert_eq!(acc, 3);
    // A budget below one heavy node's cost still expands it.
    assert!(matches!(piece.work(1, &mut acc), Progress::Pending));
    assert_eq!(acc, 4);
    // The other 11 nodes, all heavy but the root's second child.
    let mut spent = 0;
    loop {
        match piece.work(1000, &mut acc) {
            Progress::Pending => spent += 1000,
            Progress::Exhausted { used } => {
                spent += used;
                break;
            }
        }
    }
    assert_eq!(acc, search.tree.nodes());
    // One node of depth 1 (1 unit) and 10 heavy ones (50 units).
    assert_eq!(spent, 51);
}
