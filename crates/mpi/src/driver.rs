//! The MPI driver: set-up, the PE loop (`003_…` Figure 1), the drain, the
//! gathering of results.
//!
//! ## PEs, ranks and threads
//! A run has `R` ranks of `T` threads; each thread is one PE with global
//! index `g = rank · T + thread`, and everything in Sanders' model —
//! requests, answers, the four-counter detector — is per PE. Each thread
//! receives on its own communicator (a duplicate of the world made at
//! start-up): a message for thread `t` of any rank travels on communicator
//! `t`, and its tag says which thread of the source rank sent it (`kind +
//! 8 · thread`). So a thread probes only for its own messages, and threads
//! never share a receive queue. With `T = 1` (the default) this is plain
//! one-PE-per-rank MPI.
//!
//! Hybrid mode (`T > 1`, which needs `MPI_THREAD_MULTIPLE`): an idle thread
//! asks a random thread of its own rank while any thread of the rank holds
//! work (a counter per rank says how many do), and a random remote rank
//! (chosen by the strategy) once all its rank's threads are idle — the
//! two-level hierarchy of `001_…`. Local requests travel through MPI too
//! (Open MPI's shared-memory and self transports), so one detector covers
//! both levels.
//!
//! ## Branch and bound
//! With shared state (an incumbent, [`crate::shared`]) a PE checks the
//! incumbent's version after every slice and sends an improvement to thread
//! 0 of every other rank (kind `IMPROVE`); thread 0 offers what it receives
//! to the rank's incumbent. A decision search that is decided stops every
//! PE's work; the drain then also waits for every improvement sent.

use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use mpi::Threading;
use mpi::environment::Universe;
use mpi::ffi::MPI_Comm;
use mpi::point_to_point::{Destination, MatchedReceiveVec, Source};
use mpi::raw::{AsRaw, FromRaw};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::{CommunicatorCollectives, Root};
use serde::Serialize;
use serde::de::DeserializeOwned;
use treelb::strategy::VictimSelector;
use treelb::termination::{FourCounter, Signal};
use treelb::{Init, PeStats, Reduce, RunStats, Strategy, Work};

use crate::backoff::{Backoff, Patience};
use crate::counter::SharedCounter;
use crate::outbox::Outbox;
use crate::shared::{Shared, rank_shares};
use crate::wire::{self, Codec, RankReport, WireStats};
use crate::{Config, Error, Outcome, ProbeCost};

/// Message kinds; the tag is `kind + KINDS · source thread`.
const REQUEST: i32 = 1;
const WORK: i32 = 2;
const NO_WORK: i32 = 3;
const SIGNAL: i32 = 4;
/// A better incumbent (not work: the detector does not count it).
const IMPROVE: i32 = 5;
/// Never sent: the probe-cost measurement looks for it.
const UNUSED: i32 = 7;
const KINDS: i32 = 8;
/// Tag of the final reports to rank 0 (on the world communicator).
const REPORT: i32 = 100;

/// Probes timed at start-up to measure the cost of one probe.
const PROBE_SAMPLES: u32 = 4000;

/// MPI, initialized once for the process; finalized when dropped.
pub struct Mpi {
    universe: Universe,
    threading: Threading,
}

fn threading_name(t: Threading) -> &'static str {
    match t {
        Threading::Single => "MPI_THREAD_SINGLE",
        Threading::Funneled => "MPI_THREAD_FUNNELED",
        Threading::Serialized => "MPI_THREAD_SERIALIZED",
        Threading::Multiple => "MPI_THREAD_MULTIPLE",
    }
}

fn threading_level(t: Threading) -> u8 {
    match t {
        Threading::Single => 0,
        Threading::Funneled => 1,
        Threading::Serialized => 2,
        Threading::Multiple => 3,
    }
}

