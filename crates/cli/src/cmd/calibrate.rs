//! `treelb sim calibrate`, `treelb sim predict` and `treelb sim ping-pong`:
//! the arguments as the configuration of [`treelb_sim::calibrate`], the
//! machine's other load watched ([`OthersMeter`]), the lines printed, the
//! calibration (JSON) and the table (Markdown) written.

use treelb_apps::input::escape_path;
use treelb_bench::host::{LOADED_SHARE, OthersMeter};
use treelb_sim::calibrate::{self, CalibrateConfig, Calibration, MachineLoad, Mpirun, PredictConfig, blind};

use crate::args::{CalibrateArgs, FreezeArgs, MeasureArgs, PingPongArgs, PredictArgs};
use crate::config::{Error, err};

/// The library's error as the command reports it: an application's name
/// after `--apps`.
fn error(e: calibrate::Error) -> Error {
    match e {
        calibrate::Error::NotKindArg { .. } | calibrate::Error::UnknownApp { .. } => err!("--apps: {e}"),
        calibrate::Error::BadApp { .. } => err!("--apps {e}"),
        e => err!("{e}"),
    }
}

/// Runs `treelb sim calibrate`.
pub(crate) fn calibrate(a: &CalibrateArgs, out: &mut dyn std::io::Write) -> Result<bool, Error> {
    crate::outputs::check_in_new_folder("--out", &a.out)?;
    let cfg = CalibrateConfig {
        apps: a.apps.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect(),
        cores: a.cores.map(|c| c as usize),
        quantum_ns: a.quantum_us.map(|q| q * 1e3),
        repeat: a.repeat,
        mpi: a.mpi.then(Mpirun::default),
        mpi_tcp: a.mpi_tcp,
        instances: Some(treelb_bench::workload::instances()),
    };
    let others = OthersMeter::start();
    let mut printed = Ok(());
    let mut cal = calibrate::calibrate(&cfg, &mut |app| {
        if printed.is_ok() {
            printed = writeln!(out, "{app}");
        }
    })
    .map_err(error)?;
    printed?;
    cal.others_share = others.and_then(|m| m.share());
    writeln!(out, "{}", cal.line(LOADED_SHARE))?;
    let json = serde_json::to_vec_pretty(&cal)?;
    out.flush()?;
    crate::outputs::write_now("--out", &a.out, |w| w.write_all(&json))?;
    writeln!(out, "wrote {}", escape_path(&a.out))?;
    Ok(true)
}

/// Runs `treelb sim ping-pong` (every rank of an `mpirun`).
#[cfg(feature = "mpi")]
pub(crate) fn ping_pong(a: &PingPongArgs, out: &mut dyn std::io::Write) -> Result<bool, Error> {
    let mpi = treelb_mpi::Mpi::init(1).map_err(|e| err!("mpi: {e}"))?;
    let t_rout = mpi.ping_pong(a.trips, a.batches);
    // The cost of a byte: 64 KiB messages against one word.
    const WORDS: usize = 8192;
    let t_large = mpi.ping_pong_words(a.trips.div_ceil(10).max(1), a.batches, WORDS);
    let t_probe = mpi.probe_ns(100_000);
    if let (Some(t_rout), Some(t_probe)) = (t_rout, t_probe) {
        let gap_per_byte = t_large.map(|t| ((t - t_rout) / (8 * (WORDS - 1)) as f64).max(0.0));
        writeln!(out, "{}", serde_json::to_string(&calibrate::PingPong { t_rout, t_probe, gap_per_byte })?)?;
    }
    Ok(true)
}

/// Runs `treelb sim ping-pong`: needs the MPI runtime.
#[cfg(not(feature = "mpi"))]
pub(crate) fn ping_pong(_: &PingPongArgs, _: &mut dyn std::io::Write) -> Result<bool, Error> {
    Err(err!(
        "sim ping-pong: this treelb was built without the MPI runtime (cargo build --release -p treelb-cli --features mpi)"
    ))
}

/// The counts of `list` (`2,4,8`), each at least 1.
fn counts(flag: &str, list: &str) -> Result<Vec<usize>, Error> {
    let count = |x: &str| x.trim().parse::<usize>().ok().filter(|&p| p >= 1);
    list.split(',').map(|x| count(x).ok_or_else(|| err!("{flag}: `{x}` is not a count"))).collect()
}

