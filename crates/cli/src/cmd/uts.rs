//! `treelb uts`: count the nodes of a UTS tree.

use std::io::Write;

use treelb_apps::report::uts;
use treelb_apps::uts::{SAMPLE_TREES, SampleTree, Uts};

use super::Status;
use crate::args::UtsArgs;
use crate::config::{Error, RunConfig, err};
use crate::report::{report, write};

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
    let (tree, params) = SampleTree::or_flags(args.tree.as_deref(), &flags).map_err(|e| err!("{e}"))?;
    let uts = Uts::new(params).map_err(|e| err!("UTS parameters: {e}"))?;
    // Parameters given as flags that are a sample tree's: its published size.
    let tree = tree.or_else(|| SAMPLE_TREES.iter().find(|t| t.params() == params));
    let expected_nodes = params.expected_nodes();
    params
        .check_size(tree, expected_nodes, cfg.max_nodes.is_some())
        .map_err(|e| err!("UTS parameters: {e}"))?;
    let expected = tree.map(|t| t.nodes);
    let Some(outcome) = crate::run::search(&uts, &cfg, expected, "nodes")? else {
        return Ok(Status::Done); // an MPI rank other than 0: rank 0 reports
    };
    let result = outcome.output;
    let (interrupted, units, stopped) =
        (outcome.stopped.is_some(), outcome.stats.work_units(), outcome.stopped);

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
