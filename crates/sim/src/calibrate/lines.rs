//! What the calibration commands print as they go, one line each: an
//! application's cost ([`AppCost`]), the calibration ([`Calibration::line`]),
//! a prediction beside its measurement ([`Row`]), a blind forecast
//! ([`Forecast`]) and its check ([`Checked`], [`Checking::verdicts`]).

use std::fmt;
use std::path::Path;

use super::blind::{Checked, Checking, Forecast, sha256_hex};
use super::{AppCost, Calibration, Row, judge};

impl fmt::Display for AppCost {
    /// `uts:T1: 4130071 units, 123.4 ns per unit (CPU), 125.0 ns (wall)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} units, {:.1} ns per unit (CPU), {:.1} ns (wall)",
            self.app, self.nodes, self.ns_per_node, self.wall_ns_per_node
        )
    }
}

impl Calibration {
    /// The costs measured, the cores and how loaded the machine was
    /// (other processes' share of the cores at or above `loaded_share`:
    /// loaded), in one line.
    pub fn line(&self, loaded_share: f64) -> String {
        format!(
            "T_split {:.1} ns · T_poll {:.2} ns · T_rout (threads, spinning) {:.1} ns · wake-up {:.0} ns · \
             T_rout (MPI) {}{} · quantum {:.0} µs · {} cores, {}",
            self.t_split,
            self.t_poll,
            self.t_rout_threads,
            self.t_wake,
            self.t_rout_mpi.map_or("not measured".into(), |t| format!("{t:.0} ns")),
            self.t_rout_mpi_tcp.map_or(String::new(), |t| format!(" · T_rout (MPI over TCP) {t:.0} ns")),
            self.quantum / 1e3,
            self.cores,
            judge(self.others_share, loaded_share)
        )
    }
}

impl fmt::Display for Row {
    /// `uts:T1 threads P = 4 random-polling: measured 0.951, predicted 0.963`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} P = {} {}: measured {:.3}, predicted {:.3}",
            self.app,
            self.runtime.name(),
            self.p,
            self.strategy.name(),
            self.measured_efficiency,
            self.predicted.efficiency
        )
    }
}

impl fmt::Display for Forecast {
    /// `CASE: efficiency 0.912, 130 requests, 57 transfers`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.predicted;
        write!(
            f,
            "{}: efficiency {:.3}, {} requests, {} transfers",
            self.case.label(),
            p.efficiency,
            p.requests,
            p.transfers
        )
    }
}

impl fmt::Display for Checked {
    /// `CASE: measured 0.901, forecast 0.912 (-1.2 %)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: measured {:.3}, forecast {:.3} ({:+.1} %)",
            self.forecast.case.label(),
            self.efficiency(),
            self.forecast.predicted.efficiency,
            100.0 * self.error()
        )
    }
}

impl Checking {
    /// The forecasts' SHA-256 and the three verdicts (efficiency,
    /// messages, ranking), a line each.
    pub fn verdicts(&self) -> String {
        let f = &self.figures;
        format!(
            "forecasts sha256 {}\nefficiency: {}\nmessages: {}\nranking: {}\n",
            self.sha256, f.efficiency_verdict, f.messages_verdict, f.ranking_verdict
        )
    }

    /// The forecast file's name for the Markdown of results read back from
    /// `from`: the one recorded in the results, else `forecasts.json`
    /// beside them if its SHA-256 is the one measured, else "the forecasts
    /// of FILE".
    pub fn forecasts_name(&self, from: &Path) -> String {
        if let Some(name) = &self.forecasts_file {
            return name.clone();
        }
        let beside = from.with_file_name("forecasts.json");
        match std::fs::read(&beside) {
            Ok(bytes) if sha256_hex(&bytes) == self.sha256 => "forecasts.json".into(),
            _ => format!("the forecasts of {}", from.display()),
        }
    }
}
