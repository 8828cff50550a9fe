//! Public programs for the same jobs, run beside treelb's engines on the
//! same workloads, each in its own process, their answers checked like
//! every engine's. None of them is part of this repository: the harness is
//! given their binaries by path.
//!
//! | peer | flag | workloads | run as | answer read from |
//! |---|---|---|---|---|
//! | UTS reference `uts-seq` | `--uts-seq PATH` | UTS sample trees | `PATH <the tree's flags>` | `Tree size = N, tree depth = D, num leaves = L` |
//! | the same, built from sources | `--uts-c DIR` | UTS sample trees | `uts-seq <flags> -v 0` | the summary line's node count |
//! | Glasgow Subgraph Solver | `--glasgow PATH` | `clique:NAME` | `PATH --format dimacs FILE` | `omega = W` |
//! | cliquer | `--cliquer PATH` | `clique:NAME` | `PATH -su -q -q FILE` | `size=W` |
//! | any N-Queens counter | `--nqueens-peer NAME=PATH` | `nqueens:N` | `PATH N` | the last number it prints |
//! | Pascal Pons's `c4solver` | `--c4solver PATH` | `connect4:SET:N` | `PATH < positions` | `POSITION SCORE` per line |
//!
//! The two clique solvers read a cleaned copy of the graph, written once
//! into the run's scratch folder: only the `p` and `e` lines, LF line ends
//! (the Glasgow solver rejects CRLF and some comment lines, cliquer a
//! trailing `END`). Their time is the whole process's wall time, set-up
//! included, as a user sees it.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;

use crate::uts_c::{UtsC, parse_machine_line};
use crate::workload::{Answer, Workload, connect4_summary, instances, nqueens_summary, optimum_summary};

/// The peers of a benchmark by where their programs are, as the flags of
/// the table above give them; [`PeerPaths::peers`] checks and builds them.
#[derive(Clone, Debug, Default)]
pub struct PeerPaths {
    /// `--uts-seq PATH`.
    pub uts_seq: Option<PathBuf>,
    /// `--uts-c DIR` (else the environment variable `TREELB_UTS_C`).
    pub uts_c: Option<PathBuf>,
    /// `--glasgow PATH`.
    pub glasgow: Option<PathBuf>,
    /// `--cliquer PATH`.
    pub cliquer: Option<PathBuf>,
    /// `--nqueens-peer NAME=PATH`, each.
    pub nqueens: Vec<String>,
    /// `--c4solver PATH`.
    pub c4solver: Option<PathBuf>,
}

impl PeerPaths {
    /// The peers, each checked to exist; the UTS reference's sources are
    /// built first, in `scratch`, and `built` is told the command that
    /// built them. An error names the flag.
    pub fn peers(&self, scratch: &Path, built: impl FnOnce(&str)) -> Result<Vec<Peer>, String> {
        let mut peers = Vec::new();
        fn flagged(flag: &'static str) -> impl Fn(String) -> String {
            move |e| format!("{flag}: {e}")
        }
        if let Some(path) = &self.uts_seq {
            peers.push(Peer::new("uts-seq", PeerKind::UtsSeq, path).map_err(flagged("--uts-seq"))?);
        }
        let uts_c = self.uts_c.clone().or_else(|| std::env::var_os("TREELB_UTS_C").map(PathBuf::from));
        if let Some(dir) = uts_c {
            let uts_c = UtsC::build(&dir, &scratch.join("uts-c")).map_err(flagged("--uts-c"))?;
            built(&uts_c.build_command);
            peers.push(Peer::uts_c(&uts_c));
        }
        if let Some(path) = &self.glasgow {
            peers.push(Peer::new("glasgow", PeerKind::Glasgow, path).map_err(flagged("--glasgow"))?);
        }
        if let Some(path) = &self.cliquer {
            peers.push(Peer::new("cliquer", PeerKind::Cliquer, path).map_err(flagged("--cliquer"))?);
        }
        for spec in &self.nqueens {
            peers.push(Peer::nqueens(spec).map_err(flagged("--nqueens-peer"))?);
        }
        if let Some(path) = &self.c4solver {
            peers.push(Peer::new("c4solver", PeerKind::C4solver, path).map_err(flagged("--c4solver"))?);
        }
        Ok(peers)
    }
}

/// Which program a peer is, so which workloads it runs and how its output
/// reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PeerKind {
    /// `uts-seq` of the UTS reference, given as a binary.
    UtsSeq,
    /// `uts-seq` built from the reference's sources (`--uts-c DIR`).
    UtsC,
    /// `glasgow_clique_solver` of the Glasgow Subgraph Solver.
    Glasgow,
    /// `cliquer` (Debian package `cliquer`).
    Cliquer,
    /// A program that counts the solutions of N-Queens: `PATH N`.
    NQueens,
    /// Pascal Pons's Connect Four solver `c4solver`: positions on standard
    /// input, `POSITION SCORE` lines out.
    C4solver,
}

