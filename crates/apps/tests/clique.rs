//! Maximum clique and k-clique decision: graphs whose ω is known in closed
//! form, random graphs against brute force, the DIMACS parser's errors, and
//! the DIMACS benchmark graphs with their published ω on the threads runtime
//! for P ∈ {1, 2, 3, 4, 8}.

mod common;
use common::Endless;

use std::path::{Path, PathBuf};

use proptest::prelude::*;

use treelb::RunSpec;
use treelb::search::{DfsWork, SplitPolicy};
use treelb::{Init, seq};
use treelb_apps::clique::{CliqueSearch, DimacsError, DimacsWarning, Graph, Mode, Options, dimacs};
use treelb_threads::{Config, run};

const PES: [usize; 5] = [1, 2, 3, 4, 8];

fn instances() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/instances/clique")
}

/// ω and a maximum clique, sequentially; checks that the witness is a clique
/// of the reported size.
fn omega_seq(g: &Graph, seeded: bool) -> i64 {
    let search = if seeded { CliqueSearch::max_clique(g) } else { CliqueSearch::max_clique_unseeded(g) };
    let (stats, nodes) = seq::run_search(&search);
    assert_eq!(stats.nodes(), nodes);
    let (omega, clique) =
        search.incumbent.into_best().expect("every graph has a clique, if only the empty one");
    assert_eq!(clique.len() as i64, omega);
    assert!(g.is_clique(&clique), "{clique:?} is not a clique");
    omega
}

/// ω on the threads runtime with `p` PEs; checks the witness.
fn omega_par(g: &Graph, p: usize, init: Init, policy: SplitPolicy, seeded: bool) -> i64 {
    let search = if seeded { CliqueSearch::max_clique(g) } else { CliqueSearch::max_clique_unseeded(g) };
    let config = Config {
        threads: p,
        spec: RunSpec { init, budget: treelb::spec::Budget::of(16), ..RunSpec::default() },
        ..Config::default()
    };
    let outcome = run(DfsWork::new(&search, policy), &config).unwrap();
    // Every node expanded once, a chunk of greedy starts at a higher cost.
    let (nodes, units) = (outcome.output.nodes(), outcome.stats.work_units());
    assert!(nodes <= units && units <= search.max_work_units(nodes), "{nodes} nodes, {units} units");
    let (omega, clique) = search.incumbent.into_best().unwrap();
    assert_eq!(clique.len() as i64, omega);
    assert!(g.is_clique(&clique));
    omega
}

/// The decision "is there a clique of k vertices?"; checks a witness.
fn has_k_clique(g: &Graph, k: u32, p: usize) -> bool {
    let search = CliqueSearch::k_clique(g, k);
    if p == 0 {
        seq::run_search(&search);
    } else {
        let config = Config {
            threads: p,
            spec: RunSpec { budget: treelb::spec::Budget::of(16), ..RunSpec::default() },
            ..Config::default()
        };
        run(DfsWork::new(&search, SplitPolicy::default()), &config).unwrap();
    }
    match search.found() {
        Some(c) => {
            assert_eq!(c.len(), k as usize, "the witness has exactly k vertices");
            assert!(g.is_clique(&c));
            true
        }
        None => false,
    }
}

/// ω by Bron–Kerbosch with pivoting on 64-bit masks (n <= 64).
fn brute_force_omega(g: &Graph) -> u32 {
    fn bk(nbr: &[u64], r: u32, p: u64, x: u64) -> u32 {
        if p == 0 {
            return if x == 0 { r } else { 0 };
        }
        let pivot = (p | x).trailing_zeros() as usize;
        let mut best = r;
        let (mut p, mut x) = (p, x);
        let mut branch = p & !nbr[pivot];
        while branch != 0 {
            let v = branch.trailing_zeros() as usize;
            branch &= branch - 1;
            best = best.max(bk(nbr, r + 1, p & nbr[v], x & nbr[v]));
            p &= !(1 << v);
            x |= 1 << v;
        }
        best
    }
    let n = g.n();
    assert!(n <= 64);
    let nbr: Vec<u64> = (0..n).map(|v| g.neighbours(v).fold(0, |m, u| m | 1 << u)).collect();
    let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    bk(&nbr, 0, all, 0)
}

fn check_omega(g: &Graph, omega: i64, what: &str) {
    assert_eq!(omega_seq(g, true), omega, "{what}, seeded");
    assert_eq!(omega_seq(g, false), omega, "{what}, unseeded");
    let k = u32::try_from(omega).unwrap();
    assert!(has_k_clique(g, k, 0), "{what}: a clique of ω vertices");
    assert!(!has_k_clique(g, k + 1, 0), "{what}: no clique of ω + 1 vertices");
}

#[test]
fn complete_empty_cycle_and_petersen_graphs() {
    for n in 0..=12 {
        check_omega(&Graph::complete(n), n as i64, &format!("K_{n}"));
        check_omega(&Graph::new(n), (n > 0) as i64, &format!("empty graph on {n} vertices"));
    }
    check_omega(&Graph::cycle(3), 3, "C_3");
    for n in 4..=9 {
        check_omega(&Graph::cycle(n), 2, &format!("C_{n}"));
    }
    check_omega(&Graph::petersen(), 2, "Petersen");
    check_omega(&Graph::petersen().complement(), 4, "complement of Petersen");
}

#[test]
fn turan_and_cocktail_party_graphs() {
    for n in 1..=16 {
        for r in 1..=6 {
            check_omega(&Graph::turan(n, r), n.min(r) as i64, &format!("T({n}, {r})"));
        }
    }
    // K_{2m} minus a perfect matching: ω = m.
    for m in 1..=10 {
        let g = Graph::from_fn(2 * m, |u, v| v != u + m);
        check_omega(&g, m as i64, &format!("cocktail party graph, m = {m}"));
    }
}

#[test]
fn hamming_graphs_are_binary_codes() {
    // A(n, 1) = 2^n, A(n, 2) = 2^(n−1), A(n, n) = 2, A(5, 4) = 2, A(6, 4) = 4,
    // A(7, 4) = 8, A(8, 4) = 16, A(6, 3) = 8.
    for n in 1..=7 {
        check_omega(&Graph::hamming(n, 1), 1 << n, &format!("hamming{n}-1"));
        check_omega(&Graph::hamming(n, 2), 1 << (n - 1), &format!("hamming{n}-2"));
        check_omega(&Graph::hamming(n, n), 2, &format!("hamming{n}-{n}"));
    }
    for (n, d, omega) in [(5, 4, 2), (6, 4, 4), (7, 4, 8), (8, 4, 16), (6, 3, 8)] {
        check_omega(&Graph::hamming(n, d), omega, &format!("hamming{n}-{d}"));
    }
}

