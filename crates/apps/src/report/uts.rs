//! The report of a UTS count, checked against the published size of a
//! sample tree.

use serde::Serialize;

use super::{Answered, Line};
use crate::uts::{Params, SampleTree, UtsResult};

/// The instance.
#[derive(Debug, Serialize)]
pub struct Instance<'a> {
    /// The sample tree, by name, if it is one.
    pub sample: Option<&'a str>,
    /// The reference's flags of the tree.
    pub flags: String,
    /// The tree's parameters.
    pub params: Params,
    /// The expected number of nodes over the random root state (`null`
    /// where it is infinite).
    pub expected_nodes: Option<f64>,
}

/// The answer.
#[derive(Debug, Serialize)]
pub struct Answer {
    /// The nodes, leaves and depth counted.
    #[serde(flatten)]
    pub result: UtsResult,
    /// The published size of the sample tree, if it is one.
    pub published_nodes: Option<u64>,
}

/// The count `result` of the tree of `params` (written as the reference's
/// `flags`), checked against the published size of `tree` where it is a
/// sample tree, unless `interrupted` (a partial count).
pub fn answer<'a>(
    tree: Option<&'a SampleTree>,
    params: Params,
    flags: String,
    result: UtsResult,
    interrupted: bool,
) -> Answered<Instance<'a>, Answer> {
    let title = match tree {
        Some(t) => format!("UTS {} — {} ({})", t.name, t.description, flags),
        None => format!("UTS — {} tree ({})", params.tree_type, flags),
    };
    let expected_nodes = params.expected_nodes();
    let mut nodes = Line::new("nodes", result.nodes);
    let mut ok = true;
    if let Some(t) = tree.filter(|_| interrupted) {
        nodes = nodes.note(format!("partial: the published tree has {}", t.nodes));
    } else if let Some(t) = tree {
        ok = t.nodes == result.nodes;
        nodes = nodes.note(if ok {
            format!("published: {} ✓", t.nodes)
        } else {
            format!("MISMATCH: published {}", t.nodes)
        });
    }
    let mut lines = vec![nodes, Line::new("leaves", result.leaves), Line::new("max depth", result.max_depth)];
    // What the parameters predict informs where no count is published; a
    // published tree is one draw of the random root state, and its count
    // is the one to check.
    if tree.is_none() {
        lines.push(
            Line::new("expected", format_size(expected_nodes))
                .note("the mean size over the random root state"),
        );
    }
    Answered {
        title,
        instance: Instance {
            sample: tree.map(|t| t.name),
            flags,
            params,
            expected_nodes: expected_nodes.is_finite().then_some(expected_nodes),
        },
        answer: Answer { result, published_nodes: tree.map(|t| t.nodes) },
        lines,
        ok,
    }
}

/// A tree size for people: `4130071 nodes`, `1.40e30 nodes`, `infinite`.
///
/// ```
/// use treelb_apps::report::uts::format_size;
/// assert_eq!(format_size(4130071.0), "4130071 nodes");
/// assert_eq!(format_size(1.4e30), "1.40e30 nodes");
/// assert_eq!(format_size(f64::INFINITY), "infinite");
/// ```
pub fn format_size(nodes: f64) -> String {
    match nodes {
        n if !n.is_finite() => "infinite".to_owned(),
        n if n < 1e9 => format!("{n:.0} nodes"),
        n => format!("{n:.2e} nodes"),
    }
}
