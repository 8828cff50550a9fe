//! Adaptive numerical integration as work that is not a tree of nodes:
//! Gauss–Kronrod (7, 15) quadrature on a list of intervals, refined where
//! the local error estimate is too large.
//!
//! * [`Integral`] — the problem: `∫ₐᵇ f(x) dx` to an absolute tolerance;
//! * [`Intervals`] — a piece of the work: a list of intervals still to be
//!   estimated. One unit of work estimates one interval with the 15-point
//!   Kronrod rule; if its error estimate `|K15 − G7|` is within the
//!   interval's share of the tolerance (`tol · (b − a)/(B − A)`), the
//!   estimate is accepted, otherwise both halves go back on the list. A
//!   split gives away half of the list (the oldest, widest intervals);
//!   the generation counts splits;
//! * [`Estimate`] — the output: the value and the error estimate as
//!   compensated (Neumaier) sums, and counters.
//!
//! Whether an interval is accepted depends on that interval alone, so every
//! schedule accepts the same intervals; only the order of the summation
//! differs, and compensated summation keeps that difference at the last bits
//! (the tests check 1e-12 relative agreement with the sequential run for
//! every number of PEs).
//!
//! [`INTEGRANDS`] lists test integrands with closed forms, singular-looking
//! and oscillating ones among them.
//!
//! ```
//! use treelb_apps::integrate::Integral;
//! let integral = Integral::new(|x: f64| x.sqrt(), 0.0, 1.0, 1e-12).unwrap();
//! let (estimate, _) = treelb::seq::run_work(integral.work());
//! assert!((estimate.value() - 2.0 / 3.0).abs() < 1e-12);
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};
use treelb::work::Rebuild;
use treelb::{Progress, Reduce, Work};

/// A sum of floating-point numbers with Neumaier's compensation: the
/// rounding error of every addition is accumulated separately, so the result
/// hardly depends on the order of the additions.
///
/// ```
/// use treelb_apps::integrate::CompensatedSum;
/// let mut s = CompensatedSum::default();
/// for x in [1.0, 1e100, 1.0, -1e100] {
///     s.add(x);
/// }
/// assert_eq!(s.value(), 2.0); // a plain sum gives 0
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CompensatedSum {
    sum: f64,
    compensation: f64,
}

impl CompensatedSum {
    /// Adds `x`.
    #[inline]
    pub fn add(&mut self, x: f64) {
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.compensation += (self.sum - t) + x;
        } else {
            self.compensation += (x - t) + self.sum;
        }
        self.sum = t;
    }

    /// The sum.
    pub fn value(&self) -> f64 {
        self.sum + self.compensation
    }
}

impl Reduce for CompensatedSum {
    fn merge(&mut self, other: Self) {
        self.add(other.sum);
        self.add(other.compensation);
    }
}

/// The result of (part of) an integration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The integral over the accepted intervals.
    pub sum: CompensatedSum,
    /// The sum of their error estimates `|K15 − G7|`.
    pub error: CompensatedSum,
    /// Intervals accepted.
    pub accepted: u64,
    /// Intervals evaluated (accepted or bisected): the units of work.
    pub evaluated: u64,
    /// Accepted with their error above their share of the tolerance: at
    /// the depth limit, or with an error estimate at the level of rounding
    /// errors, or one that stopped shrinking under bisection while below
    /// [`STALL_RELATIVE`] of `∫|f|` (the noise of evaluating `f`).
    pub at_depth_limit: u64,
    /// The deepest bisection level reached.
    pub max_depth: u32,
}

impl Estimate {
    /// The value of the integral.
    pub fn value(&self) -> f64 {
        self.sum.value()
    }

    /// The estimated absolute error.
    pub fn error(&self) -> f64 {
        self.error.value()
    }

    /// Whether the estimated error is within the tolerance `tol`.
    pub fn converged(&self, tol: f64) -> bool {
        self.error() <= tol
    }

    /// Whether the value and the error are finite numbers (not where the
    /// integrand was not finite at a point the rule evaluated).
    pub fn is_finite(&self) -> bool {
        self.value().is_finite() && self.error().is_finite()
    }

