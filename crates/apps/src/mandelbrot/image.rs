//! The output of the pieces — [`Patches`] of pixels — and the assembled
//! [`Image`].

use serde::{Deserialize, Serialize};
use treelb::Reduce;

use super::Mandelbrot;
use super::piece::Rect;

/// What the pieces did, summed over all of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Counts {
    /// Pixels computed by iterating.
    pub computed: u64,
    /// Pixels filled as in the set without iterating (subdivision only).
    pub filled: u64,
    /// Pixels in the set, computed or filled.
    pub in_set: u64,
    /// Iterations `z ← z² + c`: the units of work.
    pub iterations: u64,
    /// Rectangles filled (subdivision only).
    pub fills: u64,
    /// Rectangles cut in two by a computed line (subdivision only).
    pub cuts: u64,
    /// Rectangles computed pixel by pixel (subdivision: the small ones;
    /// per pixel: the pieces).
    pub blocks: u64,
}

impl Reduce for Counts {
    fn merge(&mut self, other: Self) {
        self.computed += other.computed;
        self.filled += other.filled;
        self.in_set += other.in_set;
        self.iterations += other.iterations;
        self.fills += other.fills;
        self.cuts += other.cuts;
        self.blocks += other.blocks;
    }
}

/// Computed pixels whose indices form an arithmetic progression
/// `start, start + step, …` (a stretch of a row, or of a column), made by
/// one PE. Their values are the next `len` entries of [`Patches::values`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Run {
    start: u64,
    step: u64,
    len: u64,
    pe: Option<u32>,
}

/// A rectangle filled with one value without computing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Fill {
    rect: Rect,
    value: u32,
    pe: Option<u32>,
}

/// The output of Mandelbrot pieces: runs of computed pixels and filled
/// rectangles, and [`Counts`]. Merging concatenates (the larger absorbs the
/// smaller), so it is associative and commutative as a set of patches, and
/// every pixel is stored once, in 4 bytes plus a share of its run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Patches {
    runs: Vec<Run>,
    /// The values of the runs' pixels, run after run.
    values: Vec<u32>,
    fills: Vec<Fill>,
    /// What was done.
    pub counts: Counts,
}

impl Patches {
    /// Records the value of pixel `index` (row-major), made by `pe`. A pixel
    /// that continues the last run's progression extends it.
    #[inline]
    pub(crate) fn push(&mut self, index: u64, value: u32, in_set: bool, pe: Option<u32>) {
        self.counts.computed += 1;
        self.counts.in_set += u64::from(in_set);
        self.values.push(value);
        if let Some(last) = self.runs.last_mut().filter(|r| r.pe == pe) {
            if last.len == 1 && index > last.start {
                last.step = index - last.start;
                last.len = 2;
                return;
            }
            if last.start + last.step * last.len == index {
                last.len += 1;
                return;
            }
        }
        self.runs.push(Run { start: index, step: 1, len: 1, pe });
    }

    /// Records that every pixel of `rect` has the value `max_iter` (in the
    /// set) without computing it.
    pub(crate) fn fill(&mut self, rect: Rect, max_iter: u32, pe: Option<u32>) {
        let area = rect.area();
        self.counts.filled += area;
        self.counts.in_set += area;
        self.counts.fills += 1;
        self.fills.push(Fill { rect, value: max_iter, pe });
    }

    /// The number of runs and of filled rectangles stored.
    pub fn patches(&self) -> (usize, usize) {
        (self.runs.len(), self.fills.len())
    }

    /// Puts every patch in its place. Fails if a pixel of the image was
    /// made twice or not at all, or lies outside it.
    pub fn into_image(self, m: &Mandelbrot) -> Result<Image, CoverageError> {
        match self.assemble(m)? {
            (image, 0) => Ok(image),
            (_, missing) => Err(CoverageError { missing, ..CoverageError::default() }),
        }
    }

    /// Puts the patches of an interrupted computation in their places: the
    /// image and the number of pixels never made (value 0, no PE, not
    /// computed). Fails if a pixel was made twice or lies outside the
    /// image.
    ///
    /// ```
    /// use treelb::Work;
    /// use treelb_apps::mandelbrot::{Mandelbrot, Method, View};
    /// let m = Mandelbrot::new(View::STANDARD, 20, 10, 50).unwrap();
    /// let mut piece = m.work(Method::Pixels);
    /// let mut patches = Default::default();
    /// piece.work(100, &mut patches);
    /// let (image, missing) = patches.clone().into_partial_image(&m).unwrap();
    /// assert!(missing > 0 && missing < 200);
    /// assert!(patches.into_image(&m).is_err());
    /// assert_eq!(image.values.len(), 200);
    /// ```
    pub fn into_partial_image(self, m: &Mandelbrot) -> Result<(Image, u64), CoverageError> {
        self.assemble(m)
    }

