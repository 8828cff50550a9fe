//! The Mandelbrot set by escape time, the lecture's example of load balancing
//! ([Lecture, load balancing], "Load Balancing: The Mandelbrot Set").
//!
//! `c ∈ ℂ` belongs to the Mandelbrot set `M` iff the orbit `z₀ = 0`,
//! `z_{k+1} = z_k² + c` stays bounded, i.e. iff `|z_k| ≤ 2` for every `k`.
//! Points outside `M` escape after very different numbers of iterations,
//! which is what makes the load hard to predict.
//!
//! * [`View`] — a rectangle of the complex plane; [`Mandelbrot`] — the
//!   problem: a view sampled at `width × height` pixel centres (row 0 at the
//!   top), iterated at most `max_iter` times;
//! * the value of a pixel: if `k ≥ 1` is the first index with `|z_k| > 2`
//!   and `k ≤ max_iter`, the value is `k − 1` (so `0 ≤ value < max_iter`);
//!   if `|z_k| ≤ 2` for `k = 1..=max_iter`, the value is `max_iter` and the
//!   pixel counts as *in the set*. Computing a pixel takes `value + 1`
//!   iterations, or `max_iter` for a pixel in the set;
//! * [`Piece`] — a piece of the work, a [`treelb::Work`], in two
//!   [`Method`]s:
//!   - [`Method::Pixels`]: a piece is a range of pixels of the image in
//!     row-major order; a split gives away the upper half of the range;
//!   - [`Method::Subdivide`]: the rectangle subdivision that uses the
//!     connectedness of `M` (Mariani–Silver). A rectangle's boundary is
//!     computed; if every boundary pixel is in the set, the interior is
//!     filled as in the set without computing it; otherwise the rectangle is
//!     cut in two by a computed line of pixels across its longer side, and
//!     small rectangles are computed pixel by pixel. A piece is a stack of
//!     rectangles — at the start the whole image, or a fixed grid of tiles
//!     ([`Mandelbrot::with_tiles`]) — and a split gives away the older half
//!     of them (or half of the pixels of a rectangle being computed pixel by
//!     pixel). A lone rectangle whose boundary or cutting line is still
//!     being computed is atomic;
//! * the unit of work is **one iteration** `z ← z² + c` for both methods, so
//!   that Δt is the same amount of time wherever the piece is: a pixel in the
//!   set costs `max_iter` units, one far outside costs 1. A piece remembers
//!   the orbit of the pixel it stopped in, and resumes it exactly;
//! * [`Patches`] — the output, a [`treelb::Reduce`]: runs of computed pixels
//!   (an arithmetic progression of pixel indices and their values) and filled
//!   rectangles, each with the PE that made it, and [`Counts`]. Merging
//!   concatenates, so memory and merge cost are `O(pixels)` overall;
//!   [`Patches::into_image`] checks that every pixel was made exactly once
//!   and assembles the [`Image`].
//!
//! ## Which PE made a pixel
//!
//! This crate depends on no runtime. A runtime that knows which PE the
//! current thread is (the threads runtime's `treelb_threads::current_pe`)
//! is given to [`Mandelbrot::with_pe_hook`] as a plain `fn() -> Option<usize>`;
//! a piece calls it once per call of `work` and stores the answer with what
//! it made. Without a hook every pixel is made by an unknown PE.
//!
//! ## Why filling is exact, and where it is not
//!
//! The set `M_n = {c : |z_k(c)| ≤ 2 for k = 1..=n}` that the pixels sample is
//! *full*: each `{c : |z_k(c)| ≤ 2}` is, by the maximum principle for the
//! polynomial `z_k(c)`, a compact set without holes, and so is their
//! intersection. A closed curve inside `M_n` therefore encloses only points of
//! `M_n`. The boundary pixels of a rectangle sample such a curve at pixel
//! distance, so an escaping channel thinner than a pixel could slip between
//! two samples; the tests compare the subdivision with the plain per-pixel
//! computation pixel for pixel on views that touch the set's boundary, and
//! every split of the work cuts the same rectangles (only whole rectangles
//! move between PEs), so the image is the same for every schedule.
//!
//! ```
//! use treelb_apps::mandelbrot::{Mandelbrot, Method, View};
//! let m = Mandelbrot::new(View::STANDARD, 100, 100, 200).unwrap();
//! let (patches, units) = treelb::seq::run_work(m.work(Method::Subdivide));
//! assert_eq!(units, patches.counts.iterations);
//! let image = patches.into_image(&m).unwrap();
//! assert_eq!(image.values, m.plain_values());
//! assert!((m.area(image.in_set()) - 1.5066).abs() < 0.1);
//! ```

