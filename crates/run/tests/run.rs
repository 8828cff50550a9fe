//! The library's run on threads: exact answers, every kind of stop, a
//! checkpoint stopped and resumed to the exact answer, and the proven bound
//! of a branch and bound. (Across MPI ranks: the example `portable` under
//! mpirun, in CI.)

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use treelb::bound::ProvenBound;
use treelb::search::SplitPolicy;
use treelb_apps::knapsack::{Class, Knapsack, Spec};
use treelb_apps::langford::Langford;
use treelb_checkpoint::Checkpoint;
use treelb_run::{Limit, Pes, Run, RunSpec, StopReason};

/// L(2,11) (OEIS A014552).
const L11: u64 = 17792;

fn langford(n: u32, run: Run<'_>, pes: usize) -> treelb_run::Outcome<u64> {
    run.run_search(Pes::Threads(pes), &Langford::new(n), SplitPolicy::OldestHalf)
        .expect("a valid run")
        .expect("threads: the caller gets the outcome")
}

/// A fresh directory of this test's own.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("treelb-run-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn counts_exactly_on_any_number_of_threads() {
    for pes in 1..=3 {
        let outcome = langford(11, Run::new(RunSpec::default()), pes);
        assert_eq!(outcome.stopped, None);
        assert_eq!(Langford::pairings(outcome.output), L11, "{pes} threads");
        assert_eq!((outcome.ranks, outcome.threads, outcome.checkpoints), (1, pes, 0));
        assert_eq!(outcome.stats.pes.len(), pes);
        assert!(outcome.bound.is_none());
    }
}

#[test]
fn every_stop_says_why() {
    // L(2,16): minutes of work.
    let deadline = langford(16, Run::new(RunSpec::default()).deadline(Duration::from_millis(30)), 2);
    assert_eq!(deadline.stopped, Some(StopReason::Deadline));

    let cap = langford(16, Run::new(RunSpec::default()).max_units(50_000), 2);
    assert_eq!(cap.stopped, Some(StopReason::WorkCap));
    assert!(cap.stats.work_units() >= 50_000);

    let polled = langford(16, Run::new(RunSpec::default()).stop_when(|| Some(StopReason::Signal)), 2);
    assert_eq!(polled.stopped, Some(StopReason::Signal));

    // A handle pulled by another thread while the run works.
    let handle = Limit::unbounded();
    let outcome = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(20));
            handle.stop();
        });
        langford(16, Run::new(RunSpec::default()).stop_handle(&handle), 2)
    });
    assert_eq!(outcome.stopped, Some(StopReason::Requested));

    // A polled condition that turns true later.
    let flag = AtomicBool::new(false);
    let outcome = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(20));
            flag.store(true, Ordering::SeqCst);
        });
        let run = Run::new(RunSpec::default())
            .stop_when(|| flag.load(Ordering::SeqCst).then_some(StopReason::Signal));
        langford(16, run, 2)
    });
    assert_eq!(outcome.stopped, Some(StopReason::Signal));
}

#[test]
fn the_observer_sees_the_work_grow() {
    let mut seen = Vec::new();
    let outcome = langford(
        12,
        Run::new(RunSpec::default()).observe(Duration::from_millis(1), |s| seen.push(s.work_units)),
        2,
    );
    assert_eq!(Langford::pairings(outcome.output), 108_144);
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
    assert!(seen.iter().all(|&u| u <= outcome.stats.work_units()));
}

