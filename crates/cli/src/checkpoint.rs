//! `--checkpoint FILE --checkpoint-every DURATION` and `treelb resume FILE`:
//! a long run writes its state to FILE every DURATION, and a run that died
//! (a node crashed, the job was killed) continues from the last checkpoint
//! with exactly the answer an uninterrupted run gives.
//!
//! # What a checkpoint holds
//!
//! The command line of the run (so that `resume` rebuilds the same
//! computation), the SHA-1 of its input file (a graph, an instance), the
//! open pieces of work of every PE, the output merged so far (node counts,
//! solutions, branch-and-bound counters), the incumbent of a
//! branch-and-bound search and the statistics of the run so far. Pieces are
//! bytes of the MPI runtime's wire format ([`Codec`]): the application's
//! nodes serialize (serde) there already, and [`treelb::Work`] itself needs
//! no serde bound, so library users of `Work` are not affected.
//!
//! # The protocol: a drain, not a stop
//!
//! A consistent snapshot needs every piece of work to be in exactly one
//! place. The runtimes move pieces between PEs all the time (answers in
//! mailboxes, pools of pushed pieces, the hub's central pool, messages
//! between ranks), and stopping them in the middle of a move is where work
//! gets lost or counted twice. So a checkpoint does not stop the runtime: it
//! lets the runtime finish, with every piece set aside instead of worked.
//!
//! The run is cut in *segments*. A segment is an ordinary run of the
//! runtime (any strategy, threads or MPI) whose root is a [`Resumable`]: a
//! bag of pieces together with a reference to the segment's [`Drain`].
//! DURATION after the first call of `work` in this process, the drain opens
//! (one flag per process; counting from the first work keeps the runtime's
//! start-up out, so that every segment does some work). From then on, every call of `work` on a `Resumable` moves all
//! the pieces it holds, untouched, into the drain's store and reports the
//! piece exhausted, having done no work. Splitting an emptied bag gives
//! nothing.
//!
//! Why the segment ends, and ends with every piece in the store exactly
//! once: the runtime's termination detection (a live-piece counter on
//! threads, the four-counter method across MPI ranks) ends a run only when
//! every piece it ever created was worked to exhaustion — a piece waiting in
//! a mailbox, a pool or a message is live and is worked after it arrives.
//! Every piece worked after the drain opened is emptied into the store at
//! that call; a piece exhausted before is finished work, and its results are
//! in the output. A piece is moved, never copied, so each open node is in
//! the store once, and no node in the store was expanded (expansion happens
//! only inside `work`, which moved the bag before expanding anything). The
//! runtime's own termination protocol therefore guarantees: *output of the
//! segment + work of the stored pieces = work of the segment's root*. On MPI
//! each rank's drain holds the pieces its PEs set aside; rank 0 gathers
//! them after the run (a collective, when no message is in flight any more).
//!
//! The writer then encodes the stored pieces, the merged output (earlier
//! segments + this one), the incumbent and the statistics, writes them
//! atomically (a temporary file in the same directory, `fsync`, `rename`
//! over FILE, `fsync` of the directory: FILE is always either the previous
//! checkpoint or the new one, never a mix) and starts the next segment with
//! the stored pieces as its root. A run that dies between checkpoints loses
//! the work of the current segment only: resuming adds the saved output to
//! the output of the saved pieces, which is exactly the output of the work
//! not yet done when the checkpoint was taken. When no piece is left the
//! run is over; a last checkpoint with no pieces records the final answer.
//!
//! Resuming works with any number of PEs: the saved pieces are one bag, and
//! the runtime's initialization splits the bag over the PEs like any root
//! (a bag of several pieces splits by handing half of them over).
//!
//! Branch and bound: the incumbent is saved with its witness and offered to
//! the search's incumbent before the resumed run; pruning against it is
//! sound because it is a real solution. The optimum is exact; the numbers
//! of branched and pruned nodes depend on timing as in any parallel run.
//!
//! # The file
//!
//! `MAGIC` (16 bytes), the format version (u32, little endian), the length
//! of the body (u64, little endian), the body (postcard), and the SHA-1 of
//! everything before it (20 bytes). A file that is truncated, extended or
//! altered fails the length or hash check and is refused in one line.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use clap::Args;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};
use treelb::limit::Limit;
#[cfg(feature = "mpi")]
use treelb::limit::{Limited, StopReason};
use treelb::{Incumbent, Progress, Reduce, RunStats, Work};
use treelb_mpi::wire::{Codec, from_bytes, to_bytes};

