//! Knapsack instances: items, Pisinger's generator, a text format, and the
//! dynamic program that checks the branch and bound.

use std::fmt;
use std::io::BufRead;
use std::path::Path;
use std::str::FromStr;

use serde::Serialize;

use crate::input::{self, LimitError, quote};
use crate::splitmix::SplitMix64;

/// The largest knapsack file read, in bytes: 256 MiB, some ten million
/// items. The classic test sets have at most 10,000 items (about 150 KB);
/// a larger input is refused ([`LimitError::InputTooLarge`]) before its
/// items fill the memory.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// One item: its profit and its weight, both positive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Item {
    /// The profit of packing the item.
    pub profit: i64,
    /// The weight of the item.
    pub weight: i64,
}

/// A 0/1 knapsack instance: pack a subset of the items of total weight at
/// most `capacity` with the largest total profit.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Instance {
    /// The items, numbered from 0 in this order.
    pub items: Vec<Item>,
    /// The capacity of the knapsack.
    pub capacity: i64,
}

/// The largest profit, weight or capacity accepted: sums of `2^16` such
/// numbers, and their products in the bound, stay far inside `i64`/`i128`.
pub const MAX_VALUE: i64 = 1 << 40;

/// An instance that cannot be solved as given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InstanceError {
    /// An item with a profit or weight outside `1..=MAX_VALUE`.
    #[error("item {item}: profit {profit} and weight {weight} must be between 1 and {max}", max = MAX_VALUE)]
    BadItem {
        /// The 1-based item number (the `item`-th item of the list).
        item: usize,
        /// Its profit.
        profit: i64,
        /// Its weight.
        weight: i64,
    },
    /// A capacity outside `0..=MAX_VALUE`.
    #[error("the capacity {0} must be between 0 and {max}", max = MAX_VALUE)]
    BadCapacity(i64),
}

impl Instance {
    /// An instance, checked: profits and weights in `1..=MAX_VALUE`, the
    /// capacity in `0..=MAX_VALUE`.
    pub fn new(items: Vec<Item>, capacity: i64) -> Result<Self, InstanceError> {
        if !(0..=MAX_VALUE).contains(&capacity) {
            return Err(InstanceError::BadCapacity(capacity));
        }
        for (item, &Item { profit, weight }) in items.iter().enumerate() {
            if !(1..=MAX_VALUE).contains(&profit) || !(1..=MAX_VALUE).contains(&weight) {
                return Err(InstanceError::BadItem { item: item + 1, profit, weight });
            }
        }
        Ok(Instance { items, capacity })
    }

    /// The number of items.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there are no items.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The profit of a selection of distinct items (0-based numbers), or
    /// `None` if it is not feasible: an unknown or repeated item, or more
    /// weight than the capacity.
    ///
    /// ```
    /// use treelb_apps::knapsack::{Instance, Item};
    /// let k = Instance::new(vec![Item { profit: 5, weight: 4 }, Item { profit: 3, weight: 3 }], 6).unwrap();
    /// assert_eq!(k.profit_of(&[0]), Some(5));
    /// assert_eq!(k.profit_of(&[0, 1]), None); // weight 7 > 6
    /// ```
    pub fn profit_of(&self, selection: &[u32]) -> Option<i64> {
        let mut seen = vec![false; self.items.len()];
        let (mut profit, mut weight) = (0i64, 0i64);
        for &i in selection {
            let item = self.items.get(i as usize)?;
            if std::mem::replace(&mut seen[i as usize], true) {
                return None;
            }
            profit += item.profit;
            weight += item.weight;
        }
        (weight <= self.capacity).then_some(profit)
    }

