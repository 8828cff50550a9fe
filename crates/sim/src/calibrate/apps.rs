//! The applications a calibration times, named as `KIND:ARG`, and what the
//! calibration and the predictions do with each one's search.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

use treelb::search::{DfsWork, Search, SplitPolicy};
use treelb::{RunSpec, Strategy, Work};
use treelb_apps::clique::CliqueSearch;
use treelb_apps::input::escape_path;
use treelb_apps::nqueens::NQueens;
use treelb_apps::uts::{Params, SampleTree, Uts};

use super::{Error, Measured, Predicted};
use crate::engine::{SimConfig, simulate, thread_cpu_seconds};

/// The DIMACS file of `clique:ARG`: ARG itself if it exists or is a path,
/// else the file of that name in `instances` (its `clique` folder), if
/// there.
fn clique_file(arg: &str, instances: Option<&Path>) -> PathBuf {
    let path = PathBuf::from(arg);
    if path.exists() || path.components().count() > 1 {
        return path;
    }
    match instances.map(|dir| dir.join("clique").join(arg)) {
        Some(shared) if shared.exists() => shared,
        _ => path,
    }
}

/// `app` split into its kind and its argument.
fn kind_arg(app: &str) -> Result<(&str, &str), Error> {
    app.split_once(':').ok_or_else(|| Error::NotKindArg { app: app.to_owned() })
}

fn unknown(app: &str, kind: &str) -> Error {
    Error::UnknownApp { app: app.to_owned(), kind: kind.to_owned() }
}

/// Runs `f` with the search of `app`.
pub(super) fn with_search<R>(
    app: &str,
    instances: Option<&Path>,
    f: &mut dyn FnMut(&(dyn AnySearch + Sync)) -> R,
) -> Result<R, Error> {
    let (kind, arg) = kind_arg(app)?;
    let bad = |e: &dyn std::fmt::Display| Error::BadApp { app: app.to_owned(), message: e.to_string() };
    match kind {
        "uts" => {
            let params = match SampleTree::find(arg) {
                Some(s) => s.params(),
                None => Params::from_uts_str(arg).map_err(|e| bad(&e))?,
            };
            let uts = Uts::new(params).map_err(|e| bad(&e))?;
            Ok(f(&uts))
        }
        "nqueens" => {
            let n: u32 = arg.parse().map_err(|e| bad(&e))?;
            let q = NQueens::new(n).map_err(|e| bad(&e))?;
            Ok(f(&q))
        }
        "clique" | "kclique" => {
            let (k, arg) = match kind {
                "kclique" => {
                    let (k, file) = kclique_arg(app, arg)?;
                    (Some(k), file)
                }
                _ => (None, arg),
            };
            let path = clique_file(arg, instances);
            let file =
                std::fs::File::open(&path).map_err(|e| bad(&format_args!("{}: {e}", escape_path(&path))))?;
            let g = treelb_apps::clique::dimacs::parse(std::io::BufReader::new(file)).map_err(|e| bad(&e))?;
            let s = match k {
                Some(k) => CliqueSearch::k_clique(&g, k),
                None => CliqueSearch::max_clique(&g),
            };
            Ok(f(&s))
        }
        _ => Err(unknown(app, kind)),
    }
}

/// The command line of `treelb` that runs `app` (for the MPI runs).
pub(super) fn app_args(app: &str, instances: Option<&Path>) -> Result<Vec<String>, Error> {
    let (kind, arg) = kind_arg(app)?;
    Ok(match kind {
        "uts" if SampleTree::find(arg).is_some() => vec!["uts".into(), "--tree".into(), arg.into()],
        "uts" => {
            let mut v = vec!["uts".to_owned()];
            v.extend(arg.split_whitespace().map(str::to_owned));
            v
        }
        "nqueens" => vec!["nqueens".into(), arg.into()],
        "clique" => vec!["clique".into(), clique_file(arg, instances).to_string_lossy().into_owned()],
        "kclique" => {
            let (k, file) = kclique_arg(app, arg)?;
            let file = clique_file(file, instances).to_string_lossy().into_owned();
            vec!["clique".into(), file, "--k".into(), k.to_string()]
        }
        _ => return Err(unknown(app, kind)),
    })
}

