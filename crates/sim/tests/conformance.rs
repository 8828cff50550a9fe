//! One scheduler, three drivers: the stepping reference driver of
//! `treelb::strategy::stepper`, the simulator and the threads runtime run
//! the same strategy machines, so
//!
//! * `every_driver_replays` — every PE's recorded decisions replay exactly
//!   through a fresh machine, in every driver, for every strategy (a driver
//!   that fed its machines anything it did not record would fail), and
//!   every piece a PE gave away follows one of its machine's decisions (a
//!   driver that moved work by a rule of its own would fail);
//! * `*_agree` — what a seed alone decides is the same in every driver:
//!   each PE's victims (random polling, asynchronous round robin), its
//!   offers' candidates (work sharing, two-choice, always-go-left) and its
//!   push targets (extreme work sharing) form one sequence per PE, of which
//!   every driver ran a prefix (how far depends on the schedule: timing
//!   decides how often a PE runs dry, not whom it asks);
//! * `*_rules_hold` — what the schedule decides still follows the family's
//!   rule in every driver: global round robin asks the PE its ticket names,
//!   multilevel asks only the producer, max-load visits only the PE the hub
//!   named, master–worker asks only the master, static assignment asks
//!   nobody.
//!
//! The divergences these catch are the ones the three copies of the
//! strategies had: an offer declined by one rule here and throttled by
//! another there, loads compared in different units, ties broken by
//! different draws.

use treelb::search::{DfsWork, SplitPolicy};
use treelb::strategy::stepper::Stepper;
use treelb::strategy::{Action, Decision, Event, replay};
use treelb::{RunSpec, Strategy};
use treelb_apps::uts::{Params, Uts};
use treelb_sim::engine::{SimConfig, simulate_with};
use treelb_sim::{Costs, Network, Platform};

/// A UTS tree of some ten thousand nodes.
fn tree() -> Uts {
    Uts::new(Params::from_uts_args(["-t", "1", "-a", "3", "-d", "8", "-b", "4", "-r", "19"]).unwrap())
        .unwrap()
}

fn spec(strategy: Strategy) -> RunSpec {
    RunSpec { strategy, budget: treelb::spec::Budget::of(16), seed: 2026, ..RunSpec::default() }
}

