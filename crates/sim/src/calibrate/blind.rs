//! Blind predictions: the calibrated model's forecasts written to a file
//! — and committed — *before* the runs they forecast, then the runs
//! measured against that file, with error figures beside naive forecasts.
//!
//! A model checked against runs it has already seen can be tuned to them
//! without anyone noticing. Here the order is fixed by the files:
//!
//! 1. [`freeze`] simulates every [`Case`] (an application, a runtime, P, a
//!    strategy) with the costs of a [`Calibration`] made earlier
//!    (microbenchmarks and one-PE runs only) and returns [`Forecasts`],
//!    which hold the calibration, the forecasts and the [`Tolerances`] the
//!    verdicts will use. Written as JSON, the file is committed.
//! 2. [`measure`] reads that file's bytes, records their SHA-256, runs every
//!    case `repeat` times on the real runtime and computes [`Figures`]:
//!    bias, mean absolute error, worst case and a 95 % interval of the bias
//!    for efficiency; the same for two naive forecasts (min(1, C/P), and the
//!    mean measured efficiency as an oracle constant); the ratio of forecast
//!    to measured requests and transfers; and per application, runtime and
//!    P, whether the *ranking* of the strategies agrees (Kendall's τ-b).
//!    Each verdict is computed from these numbers against the tolerances
//!    frozen in step 1, and can come out negative.
//!
//! Efficiency is T₁ / (P · T_P), with T₁ the fastest one-PE run of the
//! threads runtime on the same machine in the same session (measured by
//! [`measure`], or taken from a calibration made there just before) — so
//! that a machine faster or slower than the calibrated one moves the
//! baseline and the runs alike.
//!
//! ```no_run
//! use treelb_sim::calibrate::{self, blind, Calibration};
//!
//! let cal: Calibration = serde_json::from_str(&std::fs::read_to_string("calibration.json")?)?;
//! let cases = blind::cases(&cal, &["16:all".parse()?, "2,4,8:random-polling,max-load".parse()?]);
//! let forecasts = blind::freeze(&cal, &cases, None, &mut |_| {})?;
//! std::fs::write("forecasts.json", serde_json::to_vec_pretty(&forecasts)?)?;
//! // … commit forecasts.json, then, on the machine it forecasts:
//! let bytes = std::fs::read("forecasts.json")?;
//! let checked = blind::measure(&bytes, None, &blind::MeasureConfig::default(), &mut |_| {})?;
//! println!("{}", checked.figures.efficiency.mae);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use treelb::Strategy;

use super::{Calibration, CoreModel, Error, Measured, Mpirun, Predicted, Runtime, apps, load_average};

/// The format line of a forecast file.
pub const FORMAT: &str = "treelb blind forecasts 1";

/// What the verdicts allow, fixed in the forecast file before any run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tolerances {
    /// The largest relative error of forecast efficiency, (forecast −
    /// measured) / measured, on runs with a core per PE.
    pub efficiency: f64,
    /// The largest factor between forecast and measured requests, and
    /// between forecast and measured transfers.
    pub messages: f64,
    /// The smallest Kendall τ-b between the forecast and the measured
    /// efficiencies of the strategies at one application, runtime and P.
    pub ranking: f64,
}

impl Default for Tolerances {
    /// ±5 % on efficiency, messages within 2×, τ-b ≥ 0.6.
    fn default() -> Self {
        Tolerances { efficiency: 0.05, messages: 2.0, ranking: 0.6 }
    }
}

/// One run to forecast.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Case {
    /// The application, as calibrated (`uts:T1L`, `nqueens:15`, …).
    pub app: String,
    /// The runtime.
    pub runtime: Runtime,
    /// PEs (threads) or ranks.
    pub p: usize,
    /// The strategy.
    pub strategy: Strategy,
}

impl Case {
    /// `uts:T1L threads P = 16 random-polling`.
    pub fn label(&self) -> String {
        format!("{} {} P = {} {}", self.app, self.runtime.name(), self.p, self.strategy.name())
    }
}

/// A set of cases as written on a command line:
/// `[threads:|mpi:|mpi-tcp:]PES:STRATEGIES`, e.g. `16:all`,
/// `2,4,8:random-polling,max-load`, `mpi:2,4:work-sharing`,
/// `mpi-tcp:16:all` ([`Runtime::MpiTcp`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseSet {
    /// The runtime (threads unless `mpi:` or `mpi-tcp:`).
    pub runtime: Runtime,
    /// The P of each run.
    pub pes: Vec<usize>,
    /// The strategies (`all`: [`Strategy::ALL`]).
    pub strategies: Vec<Strategy>,
}

