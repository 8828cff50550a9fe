//! The report of a maximum clique or k-clique run, its clique checked
//! against the graph and, where given, the clique number expected.

use std::path::Path;

use serde::Serialize;

use super::bnb::{Proof, Searched, Sequential, node_lines, one_based};
use super::{Answered, Line};
use crate::clique::Graph;

/// The instance.
#[derive(Debug, Serialize)]
pub struct Instance {
    /// The DIMACS file.
    pub file: String,
    /// The graph's vertices.
    pub vertices: usize,
    /// The graph's edges.
    pub edges: usize,
    /// The clique size sought by a decision run.
    pub k: Option<u32>,
}

impl Instance {
    /// The instance `graph`, read from `file`; `k`: the clique size a
    /// decision run seeks.
    pub fn new(file: &str, graph: &Graph, k: Option<u32>) -> Self {
        Instance { file: file.to_owned(), vertices: graph.n(), edges: graph.edge_count(), k }
    }

    /// The report's title: the question and the graph.
    pub fn title(&self) -> String {
        let path = Path::new(&self.file);
        let name = path.file_name().map_or_else(|| self.file.clone(), |f| f.to_string_lossy().into_owned());
        let question = match self.k {
            None => "Maximum clique".to_owned(),
            Some(k) => format!("Clique of {k} vertices?"),
        };
        format!("{question} — {name} ({} vertices, {} edges)", self.vertices, self.edges)
    }
}

/// The answer.
#[derive(Debug, Serialize)]
pub struct Answer {
    /// The clique number (maximum clique runs).
    pub omega: Option<i64>,
    /// Decision runs: whether a clique of k vertices exists.
    pub exists: Option<bool>,
    /// The clique found, 1-based vertex numbers as in the file.
    pub clique: Vec<u32>,
    /// The clique was checked against the graph.
    pub verified: bool,
    /// The clique number expected, if given.
    pub expected_omega: Option<i64>,
    /// Nodes expanded.
    pub branched: u64,
    /// Nodes pruned.
    pub pruned: u64,
    /// The sequential run, if one was made.
    pub sequential: Option<Sequential>,
    /// Maximum clique runs: proven optimal or the bound and gap, and the
    /// improvements over time.
    #[serde(flatten)]
    pub proof: Option<Proof>,
    /// Seconds of each phase of the run.
    pub phases: Phases,
}

/// Seconds of each phase: the set-up before the PEs start (the file's
/// parsing, the degeneracy order, the renumbered graph) and the search
/// (the runtime's wall time), which begins with the greedy clique's starts
/// (their time summed over the PEs that ran them).
#[derive(Debug, Serialize)]
pub struct Phases {
    /// Reading the file.
    pub parse_secs: f64,
    /// The degeneracy order.
    pub order_secs: f64,
    /// The renumbered graph.
    pub matrix_secs: f64,
    /// The greedy clique's starts, summed over the PEs.
    pub greedy_secs: f64,
    /// The search.
    pub search_secs: f64,
}

impl Phases {
    /// The phases as a line.
    pub fn line(&self) -> Line {
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

/// The `clique` (0-based, checked against `graph`) that the run `searched`
/// found in `instance`, checked against the clique number `expected` where
/// given; `verbose`: with a line on the phases.
pub fn answer(
    instance: Instance,
    graph: &Graph,
    clique: &[u32],
    searched: Searched,
    expected: Option<i64>,
    phases: Phases,
    verbose: bool,
) -> Answered<Instance, Answer> {
    let Searched { stats, proof, sequential, interrupted } = searched;
    let verified = graph.is_clique(clique);
    let verified_note = format!("1-based; verified: {} pairwise adjacent vertices", clique.len());
    let mut lines = Vec::new();
    let mut ok = true;
    let (omega, exists) = match instance.k {
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
            lines.push(Line::new("clique", one_based(clique)).note(verified_note));
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
                lines.push(Line::new("witness", one_based(clique)).note(verified_note));
            }
            (None, (exists || !interrupted).then_some(exists))
        }
    };
    lines.extend(node_lines(&stats, sequential.as_ref()));
    if verbose {
        lines.push(phases.line());
    }
    let decision = instance.k.is_some();
    Answered {
        title: instance.title(),
        instance,
        answer: Answer {
            omega,
            exists,
            clique: clique.iter().map(|v| v + 1).collect(),
            verified,
            expected_omega: expected,
            branched: stats.branched,
            pruned: stats.pruned,
            sequential,
            proof: (!decision).then_some(proof),
            phases,
        },
        lines,
        ok,
    }
}

/// What prunes the tree of a search for a clique of `k` vertices besides
/// the incumbent, for its tree-size estimate.
pub fn decision_pruning(k: u32) -> super::estimate::Pruning {
    super::estimate::Pruning {
        value: format!("bound ≤ {}", k - 1),
        note: format!(
            "the nodes a search for a clique of {k} vertices prunes: the tree of the proof when there is none"
        ),
    }
}
