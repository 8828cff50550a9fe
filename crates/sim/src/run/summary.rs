//! A simulated run for people: [`Outcome::summary`], the lines `treelb
//! sim run` prints.

use std::fmt::Write as _;

use super::Outcome;
use crate::multilevel::Level;

impl Outcome {
    /// The run in a few aligned lines: the strategy, the machine and its
    /// costs, the workload (and the producer tree of a multilevel run),
    /// T_seq, T_par, the efficiency, the messages, when the PEs reached 90 %
    /// utilization and the simulator's own speed.
    ///
    /// ```
    /// use treelb::RunSpec;
    /// use treelb_sim::run::{RunConfig, Workload};
    /// use treelb_sim::{Costs, Platform, Network};
    ///
    /// let machine = Platform::new(4, Network::Crossbar, Costs::default());
    /// let dist = "0.333".parse()?;
    /// let workload = Workload::Alpha { dist, work: 100_000, atomic: 100, max_generation: None };
    /// let outcome = RunConfig::new(machine, RunSpec::default(), workload).run()?;
    /// let text = outcome.summary();
    /// assert!(text.starts_with("strategy      random-polling (root init)\n"), "{text}");
    /// assert!(text.contains("\nT_seq         100000 ticks"), "{text}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn summary(&self) -> String {
        let r = &self.report;
        let m = &r.machine;
        let c = &m.costs;
        let p = f64::from(m.p);
        let mut out = String::new();
        let w = &mut out;
        let _ = writeln!(w, "strategy      {} ({} init)", r.strategy, r.init);
        let _ = writeln!(w, "machine       P = {} on {}, diameter {} hops", m.p, m.network, m.diameter());
        let _ = writeln!(
            w,
            "costs         T_rout {} ({}) · T_split {} · T_poll {} · T_counter {} · t_word {} × s(w) {} (ticks) · Δt {} units",
            c.t_rout, c.overhead, c.t_split, c.t_poll, c.t_counter, c.t_word, c.size, r.budget
        );
        if let crate::Model::LogGp(g) = &c.model {
            let _ = writeln!(w, "network       {g}; start-up and termination as messages");
        }
        let _ = writeln!(w, "workload      {}", self.workload);
        if !r.levels.is_empty() {
            let join = |f: &dyn Fn(&Level) -> String, sep: &str| {
                r.levels.iter().map(f).collect::<Vec<_>>().join(sep)
            };
            let _ = writeln!(
                w,
                "tree          {} level{}: fan-out {}, grain {} ticks, pieces {} (root first)",
                r.levels.len(),
                if r.levels.len() == 1 { "" } else { "s" },
                join(&|l| l.fanout.to_string(), " × "),
                join(&|l| format!("{:.0}", l.grain), " / "),
                join(&|l| l.pieces.to_string(), " / "),
            );
        }
        let _ = writeln!(w, "T_seq         {} ticks ({} units)", r.t_seq, r.work_units);
        let _ = writeln!(
            w,
            "T_par         {} ticks (last work at {}, T_seq/P = {:.0})",
            r.t_par,
            r.t_last_work,
            r.t_seq as f64 / p
        );
        let _ = writeln!(w, "efficiency    {:.4}", r.efficiency);
        if r.requests == 0 && r.transfers > 0 {
            let _ = writeln!(w, "pushes        {} pieces pushed (and as many acknowledgements)", r.transfers);
        } else {
            let _ = writeln!(
                w,
                "requests      {} sent, {} failed ({:.1} %), {} transfers{}",
                r.requests,
                r.requests_failed,
                100.0 * r.requests_failed as f64 / (r.requests.max(1) as f64),
                r.transfers,
                if r.counter_ops > 0 {
                    format!(", {} counter tickets", r.counter_ops)
                } else {
                    String::new()
                }
            );
        }
        if let Some(t) = r.utilization.first_reaching(0.9) {
            let _ = writeln!(w, "utilization   90 % reached at {t} ticks");
        } else {
            let _ = writeln!(w, "utilization   never reached 90 %");
        }
        let _ = writeln!(
            w,
            "simulation    {} events in {:.3} s ({:.1} M events/s){}",
            r.events,
            r.wall_seconds,
            r.events_per_second() / 1e6,
            if r.complete { "" } else { " — stopped at --max-events" }
        );
        out
    }
}
