//! The 0/1 knapsack: every optimum of the branch and bound equals the dynamic
//! program's, sequentially and on the threads runtime for P ∈ {1, 2, 3, 4, 8};
//! the generator's classes; the file format's errors.

mod common;
use common::Endless;

use treelb::RunSpec;
use treelb::search::{DfsWork, SplitPolicy};
use treelb::{Init, seq};
use treelb_apps::knapsack::{Class, Instance, InstanceError, Item, Knapsack, ParseError, Spec, parse_str};
use treelb_threads::{Config, run};

const PES: [usize; 5] = [1, 2, 3, 4, 8];

/// The DP's table limit in these tests.
const DP_LIMIT: i64 = 1 << 26;

/// The optimum and its packing, sequentially; checks the packing achieves it.
fn solve_seq(instance: &Instance) -> (i64, u64) {
    let search = Knapsack::new(instance);
    let (stats, nodes) = seq::run_search(&search);
    assert_eq!(stats.nodes(), nodes);
    let (best, items) = search.incumbent.into_best().expect("the empty packing at least");
    assert_eq!(instance.profit_of(&items), Some(best), "the packing achieves the reported profit");
    assert!(best <= Knapsack::new(instance).root_bound());
    (best, nodes)
}

fn solve_par(instance: &Instance, p: usize, init: Init, policy: SplitPolicy) -> i64 {
    let search = Knapsack::new(instance);
    let config = Config {
        threads: p,
        spec: RunSpec { init, budget: treelb::spec::Budget::of(8), ..RunSpec::default() },
        ..Config::default()
    };
    let outcome = run(DfsWork::new(&search, policy), &config).unwrap();
    assert_eq!(outcome.output.nodes(), outcome.stats.work_units());
    let (best, items) = search.incumbent.into_best().unwrap();
    assert_eq!(instance.profit_of(&items), Some(best));
    best
}

fn brute_force(instance: &Instance) -> i64 {
    let n = instance.len();
    assert!(n <= 20);
    (0u32..1 << n)
        .filter_map(|mask| {
            let items: Vec<u32> = (0..n as u32).filter(|i| mask >> i & 1 == 1).collect();
            instance.profit_of(&items)
        })
        .max()
        .unwrap()
}

#[test]
fn the_dynamic_program_agrees_with_brute_force() {
    for class in Class::ALL {
        for n in [0, 1, 2, 5, 10, 14] {
            for seed in 0..3 {
                let k = Spec::new(class, n, 50, seed).generate();
                assert_eq!(k.dp_optimum(DP_LIMIT), Some(brute_force(&k)), "{class} n = {n} seed {seed}");
            }
        }
    }
}

