//! The report of a tree-size estimate: how big is the search tree, and how
//! long would a sequential search take, from random root-to-leaf probes
//! ([`treelb::search::estimate::probe_for`], Knuth's estimator).

use serde::Serialize;
use treelb::Sense;
use treelb::search::estimate::{Estimated, Mean};

use super::Line;

/// A mean and its standard error, as reported.
#[derive(Debug, Serialize)]
pub struct Stat {
    /// The mean over the probes.
    pub mean: f64,
    /// Its standard error.
    pub std_error: f64,
}

impl From<&Mean> for Stat {
    fn from(m: &Mean) -> Self {
        Stat { mean: m.mean(), std_error: m.std_error() }
    }
}

/// The estimate, as data.
#[derive(Debug, Serialize)]
pub struct Answer {
    /// Probes counted in the estimate.
    pub probes: u64,
    /// Probes set aside because the incumbent improved after them.
    pub probes_set_aside: u64,
    /// Seconds spent probing (all probes).
    pub probing_secs: f64,
    /// Estimated nodes of the tree.
    pub nodes: Stat,
    /// Estimated work units.
    pub work_units: Stat,
    /// Estimated seconds of a sequential search (each expansion's measured
    /// time, weighted like the nodes).
    pub sequential_secs: Stat,
    /// The deepest probe, in levels below the root.
    pub max_depth: u32,
    /// The incumbent's value that prunes the estimated tree.
    pub incumbent: Option<i64>,
    /// What else prunes it (a decision's floor), if anything.
    pub pruning: Option<Pruning>,
    /// The root has no children: the one probe measured the tree exactly.
    pub exact: bool,
    /// Seed of the probes' choices.
    pub seed: u64,
    /// A stop ended the probing before its time was up.
    pub interrupted: bool,
}

/// What prunes the tree besides the incumbent: `value` (`bound ≤ 29`) and
/// why (`note`).
#[derive(Debug, Serialize)]
pub struct Pruning {
    /// The pruning rule, briefly.
    pub value: String,
    /// Why it prunes.
    pub note: String,
}

/// The whole report of an estimate.
#[derive(Debug, Serialize)]
pub struct Report<I: Serialize> {
    /// The application: "clique".
    pub app: &'static str,
    /// `Tree-size estimate — ` and a one-line description of the instance.
    pub title: String,
    /// The instance's parameters.
    pub instance: I,
    /// The unit of work.
    pub unit: &'static str,
    /// The estimate.
    pub estimate: Answer,
    /// What the probes found (not in the JSON, which has
    /// [`estimate`](Self::estimate)).
    #[serde(skip)]
    pub found: Estimated,
    /// Whether the branch and bound maximizes or minimizes (not in the
    /// JSON).
    #[serde(skip)]
    pub sense: Sense,
}

