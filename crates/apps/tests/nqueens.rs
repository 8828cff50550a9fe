//! N-Queens: solution counts, the search tree, and the board-size check.

use treelb::search::{DfsWork, SplitPolicy};
use treelb::{Reduce, Work, seq};
use treelb_apps::nqueens::{BULK_COST, Kernel, NQueens, NQueensError, NQueensResult};

fn solutions(n: u32) -> u64 {
    seq::run_search(&NQueens::new(n).unwrap()).0.solutions
}

#[test]
fn small_boards_have_the_published_counts() {
    let published = [1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2_680, 14_200];
    for (n, expected) in (1..).zip(published) {
        assert_eq!(solutions(n), expected, "n = {n}");
        assert_eq!(NQueens::known_solutions(n), Some(expected));
    }
}

#[test]
fn fourteen_queens() {
    let (result, expanded) = seq::run_search(&NQueens::new(14).unwrap());
    assert_eq!(result, NQueensResult { solutions: 365_596, nodes: 27_358_553 });
    assert!(expanded < result.nodes / 50, "{expanded} expansions");
    let single = NQueens::new(14).unwrap().with_bulk_rows(0);
    assert_eq!(seq::run_search(&single), (result, result.nodes));
    assert_eq!(NQueens::new(14).unwrap().count_sequential(), result);
    assert_eq!(NQueens::known_solutions(14), Some(365_596));
}

#[test]
fn nodes_are_all_partial_placements() {
    // n = 4: the empty board, 4 + 6 + 4 + 2 partial placements on rows 1..=4.
    let (result, _) = seq::run_search(&NQueens::new(4).unwrap());
    assert_eq!(result, NQueensResult { solutions: 2, nodes: 17 });
    let (one, _) = seq::run_search(&NQueens::new(1).unwrap());
    assert_eq!(one, NQueensResult { solutions: 1, nodes: 2 });
}

#[test]
fn the_largest_board_expands() {
    // The full 32-column masks: the first rows of n = 32 expand correctly.
    let problem = NQueens::new(32).unwrap();
    let mut pieces = DfsWork::new(&problem, SplitPolicy::OldestHalf);
    let mut acc = NQueensResult::default();
    assert!(!pieces.work(1, &mut acc).is_exhausted());
    assert_eq!(pieces.open_nodes(), 32);
    assert!(!pieces.work(1, &mut acc).is_exhausted());
    // The last child (the highest column) is expanded first: 30 free columns.
    assert_eq!(pieces.open_nodes(), 31 + 30);
}

#[test]
fn split_pieces_add_up_to_the_sequential_result() {
    let problem = NQueens::new(9).unwrap();
    let (expected, _) = seq::run_search(&problem);
    for policy in SplitPolicy::ALL {
        let total = seq::run_splitting(DfsWork::new(&problem, policy), 11);
        assert_eq!(total, expected, "{policy:?}");
    }
}

#[test]
fn board_size_is_checked() {
    assert_eq!(NQueens::new(0), Err(NQueensError(0)));
    assert_eq!(NQueens::new(33), Err(NQueensError(33)));
    assert_eq!(
        NQueens::new(0).unwrap_err().to_string(),
        "N-Queens board size n = 0 is not supported: it must be between 1 and 32"
    );
    assert_eq!(NQueens::new(32).unwrap().n(), 32);
    assert_eq!(NQueens::known_solutions(28), None);
}

#[test]
fn result_merges_by_sum() {
    let mut a = NQueensResult { solutions: 2, nodes: 17 };
    a.merge(NQueensResult { solutions: 10, nodes: 54 });
    assert_eq!(a, NQueensResult { solutions: 12, nodes: 71 });
    assert_eq!(a.to_string(), "12 solutions, 71 nodes");
}

#[test]
fn bulk_counting_gives_the_node_by_node_counts() {
    for n in 1..=11 {
        let single = NQueens::new(n).unwrap().with_bulk_rows(0);
        let (expected, expanded) = seq::run_search(&single);
        assert_eq!(expanded, expected.nodes, "n = {n}");
        assert_eq!(single.count_sequential(), expected, "n = {n}");
        for rows in 1..=n + 1 {
            let (got, _) = seq::run_search(&single.with_bulk_rows(rows));
            assert_eq!(got, expected, "n = {n}, {rows} bulk rows");
        }
    }
    // n = 12: 14,200 solutions (published) among 856,189 nodes (counted
    // independently by a plain recursion in Python).
    let twelve = NQueens::new(12).unwrap();
    assert_eq!(twelve.count_sequential(), NQueensResult { solutions: 14_200, nodes: 856_189 });
    assert_eq!(seq::run_search(&twelve).0, NQueensResult { solutions: 14_200, nodes: 856_189 });
}

