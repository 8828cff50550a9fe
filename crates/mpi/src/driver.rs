//! The MPI driver: set-up, the PEs, the gathering of results. The PE loop
//! itself ([Sanders 1999] Figure 1, driving a strategy machine) is in `pe.rs`.
//!
//! ## PEs, ranks and threads
//! A run has `R` ranks of `T` threads; each thread is one PE with global
//! index `g = rank · T + thread`, and everything in Sanders' model —
//! requests, answers, the four-counter detector — is per PE. Each thread
//! receives on its own communicator (a duplicate of the world made at
//! start-up): a message for thread `t` of any rank travels on communicator
//! `t`, and its tag says which thread of the source rank sent it (`kind +
//! KINDS · thread`). So a thread probes only for its own messages, and
//! threads never share a receive queue. With `T = 1` (the default) this is
//! plain one-PE-per-rank MPI.
//!
//! Hybrid mode (`T > 1`, which needs `MPI_THREAD_MULTIPLE`): the PEs of one
//! rank form a *group* of the strategy machines
//! (`treelb::RunSpec::grouped_machine`); under the stealing strategies an
//! idle thread asks a random thread of its own rank while any thread of the
//! rank holds work (a counter per rank says how many do), and a thread of
//! another rank chosen by the strategy once all its rank's threads are idle
//! — the two-level hierarchy of [Kimura & Ichiyoshi 1992]. Local messages travel through MPI
//! too (Open MPI's shared-memory and self transports), so one detector
//! covers both levels.
//!
//! ## The hub
//! Global round robin's counter is an MPI window at rank 0, incremented by
//! one-sided `MPI_Fetch_and_op`: the hub's counter without the hub. The
//! other hubs — max-load's heap of reported loads, master–worker's central
//! pool — live at PE 0 (thread 0 of rank 0), which serves their messages at
//! its polls, busy or idle; PE 0's own messages to it are calls.
//!
//! ## Branch and bound
//! With shared state (an incumbent, [`crate::shared`]) a PE checks the
//! incumbent's version after every slice and sends an improvement to thread
//! 0 of every other rank (kind `IMPROVE`); thread 0 offers what it receives
//! to the rank's incumbent. A decision search that is decided stops every
//! PE's work.

use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize};
use std::thread;
use std::time::Instant;

use mpi::Threading;
use mpi::environment::Universe;
use mpi::ffi::MPI_Comm;
use mpi::point_to_point::{Destination, MatchedReceiveVec, Source};
use mpi::raw::{AsRaw, FromRaw};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::{CommunicatorCollectives, Root};
use serde::Serialize;
use serde::de::DeserializeOwned;
use treelb::bound::OpenBounds;
use treelb::spec::unpack;
use treelb::strategy::Decision;
use treelb::{PeStats, Reduce, RunStats, Work};

use treelb::backoff::{Patience, Waiter};

use crate::counter::SharedCounter;
use crate::shared::{Shared, rank_shares};
use crate::wire::{self, Codec, RankReport};
use crate::{Config, Error, Outcome, ProbeCost};

