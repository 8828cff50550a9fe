//! The lecture's Mandelbrot example ([Lecture, load balancing], "The
//! Mandelbrot Set: Load Balancing"): an image whose pixels cost their
//! escape iterations, computed under a static random assignment, under
//! random polling on ranges of pixels, and — to display the set only — by
//! rectangle subdivision, a tree-shaped computation under random polling.

use serde::{Deserialize, Serialize};
use treelb::rng::mix;
use treelb::{Init, Progress, Strategy, Work};

use crate::engine::{SimConfig, simulate};
use crate::platform::{Costs, Network, Platform};
use crate::queue::Time;
use crate::workload::SimWork;

/// An image of the rectangle re ∈ [−2, 0.5], im ∈ [−1.25, 1.25]: every
/// pixel's cost is its number of iterations (`max_iter` inside the set).
#[derive(Clone, Debug)]
pub struct Image {
    /// Pixels per row and per column.
    pub side: u32,
    /// The iterations after which a point counts as inside the set.
    pub max_iter: u32,
    /// Each pixel's iterations, row by row.
    pub iters: Vec<u32>,
    /// Prefix sums of the costs: `prefix[i]` is the cost of pixels `0..i`.
    prefix: Vec<u64>,
}

impl Image {
    /// Computes the image.
    pub fn new(side: u32, max_iter: u32) -> Image {
        let n = side as usize;
        let mut iters = Vec::with_capacity(n * n);
        for y in 0..side {
            for x in 0..side {
                let cr = -2.0 + 2.5 * (f64::from(x) + 0.5) / f64::from(side);
                let ci = -1.25 + 2.5 * (f64::from(y) + 0.5) / f64::from(side);
                let (mut zr, mut zi, mut k) = (0.0f64, 0.0f64, 0);
                while k < max_iter && zr * zr + zi * zi <= 4.0 {
                    let t = zr * zr - zi * zi + cr;
                    zi = 2.0 * zr * zi + ci;
                    zr = t;
                    k += 1;
                }
                iters.push(k.max(1));
            }
        }
        let mut prefix = Vec::with_capacity(iters.len() + 1);
        prefix.push(0);
        let mut sum = 0u64;
        for &k in &iters {
            sum += u64::from(k);
            prefix.push(sum);
        }
        Image { side, max_iter, iters, prefix }
    }

    /// W: the iterations of every pixel.
    pub fn work(&self) -> u64 {
        *self.prefix.last().unwrap_or(&0)
    }

    /// Whether pixel (x, y) is inside the set.
    fn inside(&self, x: u32, y: u32) -> bool {
        self.iters[(y * self.side + x) as usize] >= self.max_iter
    }

    /// The cost of pixel (x, y).
    fn cost(&self, x: u32, y: u32) -> u64 {
        u64::from(self.iters[(y * self.side + x) as usize])
    }

    /// The most load any of `p` PEs gets when every pixel goes to a PE
    /// drawn at random.
    pub fn static_random(&self, p: u32, seed: u64) -> u64 {
        let mut load = vec![0u64; p as usize];
        for (i, &k) in self.iters.iter().enumerate() {
            let pe = mix(seed ^ mix(i as u64)) % u64::from(p);
            load[pe as usize] += u64::from(k);
        }
        load.into_iter().max().unwrap_or(0)
    }
}

/// A range of pixels, row by row: random polling's piece. A split gives
/// away the second half of the pixels not yet begun (the balancer sees
/// pixels, not their costs).
#[derive(Clone, Debug)]
pub struct PixelRange<'a> {
    image: &'a Image,
    /// The iterations done so far, in the prefix sums' units.
    pos: u64,
    /// The pixel after the last one.
    end: usize,
    generation: u32,
}

impl<'a> PixelRange<'a> {
    /// Every pixel of `image`.
    pub fn new(image: &'a Image) -> PixelRange<'a> {
        PixelRange { image, pos: 0, end: image.iters.len(), generation: 0 }
    }

    /// The first pixel not begun.
    fn next_pixel(&self) -> usize {
        // prefix[i] ≤ pos < prefix[i + 1]: pixel i is begun unless pos is
        // where it starts (every pixel costs at least one iteration).
        let i = self.image.prefix.partition_point(|&s| s <= self.pos) - 1;
        if self.image.prefix[i] == self.pos { i } else { i + 1 }
    }
}

impl Work for PixelRange<'_> {
    type Output = u64;

