//! [`Piece`]: a piece of a Mandelbrot computation as a [`treelb::Work`].
//!
//! A piece is a stack of [`Task`]s (the next one on top) and at most one
//! [`Job`] in progress. A job computes a sequence of pixels — a block of a
//! rectangle in row-major order, a rectangle's boundary, or a cutting line —
//! and may stop inside a pixel's orbit when the budget runs out; it resumes
//! there. What happens when a job ends is its continuation ([`Then`]):
//!
//! ```text
//! Frame(R)        compute the boundary ring of R      → Interior(R minus its ring)
//! Interior(R)     its ring is all in the set          → fill R
//!                 R is small                          → Block(R)
//!                 otherwise compute a line across the
//!                 longer side of R                    → Interior(left/top part),
//!                                                       Interior(right/bottom part)
//! Block(R, a..b)  compute pixels a..b of R row by row
//! ```
//!
//! An `Interior` carries, for each of its four sides, which pixels of the
//! computed ring around it are in the set, so that after a cut each part
//! knows its own ring exactly.

use serde::{Deserialize, Serialize};
use treelb::{Progress, Work};

use super::image::Patches;
use super::{Mandelbrot, Method, Orbit};

/// A rectangle of pixels: columns `x..x + w`, rows `y..y + h`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Rect {
    pub(crate) x: u32,
    pub(crate) y: u32,
    pub(crate) w: u32,
    pub(crate) h: u32,
}

impl Rect {
    pub(crate) fn area(&self) -> u64 {
        u64::from(self.w) * u64::from(self.h)
    }
}

/// Which pixels of the computed ring around an interior rectangle `w × h`
/// are in the set: `top` and `bottom` run over the `w + 2` columns
/// `x − 1 ..= x + w` (corners included), `left` and `right` over the `h`
/// rows `y .. y + h`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Ring {
    top: Vec<bool>,
    bottom: Vec<bool>,
    left: Vec<bool>,
    right: Vec<bool>,
}

impl Ring {
    fn all_in_set(&self) -> bool {
        [&self.top, &self.bottom, &self.left, &self.right].into_iter().all(|side| side.iter().all(|&b| b))
    }
}

/// Work not yet started.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Task {
    /// A rectangle none of whose pixels is computed.
    Frame(Rect),
    /// A rectangle whose surrounding ring is computed.
    Interior(Rect, Ring),
    /// Pixels `from..to` of a rectangle, in row-major order.
    Block(Rect, u64, u64),
}

impl Task {
    fn pixels(&self) -> u64 {
        match self {
            Task::Frame(r) | Task::Interior(r, _) => r.area(),
            Task::Block(_, from, to) => to - from,
        }
    }
}

/// The pixels a job computes, as a sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Seq {
    /// The pixels of a rectangle in row-major order.
    Rows(Rect),
    /// The boundary of a rectangle at least 3 × 3: the top row, the bottom
    /// row, then the left and the right column without the corners.
    Boundary(Rect),
}

impl Seq {
    /// The `k`-th pixel of the sequence.
    #[inline]
    fn pixel(&self, k: u64) -> (u32, u32) {
        match *self {
            Seq::Rows(r) => {
                let w = u64::from(r.w);
                (r.x + (k % w) as u32, r.y + (k / w) as u32)
            }
            Seq::Boundary(r) => {
                let (w, h) = (u64::from(r.w), u64::from(r.h));
                if k < w {
                    (r.x + k as u32, r.y)
                } else if k < 2 * w {
                    (r.x + (k - w) as u32, r.y + r.h - 1)
                } else if k < 2 * w + h - 2 {
                    (r.x, r.y + 1 + (k - 2 * w) as u32)
                } else {
                    (r.x + r.w - 1, r.y + 1 + (k - 2 * w - (h - 2)) as u32)
                }
            }
        }
    }
}

/// What follows a job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Then {
    /// Nothing: the job's pixels were all there was.
    Nothing,
    /// The job computed the boundary of a frame: its interior follows.
    Interior(Rect),
    /// The job computed a cutting line (column `rect.x + at` if `vertical`,
    /// else row `rect.y + at`) of an interior: its two parts follow.
    Cut { rect: Rect, ring: Ring, at: u32, vertical: bool },
}

