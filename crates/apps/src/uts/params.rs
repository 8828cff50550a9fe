//! The parameters of a UTS tree, as the reference's command-line flags set
//! them, and their validation.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

/// The largest number of children of a node (`MAXNUMCHILDREN` of the
/// reference); only the root of a binomial tree and the nodes of a balanced
/// tree may have more.
pub const MAX_NUM_CHILDREN: u32 = 100;

/// The kind of a UTS tree (flag `-t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum TreeType {
    /// `-t 0`: the root has `b0` children; every other node has `m` children
    /// with probability `q`, else none.
    Binomial = 0,
    /// `-t 1`: geometrically distributed numbers of children whose expected
    /// value follows the [`GeoShape`] of the depth.
    Geometric = 1,
    /// `-t 2`: geometric above depth `shift_depth * gen_mx`, binomial below.
    Hybrid = 2,
    /// `-t 3`: every node above depth `gen_mx` has exactly `b0` children.
    Balanced = 3,
}

impl TreeType {
    /// All tree types, by code.
    pub const ALL: [TreeType; 4] =
        [TreeType::Binomial, TreeType::Geometric, TreeType::Hybrid, TreeType::Balanced];

    /// The type with the given reference code (`-t` value), if any.
    pub fn from_code(code: u32) -> Option<TreeType> {
        TreeType::ALL.into_iter().find(|t| t.code() == code)
    }

    /// The reference code of this type (its `-t` value).
    pub fn code(self) -> u32 {
        self as u32
    }

    /// The reference's name of this type.
    pub fn name(self) -> &'static str {
        match self {
            TreeType::Binomial => "Binomial",
            TreeType::Geometric => "Geometric",
            TreeType::Hybrid => "Hybrid",
            TreeType::Balanced => "Balanced",
        }
    }
}

impl fmt::Display for TreeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How the expected branching factor of a geometric tree changes with depth
/// (flag `-a`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum GeoShape {
    /// `-a 0`: `b0 * (1 - depth / gen_mx)`.
    Linear = 0,
    /// `-a 1`: `b0 * depth^(-ln b0 / ln gen_mx)`.
    ExpDec = 1,
    /// `-a 2`: `b0^sin(2π depth / gen_mx)`, and no children below depth
    /// `5 * gen_mx`.
    Cyclic = 2,
    /// `-a 3`: `b0` above depth `gen_mx`, no children from there on.
    Fixed = 3,
}

impl GeoShape {
    /// All shapes, by code.
    pub const ALL: [GeoShape; 4] = [GeoShape::Linear, GeoShape::ExpDec, GeoShape::Cyclic, GeoShape::Fixed];

    /// The shape with the given reference code (`-a` value), if any.
    pub fn from_code(code: u32) -> Option<GeoShape> {
        GeoShape::ALL.into_iter().find(|s| s.code() == code)
    }

    /// The reference code of this shape (its `-a` value).
    pub fn code(self) -> u32 {
        self as u32
    }

    /// The reference's name of this shape.
    pub fn name(self) -> &'static str {
        match self {
            GeoShape::Linear => "Linear decrease",
            GeoShape::ExpDec => "Exponential decrease",
            GeoShape::Cyclic => "Cyclic",
            GeoShape::Fixed => "Fixed branching factor",
        }
    }
}

impl fmt::Display for GeoShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The parameters of a UTS tree. Field docs name the reference's flag and
/// variable; [`Default`] gives the reference's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Params {
    /// `-t`, `type`: the kind of tree. Default geometric.
    pub tree_type: TreeType,
    /// `-b`, `b_0`: the branching factor of the root (for balanced trees, of
    /// every node). Default 4.
    pub b0: f64,
    /// `-r`, `rootId`: the seed of the root's random state. Default 0.
    pub root_seed: i32,
    /// `-m`, `nonLeafBF`: the number of children of a binomial non-leaf.
    /// Default 4.
    pub m: u32,
    /// `-q`, `nonLeafProb`: the probability that a binomial node is a non-leaf.
    /// Default 15/64.
    pub q: f64,
    /// `-a`, `shape_fn`: the shape of a geometric tree. Default linear.
    pub shape: GeoShape,
    /// `-d`, `gen_mx`: the depth parameter of geometric and balanced trees.
    /// Default 6.
    pub gen_mx: u32,
    /// `-f`, `shiftDepth`: the fraction of `gen_mx` at which a hybrid tree
    /// turns from geometric to binomial. Default 0.5.
    pub shift_depth: f64,
    /// `-g`, `computeGranularity`: how many times each child's state is
    /// computed (extra work per node; the tree does not change). Default 1.
    pub granularity: u32,
}