impl Mpi {
    /// Initializes MPI for runs with `threads` PEs per rank: single-threaded
    /// MPI use for 1, `MPI_THREAD_MULTIPLE` for more (checked: a library
    /// that provides less is an error, before any work starts).
    pub fn init(threads: usize) -> Result<Mpi, Error> {
        // Open MPI makes every probe that finds nothing yield the processor
        // when ranks outnumber cores (`--oversubscribe`). A busy PE probes
        // every Δt, and on a loaded machine each yield hands its core away:
        // runs took 10× longer. Idle PEs back off on their own (`backoff`),
        // so switch that off unless the user chose otherwise.
        const YIELD: &str = "OMPI_MCA_mpi_yield_when_idle";
        if std::env::var_os(YIELD).is_none() {
            // SAFETY: MPI is not initialized yet and treelb starts no
            // threads before it: nothing reads the environment concurrently.
            unsafe { std::env::set_var(YIELD, "0") };
        }
        let required = if threads > 1 { Threading::Multiple } else { Threading::Funneled };
        let (universe, provided) =
            mpi::initialize_with_threading(required).ok_or(Error::AlreadyInitialized)?;
        if threading_level(provided) < threading_level(required) {
            return Err(Error::ThreadSupport {
                required: threading_name(required),
                provided: threading_name(provided),
            });
        }
        Ok(Mpi { universe, threading: provided })
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.universe.world().rank() as usize
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        self.universe.world().size() as usize
    }

    /// The thread support MPI provides, by its MPI name.
    pub fn thread_support(&self) -> &'static str {
        threading_name(self.threading)
    }
}

/// Raw handles of the per-thread communicators, shareable between threads.
struct RawComms(Vec<MPI_Comm>);

// SAFETY: a communicator handle is an opaque pointer that MPI lets any
// thread use under MPI_THREAD_MULTIPLE (required for more than one thread
// per rank); with one thread only the main thread uses them.
unsafe impl Sync for RawComms {}
// SAFETY: as above.
unsafe impl Send for RawComms {}

/// What the threads of one rank share.
struct RankShared {
    /// Threads of this rank that hold work.
    busy: AtomicUsize,
    /// Threads whose last request has been answered after termination.
    replied: AtomicUsize,
    /// The final barrier completed: no message is in flight anywhere.
    drained: AtomicBool,
    /// The best key every rank has been sent or has sent this rank
    /// (`i64::MIN`: none); improvements not better than it are not sent.
    known: AtomicI64,
    /// Improvements sent by this rank's PEs, per destination rank.
    improvements_sent: Vec<AtomicU64>,
}

/// Everything a PE needs to know about the run.
struct Ctx<'a, C> {
    codec: &'a C,
    /// The state the ranks keep in step, if any (and more than one rank).
    state: Option<&'a dyn Shared>,
    config: &'a Config,
    rank: usize,
    ranks: usize,
    threads: usize,
    comms: RawComms,
    counter: Option<SharedCounter>,
    shared: RankShared,
}

/// What one PE hands back.
struct PeResult<O> {
    output: O,
    stats: PeStats,
    probes: u64,
    waves: u64,
}

/// The output type of a codec's work.
type Out<C> = <<C as Codec>::Work as Work>::Output;

