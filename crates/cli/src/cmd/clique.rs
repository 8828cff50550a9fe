//! `treelb clique FILE`: the clique number ω and a maximum clique of a DIMACS
//! graph; with `--k K`, whether a clique of K vertices exists.

use std::io::Write;
use std::path::Path;

use serde::Serialize;
use treelb_apps::clique::{CliqueSearch, Graph, Options, dimacs};
use treelb_apps::input::escape_path;

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
use crate::report::{Line, report, write};

#[derive(Serialize)]
struct Instance {
    file: String,
    vertices: usize,
    edges: usize,
    /// The clique size sought by a decision run.
    k: Option<u32>,
}

#[derive(Serialize)]
struct Answer {
    /// The clique number (maximum clique runs).
    omega: Option<i64>,
    /// Decision runs: whether a clique of k vertices exists.
    exists: Option<bool>,
    /// The clique found, 1-based vertex numbers as in the file.
    clique: Vec<u32>,
    /// The clique was checked against the graph.
    verified: bool,
    expected_omega: Option<i64>,
    branched: u64,
    pruned: u64,
    sequential: Option<Sequential>,
    /// Maximum clique runs: proven optimal or the bound and gap, and the
    /// improvements over time.
    #[serde(flatten)]
    proof: Option<bnb::Proof>,
    /// Seconds of each phase of the run.
    phases: Phases,
}

/// Seconds of each phase: the set-up before the PEs start (the file's
/// parsing, the degeneracy order, the renumbered graph) and the search
/// (the runtime's wall time), which begins with the greedy clique's starts
/// (their time summed over the PEs that ran them).
#[derive(Serialize)]
struct Phases {
    parse_secs: f64,
    order_secs: f64,
    matrix_secs: f64,
    greedy_secs: f64,
    search_secs: f64,
}

impl Phases {
    /// The `--verbose` line.
    fn line(&self) -> Line {
        let ms = |s: f64| format!("{:.1} ms", 1e3 * s);
        Line::new(
            "phases",
            format!(
                "parse {} · order {} · graph {} · search {} (greedy starts {})",
                ms(self.parse_secs),
                ms(self.order_secs),
                ms(self.matrix_secs),
                ms(self.search_secs),
                ms(self.greedy_secs)
            ),
        )
        .note("set-up before the PEs start, then the search; greedy: summed over the PEs")
    }
}

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
        let instance =
            Instance { file: args.file.clone(), vertices: graph.n(), edges: graph.edge_count(), k };
        return super::estimate::run(
            "clique",
            title(path, &args.file, &graph, k),
            instance,
            &search,
            &search.incumbent,
            k.map(|k| super::estimate::Pruning {
                    value: format!("bound ≤ {}", k - 1),
                    note: format!("the nodes a search for a clique of {k} vertices prunes: the tree of the proof when there is none"),
            }),
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
    let stats = outcome.output;
    let setup = search.setup_times();
    let phases = Phases {
        parse_secs,
        order_secs: setup.order.as_secs_f64(),
        matrix_secs: setup.matrix.as_secs_f64(),
        greedy_secs: search.greedy_time().as_secs_f64(),
        search_secs: outcome.stats.wall.as_secs_f64(),
    };
    let (interrupted, units, stopped) = (outcome.interrupted(), outcome.stats.work_units(), outcome.stopped);
    let best = search.incumbent.into_best();
    let clique: Vec<u32> = best.as_ref().map(|(_, c)| c.clone()).unwrap_or_default();
    let verified = graph.is_clique(&clique);
    if !verified {
        return Err(err!("internal error: the reported vertex set {clique:?} is not a clique"));
    }

    let mut lines = Vec::new();
    let mut ok = true;
    let (omega, exists) = match k {
        None => {
            let omega = clique.len() as i64;
            let mut line = Line::new("ω", omega).note("clique number");
            if !proof.proven_optimal {
                line = proof.value_line("ω", Some(omega), treelb::Sense::Maximize);
            } else if interrupted {
                line = line.note("proven at the interruption: no open node could hold a larger clique");
            } else if let Some(e) = expected {
                ok = e == omega;
                line = line.note(if ok {
                    format!("expected: {e} ✓")
                } else {
                    format!("MISMATCH: expected {e}")
                });
            }
            lines.push(line);
            lines.push(Line::new("clique", bnb::one_based(&clique)).note(verified_note(&graph, &clique)));
            (Some(omega), None)
        }
        Some(k) => {
            let exists = clique.len() >= k as usize;
            if interrupted && !exists {
                lines.push(
                    Line::new("answer", "unknown")
                        .note(format!("interrupted before a clique of {k} vertices was found or ruled out")),
                );
            } else {
                lines.push(Line::new("answer", if exists { "yes" } else { "no" }).note(format!(
                    "{} clique of {k} vertices",
                    if exists { "there is a" } else { "there is no" }
                )));
            }
            if exists {
                lines
                    .push(Line::new("witness", bnb::one_based(&clique)).note(verified_note(&graph, &clique)));
            }
            (None, (exists || !interrupted).then_some(exists))
        }
    };
    lines.extend(bnb::node_lines(&stats, seq.as_ref()));
    let seq_secs = seq.as_ref().map(|s| s.wall_secs);
    if args.verbose {
        lines.push(phases.line());
    }
    let title = title(path, &args.file, &graph, k);
    let instance = Instance { file: args.file.clone(), vertices: graph.n(), edges: graph.edge_count(), k };
    let answer = Answer {
        omega,
        exists,
        clique: clique.iter().map(|v| v + 1).collect(),
        verified,
        expected_omega: expected,
        branched: stats.branched,
        pruned: stats.pruned,
        sequential: seq,
        proof: k.is_none().then_some(proof),
        phases,
    };
    let report = report("clique", title, instance, answer, lines, UNIT, &cfg, outcome.stats, stopped)
        .with_sequential(seq_secs);
    write(&report, cfg.json, out)?;
    if interrupted {
        return Ok(super::interrupted(&cfg, stopped, units, UNIT));
    }
    if !ok {
        eprintln!("treelb: error: ω = {} found, {} expected", clique.len(), expected.unwrap_or_default());
    }
    Ok(ok.into())
}

/// The report's title: the question and the graph.
fn title(path: &Path, file: &str, graph: &Graph, k: Option<u32>) -> String {
    let name = path.file_name().map_or_else(|| file.to_owned(), |f| f.to_string_lossy().into_owned());
    let question = match k {
        None => "Maximum clique".to_owned(),
        Some(k) => format!("Clique of {k} vertices?"),
    };
    format!("{question} — {name} ({} vertices, {} edges)", graph.n(), graph.edge_count())
}

fn verified_note(graph: &Graph, clique: &[u32]) -> String {
    debug_assert!(graph.is_clique(clique));
    format!("1-based; verified: {} pairwise adjacent vertices", clique.len())
}
