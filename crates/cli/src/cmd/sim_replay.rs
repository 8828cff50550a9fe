//! `treelb sim replay TRACE`: a `uts` run's trace replayed in the simulator
//! ([`treelb_sim::replay`]), the run and the simulation side by side.
//!
//! The trace's notes say what ran: the run's specification (`spec:`, JSON),
//! its split policy and its arguments (`argv:`, JSON), from which the tree
//! is rebuilt as `treelb uts` builds it.

use std::io::Write;

use clap::Parser;
use treelb::trace::Trace;
use treelb_apps::input::escape;
use treelb_apps::uts::{Params, SampleTree};
use treelb_sim::replay::{Recorded, replay};

use crate::args::{Cli, Command, ReplayArgs};
use crate::config::{Error, err};

pub(crate) fn run(args: &ReplayArgs, out: &mut dyn Write) -> Result<bool, Error> {
    let shown = escape(args.file.as_bytes());
    let bytes = std::fs::read(&args.file).map_err(|e| err!("{shown}: {e}"))?;
    let trace = Trace::parse_bytes(&bytes).map_err(|e| err!("{shown}: {e}"))?;
    let Recorded { spec, split_policy, argv } =
        Recorded::from_notes(&trace.notes).map_err(|e| err!("{shown}: {e}"))?;
    let tree = tree(&argv).map_err(|e| err!("{shown}: {e}"))?;
    let r = replay(&trace, &spec, tree, split_policy).map_err(|e| err!("{shown}: {e}"))?;
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &r)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", r.table(&args.file, &argv))?;
    }
    Ok(true)
}

/// The UTS tree of a `treelb uts` command line.
fn tree(argv: &[String]) -> Result<Params, Error> {
    let cli = Cli::try_parse_from(std::iter::once("treelb".to_owned()).chain(argv.iter().cloned())).map_err(
        |e| {
            err!(
                "the recorded command line does not parse: {}",
                e.render().to_string().lines().next().unwrap_or("")
            )
        },
    )?;
    let Command::Uts(uts) = cli.command else {
        return Err(err!(
            "the simulator rebuilds UTS trees only; this trace is of `treelb {}`",
            argv.first().map_or("", String::as_str)
        ));
    };
    let (_, params) =
        SampleTree::or_flags(uts.tree.as_deref(), &uts.reference_flags()).map_err(|e| err!("{e}"))?;
    Ok(params)
}
