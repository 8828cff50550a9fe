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

fn uts_sample(name: &str) -> (Uts, u64) {
    let tree = SAMPLE_TREES.iter().find(|t| t.name == name).expect("known sample");
    (Uts::new(Params::from_uts_str(tree.flags).unwrap()).unwrap(), tree.nodes)
}

#[test]
fn uts_t1_has_4130071_nodes_for_every_p() {
    let (uts, nodes) = uts_sample("T1");
    assert_eq!(nodes, 4_130_071);
    run_all(&uts, |r: &UtsResult, what| {
        assert_eq!(r.nodes, nodes, "{what}");
        assert_eq!((r.leaves, r.max_depth), (3_305_118, 10), "{what}");
    });
}

#[test]
fn uts_t3_has_4112897_nodes_for_every_p() {
    let (uts, nodes) = uts_sample("T3");
    assert_eq!(nodes, 4_112_897);
    run_all(&uts, |r: &UtsResult, what| {
        assert_eq!(r.nodes, nodes, "{what}");
        assert_eq!((r.leaves, r.max_depth), (3_599_034, 1_572), "{what}");
    });
}

#[test]
fn nqueens_published_counts_for_every_p() {
    for (n, solutions) in [(1, 1), (2, 0), (3, 0), (4, 2), (8, 92), (10, 724), (12, 14_200), (14, 365_596)] {
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
fn work_units_are_the_nodes_of_the_tree() {
    let (uts, nodes) = uts_sample("T3");
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
