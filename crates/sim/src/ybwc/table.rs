//! A comparison for people: [`Comparison::table`], what `treelb sim ybwc`
//! prints.

use std::fmt::Write as _;

use super::compare::{Compare, Comparison};

impl Comparison {
    /// The comparison of `cfg` as text: the trees and the model's costs,
    /// the sequential baseline, a row per engine, P and waiting, and what
    /// the columns mean.
    pub fn table(&self, cfg: &Compare) -> String {
        let costs = &cfg.costs;
        let mut out = String::new();
        let w = &mut out;
        let _ = writeln!(
            w,
            "synthetic trees: branching {}, depth {}, ordering {}, {} seeds, solved by null-window searches; random polling, Δt = {}",
            cfg.branching, cfg.depth, cfg.ordering, cfg.seeds, cfg.budget
        );
        let _ = writeln!(
            w,
            "model: crossbar, T_rout = {} ticks, T_split = {}, T_poll = {}, a position {} ticks",
            costs.t_rout, costs.t_split, costs.t_poll, cfg.node_ticks
        );
        let _ = writeln!(w, "sequential alpha-beta: {} nodes, {:.3} s", self.seq_nodes, self.seq_seconds);
        let _ = writeln!(w);
        let _ = writeln!(
            w,
            "{:<8} {:>5} {:<10} {:>9} {:>9} {:>9} {:>9}",
            "engine", "P", "waiting", "overhead", "aborted%", "speedup", "effic."
        );
        for r in &self.rows {
            let _ = writeln!(
                w,
                "{:<8} {:>5} {:<10} {:>9.3} {:>9.2} {:>9.2} {:>9.2}",
                r.engine,
                r.p,
                if r.ybw { "ybw" } else { "no waiting" },
                r.overhead,
                r.aborted_percent(),
                r.speedup,
                r.efficiency()
            );
        }
        let _ = writeln!(w);
        let _ = writeln!(
            w,
            "overhead: nodes over sequential nodes; aborted%: of the nodes, those in subtrees thrown away; \
             threads: wall time, fastest of {}, on {} cores (more PEs than cores share them)",
            cfg.repeat, self.cores
        );
        out
    }
}