impl Params {
    /// The reference's defaults: a geometric tree with linearly decreasing
    /// branching factor, `b0 = 4`, depth 6, seed 0 (1,732 nodes).
    pub const DEFAULT: Params = Params {
        tree_type: TreeType::Geometric,
        b0: 4.0,
        root_seed: 0,
        m: 4,
        q: 15.0 / 64.0,
        shape: GeoShape::Linear,
        gen_mx: 6,
        shift_depth: 0.5,
        granularity: 1,
    };

    /// Parses the reference's flags, e.g. `["-t", "1", "-a", "3", "-d", "10",
    /// "-b", "4", "-r", "19"]`, starting from the defaults, and validates the
    /// result.
    ///
    /// Recognised flags: `-t -b -r -m -q -a -d -f -g`, each followed by its
    /// value as a separate argument. A repeated flag overrides the earlier one,
    /// as in the reference.
    ///
    /// ```
    /// use treelb_apps::uts::{GeoShape, Params, TreeType};
    /// let p = Params::from_uts_args(["-t", "1", "-a", "3", "-d", "10", "-b", "4", "-r", "19"]).unwrap();
    /// assert_eq!((p.tree_type, p.shape, p.gen_mx, p.b0, p.root_seed), (TreeType::Geometric, GeoShape::Fixed, 10, 4.0, 19));
    /// assert!(Params::from_uts_args(["-x", "1"]).is_err());
    /// ```
    pub fn from_uts_args<I, S>(args: I) -> Result<Params, ParamsError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut params = Params::DEFAULT;
        let mut args = args.into_iter();
        while let Some(flag) = args.next() {
            let flag = flag.as_ref();
            let set = Flag::parse(flag).ok_or_else(|| ParamsError::UnknownFlag(flag.to_owned()))?;
            let value = args.next().ok_or_else(|| ParamsError::MissingValue(flag.to_owned()))?;
            set.apply(&mut params, value.as_ref())?;
        }
        params.validate()?;
        Ok(params)
    }

    /// Parses the reference's flags from one whitespace-separated string, e.g.
    /// `"-t 0 -b 2000 -q 0.124875 -m 8 -r 42"`; see
    /// [`from_uts_args`](Params::from_uts_args).
    pub fn from_uts_str(flags: &str) -> Result<Params, ParamsError> {
        Params::from_uts_args(flags.split_whitespace())
    }

    /// Checks that the parameters describe a tree that the reference would
    /// generate without undefined behaviour and that is likely finite.
    ///
    /// Always: `b0` is finite and in `[0, 2^31 - 1]`, and `granularity >= 1`.
    /// The other parameters are checked only where the tree type uses them:
    ///
    /// * geometric and hybrid trees: `gen_mx >= 1`, and `b0 > 1` for the
    ///   exponential-decrease shape (else the branching factor grows with
    ///   depth);
    /// * hybrid trees: `shift_depth` in `[0, 1]`;
    /// * binomial and hybrid trees: `q` in `[0, 1]`, `m >= 1` if `q > 0`, and
    ///   the tree is finite with probability at least 1/2 (see
    ///   [`finite_probability`](Params::finite_probability)). A tree with
    ///   `q * m > 1` is infinite in expectation, but may still be finite, like
    ///   the published T3L; one finite with small probability would most likely
    ///   make the search run forever.
    pub fn validate(&self) -> Result<(), ParamsError> {
        let b0 = self.b0;
        if !(b0.is_finite() && (0.0..=f64::from(i32::MAX)).contains(&b0)) {
            return Err(ParamsError::RootBranching(b0));
        }
        if self.granularity == 0 {
            return Err(ParamsError::ZeroGranularity);
        }
        let (binomial, geometric) = match self.tree_type {
            TreeType::Binomial => (true, false),
            TreeType::Geometric => (false, true),
            TreeType::Hybrid => (true, true),
            TreeType::Balanced => (false, false),
        };
        if geometric {
            if self.gen_mx == 0 {
                return Err(ParamsError::ZeroDepth(self.tree_type));
            }
            if self.shape == GeoShape::ExpDec && b0 <= 1.0 {
                return Err(ParamsError::ExpDecRootBranching(b0));
            }
        }
        if self.tree_type == TreeType::Hybrid && !(0.0..=1.0).contains(&self.shift_depth) {
            return Err(ParamsError::ShiftDepth(self.shift_depth));
        }
        if binomial {
            if !(0.0..=1.0).contains(&self.q) {
                return Err(ParamsError::Probability(self.q));
            }
            if self.m == 0 && self.q > 0.0 {
                return Err(ParamsError::ZeroNonLeafBranching { q: self.q });
            }
            if self.tree_type == TreeType::Hybrid
                && self.binomial_branching() > 1.0
                && self.geometric_heights() > EXPECTATION_DEPTHS
            {
                return Err(ParamsError::DeepHybrid {
                    depth: self.gen_mx,
                    shift: self.shift_depth,
                    levels: self.geometric_heights(),
                    max: EXPECTATION_DEPTHS,
                });
            }
            let finite_probability = self.finite_probability();
            if finite_probability < MIN_FINITE_PROBABILITY {
                return Err(ParamsError::InfiniteBinomial {
                    q: self.q,
                    m: self.m,
                    expected: self.binomial_branching(),
                    finite_probability,
                });
            }
        }
        Ok(())
    }

    /// The expected number of children of a binomial node below the root:
    /// `q * m`, with `m` truncated to [`MAX_NUM_CHILDREN`] as the reference
    /// does.
    pub fn binomial_branching(&self) -> f64 {
        self.q * f64::from(self.m.min(MAX_NUM_CHILDREN))
    }

    /// The shape function's target branching factor `b_i` of a geometric node
    /// at `depth` (the expected number of children before truncation),
    /// computed operation for operation as the reference does, so that the
    /// result agrees to the last bit.
    pub fn geometric_branching(&self, depth: u32) -> f64 {
        let b0 = self.b0;
        if depth == 0 {
            return b0;
        }
        let gen_mx = f64::from(self.gen_mx);
        let depth_f = f64::from(depth);
        match self.shape {
            GeoShape::ExpDec => b0 * depth_f.powf(-b0.ln() / gen_mx.ln()),
            GeoShape::Cyclic if depth > self.gen_mx.saturating_mul(5) => 0.0,
            GeoShape::Cyclic => b0.powf((2.0 * std::f64::consts::PI * depth_f / gen_mx).sin()),
            GeoShape::Fixed if depth < self.gen_mx => b0,
            GeoShape::Fixed => 0.0,
            GeoShape::Linear => b0 * (1.0 - depth_f / gen_mx),
        }
    }

    /// The probability that the tree is finite, taken over the random root
    /// state (that is, before the seed is known).
    ///
    /// Geometric and balanced trees are always finite. A binomial subtree is a
    /// Galton–Watson process: finite surely if `q * m <= 1`, and otherwise
    /// with its extinction probability `η < 1`, the smallest root of
    /// `η = 1 - q + q η^m`. The whole tree is finite if the subtrees of all
    /// the root's children are: with probability `η^floor(b0)` for a binomial
    /// tree, and for a hybrid tree by composing the generating functions of
    /// the (truncated) geometric distributions above the shift depth.
    ///
    /// [`validate`](Params::validate) rejects trees that are finite with
    /// probability below 1/2. The published sample tree T3L, with
    /// `q * m = 1.00007`, is finite with probability about 0.93.
    pub fn finite_probability(&self) -> f64 {
        match self.tree_type {
            TreeType::Geometric | TreeType::Balanced => 1.0,
            TreeType::Binomial => {
                // The root has floor(b0) children, each the root of a binomial subtree.
                binomial_extinction(self.q, self.m.min(MAX_NUM_CHILDREN)).powf(self.b0.floor())
            }
            TreeType::Hybrid => {
                // Nodes of height h < shift_depth * gen_mx are geometric.
                let geometric_heights = self.geometric_heights();
                let eta = binomial_extinction(self.q, self.m.min(MAX_NUM_CHILDREN));
                if eta == 1.0 {
                    return 1.0;
                }
                if geometric_heights > EXPECTATION_DEPTHS {
                    // Too deep to fold level by level (validate refuses it).
                    return 0.0;
                }
                let finite = (0..geometric_heights).rev().fold(eta, |finite, height| {
                    truncated_geometric_pgf(self.geometric_branching(height), finite)
                });
                // The sum of probabilities may round to just above 1.
                finite.min(1.0)
            }
        }
    }
}