#[test]
fn small_instances_of_every_class_match_the_dp() {
    let mut checked = 0;
    for class in Class::ALL {
        for n in [0, 1, 2, 3, 5, 8, 13, 21, 34, 55] {
            for range in [10, 100, 1000] {
                for seed in 0..4 {
                    let k = Spec::new(class, n, range, seed).generate();
                    let dp = k.dp_optimum(DP_LIMIT).unwrap();
                    assert_eq!(solve_seq(&k).0, dp, "{class} n = {n} R = {range} seed {seed}");
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 4 * 10 * 3 * 4);
}

#[test]
fn capacity_series_match_the_dp() {
    // Pisinger's series: instance h of H has capacity h·Σw/(H + 1).
    for class in Class::ALL {
        for h in 1..=9 {
            let spec = Spec { h, series: 9, ..Spec::new(class, 40, 1000, u64::from(h)) };
            let k = spec.generate();
            let total: i64 = k.items.iter().map(|i| i.weight).sum();
            assert_eq!(k.capacity, i64::from(h) * total / 10);
            assert_eq!(solve_seq(&k).0, k.dp_optimum(DP_LIMIT).unwrap(), "{class} h = {h}");
        }
    }
}

#[test]
fn large_easy_instances_match_the_dp() {
    for class in [Class::Uncorrelated, Class::WeaklyCorrelated, Class::SubsetSum] {
        for n in [200, 1000] {
            let k = Spec::new(class, n, 1000, 5).generate();
            assert_eq!(solve_seq(&k).0, k.dp_optimum(DP_LIMIT).unwrap(), "{class} n = {n}");
        }
    }
}

#[test]
fn edge_cases() {
    let item = |profit, weight| Item { profit, weight };
    // Nothing fits.
    let k = Instance::new(vec![item(10, 5), item(3, 9)], 4).unwrap();
    assert_eq!(solve_seq(&k).0, 0);
    // Capacity 0 and no items.
    assert_eq!(solve_seq(&Instance::new(vec![item(1, 1)], 0).unwrap()).0, 0);
    assert_eq!(solve_seq(&Instance::new(vec![], 10).unwrap()).0, 0);
    // Everything fits: one node.
    let all = Instance::new(vec![item(1, 1), item(2, 2), item(3, 3)], 6).unwrap();
    assert_eq!(solve_seq(&all), (6, 1));
    // The greedy packing by ratio is not optimal here.
    let trap = Instance::new(vec![item(6, 4), item(10, 5), item(6, 4)], 8).unwrap();
    assert_eq!(solve_seq(&trap).0, 12);
    assert_eq!(Knapsack::new(&trap).root_bound(), 10 + 3 * 6 / 4);
    // Equal ratios everywhere (subset sum).
    let sub = Instance::new((1..=10).map(|w| item(w * 3, w * 3)).collect(), 100).unwrap();
    assert_eq!(solve_seq(&sub).0, 99);
    assert_eq!(
        Instance::new(vec![item(0, 1)], 1),
        Err(InstanceError::BadItem { item: 1, profit: 0, weight: 1 })
    );
    assert_eq!(Instance::new(vec![], -1), Err(InstanceError::BadCapacity(-1)));
}

#[test]
fn the_generator_follows_pisingers_classes() {
    let r = 1000;
    for seed in 0..3 {
        let spec = |class| Spec::new(class, 500, r, seed);
        for class in Class::ALL {
            let k = spec(class).generate();
            assert_eq!(k, spec(class).generate(), "deterministic");
            assert_eq!(k.len(), 500);
            assert!(k.items.iter().all(|i| (1..=r).contains(&i.weight)));
            let total: i64 = k.items.iter().map(|i| i.weight).sum();
            assert_eq!(k.capacity, total / 2);
            for i in &k.items {
                match class {
                    Class::Uncorrelated => assert!((1..=r).contains(&i.profit)),
                    Class::WeaklyCorrelated => {
                        assert!(i.profit >= 1 && (i.profit - i.weight).abs() <= r / 10)
                    }
                    Class::StronglyCorrelated => assert_eq!(i.profit, i.weight + r / 10),
                    Class::SubsetSum => assert_eq!(i.profit, i.weight),
                }
            }
        }
    }
    assert_ne!(
        Spec::new(Class::Uncorrelated, 10, r, 1).generate(),
        Spec::new(Class::Uncorrelated, 10, r, 2).generate()
    );
    for class in Class::ALL {
        assert_eq!(class.name().parse::<Class>(), Ok(class));
    }
    assert_eq!("strong".parse::<Class>(), Ok(Class::StronglyCorrelated));
    assert!("hard".parse::<Class>().unwrap_err().to_string().starts_with("unknown knapsack class `hard`"));
}

#[test]
fn every_p_gives_the_dp_optimum() {
    let specs = [
        Spec::new(Class::StronglyCorrelated, 60, 1000, 1),
        Spec::new(Class::StronglyCorrelated, 100, 1000, 2),
        Spec::new(Class::WeaklyCorrelated, 300, 1000, 3),
        Spec::new(Class::SubsetSum, 50, 1000, 4),
        Spec::new(Class::Uncorrelated, 1000, 1000, 5),
        Spec { h: 3, series: 4, ..Spec::new(Class::StronglyCorrelated, 80, 1000, 6) },
    ];
    for (i, spec) in specs.iter().enumerate() {
        let k = spec.generate();
        let dp = k.dp_optimum(DP_LIMIT).unwrap();
        assert_eq!(solve_seq(&k).0, dp);
        for (j, p) in PES.into_iter().enumerate() {
            for init in Init::ALL {
                let policy = SplitPolicy::ALL[(i + j) % 2];
                assert_eq!(
                    solve_par(&k, p, init, policy),
                    dp,
                    "{spec:?}, P = {p}, init {init}, split {policy}"
                );
            }
        }
    }
}

#[test]
fn a_strongly_correlated_instance_with_two_million_nodes() {
    // About 1.9 M nodes sequentially: the tree is large enough that every
    // PE that may ask gets work.
    let k = Spec::new(Class::StronglyCorrelated, 80, 1000, 2).generate();
    let dp = k.dp_optimum(DP_LIMIT).unwrap();
    let (best, nodes) = solve_seq(&k);
    assert_eq!(best, dp);
    assert!(nodes > 100_000, "{nodes} nodes");
    for p in [2, 4] {
        let search = Knapsack::new(&k);
        let config = Config { threads: p, ..Config::default() };
        let outcome = run(DfsWork::new(&search, SplitPolicy::default()), &config).unwrap();
        assert_eq!(search.incumbent.best(), Some(dp));
        // With more PEs than cores, only as many PEs as there are cores
        // work or ask at a time (the threads runtime's search permits), so
        // that many at least must have worked.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let worked = outcome.stats.pes.iter().filter(|pe| pe.work_units > 0).count();
        assert!(worked >= p.min(cores), "P = {p} on {cores} cores: only {worked} PEs worked");
    }
}

#[test]
fn the_file_format_and_its_errors() {
    let k = parse_str("# low-dimensional instance\n4 11\n\n10 5\n40 4\n30 6\n50 3\n").unwrap();
    assert_eq!(k.capacity, 11);
    assert_eq!(k.items[1], Item { profit: 40, weight: 4 });
    assert_eq!(solve_seq(&k).0, 90);
    let cases: [(&str, &str); 12] = [
        ("", "line 1: expected the header `N CAPACITY`, found the end of the input"),
        ("# nothing\n\n", "line 3: expected the header `N CAPACITY`, found the end of the input"),
        ("4\n", "line 1: expected the header `N CAPACITY` (two non-negative integers), found `4`"),
        ("2 -5\n", "line 1: expected the header `N CAPACITY` (two non-negative integers), found `2 -5`"),
        ("2 x\n", "line 1: expected the header `N CAPACITY` (two non-negative integers), found `2 x`"),
        (
            "2 99999999999999999999\n",
            "line 1: expected the header `N CAPACITY` (two non-negative integers), found `2 99999999999999999999`",
        ),
        ("2 10\n1 2\n3\n", "line 3: expected item 2 as `PROFIT WEIGHT` (two integers), found `3`"),
        (
            "2 10\n1 99999999999999999999\n",
            "line 2: expected item 1 as `PROFIT WEIGHT` (two integers), found `1 99999999999999999999`",
        ),
        ("2 10\n1 2\n\n", "line 4: expected 2 items, found only 1"),
        ("1 10\n1 2\n3 4\n", "line 3: expected the end of the input after 1 items, found `3 4`"),
        // Items are numbered from 1 (this said `item 0`).
        ("1 10\n0 2\n", "line 2: item 1: profit 0 and weight 2 must be between 1 and 1099511627776"),
        (
            "2 10\n# two\n1 1\n5 0\n",
            "line 4: item 2: profit 5 and weight 0 must be between 1 and 1099511627776",
        ),
    ];
    for (text, message) in cases {
        assert_eq!(parse_str(text).unwrap_err().to_string(), message, "input {text:?}");
    }
    assert!(matches!(
        parse_str("1 99999999999999\n"),
        Err(ParseError::Invalid { line: 1, source: InstanceError::BadCapacity(_) })
    ));
    assert!(matches!(treelb_apps::knapsack::read_file("/no/such/file"), Err(ParseError::Io(_))));
    // Read as bytes: any byte in a comment; elsewhere, the line's error.
    let latin1: &[u8] = b"# caf\xe9\r\n1 10\r\n3 4\r\n";
    assert_eq!(treelb_apps::knapsack::parse(latin1).unwrap().items, [Item { profit: 3, weight: 4 }]);
    let bad: &[u8] = b"1 10\n3 \xe9\n";
    assert_eq!(
        treelb_apps::knapsack::parse(bad).unwrap_err().to_string(),
        "line 2: expected item 1 as `PROFIT WEIGHT` (two integers), found `3 \\xe9`"
    );
}

/// An endless line is refused once it passes 1 MiB, naming its line,
/// having read little more than that (it was read whole, to the end of the
/// memory).
#[test]
fn an_endless_line_is_refused_at_the_limit() {
    use treelb_apps::input::{LimitError, MAX_LINE_BYTES};
    for (prefix, byte, line) in [(&b""[..], 0, 1), (b"# items\n2 10\n1 ", b'9', 3), (b"2 10\n# ", b'#', 2)] {
        let mut endless = Endless { prefix, byte, given: 0 };
        let error = treelb_apps::knapsack::parse(std::io::BufReader::new(&mut endless)).unwrap_err();
        assert_eq!(error.to_string(), format!("line {line}: longer than 1 MiB (a binary file?)"));
        assert!(matches!(error, ParseError::Limit(LimitError::LineTooLong { .. })), "{error:?}");
        assert!(endless.given <= MAX_LINE_BYTES as u64 + (64 << 10), "{} bytes read", endless.given);
    }
}

/// Input an error message quotes is escaped: a line that would set a
/// terminal's title and clear its screen is shown, not obeyed.
#[test]
fn errors_show_control_characters_visibly() {
    let cases: [(&[u8], &str); 4] = [
        (
            b"2 \x1b]0;PWNED\x07\x1b[2J\n",
            r"line 1: expected the header `N CAPACITY` (two non-negative integers), found `2 \x1b]0;PWNED\x07\x1b[2J`",
        ),
        (b"2 10\n1 \x9b2J\n", r"line 2: expected item 1 as `PROFIT WEIGHT` (two integers), found `1 \x9b2J`"),
        (
            "1 10\n1 2\n\u{9b}2J\u{7f}\n".as_bytes(),
            r"line 3: expected the end of the input after 1 items, found `\u{9b}2J\x7f`",
        ),
        (b"2 10\n1\t\x002\n", r"line 2: expected item 1 as `PROFIT WEIGHT` (two integers), found `1\t\x002`"),
    ];
    for (input, message) in cases {
        let error = treelb_apps::knapsack::parse(input).unwrap_err().to_string();
        assert_eq!(error, message, "input {input:?}");
        assert!(!error.chars().any(char::is_control), "{error:?}");
    }
    // A byte order mark is skipped at the start of a file.
    assert_eq!(parse_str("\u{feff}1 10\n3 4\n").unwrap().items, [Item { profit: 3, weight: 4 }]);
}
