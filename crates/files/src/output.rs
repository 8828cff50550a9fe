//! Output files: checked before the work, written whole after it.
//!
//! A run that writes a file at its end (a trace, an image, a report page)
//! must not find out then that it cannot: [`check`] is called on every
//! output path before the work starts, and refuses a path that [`write`](fn@write)
//! would fail on — a directory that does not exist or is not a directory, a
//! path that is a directory, a file or device that cannot be opened for
//! writing, a directory in which no file can be created (no permission, a
//! read-only file system).
//!
//! [`write`](fn@write) then writes the file whole, the discipline of SQLite and
//! PostgreSQL:
//!
//! 1. a new temporary file is created in the target's directory,
//!    `.NAME.PID.RANDOM.tmp`, *exclusively* (`O_CREAT | O_EXCL`) and without
//!    following a link (`O_NOFOLLOW`): a file or link planted at that name
//!    makes the creation fail (then another name is tried), it is never
//!    written through;
//! 2. the content is written to it and flushed to the disk (`fsync`);
//! 3. it is renamed over the target (atomic: a reader sees the old file or
//!    the new one, never half of one), and the directory is flushed.
//!
//! A failure at any step removes the temporary file and leaves the target
//! as it was. A target that exists and is not a regular file — a device
//! such as `/dev/null`, a FIFO — is not replaced (renaming over
//! `/dev/full` would turn the device into a file): it is opened and
//! written in place. A target that is a link to a file is replaced by the
//! new file (the link's target is left alone).
//!
//! ```
//! use treelb_files::output;
//! let dir = std::env::temp_dir().join(format!("treelb-output-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("report.txt");
//! output::check(&path).unwrap();
//! // … the work …
//! output::write(&path, |w| w.write_all(b"the answer\n")).unwrap();
//! assert_eq!(std::fs::read_to_string(&path).unwrap(), "the answer\n");
//! assert!(output::check(&dir.join("missing/report.txt")).is_err());
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```

use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasher, RandomState};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::text::escape_path;

/// Why an output path cannot be written; its message names the path's part
/// at fault, escaped (see [`escape_path`]).
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The directory the file would go in does not exist.
    #[error("the directory {} does not exist", escape_path(.0))]
    NoDirectory(PathBuf),
    /// What the file's directory would be is not a directory.
    #[error("{} is not a directory", escape_path(.0))]
    NotADirectory(PathBuf),
    /// The path is a directory.
    #[error("it is a directory")]
    IsADirectory,
    /// No file can be created in the directory.
    #[error("cannot create a file in {}: {source}", escape_path(.dir))]
    CannotCreate {
        /// The directory.
        dir: PathBuf,
        /// What creating a file there said.
        source: io::Error,
    },
    /// The path exists, is not a regular file, and cannot be opened for
    /// writing.
    #[error("cannot write to it: {0}")]
    NotWritable(io::Error),
    /// The path cannot be examined.
    #[error("{0}")]
    Io(io::Error),
}

/// What an output path is, for [`write`](fn@write).
enum Target {
    /// Nothing, a regular file, or a link to one: replaced by a new file.
    Replaced {
        /// The directory of the path.
        dir: PathBuf,
        /// The permissions to give the new file: the old file's, if any.
        permissions: Option<fs::Permissions>,
    },
    /// A device, a FIFO: written in place.
    InPlace,
}

/// The directory `path` is in (`.` for a bare file name).
fn directory_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// What `path` is, or why it cannot be an output.
fn target(path: &Path) -> Result<Target, OutputError> {
    let dir = directory_of(path);
    match fs::metadata(&dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(OutputError::NotADirectory(dir)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(OutputError::NoDirectory(dir)),
        Err(e) if e.kind() == io::ErrorKind::NotADirectory => return Err(OutputError::NotADirectory(dir)),
        Err(e) => return Err(OutputError::Io(e)),
    }
    // `metadata` follows a link: a link to a device is the device.
    match fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(OutputError::IsADirectory),
        Ok(m) if m.is_file() => Ok(Target::Replaced { dir, permissions: Some(m.permissions()) }),
        Ok(m) if m.file_type().is_socket() => {
            Err(OutputError::NotWritable(io::Error::other("it is a socket")))
        }
        Ok(_) => Ok(Target::InPlace),
        // A path ending in `/` names a directory that is not there.
        Err(e)
            if e.kind() == io::ErrorKind::NotFound && path.as_os_str().as_encoded_bytes().ends_with(b"/") =>
        {
            Err(OutputError::IsADirectory)
        }
        // Nothing there, or a dangling link (replaced, never followed).
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Target::Replaced { dir, permissions: None }),
        Err(e) => Err(OutputError::Io(e)),
    }
}

/// Checks, before the work, that [`write`](fn@write) can write `path`: its directory
/// exists and a file can be created in it (a temporary file is created
/// exclusively and removed), or the path is a device or FIFO that opens for
/// writing (without blocking: a FIFO must have a reader already).
pub fn check(path: &Path) -> Result<(), OutputError> {
    match target(path)? {
        Target::Replaced { dir, .. } => {
            let (file, temporary) =
                create_temporary(&dir, path).map_err(|source| OutputError::CannotCreate { dir, source })?;
            drop(file);
            fs::remove_file(&temporary).map_err(OutputError::Io)
        }
        Target::InPlace => OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map(drop)
            .map_err(OutputError::NotWritable),
    }
}

/// How many names [`create_temporary`] tries before it gives up.
const TEMPORARY_TRIES: u32 = 16;

/// A new file `.NAME.PID.RANDOM.tmp` in `dir`, created exclusively and
/// without following a link, with its path; another name is tried if one is
/// taken.
fn create_temporary(dir: &Path, target: &Path) -> io::Result<(File, PathBuf)> {
    let name = target.file_name().map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    let random = RandomState::new();
    let pid = std::process::id();
    create_first((0..TEMPORARY_TRIES).map(|attempt| {
        let tag = random.hash_one((pid, attempt));
        dir.join(format!(".{name}.{pid}.{tag:016x}.tmp"))
    }))
}

/// The first of `names` that can be created as a new file, exclusively and
/// without following a link (a file or link already there, even a link to
/// nowhere, makes the creation fail: the next name is tried).
fn create_first(names: impl Iterator<Item = PathBuf>) -> io::Result<(File, PathBuf)> {
    let mut last = io::Error::other("no name tried");
    for path in names {
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path)
        {
            Ok(file) => return Ok((file, path)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// Writes the file `path` whole with `fill`, which writes its content (to a
/// buffer): through a new temporary file renamed over `path`, or in place
/// for a device or FIFO (see the [module documentation](self)). An error of
/// `fill` or of the disk leaves `path` as it was (a device may have taken
/// part of the content).
pub fn write(path: &Path, fill: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let (dir, permissions) = match target(path).map_err(|e| match e {
        OutputError::Io(e) | OutputError::NotWritable(e) => e,
        OutputError::CannotCreate { source, .. } => source,
        other => io::Error::other(other.to_string()),
    })? {
        Target::InPlace => {
            let mut out = BufWriter::new(OpenOptions::new().write(true).open(path)?);
            fill(&mut out)?;
            return out.flush();
        }
        Target::Replaced { dir, permissions } => (dir, permissions),
    };
    let (file, temporary) = create_temporary(&dir, path)?;
    let written = (|| {
        let mut out = BufWriter::new(file);
        fill(&mut out)?;
        let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
        if let Some(permissions) = permissions {
            file.set_permissions(permissions)?;
        }
        file.sync_all()?;
        drop(file);
        fs::rename(&temporary, path)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&temporary);
        return Err(e);
    }
    // The rename itself reaches the disk with the directory.
    File::open(&dir)?.sync_all()
}

/// [`write`](fn@write) of `bytes`.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write(path, |w| w.write_all(bytes))
}

/// Refuses two options that name the same output file, the later one
/// overwriting the earlier: `files` are (option, path) pairs, a path
/// `None` where the option is not given.
///
/// ```
/// use treelb_files::output::distinct;
///
/// assert_eq!(distinct(&[("--out", Some("a.png")), ("--html", None), ("--timeline", Some("b.svg"))]), Ok(()));
/// assert_eq!(
///     distinct(&[("--out", Some("a.png")), ("--timeline", Some("a.png"))]),
///     Err("--out and --timeline name the same file `a.png`".to_owned())
/// );
/// ```
pub fn distinct(files: &[(&str, Option<&str>)]) -> Result<(), String> {
    for (i, (option_a, a)) in files.iter().enumerate() {
        for (option_b, b) in &files[i + 1..] {
            if let (Some(a), Some(b)) = (a, b)
                && a == b
            {
                return Err(format!("{option_a} and {option_b} name the same file `{a}`"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the system's temporary directory.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("treelb-output-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The names in `dir`.
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn bad_paths_are_refused_before_anything_is_written() {
        let dir = scratch("refused");
        let file = dir.join("file");
        fs::write(&file, "x").unwrap();
        let message = |path: &Path| check(path).unwrap_err().to_string();
        assert_eq!(
            message(&dir.join("missing/x")),
            format!("the directory {} does not exist", dir.join("missing").display())
        );
        assert_eq!(message(&file.join("x")), format!("{} is not a directory", file.display()));
        assert_eq!(message(&dir), "it is a directory");
        assert_eq!(message(Path::new("missing-dir/")), "it is a directory");
        let hostile = message(&dir.join("\u{1b}]0;PWNED\u{7}/x"));
        assert!(!hostile.contains('\u{1b}') && hostile.contains(r"\x1b]0;PWNED\x07"), "{hostile}");
        check(&dir.join("new")).unwrap();
        check(&file).unwrap();
        check(Path::new("/dev/null")).unwrap();
        // The probe leaves nothing behind.
        assert_eq!(names(&dir), ["file"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_is_replaced_whole_and_keeps_its_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("replaced");
        let path = dir.join("out.txt");
        fs::write(&path, "old content, longer than the new one").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write_bytes(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o640);
        // A failing writer leaves the old file and no temporary file.
        let failed = write(&path, |w| {
            w.write_all(b"half")?;
            Err(io::Error::other("disk on fire"))
        });
        assert_eq!(failed.unwrap_err().to_string(), "disk on fire");
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(names(&dir), ["out.txt"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn links_planted_at_temporary_names_are_not_followed() {
        let dir = scratch("planted");
        let victim = dir.join("victim");
        fs::write(&victim, "VICTIM ORIGINAL CONTENT").unwrap();
        // Links at the first names tried: to a file, and to nowhere (which
        // an `O_CREAT` without `O_EXCL` would create).
        let (to_victim, to_nowhere, free) = (dir.join(".a.tmp"), dir.join(".b.tmp"), dir.join(".c.tmp"));
        std::os::unix::fs::symlink(&victim, &to_victim).unwrap();
        std::os::unix::fs::symlink(dir.join("created-through-a-link"), &to_nowhere).unwrap();
        let (mut file, path) = create_first([to_victim, to_nowhere, free.clone()].into_iter()).unwrap();
        assert_eq!(path, free);
        file.write_all(b"the output").unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "VICTIM ORIGINAL CONTENT");
        assert!(!dir.join("created-through-a-link").exists());
        // Only links: refused, nothing written.
        let only = create_first([dir.join(".a.tmp"), dir.join(".b.tmp")].into_iter());
        assert_eq!(only.unwrap_err().kind(), io::ErrorKind::AlreadyExists);
        // A whole write next to the links leaves them and the victim alone.
        write_bytes(&dir.join("out.txt"), b"new").unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "VICTIM ORIGINAL CONTENT");
        assert_eq!(names(&dir), [".a.tmp", ".b.tmp", ".c.tmp", "out.txt", "victim"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn devices_are_written_in_place_and_their_errors_reported() {
        write_bytes(Path::new("/dev/null"), b"gone").unwrap();
        assert!(fs::metadata("/dev/null").unwrap().file_type().is_char_device());
        if Path::new("/dev/full").exists() {
            check(Path::new("/dev/full")).unwrap();
            let e = write_bytes(Path::new("/dev/full"), &[0; 1 << 16]).unwrap_err();
            assert_eq!(e.raw_os_error(), Some(libc::ENOSPC), "{e}");
            assert!(fs::metadata("/dev/full").unwrap().file_type().is_char_device());
        }
    }
}
