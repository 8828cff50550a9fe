//! Synthetic game trees for testing and measuring game-tree search: random
//! uniform trees with controllable branching, depth and move-ordering
//! quality.
//!
//! The tree is an *incremental* random tree (the model of Knuth and Moore's
//! analysis and of many parallel alpha-beta studies): every edge carries a
//! random integer weight in `[−w, w]`, a position's static value is the sum
//! of the weights on its path (from the side to move's point of view, so
//! the sign flips with every move), and a leaf's value is its static value.
//! Values of siblings are then correlated with the edge weights, which
//! gives the game a heuristic: order the children by their edge weight,
//! best for the side to move first. `ordering` is the probability, per
//! node, that the children come in that order; otherwise they come in a
//! random order. 1.0 is a well-ordered tree (the eldest brother is usually
//! the best move), 0.0 a random one.
//!
//! Everything is a function of the seed: positions are hashes, so the same
//! tree is generated on every PE without shared state.

use treelb::game::{Expansion, Game};
use treelb::rng::mix;

/// A synthetic game tree (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameTree {
    /// Children of every inner position.
    pub branching: u32,
    /// Depth of the leaves (the root has depth 0).
    pub depth: u32,
    /// Largest edge weight `w`.
    pub weight: i32,
    /// Probability that a position's children come best-first.
    pub ordering: f64,
    /// Seed of the tree.
    pub seed: u64,
}

/// A position of a [`GameTree`]: its hash, depth and static value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Node {
    hash: u64,
    depth: u32,
    value: i32,
}

impl GameTree {
    /// The root position.
    pub fn root(&self) -> Node {
        Node { hash: mix(self.seed ^ 0x6a09_e667_f3bc_c908), depth: 0, value: 0 }
    }

    /// Bounds of every value in the tree: `depth · w`.
    pub fn bound(&self) -> i32 {
        self.depth as i32 * self.weight
    }

    /// The exact value by plain minimax, without pruning (for tests of small trees).
    pub fn minimax(&self, node: &Node) -> i32 {
        let mut children = Vec::new();
        match self.expand(node, i32::MIN + 1, i32::MAX, &mut children) {
            Expansion::Value(v) => v,
            Expansion::Search { .. } => children.iter().map(|c| -self.minimax(c)).max().expect("children"),
        }
    }
}

impl Game for GameTree {
    type Position = Node;

    fn expand(&self, node: &Node, alpha: i32, beta: i32, children: &mut Vec<Node>) -> Expansion {
        if node.depth >= self.depth || self.branching == 0 {
            return Expansion::Value(node.value);
        }
        let span = 2 * self.weight as u64 + 1;
        let start = children.len();
        for i in 0..self.branching {
            let hash = mix(node.hash ^ mix(u64::from(i) + 1));
            let w = (hash % span) as i32 - self.weight;
            // After the move the opponent is to move: its view of the value.
            children.push(Node { hash, depth: node.depth + 1, value: -(node.value + w) });
        }
        let coin = (mix(node.hash ^ 0xbb67_ae85_84ca_a73b) >> 11) as f64 / (1u64 << 53) as f64;
        let kids = &mut children[start..];
        if coin < self.ordering {
            // Best for the side to move first: the child worst for the opponent.
            kids.sort_by_key(|c| c.value);
        } else {
            kids.sort_by_key(|c| mix(c.hash ^ 0x3c6e_f372_fe94_f82b));
        }
        Expansion::Search { alpha, beta }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use treelb::game::{SeqStats, alpha_beta};

    #[test]
    fn alpha_beta_finds_the_minimax_value_and_ordering_saves_nodes() {
        let mut nodes = [0u64; 2];
        for seed in 0..20 {
            for (k, ordering) in [0.0, 1.0].into_iter().enumerate() {
                let t = GameTree { branching: 4, depth: 6, weight: 10, ordering, seed };
                let mut stats = SeqStats::default();
                let b = t.bound() + 1;
                assert_eq!(alpha_beta(&t, &t.root(), -b, b, &mut stats), t.minimax(&t.root()));
                nodes[k] += stats.nodes;
            }
        }
        // A well-ordered tree is searched with far fewer nodes.
        assert!(nodes[1] * 2 < nodes[0], "{nodes:?}");
    }
}