/// A peer program: its name in tables, its kind and its binary.
#[derive(Clone, Debug, Serialize)]
pub struct Peer {
    /// The name in tables (`uts-seq`, `glasgow`, the NAME of
    /// `--nqueens-peer NAME=PATH`).
    pub name: String,
    /// What kind of program it is.
    pub kind: PeerKind,
    /// Its binary.
    pub path: PathBuf,
}

impl fmt::Display for Peer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl Peer {
    /// A peer given by path, checked to exist.
    pub fn new(name: &str, kind: PeerKind, path: &Path) -> Result<Peer, String> {
        if !path.is_file() {
            return Err(format!("{name}: no program {}", path.display()));
        }
        Ok(Peer { name: name.to_owned(), kind, path: path.to_owned() })
    }

    /// `NAME=PATH` of `--nqueens-peer`.
    pub fn nqueens(spec: &str) -> Result<Peer, String> {
        let (name, path) = spec
            .split_once('=')
            .filter(|(n, p)| !n.is_empty() && !p.is_empty())
            .ok_or_else(|| format!("--nqueens-peer {spec}: expected NAME=PATH"))?;
        Peer::new(name, PeerKind::NQueens, Path::new(path))
    }

    /// The reference built from sources by [`UtsC::build`].
    pub fn uts_c(built: &UtsC) -> Peer {
        Peer { name: "uts-c".to_owned(), kind: PeerKind::UtsC, path: built.binary.clone() }
    }

    /// Whether this peer runs `workload`.
    pub fn runs(&self, workload: &Workload) -> bool {
        match self.kind {
            PeerKind::UtsSeq | PeerKind::UtsC => workload.uts_sample().is_some(),
            PeerKind::Glasgow | PeerKind::Cliquer => matches!(workload, Workload::Clique(_)),
            PeerKind::NQueens => matches!(workload, Workload::NQueens { .. }),
            PeerKind::C4solver => matches!(workload, Workload::Connect4 { .. }),
        }
    }

    /// Whether the peer's answer carries the node count of the tree (the
    /// UTS reference does; the others count other nodes, or none).
    pub fn counts_nodes(&self) -> bool {
        matches!(self.kind, PeerKind::UtsSeq | PeerKind::UtsC)
    }

    /// Whether the peer's answer is the node count alone (the reference's
    /// `-v 0` line has no leaves and no depth).
    pub fn nodes_only(&self) -> bool {
        self.kind == PeerKind::UtsC
    }

    /// The command that runs the peer on `workload`; `scratch` holds the
    /// cleaned graph files.
    pub fn command(&self, workload: &Workload, scratch: &Path) -> Result<Command, String> {
        let mut command = Command::new(&self.path);
        match (self.kind, workload) {
            (PeerKind::UtsSeq, Workload::Uts(tree)) => {
                command.args(tree.flags.split_whitespace());
            }
            (PeerKind::UtsC, Workload::Uts(tree)) => {
                command =
                    UtsC { binary: self.path.clone(), build_command: String::new() }.command(tree.flags);
            }
            (PeerKind::Glasgow, Workload::Clique(name)) => {
                command.args(["--format", "dimacs"]).arg(clean_graph(name, scratch)?);
            }
            (PeerKind::Cliquer, Workload::Clique(name)) => {
                command.args(["-su", "-q", "-q"]).arg(clean_graph(name, scratch)?);
            }
            (PeerKind::NQueens, Workload::NQueens { n, .. }) => {
                command.arg(n.to_string());
            }
            (PeerKind::C4solver, Workload::Connect4 { .. }) => {}
            _ => return Err(format!("{self} does not run {workload}")),
        }
        Ok(command)
    }