#[test]
fn the_mirror_gives_the_whole_trees_counts_with_about_half_the_expansions() {
    for n in 1..=11 {
        let whole = NQueens::new(n).unwrap().with_bulk_rows(0);
        let (expected, whole_expanded) = seq::run_search(&whole);
        let half = whole.with_mirror(true);
        assert!(half.mirror() && !whole.mirror());
        assert_eq!(half.count_sequential(), expected, "n = {n}");
        for rows in 0..=n + 1 {
            let (got, _) = seq::run_search(&half.with_bulk_rows(rows));
            assert_eq!(got, expected, "n = {n}, {rows} bulk rows");
        }
        let (_, half_expanded) = seq::run_search(&half);
        // The halved tree: the root, the middle column's chain on odd
        // boards, and half of the rest.
        assert!(
            half_expanded <= whole_expanded / 2 + u64::from(n) + 1,
            "n = {n}: {half_expanded} of {whole_expanded}"
        );
    }
    let twelve = NQueens::new(12).unwrap().with_mirror(true);
    assert_eq!(twelve.count_sequential(), NQueensResult { solutions: 14_200, nodes: 856_189 });
    assert_eq!(seq::run_search(&twelve).0, NQueensResult { solutions: 14_200, nodes: 856_189 });
    let thirteen = NQueens::new(13).unwrap();
    assert_eq!(thirteen.with_mirror(true).count_sequential(), thirteen.count_sequential());
}

/// The kernels this processor runs; the portable one always.
fn kernels() -> Vec<Kernel> {
    let kernels: Vec<Kernel> = Kernel::ALL.into_iter().filter(|k| k.available()).collect();
    assert_eq!(kernels[0], Kernel::Portable);
    kernels
}

#[test]
fn every_kernel_counts_the_published_solutions_and_the_trees_nodes() {
    // The tree's nodes counted node by node (no kernel is called), and the
    // same at n = 13 written out: 73,712 solutions among 4,674,890 nodes.
    let (thirteen, _) = seq::run_search(&NQueens::new(13).unwrap().with_bulk_rows(0));
    assert_eq!(thirteen, NQueensResult { solutions: 73_712, nodes: 4_674_890 });
    for kernel in kernels() {
        for n in 1..=13 {
            let single = NQueens::new(n).unwrap().with_bulk_rows(0);
            let expected = if n == 13 { thirteen } else { seq::run_search(&single).0 };
            assert_eq!(Some(expected.solutions), NQueens::known_solutions(n));
            let q = NQueens::new(n).unwrap().with_kernel(kernel).unwrap();
            assert_eq!(q.kernel(), kernel);
            assert_eq!(q.count_sequential(), expected, "{kernel:?}, n = {n}");
            assert_eq!(q.with_mirror(true).count_sequential(), expected, "{kernel:?}, n = {n}, mirror");
            assert_eq!(seq::run_search(&q).0, expected, "{kernel:?}, n = {n}, search");
            if n <= 10 {
                for rows in 1..=n + 1 {
                    let got = seq::run_search(&q.with_bulk_rows(rows)).0;
                    assert_eq!(got, expected, "{kernel:?}, n = {n}, {rows} bulk rows");
                    let got = seq::run_search(&q.with_bulk_rows(rows).with_mirror(true)).0;
                    assert_eq!(got, expected, "{kernel:?}, n = {n}, {rows} bulk rows, mirror");
                }
            }
        }
    }
}

#[test]
fn the_kernels_agree_beyond_sixteen_columns() {
    // Boards wider than a vector's 16 lanes: the AVX-512 choice falls back
    // to the scalar kernel. The first 3,000 bulk expansions' worth of work
    // units of n = 17 and 32, with subtrees of 7 rows counted in one
    // expansion, add up the same.
    for n in [17, 32] {
        let mut results = Vec::new();
        for kernel in kernels() {
            let q = NQueens::new(n).unwrap().with_bulk_rows(7).with_kernel(kernel).unwrap();
            let mut pieces = DfsWork::new(&q, SplitPolicy::OldestHalf);
            let mut acc = NQueensResult::default();
            assert!(!pieces.work(3_000 * BULK_COST, &mut acc).is_exhausted());
            results.push(acc);
        }
        assert!(results.iter().all(|r| *r == results[0] && r.nodes > 3_000), "n = {n}: {results:?}");
    }
}

#[test]
fn the_fastest_available_kernel_is_chosen() {
    let detected = Kernel::detect();
    assert!(detected.available());
    assert_eq!(NQueens::new(8).unwrap().kernel(), detected);
    assert_eq!(Some(detected), kernels().last().copied());
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        assert_eq!(detected, Kernel::Avx512);
    }
    let names: Vec<&str> = Kernel::ALL.iter().map(|k| k.name()).collect();
    assert_eq!(names, ["portable", "bmi", "avx512"]);
}