/// Message kinds; the tag is `kind + KINDS · source thread`.
pub(crate) mod kind {
    /// A request for work.
    pub(crate) const REQUEST: i32 = 1;
    /// An answer with a piece (work: the detector counts it).
    pub(crate) const WORK: i32 = 2;
    /// An answer without work.
    pub(crate) const NO_WORK: i32 = 3;
    /// A message of the termination detector.
    pub(crate) const SIGNAL: i32 = 4;
    /// A better incumbent (not work; one-way, counted for the drain).
    pub(crate) const IMPROVE: i32 = 5;
    /// A load query.
    pub(crate) const LOAD_QUERY: i32 = 6;
    /// The answer to a load query: the pieces held, a `u64`.
    pub(crate) const LOAD: i32 = 7;
    /// A piece pushed into the receiver's pool (work).
    pub(crate) const PUSH: i32 = 8;
    /// The hub's demand for a part (master–worker).
    pub(crate) const DEMAND: i32 = 9;
    /// The hub's answer to a look-up (max-load): an `Option<u64>`.
    pub(crate) const MOST_LOADED: i32 = 10;
    /// A piece handed out by the hub's central pool (work).
    pub(crate) const HAND: i32 = 11;
    /// To the hub: a load report, a `u64` (one-way, counted for the drain).
    pub(crate) const HUB_REPORT: i32 = 12;
    /// To the hub: the most loaded PE, please.
    pub(crate) const HUB_QUERY: i32 = 13;
    /// To the hub: a piece, please (one-way, counted for the drain).
    pub(crate) const HUB_ASK: i32 = 14;
    /// To the hub: a part for the central pool (work): its load as a
    /// postcard `u64`, then the piece.
    pub(crate) const HUB_DEPOSIT: i32 = 15;
    /// To the hub: no part (the answer to a demand).
    pub(crate) const HUB_NO_PART: i32 = 16;
    /// A note of the computation that may create work where it arrives (a
    /// game search's result): the detector counts it like work.
    pub(crate) const NOTE_COUNTED: i32 = 17;
    /// A note that creates no work (a game search's abort): one-way,
    /// counted for the drain.
    pub(crate) const NOTE_ONE_WAY: i32 = 18;
    /// Never sent: the probe-cost measurement looks for it.
    pub(crate) const UNUSED: i32 = 31;
    /// Kinds per thread in a tag.
    pub(crate) const KINDS: i32 = 32;
}

/// Tag of the final reports to rank 0 (on the world communicator).
const REPORT: i32 = 100;

/// Tag of [`Mpi::gather`]'s messages (on the world communicator).
const GATHER: i32 = 101;

/// Tag of [`Mpi::ping_pong`]'s messages (on the world communicator).
const PING: i32 = 102;

/// Tag of the clock-offset round trips of a traced run (on the world
/// communicator).
const CLOCK: i32 = 103;

/// Round trips per rank to measure its clock's offset from rank 0's.
const CLOCK_TRIPS: usize = 3;

/// Probes timed at start-up to measure the cost of one probe.
const PROBE_SAMPLES: u32 = 4000;

