//! A branch and bound under a deadline: the best solution found in the time
//! given, and the bound on the optimum that the run *proved* — what the
//! open nodes at the stop could still reach — so the gap says how far from
//! optimal the answer can be.
//!
//! `cargo run --release -p treelb-threads --example deadline -- N SECONDS`
//! partitions N numbers (the subset-sum example's) as evenly as it can in
//! at most SECONDS; with a small N it finishes and proves its answer
//! optimal.
use std::time::Duration;

use treelb::bound::{NodeBound, OpenBounds, Watched};
use treelb::incumbent::{Incumbent, Sense};
use treelb::search::{Children, DfsWork, Search, SplitPolicy};
use treelb_threads::{Config, Limit, Run};

struct SubsetSum {
    items: Vec<u64>,  // largest first
    suffix: Vec<u64>, // suffix[i]: the sum of items[i..]
    target: u64,
    best: Incumbent<Vec<u64>>,
}

/// The next item to decide, the sum so far, the items taken (a bit each).
type Node = (usize, u64, u64);

impl Search for SubsetSum {
    type Node = Node;
    type Output = ();

    fn root(&self) -> Node {
        (0, 0, 0)
    }

    fn expand(&self, node: Node, _: &mut (), children: &mut Children<'_, Node>) {
        let (i, sum, taken) = node;
        let witness = || (0..i).filter(|&j| taken >> j & 1 == 1).map(|j| self.items[j]).collect();
        self.best.offer(sum as i64, witness);
        if i == self.items.len() || !self.best.can_improve(self.bound(&node)) {
            return;
        }
        children.push((i + 1, sum, taken));
        if sum + self.items[i] <= self.target {
            children.push((i + 1, sum + self.items[i], taken | 1 << i));
        }
    }
}

impl SubsetSum {
    /// Even taking every remaining item: no subset below `node` does better.
    fn bound(&self, &(i, sum, _): &Node) -> i64 {
        (sum + self.suffix[i]).min(self.target) as i64
    }
}

/// The bound of an open node, which a stopped run records.
impl NodeBound for SubsetSum {
    fn node_bound(&self, node: &Node) -> Option<i64> {
        Some(self.bound(node))
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(60, |a| a.parse().expect("N: how many numbers"));
    let seconds: f64 = args.next().map_or(1.0, |a| a.parse().expect("SECONDS: the deadline"));
    assert!((1..=63).contains(&n), "N from 1 to 63");
    let mut x = 7_u64;
    let mut items: Vec<u64> = (0..n)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            1_000_000_000 + (x >> 33) % 1_000_000_000
        })
        .collect();
    items.sort_unstable_by(|a, b| b.cmp(a));
    let suffix = (0..=items.len()).map(|i| items[i..].iter().sum()).collect();
    let target = items.iter().sum::<u64>() / 2;
    let problem = SubsetSum { items, suffix, target, best: Incumbent::new(Sense::Maximize) };

    // The pieces are watched: when the deadline stops the run, the open
    // nodes they drop record their bounds.
    let open = OpenBounds::new(Sense::Maximize);
    let stop = Limit::unbounded();
    let root = Watched::new(DfsWork::new(&problem, SplitPolicy::default()), &open, &stop);
    let outcome = Run::new(Config::default())
        .deadline(Duration::from_secs_f64(seconds))
        .stop_handle(&stop)
        .run(root)
        .expect("a valid configuration");
    let proof = open.prove_incumbent(&problem.best, outcome.stopped.is_some());
    let (best, subset) = problem.best.into_best().expect("the empty subset is a solution");
    assert_eq!(subset.iter().sum::<u64>() as i64, best, "the witness achieves the value");
    match outcome.stopped {
        None => println!("target {target}: best sum {best}, proven optimal"),
        Some(reason) => println!("target {target}: stopped by {reason}"),
    }
    let bound = proof.bound.map_or_else(|| "none".to_owned(), |b| b.to_string());
    let gap = proof.gap.map_or_else(|| "unknown".to_owned(), |g| format!("{:.2e}", g));
    println!("best sum {best} with {} numbers; proven bound {bound}; gap {gap}", subset.len());
    println!("proven optimal: {}", proof.proven_optimal);
    println!("nodes: {}, PEs: {}", outcome.stats.work_units(), outcome.stats.pes.len());
}
