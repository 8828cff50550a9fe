//! Why a command failed, and the parsers of numbers every command shares.

use std::any::Any;
use std::fmt;
use std::io;
use std::str::FromStr;

use treelb_files::values::BytesError;

/// Why a command failed: a one-line message for the user (what was
/// wrong, and where), and for failures of input or output the
/// [`io::ErrorKind`], so that a closed pipe is told apart by its kind, not
/// by its message.
#[derive(Debug)]
pub(crate) enum Error {
    /// Bad input, or a check that failed: the message names what and where.
    Input(String),
    /// An input or output operation failed.
    Io(io::ErrorKind, String),
    /// An output file could not be written after the report was printed
    /// (see the module `outputs`): exit code 4.
    Unwritten(String),
}

impl Error {
    /// The [`io::ErrorKind`] of a failed input or output operation.
    pub(crate) fn io_kind(&self) -> Option<io::ErrorKind> {
        match self {
            Error::Input(_) | Error::Unwritten(_) => None,
            Error::Io(kind, _) => Some(*kind),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input(msg) | Error::Io(_, msg) | Error::Unwritten(msg) => f.write_str(msg),
        }
    }
}

impl<E: std::error::Error + 'static> From<E> for Error {
    fn from(e: E) -> Self {
        let message = e.to_string();
        match (&e as &dyn Any).downcast_ref::<io::Error>() {
            Some(io) => Error::Io(io.kind(), message),
            None => Error::Input(message),
        }
    }
}

/// Builds an [`Error`] from a format string.
macro_rules! err {
    ($($t:tt)*) => { $crate::error::Error::Input(format!($($t)*)) };
}
pub(crate) use err;

/// Parses a number given to `flag`, with the flag's name in the error.
pub(crate) fn number<T: FromStr>(flag: &str, value: &str) -> Result<T, Error> {
    value.trim().parse().map_err(|_| err!("{flag} expects a non-negative integer, got `{value}`"))
}

/// Parses a number that must be at least 1.
pub(crate) fn positive(flag: &str, value: &str) -> Result<u64, Error> {
    match number::<u64>(flag, value)? {
        0 => Err(err!("{flag} must be at least 1, got 0")),
        n => Ok(n),
    }
}

/// Parses a number of bytes given to `flag`, with an optional K, M, G or T
/// suffix (powers of 1024).
pub(crate) fn bytes(flag: &str, value: &str) -> Result<u64, Error> {
    treelb_files::values::bytes(value).map_err(|e| match e {
        BytesError::UnknownUnit => err!("{flag}: unknown unit in `{value}` (expected K, M, G or T)"),
        BytesError::NotBytes => err!("{flag} {e}, got `{value}`"),
    })
}

/// Parses `N` comma-separated finite numbers given to `flag`, e.g.
/// `-0.75,0.1`; `form` names them in the error.
pub(crate) fn numbers<const N: usize>(flag: &str, form: &str, value: &str) -> Result<[f64; N], Error> {
    treelb_files::values::numbers(value).ok_or_else(|| err!("{flag} expects {form}, got `{value}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_name_their_flag() {
        let e = numbers::<2>("--center", "RE,IM", "1,2,3").unwrap_err().to_string();
        assert_eq!(e, "--center expects RE,IM, got `1,2,3`");
    }
}
