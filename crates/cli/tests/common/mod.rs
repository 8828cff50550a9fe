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

/// Runs `cmd` to its end and returns its output; kills it and fails the
/// test, with what it printed so far, if it runs past `limit`.
#[allow(dead_code)] // not every test file runs commands this way
pub(crate) fn output_within(
    mut cmd: std::process::Command,
    limit: std::time::Duration,
) -> std::process::Output {
    use std::io::Read;
    use std::process::Stdio;
    let shown = format!("{cmd:?}");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{shown}: cannot start: {e}"));
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    // Read both pipes while the child runs, so that it never blocks on a
    // full pipe.
    let stdout = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = out.read_to_end(&mut bytes);
        bytes
    });
    let stderr = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = err.read_to_end(&mut bytes);
        bytes
    });
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for the child") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let (o, e) = (stdout.join().unwrap_or_default(), stderr.join().unwrap_or_default());
            panic!(
                "HUNG: `{shown}` ran past {limit:?} and was killed\nstdout:\n{}\nstderr:\n{}",
                String::from_utf8_lossy(&o),
                String::from_utf8_lossy(&e)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    let stdout = stdout.join().expect("the stdout reader");
    let stderr = stderr.join().expect("the stderr reader");
    std::process::Output { status, stdout, stderr }
}