/// Runs the computation on all ranks of `mpi` (every rank calls it) and
/// returns the outcome on rank 0, `None` elsewhere.
///
/// Every rank passes a `root`; only rank 0's is used (it is sent to the
/// others by broadcast for selective initialization).
pub fn run<C>(mpi: &Mpi, codec: &C, root: C::Work, config: &Config) -> Result<Option<Outcome<Out<C>>>, Error>
where
    C: Codec,
    C::Work: Clone,
    Out<C>: Serialize + DeserializeOwned,
{
    config.validate()?;
    if config.threads > 1 && mpi.threading != Threading::Multiple {
        return Err(Error::ThreadSupport { required: "MPI_THREAD_MULTIPLE", provided: mpi.thread_support() });
    }
    let world = mpi.universe.world();
    let rank = world.rank() as usize;
    let ranks = world.size() as usize;
    let threads = config.threads;

    // The root reaches the PEs: at PE 0, or by broadcast for selective
    // initialization (every PE then splits its own copy).
    let shared = codec.shared().filter(|_| ranks > 1);
    let (first_piece, broadcast) = match config.init {
        Init::Root => ((rank == 0).then_some(root), None),
        Init::Selective => {
            let mut bytes = Vec::new();
            if rank == 0 {
                codec.encode(root, &mut bytes);
            }
            let mut len = bytes.len() as u64;
            world.process_at_rank(0).broadcast_into(&mut len);
            bytes.resize(len as usize, 0);
            world.process_at_rank(0).broadcast_into(&mut bytes[..]);
            let root = codec.decode(&bytes).map_err(|e| Error::Decode(e.to_string()))?;
            // Cut here, before any PE works and before any message is
            // received, so that every rank cuts the same tree (see
            // `crate::shared`).
            (None, Some(rank_shares(codec, &root, rank, threads, ranks)))
        }
    };
    // What every rank has: the state the search was built with, changed by
    // the cut in the same way on every rank.
    let initial_key = codec.shared().and_then(Shared::key).unwrap_or(i64::MIN);

    let comms: Vec<SimpleCommunicator> = (0..threads).map(|_| world.duplicate()).collect();
    let counter =
        (config.strategy == Strategy::GlobalRoundRobin && ranks > 1).then(|| SharedCounter::new(&world));
    let ctx = Ctx {
        codec,
        state: shared,
        config,
        rank,
        ranks,
        threads,
        comms: RawComms(comms.iter().map(AsRaw::as_raw).collect()),
        counter,
        shared: RankShared {
            busy: AtomicUsize::new(0),
            replied: AtomicUsize::new(0),
            drained: AtomicBool::new(false),
            known: AtomicI64::new(initial_key),
            improvements_sent: (0..ranks).map(|_| AtomicU64::new(0)).collect(),
        },
    };
    let probe_nanos = measure_probe(&comms[0]);

    world.barrier();
    let start = Instant::now();
    // Each thread's start: its piece, and the output and units of the work
    // done to cut it.
    let mut starts: Vec<Start<C::Work>> = match broadcast {
        Some(shares) => shares.into_iter().map(|s| (s.piece, s.output, s.units)).collect(),
        None => (0..threads).map(|_| (None, Out::<C>::default(), 0)).collect(),
    };
    if let Some(piece) = first_piece {
        starts[0].0 = Some(piece);
    }
    let mut starts = starts.into_iter();
    let first = starts.next().expect("at least one thread");
    let results: Vec<PeResult<Out<C>>> = thread::scope(|scope| {
        let ctx = &ctx;
        let handles: Vec<_> = (1..threads)
            .zip(starts)
            .map(|(t, start)| {
                thread::Builder::new()
                    .name(format!("treelb-rank{rank}-t{t}"))
                    .spawn_scoped(scope, move || pe_main(ctx, t, start, None))
                    .expect("failed to spawn a PE thread")
            })
            .collect();
        let mut all = vec![pe_main(ctx, 0, first, Some(&world))];
        all.extend(handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))));
        all
    });
    let wall = start.elapsed();
    let mut output = Out::<C>::default();
    let mut pes = Vec::with_capacity(threads);
    let mut probes = 0;
    let mut waves = 0;
    for r in results {
        output.merge(r.output);
        pes.push(WireStats::from(&r.stats));
        probes += r.probes;
        waves = waves.max(r.waves);
    }

    // Results to rank 0. The barrier of the drain guarantees that nothing
    // else is in flight, so plain blocking messages cannot meet stray ones.
    // With shared state, each rank's best goes along and rank 0 offers them
    // all: the answer does not rely on the broadcasts.
    let best = codec.shared().and_then(|s| {
        let mut bytes = Vec::new();
        s.encode(&mut bytes).map(|_| bytes)
    });
    let improvements = ctx.shared.improvements_sent.iter().map(|n| n.load(Ordering::Relaxed)).sum();
    let report = RankReport { output, pes, waves, probes, improvements, best };
    let outcome = if rank == 0 {
        let RankReport { mut output, pes, waves, mut probes, mut improvements, .. } = report;
        let mut by_rank: Vec<Option<Vec<WireStats>>> = vec![None; ranks];
        by_rank[0] = Some(pes);
        for _ in 1..ranks {
            let (bytes, status) =
                world.any_process().matched_probe_with_tag(REPORT).matched_receive_vec::<u8>();
            let r: RankReport<Out<C>> = wire::from_bytes(&bytes).map_err(|e| Error::Decode(e.to_string()))?;
            output.merge(r.output);
            probes += r.probes;
            improvements += r.improvements;
            if let (Some(shared), Some(best)) = (codec.shared(), r.best) {
                shared.apply(&best).map_err(|e| Error::Decode(e.to_string()))?;
            }
            by_rank[status.source_rank() as usize] = Some(r.pes);
        }
        let pes = by_rank.into_iter().flatten().flatten().map(PeStats::from).collect();
        Some(Outcome {
            output,
            stats: RunStats { wall, pes },
            ranks,
            threads,
            probe: ProbeCost { nanos: probe_nanos, probes },
            waves,
            improvements,
        })
    } else {
        world.process_at_rank(0).send_with_tag(&wire::to_bytes(&report)[..], REPORT);
        None
    };
    if let Some(counter) = ctx.counter {
        counter.free();
    }
    drop(comms);
    Ok(outcome)
}