#[test]
fn a_checkpointed_run_stopped_and_resumed_gives_the_exact_count() {
    let total = langford(11, Run::new(RunSpec::default()), 1).stats.work_units();
    let dir = scratch("resume");
    let path = dir.join("langford.ckpt");
    // Stopped at about half the work, with a checkpoint every millisecond
    // before that.
    let first = {
        let path = path.clone();
        let run = Run::new(RunSpec::default())
            .max_units(total / 2)
            .checkpoint(move || Checkpoint::create(path)?.every(Duration::from_millis(1)));
        langford(11, run, 2)
    };
    assert_eq!(first.stopped, Some(StopReason::WorkCap));
    assert!(first.checkpoints >= 1, "no checkpoint was written before the cap");
    assert!(Langford::pairings(first.output) < L11);

    let resumed = {
        let path = path.clone();
        langford(11, Run::new(RunSpec::default()).checkpoint(move || Checkpoint::resume(path)), 3)
    };
    assert_eq!(resumed.stopped, None);
    assert_eq!(Langford::pairings(resumed.output), L11);
    assert!(resumed.checkpoints > first.checkpoints.min(1));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_existing_file_is_not_a_new_checkpoint() {
    let dir = scratch("refuse");
    let path = dir.join("victim");
    std::fs::write(&path, "VICTIM ORIGINAL CONTENT").unwrap();
    let run = {
        let path = path.clone();
        Run::new(RunSpec::default()).checkpoint(move || Checkpoint::create(path))
    };
    let err = run.run_search(Pes::Threads(2), &Langford::new(7), SplitPolicy::OldestHalf).err();
    assert!(matches!(err, Some(treelb_run::Error::Checkpoint(_))), "{err:?}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "VICTIM ORIGINAL CONTENT");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_branch_and_bound_proves_its_optimum_or_brackets_it() {
    let instance = Spec::new(Class::StronglyCorrelated, 80, 10_000, 2).generate();
    let optimum = instance.dp_optimum(1 << 24).expect("a small capacity");

    let search = Knapsack::new(&instance);
    let done = Run::new(RunSpec::default())
        .run_bnb(Pes::Threads(2), &search, SplitPolicy::OldestHalf, &search.incumbent)
        .unwrap()
        .unwrap();
    assert_eq!(done.stopped, None);
    let proof = done.bound.expect("a branch and bound's outcome has its proof");
    assert!(proof.proven_optimal);
    assert_eq!(search.incumbent.best(), Some(optimum));

    // Stopped after a few slices: the best found is no better than the
    // optimum, and the proven bound no worse.
    let search = Knapsack::new(&instance);
    let stopped = Run::new(RunSpec::default())
        .max_units(200)
        .run_bnb(Pes::Threads(2), &search, SplitPolicy::OldestHalf, &search.incumbent)
        .unwrap()
        .unwrap();
    assert_eq!(stopped.stopped, Some(StopReason::WorkCap));
    assert_brackets(stopped.bound.unwrap(), &search, optimum);
}

/// The proof of a stopped knapsack run brackets its `optimum`: the best
/// found is no better, the proven bound no worse, and the value is proven
/// optimal exactly when the two meet.
fn assert_brackets(proof: ProvenBound, search: &Knapsack, optimum: i64) {
    let best = search.incumbent.best().unwrap_or(i64::MIN);
    assert!(best <= optimum);
    let bound = proof.bound.expect("every open node of a knapsack has a bound");
    assert!(bound >= optimum, "bound {bound} below the optimum {optimum}");
    assert_eq!(proof.proven_optimal, best == bound);
}

#[test]
fn a_checkpointed_branch_and_bound_resumes_to_the_optimum() {
    let instance = Spec::new(Class::StronglyCorrelated, 80, 10_000, 2).generate();
    let optimum = instance.dp_optimum(1 << 24).expect("a small capacity");
    let dir = scratch("bnb");
    let path = dir.join("knapsack.ckpt");
    let search = Knapsack::new(&instance);
    let total = Run::new(RunSpec::default())
        .run_bnb(Pes::Threads(1), &search, SplitPolicy::OldestHalf, &search.incumbent)
        .unwrap()
        .unwrap()
        .stats
        .work_units();
    let search = Knapsack::new(&instance);
    let first = {
        let path = path.clone();
        Run::new(RunSpec::default())
            .max_units(total / 2)
            .checkpoint(move || Checkpoint::create(path)?.every(Duration::from_millis(1)))
            .run_bnb(Pes::Threads(2), &search, SplitPolicy::OldestHalf, &search.incumbent)
            .unwrap()
            .unwrap()
    };
    assert_eq!(first.stopped, Some(StopReason::WorkCap));
    assert!(first.checkpoints >= 1, "no checkpoint was written before the cap");
    // A stopped checkpointed run brackets the optimum as one without
    // checkpoints does: its pieces were watched across the segments.
    assert_brackets(first.bound.unwrap(), &search, optimum);
    {
        let search = Knapsack::new(&instance);
        let resumed = Run::new(RunSpec::default())
            .checkpoint(move || Checkpoint::resume(path))
            .run_bnb(Pes::Threads(2), &search, SplitPolicy::OldestHalf, &search.incumbent)
            .unwrap()
            .unwrap();
        assert_eq!(resumed.stopped, None);
        assert!(resumed.bound.unwrap().proven_optimal);
        assert_eq!(search.incumbent.best(), Some(optimum));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