mod image;
mod piece;
mod png;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use treelb::work::Rebuild;

pub use image::{Counts, CoverageError, Image, Patches};
pub use piece::{Piece, PieceState};
pub use png::{Colour, human_bytes};

/// A rectangle `[x0, x1] × [y0, y1]` of the complex plane: real parts from
/// `x0` to `x1`, imaginary parts from `y0` to `y1`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct View {
    /// The smallest real part.
    pub x0: f64,
    /// The largest real part.
    pub x1: f64,
    /// The smallest imaginary part.
    pub y0: f64,
    /// The largest imaginary part.
    pub y1: f64,
}

impl View {
    /// The standard view `[−2, 0.5] × [−1.25, 1.25]`, which holds the whole
    /// set (its area is about 1.5066).
    pub const STANDARD: View = View { x0: -2.0, x1: 0.5, y0: -1.25, y1: 1.25 };

    /// The view `[x0, x1] × [y0, y1]`, checked: finite, `x0 < x1`, `y0 < y1`.
    pub fn corners(x0: f64, x1: f64, y0: f64, y1: f64) -> Result<View, MandelbrotError> {
        let view = View { x0, x1, y0, y1 };
        let finite = [x0, x1, y0, y1].iter().all(|v| v.is_finite());
        if !finite || x0 >= x1 || y0 >= y1 || !(x1 - x0).is_finite() || !(y1 - y0).is_finite() {
            return Err(MandelbrotError::BadView(view));
        }
        Ok(view)
    }

    /// The view centred on `re + im·i`, `extent` wide along the real axis and
    /// `extent · height / width` high, so that `width × height` pixels are
    /// square.
    pub fn centered(re: f64, im: f64, extent: f64, width: u32, height: u32) -> Result<View, MandelbrotError> {
        if width == 0 || height == 0 {
            return Err(MandelbrotError::NoPixels { width, height });
        }
        if !(extent.is_finite() && extent > 0.0) {
            return Err(MandelbrotError::BadExtent(extent));
        }
        let half_w = extent / 2.0;
        let half_h = half_w * f64::from(height) / f64::from(width);
        View::corners(re - half_w, re + half_w, im - half_h, im + half_h)
    }

    /// The view of square pixels centred on `center` (by default the
    /// standard view's centre), `extent` wide along the real axis (by
    /// default the standard view's width around a given centre, else the
    /// smallest width whose view holds the whole standard view).
    ///
    /// ```
    /// use treelb_apps::mandelbrot::View;
    ///
    /// let wide = View::around(None, None, 400, 100).unwrap();
    /// assert!(wide.contains(&View::STANDARD) && wide.height() == View::STANDARD.height());
    /// let tall = View::around(None, None, 100, 400).unwrap();
    /// assert!(tall.contains(&View::STANDARD) && tall.width() == View::STANDARD.width());
    /// ```
    pub fn around(
        center: Option<[f64; 2]>,
        extent: Option<f64>,
        width: u32,
        height: u32,
    ) -> Result<View, MandelbrotError> {
        let standard = View::STANDARD;
        let [re, im] =
            center.unwrap_or([(standard.x0 + standard.x1) / 2.0, (standard.y0 + standard.y1) / 2.0]);
        let extent = match extent {
            Some(e) => e,
            None if center.is_some() => standard.width(),
            None => standard.width().max(standard.height() * f64::from(width) / f64::from(height)),
        };
        View::centered(re, im, extent, width, height)
    }

