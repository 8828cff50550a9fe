//! `treelb tsp FILE`: the optimal tour of a symmetric TSPLIB instance (or of
//! a random Euclidean one), by branch and bound with Held–Karp bounds.

use std::io::Write;
use std::path::Path;

use std::time::Instant;

use serde::Serialize;
use treelb::bound::OpenBounds;
use treelb::limit::{Limit, StopReason};
use treelb::{RunStats, Sense};
use treelb_apps::bnb::BnbStats;
use treelb_apps::input::escape_path;
use treelb_apps::tsp::{AscentParams, HELD_KARP_MAX_N, Tsp, TspSearch, held_karp, heuristic, tsplib};

use super::Status;
use super::bnb::{self, Sequential};
use crate::args::TspArgs;
use crate::config::{Error, RunConfig, Runtime, err};
use crate::report::{Line, report, write};

#[derive(Serialize)]
struct Instance {
    file: Option<String>,
    name: String,
    nodes: usize,
    edge_weight_type: Option<String>,
    edge_weight_format: Option<String>,
    fixed_edges: usize,
    random_seed: Option<u64>,
}

#[derive(Serialize)]
struct Answer {
    length: i64,
    /// The tour, 1-based node numbers as in the file.
    tour: Vec<u32>,
    /// The tour was checked: a permutation of the nodes, of this length.
    verified: bool,
    /// The root's bound (Held–Karp with blossom inequalities), rounded up.
    root_bound: Option<i64>,
    /// The root's Held–Karp bound and its bound with blossoms (unrounded)
    /// and how many blossoms it keeps, if relax-and-cut ran.
    root_cuts: Option<treelb_apps::tsp::RootCuts>,
    /// The initial tour's length (the heuristic), if it was used.
    initial_tour: Option<i64>,
    expected_length: Option<i64>,
    /// The Held–Karp dynamic program's optimum, if it was run.
    dp_length: Option<i64>,
    branched: u64,
    pruned: u64,
    sequential: Option<Sequential>,
    /// How long the root phase took, and whether a stop cut it short.
    root_phase: RootPhase,
    /// Proven optimal or the bound and gap, and the improvements over time.
    #[serde(flatten)]
    proof: bnb::Proof,
}

/// The root phase: the initial tour, the Held–Karp ascent and the cutting
/// planes, before the search.
#[derive(Serialize)]
struct RootPhase {
    secs: f64,
    /// A signal or the time limit stopped it: the search did not start,
    /// and the bound is the best the root reached by then.
    stopped: bool,
}