/// A sequence of pixels being computed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Job {
    seq: Seq,
    /// The next pixel to finish, and the end of the sequence.
    next: u64,
    end: u64,
    /// The orbit of pixel `next`, possibly part-way.
    orbit: Orbit,
    /// Whether each finished pixel is in the set, if the continuation
    /// needs it.
    in_set: Option<Vec<bool>>,
    then: Then,
}

impl Job {
    fn new(seq: Seq, next: u64, end: u64, then: Then) -> Job {
        let in_set = match then {
            Then::Nothing => None,
            _ => Some(Vec::with_capacity((end - next) as usize)),
        };
        Job { seq, next, end, orbit: Orbit::default(), in_set, then }
    }

    /// Computes pixels for at most `budget` iterations; returns the
    /// iterations done and whether the sequence is finished.
    #[inline]
    fn run(&mut self, m: &Mandelbrot, budget: u64, acc: &mut Patches, pe: Option<u32>) -> (u64, bool) {
        let mut used = 0;
        let width = u64::from(m.width);
        while self.next < self.end {
            let (x, y) = self.seq.pixel(self.next);
            let (cr, ci) = m.c(x, y);
            let before = self.orbit.iterations();
            let room = u32::try_from(budget - used).unwrap_or(u32::MAX);
            let limit = before + room.min(m.max_iter - before);
            self.orbit = self.orbit.iterate(cr, ci, limit);
            used += u64::from(self.orbit.iterations() - before);
            match self.orbit.value(m.max_iter) {
                Some(value) => {
                    let in_set = value == m.max_iter;
                    acc.push(u64::from(y) * width + u64::from(x), value, in_set, pe);
                    if let Some(bits) = &mut self.in_set {
                        bits.push(in_set);
                    }
                    self.orbit = Orbit::default();
                    self.next += 1;
                }
                None => return (used, false),
            }
            if used == budget {
                break;
            }
        }
        (used, self.next == self.end)
    }

    /// Whether this job may give away part of its pixels: a block with at
    /// least two pixels to go.
    fn splittable(&self) -> bool {
        matches!(self.then, Then::Nothing) && self.end - self.next >= 2
    }
}

/// The state of a [`Piece`] without its computation ([`Piece::into_state`]):
/// serializable, so that a piece can cross to another process that holds
/// the same [`Mandelbrot`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PieceState {
    tasks: Vec<Task>,
    job: Option<Job>,
    generation: u32,
}

/// A piece of a Mandelbrot computation; see the [module
/// documentation](super).
#[derive(Clone, Debug)]
pub struct Piece {
    m: Mandelbrot,
    /// Tasks not yet started; the next one last.
    tasks: Vec<Task>,
    job: Option<Job>,
    generation: u32,
}

impl Piece {
    /// The whole image as one piece.
    pub(crate) fn new(m: Mandelbrot, method: Method) -> Piece {
        let whole = Rect { x: 0, y: 0, w: m.width, h: m.height };
        let tasks = match method {
            Method::Pixels => vec![Task::Block(whole, 0, whole.area())],
            Method::Subdivide => {
                // The tiles of the grid, the top-left one last (first to go).
                let n = m.tiles;
                let cut = |k: u32, len: u32| (u64::from(k) * u64::from(len) / u64::from(n)) as u32;
                let mut tiles = Vec::with_capacity((n * n) as usize);
                for row in (0..n).rev() {
                    for col in (0..n).rev() {
                        let (x, y) = (cut(col, m.width), cut(row, m.height));
                        let (w, h) = (cut(col + 1, m.width) - x, cut(row + 1, m.height) - y);
                        tiles.push(Task::Frame(Rect { x, y, w, h }));
                    }
                }
                tiles
            }
        };
        Piece { m, tasks, job: None, generation: 0 }
    }

    /// The computation this piece belongs to.
    pub fn problem(&self) -> &Mandelbrot {
        &self.m
    }

