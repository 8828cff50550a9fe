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
use treelb_sim::engine::REFERENCE_BUDGET;
use treelb_sim::loggp::LogGpParams;
use treelb_sim::multilevel::MAX_LEVELS;
use treelb_sim::reproduce::{self, Scale};
use treelb_sim::run::{IidTree, RunConfig, RunError, TreeShape, Workload};
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
        grain: a.grain,
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