use crate::cmd::Ran;
use crate::config::{Error, RunConfig, err};

/// The first 16 bytes of every checkpoint file.
pub(crate) const MAGIC: &[u8; 16] = b"treelb-ckpt\n\0\0\0\0";

/// The version of the file format this treelb writes and reads.
pub(crate) const VERSION: u32 = 1;

/// How often a run checkpoints when `--checkpoint-every` is not given.
pub(crate) const DEFAULT_EVERY: Duration = Duration::from_secs(60);

/// `--checkpoint FILE --checkpoint-every DURATION`: the options of every run
/// command that checkpoints.
#[derive(Clone, Debug, Default, Args)]
pub(crate) struct CheckpointArgs {
    /// Write the run's state to FILE every --checkpoint-every (atomically:
    /// FILE is always a whole checkpoint); `treelb resume FILE` continues
    /// the run after a crash
    #[arg(long, value_name = "FILE", help_heading = crate::args::heading::LIMITS)]
    pub(crate) checkpoint: Option<String>,
    /// How often to checkpoint, e.g. 60s, 10m, 1h, 500ms [default: 60s]
    #[arg(long, value_name = "DURATION", requires = "checkpoint", value_parser = crate::args::parse::duration, help_heading = crate::args::heading::LIMITS)]
    pub(crate) checkpoint_every: Option<Duration>,
}

/// A run's checkpointing: where, how often, and the saved state it resumes.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// The checkpoint file.
    pub(crate) path: PathBuf,
    /// The time between two checkpoints.
    pub(crate) every: Duration,
    /// The command line after the program name, written into every
    /// checkpoint.
    pub(crate) argv: Vec<String>,
    /// The input file's name and SHA-1, once the command has named it.
    pub(crate) input: Option<InputHash>,
    /// The state to continue from (`treelb resume`).
    pub(crate) resume: Option<std::sync::Arc<Saved>>,
}

/// What `treelb resume` hands to the command it re-runs.
struct Resuming {
    saved: std::sync::Arc<Saved>,
    argv: Vec<String>,
}

static RESUMING: OnceLock<Resuming> = OnceLock::new();

/// Makes the next run command continue from `saved` (called by `treelb
/// resume` before it runs the saved command line `argv`).
pub(crate) fn set_resuming(saved: Saved, argv: Vec<String>) {
    let _ = RESUMING.set(Resuming { saved: std::sync::Arc::new(saved), argv });
}

impl Plan {
    /// The plan of `--checkpoint` and `--checkpoint-every`, if checkpointing.
    pub(crate) fn from_args(args: &CheckpointArgs) -> Result<Option<Plan>, Error> {
        let Some(path) = &args.checkpoint else {
            return Ok(None);
        };
        if path.is_empty() {
            return Err(err!("--checkpoint expects a file name, got an empty one"));
        }
        let every = args.checkpoint_every.unwrap_or(DEFAULT_EVERY);
        if every < Duration::from_millis(1) {
            return Err(err!("--checkpoint-every {every:?} is below the least interval, 1ms"));
        }
        let (argv, resume) = match RESUMING.get() {
            Some(r) => (r.argv.clone(), Some(r.saved.clone())),
            None => (std::env::args().skip(1).collect(), None),
        };
        Ok(Some(Plan { path: PathBuf::from(path), every, argv, input: None, resume }))
    }