/// MPI, initialized once for the process; finalized when dropped.
pub struct Mpi {
    universe: Universe,
    threading: Threading,
    threads: usize,
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
        Ok(Mpi { universe, threading: provided, threads })
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.universe.world().rank() as usize
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        self.universe.world().size() as usize
    }

    /// The PEs per rank MPI was initialized for ([`Mpi::init`]).
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The thread support MPI provides, by its MPI name.
    pub fn thread_support(&self) -> &'static str {
        threading_name(self.threading)
    }

    /// Whether `flag` is true on any rank (every rank calls it; a
    /// collective, after a run).
    pub fn any(&self, flag: bool) -> bool {
        let world = self.universe.world();
        let mut any = 0u8;
        world.all_reduce_into(&u8::from(flag), &mut any, mpi::collective::SystemOperation::max());
        any != 0
    }

    /// The largest of the `value`s of all ranks (every rank calls it; a
    /// collective, after a run).
    pub fn max(&self, value: i64) -> i64 {
        let world = self.universe.world();
        let mut max = 0i64;
        world.all_reduce_into(&value, &mut max, mpi::collective::SystemOperation::max());
        max
    }

    /// Combines the bounds that every rank's dropped open nodes recorded in
    /// its `open` (a branch and bound stopped early): afterwards each
    /// rank's `open` holds the best bound of all (every rank calls it; a
    /// collective, after a run).
    pub fn merge_open(&self, open: &OpenBounds) {
        let (key, unbounded) = open.parts();
        open.set_parts(self.max(key), self.any(unbounded));
    }

    /// Ends MPI on this rank once nothing is in flight any more: by
    /// `MPI_Finalize`, except at rank 0 when `interrupted` (a signal is
    /// ending the job). Then mpirun may be ending it (a Ctrl-C to mpirun:
    /// it signals the ranks and kills them a second later), and
    /// `MPI_Finalize` would wait for it (its fence with the launcher never
    /// completes) until the kill, so rank 0's partial report would be
    /// lost: rank 0 ends without it. The other ranks, which print nothing,
    /// do finalize: if mpirun is ending the job they wait in the fence
    /// until it kills them, and if only the ranks were signalled (a batch
    /// system's SIGTERM) they wait there until rank 0 has printed its
    /// report and exited — so the first rank that mpirun sees end without
    /// finalizing is rank 0, and mpirun exits with rank 0's code. (A rank
    /// that left without finalizing first would make mpirun report a
    /// failure of its own, exit code 1, or end the job before rank 0's
    /// report.)
    pub fn finalize(self, interrupted: bool) {
        if interrupted && self.rank() == 0 {
            std::mem::forget(self);
        } else {
            drop(self);
        }
    }

    /// Gathers every rank's `bytes` at rank 0, in rank order (every rank
    /// calls it; a collective, between runs, when no other message is in
    /// flight). Rank 0 gets them all, the others `None`.
    pub fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
        let world = self.universe.world();
        if world.rank() != 0 {
            world.process_at_rank(0).send_with_tag(bytes, GATHER);
            return None;
        }
        let mut all = vec![bytes.to_vec()];
        for r in 1..world.size() {
            let (b, _) = world.process_at_rank(r).matched_probe_with_tag(GATHER).matched_receive_vec::<u8>();
            all.push(b);
        }
        Some(all)
    }

    /// Sends rank 0's `bytes` to every rank (every rank calls it; a
    /// collective, between runs): on return every rank holds rank 0's
    /// bytes. A rank that waits for rank 0 backs off as an idle PE does
    /// (spin, yield, then short sleeps), so that it answers within
    /// microseconds when rank 0 is quick and leaves the cores to it when
    /// it is not.
    pub fn broadcast(&self, bytes: &mut Vec<u8>) {
        let world = self.universe.world();
        let root = world.process_at_rank(0);
        let mut len = bytes.len() as u64;
        let mut backoff = Waiter::new(Patience::RETRY);
        mpi::request::scope(|scope| {
            let mut request = root.immediate_broadcast_into(scope, &mut len);
            loop {
                match request.test() {
                    Ok(_) => break,
                    Err(pending) => request = pending,
                }
                backoff.wait();
            }
        });
        bytes.resize(len as usize, 0);
        if len > 0 {
            mpi::request::scope(|scope| {
                let mut request = root.immediate_broadcast_into(scope, &mut bytes[..]);
                loop {
                    match request.test() {
                        Ok(_) => break,
                        Err(pending) => request = pending,
                    }
                    backoff.wait();
                }
            });
        }
    }

    /// Waits until every rank has called it, sleeping meanwhile (a
    /// non-blocking barrier tested every millisecond): ranks that wait for
    /// rank 0 to finish a sequential run leave it the cores, where a plain
    /// `MPI_Barrier` would spin.
    pub fn barrier(&self) {
        let world = self.universe.world();
        let mut barrier = world.immediate_barrier();
        loop {
            match barrier.test() {
                Ok(_) => return,
                Err(pending) => barrier = pending,
            }
            thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// Half the round trip of a one-word message between ranks 0 and 1,
    /// in nanoseconds, sent and received as the runtime's messages are
    /// (`MPI_Isend`, `MPI_Improbe` polled until it matches, `MPI_Mrecv`):
    /// the fastest of `batches` batches of `trips` round trips. Every rank
    /// calls it (when no other message is in flight); rank 0 gets the
    /// time, the others `None`. With one rank, `None`.
    pub fn ping_pong(&self, trips: u32, batches: u32) -> Option<f64> {
        self.ping_pong_words(trips, batches, 1)
    }

    /// [`ping_pong`](Self::ping_pong) with messages of `words` 8-byte
    /// words (at least 1): two sizes give the cost of a byte.
    pub fn ping_pong_words(&self, trips: u32, batches: u32, words: usize) -> Option<f64> {
        let world = self.universe.world();
        let rank = world.rank();
        if world.size() < 2 || rank > 1 {
            self.barrier();
            return None;
        }
        let other = world.process_at_rank(1 - rank);
        let word = vec![0u64; words.max(1)];
        let send = || {
            mpi::request::scope(|scope| {
                other.immediate_send_with_tag(scope, &word[..], PING).wait_without_status();
            })
        };
        let receive = || loop {
            if let Some(found) = other.immediate_matched_probe_with_tag(PING) {
                let _ = found.matched_receive_vec::<u64>();
                return;
            }
        };
        let mut best = f64::INFINITY;
        for _ in 0..batches {
            let start = Instant::now();
            for _ in 0..trips {
                if rank == 0 {
                    send();
                    receive();
                } else {
                    receive();
                    send();
                }
            }
            best = best.min(start.elapsed().as_secs_f64() * 1e9 / (2.0 * f64::from(trips.max(1))));
        }
        self.barrier();
        (rank == 0).then_some(best)
    }

    /// The mean time of one `MPI_Improbe` that finds nothing, over `n`
    /// probes, in nanoseconds, on rank 0 (`None` elsewhere). Every rank
    /// calls it, when no message is in flight.
    pub fn probe_ns(&self, n: u32) -> Option<f64> {
        let world = self.universe.world();
        let mut result = None;
        if world.rank() == 0 {
            let start = Instant::now();
            for _ in 0..n {
                let found = world.any_process().immediate_matched_probe_with_tag(PING);
                debug_assert!(found.is_none());
            }
            result = Some(start.elapsed().as_secs_f64() * 1e9 / f64::from(n.max(1)));
        }
        self.barrier();
        result
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
pub(crate) struct RankShared {
    /// Threads of this rank that hold work.
    pub(crate) busy: AtomicUsize,
    /// Threads that have every answer they are owed after termination.
    pub(crate) replied: AtomicUsize,
    /// The drain is over: no message is in flight anywhere.
    pub(crate) drained: AtomicBool,
    /// The best key every rank has been sent or has sent this rank
    /// (`i64::MIN`: none); improvements not better than it are not sent.
    pub(crate) known: AtomicI64,
    /// One-way messages (improvements, load reports, requests to the
    /// central pool) sent by this rank's PEs, per destination rank: the
    /// drain waits for every one.
    pub(crate) one_way_sent: Vec<AtomicU64>,
}

/// Everything a PE needs to know about the run.
pub(crate) struct Ctx<'a, C> {
    pub(crate) codec: &'a C,
    /// The state the ranks keep in step, if any (and more than one rank).
    pub(crate) state: Option<&'a dyn Shared>,
    pub(crate) config: &'a Config,
    pub(crate) rank: usize,
    pub(crate) ranks: usize,
    pub(crate) threads: usize,
    comms: RawComms,
    /// Global round robin: the ticket counter at rank 0.
    pub(crate) counter: Option<&'a SharedCounter>,
    pub(crate) shared: RankShared,
    /// When the run started on this rank (the clock of its trace).
    pub(crate) start: Instant,
}

impl<C> Ctx<'_, C> {
    /// The calling thread's views of the per-thread communicators.
    pub(crate) fn comms(&self) -> Vec<ManuallyDrop<SimpleCommunicator>> {
        self.comms
            .0
            .iter()
            // SAFETY: the handles are live communicators, duplicated by the
            // session before its runs and freed when it is dropped, after
            // the PEs of every run ended; ManuallyDrop keeps these views
            // from freeing them.
            .map(|&raw| ManuallyDrop::new(unsafe { SimpleCommunicator::from_raw(raw) }))
            .collect()
    }
}

/// A PE's start: its pieces, and the output and work units of cutting them
/// (selective initialization, static parts).
pub(crate) type Start<W> = (Vec<W>, <W as Work>::Output, u64);

/// What one PE hands back.
pub(crate) struct PeResult<O> {
    pub(crate) output: O,
    pub(crate) stats: PeStats,
    pub(crate) probes: u64,
    pub(crate) waves: u64,
    /// Improvement messages this PE sent.
    pub(crate) improvements: u64,
    /// Its machine's decisions, if they were recorded.
    pub(crate) decisions: Option<Vec<Decision>>,
    /// Its recorder, if the run is traced.
    pub(crate) tracer: Option<treelb::trace::Tracer>,
}

/// The output type of a codec's work.
pub(crate) type Out<C> = <<C as Codec>::Work as Work>::Output;

/// Runs the computation on all ranks of `mpi` (every rank calls it) and
/// returns the outcome on rank 0, `None` elsewhere: one run of a
/// [`Session`] of its own.
///
/// Every rank passes a `root`; only rank 0's is used (it is sent to the
/// others by broadcast for selective initialization and static
/// assignment).
pub fn run<C>(mpi: &Mpi, codec: &C, root: C::Work, config: &Config) -> Result<Option<Outcome<Out<C>>>, Error>
where
    C: Codec,
    C::Work: Clone,
    Out<C>: Serialize + DeserializeOwned,
{
    Session::new(mpi, config)?.run(codec, root)
}

/// Several runs of the runtime one after another on the same ranks, with
/// what does not depend on the computation set up once: the per-thread
/// communicators, global round robin's counter window, the measurement of
/// the probe cost. A sequence of short runs — the null-window searches of
/// one game position, one after the other — then pays for each run only
/// its own start (a broadcast from rank 0), its termination detection, its
/// drain and its reports to rank 0.
///
/// Every rank makes the session and calls [`Session::run`] the same number
/// of times, in the same order; each run is separated from the previous
/// one by a broadcast from rank 0, which rank 0 enters only after its
/// previous run returned: by then it has every other rank's report, and a
/// rank reports only after its drain, so no message of one run can reach a
/// rank still in the previous one. The session ends (its counter window
/// and communicators freed, collectively) when it is dropped on every rank.
pub struct Session<'m> {
    mpi: &'m Mpi,
    config: Config,
    comms: Vec<SimpleCommunicator>,
    counter: Option<SharedCounter>,
    probe_nanos: f64,
}