#[test]
fn johnson_graphs() {
    // DIMACS johnson{n}-2-4: disjoint pairs, ω = ⌊n/2⌋; johnson8-4-4: the
    // Steiner system S(3, 4, 8) with 14 blocks.
    for n in 4..=14 {
        check_omega(&Graph::johnson(n, 2, 4), i64::from(n / 2), &format!("johnson{n}-2-4"));
    }
    check_omega(&Graph::johnson(8, 4, 4), 14, "johnson8-4-4");
    // J(n, k): ω = max(n − k + 1, k + 1).
    for n in 2..=9 {
        for k in 1..n {
            let omega = (n - k + 1).max(k + 1);
            check_omega(&Graph::johnson_classic(n, k), i64::from(omega), &format!("J({n}, {k})"));
        }
    }
}

#[test]
fn random_graphs_match_brute_force() {
    let mut checked = 0;
    for n in [1, 2, 3, 5, 8, 12, 16, 20, 30, 40] {
        for p in [0.1, 0.3, 0.5, 0.7, 0.9] {
            for seed in 0..4 {
                let g = Graph::random(n, p, seed * 1000 + n as u64);
                let omega = i64::from(brute_force_omega(&g));
                check_omega(&g, omega, &format!("G({n}, {p}), seed {seed}"));
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 200);
}

#[test]
fn random_graphs_on_threads_match_brute_force() {
    for (i, n) in [10, 25, 40, 60].into_iter().enumerate() {
        for p in [0.3, 0.6, 0.9] {
            let g = Graph::random(n, p, 77 + i as u64);
            let omega = i64::from(brute_force_omega(&g));
            for (j, threads) in PES.into_iter().enumerate() {
                let init = Init::ALL[j % 2];
                let policy = SplitPolicy::ALL[(i + j) % 2];
                let what = format!("G({n}, {p}), P = {threads}");
                assert_eq!(omega_par(&g, threads, init, policy, false), omega, "{what}");
                let k = u32::try_from(omega).unwrap();
                assert!(has_k_clique(&g, k, threads), "{what}");
                assert!(!has_k_clique(&g, k + 1, threads), "{what}");
            }
        }
    }
}

/// Reads a benchmark graph and checks its size against the README's table.
fn benchmark(name: &str, n: usize, m: usize) -> Graph {
    let g = dimacs::read_file(instances().join(format!("{name}.clq"))).expect("the benchmark file reads");
    assert_eq!((g.n(), g.edge_count()), (n, m), "{name}");
    g
}

/// The published ω for every P, varying the initialization and the split
/// policy with P.
fn published_for_every_p(name: &str, n: usize, m: usize, omega: i64) {
    let g = benchmark(name, n, m);
    assert_eq!(omega_seq(&g, true), omega, "{name} sequential");
    for (j, p) in PES.into_iter().enumerate() {
        let init = Init::ALL[j % 2];
        let policy = SplitPolicy::ALL[j / 2 % 2];
        let what = format!("{name}, P = {p}, init {init}, split {policy}");
        assert_eq!(omega_par(&g, p, init, policy, j % 2 == 1), omega, "{what}");
    }
}

#[test]
fn brock200_2_has_omega_12() {
    published_for_every_p("brock200_2", 200, 9876, 12);
}

#[test]
fn brock200_4_has_omega_17() {
    published_for_every_p("brock200_4", 200, 13089, 17);
}

#[test]
fn brock200_1_has_omega_21() {
    published_for_every_p("brock200_1", 200, 14834, 21);
}

#[test]
fn keller4_has_omega_11() {
    published_for_every_p("keller4", 171, 9435, 11);
}

#[test]
fn hamming8_4_has_omega_16() {
    published_for_every_p("hamming8-4", 256, 20864, 16);
    // The file is the generated graph.
    assert_eq!(benchmark("hamming8-4", 256, 20864), Graph::hamming(8, 4));
}

#[test]
fn c125_9_has_omega_34() {
    // The header of this file says `p col`.
    published_for_every_p("C125.9", 125, 6963, 34);
}

#[test]
fn p_hat300_1_has_omega_8() {
    published_for_every_p("p_hat300-1", 300, 10933, 8);
}

#[test]
fn k_clique_decisions_on_benchmarks() {
    for (name, n, m, omega) in [("brock200_2", 200, 9876, 12), ("keller4", 171, 9435, 11)] {
        let g = benchmark(name, n, m);
        for p in [0, 1, 2, 4] {
            assert!(has_k_clique(&g, omega, p), "{name}: a clique of {omega}, P = {p}");
            assert!(!has_k_clique(&g, omega + 1, p), "{name}: no clique of {}, P = {p}", omega + 1);
        }
    }
}

#[test]
fn a_decision_stops_every_pe_at_the_first_witness() {
    // brock200_1 has ω = 21; cliques of 17 are plentiful. The decision stops
    // long before the full optimisation would have finished.
    let g = benchmark("brock200_1", 200, 14834);
    let full = CliqueSearch::max_clique_unseeded(&g);
    let (_, full_nodes) = seq::run_search(&full);
    for p in [1, 2, 4, 8] {
        let search = CliqueSearch::k_clique(&g, 17);
        let config = Config {
            threads: p,
            spec: RunSpec { budget: treelb::spec::Budget::of(16), ..RunSpec::default() },
            ..Config::default()
        };
        let outcome = run(DfsWork::new(&search, SplitPolicy::default()), &config).unwrap();
        let witness = search.found().expect("a clique of 17 exists");
        assert!(g.is_clique(&witness) && witness.len() == 17);
        let units = outcome.stats.work_units();
        assert!(units * 20 < full_nodes, "P = {p}: {units} units vs {full_nodes} for the whole search");
    }
}

fn parse_error(text: &str) -> DimacsError {
    dimacs::parse_str(text).expect_err("malformed input")
}

#[test]
fn both_header_spellings_and_the_tolerated_extras() {
    let edge = dimacs::parse_str("c comment\n\np edge 3 2\ne 1 2\ne 2 3\ne 3 2\n").unwrap();
    let col = dimacs::parse_str("p col 3 2\ne 1 2\ne 2 3\n").unwrap();
    assert_eq!(edge, col);
    assert_eq!(edge.edge_count(), 2);
    let extras = dimacs::parse_str("p edge 3 1\nn 1 5\ne 1 3\nEND\nc trailing comment\n\n").unwrap();
    assert!(extras.has_edge(0, 2));
    assert_eq!(dimacs::parse_str("p edge 0 0\n").unwrap().n(), 0);
}

#[test]
fn every_malformed_input_names_its_line() {
    let cases: [(&str, &str); 19] = [
        ("", "line 1: the input ended without a problem line `p edge N M`"),
        ("c only comments\n", "line 2: the input ended without a problem line `p edge N M`"),
        (
            "p edge 3 99999999999999999999\n",
            "line 1: expected a problem line `p edge N M` or `p col N M`, found `p edge 3 99999999999999999999`",
        ),
        (
            "p edge 3 1\ne 1 99999999999999999999\n",
            "line 2: expected an edge `e U V` with two vertex numbers, found `e 1 99999999999999999999`",
        ),
        ("p graph 3 1\n", "line 1: expected a problem line `p edge N M` or `p col N M`, found `p graph 3 1`"),
        ("p edge 3\n", "line 1: expected a problem line `p edge N M` or `p col N M`, found `p edge 3`"),
        (
            "p edge three 1\n",
            "line 1: expected a problem line `p edge N M` or `p col N M`, found `p edge three 1`",
        ),
        ("p edge 3 -1\n", "line 1: expected a problem line `p edge N M` or `p col N M`, found `p edge 3 -1`"),
        ("p edge 3 1\np edge 3 1\n", "line 2: a second problem line (the first is on line 1)"),
        (
            "p edge 99999999 1\n",
            "line 1: a graph of 99999999 vertices needs 2671 MiB before its edges, more than the limit of 2048 MiB",
        ),
        ("p edge 999999999 1\n", "line 1: 999999999 vertices are too many (at most 268435456)"),
        ("e 1 2\np edge 3 1\n", "line 1: expected the problem line `p edge N M` before the first edge"),
        ("n 1 2\n", "line 1: expected the problem line `p edge N M` before the first vertex weight"),
        ("p edge 3 1\ne 1\n", "line 2: expected an edge `e U V` with two vertex numbers, found `e 1`"),
        ("p edge 3 1\n\ne 1 x\n", "line 3: expected an edge `e U V` with two vertex numbers, found `e 1 x`"),
        ("p edge 3 1\ne 0 2\n", "line 2: expected a vertex number between 1 and 3, found 0"),
        (
            "p edge 3 1\ne 2 2\n",
            "line 2: expected an edge between two different vertices, found the self-loop 2–2",
        ),
        ("p edge 3 1\nx 1 2\n", "line 2: expected a `c`, `p`, `e` or `n` line, found `x 1 2`"),
        ("p edge 3 1\nEND\ne 1 2\n", "line 3: expected nothing after `END` (line 2), found `e 1 2`"),
    ];
    for (text, message) in cases {
        assert_eq!(parse_error(text).to_string(), message, "input {text:?}");
    }
    assert!(matches!(parse_error("p edge 2 1\nn 1 x\n"), DimacsError::BadVertexWeight { line: 2, .. }));
    assert!(matches!(
        parse_error("p edge 2 1\nn 3 1\n"),
        DimacsError::VertexOutOfRange { line: 2, vertex: 3, n: 2 }
    ));
    let missing = dimacs::read_file(instances().join("no-such-graph.clq")).unwrap_err();
    assert!(matches!(missing, DimacsError::Io(_)), "{missing}");
}

/// A sparse graph of 65,536 vertices searches only the vertices that have
/// an edge (it searched all of them, with an O(n²) degeneracy order and
/// renumbering: 25 s for one edge).
#[test]
fn isolated_vertices_are_left_out_of_the_search() {
    let g = dimacs::parse_str("p edge 65536 1\ne 1 65536\n").unwrap();
    assert!(g.memory_bytes() < 4 << 20, "{} bytes", g.memory_bytes());
    let search = CliqueSearch::max_clique(&g);
    assert_eq!(search.n(), 2);
    seq::run_search(&search);
    assert_eq!(search.incumbent.into_best(), Some((2, vec![0, 65535])));
    // Without any edge, one vertex is a maximum clique.
    let empty = Graph::new(1000);
    let search = CliqueSearch::max_clique_unseeded(&empty);
    assert_eq!(search.n(), 1);
    seq::run_search(&search);
    assert_eq!(search.incumbent.into_best().map(|(omega, _)| omega), Some(1));
    assert_eq!(CliqueSearch::k_clique(&Graph::new(0), 1).n(), 0);
    // A triangle among isolated vertices, and a decision on it.
    let mut g = Graph::new(5000);
    g.add_edge(10, 4000);
    g.add_edge(4000, 4999);
    g.add_edge(10, 4999);
    assert_eq!(CliqueSearch::max_clique(&g).n(), 3);
    let yes = CliqueSearch::k_clique(&g, 3);
    seq::run_search(&yes);
    assert_eq!(yes.found(), Some(vec![10, 4000, 4999]));
}

/// The file is read as bytes: a comment may hold any (one Latin-1 byte in a
/// comment rejected the file, without a line); elsewhere a byte that is not
/// UTF-8 fails its line.
#[test]
fn comments_hold_any_bytes_and_other_lines_name_theirs() {
    let text: &[u8] = b"c caf\xe9 au lait \xff\xfe\r\np edge 3 2\r\ne 1 2\ne 2 3\n";
    let g = dimacs::parse(text).unwrap();
    assert_eq!((g.n(), g.edge_count()), (3, 2));
    let bad: &[u8] = b"p edge 3 2\ne 1 2\ne 2 \xe9\n";
    assert_eq!(
        dimacs::parse(bad).unwrap_err().to_string(),
        "line 3: expected an edge `e U V` with two vertex numbers, found `e 2 \\xe9`"
    );
}

/// An edge count on the `p` line that is neither the number of edge lines
/// nor of distinct edges is a warning (it passed silently).
#[test]
fn a_wrong_edge_count_is_a_warning() {
    let (g, warnings) =
        dimacs::parse_with_warnings("c x\np edge 4 9\ne 1 2\ne 2 1\ne 3 4\n".as_bytes()).unwrap();
    assert_eq!(g.edge_count(), 2);
    assert_eq!(warnings, [DimacsWarning::EdgeCount { line: 2, declared: 9, lines: 3, distinct: 2 }],);
    // Counting the lines or the distinct edges is fine.
    for m in [3, 2] {
        let text = format!("p edge 4 {m}\ne 1 2\ne 2 1\ne 3 4\n");
        assert!(dimacs::parse_with_warnings(text.as_bytes()).unwrap().1.is_empty(), "{m}");
    }
    // The benchmark graphs agree with their headers.
    for name in ["brock200_1.clq", "brock200_2.clq", "brock200_4.clq", "keller4.clq", "hamming8-4.clq"] {
        let (_, warnings) = dimacs::read_file_with_warnings(instances().join(name)).unwrap();
        assert!(warnings.is_empty(), "{name}: {warnings:?}");
    }
}

/// ω with the graph held as `mode` says, sequentially (`p == 0`) or on `p`
/// PEs; checks the witness.
fn omega_mode(g: &Graph, mode: Mode, p: usize) -> i64 {
    let search = CliqueSearch::with_options(g, Options { mode, ..Options::default() }).unwrap();
    assert_eq!(search.is_sparse(), mode == Mode::Sparse || (mode == Mode::Auto && search.n() > 4096));
    if p == 0 {
        seq::run_search(&search);
    } else {
        let config = Config {
            threads: p,
            spec: RunSpec { budget: treelb::spec::Budget::of(16), ..RunSpec::default() },
            ..Config::default()
        };
        run(DfsWork::new(&search, SplitPolicy::ALL[p % 2]), &config).unwrap();
    }
    let (omega, clique) = search.incumbent.into_best().unwrap_or((0, Vec::new()));
    assert_eq!(clique.len() as i64, omega);
    assert!(g.is_clique(&clique), "{clique:?} is not a clique");
    omega
}

/// The sparse search (one bitset subproblem per vertex over its
/// neighbours of lower degeneracy position) against brute force and the
/// dense search, sequentially and in parallel, maximum and decision.
#[test]
fn sparse_search_matches_brute_force_and_the_dense_search() {
    for n in [0, 1, 2, 5, 12, 30, 40] {
        for p in [0.05, 0.3, 0.7, 0.95] {
            for seed in 0..3 {
                let g = Graph::random(n, p, 500 + seed * 100 + n as u64);
                let omega = i64::from(brute_force_omega(&g));
                let what = format!("G({n}, {p}), seed {seed}");
                assert_eq!(omega_mode(&g, Mode::Sparse, 0), omega, "{what}");
                assert_eq!(omega_mode(&g, Mode::Sparse, 3), omega, "{what}, P = 3");
            }
        }
    }
    for (i, (n, p)) in [(150, 0.1), (150, 0.5), (120, 0.9), (400, 0.02)].into_iter().enumerate() {
        let g = Graph::random(n, p, 9 + i as u64);
        let dense = omega_mode(&g, Mode::Dense, 0);
        for threads in [0, 1, 2, 4] {
            assert_eq!(omega_mode(&g, Mode::Sparse, threads), dense, "G({n}, {p}), P = {threads}");
        }
        let k = u32::try_from(dense).unwrap();
        for (k, exists) in [(k, true), (k + 1, false)] {
            let search = CliqueSearch::with_options(
                &g,
                Options { target: Some(k), mode: Mode::Sparse, ..Options::default() },
            )
            .unwrap();
            seq::run_search(&search);
            assert_eq!(search.found().is_some(), exists, "G({n}, {p}), k = {k}");
            assert!(search.found().is_none_or(|c| c.len() == k as usize && g.is_clique(&c)));
        }
    }
}

/// The vertices of the `k`-core (every clique of `k + 1` vertices lies in
/// it), by peeling vertices of degree below `k`.
fn core(g: &Graph, k: usize) -> Vec<usize> {
    let mut degree: Vec<usize> = (0..g.n()).map(|v| g.degree(v)).collect();
    let mut gone = vec![false; g.n()];
    let mut stack: Vec<usize> = (0..g.n()).filter(|&v| degree[v] < k).collect();
    for &v in &stack {
        gone[v] = true;
    }
    while let Some(v) = stack.pop() {
        for u in g.neighbours(v) {
            degree[u] -= 1;
            if !gone[u] && degree[u] < k {
                gone[u] = true;
                stack.push(u);
            }
        }
    }
    (0..g.n()).filter(|&v| !gone[v]).collect()
}

/// A sparse random graph of 200,000 vertices and about 800,000 edges with a
/// clique of 12 planted in it is held in `O(n + m)` memory and searched by
/// parts; its ω is that of the dense search on its (ω − 1)-core — a
/// smaller copy that holds every clique of ω vertices or more, so the two
/// agree only if the sparse search missed no larger clique.
#[test]
fn large_sparse_graph_matches_the_dense_search_on_its_core() {
    let n = 200_000u64;
    let mut rng = treelb_apps::splitmix::SplitMix64::new(2026);
    let mut edges: Vec<(u32, u32)> = Vec::new();
    while edges.len() < 800_000 {
        let (u, v) = ((rng.next_u64() % n) as u32, (rng.next_u64() % n) as u32);
        if u != v {
            edges.push((u, v));
        }
    }
    let planted: Vec<u32> = (0..12).map(|i| (i * 16_661 + 7) as u32).collect();
    for (i, &u) in planted.iter().enumerate() {
        for &v in &planted[i + 1..] {
            edges.push((u, v));
        }
    }
    let g = Graph::from_edges(n as usize, &mut edges);
    assert!(!g.is_dense());
    assert!(g.memory_bytes() < 16 << 20, "{} bytes", g.memory_bytes());
    assert!(g.is_clique(&planted));
    let omega = omega_mode(&g, Mode::Auto, 0);
    assert_eq!(omega, 12);
    assert_eq!(omega_mode(&g, Mode::Auto, 2), 12);
    let kept = core(&g, omega as usize - 1);
    assert!(kept.len() < 4096, "the core has {} vertices", kept.len());
    let small = g.induced(&kept);
    assert_eq!(omega_mode(&small, Mode::Dense, 0), omega);
}

/// A graph whose header asks for more vertices than memory allows is
/// refused on its `p` line, and a search that would need a bitset graph
/// above the given limit is refused before allocating it, naming the size.
#[test]
fn memory_estimates_refuse_absurd_requests() {
    let e = dimacs::parse_str("p edge 200000000 1\ne 1 2\n").unwrap_err();
    assert!(matches!(e, DimacsError::TooLarge { line: 1, n: 200_000_000, .. }), "{e}");
    let g = Graph::complete(600);
    let options = Options { mode: Mode::Dense, max_bitset_bytes: Some(1 << 15), ..Options::default() };
    let refused = CliqueSearch::with_options(&g, options).unwrap_err();
    assert_eq!((refused.vertices, refused.bytes), (600, 600 * 10 * 8));
    assert_eq!(
        refused.to_string(),
        "the search needs a bitset graph of 600 vertices (47 KiB), more than the limit of 32 KiB"
    );
    // Sparse: the largest part has degeneracy-many vertices, 599 here.
    let options = Options { mode: Mode::Sparse, max_bitset_bytes: Some(1 << 15), ..Options::default() };
    assert_eq!(CliqueSearch::with_options(&g, options).unwrap_err().vertices, 599);
}

/// ω by Bron–Kerbosch with pivoting on bitsets of four words (n <= 256).
fn brute_force_omega_wide(g: &Graph) -> u32 {
    type Set = [u64; 4];
    fn and(a: &Set, b: &Set) -> Set {
        std::array::from_fn(|i| a[i] & b[i])
    }
    fn first(s: &Set) -> Option<usize> {
        s.iter().enumerate().find(|(_, w)| **w != 0).map(|(i, w)| i * 64 + w.trailing_zeros() as usize)
    }
    fn bk(nbr: &[Set], r: u32, mut p: Set, mut x: Set) -> u32 {
        let either: Set = std::array::from_fn(|i| p[i] | x[i]);
        let Some(pivot) = first(&either) else { return r };
        let mut branch: Set = std::array::from_fn(|i| p[i] & !nbr[pivot][i]);
        let mut best = r;
        while let Some(v) = first(&branch) {
            branch[v / 64] &= !(1 << (v % 64));
            if first(&p).is_some() {
                best = best.max(bk(nbr, r + 1, and(&p, &nbr[v]), and(&x, &nbr[v])));
            }
            p[v / 64] &= !(1 << (v % 64));
            x[v / 64] |= 1 << (v % 64);
        }
        best
    }
    let n = g.n();
    assert!(n <= 256);
    let nbr: Vec<Set> = (0..n)
        .map(|v| {
            let mut s = [0; 4];
            for u in g.neighbours(v) {
                s[u / 64] |= 1 << (u % 64);
            }
            s
        })
        .collect();
    let mut all = [0u64; 4];
    for v in 0..n {
        all[v / 64] |= 1 << (v % 64);
    }
    bk(&nbr, 0, all, [0; 4])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The colour bound with re-colouring and infra-chromatic sets, on
    /// bitsets of one to three words, sparse to very dense (above 95 % of
    /// the pairs the infra-chromatic sets are not sought): ω and a maximum
    /// clique as brute force finds, seeded and unseeded, and the decisions
    /// for ω and ω + 1. (Brute force on a dense graph of more than 64
    /// vertices takes too long: those have density at most 0.6.)
    #[test]
    fn the_colour_bound_matches_brute_force(
        (n, p) in prop_oneof![(1usize..=64, 0.05f64..0.99), (65usize..180, 0.05f64..0.6)],
        seed in any::<u64>(),
    ) {
        let g = Graph::random(n, p, seed);
        let omega = i64::from(brute_force_omega_wide(&g));
        prop_assert_eq!(omega_seq(&g, true), omega);
        prop_assert_eq!(omega_seq(&g, false), omega);
        let k = u32::try_from(omega).unwrap();
        prop_assert!(has_k_clique(&g, k, 0));
        prop_assert!(!has_k_clique(&g, k + 1, 0));
    }
}

/// ω with unit propagation over the colour classes
/// ([`Options::propagate`]), sequentially, and its nodes; checks the
/// witness.
fn omega_propagating(g: &Graph, target: Option<u32>) -> (i64, u64) {
    omega_propagating_with(g, target, false)
}

/// ω of a sequential search with `options`, and its nodes; checks the
/// witness.
fn omega_with(g: &Graph, options: Options) -> (i64, u64) {
    let search = CliqueSearch::with_options(g, options).unwrap();
    let (stats, nodes) = seq::run_search(&search);
    assert_eq!(stats.nodes(), nodes);
    let Some((omega, clique)) = search.incumbent.into_best() else { return (0, nodes) };
    assert_eq!(clique.len() as i64, omega);
    assert!(g.is_clique(&clique), "{clique:?} is not a clique");
    (omega, nodes)
}

/// [`omega_propagating`], with max-resolution ([`Options::resolve`]) or
/// not.
fn omega_propagating_with(g: &Graph, target: Option<u32>, resolve: bool) -> (i64, u64) {
    let options = Options {
        greedy: target.is_none(),
        target,
        propagate: true,
        resolve: Some(resolve),
        ..Options::default()
    };
    omega_with(g, options)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The colour bound with unit propagation over the classes never cuts a
    /// maximum clique: ω as brute force finds it, and the decisions for ω
    /// and ω + 1, on graphs of one to three words from sparse to 0.95 dense
    /// (above, the classes are not searched for inconsistent sets).
    #[test]
    fn propagation_matches_brute_force(
        (n, p) in prop_oneof![(1usize..=64, 0.3f64..0.95), (65usize..180, 0.3f64..0.6)],
        seed in any::<u64>(),
    ) {
        let g = Graph::random(n, p, seed);
        let omega = i64::from(brute_force_omega_wide(&g));
        prop_assert_eq!(omega_propagating(&g, None).0, omega);
        let k = u32::try_from(omega).unwrap();
        prop_assert_eq!(omega_propagating(&g, Some(k)).0, omega);
        prop_assert!(omega_propagating(&g, Some(k + 1)).0 <= omega);
    }

    /// The same with max-resolution ([`Options::resolve`]): the classes of
    /// an inconsistent set, enlarged by its vertex, serve again.
    #[test]
    fn resolution_matches_brute_force(
        (n, p) in prop_oneof![(1usize..=64, 0.3f64..0.95), (65usize..180, 0.3f64..0.6)],
        seed in any::<u64>(),
    ) {
        let g = Graph::random(n, p, seed);
        let omega = i64::from(brute_force_omega_wide(&g));
        prop_assert_eq!(omega_propagating_with(&g, None, true).0, omega);
        let k = u32::try_from(omega).unwrap();
        prop_assert_eq!(omega_propagating_with(&g, Some(k), true).0, omega);
        prop_assert!(omega_propagating_with(&g, Some(k + 1), true).0 <= omega);
    }
}

/// ω with the filtering phase ([`Options::filter`]) or not, with unit
/// propagation and max-resolution as given, sequentially, and its nodes;
/// checks the witness.
fn omega_filtering(
    g: &Graph,
    target: Option<u32>,
    filter: bool,
    propagate: bool,
    resolve: bool,
) -> (i64, u64) {
    let options = Options {
        greedy: target.is_none(),
        target,
        propagate,
        resolve: Some(resolve),
        filter,
        // Off with the filtering phase (partite mode), and at a root split
        // by parts, whose children are not filtered: the trees compared
        // are the same.
        partite: Some(false),
        root_parts: Some(false),
        ..Options::default()
    };
    omega_with(g, options)
}

/// A clique search that counts the nodes it expands into no child, the
/// root aside.
struct Leaves<'a> {
    inner: &'a CliqueSearch,
    leaves: std::sync::atomic::AtomicU64,
}

impl treelb::search::Search for Leaves<'_> {
    type Node = <CliqueSearch as treelb::search::Search>::Node;
    type Output = <CliqueSearch as treelb::search::Search>::Output;

    fn root(&self) -> Self::Node {
        self.inner.root()
    }

    fn expand(
        &self,
        node: Self::Node,
        acc: &mut Self::Output,
        children: &mut treelb::search::Children<'_, Self::Node>,
    ) {
        let child = node.size() > 0;
        let pushed = treelb::search::expand_one(self.inner, node, acc);
        if child && pushed.is_empty() {
            self.leaves.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        children.extend(pushed);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The filtering phase never cuts a maximum clique, with the colour
    /// bound alone, unit propagation or max-resolution: ω as brute force
    /// finds it, and the decisions for ω and ω + 1. The proof that no
    /// clique of ω + 1 vertices exists expands exactly the nodes of the
    /// search without it, less the leaves (its floor never moves, so every
    /// colouring is the same).
    #[test]
    fn filtering_matches_brute_force(
        (n, p) in prop_oneof![(1usize..=64, 0.05f64..0.99), (65usize..180, 0.05f64..0.6)],
        seed in any::<u64>(),
        reasoning in 0usize..3,
    ) {
        let g = Graph::random(n, p, seed);
        let (propagate, resolve) = (reasoning >= 1, reasoning == 2);
        let omega = i64::from(brute_force_omega_wide(&g));
        prop_assert_eq!(omega_filtering(&g, None, true, propagate, resolve).0, omega);
        let k = u32::try_from(omega).unwrap();
        prop_assert_eq!(omega_filtering(&g, Some(k), true, propagate, resolve).0, omega);
        let (below, filtered) = omega_filtering(&g, Some(k + 1), true, propagate, resolve);
        prop_assert!(below <= omega);
        let options = Options {
            target: Some(k + 1),
            propagate,
            resolve: Some(resolve),
            partite: Some(false),
            root_parts: Some(false),
            ..Options::default()
        };
        let plain = CliqueSearch::with_options(&g, options).unwrap();
        let leaves = Leaves { inner: &plain, leaves: std::sync::atomic::AtomicU64::new(0) };
        let (_, nodes) = seq::run_search(&leaves);
        prop_assert_eq!(filtered, nodes - leaves.leaves.into_inner());
    }
}

/// brock200_1 and keller4 searched with `options` on the threads runtime at
/// P = 2, 3, 4 and 2 again, with `--deterministic`'s ties: the published
/// ω, checked witnesses, and the same witness each time.
fn same_witness_on_threads(options: Options) {
    for (name, n, m, omega) in [("brock200_1", 200, 14_834, 21), ("keller4", 171, 9_435, 11)] {
        let g = benchmark(name, n, m);
        let mut witnesses = Vec::new();
        for p in [2, 3, 4, 2] {
            let search = CliqueSearch::with_options(&g, options).unwrap();
            search.incumbent.break_ties();
            let config = Config {
                threads: p,
                spec: RunSpec { budget: treelb::spec::Budget::of(16), ..RunSpec::default() },
                ..Config::default()
            };
            run(DfsWork::new(&search, SplitPolicy::default()), &config).unwrap();
            let (found, clique) = search.incumbent.into_best().unwrap();
            assert_eq!(found, omega, "{name}, P = {p}");
            assert!(g.is_clique(&clique), "{name}, P = {p}");
            witnesses.push(clique);
        }
        assert!(witnesses.windows(2).all(|w| w[0] == w[1]), "{name}: {witnesses:?}");
    }
}

/// The filtering phase on the threads runtime, where a node carrying its
/// colouring may be the first its thread expands: the published ω, checked
/// witnesses, and the same witness twice with `--deterministic`'s ties.
#[test]
fn filtering_on_threads_keeps_published_omegas() {
    same_witness_on_threads(Options { greedy: true, filter: true, ..Options::default() });
}

/// The published clique numbers with the filtering phase, on top of each
/// reasoning, with fewer nodes than without it.
#[test]
fn filtering_keeps_published_omegas_with_fewer_nodes() {
    for (name, n, m, omega) in [
        ("brock200_1", 200, 14_834, 21),
        ("keller4", 171, 9_435, 11),
        ("hamming8-4", 256, 20_864, 16),
        ("C125.9", 125, 6_963, 34),
    ] {
        let g = benchmark(name, n, m);
        for (propagate, resolve) in [(false, false), (true, false), (true, true)] {
            let (found, nodes) = omega_filtering(&g, None, true, propagate, resolve);
            assert_eq!(found, omega, "{name}, propagate {propagate}, resolve {resolve}");
            let (_, plain) = omega_filtering(&g, None, false, propagate, resolve);
            assert!(nodes < plain, "{name}: {nodes} nodes filtered, {plain} without");
        }
    }
}

/// ω in partite mode ([`Options::partite`]) or not, with unit propagation
/// and max-resolution as given, held as `mode` says, sequentially, and its
/// nodes; checks the witness.
fn omega_partite(g: &Graph, target: Option<u32>, partite: bool, reasoning: usize, mode: Mode) -> (i64, u64) {
    let options = Options {
        greedy: target.is_none(),
        target,
        propagate: reasoning >= 1,
        resolve: Some(reasoning == 2),
        partite: Some(partite),
        mode,
        ..Options::default()
    };
    omega_with(g, options)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Partite mode never cuts a maximum clique and completes the cliques
    /// it finds correctly, with the colour bound alone, unit propagation or
    /// max-resolution, dense and sparse: ω as brute force finds it (the
    /// witness checked), and the decisions for ω and ω + 1.
    #[test]
    fn partite_mode_matches_brute_force(
        (n, p) in prop_oneof![(1usize..=64, 0.05f64..0.99), (65usize..180, 0.05f64..0.6)],
        seed in any::<u64>(),
        reasoning in 0usize..3,
        sparse in any::<bool>(),
    ) {
        let g = Graph::random(n, p, seed);
        let mode = if sparse { Mode::Sparse } else { Mode::Dense };
        let omega = i64::from(brute_force_omega_wide(&g));
        prop_assert_eq!(omega_partite(&g, None, true, reasoning, mode).0, omega);
        let k = u32::try_from(omega).unwrap();
        prop_assert_eq!(omega_partite(&g, Some(k), true, reasoning, mode).0, omega);
        prop_assert!(omega_partite(&g, Some(k + 1), true, reasoning, mode).0 <= omega);
    }
}

/// The published clique numbers in partite mode, on top of each reasoning,
/// with no more nodes than without it (fewer over the three); and keller4, colour sorted, takes
/// partite mode by default.
#[test]
fn partite_mode_keeps_published_omegas_with_fewer_nodes() {
    for (name, n, m, omega) in [
        ("brock200_1", 200, 14_834, 21),
        ("keller4", 171, 9_435, 11),
        ("hamming8-4", 256, 20_864, 16),
        ("C125.9", 125, 6_963, 34),
    ] {
        let g = benchmark(name, n, m);
        let (mut with, mut without) = (0, 0);
        for reasoning in 0..3 {
            let (found, nodes) = omega_partite(&g, None, true, reasoning, Mode::Dense);
            assert_eq!(found, omega, "{name}, reasoning {reasoning}");
            let (_, plain) = omega_partite(&g, None, false, reasoning, Mode::Dense);
            assert!(nodes <= plain, "{name}, reasoning {reasoning}: {nodes} nodes partite, {plain} without");
            (with, without) = (with + nodes, without + plain);
        }
        assert!(with < without, "{name}: {with} nodes partite, {without} without");
    }
    let g = benchmark("keller4", 171, 9_435);
    let by_default = CliqueSearch::max_clique(&g);
    let (_, nodes) = seq::run_search(&by_default);
    let off =
        CliqueSearch::with_options(&g, Options { greedy: true, partite: Some(false), ..Options::default() })
            .unwrap();
    let (_, plain) = seq::run_search(&off);
    assert!(nodes < plain, "keller4: {nodes} nodes by default, {plain} without partite mode");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// The root split by parts ([`Options::root_parts`]) never cuts a
    /// maximum clique: ω as brute force finds it (the witness checked),
    /// with and without the greedy start, with the colour bound alone, unit
    /// propagation or max-resolution, partite mode or not, and the
    /// decisions for ω and ω + 1.
    #[test]
    fn root_parts_match_brute_force(
        (n, p) in prop_oneof![(1usize..=64, 0.05f64..0.99), (65usize..180, 0.05f64..0.6)],
        seed in any::<u64>(),
        reasoning in 0usize..3,
        partite in any::<bool>(),
        greedy in any::<bool>(),
    ) {
        let g = Graph::random(n, p, seed);
        let options = |target: Option<u32>| Options {
            greedy: greedy && target.is_none(),
            target,
            propagate: reasoning >= 1,
            resolve: Some(reasoning == 2),
            partite: Some(partite),
            root_parts: Some(true),
            mode: Mode::Dense,
            ..Options::default()
        };
        let omega = i64::from(brute_force_omega_wide(&g));
        prop_assert_eq!(omega_with(&g, options(None)).0, omega);
        let k = u32::try_from(omega).unwrap();
        prop_assert_eq!(omega_with(&g, options(Some(k))).0, omega);
        prop_assert!(omega_with(&g, options(Some(k + 1))).0 <= omega);
    }
}

/// The published clique numbers with the root split by parts forced on
/// and off; p_hat700-2, whose degrees are spread, takes it by default and
/// proves ω with fewer nodes than without, and brock200_1 does not take it.
#[test]
fn root_parts_keep_published_omegas() {
    for (name, n, m, omega) in [
        ("brock200_1", 200, 14_834, 21),
        ("keller4", 171, 9_435, 11),
        ("hamming8-4", 256, 20_864, 16),
        ("C125.9", 125, 6_963, 34),
        ("p_hat300-1", 300, 10_933, 8),
    ] {
        let g = benchmark(name, n, m);
        for parts in [true, false] {
            let options = Options { greedy: true, root_parts: Some(parts), ..Options::default() };
            assert_eq!(omega_with(&g, options).0, omega, "{name}, root parts {parts}");
        }
    }
    let g = benchmark("p_hat700-2", 700, 121_728);
    let (found, nodes) = omega_with(&g, Options { greedy: true, ..Options::default() });
    assert_eq!(found, 44);
    let (_, plain) = omega_with(&g, Options { greedy: true, root_parts: Some(false), ..Options::default() });
    assert!(nodes < plain, "p_hat700-2: {nodes} nodes by default, {plain} without root parts");
    let g = benchmark("brock200_1", 200, 14_834);
    let by_default = omega_with(&g, Options { greedy: true, ..Options::default() });
    let off = omega_with(&g, Options { greedy: true, root_parts: Some(false), ..Options::default() });
    assert_eq!(by_default, off, "brock200_1: the same tree by default as without root parts");
}

/// Partite mode on the threads runtime, where a thief takes nodes that
/// carry their partition: the published ω, checked witnesses, and the same
/// witness each time with `--deterministic`'s ties.
#[test]
fn partite_mode_on_threads_keeps_published_omegas() {
    same_witness_on_threads(Options { greedy: true, partite: Some(true), ..Options::default() });
}

/// The root split by parts on the threads runtime, where thieves take
/// the large parts: the published ω, checked witnesses, and the same
/// witness each time with `--deterministic`'s ties.
#[test]
fn root_parts_on_threads_keep_published_omegas() {
    same_witness_on_threads(Options { greedy: true, root_parts: Some(true), ..Options::default() });
}

/// The published clique numbers with unit propagation, which expands fewer
/// nodes than the colour bound alone on these graphs.
#[test]
fn propagation_keeps_published_omegas_with_fewer_nodes() {
    for (name, n, m, omega) in
        [("brock200_1", 200, 14_834, 21), ("brock200_4", 200, 13_089, 17), ("C125.9", 125, 6_963, 34)]
    {
        let g = benchmark(name, n, m);
        let (found, nodes) = omega_propagating(&g, None);
        assert_eq!(found, omega, "{name}");
        let plain = Options { greedy: true, resolve: Some(false), ..Options::default() };
        let (_, plain_nodes) = omega_with(&g, plain);
        assert!(nodes < plain_nodes, "{name}: {nodes} nodes, {plain_nodes} without propagation");
        let (found, resolved) = omega_propagating_with(&g, None, true);
        assert_eq!(found, omega, "{name}, max-resolution");
        assert!(resolved < nodes, "{name}: {resolved} nodes with max-resolution, {nodes} without");
        let (_, by_default) = omega_with(&g, Options { greedy: true, ..Options::default() });
        assert_eq!(by_default, resolved, "{name}: max-resolution is on by default");
    }
}

#[test]
fn wide_brute_force_agrees_with_the_narrow_one() {
    for seed in 0..20 {
        let g = Graph::random(60, 0.6, seed);
        assert_eq!(brute_force_omega_wide(&g), brute_force_omega(&g));
    }
    assert_eq!(brute_force_omega_wide(&Graph::complete(200)), 200);
    assert_eq!(brute_force_omega_wide(&Graph::turan(100, 3)), 3);
    // Dense graphs of three words, where no infra-chromatic set is sought:
    // T(130, 40) has density 0.975.
    check_omega(&Graph::turan(130, 40), 40, "T(130, 40)");
    check_omega(&Graph::from_fn(140, |u, v| v != u + 70), 70, "cocktail party graph, m = 70");
}

/// An endless line (`/dev/zero`, a binary file) is refused once it passes
/// 1 MiB, naming its line, having read little more than that: it was read
/// whole, and `treelb clique /dev/zero` aborted on a failed allocation of
/// 8 GiB.
#[test]
fn an_endless_line_is_refused_at_the_limit() {
    use treelb_apps::input::{LimitError, MAX_LINE_BYTES};
    let cases: [(&'static [u8], u8, usize); 4] = [
        (b"", 0, 1),
        (b"c a binary file\np edge 3 1\ne 1 2\n", b'0', 4),
        // An edge line that goes on with blanks, the reader of plain edges.
        (b"p edge 3 1\ne 1 2", b' ', 2),
        (b"p edge 3 1\ne 1 2\r\nc ", b'\r', 3),
    ];
    for (prefix, byte, line) in cases {
        let mut endless = Endless { prefix, byte, given: 0 };
        let error = dimacs::parse(std::io::BufReader::new(&mut endless)).unwrap_err();
        assert_eq!(error.to_string(), format!("line {line}: longer than 1 MiB (a binary file?)"));
        assert!(matches!(error, DimacsError::Limit(LimitError::LineTooLong { .. })), "{error:?}");
        assert!(endless.given <= MAX_LINE_BYTES as u64 + (64 << 10), "{} bytes read", endless.given);
    }
}

/// Whether `message` holds a control character (C0, DEL, C1), which a
/// terminal would obey rather than show.
fn has_control(message: &str) -> bool {
    message.chars().any(char::is_control)
}

/// Input an error message quotes is escaped: a line that would set a
/// terminal's title and clear its screen is shown, not obeyed; a byte that
/// is not UTF-8 is shown as such; a long line is cut short.
#[test]
fn errors_show_control_characters_visibly() {
    let cases: [(&[u8], &str); 5] = [
        (
            b"p edge 3 1\ne 1 \x1b]0;PWNED\x07\x1b[2J\n",
            r"line 2: expected an edge `e U V` with two vertex numbers, found `e 1 \x1b]0;PWNED\x07\x1b[2J`",
        ),
        (
            "p edge 3 1\nx \u{9b}2J \u{202e}dlrow\n".as_bytes(),
            r"line 2: expected a `c`, `p`, `e` or `n` line, found `x \u{9b}2J \u{202e}dlrow`",
        ),
        (
            b"p edge 3 1\xff\x00\r\n",
            r"line 1: expected a problem line `p edge N M` or `p col N M`, found `p edge 3 1\xff\x00`",
        ),
        (
            b"p edge 3 1\nEND\n\x7f\x1b[31m\tred\n",
            r"line 3: expected nothing after `END` (line 2), found `\x7f\x1b[31m\tred`",
        ),
        (
            b"p edge 3 1\nn 1 \x1b[2J\x08\n",
            r"line 2: expected a vertex weight `n V W` with two integers, found `n 1 \x1b[2J\x08`",
        ),
    ];
    for (input, message) in cases {
        let error = dimacs::parse(input).unwrap_err().to_string();
        assert_eq!(error, message, "input {input:?}");
        assert!(!has_control(&error), "{error:?}");
    }
    // 5 KB of a binary file on one line: cut after 60 characters.
    let binary: Vec<u8> =
        (0..5000u32).map(|i| (i * 7 % 256) as u8).map(|b| if b == b'\n' { 0 } else { b }).collect();
    let input = [&b"p edge 3 1\n"[..], &binary, b"\n"].concat();
    let error = dimacs::parse(&input[..]).unwrap_err().to_string();
    assert!(
        error.starts_with(r"line 2: expected a `c`, `p`, `e` or `n` line, found `\x00\x07\x0e"),
        "{error}"
    );
    assert!(error.ends_with("…`") && error.chars().count() < 130, "{error}");
    assert!(!has_control(&error), "{error:?}");
    // A byte order mark is skipped at the start of a file.
    assert_eq!(dimacs::parse_str("\u{feff}p edge 2 1\ne 1 2\n").unwrap().edge_count(), 1);
}
