//! `treelb uts`: count the nodes of a UTS tree.

use std::io::Write;

use serde::Serialize;
use treelb_apps::uts::{Params, SAMPLE_TREES, SampleTree, Uts, UtsResult};

use super::Status;
use crate::args::UtsArgs;
use crate::config::{Error, RunConfig, err};
use crate::report::{Line, Report};

/// The sample tree run when neither `--tree` nor parameters are given.
pub(crate) const DEFAULT_TREE: &str = "T1";

/// Looks a sample tree up by name, ignoring case.
pub(crate) fn sample(name: &str) -> Result<&'static SampleTree, Error> {
    SAMPLE_TREES.iter().find(|t| t.name.eq_ignore_ascii_case(name)).ok_or_else(|| {
        let names: Vec<_> = SAMPLE_TREES.iter().map(|t| t.name).collect();
        err!("unknown sample tree `{name}` (known: {})", names.join(", "))
    })
}

/// The parameters of a sample tree.
pub(crate) fn sample_params(tree: &SampleTree) -> Params {
    Params::from_uts_str(tree.flags).expect("sample tree flags are valid")
}

#[derive(Serialize)]
struct Instance<'a> {
    sample: Option<&'a str>,
    flags: String,
    params: Params,
}

#[derive(Serialize)]
struct Answer {
    #[serde(flatten)]
    result: UtsResult,
    published_nodes: Option<u64>,
}

pub(crate) fn run(args: &UtsArgs, out: &mut impl Write) -> Result<Status, Error> {
    if args.list {
        for t in SAMPLE_TREES {
            writeln!(out, "{:<8} {:>15} nodes  {:<26} {}", t.name, t.nodes, t.description, t.flags)?;
        }
        return Ok(Status::Done);
    }
    let cfg = RunConfig::from_args(&args.run)?;
    let flags = args.reference_flags();
    let (tree, params) = if flags.is_empty() {
        let tree = sample(args.tree.as_deref().unwrap_or(DEFAULT_TREE))?;
        (Some(tree), sample_params(tree))
    } else {
        (None, Params::from_uts_args(&flags).map_err(|e| err!("UTS parameters: {e}"))?)
    };
    let uts = Uts::new(params).map_err(|e| err!("UTS parameters: {e}"))?;
    let expected = tree.map(|t| t.nodes);
    let Some(outcome) = super::run_portable(&uts, &cfg, expected, "nodes")? else {
        return Ok(Status::Done); // an MPI rank other than 0: rank 0 reports
    };
    let result = outcome.output;
    let (interrupted, units) = (outcome.interrupted, outcome.stats.work_units());

    let shown_flags = tree.map_or_else(|| flags.join(" "), |t| t.flags.to_owned());
    let title = match tree {
        Some(t) => format!("UTS {} — {} ({})", t.name, t.description, shown_flags),
        None => format!("UTS — {} tree ({})", params.tree_type, shown_flags),
    };
    let mut nodes = Line::new("nodes", result.nodes);
    let mut matches = true;
    if let Some(t) = tree.filter(|_| interrupted) {
        nodes = nodes.note(format!("partial: the published tree has {}", t.nodes));
    } else if let Some(t) = tree {
        matches = t.nodes == result.nodes;
        nodes = nodes.note(if matches {
            format!("published: {} ✓", t.nodes)
        } else {
            format!("MISMATCH: published {}", t.nodes)
        });
    }
    let lines = vec![nodes, Line::new("leaves", result.leaves), Line::new("max depth", result.max_depth)];
    let answer = Answer { result, published_nodes: expected };
    let instance = Instance { sample: tree.map(|t| t.name), flags: shown_flags, params };
    Report::new("uts", title, instance, answer, lines, "nodes", &cfg, outcome.stats, interrupted)
        .write(cfg.json, out)?;
    if interrupted {
        return Ok(super::interrupted(&cfg, units, "nodes"));
    }
    if !matches {
        eprintln!("treelb: error: the tree has {} nodes, the published count is {expected:?}", result.nodes);
    }
    Ok(matches.into())
}