    /// Binds the run to its input file: records its SHA-1 and, when
    /// resuming, refuses a file that changed since the checkpoint.
    pub(crate) fn bind_input(&mut self, path: &Path) -> Result<(), Error> {
        let bytes = fs::read(path).map_err(|e| err!("{}: {e}", path.display()))?;
        let sha1 = hex(&Sha1::digest(&bytes));
        if let Some(saved) = self.resume.as_ref().and_then(|s| s.input.as_ref())
            && saved.sha1 != sha1
        {
            return Err(err!(
                "{}: the input file changed since the checkpoint {} was written (SHA-1 {sha1}, the checkpoint's {}); \
                 refusing to resume against a different input",
                path.display(),
                self.path.display(),
                saved.sha1
            ));
        }
        self.input = Some(InputHash { path: path.display().to_string(), sha1 });
        Ok(())
    }
}

/// Binds a checkpointed run to its input file (see [`Plan::bind_input`]);
/// nothing without `--checkpoint`.
pub(crate) fn bind_input(cfg: &mut RunConfig, path: &Path) -> Result<(), Error> {
    match cfg.checkpoint.as_mut() {
        Some(plan) => plan.bind_input(path),
        None => Ok(()),
    }
}

/// Refuses `--checkpoint` for a command whose output does not carry over
/// between segments (an image written as it is computed, a floating-point
/// estimate whose sum depends on the order of the pieces).
pub(crate) fn refuse(cfg: &RunConfig, command: &str) -> Result<(), Error> {
    match &cfg.checkpoint {
        Some(_) => Err(err!(
            "--checkpoint: {command} does not checkpoint (uts, nqueens, clique, knapsack and tsp do)"
        )),
        None => Ok(()),
    }
}

/// The input file of a checkpointed run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct InputHash {
    /// The file name as given on the command line.
    pub(crate) path: String,
    /// The SHA-1 of its bytes, in hex.
    pub(crate) sha1: String,
}

/// The body of a checkpoint file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Saved {
    /// The command line after the program name.
    pub(crate) argv: Vec<String>,
    /// The input file, for the commands that read one.
    pub(crate) input: Option<InputHash>,
    /// The output merged so far (the application's output type, postcard).
    pub(crate) output: Vec<u8>,
    /// The statistics of the run so far (per PE index, summed over segments).
    pub(crate) stats: RunStats,
    /// The incumbent of a branch-and-bound search and its witness.
    pub(crate) incumbent: Option<(i64, Vec<u32>)>,
    /// The open pieces, each in the application's wire format.
    pub(crate) pieces: Vec<Vec<u8>>,
    /// How many checkpoints the run wrote, this one included.
    pub(crate) count: u64,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes of a checkpoint file holding `saved`.
pub(crate) fn encode(saved: &Saved) -> Vec<u8> {
    let body = to_bytes(saved);
    let mut out = Vec::with_capacity(body.len() + 48);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&body);
    let hash = Sha1::digest(&out);
    out.extend_from_slice(&hash);
    out
}

/// Reads a checkpoint file, refusing (one line) anything but a whole
/// checkpoint of this format version.
pub(crate) fn read(path: &Path) -> Result<Saved, Error> {
    let name = path.display();
    let bytes = fs::read(path).map_err(|e| err!("{name}: {e}"))?;
    decode(&bytes).map_err(|e| err!("{name}: {e}"))
}

