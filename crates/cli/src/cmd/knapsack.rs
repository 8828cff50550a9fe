//! `treelb knapsack`: the 0/1 knapsack, on a generated instance (Pisinger's
//! classes) or a file; optionally checked by dynamic programming.

use std::io::Write;

use treelb_apps::knapsack::{self as instances, Instance, Knapsack, Spec};
use treelb_apps::report::bnb::Searched;
use treelb_apps::report::knapsack;

use super::Status;
use super::bnb::{self, Sequential};
use crate::args::KnapsackArgs;
use crate::config::{Error, RunConfig, err};
use crate::report::{report, write};

/// The largest capacity the dynamic program is run for (its table has one
/// `i64` per unit of capacity).
const DP_MAX_CAPACITY: i64 = 100_000_000;

pub(crate) fn run(args: &KnapsackArgs, out: &mut impl Write) -> Result<Status, Error> {
    let mut cfg = RunConfig::from_args(&args.run)?;
    let (instance, spec) = match &args.file {
        Some(file) => {
            let instance = instances::read_file(file)
                .map_err(|e| err!("{}: {e}", treelb_apps::input::escape(file.as_bytes())))?;
            cfg.bind_input(std::path::Path::new(file));
            (instance, None)
        }
        None => {
            let (class, n, range, seed) = (args.class.0, args.n, args.range, args.instance_seed);
            let (h, series) = (args.h, args.series);
            if h > series {
                return Err(err!("--h {h} must be at most --series {series}"));
            }
            let spec = Spec { class, n, range, seed, h, series };
            (spec.generate(), Some(spec))
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
    let (interrupted, units, stopped) =
        (outcome.stopped.is_some(), outcome.stats.work_units(), outcome.stopped);
    let (optimum, items) = search.incumbent.into_best().unwrap_or((0, Vec::new()));
    if instance.profit_of(&items) != Some(optimum) {
        return Err(err!("internal error: the packing {items:?} does not achieve {optimum}"));
    }
    let dp = if args.dp { Some(dp_check(&instance)?) } else { None };
    let seq_secs = seq.as_ref().map(|s| s.wall_secs);
    let searched = Searched { stats: outcome.output, proof, sequential: seq, interrupted };
    let answered =
        knapsack::answer(&instance, args.file.clone(), spec, (optimum, items), root_bound, searched, dp);
    let ok = answered.ok;
    let report =
        report("knapsack", answered, "nodes", &cfg, outcome.stats, stopped).with_sequential(seq_secs);
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