/// Mean time of a probe that finds nothing.
fn measure_probe(comm: &SimpleCommunicator) -> f64 {
    let start = Instant::now();
    for _ in 0..PROBE_SAMPLES {
        let found = comm.any_process().immediate_matched_probe_with_tag(UNUSED);
        debug_assert!(found.is_none());
    }
    start.elapsed().as_nanos() as f64 / f64::from(PROBE_SAMPLES)
}

/// A PE's start: its first piece, and the output and work units of cutting
/// it (selective initialization).
type Start<W> = (Option<W>, <W as Work>::Output, u64);

/// The body of PE thread `t` of this rank.
fn pe_main<C>(
    ctx: &Ctx<'_, C>,
    t: usize,
    (piece, output, units): Start<C::Work>,
    world: Option<&SimpleCommunicator>,
) -> PeResult<Out<C>>
where
    C: Codec,
    C::Work: Clone,
{
    let comms: Vec<ManuallyDrop<SimpleCommunicator>> = ctx
        .comms
        .0
        .iter()
        // SAFETY: the handles are live communicators, duplicated by `run`
        // before the PEs start and freed by it after they end; ManuallyDrop
        // keeps these views from freeing them.
        .map(|&raw| ManuallyDrop::new(unsafe { SimpleCommunicator::from_raw(raw) }))
        .collect();
    let g = ctx.rank * ctx.threads + t;
    let p = ctx.ranks * ctx.threads;
    let seed = ctx.config.seed;
    let mut pe = Pe {
        ctx,
        t,
        g,
        comms,
        fc: FourCounter::new(g, p),
        outbox: Outbox::new(),
        remote: VictimSelector::new(ctx.config.strategy, ctx.rank, ctx.ranks, seed ^ (t as u64) << 32),
        local: VictimSelector::new(
            Strategy::RandomPolling,
            t,
            ctx.threads,
            seed ^ 0xA5A5 ^ (ctx.rank as u64) << 20,
        ),
        acc: output,
        stats: PeStats { pe: g, work_units: units, ..PeStats::default() },
        probes: 0,
        pending: None,
        since: Instant::now(),
        scratch: Vec::new(),
        seen: 0,
        improvements: 0,
    };
    pe.run(piece, world);
    PeResult { output: pe.acc, stats: pe.stats, probes: pe.probes, waves: pe.fc.wave() }
}

/// What a round of polling found.
struct Polled<W> {
    /// A piece of work arrived (only while idle).
    work: Option<W>,
    /// Anything at all arrived.
    activity: bool,
}

/// One PE: its detector, sends in flight, counters and output.
struct Pe<'a, C: Codec> {
    ctx: &'a Ctx<'a, C>,
    t: usize,
    g: usize,
    comms: Vec<ManuallyDrop<SimpleCommunicator>>,
    fc: FourCounter,
    outbox: Outbox,
    /// Whom to ask among the ranks (the run's strategy).
    remote: VictimSelector,
    /// Whom to ask among the rank's own threads (hybrid mode).
    local: VictimSelector,
    acc: Out<C>,
    stats: PeStats,
    probes: u64,
    /// The PE this PE asked for work and has no answer from yet.
    pending: Option<usize>,
    since: Instant,
    scratch: Vec<u8>,
    /// The version of the shared state this PE last looked at.
    seen: u64,
    /// Improvements received (thread 0 only).
    improvements: u64,
}