    /// `|value − other| / |other|`: how far the value is from `other`'s,
    /// relative to it (an integral computed another way).
    pub fn relative_difference(&self, other: f64) -> f64 {
        (self.value() - other).abs() / other.abs().max(f64::MIN_POSITIVE)
    }
}

/// The relative difference from the sequential run that every number of
/// PEs stays within: the order of the summation differs, and compensated
/// sums absorb it.
pub const SEQUENTIAL_AGREEMENT: f64 = 1e-12;

impl Reduce for Estimate {
    fn merge(&mut self, other: Self) {
        self.sum.merge(other.sum);
        self.error.merge(other.error);
        self.accepted += other.accepted;
        self.evaluated += other.evaluated;
        self.at_depth_limit += other.at_depth_limit;
        self.max_depth = self.max_depth.max(other.max_depth);
    }
}

impl fmt::Display for Estimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:.17e} ± {:.1e} ({} intervals, {} evaluated, depth {})",
            self.value(),
            self.error(),
            self.accepted,
            self.evaluated,
            self.max_depth
        )
    }
}

/// An integral that cannot be set up.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum IntegralError {
    /// An endpoint that is not finite, or `b <= a`.
    #[error("the interval [{a}, {b}] must have finite endpoints with a < b")]
    BadInterval {
        /// The lower end.
        a: f64,
        /// The upper end.
        b: f64,
    },
    /// A tolerance that is not positive and finite.
    #[error("the tolerance {0} must be positive and finite")]
    BadTolerance(f64),
    /// A depth limit at which the bisected intervals would be narrower than
    /// the smallest normal `f64` (see [`Integral::depth_limit`]).
    #[error(
        "{depth} bisections are too deep: past {limit} the intervals are narrower than the smallest normal \
         f64 (at most {limit})"
    )]
    TooDeep {
        /// The depth asked for.
        depth: u32,
        /// The deepest bisection whose width is still a normal `f64`.
        limit: u32,
    },
}

/// The default limit of bisections of the whole interval: deep enough for
/// the endpoint singularities of [`INTEGRANDS`] (`1/√x` needs about 70
/// bisections for a tolerance of 1e-10); only intervals that need it go
/// that deep.
pub const DEFAULT_MAX_DEPTH: u32 = 100;

/// `∫ₐᵇ f(x) dx` to an absolute tolerance, by adaptive Gauss–Kronrod
/// quadrature.
#[derive(Clone)]
pub struct Integral<F> {
    f: F,
    a: f64,
    b: f64,
    tol: f64,
    max_depth: u32,
}

impl<F> fmt::Debug for Integral<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Integral")
            .field("a", &self.a)
            .field("b", &self.b)
            .field("tol", &self.tol)
            .field("max_depth", &self.max_depth)
            .finish_non_exhaustive()
    }
}

impl<F: Fn(f64) -> f64 + Sync> Integral<F> {
    /// The integral of `f` over `[a, b]` to the absolute tolerance `tol`
    /// (the sum of the accepted intervals' error estimates stays below it,
    /// unless intervals reach the depth limit).
    pub fn new(f: F, a: f64, b: f64, tol: f64) -> Result<Self, IntegralError> {
        if !(a.is_finite() && b.is_finite() && a < b) {
            return Err(IntegralError::BadInterval { a, b });
        }
        if !(tol.is_finite() && tol > 0.0) {
            return Err(IntegralError::BadTolerance(tol));
        }
        Ok(Integral { f, a, b, tol, max_depth: DEFAULT_MAX_DEPTH })
    }

    /// The same integral with another limit on the bisection depth (an
    /// interval at this depth is accepted whatever its error). A depth
    /// beyond [`Integral::depth_limit`] is refused: the intervals there are
    /// narrower than the smallest normal `f64`, the rule's nodes collapse
    /// onto the endpoints, and a singular endpoint makes the sum NaN.
    pub fn with_max_depth(mut self, max_depth: u32) -> Result<Self, IntegralError> {
        let limit = self.depth_limit();
        if max_depth > limit {
            return Err(IntegralError::TooDeep { depth: max_depth, limit });
        }
        self.max_depth = max_depth;
        Ok(self)
    }

