//! PE utilization over time, binned: the curve of [Sanders 1994] Figure 2.
//!
//! The recorder integrates the number of busy PEs over time into at most
//! [`MAX_BINS`] bins. It does not know the length of the run in advance:
//! bins start one tick wide, and whenever time runs past the last bin,
//! neighbouring bins merge pairwise and the width doubles. Memory stays
//! constant and the final curve has between `MAX_BINS / 2` and `MAX_BINS`
//! bins (for runs longer than `MAX_BINS` ticks).

use serde::{Deserialize, Serialize};

use crate::queue::Time;

/// The most bins a curve has.
pub const MAX_BINS: usize = 1024;

/// Integrates the busy-PE count over time.
///
/// It records the count's changes, each at its own time and in any order
/// (the simulator notes a PE busy from when it will start, which may lie
/// after another PE's later event): a change of `d` at time `t` adds
/// `d·(end of its bin − t)` to its bin and `d` to the level of every later
/// bin (`carry`, summed when the curve is made).
#[derive(Clone, Debug)]
pub struct Recorder {
    width: Time,
    /// Busy PE-ticks in each bin from the changes inside it.
    bins: Vec<i128>,
    /// The changes of the level at the start of each bin.
    carry: Vec<i64>,
    /// The changes in the last bin, whose level starts beyond it.
    overflow: i64,
    /// The count after the last call of [`set`](Self::set).
    busy: u64,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder { width: 1, bins: vec![0; MAX_BINS], carry: vec![0; MAX_BINS], overflow: 0, busy: 0 }
    }
}

impl Recorder {
    /// The busy count changes to `busy` at time `t`: by `busy` minus the
    /// count the previous call set, whatever the order of the times.
    #[inline]
    pub fn set(&mut self, t: Time, busy: u64) {
        let delta = busy as i64 - self.busy as i64;
        self.busy = busy;
        self.change(t, delta);
    }

    /// The current busy count.
    pub fn busy(&self) -> u64 {
        self.busy
    }

    /// One PE is busy from `start` to `end`, whatever was recorded before:
    /// for models that produce busy intervals out of time order (the
    /// producer tree of [`crate::multilevel`]).
    ///
    /// ```
    /// use treelb_sim::utilization::Recorder;
    /// let mut r = Recorder::default();
    /// r.add_interval(5, 10);
    /// r.add_interval(0, 10);
    /// let u = r.finish(10, 2);
    /// assert_eq!(u.bin_width, 1);
    /// assert_eq!(u.values, [0.5, 0.5, 0.5, 0.5, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0]);
    /// ```
    pub fn add_interval(&mut self, start: Time, end: Time) {
        if start < end {
            self.change(start, 1);
            self.change(end, -1);
        }
    }

    /// The level changes by `delta` at time `t`.
    fn change(&mut self, t: Time, delta: i64) {
        if delta == 0 {
            return;
        }
        self.coarsen(t);
        let bin = (t / self.width) as usize;
        let bin_end = (bin as Time + 1) * self.width;
        self.bins[bin] += i128::from(delta) * i128::from(bin_end - t);
        if bin + 1 < MAX_BINS {
            self.carry[bin + 1] += delta;
        } else {
            self.overflow += delta;
        }
    }

    /// Widens the bins until time `t` lies in the last one or before.
    fn coarsen(&mut self, t: Time) {
        while t >= self.width * MAX_BINS as Time {
            let w = i128::from(self.width);
            for i in 0..MAX_BINS / 2 {
                // The odd bin's level started one carry later than the even
                // one's, for its whole width.
                self.bins[i] =
                    self.bins[2 * i] + self.bins[2 * i + 1] + i128::from(self.carry[2 * i + 1]) * w;
                self.carry[i] =
                    if i == 0 { self.carry[0] } else { self.carry[2 * i - 1] + self.carry[2 * i] };
            }
            // The level of the new bins: every change so far, of which the
            // prefix sums up to the new middle miss the old last bin's start
            // and the changes inside it.
            let beyond = self.carry[MAX_BINS - 1] + self.overflow;
            self.bins[MAX_BINS / 2..].fill(0);
            self.carry[MAX_BINS / 2..].fill(0);
            self.carry[MAX_BINS / 2] = beyond;
            self.overflow = 0;
            self.width *= 2;
        }
    }

