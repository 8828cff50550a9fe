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
//! The runs are the library's ([`treelb_sim::run`], [`treelb_sim::reproduce`],
//! [`treelb_sim::ybwc::compare`]): here the arguments become their
//! configuration, and the outcome a report.

use std::io::{IsTerminal, Write};
use std::time::Instant;

use treelb::spec::Rho;
use treelb::{RunSpec, Strategy};
use treelb_apps::input::escape_path;
use treelb_apps::uts::{Params, SampleTree};
use treelb_bench::host::{LOADED_SHARE, OthersMeter};
use treelb_sim::engine::{REFERENCE_BUDGET, SimReport};
use treelb_sim::loggp::LogGpParams;
use treelb_sim::multilevel::MAX_LEVELS;
use treelb_sim::reproduce::{self, Scale};
use treelb_sim::run::{IidTree, RunConfig, RunError, TreeShape, Workload, WorkloadSummary};
use treelb_sim::{Costs, Model, Platform};

use crate::args::{ReproduceArgs, SimArgs, SimCommand, SimRunArgs};
use crate::config::{Error, err, positive};
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

fn parse<T: std::str::FromStr<Err = E>, E: std::fmt::Display>(flag: &str, v: &str) -> Result<T, Error> {
    v.parse().map_err(|e| err!("{flag}: {e}"))
}

fn costs(a: &SimRunArgs) -> Result<Costs, Error> {
    let mut c = Costs::default();
    c.t_rout = a.t_rout.unwrap_or(c.t_rout);
    c.t_split = a.t_split.unwrap_or(c.t_split);
    c.t_poll = a.t_poll.unwrap_or(c.t_poll);
    c.t_counter = a.t_counter.unwrap_or(c.t_counter);
    c.t_word = a.t_word.unwrap_or(c.t_word);
    c.overhead = parse("--overhead", &a.overhead)?;
    c.size = parse("--message-size", &a.message_size)?;
    let params = LogGpParams {
        o_send: a.o_send,
        o_recv: a.o_recv,
        latency: a.latency,
        gap: a.gap,
        pes_per_node: a.pes_per_node,
        intra_latency: a.intra_latency,
        intra_overhead: a.intra_overhead,
        header_bytes: a.header_bytes,
        word_bytes: a.word_bytes,
    };
    c.model = match a.model.as_str() {
        "seeds" if params.is_empty() => Model::Seeds,
        "seeds" => {
            return Err(err!("--o-send, --latency, --gap and the other LogGP flags need --model loggp"));
        }
        "loggp" => Model::LogGp(params.build(c.t_rout).map_err(|e| err!("--gap: {e}"))?),
        other => return Err(err!("--model: unknown cost model `{other}` (expected seeds or loggp)")),
    };
    Ok(c)
}

/// `--fanout F1,F2,…`: numbers of at least 1.
fn fanout<T: TryFrom<u64>>(list: &str) -> Result<Vec<T>, Error> {
    let one =
        |x: &str| T::try_from(positive("--fanout", x)?).map_err(|_| err!("--fanout: `{x}` is too large"));
    list.split(',').map(one).collect()
}

/// `--workload`, or its default.
fn workload_spec(a: &SimRunArgs) -> &str {
    a.workload.as_deref().unwrap_or("alpha:0.333")
}