impl<'m> Session<'m> {
    /// Sets up the runs of `config` on the ranks of `mpi` (every rank calls
    /// it; a collective).
    pub fn new(mpi: &'m Mpi, config: &Config) -> Result<Session<'m>, Error> {
        config.validate()?;
        if config.threads > 1 && mpi.threading != Threading::Multiple {
            return Err(Error::ThreadSupport {
                required: "MPI_THREAD_MULTIPLE",
                provided: mpi.thread_support(),
            });
        }
        let world = mpi.universe.world();
        let ranks = world.size() as usize;
        let comms: Vec<SimpleCommunicator> = (0..config.threads).map(|_| world.duplicate()).collect();
        let counter = (config.spec.strategy.takes_tickets() && ranks > 1).then(|| SharedCounter::new(&world));
        let probe_nanos = measure_probe(&comms[0]);
        Ok(Session { mpi, config: config.clone(), comms, counter, probe_nanos })
    }

    /// One run of the computation (every rank calls it): the outcome on
    /// rank 0, `None` elsewhere. Only rank 0's `root` is used.
    pub fn run<C>(&self, codec: &C, root: C::Work) -> Result<Option<Outcome<Out<C>>>, Error>
    where
        C: Codec,
        C::Work: Clone,
        Out<C>: Serialize + DeserializeOwned,
    {
        let world = self.mpi.universe.world();
        let rank = world.rank() as usize;
        let ranks = world.size() as usize;
        let config = &self.config;
        let threads = config.threads;
        let spec = &config.spec;
        // The root reaches the PEs: at PE 0, or by broadcast for selective
        // initialization and static assignment (every rank then cuts its own
        // copy the same way).
        crate::check_shared(codec, ranks)?;
        let shared = codec.shared().filter(|_| ranks > 1);
        let (first_piece, broadcast) = if spec.cuts_root() {
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
            crate::pe::set_current_pe(Some(rank * threads));
            let shares = rank_shares(codec, spec, &root, rank, threads, ranks);
            crate::pe::set_current_pe(None);
            (None, Some(shares))
        } else {
            ((rank == 0).then_some(root), None)
        };
        // What every rank has: the state the search was built with, changed by
        // the cut in the same way on every rank.
        let initial_key = codec.shared().and_then(Shared::key).unwrap_or(i64::MIN);

        let mut ctx = Ctx {
            codec,
            state: shared,
            config,
            rank,
            ranks,
            threads,
            comms: RawComms(self.comms.iter().map(AsRaw::as_raw).collect()),
            counter: self.counter.as_ref(),
            shared: RankShared {
                busy: AtomicUsize::new(0),
                replied: AtomicUsize::new(0),
                drained: AtomicBool::new(false),
                known: AtomicI64::new(initial_key),
                one_way_sent: (0..ranks).map(|_| AtomicU64::new(0)).collect(),
            },
            start: Instant::now(),
        };
        // The start: rank 0 is past its previous run (see the type's
        // documentation).
        let mut go = 0u8;
        world.process_at_rank(0).broadcast_into(&mut go);
        let start = Instant::now();
        ctx.start = start;
        let clock_offset = if config.trace && ranks > 1 { clock_offset(&world, start) } else { 0 };
        // Each thread's start: its pieces, and the output and units of the work
        // done to cut them.
        let mut starts: Vec<Start<C::Work>> = match broadcast {
            Some(shares) => shares.into_iter().map(unpack).collect(),
            None => (0..threads).map(|_| (Vec::new(), Out::<C>::default(), 0)).collect(),
        };
        if let Some(piece) = first_piece {
            starts[0].0.push(piece);
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
                        .spawn_scoped(scope, move || crate::pe::pe_main(ctx, t, start, None))
                        .expect("failed to spawn a PE thread")
                })
                .collect();
            let mut all = vec![crate::pe::pe_main(ctx, 0, first, Some(&world))];
            all.extend(
                handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))),
            );
            all
        });
        let wall = start.elapsed();
        let mut output = Out::<C>::default();
        let mut pes = Vec::with_capacity(threads);
        let mut probes = 0;
        let mut waves = 0;
        let mut improvements = 0;
        let mut decisions = Vec::new();
        let wall_ns = wall.as_nanos() as u64;
        let mut trace = config.trace.then(|| treelb::trace::Trace { wall_ns, ..Default::default() });
        for r in results {
            if let (Some(trace), Some(tracer)) = (&mut trace, r.tracer) {
                let (intervals, marks) = tracer.finish(wall_ns);
                trace.pes.push(intervals);
                trace.marks.push(marks);
            }
            output.merge(r.output);
            pes.push(r.stats);
            probes += r.probes;
            waves = waves.max(r.waves);
            improvements += r.improvements;
            decisions.extend(r.decisions);
        }

        // Results to rank 0. The drain guarantees that nothing else is in
        // flight, so plain blocking messages cannot meet stray ones. With
        // shared state, each rank's best goes along and rank 0 offers them all:
        // the answer does not rely on the broadcasts.
        let best = codec.shared().and_then(|s| {
            let mut bytes = Vec::new();
            s.encode(&mut bytes).map(|_| bytes)
        });
        let trace = trace.map(|t| (t, clock_offset));
        let report = RankReport { output, pes, waves, probes, improvements, best, decisions, trace };
        let outcome = if rank == 0 {
            let RankReport { mut output, pes, waves, mut probes, mut improvements, decisions, trace, .. } =
                report;
            let mut traces: Vec<Option<(treelb::trace::Trace, i64)>> = vec![None; ranks];
            traces[0] = trace;
            let mut by_rank: Vec<Option<Vec<PeStats>>> = vec![None; ranks];
            by_rank[0] = Some(pes);
            let mut logs: Vec<Vec<Vec<Decision>>> = vec![Vec::new(); ranks];
            logs[0] = decisions;
            for _ in 1..ranks {
                let (bytes, status) =
                    world.any_process().matched_probe_with_tag(REPORT).matched_receive_vec::<u8>();
                let r: RankReport<Out<C>> =
                    wire::from_bytes(&bytes).map_err(|e| Error::Decode(e.to_string()))?;
                output.merge(r.output);
                probes += r.probes;
                improvements += r.improvements;
                if let (Some(shared), Some(best)) = (codec.shared(), r.best) {
                    shared.apply(&best).map_err(|e| Error::Decode(e.to_string()))?;
                }
                by_rank[status.source_rank() as usize] = Some(r.pes);
                logs[status.source_rank() as usize] = r.decisions;
                traces[status.source_rank() as usize] = r.trace;
            }
            // One trace on rank 0's clock, PEs in rank order.
            let trace = config.trace.then(|| {
                let mut ranked = traces.into_iter().flatten();
                let (mut trace, _) = ranked.next().unwrap_or_default();
                for (other, offset) in ranked {
                    trace.append_shifted(other, offset);
                }
                trace
            });
            let pes = by_rank.into_iter().flatten().flatten().collect();
            let decisions = config.record_decisions.then(|| logs.into_iter().flatten().collect());
            Some(Outcome {
                output,
                stats: RunStats { wall, pes },
                ranks,
                threads,
                probe: ProbeCost { nanos: self.probe_nanos, probes },
                waves,
                improvements,
                stopped: None,
                decisions,
                trace,
            })
        } else {
            world.process_at_rank(0).send_with_tag(&wire::to_bytes(&report)[..], REPORT);
            None
        };
        Ok(outcome)
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        if let Some(counter) = self.counter.take() {
            counter.free();
        }
    }
}