pub(crate) fn run(args: &TspArgs, out: &mut impl Write) -> Result<Status, Error> {
    let mut cfg = RunConfig::with_defaults(&args.run, crate::config::app("tsp").defaults)?;
    // The time limit counts from here, and a signal stops the root phase
    // as it stops the search: the root takes seconds from a few hundred
    // nodes on, minutes from 500.
    crate::run::catch_signals();
    let expected = args.expect;
    let (tsp, seed) = match (&args.file, &args.random) {
        (Some(file), None) => {
            let path = Path::new(file);
            let tsp = tsplib::read_file(path).map_err(|e| err!("{}: {e}", escape_path(path)))?;
            cfg.bind_input(path);
            (tsp, None)
        }
        (None, Some(n)) => {
            let (n, seed) = (*n, args.instance_seed);
            let mut tsp = Tsp::random_euclidean(n, 1000.0, seed);
            tsp.name = format!("random{n}-{seed}");
            (tsp, Some(seed))
        }
        _ => return Err(err!("give a TSPLIB file or --random N (not both)")),
    };
    let n = tsp.n();
    let params = AscentParams::for_n(n);
    // The root phase (initial tour, Held–Karp ascent, cutting-plane LP)
    // asks for a signal and the deadline between its steps. Not on MPI:
    // every rank builds the root on its own and must build the same one,
    // which a stop reaching each rank at its own moment would break (a
    // signal there stops the run as soon as the search starts).
    let root_limit = Limit::unbounded();
    let poll = || cfg.kind == Runtime::Threads && crate::run::check_stop(&cfg, &root_limit);
    if cfg.feedback.on() {
        eprintln!(
            "treelb: tsp: bounding the root of {n} nodes (initial tour, Held–Karp ascent, cutting planes)"
        );
    }
    let root_started = Instant::now();
    let search = TspSearch::with_params_until(&tsp, params, !args.no_heuristic, &poll);
    let initial = search.incumbent.best();
    let root_bound = search.root_bound_until(&poll);
    let search_cuts = search.root_cuts();
    let root_secs = root_started.elapsed().as_secs_f64();
    let root_stopped = root_limit.stopped();
    let (outcome_stats, stats, stopped, proof, seq) = if root_stopped {
        // Stopped before the search: the root, open, with its bound.
        let open = OpenBounds::new(Sense::Minimize);
        open.record(root_bound);
        let improvements = initial.map(|value| bnb::Improvement { secs: 0.0, value }).into_iter().collect();
        let proof =
            bnb::Proof::new(open.prove_incumbent(&search.incumbent, true), cfg.deterministic, improvements);
        let reason = root_limit.stop_reason().unwrap_or(StopReason::Requested);
        (RunStats::default(), BnbStats::default(), Some(reason), proof, None)
    } else {
        let seq = args
            .compare_seq
            .then(|| Sequential::run(&TspSearch::with_params(&tsp, params, !args.no_heuristic)));
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
    let verified = is_permutation(&tour, n) && tsp.tour_length(&tour) == Some(length);
    if !verified {
        return Err(err!("internal error: the reported tour {tour:?} does not have length {length}"));
    }
    let dp = if args.dp {
        if n > HELD_KARP_MAX_N || !tsp.fixed_edges.is_empty() {
            return Err(err!(
                "--dp: the Held–Karp check takes at most {HELD_KARP_MAX_N} nodes and no fixed edges"
            ));
        }
        held_karp(&tsp).map(|(l, _)| l)
    } else {
        None
    };

    let mut ok = true;
    let mut line = Line::new("length", length).note("optimal tour length");
    if !proof.proven_optimal {
        line = proof.value_line("length", Some(length), treelb::Sense::Minimize);
    } else if interrupted {
        line = line.note("proven at the interruption: no open node could hold a shorter tour");
    } else if let Some(e) = expected {
        ok &= e == length;
        line = line.note(if e == length {
            format!("expected: {e} ✓")
        } else {
            format!("MISMATCH: expected {e}")
        });
    }
    if let Some(d) = dp.filter(|_| !interrupted) {
        ok &= d == length;
        line = line.note(if d == length {
            format!("Held–Karp DP: {d} ✓")
        } else {
            format!("MISMATCH: Held–Karp DP {d}")
        });
    }
    let mut lines = vec![
        line,
        Line::new("tour", bnb::one_based(&tour))
            .note(format!("1-based; verified: a permutation of the {n} nodes, of length {length}")),
    ];
    if let Some(b) = root_bound {
        lines.push(Line::new("root bound", b).note(match search_cuts {
            _ if root_stopped => "the best 1-tree bound when the root phase was stopped".to_string(),
            Some(c) => format!(
                "1-tree bound with {} comb and {} subtour inequalities (Held–Karp alone: {})",
                c.combs,
                c.subtours,
                (c.held_karp - 1e-6 * c.held_karp.abs().max(1.0)).ceil()
            ),
            None => "Held–Karp 1-tree bound".to_string(),
        }));
    }
    if root_stopped {
        lines.push(
            Line::new("root phase", format!("stopped after {root_secs:.3} s")).note(
                "initial tour, Held–Karp ascent and cutting planes cut short; the search did not start",
            ),
        );
    }
    lines.push(match initial {
        Some(i) => Line::new("initial tour", i).note("iterated 2-opt + Or-opt from nearest-neighbour tours"),
        None => Line::new("initial tour", "none").note("--no-heuristic"),
    });
    lines.extend(bnb::node_lines(&stats, seq.as_ref()));
    let seq_secs = seq.as_ref().map(|s| s.wall_secs);
    let title = match (&args.file, seed) {
        (Some(file), _) => {
            let kind = tsp.weight_type.map(|t| t.to_string()).unwrap_or_default();
            let format = tsp.weight_format.map(|f| format!(" {f}")).unwrap_or_default();
            format!("TSP — {file} ({n} nodes, {kind}{format})")
        }
        (None, s) => format!("TSP — {n} random points in [0, 1000]², EUC_2D, seed {}", s.unwrap_or_default()),
    };
    let instance = Instance {
        file: args.file.clone(),
        name: tsp.name.clone(),
        nodes: n,
        edge_weight_type: tsp.weight_type.map(|t| t.to_string()),
        edge_weight_format: tsp.weight_format.map(|f| f.to_string()),
        fixed_edges: tsp.fixed_edges.len(),
        random_seed: seed,
    };
    let answer = Answer {
        length,
        tour: heuristic::normalise(tour).iter().map(|v| v + 1).collect(),
        verified,
        root_bound,
        root_cuts: search_cuts,
        initial_tour: initial,
        expected_length: expected,
        dp_length: dp,
        branched: stats.branched,
        pruned: stats.pruned,
        sequential: seq,
        root_phase: RootPhase { secs: root_secs, stopped: root_stopped },
        proof,
    };
    let report = report("tsp", title, instance, answer, lines, "nodes", &cfg, outcome_stats, stopped)
        .with_sequential(seq_secs);
    write(&report, cfg.json, out)?;
    if interrupted {
        return Ok(super::interrupted(&cfg, stopped, units, "nodes"));
    }
    if !ok {
        eprintln!("treelb: error: tour length {length} does not match the expected one");
    }
    Ok(ok.into())
}

fn is_permutation(tour: &[u32], n: usize) -> bool {
    let mut seen = vec![false; n];
    tour.len() == n
        && tour.iter().all(|&v| (v as usize) < n && !std::mem::replace(&mut seen[v as usize], true))
}