    /// Whether `other` lies within this view.
    pub fn contains(&self, other: &View) -> bool {
        self.x0 <= other.x0 && self.x1 >= other.x1 && self.y0 <= other.y0 && self.y1 >= other.y1
    }

    /// The width along the real axis.
    pub fn width(&self) -> f64 {
        self.x1 - self.x0
    }

    /// The height along the imaginary axis.
    pub fn height(&self) -> f64 {
        self.y1 - self.y0
    }
}

impl fmt::Display for View {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}] × [{}, {}]", self.x0, self.x1, self.y0, self.y1)
    }
}

/// A Mandelbrot computation that cannot be set up.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MandelbrotError {
    /// A view with an endpoint that is not finite, or with `x0 >= x1` or
    /// `y0 >= y1`.
    #[error("the view {0} must have finite corners with x0 < x1 and y0 < y1")]
    BadView(View),
    /// An extent that is not positive and finite.
    #[error("the extent {0} must be positive and finite")]
    BadExtent(f64),
    /// A width or height of 0.
    #[error("the image must have at least one pixel, got {width} × {height}")]
    NoPixels {
        /// The width asked for.
        width: u32,
        /// The height asked for.
        height: u32,
    },
    /// More pixels than [`MAX_PIXELS`].
    #[error("{width} × {height} pixels is too many (at most {MAX_PIXELS})")]
    TooManyPixels {
        /// The width asked for.
        width: u32,
        /// The height asked for.
        height: u32,
    },
    /// A maximum of 0 iterations.
    #[error("the maximum number of iterations must be at least 1")]
    NoIterations,
    /// A view so narrow that neighbouring pixels have the same coordinate.
    #[error("the view {0} is too narrow for the resolution of f64 at {1} pixels")]
    TooNarrow(View, u32),
}

/// The largest image: 2²⁸ pixels (an image of values and PEs takes 9 bytes
/// a pixel).
pub const MAX_PIXELS: u64 = 1 << 28;

/// How the pixels are computed; see the [module documentation](self).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Every pixel by escape time; a piece is a range of pixels.
    #[default]
    Pixels,
    /// Rectangle subdivision: rectangles whose boundary is in the set are
    /// filled without computing their interior.
    Subdivide,
}

impl Method {
    /// Both methods.
    pub const ALL: [Method; 2] = [Method::Pixels, Method::Subdivide];

    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Method::Pixels => "pixels",
            Method::Subdivide => "subdivide",
        }
    }

    /// What it computes, in one line (for listings such as `--help`).
    pub fn description(self) -> &'static str {
        match self {
            Method::Pixels => "every pixel by escape time",
            Method::Subdivide => "fill rectangles whose boundary is in the set",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing an unknown method name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown method `{0}` (expected one of: pixels, subdivide)")]
pub struct ParseMethodError(String);

impl FromStr for Method {
    type Err = ParseMethodError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Method::ALL.into_iter().find(|m| m.name() == s).ok_or_else(|| ParseMethodError(s.to_owned()))
    }
}

/// The most tiles per side of [`Mandelbrot::with_tiles`].
pub const MAX_TILES: u32 = 256;

/// The area of the whole set (pixel counting at high resolution).
pub const SET_AREA: f64 = 1.5066;

/// Bytes a pixel takes at the peak of a computation, when the patches of
/// the run become the [`Image`]: 4 of the patches' value, then 4 of the
/// value, 8 of the PE, 1 of "computed" and 1 of "made" in the image; and,
/// where the patches of other processes are `gathered` to one, 6 more
/// there for the patches as received (in postcard's variable-length
/// integers).
pub fn bytes_per_pixel(gathered: bool) -> u64 {
    18 + if gathered { 6 } else { 0 }
}

/// The default size below which [`Method::Subdivide`] computes a rectangle
/// pixel by pixel instead of cutting it: 16 pixels.
pub const DEFAULT_MIN_AREA: u64 = 16;

