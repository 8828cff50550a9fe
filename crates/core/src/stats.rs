//! Per-PE statistics of a run and the efficiency estimate.

use std::time::Duration;

use serde::Serialize;

/// What one PE did during a run.
///
/// Under the work-sharing strategies, where busy PEs push work instead of
/// idle PEs asking, a *request* is an offer: `requests_sent` counts the
/// pushes this PE offered and `requests_failed` those the receiver declined
/// (its pool was not empty); under master–worker `requests_received` counts
/// the times this PE found PEs waiting on an empty central pool.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PeStats {
    /// The PE's index.
    pub pe: usize,
    /// Units of work done (for a search: nodes expanded).
    pub work_units: u64,
    /// Requests for work this PE sent.
    pub requests_sent: u64,
    /// Requests this PE sent that brought no work back.
    pub requests_failed: u64,
    /// Requests other PEs sent to this PE.
    pub requests_received: u64,
    /// Successful splits of this PE's piece.
    pub splits: u64,
    /// Pieces of work this PE gave away.
    pub pieces_sent: u64,
    /// Pieces of work this PE received.
    pub pieces_received: u64,
    /// Operations on the shared load heap (max-load visiting: reports,
    /// corrections and look-ups of the most loaded PE); 0 elsewhere.
    pub heap_ops: u64,
    /// Time spent holding work.
    #[serde(serialize_with = "secs")]
    pub busy: Duration,
    /// Time spent without work (asking, waiting, answering "no work").
    #[serde(serialize_with = "secs")]
    pub idle: Duration,
}

fn secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

impl PeStats {
    /// Adds another PE's counters to these (the `pe` field is kept).
    pub fn add(&mut self, other: &PeStats) {
        self.work_units += other.work_units;
        self.requests_sent += other.requests_sent;
        self.requests_failed += other.requests_failed;
        self.requests_received += other.requests_received;
        self.splits += other.splits;
        self.pieces_sent += other.pieces_sent;
        self.pieces_received += other.pieces_received;
        self.heap_ops += other.heap_ops;
        self.busy += other.busy;
        self.idle += other.idle;
    }

    /// Fraction of this PE's time spent busy.
    pub fn busy_fraction(&self) -> f64 {
        let total = (self.busy + self.idle).as_secs_f64();
        if total > 0.0 { self.busy.as_secs_f64() / total } else { 0.0 }
    }
}

/// Statistics of a whole run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RunStats {
    /// Wall-clock time from the start of the PEs to termination.
    #[serde(serialize_with = "secs")]
    pub wall: Duration,
    /// One entry per PE, in index order.
    pub pes: Vec<PeStats>,
}

impl RunStats {
    /// The counters of all PEs added up.
    pub fn total(&self) -> PeStats {
        let mut total = PeStats::default();
        for pe in &self.pes {
            total.add(pe);
        }
        total
    }

    /// Work units done by all PEs.
    pub fn work_units(&self) -> u64 {
        self.pes.iter().map(|p| p.work_units).sum()
    }

    /// The efficiency estimate: the fraction of PE time spent holding work,
    /// Σ busy / (P · wall). It counts the runtime's own costs while busy
    /// (request checks, splits) as useful, so it is an upper bound of the
    /// efficiency against the sequential baseline, which only a benchmark can
    /// measure.
    pub fn efficiency(&self) -> f64 {
        let denom = self.pes.len() as f64 * self.wall.as_secs_f64();
        if denom > 0.0 { self.total().busy.as_secs_f64() / denom } else { 0.0 }
    }

    /// Work units per second of wall time.
    pub fn units_per_sec(&self) -> f64 {
        let wall = self.wall.as_secs_f64();
        if wall > 0.0 { self.work_units() as f64 / wall } else { 0.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn efficiency_is_busy_time_over_pe_time() {
        let pe = |busy_ms, idle_ms| PeStats {
            busy: Duration::from_millis(busy_ms),
            idle: Duration::from_millis(idle_ms),
            work_units: 10,
            ..PeStats::default()
        };
        let stats = RunStats { wall: Duration::from_millis(100), pes: vec![pe(100, 0), pe(50, 50)] };
        assert!((stats.efficiency() - 0.75).abs() < 1e-12);
        assert_eq!(stats.work_units(), 20);
        assert!((stats.units_per_sec() - 200.0).abs() < 1e-9);
        assert!((stats.pes[1].busy_fraction() - 0.5).abs() < 1e-12);
        let json = serde_json::to_string(&stats).unwrap();
        assert!(json.starts_with("{\"wall\":0.1,\"pes\":[{\"pe\":0,\"work_units\":10,"), "{json}");
    }
}
