//! `treelb sim`: the discrete-event simulator (`treelb-sim`).
//!
//! * `treelb sim run` simulates one run on P PEs and prints a summary (or
//!   JSON), optionally with a utilization plot;
//! * `treelb sim reproduce` runs the reproductions of the seeds' figures and
//!   writes `docs/reproductions/README.md` with its plots;
//! * `treelb sim calibrate` and `treelb sim predict` measure the model's
//!   costs on this machine and set its predictions beside real runs
//!   ([`crate::cmd::calibrate`]);
//! * `treelb sim ybwc` sets the model of young brothers wait beside the
//!   threads runtime ([`crate::cmd::sim_ybwc`]);
//! * `treelb sim replay` replays a run's trace in the simulator
//!   ([`crate::cmd::sim_replay`]).
//!
//! The runs are the library's ([`treelb_sim::run::Options`],
//! [`treelb_sim::reproduce`], [`treelb_sim::ybwc::compare`]): here the
//! arguments become their configuration, and the outcome a report.

use std::io::{IsTerminal, Write};
use std::time::Instant;

use treelb_apps::input::escape_path;
use treelb_bench::host::{LOADED_SHARE, OthersMeter};
use treelb_sim::loggp::LogGpParams;
use treelb_sim::reproduce::{self, Scale};
use treelb_sim::run::Options;

use crate::args::{ReproduceArgs, SimArgs, SimCommand, SimRunArgs};
use crate::config::{Error, err};
use crate::progress::Phases;

/// Runs `treelb sim`.
pub(crate) fn run(args: &SimArgs, out: &mut dyn Write) -> Result<bool, Error> {
    match &args.command {
        SimCommand::Run(a) => run_one(a, out),
        SimCommand::Reproduce(a) => run_reproduce(a, out),
        SimCommand::Ybwc(a) => super::sim_ybwc::run(a, out),
        SimCommand::Calibrate(a) => crate::cmd::calibrate::calibrate(a, out),
        SimCommand::Predict(a) => crate::cmd::calibrate::predict(a, out),
        SimCommand::Freeze(a) => crate::cmd::calibrate::freeze(a, out),
        SimCommand::Measure(a) => crate::cmd::calibrate::measure(a, out),
        SimCommand::PingPong(a) => crate::cmd::calibrate::ping_pong(a, out),
        SimCommand::Replay(a) => super::sim_replay::run(a, out),
    }
}

/// The options of `treelb sim run`, as the simulator takes them.
fn options(a: &SimRunArgs) -> Options {
    Options {
        strategy: a.strategy.0,
        init: a.init.0,
        pes: a.pes,
        network: a.network.clone(),
        workload: a.workload.clone(),
        work: a.work,
        atomic: a.atomic,
        max_generation: a.max_generation,
        node_cost: a.node_cost,
        split_policy: a.split_policy.0,
        fanout: a.fanout.clone(),
        grain: a.grain,
        levels: a.levels,
        rho: a.rho.clone(),
        t_produce: a.t_produce,
        t_rout: a.t_rout,
        t_split: a.t_split,
        t_poll: a.t_poll,
        t_counter: a.t_counter,
        t_word: a.t_word,
        overhead: a.overhead.clone(),
        message_size: a.message_size.clone(),
        model: a.model.clone(),
        loggp: LogGpParams {
            o_send: a.o_send,
            o_recv: a.o_recv,
            latency: a.latency,
            gap: a.gap,
            pes_per_node: a.pes_per_node,
            intra_latency: a.intra_latency,
            intra_overhead: a.intra_overhead,
            header_bytes: a.header_bytes,
            word_bytes: a.word_bytes,
        },
        budget: a.budget.budget,
        seed: a.seed,
        max_events: a.max_events,
        per_pe: a.per_pe,
    }
}

fn run_one(a: &SimRunArgs, out: &mut dyn Write) -> Result<bool, Error> {
    if let Some(path) = &a.plot {
        crate::outputs::check("--plot", path)?;
    }
    let outcome = options(a).run()?;
    let report = &outcome.report;
    if let Some(path) = &a.plot {
        // Drawn now, written after the summary (see `crate::outputs`).
        let chart = treelb_sim::run::utilization_chart(report);
        let bytes = chart.render(path).map_err(|e| err!("--plot: {e}"))?;
        crate::outputs::later("--plot", path, move |w| w.write_all(&bytes));
    }
    if a.json {
        serde_json::to_writer_pretty(&mut *out, report)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", outcome.summary())?;
    }
    Ok(report.complete)
}

fn run_reproduce(a: &ReproduceArgs, out: &mut dyn Write) -> Result<bool, Error> {
    let scale = if a.quick { Scale::Quick } else { Scale::Full };
    crate::outputs::check_folder("--out", &a.out)?;
    let start = Instant::now();
    let all = match &a.from_data {
        Some(file) => {
            let text = std::fs::read(file).map_err(|e| err!("{}: {e}", file.display()))?;
            serde_json::from_slice::<reproduce::All>(&text)
                .map_err(|e| err!("{}: not the data.json of `treelb sim reproduce`: {e}", file.display()))?
        }
        None => {
            let mut bar = Phases::new(!a.no_progress && std::io::stderr().is_terminal());
            let others = OthersMeter::start();
            let mut all = reproduce::all(scale, &mut bar);
            all.load = others
                .and_then(|m| m.share())
                .map(|others_share| reproduce::Load { others_share, loaded: others_share >= LOADED_SHARE });
            bar.finish();
            all
        }
    };
    let quick = a.quick || all.scale == Scale::Quick;
    let command = format!("treelb sim reproduce{}", if quick { " --quick" } else { "" });
    let md = reproduce::write_report(&all, &a.out, &command)
        .map_err(|e| Error::Unwritten(format!("--out: {e}")))?;
    crate::outputs::write_now("--out", &a.out.join("README.md"), |w| w.write_all(md.as_bytes()))?;
    let json = serde_json::to_vec_pretty(&all)?;
    crate::outputs::write_now("--out", &a.out.join("data.json"), |w| w.write_all(&json))?;
    write!(out, "{}", all.timings())?;
    writeln!(
        out,
        "wrote {} ({:.1} s)",
        escape_path(&a.out.join("README.md")),
        start.elapsed().as_secs_f64()
    )?;
    Ok(true)
}