/// Escape-time computation of the Mandelbrot set over a view; see the
/// [module documentation](self).
#[derive(Clone, Copy)]
pub struct Mandelbrot {
    view: View,
    width: u32,
    height: u32,
    max_iter: u32,
    /// Pixel spacing along the real and the imaginary axis.
    dx: f64,
    dy: f64,
    min_area: u64,
    /// Subdivision starts from a `tiles × tiles` grid of rectangles.
    tiles: u32,
    pe_hook: fn() -> Option<usize>,
}

impl fmt::Debug for Mandelbrot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mandelbrot")
            .field("view", &self.view)
            .field("width", &self.width)
            .field("height", &self.height)
            .field("max_iter", &self.max_iter)
            .field("min_area", &self.min_area)
            .field("tiles", &self.tiles)
            .finish_non_exhaustive()
    }
}

fn no_pe() -> Option<usize> {
    None
}

impl Mandelbrot {
    /// The view sampled at `width × height` pixels, at most `max_iter`
    /// iterations per pixel.
    pub fn new(view: View, width: u32, height: u32, max_iter: u32) -> Result<Self, MandelbrotError> {
        let view = View::corners(view.x0, view.x1, view.y0, view.y1)?;
        if width == 0 || height == 0 {
            return Err(MandelbrotError::NoPixels { width, height });
        }
        if u64::from(width) * u64::from(height) > MAX_PIXELS {
            return Err(MandelbrotError::TooManyPixels { width, height });
        }
        if max_iter == 0 {
            return Err(MandelbrotError::NoIterations);
        }
        let dx = view.width() / f64::from(width);
        let dy = view.height() / f64::from(height);
        let m = Mandelbrot {
            view,
            width,
            height,
            max_iter,
            dx,
            dy,
            min_area: DEFAULT_MIN_AREA,
            tiles: 1,
            pe_hook: no_pe,
        };
        // Neighbouring pixel centres must differ, or the image is a smear
        // of copies and its area meaningless. The spacing of f64 is widest
        // at the ends of the view.
        let (w, h) = (width - 1, height - 1);
        let columns = w == 0 || (m.c(0, 0).0 < m.c(1, 0).0 && m.c(w - 1, 0).0 < m.c(w, 0).0);
        let rows = h == 0 || (m.c(0, 0).1 > m.c(0, 1).1 && m.c(0, h - 1).1 > m.c(0, h).1);
        if !(columns && rows) {
            return Err(MandelbrotError::TooNarrow(view, width.max(height)));
        }
        Ok(m)
    }

    /// The same computation, recording which PE made each pixel by calling
    /// `hook` (e.g. `treelb_threads::current_pe`) once per slice of work.
    pub fn with_pe_hook(mut self, hook: fn() -> Option<usize>) -> Self {
        self.pe_hook = hook;
        self
    }

    /// The same computation, with [`Method::Subdivide`] computing rectangles
    /// of at most `min_area` pixels pixel by pixel (at least 1; the default
    /// is [`DEFAULT_MIN_AREA`]). Smaller fills more and computes more lines.
    pub fn with_min_area(mut self, min_area: u64) -> Self {
        self.min_area = min_area.max(1);
        self
    }

    /// The same computation, with [`Method::Subdivide`] starting from a
    /// grid of `tiles × tiles` rectangles, each framed and subdivided on its
    /// own, instead of from the whole image (`tiles` is at least 1 and at
    /// most [`MAX_TILES`] and the image's smaller side; the default is 1, the
    /// lecture's single rectangle). The root can then be split at once: static assignment and
    /// selective initialization need no work to cut it, at the price of the
    /// tiles' frames. The rectangles are fixed by `tiles`, so every schedule
    /// still computes the same ones.
    pub fn with_tiles(mut self, tiles: u32) -> Self {
        self.tiles = tiles.clamp(1, self.width.min(self.height).min(MAX_TILES));
        self
    }

    /// The number of tiles per side that [`Method::Subdivide`] starts from.
    pub fn tiles(&self) -> u32 {
        self.tiles
    }

    /// The view.
    pub fn view(&self) -> View {
        self.view
    }

