//! What a trace says about its run ([`Recorded`]), and a replay for
//! people ([`Replay::table`]).

use std::fmt;

use comfy_table::{Cell, CellAlignment, Table, presets::UTF8_FULL_CONDENSED};
use treelb::{RunSpec, SplitPolicy};
use treelb_apps::input::escape;

use super::Replay;

/// What ran, as the notes of its trace say: the run's specification
/// (`spec:`, JSON), its split policy (`split-policy:`) and its arguments
/// after the program's name (`argv:`, JSON), as `treelb uts --trace`
/// writes them.
#[derive(Clone, Debug, PartialEq)]
pub struct Recorded {
    /// The run's specification.
    pub spec: RunSpec,
    /// Its split policy.
    pub split_policy: SplitPolicy,
    /// Its command line after the program's name.
    pub argv: Vec<String>,
}

/// Why the notes of a trace do not say what ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoteError {
    /// A note is missing: its key.
    Missing(&'static str),
    /// A note does not read: its key and why.
    Bad(&'static str, String),
}

impl fmt::Display for NoteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoteError::Missing(key) => write!(
                f,
                "the trace does not say what ran (no `{key}` note; traces of `treelb uts --trace` have it)"
            ),
            NoteError::Bad(key, why) => write!(f, "the `{key}` note: {why}"),
        }
    }
}

impl std::error::Error for NoteError {}

impl Recorded {
    /// Reads what ran from the `notes` of a trace.
    ///
    /// ```
    /// use treelb_sim::replay::{NoteError, Recorded};
    ///
    /// let notes = ["split-policy: bottom".to_owned()];
    /// assert_eq!(Recorded::from_notes(&notes), Err(NoteError::Missing("spec:")));
    /// ```
    pub fn from_notes(notes: &[String]) -> Result<Recorded, NoteError> {
        let note = |key: &'static str| {
            notes.iter().find_map(|n| n.strip_prefix(key)).map(str::trim).ok_or(NoteError::Missing(key))
        };
        let bad = |key: &'static str| move |e: &dyn fmt::Display| NoteError::Bad(key, e.to_string());
        let spec = serde_json::from_str(note("spec:")?).map_err(|e| bad("spec:")(&e))?;
        let split_policy = note("split-policy:")?.parse().map_err(|e| bad("split-policy:")(&e))?;
        let argv = serde_json::from_str(note("argv:")?).map_err(|e| bad("argv:")(&e))?;
        Ok(Recorded { spec, split_policy, argv })
    }
}

impl Replay {
    /// The replay of the trace `file` of the run `treelb ARGV…` as text:
    /// the costs measured, a table of the run beside the simulation per PE
    /// and in all, and `T_par`, the transfers and the victims in a line.
    pub fn table(&self, file: &str, argv: &[String]) -> String {
        let m = &self.measured;
        let mut out = format!(
            "replay of {} in the simulator — {} PEs, {}\n  run: treelb {}\n  measured in the trace: {:.1} ns per unit of work, T_split {} ns, T_rout {} ns (median of {} pieces moved), crossbar, messages only travel\n",
            escape(file.as_bytes()),
            self.p,
            self.strategy,
            escape(argv.join(" ").as_bytes()),
            m.unit_ns,
            m.t_split,
            m.t_rout,
            m.moves
        );
        let mut table = Table::new();
        table.load_style(UTF8_FULL_CONDENSED);
        table.set_header(vec![
            "PE",
            "busy ms run",
            "sim",
            "units run",
            "sim",
            "requests run",
            "sim",
            "given run",
            "sim",
            "same victim",
            "diverges at",
        ]);
        let ms = |ns: u64| format!("{:.3}", ns as f64 / 1e6);
        let right = |c: String| Cell::new(c).set_alignment(CellAlignment::Right);
        for p in &self.per_pe {
            table.add_row(vec![
                Cell::new(p.pe),
                right(ms(p.run.busy_ns)),
                right(ms(p.sim.busy_ns)),
                right(p.run.units.to_string()),
                right(p.sim.units.to_string()),
                right(p.run.requests.to_string()),
                right(p.sim.requests.to_string()),
                right(p.run.transfers.to_string()),
                right(p.sim.transfers.to_string()),
                right(format!("{}/{}", p.same_victims, p.compared)),
                right(p.diverges_at.map_or_else(|| "—".to_owned(), |i| format!("request {i}"))),
            ]);
        }
        let (run, sim) = (&self.run, &self.sim);
        table.add_row(vec![
            Cell::new("all"),
            right(ms(run.busy_ns)),
            right(ms(sim.busy_ns)),
            right(run.units.to_string()),
            right(sim.units.to_string()),
            right(run.requests.to_string()),
            right(sim.requests.to_string()),
            right(run.transfers.to_string()),
            right(sim.transfers.to_string()),
            right(format!("{}/{}", self.same_victims, self.compared)),
            right(String::new()),
        ]);
        out.push_str(&format!(
            "{table}\nT_par: run {} ms, simulation {} ms (× {:.2}); transfers: run {}, simulation {}; same victim: {:.0} % of {} requests compared\n\
             (the same strategy machines with the same seed: a PE's victims agree until timing changes what it has seen; \
             where they diverge measures how far the simulated timing follows the run's)\n",
            ms(run.t_par_ns),
            ms(sim.t_par_ns),
            self.t_par_ratio(),
            run.transfers,
            sim.transfers,
            100.0 * self.same_victim_share(),
            self.compared
        ));
        out
    }
}
