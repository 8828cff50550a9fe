//! Per-PE statistics of a run and the efficiency estimate.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::strategy::Tally;

/// What one PE did during a run: the one statistics type of every driver
/// (the threads runtime, the MPI runtime, which sends it to rank 0 as is,
/// and the simulator, whose times are ticks).
///
/// The counters of decisions come from the PE's strategy machine
/// ([`Tally`], counted where the decision is made); the driver counts work,
/// splits, pieces and time. Under the pushing strategies a *request* is an
/// offer: `requests_sent` counts this PE's offers (rounds of load queries)
/// and `requests_failed` those no candidate could take; under master–worker
/// `requests_sent` counts requests to the central pool and
/// `requests_received` the master's demands.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
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
    /// Operations on the shared load heap (max-load visiting: reports
    /// and look-ups of the most loaded PE); 0 elsewhere.
    pub heap_ops: u64,
    /// Messages this PE sent (requests, answers, queries, pushes, reports;
    /// on shared memory, the slot writes and reads that stand for them). PE
    /// 0 also counts the messages of the run's hub.
    #[serde(default)]
    pub messages: u64,
    /// Time spent holding work, by the wall clock.
    #[serde(with = "secs")]
    pub busy: Duration,
    /// CPU time spent holding work: the CPU clock of the PE's thread, read
    /// as each busy phase begins and ends (the simulator's PEs have the
    /// machine to themselves: there it equals `busy`). Where other
    /// processes share the cores it is less than `busy`.
    #[serde(default, with = "secs")]
    pub cpu: Duration,
    /// Time spent without work (asking, waiting, answering "no work").
    #[serde(with = "secs")]
    pub idle: Duration,
}

/// Durations as seconds (a float): readable in JSON, and exact to the
/// nanosecond for any run shorter than a few months.
mod secs {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let secs = f64::deserialize(d)?;
        Duration::try_from_secs_f64(secs).map_err(serde::de::Error::custom)
    }
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
        self.messages += other.messages;
        self.busy += other.busy;
        self.cpu += other.cpu;
        self.idle += other.idle;
    }

    /// Adds the decisions of a strategy machine (or a hub) to these counters.
    pub fn add_tally(&mut self, tally: &Tally) {
        self.requests_sent += tally.requests_sent;
        self.requests_failed += tally.requests_failed;
        self.requests_received += tally.requests_received;
        self.heap_ops += tally.heap_ops;
        self.messages += tally.messages;
    }

    /// Fraction of this PE's time spent busy.
    pub fn busy_fraction(&self) -> f64 {
        let total = (self.busy + self.idle).as_secs_f64();
        if total > 0.0 { self.busy.as_secs_f64() / total } else { 0.0 }
    }
}

/// The shortest run whose utilization a report shows; a shorter one is
/// "too short to measure". Starting the PEs, their first steals and the
/// detection of termination cost a run at P = 2 on the threads runtime
/// 4–44 µs of each PE's time, for runs from microseconds to tens of
/// milliseconds (measured in `docs/benchmarks/2026-11-27-short-runs/`): a
/// run of 10 ms or more spends at most about 0.4 % of its time on them.
pub const MIN_MEASURED_WALL: Duration = Duration::from_millis(10);

/// Statistics of a whole run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunStats {
    /// Wall-clock time from the start of the PEs to termination.
    #[serde(with = "secs")]
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

    /// The utilization of the PEs: the fraction of their time spent
    /// working, Σ cpu / (P · wall), with each PE's CPU time while it held
    /// work, so that time the machine gave to other processes does not
    /// count. It counts the runtime's own costs while busy (request checks,
    /// splits) as work, so it bounds from above the *efficiency* against
    /// the sequential baseline, T_seq / (P · T_P), which only a benchmark
    /// that times the baseline measures (`treelb bench`, `treelb compare`).
    /// On a run shorter than [`MIN_MEASURED_WALL`] the start and the
    /// termination of the PEs weigh more than the work:
    /// [`RunStats::measurable`] says whether the figure means anything.
    pub fn utilization(&self) -> f64 {
        let denom = self.pes.len() as f64 * self.wall.as_secs_f64();
        if denom > 0.0 { self.total().cpu.as_secs_f64() / denom } else { 0.0 }
    }

    /// Whether the run lasted long enough for its utilization to mean
    /// something: at least [`MIN_MEASURED_WALL`].
    pub fn measurable(&self) -> bool {
        self.wall >= MIN_MEASURED_WALL
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
    fn utilization_is_busy_cpu_time_over_pe_time() {
        let pe = |busy_ms, idle_ms| PeStats {
            busy: Duration::from_millis(busy_ms),
            cpu: Duration::from_millis(busy_ms / 2),
            idle: Duration::from_millis(idle_ms),
            work_units: 10,
            ..PeStats::default()
        };
        let stats = RunStats { wall: Duration::from_millis(100), pes: vec![pe(100, 0), pe(50, 50)] };
        // The PEs held work 150 of 200 ms, and ran on a core half of it.
        assert!((stats.utilization() - 0.375).abs() < 1e-12);
        assert!(stats.measurable());
        assert!(!RunStats { wall: Duration::from_millis(9), ..stats.clone() }.measurable());
        assert_eq!(stats.work_units(), 20);
        assert!((stats.units_per_sec() - 200.0).abs() < 1e-9);
        assert!((stats.pes[1].busy_fraction() - 0.5).abs() < 1e-12);
        let json = serde_json::to_string(&stats).unwrap();
        assert!(json.starts_with("{\"wall\":0.1,\"pes\":[{\"pe\":0,\"work_units\":10,"), "{json}");
        let back: RunStats = serde_json::from_str(&json).unwrap();
        assert_eq!(back, stats);
    }
}
