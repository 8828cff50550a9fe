//! The README's sample output is what its command prints: the block after
//! the marker `<!-- ci: sample … -->` starts with `$ treelb ARGS`, and the
//! rest of the block must match the output of `treelb ARGS` line by line,
//! with every number taken as equal to every other (times, rates, the
//! seed and the per-PE split vary from run to run) and the processor line's
//! value left out.

#[allow(dead_code)] // this file uses only `output_within`
mod common;

use std::process::Command;
use std::time::Duration;

/// A line as compared: numbers as `0`, the table's padding and rules
/// collapsed, spaces collapsed.
fn shape(line: &str) -> String {
    let line = line.trim_end();
    if let Some(rest) = line.trim_start().strip_prefix("machine ") {
        let _ = rest; // the processor differs from machine to machine
        return "machine …".to_owned();
    }
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            while chars.peek().is_some_and(|d| d.is_ascii_digit() || *d == '.') {
                chars.next();
            }
            out.push('0');
        } else if "─═ ".contains(c) {
            while chars.peek() == Some(&c) {
                chars.next();
            }
            if c != ' ' || !out.ends_with(' ') {
                out.push(c);
            }
        } else {
            out.push(c);
        }
    }
    out.trim().to_owned()
}

#[test]
fn the_readme_sample_is_what_its_command_prints() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let after = readme.split("<!-- ci: sample").nth(1).expect("the README has a sample marker");
    let block = after.split("```text\n").nth(1).and_then(|b| b.split("\n```").next()).expect("a text block");
    let mut lines = block.lines();
    let command = lines.next().and_then(|l| l.strip_prefix("$ treelb ")).expect("`$ treelb ARGS` first");
    let expected: Vec<String> = lines.map(shape).collect();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_treelb"));
    cmd.args(command.split_whitespace());
    let o = common::output_within(cmd, Duration::from_secs(120));
    assert!(o.status.success(), "treelb {command}: {}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stderr), "", "a normal run prints nothing on stderr");
    let printed = String::from_utf8(o.stdout).unwrap();
    let got: Vec<String> = printed.lines().map(shape).collect();
    assert_eq!(
        got, expected,
        "the README's sample of `treelb {command}` differs from its output:\n{printed}"
    );
}

#[test]
fn shapes_ignore_numbers_and_padding() {
    assert_eq!(shape("  wall time     0.063 s"), shape("  wall time     12.5 s"));
    assert_eq!(shape("│   0 ┆ 2104517 ┆"), shape("│  10 ┆ 95 ┆"));
    assert_ne!(shape("  wall time     0.063 s"), shape("  wall time     too short"));
    assert_eq!(shape("  machine       AMD EPYC"), shape("  machine  Intel Xeon"));
}

/// The crates every manifest of the workspace depends on (normal, dev,
/// build, optional and target-specific), but the workspace's own.
fn manifest_dependencies() -> std::collections::BTreeSet<String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut deps = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(format!("{root}/crates")).unwrap() {
        let manifest = entry.unwrap().path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else { continue };
        let mut in_dependencies = false;
        for line in text.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                in_dependencies = line.trim_matches(['[', ']']).ends_with("dependencies");
                continue;
            }
            let name: String =
                line.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
            if in_dependencies && !name.is_empty() && !name.starts_with("treelb") {
                deps.insert(name);
            }
        }
    }
    deps
}

/// The crates the README's table "Dependencies, and why" names: the words
/// in backticks of each row's first cell that are crates (not a feature or
/// a path in the same cell).
fn readme_dependencies(manifest: &std::collections::BTreeSet<String>) -> std::collections::BTreeSet<String> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let table = readme.split("## Dependencies, and why").nth(1).expect("the README's dependency section");
    let mut named = std::collections::BTreeSet::new();
    for row in table.lines().filter(|l| l.starts_with("| `")) {
        let first = row.split(" | ").next().unwrap();
        for (i, part) in first.split('`').enumerate() {
            // Inside backticks, before any parenthesis: `mpi` (rsmpi …,
            // feature `mpi`) names the crate once.
            let before_note = first.split('(').next().unwrap();
            if i % 2 == 1 && (before_note.contains(&format!("`{part}`")) || manifest.contains(part)) {
                named.insert(part.to_owned());
            }
        }
    }
    named
}

/// The README's dependency table names exactly the crates the manifests
/// depend on.
#[test]
fn the_readme_dependency_table_matches_the_manifests() {
    let manifest = manifest_dependencies();
    assert!(
        manifest.contains("clap") && manifest.contains("sha1") && manifest.contains("loom"),
        "{manifest:?}"
    );
    let readme = readme_dependencies(&manifest);
    let missing: Vec<_> = manifest.difference(&readme).collect();
    let extra: Vec<_> = readme.difference(&manifest).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "the README's table lacks {missing:?} and names {extra:?}, which no manifest depends on"
    );
}
