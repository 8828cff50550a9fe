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
        }
    }

    /// |`value` − `expected`| ≤ `tolerance`.
    pub fn within(claim: &str, what: &str, value: f64, expected: f64, tolerance: f64) -> Check {
        Check {
            claim: claim.to_owned(),
            measured: format!("{what} = {}", num(value)),
            criterion: format!("{} ± {}", num(expected), num(tolerance)),
            pass: (value - expected).abs() <= tolerance,
        }
    }

    /// `value` ≤ `max`.
    pub fn at_most(claim: &str, what: &str, value: f64, max: f64) -> Check {
        Check {
            claim: claim.to_owned(),
            measured: format!("{what} = {}", num(value)),
            criterion: format!("≤ {}", num(max)),
            pass: value <= max,
        }
    }

    /// `value` ≥ `min`.
    pub fn at_least(claim: &str, what: &str, value: f64, min: f64) -> Check {
        Check {
            claim: claim.to_owned(),
            measured: format!("{what} = {}", num(value)),
            criterion: format!("≥ {}", num(min)),
            pass: value >= min,
        }
    }

    /// A claim tested by a condition the caller computed.
    pub fn holds(claim: &str, measured: String, criterion: &str, pass: bool) -> Check {
        Check { claim: claim.to_owned(), measured, criterion: criterion.to_owned(), pass }
    }
}

/// A number as the report prints it: three significant digits.
fn num(x: f64) -> String {
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
        let passed = self.checks.iter().filter(|c| c.pass).count();
        if passed == 0 {
            Outcome::NotReproduced
        } else if passed == self.checks.len() {
            Outcome::Reproduced
        } else {
            Outcome::Partly
        }
    }

    /// Whether every check passes.
    pub fn passed(&self) -> bool {
        self.outcome() == Outcome::Reproduced
    }

    /// The failed checks' claims.
    pub fn failures(&self) -> Vec<&str> {
        self.checks.iter().filter(|c| !c.pass).map(|c| c.claim.as_str()).collect()
    }

    /// The verdict as Markdown: the headline, then one row per check.
    pub fn markdown(&self) -> String {
        let passed = self.checks.iter().filter(|c| c.pass).count();
        let mut s = format!(
            "**Verdict: {}** ({passed} of {} checks pass; each criterion and its tolerance beside it).\n\n",
            self.outcome(),
            self.checks.len()
        );
        s.push_str("| claim | measured | criterion | |\n|---|---|---|---|\n");
        for c in &self.checks {
            s.push_str(&format!(
                "| {} | {} | {} | {} |\n",
                c.claim,
                c.measured,
                c.criterion,
                if c.pass { "✓" } else { "✗" }
            ));
        }
        s
    }
}