    fn work(&mut self, budget: u64, acc: &mut u64) -> Progress {
        let end = self.image.prefix[self.end];
        let used = budget.min(end - self.pos);
        self.pos += used;
        *acc += used;
        if self.pos == end { Progress::Exhausted { used } } else { Progress::Pending }
    }

    fn split(&mut self) -> Option<Self> {
        let first = self.next_pixel().min(self.end);
        let left = self.end - first;
        if left < 2 {
            return None;
        }
        let mid = first + left / 2;
        let end = std::mem::replace(&mut self.end, mid);
        self.generation += 1;
        Some(PixelRange { image: self.image, pos: self.image.prefix[mid], end, generation: self.generation })
    }

    fn generation(&self) -> u32 {
        self.generation
    }

    fn load(&self) -> u64 {
        self.image.prefix[self.end] - self.pos
    }
}

impl SimWork for PixelRange<'_> {
    fn remaining(&self) -> Option<u64> {
        Some(self.image.prefix[self.end] - self.pos)
    }
}

/// A rectangle of pixels, `[x0, x1) × [y0, y1)`.
type Rect = (u32, u32, u32, u32);

/// Rectangle subdivision ([Lecture, load balancing]): a rectangle computes
/// its boundary; if every boundary pixel is inside the set, so is the
/// rectangle (the set is connected) and it is done; otherwise a small
/// rectangle computes its interior, a larger one splits in two along its
/// longer side, the two halves sharing the cut line. A tree-shaped
/// computation: a node's cost is what it computes (the root's boundary, a
/// cut line or a small interior), and it stays with its PE until it is
/// done; a split gives away the older half of the rectangles waiting.
#[derive(Clone, Debug)]
pub struct Subdivision<'a> {
    image: &'a Image,
    stack: Vec<Rect>,
    current: Option<(Rect, u64)>,
    generation: u32,
}

/// A rectangle with at most this many pixels on a side computes its
/// interior instead of splitting.
pub const SMALL_SIDE: u32 = 8;

impl<'a> Subdivision<'a> {
    /// The whole image.
    pub fn new(image: &'a Image) -> Subdivision<'a> {
        Subdivision { image, stack: vec![(0, image.side, 0, image.side)], current: None, generation: 0 }
    }

    fn boundary(&self, (x0, x1, y0, y1): Rect) -> impl Iterator<Item = (u32, u32)> {
        let top = (x0..x1).flat_map(move |x| [(x, y0), (x, y1 - 1)]);
        let sides = (y0 + 1..y1.saturating_sub(1)).flat_map(move |y| [(x0, y), (x1 - 1, y)]);
        top.chain(sides)
    }

    fn small((x0, x1, y0, y1): Rect) -> bool {
        x1 - x0 <= SMALL_SIDE || y1 - y0 <= SMALL_SIDE
    }

    /// The cost of rectangle `r`: its boundary if it is the root (a
    /// child's boundary is its parent's boundary and cut line, computed
    /// already), then its interior if small, or the line that cuts it in
    /// two if large — nothing more if its boundary lies inside the set.
    fn cost(&self, r: Rect) -> u64 {
        let img = self.image;
        let (x0, x1, y0, y1) = r;
        let root = r == (0, img.side, 0, img.side);
        let edge: u64 = if root { self.boundary(r).map(|(x, y)| img.cost(x, y)).sum() } else { 0 };
        if self.boundary(r).all(|(x, y)| img.inside(x, y)) {
            return edge;
        }
        let rest: u64 = if Self::small(r) {
            (y0 + 1..y1.saturating_sub(1))
                .flat_map(|y| (x0 + 1..x1.saturating_sub(1)).map(move |x| (x, y)))
                .map(|(x, y)| img.cost(x, y))
                .sum()
        } else {
            match Self::cut(r) {
                Cut::X(m) => (y0 + 1..y1 - 1).map(|y| img.cost(m, y)).sum(),
                Cut::Y(m) => (x0 + 1..x1 - 1).map(|x| img.cost(x, m)).sum(),
            }
        };
        edge + rest
    }

    /// Where a large rectangle is cut: across its longer side.
    fn cut((x0, x1, y0, y1): Rect) -> Cut {
        if x1 - x0 >= y1 - y0 { Cut::X((x0 + x1) / 2) } else { Cut::Y((y0 + y1) / 2) }
    }

    fn expand(&mut self, r: Rect) {
        let img = self.image;
        if Self::small(r) || self.boundary(r).all(|(x, y)| img.inside(x, y)) {
            return;
        }
        let (x0, x1, y0, y1) = r;
        // The two halves share the cut line: it is on both boundaries.
        match Self::cut(r) {
            Cut::X(m) => {
                self.stack.push((x0, m + 1, y0, y1));
                self.stack.push((m, x1, y0, y1));
            }
            Cut::Y(m) => {
                self.stack.push((x0, x1, y0, m + 1));
                self.stack.push((x0, x1, m, y1));
            }
        }
    }
}

/// The line that cuts a rectangle: a column or a row.
enum Cut {
    X(u32),
    Y(u32),
}

impl Work for Subdivision<'_> {
    type Output = u64;