/// Runs `treelb sim predict`.
pub(crate) fn predict(a: &PredictArgs, out: &mut dyn std::io::Write) -> Result<bool, Error> {
    crate::outputs::check_in_new_folder("--out", &a.out)?;
    let cal = read_calibration("--calibration", &a.calibration)?;
    let ranks = match a.ranks.as_deref() {
        None if cal.t_rout_mpi.is_some() => vec![2, 4, 8],
        None | Some("none") => Vec::new(),
        Some(list) => counts("--ranks", list)?,
    };
    let cfg = PredictConfig {
        pes: counts("--pes", &a.pes)?,
        ranks,
        repeat: a.repeat,
        mpirun: Mpirun::default(),
        instances: Some(treelb_bench::workload::instances()),
    };
    let others = OthersMeter::start();
    let mut printed = Ok(());
    let prediction = calibrate::predict(&cal, &cfg, &mut |r| {
        if printed.is_ok() {
            printed = writeln!(out, "{r}");
        }
    })
    .map_err(error)?;
    printed?;
    let predict = others.and_then(|m| m.share());
    let machine = MachineLoad {
        calibrate: cal.others_share,
        predict,
        load: prediction.load,
        loaded_share: LOADED_SHARE,
    };
    writeln!(out, "predict: {}", calibrate::judge(machine.predict, LOADED_SHARE))?;
    let md = prediction.markdown(&cal, &machine, &a.calibration, &a.out);
    out.flush()?;
    crate::outputs::write_now("--out", &a.out, |w| w.write_all(md.as_bytes()))?;
    writeln!(out, "wrote {}", escape_path(&a.out))?;
    Ok(true)
}

/// Reads the calibration at `path`.
fn read_calibration(flag: &str, path: &std::path::Path) -> Result<Calibration, Error> {
    let text = std::fs::read(path).map_err(|e| err!("{flag} {}: {e}", escape_path(path)))?;
    serde_json::from_slice(&text)
        .map_err(|e| err!("{flag} {}: not a calibration of `treelb sim calibrate`: {e}", escape_path(path)))
}

/// Runs `treelb sim freeze`.
pub(crate) fn freeze(a: &FreezeArgs, out: &mut dyn std::io::Write) -> Result<bool, Error> {
    crate::outputs::check_in_new_folder("--out", &a.out)?;
    let sets = a
        .cases
        .iter()
        .map(|s| s.parse::<blind::CaseSet>().map_err(|e| err!("--cases: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let cal = read_calibration("--calibration", &a.calibration)?;
    let cases = blind::cases(&cal, &sets);
    let mut printed = Ok(());
    let forecasts = blind::freeze(&cal, &cases, Some(&treelb_bench::workload::instances()), &mut |f| {
        if printed.is_ok() {
            printed = writeln!(out, "{f}").and_then(|()| out.flush());
        }
    })
    .map_err(error)?;
    printed?;
    let json = serde_json::to_vec_pretty(&forecasts)?;
    crate::outputs::write_now("--out", &a.out, |w| w.write_all(&json))?;
    writeln!(out, "wrote {} ({} forecasts)", escape_path(&a.out), forecasts.forecasts.len())?;
    Ok(true)
}

/// Runs `treelb sim measure`.
pub(crate) fn measure(a: &MeasureArgs, out: &mut dyn std::io::Write) -> Result<bool, Error> {
    crate::outputs::check_in_new_folder("--out", &a.out)?;
    let json_out = a.out.with_extension("json");
    if let Some(from) = &a.from_results {
        let text = std::fs::read(from).map_err(|e| err!("--from-results {}: {e}", escape_path(from)))?;
        let mut checking: blind::Checking = serde_json::from_slice(&text).map_err(|e| {
            err!("--from-results {}: not the JSON results of `treelb sim measure`: {e}", escape_path(from))
        })?;
        checking.refigure();
        let md = checking.markdown(&checking.forecasts_name(from));
        crate::outputs::write_now("--out", &a.out, |w| w.write_all(md.as_bytes()))?;
        writeln!(out, "wrote {}", escape_path(&a.out))?;
        return Ok(true);
    }
    crate::outputs::check("--out", &json_out)?;
    let forecasts = a.forecasts.as_deref().expect("clap requires FORECASTS without --from-results");
    let bytes = std::fs::read(forecasts).map_err(|e| err!("{}: {e}", escape_path(forecasts)))?;
    let baseline = a.baseline.as_deref().map(|p| read_calibration("--baseline", p)).transpose()?;
    let cfg = blind::MeasureConfig {
        repeat: a.repeat,
        mpirun: Mpirun::default(),
        instances: Some(treelb_bench::workload::instances()),
    };
    let mut printed = Ok(());
    let checking = blind::measure(&bytes, baseline.as_ref(), &cfg, &mut |r| {
        if printed.is_ok() {
            printed = writeln!(out, "{r}").and_then(|()| out.flush());
        }
    })
    .map(|mut c| {
        c.forecasts_file = Some(forecasts.to_string_lossy().into_owned());
        c
    })
    .map_err(|e| match e {
        calibrate::Error::Forecasts(m) => err!("{}: {m}", escape_path(forecasts)),
        e => err!("{e}"),
    })?;
    printed?;
    write!(out, "{}", checking.verdicts())?;
    let md = checking.markdown(&forecasts.to_string_lossy());
    let json = serde_json::to_vec_pretty(&checking)?;
    out.flush()?;
    crate::outputs::write_now("--out", &a.out, |w| w.write_all(md.as_bytes()))?;
    crate::outputs::write_now("--out", &json_out, |w| w.write_all(&json))?;
    writeln!(out, "wrote {} and {}", escape_path(&a.out), escape_path(&json_out))?;
    Ok(true)
}
