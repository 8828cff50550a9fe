//! Helpers shared by the command-line tests (`cli.rs`, `mpi.rs`, …).

/// An outside program that some tests need (Chromium, `mpirun`): the first
/// of `names` that runs with `--version`, or `None` after one line on the
/// terminal saying that the test skips and how to install the program.
///
/// `key` names the program in `TREELB_REQUIRE`, a comma-separated list
/// (`chromium,mpi`, or `all`) of the programs that must be there: for
/// those, a missing program fails the test instead (`.ci/run` sets it once
/// it has installed them). The line goes to the process's stderr directly,
/// not through the test harness's capture, so that `cargo test` shows it.
#[allow(dead_code)] // not every test file needs an outside program
pub(crate) fn outside_program(key: &str, names: &[&'static str], install: &str) -> Option<&'static str> {
    let runs = |name: &str| {
        std::process::Command::new(name)
            .arg("--version")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if let Some(&name) = names.iter().find(|n| runs(n)) {
        return Some(name);
    }
    absent(key, names[0], install, &std::env::var("TREELB_REQUIRE").unwrap_or_default());
    None
}

/// What [`outside_program`] does when `program` (known in `TREELB_REQUIRE`
/// as `key`) is absent: panics if `required` names it, else prints the
/// line that the test skips.
#[allow(dead_code)] // not every test file needs an outside program
pub(crate) fn absent(key: &str, program: &str, install: &str, required: &str) {
    let missing = format!("no working `{program}` on the PATH (install: {install})");
    if required.split(',').map(str::trim).any(|k| k == key || k == "all") {
        panic!("{missing}; TREELB_REQUIRE={required} says that the test must run");
    }
    let test = std::thread::current().name().unwrap_or("a test").to_owned();
    use std::io::Write;
    let _ =
        writeln!(std::io::stderr(), "SKIPPED {test}: {missing}; TREELB_REQUIRE={key} makes this a failure");
}

/// A benchmark instance in `../shared/instances`.
#[allow(dead_code)] // not every test file reads the instances
pub(crate) fn shared_instance(path: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/instances");
    root.join(path).to_string_lossy().into_owned()
}

/// The numbers of a report line `  label  1 2 3  (note)`.
#[allow(dead_code)] // not every test file reads a report
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
    let Some(status) = wait_within(&mut child, limit) else {
        let (o, e) = (stdout.join().unwrap_or_default(), stderr.join().unwrap_or_default());
        panic!(
            "HUNG: `{shown}` ran past {limit:?} and was killed\nstdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&o),
            String::from_utf8_lossy(&e)
        );
    };
    let stdout = stdout.join().expect("the stdout reader");
    let stderr = stderr.join().expect("the stderr reader");
    std::process::Output { status, stdout, stderr }
}

/// The JSON report of a run that must have succeeded; fails the test with
/// what the run printed otherwise.
#[allow(dead_code)] // not every test file reads JSON reports
pub(crate) fn json_report(o: &std::process::Output, what: &str) -> serde_json::Value {
    assert!(
        o.status.success(),
        "{what}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{what}: not JSON ({e})"))
}

/// Sends `signal` (`"INT"`, `"TERM"`, …) to process `pid` with `kill`.
#[allow(dead_code)] // not every test file signals its runs
pub(crate) fn send_signal(pid: u32, signal: &str) {
    let sent = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success(), "kill -{signal} {pid} failed");
}

/// Waits for `child` to end — killing it and failing the test if it runs
/// past `limit`, counted from now (`after` says from what) — and returns its
/// exit code, its whole stdout and the rest of its stderr (`err` is the
/// stderr the test has been reading from).
#[allow(dead_code)] // not every test file signals its runs
pub(crate) fn collect_within(
    child: &mut std::process::Child,
    err: &mut impl std::io::Read,
    limit: std::time::Duration,
    after: &str,
) -> (Option<i32>, String, String) {
    use std::io::Read;
    let Some(status) = wait_within(child, limit) else {
        panic!("HUNG: the run did not end within {limit:?} of {after}");
    };
    let mut out = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        stdout.read_to_string(&mut out).expect("the run's stdout");
    }
    let mut rest = String::new();
    err.read_to_string(&mut rest).expect("the run's stderr");
    (status.code(), out, rest)
}

/// Starts `cmd` with its output piped and waits for the first line of its
/// stderr, which shows the run under way with its signal handler
/// installed; fails unless `first` accepts that line. Then waits `after`,
/// calls `signal` with the process id, and returns what
/// [`collect_within`] returns (`what`: the signal, for its message).
#[allow(dead_code)] // not every test file signals its runs
pub(crate) fn signal_once_started(
    mut cmd: std::process::Command,
    first: impl FnOnce(&str) -> bool,
    after: std::time::Duration,
    signal: impl FnOnce(u32),
    limit: std::time::Duration,
    what: &str,
) -> (Option<i32>, String, String) {
    use std::io::BufRead;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the run starts");
    // The first line, read on a thread of its own, so that a run that never
    // prints it fails the test instead of hanging it.
    let mut err = std::io::BufReader::new(child.stderr.take().expect("piped stderr"));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let read = err.read_line(&mut line).map(|_| line);
        let _ = tx.send((read, err));
    });
    let Ok((read, mut err)) = rx.recv_timeout(limit) else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("HUNG: no line on the run's stderr within {limit:?}; it was killed");
    };
    let line = read.expect("the run's stderr");
    assert!(first(&line), "the first line of stderr: {line}");
    std::thread::sleep(after);
    signal(child.id());
    collect_within(&mut child, &mut err, limit, what)
}

