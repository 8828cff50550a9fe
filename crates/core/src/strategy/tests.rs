//! Conformance of the strategy machines: for every strategy, scripted
//! events give the expected actions; and every strategy, stepped on real
//! irregular work, expands every node exactly once for every P and
//! initialization.

use super::stepper::Stepper;
use super::*;
use crate::search::{Children, DfsWork, Search, SplitPolicy};
use crate::{Init, RunSpec};

const IDLE: Event = Event::Idle { local_work: false };

/// Feeds `events` to `machine` and returns the actions of each.
fn script(machine: &mut Machine, events: &[Event]) -> Vec<Vec<Action>> {
    events
        .iter()
        .map(|&e| {
            let mut out = Actions::new();
            machine.on(e, &mut out);
            out.to_vec()
        })
        .collect()
}

fn spec(strategy: Strategy) -> RunSpec {
    RunSpec { seed: 11, ..RunSpec::with_strategy(strategy) }
}

#[test]
fn random_polling_asks_random_others_and_splits_when_busy() {
    let mut m = spec(Strategy::RandomPolling).machine(2, 5);
    let acts = script(&mut m, &[IDLE, IDLE, Event::Answer { from: 0, work: false }, IDLE]);
    let (Action::Request { to: a }, Action::Request { to: b }) = (acts[0][0], acts[3][0]) else {
        panic!("{acts:?}")
    };
    assert!(a != 2 && b != 2 && a < 5 && b < 5);
    assert!(acts[1].is_empty(), "a second Idle while the request is out asks nobody");
    assert_eq!(
        script(&mut m, &[Event::Request { from: 4, busy: true }, Event::Request { from: 3, busy: false }]),
        [vec![Action::Give { to: 4 }], vec![Action::Refuse { to: 3 }]]
    );
    let t = m.tally();
    assert_eq!((t.requests_sent, t.requests_failed, t.requests_received, t.messages), (2, 1, 2, 4));
    // Nothing to do on slices: the busy path is one poll.
    assert!(!m.wants_slices());
}

#[test]
fn async_round_robin_walks_the_ring() {
    let mut m = spec(Strategy::AsyncRoundRobin).machine(1, 4);
    let mut victims = Vec::new();
    for _ in 0..5 {
        let acts = script(&mut m, &[IDLE, Event::Answer { from: 0, work: false }]);
        let Action::Request { to } = acts[0][0] else { panic!() };
        victims.push(to);
    }
    assert_eq!(victims, [2, 3, 0, 2, 3]);
}

#[test]
fn global_round_robin_takes_tickets_and_skips_itself() {
    let mut m = spec(Strategy::GlobalRoundRobin).machine(1, 3);
    assert_eq!(
        script(&mut m, &[IDLE, Event::Ticket(4), IDLE, Event::Answer { from: 1, work: true }]),
        [vec![Action::TakeTicket], vec![Action::TakeTicket], vec![], vec![]]
    );
    assert_eq!(
        script(&mut m, &[IDLE, Event::Ticket(5)]),
        [vec![Action::TakeTicket], vec![Action::Request { to: 2 }]]
    );
}

#[test]
fn hybrid_groups_ask_inside_the_group_while_it_has_work() {
    let mut m = spec(Strategy::RandomPolling).grouped_machine(5, 8, 4); // group 1 = PEs 4..8
    for _ in 0..50 {
        let acts =
            script(&mut m, &[Event::Idle { local_work: true }, Event::Answer { from: 0, work: false }]);
        let Action::Request { to } = acts[0][0] else { panic!() };
        assert!((4..8).contains(&to) && to != 5, "{to}");
        let acts = script(&mut m, &[IDLE, Event::Answer { from: 0, work: false }]);
        let Action::Request { to } = acts[0][0] else { panic!() };
        assert!((0..4).contains(&to), "{to}");
    }
}