impl<I: Serialize> Report<I> {
    /// The report of `found`, an estimate of `app`'s tree for `instance`
    /// (`title`), probed with `seed`, pruned by `pruning` besides the
    /// incumbent of a search of sense `sense`; `interrupted`: a stop ended
    /// the probing early.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        app: &'static str,
        title: &str,
        instance: I,
        unit: &'static str,
        found: Estimated,
        pruning: Option<Pruning>,
        seed: u64,
        sense: Sense,
        interrupted: bool,
    ) -> Self {
        let estimate = found.estimate;
        let answer = Answer {
            probes: estimate.probes(),
            probes_set_aside: found.set_aside,
            probing_secs: found.probing_secs,
            nodes: (&estimate.nodes).into(),
            work_units: (&estimate.units).into(),
            sequential_secs: (&estimate.seconds).into(),
            max_depth: estimate.max_depth,
            incumbent: found.incumbent,
            pruning,
            exact: found.exact,
            seed,
            interrupted,
        };
        Report {
            app,
            title: format!("Tree-size estimate — {title}"),
            instance,
            unit,
            estimate: answer,
            found,
            sense,
        }
    }

    /// The estimate as text for people: the title, then its
    /// [`lines`](Self::lines), labels aligned.
    pub fn text(&self) -> String {
        let lines = self.lines();
        let mut out = format!("{}\n", self.title);
        let width = lines.iter().map(|l| l.label.len()).max().unwrap_or(0);
        for l in &lines {
            out.push_str(&match &l.note {
                Some(note) => format!("  {:<width$}  {}  ({note})\n", l.label, l.value),
                None => format!("  {:<width$}  {}\n", l.label, l.value),
            });
        }
        out
    }

    /// The estimate as lines for people.
    pub fn lines(&self) -> Vec<Line> {
        let a = &self.estimate;
        let estimate = &self.found.estimate;
        let pm = |m: &Mean| format!("{} ± {}", sci(m.mean()), percent(m));
        let mut lines = vec![
            Line::new("probes", format!("{} in {:.1} s", a.probes, a.probing_secs)).note(format!(
                "random root-to-leaf paths on one thread, seed {}{}",
                a.seed,
                if a.probes_set_aside > 0 {
                    format!(
                        "; {} more set aside, made before the incumbent's last improvement",
                        a.probes_set_aside
                    )
                } else {
                    String::new()
                }
            )),
            if a.exact {
                Line::new("nodes", "1").note("exact: the root has no children")
            } else {
                Line::new("nodes", pm(&estimate.nodes)).note("mean ± standard error over the probes")
            },
        ];
        if estimate.units.mean() != estimate.nodes.mean() {
            lines.push(Line::new("work units", pm(&estimate.units)).note(self.unit));
        }
        lines.push(
            Line::new(
                "sequential",
                format!("{} ± {}", human_secs(estimate.seconds.mean()), percent(&estimate.seconds)),
            )
            .note("each expansion's measured time, weighted like the nodes"),
        );
        lines.push(Line::new("deepest probe", format!("{} levels", a.max_depth)));
        lines.push(match (a.incumbent, &a.pruning) {
            (None, Some(p)) => Line::new("pruning", &p.value).note(p.note.clone()),
            (Some(v), _) => Line::new("incumbent", v).note(format!(
                "the estimated tree is the one this {} prunes",
                if self.sense == Sense::Maximize {
                    "lower bound on the maximum"
                } else {
                    "upper bound on the minimum"
                }
            )),
            (None, None) => Line::new("incumbent", "none")
                .note("no solution known: the tree is pruned by the bounds alone"),
        });
        if self.found.rough() {
            lines.push(Line::new("caution", "rough").note(
                "few probes or a large standard error: the rare deep probes that carry the sum may not have come up yet; probe longer",
            ));
        }
        lines
    }
}

/// A count in scientific notation with three significant digits
/// (`3.22e9`), or plainly below 10⁶.
pub fn sci(x: f64) -> String {
    if x < 1e6 { format!("{x:.0}") } else { format!("{x:.2e}") }
}

/// The standard error as a percentage of the mean.
fn percent(m: &Mean) -> String {
    format!("{:.1} %", 100.0 * m.relative_error())
}

/// Seconds as `6741 s (1 h 52 min)`.
fn human_secs(s: f64) -> String {
    let whole = s.round() as u64;
    match whole {
        0..60 => format!("{s:.3} s"),
        60..3600 => format!("{s:.0} s ({} min {} s)", whole / 60, whole % 60),
        _ => format!("{s:.0} s ({} h {} min)", whole / 3600, whole % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_for_people() {
        assert_eq!(sci(12_345.4), "12345");
        assert_eq!(sci(3.2196e9), "3.22e9");
        assert_eq!(human_secs(0.0862), "0.086 s");
        assert_eq!(human_secs(754.0), "754 s (12 min 34 s)");
        assert_eq!(human_secs(6741.0), "6741 s (1 h 52 min)");
    }
}