/// Waits for `child` to end and returns its status; if it runs past
/// `limit`, counted from now, kills it and returns `None` (the caller fails
/// the test with what it knows).
pub(crate) fn wait_within(
    child: &mut std::process::Child,
    limit: std::time::Duration,
) -> Option<std::process::ExitStatus> {
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("waiting for the child") {
            return Some(status);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Checks `json` against the Chrome trace-event format (the JSON object
/// form, as Perfetto reads it): `traceEvents` an array of objects, each with
/// a name, a known phase, integer pid and tid; `ts` present and not negative
/// on every event but metadata, and not decreasing per track for complete
/// events; `dur` ≥ 0 on complete events (`X`); instant events (`i`) of
/// scope `g`, `p` or `t`; metadata events (`M`) naming a process or thread
/// with `args.name` (or sorting it); every flow start (`s`) finished (`f`)
/// once with the same id and category, not earlier, on a track. Returns the
/// count of events of each phase.
#[allow(dead_code)] // the tests of traces only
pub(crate) fn validate_chrome_trace(json: &serde_json::Value) -> std::collections::BTreeMap<String, usize> {
    use std::collections::{BTreeMap, HashMap};
    let unit = json["displayTimeUnit"].as_str().expect("displayTimeUnit");
    assert!(unit == "ns" || unit == "ms", "displayTimeUnit {unit}");
    let events = json["traceEvents"].as_array().expect("traceEvents is an array");
    let mut phases: BTreeMap<String, usize> = BTreeMap::new();
    let mut last_x: HashMap<(u64, u64), f64> = HashMap::new();
    let mut starts: HashMap<(String, u64), f64> = HashMap::new();
    let mut finishes: HashMap<(String, u64), f64> = HashMap::new();
    let mut named_threads = std::collections::HashSet::new();
    let mut tracks = std::collections::HashSet::new();
    for e in events {
        let e = e.as_object().expect("every event is an object");
        let ph = e["ph"].as_str().expect("ph is a string");
        assert!(e["name"].is_string(), "name: {e:?}");
        let pid = e["pid"].as_u64().expect("pid is an integer");
        let tid = e["tid"].as_u64().expect("tid is an integer");
        *phases.entry(ph.to_owned()).or_default() += 1;
        if ph == "M" {
            let name = e["name"].as_str().unwrap();
            match name {
                "process_name" | "thread_name" => {
                    assert!(e["args"]["name"].is_string(), "{e:?}");
                    if name == "thread_name" {
                        named_threads.insert((pid, tid));
                    }
                }
                "thread_sort_index" | "process_sort_index" => {
                    assert!(e["args"]["sort_index"].is_i64(), "{e:?}")
                }
                other => panic!("unknown metadata event {other}"),
            }
            continue;
        }
        tracks.insert((pid, tid));
        let ts = e["ts"].as_f64().expect("ts is a number");
        assert!(ts >= 0.0, "{e:?}");
        match ph {
            "X" => {
                let dur = e["dur"].as_f64().expect("X has dur");
                assert!(dur >= 0.0, "{e:?}");
                let last = last_x.entry((pid, tid)).or_insert(0.0);
                assert!(ts + 1e-6 >= *last, "X events of a track in time order, and not overlapping: {e:?}");
                *last = ts + dur;
            }
            "i" | "I" => {
                let s = e.get("s").and_then(|s| s.as_str()).unwrap_or("t");
                assert!(["g", "p", "t"].contains(&s), "{e:?}");
            }
            "s" | "f" => {
                let id = e["id"].as_u64().expect("a flow event has an id");
                let cat = e["cat"].as_str().expect("a flow event has a category").to_owned();
                if ph == "f" {
                    let bp = e.get("bp").and_then(|b| b.as_str()).unwrap_or("n");
                    assert!(bp == "e" || bp == "n", "{e:?}");
                    assert!(finishes.insert((cat, id), ts).is_none(), "one finish per flow: {e:?}");
                } else {
                    assert!(starts.insert((cat, id), ts).is_none(), "one start per flow: {e:?}");
                }
            }
            other => panic!("unexpected phase {other}: {e:?}"),
        }
    }
    assert_eq!(starts.len(), finishes.len(), "every flow start has a finish");
    for (key, start) in &starts {
        let finish = finishes.get(key).unwrap_or_else(|| panic!("flow {key:?} has no finish"));
        assert!(finish >= start, "flow {key:?} ends before it starts");
    }
    for track in &tracks {
        assert!(named_threads.contains(track), "track {track:?} is named");
    }
    phases
}

/// Checks the JSON of `treelb sim replay` of a `uts --tree T1` trace on
/// `p` PEs: both sides did all of T1's nodes, the costs were measured,
/// and the victims compared are at most the requests of either side.
#[allow(dead_code)] // the tests of traces only
pub(crate) fn check_replay(r: &serde_json::Value, p: u64) {
    assert_eq!(r["p"], p, "{r}");
    assert_eq!(r["run"]["units"], 4_130_071, "{r}");
    assert_eq!(r["sim"]["units"], 4_130_071, "{r}");
    assert!(r["measured"]["unit_ns"].as_f64().unwrap() > 0.0, "{r}");
    assert!(r["sim"]["t_par_ns"].as_u64().unwrap() > 0 && r["run"]["t_par_ns"].as_u64().unwrap() > 0, "{r}");
    assert_eq!(r["per_pe"].as_array().unwrap().len() as u64, p, "{r}");
    let compared = r["compared"].as_u64().unwrap();
    assert!(r["same_victims"].as_u64().unwrap() <= compared, "{r}");
    assert!(
        compared <= r["run"]["requests"].as_u64().unwrap().min(r["sim"]["requests"].as_u64().unwrap()),
        "{r}"
    );
}