#[test]
fn work_sharing_offers_one_random_pe_at_a_time() {
    let mut m = spec(Strategy::WorkSharing).machine(0, 3);
    let acts = script(&mut m, &[Event::Slice { load: 9 }, Event::Slice { load: 8 }]);
    let [Action::QueryLoad { to }] = acts[0][..] else { panic!("{acts:?}") };
    assert!(acts[1].is_empty(), "one round of queries at a time");
    // Declined: its pool holds a piece.
    assert!(script(&mut m, &[Event::Load { from: to, load: 2 }])[0].is_empty());
    let acts = script(&mut m, &[Event::Slice { load: 7 }]);
    let [Action::QueryLoad { to }] = acts[0][..] else { panic!() };
    assert_eq!(script(&mut m, &[Event::Load { from: to, load: 1 }]), [vec![Action::Push { to }]]);
    let t = m.tally();
    assert_eq!((t.requests_sent, t.requests_failed), (2, 1));
    // A load query is answered whatever the PE does.
    assert_eq!(script(&mut m, &[Event::LoadQuery { from: 2 }]), [vec![Action::ReplyLoad { to: 2 }]]);
}

#[test]
fn extreme_work_sharing_pushes_every_slice() {
    let mut m = spec(Strategy::ExtremeWorkSharing).machine(1, 4);
    for _ in 0..20 {
        let acts = script(&mut m, &[Event::Slice { load: 3 }]);
        let [Action::Push { to }] = acts[0][..] else { panic!("{acts:?}") };
        assert!(to != 1 && to < 4);
    }
    assert_eq!(m.tally().requests_sent, 0);
}

#[test]
fn two_choice_asks_two_distinct_pes_and_takes_the_less_loaded() {
    for me in 0..4 {
        let mut m = spec(Strategy::TwoChoice).machine(me, 4);
        for round in 0..30 {
            let acts = script(&mut m, &[Event::Slice { load: 5 }]);
            let [Action::QueryLoad { to: a }, Action::QueryLoad { to: b }] = acts[0][..] else { panic!() };
            assert!(a != b && a != me && b != me);
            let (la, lb) = if round % 2 == 0 { (1, 0) } else { (0, 3) };
            let acts =
                script(&mut m, &[Event::Load { from: b, load: lb }, Event::Load { from: a, load: la }]);
            assert!(acts[0].is_empty());
            let expected = if la <= lb { a } else { b };
            assert_eq!(acts[1], [Action::Push { to: expected }]);
        }
    }
}

#[test]
fn two_choice_breaks_ties_at_random_and_always_go_left_to_the_left() {
    let mut sides = [0u32; 2];
    let mut m = spec(Strategy::TwoChoice).machine(0, 8);
    let mut agl = spec(Strategy::AlwaysGoLeft).machine(0, 8);
    for _ in 0..400 {
        let acts = script(&mut m, &[Event::Slice { load: 5 }]);
        let [Action::QueryLoad { to: a }, Action::QueryLoad { to: b }] = acts[0][..] else { panic!() };
        let acts = script(&mut m, &[Event::Load { from: a, load: 1 }, Event::Load { from: b, load: 1 }]);
        sides[usize::from(acts[1] == [Action::Push { to: b }])] += 1;

        let acts = script(&mut agl, &[Event::Slice { load: 5 }]);
        let [Action::QueryLoad { to: l }, Action::QueryLoad { to: r }] = acts[0][..] else { panic!() };
        assert!((1..4).contains(&l) && (4..8).contains(&r), "{l} {r}");
        let acts = script(&mut agl, &[Event::Load { from: r, load: 0 }, Event::Load { from: l, load: 0 }]);
        assert_eq!(acts[1], [Action::Push { to: l }], "ties go left");
    }
    assert!(sides.iter().all(|&n| n > 150), "ties at random: {sides:?}");
}

