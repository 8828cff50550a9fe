//! Verdicts computed from the numbers.
//!
//! A reproduction's verdict is a list of [`Check`]s, one per claim of the
//! paper: the claim in words, the measured quantity, the criterion with its
//! tolerance, and whether the numbers meet it. The headline —
//! reproduced, partly reproduced, not reproduced — is computed from the
//! checks ([`Verdict::outcome`]), never written by hand, so a reproduction
//! can fail and its section says so.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One claim of a paper, tested on the measured numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// What the paper says, in words.
    pub claim: String,
    /// What was measured.
    pub measured: String,
    /// The criterion and its tolerance.
    pub criterion: String,
    /// Whether the measurement meets the criterion (a NaN never does).
    pub pass: bool,
    /// The measurement cannot tell the claim from its alternative (the
    /// claim is not contradicted, nor confirmed): counted as not passed,
    /// shown as "?".
    #[serde(default)]
    pub undecided: bool,
    /// The check holds by construction (it cannot fail): shown, but not
    /// counted for or against the reproduction.
    #[serde(default)]
    pub informational: bool,
}

/// A least-squares slope with its 95 % confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slope {
    /// The fitted slope.
    pub slope: f64,
    /// Half the width of its 95 % confidence interval, from the residuals
    /// (Student's t with n − 2 degrees of freedom); NaN below 3 points.
    pub half_width: f64,
    /// The number of points fitted.
    pub points: usize,
}

impl Slope {
    /// Fits y = a + slope·x to `pts` by least squares.
    ///
    /// ```
    /// use treelb_sim::reproduce::Slope;
    /// let s = Slope::fit(&[(0.0, 1.0), (1.0, 3.0), (2.0, 5.1), (3.0, 6.9)]);
    /// assert!((s.slope - 1.98).abs() < 0.01 && s.half_width < 0.3 && s.contains(2.0));
    /// ```
    pub fn fit(pts: &[(f64, f64)]) -> Slope {
        let n = pts.len();
        let nan = Slope { slope: f64::NAN, half_width: f64::NAN, points: n };
        if n < 2 {
            return nan;
        }
        let nf = n as f64;
        let mx = pts.iter().map(|p| p.0).sum::<f64>() / nf;
        let my = pts.iter().map(|p| p.1).sum::<f64>() / nf;
        let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
        let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let slope = sxy / sxx;
        if n < 3 {
            return Slope { slope, ..nan };
        }
        let rss: f64 = pts.iter().map(|p| (p.1 - my - slope * (p.0 - mx)).powi(2)).sum();
        let se = (rss / (nf - 2.0) / sxx).sqrt();
        let t = crate::stats::t95(n - 2);
        Slope { slope, half_width: t * se, points: n }
    }

    /// Whether `x` lies inside the confidence interval.
    pub fn contains(&self, x: f64) -> bool {
        (self.slope - x).abs() <= self.half_width
    }
}

impl Check {
    /// `value` ∈ [`lo`, `hi`].
    ///
    /// ```
    /// use treelb_sim::reproduce::Check;
    /// assert!(Check::band("W ∝ P log P", "W/(P log P), last / first", 0.83, 0.71, 1.41).pass);
    /// assert!(!Check::band("W ∝ P²", "W/P², last / first", f64::NAN, 0.71, 1.41).pass);
    /// ```
    pub fn band(claim: &str, what: &str, value: f64, lo: f64, hi: f64) -> Check {
        Check {
            claim: claim.to_owned(),
            measured: format!("{what} = {}", num(value)),
            criterion: format!("within [{}, {}]", num(lo), num(hi)),
            pass: value >= lo && value <= hi,
            undecided: false,
            informational: false,
        }
    }

    /// A claimed exponent tested against its alternatives: the fit's 95 %
    /// interval must contain `claimed` and exclude every one of
    /// `alternatives` (the claim off by one log factor or one power).
    /// Undecided when the interval holds the claim and an alternative (the
    /// data cannot tell them apart); failed when it excludes the claim.
    ///
    /// ```
    /// use treelb_sim::reproduce::{Check, Slope};
    /// let fit = |slope, half_width| Slope { slope, half_width, points: 6 };
    /// let c = |s| Check::exponent("W ∝ P log P", "log power", s, 0.0, &[-1.0, 1.0]);
    /// assert!(c(fit(0.1, 0.4)).pass);
    /// assert!(c(fit(0.3, 0.8)).undecided);
    /// assert!(!c(fit(1.1, 0.4)).pass && !c(fit(1.1, 0.4)).undecided);
    /// ```
    pub fn exponent(claim: &str, what: &str, fit: Slope, claimed: f64, alternatives: &[f64]) -> Check {
        let alts: Vec<String> = alternatives.iter().map(|&a| num(a)).collect();
        let holds = fit.contains(claimed);
        let confused: Vec<String> =
            alternatives.iter().filter(|&&a| fit.contains(a)).map(|&a| num(a)).collect();
        let undecided = holds && !confused.is_empty();
        let mut measured =
            format!("{what} = {} ± {} (95 %, {} points)", num(fit.slope), num(fit.half_width), fit.points);
        if undecided {
            measured.push_str(&format!(
                "; undecided: the range measured cannot tell {} from {}",
                num(claimed),
                confused.join(" or ")
            ));
        }
        Check {
            claim: claim.to_owned(),
            measured,
            criterion: format!("{} inside the interval, {} outside", num(claimed), alts.join(" and ")),
            pass: holds && !undecided,
            undecided,
            informational: false,
        }
    }