    /// The deepest bisection of `[a, b]` whose intervals are at least
    /// `f64::MIN_POSITIVE` (the smallest normal `f64`) wide: 1022 for
    /// `[0, 1]`.
    ///
    /// ```
    /// use treelb_apps::integrate::Integral;
    /// let unit = Integral::new(|x: f64| x, 0.0, 1.0, 1e-9).unwrap();
    /// assert_eq!(unit.depth_limit(), 1022);
    /// assert!(unit.clone().with_max_depth(1022).is_ok());
    /// assert!(unit.with_max_depth(1023).is_err());
    /// ```
    pub fn depth_limit(&self) -> u32 {
        let width = self.b - self.a;
        // The exact answer by halving: at most about 2100 steps, once.
        let mut depth = 0;
        let mut w = width;
        while w * 0.5 >= f64::MIN_POSITIVE && depth < u32::MAX {
            w *= 0.5;
            depth += 1;
        }
        depth
    }

    /// The interval `[a, b]`.
    pub fn bounds(&self) -> (f64, f64) {
        (self.a, self.b)
    }

    /// The absolute tolerance.
    pub fn tolerance(&self) -> f64 {
        self.tol
    }

    /// The whole work: the list holding `[a, b]` alone.
    pub fn work(&self) -> Intervals<'_, F> {
        Intervals { problem: self, stack: vec![Interval::whole(self.a, self.b)], generation: 0 }
    }

    /// The whole work cut into `pieces` equal intervals first (they are
    /// refined independently, so the result differs from [`Integral::work`]
    /// within the tolerance).
    pub fn work_in_pieces(&self, pieces: usize) -> Intervals<'_, F> {
        let pieces = pieces.max(1);
        let width = (self.b - self.a) / pieces as f64;
        let stack = (0..pieces)
            .rev()
            .map(|k| {
                Interval::whole(
                    self.a + width * k as f64,
                    if k + 1 == pieces { self.b } else { self.a + width * (k + 1) as f64 },
                )
            })
            .collect();
        Intervals { problem: self, stack, generation: 0 }
    }

    /// The piece holding `intervals` (the next one last) at `generation`:
    /// a piece of [`Integral::work`] rebuilt from [`Intervals::into_parts`],
    /// e.g. after it crossed to another process.
    pub fn piece(&self, intervals: Vec<Interval>, generation: u32) -> Intervals<'_, F> {
        Intervals { problem: self, stack: intervals, generation }
    }

    /// Estimates one interval: accepted (into `acc`) or bisected (onto
    /// `stack`).
    #[inline]
    fn refine(&self, iv: Interval, acc: &mut Estimate, stack: &mut Vec<Interval>) {
        let rule = gauss_kronrod_abs(&self.f, iv.a, iv.b);
        let (k15, g7) = (rule.kronrod, rule.gauss);
        let error = (k15 - g7).abs();
        acc.evaluated += 1;
        let share = self.tol * ((iv.b - iv.a) / (self.b - self.a));
        let mid = 0.5 * (iv.a + iv.b);
        let indivisible = !(iv.a < mid && mid < iv.b);
        // An error estimate at the level of the rounding errors of the rule
        // itself cannot shrink by bisection (QUADPACK's test, 50·ε·∫|f|).
        let roundoff = error <= 50.0 * f64::EPSILON * rule.abs;
        // Nor can an estimate that is already tiny relative to ∫|f| and did
        // not shrink when its parent was bisected: the noise of evaluating
        // f itself (e.g. sin(1/x) near 0 loses digits in 1/x) sets a floor
        // above 50·ε, and bisecting below it only doubles the intervals.
        let relative = if rule.abs > 0.0 { error / rule.abs } else { 0.0 };
        let stalled = relative <= STALL_RELATIVE && relative >= 0.25 * iv.parent_relative;
        if error <= share
            || roundoff
            || stalled
            || iv.depth >= self.max_depth
            || indivisible
            || !error.is_finite()
        {
            if error > share {
                acc.at_depth_limit += 1;
            }
            acc.sum.add(k15);
            acc.error.add(error);
            acc.accepted += 1;
            acc.max_depth = acc.max_depth.max(iv.depth);
        } else {
            let depth = iv.depth + 1;
            // The left half on top: intervals are refined left to right.
            let parent_relative = relative;
            stack.push(Interval { a: mid, b: iv.b, depth, parent_relative });
            stack.push(Interval { a: iv.a, b: mid, depth, parent_relative });
        }
    }
}

