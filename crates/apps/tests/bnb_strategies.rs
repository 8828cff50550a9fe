//! The branch-and-bound applications under every strategy of the threads
//! runtime: maximum clique, k-clique decision, 0/1 knapsack and TSP give the
//! published optimum, the dynamic program's optimum or the exact decision,
//! with a valid witness, for P ∈ {1, 2, 3, 4, 8} × every strategy in
//! [`SUPPORTED_STRATEGIES`] (the list grows as strategies land; the tests
//! follow it). The initialization and the split policy vary with P.
//!
//! Then a property of the incumbent on random instances: every PE sees it
//! only improve (never decrease when maximising, never increase when
//! minimising), every snapshot's witness achieves its value, and the final
//! value is the exact optimum.
//!
//! Instances are small (a few milliseconds each), so the whole file stays
//! well under a minute as strategies are added.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use treelb::RunSpec;
use treelb::search::{Children, DfsWork, Search, SplitPolicy};
use treelb::{Init, Strategy, seq};
use treelb_apps::clique::{CliqueSearch, Graph, dimacs};
use treelb_apps::knapsack::{Class, Instance, Knapsack, Spec};
use treelb_apps::splitmix::SplitMix64;
use treelb_apps::tsp::{AscentParams, Tsp, TspSearch, held_karp, tsplib};
use treelb_threads::{Config, SUPPORTED_STRATEGIES, current_pe, run};

const PES: [usize; 5] = [1, 2, 3, 4, 8];

fn instances() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/instances")
}

/// One run configuration per (strategy, P): the initialization and the split
/// policy vary with P, Δt is small so that small trees are shared.
fn configs(budget: u64) -> Vec<(Config, SplitPolicy, String)> {
    let mut all = Vec::new();
    for &strategy in SUPPORTED_STRATEGIES.iter() {
        for (j, p) in PES.into_iter().enumerate() {
            let init = Init::ALL[j % 2];
            let policy = SplitPolicy::ALL[j / 2 % 2];
            let config = Config {
                threads: p,
                spec: RunSpec {
                    init,
                    strategy,
                    budget: treelb::spec::Budget::of(budget),
                    seed: 1000 + j as u64,
                    ..RunSpec::default()
                },
                ..Config::default()
            };
            all.push((config, policy, format!("P = {p}, {strategy}, init {init}, split {policy}")));
        }
    }
    assert_eq!(all.len(), PES.len() * SUPPORTED_STRATEGIES.len());
    all
}

// ---------------------------------------------------------------------------
// Maximum clique and k-clique decision

/// ω on the runtime; checks the witness is a clique of that size.
fn omega(g: &Graph, config: &Config, policy: SplitPolicy, seeded: bool) -> i64 {
    let search = if seeded { CliqueSearch::max_clique(g) } else { CliqueSearch::max_clique_unseeded(g) };
    let outcome = run(DfsWork::new(&search, policy), config).expect("a supported strategy");
    // Every node expanded once, a chunk of greedy starts at a higher cost.
    let (nodes, units) = (outcome.output.nodes(), outcome.stats.work_units());
    assert!(nodes <= units && units <= search.max_work_units(nodes), "{nodes} nodes, {units} units");
    assert_eq!(outcome.stats.pes.len(), config.threads);
    let (omega, clique) = search.incumbent.into_best().expect("a clique, if only the empty one");
    assert_eq!(clique.len() as i64, omega, "the witness has ω vertices");
    assert!(g.is_clique(&clique), "{clique:?} is not a clique");
    omega
}

/// Whether a clique of `k` vertices exists, on the runtime; checks the witness.
fn decide(g: &Graph, k: u32, config: &Config, policy: SplitPolicy) -> bool {
    let search = CliqueSearch::k_clique(g, k);
    run(DfsWork::new(&search, policy), config).expect("a supported strategy");
    match search.found() {
        Some(witness) => {
            assert_eq!(witness.len(), k as usize, "the witness has k vertices");
            assert!(g.is_clique(&witness), "{witness:?} is not a clique");
            true
        }
        None => false,
    }
}

fn sequential_omega(g: &Graph) -> i64 {
    let search = CliqueSearch::max_clique_unseeded(g);
    seq::run_search(&search);
    search.incumbent.best().expect("a clique")
}