    /// |`value` − `expected`| ≤ `tolerance`.
    pub fn within(claim: &str, what: &str, value: f64, expected: f64, tolerance: f64) -> Check {
        Check {
            claim: claim.to_owned(),
            measured: format!("{what} = {}", num(value)),
            criterion: format!("{} ± {}", num(expected), num(tolerance)),
            pass: (value - expected).abs() <= tolerance,
            undecided: false,
            informational: false,
        }
    }

    /// `value` ≤ `max`.
    pub fn at_most(claim: &str, what: &str, value: f64, max: f64) -> Check {
        Check {
            claim: claim.to_owned(),
            measured: format!("{what} = {}", num(value)),
            criterion: format!("≤ {}", num(max)),
            pass: value <= max,
            undecided: false,
            informational: false,
        }
    }

    /// `value` ≥ `min`.
    pub fn at_least(claim: &str, what: &str, value: f64, min: f64) -> Check {
        Check {
            claim: claim.to_owned(),
            measured: format!("{what} = {}", num(value)),
            criterion: format!("≥ {}", num(min)),
            pass: value >= min,
            undecided: false,
            informational: false,
        }
    }

    /// A claim tested by a condition the caller computed.
    pub fn holds(claim: &str, measured: String, criterion: &str, pass: bool) -> Check {
        Check {
            claim: claim.to_owned(),
            measured,
            criterion: criterion.to_owned(),
            pass,
            undecided: false,
            informational: false,
        }
    }

    /// A claim the measured range cannot decide at all (a smaller scale
    /// than the one that decides it, too few points for an interval):
    /// shown as "?" with the reason, counted as not passed.
    ///
    /// ```
    /// use treelb_sim::reproduce::{Check, Verdict, Outcome};
    /// let mut v = Verdict::default();
    /// v.push(Check::at_most("overhead bounded", "max ratio", 1.8, 4.0));
    /// v.push(Check::undecidable("root ∝ √(p log p)", "one p measured", "three p at least"));
    /// assert_eq!(v.outcome(), Outcome::Partly);
    /// assert!(v.checks[1].undecided && !v.checks[1].pass);
    /// ```
    pub fn undecidable(claim: &str, measured: &str, criterion: &str) -> Check {
        Check {
            claim: claim.to_owned(),
            measured: measured.to_owned(),
            criterion: criterion.to_owned(),
            pass: false,
            undecided: true,
            informational: false,
        }
    }

    /// The same check marked as holding by construction: shown, but not
    /// counted for or against the reproduction.
    pub fn informational(self) -> Check {
        Check { informational: true, ..self }
    }

    /// The check's mark in a verdict table.
    pub fn mark(&self) -> &'static str {
        if self.informational {
            "(info)"
        } else if self.undecided {
            "?"
        } else if self.pass {
            "✓"
        } else {
            "✗"
        }
    }
}

/// A number as the report prints it: three significant digits.
pub(super) fn num(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    let a = x.abs();
    if a == 0.0 {
        "0".to_owned()
    } else if a >= 1000.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 0.1 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

/// The headline of a verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// Every check passes.
    Reproduced,
    /// Some checks pass, some do not.
    Partly,
    /// No check passes (or there was nothing to check).
    NotReproduced,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::Reproduced => "reproduced",
            Outcome::Partly => "partly reproduced",
            Outcome::NotReproduced => "not reproduced",
        })
    }
}

/// The checks of one reproduction.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// One per claim.
    pub checks: Vec<Check>,
}

impl Verdict {
    /// Adds a check.
    pub fn push(&mut self, check: Check) {
        self.checks.push(check);
    }

    /// The headline, computed from the checks.
    ///
    /// ```
    /// use treelb_sim::reproduce::{Check, Outcome, Verdict};
    /// let mut v = Verdict::default();
    /// v.push(Check::at_most("overhead bounded", "max ratio", 1.8, 4.0));
    /// assert_eq!(v.outcome(), Outcome::Reproduced);
    /// v.push(Check::within("exponent 2", "slope", 1.5, 2.0, 0.1));
    /// assert_eq!(v.outcome(), Outcome::Partly);
    /// ```
    pub fn outcome(&self) -> Outcome {
        let counted = self.counted().count();
        let passed = self.counted().filter(|c| c.pass).count();
        let undecided = self.counted().filter(|c| c.undecided).count();
        if passed == 0 && undecided == 0 {
            Outcome::NotReproduced
        } else if passed == counted {
            Outcome::Reproduced
        } else {
            Outcome::Partly
        }
    }

    /// The checks that count (all but the informational ones).
    fn counted(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| !c.informational)
    }

    /// Whether every check passes.
    pub fn passed(&self) -> bool {
        self.outcome() == Outcome::Reproduced
    }

    /// The failed checks' claims.
    pub fn failures(&self) -> Vec<&str> {
        self.counted().filter(|c| !c.pass).map(|c| c.claim.as_str()).collect()
    }

    /// The verdict as Markdown: the headline, then one row per check.
    pub fn markdown(&self) -> String {
        let passed = self.counted().filter(|c| c.pass).count();
        let undecided = self.counted().filter(|c| c.undecided).count();
        let info = self.checks.len() - self.counted().count();
        let mut extra = String::new();
        if undecided > 0 {
            extra.push_str(&format!(", {undecided} undecided (?)"));
        }
        if info > 0 {
            extra.push_str(&format!(", {info} informational, not counted"));
        }
        let mut s = format!(
            "**Verdict: {}** ({passed} of {} checks pass{extra}; each criterion and its tolerance beside it).\n\n",
            self.outcome(),
            self.counted().count()
        );
        s.push_str("| claim | measured | criterion | |\n|---|---|---|---|\n");
        for c in &self.checks {
            s.push_str(&format!("| {} | {} | {} | {} |\n", c.claim, c.measured, c.criterion, c.mark()));
        }
        s
    }
}