impl Params {
    /// The expected number of nodes of the tree, taken over the random root
    /// state (before the seed is known); infinite when the expectation is
    /// (a binomial part with `q * m >= 1`) or exceeds `f64::MAX`.
    ///
    /// * binomial: the root has `floor(b0)` children, each the root of a
    ///   Galton–Watson subtree of `1 / (1 - q m)` nodes in expectation:
    ///   `1 + floor(b0) / (1 - q m)`;
    /// * geometric: a node at depth `d` has a geometric number of children
    ///   of mean `b_d` ([`geometric_branching`](Params::geometric_branching))
    ///   truncated at [`MAX_NUM_CHILDREN`], so level `d + 1` holds level `d`'s
    ///   expected size times that mean; the sum of the levels;
    /// * hybrid: the geometric levels above `shift_depth * gen_mx`, then
    ///   every node of the first binomial level with its `1 / (1 - q m)`;
    /// * balanced: `floor(b0)^d` nodes at each depth `d <= gen_mx`.
    ///
    /// The sizes of single trees scatter widely around it (T1 has 4.1
    /// million nodes, the expectation of its parameters is 1.4 million; T3
    /// 4.1 million against 2.0 million).
    ///
    /// ```
    /// use treelb_apps::uts::Params;
    /// let t3: Params = "-t 0 -b 2000 -q 0.124875 -m 8 -r 42".parse().unwrap();
    /// assert!((t3.expected_nodes() - 2_000_001.0).abs() < 1e-3);
    /// let t1: Params = "-t 1 -a 3 -d 10 -b 4 -r 19".parse().unwrap();
    /// assert!((t1.expected_nodes() / 1_398_101.0 - 1.0).abs() < 1e-6);
    /// let balanced: Params = "-t 3 -b 3 -d 4".parse().unwrap();
    /// assert_eq!(balanced.expected_nodes(), 121.0);
    /// let critical: Params = "-t 0 -q 0.2 -m 5".parse().unwrap();
    /// assert_eq!(critical.expected_nodes(), f64::INFINITY);
    /// ```
    pub fn expected_nodes(&self) -> f64 {
        // Expected nodes of a binomial subtree hanging from a non-root node.
        let binomial_subtree = || {
            let qm = self.binomial_branching();
            if qm < 1.0 { 1.0 / (1.0 - qm) } else { f64::INFINITY }
        };
        match self.tree_type {
            TreeType::Binomial => 1.0 + self.b0.floor() * binomial_subtree(),
            TreeType::Balanced => {
                let b = self.b0.floor();
                let mut level = 1.0;
                let mut total = 1.0;
                for _ in 0..self.gen_mx {
                    level *= b;
                    total += level;
                    if !total.is_finite() || level == 0.0 {
                        break;
                    }
                }
                total
            }
            TreeType::Geometric => self.geometric_levels(u32::MAX).0,
            TreeType::Hybrid => {
                let (above, boundary) = self.geometric_levels(self.geometric_heights());
                if boundary == 0.0 { above } else { above + boundary * binomial_subtree() }
            }
        }
    }

