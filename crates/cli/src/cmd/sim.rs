//! `treelb sim`: the discrete-event simulator (`treelb-sim`).
//!
//! * `treelb sim run` simulates one run on P PEs and prints a summary (or
//!   JSON), optionally with a utilization plot;
//! * `treelb sim reproduce` runs the reproductions of the seeds' figures and
//!   writes `docs/reproductions/README.md` with its plots;
//! * `treelb sim calibrate` and `treelb sim predict` measure the model's
//!   costs on this machine and set its predictions beside real runs
//!   ([`crate::cmd::calibrate`]).

use std::io::{IsTerminal, Write};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use treelb::search::DfsWork;
use treelb::spec::Rho;
use treelb::{Init, RunSpec, Strategy};
use treelb_apps::input::escape_path;
use treelb_apps::uts::{Params, SampleTree, Uts};
use treelb_bench::host::{LOADED_SHARE, OthersMeter};
use treelb_sim::engine::{SimReport, simulate_with};
use treelb_sim::multilevel::{Multilevel, Search, best_rho, theorem4_fanout};
use treelb_sim::plot::{Chart, Legend, Series, Style};
use treelb_sim::producer::Sizes;
use treelb_sim::reproduce::{self, Scale};
use treelb_sim::sweep::Observer;
use treelb_sim::{AlphaDist, AlphaModel, Costs, Machine, Network, SimConfig};

use crate::args::{ReproduceArgs, SimArgs, SimCommand, SimRunArgs};
use crate::config::{Error, err, positive};

