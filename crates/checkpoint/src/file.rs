//! The checkpoint file: its format, and how it is read, written and locked.
//!
//! # Format
//!
//! [`MAGIC`] (16 bytes), the format [`VERSION`] (u32, little endian), the
//! length of the body (u64, little endian), the body ([`Saved`] in postcard)
//! and the SHA-1 of everything before it (20 bytes). A file that is
//! truncated, extended or altered fails the length or hash check and is
//! refused in one line; so is a file of another format version.
//!
//! # Writing
//!
//! A checkpoint replaces the previous one atomically: the bytes go to a
//! temporary file in the same directory ([`treelb_files::output`]), which is synced, renamed over the
//! checkpoint, and the directory synced, so that the file is always either
//! the previous checkpoint or the new one. The temporary file is created
//! exclusively (`O_CREAT | O_EXCL`, which POSIX makes fail on any existing
//! name, a symbolic link included, instead of following it) and never
//! opened by name again: a file or link planted at a predictable name is
//! neither written through nor replaced. Only a regular file (or nothing)
//! is ever replaced at the checkpoint's own path: a device, a directory or
//! a symbolic link there is refused.
//!
//! # Locking
//!
//! Two runs writing one checkpoint would overwrite each other's state. A
//! run holds an exclusive lock ([`std::fs::File::try_lock`], `flock(2)` on
//! Linux) on a lock file beside the checkpoint, `.NAME.lock`, from before
//! its work starts to its end; a second run on the same checkpoint is
//! refused at once. The lock file stays: deleting it would let a run that
//! had opened it just before lock a file no longer in the directory while
//! a third run locks a new one.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};
use treelb::RunStats;
use treelb_mpi::wire::{from_bytes, to_bytes};

use crate::Error;

/// The first 16 bytes of every checkpoint file.
pub const MAGIC: &[u8; 16] = b"treelb-ckpt\n\0\0\0\0";

/// The version of the file format this crate writes and reads: 2, where
/// the pieces of chained searches (knapsack, clique, TSP) write each shared
/// link of their paths once ([`treelb::search::chain`]); version 1 wrote
/// every node's whole path.
pub const VERSION: u32 = 2;

/// The length of the header: mark, version and body length.
const HEAD: usize = 16 + 4 + 8;

/// The input file of a checkpointed run, so that a resume against a
/// changed file is refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputHash {
    /// The file name as the run was given it.
    pub path: String,
    /// The SHA-1 of its bytes, in hex.
    pub sha1: String,
}

impl InputHash {
    /// The hash of the file at `path`.
    pub fn of(path: &Path) -> Result<Self, Error> {
        let mut file = File::open(path).map_err(|e| Error::io("cannot read the input file", path, e))?;
        let mut hasher = Sha1::new();
        let mut buf = vec![0; 1 << 16];
        loop {
            match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => hasher.update(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io("cannot read the input file", path, e)),
            }
        }
        Ok(InputHash { path: path.display().to_string(), sha1: hex(&hasher.finalize()) })
    }
}

/// The body of a checkpoint file: everything a run needs to continue.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Saved {
    /// What the run is, in words of the caller's choosing: the `treelb`
    /// command rebuilds its computation from its command line.
    pub description: Vec<String>,
    /// The input file, for runs bound to one.
    pub input: Option<InputHash>,
    /// The output merged so far (the application's output type, postcard).
    pub output: Vec<u8>,
    /// The statistics of the run so far (per PE index, summed over
    /// segments).
    pub stats: RunStats,
    /// The incumbent of a branch-and-bound search and its witness.
    pub incumbent: Option<(i64, Vec<u32>)>,
    /// The open pieces, each in the application's wire format.
    pub pieces: Vec<Vec<u8>>,
    /// How many checkpoints the run wrote, this one included.
    pub count: u64,
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes of a checkpoint file holding `saved`.
pub fn encode(saved: &Saved) -> Vec<u8> {
    let body = to_bytes(saved);
    let mut out = Vec::with_capacity(body.len() + HEAD + 20);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&body);
    let hash = Sha1::digest(&out);
    out.extend_from_slice(&hash);
    out
}

/// What the header of a checkpoint says: the length the whole file must
/// have. The error says what is wrong, without a file name.
fn header(bytes: &[u8]) -> Result<u64, String> {
    if bytes.len() < 16 || &bytes[..16] != MAGIC {
        return Err("not a treelb checkpoint (its first bytes are not the checkpoint's mark)".into());
    }
    if bytes.len() < HEAD {
        return Err(format!("truncated checkpoint: {} bytes, shorter than its header", bytes.len()));
    }
    let version = u32::from_le_bytes(bytes[16..20].try_into().expect("4 bytes"));
    if version == 1 {
        return Err(format!(
            "checkpoint format version 1, written by an earlier treelb (its pieces store every path whole); \
             this treelb reads version {VERSION}: finish the run with the treelb that wrote it"
        ));
    }
    if version != VERSION {
        return Err(format!("checkpoint format version {version}; this treelb reads version {VERSION}"));
    }
    let len = u64::from_le_bytes(bytes[20..28].try_into().expect("8 bytes"));
    (HEAD as u64)
        .checked_add(len)
        .and_then(|n| n.checked_add(20))
        .ok_or_else(|| "damaged checkpoint: its header announces more bytes than can exist".to_owned())
}