    /// The optimum by dynamic programming over capacities, `O(n · capacity)`
    /// time and `O(capacity)` memory: the cross-check of the branch and
    /// bound. Returns `None` if the capacity exceeds `max_capacity` (the
    /// table would be too large).
    ///
    /// ```
    /// use treelb_apps::knapsack::{Class, Spec};
    /// let k = Spec::new(Class::Uncorrelated, 20, 100, 1).generate();
    /// assert!(k.dp_optimum(1 << 20).is_some());
    /// ```
    pub fn dp_optimum(&self, max_capacity: i64) -> Option<i64> {
        if self.capacity > max_capacity {
            return None;
        }
        let c = usize::try_from(self.capacity).ok()?;
        let mut best = vec![0i64; c + 1];
        for item in &self.items {
            let w = item.weight as usize;
            if w > c {
                continue;
            }
            for cap in (w..=c).rev() {
                best[cap] = best[cap].max(best[cap - w] + item.profit);
            }
        }
        Some(best[c])
    }
}

/// Pisinger's instance classes ("Where are the hard knapsack problems?",
/// 2005), with coefficients drawn from `1..=R`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Profits and weights independent, uniform in `1..=R`.
    Uncorrelated,
    /// Weights uniform in `1..=R`, profits uniform in `w − R/10 ..= w + R/10`
    /// (at least 1).
    WeaklyCorrelated,
    /// Weights uniform in `1..=R`, profit `w + R/10`: hard for bounds that
    /// rank items by ratio.
    StronglyCorrelated,
    /// Weights uniform in `1..=R`, profit = weight.
    SubsetSum,
}

impl Class {
    /// Every class, in the order above.
    pub const ALL: [Class; 4] =
        [Class::Uncorrelated, Class::WeaklyCorrelated, Class::StronglyCorrelated, Class::SubsetSum];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Class::Uncorrelated => "uncorrelated",
            Class::WeaklyCorrelated => "weakly-correlated",
            Class::StronglyCorrelated => "strongly-correlated",
            Class::SubsetSum => "subset-sum",
        }
    }

    /// How profits follow weights, in one line (for listings such as
    /// `--help`).
    pub fn description(self) -> &'static str {
        match self {
            Class::Uncorrelated => "profits and weights independent",
            Class::WeaklyCorrelated => "profit within R/10 of the weight",
            Class::StronglyCorrelated => "profit = weight + R/10",
            Class::SubsetSum => "profit = weight",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown class name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown knapsack class `{0}` (expected one of: uncorrelated, weakly-correlated, strongly-correlated, subset-sum)"
)]
pub struct ParseClassError(pub String);

impl FromStr for Class {
    type Err = ParseClassError;

    /// The full names, or the short ones `uncor`, `weak`, `strong`, `subset`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "uncorrelated" | "uncor" => Ok(Class::Uncorrelated),
            "weakly-correlated" | "weak" => Ok(Class::WeaklyCorrelated),
            "strongly-correlated" | "strong" => Ok(Class::StronglyCorrelated),
            "subset-sum" | "subset" => Ok(Class::SubsetSum),
            _ => Err(ParseClassError(s.to_owned())),
        }
    }
}

/// What to generate: a class, `n` items with coefficients up to `range`,
/// a seed, and Pisinger's capacity rule: instance `h` of a series of `H`
/// has capacity `⌊h · Σw / (H + 1)⌋` (`h = H = 1`: half the total weight).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Spec {
    /// The instance class.
    pub class: Class,
    /// The number of items.
    pub n: usize,
    /// `R`: coefficients are drawn from `1..=R`.
    pub range: i64,
    /// The seed of the [`SplitMix64`] generator.
    pub seed: u64,
    /// `h`: the instance's number in its series, `1..=H`.
    pub h: u32,
    /// `H`: the length of the series.
    pub series: u32,
}

impl Spec {
    /// `n` items of `class` with coefficients up to `range`; capacity half
    /// the total weight.
    pub fn new(class: Class, n: usize, range: i64, seed: u64) -> Self {
        Spec { class, n, range, seed, h: 1, series: 1 }
    }

