//! The Markdown report of a prediction.

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use treelb::RunSpec;

use super::{Calibration, Prediction, cores};

/// How loaded the machine was while the calibration and the prediction
/// measured: what the caller's meter saw, and its threshold.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineLoad {
    /// Other processes' share of the cores (0 to 1) during the
    /// calibration ([`Calibration::others_share`]).
    pub calibrate: Option<f64>,
    /// … during the measured runs of the prediction.
    pub predict: Option<f64>,
    /// The highest load average seen by the prediction (counts its own
    /// runs: [`Prediction::load`]).
    pub load: Option<f64>,
    /// The share of the cores other processes must take for the machine
    /// to count as loaded.
    pub loaded_share: f64,
}

impl MachineLoad {
    /// Loaded if other processes took [`MachineLoad::loaded_share`] of the
    /// cores during either measurement; where neither share is known, by
    /// the load average against half the cores.
    pub fn loaded(&self) -> bool {
        match (self.calibrate, self.predict) {
            (None, None) => self.load.is_some_and(|l| l > 0.5 * cores() as f64),
            (a, b) => a.into_iter().chain(b).any(|s| s >= self.loaded_share),
        }
    }
}

/// A share of the cores as a percentage, or "an unknown share".
fn share(s: Option<f64>) -> String {
    s.map_or("an unknown share".to_owned(), |s| format!("{:.1} %", 100.0 * s))
}

/// The verdict on a measurement's machine from other processes' share of
/// the cores: loaded from `loaded_share`.
///
/// ```
/// use treelb_sim::calibrate::judge;
/// assert_eq!(judge(Some(0.25), 0.05), "other processes took 25.0 % of the cores: loaded");
/// assert_eq!(judge(None, 0.05), "other processes' share of the cores unknown");
/// ```
pub fn judge(s: Option<f64>, loaded_share: f64) -> String {
    match s {
        Some(x) if x >= loaded_share => format!("other processes took {} of the cores: loaded", share(s)),
        Some(_) => format!("other processes took {} of the cores: quiet", share(s)),
        None => "other processes' share of the cores unknown".to_owned(),
    }
}

/// The application as the table names it: a clique instance by its file
/// name.
/// How the calibrated model prices a message: the seeds' model for a
/// calibration without LogGP parameters, LogGP's otherwise.
fn messages(cal: &Calibration) -> String {
    match &cal.loggp {
        None => "a message costs T_rout to travel and T_rout to each end (the seeds' model)".to_owned(),
        Some(n) => {
            let l = |l: &super::LinkNs| {
                format!(
                    "o_s = o_r = {:.1}, L = {:.0}, G = {:.3} per byte",
                    l.o_send, l.latency, l.gap_per_byte
                )
            };
            format!(
                "a message is priced by LogGP (`treelb_sim::loggp`): overheads o_s and o_r charged to \
                 its ends, latency L, a gap G per byte at each PE's interface, one message at a time \
                 (ns: between spinning threads {}; to a waiting thread {}; between MPI ranks {}), \
                 o + L + o being the measured half round trip; termination is simulated as messages \
                 (the threads runtime's counter of live work: the last PE wakes the others; the MPI \
                 runtime's four-counter waves)",
                l(&n.threads),
                l(&n.wake),
                n.mpi.as_ref().map_or("not measured".to_owned(), l)
            )
        }
    }
}

fn short_app(app: &str) -> &str {
    match app.split_once(':') {
        Some(("clique", file)) => file.rsplit('/').next().unwrap_or(file),
        _ => app,
    }
}

