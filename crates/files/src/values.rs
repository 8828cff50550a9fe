//! Values as people write them on a command line: a count in scientific
//! notation (`1e6`), a duration with its unit (`90s`, `1h30m`), a number of
//! PEs, of repetitions, of pixels. Each parser returns the value, or why it
//! is not one in a few words that name no option (`must be at least 1`):
//! the caller says which option it was given to.
//!
//! ```
//! use std::time::Duration;
//! use treelb_files::values;
//!
//! assert_eq!(values::count("1e6"), Ok(1_000_000));
//! assert_eq!(values::duration("1h30m"), Ok(Duration::from_secs(5400)));
//! assert_eq!(values::threads("0"), Err("must be at least 1".to_owned()));
//! ```

use std::time::Duration;

/// An integer of at least 1.
pub fn positive(value: &str) -> Result<u64, String> {
    match value.trim().parse::<u64>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) if value.trim().parse::<i128>().is_ok_and(|n| n < 0) => Err("must be at least 1".into()),
        Err(_) => Err("expects a positive integer".into()),
    }
}

/// A number of PEs: 1 to 4096.
pub fn threads(value: &str) -> Result<usize, String> {
    let n = positive(value)?;
    usize::try_from(n).ok().filter(|&n| n <= 4096).ok_or_else(|| "too many (at most 4096)".into())
}

/// A number of repetitions: 1 to 1000000.
pub fn repeat(value: &str) -> Result<usize, String> {
    let n = positive(value)?;
    usize::try_from(n).ok().filter(|&n| n <= 1_000_000).ok_or_else(|| "too many (at most 1000000)".into())
}

/// A size in pixels or a count of iterations or tiles: 1 to 2^32 - 1.
pub fn dimension(value: &str) -> Result<u32, String> {
    let n = positive(value)?;
    u32::try_from(n).map_err(|_| format!("too large (at most {})", u32::MAX))
}

/// One fan-out of a tree of producers: 1 to 4096.
pub fn fanout(value: &str) -> Result<usize, String> {
    threads(value).map_err(|e| e.replace("too many", "too wide"))
}

/// A count of at least 1, as an integer (`1000000`) or in scientific
/// notation (`1e6`, which must be a whole number).
pub fn count(value: &str) -> Result<u64, String> {
    let v = value.trim();
    let n = match v.parse::<u64>() {
        Ok(n) => n,
        Err(_) => v
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0 && x.fract() == 0.0 && *x < 1.8e19)
            .map(|x| x as u64)
            .ok_or_else(|| "expects a whole number such as 1000000 or 1e6".to_owned())?,
    };
    if n == 0 {
        return Err("must be at least 1".into());
    }
    Ok(n)
}

/// A positive duration as people write it, in humantime's units:
/// `90s`, `5m`, `1h30m`, `1h 30m`, `250ms`; less than 30 years.
pub fn duration(value: &str) -> Result<Duration, String> {
    const FORMAT: &str = "a number with a unit (ms, s, m, h, d), such as 250ms, 90s, 5m or 1h30m";
    let d = humantime::parse_duration(value.trim()).map_err(|e| match e {
        humantime::DurationError::UnknownUnit { unit, .. } if !unit.is_empty() => {
            format!("`{unit}` is not a unit of time: expects {FORMAT}")
        }
        humantime::DurationError::NumberOverflow => "must be less than 30 years".to_owned(),
        _ => format!("expects a duration: {FORMAT}"),
    })?;
    if d.is_zero() {
        return Err("must be more than 0".into());
    }
    if d > Duration::from_secs(1_000_000_000) {
        return Err("must be less than 30 years".into());
    }
    Ok(d)
}

/// Why a value is not a number of bytes ([`bytes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BytesError {
    /// The suffix is a letter other than K, M, G or T.
    UnknownUnit,
    /// No positive whole number of bytes (0, a fraction, too many).
    NotBytes,
}

impl std::fmt::Display for BytesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BytesError::UnknownUnit => "unknown unit (expected K, M, G or T)",
            BytesError::NotBytes => "expects a positive number of bytes such as 2G or 500M",
        })
    }
}

/// A positive number of bytes, with an optional suffix K, M, G or T
/// (powers of 1024).
///
/// ```
/// use treelb_files::values::{BytesError, bytes};
///
/// assert_eq!(bytes("2G"), Ok(2 << 30));
/// assert_eq!(bytes("4096"), Ok(4096));
/// assert_eq!(bytes("2X"), Err(BytesError::UnknownUnit));
/// assert_eq!(bytes("0M"), Err(BytesError::NotBytes));
/// ```
pub fn bytes(value: &str) -> Result<u64, BytesError> {
    let v = value.trim();
    let (digits, shift) = match v.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(BytesError::UnknownUnit),
            };
            (&v[..i], shift)
        }
        _ => (v, 0),
    };
    digits
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .filter(|&n| n > 0)
        .ok_or(BytesError::NotBytes)
}

/// `N` finite numbers separated by commas, e.g. `-0.75,0.1` (a point of
/// the plane); `None` if there are more or fewer, or one is not a finite
/// number.
pub fn numbers<const N: usize>(value: &str) -> Option<[f64; N]> {
    let parts: Vec<f64> = value
        .split(',')
        .map(|p| p.trim().parse::<f64>().ok().filter(|x| x.is_finite()))
        .collect::<Option<_>>()?;
    parts.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_comma_separated_and_finite() {
        assert_eq!(numbers::<2>("-0.75, 0.1"), Some([-0.75, 0.1]));
        for bad in ["1", "1,2,3", "a,b", "1,inf", "", "1,,2"] {
            assert_eq!(numbers::<2>(bad), None, "{bad}");
        }
    }

    #[test]
    fn counts_take_scientific_notation_when_whole() {
        assert_eq!(count("1000"), Ok(1000));
        assert_eq!(count("1e6"), Ok(1_000_000));
        assert_eq!(count("2.5e3"), Ok(2500));
        assert!(count("1.5").is_err());
        assert!(count("0").is_err());
        assert!(count("1.5e3x").is_err());
        assert_eq!(threads("4096"), Ok(4096));
        assert!(threads("4097").is_err());
        assert_eq!(threads("-1"), Err("must be at least 1".into()));
        assert_eq!(positive("-7"), Err("must be at least 1".into()));
        assert_eq!(fanout("5000"), Err("too wide (at most 4096)".into()));
        assert_eq!(repeat("x"), Err("expects a positive integer".into()));
        assert_eq!(dimension("4294967296"), Err("too large (at most 4294967295)".into()));
    }

    #[test]
    fn durations_have_units() {
        let format = "a number with a unit (ms, s, m, h, d), such as 250ms, 90s, 5m or 1h30m";
        assert_eq!(duration("garbage"), Err(format!("expects a duration: {format}")));
        assert_eq!(duration("5"), Err(format!("expects a duration: {format}")));
        assert_eq!(duration("5 parsecs"), Err(format!("`parsecs` is not a unit of time: expects {format}")));
        assert_eq!(duration("0s"), Err("must be more than 0".into()));
        assert_eq!(duration("250ms"), Ok(Duration::from_millis(250)));
    }
}