/// Starts a non-blocking send from thread `me_t` to PE `to` (global index).
fn send_to(
    outbox: &mut Outbox,
    comms: &[ManuallyDrop<SimpleCommunicator>],
    threads: usize,
    me_t: usize,
    to: usize,
    kind: i32,
    bytes: Vec<u8>,
) {
    let tag = kind + KINDS * me_t as i32;
    outbox.send(&comms[to % threads], to / threads, tag, bytes);
}

impl<C> Pe<'_, C>
where
    C: Codec,
{
    /// Figure 1: work while there is work, look for work while there is
    /// none, until the detector announces termination; then drain.
    fn run(&mut self, mut piece: Option<C::Work>, world: Option<&SimpleCommunicator>) {
        self.since = Instant::now();
        // Cutting the initial shares may have improved the incumbent.
        self.share();
        loop {
            if let Some(work) = piece.take() {
                self.work_on(work);
                let lap = self.lap();
                self.stats.busy += lap;
            }
            let found = self.find_work();
            let lap = self.lap();
            self.stats.idle += lap;
            match found {
                Some(work) => piece = Some(work),
                None => break,
            }
        }
        self.drain(world);
        let lap = self.lap();
        self.stats.idle += lap;
    }

    fn lap(&mut self) -> Duration {
        let now = Instant::now();
        let d = now - self.since;
        self.since = now;
        d
    }

    /// Busy phase: slices of Δt units, a probe after each.
    fn work_on(&mut self, mut work: C::Work) {
        let budget = self.ctx.config.budget;
        let slow = self.ctx.config.slow.filter(|s| s.rank == self.ctx.rank).map(|s| s.pause);
        self.ctx.shared.busy.fetch_add(1, Ordering::Relaxed);
        loop {
            let progress = work.work(budget, &mut self.acc);
            self.stats.work_units += progress.used(budget);
            self.share();
            if progress.is_exhausted() || work.should_stop() {
                // Exhausted, or the computation is decided: the rest of the
                // piece is dropped, requests get "no work" from now on.
                break;
            }
            if let Some(pause) = slow {
                thread::sleep(pause);
            }
            let polled = self.poll(Some(&mut work));
            debug_assert!(polled.work.is_none(), "work arrived at a busy PE");
            self.outbox.progress();
        }
        self.ctx.shared.busy.fetch_sub(1, Ordering::Relaxed);
    }

    /// Sends an improvement of the shared state, if there is one the other
    /// ranks may not have: a relaxed load when nothing changed.
    fn share(&mut self) {
        let Some(shared) = self.ctx.state else { return };
        let version = shared.version();
        if version == self.seen {
            return;
        }
        let mut bytes = Vec::new();
        let Some(key) = shared.encode(&mut bytes) else {
            return; // a witness is being stored: look again after the next slice
        };
        self.seen = version;
        let known = &self.ctx.shared.known;
        if known.fetch_max(key, Ordering::AcqRel) >= key {
            return;
        }
        let threads = self.ctx.threads;
        for rank in (0..self.ctx.ranks).filter(|&r| r != self.ctx.rank) {
            // Counted before it is sent: the drain waits for every one.
            self.ctx.shared.improvements_sent[rank].fetch_add(1, Ordering::Relaxed);
            self.send(rank * threads, IMPROVE, bytes.clone());
        }
    }

    /// Receives every message that is there; answers requests from
    /// `piece` (or with "no work").
    fn poll(&mut self, mut piece: Option<&mut C::Work>) -> Polled<C::Work> {
        let mut polled = Polled { work: None, activity: false };
        let threads = self.ctx.threads;
        loop {
            self.probes += 1;
            let Some(probed) = self.comms[self.t].any_process().immediate_matched_probe() else {
                return polled;
            };
            polled.activity = true;
            let (bytes, status) = probed.matched_receive_vec::<u8>();
            let tag = status.tag();
            let from = status.source_rank() as usize * threads + (tag / KINDS) as usize;
            match tag % KINDS {
                REQUEST => {
                    self.stats.requests_received += 1;
                    // A decided computation gives nothing away.
                    let part = if self.ctx.codec.should_stop() {
                        None
                    } else {
                        piece.as_deref_mut().and_then(Work::split)
                    };
                    match part {
                        Some(part) => {
                            self.stats.splits += 1;
                            self.stats.pieces_sent += 1;
                            // Counted before it can arrive: see treelb::termination.
                            self.fc.work_sent();
                            let mut buf = std::mem::take(&mut self.scratch);
                            buf.clear();
                            self.ctx.codec.encode(part, &mut buf);
                            self.send(from, WORK, buf);
                        }
                        None => self.send(from, NO_WORK, Vec::new()),
                    }
                }
                WORK => {
                    debug_assert_eq!(self.pending, Some(from));
                    self.pending = None;
                    self.fc.work_received();
                    self.stats.pieces_received += 1;
                    let work = self.ctx.codec.decode(&bytes).unwrap_or_else(|e| panic!("PE {}: {e}", self.g));
                    polled.work = Some(work);
                    return polled;
                }
                NO_WORK => {
                    debug_assert_eq!(self.pending, Some(from));
                    self.pending = None;
                    self.stats.requests_failed += 1;
                }
                SIGNAL => {
                    let signal: Signal = wire::from_bytes(&bytes)
                        .unwrap_or_else(|e| panic!("PE {}: termination signal: {e}", self.g));
                    let (outbox, comms, t) = (&mut self.outbox, &self.comms, self.t);
                    self.fc.on_signal(from, signal, &mut |to, s| {
                        send_to(outbox, comms, threads, t, to, SIGNAL, wire::to_bytes(&s));
                    });
                }
                IMPROVE => {
                    let shared = self
                        .ctx
                        .state
                        .unwrap_or_else(|| panic!("PE {}: an improvement without shared state", self.g));
                    self.improvements += 1;
                    let key = shared
                        .apply(&bytes)
                        .unwrap_or_else(|e| panic!("PE {}: improvement from PE {from}: {e}", self.g));
                    // Its sender sent it to every rank.
                    self.ctx.shared.known.fetch_max(key, Ordering::AcqRel);
                }
                kind => panic!("PE {}: message of unknown kind {kind} from PE {from}", self.g),
            }
        }
    }

    fn send(&mut self, to: usize, kind: i32, bytes: Vec<u8>) {
        send_to(&mut self.outbox, &self.comms, self.ctx.threads, self.t, to, kind, bytes);
    }

    /// Runs the detector (the PE is idle).
    fn detect(&mut self) {
        let (outbox, comms, t, threads) = (&mut self.outbox, &self.comms, self.t, self.ctx.threads);
        self.fc.idle(&mut |to, s| send_to(outbox, comms, threads, t, to, SIGNAL, wire::to_bytes(&s)));
    }

    /// Idle phase: one request at a time to a PE chosen by the strategy,
    /// answering others with "no work", until work arrives (`Some`) or the
    /// detector announces termination (`None`).
    fn find_work(&mut self) -> Option<C::Work> {
        // Between requests: escalates over the whole idle phase, so a PE
        // that keeps hearing "no work" ends up sleeping. Waiting for an
        // answer: restarts with every request and yields rather than sleeps.
        let mut between = Backoff::new();
        let mut answer = Backoff::with(Patience::Reply);
        loop {
            let failed_before = self.stats.requests_failed;
            let polled = self.poll(None);
            let stopped = self.ctx.codec.should_stop();
            match polled.work {
                // Received (and so counted by the detector), then dropped.
                Some(_) if stopped => {}
                Some(work) => return Some(work),
                None => {}
            }
            self.detect();
            if self.fc.is_terminated() {
                return None;
            }
            if self.stats.requests_failed > failed_before {
                between.wait();
            }
            if stopped {
                // Decided: ask nobody, wait for the detector.
                if !polled.activity {
                    between.wait();
                }
            } else if self.pending.is_none() {
                match self.next_victim() {
                    Some(victim) => {
                        self.pending = Some(victim);
                        self.stats.requests_sent += 1;
                        self.send(victim, REQUEST, Vec::new());
                        answer = Backoff::with(Patience::Reply);
                    }
                    None => between.wait(),
                }
            } else if !polled.activity {
                answer.wait();
            }
            self.outbox.progress();
        }
    }

    /// Whom to ask: a thread of this rank while any holds work (hybrid),
    /// otherwise a remote rank chosen by the strategy.
    fn next_victim(&mut self) -> Option<usize> {
        let ctx = self.ctx;
        let threads = ctx.threads;
        if threads > 1 && (ctx.shared.busy.load(Ordering::Relaxed) > 0 || ctx.ranks == 1) {
            return self.local.next_victim().map(|t| ctx.rank * threads + t);
        }
        let rank = match &ctx.counter {
            Some(counter) => loop {
                if let Some(r) = self.remote.victim_from_ticket(counter.next_ticket()) {
                    break r;
                }
            },
            None => self.remote.next_victim()?,
        };
        // Any thread of the chosen rank; spread by a hash of (PE, request).
        let thread = (mix(self.g as u64 ^ self.stats.requests_sent << 24) % threads as u64) as usize;
        Some(rank * threads + thread)
    }

    /// After termination: get the answer to the last request, then wait in
    /// a non-blocking barrier of all ranks, answering every request with "no
    /// work" meanwhile; finally let every send complete.
    fn drain(&mut self, world: Option<&SimpleCommunicator>) {
        let mut backoff = Backoff::new();
        while self.pending.is_some() {
            let polled = self.poll(None);
            assert!(polled.work.is_none(), "PE {}: work arrived after termination", self.g);
            if !polled.activity {
                backoff.wait();
            }
        }
        let shared = &self.ctx.shared;
        shared.replied.fetch_add(1, Ordering::AcqRel);
        if let Some(world) = world {
            // Thread 0: once every thread of this rank has its answer, join
            // the barrier of all ranks.
            while shared.replied.load(Ordering::Acquire) < self.ctx.threads {
                if !self.poll(None).activity {
                    backoff.wait();
                }
            }
            if self.ctx.state.is_some() {
                self.drain_improvements(world, &mut backoff);
            } else {
                let mut barrier = world.immediate_barrier();
                loop {
                    match barrier.test() {
                        Ok(_) => break,
                        Err(pending) => barrier = pending,
                    }
                    if !self.poll(None).activity {
                        self.outbox.progress();
                        backoff.wait();
                    }
                }
            }
            shared.drained.store(true, Ordering::Release);
        } else {
            while !shared.drained.load(Ordering::Acquire) {
                if !self.poll(None).activity {
                    self.outbox.progress();
                    backoff.wait();
                }
            }
        }
        while !self.outbox.is_empty() {
            self.outbox.progress();
            backoff.wait();
        }
    }
}

