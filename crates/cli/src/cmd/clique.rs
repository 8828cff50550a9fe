//! `treelb clique FILE`: the clique number ω and a maximum clique of a DIMACS
//! graph; with `--k K`, whether a clique of K vertices exists.

use std::io::Write;
use std::path::Path;

use treelb_apps::clique::{CliqueSearch, Options, dimacs};
use treelb_apps::input::escape_path;
use treelb_apps::report::bnb::Searched;
use treelb_apps::report::clique;

/// The largest bitset graph a search may allocate: 1 GiB (a dense graph of
/// about 92,000 vertices, or a sparse one of that degeneracy).
const MAX_BITSET_BYTES: usize = 1 << 30;

/// The runtime's unit of work here: an expansion of one node is one, a
/// chunk of greedy starts is
/// [`GREEDY_CHUNK_COST`](treelb_apps::clique::GREEDY_CHUNK_COST) (the nodes expanded are
/// in the answer, `branched` and `pruned`).
const UNIT: &str = "work units";

use super::Status;
use super::bnb::{self, Sequential};
use crate::args::CliqueArgs;
use crate::config::{Error, RunConfig, err};
use crate::report::{report, write};

pub(crate) fn run(args: &CliqueArgs, out: &mut impl Write) -> Result<Status, Error> {
    let mut cfg = RunConfig::from_args(&args.run)?;
    if args.estimate.is_some() {
        super::estimate::check(
            &cfg,
            &[
                ("--compare-seq", args.compare_seq),
                ("--expect", args.expect.is_some()),
                ("--verbose", args.verbose),
            ],
        )?;
    }
    let (k, expected) = (args.k, args.expect);
    if k.is_some() && cfg.deterministic {
        return Err(err!(
            "--deterministic goes with maximum clique runs, not with --k (a decision stops at its first witness)"
        ));
    }
    if k.is_some() && expected.is_some() {
        return Err(err!(
            "--expect checks the clique number of a maximum clique run; it does not go with --k"
        ));
    }
    let path = Path::new(&args.file);
    let parse_clock = std::time::Instant::now();
    let (graph, warnings) =
        dimacs::read_file_with_warnings(path).map_err(|e| err!("{}: {e}", escape_path(path)))?;
    for w in warnings {
        eprintln!("treelb: warning: {}: {w}", escape_path(path));
    }
    let parse_secs = parse_clock.elapsed().as_secs_f64();
    cfg.bind_input(path);
    let options = Options {
        target: k,
        greedy: k.is_none() && !args.no_heuristic,
        max_bitset_bytes: Some(MAX_BITSET_BYTES),
        propagate: args.propagate,
        resolve: on_off(args.resolve, args.no_resolve),
        filter: args.filter,
        partite: on_off(args.partite, args.no_partite),
        root_parts: on_off(args.root_parts, args.no_root_parts),
        ..Options::default()
    };
    let make = || CliqueSearch::with_options(&graph, options).map_err(|e| err!("{}: {e}", escape_path(path)));
    if let Some(duration) = args.estimate {
        // The greedy clique first, outside the tree, so that the probes
        // measure the search it prunes rather than the greedy starts.
        let search = CliqueSearch::with_options(&graph, Options { greedy: false, ..options })
            .map_err(|e| err!("{}: {e}", escape_path(path)))?;
        if options.greedy {
            search.offer_greedy_cliques();
        }
        let instance = clique::Instance::new(&args.file, &graph, k);
        return super::estimate::run(
            "clique",
            instance.title(),
            instance,
            &search,
            &search.incumbent,
            k.map(clique::decision_pruning),
            duration,
            &cfg,
            UNIT,
            out,
        );
    }
    let seq = if args.compare_seq { Some(Sequential::run(&make()?)) } else { None };
    let search = make()?;
    let Some(bnb::BnbRan { ran: outcome, proof }) = bnb::run(&search, &search.incumbent, &cfg, UNIT)? else {
        return Ok(Status::Done); // an MPI rank other than 0: rank 0 reports
    };
    let setup = search.setup_times();
    let phases = clique::Phases {
        parse_secs,
        order_secs: setup.order.as_secs_f64(),
        matrix_secs: setup.matrix.as_secs_f64(),
        greedy_secs: search.greedy_time().as_secs_f64(),
        search_secs: outcome.stats.wall.as_secs_f64(),
    };
    let (interrupted, units, stopped) =
        (outcome.stopped.is_some(), outcome.stats.work_units(), outcome.stopped);
    let best = search.incumbent.into_best();
    let found: Vec<u32> = best.as_ref().map(|(_, c)| c.clone()).unwrap_or_default();
    if !graph.is_clique(&found) {
        return Err(err!("internal error: the reported vertex set {found:?} is not a clique"));
    }
    let seq_secs = seq.as_ref().map(|s| s.wall_secs);
    let searched = Searched { stats: outcome.output, proof, sequential: seq, interrupted };
    let instance = clique::Instance::new(&args.file, &graph, k);
    let answered = clique::answer(instance, &graph, &found, searched, expected, phases, args.verbose);
    let ok = answered.ok;
    let report = report("clique", answered, UNIT, &cfg, outcome.stats, stopped).with_sequential(seq_secs);
    write(&report, cfg.json, out)?;
    if interrupted {
        return Ok(super::interrupted(&cfg, stopped, units, UNIT));
    }
    if !ok {
        eprintln!("treelb: error: ω = {} found, {} expected", found.len(), expected.unwrap_or_default());
    }
    Ok(ok.into())
}

/// A pair of flags `--X` / `--no-X` (which clap makes exclusive): on, off,
/// or the search's default.
fn on_off(on: bool, off: bool) -> Option<bool> {
    if on {
        Some(true)
    } else if off {
        Some(false)
    } else {
        None
    }
}
