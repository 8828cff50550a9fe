//! UTS: the published sample trees, the node code, the flag parser and the
//! validation messages.

use treelb::search::{DfsWork, SplitPolicy, expand_one};
use treelb::{Reduce, seq};
use treelb_apps::uts::{
    GeoShape, MAX_NUM_CHILDREN, Params, ParamsError, SAMPLE_TREES, SampleTree, TreeType, Uts, UtsResult,
    sample_names,
};

/// Runs a sample tree sequentially and checks every published statistic.
fn check_sample(name: &str) {
    let sample = SampleTree::find(name).unwrap();
    let uts = Uts::new(sample.params()).unwrap();
    let (result, expanded) = seq::run_search(&uts);
    assert!(sample.matches(&result), "{name}: got {result}, published {sample:?}");
    assert_eq!(result.nodes, sample.nodes);
    assert_eq!(expanded, sample.nodes);
}

#[test]
fn sample_default() {
    check_sample("default");
}

#[test]
fn sample_t1_geometric_fixed() {
    check_sample("T1");
}

#[test]
fn sample_t2_geometric_cyclic() {
    check_sample("T2");
}

#[test]
fn sample_t3_binomial() {
    check_sample("T3");
}

#[test]
fn sample_t4_hybrid() {
    check_sample("T4");
}

#[test]
fn sample_t5_geometric_linear() {
    check_sample("T5");
}

#[test]
fn sample_trees_parse_and_are_named_uniquely() {
    for sample in SAMPLE_TREES {
        let params = sample.params();
        assert_eq!(Params::sample(sample.name), Some((params, sample.nodes)));
        assert_eq!(SampleTree::find(&sample.name.to_lowercase()), Some(sample));
        // Display gives flags that parse back to the same parameters.
        assert_eq!(params.to_string().parse::<Params>().unwrap(), params, "{}", sample.name);
    }
    let names: Vec<_> = sample_names().collect();
    assert_eq!(names.len(), SAMPLE_TREES.len());
    for (i, a) in names.iter().enumerate() {
        assert!(names[i + 1..].iter().all(|b| !a.eq_ignore_ascii_case(b)), "duplicate {a}");
    }
    assert_eq!(Params::sample("default"), Some((Params::default(), 1_732)));
    assert_eq!(Params::sample("T7"), None);
}

#[test]
fn sample_parameters_are_the_published_flags() {
    let (t3, _) = Params::sample("T3").unwrap();
    assert_eq!(
        t3,
        Params {
            tree_type: TreeType::Binomial,
            b0: 2000.0,
            q: 0.124875,
            m: 8,
            root_seed: 42,
            ..Params::DEFAULT
        }
    );
    let (t4, _) = Params::sample("T4").unwrap();
    assert_eq!(
        t4,
        Params {
            tree_type: TreeType::Hybrid,
            shape: GeoShape::Linear,
            gen_mx: 16,
            b0: 6.0,
            root_seed: 1,
            q: 0.234375,
            m: 4,
            ..Params::DEFAULT
        }
    );
}

/// The sum of the results of pieces split off all over a DFS stack equals
/// the sequential result.
#[test]
fn split_pieces_add_up_to_the_sequential_result() {
    let uts = Uts::new("-t 1 -a 3 -d 7 -b 4 -r 19".parse().unwrap()).unwrap();
    let (expected, _) = seq::run_search(&uts);
    assert!(expected.nodes > 10_000, "{expected}");
    for policy in SplitPolicy::ALL {
        let total = seq::run_splitting(DfsWork::new(&uts, policy), 37);
        assert_eq!(total, expected, "{policy:?}");
    }
}

#[test]
fn expand_uses_num_children_and_child() {
    let uts = Uts::new(Params::sample("T3").unwrap().0).unwrap();
    let root = uts.root_node();
    assert_eq!(root.height(), 0);
    // The root of a binomial tree has floor(b0) children.
    assert_eq!(uts.num_children(&root), 2000);
    let mut acc = UtsResult::default();
    let children = expand_one(&uts, root, &mut acc);
    assert_eq!(acc, UtsResult { nodes: 1, leaves: 0, max_depth: 0 });
    assert_eq!(children.len(), 2000);
    for (i, child) in children.iter().enumerate() {
        assert_eq!(*child, uts.child(&root, i as u32));
        assert_eq!(child.height(), 1);
        assert!([0, 8].contains(&uts.num_children(child)));
    }
}