/// Reads the checkpoint held in `bytes`, refusing anything but a whole
/// checkpoint of this format version; the error says what is wrong.
pub fn decode(bytes: &[u8]) -> Result<Saved, String> {
    let whole = header(bytes)?;
    if whole != bytes.len() as u64 {
        return Err(format!(
            "truncated or damaged checkpoint: {} bytes, its header announces {whole}",
            bytes.len()
        ));
    }
    let (data, hash) = bytes.split_at(bytes.len() - 20);
    if Sha1::digest(data).as_slice() != hash {
        return Err("corrupt checkpoint: its SHA-1 does not match its contents".into());
    }
    from_bytes(&data[HEAD..]).map_err(|e| format!("corrupt checkpoint: the body does not decode ({e})"))
}

/// Reads the checkpoint file at `path`. Only a regular file is read, and
/// no more of it than its header announces (a device or a file that
/// grows is refused, not read on without end).
pub fn read(path: &Path) -> Result<Saved, Error> {
    let refuse = |reason: String| Error::NotACheckpoint { path: path.to_owned(), reason };
    let mut file = File::open(path).map_err(|e| Error::io("cannot read the checkpoint", path, e))?;
    let meta = file.metadata().map_err(|e| Error::io("cannot read the checkpoint", path, e))?;
    if !meta.is_file() {
        return Err(refuse(format!("not a regular file ({})", kind(&meta.file_type()))));
    }
    let mut head = Vec::with_capacity(HEAD);
    (&mut file)
        .take(HEAD as u64)
        .read_to_end(&mut head)
        .map_err(|e| Error::io("cannot read the checkpoint", path, e))?;
    let whole = header(&head).map_err(refuse)?;
    if whole != meta.len() {
        return Err(refuse(format!(
            "truncated or damaged checkpoint: {} bytes, its header announces {whole}",
            meta.len()
        )));
    }
    let mut bytes = head;
    bytes.reserve_exact((whole as usize).saturating_sub(HEAD));
    (&mut file)
        .take(whole - HEAD as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("cannot read the checkpoint", path, e))?;
    decode(&bytes).map_err(refuse)
}

/// A file type in words.
fn kind(t: &fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_block_device() || t.is_char_device() {
        "a device"
    } else if t.is_fifo() {
        "a named pipe"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// The directory `path` is in (`.` for a bare name).
fn dir_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The file name of `path`, for the names of files beside it.
fn name_of(path: &Path) -> String {
    path.file_name().map_or_else(|| "checkpoint".into(), |n| n.to_string_lossy().into_owned())
}

/// Whether a checkpoint may be written at `path`: its directory exists,
/// and nothing is there or a regular file (whose metadata it returns).
pub fn check_target(path: &Path) -> Result<Option<fs::Metadata>, Error> {
    if path.as_os_str().is_empty() {
        return Err(Error::Path { path: path.to_owned(), reason: "the file name is empty".into() });
    }
    if path.file_name().is_none() {
        return Err(Error::Path { path: path.to_owned(), reason: "names a directory, not a file".into() });
    }
    let dir = dir_of(path);
    match fs::metadata(&dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(Error::Path {
                path: path.to_owned(),
                reason: format!("{} is not a directory", dir.display()),
            });
        }
        Err(e) => return Err(Error::io("no directory for the checkpoint", &dir, e)),
    }
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_file() => Ok(Some(m)),
        Ok(m) => Err(Error::Path {
            path: path.to_owned(),
            reason: format!("is {}; a checkpoint replaces only a regular file", kind(&m.file_type())),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("cannot inspect the checkpoint's path", path, e)),
    }
}

/// Writes `bytes` to `path` atomically (see the module's documentation):
/// through [`treelb_files::output::write_bytes`], after [`check_target`].
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    check_target(path)?;
    treelb_files::output::write_bytes(path, bytes)
        .map_err(|e| Error::io("cannot write the checkpoint", path, e))
}

/// The exclusive lock of a checkpoint, held while a run writes it (see the
/// module's documentation); released when dropped.
#[derive(Debug)]
pub struct Lock {
    _file: File,
}

impl Lock {
    /// Locks the checkpoint at `path`, or says which run holds it.
    pub fn acquire(path: &Path) -> Result<Lock, Error> {
        let lock = dir_of(path).join(format!(".{}.lock", name_of(path)));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&lock)
            .map_err(|e| Error::io("cannot create the checkpoint's lock file", &lock, e))?;
        match file.try_lock() {
            Ok(()) => Ok(Lock { _file: file }),
            Err(fs::TryLockError::WouldBlock) => Err(Error::Locked { path: path.to_owned(), lock }),
            Err(fs::TryLockError::Error(e)) => Err(Error::io("cannot lock the checkpoint", &lock, e)),
        }
    }
}