/// [`read`] on bytes: the error says what is wrong, without the file name.
pub(crate) fn decode(bytes: &[u8]) -> Result<Saved, String> {
    const HEAD: usize = 16 + 4 + 8;
    if bytes.len() < 16 || &bytes[..16] != MAGIC {
        return Err("not a treelb checkpoint (its first bytes are not the checkpoint's mark)".into());
    }
    if bytes.len() < HEAD {
        return Err(format!("truncated checkpoint: {} bytes, shorter than its header", bytes.len()));
    }
    let version = u32::from_le_bytes(bytes[16..20].try_into().expect("4 bytes"));
    if version != VERSION {
        return Err(format!("checkpoint format version {version}; this treelb reads version {VERSION}"));
    }
    let len = u64::from_le_bytes(bytes[20..28].try_into().expect("8 bytes"));
    let whole = (HEAD as u64).checked_add(len).and_then(|n| n.checked_add(20));
    if whole != Some(bytes.len() as u64) {
        return Err(format!(
            "truncated or damaged checkpoint: {} bytes, its header announces {}",
            bytes.len(),
            whole.map_or_else(|| "more than can exist".to_owned(), |n| n.to_string())
        ));
    }
    let (data, hash) = bytes.split_at(bytes.len() - 20);
    if Sha1::digest(data).as_slice() != hash {
        return Err("corrupt checkpoint: its SHA-1 does not match its contents".into());
    }
    from_bytes(&data[HEAD..]).map_err(|e| format!("corrupt checkpoint: the body does not decode ({e})"))
}

