//! Enumeration: count the ways to place N queens on an N×N board, none
//! attacking another, on all cores. `cargo run --release -p treelb-threads
//! --example queens -- 12` prints `solutions: 14200`.
use treelb::search::{Children, DfsWork, Search, SplitPolicy};
use treelb_threads::{Config, run};

/// The board: N columns, filled row by row.
struct Queens {
    n: u32,
}

/// A partial placement: the row to fill next, and the columns and the two
/// diagonals already attacked, as bit sets.
#[derive(Clone, Copy)]
struct Rows {
    row: u32,
    cols: u32,
    left: u32,
    right: u32,
}

impl Search for Queens {
    type Node = Rows;
    type Output = u64; // solutions below a node; the PEs' counts are added up

    fn root(&self) -> Rows {
        Rows { row: 0, cols: 0, left: 0, right: 0 }
    }

    fn expand(&self, b: Rows, solutions: &mut u64, children: &mut Children<'_, Rows>) {
        if b.row == self.n {
            *solutions += 1;
            return;
        }
        let mut free = !(b.cols | b.left | b.right) & ((1 << self.n) - 1);
        while free != 0 {
            let q = free & free.wrapping_neg(); // the lowest free column
            free &= free - 1;
            let (cols, left, right) = (b.cols | q, (b.left | q) << 1, (b.right | q) >> 1);
            children.push(Rows { row: b.row + 1, cols, left, right });
        }
    }
}

fn main() {
    let n = std::env::args().nth(1).map_or(10, |a| a.parse().expect("N: a board size"));
    assert!((1..=16).contains(&n), "N from 1 to 16");
    let queens = Queens { n };
    let outcome = run(DfsWork::new(&queens, SplitPolicy::default()), &Config::default())
        .expect("a valid configuration");
    println!("{n} queens, {} PEs", outcome.stats.pes.len());
    println!("solutions: {}", outcome.output);
    println!("utilization: {:.3}", outcome.stats.utilization());
}
