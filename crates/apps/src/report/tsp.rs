//! The report of a TSP run: its tour, checked against the expected length
//! and the Held–Karp dynamic program where they were given or run, and its
//! root phase.

use serde::Serialize;

use super::bnb::{Proof, Searched, Sequential, node_lines, one_based};
use super::{Answered, Line};
use crate::tsp::{AscentParams, RootCuts, Tsp, TspSearch, heuristic};

/// The instance.
#[derive(Debug, Serialize)]
pub struct Instance {
    /// The TSPLIB file, if it was read from one.
    pub file: Option<String>,
    /// Its name.
    pub name: String,
    /// The number of nodes (cities).
    pub nodes: usize,
    /// TSPLIB's `EDGE_WEIGHT_TYPE`.
    pub edge_weight_type: Option<String>,
    /// TSPLIB's `EDGE_WEIGHT_FORMAT`.
    pub edge_weight_format: Option<String>,
    /// Edges every tour must contain.
    pub fixed_edges: usize,
    /// The seed of a random instance.
    pub random_seed: Option<u64>,
}

impl Instance {
    /// The instance `tsp`, read from `file` or made at random from `seed`.
    pub fn new(tsp: &Tsp, file: Option<String>, seed: Option<u64>) -> Self {
        Instance {
            file,
            name: tsp.name.clone(),
            nodes: tsp.n(),
            edge_weight_type: tsp.weight_type.map(|t| t.to_string()),
            edge_weight_format: tsp.weight_format.map(|f| f.to_string()),
            fixed_edges: tsp.fixed_edges.len(),
            random_seed: seed,
        }
    }

    /// The report's title.
    pub fn title(&self) -> String {
        let n = self.nodes;
        match &self.file {
            Some(file) => {
                let kind = self.edge_weight_type.clone().unwrap_or_default();
                let format = self.edge_weight_format.as_ref().map(|f| format!(" {f}")).unwrap_or_default();
                format!("TSP — {file} ({n} nodes, {kind}{format})")
            }
            None => format!(
                "TSP — {n} random points in [0, 1000]², EUC_2D, seed {}",
                self.random_seed.unwrap_or_default()
            ),
        }
    }
}

/// The answer.
#[derive(Debug, Serialize)]
pub struct Answer {
    /// The length of the best tour.
    pub length: i64,
    /// The tour, 1-based node numbers as in the file.
    pub tour: Vec<u32>,
    /// The tour was checked: a permutation of the nodes, of this length.
    pub verified: bool,
    /// The root's bound (Held–Karp with blossom inequalities), rounded up.
    pub root_bound: Option<i64>,
    /// The root's Held–Karp bound and its bound with blossoms (unrounded)
    /// and how many blossoms it keeps, if relax-and-cut ran.
    pub root_cuts: Option<RootCuts>,
    /// The initial tour's length (the heuristic), if it was used.
    pub initial_tour: Option<i64>,
    /// The length expected, if given.
    pub expected_length: Option<i64>,
    /// The Held–Karp dynamic program's optimum, if it was run.
    pub dp_length: Option<i64>,
    /// Nodes expanded.
    pub branched: u64,
    /// Nodes pruned.
    pub pruned: u64,
    /// The sequential run, if one was made.
    pub sequential: Option<Sequential>,
    /// How long the root phase took, and whether a stop cut it short.
    pub root_phase: RootPhase,
    /// Proven optimal or the bound and gap, and the improvements over time.
    #[serde(flatten)]
    pub proof: Proof,
}

/// The root phase: the initial tour, the Held–Karp ascent and the cutting
/// planes, before the search.
#[derive(Debug, Serialize)]
pub struct RootPhase {
    /// Its wall time.
    pub secs: f64,
    /// A signal or the time limit stopped it: the search did not start,
    /// and the bound is the best the root reached by then.
    pub stopped: bool,
}

/// What the root phase found.
#[derive(Debug)]
pub struct Root {
    /// The root's bound, rounded up.
    pub bound: Option<i64>,
    /// Its cutting planes, if relax-and-cut ran.
    pub cuts: Option<RootCuts>,
    /// The initial tour's length, if the heuristic ran.
    pub initial: Option<i64>,
    /// How long it took, and whether a stop cut it short.
    pub phase: RootPhase,
}