/// This rank's clock's offset from rank 0's in nanoseconds (add it to a
/// time since `start` here to get rank 0's time since its `start`): each
/// other rank in turn makes [`CLOCK_TRIPS`] round trips to rank 0, which
/// answers each with its own time; the shortest trip's answer is taken as
/// rank 0's time at the trip's middle (Cristian's method), so the offset is
/// off by at most half that trip. 0 at rank 0, which serves the others in
/// rank order before its PEs start.
fn clock_offset(world: &SimpleCommunicator, start: Instant) -> i64 {
    let rank = world.rank();
    let ns = || start.elapsed().as_nanos() as i64;
    if rank == 0 {
        for other in 1..world.size() {
            let process = world.process_at_rank(other);
            for _ in 0..CLOCK_TRIPS {
                let _ = process.matched_probe_with_tag(CLOCK).matched_receive_vec::<i64>();
                process.send_with_tag(&[ns()][..], CLOCK);
            }
        }
        return 0;
    }
    let root = world.process_at_rank(0);
    let mut best: Option<(i64, i64)> = None;
    for _ in 0..CLOCK_TRIPS {
        let sent = ns();
        root.send_with_tag(&[sent][..], CLOCK);
        let (theirs, _) = root.matched_probe_with_tag(CLOCK).matched_receive_vec::<i64>();
        let back = ns();
        let trip = back - sent;
        let offset = theirs.first().copied().unwrap_or(0) - (sent + back) / 2;
        if best.is_none_or(|(t, _)| trip < t) {
            best = Some((trip, offset));
        }
    }
    best.map_or(0, |(_, offset)| offset)
}

/// Mean time of a probe that finds nothing.
fn measure_probe(comm: &SimpleCommunicator) -> f64 {
    let start = Instant::now();
    for _ in 0..PROBE_SAMPLES {
        let found = comm.any_process().immediate_matched_probe_with_tag(kind::UNUSED);
        debug_assert!(found.is_none());
    }
    start.elapsed().as_nanos() as f64 / f64::from(PROBE_SAMPLES)
}