impl FromStr for CaseSet {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let (runtime, rest) = if let Some(rest) = s.strip_prefix("mpi:") {
            (Runtime::Mpi, rest)
        } else if let Some(rest) = s.strip_prefix("mpi-tcp:") {
            (Runtime::MpiTcp, rest)
        } else {
            (Runtime::Threads, s.strip_prefix("threads:").unwrap_or(s))
        };
        let (pes, strategies) = rest
            .split_once(':')
            .ok_or_else(|| format!("`{s}` is not [mpi:|mpi-tcp:]PES:STRATEGIES (e.g. 16:all)"))?;
        let pes = pes
            .split(',')
            .map(|x| {
                x.trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|&p| p >= 1)
                    .ok_or_else(|| format!("`{x}` is not a P ≥ 1"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let strategies = if strategies.trim() == "all" {
            Strategy::ALL.to_vec()
        } else {
            strategies.split(',').map(|x| x.trim().parse()).collect::<Result<Vec<_>, _>>()?
        };
        if strategies.is_empty() {
            return Err(format!("`{s}` names no strategy"));
        }
        Ok(CaseSet { runtime, pes, strategies })
    }
}

/// Every case of `sets` for every application of `cal`, in the order of the
/// applications, then of the sets; duplicates once.
pub fn cases(cal: &Calibration, sets: &[CaseSet]) -> Vec<Case> {
    let mut out: Vec<Case> = Vec::new();
    for app in &cal.apps {
        for set in sets {
            for &p in &set.pes {
                for &strategy in &set.strategies {
                    let case = Case { app: app.app.clone(), runtime: set.runtime, p, strategy };
                    if !out.contains(&case) {
                        out.push(case);
                    }
                }
            }
        }
    }
    out
}

/// One case's forecast.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Forecast {
    /// The run forecast.
    pub case: Case,
    /// The simulator's run.
    pub predicted: Predicted,
    /// How the forecast shares the cores among the PEs.
    pub model: CoreModel,
}

/// What [`freeze`] wrote: everything [`measure`] needs, and nothing it
/// could change.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Forecasts {
    /// [`FORMAT`].
    pub format: String,
    /// The version of treelb that simulated.
    pub made_by: String,
    /// The calibration whose costs the simulator used.
    pub calibration: Calibration,
    /// What the verdicts allow.
    pub tolerances: Tolerances,
    /// One per case, in the order given.
    pub forecasts: Vec<Forecast>,
}

/// Simulates every case with the costs of `cal` ([`Calibration::sim_config`],
/// each application at its calibrated cost per node); calls `on_forecast`
/// with each forecast as soon as it is known. Every application of the cases
/// must be one of `cal`'s.
pub fn freeze(
    cal: &Calibration,
    cases: &[Case],
    instances: Option<&std::path::Path>,
    on_forecast: &mut dyn FnMut(&Forecast),
) -> Result<Forecasts, Error> {
    let mut forecasts = Vec::with_capacity(cases.len());
    for app in group_by_app(cases) {
        let cost = cal.apps.iter().find(|a| a.app == app).ok_or_else(|| Error::BadApp {
            app: app.clone(),
            message: "not among the calibration's applications".into(),
        })?;
        apps::with_search(&app, instances, &mut |s| -> Result<(), Error> {
            let todo: Vec<&Case> = cases.iter().filter(|c| c.app == app).collect();
            let simulate = |case: &&Case| -> Result<Forecast, Error> {
                let (sim, model) = cal.sim_config(case.runtime, case.p, case.strategy);
                let predicted = s.simulate(sim, cost.ns_per_node)?;
                Ok(Forecast { case: (*case).clone(), predicted, model })
            };
            // Each simulation is a function of its case alone: on every
            // core, the forecasts of one thread.
            for f in crate::sweep::par_map(&todo, simulate) {
                let f = f?;
                on_forecast(&f);
                forecasts.push(f);
            }
            Ok(())
        })??;
    }
    // The order given, whatever the grouping.
    forecasts.sort_by_key(|f| cases.iter().position(|c| *c == f.case));
    Ok(Forecasts {
        format: FORMAT.into(),
        made_by: concat!("treelb ", env!("CARGO_PKG_VERSION")).into(),
        calibration: cal.clone(),
        tolerances: Tolerances::default(),
        forecasts,
    })
}

/// The applications of `cases`, each once, in order.
fn group_by_app(cases: &[Case]) -> Vec<String> {
    let mut apps: Vec<String> = Vec::new();
    for c in cases {
        if !apps.contains(&c.app) {
            apps.push(c.app.clone());
        }
    }
    apps
}

/// How [`measure`] runs the cases.
#[derive(Clone, Debug)]
pub struct MeasureConfig {
    /// Runs of each case (and of each one-PE baseline).
    pub repeat: u32,
    /// How the MPI runs start.
    pub mpirun: Mpirun,
    /// The folder of the shared benchmark instances.
    pub instances: Option<PathBuf>,
}

impl Default for MeasureConfig {
    /// Three runs of each case, `mpirun` from the `PATH`.
    fn default() -> Self {
        MeasureConfig { repeat: 3, mpirun: Mpirun::default(), instances: None }
    }
}