#[test]
fn granularity_repeats_work_but_keeps_the_tree() {
    let base: Params = "-t 1 -a 3 -d 6 -b 4 -r 19".parse().unwrap();
    let once = seq::run_search(&Uts::new(base).unwrap());
    let thrice = seq::run_search(&Uts::new(Params { granularity: 3, ..base }).unwrap());
    assert_eq!(once, thrice);
}

#[test]
fn balanced_tree_is_complete() {
    let uts = Uts::new("-t 3 -b 3 -d 4".parse().unwrap()).unwrap();
    let (result, _) = seq::run_search(&uts);
    assert_eq!(result, UtsResult { nodes: 1 + 3 + 9 + 27 + 81, leaves: 81, max_depth: 4 });
    // Balanced trees are not truncated.
    let wide = Uts::new("-t 3 -b 150 -d 1".parse().unwrap()).unwrap();
    assert_eq!(seq::run_search(&wide).0, UtsResult { nodes: 151, leaves: 150, max_depth: 1 });
}

#[test]
fn geometric_nodes_have_at_most_max_num_children() {
    let uts = Uts::new("-t 1 -a 3 -d 2 -b 1000".parse().unwrap()).unwrap();
    let mut saw_truncation = false;
    let root = uts.root_node();
    for i in 0..uts.num_children(&root) {
        let n = uts.num_children(&uts.child(&root, i));
        assert!(n <= MAX_NUM_CHILDREN);
        saw_truncation |= n == MAX_NUM_CHILDREN;
    }
    assert!(saw_truncation);
}

#[test]
fn binomial_root_with_fractional_b0_has_floor_b0_children() {
    let uts = Uts::new("-t 0 -b 3.7 -q 0 -m 4".parse().unwrap()).unwrap();
    assert_eq!(seq::run_search(&uts).0, UtsResult { nodes: 4, leaves: 3, max_depth: 1 });
}

#[test]
fn result_merges_by_sum_sum_max() {
    let mut a = UtsResult { nodes: 10, leaves: 6, max_depth: 3 };
    a.merge(UtsResult { nodes: 5, leaves: 4, max_depth: 7 });
    assert_eq!(a, UtsResult { nodes: 15, leaves: 10, max_depth: 7 });
    a.merge(UtsResult::default());
    assert_eq!(a, UtsResult { nodes: 15, leaves: 10, max_depth: 7 });
    assert_eq!(a.to_string(), "Tree size = 15, tree depth = 7, num leaves = 10");
}

#[test]
fn parser_reads_every_flag() {
    let p = Params::from_uts_args([
        "-t", "2", "-b", "6.5", "-r", "-3", "-m", "3", "-q", "0.25", "-a", "1", "-d", "9",
    ])
    .unwrap();
    assert_eq!(
        p,
        Params {
            tree_type: TreeType::Hybrid,
            b0: 6.5,
            root_seed: -3,
            m: 3,
            q: 0.25,
            shape: GeoShape::ExpDec,
            gen_mx: 9,
            ..Params::DEFAULT
        }
    );
    let p = Params::from_uts_str("  -f 0.25   -g 4 ").unwrap();
    assert_eq!((p.shift_depth, p.granularity), (0.25, 4));
    // No flags: the defaults. A repeated flag overrides the earlier one.
    assert_eq!(Params::from_uts_args(Vec::<String>::new()).unwrap(), Params::DEFAULT);
    assert_eq!(Params::from_uts_str("-r 5 -r 1").unwrap().root_seed, 1);
    for t in TreeType::ALL {
        assert_eq!(TreeType::from_code(t.code()), Some(t));
    }
    for a in GeoShape::ALL {
        assert_eq!(GeoShape::from_code(a.code()), Some(a));
    }
}

/// The message of the error of parsing (and validating) `flags`.
fn error(flags: &str) -> String {
    Params::from_uts_str(flags).unwrap_err().to_string()
}