    fn work(&mut self, budget: u64, acc: &mut u64) -> Progress {
        let mut left = budget;
        while left > 0 {
            let (r, need) = match self.current.take() {
                Some(c) => c,
                None => match self.stack.pop() {
                    Some(r) => (r, self.cost(r).max(1)),
                    None => break,
                },
            };
            let spent = need.min(left);
            left -= spent;
            *acc += spent;
            if spent < need {
                self.current = Some((r, need - spent));
            } else {
                self.expand(r);
            }
        }
        if self.current.is_none() && self.stack.is_empty() {
            Progress::Exhausted { used: budget - left }
        } else {
            Progress::Pending
        }
    }

    fn split(&mut self) -> Option<Self> {
        let keep = usize::from(self.current.is_none());
        if self.stack.len() <= keep {
            return None;
        }
        let count = (self.stack.len() / 2).clamp(1, self.stack.len() - keep);
        let given: Vec<Rect> = self.stack.drain(..count).collect();
        self.generation += 1;
        Some(Subdivision { image: self.image, stack: given, current: None, generation: self.generation })
    }

    fn generation(&self) -> u32 {
        self.generation
    }

    fn load(&self) -> u64 {
        self.stack.len() as u64 + u64::from(self.current.is_some())
    }
}

impl SimWork for Subdivision<'_> {}

/// One P of the Mandelbrot comparison. Times in ticks, one tick per
/// iteration.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct MandelPoint {
    /// The number of PEs.
    pub p: u32,
    /// A static random assignment of pixels: the largest load.
    pub static_random: Time,
    /// Random polling on ranges of pixels, PE 0 starting with all: T_par.
    pub dynamic: Time,
    /// Rectangle subdivision under random polling: T_par.
    pub subdivision: Time,
    /// The iterations rectangle subdivision does.
    pub subdivision_work: u64,
}

/// The Mandelbrot comparison over P.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Mandelbrot {
    /// Pixels per side.
    pub side: u32,
    /// Iterations inside the set.
    pub max_iter: u32,
    /// W: every pixel's iterations.
    pub work: u64,
    /// One per P.
    pub points: Vec<MandelPoint>,
}

/// Runs the comparison at every P of `ps`.
pub fn mandelbrot(side: u32, max_iter: u32, ps: &[u32]) -> Mandelbrot {
    let image = Image::new(side, max_iter);
    let points = crate::sweep::par_map(ps, |&p| {
        let cfg = SimConfig::model(
            Platform::new(p, Network::Crossbar, Costs::default()),
            Strategy::RandomPolling,
            Init::Root,
            36,
        );
        let (dynamic, done) = simulate(PixelRange::new(&image), &cfg).expect("random polling");
        debug_assert_eq!(done, image.work());
        let (sub, sub_work) = simulate(Subdivision::new(&image), &cfg).expect("random polling");
        MandelPoint {
            p,
            static_random: image.static_random(p, 36),
            dynamic: dynamic.t_par,
            subdivision: sub.t_par,
            subdivision_work: sub_work,
        }
    });
    Mandelbrot { side, max_iter, work: image.work(), points }
}

impl Mandelbrot {
    /// T_static / T_dynamic at each P (below 1: the static random
    /// assignment is faster).
    pub fn static_over_dynamic(&self) -> Vec<f64> {
        self.points.iter().map(|q| q.static_random as f64 / q.dynamic as f64).collect()
    }

    /// T_subdivision / T_static at each P.
    pub fn subdivision_over_static(&self) -> Vec<f64> {
        self.points.iter().map(|q| q.subdivision as f64 / q.static_random as f64).collect()
    }
}
