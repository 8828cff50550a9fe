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
#[derive(Clone, Debug)]
pub struct Recorder {
    width: Time,
    /// Busy PE-ticks in each bin.
    bins: Vec<u128>,
    last: Time,
    busy: u64,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder { width: 1, bins: vec![0; MAX_BINS], last: 0, busy: 0 }
    }
}

impl Recorder {
    /// The busy count changes to `busy` at time `t` (not before the last change).
    #[inline]
    pub fn set(&mut self, t: Time, busy: u64) {
        self.advance(t);
        self.busy = busy;
    }

    /// The current busy count.
    pub fn busy(&self) -> u64 {
        self.busy
    }

    /// One PE is busy from `start` to `end`, whatever was recorded before:
    /// for models that produce busy intervals out of time order (the
    /// producer tree of [`crate::multilevel`]). Not to be mixed with
    /// [`set`](Self::set) in one recording.
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
        debug_assert!(self.busy == 0, "add_interval after set");
        self.coarsen(end);
        let mut t = start;
        while t < end {
            let bin = (t / self.width) as usize;
            let stop = end.min((bin as Time + 1) * self.width);
            self.bins[bin] += u128::from(stop - t);
            t = stop;
        }
    }

    /// Widens the bins until time `t` lies in the last one or before.
    fn coarsen(&mut self, t: Time) {
        while t >= self.width * MAX_BINS as Time {
            for i in 0..MAX_BINS / 2 {
                self.bins[i] = self.bins[2 * i] + self.bins[2 * i + 1];
            }
            self.bins[MAX_BINS / 2..].fill(0);
            self.width *= 2;
        }
    }

    fn advance(&mut self, t: Time) {
        debug_assert!(t >= self.last);
        self.coarsen(t);
        if self.busy == 0 {
            self.last = t;
            return;
        }
        while self.last < t {
            let bin = (self.last / self.width) as usize;
            let end = t.min((bin as Time + 1) * self.width);
            self.bins[bin] += u128::from(self.busy) * u128::from(end - self.last);
            self.last = end;
        }
    }

    /// The curve up to time `end`, as fractions of `p` PEs.
    pub fn finish(mut self, end: Time, p: u32) -> Utilization {
        self.advance(end);
        let n = (end.div_ceil(self.width) as usize).min(MAX_BINS);
        let values = (0..n)
            .map(|i| {
                let start = i as Time * self.width;
                let len = (start + self.width).min(end) - start;
                if len == 0 { 0.0 } else { self.bins[i] as f64 / (f64::from(p) * len as f64) }
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
