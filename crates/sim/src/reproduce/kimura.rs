use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::*;
use crate::plot::{Chart, Legend, PlotError, Series, Style};
use crate::producer::{self, Sizes};
use crate::sweep::{Observer, fit_line};

/// Reproduction 4 ([Kimura & Ichiyoshi 1992]): the single-level producer/consumer scheme.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Kimura {
    /// `λ t₁ = scale · p² ln p`: the task grows with the paper's isoefficiency.
    pub scale: f64,
    /// Trials per point (exponential case).
    pub trials: u32,
    /// One row per p.
    pub rows: Vec<KimuraRow>,
}

/// One p of reproduction 4.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KimuraRow {
    /// Consumers.
    pub p: usize,
    /// λ t₁.
    pub lambda_t1: f64,
    /// η_max and the best ν with equal subtasks.
    pub deterministic: (f64, usize),
    /// η_max and the best ν with exponential subtask sizes.
    pub exponential: (f64, usize),
    /// η_max and the best ν with sizes uniform in [0, 2t₁/ν] (a general
    /// distribution of moderate diversity, [Kimura & Ichiyoshi 1992] Theorem 2).
    pub uniform: (f64, usize),
}

impl KimuraRow {
    /// (1/η_max − 1) · λt₁ / p²: 1 predicted for equal subtasks, ρ log p for
    /// exponential ones.
    pub fn normalized(&self, eta: f64) -> f64 {
        (1.0 / eta - 1.0) * self.lambda_t1 / (self.p * self.p) as f64
    }
}

impl Kimura {
    /// The verdict: with equal subtasks the normalized overhead is 1 ± 0.1
    /// at every p (Proposition 1); with exponential ones it grows in ln p
    /// with slope ρ ≈ 1 ± 0.25 (Theorem 1); uniform sizes lie between the
    /// two at every p (Theorem 2).
    pub fn verdict(&self) -> Verdict {
        self.verdict_against(1.0, 1.0)
    }

    /// The verdict with `equal` the predicted normalized overhead of equal
    /// subtasks and `rho` the predicted slope in ln p of exponential ones.
    pub fn verdict_against(&self, equal: f64, rho: f64) -> Verdict {
        let det: Vec<f64> = self.rows.iter().map(|r| r.normalized(r.deterministic.0)).collect();
        let worst = det.iter().map(|x| (x - equal).abs()).fold(f64::NAN, f64::max);
        let fit = |f: &dyn Fn(&KimuraRow) -> f64| {
            fit_line(&self.rows.iter().map(|r| ((r.p as f64).ln(), f(r))).collect::<Vec<_>>()).0
        };
        let slope = fit(&|r| r.normalized(r.exponential.0));
        let between = !self.rows.is_empty()
            && self.rows.iter().all(|r| {
                let (d, e, u) = (
                    r.normalized(r.deterministic.0),
                    r.normalized(r.exponential.0),
                    r.normalized(r.uniform.0),
                );
                d <= u && u <= e
            });
        let mut v = Verdict::default();
        v.push(Check::at_most(
            &format!("equal subtasks: (1/η_max − 1)·λt₁/p² ≈ {equal} (Proposition 1)"),
            &format!("largest |normalized − {equal}|"),
            worst,
            0.1,
        ));
        v.push(Check::within(
            "exponential subtasks: ρ ln p, a factor log p worse (Theorem 1)",
            "slope of normalized overhead in ln p",
            slope,
            rho,
            0.25,
        ));
        v.push(Check::holds(
            "sizes of moderate diversity: bounded by the exponential case (Theorem 2)",
            format!(
                "uniform between equal and exponential at every p: {} (slope {:.2} in ln p)",
                if between { "yes" } else { "no" },
                fit(&|r| r.normalized(r.uniform.0))
            ),
            "at every p",
            between,
        ));
        v
    }
}

