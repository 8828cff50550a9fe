//! What the reproductions cost to run, for people: [`All::timings`].

use std::fmt::Write as _;

use super::All;

impl All {
    /// The wall (and CPU) seconds of each reproduction and of all of them,
    /// the load of the machine's other processes where it was measured,
    /// and the simulator's speed: one line each.
    pub fn timings(&self) -> String {
        let mut out = String::new();
        let w = &mut out;
        for t in &self.seconds {
            let cpu = t.cpu.map_or(String::new(), |c| format!(", {c:.1} s CPU"));
            let _ = writeln!(w, "{:>7.1} s{cpu}  {}", t.wall, t.name);
        }
        let total_wall: f64 = self.seconds.iter().map(|t| t.wall).sum();
        let total_cpu: f64 = self.seconds.iter().filter_map(|t| t.cpu).sum();
        let _ = writeln!(w, "{total_wall:>7.1} s, {total_cpu:.1} s CPU  in all");
        if let Some(l) = self.load {
            let _ = writeln!(
                w,
                "other processes took {:.0} % of the cores during the run ({})",
                100.0 * l.others_share,
                if l.loaded { "loaded: the wall times are longer than on a quiet machine" } else { "quiet" }
            );
        }
        for r in &self.speed.runs {
            let _ = writeln!(
                w,
                "simulator speed, P = {}: {} {}: {:.1} M events per {} second (median of {})",
                self.speed.p,
                r.strategy.name(),
                r.init.name(),
                r.median(),
                if r.cpu { "CPU" } else { "wall-clock" },
                r.rates.len()
            );
        }
        out
    }
}