    /// The instance. The same spec always gives the same instance.
    ///
    /// # Panics
    /// If `range` is not in `1..=2^30`, or not `1 <= h <= H`.
    ///
    /// ```
    /// use treelb_apps::knapsack::{Class, Spec};
    /// let k = Spec::new(Class::StronglyCorrelated, 5, 1000, 7).generate();
    /// assert!(k.items.iter().all(|i| i.profit == i.weight + 100));
    /// assert_eq!(k, Spec::new(Class::StronglyCorrelated, 5, 1000, 7).generate());
    /// ```
    pub fn generate(&self) -> Instance {
        assert!((1..=1 << 30).contains(&self.range), "the coefficient range must be between 1 and 2^30");
        assert!((1..=self.series).contains(&self.h), "need 1 <= h <= H");
        let r = self.range;
        let mut rng = SplitMix64::new(self.seed);
        let items: Vec<Item> = (0..self.n)
            .map(|_| {
                let weight = rng.range(1, r);
                let profit = match self.class {
                    Class::Uncorrelated => rng.range(1, r),
                    Class::WeaklyCorrelated => rng.range(weight - r / 10, weight + r / 10).max(1),
                    Class::StronglyCorrelated => weight + r / 10,
                    Class::SubsetSum => weight,
                };
                Item { profit, weight }
            })
            .collect();
        let total: i64 = items.iter().map(|i| i.weight).sum();
        let capacity = i64::from(self.h) * total / (i64::from(self.series) + 1);
        Instance { items, capacity }
    }
}