/// An application's one-PE baseline on the machine measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Baseline {
    /// The application.
    pub app: String,
    /// Its units of work.
    pub nodes: u64,
    /// T₁: the fastest one-PE run of the threads runtime, in seconds.
    pub t1: f64,
    /// Where T₁ comes from: `measured` here, or `calibration`.
    pub source: String,
}

/// One case: the forecast beside its runs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Checked {
    /// The case and its forecast.
    pub forecast: Forecast,
    /// Every run of the case.
    pub runs: Vec<Measured>,
    /// T₁ / (P · wall) of each run.
    pub efficiencies: Vec<f64>,
    /// T₁ per unit of the application's baseline, in nanoseconds.
    #[serde(default)]
    pub t1_ns_per_node: f64,
}

impl Checked {
    /// The mean measured efficiency.
    pub fn efficiency(&self) -> f64 {
        mean(&self.efficiencies)
    }

    /// (forecast − measured) / measured efficiency, measured as the mean.
    pub fn error(&self) -> f64 {
        relative(self.forecast.predicted.efficiency, self.efficiency())
    }

    /// The mean requests of the runs.
    pub fn requests(&self) -> f64 {
        mean(&self.runs.iter().map(|m| m.requests as f64).collect::<Vec<_>>())
    }

    /// The mean transfers of the runs.
    pub fn transfers(&self) -> f64 {
        mean(&self.runs.iter().map(|m| m.transfers as f64).collect::<Vec<_>>())
    }

    /// How much longer a unit took in the runs than in the one-PE
    /// baseline: the PEs' busy time per unit over T₁ per unit (mean of the
    /// runs). Above 1, the PEs were slower at the work itself — the cores'
    /// shared caches, memory and clock — which the model does not know of.
    pub fn slowdown(&self) -> f64 {
        let per_run: Vec<f64> =
            self.runs.iter().map(|m| m.busy * 1e9 / m.nodes.max(1) as f64 / self.t1_ns_per_node).collect();
        mean(&per_run)
    }

    /// (max − min) / mean of the measured efficiencies: the noise of the
    /// repeats.
    pub fn spread(&self) -> f64 {
        let (lo, hi) = min_max(&self.efficiencies);
        (hi - lo) / self.efficiency()
    }
}

/// Error figures of one forecast of efficiency over the cases.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ErrorFigures {
    /// Cases counted.
    pub n: usize,
    /// The mean relative error (positive: optimistic).
    pub bias: f64,
    /// A 95 % interval of the bias (Student's t over the cases, its
    /// quantile beyond 10 degrees of freedom that of 10: on the wide side).
    pub bias_interval: (f64, f64),
    /// The mean absolute relative error.
    pub mae: f64,
    /// The largest absolute relative error …
    pub worst: f64,
    /// … and its case.
    pub worst_case: String,
    /// Cases within the tolerance.
    pub within: usize,
}

/// Figures of a count (requests, transfers): the ratio forecast / measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RatioFigures {
    /// Cases counted.
    pub n: usize,
    /// The geometric mean of forecast / measured.
    pub geometric_mean: f64,
    /// The largest factor between the two (≥ 1) …
    pub worst: f64,
    /// … and its case.
    pub worst_case: String,
    /// Cases within the tolerance's factor.
    pub within: usize,
}

/// Whether the forecast ranks the strategies of one application, runtime
/// and P as the runs do.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Ranking {
    /// The application.
    pub app: String,
    /// The runtime.
    pub runtime: Runtime,
    /// P.
    pub p: usize,
    /// Strategies ranked.
    pub n: usize,
    /// Kendall's τ-b between forecast and measured efficiencies.
    pub tau: f64,
    /// The best strategy by the forecast …
    pub forecast_best: Strategy,
    /// … and by the runs.
    pub measured_best: Strategy,
}

/// Everything [`measure`] computes from the runs, with the verdicts.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Figures {
    /// The model's efficiency, runs with a core per PE (P ≤ C).
    pub efficiency: ErrorFigures,
    /// The naive forecast min(1, C/P), same runs.
    pub naive_cores: ErrorFigures,
    /// The naive constant: the mean measured efficiency of the same runs
    /// (an oracle: no forecast made before the runs could know it).
    pub naive_constant: ErrorFigures,
    /// Not blind, a diagnosis: the model's efficiency over the slowdown of
    /// each run's units ([`Checked::slowdown`]), same runs — what is left
    /// of the error once the cost of a unit during the run is known.
    #[serde(default)]
    pub at_run_cost: ErrorFigures,
    /// Requests, every case.
    pub requests: RatioFigures,
    /// Pieces transferred, every case.
    pub transfers: RatioFigures,
    /// One per application, runtime and P with at least three strategies.
    pub rankings: Vec<Ranking>,
    /// The median spread of the repeats ([`Checked::spread`]).
    pub noise: f64,
    /// "met" or "not met", with the counts: efficiency within the tolerance
    /// on every run with a core per PE.
    pub efficiency_verdict: String,
    /// The same for requests and transfers within the factor.
    pub messages_verdict: String,
    /// The same for the rankings (τ-b at least the tolerance).
    pub ranking_verdict: String,
    /// Whether the model's mean absolute error is below both naive ones.
    pub beats_naive: bool,
}

