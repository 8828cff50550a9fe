//! `treelb tsp FILE`: the optimal tour of a symmetric TSPLIB instance (or of
//! a random Euclidean one), by branch and bound with Held–Karp bounds.

use std::io::Write;
use std::path::Path;

use treelb::RunStats;
use treelb::limit::{Limit, StopReason};
use treelb_apps::bnb::BnbStats;
use treelb_apps::input::escape_path;
use treelb_apps::report::bnb::Searched;
use treelb_apps::report::tsp::{self, Root, is_permutation};
use treelb_apps::tsp::{AscentParams, HELD_KARP_MAX_N, Tsp, TspSearch, held_karp, tsplib};

use super::Status;
use super::bnb::{self, Sequential};
use crate::args::TspArgs;
use crate::config::{Error, RunConfig, Runtime, err};
use crate::report::{report, write};

pub(crate) fn run(args: &TspArgs, out: &mut impl Write) -> Result<Status, Error> {
    let mut cfg = RunConfig::with_defaults(&args.run, crate::config::app("tsp").defaults)?;
    // The time limit counts from here, and a signal stops the root phase
    // as it stops the search: the root takes seconds from a few hundred
    // nodes on, minutes from 500.
    treelb_run::signals::catch();
    let expected = args.expect;
    let (problem, seed) = match (&args.file, &args.random) {
        (Some(file), None) => {
            let path = Path::new(file);
            let problem = tsplib::read_file(path).map_err(|e| err!("{}: {e}", escape_path(path)))?;
            cfg.bind_input(path);
            (problem, None)
        }
        (None, Some(n)) => {
            let (n, seed) = (*n, args.instance_seed);
            let mut problem = Tsp::random_euclidean(n, 1000.0, seed);
            problem.name = format!("random{n}-{seed}");
            (problem, Some(seed))
        }
        _ => return Err(err!("give a TSPLIB file or --random N (not both)")),
    };
    let n = problem.n();
    let params = AscentParams::for_n(n);
    // The root phase (initial tour, Held–Karp ascent, cutting-plane LP)
    // asks for a signal and the deadline between its steps. Not on MPI:
    // every rank builds the root on its own and must build the same one,
    // which a stop reaching each rank at its own moment would break (a
    // signal there stops the run as soon as the search starts).
    let root_limit = Limit::unbounded();
    let poll = || {
        cfg.kind == Runtime::Threads
            && treelb_run::signals::check_stop(&root_limit, crate::run::deadline(&cfg))
    };
    if cfg.feedback.on() {
        eprintln!(
            "treelb: tsp: bounding the root of {n} nodes (initial tour, Held–Karp ascent, cutting planes)"
        );
    }
    let (search, root) = Root::bound(&problem, params, !args.no_heuristic, &poll);
    let (outcome_stats, stats, stopped, proof, seq) = if root.phase.stopped {
        // Stopped before the search: the root, open, with its bound.
        let proof = bnb::Proof::of_root(root.bound, &search.incumbent, cfg.deterministic, root.initial);
        let reason = root_limit.stop_reason().unwrap_or(StopReason::Requested);
        (RunStats::default(), BnbStats::default(), Some(reason), proof, None)
    } else {
        let seq = args
            .compare_seq
            .then(|| Sequential::run(&TspSearch::with_params(&problem, params, !args.no_heuristic)));
        let Some(bnb::BnbRan { ran: outcome, proof }) = bnb::run(&search, &search.incumbent, &cfg, "nodes")?
        else {
            return Ok(Status::Done); // an MPI rank other than 0: rank 0 reports
        };
        (outcome.stats, outcome.output, outcome.stopped, proof, seq)
    };
    let (interrupted, units) = (stopped.is_some(), outcome_stats.work_units());
    let Some((length, tour)) = search.incumbent.into_best() else {
        if interrupted {
            let bound = proof.bound.map_or(String::new(), |b| format!(" (every tour is at least {b} long)"));
            eprintln!("treelb: tsp: no tour was found before the interruption{bound}");
            return Ok(super::interrupted(&cfg, stopped, units, "nodes"));
        }
        return Err(err!("no tour contains all the fixed edges of the instance"));
    };
    if !is_permutation(&tour, n) || problem.tour_length(&tour) != Some(length) {
        return Err(err!("internal error: the reported tour {tour:?} does not have length {length}"));
    }
    let dp = if args.dp {
        if n > HELD_KARP_MAX_N || !problem.fixed_edges.is_empty() {
            return Err(err!(
                "--dp: the Held–Karp check takes at most {HELD_KARP_MAX_N} nodes and no fixed edges"
            ));
        }
        held_karp(&problem).map(|(l, _)| l)
    } else {
        None
    };

    let seq_secs = seq.as_ref().map(|s| s.wall_secs);
    let searched = Searched { stats, proof, sequential: seq, interrupted };
    let instance = tsp::Instance::new(&problem, args.file.clone(), seed);
    let answered = tsp::answer(instance, (length, tour), root, searched, expected, dp);
    let ok = answered.ok;
    let report = report("tsp", answered, "nodes", &cfg, outcome_stats, stopped).with_sequential(seq_secs);
    write(&report, cfg.json, out)?;
    if interrupted {
        return Ok(super::interrupted(&cfg, stopped, units, "nodes"));
    }
    if !ok {
        eprintln!("treelb: error: tour length {length} does not match the expected one");
    }
    Ok(ok.into())
}
