//! The report of an N-Queens count, checked against the published count.

use serde::Serialize;

use super::{Answered, Line};
use crate::nqueens::{NQueens, NQueensResult};

/// The instance.
#[derive(Debug, Serialize)]
pub struct Instance {
    /// The board's size.
    pub n: u32,
    /// Only the placements with the first queen in the left half were
    /// searched, the others counted by symmetry.
    pub mirror: bool,
}

/// The answer.
#[derive(Debug, Serialize)]
pub struct Answer {
    /// The solutions and the nodes.
    #[serde(flatten)]
    pub result: NQueensResult,
    /// The published count of solutions, where known.
    pub published_solutions: Option<u64>,
}

/// The count `result` of the solutions on an `n` × `n` board (`mirror`:
/// by symmetry), checked against the published count unless
/// `interrupted` (a partial count).
pub fn answer(n: u32, mirror: bool, result: NQueensResult, interrupted: bool) -> Answered<Instance, Answer> {
    let published = NQueens::known_solutions(n);
    let mut solutions = Line::new("solutions", result.solutions);
    let ok = interrupted || published.is_none_or(|p| p == result.solutions);
    if let Some(p) = published.filter(|_| interrupted) {
        solutions = solutions.note(format!("partial: the published count is {p}"));
    } else if let Some(p) = published {
        solutions = solutions.note(if ok {
            format!("published: {p} ✓")
        } else {
            format!("MISMATCH: published {p}")
        });
    }
    Answered {
        title: format!("N-Queens, n = {n}"),
        instance: Instance { n, mirror },
        lines: vec![solutions, Line::new("nodes", result.nodes)],
        answer: Answer { result, published_solutions: published },
        ok,
    }
}