impl<C: Codec> Pe<'_, C> {
    /// Thread 0, after termination, with shared state: instead of the
    /// barrier, a non-blocking all-to-all of the numbers of improvements
    /// each rank sent to each other one. It completes only once every rank
    /// has entered it (as the barrier would); nobody works after
    /// termination, so the numbers are final. Then thread 0 receives until
    /// it has every improvement sent to its rank, answering requests with
    /// "no work" meanwhile.
    fn drain_improvements(&mut self, world: &SimpleCommunicator, backoff: &mut Backoff) {
        let sent: Vec<u64> =
            self.ctx.shared.improvements_sent.iter().map(|n| n.load(Ordering::Acquire)).collect();
        let mut incoming = vec![0u64; self.ctx.ranks];
        mpi::request::scope(|scope| {
            let mut exchange = world.immediate_all_to_all_into(scope, &sent[..], &mut incoming[..]);
            loop {
                match exchange.test() {
                    Ok(_) => break,
                    Err(pending) => exchange = pending,
                }
                if !self.poll(None).activity {
                    self.outbox.progress();
                    backoff.wait();
                }
            }
        });
        let expected: u64 = incoming.iter().sum();
        while self.improvements < expected {
            if !self.poll(None).activity {
                self.outbox.progress();
                backoff.wait();
            }
        }
    }
}

/// SplitMix64's finalizer: a well-mixed hash of a counter.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