/// Writes `bytes` to `path` atomically: a temporary file in the same
/// directory, `fsync`, `rename` over `path`, `fsync` of the directory.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().map_or_else(|| "checkpoint".into(), |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, path)?;
        // The rename itself is durable once the directory is.
        File::open(&dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Where the pieces of a segment go once it is time to checkpoint.
///
/// The drain opens `every` after the first call of `work` on any bag of
/// this process, not after the segment started: the runtime's start-up
/// (an MPI barrier on a loaded machine can take longer than `every`) does
/// not count, so every segment does at least one slice of work and a run
/// always progresses.
#[derive(Debug)]
pub(crate) struct Drain<W> {
    every: Duration,
    deadline: OnceLock<Option<Instant>>,
    open: AtomicBool,
    store: Mutex<Vec<W>>,
}

impl<W> Drain<W> {
    /// A closed drain with an empty store, to open `every` after the first
    /// work.
    pub(crate) fn new(every: Duration) -> Self {
        Drain {
            every,
            deadline: OnceLock::new(),
            open: AtomicBool::new(false),
            store: Mutex::new(Vec::new()),
        }
    }

    /// Whether the pieces are to be set aside now (one relaxed load, and
    /// one reading of the clock while closed).
    fn is_open(&self) -> bool {
        if self.open.load(Ordering::Relaxed) {
            return true;
        }
        let now = Instant::now();
        // `None`: never (an interval past what the clock can add).
        if self.deadline.get_or_init(|| now.checked_add(self.every)).is_some_and(|d| now >= d) {
            self.open.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// From now on every piece is set aside at its next call of `work`.
    #[cfg(test)]
    pub(crate) fn open(&self) {
        self.open.store(true, Ordering::Relaxed);
    }

    /// The pieces set aside.
    pub(crate) fn into_pieces(self) -> Vec<W> {
        self.store.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// A bag of pieces that moves itself into its [`Drain`] instead of working
/// once the drain is open (see the module's documentation).
#[derive(Debug)]
pub(crate) struct Resumable<'d, W> {
    pieces: Vec<W>,
    drain: &'d Drain<W>,
}

impl<W: Clone> Clone for Resumable<'_, W> {
    fn clone(&self) -> Self {
        Resumable { pieces: self.pieces.clone(), drain: self.drain }
    }
}

impl<'d, W> Resumable<'d, W> {
    /// The bag of `pieces`, set aside into `drain`.
    pub(crate) fn new(pieces: Vec<W>, drain: &'d Drain<W>) -> Self {
        Resumable { pieces, drain }
    }
}

impl<W: Work> Work for Resumable<'_, W> {
    type Output = W::Output;

    fn work(&mut self, budget: u64, acc: &mut W::Output) -> Progress {
        if self.drain.is_open() {
            if !self.pieces.is_empty() {
                let pieces = std::mem::take(&mut self.pieces);
                self.drain.store.lock().unwrap_or_else(|e| e.into_inner()).extend(pieces);
            }
            return Progress::Exhausted { used: 0 };
        }
        let mut used = 0;
        while used < budget {
            let Some(last) = self.pieces.last_mut() else {
                break;
            };
            match last.work(budget - used, acc) {
                Progress::Pending => return Progress::Pending,
                Progress::Exhausted { used: u } => {
                    used += u;
                    self.pieces.pop();
                }
            }
        }
        if self.pieces.is_empty() { Progress::Exhausted { used } } else { Progress::Pending }
    }

    fn split(&mut self) -> Option<Self> {
        if self.pieces.len() >= 2 {
            let given = self.pieces.split_off(self.pieces.len() / 2);
            return Some(Resumable { pieces: given, drain: self.drain });
        }
        let given = self.pieces.last_mut()?.split()?;
        Some(Resumable { pieces: vec![given], drain: self.drain })
    }

    fn generation(&self) -> u32 {
        self.pieces.last().map_or(0, W::generation)
    }

    fn load(&self) -> u64 {
        self.pieces.iter().map(W::load).sum()
    }

    fn should_stop(&self) -> bool {
        self.pieces.last().is_some_and(W::should_stop)
    }
}

/// The [`Codec`] of [`Resumable`] bags: the inner codec's bytes of each
/// piece, as a list.
#[cfg(feature = "mpi")]
pub(crate) struct ResumableCodec<'c, 'd, C: Codec> {
    inner: &'c C,
    drain: &'d Drain<C::Work>,
}

#[cfg(feature = "mpi")]
impl<'c, 'd, C: Codec> ResumableCodec<'c, 'd, C> {
    /// Bags of `inner`'s pieces, set aside into `drain`.
    pub(crate) fn new(inner: &'c C, drain: &'d Drain<C::Work>) -> Self {
        ResumableCodec { inner, drain }
    }
}

#[cfg(feature = "mpi")]
impl<'d, C: Codec> Codec for ResumableCodec<'_, 'd, C> {
    type Work = Resumable<'d, C::Work>;

    fn encode(&self, piece: Self::Work, out: &mut Vec<u8>) {
        out.extend(to_bytes(&encode_pieces(self.inner, piece.pieces)));
    }

    fn decode(&self, bytes: &[u8]) -> Result<Self::Work, treelb_mpi::wire::DecodeError> {
        let list: Vec<Vec<u8>> = from_bytes(bytes)?;
        let pieces = list.iter().map(|b| self.inner.decode(b)).collect::<Result<_, _>>()?;
        Ok(Resumable { pieces, drain: self.drain })
    }

    fn shared(&self) -> Option<&dyn treelb_mpi::shared::Shared> {
        self.inner.shared()
    }

    fn should_stop(&self) -> bool {
        self.inner.should_stop()
    }
}

/// The wire bytes of each piece.
pub(crate) fn encode_pieces<C: Codec>(codec: &C, pieces: Vec<C::Work>) -> Vec<Vec<u8>> {
    pieces
        .into_iter()
        .map(|p| {
            let mut bytes = Vec::new();
            codec.encode(p, &mut bytes);
            bytes
        })
        .collect()
}

/// The state a checkpointed run carries from segment to segment.
pub(crate) struct State<W: Work> {
    /// The open pieces.
    pub(crate) pieces: Vec<W>,
    /// The output of the work done.
    pub(crate) output: W::Output,
    /// The statistics of the segments so far.
    pub(crate) stats: RunStats,
    /// Checkpoints written so far.
    pub(crate) count: u64,
}

impl<W: Work> State<W> {
    /// The start of a run: `root` alone, or the saved state of `plan`
    /// (whose incumbent goes into `incumbent`).
    pub(crate) fn start<C>(
        plan: &Plan,
        codec: &C,
        root: W,
        incumbent: Option<&Incumbent<Vec<u32>>>,
    ) -> Result<Self, Error>
    where
        C: Codec<Work = W>,
        W::Output: DeserializeOwned,
    {
        let Some(saved) = &plan.resume else {
            return Ok(State {
                pieces: vec![root],
                output: W::Output::default(),
                stats: RunStats::default(),
                count: 0,
            });
        };
        drop(root);
        let name = plan.path.display();
        let pieces = saved
            .pieces
            .iter()
            .enumerate()
            .map(|(i, b)| codec.decode(b).map_err(|e| err!("{name}: piece {} does not decode: {e}", i + 1)))
            .collect::<Result<Vec<_>, _>>()?;
        let output =
            from_bytes(&saved.output).map_err(|e| err!("{name}: the saved output does not decode: {e}"))?;
        match (incumbent, &saved.incumbent) {
            (Some(inc), Some((value, witness))) => {
                inc.offer(*value, || witness.clone());
            }
            (None, Some(_)) => return Err(err!("{name}: an incumbent is saved, but this command has none")),
            _ => {}
        }
        Ok(State { pieces, output, stats: saved.stats.clone(), count: saved.count })
    }

    /// Adds a segment's output and statistics.
    pub(crate) fn add(&mut self, output: W::Output, stats: &RunStats) {
        self.output.merge(output);
        add_stats(&mut self.stats, stats);
    }

    /// Writes the checkpoint of this state to `plan.path`; pieces are
    /// encoded from clones (the run goes on with them).
    pub(crate) fn write<C>(
        &mut self,
        plan: &Plan,
        codec: &C,
        incumbent: Option<&Incumbent<Vec<u32>>>,
    ) -> Result<(), Error>
    where
        C: Codec<Work = W>,
        W: Clone,
        W::Output: Serialize,
    {
        self.count += 1;
        let saved = Saved {
            argv: plan.argv.clone(),
            input: plan.input.clone(),
            output: to_bytes(&self.output),
            stats: self.stats.clone(),
            incumbent: incumbent.and_then(Incumbent::snapshot),
            pieces: encode_pieces(codec, self.pieces.clone()),
            count: self.count,
        };
        write_atomic(&plan.path, &encode(&saved))
            .map_err(|e| err!("--checkpoint {}: {e}", plan.path.display()))
    }
}

/// Adds the statistics of a segment to those of the run: PE by PE index
/// (a resumed run may have more or fewer PEs), wall times summed.
pub(crate) fn add_stats(total: &mut RunStats, segment: &RunStats) {
    total.wall += segment.wall;
    for (i, pe) in segment.pes.iter().enumerate() {
        if i >= total.pes.len() {
            total.pes.push(treelb::PeStats { pe: i, ..Default::default() });
        }
        total.pes[i].add(pe);
    }
}

/// The output of a codec's pieces.
type Out<C> = <<C as Codec>::Work as Work>::Output;

/// Runs `root` on the threads runtime in segments of about `plan.every`,
/// writing a checkpoint after each (see the module's documentation); from
/// the saved state instead of `root` when resuming. A run stopped by
/// `--max-nodes` or a signal writes no checkpoint for its last segment: the
/// previous one stays.
pub(crate) fn run_threads<C>(
    codec: &C,
    root: C::Work,
    cfg: &RunConfig,
    plan: &Plan,
    expected_units: Option<u64>,
    unit: &'static str,
    incumbent: Option<&Incumbent<Vec<u32>>>,
) -> Result<Ran<Out<C>>, Error>
where
    C: Codec,
    C::Work: Clone,
    Out<C>: Serialize + DeserializeOwned,
{
    let mut state = State::start(plan, codec, root, incumbent)?;
    let limit = cfg.max_nodes.map_or_else(Limit::unbounded, Limit::new);
    crate::cmd::catch_signals();
    while !state.pieces.is_empty() {
        let drain = Drain::new(plan.every);
        let bag = Resumable::new(std::mem::take(&mut state.pieces), &drain);
        let (output, stats) = crate::cmd::run_threads_limited(bag, cfg, expected_units, unit, &limit)?;
        state.add(output, &stats);
        if let Some(reason) = limit.partial_because() {
            return Ok(Ran { output: state.output, stats: state.stats, stopped: Some(reason) });
        }
        state.pieces = drain.into_pieces();
        state.write(plan, codec, incumbent)?;
    }
    Ok(Ran { output: state.output, stats: state.stats, stopped: None })
}

/// [`run_threads`] across the MPI ranks: every rank runs each segment;
/// each rank's drain opens `plan.every` after its first work, on its own
/// clock; after the
/// segment rank 0 gathers the pieces every rank set aside (when no message
/// is in flight any more) and writes the checkpoint, and the next segment
/// starts from them at rank 0. `None` on ranks other than 0.
#[cfg(feature = "mpi")]
pub(crate) fn run_mpi<C>(
    codec: &C,
    root: C::Work,
    cfg: &RunConfig,
    plan: &Plan,
    incumbent: Option<&Incumbent<Vec<u32>>>,
) -> Result<Option<Ran<Out<C>>>, Error>
where
    C: Codec,
    C::Work: Clone,
    Out<C>: Serialize + DeserializeOwned,
{
    use treelb_mpi::wire::LimitedCodec;

    let config = treelb_mpi::Config { threads: cfg.threads, spec: cfg.spec.clone(), slow: None };
    config.validate()?;
    crate::cmd::catch_signals();
    let mpi = treelb_mpi::Mpi::init(config.threads)?;
    let rank = mpi.rank();
    // Every rank reads the checkpoint (and restores the incumbent); rank 0
    // holds the pieces, as it holds the root of a fresh run.
    let mut state = State::start(plan, codec, root, incumbent)?;
    if rank != 0 {
        state.pieces.clear();
    }
    // Each rank stops after its share of --max-nodes, as without checkpoints.
    let limit =
        cfg.max_nodes.map_or_else(Limit::unbounded, |max| Limit::new(max.div_ceil(mpi.size() as u64).max(1)));
    let mut interrupted = false;
    while mpi.any(!state.pieces.is_empty()) {
        let drain = Drain::new(plan.every);
        let result = {
            let bags = ResumableCodec::new(codec, &drain);
            let limited = LimitedCodec::new(&bags, &limit);
            let bag = Limited::new(Resumable::new(std::mem::take(&mut state.pieces), &drain), &limit);
            // A signal or the time limit stops every rank's segment (see
            // `cmd::mpi::run_on`); the previous checkpoint stays.
            crate::cmd::mpi::run_watched(&mpi, &limited, bag, &config, cfg, &limit)
        };
        if let Some(o) = result? {
            state.add(o.output, &o.stats);
        }
        interrupted = mpi.any(limit.interrupted());
        if interrupted {
            break;
        }
        let mine = encode_pieces(codec, drain.into_pieces());
        if let Some(all) = mpi.gather(&to_bytes(&mine)) {
            for bytes in all {
                let list: Vec<Vec<u8>> =
                    from_bytes(&bytes).map_err(|e| err!("checkpoint: pieces from a rank: {e}"))?;
                for piece in list {
                    state.pieces.push(
                        codec.decode(&piece).map_err(|e| err!("checkpoint: a piece from a rank: {e}"))?,
                    );
                }
            }
            state.write(plan, codec, incumbent)?;
        }
    }
    crate::cmd::mpi::finalize(mpi);
    if rank != 0 {
        return Ok(None);
    }
    let stopped = interrupted.then(|| limit.stop_reason().unwrap_or(StopReason::WorkCap));
    Ok(Some(Ran { output: state.output, stats: state.stats, stopped }))
}

#[cfg(test)]
mod tests {
    use treelb::search::{BinaryTree, DfsWork, SplitPolicy};
    use treelb::seq;

    use super::*;

    #[test]
    fn a_drained_bag_keeps_every_open_node_once() {
        let tree = BinaryTree(12);
        let drain = Drain::new(Duration::MAX);
        let mut bag = Resumable::new(vec![DfsWork::new(&tree, SplitPolicy::OldestHalf)], &drain);
        let mut done = 0;
        assert_eq!(bag.work(100, &mut done), Progress::Pending);
        let mut other = bag.split().expect("open nodes to split");
        assert_eq!(other.work(50, &mut done), Progress::Pending);
        drain.open();
        assert_eq!(bag.work(100, &mut done), Progress::Exhausted { used: 0 });
        assert_eq!(other.work(100, &mut done), Progress::Exhausted { used: 0 });
        assert!(bag.split().is_none() && other.split().is_none());
        assert_eq!(done, 150);
        let pieces = drain.into_pieces();
        assert_eq!(pieces.len(), 2);
        // The rest, worked in a new bag: exactly the nodes not yet counted.
        let again = Drain::new(Duration::MAX);
        let rest = seq::run_work(Resumable::new(pieces, &again)).0;
        assert_eq!(done + rest, (1 << 13) - 1);
        assert!(again.into_pieces().is_empty());
    }

    #[test]
    fn a_bag_of_pieces_splits_by_halves_and_works_to_the_end() {
        let tree = BinaryTree(10);
        let drain = Drain::new(Duration::MAX);
        let pieces = vec![DfsWork::new(&tree, SplitPolicy::OldestHalf); 5];
        let mut bag = Resumable::new(pieces, &drain);
        let other = bag.split().expect("five pieces");
        assert_eq!((bag.pieces.len(), other.pieces.len()), (2, 3));
        // A budget that ends inside one piece and crosses into the next.
        let mut n = 0;
        let mut units = 0;
        loop {
            let p = bag.work(700, &mut n);
            units += p.used(700);
            if p.is_exhausted() {
                break;
            }
        }
        assert_eq!((n, units), (2 * 2047, 2 * 2047));
        assert_eq!(seq::run_work(other).0, 3 * 2047);
    }

    fn saved() -> Saved {
        Saved {
            argv: vec!["uts".into(), "--tree".into(), "T1".into()],
            input: Some(InputHash { path: "g.col".into(), sha1: "ab".into() }),
            output: to_bytes(&17u64),
            stats: RunStats::default(),
            incumbent: Some((5, vec![1, 2])),
            pieces: vec![vec![1, 2, 3], vec![]],
            count: 3,
        }
    }

    #[test]
    fn a_checkpoint_round_trips_and_every_damage_is_refused() {
        let bytes = encode(&saved());
        let back = decode(&bytes).unwrap();
        assert_eq!((back.argv, back.pieces, back.count), (saved().argv, saved().pieces, 3));
        assert!(decode(&bytes[..bytes.len() - 1]).unwrap_err().starts_with("truncated"));
        assert!(decode(&bytes[..10]).unwrap_err().starts_with("not a treelb checkpoint"));
        assert!(decode(b"hello").unwrap_err().starts_with("not a treelb checkpoint"));
        for i in [20, 30, bytes.len() - 3] {
            let mut bad = bytes.clone();
            bad[i] ^= 0x40;
            let e = decode(&bad).unwrap_err();
            assert!(e.starts_with("corrupt") || e.starts_with("truncated"), "byte {i}: {e}");
        }
        let mut newer = bytes.clone();
        newer[16] = 9;
        assert_eq!(decode(&newer).unwrap_err(), "checkpoint format version 9; this treelb reads version 1");
    }

    #[test]
    fn the_file_is_replaced_whole() {
        let dir = std::env::temp_dir().join(format!("treelb-ckpt-unit-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("run.ckpt");
        write_atomic(&path, b"first").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1, "no temporary file is left");
        fs::remove_dir_all(&dir).unwrap();
    }
}
