use super::*;
use crate::platform::Costs;

fn iid(p: u32, shape: TreeShape, rho: Granularity, sizes: Sizes, work: Time) -> RunConfig {
    let machine = Platform::new(p, Network::Crossbar, Costs::default());
    let spec = RunSpec { strategy: Strategy::Multilevel, ..RunSpec::default() };
    RunConfig::new(machine, spec, Workload::Iid(IidTree { sizes, work, shape, rho, t_produce: None }))
}

fn alpha(work: u64) -> Workload {
    Workload::Alpha { dist: AlphaDist::Fixed { alpha: 0.333 }, work, atomic: 100, max_generation: None }
}

#[test]
fn a_producer_tree_reports_its_levels_and_every_consumer() {
    let mut cfg = iid(
        64,
        TreeShape::Fanout(vec![8, 8]),
        Granularity::Rho(vec![4.0, 1.0]),
        Sizes::Deterministic,
        2_000_000,
    );
    cfg.machine.costs.t_rout = 0;
    cfg.per_pe = true;
    let Outcome { report: r, workload } = cfg.run().unwrap();
    assert_eq!((r.strategy.as_str(), r.machine.p, r.t_seq), ("multilevel", 64, 2_000_000));
    assert_eq!(r.levels.iter().map(|l| l.fanout).collect::<Vec<_>>(), [8, 8]);
    assert_eq!(r.levels.iter().map(|l| l.grain).collect::<Vec<_>>(), [4.0 * 64.0 * 10.0, 8.0 * 10.0]);
    assert_eq!(r.per_pe.len(), 64);
    assert_eq!(r.per_pe.iter().map(|pe| pe.work_units).sum::<u64>(), 2_000_000);
    let WorkloadSummary::Iid { rho, producers, .. } = workload else { panic!("{workload:?}") };
    assert!(rho.iter().zip([4.0, 1.0]).all(|(r, x)| (r - x).abs() < 1e-9), "{rho:?}");
    assert_eq!(producers, 9);
    // Without per-PE counters, none; the same tree otherwise.
    cfg.per_pe = false;
    let again = cfg.run().unwrap().report;
    assert_eq!((again.per_pe.len(), again.t_par), (0, r.t_par));
}

#[test]
fn the_best_rho_on_theorem_4_levels() {
    let cfg = iid(64, TreeShape::Levels(3), Granularity::Best, Sizes::Exponential, 1_000_000);
    let Outcome { report, workload } = cfg.run().unwrap();
    assert_eq!(report.levels.iter().map(|l| l.fanout).collect::<Vec<_>>(), [16, 2, 2]);
    let line = workload.to_string();
    assert!(line.starts_with("i.i.d. subtasks (exponential sizes), T₁ = 1000000 ticks"), "{line}");
    // One value of ρ for every level.
    let one = iid(64, TreeShape::Levels(2), Granularity::Rho(vec![2.0]), Sizes::Uniform, 1_000_000);
    assert!(matches!(one.run().unwrap().workload, WorkloadSummary::Iid { rho, .. } if rho.len() == 2));
}