    /// The heights of a hybrid tree's geometric part: those below
    /// `shift_depth * gen_mx`.
    fn geometric_heights(&self) -> u32 {
        (self.shift_depth * f64::from(self.gen_mx)).ceil() as u32
    }

    /// The expected sizes of the geometric levels `0..heights` summed, and
    /// the expected size of level `heights` (the first one not summed);
    /// stops early where the levels are empty or the sum overflows, or has
    /// converged (the exponential-decrease shape has no last level).
    fn geometric_levels(&self, heights: u32) -> (f64, f64) {
        let mut level = 1.0;
        let mut total = 0.0;
        for depth in 0..heights {
            total += level;
            level *= truncated_geometric_mean(self.geometric_branching(depth));
            if level == 0.0 {
                return (total, 0.0);
            }
            if !total.is_finite() {
                return (f64::INFINITY, f64::INFINITY);
            }
            // The shape's branching factor only falls from here on and the
            // level no longer adds a billionth: the rest is negligible.
            let deep = depth > self.gen_mx.saturating_mul(5).saturating_add(2);
            if deep && level < 1e-12 * total {
                return (total + level, 0.0);
            }
            if depth >= EXPECTATION_DEPTHS {
                // Not converged after this many levels: as good as infinite.
                return (f64::INFINITY, f64::INFINITY);
            }
        }
        (total, level)
    }
}