    /// The file the peer reads on standard input, written once into
    /// `scratch`: the positions of a Connect Four set for `c4solver`.
    pub fn input(&self, workload: &Workload, scratch: &Path) -> Result<Option<PathBuf>, String> {
        let Some(positions) = workload.connect4_positions().filter(|_| self.kind == PeerKind::C4solver)
        else {
            return Ok(None);
        };
        let path = scratch.join(format!("{}.txt", workload.to_string().replace(':', "-")));
        if !path.is_file() {
            std::fs::create_dir_all(scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
            std::fs::write(&path, positions).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(Some(path))
    }

    /// Reads the peer's answer from its standard output. `Err` if the
    /// output has no answer at all (which the report counts as a failed
    /// run); a wrong answer is an `Ok` the checks then reject.
    pub fn answer(&self, stdout: &str) -> Result<Answer, String> {
        let missing = || format!("{self}: no answer in its output {:?}", tail(stdout));
        match self.kind {
            PeerKind::UtsSeq => {
                let size = number_after(stdout, "Tree size = ").ok_or_else(missing)?;
                let depth = number_after(stdout, "tree depth = ").ok_or_else(missing)?;
                let leaves = number_after(stdout, "num leaves = ").ok_or_else(missing)?;
                Ok(Answer::uts(size, leaves, depth))
            }
            PeerKind::UtsC => parse_machine_line(stdout).map(|r| r.answer),
            PeerKind::Glasgow => {
                let omega = number_after(stdout, "omega = ").ok_or_else(missing)?;
                Ok(Answer { nodes: 0, summary: optimum_summary(omega as i64) })
            }
            PeerKind::Cliquer => {
                let omega = number_after(stdout, "size=").ok_or_else(missing)?;
                Ok(Answer { nodes: 0, summary: optimum_summary(omega as i64) })
            }
            PeerKind::NQueens => {
                let last = stdout
                    .split(|c: char| !c.is_ascii_digit())
                    .rfind(|w| !w.is_empty())
                    .and_then(|w| w.parse().ok())
                    .ok_or_else(missing)?;
                Ok(Answer { nodes: 0, summary: nqueens_summary(last) })
            }
            PeerKind::C4solver => {
                let scores = stdout
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(|l| l.split_whitespace().nth(1).and_then(|s| s.parse().ok()))
                    .collect::<Option<Vec<i32>>>()
                    .ok_or_else(missing)?;
                Ok(Answer { nodes: 0, summary: connect4_summary(&scores) })
            }
        }
    }
}

/// The last 200 characters of `text`, for messages.
fn tail(text: &str) -> &str {
    let start = text.len().saturating_sub(200);
    let start = (start..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(text.len());
    &text[start..]
}

/// The number right after the first `key` in `text`.
fn number_after(text: &str, key: &str) -> Option<u64> {
    let rest = &text[text.find(key)? + key.len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Writes the graph `name` of the shared instances to `scratch` with its
/// `p` and `e` lines only and LF line ends, once; returns its path.
fn clean_graph(name: &str, scratch: &Path) -> Result<PathBuf, String> {
    let cleaned = scratch.join(format!("{name}.clq"));
    if cleaned.is_file() {
        return Ok(cleaned);
    }
    let source = instances().join("clique").join(format!("{name}.clq"));
    let text = std::fs::read_to_string(&source).map_err(|e| format!("{}: {e}", source.display()))?;
    let mut out = String::with_capacity(text.len());
    for line in text.lines().map(|l| l.trim_end_matches('\r')) {
        if line.starts_with("p ") || line.starts_with("e ") {
            out.push_str(line);
            out.push('\n');
        }
    }
    std::fs::create_dir_all(scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    std::fs::write(&cleaned, out).map_err(|e| format!("{}: {e}", cleaned.display()))?;
    Ok(cleaned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer(kind: PeerKind) -> Peer {
        Peer { name: "p".into(), kind, path: PathBuf::from("/bin/true") }
    }

    #[test]
    fn answers_are_read_from_each_peers_output() {
        let uts = "Tree size = 4130071, tree depth = 10, num leaves = 3305118 (80.03%)\n";
        assert_eq!(peer(PeerKind::UtsSeq).answer(uts).unwrap(), Answer::uts(4_130_071, 3_305_118, 10));
        let glasgow = "status = true\nomega = 21\nnodes = 1234\nruntime = 50\n";
        assert_eq!(peer(PeerKind::Glasgow).answer(glasgow).unwrap().summary, "optimum 21");
        let cliquer = "Record: 1 2 3\nsize=21, weight=21:   1 2 3\n";
        assert_eq!(peer(PeerKind::Cliquer).answer(cliquer).unwrap().summary, "optimum 21");
        let queens = "Number of solution for 8 is 92\n";
        assert_eq!(peer(PeerKind::NQueens).answer(queens).unwrap().summary, "92 solutions");
        assert!(peer(PeerKind::Glasgow).answer("no\n").unwrap_err().contains("no answer"));
        assert!(Peer::nqueens("=x").unwrap_err().contains("expected NAME=PATH"));
        let c4 = "44 -2\n4455 1\n";
        assert_eq!(peer(PeerKind::C4solver).answer(c4).unwrap().summary, connect4_summary(&[-2, 1]));
    }
}