#[test]
fn what_a_producer_tree_cannot_do() {
    let base = || iid(64, TreeShape::Levels(2), Granularity::Best, Sizes::Exponential, 100_000);
    let fails = |cfg: RunConfig| cfg.run().unwrap_err();
    let mut c = base();
    c.workload = Workload::Iid(IidTree { shape: TreeShape::Fanout(vec![8, 4]), ..iid_of(&c) });
    assert_eq!(fails(c), RunError::FanoutProduct { product: 32, p: 64 });
    let mut c = base();
    c.workload = Workload::Iid(IidTree { rho: Granularity::Rho(vec![1.0, 2.0, 3.0]), ..iid_of(&c) });
    assert_eq!(fails(c), RunError::RhoCount { given: 3, levels: 2 });
    let mut c = base();
    c.workload = Workload::Iid(IidTree { shape: TreeShape::Levels(9), ..iid_of(&c) });
    assert_eq!(fails(c), RunError::Levels(9));
    let mut c = base();
    c.machine.network = Network::Ring;
    assert_eq!(fails(c), RunError::IidOffCrossbar(Network::Ring));
    let mut c = base();
    c.spec.init = Init::Selective;
    assert_eq!(fails(c), RunError::IidNotFromRoot(Init::Selective));
    let mut c = base();
    c.max_events = Some(3);
    assert_eq!(fails(c), RunError::IidEventLimit);
    let mut c = base();
    c.spec.strategy = Strategy::RandomPolling;
    assert_eq!(fails(c), RunError::IidNeedsMultilevel(Strategy::RandomPolling));
    let mut c = base();
    c.workload = Workload::Iid(IidTree { rho: Granularity::Rho(vec![0.0]), ..iid_of(&c) });
    assert!(matches!(fails(c), RunError::Tree(TreeError::Grain { level: 1, .. })));
}

fn iid_of(c: &RunConfig) -> IidTree {
    match &c.workload {
        Workload::Iid(t) => t.clone(),
        _ => unreachable!("an i.i.d. workload"),
    }
}

#[test]
fn every_pe_accounts_for_the_whole_run() {
    for strategy in [Strategy::RandomPolling, Strategy::TwoChoice] {
        let machine = Platform::new(16, Network::Torus2d, Costs::default());
        let spec = RunSpec { strategy, budget: crate::engine::REFERENCE_BUDGET, ..RunSpec::default() };
        let mut cfg = RunConfig::new(machine, spec, alpha(1_000_000));
        cfg.per_pe = true;
        let r = cfg.run().unwrap().report;
        assert_eq!((r.t_seq, r.per_pe.len()), (1_000_000, 16), "{strategy}");
        let ticks = |d: std::time::Duration| d.as_nanos() as u64;
        assert!(r.per_pe.iter().all(|pe| ticks(pe.busy + pe.idle) == r.t_par), "{strategy}");
        assert!(r.per_pe.iter().map(|pe| ticks(pe.busy)).sum::<u64>() >= r.t_seq, "{strategy}");
        assert!(!r.utilization.values.is_empty(), "{strategy}");
    }
}

#[test]
fn every_strategy_runs_on_tree_shaped_work() {
    let t1 = treelb_apps::uts::SampleTree::find("T1").unwrap().params();
    for strategy in Strategy::ALL {
        let name = strategy.name();
        let spec = RunSpec { strategy, budget: crate::engine::REFERENCE_BUDGET, ..RunSpec::default() };
        let machine = Platform::new(32, Network::Crossbar, Costs::default());
        let r = RunConfig::new(machine, spec.clone(), alpha(200_000)).run().unwrap().report;
        assert_eq!((r.strategy.as_str(), r.work_units), (name, 200_000), "{name}");
        let uts = Workload::Uts {
            tree: "T1".into(),
            params: t1,
            node_ticks: 10,
            split_policy: SplitPolicy::OldestHalf,
        };
        let spec = RunSpec { init: Init::Selective, ..spec };
        let machine = Platform::new(8, Network::Crossbar, Costs::default());
        let out = RunConfig::new(machine, spec, uts).run().unwrap();
        assert!(out.workload.to_string().starts_with("UTS T1: Tree size = 4130071,"), "{name}");
        assert_eq!(out.report.t_seq, 41_300_710, "{name}");
    }
}

#[test]
fn an_event_limit_stops_the_engine() {
    let machine = Platform::new(256, Network::Crossbar, Costs::default());
    let mut cfg = RunConfig::new(machine, RunSpec::default(), alpha(10_000_000));
    cfg.max_events = Some(5000);
    let r = cfg.run().unwrap().report;
    assert!(!r.complete && r.events <= 5000, "{} events", r.events);
}