#[test]
fn parser_errors_say_what_is_wrong() {
    assert_eq!(error("-x 1"), "unknown UTS flag `-x` (expected one of -t -b -r -m -q -a -d -f -g)");
    assert_eq!(error("19"), "unknown UTS flag `19` (expected one of -t -b -r -m -q -a -d -f -g)");
    assert_eq!(error("-t 1 -r"), "UTS flag `-r` needs a value");
    assert_eq!(
        error("-t 4"),
        "bad value `4` for UTS flag `-t`: expected a tree type: 0 = binomial, 1 = geometric, 2 = hybrid, 3 = balanced"
    );
    assert_eq!(
        error("-a 7"),
        "bad value `7` for UTS flag `-a`: expected a shape: 0 = linear, 1 = exponential decrease, 2 = cyclic, 3 = fixed"
    );
    assert_eq!(error("-b four"), "bad value `four` for UTS flag `-b`: expected a number");
    assert_eq!(
        error("-r 2147483648"),
        "bad value `2147483648` for UTS flag `-r`: expected a 32-bit signed integer"
    );
    assert_eq!(error("-m -1"), "bad value `-1` for UTS flag `-m`: expected a non-negative integer");
    assert_eq!(error("-d 1.5"), "bad value `1.5` for UTS flag `-d`: expected a non-negative integer");
    assert_eq!(error("-g x"), "bad value `x` for UTS flag `-g`: expected a positive integer");
    assert!(matches!(
        Params::from_uts_str("-q ."),
        Err(ParamsError::BadValue { flag: "-q", expected: "a number", .. })
    ));
}

#[test]
fn validation_errors_say_what_is_wrong() {
    assert_eq!(
        error("-b -1"),
        "root branching factor b0 (-b) = -1 must be a finite number in [0, 2147483647]"
    );
    assert_eq!(
        error("-b inf"),
        "root branching factor b0 (-b) = inf must be a finite number in [0, 2147483647]"
    );
    assert_eq!(
        error("-b NaN"),
        "root branching factor b0 (-b) = NaN must be a finite number in [0, 2147483647]"
    );
    assert_eq!(error("-t 0 -q 1.5"), "non-leaf probability q (-q) = 1.5 must be in [0, 1]");
    assert_eq!(error("-t 2 -q -0.1"), "non-leaf probability q (-q) = -0.1 must be in [0, 1]");
    assert_eq!(
        error("-t 0 -m 0 -q 0.5"),
        "non-leaf branching factor m (-m) is 0 while the non-leaf probability q (-q) = 0.5 is positive"
    );
    assert_eq!(
        error("-t 0 -b 10 -q 0.25 -m 5"),
        "expected binomial branching factor q * m = 0.25 * 5 = 1.25 is above 1: the tree is infinite in \
         expectation and finite with probability only 0.305, so the search would most likely not terminate"
    );
    assert_eq!(
        error("-t 0 -b 20 -q 0.5 -m 4"),
        "expected binomial branching factor q * m = 0.5 * 4 = 2 is above 1: the tree is infinite in \
         expectation and finite with probability only 5.1e-6, so the search would most likely not terminate"
    );
    assert_eq!(
        error("-t 0 -b 2000 -q 0.5 -m 4"),
        "expected binomial branching factor q * m = 0.5 * 4 = 2 is above 1: the tree is infinite in \
         expectation and finite with probability only 0, so the search would most likely not terminate"
    );
    assert_eq!(error("-t 1 -d 0"), "tree depth gen_mx (-d) must be at least 1 for Geometric trees");
    assert_eq!(error("-t 2 -d 0"), "tree depth gen_mx (-d) must be at least 1 for Hybrid trees");
    assert_eq!(
        error("-t 1 -a 1 -b 0.5"),
        "root branching factor b0 (-b) = 0.5 must be greater than 1 for the exponential-decrease shape (-a 1): \
         otherwise the branching factor does not decrease and the tree is infinite in expectation"
    );
    assert_eq!(error("-t 2 -f 1.5"), "shift depth (-f) = 1.5 must be a fraction of the tree depth in [0, 1]");
    assert_eq!(error("-g 0"), "compute granularity (-g) must be at least 1");
}

#[test]
fn validation_checks_only_what_the_tree_type_uses() {
    // Binomial parameters do not matter for geometric and balanced trees ...
    assert!(Params::from_uts_str("-t 1 -q 0.9 -m 8").is_ok());
    assert!(Params::from_uts_str("-t 3 -d 0 -q 2").is_ok());
    // ... nor the depth and shape for binomial trees.
    assert!(Params::from_uts_str("-t 0 -d 0 -a 1 -b 0.5").is_ok());
    // A struct built by hand is checked by `Uts::new`.
    let bad = Params { granularity: 0, ..Params::DEFAULT };
    assert_eq!(Uts::new(bad).unwrap_err(), ParamsError::ZeroGranularity);
}