#[test]
fn max_load_reports_lazily_and_visits_the_most_loaded() {
    let mut m = spec(Strategy::MaxLoad).machine(3, 8);
    let acts = script(
        &mut m,
        &[
            Event::Slice { load: 4 },
            Event::Slice { load: 5 },
            Event::Slice { load: 6 },
            Event::Request { from: 1, busy: true },
            Event::Served { given: true, load: 3 },
            Event::Exhausted,
        ],
    );
    // ρ = 1.4: after reporting 4 the threshold is ⌊1.4⁵⌋ = 5, so 5 is not
    // reported and 6 is; a visit and the end are reported whatever they are.
    assert_eq!(
        acts,
        [
            vec![Action::Report { load: 4 }],
            vec![],
            vec![Action::Report { load: 6 }],
            vec![Action::Give { to: 1 }],
            vec![Action::Report { load: 3 }],
            vec![Action::Report { load: 0 }],
        ]
    );
    // The lazy rule by itself: within one ⌈log_ρ⌉ level, no report.
    let mut m = spec(Strategy::MaxLoad).machine(3, 8);
    let reports: Vec<u64> = (1..=100)
        .flat_map(|l| script(&mut m, &[Event::Slice { load: l }]).concat())
        .map(|a| match a {
            Action::Report { load } => load,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(reports, [1, 2, 3, 4, 6, 8, 11, 15, 21, 29, 41, 57, 80]);
    assert_eq!(
        script(&mut m, &[IDLE, IDLE, Event::MostLoaded(Some(3)), IDLE, Event::MostLoaded(Some(6)), IDLE]),
        [
            vec![Action::QueryMostLoaded],
            vec![],
            vec![], // itself: nobody to visit
            vec![Action::QueryMostLoaded],
            vec![Action::Request { to: 6 }],
            vec![],
        ]
    );
    assert_eq!(m.tally().heap_ops, 13 + 2);
}

/// Granularity control: a producer gives pieces of its level's generation,
/// serves held requests two per slice and at the end of a piece too.
#[test]
fn multilevel_produces_pieces_of_its_levels_grain() {
    let mut spec = spec(Strategy::Multilevel);
    spec.fanout = vec![2, 2];
    spec.grain = 4;
    // Level 1 cuts ⌈log₂(4·2)⌉ = 3 generations below the root's 3.
    let produce = |to| Action::Produce { to, generation: 6 };
    let mut m = spec.machine(1, 7);
    assert_eq!(
        script(
            &mut m,
            &[
                Event::Request { from: 3, busy: false },
                Event::Request { from: 4, busy: false },
                Event::Slice { load: 5 },
                Event::Request { from: 3, busy: false },
                Event::Exhausted,
                Event::Request { from: 4, busy: true },
            ]
        ),
        [vec![], vec![], vec![produce(3), produce(4)], vec![], vec![produce(3)], vec![produce(4)]]
    );
    let mut root = spec.machine(0, 7);
    assert_eq!(
        script(&mut root, &[Event::Request { from: 1, busy: true }])[0],
        [Action::Produce { to: 1, generation: 3 }]
    );
}

#[test]
fn multilevel_asks_only_its_producer() {
    let mut spec = spec(Strategy::Multilevel);
    spec.fanout = vec![2, 2];
    let mut root = spec.machine(0, 7);
    assert!(script(&mut root, &[IDLE])[0].is_empty(), "the root has no producer");
    for (pe, parent) in [(1, 0), (2, 0), (3, 1), (4, 1), (5, 2), (6, 2)] {
        let mut m = spec.machine(pe, 7);
        for _ in 0..3 {
            assert_eq!(
                script(&mut m, &[IDLE, Event::Answer { from: parent, work: false }])[0],
                [Action::Request { to: parent }]
            );
        }
    }
    // Without granularity control an idle producer holds its children's
    // requests, serves them one per slice once it works, and releases the
    // rest with "no work" at the end.
    spec.grain = 0;
    let mut m = spec.machine(1, 7);
    assert_eq!(
        script(
            &mut m,
            &[
                Event::Request { from: 3, busy: false },
                Event::Request { from: 4, busy: false },
                Event::Slice { load: 5 },
                Event::Request { from: 3, busy: true },
                Event::Over,
                Event::Over,
            ]
        ),
        [
            vec![],
            vec![],
            vec![Action::Give { to: 3 }],
            vec![Action::Give { to: 3 }],
            vec![Action::Refuse { to: 4 }],
            vec![]
        ]
    );
}

#[test]
fn master_worker_asks_the_master_and_deposits_on_demand() {
    let mut m = spec(Strategy::MasterWorker).machine(2, 4);
    assert_eq!(
        script(&mut m, &[IDLE, IDLE, Event::Answer { from: 0, work: true }, Event::Demand { busy: true }]),
        [vec![Action::AskMaster], vec![], vec![], vec![Action::Deposit]]
    );
    // Atomic for now: the demand stays until the piece splits or ends.
    assert_eq!(
        script(
            &mut m,
            &[
                Event::Served { given: false, load: 1 },
                Event::Slice { load: 2 },
                Event::Served { given: true, load: 1 },
                Event::Slice { load: 2 },
                Event::Demand { busy: true },
                Event::Exhausted,
                Event::Demand { busy: false },
            ]
        ),
        [
            vec![],
            vec![Action::Deposit],
            vec![],
            vec![],
            vec![Action::Deposit],
            vec![Action::NoPart],
            vec![Action::NoPart]
        ]
    );
    let mut hub: Hub<&str> = spec(Strategy::MasterWorker).hub(4, |pe| pe == 0);
    let mut out = Vec::new();
    hub.on(HubEvent::Ask { from: 1 }, &mut out);
    hub.on(HubEvent::Ask { from: 2 }, &mut out);
    // Two waiting, one busy PE: one demand (PE 0 cannot answer two at once).
    assert_eq!(out, [HubAction::Demand { to: 0 }]);
    out.clear();
    hub.on(HubEvent::Deposit { from: 0, part: Some(("a", 5)) }, &mut out);
    // PE 1 waited longest; for PE 2 the round robin goes on to PE 1, busy now.
    assert_eq!(out, [HubAction::Hand { to: 1, piece: "a" }, HubAction::Demand { to: 1 }]);
    out.clear();
    hub.on(HubEvent::Deposit { from: 1, part: None }, &mut out);
    // PE 1 cannot split: PE 0 is asked again.
    assert_eq!(out, [HubAction::Demand { to: 0 }]);
}

#[test]
fn the_central_pool_hands_out_the_largest_piece_first() {
    let mut hub: Hub<&str> = spec(Strategy::MasterWorker).hub(3, |_| true);
    let mut out = Vec::new();
    hub.on(HubEvent::Deposit { from: 0, part: Some(("small", 2)) }, &mut out);
    hub.on(HubEvent::Deposit { from: 1, part: Some(("large", 9)) }, &mut out);
    hub.on(HubEvent::Deposit { from: 2, part: Some(("large too", 9)) }, &mut out);
    assert_eq!(hub.pooled(), 3);
    for expected in ["large", "large too", "small"] {
        out.clear();
        hub.on(HubEvent::Ask { from: 0 }, &mut out);
        assert_eq!(out, [HubAction::Hand { to: 0, piece: expected }]);
    }
}

#[test]
fn static_assignment_decides_nothing_at_run_time() {
    for s in [Strategy::StaticBlock, Strategy::StaticCyclic, Strategy::StaticRandom] {
        let mut m = spec(s).machine(1, 4);
        let acts =
            script(&mut m, &[IDLE, Event::Slice { load: 3 }, Event::Exhausted, Event::Pushed { from: 0 }]);
        assert!(acts.iter().all(Vec::is_empty), "{s}: {acts:?}");
    }
}

#[test]
fn the_hub_counter_gives_consecutive_tickets() {
    let mut hub: Hub<()> = spec(Strategy::GlobalRoundRobin).hub(4, |_| false);
    let mut out = Vec::new();
    for from in [2, 0, 2] {
        hub.on(HubEvent::Ticket { from }, &mut out);
    }
    assert_eq!(
        out,
        [
            HubAction::Ticket { to: 2, ticket: 0 },
            HubAction::Ticket { to: 0, ticket: 1 },
            HubAction::Ticket { to: 2, ticket: 2 }
        ]
    );
}

/// An irregular tree: a node's number of children is a hash of its id.
struct Irregular(u64);

impl Search for Irregular {
    type Node = (u64, u32);
    type Output = u64;
    fn root(&self) -> (u64, u32) {
        (self.0, 0)
    }
    fn expand(&self, (id, depth): (u64, u32), acc: &mut u64, c: &mut Children<'_, (u64, u32)>) {
        *acc += 1;
        let h = crate::rng::mix(id);
        let kids = if depth >= 16 {
            0
        } else if depth < 2 {
            3
        } else {
            (h % 4) as u32
        };
        for k in 0..kids {
            c.push((h.wrapping_add(u64::from(k)), depth + 1));
        }
    }
}

#[test]
fn every_strategy_expands_every_node_once_when_stepped() {
    let tree = Irregular(5);
    let (expected, _) = crate::seq::run_search(&tree);
    assert!(expected > 2_000, "{expected}");
    for strategy in Strategy::ALL {
        for p in [1, 2, 3, 5, 8] {
            for init in Init::ALL {
                for budget in [1, 7, 64] {
                    let spec = RunSpec {
                        budget: crate::spec::Budget::of(budget),
                        init,
                        seed: p as u64,
                        ..RunSpec::with_strategy(strategy)
                    };
                    let run = Stepper::new(spec, p).run(DfsWork::new(&tree, SplitPolicy::OldestHalf));
                    let units: u64 = run.pes.iter().map(|s| s.work_units).sum();
                    assert_eq!(run.output, expected, "{strategy} p {p} {init} Δt {budget}");
                    assert_eq!(units, expected, "{strategy} p {p} {init} Δt {budget}");
                    let sent: u64 = run.pes.iter().map(|s| s.pieces_sent).sum();
                    let got: u64 = run.pes.iter().map(|s| s.pieces_received).sum();
                    if strategy != Strategy::MasterWorker {
                        assert!(got <= sent + p as u64 * 64, "{strategy}: {got} received, {sent} sent");
                    }
                    if strategy.is_static() {
                        assert_eq!(sent, 0, "{strategy} moves nothing");
                    }
                }
            }
        }
    }
}

#[test]
fn dynamic_strategies_move_work_to_idle_pes() {
    let tree = Irregular(9);
    for strategy in Strategy::ALL.into_iter().filter(|s| !s.is_static()) {
        let spec =
            RunSpec { budget: crate::spec::Budget::of(16), seed: 3, ..RunSpec::with_strategy(strategy) };
        let run = Stepper::new(spec, 4).run(DfsWork::new(&tree, SplitPolicy::OldestHalf));
        let busy = run.pes.iter().filter(|s| s.work_units > 0).count();
        assert!(busy >= 2, "{strategy}: only {busy} PEs worked");
        let messages: u64 = run.pes.iter().map(|s| s.messages).sum();
        assert!(messages > 0, "{strategy}");
    }
}

fn spec_for(strategy: Strategy) -> RunSpec {
    RunSpec { budget: crate::spec::Budget::of(8), seed: 4, ..RunSpec::with_strategy(strategy) }
}

#[test]
fn a_tampered_log_does_not_replay() {
    let run = Stepper::new(spec_for(Strategy::RandomPolling), 3)
        .run(DfsWork::new(&Irregular(2), SplitPolicy::OldestHalf));
    let mut log = run.decisions[1].clone();
    let i = log.iter().position(|d| !d.actions.is_empty()).expect("PE 1 decided something");
    log[i].actions.clear();
    assert!(replay(spec_for(Strategy::RandomPolling).machine(1, 3), &log).is_err());
}

#[test]
fn stepped_runs_are_reproducible() {
    let tree = Irregular(2);
    for strategy in Strategy::ALL {
        let spec = spec_for(strategy);
        let a = Stepper::new(spec.clone(), 5).run(DfsWork::new(&tree, SplitPolicy::OldestHalf));
        let b = Stepper::new(spec, 5).run(DfsWork::new(&tree, SplitPolicy::OldestHalf));
        assert_eq!(a.decisions, b.decisions, "{strategy}");
        assert_eq!(a.steps, b.steps);
        for (me, log) in a.decisions.iter().enumerate() {
            replay(spec_for(strategy).machine(me, 5), log)
                .unwrap_or_else(|e| panic!("{strategy} PE {me}: {e}"));
        }
    }
}