/// Levels [`Params::expected_nodes`] sums at most.
const EXPECTATION_DEPTHS: u32 = 10_000_000;

/// The mean of the number of children of a geometric node with target
/// branching factor `b_i`, truncated at [`MAX_NUM_CHILDREN`]: `P(N >= k) =
/// r^k` with `r = b_i / (1 + b_i)`, so `E[min(N, 100)] = r (1 - r^100) /
/// (1 - r)`. No children where `b_i <= 0`.
fn truncated_geometric_mean(b_i: f64) -> f64 {
    if b_i.is_nan() || b_i <= 0.0 {
        return 0.0;
    }
    let r = b_i / (1.0 + b_i);
    // (1 - r) = 1 / (1 + b_i); exact also for large b_i.
    r * (1.0 - r.powi(MAX_NUM_CHILDREN as i32)) * (1.0 + b_i)
}

/// A probability for a message: three decimals, or two significant digits
/// if it is tiny.
fn probability(p: &f64) -> String {
    match *p {
        0.0 => "0".to_owned(),
        p if p < 0.001 => format!("{p:.1e}"),
        p => format!("{p:.3}"),
    }
}

/// Trees finite with a smaller probability are rejected by
/// [`Params::validate`]: the search would most likely not terminate.
const MIN_FINITE_PROBABILITY: f64 = 0.5;

