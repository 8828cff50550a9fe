//! Helpers shared by the command-line tests (`cli.rs`, `mpi.rs`).

/// A benchmark instance in `../shared/instances`.
pub(crate) fn shared_instance(path: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/instances");
    root.join(path).to_string_lossy().into_owned()
}

/// The numbers of a report line `  label  1 2 3  (note)`.
pub(crate) fn numbers_on_line(out: &str, label: &str) -> Vec<u32> {
    let line =
        out.lines().find(|l| l.trim_start().starts_with(label)).unwrap_or_else(|| panic!("{label}: {out}"));
    let values = line.trim_start()[label.len()..].split("  (").next().unwrap_or_default();
    values.split_whitespace().map(|v| v.parse().expect("a number")).collect()
}