/// Runs reproduction 4.
pub fn kimura(scale: Scale, obs: &mut dyn Observer) -> Kimura {
    let (top, trials) = match scale {
        Scale::Full => (9u32, 40),
        Scale::Quick => (8, 10),
        Scale::Tiny => (6, 8),
    };
    let k = 20.0;
    obs.phase("producer/consumer", u64::from(top - 1));
    let rows = (2..=top)
        .map(|e| {
            let p = 1usize << e;
            let lambda_t1 = k * (p * p) as f64 * (p as f64).ln();
            let row = KimuraRow {
                p,
                lambda_t1,
                deterministic: producer::best(p, lambda_t1, 1.0, Sizes::Deterministic, 1, 5),
                exponential: producer::best(p, lambda_t1, 1.0, Sizes::Exponential, trials, 5),
                uniform: producer::best(p, lambda_t1, 1.0, Sizes::Uniform, trials, 5),
            };
            obs.step();
            row
        })
        .collect();
    Kimura { scale: k, trials, rows }
}

pub(super) fn section(w: &mut String, k: &Kimura, dir: &Path) -> Result<(), PlotError> {
    let _ = writeln!(w, "## 4. Producer/consumer schemes ([Kimura & Ichiyoshi 1992])\n");
    let _ = writeln!(w, "{}", include_str!("text/kimura.md"));
    let _ = writeln!(
        w,
        "**Simulated.** Kimura and Ichiyoshi's queueing model itself (their Definition 1; \
         no communication cost), λ = 1, t₁ = {}·p² ln p, ν scanned on a grid of ratio \
         2^(1/8) around ρ = 1, collective mean over {} trials for random sizes. The \
         normalized overhead (1/η_max − 1)·λt₁/p² is predicted to be ≈ 1 (equal), \
         ≈ ρ ln p (exponential) and at most ρ(ln p + c) (uniform in [0, 2/μ]).\n",
        k.scale, k.trials
    );
    let _ = writeln!(
        w,
        "| p | η_max equal | best ν | η_max exponential | best ν | η_max uniform | normalized, equal | normalized, exponential | normalized, uniform | ln p |\n|---|---|---|---|---|---|---|---|---|---|"
    );
    for r in &k.rows {
        let _ = writeln!(
            w,
            "| {} | {:.4} | {} | {:.4} | {} | {:.4} | {:.2} | {:.2} | {:.2} | {:.2} |",
            r.p,
            r.deterministic.0,
            r.deterministic.1,
            r.exponential.0,
            r.exponential.1,
            r.uniform.0,
            r.normalized(r.deterministic.0),
            r.normalized(r.exponential.0),
            r.normalized(r.uniform.0),
            (r.p as f64).ln()
        );
    }
    let pts = |f: &dyn Fn(&KimuraRow) -> f64| k.rows.iter().map(|r| (r.p as f64, f(r))).collect::<Vec<_>>();
    let exp_norm = pts(&|r| r.normalized(r.exponential.0));
    let _ = writeln!(w, "\n{}", k.verdict().markdown());
    let chart = Chart {
        title: "Single-level producer/consumer: (1/η_max − 1)·λt₁/p²".into(),
        x_label: "p (consumers)".into(),
        y_label: "normalized overhead".into(),
        log_x: true,
        log_y: false,
        y_range: None,
        series: vec![
            Series::new("equal subtasks", pts(&|r| r.normalized(r.deterministic.0)), Style::Points, 0),
            Series::new("exponential subtasks", exp_norm, Style::Points, 1),
            Series::new("uniform subtasks", pts(&|r| r.normalized(r.uniform.0)), Style::Points, 2),
            Series::new("predicted, equal: 1", pts(&|_| 1.0), Style::Dashed, 0),
            Series::new("predicted, exponential: ln p", pts(&|r| (r.p as f64).ln()), Style::Dashed, 1),
        ],
        legend: Legend::UpperLeft,
    };
    chart.draw(&dir.join("producer_consumer.png"))?;
    let _ = writeln!(w, "![producer/consumer overhead](producer_consumer.png)\n");
    Ok(())
}