impl Prediction {
    /// The report: how to regenerate it (`treelb sim calibrate --out
    /// CALIBRATION && treelb sim predict --calibration CALIBRATION --out
    /// OUT`), the machine, the calibration, the model, the table of
    /// predicted against measured efficiency, requests and transfers, which
    /// parts of the model each miss beyond ±10 % contradicts, and the
    /// predictions beyond one machine.
    pub fn markdown(
        &self,
        cal: &Calibration,
        machine: &MachineLoad,
        calibration: &Path,
        out: &Path,
    ) -> String {
        let (rows, scaling, ranks) = (&self.rows, &self.scaling, &self.ranks);
        let mut w = String::new();
        let c = cal.cores;
        let _ = writeln!(w, "# The calibrated model against real runs\n");
        let mpi_flag = if cal.t_rout_mpi.is_some() { " --mpi" } else { "" };
        let _ = writeln!(
            w,
            "Regenerate the whole table with one command (a build with the MPI runtime: \
             `cargo build --release -p treelb-cli --features mpi`; as root Open MPI also wants \
             `OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1`):\n\n\
             ```\ntreelb sim calibrate{mpi_flag} --out {cal_file} && treelb sim predict --calibration {cal_file} --out {out}\n```\n\n\
             **The machine was {}** while it ran: {c} cores; other processes took {} of the cores \
             during the calibration and {} during the runs below (a machine counts as loaded from \
             {:.0} %; the load average, up to {}, also counts the runs' own PEs and ranks). On a \
             loaded machine the measured efficiencies (wall time) are pessimistic and noisy; the \
             costs per node are CPU times, which load disturbs less. Each measured run is the \
             fastest of {} repetitions.\n",
            if machine.loaded() { "loaded" } else { "quiet" },
            share(machine.calibrate),
            share(machine.predict),
            100.0 * machine.loaded_share,
            machine.load.map_or("unknown".into(), |l| format!("{l:.1}")),
            self.repeat,
            cal_file = calibration.display(),
            out = out.display(),
        );
        let _ = writeln!(
            w,
            "**Calibration** (nanoseconds; one simulated tick = 1 ns): T_split = {:.0}; T_poll = {:.1} \
             (threads: one acquire load of the mailbox word), {} (MPI: one `MPI_Improbe` that finds \
             nothing); T_rout between two threads that spin = {:.0} (half the round trip of a cache \
             line: a steal between running PEs, P ≤ C); a wake-up = {:.0} (half the round trip of a \
             park/unpark ping-pong: a futex wake-up and a context switch, what a message costs a PE \
             that gave its thread away, P > C; the runtime's idle PEs then do not spin); T_rout \
             between two MPI ranks = {} (half the round trip of `MPI_Isend` + `MPI_Improbe` + \
             `MPI_Mrecv`, the runtime's own calls, `mpirun -np 2`); the scheduler's quantum = {:.0} µs. \
             Cost of a node, CPU time of a one-PE run of the threads runtime (its calling thread), \
             fastest of the repetitions:\n\n| application | units | ns per unit (CPU) | ns per unit (wall) |\n|---|---|---|---|",
            cal.t_split,
            cal.t_poll,
            cal.t_poll_mpi.map_or("not measured".to_owned(), |t| format!("{t:.0}")),
            cal.t_rout_threads,
            cal.t_wake,
            cal.t_rout_mpi.map_or("not measured".to_owned(), |t| format!("{t:.0}")),
            cal.quantum / 1e3,
        );
        for app in &cal.apps {
            let _ = writeln!(
                w,
                "| {} | {} | {:.1} | {:.1} |",
                short_app(&app.app),
                app.nodes,
                app.ns_per_node,
                app.wall_ns_per_node
            );
        }
        let _ = writeln!(
            w,
            "\nA unit is a node the `Search` expands: N-Queens' search places its last rows in one \
             unit, so its units are fewer and dearer than the board positions of the sequential \
             kernel's ~6 ns per node.\n"
        );
        let _ = writeln!(
            w,
            "**Model.** The simulator runs the same `Search` node by node (`DfsWork`, oldest-half \
             donation, Δt = {} units), so its PEs split the pieces the runtimes would; each node costs \
             the application's calibrated time; {messages}; a crossbar. **Cores** (`treelb_sim::Cores`): with P ≤ C = {c} \
             every PE has a core of its own; with P > C, work advances only on C cores, so no \
             prediction can exceed C / P:\n\n\
             * threads: *run to idle* — the pool's turns: a busy PE keeps its core until its work runs \
             out, PEs that get work wait for a core first in first out, a hand-over costs the spinning \
             T_rout; messages to a waiting PE cost a wake-up;\n\
             * MPI: *time sharing* — ranks are processes: a busy rank gives its core up after a quantum \
             of {:.0} µs if another busy rank waits, and a switch costs a wake-up; idle ranks back off \
             and ask without a core.\n\n\
             Measured efficiency is T_seq / (P · wall) with T_seq = units × ns per unit; predicted \
             is the simulator's T_seq / (P · T_par). The bound column is min(1, C / P).\n",
            RunSpec::default().budget,
            cal.quantum / 1e3,
            messages = messages(cal),
        );
        let _ = writeln!(
            w,
            "| application | runtime | P | strategy | bound | efficiency measured | predicted | miss | predicted at the run's node cost | miss | requests measured | predicted | transfers measured | predicted |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        );
        let mut within = 0;
        let mut within_at_cost = 0;
        for r in rows {
            let miss = r.miss();
            within += usize::from(miss.abs() <= 0.1);
            let Some(app) = cal.apps.iter().find(|x| x.app == r.app) else { continue };
            let at_cost = r.at_run_cost(app, c);
            let miss_at_cost = (at_cost - r.measured_efficiency) / r.measured_efficiency;
            within_at_cost += usize::from(miss_at_cost.abs() <= 0.1);
            let _ = writeln!(
                w,
                "| {} | {} | {} | {} | {:.2} | {:.3} | {:.3} | {:+.0} % | {at_cost:.3} | {:+.0} % | {} | {} | {} | {} |",
                short_app(&r.app),
                r.runtime.name(),
                r.p,
                r.strategy.name(),
                (c as f64 / r.p as f64).min(1.0),
                r.measured_efficiency,
                r.predicted.efficiency,
                100.0 * miss,
                100.0 * miss_at_cost,
                r.measured.requests,
                r.predicted.requests,
                r.measured.transfers,
                r.predicted.transfers
            );
        }
        let models: std::collections::BTreeSet<_> =
            rows.iter().map(|r| (r.runtime.name(), r.model.describe())).collect();
        let _ = writeln!(
            w,
            "\nModels used: {}.\n",
            models.iter().map(|(rt, m)| format!("{rt}: {m}")).collect::<Vec<_>>().join("; ")
        );
        if ranks.is_empty() {
            let _ = writeln!(
                w,
                "**MPI.** Not run: `treelb sim predict --ranks 2,4,8` after `treelb sim calibrate --mpi`, \
             with a build that has the MPI runtime.\n"
            );
        } else {
            let _ = writeln!(
                w,
                "**MPI.** All five strategies run on the MPI runtime (it runs all 13), np = {} ranks \
             under `mpirun --oversubscribe`.\n",
                ranks.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
            );
        }
        let _ = writeln!(
            w,
            "**Goal: predicted efficiency within ±10 % of measured.** Met in {within} of {n} runs \
             at the calibrated node cost; in {within_at_cost} of {n} at the node cost each run saw \
             (its busy time per node — over P / C when P PEs share C cores — against the calibrated \
             cost: the machine's other load slows every node alike, which the calibrated model \
             cannot know). Where a miss remains, which parts of the model the run's own numbers \
             contradict (tests: a node's cost during the run beyond 1.1× the calibrated one, \
             requests or transfers off by more than 2×, wall time beyond the predicted T_par by \
             more than 10 %; runs within ±10 % at their own node cost are left out):\n",
            n = rows.len()
        );
        for r in rows.iter().filter(|r| r.miss().abs() > 0.1) {
            let Some(app) = cal.apps.iter().find(|x| x.app == r.app) else { continue };
            if ((r.at_run_cost(app, c) - r.measured_efficiency) / r.measured_efficiency).abs() <= 0.1 {
                continue;
            }
            let _ = writeln!(
                w,
                "* {} {} P = {} {} ({:+.0} %): {}.",
                short_app(&r.app),
                r.runtime.name(),
                r.p,
                r.strategy.name(),
                100.0 * r.miss(),
                r.reasons(app, c).join("; ")
            );
        }
        let _ = writeln!(
            w,
            "\n**Beyond one machine.** The same calibrated model, random polling, on {}: \
             assumptions — every PE has a core of its own, a message costs the spinning threads' \
             T_rout = {:.0} ns per hop and at each end (a real network costs more: multiply T_rout by \
             its latency over this one), dimension-order routing on the torus, no contention on \
             links, the node costs of this machine, the same tree.\n\n| network | P | efficiency | requests | transfers |\n|---|---|---|---|---|",
            scaling.first().map_or("the first UTS tree", |s| s.app.as_str()),
            cal.t_rout_threads
        );
        for s in scaling {
            let pr = &s.predicted;
            let _ = writeln!(
                w,
                "| {} | {} | {:.3} | {} | {} |",
                s.network, s.p, pr.efficiency, pr.requests, pr.transfers
            );
        }
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_machine_is_judged_by_other_processes_share() {
        let m = |calibrate, predict, load| MachineLoad { calibrate, predict, load, loaded_share: 0.05 };
        // The runs' own eight ranks push the load average to 8 on two
        // cores: quiet all the same when nobody else ran.
        assert!(!m(Some(0.01), Some(0.02), Some(8.0)).loaded());
        assert!(m(Some(0.01), Some(0.30), Some(8.0)).loaded());
        assert!(m(Some(0.05), None, None).loaded());
        assert!(!m(None, Some(0.049), None).loaded());
        // Neither share known: the load average against half the cores.
        assert!(m(None, None, Some(1e6)).loaded());
        assert!(!m(None, None, Some(0.0)).loaded());
        assert_eq!(judge(Some(0.25), 0.05), "other processes took 25.0 % of the cores: loaded");
        assert_eq!(judge(Some(0.01), 0.05), "other processes took 1.0 % of the cores: quiet");
    }
}
