//! Runtime tests on synthetic trees: exact counts for every P, init and
//! policy; panics propagate; degenerate runs terminate.

use std::sync::atomic::{AtomicU64, Ordering};

use treelb::search::{BinaryTree, Children, DfsWork, Search, SplitPolicy};
use treelb::{Progress, seq};

use super::*;

/// An irregular tree: node (id, depth), child count from a hash of the id.
struct Irregular {
    depth: u32,
}

use treelb::rng::mix;

impl Search for Irregular {
    type Node = (u64, u32);
    /// (nodes, sum of ids): a wrong schedule would change the sum.
    type Output = (u64, u64);
    fn root(&self) -> (u64, u32) {
        (1, 0)
    }
    fn expand(&self, (id, d): (u64, u32), acc: &mut (u64, u64), c: &mut Children<'_, (u64, u32)>) {
        acc.0 += 1;
        acc.1 += id >> 24;
        if d < self.depth {
            let fan = if d < 3 { 2 + mix(id) % 3 } else { mix(id) % 5 };
            for i in 0..fan {
                c.push((mix(id ^ (i + 1)), d + 1));
            }
        }
    }
}

fn config(threads: usize, init: Init, budget: u64) -> Config {
    Config::with_spec(
        threads,
        RunSpec { budget: treelb::spec::Budget::of(budget), init, ..RunSpec::default() },
    )
}

/// `config` under another strategy.
fn under(strategy: Strategy, mut config: Config) -> Config {
    config.spec.strategy = strategy;
    config
}

/// Random polling under every init, split policy and two budgets; the other
/// strategies under the defaults and with selective initialization.
fn combinations() -> Vec<(Strategy, Init, SplitPolicy, u64)> {
    let mut all = Vec::new();
    for init in Init::ALL {
        for policy in SplitPolicy::ALL {
            for budget in [1, 64] {
                all.push((Strategy::RandomPolling, init, policy, budget));
            }
        }
    }
    for strategy in SUPPORTED_STRATEGIES.into_iter().filter(|&s| s != Strategy::RandomPolling) {
        for init in Init::ALL {
            all.push((strategy, init, SplitPolicy::default(), 16));
        }
    }
    all
}

#[test]
fn every_p_strategy_init_and_policy_gives_the_sequential_answer() {
    let tree = Irregular { depth: 15 };
    let (expected, nodes) = seq::run_search(&tree);
    assert!(nodes > 50_000, "the test tree is too small: {nodes}");
    for p in [1, 2, 3, 4, 8] {
        for (strategy, init, policy, budget) in combinations() {
            let config = under(strategy, config(p, init, budget));
            let outcome = run(DfsWork::new(&tree, policy), &config).unwrap();
            let what = format!("p = {p}, {strategy}, {init}, {policy}, budget {budget}");
            assert_eq!(outcome.output, expected, "{what}");
            let total = outcome.stats.total();
            assert_eq!(total.work_units, nodes, "{what}");
            assert_eq!(outcome.stats.pes.len(), p);
            assert_eq!(total.pieces_sent, total.pieces_received, "{what}");
            if strategy == Strategy::Multilevel {
                // Granularity control cuts a part down and pools the
                // remainders: more splits than parts sent, and pooled
                // parts sent without a split of their own.
                assert!(total.splits + p as u64 >= total.pieces_sent, "{what}");
            } else {
                assert_eq!(total.splits, total.pieces_sent, "{what}");
            }
            assert!(total.requests_failed <= total.requests_sent, "{what}");
            let e = outcome.stats.utilization();
            assert!((0.0..=1.0 + 1e-9).contains(&e), "{what}: utilization {e}");
        }
    }
}

