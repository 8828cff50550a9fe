//! The applications on the threads runtime: the published answers for every
//! number of PEs (oversubscribed beyond the cores), every strategy of the
//! runtime, both initializations and both split policies.

use treelb::RunSpec;
use treelb::search::{DfsWork, Search, SplitPolicy};
use treelb::{Init, Reduce, Strategy};
use treelb_apps::nqueens::NQueens;
use treelb_apps::uts::{Params, SAMPLE_TREES, Uts, UtsResult};
use treelb_threads::{Config, SUPPORTED_STRATEGIES, run};

const PES: [usize; 5] = [1, 2, 3, 4, 8];

fn run_all<S>(search: &S, check: impl Fn(&S::Output, &str))
where
    S: Search,
    S::Node: Clone,
{
    // Random polling under both inits and split policies for every P; every
    // other strategy of the runtime for P ∈ {1, 2, 4, 8} from the root, and
    // at P = 3 with selective initialization.
    let mut combinations = Vec::new();
    for p in PES {
        for init in Init::ALL {
            for policy in SplitPolicy::ALL {
                combinations.push((p, Strategy::RandomPolling, init, policy));
            }
        }
        for strategy in SUPPORTED_STRATEGIES.into_iter().filter(|&s| s != Strategy::RandomPolling) {
            let init = if p == 3 { Init::Selective } else { Init::Root };
            combinations.push((p, strategy, init, SplitPolicy::default()));
        }
    }
    for (p, strategy, init, policy) in combinations {
        let config = Config {
            threads: p,
            spec: RunSpec { init, strategy, budget: treelb::spec::Budget::of(64), ..RunSpec::default() },
            ..Config::default()
        };
        let outcome = run(DfsWork::new(search, policy), &config).expect("valid config");
        check(&outcome.output, &format!("P = {p}, {strategy}, init {init}, split {policy}"));
        assert_eq!(outcome.stats.pes.len(), p);
    }
}

/// T1's shape (geometric, fixed branching) two levels shallower.
const T1_SHALLOW: &str = "-t 1 -a 3 -d 8 -b 4 -r 19";
/// T3's shape (binomial, a few deep chains) with 500 root children.
const T3_NARROW: &str = "-t 0 -b 500 -q 0.124875 -m 8 -r 4";

/// The output of `search` on 2 threads from the root and on 3 with
/// selective initialization: the published counts' runs.
fn on_two_and_three_threads<S>(search: &S) -> [(usize, S::Output); 2]
where
    S: Search,
    S::Node: Clone,
{
    [(2, Init::Root), (3, Init::Selective)].map(|(p, init)| {
        let config = Config { threads: p, spec: RunSpec { init, ..RunSpec::default() }, ..Config::default() };
        (p, run(DfsWork::new(search, SplitPolicy::default()), &config).unwrap().output)
    })
}

fn uts_sample(name: &str) -> (Uts, u64) {
    let tree = SAMPLE_TREES.iter().find(|t| t.name == name).expect("known sample");
    (Uts::new(Params::from_uts_str(tree.flags).unwrap()).unwrap(), tree.nodes)
}

/// Every combination of P, strategy, initialization and split policy gives
/// the sequential count of a tree a sixteenth the size of a sample (the
/// published counts of the samples themselves are checked at P = 2 and 3
/// below, and sequentially in tests/uts.rs).
fn every_combination_counts_the_tree_of(flags: &str, nodes: u64, max_depth: u64) {
    let uts = Uts::new(Params::from_uts_str(flags).unwrap()).unwrap();
    let (expected, _) = treelb::seq::run_search(&uts);
    assert_eq!((expected.nodes, expected.max_depth), (nodes, max_depth), "{flags}");
    run_all(&uts, |r: &UtsResult, what| assert_eq!(r, &expected, "{flags}, {what}"));
}

#[test]
fn uts_geometric_tree_counts_for_every_p() {
    every_combination_counts_the_tree_of(T1_SHALLOW, 257_042, 8);
}

#[test]
fn uts_binomial_tree_counts_for_every_p() {
    every_combination_counts_the_tree_of(T3_NARROW, 267_869, 488);
}

#[test]
fn uts_t1_and_t3_have_their_published_counts_on_threads() {
    for (name, leaves, max_depth) in [("T1", 3_305_118, 10), ("T3", 3_599_034, 1_572)] {
        let (uts, nodes) = uts_sample(name);
        for (p, r) in on_two_and_three_threads(&uts) {
            assert_eq!((r.nodes, r.leaves, r.max_depth), (nodes, leaves, max_depth), "{name}, P = {p}");
        }
    }
}

#[test]
fn nqueens_published_counts_for_every_p() {
    for (n, solutions) in [(1, 1), (2, 0), (3, 0), (4, 2), (8, 92), (10, 724), (12, 14_200)] {
        let problem = NQueens::new(n).unwrap();
        let (expected, _) = treelb::seq::run_search(&problem);
        // The mirror's halved tree too, on the boards that take milliseconds.
        let mirrored = (n <= 12).then(|| problem.with_mirror(true));
        for problem in std::iter::once(problem).chain(mirrored) {
            run_all(&problem, |r, what| {
                assert_eq!(r.solutions, solutions, "n = {n}, {what}");
                assert_eq!(r, &expected, "n = {n}, {what}");
            });
        }
    }
}

#[test]
fn nqueens_14_has_its_published_count_on_threads() {
    for (p, r) in on_two_and_three_threads(&NQueens::new(14).unwrap()) {
        assert_eq!(r.solutions, 365_596, "P = {p}");
    }
}

#[test]
fn work_units_are_the_nodes_of_the_tree() {
    let uts = Uts::new(Params::from_uts_str(T3_NARROW).unwrap()).unwrap();
    let nodes = 267_869;
    for p in [2, 3] {
        let outcome =
            run(DfsWork::new(&uts, SplitPolicy::OldestHalf), &Config { threads: p, ..Config::default() })
                .unwrap();
        assert_eq!(outcome.stats.work_units(), nodes);
        let mut merged = UtsResult::default();
        merged.merge(outcome.output);
        assert_eq!(merged.nodes, nodes);
    }
}
