//! Trees too big to run unbounded: [`Params::check_size`].

use std::fmt;

use super::params::{Params, TreeType};
use super::samples::{SAMPLE_TREES, SampleTree};
use crate::report::uts::format_size;

/// Without a cap on the work, trees of more nodes than this (published, or
/// expected over the random root state), or of more SHA-1 evaluations, are
/// refused before the run.
pub const DEFAULT_SIZE_LIMIT: f64 = 1e11;

/// Why a tree is refused before its run: a sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooBig(String);

impl fmt::Display for TooBig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TooBig {}

impl SampleTree {
    /// The sample tree of a run that names no tree and gives no parameters.
    pub const DEFAULT: &'static str = "T1";

    /// The tree of a UTS command line: the reference code's `flags` if it
    /// gives any (`["-t", "1", "-d", "10", …]`), else the sample tree `name`
    /// ([`SampleTree::DEFAULT`] if none); with the sample tree when it is
    /// one by name. The flags' errors start with `UTS parameters:`.
    ///
    /// ```
    /// use treelb_apps::uts::SampleTree;
    ///
    /// let (tree, params) = SampleTree::or_flags(None, &[]).unwrap();
    /// assert_eq!((tree.unwrap().name, params), ("T1", tree.unwrap().params()));
    /// let flags = ["-t", "1", "-a", "3", "-d", "10", "-b", "4", "-r", "19"].map(String::from);
    /// assert!(SampleTree::or_flags(None, &flags).unwrap().0.is_none());
    /// ```
    pub fn or_flags(
        name: Option<&str>,
        flags: &[String],
    ) -> Result<(Option<&'static SampleTree>, Params), String> {
        if flags.is_empty() {
            let tree = SampleTree::named(name.unwrap_or(Self::DEFAULT))?;
            return Ok((Some(tree), tree.params()));
        }
        Params::from_uts_args(flags).map(|p| (None, p)).map_err(|e| format!("UTS parameters: {e}"))
    }

    /// The sample tree `name` (ignoring case), or an error that lists the
    /// known ones.
    ///
    /// ```
    /// use treelb_apps::uts::SampleTree;
    /// assert_eq!(SampleTree::named("t1").unwrap().name, "T1");
    /// assert!(SampleTree::named("T9").unwrap_err().starts_with("unknown sample tree `T9` (known: default, T1, "));
    /// ```
    pub fn named(name: &str) -> Result<&'static SampleTree, String> {
        SampleTree::find(name).ok_or_else(|| {
            let names: Vec<_> = SAMPLE_TREES.iter().map(|t| t.name).collect();
            format!("unknown sample tree `{name}` (known: {})", names.join(", "))
        })
    }
}

impl Params {
    /// Refuses a tree that would run unboundedly: a binomial part with
    /// q·m ≥ 1 that the tree reaches (infinite expected size; the published
    /// T3L runs by its name, as `tree`), and, unless the run is `limited`
    /// by a cap on its work, a published or `expected` size, or a number of
    /// SHA-1 evaluations, above [`DEFAULT_SIZE_LIMIT`].
    ///
    /// ```
    /// use treelb_apps::uts::Params;
    /// let p = Params::from_uts_str("-t 0 -b 2000 -q 0.2 -m 5 -r 1").unwrap();
    /// assert!(p.check_size(None, p.expected_nodes(), false).is_err()); // q · m = 1
    /// ```
    pub fn check_size(&self, tree: Option<&SampleTree>, expected: f64, limited: bool) -> Result<(), TooBig> {
        let binomial = matches!(self.tree_type, TreeType::Binomial | TreeType::Hybrid);
        let qm = self.binomial_branching();
        if tree.is_none() && binomial && qm >= 1.0 && !expected.is_finite() {
            return Err(TooBig(format!(
                "expected binomial branching factor q * m = {} * {} = {qm} is not below 1: the \
                 expected tree size is infinite (the published T3L runs as --tree T3L)",
                self.q, self.m
            )));
        }
        if limited {
            return Ok(());
        }
        let size = tree.map_or(expected, |t| t.nodes as f64);
        let what = if tree.is_some() { "published" } else { "expected" };
        if size > DEFAULT_SIZE_LIMIT {
            return Err(TooBig(format!(
                "the {what} tree size is {}, above the limit of {DEFAULT_SIZE_LIMIT:e} nodes \
                 (--max-nodes N runs at most about N nodes)",
                format_size(size)
            )));
        }
        let evaluations = size * f64::from(self.granularity);
        if evaluations > DEFAULT_SIZE_LIMIT {
            return Err(TooBig(format!(
                "the {what} work is {} × {} SHA-1 evaluations per child (-g) = {:.2e}, above the \
                 limit of {DEFAULT_SIZE_LIMIT:e} (--max-nodes N runs at most about N nodes)",
                format_size(size),
                self.granularity,
                evaluations
            )));
        }
        Ok(())
    }
}