/// The run `treelb sim run` asks for.
fn config(a: &SimRunArgs) -> Result<RunConfig, Error> {
    let machine = Platform::new(a.pes, parse("--network", &a.network)?, costs(a)?);
    let workload_spec = workload_spec(a);
    let (kind, spec) = workload_spec.split_once(':').unwrap_or((workload_spec, ""));
    let strategy = a.strategy.0;
    let run_spec = RunSpec {
        strategy,
        init: a.init.0,
        seed: a.seed,
        budget: a.budget.or(REFERENCE_BUDGET),
        rho: if strategy == Strategy::MaxLoad && a.rho != "best" {
            Rho::new(parse("--rho", &a.rho)?).map_err(|e| err!("--rho: {e}"))?
        } else {
            Rho::DEFAULT
        },
        fanout: match &a.fanout {
            Some(list) if kind != "iid" => fanout(list)?,
            _ => Vec::new(),
        },
    };
    let workload = match kind {
        "alpha" => Workload::Alpha {
            dist: parse("--workload", spec)?,
            work: a.work,
            atomic: a.atomic,
            max_generation: a.max_generation,
        },
        "uts" => Workload::Uts {
            tree: spec.to_owned(),
            params: match SampleTree::find(spec) {
                Some(s) => s.params(),
                None => Params::from_uts_str(spec).map_err(|e| err!("--workload: {e}"))?,
            },
            node_ticks: a.node_cost,
            split_policy: a.split_policy.0,
        },
        "iid" => Workload::Iid(IidTree {
            sizes: parse("--workload", spec)?,
            work: a.work,
            shape: match &a.fanout {
                Some(list) => TreeShape::Fanout(fanout(list)?),
                None => TreeShape::Levels(usize::try_from(a.levels).unwrap_or(usize::MAX)),
            },
            rho: parse("--rho", &a.rho)?,
            t_produce: a.t_produce,
        }),
        _ => {
            return Err(err!(
                "--workload: expected alpha:A, alpha:LO..0.5, uts:TREE or iid:SIZES, got `{workload_spec}`"
            ));
        }
    };
    Ok(RunConfig {
        max_events: a.max_events,
        per_pe: a.per_pe,
        ..RunConfig::new(machine, run_spec, workload)
    })
}

/// Why the run cannot be simulated, in the options' words.
fn flagged(e: RunError, a: &SimRunArgs) -> Error {
    match e {
        RunError::IidNeedsMultilevel(_) => err!(
            "--workload {}: the i.i.d. subtask model runs with --strategy multilevel \
             (one level is the single-level producer/consumer scheme)",
            workload_spec(a)
        ),
        RunError::IidOffCrossbar(n) => {
            err!("--network {n}: the producer tree is not placed on a network; multilevel runs on a crossbar")
        }
        RunError::IidNotSeeds => {
            err!(
                "--model loggp: the producer tree prices its messages with the seeds' T_rout; use --model seeds"
            )
        }
        RunError::IidNotFromRoot(i) => {
            err!("--init {i}: a producer tree starts from its root producer; use --init root")
        }
        RunError::IidEventLimit => {
            err!("--max-events: the producer tree is computed level by level, not event by event")
        }
        RunError::FanoutProduct { product, p } => err!(
            "--fanout {}: the fan-outs multiply to {product}, but --pes is {p}",
            a.fanout.as_deref().unwrap_or_default()
        ),
        RunError::Levels(_) => err!("--levels {}: at most {MAX_LEVELS} levels", a.levels),
        RunError::RhoCount { given, levels } => err!("--rho: {given} values for {levels} levels"),
        RunError::Uts(e) => err!("--workload: {e}"),
        e => err!("{e}"),
    }
}

fn run_one(a: &SimRunArgs, out: &mut dyn Write) -> Result<bool, Error> {
    if let Some(path) = &a.plot {
        crate::outputs::check("--plot", path)?;
    }
    let outcome = config(a)?.run().map_err(|e| flagged(e, a))?;
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
        summary(report, &outcome.workload, out)?;
    }
    Ok(report.complete)
}

