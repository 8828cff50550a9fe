//! The report of Connect Four positions solved: a row per position,
//! checked against its expected score where one was given, and their sums.

use serde::Serialize;

use crate::connect4::{Solved, describe_score};

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

    /// The position solved `how` (the PEs and the search, in words) as
    /// text: its score (`weak`: win, draw or loss only), best move (none
    /// asked for if `score_only`), nodes and time.
    ///
    /// ```
    /// use treelb_apps::connect4::Solved;
    /// use treelb_apps::report::connect4::Row;
    ///
    /// let solved = Solved { score: 0, best_move: Some(4), nodes: 12, aborted_nodes: 0 };
    /// let row = Row { position: "44".to_owned(), solved, expected: None, seconds: 0.5 };
    /// let text = row.text("sequential alpha-beta", false, false);
    /// assert!(text.starts_with("Connect Four, position \"44\" (2 moves), sequential alpha-beta\nscore: 0 (draw)\n"));
    /// ```
    pub fn text(&self, how: &str, weak: bool, score_only: bool) -> String {
        let s = &self.solved;
        let mut out = format!(
            "Connect Four, position \"{}\" ({} moves), {how}\nscore: {}{}\n",
            self.position,
            self.position.chars().count(),
            s.score,
            describe_score(s.score, weak)
        );
        match s.best_move {
            Some(c) => out.push_str(&format!("best move: {c}\n")),
            None if score_only => {}
            None => out.push_str("best move: none (the board is full)\n"),
        }
        out.push_str(&format!(
            "nodes: {}\naborted nodes: {}\ntime: {:.3} s\n",
            s.nodes, s.aborted_nodes, self.seconds
        ));
        out
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

    /// The positions solved `how` (the PEs and the search, in words) as
    /// text: their number, the mean time and nodes, the aborted nodes, the
    /// total time and the checks.
    pub fn text(&self, how: &str) -> String {
        format!(
            "Connect Four, {} positions, {how}\nmean time: {:.3} ms\nmean nodes: {:.1}\n\
             aborted nodes: {} ({:.2} %)\ntotal time: {:.3} s\nchecked: {}, mismatches: {}\n",
            self.positions,
            self.mean_seconds() * 1e3,
            self.mean_nodes(),
            self.aborted_nodes,
            self.aborted_percent(),
            self.seconds,
            self.checked,
            self.mismatches
        )
    }
}