/// What [`measure`] found.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Checking {
    /// The SHA-256 of the forecast file's bytes, in hexadecimal.
    pub sha256: String,
    /// The forecast file as named to the measurement, where the caller
    /// recorded it.
    #[serde(default)]
    pub forecasts_file: Option<String>,
    /// The forecasts read.
    pub forecasts: Forecasts,
    /// The cores of the machine measured.
    pub cores: usize,
    /// Per application.
    pub baselines: Vec<Baseline>,
    /// Per case, in the file's order.
    pub checked: Vec<Checked>,
    /// The computed figures and verdicts.
    pub figures: Figures,
    /// The highest 1-minute load average seen before and after the runs.
    pub load: Option<f64>,
}

/// Reads the forecast file's `bytes`, runs each of its cases
/// `cfg.repeat` times on this machine and computes the [`Figures`] (see the
/// [module](self)). T₁ of each application comes from `baseline` (a
/// calibration made on this machine, its wall time per node × units) when it
/// has the application with the same units, else from `cfg.repeat` one-PE
/// runs measured first. Calls `on_case` with each case as soon as it is
/// measured.
pub fn measure(
    bytes: &[u8],
    baseline: Option<&Calibration>,
    cfg: &MeasureConfig,
    on_case: &mut dyn FnMut(&Checked),
) -> Result<Checking, Error> {
    let forecasts: Forecasts = serde_json::from_slice(bytes)
        .map_err(|e| Error::Forecasts(format!("not a forecast file of `treelb sim freeze`: {e}")))?;
    if forecasts.format != FORMAT {
        return Err(Error::Forecasts(format!("format `{}`, expected `{FORMAT}`", forecasts.format)));
    }
    let sha256 = sha256_hex(bytes);
    let load_before = load_average();
    let instances = cfg.instances.as_deref();
    let repeat = cfg.repeat.max(1);
    let cases: Vec<Case> = forecasts.forecasts.iter().map(|f| f.case.clone()).collect();
    let mut baselines = Vec::new();
    let mut checked = Vec::new();
    for app in group_by_app(&cases) {
        apps::with_search(&app, instances, &mut |s| -> Result<(), Error> {
            let from_cal = baseline.and_then(|c| c.apps.iter().find(|a| a.app == app));
            let base = match from_cal {
                Some(a) if a.wall_ns_per_node > 0.0 => Baseline {
                    app: app.clone(),
                    nodes: a.nodes,
                    t1: a.wall_ns_per_node * a.nodes as f64 * 1e-9,
                    source: "calibration".into(),
                },
                _ => {
                    let m = super::predict::fastest(repeat, || Ok(s.threads(1, Strategy::RandomPolling)?.0))?;
                    Baseline { app: app.clone(), nodes: m.nodes, t1: m.wall, source: "measured".into() }
                }
            };
            for f in forecasts.forecasts.iter().filter(|f| f.case.app == app) {
                let c = &f.case;
                let mut runs = Vec::with_capacity(repeat as usize);
                for _ in 0..repeat {
                    runs.push(match c.runtime {
                        Runtime::Threads => s.threads(c.p, c.strategy)?.0,
                        Runtime::Mpi | Runtime::MpiTcp => {
                            cfg.mpirun.over(c.runtime).measure(&c.app, c.p, c.strategy, instances)?
                        }
                    });
                }
                // The same tree: the units agree up to the few a pushing or
                // static strategy counts for splitting the root.
                let off =
                    |m: &&Measured| m.nodes.abs_diff(base.nodes) as f64 > 1e-3 * base.nodes as f64 + 16.0;
                if let Some(m) = runs.iter().find(off) {
                    return Err(Error::BadApp {
                        app: app.clone(),
                        message: format!(
                            "{}: {} units, the baseline {} (not the same tree)",
                            c.label(),
                            m.nodes,
                            base.nodes
                        ),
                    });
                }
                let efficiencies = runs.iter().map(|m| base.t1 / (c.p as f64 * m.wall)).collect();
                let t1_ns_per_node = base.t1 * 1e9 / base.nodes.max(1) as f64;
                let row = Checked { forecast: f.clone(), runs, efficiencies, t1_ns_per_node };
                on_case(&row);
                checked.push(row);
            }
            baselines.push(base);
            Ok(())
        })??;
    }
    checked.sort_by_key(|r| cases.iter().position(|c| *c == r.forecast.case));
    let cores = super::cores();
    let figures = figures(&checked, cores, &forecasts.tolerances);
    let load = super::highest_load(load_before);
    Ok(Checking { sha256, forecasts_file: None, forecasts, cores, baselines, checked, figures, load })
}