impl Root {
    /// Runs the root phase of the search of `problem` — the initial tour
    /// if `seeded`, the Held–Karp ascent with `params`, the cutting planes
    /// — asking `stop` between its steps whether to stop; returns the
    /// search it built and what it found (stopped: `stop` said so).
    pub fn bound(
        problem: &Tsp,
        params: AscentParams,
        seeded: bool,
        stop: &dyn Fn() -> bool,
    ) -> (TspSearch, Root) {
        let asked = std::cell::Cell::new(false);
        let stop = || {
            let stopping = stop();
            asked.set(asked.get() || stopping);
            stopping
        };
        let started = std::time::Instant::now();
        let search = TspSearch::with_params_until(problem, params, seeded, &stop);
        let initial = search.incumbent.best();
        let bound = search.root_bound_until(&stop);
        let phase = RootPhase { secs: started.elapsed().as_secs_f64(), stopped: asked.get() };
        let root = Root { bound, cuts: search.root_cuts(), initial, phase };
        (search, root)
    }
}

/// The tour `(length, tour)` (0-based, verified) of `instance` that the
/// run `searched` found after the root phase `root`, checked against the
/// length `expected` and the Held–Karp program's `dp` where given, unless
/// interrupted.
pub fn answer(
    instance: Instance,
    (length, tour): (i64, Vec<u32>),
    root: Root,
    searched: Searched,
    expected: Option<i64>,
    dp: Option<i64>,
) -> Answered<Instance, Answer> {
    let Searched { stats, proof, sequential, interrupted } = searched;
    let Root { bound: root_bound, cuts, initial, phase } = root;
    let n = instance.nodes;
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
        Line::new("tour", one_based(&tour))
            .note(format!("1-based; verified: a permutation of the {n} nodes, of length {length}")),
    ];
    if let Some(b) = root_bound {
        lines.push(Line::new("root bound", b).note(match cuts {
            _ if phase.stopped => "the best 1-tree bound when the root phase was stopped".to_string(),
            Some(c) => format!(
                "1-tree bound with {} comb and {} subtour inequalities (Held–Karp alone: {})",
                c.combs,
                c.subtours,
                (c.held_karp - 1e-6 * c.held_karp.abs().max(1.0)).ceil()
            ),
            None => "Held–Karp 1-tree bound".to_string(),
        }));
    }
    if phase.stopped {
        lines.push(
            Line::new("root phase", format!("stopped after {:.3} s", phase.secs)).note(
                "initial tour, Held–Karp ascent and cutting planes cut short; the search did not start",
            ),
        );
    }
    lines.push(match initial {
        Some(i) => Line::new("initial tour", i)
            .note("iterated 2-opt, Or-opt and Lin–Kernighan chains from nearest-neighbour tours"),
        None => Line::new("initial tour", "none").note("--no-heuristic"),
    });
    lines.extend(node_lines(&stats, sequential.as_ref()));
    Answered {
        title: instance.title(),
        instance,
        answer: Answer {
            length,
            tour: heuristic::normalise(tour).iter().map(|v| v + 1).collect(),
            verified: true,
            root_bound,
            root_cuts: cuts,
            initial_tour: initial,
            expected_length: expected,
            dp_length: dp,
            branched: stats.branched,
            pruned: stats.pruned,
            sequential,
            root_phase: phase,
            proof,
        },
        lines,
        ok,
    }
}

/// Whether `tour` visits each of the `n` nodes once.
///
/// ```
/// use treelb_apps::report::tsp::is_permutation;
/// assert!(is_permutation(&[2, 0, 1], 3));
/// assert!(!is_permutation(&[0, 0, 1], 3) && !is_permutation(&[0, 1], 3));
/// ```
pub fn is_permutation(tour: &[u32], n: usize) -> bool {
    let mut seen = vec![false; n];
    tour.len() == n
        && tour.iter().all(|&v| (v as usize) < n && !std::mem::replace(&mut seen[v as usize], true))
}