/// One interval of the list.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// The lower end.
    pub a: f64,
    /// The upper end.
    pub b: f64,
    /// The number of bisections from the whole interval.
    pub depth: u32,
    /// The relative error estimate (`|K15 − G7| / ∫|f|`) of the interval
    /// this one was bisected from (infinite for a whole interval).
    pub parent_relative: f64,
}

impl Interval {
    /// An interval that is not the result of a bisection.
    pub fn whole(a: f64, b: f64) -> Self {
        Interval { a, b, depth: 0, parent_relative: f64::INFINITY }
    }
}

/// Below this relative error estimate, an interval whose estimate did not
/// shrink by at least 4 when its parent was bisected is accepted: the
/// estimate is noise (see [`Estimate::at_depth_limit`]).
pub const STALL_RELATIVE: f64 = 1e-10;

/// An integration's pieces travel as their intervals and generation; the
/// receiver's copy of the integral supplies the integrand.
impl<'p, F: Fn(f64) -> f64 + Sync> Rebuild for &'p Integral<F> {
    type Work = Intervals<'p, F>;
    type State = (Vec<Interval>, u32);

    fn detach(&self, piece: Intervals<'p, F>) -> (Vec<Interval>, u32) {
        piece.into_parts()
    }

    fn rebuild(&self, (intervals, generation): (Vec<Interval>, u32)) -> Intervals<'p, F> {
        self.piece(intervals, generation)
    }
}

/// A piece of an integration: the intervals still to be estimated.
pub struct Intervals<'p, F> {
    problem: &'p Integral<F>,
    /// A stack: the next interval is the last.
    stack: Vec<Interval>,
    generation: u32,
}

impl<F> Clone for Intervals<'_, F> {
    fn clone(&self) -> Self {
        Intervals { problem: self.problem, stack: self.stack.clone(), generation: self.generation }
    }
}

impl<F> fmt::Debug for Intervals<'_, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Intervals")
            .field("open", &self.stack.len())
            .field("generation", &self.generation)
            .finish()
    }
}

impl<F> Intervals<'_, F> {
    /// The intervals of the piece, the next one last.
    pub fn intervals(&self) -> &[Interval] {
        &self.stack
    }

    /// The intervals (the next one last) and the generation, which
    /// [`Integral::piece`] turns back into the same piece.
    ///
    /// ```
    /// use treelb::Work;
    /// use treelb_apps::integrate::Integral;
    /// let integral = Integral::new(|x: f64| x.sqrt(), 0.0, 1.0, 1e-12).unwrap();
    /// let mut piece = integral.work();
    /// piece.work(5, &mut Default::default());
    /// let part = piece.split().unwrap();
    /// let (intervals, generation) = part.into_parts();
    /// let again = integral.piece(intervals.clone(), generation);
    /// assert_eq!((again.intervals(), again.generation()), (&intervals[..], 1));
    /// ```
    pub fn into_parts(self) -> (Vec<Interval>, u32) {
        (self.stack, self.generation)
    }
}

impl<F: Fn(f64) -> f64 + Sync> Work for Intervals<'_, F> {
    type Output = Estimate;

    fn work(&mut self, budget: u64, acc: &mut Estimate) -> Progress {
        let mut stack = std::mem::take(&mut self.stack);
        let mut used = 0;
        while used < budget {
            let Some(iv) = stack.pop() else {
                break;
            };
            self.problem.refine(iv, acc, &mut stack);
            used += 1;
        }
        let progress = if stack.is_empty() { Progress::Exhausted { used } } else { Progress::Pending };
        self.stack = stack;
        progress
    }

    /// Gives away the bottom half of the list (rounded down): the oldest,
    /// widest intervals. A list of one interval is atomic (bisecting it here
    /// would change which intervals are estimated).
    fn split(&mut self) -> Option<Self> {
        if self.stack.len() < 2 {
            return None;
        }
        let given: Vec<Interval> = self.stack.drain(..self.stack.len() / 2).collect();
        self.generation += 1;
        Some(Intervals { problem: self.problem, stack: given, generation: self.generation })
    }

    fn generation(&self) -> u32 {
        self.generation
    }

    fn load(&self) -> u64 {
        self.stack.len() as u64
    }
}