/// The SHA-256 of `bytes` in hexadecimal, as [`Checking::sha256`].
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() { f64::NAN } else { xs.iter().sum::<f64>() / xs.len() as f64 }
}

fn min_max(xs: &[f64]) -> (f64, f64) {
    xs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| (lo.min(x), hi.max(x)))
}

fn relative(forecast: f64, measured: f64) -> f64 {
    (forecast - measured) / measured
}

/// Error figures of `forecast(case)` against the measured efficiency.
fn error_figures(rows: &[&Checked], tol: f64, forecast: impl Fn(&Checked) -> f64) -> ErrorFigures {
    let errs: Vec<(f64, &Checked)> =
        rows.iter().map(|r| (relative(forecast(r), r.efficiency()), *r)).collect();
    let n = errs.len();
    let e: Vec<f64> = errs.iter().map(|x| x.0).collect();
    let bias = mean(&e);
    let half = if n >= 2 {
        let var = e.iter().map(|x| (x - bias).powi(2)).sum::<f64>() / (n - 1) as f64;
        crate::stats::t95(n - 1) * (var / n as f64).sqrt()
    } else {
        f64::NAN
    };
    let worst = errs.iter().max_by(|a, b| a.0.abs().total_cmp(&b.0.abs()));
    ErrorFigures {
        n,
        bias,
        bias_interval: (bias - half, bias + half),
        mae: mean(&e.iter().map(|x| x.abs()).collect::<Vec<_>>()),
        worst: worst.map_or(f64::NAN, |w| w.0.abs()),
        worst_case: worst.map_or_else(String::new, |w| w.1.forecast.case.label()),
        within: e.iter().filter(|x| x.abs() <= tol).count(),
    }
}

/// Ratio figures of a count.
fn ratio_figures(rows: &[Checked], factor: f64, pair: impl Fn(&Checked) -> (f64, f64)) -> RatioFigures {
    // Counts below one (no request at all) count as one: a forecast of 0
    // against 1 is not infinitely wrong.
    let ratios: Vec<(f64, &Checked)> = rows
        .iter()
        .map(|r| {
            let (f, m) = pair(r);
            (f.max(1.0) / m.max(1.0), r)
        })
        .collect();
    let factor_of = |x: f64| x.max(1.0 / x);
    let worst = ratios.iter().max_by(|a, b| factor_of(a.0).total_cmp(&factor_of(b.0)));
    RatioFigures {
        n: ratios.len(),
        geometric_mean: mean(&ratios.iter().map(|x| x.0.ln()).collect::<Vec<_>>()).exp(),
        worst: worst.map_or(f64::NAN, |w| factor_of(w.0)),
        worst_case: worst.map_or_else(String::new, |w| w.1.forecast.case.label()),
        within: ratios.iter().filter(|x| factor_of(x.0) <= factor).count(),
    }
}

/// Kendall's τ-b of two equally long samples (1: the same order, −1: the
/// reverse; ties counted as in τ-b). NaN with fewer than two values or
/// when either sample is constant.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len().min(y.len());
    let (mut concordant, mut discordant, mut ties_x, mut ties_y) = (0i64, 0i64, 0i64, 0i64);
    for i in 0..n {
        for j in i + 1..n {
            let dx = (x[i] - x[j]).signum() * f64::from(u8::from(x[i] != x[j]));
            let dy = (y[i] - y[j]).signum() * f64::from(u8::from(y[i] != y[j]));
            match (dx == 0.0, dy == 0.0) {
                (true, true) => {}
                (true, false) => ties_x += 1,
                (false, true) => ties_y += 1,
                (false, false) if dx == dy => concordant += 1,
                (false, false) => discordant += 1,
            }
        }
    }
    let n0 = (concordant + discordant) as f64;
    let denom = ((n0 + ties_x as f64) * (n0 + ties_y as f64)).sqrt();
    if denom == 0.0 { f64::NAN } else { (concordant - discordant) as f64 / denom }
}

fn verdict(ok: usize, n: usize, what: &str) -> String {
    if n == 0 {
        format!("not decided: no {what}")
    } else if ok == n {
        format!("met ({ok} of {n} {what})")
    } else {
        format!("not met ({ok} of {n} {what})")
    }
}

