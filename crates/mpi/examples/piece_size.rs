//! The wire size of pieces of work, and the time to encode and decode them.
//!
//! A knapsack search of `n` items (strongly correlated, as `treelb
//! knapsack -n N` generates it) is worked for `n` expansions on one piece;
//! its whole stack is what one PE's share of a checkpoint holds. Beside it,
//! a typical piece of UTS (T1) and N-Queens (14), split off a stack worked a
//! little, encoded and decoded many times.
//!
//! ```text
//! cargo run --release -p treelb-mpi --example piece_size [N…]
//! ```

use std::time::Instant;

use treelb::Work;
use treelb::search::{DfsWork, Search, SplitPolicy};
use treelb_apps::knapsack::{Class, Knapsack, Spec};
use treelb_apps::nqueens::NQueens;
use treelb_apps::uts::{Params, SAMPLE_TREES, Uts};
use treelb_mpi::wire::{Codec, DfsCodec};

fn main() {
    let sizes: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("a number of items")).collect();
    let sizes = if sizes.is_empty() { vec![1_000, 5_000, 20_000, 100_000] } else { sizes };
    println!("knapsack, strongly correlated, R = 1000, seed 2, n expansions on one piece:");
    println!("{:>8} {:>10} {:>14} {:>12} {:>12}", "n", "open nodes", "bytes", "encode ms", "decode ms");
    for n in sizes {
        let instance = Spec::new(Class::StronglyCorrelated, n, 1000, 2).generate();
        let search = Knapsack::new(&instance);
        let codec = DfsCodec::new(&search, SplitPolicy::OldestHalf);
        let mut piece = codec.root();
        piece.work(n as u64, &mut Default::default());
        let open = piece.open_nodes();
        let start = Instant::now();
        let mut bytes = Vec::new();
        codec.encode(piece, &mut bytes);
        let encode = start.elapsed();
        let start = Instant::now();
        let back = codec.decode(&bytes).expect("its own bytes decode");
        let decode = start.elapsed();
        assert_eq!(back.open_nodes(), open);
        println!(
            "{n:>8} {open:>10} {:>14} {:>12.3} {:>12.3}",
            bytes.len(),
            encode.as_secs_f64() * 1e3,
            decode.as_secs_f64() * 1e3
        );
    }

    let t1 = SAMPLE_TREES.iter().find(|t| t.name == "T1").expect("T1 is a sample tree");
    let uts = Uts::new(Params::from_uts_str(t1.flags).expect("T1's flags parse")).expect("T1 is valid");
    round_trips("UTS T1", &uts, 10_000);
    let queens = NQueens::new(14).expect("14 queens");
    round_trips("N-Queens 14", &queens, 200);
}

/// Encodes and decodes a piece split off `search`'s stack after `budget`
/// expansions, many times; prints its size and the time per round trip.
fn round_trips<S>(name: &str, search: &S, budget: u64)
where
    S: Search,
    S::Node: Clone + serde::Serialize + serde::de::DeserializeOwned,
{
    let codec = DfsCodec::new(search, SplitPolicy::OldestHalf);
    let mut piece = codec.root();
    piece.work(budget, &mut Default::default());
    let part: DfsWork<'_, S> = piece.split().expect("a stack to split");
    let mut bytes = Vec::new();
    codec.encode(part.clone(), &mut bytes);
    let rounds = 200_000;
    // The clone alone, to take off the round trips' times.
    let start = Instant::now();
    for _ in 0..rounds {
        std::hint::black_box(std::hint::black_box(&part).clone());
    }
    let clone = start.elapsed().as_secs_f64() / rounds as f64;
    let start = Instant::now();
    for _ in 0..rounds {
        bytes.clear();
        codec.encode(std::hint::black_box(part.clone()), &mut bytes);
        std::hint::black_box(codec.decode(&bytes).expect("its own bytes decode"));
    }
    let per = start.elapsed().as_secs_f64() / rounds as f64 - clone;
    println!(
        "{name}: a piece of {} open nodes, {} bytes, {:.0} ns per encode + decode",
        part.open_nodes(),
        bytes.len(),
        per * 1e9
    );
}