/// Runs `treelb sim`.
pub(crate) fn run(args: &SimArgs, out: &mut dyn Write) -> Result<bool, Error> {
    match &args.command {
        SimCommand::Run(a) => run_one(a, out),
        SimCommand::Reproduce(a) => run_reproduce(a, out),
        SimCommand::Ybwc(a) => super::sim_ybwc::run(a, out),
        SimCommand::Calibrate(a) => crate::cmd::calibrate::calibrate(a, out),
        SimCommand::Predict(a) => crate::cmd::calibrate::predict(a, out),
        SimCommand::PingPong(a) => crate::cmd::calibrate::ping_pong(a, out),
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
    Ok(c)
}

fn run_one(a: &SimRunArgs, out: &mut dyn Write) -> Result<bool, Error> {
    if let Some(path) = &a.plot {
        crate::outputs::check("--plot", path)?;
    }
    let (strategy, init, p) = (a.strategy.0, a.init.0, a.pes);
    let network: Network = parse("--network", &a.network)?;
    let machine = Machine::new(p, network, costs(a)?);
    let workload_spec = a.workload.as_deref().unwrap_or("alpha:0.333");
    let (kind, spec) = workload_spec.split_once(':').unwrap_or((workload_spec, ""));
    if kind == "iid" && strategy != Strategy::Multilevel {
        return Err(err!(
            "--workload {workload_spec}: the i.i.d. subtask model runs with --strategy multilevel \
             (one level is the single-level producer/consumer scheme)"
        ));
    }
    let run_spec = RunSpec {
        strategy,
        init,
        seed: a.seed,
        budget: a.budget.or(treelb_sim::engine::REFERENCE_BUDGET),
        rho: if strategy == Strategy::MaxLoad && a.rho != "best" {
            let r: f64 = parse("--rho", &a.rho)?;
            Rho::new(r).map_err(|e| err!("--rho: {e}"))?
        } else {
            Rho::DEFAULT
        },
        fanout: match (&a.fanout, kind) {
            (Some(list), k) if k != "iid" => list
                .split(',')
                .map(|x| {
                    usize::try_from(positive("--fanout", x)?)
                        .map_err(|_| err!("--fanout: `{x}` is too large"))
                })
                .collect::<Result<Vec<_>, _>>()?,
            _ => Vec::new(),
        },
    };
    run_spec.validate().map_err(|e| err!("{e}"))?;
    let mut cfg = SimConfig::new(machine, run_spec);
    if let Some(m) = a.max_events {
        cfg.max_events = m;
    }
    let (report, workload) = match kind {
        "iid" => multilevel(a, spec, &cfg)?,
        "alpha" => {
            let dist: AlphaDist = parse("--workload", spec)?;
            let model = AlphaModel {
                total: a.work,
                dist,
                atomic: a.atomic,
                max_generation: a.max_generation.unwrap_or(u32::MAX),
                seed: cfg.spec.seed,
            };
            let (r, _) = simulate_with(model.root(), &cfg, a.per_pe).map_err(|e| err!("{e}"))?;
            (r, format!("abstract, {dist}, T_atomic = {}", model.atomic))
        }
        "uts" => {
            let params = match SampleTree::find(spec) {
                Some(s) => s.params(),
                None => Params::from_uts_str(spec).map_err(|e| err!("--workload: {e}"))?,
            };
            let uts = Uts::new(params).map_err(|e| err!("--workload: {e}"))?;
            let policy = a.split_policy.0;
            cfg.unit_ticks = a.node_cost;
            let (r, result) =
                simulate_with(DfsWork::new(&uts, policy), &cfg, a.per_pe).map_err(|e| err!("{e}"))?;
            (r, format!("UTS {spec}: {result}, {} ticks per node, {policy}", cfg.unit_ticks))
        }
        _ => {
            return Err(err!(
                "--workload: expected alpha:A, alpha:LO..0.5, uts:TREE or iid:SIZES, got `{workload_spec}`"
            ));
        }
    };
    if let Some(path) = &a.plot {
        // Drawn now, written after the summary (see `crate::outputs`).
        let bytes = utilization_chart(&report).render(path).map_err(|e| err!("--plot: {e}"))?;
        crate::outputs::later("--plot", path, move |w| w.write_all(&bytes));
    }
    if a.json {
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        summary(&report, &workload, out)?;
    }
    Ok(report.complete)
}

/// `--strategy multilevel --workload iid:SIZES`: Kimura and Ichiyoshi's
/// producer tree over P consumers.
fn multilevel(a: &SimRunArgs, spec: &str, cfg: &SimConfig) -> Result<(SimReport, String), Error> {
    let sizes: Sizes = parse("--workload", spec)?;
    let m = &cfg.machine;
    if m.network != Network::Crossbar {
        return Err(err!(
            "--network {}: the producer tree is not placed on a network; multilevel runs on a crossbar",
            m.network
        ));
    }
    if cfg.spec.init != Init::Root {
        return Err(err!(
            "--init {}: a producer tree starts from its root producer; use --init root",
            cfg.spec.init
        ));
    }
    if a.max_events.is_some() {
        return Err(err!("--max-events: the producer tree is computed level by level, not event by event"));
    }
    let fanout: Vec<u32> = match &a.fanout {
        Some(list) => {
            let f = list
                .split(',')
                .map(|x| {
                    u32::try_from(positive("--fanout", x)?).map_err(|_| err!("--fanout: `{x}` is too large"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let product: u64 = f.iter().map(|&x| u64::from(x)).product();
            if product != u64::from(m.p) {
                return Err(err!(
                    "--fanout {list}: the fan-outs multiply to {product}, but --pes is {}",
                    m.p
                ));
            }
            f
        }
        None => {
            let l = a.levels;
            if l > treelb_sim::multilevel::MAX_LEVELS as u64 {
                return Err(err!("--levels {l}: at most {} levels", treelb_sim::multilevel::MAX_LEVELS));
            }
            theorem4_fanout(m.p, l as usize)
        }
    };
    let t_produce = a.t_produce.unwrap_or(m.costs.t_split);
    let work = a.work;
    let rho: Vec<f64> = if a.rho == "best" {
        let search = Search {
            sizes,
            t_produce,
            t_rout: m.costs.t_rout,
            trials: 1,
            seed: cfg.spec.seed,
            target: 1.0,
            steps: 0,
            max_work: work,
        };
        best_rho(&fanout, &search, work, None).1
    } else {
        let values = a
            .rho
            .split(',')
            .map(|x| {
                x.trim().parse::<f64>().ok().filter(|r| r.is_finite() && *r > 0.0).ok_or_else(|| {
                    err!("--rho: expected `best` or positive numbers separated by commas, got `{x}`")
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        match values.len() {
            1 => vec![values[0]; fanout.len()],
            n if n == fanout.len() => values,
            n => return Err(err!("--rho: {n} values for {} levels", fanout.len())),
        }
    };
    let tree =
        Multilevel::with_rho(fanout, &rho, sizes, t_produce, m.costs.t_rout).map_err(|e| err!("{e}"))?;
    let mut report = tree.report(work, cfg.spec.seed);
    if !a.per_pe {
        report.per_pe.clear();
    }
    let rho: Vec<String> = tree.rho().iter().map(|r| format!("{r:.2}")).collect();
    let what = format!(
        "i.i.d. subtasks ({sizes} sizes), T₁ = {work} ticks, 1/λ = {t_produce} ticks per piece, ρ = {} \
         ({} producers besides the P consumers)",
        rho.join(", "),
        tree.producers()
    );
    Ok((report, what))
}

fn utilization_chart(r: &SimReport) -> Chart {
    let t_rout = r.machine.costs.t_rout.max(1) as f64;
    Chart {
        title: format!("{} ({} init), P = {}", r.strategy, r.init, r.machine.p),
        x_label: "time (T_rout)".into(),
        y_label: "PEs busy (%)".into(),
        log_x: false,
        log_y: false,
        y_range: Some((0.0, 105.0)),
        legend: Legend::LowerRight,
        series: vec![Series::new(
            "utilization",
            r.utilization.points().map(|(t, u)| (t / t_rout, 100.0 * u)).collect(),
            Style::Line,
            0,
        )],
    }
}

fn summary(r: &SimReport, workload: &str, out: &mut dyn Write) -> Result<(), Error> {
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

/// A progress bar on stderr for the phases of `reproduce`, only on a terminal.
struct Bar {
    bar: Option<ProgressBar>,
    enabled: bool,
}

impl Observer for Bar {
    fn phase(&mut self, label: &str, total: u64) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
        if self.enabled {
            let b = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template("{elapsed_precise} {msg:>16} [{bar:30}] {pos}/{len}")
                    .expect("valid template"),
            );
            b.set_message(label.to_owned());
            self.bar = Some(b);
        }
    }

    fn step(&mut self) {
        if let Some(b) = &self.bar {
            b.inc(1);
        }
    }

    fn section(&mut self, name: &str, wall: f64, cpu: Option<f64>) {
        let cpu = cpu.map_or(String::new(), |c| format!(", {c:.1} s CPU"));
        let line = format!("{wall:>7.1} s{cpu}  {name}");
        match &self.bar {
            Some(b) => b.println(line),
            None => eprintln!("{line}"),
        }
    }
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
            let mut bar = Bar { bar: None, enabled: !a.no_progress && std::io::stderr().is_terminal() };
            let others = OthersMeter::start();
            let mut all = reproduce::all(scale, &mut bar);
            all.load = others
                .and_then(|m| m.share())
                .map(|others_share| reproduce::Load { others_share, loaded: others_share >= LOADED_SHARE });
            if let Some(b) = bar.bar.take() {
                b.finish_and_clear();
            }
            all
        }
    };
    let command = format!(
        "treelb sim reproduce{}",
        match (a.quick, &all.scale) {
            (true, _) | (false, Scale::Quick) => " --quick",
            _ => "",
        }
    );
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
mod tests {
    use clap::Parser;

    use super::*;

    /// `treelb sim …` on its own.
    #[derive(Debug, Parser)]
    struct Sim {
        #[command(flatten)]
        args: SimArgs,
    }

    fn sim(args: &[&str]) -> Result<String, Error> {
        let parsed = Sim::try_parse_from(std::iter::once("sim").chain(args.iter().copied()))
            .unwrap_or_else(|e| panic!("{args:?}: {e}"));
        let mut out = Vec::new();
        run(&parsed.args, &mut out)?;
        // The files `main` writes after the report.
        if let Some(e) = crate::outputs::write_pending().pop() {
            return Err(e);
        }
        Ok(String::from_utf8(out).expect("utf-8"))
    }

    #[test]
    fn multilevel_runs_by_name_and_reports_its_tree() {
        let out = sim(&[
            "run",
            "--strategy",
            "multilevel",
            "-p",
            "64",
            "--fanout",
            "8,8",
            "--rho",
            "4,1",
            "--work",
            "2000000",
            "--workload",
            "iid:deterministic",
            "--t-rout",
            "0",
            "--json",
            "--per-pe",
        ])
        .unwrap();
        let r: SimReport = serde_json::from_str(&out).unwrap();
        assert_eq!((r.strategy.as_str(), r.machine.p, r.t_seq), ("multilevel", 64, 2_000_000));
        assert_eq!(r.levels.iter().map(|l| l.fanout).collect::<Vec<_>>(), [8, 8]);
        assert_eq!(r.levels.iter().map(|l| l.grain).collect::<Vec<_>>(), [4.0 * 64.0 * 10.0, 8.0 * 10.0]);
        assert_eq!(r.per_pe.len(), 64);
        assert_eq!(r.per_pe.iter().map(|pe| pe.work_units).sum::<u64>(), 2_000_000);
        // The default search for ρ, three even levels, and the summary.
        let out = sim(&[
            "run",
            "--strategy",
            "multilevel",
            "-p",
            "64",
            "--levels",
            "3",
            "--work",
            "1000000",
            "--workload",
            "iid:exponential",
        ])
        .unwrap();
        assert!(out.contains("tree          3 levels: fan-out 16 × 2 × 2"), "{out}");
        assert!(out.contains("exponential sizes"), "{out}");
    }

    #[test]
    fn run_writes_json_with_per_pe_times_and_plots() {
        let dir = std::env::temp_dir().join(format!("treelb-sim-run-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (strategy, file) in [("random-polling", "u.svg"), ("two-choice", "u.png")] {
            let plot = dir.join(file);
            let out = sim(&[
                "run",
                "--strategy",
                strategy,
                "-p",
                "16",
                "--work",
                "1000000",
                "--network",
                "torus-2d",
                "--json",
                "--per-pe",
                "--plot",
                plot.to_str().unwrap(),
            ])
            .unwrap();
            let r: SimReport = serde_json::from_str(&out).unwrap();
            assert_eq!((r.t_seq, r.per_pe.len()), (1_000_000, 16), "{strategy}");
            let ticks = |d: std::time::Duration| d.as_nanos() as u64;
            assert!(r.per_pe.iter().all(|pe| ticks(pe.busy + pe.idle) == r.t_par), "{strategy}");
            assert!(r.per_pe.iter().map(|pe| ticks(pe.busy)).sum::<u64>() >= r.t_seq, "{strategy}");
            assert!(!r.utilization.values.is_empty(), "{strategy}");
            let bytes = std::fs::read(&plot).unwrap();
            if file.ends_with(".svg") {
                assert!(String::from_utf8_lossy(&bytes).contains("<svg"), "{strategy}");
            } else {
                assert_eq!(&bytes[1..4], b"PNG", "{strategy}");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn multilevel_says_what_does_not_fit() {
        let fails = |args: &[&str], what: &str| {
            let e = sim(args).unwrap_err().to_string();
            assert!(e.contains(what), "{args:?}: {e}");
        };
        let iid = |extra: &[&'static str]| {
            let mut v = vec!["run", "--strategy", "multilevel", "--workload", "iid:exponential"];
            v.extend_from_slice(extra);
            v
        };
        fails(&iid(&["-p", "64", "--fanout", "8,4"]), "multiply to 32");
        fails(&iid(&["-p", "64", "--rho", "1,2,3"]), "3 values for 2 levels");
        fails(&iid(&["--rho", "fast"]), "--rho");
        fails(&iid(&["--network", "ring"]), "crossbar");
        fails(&["run", "--strategy", "multilevel", "--workload", "iid:pareto"], "pareto");
        fails(&["run", "--strategy", "multilevel", "--fanout", "4,0"], "at least 1");
        fails(&["run", "--strategy", "max-load", "--rho", "1.6"], "--rho");
        fails(&["run", "--workload", "iid:uniform"], "--strategy multilevel");
    }

    #[test]
    fn calibrate_then_predict_writes_the_table() {
        let dir = std::env::temp_dir().join(format!("treelb-calibrate-{}", std::process::id()));
        let (cal, md) = (dir.join("c.json"), dir.join("c.md"));
        let out = sim(&[
            "calibrate",
            "--apps",
            "uts:default,nqueens:6",
            "--cores",
            "2",
            "--repeat",
            "2",
            "--out",
            cal.to_str().unwrap(),
        ])
        .unwrap();
        assert!(out.contains("uts:default: 1732 units"), "{out}");
        let c: serde_json::Value = serde_json::from_slice(&std::fs::read(&cal).unwrap()).unwrap();
        for key in ["t_split", "t_poll", "t_rout_threads", "t_wake", "quantum"] {
            assert!(c[key].as_f64().is_some_and(|x| x > 0.0 && x.is_finite()), "{key}: {c}");
        }
        // Linux's base slice on 2 cores.
        assert_eq!(c["quantum"].as_f64(), Some(1.5e6), "{c}");
        assert_eq!(c["cores"].as_u64(), Some(2), "{c}");
        assert!(c["t_rout_mpi"].is_null(), "{c}");
        sim(&[
            "predict",
            "--calibration",
            cal.to_str().unwrap(),
            "--out",
            md.to_str().unwrap(),
            "--pes",
            "2,8",
            "--repeat",
            "1",
        ])
        .unwrap();
        let text = std::fs::read_to_string(&md).unwrap();
        // Two applications × five strategies at P = 2 and 8, and the four
        // predictions beyond one machine.
        for app in ["uts:default", "nqueens:6"] {
            for p in [2, 8] {
                let rows: Vec<&str> =
                    text.lines().filter(|l| l.starts_with(&format!("| {app} | threads | {p} |"))).collect();
                assert_eq!(rows.len(), 5, "{text}");
                for row in rows {
                    // | app | runtime | P | strategy | bound | measured | predicted | …
                    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
                    let bound: f64 = cells[5].parse().unwrap();
                    let predicted: f64 = cells[7].parse().unwrap();
                    assert_eq!(bound, if p == 2 { 1.0 } else { 0.25 }, "{row}");
                    // 8 PEs on the 2 modelled cores: never above C / P.
                    assert!(predicted <= bound + 1e-3, "{row}");
                }
            }
        }
        assert_eq!(text.lines().filter(|l| l.starts_with("| torus-3d |")).count(), 2, "{text}");
        assert!(text.contains("threads: run to idle on C cores"), "{text}");
        assert!(text.contains("**MPI.** Not run"), "{text}");
        assert!(text.contains("treelb sim calibrate --out"), "{text}");
        let e =
            sim(&["calibrate", "--apps", "chess:1", "--out", cal.to_str().unwrap()]).unwrap_err().to_string();
        assert!(e.contains("chess") && e.contains("--apps"), "{e}");
        let e = sim(&["predict", "--calibration", cal.to_str().unwrap(), "--ranks", "2,x"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("--ranks") && e.contains("`x`"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn every_strategy_runs_on_tree_shaped_work() {
        for strategy in Strategy::ALL {
            let name = strategy.name();
            let out = sim(&["run", "--strategy", name, "-p", "32", "--work", "200000", "--json"]).unwrap();
            let r: SimReport = serde_json::from_str(&out).unwrap();
            assert_eq!((r.strategy.as_str(), r.work_units), (name, 200_000), "{name}");
            let out =
                sim(&["run", "--strategy", name, "-p", "8", "--workload", "uts:T1", "--init", "selective"]);
            assert!(out.unwrap().contains("4130071"), "{name}");
        }
    }
}