/// The figures of `checked` on a machine of `cores` cores.
pub fn figures(checked: &[Checked], cores: usize, tol: &Tolerances) -> Figures {
    let dedicated: Vec<&Checked> = checked.iter().filter(|r| r.forecast.case.p <= cores).collect();
    let constant = mean(&dedicated.iter().map(|r| r.efficiency()).collect::<Vec<_>>());
    let efficiency = error_figures(&dedicated, tol.efficiency, |r| r.forecast.predicted.efficiency);
    let naive_cores =
        error_figures(&dedicated, tol.efficiency, |r| (cores as f64 / r.forecast.case.p as f64).min(1.0));
    let naive_constant = error_figures(&dedicated, tol.efficiency, |_| constant);
    let at_run_cost =
        error_figures(&dedicated, tol.efficiency, |r| r.forecast.predicted.efficiency / r.slowdown());
    let requests =
        ratio_figures(checked, tol.messages, |r| (r.forecast.predicted.requests as f64, r.requests()));
    let transfers =
        ratio_figures(checked, tol.messages, |r| (r.forecast.predicted.transfers as f64, r.transfers()));
    let mut groups: BTreeMap<(String, Runtime, usize), Vec<&Checked>> = BTreeMap::new();
    for r in checked {
        let c = &r.forecast.case;
        groups.entry((c.app.clone(), c.runtime, c.p)).or_default().push(r);
    }
    let rankings: Vec<Ranking> = groups
        .into_iter()
        .filter(|(_, rows)| rows.len() >= 3)
        .map(|((app, runtime, p), rows)| {
            let f: Vec<f64> = rows.iter().map(|r| r.forecast.predicted.efficiency).collect();
            let m: Vec<f64> = rows.iter().map(|r| r.efficiency()).collect();
            let best = |v: &[f64]| {
                let i = (0..v.len()).max_by(|&a, &b| v[a].total_cmp(&v[b])).unwrap_or(0);
                rows[i].forecast.case.strategy
            };
            Ranking {
                app,
                runtime,
                p,
                n: rows.len(),
                tau: kendall_tau_b(&f, &m),
                forecast_best: best(&f),
                measured_best: best(&m),
            }
        })
        .collect();
    let mut spreads: Vec<f64> = checked.iter().map(Checked::spread).filter(|x| x.is_finite()).collect();
    spreads.sort_by(f64::total_cmp);
    let noise = spreads.get(spreads.len() / 2).copied().unwrap_or(f64::NAN);
    let messages_ok = checked
        .iter()
        .filter(|r| {
            let ok = |f: u64, m: f64| {
                let x = (f as f64).max(1.0) / m.max(1.0);
                x.max(1.0 / x) <= tol.messages
            };
            ok(r.forecast.predicted.requests, r.requests())
                && ok(r.forecast.predicted.transfers, r.transfers())
        })
        .count();
    let ranking_ok = rankings.iter().filter(|r| r.tau >= tol.ranking).count();
    Figures {
        efficiency_verdict: verdict(
            efficiency.within,
            efficiency.n,
            "runs with a core per PE within the tolerance",
        ),
        messages_verdict: verdict(
            messages_ok,
            checked.len(),
            "runs with requests and transfers within the factor",
        ),
        ranking_verdict: verdict(ranking_ok, rankings.len(), "rankings with τ-b at least the tolerance"),
        beats_naive: efficiency.mae < naive_cores.mae && efficiency.mae < naive_constant.mae,
        efficiency,
        naive_cores,
        naive_constant,
        at_run_cost,
        requests,
        transfers,
        rankings,
        noise,
    }
}

impl Checking {
    /// Recomputes the figures from the runs (a results file written by an
    /// earlier version, or with the baseline's cost per unit missing).
    pub fn refigure(&mut self) {
        for r in &mut self.checked {
            let missing = r.t1_ns_per_node.is_nan() || r.t1_ns_per_node <= 0.0;
            if let Some(b) = self.baselines.iter().find(|b| b.app == r.forecast.case.app).filter(|_| missing)
            {
                r.t1_ns_per_node = b.t1 * 1e9 / b.nodes.max(1) as f64;
            }
        }
        self.figures = figures(&self.checked, self.cores, &self.forecasts.tolerances);
    }

