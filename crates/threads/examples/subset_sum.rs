//! Optimization with a shared incumbent: the largest sum of a subset of
//! numbers that does not exceed a target, by branch and bound. Every PE
//! prunes against the best subset any PE has found so far.
use treelb::incumbent::{Incumbent, Sense};
use treelb::search::{Children, DfsWork, Search, SplitPolicy};
use treelb_threads::{Config, run};

struct SubsetSum {
    items: Vec<u64>,  // largest first: good subsets are found early
    suffix: Vec<u64>, // suffix[i]: the sum of items[i..]
    target: u64,
    best: Incumbent<Vec<u64>>, // the best sum so far, and its subset
}

/// The next item to decide, the sum so far, the items taken (a bit each).
type Node = (usize, u64, u64);

impl Search for SubsetSum {
    type Node = Node;
    type Output = (); // the answer is in the incumbent

    fn root(&self) -> Node {
        (0, 0, 0)
    }

    fn expand(&self, (i, sum, taken): Node, _: &mut (), children: &mut Children<'_, Node>) {
        let witness = || (0..i).filter(|&j| taken >> j & 1 == 1).map(|j| self.items[j]).collect();
        self.best.offer(sum as i64, witness);
        // Bound: even taking every remaining item cannot beat the incumbent.
        let bound = (sum + self.suffix[i]).min(self.target);
        if i == self.items.len() || !self.best.can_improve(bound as i64) {
            return;
        }
        children.push((i + 1, sum, taken)); // without item i
        if sum + self.items[i] <= self.target {
            children.push((i + 1, sum + self.items[i], taken | 1 << i)); // with it (first)
        }
    }
}

fn main() {
    // N numbers of 10 digits from a fixed linear congruential sequence; the
    // target is half their sum (the partition problem).
    let n = std::env::args().nth(1).map_or(28, |a| a.parse().expect("N: how many numbers"));
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
    let outcome = run(DfsWork::new(&problem, SplitPolicy::default()), &Config::default()).unwrap();
    let (best, subset) = problem.best.into_best().expect("the empty subset is a solution");
    assert_eq!(subset.iter().sum::<u64>() as i64, best, "the witness achieves the value");
    println!("target {target}: best sum {best} with {} numbers", subset.len());
    println!("nodes: {}, PEs: {}", outcome.stats.work_units(), outcome.stats.pes.len());
}