    /// The image and the number of pixels never made; an error for pixels
    /// made twice or outside the image.
    fn assemble(self, m: &Mandelbrot) -> Result<(Image, u64), CoverageError> {
        let pixels = m.pixels() as usize;
        let mut image = Image {
            width: m.width(),
            height: m.height(),
            max_iter: m.max_iter(),
            values: vec![0; pixels],
            pes: vec![None; pixels],
            computed: vec![false; pixels],
        };
        let mut made = vec![false; pixels];
        let mut errors = CoverageError::default();
        let mut put = |index: u64, value: u32, pe: Option<u32>, computed: bool| {
            let Some(seen) = usize::try_from(index).ok().and_then(|i| made.get_mut(i)) else {
                errors.outside += 1;
                return;
            };
            if std::mem::replace(seen, true) {
                errors.duplicated += 1;
            }
            let i = index as usize;
            image.values[i] = value;
            image.pes[i] = pe;
            image.computed[i] = computed;
        };
        let mut values = self.values.iter();
        for run in &self.runs {
            for k in 0..run.len {
                let value = *values.next().expect("a value for every pixel of a run");
                put(run.start + k * run.step, value, run.pe, true);
            }
        }
        let width = u64::from(m.width());
        let mut outside = 0;
        for fill in &self.fills {
            let r = fill.rect;
            if r.x + r.w > m.width() || r.y + r.h > m.height() {
                outside += r.area();
                continue;
            }
            for y in r.y..r.y + r.h {
                for x in r.x..r.x + r.w {
                    put(u64::from(y) * width + u64::from(x), fill.value, fill.pe, false);
                }
            }
        }
        errors.outside += outside;
        let missing = made.iter().filter(|&&m| !m).count() as u64;
        if errors == CoverageError::default() { Ok((image, missing)) } else { Err(errors) }
    }
}

impl Reduce for Patches {
    fn merge(&mut self, mut other: Self) {
        if other.values.len() + other.fills.len() > self.values.len() + self.fills.len() {
            std::mem::swap(self, &mut other);
        }
        self.runs.append(&mut other.runs);
        self.values.append(&mut other.values);
        self.fills.append(&mut other.fills);
        self.counts.merge(other.counts);
    }
}

/// Patches that do not tile the image: pixels made more than once, never,
/// or outside the image.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, thiserror::Error)]
#[error(
    "the patches do not tile the image: {duplicated} pixels made twice, {missing} missing, {outside} outside"
)]
pub struct CoverageError {
    /// Pixels made more than once (counted once per extra time).
    pub duplicated: u64,
    /// Pixels never made.
    pub missing: u64,
    /// Pixels outside the image.
    pub outside: u64,
}

/// A computed image: the value of every pixel, which PE made it, and
/// whether it was computed or filled. Row-major, row 0 at the top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Pixels across.
    pub width: u32,
    /// Pixels down.
    pub height: u32,
    /// The value of a pixel in the set.
    pub max_iter: u32,
    /// Each pixel's value: the escape time, or `max_iter` in the set.
    pub values: Vec<u32>,
    /// The PE that made each pixel, if the computation had a PE hook.
    pub pes: Vec<Option<u32>>,
    /// Whether each pixel was computed (`false`: filled without iterating).
    pub computed: Vec<bool>,
}

impl Image {
    /// The number of pixels in the set.
    pub fn in_set(&self) -> u64 {
        self.values.iter().filter(|&&v| v == self.max_iter).count() as u64
    }

    /// The number of pixels each PE made, indexed by PE (pixels of unknown
    /// PEs are not counted).
    pub fn pixels_per_pe(&self) -> Vec<u64> {
        let mut counts = Vec::new();
        for pe in self.pes.iter().flatten() {
            let pe = *pe as usize;
            if counts.len() <= pe {
                counts.resize(pe + 1, 0);
            }
            counts[pe] += 1;
        }
        counts
    }

    /// The colour of pixel `i` by escape time: the set black, the rest
    /// along a cyclic gradient (deep blue, white, orange, dark) by the
    /// logarithm of the escape time, so that slow and fast escapes both
    /// show their bands.
    pub fn escape_colour(&self, i: usize) -> [u8; 3] {
        const STOPS: [(f64, [f64; 3]); 6] = [
            (0.0, [0.0, 7.0, 100.0]),
            (0.16, [32.0, 107.0, 203.0]),
            (0.42, [237.0, 255.0, 255.0]),
            (0.6425, [255.0, 170.0, 0.0]),
            (0.8575, [0.0, 2.0, 0.0]),
            (1.0, [0.0, 7.0, 100.0]),
        ];
        let v = self.values[i];
        if v >= self.max_iter {
            return [0, 0, 0];
        }
        let t = (f64::from(v) + 1.0).ln() / (f64::from(self.max_iter) + 1.0).ln();
        let t = (t * 1.5).fract();
        let k = STOPS.iter().rposition(|&(at, _)| at <= t).unwrap_or(0).min(STOPS.len() - 2);
        let ((t0, a), (t1, b)) = (STOPS[k], STOPS[k + 1]);
        let s = (t - t0) / (t1 - t0);
        std::array::from_fn(|c| (a[c] + s * (b[c] - a[c])).round() as u8)
    }

    /// The colour of pixel `i` by the PE that made it: a hue per PE
    /// (golden ratio steps, so neighbouring PEs differ), darker in the set,
    /// muted where a rectangle was filled without computing; grey for an
    /// unknown PE.
    pub fn pe_colour(&self, i: usize) -> [u8; 3] {
        let Some(pe) = self.pes[i] else {
            return [128, 128, 128];
        };
        let hue = (f64::from(pe) * 0.618_033_988_749_895).fract();
        let in_set = self.values[i] >= self.max_iter;
        let (saturation, value) = match (self.computed[i], in_set) {
            (false, _) => (0.35, 0.5),
            (true, true) => (0.75, 0.6),
            (true, false) => (0.6, 0.95),
        };
        hsv(hue, saturation, value)
    }
}

/// HSV (each in `[0, 1]`) to 8-bit RGB.
pub(super) fn hsv(h: f64, s: f64, v: f64) -> [u8; 3] {
    let sector = (h * 6.0).floor();
    let f = h * 6.0 - sector;
    let (p, q, t) = (v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f)));
    let (r, g, b) = match sector as u32 % 6 {
        0 => (v, t, p),
        1 => (q, v, p),
        2 => (p, v, t),
        3 => (p, q, v),
        4 => (t, p, v),
        _ => (v, p, q),
    };
    [r, g, b].map(|c| (c * 255.0).round() as u8)
}