    /// The results as Markdown: where the forecasts come from (the file,
    /// its SHA-256, the calibration), the verdicts, the error figures
    /// beside the naive forecasts, the rankings and every case.
    pub fn markdown(&self, forecasts_file: &str) -> String {
        let f = &self.figures;
        let t = &self.forecasts.tolerances;
        let cal = &self.forecasts.calibration;
        let mut s = String::new();
        let _ = writeln!(s, "# Blind forecasts against real runs\n");
        let _ = writeln!(
            s,
            "Forecasts: `{forecasts_file}`, SHA-256 `{}`, made by {} from a calibration of {} cores \
             (T_rout {:.1} ns between spinning threads, wake-up {:.0} ns, T_split {:.1} ns, T_poll {:.2} ns; \
             per node: {}). Measured here on {} cores, {} run{} per case; load average {}.\n",
            self.sha256,
            self.forecasts.made_by,
            cal.cores,
            cal.t_rout_threads,
            cal.t_wake,
            cal.t_split,
            cal.t_poll,
            cal.apps
                .iter()
                .map(|a| format!("{} {:.1} ns", a.app, a.ns_per_node))
                .collect::<Vec<_>>()
                .join(", "),
            self.cores,
            self.checked.first().map_or(0, |r| r.runs.len()),
            if self.checked.first().map_or(0, |r| r.runs.len()) == 1 { "" } else { "s" },
            self.load.map_or("unknown".into(), |l| format!("{l:.1}")),
        );
        if cal.loggp.is_some() {
            let _ = writeln!(
                s,
                "The forecasts price messages by LogGP (overheads at the ends, latency, a gap per byte, \
                 one message at a time through a PE's interface) and simulate start-up and termination \
                 as messages.\n"
            );
        }
        let _ = writeln!(s, "Baselines (T₁, the fastest one-PE run of the threads runtime):\n");
        for b in &self.baselines {
            let t1 = if b.t1 < 1.0 { format!("{:.2} ms", b.t1 * 1e3) } else { format!("{:.3} s", b.t1) };
            let _ = writeln!(s, "- {}: {} units, T₁ = {t1} ({})", b.app, b.nodes, b.source);
        }
        let _ = writeln!(s, "\n## Verdicts (tolerances fixed in the forecast file)\n");
        let _ = writeln!(s, "| target | tolerance | verdict |\n|---|---|---|");
        let _ = writeln!(s, "| efficiency | ±{:.0} % | {} |", 100.0 * t.efficiency, f.efficiency_verdict);
        let _ = writeln!(s, "| requests and transfers | within {}× | {} |", t.messages, f.messages_verdict);
        let _ = writeln!(s, "| ranking of strategies | τ-b ≥ {} | {} |", t.ranking, f.ranking_verdict);
        let _ = writeln!(
            s,
            "| below both naive forecasts' mean absolute error | — | {} |",
            if f.beats_naive { "yes" } else { "no" }
        );
        let _ = writeln!(s, "\n## Efficiency, runs with a core per PE\n");
        let _ = writeln!(
            s,
            "Relative error (forecast − measured) / measured; the median spread of the repeats \
             ((max − min) / mean) is {:.1} %.\n",
            100.0 * f.noise
        );
        let _ = writeln!(
            s,
            "| forecast | n | bias | 95 % interval | mean abs. error | worst | within ±{:.0} % |",
            100.0 * t.efficiency
        );
        let _ = writeln!(s, "|---|--:|--:|---|--:|---|--:|");
        for (name, e) in [
            ("the model", &f.efficiency),
            ("min(1, C/P)", &f.naive_cores),
            ("the mean measured (oracle constant)", &f.naive_constant),
            ("diagnosis, not blind: the model at each run's cost of a unit", &f.at_run_cost),
        ] {
            let _ = writeln!(
                s,
                "| {name} | {} | {:+.1} % | [{:+.1}, {:+.1}] % | {:.1} % | {:.1} % ({}) | {} |",
                e.n,
                100.0 * e.bias,
                100.0 * e.bias_interval.0,
                100.0 * e.bias_interval.1,
                100.0 * e.mae,
                100.0 * e.worst,
                e.worst_case,
                e.within
            );
        }
        let _ = writeln!(s, "\n## Messages, every run\n");
        let _ = writeln!(
            s,
            "| count | n | geometric mean forecast / measured | worst factor | within {}× |",
            t.messages
        );
        let _ = writeln!(s, "|---|--:|--:|---|--:|");
        for (name, r) in [("requests", &f.requests), ("transfers", &f.transfers)] {
            let _ = writeln!(
                s,
                "| {name} | {} | {:.2} | {:.1}× ({}) | {} |",
                r.n, r.geometric_mean, r.worst, r.worst_case, r.within
            );
        }
        if !f.rankings.is_empty() {
            let _ = writeln!(s, "\n## Ranking of the strategies\n");
            let _ = writeln!(
                s,
                "| application | runtime | P | strategies | τ-b | best by forecast | best measured |"
            );
            let _ = writeln!(s, "|---|---|--:|--:|--:|---|---|");
            for r in &f.rankings {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {:.2} | {} | {} |",
                    r.app,
                    r.runtime.name(),
                    r.p,
                    r.n,
                    r.tau,
                    r.forecast_best.name(),
                    r.measured_best.name()
                );
            }
        }
        let _ = writeln!(s, "\n## Every case\n");
        let _ = writeln!(
            s,
            "| application | runtime | P | strategy | forecast | measured (min–max) | error | unit cost ÷ T₁'s | requests f / m | transfers f / m |"
        );
        let _ = writeln!(s, "|---|---|--:|---|--:|---|--:|--:|---|---|");
        for r in &self.checked {
            let c = &r.forecast.case;
            let (lo, hi) = min_max(&r.efficiencies);
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {:.3} | {:.3} ({:.3}–{:.3}) | {:+.1} % | {:.2} | {} / {:.0} | {} / {:.0} |",
                c.app,
                c.runtime.name(),
                c.p,
                c.strategy.name(),
                r.forecast.predicted.efficiency,
                r.efficiency(),
                lo,
                hi,
                100.0 * r.error(),
                r.slowdown(),
                r.forecast.predicted.requests,
                r.requests(),
                r.forecast.predicted.transfers,
                r.transfers()
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kendall_tau_b_orders_and_ties() {
        assert_eq!(kendall_tau_b(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), 1.0);
        assert_eq!(kendall_tau_b(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), -1.0);
        // One swapped pair of three: (2 − 1) / 3.
        assert!((kendall_tau_b(&[1.0, 2.0, 3.0], &[1.0, 3.0, 2.0]) - 1.0 / 3.0).abs() < 1e-12);
        // Ties in one sample: τ-b = 2 / √(3 · 2).
        let t = kendall_tau_b(&[1.0, 2.0, 3.0], &[1.0, 1.0, 2.0]);
        assert!((t - 2.0 / 6f64.sqrt()).abs() < 1e-12, "{t}");
        assert!(kendall_tau_b(&[1.0, 1.0], &[1.0, 2.0]).is_nan());
    }

    #[test]
    fn case_sets_parse_and_refuse() {
        let s: CaseSet = "16:all".parse().unwrap();
        assert_eq!((s.runtime, s.pes.as_slice(), s.strategies.len()), (Runtime::Threads, &[16][..], 13));
        let s: CaseSet = "mpi:2,4:work-sharing,max-load".parse().unwrap();
        assert_eq!(s.runtime, Runtime::Mpi);
        assert_eq!(s.pes, [2, 4]);
        assert_eq!(s.strategies, [Strategy::WorkSharing, Strategy::MaxLoad]);
        let s: CaseSet = "mpi-tcp:16:all".parse().unwrap();
        assert_eq!((s.runtime, s.pes.as_slice(), s.strategies.len()), (Runtime::MpiTcp, &[16][..], 13));
        for bad in ["16", "0:all", "x:all", "4:nope", "4:"] {
            assert!(bad.parse::<CaseSet>().is_err(), "{bad}");
        }
    }

    fn row(strategy: Strategy, forecast: f64, measured: &[f64], requests: (u64, u64)) -> Checked {
        let m = Measured { nodes: 1, wall: 1.0, busy: 1.0, requests: requests.1, transfers: requests.1 };
        Checked {
            forecast: Forecast {
                case: Case { app: "a".into(), runtime: Runtime::Threads, p: 4, strategy },
                predicted: Predicted {
                    efficiency: forecast,
                    requests: requests.0,
                    transfers: requests.0,
                    t_par: 1.0,
                    switches: 0,
                },
                model: CoreModel::Dedicated,
            },
            runs: vec![m; measured.len()],
            efficiencies: measured.to_vec(),
            t1_ns_per_node: 1e9,
        }
    }

    #[test]
    fn verdicts_come_out_negative_when_the_numbers_say_so() {
        let tol = Tolerances::default();
        let good = [
            row(Strategy::RandomPolling, 0.90, &[0.89, 0.91], (100, 110)),
            row(Strategy::WorkSharing, 0.80, &[0.79, 0.80], (50, 40)),
            row(Strategy::StaticBlock, 0.30, &[0.31, 0.29], (0, 0)),
        ];
        let f = figures(&good, 16, &tol);
        assert!(f.efficiency_verdict.starts_with("met"), "{}", f.efficiency_verdict);
        assert!(f.messages_verdict.starts_with("met"));
        assert!(f.ranking_verdict.starts_with("met"));
        assert!(f.beats_naive);
        assert_eq!(f.rankings[0].tau, 1.0);
        // An optimistic model with the order reversed and messages off 3×.
        let bad = [
            row(Strategy::RandomPolling, 0.50, &[0.89, 0.91], (300, 100)),
            row(Strategy::WorkSharing, 0.80, &[0.79, 0.80], (50, 40)),
            row(Strategy::StaticBlock, 0.99, &[0.31, 0.29], (0, 0)),
        ];
        let f = figures(&bad, 16, &tol);
        assert!(f.efficiency_verdict.starts_with("not met (1 of 3"), "{}", f.efficiency_verdict);
        assert!(f.messages_verdict.starts_with("not met (2 of 3"), "{}", f.messages_verdict);
        assert!(f.ranking_verdict.starts_with("not met"), "{}", f.ranking_verdict);
        assert!(!f.beats_naive);
        assert!(f.efficiency.worst > 1.0 && f.efficiency.worst_case.contains("static-block"));
        // More PEs than cores: not counted for efficiency.
        let f = figures(&good, 2, &tol);
        assert_eq!(f.efficiency.n, 0);
        assert!(f.efficiency_verdict.starts_with("not decided"));
    }
}