/// Why a knapsack file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// The file could not be read.
    #[error("cannot read the instance: {0}")]
    Io(#[from] std::io::Error),
    /// A line longer than [`MAX_LINE_BYTES`](crate::input::MAX_LINE_BYTES),
    /// or an input larger than [`MAX_INPUT_BYTES`].
    #[error(transparent)]
    Limit(#[from] LimitError),
    /// The first line is not `N CAPACITY`.
    #[error("line {line}: expected the header `N CAPACITY` (two non-negative integers), found `{found}`")]
    BadHeader {
        /// The 1-based line number.
        line: usize,
        /// The offending line, as [`quote`] shows it.
        found: String,
    },
    /// An item line that is not `PROFIT WEIGHT`.
    #[error("line {line}: expected item {item} as `PROFIT WEIGHT` (two integers), found `{found}`")]
    BadItem {
        /// The 1-based line number.
        line: usize,
        /// The 1-based item number.
        item: usize,
        /// The offending line, as [`quote`] shows it.
        found: String,
    },
    /// The input ended before `N` items.
    #[error("line {line}: expected {expected} items, found only {found}")]
    MissingItems {
        /// The line after the last one.
        line: usize,
        /// `N` of the header.
        expected: usize,
        /// The items read.
        found: usize,
    },
    /// A line after the `N`-th item.
    #[error("line {line}: expected the end of the input after {n} items, found `{found}`")]
    TrailingData {
        /// The 1-based line number.
        line: usize,
        /// `N` of the header.
        n: usize,
        /// The offending line, as [`quote`] shows it.
        found: String,
    },
    /// A profit, weight or capacity out of range.
    #[error("line {line}: {source}")]
    Invalid {
        /// The 1-based line number.
        line: usize,
        /// What is wrong with the value.
        source: InstanceError,
    },
    /// The input has no header.
    #[error("line {line}: expected the header `N CAPACITY`, found the end of the input")]
    Empty {
        /// The line after the last one.
        line: usize,
    },
}

/// Parses the plain format of the classic knapsack test sets: a header line
/// `N CAPACITY`, then `N` lines `PROFIT WEIGHT`. Blank lines and lines
/// starting with `#` are ignored (the file is read as bytes: a comment may
/// hold any; a byte order mark at the start is skipped). Items are numbered
/// from 1 in errors, as on the command line; the input an error quotes is
/// escaped and cut short ([`crate::input::quote`]). A line may hold at most
/// [`MAX_LINE_BYTES`](crate::input::MAX_LINE_BYTES) (1 MiB), the whole
/// input at most [`MAX_INPUT_BYTES`] (256 MiB).
///
/// ```
/// use treelb_apps::knapsack::parse_str;
/// let k = parse_str("3 10\n# profit weight\n6 5\n5 4\n4 6\n")?;
/// assert_eq!((k.len(), k.capacity), (3, 10));
/// assert_eq!(parse_str("2 10\n6 5\n").unwrap_err().to_string(), "line 3: expected 2 items, found only 1");
/// # Ok::<(), treelb_apps::knapsack::ParseError>(())
/// ```
pub fn parse_str(text: &str) -> Result<Instance, ParseError> {
    parse(text.as_bytes())
}

/// Reads an instance in the plain format of [`parse_str`] from a file.
pub fn read_file(path: impl AsRef<Path>) -> Result<Instance, ParseError> {
    parse(std::io::BufReader::new(std::fs::File::open(path)?))
}

/// Parses an instance in the plain format of [`parse_str`] from a reader.
pub fn parse(reader: impl BufRead) -> Result<Instance, ParseError> {
    parse_within(reader, MAX_INPUT_BYTES)
}

/// [`parse`] with a limit of `limit` bytes on the input.
fn parse_within(reader: impl BufRead, limit: u64) -> Result<Instance, ParseError> {
    let mut header: Option<(usize, i64)> = None;
    let mut items = Vec::new();
    let mut last = 0;
    let mut lines = input::Lines::new(reader, limit, "a knapsack instance");
    while let Some((line, text)) = lines.next_line::<ParseError>()? {
        last = line;
        let trimmed = input::trim(text);
        if trimmed.is_empty() || trimmed.starts_with(b"#") {
            continue;
        }
        // Two fields are wanted: a third only marks the line as wrong.
        let mut fields = input::fields(trimmed);
        let two = match (fields.next(), fields.next(), fields.next()) {
            (Some(a), Some(b), None) => Some((a, b)),
            _ => None,
        };
        match header {
            None => {
                let parsed = two.and_then(|(n, c)| input::number::<usize>(n).zip(input::number::<i64>(c)));
                let Some((n, capacity)) = parsed.filter(|&(_, c)| c >= 0) else {
                    return Err(ParseError::BadHeader { line, found: quote(trimmed) });
                };
                if capacity > MAX_VALUE {
                    return Err(ParseError::Invalid { line, source: InstanceError::BadCapacity(capacity) });
                }
                header = Some((n, capacity));
            }
            Some((n, _)) => {
                if items.len() == n {
                    return Err(ParseError::TrailingData { line, n, found: quote(trimmed) });
                }
                let parsed = two.and_then(|(p, w)| input::number::<i64>(p).zip(input::number::<i64>(w)));
                let Some((profit, weight)) = parsed else {
                    return Err(ParseError::BadItem { line, item: items.len() + 1, found: quote(trimmed) });
                };
                if !(1..=MAX_VALUE).contains(&profit) || !(1..=MAX_VALUE).contains(&weight) {
                    let source = InstanceError::BadItem { item: items.len() + 1, profit, weight };
                    return Err(ParseError::Invalid { line, source });
                }
                items.push(Item { profit, weight });
            }
        }
    }
    let Some((n, capacity)) = header else {
        return Err(ParseError::Empty { line: last + 1 });
    };
    if items.len() < n {
        return Err(ParseError::MissingItems { line: last + 1, expected: n, found: items.len() });
    }
    Ok(Instance { items, capacity })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_stops_at_its_limit() {
        let text = "2 10\n1 2\n3 4\n";
        assert_eq!(parse_within(text.as_bytes(), 13).unwrap().len(), 2);
        let e = parse_within(text.as_bytes(), 8).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2: the input is larger than 8 bytes, the limit for a knapsack instance"
        );
    }
}