#[test]
fn max_clique_every_strategy_and_p() {
    let brock = dimacs::read_file(instances().join("clique/brock200_2.clq")).expect("readable");
    let graphs = [
        ("brock200_2", brock, 12),
        ("hamming6-4", Graph::hamming(6, 4), 4),
        ("johnson8-4-4", Graph::johnson(8, 4, 4), 14),
        ("G(60, 0.7)", Graph::random(60, 0.7, 11), -1),
    ];
    for (name, g, published) in graphs {
        let expected = if published < 0 { sequential_omega(&g) } else { published };
        assert_eq!(sequential_omega(&g), expected, "{name} sequentially");
        for (i, (config, policy, what)) in configs(16).into_iter().enumerate() {
            assert_eq!(omega(&g, &config, policy, i % 2 == 0), expected, "{name}, {what}");
        }
    }
}

#[test]
fn k_clique_decisions_every_strategy_and_p() {
    let keller = dimacs::read_file(instances().join("clique/keller4.clq")).expect("readable");
    for (name, g, omega) in [("keller4", keller, 11), ("hamming6-4", Graph::hamming(6, 4), 4)] {
        for (config, policy, what) in configs(16) {
            assert!(decide(&g, omega, &config, policy), "{name}: a clique of {omega}, {what}");
            assert!(!decide(&g, omega + 1, &config, policy), "{name}: no clique of {}, {what}", omega + 1);
        }
    }
}

// ---------------------------------------------------------------------------
// 0/1 knapsack

/// The optimum on the runtime; checks the packing achieves it.
fn knapsack(instance: &Instance, config: &Config, policy: SplitPolicy) -> i64 {
    let search = Knapsack::new(instance);
    let outcome = run(DfsWork::new(&search, policy), config).expect("a supported strategy");
    assert_eq!(outcome.output.nodes(), outcome.stats.work_units());
    let (best, items) = search.incumbent.into_best().expect("the empty packing at least");
    assert_eq!(instance.profit_of(&items), Some(best), "the packing achieves the reported profit");
    best
}

#[test]
fn knapsack_every_strategy_and_p_gives_the_dp_optimum() {
    let specs = [
        Spec::new(Class::StronglyCorrelated, 50, 1000, 7),
        Spec::new(Class::WeaklyCorrelated, 120, 1000, 8),
        Spec::new(Class::SubsetSum, 40, 1000, 9),
        Spec::new(Class::Uncorrelated, 200, 1000, 10),
    ];
    for spec in specs {
        let instance = spec.generate();
        let dp = instance.dp_optimum(1 << 26).expect("a small capacity");
        for (config, policy, what) in configs(8) {
            assert_eq!(knapsack(&instance, &config, policy), dp, "{spec:?}, {what}");
        }
    }
}

// ---------------------------------------------------------------------------
// TSP

/// The optimal length on the runtime; checks the tour.
fn tour_length(tsp: &Tsp, config: &Config, policy: SplitPolicy, seeded: bool) -> i64 {
    let search = TspSearch::with_params(tsp, AscentParams::for_n(tsp.n()), seeded);
    let outcome = run(DfsWork::new(&search, policy), config).expect("a supported strategy");
    assert_eq!(outcome.output.nodes(), outcome.stats.work_units());
    let (length, tour) = search.incumbent.into_best().expect("a tour");
    let mut sorted = tour.clone();
    sorted.sort_unstable();
    assert!(sorted.iter().copied().eq(0..tsp.n() as u32), "not a permutation: {tour:?}");
    assert_eq!(tsp.tour_length(&tour), Some(length), "the tour has the reported length");
    length
}

#[test]
fn tsp_every_strategy_and_p_gives_the_published_or_held_karp_optimum() {
    let read = |name: &str| tsplib::read_file(instances().join(format!("tsp/{name}.tsp"))).expect("readable");
    let cases = [
        ("burma14", read("burma14"), Some(3323)),
        ("gr17", read("gr17"), Some(2085)),
        ("ulysses16", read("ulysses16"), Some(6859)),
        ("random matrix 13", Tsp::random_matrix(13, 1000, 5), None),
        ("random euclidean 14", Tsp::random_euclidean(14, 1000.0, 6), None),
    ];
    for (name, tsp, published) in cases {
        let (dp, _) = held_karp(&tsp).expect("small enough for Held–Karp");
        if let Some(p) = published {
            assert_eq!(dp, p, "{name}: Held–Karp gives the published optimum");
        }
        for (i, (config, policy, what)) in configs(1).into_iter().enumerate() {
            // Unseeded runs start without a tour: the search finds one.
            assert_eq!(tour_length(&tsp, &config, policy, i % 2 == 1), dp, "{name}, {what}");
        }
    }
}