fn summary(r: &SimReport, workload: &WorkloadSummary, out: &mut dyn Write) -> Result<(), Error> {
    let m = &r.machine;
    let c = &m.costs;
    let p = f64::from(m.p);
    writeln!(out, "strategy      {} ({} init)", r.strategy, r.init)?;
    writeln!(out, "machine       P = {} on {}, diameter {} hops", m.p, m.network, m.diameter())?;
    writeln!(
        out,
        "costs         T_rout {} ({}) · T_split {} · T_poll {} · T_counter {} · t_word {} × s(w) {} (ticks) · Δt {} units",
        c.t_rout, c.overhead, c.t_split, c.t_poll, c.t_counter, c.t_word, c.size, r.budget
    )?;
    if let Model::LogGp(g) = &c.model {
        writeln!(out, "network       {g}; start-up and termination as messages")?;
    }
    writeln!(out, "workload      {workload}")?;
    if !r.levels.is_empty() {
        let join = |f: &dyn Fn(&treelb_sim::multilevel::Level) -> String, sep: &str| {
            r.levels.iter().map(f).collect::<Vec<_>>().join(sep)
        };
        writeln!(
            out,
            "tree          {} level{}: fan-out {}, grain {} ticks, pieces {} (root first)",
            r.levels.len(),
            if r.levels.len() == 1 { "" } else { "s" },
            join(&|l| l.fanout.to_string(), " × "),
            join(&|l| format!("{:.0}", l.grain), " / "),
            join(&|l| l.pieces.to_string(), " / "),
        )?;
    }
    writeln!(out, "T_seq         {} ticks ({} units)", r.t_seq, r.work_units)?;
    writeln!(
        out,
        "T_par         {} ticks (last work at {}, T_seq/P = {:.0})",
        r.t_par,
        r.t_last_work,
        r.t_seq as f64 / p
    )?;
    writeln!(out, "efficiency    {:.4}", r.efficiency)?;
    if r.requests == 0 && r.transfers > 0 {
        writeln!(out, "pushes        {} pieces pushed (and as many acknowledgements)", r.transfers)?;
    } else {
        writeln!(
            out,
            "requests      {} sent, {} failed ({:.1} %), {} transfers{}",
            r.requests,
            r.requests_failed,
            100.0 * r.requests_failed as f64 / (r.requests.max(1) as f64),
            r.transfers,
            if r.counter_ops > 0 { format!(", {} counter tickets", r.counter_ops) } else { String::new() }
        )?;
    }
    if let Some(t) = r.utilization.first_reaching(0.9) {
        writeln!(out, "utilization   90 % reached at {t} ticks")?;
    } else {
        writeln!(out, "utilization   never reached 90 %")?;
    }
    writeln!(
        out,
        "simulation    {} events in {:.3} s ({:.1} M events/s){}",
        r.events,
        r.wall_seconds,
        r.events_per_second() / 1e6,
        if r.complete { "" } else { " — stopped at --max-events" }
    )?;
    Ok(())
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
    for t in &all.seconds {
        let cpu = t.cpu.map_or(String::new(), |c| format!(", {c:.1} s CPU"));
        writeln!(out, "{:>7.1} s{cpu}  {}", t.wall, t.name)?;
    }
    let total_wall: f64 = all.seconds.iter().map(|t| t.wall).sum();
    let total_cpu: f64 = all.seconds.iter().filter_map(|t| t.cpu).sum();
    writeln!(out, "{total_wall:>7.1} s, {total_cpu:.1} s CPU  in all")?;
    if let Some(l) = all.load {
        writeln!(
            out,
            "other processes took {:.0} % of the cores during the run ({})",
            100.0 * l.others_share,
            if l.loaded { "loaded: the wall times are longer than on a quiet machine" } else { "quiet" }
        )?;
    }
    for r in &all.speed.runs {
        writeln!(
            out,
            "simulator speed, P = {}: {} {}: {:.1} M events per {} second (median of {})",
            all.speed.p,
            r.strategy.name(),
            r.init.name(),
            r.median(),
            if r.cpu { "CPU" } else { "wall-clock" },
            r.rates.len()
        )?;
    }
    writeln!(
        out,
        "wrote {} ({:.1} s)",
        escape_path(&a.out.join("README.md")),
        start.elapsed().as_secs_f64()
    )?;
    Ok(true)
}

#[cfg(test)]
mod tests;
