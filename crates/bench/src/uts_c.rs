//! The C reference implementation of UTS, built from its sources and run on
//! the same sample trees.
//!
//! The sources are not part of this repository. Point `--uts-c DIR` at a
//! copy of the reference's sequential build — `uts.c`, `uts.h`, the
//! depth-first driver (`dfs_main.cpp`, `main.c` or `uts_seq.c`) and `rng/`
//! with `brg_sha1.c` and its headers — and the suite compiles it with
//! `g++ -O3` (the reference's makefile builds these files as C++ 17) and
//! runs it beside the Rust engines. Its wall time is the one it prints
//! (the traversal alone), its counts are checked like every other engine's.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::child::ChildReport;
use crate::workload::Answer;

/// The drivers the suite recognises, in order of preference.
const DRIVERS: [&str; 3] = ["dfs_main.cpp", "uts_seq.c", "main.c"];

/// A built C reference.
#[derive(Clone, Debug)]
pub struct UtsC {
    /// The program.
    pub binary: PathBuf,
    /// The command that built it.
    pub build_command: String,
}

impl UtsC {
    /// Compiles the reference found in `sources` into `out_dir/uts-seq`.
    pub fn build(sources: &Path, out_dir: &Path) -> Result<UtsC, String> {
        let driver = DRIVERS
            .iter()
            .find(|d| sources.join(d).is_file())
            .ok_or_else(|| format!("{}: no driver ({}) found", sources.display(), DRIVERS.join(", ")))?;
        for file in ["uts.c", "uts.h", "rng/brg_sha1.c"] {
            if !sources.join(file).is_file() {
                return Err(format!("{}: {file} is missing", sources.display()));
            }
        }
        std::fs::create_dir_all(out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
        let binary = std::path::absolute(out_dir.join("uts-seq")).map_err(|e| e.to_string())?;
        let args = ["-O3", "-std=c++17", "-x", "c++", driver, "uts.c", "rng/brg_sha1.c", "-lm", "-o"];
        let mut command = Command::new("g++");
        command.current_dir(sources).args(args).arg(&binary);
        let build_command = format!("g++ {} {}", args.join(" "), binary.display());
        let status = command.status().map_err(|e| format!("cannot run g++: {e}"))?;
        if !status.success() {
            return Err(format!("`{build_command}` in {} failed ({status})", sources.display()));
        }
        Ok(UtsC { binary, build_command })
    }

    /// The command that runs the reference on a tree given by its flags;
    /// [`parse_machine_line`] reads its output.
    pub fn command(&self, flags: &str) -> Command {
        let mut command = Command::new(&self.binary);
        // `-v 1`: the human-readable statistics, on standard error; `-v 0`
        // prints one line of numbers on standard output, which we read.
        command.args(flags.split_whitespace()).args(["-v", "0"]);
        command
    }
}

/// Parses the reference's machine-readable summary line (`-v 0`):
/// `nPes walltime nNodes nodes/s nodes/s/PE chunkSize type b_0 rootId gen_mx
/// shape q m`. It has no leaves and no depth: the answer carries the nodes,
/// and the summary says so.
pub fn parse_machine_line(stdout: &str) -> Result<ChildReport, String> {
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.split_whitespace().count() >= 3)
        .ok_or_else(|| format!("no summary line in the reference's output: {stdout:?}"))?;
    let fields: Vec<&str> = line.split_whitespace().collect();
    let wall_secs: f64 = fields[1].parse().map_err(|_| format!("bad wall time in {line:?}"))?;
    let nodes: u64 = fields[2].parse().map_err(|_| format!("bad node count in {line:?}"))?;
    Ok(ChildReport { wall_secs, answer: Answer { nodes, summary: format!("{nodes} nodes") }, balance: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_summary_line() {
        let out = "   1   0.345   4130071 11971220 11971220 0 1 4.00 19 10 3 0.234375   4\n";
        let report = parse_machine_line(out).unwrap();
        assert_eq!(report.answer.nodes, 4_130_071);
        assert!((report.wall_secs - 0.345).abs() < 1e-12);
        assert!(parse_machine_line("").is_err());
    }
}