    /// The curve up to time `end`, as fractions of `p` PEs (every PE still
    /// busy then stops there).
    pub fn finish(mut self, end: Time, p: u32) -> Utilization {
        self.coarsen(end);
        self.set(end, 0);
        let n = (end.div_ceil(self.width) as usize).min(MAX_BINS);
        let mut level = 0i64;
        let values = (0..n)
            .map(|i| {
                level += self.carry[i];
                let start = i as Time * self.width;
                let len = (start + self.width).min(end) - start;
                let area = self.bins[i] + i128::from(level) * i128::from(self.width);
                if len == 0 { 0.0 } else { area as f64 / (f64::from(p) * len as f64) }
            })
            .collect();
        Utilization { bin_width: self.width, values }
    }
}

/// The fraction of PEs busy in consecutive time bins of equal width.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Utilization {
    /// The width of a bin, in ticks.
    pub bin_width: Time,
    /// The mean fraction of busy PEs in each bin, from time 0 on.
    pub values: Vec<f64>,
}

impl Utilization {
    /// The start of the first bin whose utilization reaches `level`, if any.
    ///
    /// ```
    /// use treelb_sim::utilization::Utilization;
    /// let u = Utilization { bin_width: 10, values: vec![0.1, 0.5, 0.95, 1.0] };
    /// assert_eq!(u.first_reaching(0.9), Some(20));
    /// assert_eq!(u.first_reaching(1.1), None);
    /// ```
    pub fn first_reaching(&self, level: f64) -> Option<Time> {
        self.values.iter().position(|&v| v >= level).map(|i| i as Time * self.bin_width)
    }

    /// Pairs (bin centre time, utilization), for plots.
    pub fn points(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        let w = self.bin_width as f64;
        self.values.iter().enumerate().map(move |(i, &v)| ((i as f64 + 0.5) * w, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_in_any_order_give_the_same_curve() {
        let changes: Vec<(Time, u64)> = (0..3000u64).map(|i| (1 + (i * 7919) % 9000, (i * 31) % 9)).collect();
        // As a step function: the count after each change, in time order.
        let mut sorted = changes.clone();
        sorted.sort_by_key(|c| c.0);
        let mut in_order = Recorder::default();
        let mut deltas = Vec::new();
        let mut busy = 0i64;
        for &(t, b) in &sorted {
            in_order.set(t, b);
            deltas.push((t, b as i64 - busy));
            busy = b as i64;
        }
        // The same changes as deltas, applied in reverse time order.
        let mut shuffled = Recorder::default();
        let mut level = 0i64;
        for &(t, d) in deltas.iter().rev() {
            level += d;
            shuffled.set(t, level as u64);
        }
        let (a, b) = (in_order.finish(9500, 8), shuffled.finish(9500, 8));
        assert_eq!(a.bin_width, b.bin_width);
        for (x, y) in a.values.iter().zip(&b.values) {
            assert!((x - y).abs() < 1e-12, "{x} vs {y}");
        }
    }

    #[test]
    fn integral_is_exact_across_coarsening() {
        let mut r = Recorder::default();
        let p = 8;
        let mut area = 0u128;
        let mut t = 0;
        let mut busy = 0;
        for i in 0..5000u64 {
            let next = t + 1 + (i * 7919) % 50;
            area += u128::from(busy) * u128::from(next - t);
            t = next;
            busy = (i * 31) % (p + 1);
            r.set(t, busy);
        }
        let end = t + 10;
        area += u128::from(busy) * 10;
        let u = r.finish(end, p as u32);
        let total: f64 = u
            .values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let start = i as u64 * u.bin_width;
                v * p as f64 * ((start + u.bin_width).min(end) - start) as f64
            })
            .sum();
        assert!((total - area as f64).abs() < 1e-6 * area as f64, "{total} vs {area}");
        assert!(u.values.len() > MAX_BINS / 2 && u.values.len() <= MAX_BINS);
    }
}
