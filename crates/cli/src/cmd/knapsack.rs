//! `treelb knapsack`: the 0/1 knapsack, on a generated instance (Pisinger's
//! classes) or a file; optionally checked by dynamic programming.

use std::io::Write;

use serde::Serialize;
use treelb_apps::knapsack::{self, Instance, Knapsack, Spec};

use super::Status;
use super::bnb::{self, Sequential};
use crate::args::KnapsackArgs;
use crate::config::{Error, RunConfig, err};
use crate::report::{Line, report, write};

/// The largest capacity the dynamic program is run for (its table has one
/// `i64` per unit of capacity).
const DP_MAX_CAPACITY: i64 = 100_000_000;

#[derive(Serialize)]
struct InstanceInfo {
    file: Option<String>,
    generated: Option<Spec>,
    items: usize,
    capacity: i64,
    total_weight: i64,
}

#[derive(Serialize)]
struct Answer {
    optimum: i64,
    /// The packed items, 1-based.
    items: Vec<u32>,
    weight: i64,
    /// The Dantzig bound of the root.
    root_bound: i64,
    /// The dynamic program's optimum, if it was run.
    dp_optimum: Option<i64>,
    branched: u64,
    pruned: u64,
    sequential: Option<Sequential>,
    /// Proven optimal or the bound and gap, and the improvements over time.
    #[serde(flatten)]
    proof: bnb::Proof,
}

pub(crate) fn run(args: &KnapsackArgs, out: &mut impl Write) -> Result<Status, Error> {
    let mut cfg = RunConfig::from_args(&args.run)?;
    let (instance, spec, title) = match &args.file {
        Some(file) => {
            let instance = knapsack::read_file(file)
                .map_err(|e| err!("{}: {e}", treelb_apps::input::escape(file.as_bytes())))?;
            cfg.bind_input(std::path::Path::new(file));
            (instance, None, format!("0/1 knapsack — {file}"))
        }
        None => {
            let (class, n, range, seed) = (args.class.0, args.n, args.range, args.instance_seed);
            let (h, series) = (args.h, args.series);
            if h > series {
                return Err(err!("--h {h} must be at most --series {series}"));
            }
            let spec = Spec { class, n, range, seed, h, series };
            let title = format!(
                "0/1 knapsack — {class}, n = {n}, R = {range}, seed {seed}, capacity {h}/{}·Σw",
                series + 1
            );
            (spec.generate(), Some(spec), title)
        }
    };
    let make = || Knapsack::new(&instance);
    let seq = args.compare_seq.then(|| Sequential::run(&make()));
    let search = make();
    let root_bound = search.root_bound();
    let Some(bnb::BnbRan { ran: outcome, proof }) = bnb::run(&search, &search.incumbent, &cfg, "nodes")?
    else {
        return Ok(Status::Done); // an MPI rank other than 0: rank 0 reports
    };
    let stats = outcome.output;
    let (interrupted, units, stopped) = (outcome.interrupted(), outcome.stats.work_units(), outcome.stopped);
    let (optimum, items) = search.incumbent.into_best().unwrap_or((0, Vec::new()));
    if instance.profit_of(&items) != Some(optimum) {
        return Err(err!("internal error: the packing {items:?} does not achieve {optimum}"));
    }
    let weight: i64 = items.iter().map(|&i| instance.items[i as usize].weight).sum();

    let mut ok = true;
    let mut lines = Vec::new();
    let dp = if args.dp { Some(dp_check(&instance)?) } else { None };
    let mut best = Line::new("optimum", optimum);
    if !proof.proven_optimal {
        best = proof.value_line("optimum", Some(optimum), treelb::Sense::Maximize);
        if let Some(dp) = dp {
            best = best.note(format!("the dynamic program's optimum is {dp}"));
        }
    } else if interrupted {
        best = best.note("proven at the interruption: no open node could hold a better packing");
    } else if let Some(dp) = dp {
        ok = dp == optimum;
        best = best.note(if ok {
            format!("dynamic program: {dp} ✓")
        } else {
            format!("MISMATCH: dynamic program {dp}")
        });
    }
    lines.push(best);
    lines.push(Line::new("items", bnb::one_based(&items)).note(format!(
        "{} of {} items, 1-based; weight {weight} of capacity {}; verified",
        items.len(),
        instance.len(),
        instance.capacity
    )));
    lines.push(Line::new("root bound", root_bound).note("Dantzig: the linear relaxation, rounded down"));
    lines.extend(bnb::node_lines(&stats, seq.as_ref()));
    let seq_secs = seq.as_ref().map(|s| s.wall_secs);
    let info = InstanceInfo {
        file: args.file.clone(),
        generated: spec,
        items: instance.len(),
        capacity: instance.capacity,
        total_weight: instance.items.iter().map(|i| i.weight).sum(),
    };
    let answer = Answer {
        optimum,
        items: items.iter().map(|i| i + 1).collect(),
        weight,
        root_bound,
        dp_optimum: dp,
        branched: stats.branched,
        pruned: stats.pruned,
        sequential: seq,
        proof,
    };
    let report = report("knapsack", title, info, answer, lines, "nodes", &cfg, outcome.stats, stopped)
        .with_sequential(seq_secs);
    write(&report, cfg.json, out)?;
    if interrupted {
        return Ok(super::interrupted(&cfg, stopped, units, "nodes"));
    }
    if let (false, Some(dp)) = (ok, dp) {
        eprintln!("treelb: error: branch and bound found {optimum}, the dynamic program {dp}");
    }
    Ok(ok.into())
}

fn dp_check(instance: &Instance) -> Result<i64, Error> {
    instance.dp_optimum(DP_MAX_CAPACITY).ok_or_else(|| {
        err!(
            "--dp: the capacity {} is too large for the dynamic program (at most {DP_MAX_CAPACITY})",
            instance.capacity
        )
    })
}
