//! `treelb sim replay TRACE`: a `uts` run's trace replayed in the simulator
//! ([`treelb_sim::replay`]), the run and the simulation side by side.
//!
//! The trace's notes say what ran: the run's specification (`spec:`, JSON),
//! its split policy and its arguments (`argv:`, JSON), from which the tree
//! is rebuilt as `treelb uts` builds it.

use std::io::Write;

use clap::Parser;
use comfy_table::{Cell, CellAlignment, Table, presets::UTF8_FULL_CONDENSED};
use treelb::trace::Trace;
use treelb::{RunSpec, SplitPolicy};
use treelb_apps::input::escape;
use treelb_apps::uts::Params;
use treelb_sim::replay::{Replay, replay};

use crate::args::{Cli, Command, ReplayArgs};
use crate::config::{Error, err};

pub(crate) fn run(args: &ReplayArgs, out: &mut dyn Write) -> Result<bool, Error> {
    let shown = escape(args.file.as_bytes());
    let bytes = std::fs::read(&args.file).map_err(|e| err!("{shown}: {e}"))?;
    let trace = Trace::parse_bytes(&bytes).map_err(|e| err!("{shown}: {e}"))?;
    let note = |key: &str| trace.notes.iter().find_map(|n| n.strip_prefix(key)).map(str::trim);
    let missing = |key: &str| {
        err!(
            "{shown}: the trace does not say what ran (no `{key}` note; traces of `treelb uts --trace` have it)"
        )
    };
    let spec: RunSpec = serde_json::from_str(note("spec:").ok_or_else(|| missing("spec:"))?)
        .map_err(|e| err!("{shown}: the `spec:` note: {e}"))?;
    let split_policy: SplitPolicy = note("split-policy:")
        .ok_or_else(|| missing("split-policy:"))?
        .parse()
        .map_err(|e| err!("{shown}: the `split-policy:` note: {e}"))?;
    let argv: Vec<String> = serde_json::from_str(note("argv:").ok_or_else(|| missing("argv:"))?)
        .map_err(|e| err!("{shown}: the `argv:` note: {e}"))?;
    let tree = tree(&argv).map_err(|e| err!("{shown}: {e}"))?;
    let r = replay(&trace, &spec, tree, split_policy).map_err(|e| err!("{shown}: {e}"))?;
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &r)?;
        writeln!(out)?;
    } else {
        print(&r, &args.file, &argv, out)?;
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
    let flags = uts.reference_flags();
    if flags.is_empty() {
        let name = uts.tree.as_deref().unwrap_or(crate::cmd::uts::DEFAULT_TREE);
        Ok(crate::cmd::uts::sample(name)?.params())
    } else {
        Params::from_uts_args(&flags).map_err(|e| err!("UTS parameters: {e}"))
    }
}

fn print(r: &Replay, file: &str, argv: &[String], out: &mut dyn Write) -> Result<(), Error> {
    let m = &r.measured;
    writeln!(out, "replay of {} in the simulator — {} PEs, {}", escape(file.as_bytes()), r.p, r.strategy)?;
    writeln!(out, "  run: treelb {}", escape(argv.join(" ").as_bytes()))?;
    writeln!(
        out,
        "  measured in the trace: {:.1} ns per unit of work, T_split {} ns, T_rout {} ns (median of {} pieces moved), crossbar, messages only travel",
        m.unit_ns, m.t_split, m.t_rout, m.moves
    )?;
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED);
    table.set_header(vec![
        "PE",
        "busy ms run",
        "sim",
        "units run",
        "sim",
        "requests run",
        "sim",
        "given run",
        "sim",
        "same victim",
        "diverges at",
    ]);
    let ms = |ns: u64| format!("{:.3}", ns as f64 / 1e6);
    let right = |c: String| Cell::new(c).set_alignment(CellAlignment::Right);
    for p in &r.per_pe {
        table.add_row(vec![
            Cell::new(p.pe),
            right(ms(p.run.busy_ns)),
            right(ms(p.sim.busy_ns)),
            right(p.run.units.to_string()),
            right(p.sim.units.to_string()),
            right(p.run.requests.to_string()),
            right(p.sim.requests.to_string()),
            right(p.run.transfers.to_string()),
            right(p.sim.transfers.to_string()),
            right(format!("{}/{}", p.same_victims, p.compared)),
            right(p.diverges_at.map_or_else(|| "—".to_owned(), |i| format!("request {i}"))),
        ]);
    }
    table.add_row(vec![
        Cell::new("all"),
        right(ms(r.run.busy_ns)),
        right(ms(r.sim.busy_ns)),
        right(r.run.units.to_string()),
        right(r.sim.units.to_string()),
        right(r.run.requests.to_string()),
        right(r.sim.requests.to_string()),
        right(r.run.transfers.to_string()),
        right(r.sim.transfers.to_string()),
        right(format!("{}/{}", r.same_victims, r.compared)),
        right(String::new()),
    ]);
    writeln!(out, "{table}")?;
    writeln!(
        out,
        "T_par: run {} ms, simulation {} ms (× {:.2}); transfers: run {}, simulation {}; same victim: {:.0} % of {} requests compared",
        ms(r.run.t_par_ns),
        ms(r.sim.t_par_ns),
        r.t_par_ratio(),
        r.run.transfers,
        r.sim.transfers,
        100.0 * r.same_victim_share(),
        r.compared
    )?;
    writeln!(
        out,
        "(the same strategy machines with the same seed: a PE's victims agree until timing changes what it has seen; \
         where they diverge measures how far the simulated timing follows the run's)"
    )?;
    Ok(())
}