thread_local! {
    /// The number of cores `run` assumes on this thread, if set (see
    /// `cores`): to test the paths of many PEs per core, and of a core per
    /// PE, on any machine.
    pub(crate) static CORES: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` as if the machine had `n` cores.
fn with_cores<T>(n: usize, f: impl FnOnce() -> T) -> T {
    CORES.with(|c| c.set(Some(n)));
    let out = f();
    CORES.with(|c| c.set(None));
    out
}

#[test]
fn many_pes_per_core_give_the_sequential_answer_under_every_strategy() {
    // Idle PEs take turns for search permits (2 of them here) and park
    // until a message comes; every strategy must still count exactly.
    let tree = Irregular { depth: 15 };
    let (expected, nodes) = seq::run_search(&tree);
    for (p, cores) in [(64, 2), (256, 1), (200, 3)] {
        for strategy in SUPPORTED_STRATEGIES {
            for init in Init::ALL {
                let config = under(strategy, config(p, init, 16));
                let outcome =
                    with_cores(cores, || run(DfsWork::new(&tree, SplitPolicy::OldestHalf), &config)).unwrap();
                let what = format!("p = {p} on {cores} cores, {strategy}, {init}");
                assert_eq!(outcome.output, expected, "{what}");
                let total = outcome.stats.total();
                assert_eq!(total.work_units, nodes, "{what}");
                assert_eq!(total.pieces_sent, total.pieces_received, "{what}");
            }
        }
    }
}

#[test]
fn a_core_per_pe_gives_the_sequential_answer_under_every_strategy() {
    // No permits, and waiting PEs spin before they park.
    let tree = Irregular { depth: 12 };
    let (expected, _) = seq::run_search(&tree);
    for strategy in SUPPORTED_STRATEGIES {
        let config = under(strategy, config(8, Init::Root, 16));
        let outcome = with_cores(64, || run(DfsWork::new(&tree, SplitPolicy::OldestHalf), &config)).unwrap();
        assert_eq!(outcome.output, expected, "{strategy}");
    }
}

#[test]
fn more_pes_than_work_terminates() {
    struct Leaf;
    impl Search for Leaf {
        type Node = ();
        type Output = u64;
        fn root(&self) {}
        fn expand(&self, (): (), acc: &mut u64, _: &mut Children<'_, ()>) {
            *acc += 1;
        }
    }
    for init in Init::ALL {
        let outcome = run(DfsWork::new(&Leaf, SplitPolicy::Bottom), &config(8, init, 4)).unwrap();
        assert_eq!(outcome.output, 1);
    }
}

/// A piece of work that panics after a number of units, on whichever PE.
#[derive(Clone)]
struct Bomb {
    left: u64,
    fuse: &'static AtomicU64,
}

impl Work for Bomb {
    type Output = u64;
    fn work(&mut self, budget: u64, acc: &mut u64) -> Progress {
        let n = budget.min(self.left);
        for _ in 0..n {
            if self.fuse.fetch_sub(1, Ordering::Relaxed) == 1 {
                panic!("boom in user code");
            }
        }
        self.left -= n;
        *acc += n;
        if self.left == 0 { Progress::Exhausted { used: n } } else { Progress::Pending }
    }
    fn split(&mut self) -> Option<Self> {
        (self.left >= 2).then(|| {
            let half = self.left / 2;
            self.left -= half;
            Bomb { left: half, fuse: self.fuse }
        })
    }
    fn generation(&self) -> u32 {
        0
    }
}

#[test]
fn a_panic_in_user_code_reaches_the_caller() {
    for init in Init::ALL {
        for p in [1, 2, 4] {
            static FUSE: AtomicU64 = AtomicU64::new(0);
            FUSE.store(10_000, Ordering::Relaxed);
            let bomb = Bomb { left: 1_000_000, fuse: &FUSE };
            let result = panic::catch_unwind(AssertUnwindSafe(|| run(bomb, &config(p, init, 16))));
            let payload = result.expect_err("the panic must propagate");
            assert_eq!(payload.downcast_ref::<&str>(), Some(&"boom in user code"), "p = {p}, {init}");
        }
    }
}

#[test]
fn work_that_counts_units_exactly() {
    static FUSE: AtomicU64 = AtomicU64::new(u64::MAX);
    for p in [1, 2, 3, 5] {
        let outcome = run(Bomb { left: 123_457, fuse: &FUSE }, &config(p, Init::Selective, 10)).unwrap();
        assert_eq!(outcome.output, 123_457);
        assert_eq!(outcome.stats.work_units(), 123_457);
    }
}

#[test]
fn bad_configurations_are_rejected() {
    let tree = Irregular { depth: 2 };
    let err = run(DfsWork::new(&tree, SplitPolicy::Bottom), &config(0, Init::Root, 1)).unwrap_err();
    assert_eq!(err, ConfigError::NoThreads);
    assert_eq!(err.to_string(), "the number of threads must be at least 1");
    // Δt = 0 cannot be made: the type refuses it where it is given.
    assert_eq!(treelb::spec::Budget::new(0), Err(SpecError::ZeroBudget));
    let mut bad_fanout = under(Strategy::Multilevel, config(2, Init::Root, 1));
    bad_fanout.spec.fanout = vec![2, 0];
    let err = run(DfsWork::new(&tree, SplitPolicy::Bottom), &bad_fanout).unwrap_err();
    assert_eq!(err, ConfigError::Spec(SpecError::ZeroFanout));
}

#[test]
fn the_monitor_sees_progress() {
    let tree = Irregular { depth: 17 };
    let mut seen = Vec::new();
    let outcome = run_with_monitor(
        DfsWork::new(&tree, SplitPolicy::OldestHalf),
        &config(2, Init::Root, 32),
        Duration::from_millis(1),
        |s| seen.push(s.work_units),
    )
    .unwrap();
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "progress went backwards: {seen:?}");
    assert!(seen.iter().all(|&u| u <= outcome.stats.work_units()));
}

/// A decision search: is there a node whose id is divisible by `modulus`?
/// Stops at the first witness.
struct FindMultiple {
    tree: Irregular,
    modulus: u64,
    found: treelb::Incumbent<u64>,
}

impl Search for FindMultiple {
    type Node = (u64, u32);
    type Output = (u64, u64);
    fn root(&self) -> (u64, u32) {
        self.tree.root()
    }
    fn expand(&self, node: (u64, u32), acc: &mut (u64, u64), c: &mut Children<'_, (u64, u32)>) {
        if node.0.is_multiple_of(self.modulus) {
            self.found.offer(1, || node.0);
        }
        self.tree.expand(node, acc, c);
    }
    fn should_stop(&self) -> bool {
        self.found.best().is_some()
    }
}

#[test]
fn a_decision_search_stops_every_pe_at_the_first_witness() {
    let total = seq::run_search(&Irregular { depth: 15 }).1;
    for p in [1, 2, 4, 8] {
        for (strategy, init) in Init::ALL
            .into_iter()
            .map(|i| (Strategy::RandomPolling, i))
            .chain(SUPPORTED_STRATEGIES.into_iter().skip(1).map(|s| (s, Init::Root)))
        {
            let search = FindMultiple {
                tree: Irregular { depth: 15 },
                modulus: 5_000,
                found: treelb::Incumbent::new(treelb::Sense::Maximize),
            };
            let config = under(strategy, config(p, init, 16));
            let outcome = run(DfsWork::new(&search, SplitPolicy::OldestHalf), &config).unwrap();
            let (_, witness) = search.found.into_best().expect("a witness exists");
            assert!(witness.is_multiple_of(5_000), "p = {p}, {strategy}, {init}");
            assert!(outcome.stats.work_units() < total, "p = {p}, {strategy}, {init}: did not stop early");
        }
    }
}

#[test]
fn max_load_counts_heap_operations_and_reports_lazily() {
    let tree = Irregular { depth: 15 };
    let (expected, nodes) = seq::run_search(&tree);
    for p in [2, 4] {
        let config = under(Strategy::MaxLoad, config(p, Init::Root, 16));
        let outcome = run(DfsWork::new(&tree, SplitPolicy::OldestHalf), &config).unwrap();
        assert_eq!(outcome.output, expected);
        let total = outcome.stats.total();
        assert_eq!(total.work_units, nodes);
        assert!(total.heap_ops > 0, "p = {p}: the heap was used");
        // Lazy reports: far fewer than one per slice of Δt.
        let slices = nodes / 16;
        assert!(total.heap_ops < slices, "p = {p}: {} heap operations for {slices} slices", total.heap_ops);
    }
}

#[test]
fn multilevel_consumers_ask_only_their_producer() {
    let tree = Irregular { depth: 14 };
    let (expected, _) = seq::run_search(&tree);
    // 7 PEs: PE 0 serves 1 and 2; 1 serves 3 and 4; 2 serves 5 and 6.
    let mut config = under(Strategy::Multilevel, config(7, Init::Root, 16));
    config.spec.fanout = vec![2];
    assert_eq!(config.spec.producer_tree(7).parent(6), Some(2));
    let outcome = run(DfsWork::new(&tree, SplitPolicy::OldestHalf), &config).unwrap();
    assert_eq!(outcome.output, expected);
    for pe in &outcome.stats.pes[3..] {
        assert_eq!(pe.requests_received, 0, "consumer {} was asked for work", pe.pe);
    }
    assert_eq!(outcome.stats.pes[0].requests_sent, 0, "the root producer asks nobody");
}

/// Master–worker spreads the work: the master hands a piece and demands a
/// part of it at once; a worker that answered the demand before taking the
/// piece told the master it had nothing, was never asked again, and at
/// P = 1024 only a dozen PEs ever worked.
#[test]
fn master_worker_keeps_demanding_from_the_workers_it_hands_pieces_to() {
    let tree = Irregular { depth: 17 };
    let (expected, nodes) = seq::run_search(&tree);
    let p = 32;
    let config = under(Strategy::MasterWorker, config(p, Init::Root, 16));
    let outcome = run(DfsWork::new(&tree, SplitPolicy::OldestHalf), &config).unwrap();
    assert_eq!(outcome.output, expected);
    let worked = outcome.stats.pes.iter().filter(|pe| pe.work_units > 0).count();
    assert!(worked >= 3 * p / 4, "{worked} of {p} PEs worked on {nodes} nodes");
}

#[test]
fn static_assignment_moves_nothing_after_the_start() {
    let tree = Irregular { depth: 15 };
    let (expected, nodes) = seq::run_search(&tree);
    for strategy in [Strategy::StaticBlock, Strategy::StaticCyclic, Strategy::StaticRandom] {
        for p in [1, 3, 4] {
            let config = under(strategy, config(p, Init::Root, 16));
            let outcome = run(DfsWork::new(&tree, SplitPolicy::OldestHalf), &config).unwrap();
            assert_eq!(outcome.output, expected, "{strategy}, p = {p}");
            let total = outcome.stats.total();
            assert_eq!(total.work_units, nodes);
            assert_eq!((total.pieces_sent, total.requests_sent), (0, 0), "{strategy}, p = {p}");
        }
    }
}

#[test]
fn current_pe_names_the_pe_inside_a_run() {
    use std::sync::Mutex;
    struct Who<'a>(&'a Mutex<Vec<usize>>);
    impl Search for Who<'_> {
        type Node = u32;
        type Output = u64;
        fn root(&self) -> u32 {
            0
        }
        fn expand(&self, d: u32, acc: &mut u64, c: &mut Children<'_, u32>) {
            *acc += 1;
            self.0.lock().unwrap().push(crate::current_pe().expect("inside a run"));
            if d < 10 {
                c.push(d + 1);
                c.push(d + 1);
            }
        }
    }
    let seen = Mutex::new(Vec::new());
    let who = Who(&seen);
    let outcome = run(DfsWork::new(&who, SplitPolicy::OldestHalf), &config(3, Init::Selective, 4)).unwrap();
    assert_eq!(outcome.output, (1 << 11) - 1);
    let seen = seen.into_inner().unwrap();
    assert!(seen.iter().all(|&pe| pe < 3));
    assert_eq!(crate::current_pe(), None);
}

#[test]
fn pinned_pes_give_the_same_answer() {
    let tree = Irregular { depth: 14 };
    let (expected, nodes) = seq::run_search(&tree);
    // More PEs than cores: pinning wraps around the cores.
    for p in [1, 3, 8] {
        let config = Config { pin: true, ..config(p, Init::Root, 16) };
        let outcome = run(DfsWork::new(&tree, SplitPolicy::default()), &config).unwrap();
        assert_eq!(outcome.output, expected, "p = {p}");
        assert_eq!(outcome.stats.total().work_units, nodes);
    }
}

#[test]
fn a_traced_run_of_every_strategy_tiles_the_run_per_pe() {
    use crate::trace::State;
    let tree = Irregular { depth: 14 };
    let (expected, _) = seq::run_search(&tree);
    for strategy in SUPPORTED_STRATEGIES {
        for (p, init) in [(1, Init::Root), (3, Init::Root), (4, Init::Selective)] {
            let config = Config { trace: true, ..under(strategy, config(p, init, 16)) };
            let outcome = run(DfsWork::new(&tree, SplitPolicy::OldestHalf), &config).unwrap();
            let what = format!("{strategy}, p = {p}, {init}");
            assert_eq!(outcome.output, expected, "{what}");
            let trace = outcome.trace.expect("asked for a trace");
            assert_eq!(trace.wall_ns, outcome.stats.wall.as_nanos() as u64, "{what}");
            assert_eq!(trace.pes.len(), p, "{what}");
            for (pe, intervals) in trace.pes.iter().enumerate() {
                let mut at = 0;
                for i in intervals {
                    assert_eq!(i.start_ns, at, "{what}: PE {pe} has a gap or an overlap at {at}");
                    assert!(i.end_ns > i.start_ns, "{what}: PE {pe} has an empty interval");
                    at = i.end_ns;
                }
                assert_eq!(at, trace.wall_ns, "{what}: PE {pe} stops before the end");
                for pair in intervals.windows(2) {
                    assert_ne!(pair[0].state, pair[1].state, "{what}: PE {pe}: unmerged neighbours");
                }
            }
            let total = outcome.stats.total();
            let working: u64 = (0..p).map(|pe| trace.time_in(pe, State::Working)).sum();
            assert!(working > 0, "{what}: nobody worked");
            if total.pieces_sent > 0 {
                let split: u64 = (0..p).map(|pe| trace.time_in(pe, State::Splitting)).sum();
                assert!(split > 0, "{what}: {} pieces sent, no splitting", total.pieces_sent);
            }
            let stealing = !strategy.uses_pools();
            if stealing && p > 1 && total.requests_sent > 0 {
                let asking: u64 = (0..p).map(|pe| trace.time_in(pe, State::Requesting)).sum();
                assert!(asking > 0, "{what}: requests sent, no requesting");
            }
        }
    }
}

#[test]
fn an_untraced_run_has_no_trace() {
    let outcome = run(DfsWork::new(&Irregular { depth: 8 }, SplitPolicy::Bottom), &config(2, Init::Root, 4));
    assert!(outcome.unwrap().trace.is_none());
}

/// The complete binary tree of height 60: it never ends on its own.
struct Endless;

impl Search for Endless {
    type Node = u32;
    type Output = u64;
    fn root(&self) -> u32 {
        0
    }
    fn expand(&self, d: u32, acc: &mut u64, c: &mut Children<'_, u32>) {
        *acc += 1;
        if d < 60 {
            c.push(d + 1);
            c.push(d + 1);
        }
    }
}

/// [`Limit::stop`] from another thread ends a run that would never end, on
/// every strategy and both initializations; the output is the work done
/// (every unit counted once) and the limit says it is partial.
#[test]
fn a_stop_from_another_thread_ends_the_run_on_every_strategy() {
    for (i, strategy) in Strategy::ALL.into_iter().enumerate() {
        let init = if i % 2 == 0 { Init::Root } else { Init::Selective };
        let config = under(strategy, config(4, init, 64));
        let stop = Limit::unbounded();
        let outcome = thread::scope(|s| {
            s.spawn(|| {
                thread::sleep(Duration::from_millis(30));
                stop.stop();
            });
            run(Limited::new(DfsWork::new(&Endless, SplitPolicy::OldestHalf), &stop), &config).unwrap()
        });
        assert!(stop.stopped() && stop.interrupted(), "{strategy}");
        assert!(outcome.output > 0, "{strategy}: no work before the stop");
        assert_eq!(outcome.output, outcome.stats.work_units(), "{strategy}");
    }
}

#[test]
fn a_thousand_tiny_runs_on_one_pool_are_exact() {
    let pool = Pool::new(2);
    let tree = Irregular { depth: 6 };
    let (expected, nodes) = seq::run_search(&tree);
    for i in 0..1000 {
        let p = 1 + i % 3;
        let strategy = SUPPORTED_STRATEGIES[i % SUPPORTED_STRATEGIES.len()];
        let config = under(strategy, config(p, Init::ALL[i % 2], 4));
        let outcome = pool.run(DfsWork::new(&tree, SplitPolicy::OldestHalf), &config).unwrap();
        assert_eq!(outcome.output, expected, "run {i}: p = {p}, {strategy}");
        assert_eq!(outcome.stats.work_units(), nodes, "run {i}");
        assert_eq!(outcome.stats.pes.len(), p);
    }
    // And through the global pool.
    for _ in 0..1000 {
        let outcome = run(DfsWork::new(&BinaryTree(6), SplitPolicy::OldestHalf), &Config::new(2)).unwrap();
        assert_eq!(outcome.output, 127);
    }
}

#[test]
fn a_panicking_run_leaves_the_pool_working() {
    let pool = Pool::new(2);
    static FUSE: AtomicU64 = AtomicU64::new(0);
    for p in [1, 2, 5] {
        FUSE.store(1_000, Ordering::Relaxed);
        let bomb = Bomb { left: 100_000, fuse: &FUSE };
        let result = panic::catch_unwind(AssertUnwindSafe(|| pool.run(bomb, &config(p, Init::Root, 16))));
        let payload = result.expect_err("the panic must propagate");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"boom in user code"), "p = {p}");
        let outcome =
            pool.run(DfsWork::new(&BinaryTree(10), SplitPolicy::OldestHalf), &Config::new(p)).unwrap();
        assert_eq!(outcome.output, 2047, "the run after the panic, p = {p}");
    }
}

/// Runs on one pool from two threads at once: the second waits for the
/// first (they are serialized), and every answer is exact.
#[test]
fn runs_from_two_threads_on_one_pool_are_serialized() {
    let pool = Pool::new(2);
    let tree = BinaryTree(12);
    std::thread::scope(|s| {
        for t in 0..2 {
            let (pool, tree) = (&pool, &tree);
            s.spawn(move || {
                for i in 0..100 {
                    let config = Config::new(1 + (t + i) % 4);
                    let outcome = if i % 2 == 0 {
                        pool.run(DfsWork::new(tree, SplitPolicy::OldestHalf), &config).unwrap()
                    } else {
                        let monitored = pool.run_with_monitor(
                            DfsWork::new(tree, SplitPolicy::OldestHalf),
                            &config,
                            Duration::from_millis(1),
                            |_| {},
                        );
                        monitored.unwrap()
                    };
                    assert_eq!(outcome.output, 8191, "thread {t}, run {i}");
                }
            });
        }
    });
}

#[test]
fn a_run_inside_a_run_uses_a_pool_of_its_own_and_pool_run_refuses() {
    /// A tree whose every leaf runs a small search of its own.
    struct Nested;
    impl Search for Nested {
        type Node = u32;
        type Output = u64;
        fn root(&self) -> u32 {
            0
        }
        fn expand(&self, d: u32, acc: &mut u64, c: &mut Children<'_, u32>) {
            if d < 3 {
                c.push(d + 1);
                c.push(d + 1);
            } else {
                let inner =
                    run(DfsWork::new(&BinaryTree(5), SplitPolicy::OldestHalf), &Config::new(2)).unwrap();
                *acc += inner.output;
            }
        }
    }
    let outcome = run(DfsWork::new(&Nested, SplitPolicy::OldestHalf), &Config::new(2)).unwrap();
    assert_eq!(outcome.output, 8 * 63);

    let pool = Pool::new(1);
    /// Calls `Pool::run` on the pool it runs on.
    struct Recursive<'a>(&'a Pool);
    impl Search for Recursive<'_> {
        type Node = ();
        type Output = u64;
        fn root(&self) {}
        fn expand(&self, (): (), acc: &mut u64, _: &mut Children<'_, ()>) {
            *acc += self
                .0
                .run(DfsWork::new(&BinaryTree(1), SplitPolicy::OldestHalf), &Config::new(1))
                .unwrap()
                .output;
        }
    }
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.run(DfsWork::new(&Recursive(&pool), SplitPolicy::OldestHalf), &Config::new(2))
    }));
    let payload = result.expect_err("refused");
    let message = payload.downcast_ref::<&str>().copied().unwrap_or_default();
    assert!(message.contains("inside a run on the same pool"), "{message}");
    // And the pool still works.
    let outcome = pool.run(DfsWork::new(&BinaryTree(3), SplitPolicy::OldestHalf), &Config::new(2)).unwrap();
    assert_eq!(outcome.output, 15);
}
