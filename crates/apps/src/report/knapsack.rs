//! The report of a 0/1 knapsack, checked by dynamic programming where it
//! was run.

use serde::Serialize;

use super::bnb::{Proof, Searched, Sequential, node_lines, one_based};
use super::{Answered, Line};
use crate::knapsack::{Instance, Spec};

/// The instance.
#[derive(Debug, Serialize)]
pub struct InstanceInfo {
    /// The file it was read from.
    pub file: Option<String>,
    /// The parameters it was generated from.
    pub generated: Option<Spec>,
    /// The number of items.
    pub items: usize,
    /// The capacity.
    pub capacity: i64,
    /// The items' total weight.
    pub total_weight: i64,
}

/// The answer.
#[derive(Debug, Serialize)]
pub struct Answer {
    /// The best profit found.
    pub optimum: i64,
    /// The packed items, 1-based.
    pub items: Vec<u32>,
    /// Their weight.
    pub weight: i64,
    /// The Dantzig bound of the root.
    pub root_bound: i64,
    /// The dynamic program's optimum, if it was run.
    pub dp_optimum: Option<i64>,
    /// Nodes expanded.
    pub branched: u64,
    /// Nodes pruned.
    pub pruned: u64,
    /// The sequential run, if one was made.
    pub sequential: Option<Sequential>,
    /// Proven optimal or the bound and gap, and the improvements over time.
    #[serde(flatten)]
    pub proof: Proof,
}

/// The packing `items` (0-based, checked to achieve `optimum`) of
/// `instance`, read from `file` or generated from `spec`, whose root bound
/// is `root_bound`, as the run `searched` found it; checked against the
/// dynamic program's optimum `dp` where it was run.
pub fn answer(
    instance: &Instance,
    file: Option<String>,
    spec: Option<Spec>,
    (optimum, items): (i64, Vec<u32>),
    root_bound: i64,
    searched: Searched,
    dp: Option<i64>,
) -> Answered<InstanceInfo, Answer> {
    let Searched { stats, proof, sequential, interrupted } = searched;
    let title = match (&file, spec) {
        (Some(file), _) => format!("0/1 knapsack — {file}"),
        (None, Some(Spec { class, n, range, seed, h, series })) => format!(
            "0/1 knapsack — {class}, n = {n}, R = {range}, seed {seed}, capacity {h}/{}·Σw",
            series + 1
        ),
        (None, None) => "0/1 knapsack".to_owned(),
    };
    let weight: i64 = items.iter().map(|&i| instance.items[i as usize].weight).sum();
    let mut ok = true;
    let mut best = Line::new("optimum", optimum);
    if !proof.proven_optimal {
        best = proof.value_line("optimum", Some(optimum), treelb::Sense::Maximize);
        if let Some(dp) = dp {
            best = best.note(format!("the dynamic program's optimum is {dp}"));
        }
    } else if interrupted {
        best = best.note("proven at the interruption: no open node could hold a better packing");
    } else if let Some(dp) = dp {
        ok = dp == optimum;
        best = best.note(if ok {
            format!("dynamic program: {dp} ✓")
        } else {
            format!("MISMATCH: dynamic program {dp}")
        });
    }
    let mut lines = vec![
        best,
        Line::new("items", one_based(&items)).note(format!(
            "{} of {} items, 1-based; weight {weight} of capacity {}; verified",
            items.len(),
            instance.len(),
            instance.capacity
        )),
        Line::new("root bound", root_bound).note("Dantzig: the linear relaxation, rounded down"),
    ];
    lines.extend(node_lines(&stats, sequential.as_ref()));
    Answered {
        title,
        instance: InstanceInfo {
            file,
            generated: spec,
            items: instance.len(),
            capacity: instance.capacity,
            total_weight: instance.items.iter().map(|i| i.weight).sum(),
        },
        answer: Answer {
            optimum,
            items: items.iter().map(|i| i + 1).collect(),
            weight,
            root_bound,
            dp_optimum: dp,
            branched: stats.branched,
            pruned: stats.pruned,
            sequential,
            proof,
        },
        lines,
        ok,
    }
}