    /// What the piece holds besides its computation: its tasks, the job in
    /// progress (with the orbit it stopped in) and its generation.
    /// [`Mandelbrot::piece`] rebuilds the same piece from it, e.g. after it
    /// crossed to another process.
    ///
    /// ```
    /// use treelb::Work;
    /// use treelb_apps::mandelbrot::{Mandelbrot, Method, View};
    /// let m = Mandelbrot::new(View::STANDARD, 40, 30, 100).unwrap();
    /// let mut piece = m.work(Method::Subdivide);
    /// let mut first = Default::default();
    /// piece.work(777, &mut first);
    /// let again = m.piece(piece.clone().into_state());
    /// let (a, _) = treelb::seq::run_work(piece);
    /// let (b, _) = treelb::seq::run_work(again);
    /// assert_eq!(a, b);
    /// ```
    pub fn into_state(self) -> PieceState {
        PieceState { tasks: self.tasks, job: self.job, generation: self.generation }
    }

    /// The piece of `m` holding `state`.
    pub(crate) fn from_state(m: Mandelbrot, state: PieceState) -> Piece {
        Piece { m, tasks: state.tasks, job: state.job, generation: state.generation }
    }

    /// Starts a task: fills it, or makes it the job in progress, or (an
    /// empty rectangle) drops it.
    fn start(&mut self, task: Task, acc: &mut Patches, pe: Option<u32>) {
        match task {
            Task::Block(r, from, to) => {
                acc.counts.blocks += 1;
                self.job = Some(Job::new(Seq::Rows(r), from, to, Then::Nothing));
            }
            Task::Frame(r) if r.w <= 2 || r.h <= 2 => self.start(Task::Block(r, 0, r.area()), acc, pe),
            Task::Frame(r) => {
                let end = 2 * u64::from(r.w) + 2 * u64::from(r.h) - 4;
                let interior = Rect { x: r.x + 1, y: r.y + 1, w: r.w - 2, h: r.h - 2 };
                self.job = Some(Job::new(Seq::Boundary(r), 0, end, Then::Interior(interior)));
            }
            Task::Interior(r, _) if r.area() == 0 => {}
            Task::Interior(r, ring) if ring.all_in_set() => acc.fill(r, self.m.max_iter, pe),
            Task::Interior(r, _) if r.area() <= self.m.min_area || r.w.max(r.h) < 3 => {
                self.start(Task::Block(r, 0, r.area()), acc, pe);
            }
            Task::Interior(r, ring) => {
                acc.counts.cuts += 1;
                let vertical = r.w >= r.h;
                let (line, at) = if vertical {
                    let at = r.w / 2;
                    (Rect { x: r.x + at, w: 1, ..r }, at)
                } else {
                    let at = r.h / 2;
                    (Rect { y: r.y + at, h: 1, ..r }, at)
                };
                let then = Then::Cut { rect: r, ring, at, vertical };
                self.job = Some(Job::new(Seq::Rows(line), 0, line.area(), then));
            }
        }
    }