/// `K` and `FILE` of `kclique:K:FILE` (`arg` is `K:FILE`).
fn kclique_arg<'a>(app: &str, arg: &'a str) -> Result<(u32, &'a str), Error> {
    let bad = |message: String| Error::BadApp { app: app.to_owned(), message };
    let (k, file) = arg.split_once(':').ok_or_else(|| bad("not kclique:K:FILE".into()))?;
    let k = k.parse().map_err(|e| bad(format!("K `{k}`: {e}")))?;
    Ok((k, file))
}

/// What the calibration and the predictions do with a search, whatever its
/// type.
pub(super) trait AnySearch {
    /// A run of the threads runtime, with the CPU seconds of the calling
    /// thread (the whole run when P = 1).
    fn threads(&self, p: usize, strategy: Strategy) -> Result<(Measured, Option<f64>), Error>;
    /// A simulated run with `ns_per_node`.
    fn simulate(&self, cfg: SimConfig, ns_per_node: f64) -> Result<Predicted, Error>;
    /// The fastest of five timings of 200 splits of an open search.
    fn split_ns(&self) -> f64;
}

impl<S> AnySearch for S
where
    S: Search + Sync,
    S::Node: Clone + Send,
{
    fn threads(&self, p: usize, strategy: Strategy) -> Result<(Measured, Option<f64>), Error> {
        let config = treelb_threads::Config {
            threads: p,
            spec: RunSpec { strategy, ..RunSpec::default() },
            ..Default::default()
        };
        let cpu = thread_cpu_seconds();
        let out =
            treelb_threads::run(DfsWork::new(self, SplitPolicy::OldestHalf), &config).map_err(Error::Run)?;
        let cpu = cpu.zip(thread_cpu_seconds()).map(|(a, b)| b - a);
        let total = out.stats.total();
        Ok((
            Measured {
                nodes: out.stats.work_units(),
                wall: out.stats.wall.as_secs_f64(),
                busy: total.busy.as_secs_f64(),
                requests: total.requests_sent,
                transfers: total.pieces_received,
            },
            cpu,
        ))
    }

    fn simulate(&self, mut cfg: SimConfig, ns_per_node: f64) -> Result<Predicted, Error> {
        cfg.unit_ticks = ns_per_node.round().max(1.0) as u64;
        let (r, _) = simulate(DfsWork::new(self, SplitPolicy::OldestHalf), &cfg).map_err(Error::Spec)?;
        Ok(Predicted {
            efficiency: r.efficiency,
            requests: r.requests,
            transfers: r.transfers,
            t_par: r.t_par as f64,
            switches: r.core_switches,
        })
    }

    fn split_ns(&self) -> f64 {
        split_ns(self)
    }
}

/// The cost of splitting an open depth-first search of `search` (oldest-half
/// donation, after 1,000 units of work), in nanoseconds: the fastest of
/// five batches of 200 splits; infinite if the search never split.
pub fn split_ns<S>(search: &S) -> f64
where
    S: Search,
    S::Node: Clone,
{
    let mut root = DfsWork::new(search, SplitPolicy::OldestHalf);
    let mut acc = Default::default();
    let _ = root.work(1000, &mut acc);
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let mut copies: Vec<_> = (0..200).map(|_| root.clone()).collect();
        let t = Instant::now();
        let mut got = 0u32;
        for c in &mut copies {
            got += u32::from(black_box(c.split()).is_some());
        }
        let dt = t.elapsed().as_secs_f64() * 1e9;
        if got > 0 {
            best = best.min(dt / f64::from(got));
        }
    }
    best
}
