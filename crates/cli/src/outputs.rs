//! The command line's output files — `--trace`, mandelbrot's `--out` and
//! `--pe-out`, plot-trace's `--out`, `--timeline` and `--html`, compare's
//! `--html`, `sim run --plot`, the folders of `bench --out` and `sim
//! reproduce --out`, `sim calibrate --out` and `sim predict --out`: checked
//! before the work, written after the report.
//!
//! * [`check`] (or [`check_folder`]) runs as soon as the command line is
//!   read: a missing directory, a directory where a file is asked for, a
//!   directory where no file can be created fail at once with one line
//!   naming the option and the path (exit code 2), before any work.
//! * [`later`] queues a file; `main` writes the queue once the report is
//!   on stdout ([`write_pending`]). Every file is written whole through
//!   [`treelb_apps::output::write`] (a temporary file created exclusively,
//!   renamed over the target). A write that fails all the same (a full
//!   disk; `--trace /dev/full`) comes after the report, which is not lost:
//!   one line on stderr names the option, the path and the error, and the
//!   exit code is [`UNWRITTEN`].
//!
//! Paths are shown escaped ([`escape_path`]): a file name holding an escape
//! sequence does not reach the terminal raw.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use treelb_apps::input::escape_path;
use treelb_apps::output;

use crate::error::{Error, err};

/// The exit code of a command whose report was printed but one of whose
/// output files could not be written.
pub(crate) const UNWRITTEN: u8 = 4;

/// Checks, before the work, that the file `path` given to `option` can be
/// written (see [`output::check`]).
pub(crate) fn check(option: &str, path: impl AsRef<Path>) -> Result<(), Error> {
    let path = path.as_ref();
    output::check(path).map_err(|e| err!("{option} {}: {e}", escape_path(path)))
}

/// Checks, before the work, an output folder given to `option` (or its
/// default): creates it (and its parents) if it is not there, and checks
/// that a file can be created in it.
pub(crate) fn check_folder(option: &str, dir: &Path) -> Result<(), Error> {
    let shown = escape_path(dir);
    if dir.exists() && !dir.is_dir() {
        return Err(err!("{option} {shown}: not a directory"));
    }
    std::fs::create_dir_all(dir).map_err(|e| err!("{option} {shown}: {e}"))?;
    output::check(&dir.join(".treelb-check")).map_err(|e| err!("{option} {shown}: {e}"))
}

/// [`check`] of a file whose directory the command creates if it is not
/// there (`sim calibrate --out`, `sim predict --out`): creates it now.
pub(crate) fn check_in_new_folder(option: &str, path: &Path) -> Result<(), Error> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
        std::fs::create_dir_all(dir).map_err(|e| err!("{option} {}: {e}", escape_path(path)))?;
    }
    check(option, path)
}

/// Writes the file `path` given to `option` now, whole: for a command that
/// writes its files after its report itself. An error is an
/// [`Error::Unwritten`].
pub(crate) fn write_now(
    option: &str,
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), Error> {
    output::write(path, fill).map_err(|e| unwritten(option, path, &e))
}

/// The error of a file that could not be written.
fn unwritten(option: &str, path: &Path, e: &io::Error) -> Error {
    Error::Unwritten(format!("{option} {}: {e}; the report above is complete without it", escape_path(path)))
}

/// What fills a queued file.
type Fill = Box<dyn FnOnce(&mut dyn Write) -> io::Result<()> + Send>;

/// The files to write once the report is out: option, path, content.
static PENDING: Mutex<Vec<(String, PathBuf, Fill)>> = Mutex::new(Vec::new());

/// Queues the file `path` given to `option`, written by `fill` after the
/// report ([`write_pending`]).
pub(crate) fn later(
    option: &str,
    path: impl Into<PathBuf>,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()> + Send + 'static,
) {
    PENDING.lock().unwrap_or_else(|e| e.into_inner()).push((option.to_owned(), path.into(), Box::new(fill)));
}

/// Writes every queued file, in order; the errors of those that could not
/// be written (the others are written all the same).
pub(crate) fn write_pending() -> Vec<Error> {
    let pending = std::mem::take(&mut *PENDING.lock().unwrap_or_else(|e| e.into_inner()));
    pending
        .into_iter()
        .filter_map(|(option, path, fill)| {
            output::write(&path, fill).err().map(|e| unwritten(&option, &path, &e))
        })
        .collect()
}