/// The extinction probability of a Galton–Watson process in which every node
/// has `m` children with probability `q`, else none: the smallest fixed point
/// of the generating function `f(s) = 1 - q + q s^m` in `[0, 1]`.
fn binomial_extinction(q: f64, m: u32) -> f64 {
    if q * f64::from(m) <= 1.0 {
        return 1.0;
    }
    if q >= 1.0 {
        return 0.0;
    }
    // Here m >= 2. `h(s) = f(s) - s` is convex with h(0) = 1 - q > 0 and h(1) = 0;
    // it is negative at its minimum, so the fixed point lies in [0, s_min].
    let m_f = f64::from(m);
    let h = |s: f64| 1.0 - q + q * s.powf(m_f) - s;
    let (mut lo, mut hi) = (0.0, (1.0 / (q * m_f)).powf(1.0 / (m_f - 1.0)));
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if h(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// The generating function `E[s^N]` of the number of children `N` of a
/// geometric node with target branching factor `b_i`: `P(N = k) = p (1-p)^k`
/// with `p = 1 / (1 + b_i)`, truncated at [`MAX_NUM_CHILDREN`].
fn truncated_geometric_pgf(b_i: f64, s: f64) -> f64 {
    let p = 1.0 / (1.0 + b_i);
    let ratio = (1.0 - p) * s;
    let mut sum = 0.0;
    let mut term = 1.0;
    for _ in 0..MAX_NUM_CHILDREN {
        sum += p * term;
        term *= ratio;
    }
    // All counts of MAX_NUM_CHILDREN and more become MAX_NUM_CHILDREN.
    sum + term
}

impl Default for Params {
    fn default() -> Self {
        Params::DEFAULT
    }
}

/// Parses the reference's flags; see [`Params::from_uts_str`].
impl FromStr for Params {
    type Err = ParamsError;

    fn from_str(flags: &str) -> Result<Params, ParamsError> {
        Params::from_uts_str(flags)
    }
}

/// Formats the parameters as the reference's flags, all of them, so that
/// parsing the text gives the same parameters back.
///
/// ```
/// use treelb_apps::uts::Params;
/// let p: Params = "-t 0 -b 2000 -q 0.124875 -m 8 -r 42".parse().unwrap();
/// assert_eq!(p.to_string(), "-t 0 -b 2000 -r 42 -m 8 -q 0.124875 -a 0 -d 6 -f 0.5 -g 1");
/// assert_eq!(p.to_string().parse::<Params>().unwrap(), p);
/// ```
impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "-t {} -b {} -r {} -m {} -q {} -a {} -d {} -f {} -g {}",
            self.tree_type.code(),
            self.b0,
            self.root_seed,
            self.m,
            self.q,
            self.shape.code(),
            self.gen_mx,
            self.shift_depth,
            self.granularity
        )
    }
}

/// The reference's flags that set a parameter.
#[derive(Clone, Copy)]
enum Flag {
    TreeType,
    B0,
    RootSeed,
    M,
    Q,
    Shape,
    GenMx,
    ShiftDepth,
    Granularity,
}

impl Flag {
    fn parse(flag: &str) -> Option<Flag> {
        Some(match flag {
            "-t" => Flag::TreeType,
            "-b" => Flag::B0,
            "-r" => Flag::RootSeed,
            "-m" => Flag::M,
            "-q" => Flag::Q,
            "-a" => Flag::Shape,
            "-d" => Flag::GenMx,
            "-f" => Flag::ShiftDepth,
            "-g" => Flag::Granularity,
            _ => return None,
        })
    }

    fn apply(self, params: &mut Params, value: &str) -> Result<(), ParamsError> {
        match self {
            Flag::TreeType => {
                params.tree_type = parse(
                    self,
                    value,
                    "a tree type: 0 = binomial, 1 = geometric, 2 = hybrid, 3 = balanced",
                    TreeType::from_code,
                )?;
            }
            Flag::Shape => {
                params.shape = parse(
                    self,
                    value,
                    "a shape: 0 = linear, 1 = exponential decrease, 2 = cyclic, 3 = fixed",
                    GeoShape::from_code,
                )?;
            }
            Flag::B0 => params.b0 = parse(self, value, "a number", Some)?,
            Flag::RootSeed => params.root_seed = parse(self, value, "a 32-bit signed integer", Some)?,
            Flag::M => params.m = parse(self, value, "a non-negative integer", Some)?,
            Flag::Q => params.q = parse(self, value, "a number", Some)?,
            Flag::GenMx => params.gen_mx = parse(self, value, "a non-negative integer", Some)?,
            Flag::ShiftDepth => params.shift_depth = parse(self, value, "a number", Some)?,
            Flag::Granularity => params.granularity = parse(self, value, "a positive integer", Some)?,
        }
        Ok(())
    }

    fn name(self) -> &'static str {
        match self {
            Flag::TreeType => "-t",
            Flag::B0 => "-b",
            Flag::RootSeed => "-r",
            Flag::M => "-m",
            Flag::Q => "-q",
            Flag::Shape => "-a",
            Flag::GenMx => "-d",
            Flag::ShiftDepth => "-f",
            Flag::Granularity => "-g",
        }
    }
}