/// One driver's run: its name, every PE's decisions, the pieces each PE
/// gave away.
type Run = (&'static str, Vec<Vec<Decision>>, Vec<u64>);

/// Every PE's decisions under `strategy` on `p` PEs, by driver, with the
/// pieces each PE gave away.
fn runs(strategy: Strategy, p: usize) -> Vec<Run> {
    let uts = tree();
    let (expected, _) = treelb::seq::run_search(&uts);
    let root = || DfsWork::new(&uts, SplitPolicy::OldestHalf);
    let stepped = Stepper::new(spec(strategy), p).run(root());
    assert_eq!(stepped.output, expected, "stepper, {strategy}");
    let mut cfg =
        SimConfig::new(Platform::new(p as u32, Network::Crossbar, Costs::default()), spec(strategy));
    cfg.unit_ticks = 10;
    cfg.record_decisions = true;
    let (report, out) = simulate_with(root(), &cfg, true).unwrap();
    assert_eq!(out, expected, "simulator, {strategy}");
    let config = treelb_threads::Config {
        record_decisions: true,
        ..treelb_threads::Config::with_spec(p, spec(strategy))
    };
    let outcome = treelb_threads::run(root(), &config).unwrap();
    assert_eq!(outcome.output, expected, "threads, {strategy}");
    let sent = |pes: &[treelb::PeStats]| pes.iter().map(|s| s.pieces_sent).collect::<Vec<_>>();
    vec![
        ("stepper", stepped.decisions, sent(&stepped.pes)),
        ("simulator", report.decisions, sent(&report.per_pe)),
        ("threads", outcome.decisions.expect("recorded"), sent(&outcome.stats.pes)),
    ]
}

/// Every PE's decisions under `strategy` on `p` PEs, by driver.
fn logs(strategy: Strategy, p: usize) -> Vec<(&'static str, Vec<Vec<Decision>>)> {
    runs(strategy, p).into_iter().map(|(d, logs, _)| (d, logs)).collect()
}

/// Every action of one kind in a log, in order.
fn picked(log: &[Decision], pick: impl Fn(Action) -> Option<usize>) -> Vec<usize> {
    log.iter().flat_map(|d| d.actions.iter()).filter_map(&pick).collect()
}

/// The sequences of all drivers for each PE: each a prefix of the longest.
fn assert_prefixes(strategy: Strategy, p: usize, pick: impl Fn(Action) -> Option<usize> + Copy) {
    let all = logs(strategy, p);
    for pe in 0..p {
        let seqs: Vec<(&str, Vec<usize>)> =
            all.iter().map(|(d, logs)| (*d, picked(&logs[pe], pick))).collect();
        let longest = seqs.iter().map(|(_, s)| s).max_by_key(|s| s.len()).expect("three drivers");
        for (driver, s) in &seqs {
            assert_eq!(
                &longest[..s.len()],
                &s[..],
                "{strategy}, P = {p}, PE {pe}: {driver} diverges: {seqs:?}"
            );
        }
        assert!(
            seqs.iter().filter(|(_, s)| !s.is_empty()).count() >= 2 || pe == 0,
            "{strategy} PE {pe}: {seqs:?}"
        );
    }
}

#[test]
fn every_driver_replays() {
    for strategy in Strategy::ALL {
        for p in [2, 3, 4] {
            for (driver, logs, sent) in runs(strategy, p) {
                assert_eq!(logs.len(), p, "{driver}");
                for (me, log) in logs.iter().enumerate() {
                    replay(spec(strategy).machine(me, p), log)
                        .unwrap_or_else(|e| panic!("{driver}, {strategy}, P = {p}, PE {me}: {e}"));
                    // Every piece given away was the machine's decision (a
                    // split for a request, a push, a part for the master).
                    let given =
                        log.iter().filter(|d| matches!(d.event, Event::Served { given: true, .. })).count();
                    assert_eq!(given as u64, sent[me], "{driver}, {strategy}, P = {p}, PE {me}");
                }
            }
        }
    }
}

#[test]
fn stealing_victims_agree() {
    for strategy in [Strategy::RandomPolling, Strategy::AsyncRoundRobin] {
        for p in [2, 3, 4] {
            assert_prefixes(strategy, p, |a| match a {
                Action::Request { to } => Some(to),
                _ => None,
            });
        }
    }
}

#[test]
fn pushing_candidates_agree() {
    for strategy in [Strategy::WorkSharing, Strategy::TwoChoice, Strategy::AlwaysGoLeft] {
        for p in [2, 3, 4] {
            assert_prefixes(strategy, p, |a| match a {
                Action::QueryLoad { to } => Some(to),
                _ => None,
            });
        }
    }
    for p in [2, 3, 4] {
        assert_prefixes(Strategy::ExtremeWorkSharing, p, |a| match a {
            Action::Push { to } => Some(to),
            _ => None,
        });
    }
}

#[test]
fn schedule_dependent_rules_hold() {
    let p = 4;
    for strategy in
        [Strategy::GlobalRoundRobin, Strategy::Multilevel, Strategy::MaxLoad, Strategy::MasterWorker]
    {
        let tree = spec(strategy).producer_tree(p);
        for (driver, logs) in logs(strategy, p) {
            for (me, log) in logs.iter().enumerate() {
                let mut named = None; // the ticket's PE, or the hub's answer
                for d in log {
                    match d.event {
                        Event::Ticket(t) => named = Some((t % p as u64) as usize),
                        Event::MostLoaded(pe) => named = pe,
                        _ => {}
                    }
                    for a in d.actions.iter() {
                        let Action::Request { to } = a else { continue };
                        let what = format!("{driver}, {strategy}, PE {me} asks {to}");
                        match strategy {
                            Strategy::Multilevel => assert_eq!(Some(to), tree.parent(me), "{what}"),
                            _ => assert_eq!(Some(to), named, "{what}"),
                        }
                    }
                    if strategy == Strategy::MasterWorker {
                        assert!(
                            d.actions
                                .iter()
                                .all(|a| !matches!(a, Action::Request { .. } | Action::Push { .. })),
                            "{driver}: a worker acts past the master: {d:?}"
                        );
                    }
                }
            }
        }
    }
    for strategy in [Strategy::StaticBlock, Strategy::StaticCyclic, Strategy::StaticRandom] {
        for (driver, logs) in logs(strategy, p) {
            let acted: Vec<&Decision> = logs.iter().flatten().filter(|d| !d.actions.is_empty()).collect();
            assert!(acted.is_empty(), "{driver}, {strategy}: {acted:?}");
        }
    }
}
