//! The report of Connect Four positions solved: a row per position,
//! checked against its expected score where one was given, and their sums.

use serde::Serialize;

use crate::connect4::Solved;

/// One position solved.
#[derive(Debug, Serialize)]
pub struct Row {
    /// The position, as the columns played (1 to 7).
    pub position: String,
    /// Its score, best move and nodes.
    #[serde(flatten)]
    pub solved: Solved,
    /// The score expected, if given.
    pub expected: Option<i32>,
    /// The wall time of its searches.
    pub seconds: f64,
}

impl Row {
    /// Whether its score differs from the expected one.
    pub fn mismatch(&self) -> bool {
        self.expected.is_some_and(|e| e != self.solved.score)
    }
}

/// The sums over the rows of several positions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Positions solved.
    pub positions: usize,
    /// Their wall time, in seconds.
    pub seconds: f64,
    /// Their nodes.
    pub nodes: u64,
    /// Of those, nodes in subtrees a cutoff aborted.
    pub aborted_nodes: u64,
    /// Positions with an expected score.
    pub checked: usize,
    /// Positions whose score differs from the expected one.
    pub mismatches: usize,
}

impl Summary {
    /// The sums over `rows`.
    pub fn of(rows: &[Row]) -> Self {
        Summary {
            positions: rows.len(),
            seconds: rows.iter().map(|r| r.seconds).sum(),
            nodes: rows.iter().map(|r| r.solved.nodes).sum(),
            aborted_nodes: rows.iter().map(|r| r.solved.aborted_nodes).sum(),
            checked: rows.iter().filter(|r| r.expected.is_some()).count(),
            mismatches: rows.iter().filter(|r| r.mismatch()).count(),
        }
    }

    /// The mean wall time of a position, in seconds (0 without positions).
    pub fn mean_seconds(&self) -> f64 {
        self.seconds / self.positions.max(1) as f64
    }

    /// The mean nodes of a position.
    pub fn mean_nodes(&self) -> f64 {
        self.nodes as f64 / self.positions.max(1) as f64
    }

    /// The share of the nodes that cutoffs aborted, in per cent.
    pub fn aborted_percent(&self) -> f64 {
        100.0 * self.aborted_nodes as f64 / (self.nodes.max(1) as f64)
    }
}