/// Kronrod nodes of the 15-point rule on `[−1, 1]` (the positive half,
/// descending; the odd ones are the Gauss 7-point nodes), from QUADPACK's
/// `qk15`.
#[allow(clippy::excessive_precision)] // QUADPACK's digits, verbatim
const XGK: [f64; 8] = [
    0.991_455_371_120_812_639_206_854_697_526_329,
    0.949_107_912_342_758_524_526_189_684_047_851,
    0.864_864_423_359_769_072_789_712_788_640_926,
    0.741_531_185_599_394_439_863_864_773_280_788,
    0.586_087_235_467_691_130_294_144_845_693_013,
    0.405_845_151_377_397_166_906_606_412_076_961,
    0.207_784_955_007_898_467_600_689_403_773_245,
    0.0,
];

/// Kronrod weights.
#[allow(clippy::excessive_precision)]
const WGK: [f64; 8] = [
    0.022_935_322_010_529_224_963_732_008_058_970,
    0.063_092_092_629_978_553_290_700_663_189_204,
    0.104_790_010_322_250_183_839_876_322_541_518,
    0.140_653_259_715_525_918_745_189_590_510_238,
    0.169_004_726_639_267_902_826_583_426_598_550,
    0.190_350_578_064_785_409_913_256_402_421_014,
    0.204_432_940_075_298_892_414_161_999_234_649,
    0.209_482_141_084_727_828_012_999_174_891_714,
];

/// Gauss weights of the 7-point rule, for `XGK[1]`, `XGK[3]`, `XGK[5]` and
/// the centre.
#[allow(clippy::excessive_precision)]
const WG: [f64; 4] = [
    0.129_484_966_168_869_693_270_611_432_679_082,
    0.279_705_391_489_276_667_901_467_771_423_780,
    0.381_830_050_505_118_944_950_369_775_488_975,
    0.417_959_183_673_469_387_755_102_040_816_327,
];

/// The 15-point Kronrod and 7-point Gauss estimates of `∫ₐᵇ f`. The rules
/// never evaluate `f` at the endpoints.
///
/// ```
/// let (k, g) = treelb_apps::integrate::gauss_kronrod(&|x: f64| x.powi(6), 0.0, 1.0);
/// assert!((k - 1.0 / 7.0).abs() < 1e-15 && (g - 1.0 / 7.0).abs() < 1e-15);
/// ```
pub fn gauss_kronrod(f: &impl Fn(f64) -> f64, a: f64, b: f64) -> (f64, f64) {
    let rule = gauss_kronrod_abs(f, a, b);
    (rule.kronrod, rule.gauss)
}

/// The two rules and the Kronrod rule applied to `|f|`.
struct Rule {
    kronrod: f64,
    gauss: f64,
    abs: f64,
}

#[inline]
fn gauss_kronrod_abs(f: &impl Fn(f64) -> f64, a: f64, b: f64) -> Rule {
    let centre = 0.5 * (a + b);
    let half = 0.5 * (b - a);
    let fc = f(centre);
    let mut kronrod = WGK[7] * fc;
    let mut gauss = WG[3] * fc;
    let mut abs = WGK[7] * fc.abs();
    for j in 0..7 {
        let dx = half * XGK[j];
        let (lo, hi) = (f(centre - dx), f(centre + dx));
        let pair = lo + hi;
        kronrod += WGK[j] * pair;
        abs += WGK[j] * (lo.abs() + hi.abs());
        if j % 2 == 1 {
            gauss += WG[j / 2] * pair;
        }
    }
    Rule { kronrod: kronrod * half, gauss: gauss * half, abs: abs * half.abs() }
}

/// An integral of a plain function, as the test integrands give.
pub type PlainIntegral = Integral<fn(f64) -> f64>;

/// A test integrand with its integral in closed form.
#[derive(Clone, Copy, Debug)]
pub struct TestIntegrand {
    /// A short name (the CLI's argument).
    pub name: &'static str,
    /// The integral as a formula.
    pub description: &'static str,
    /// The integrand.
    pub f: fn(f64) -> f64,
    /// The lower end.
    pub a: f64,
    /// The upper end.
    pub b: f64,
    /// The exact value.
    pub exact: fn() -> f64,
}