// ---------------------------------------------------------------------------
// The incumbent only improves, and its witness achieves its value

/// A search that watches its incumbent from every PE: before and after each
/// expansion, the PE reads the incumbent's value and checks that it is not
/// worse than the last value this PE saw; every so often it also takes a
/// snapshot and checks that the witness achieves the value.
struct Watched<'s, S, V, W> {
    inner: &'s S,
    /// The incumbent's value ("larger is better" form: negated when
    /// minimising), if any.
    value: V,
    /// Whether the incumbent's current witness achieves its value.
    witness_ok: W,
    /// The last value each PE saw (slot `P` for the calling thread).
    last: Vec<AtomicI64>,
    reads: AtomicU64,
    worse: AtomicU64,
    bad_witnesses: AtomicU64,
}

impl<'s, S, V, W> Watched<'s, S, V, W>
where
    S: Search,
    V: Fn(&S) -> Option<i64> + Sync,
    W: Fn(&S) -> bool + Sync,
{
    fn new(inner: &'s S, value: V, witness_ok: W) -> Self {
        Watched {
            inner,
            value,
            witness_ok,
            last: (0..=PES[PES.len() - 1]).map(|_| AtomicI64::new(i64::MIN)).collect(),
            reads: AtomicU64::new(0),
            worse: AtomicU64::new(0),
            bad_witnesses: AtomicU64::new(0),
        }
    }

    fn observe(&self) {
        let slot = &self.last[current_pe().unwrap_or(self.last.len() - 1)];
        let now = (self.value)(self.inner).unwrap_or(i64::MIN);
        // Only this PE writes its slot.
        if now < slot.load(Ordering::Relaxed) {
            self.worse.fetch_add(1, Ordering::Relaxed);
        }
        slot.store(now, Ordering::Relaxed);
        if self.reads.fetch_add(1, Ordering::Relaxed).is_multiple_of(32) && !(self.witness_ok)(self.inner) {
            self.bad_witnesses.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Panics unless every read saw the incumbent improve or stay.
    fn check(&self, what: &str) {
        assert!(self.reads.load(Ordering::Relaxed) > 0, "{what}: nothing was observed");
        assert_eq!(self.worse.load(Ordering::Relaxed), 0, "{what}: a PE saw the incumbent get worse");
        assert_eq!(self.bad_witnesses.load(Ordering::Relaxed), 0, "{what}: a witness missed its value");
    }
}

impl<S, V, W> Search for Watched<'_, S, V, W>
where
    S: Search,
    V: Fn(&S) -> Option<i64> + Sync,
    W: Fn(&S) -> bool + Sync,
{
    type Node = S::Node;
    type Output = S::Output;

    fn root(&self) -> S::Node {
        self.inner.root()
    }

    fn expand(&self, node: S::Node, acc: &mut S::Output, children: &mut Children<'_, S::Node>) {
        self.observe();
        self.inner.expand(node, acc, children);
        self.observe();
    }

    fn cost(&self, node: &S::Node) -> u64 {
        self.inner.cost(node)
    }

    fn should_stop(&self) -> bool {
        self.inner.should_stop()
    }
}

/// The `case`-th random run configuration: P, strategy, initialization,
/// split policy, Δt and seed drawn from `rng`.
fn random_config(rng: &mut SplitMix64) -> (Config, SplitPolicy) {
    let pick = |rng: &mut SplitMix64, n: usize| rng.range(0, n as i64 - 1) as usize;
    let strategies: Vec<Strategy> = SUPPORTED_STRATEGIES.to_vec();
    let threads = PES[pick(rng, PES.len())];
    let spec = RunSpec {
        strategy: strategies[pick(rng, strategies.len())],
        init: Init::ALL[pick(rng, 2)],
        budget: treelb::spec::Budget::of(1 + rng.range(0, 31) as u64),
        seed: rng.next_u64(),
        ..RunSpec::default()
    };
    let config = Config::with_spec(threads, spec);
    (config, SplitPolicy::ALL[pick(rng, 2)])
}

/// Cases per application; each a fresh random instance and configuration.
const CASES: u64 = 24;

#[test]
fn the_clique_incumbent_never_decreases_and_its_witness_achieves_it() {
    for case in 0..CASES {
        let mut rng = SplitMix64::new(0xC11_0000 + case);
        let n = rng.range(8, 70) as usize;
        let p = [0.3, 0.5, 0.7, 0.85][rng.range(0, 3) as usize];
        let g = Graph::random(n, p, rng.next_u64());
        let (config, policy) = random_config(&mut rng);
        let what = format!("case {case}: G({n}, {p}), P = {}, {}", config.threads, config.spec.strategy);
        let expected = sequential_omega(&g);
        let search =
            if case % 2 == 0 { CliqueSearch::max_clique(&g) } else { CliqueSearch::max_clique_unseeded(&g) };
        let watched = Watched::new(
            &search,
            |s| s.incumbent.best(),
            |s| s.incumbent.snapshot().is_none_or(|(omega, c)| c.len() as i64 == omega && g.is_clique(&c)),
        );
        run(DfsWork::new(&watched, policy), &config).expect("a supported strategy");
        watched.check(&what);
        let (omega, clique) = search.incumbent.into_best().expect("a clique");
        assert_eq!(omega, expected, "{what}");
        assert!(clique.len() as i64 == omega && g.is_clique(&clique), "{what}");
    }
}

#[test]
fn the_knapsack_incumbent_never_decreases_and_its_witness_achieves_it() {
    for case in 0..CASES {
        let mut rng = SplitMix64::new(0x4_0000 + case);
        let class = Class::ALL[rng.range(0, Class::ALL.len() as i64 - 1) as usize];
        let n = rng.range(5, 45) as usize;
        let instance = Spec::new(class, n, 1000, rng.next_u64()).generate();
        let (config, policy) = random_config(&mut rng);
        let what = format!("case {case}: {class}, n = {n}, P = {}, {}", config.threads, config.spec.strategy);
        let dp = instance.dp_optimum(1 << 26).expect("a small capacity");
        let search = Knapsack::new(&instance);
        let watched = Watched::new(
            &search,
            |s| s.incumbent.best(),
            |s| {
                s.incumbent
                    .snapshot()
                    .is_none_or(|(profit, items)| instance.profit_of(&items) == Some(profit))
            },
        );
        run(DfsWork::new(&watched, policy), &config).expect("a supported strategy");
        watched.check(&what);
        let (best, items) = search.incumbent.into_best().expect("a packing");
        assert_eq!(best, dp, "{what}");
        assert_eq!(instance.profit_of(&items), Some(best), "{what}");
    }
}

#[test]
fn the_tsp_incumbent_never_increases_and_its_witness_achieves_it() {
    for case in 0..CASES / 2 {
        let mut rng = SplitMix64::new(0x75_0000 + case);
        let n = rng.range(5, 13) as usize;
        let tsp = if case % 2 == 0 {
            Tsp::random_matrix(n, 1000, rng.next_u64())
        } else {
            Tsp::random_euclidean(n, 1000.0, rng.next_u64())
        };
        let (config, policy) = random_config(&mut rng);
        let what = format!("case {case}: n = {n}, P = {}, {}", config.threads, config.spec.strategy);
        let (dp, _) = held_karp(&tsp).expect("small");
        let search = TspSearch::with_params(&tsp, AscentParams::for_n(n), case % 4 < 2);
        // Minimising: the negated length must never decrease.
        let watched = Watched::new(
            &search,
            |s| s.incumbent.best().map(|l| -l),
            |s| s.incumbent.snapshot().is_none_or(|(length, tour)| tsp.tour_length(&tour) == Some(length)),
        );
        run(DfsWork::new(&watched, policy), &config).expect("a supported strategy");
        watched.check(&what);
        let (length, tour) = search.incumbent.into_best().expect("a tour");
        assert_eq!(length, dp, "{what}");
        assert_eq!(tsp.tour_length(&tour), Some(length), "{what}");
    }
}