    /// Pixels across.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Pixels down.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The number of pixels.
    pub fn pixels(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height)
    }

    /// The most iterations per pixel; the value of a pixel in the set.
    pub fn max_iter(&self) -> u32 {
        self.max_iter
    }

    /// The area of the plane one pixel stands for.
    pub fn pixel_area(&self) -> f64 {
        self.dx * self.dy
    }

    /// The area of `in_set` pixels: the estimate of the area of the set
    /// within the view.
    pub fn area(&self, in_set: u64) -> f64 {
        in_set as f64 * self.pixel_area()
    }

    /// The whole computation as one piece of work.
    pub fn work(&self, method: Method) -> Piece {
        Piece::new(*self, method)
    }

    /// The piece of this computation that holds `state` (see
    /// [`Piece::into_state`]).
    pub fn piece(&self, state: PieceState) -> Piece {
        Piece::from_state(*self, state)
    }

    /// The point of the plane at the centre of pixel `(x, y)` (row `y = 0`
    /// at the top, at the largest imaginary part).
    #[inline]
    pub fn c(&self, x: u32, y: u32) -> (f64, f64) {
        let re = self.view.x0 + (f64::from(x) + 0.5) * self.dx;
        let im = self.view.y1 - (f64::from(y) + 0.5) * self.dy;
        (re, im)
    }

    /// The value of pixel `(x, y)`, computed directly: the escape time, or
    /// `max_iter` in the set.
    pub fn value(&self, x: u32, y: u32) -> u32 {
        let (cr, ci) = self.c(x, y);
        let orbit = Orbit::default().iterate(cr, ci, self.max_iter);
        orbit.value(self.max_iter).expect("a full orbit has a value")
    }

    /// Every pixel's value in row-major order by a plain double loop: the
    /// reference the pieces of work are checked against.
    pub fn plain_values(&self) -> Vec<u32> {
        let mut values = Vec::with_capacity(self.pixels() as usize);
        for y in 0..self.height {
            for x in 0..self.width {
                values.push(self.value(x, y));
            }
        }
        values
    }

    /// Which PE the current thread is, as the hook says.
    #[inline]
    fn current_pe(&self) -> Option<u32> {
        (self.pe_hook)().and_then(|p| u32::try_from(p).ok())
    }
}

/// The state of one orbit: `z_n`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Orbit {
    zr: f64,
    zi: f64,
    /// Iterations done.
    n: u32,
    /// `|z_n| > 2`.
    escaped: bool,
}

impl Orbit {
    /// Iterates `z ← z² + c` until `|z| > 2` or `n` reaches `limit`. The
    /// same orbit iterated in one call or in several gives the same result.
    #[inline]
    pub(crate) fn iterate(mut self, cr: f64, ci: f64, limit: u32) -> Orbit {
        let (mut zr, mut zi, mut n) = (self.zr, self.zi, self.n);
        while n < limit {
            let (zr2, zi2) = (zr * zr, zi * zi);
            zi = 2.0 * zr * zi + ci;
            zr = zr2 - zi2 + cr;
            n += 1;
            if zr * zr + zi * zi > 4.0 {
                self.escaped = true;
                break;
            }
        }
        self.zr = zr;
        self.zi = zi;
        self.n = n;
        self
    }

    /// Iterations done so far.
    #[inline]
    pub(crate) fn iterations(&self) -> u32 {
        self.n
    }

    /// The pixel's value once the orbit is decided: escaped at `z_k` gives
    /// `k − 1`, `max_iter` iterations without escaping give `max_iter`.
    #[inline]
    pub(crate) fn value(&self, max_iter: u32) -> Option<u32> {
        if self.escaped {
            Some(self.n - 1)
        } else if self.n >= max_iter {
            Some(max_iter)
        } else {
            None
        }
    }
}

/// The Mandelbrot set's pieces travel as their state (tasks, the job in
/// progress and its orbit, the generation); the receiver's copy of the
/// computation supplies the view.
impl Rebuild for Mandelbrot {
    type Work = Piece;
    type State = PieceState;

    fn detach(&self, piece: Piece) -> PieceState {
        piece.into_state()
    }

    fn rebuild(&self, state: PieceState) -> Piece {
        self.piece(state)
    }
}

#[cfg(test)]
mod tests;