impl TestIntegrand {
    /// Looks an integrand up by name.
    pub fn find(name: &str) -> Option<&'static TestIntegrand> {
        INTEGRANDS.iter().find(|t| t.name == name)
    }

    /// Looks an integrand up by name; the error lists the known names.
    ///
    /// ```
    /// use treelb_apps::integrate::TestIntegrand;
    /// assert_eq!(TestIntegrand::named("sqrt").unwrap().name, "sqrt");
    /// assert!(TestIntegrand::named("tan").unwrap_err().starts_with("unknown integrand `tan` (known: "));
    /// ```
    pub fn named(name: &str) -> Result<&'static TestIntegrand, String> {
        TestIntegrand::find(name).ok_or_else(|| {
            let names: Vec<_> = INTEGRANDS.iter().map(|t| t.name).collect();
            format!("unknown integrand `{name}` (known: {})", names.join(", "))
        })
    }

    /// The integral over the integrand's interval to the tolerance `tol`.
    pub fn integral(&self, tol: f64) -> Result<PlainIntegral, IntegralError> {
        Integral::new(self.f, self.a, self.b, tol)
    }
}

/// Test integrands with closed forms: smooth, with a kink, singular-looking
/// at an endpoint, sharply peaked, and oscillating.
pub const INTEGRANDS: [TestIntegrand; 9] = [
    TestIntegrand {
        name: "sqrt",
        description: "∫₀¹ √x dx = 2/3 (infinite slope at 0)",
        f: f64::sqrt,
        a: 0.0,
        b: 1.0,
        exact: || 2.0 / 3.0,
    },
    TestIntegrand {
        name: "inv-sqrt",
        description: "∫₀¹ 1/√x dx = 2 (integrable singularity at 0)",
        f: |x| 1.0 / x.sqrt(),
        a: 0.0,
        b: 1.0,
        exact: || 2.0,
    },
    TestIntegrand {
        name: "log",
        description: "∫₀¹ ln x dx = −1 (logarithmic singularity at 0)",
        f: f64::ln,
        a: 0.0,
        b: 1.0,
        exact: || -1.0,
    },
    TestIntegrand {
        name: "sin-recip",
        description: "∫ sin(1/x)/x² dx over [0.01, 1] = cos 1 − cos 100 (oscillating, amplitude 10⁴)",
        f: |x| (1.0 / x).sin() / (x * x),
        a: 0.01,
        b: 1.0,
        exact: || 1f64.cos() - 100f64.cos(),
    },
    TestIntegrand {
        name: "x-sin-recip",
        description: "∫ (2x sin(1/x) − cos(1/x)) dx over [0.005, 1] = sin 1 − 0.005² sin 200 (oscillating)",
        // The derivative of x² sin(1/x).
        f: |x| 2.0 * x * (1.0 / x).sin() - (1.0 / x).cos(),
        a: 0.005,
        b: 1.0,
        exact: || 1f64.sin() - 0.005 * 0.005 * 200f64.sin(),
    },
    TestIntegrand {
        name: "cos50",
        description: "∫₀¹ cos 50x dx = sin(50)/50 (oscillating)",
        f: |x| (50.0 * x).cos(),
        a: 0.0,
        b: 1.0,
        exact: || 50f64.sin() / 50.0,
    },
    TestIntegrand {
        name: "peak",
        description: "∫₀¹ dx/(1 + 10⁴(x − 0.3)²) = (atan 70 + atan 30)/100 (sharp peak)",
        f: |x| 1.0 / (1.0 + 1e4 * (x - 0.3) * (x - 0.3)),
        a: 0.0,
        b: 1.0,
        exact: || (70f64.atan() + 30f64.atan()) / 100.0,
    },
    TestIntegrand {
        name: "kink",
        description: "∫₀¹ |x − 1/3| dx = 5/18 (a kink)",
        f: |x| (x - 1.0 / 3.0).abs(),
        a: 0.0,
        b: 1.0,
        exact: || 5.0 / 18.0,
    },
    TestIntegrand {
        name: "exp",
        description: "∫₀¹ eˣ dx = e − 1 (smooth)",
        f: f64::exp,
        a: 0.0,
        b: 1.0,
        exact: || std::f64::consts::E - 1.0,
    },
];