    /// Ends the finished job: pushes what follows it.
    fn finish(&mut self, job: Job) {
        let bits = job.in_set.unwrap_or_default();
        match job.then {
            Then::Nothing => {}
            Then::Interior(r) => {
                let (w, h) = (r.w as usize + 2, r.h as usize);
                let ring = Ring {
                    top: bits[..w].to_vec(),
                    bottom: bits[w..2 * w].to_vec(),
                    left: bits[2 * w..2 * w + h].to_vec(),
                    right: bits[2 * w + h..].to_vec(),
                };
                self.tasks.push(Task::Interior(r, ring));
            }
            Then::Cut { rect: r, ring, at, vertical: true } => {
                // Column r.x + at: the left part is `at` wide.
                let a = at as usize;
                let left = Rect { w: at, ..r };
                let right = Rect { x: r.x + at + 1, w: r.w - at - 1, ..r };
                let right_ring = Ring {
                    top: ring.top[a + 1..].to_vec(),
                    bottom: ring.bottom[a + 1..].to_vec(),
                    left: bits.clone(),
                    right: ring.right,
                };
                let left_ring = Ring {
                    top: ring.top[..a + 2].to_vec(),
                    bottom: ring.bottom[..a + 2].to_vec(),
                    left: ring.left,
                    right: bits,
                };
                self.tasks.push(Task::Interior(right, right_ring));
                self.tasks.push(Task::Interior(left, left_ring));
            }
            Then::Cut { rect: r, ring, at, vertical: false } => {
                // Row r.y + at: the top part is `at` high.
                let a = at as usize;
                let top = Rect { h: at, ..r };
                let bottom = Rect { y: r.y + at + 1, h: r.h - at - 1, ..r };
                let mut line = Vec::with_capacity(bits.len() + 2);
                line.push(ring.left[a]);
                line.extend_from_slice(&bits);
                line.push(ring.right[a]);
                let bottom_ring = Ring {
                    top: line.clone(),
                    bottom: ring.bottom,
                    left: ring.left[a + 1..].to_vec(),
                    right: ring.right[a + 1..].to_vec(),
                };
                let top_ring = Ring {
                    top: ring.top,
                    bottom: line,
                    left: ring.left[..a].to_vec(),
                    right: ring.right[..a].to_vec(),
                };
                self.tasks.push(Task::Interior(bottom, bottom_ring));
                self.tasks.push(Task::Interior(top, top_ring));
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.job.is_none() && self.tasks.is_empty()
    }
}

impl Work for Piece {
    type Output = Patches;

    /// Computes pixels for at most `budget` iterations (the unit of work);
    /// fills and cuts cost no units.
    fn work(&mut self, budget: u64, acc: &mut Patches) -> Progress {
        let pe = self.m.current_pe();
        let mut used = 0;
        while used < budget {
            let Some(job) = &mut self.job else {
                match self.tasks.pop() {
                    Some(task) => self.start(task, acc, pe),
                    None => break,
                }
                continue;
            };
            let (spent, finished) = job.run(&self.m, budget - used, acc, pe);
            used += spent;
            if finished {
                let job = self.job.take().expect("a job in progress");
                self.finish(job);
            }
        }
        acc.counts.iterations += used;
        if self.is_empty() { Progress::Exhausted { used } } else { Progress::Pending }
    }

    /// Gives away the older half of the tasks (at least one if a job is in
    /// progress); with nothing else to give, the upper half of the pixels of
    /// the block being computed. A frame or an interior whose cutting line
    /// is being computed is atomic: cutting a rectangle differently would
    /// change which pixels are filled.
    fn split(&mut self) -> Option<Piece> {
        let n = self.tasks.len();
        let give = if self.job.is_some() { n.div_ceil(2) } else { n / 2 };
        let tasks: Vec<Task> = if give > 0 {
            self.tasks.drain(..give).collect()
        } else if let Some(job) = self.job.as_mut().filter(|j| j.splittable()) {
            let Seq::Rows(r) = job.seq else { unreachable!("a block computes rows") };
            let mid = job.next + (job.end - job.next).div_ceil(2);
            let given = Task::Block(r, mid, job.end);
            job.end = mid;
            vec![given]
        } else if let [Task::Block(r, from, to)] = self.tasks[..]
            && to - from >= 2
        {
            let mid = from + (to - from).div_ceil(2);
            self.tasks[0] = Task::Block(r, from, mid);
            vec![Task::Block(r, mid, to)]
        } else {
            return None;
        };
        self.generation += 1;
        Some(Piece { m: self.m, tasks, job: None, generation: self.generation })
    }

    fn generation(&self) -> u32 {
        self.generation
    }

    /// The pixels left (each costs between 1 and `max_iter` units; a
    /// rectangle that will be filled costs none).
    fn load(&self) -> u64 {
        let job = self.job.as_ref().map_or(0, |j| j.end - j.next);
        job + self.tasks.iter().map(Task::pixels).sum::<u64>()
    }
}

#[cfg(test)]
pub(crate) fn rect(x: u32, y: u32, w: u32, h: u32) -> Rect {
    Rect { x, y, w, h }
}

#[cfg(test)]
pub(crate) fn boundary_pixel(r: Rect, k: u64) -> (u32, u32) {
    Seq::Boundary(r).pixel(k)
}
