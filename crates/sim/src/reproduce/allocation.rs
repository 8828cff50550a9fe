use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::*;
use crate::alloc::{Placement, golden, mean_max_load};
use crate::plot::{Chart, Legend, PlotError, Series, Style};
use crate::sweep::Observer;

/// Reproduction 5: maximum loads of the allocation rules.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Allocation {
    /// The values of p (tasks = servers).
    pub ps: Vec<usize>,
    /// One row per rule: (label, mean maximum load per p).
    pub rules: Vec<(Placement, Vec<f64>)>,
    /// Trials per point.
    pub trials: u32,
}

/// Runs reproduction 5.
pub fn allocation(scale: Scale, obs: &mut dyn Observer) -> Allocation {
    let (top, trials) = match scale {
        Scale::Full => (20, 20),
        Scale::Quick => (20, 5),
        Scale::Tiny => (14, 3),
    };
    let ps: Vec<usize> = (4..=top).step_by(2).map(|k| 1usize << k).collect();
    let rules = [
        Placement::Random,
        Placement::Uniform(2),
        Placement::Uniform(3),
        Placement::AlwaysGoLeft(2),
        Placement::AlwaysGoLeft(3),
    ];
    obs.phase("allocation", (rules.len() * ps.len()) as u64);
    let rules = rules
        .into_iter()
        .map(|rule| {
            let loads = ps
                .iter()
                .map(|&p| {
                    let m = mean_max_load(p, rule, trials, 11);
                    obs.step();
                    m
                })
                .collect();
            (rule, loads)
        })
        .collect();
    Allocation { ps, rules, trials }
}

impl Allocation {
    /// The verdict, over p ≥ 2^8 (below, the Θ(1) terms dominate): random
    /// placement grows like ln p / ln ln p (the ratio changes by at most a
    /// factor √2 from the smallest to the largest p); d choices and
    /// always-go-left stay within ±1 of their predictions' growth (the
    /// difference load − prediction varies by at most 1 over p: the
    /// ± Θ(1)); always-go-left is never above two choices.
    pub fn verdict(&self) -> Verdict {
        let phi2 = golden(2);
        self.verdict_against(&[
            (Placement::Uniform(2), 1.0 / 2f64.ln()),
            (Placement::Uniform(3), 1.0 / 3f64.ln()),
            (Placement::AlwaysGoLeft(2), 1.0 / (2.0 * phi2.ln())),
        ])
    }

    /// The verdict with `slopes`: the coefficient of ln ln p predicted for
    /// each rule.
    pub fn verdict_against(&self, slopes: &[(Placement, f64)]) -> Verdict {
        let idx: Vec<usize> = (0..self.ps.len()).filter(|&i| self.ps[i] >= 1 << 8).collect();
        let lnp = |i: usize| (self.ps[i] as f64).ln();
        let mut v = Verdict::default();
        let random = self.loads(Placement::Random);
        let ratio = match (random, idx.first(), idx.last()) {
            (Some(l), Some(&i0), Some(&i1)) if i1 > i0 => {
                let f = |i: usize| l[i] / (lnp(i) / lnp(i).ln());
                f(i1) / f(i0)
            }
            _ => f64::NAN,
        };
        v.push(Check::band(
            "random placement: Θ(log p / log log p)",
            "load/(ln p / ln ln p), largest p ÷ p = 2^8",
            ratio,
            std::f64::consts::FRAC_1_SQRT_2,
            std::f64::consts::SQRT_2,
        ));
        for &(rule, slope) in slopes {
            let spread = self.loads(rule).map_or(f64::NAN, |l| {
                let d: Vec<f64> = idx.iter().map(|&i| l[i] - slope * lnp(i).ln()).collect();
                d.iter().copied().fold(f64::MIN, f64::max) - d.iter().copied().fold(f64::MAX, f64::min)
            });
            v.push(Check::at_most(
                &format!("{}: {:.2}·ln ln p ± Θ(1)", rule.label(), slope),
                "spread of load − prediction over p",
                spread,
                1.0,
            ));
        }
        let left_below = match (self.loads(Placement::AlwaysGoLeft(2)), self.loads(Placement::Uniform(2))) {
            (Some(l), Some(u)) => idx.iter().all(|&i| l[i] <= u[i]),
            _ => false,
        };
        v.push(Check::holds(
            "always-go-left is below two choices",
            format!("at every p ≥ 2^8: {}", if left_below { "yes" } else { "no" }),
            "never above",
            left_below,
        ));
        v
    }

    /// The mean maximum loads of `rule`, if measured.
    pub fn loads(&self, rule: Placement) -> Option<&[f64]> {
        self.rules.iter().find(|(r, _)| *r == rule).map(|(_, l)| l.as_slice())
    }
}

pub(super) fn section(w: &mut String, a: &Allocation, dir: &Path) -> Result<(), PlotError> {
    let _ = writeln!(
        w,
        "## 5. Maximum load of random, two-choice and always-go-left placement ([Lecture, load balancing])\n"
    );
    let _ = writeln!(w, "{}", include_str!("text/allocation.md"));
    let _ = writeln!(
        w,
        "**Measured.** Mean maximum load over {} trials (no simulator needed: the placement is the process).\n",
        a.trials
    );
    let _ = write!(w, "| p |");
    for (r, _) in &a.rules {
        let _ = write!(w, " {} |", r.label());
    }
    let _ = writeln!(w, " ln p / ln ln p | ln ln p / ln 2 | ln ln p / (2 ln φ₂) |");
    let _ = write!(w, "|---|");
    for _ in 0..a.rules.len() + 3 {
        let _ = write!(w, "---|");
    }
    let _ = writeln!(w);
    let phi2 = golden(2);
    for (i, &p) in a.ps.iter().enumerate() {
        let _ = write!(w, "| 2^{} |", p.trailing_zeros());
        for (_, loads) in &a.rules {
            let _ = write!(w, " {:.2} |", loads[i]);
        }
        let l = (p as f64).ln();
        let _ = writeln!(
            w,
            " {:.2} | {:.2} | {:.2} |",
            l / l.ln(),
            l.ln() / 2f64.ln(),
            l.ln() / (2.0 * phi2.ln())
        );
    }
    let _ = writeln!(w, "\n{}", a.verdict().markdown());
    let mut series: Vec<Series> = a
        .rules
        .iter()
        .enumerate()
        .map(|(i, (r, loads))| {
            Series::new(
                r.label(),
                a.ps.iter().map(|&p| p as f64).zip(loads.iter().copied()).collect(),
                Style::Points,
                i,
            )
        })
        .collect();
    let pred =
        |f: &dyn Fn(f64) -> f64| a.ps.iter().map(|&p| (p as f64, f((p as f64).ln()))).collect::<Vec<_>>();
    series.push(Series::new("ln p / ln ln p", pred(&|l: f64| l / l.ln()), Style::Dashed, 0));
    series.push(Series::new("ln ln p / ln 2", pred(&|l: f64| l.ln() / 2f64.ln()), Style::Dashed, 1));
    let chart = Chart {
        title: "Maximum load, p tasks on p servers".into(),
        x_label: "p".into(),
        y_label: "maximum load".into(),
        log_x: true,
        log_y: false,
        y_range: Some((0.0, a.rules.iter().flat_map(|(_, l)| l.iter().copied()).fold(0.0, f64::max) + 1.0)),
        series,
        legend: Legend::UpperLeft,
    };
    chart.draw(&dir.join("allocation.png"))?;
    let _ = writeln!(w, "![maximum load](allocation.png)\n");
    Ok(())
}
