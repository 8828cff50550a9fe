//! `treelb uts`: count the nodes of a UTS tree.

use std::io::Write;

use treelb_apps::report::uts::{self, format_size};
use treelb_apps::uts::{Params, SAMPLE_TREES, SampleTree, TreeType, Uts};

use super::Status;
use crate::args::UtsArgs;
use crate::config::{Error, RunConfig, err};
use crate::report::{report, write};

/// The sample tree run when neither `--tree` nor parameters are given.
pub(crate) const DEFAULT_TREE: &str = "T1";

/// Without `--max-nodes`, trees of more nodes than this (published, or
/// expected over the random root state), or of more SHA-1 evaluations, are
/// refused before the run.
const DEFAULT_SIZE_LIMIT: f64 = 1e11;

/// The sample tree `name` (ignoring case).
pub(crate) fn sample(name: &str) -> Result<&'static SampleTree, Error> {
    SampleTree::find(name).ok_or_else(|| {
        let names: Vec<_> = SAMPLE_TREES.iter().map(|t| t.name).collect();
        err!("unknown sample tree `{name}` (known: {})", names.join(", "))
    })
}

pub(crate) fn run(args: &UtsArgs, out: &mut impl Write) -> Result<Status, Error> {
    if args.list {
        for t in SAMPLE_TREES {
            writeln!(out, "{:<8} {:>15} nodes  {:<26} {}", t.name, t.nodes, t.description, t.flags)?;
        }
        return Ok(Status::Done);
    }
    let cfg = RunConfig::from_args(&args.run)?;
    cfg.refuse_deterministic("uts")?;
    let flags = args.reference_flags();
    let (tree, params) = if flags.is_empty() {
        let tree = sample(args.tree.as_deref().unwrap_or(DEFAULT_TREE))?;
        (Some(tree), tree.params())
    } else {
        (None, Params::from_uts_args(&flags).map_err(|e| err!("UTS parameters: {e}"))?)
    };
    let uts = Uts::new(params).map_err(|e| err!("UTS parameters: {e}"))?;
    // Parameters given as flags that are a sample tree's: its published size.
    let tree = tree.or_else(|| SAMPLE_TREES.iter().find(|t| t.params() == params));
    let expected_nodes = params.expected_nodes();
    check_size(&params, tree, expected_nodes, cfg.max_nodes.is_some())?;
    let expected = tree.map(|t| t.nodes);
    let Some(outcome) = crate::run::search(&uts, &cfg, expected, "nodes")? else {
        return Ok(Status::Done); // an MPI rank other than 0: rank 0 reports
    };
    let result = outcome.output;
    let (interrupted, units, stopped) = (outcome.interrupted(), outcome.stats.work_units(), outcome.stopped);

    let shown_flags = tree.map_or_else(|| flags.join(" "), |t| t.flags.to_owned());
    let answered = uts::answer(tree, params, shown_flags, result, interrupted);
    let ok = answered.ok;
    write(&report("uts", answered, "nodes", &cfg, outcome.stats, stopped), cfg.json, out)?;
    if interrupted {
        return Ok(super::interrupted(&cfg, stopped, units, "nodes"));
    }
    if !ok {
        eprintln!("treelb: error: the tree has {} nodes, the published count is {expected:?}", result.nodes);
    }
    Ok(ok.into())
}

/// Refuses trees that would run unboundedly: a binomial part with q·m ≥ 1
/// that the tree reaches (infinite expected size; the published T3L runs by
/// its name), and
/// without `--max-nodes` a published or expected size, or a number of
/// SHA-1 evaluations, above [`DEFAULT_SIZE_LIMIT`].
fn check_size(params: &Params, tree: Option<&SampleTree>, expected: f64, limited: bool) -> Result<(), Error> {
    let binomial = matches!(params.tree_type, TreeType::Binomial | TreeType::Hybrid);
    let qm = params.binomial_branching();
    if tree.is_none() && binomial && qm >= 1.0 && !expected.is_finite() {
        return Err(err!(
            "UTS parameters: expected binomial branching factor q * m = {} * {} = {qm} is not below 1: the \
             expected tree size is infinite (the published T3L runs as --tree T3L)",
            params.q,
            params.m
        ));
    }
    if limited {
        return Ok(());
    }
    let size = tree.map_or(expected, |t| t.nodes as f64);
    let what = if tree.is_some() { "published" } else { "expected" };
    if size > DEFAULT_SIZE_LIMIT {
        return Err(err!(
            "UTS parameters: the {what} tree size is {}, above the limit of {DEFAULT_SIZE_LIMIT:e} nodes \
             (--max-nodes N runs at most about N nodes)",
            format_size(size)
        ));
    }
    let evaluations = size * f64::from(params.granularity);
    if evaluations > DEFAULT_SIZE_LIMIT {
        return Err(err!(
            "UTS parameters: the {what} work is {} × {} SHA-1 evaluations per child (-g) = {:.2e}, above the \
             limit of {DEFAULT_SIZE_LIMIT:e} (--max-nodes N runs at most about N nodes)",
            format_size(size),
            params.granularity,
            evaluations
        ));
    }
    Ok(())
}