#[test]
fn finite_probability_follows_the_branching_process() {
    let p = |flags: &str| flags.parse::<Params>().unwrap().finite_probability();
    // Geometric, balanced and subcritical or critical binomial trees are finite.
    assert_eq!(p("-t 1 -a 3 -d 10 -b 4"), 1.0);
    assert_eq!(p("-t 3 -b 8 -d 8"), 1.0);
    assert_eq!(p("-t 0 -b 2000 -q 0.25 -m 4"), 1.0);
    // η = 1/2 + η³/2 has the root (√5 - 1)/2; the root has one child.
    let golden = (5f64.sqrt() - 1.0) / 2.0;
    assert!((p("-t 0 -b 1 -q 0.5 -m 3") - golden).abs() < 1e-12);
    let two_children = Params { tree_type: TreeType::Binomial, b0: 2.0, q: 0.5, m: 3, ..Params::DEFAULT };
    assert!((two_children.finite_probability() - golden * golden).abs() < 1e-12);
    // T3L is supercritical (q * m = 1.00007) and yet finite, as expected here.
    let t3l = Params::sample("T3L").unwrap().0;
    assert!((0.9..0.95).contains(&t3l.finite_probability()), "{}", t3l.finite_probability());
    // A supercritical hybrid tree is finite if its geometric top dies out.
    let hybrid = Params { q: 0.26, ..Params::sample("T4").unwrap().0 };
    assert!((0.1..0.3).contains(&hybrid.finite_probability()), "{}", hybrid.finite_probability());
}

/// The mean size of the trees of `flags` over the seeds `0..seeds`.
fn mean_size(flags: &str, seeds: i32) -> f64 {
    let params: Params = flags.parse().unwrap();
    let total: u64 = (0..seeds)
        .map(|r| seq::run_search(&Uts::new(Params { root_seed: r, ..params }).unwrap()).0.nodes)
        .sum();
    total as f64 / f64::from(seeds)
}

#[test]
fn expected_nodes_is_the_mean_over_seeds() {
    // One type each (hybrid across its shift), averaged over 4000 seeds:
    // within a few standard errors of the expectation.
    for (flags, tolerance) in [
        ("-t 0 -b 20 -q 0.2 -m 4", 0.05),
        ("-t 1 -a 0 -d 6 -b 4", 0.05),
        ("-t 1 -a 1 -d 4 -b 3", 0.05),
        ("-t 1 -a 2 -d 3 -b 2", 0.05),
        ("-t 1 -a 3 -d 4 -b 2", 0.05),
        ("-t 2 -a 0 -d 6 -b 3 -q 0.2 -m 3", 0.05),
    ] {
        let expected = flags.parse::<Params>().unwrap().expected_nodes();
        let mean = mean_size(flags, 4000);
        assert!((mean / expected - 1.0).abs() < tolerance, "{flags}: mean {mean}, expected {expected}");
    }
    // Exact where the tree is not random.
    assert_eq!("-t 3 -b 4 -d 3".parse::<Params>().unwrap().expected_nodes(), 85.0);
    assert_eq!(mean_size("-t 3 -b 4 -d 3", 1), 85.0);
}

#[test]
fn expected_nodes_is_infinite_where_the_expectation_is() {
    let e = |flags: &str| flags.parse::<Params>().unwrap().expected_nodes();
    // Critical and supercritical binomial parts (T3L among them).
    assert_eq!(e("-t 0 -q 0.2 -m 5"), f64::INFINITY);
    assert_eq!(e("-t 0 -b 2000 -q 0.5 -m 2"), f64::INFINITY);
    assert_eq!(Params::sample("T3L").unwrap().0.expected_nodes(), f64::INFINITY);
    assert_eq!(e("-t 2 -a 0 -d 16 -b 6 -q 0.25 -m 4"), f64::INFINITY);
    // Deep or wide trees that ran until killed: astronomically large, or
    // beyond f64.
    assert_eq!(e("-t 1 -a 3 -d 1000000 -b 4"), f64::INFINITY);
    assert!(e("-t 3 -d 50 -b 4") > 1e30);
    assert!(e("-t 0 -b 1e9") >= 1e9);
    // A slowly decreasing shape converges.
    let slow = e("-t 1 -a 1 -d 1000 -b 2");
    assert!(slow.is_finite() && slow > 1000.0, "{slow}");
    // The published trees below 10^11 nodes have finite expectations.
    for t in SAMPLE_TREES.iter().filter(|t| t.name != "T3L") {
        let expected = t.params().expected_nodes();
        assert!(expected.is_finite(), "{}: {expected}", t.name);
    }
}