/// Parses `value` as a `T` and converts it, or says what `flag` expected.
fn parse<T: FromStr, U>(
    flag: Flag,
    value: &str,
    expected: &'static str,
    convert: impl FnOnce(T) -> Option<U>,
) -> Result<U, ParamsError> {
    value.parse().ok().and_then(convert).ok_or_else(|| ParamsError::BadValue {
        flag: flag.name(),
        value: value.to_owned(),
        expected,
    })
}

/// Why UTS flags could not be parsed, or why parameters describe no sensible
/// tree.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ParamsError {
    /// A flag the reference does not know (or this parser does not support).
    #[error("unknown UTS flag `{0}` (expected one of -t -b -r -m -q -a -d -f -g)")]
    UnknownFlag(String),
    /// A flag at the end of the arguments, with no value after it.
    #[error("UTS flag `{0}` needs a value")]
    MissingValue(String),
    /// A flag's value that is not of the flag's kind.
    #[error("bad value `{value}` for UTS flag `{flag}`: expected {expected}")]
    BadValue {
        /// The flag, e.g. `-t`.
        flag: &'static str,
        /// The value given.
        value: String,
        /// What the flag expects.
        expected: &'static str,
    },
    /// `b0` is negative, not finite, or too large for the reference's `int`.
    #[error("root branching factor b0 (-b) = {0} must be a finite number in [0, 2147483647]")]
    RootBranching(f64),
    /// `q` is not a probability.
    #[error("non-leaf probability q (-q) = {0} must be in [0, 1]")]
    Probability(f64),
    /// Binomial non-leaves would have no children.
    #[error("non-leaf branching factor m (-m) is 0 while the non-leaf probability q (-q) = {q} is positive")]
    ZeroNonLeafBranching {
        /// The non-leaf probability.
        q: f64,
    },
    /// The binomial part of the tree is supercritical and the whole tree is
    /// unlikely to be finite; see [`Params::finite_probability`].
    #[error(
        "expected binomial branching factor q * m = {q} * {m} = {expected} is above 1: the tree is \
         infinite in expectation and finite with probability only {}, so the search would most likely \
         not terminate",
        probability(.finite_probability)
    )]
    InfiniteBinomial {
        /// The non-leaf probability.
        q: f64,
        /// The non-leaf branching factor.
        m: u32,
        /// `q * min(m, 100)`, the expected number of children of a non-root node.
        expected: f64,
        /// The probability that the tree is finite.
        finite_probability: f64,
    },
    /// A geometric or hybrid tree with depth parameter 0.
    #[error("tree depth gen_mx (-d) must be at least 1 for {0} trees")]
    ZeroDepth(TreeType),
    /// The exponential-decrease shape with a branching factor that does not
    /// decrease.
    #[error(
        "root branching factor b0 (-b) = {0} must be greater than 1 for the exponential-decrease shape \
         (-a 1): otherwise the branching factor does not decrease and the tree is infinite in expectation"
    )]
    ExpDecRootBranching(f64),
    /// The hybrid tree's shift depth is not a fraction.
    #[error("shift depth (-f) = {0} must be a fraction of the tree depth in [0, 1]")]
    ShiftDepth(f64),
    /// No work per node.
    #[error("compute granularity (-g) must be at least 1")]
    ZeroGranularity,
    /// A hybrid tree whose geometric part, above a supercritical binomial
    /// part, is too deep to tell whether the tree is finite.
    #[error(
        "tree depth gen_mx (-d) = {depth} with shift depth (-f) = {shift}: a geometric part of {levels} \
         levels above a binomial part with q * m > 1 (at most {max}); the tree is as good as infinite"
    )]
    DeepHybrid {
        /// The depth parameter.
        depth: u32,
        /// The shift depth.
        shift: f64,
        /// Geometric levels: `ceil(shift * depth)`.
        levels: u32,
        /// The most geometric levels checked.
        max: u32,
    },
}
