//! Each measured run is a child process, so that its peak resident set and
//! its CPU time are its own (`getrusage` of one process mixes every run it
//! ever did, and `ru_maxrss` never goes down), and so that a run that hangs
//! can be killed without taking the harness with it.
//!
//! # Time limit
//!
//! [`run`] starts the child in a process group of its own, reads its
//! standard output and error on two threads, and polls `wait4(WNOHANG)`
//! until the child ends or the limit passes. Past the limit it sends
//! `SIGKILL` to the whole group — a peer started through a shell script has
//! the real solver as a grandchild, which would otherwise keep the pipes
//! open — then reaps the child. After a normal end it kills the group too:
//! a grandchild left behind would keep the output pipes open and the
//! reading threads waiting. Either way the pipes close, the threads end,
//! and the call returns within the limit plus the time the kernel takes to
//! deliver the signal.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::workload::{Answer, Traffic};

/// What the kernel accounted to one child process (`wait4`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// User plus system CPU time of all the child's threads, in seconds.
    pub cpu_secs: f64,
    /// Peak resident set size, in KiB (`ru_maxrss`).
    pub max_rss_kib: u64,
    /// Wall time from the start of the process to its end, in seconds.
    pub process_secs: f64,
}

/// What a child reports on its standard output: one JSON line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChildReport {
    /// Wall time of the traversal alone, in seconds.
    pub wall_secs: f64,
    /// The answer it found.
    pub answer: Answer,
    /// treelb's balancing counters (treelb runs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance: Option<Traffic>,
}

/// How a child run went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// It ran past its time limit and was killed.
    Timeout(Duration),
    /// It could not start, or ended with a non-zero status or a signal.
    Failed(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Timeout(limit) => {
                write!(f, "killed after the time limit of {:.1} s", limit.as_secs_f64())
            }
            Failure::Failed(why) => f.write_str(why),
        }
    }
}

/// The last line of `text` that is not blank, for error messages.
fn last_line(text: &str) -> &str {
    text.lines().rev().map(str::trim).find(|l| !l.is_empty()).unwrap_or("")
}

/// Runs `command` to its end or to `limit`; returns its standard output and
/// its resource usage. A non-zero exit, a signal or the limit is a
/// [`Failure`] naming the program and the last line of its standard error.
pub fn run(command: &mut Command, limit: Duration) -> Result<(String, Usage), Failure> {
    run_with_input(command, None, limit)
}

/// [`run`] with the file `input` on the child's standard input (else
/// nothing).
pub fn run_with_input(
    command: &mut Command,
    input: Option<&std::path::Path>,
    limit: Duration,
) -> Result<(String, Usage), Failure> {
    let program = command.get_program().to_string_lossy().into_owned();
    let stdin = match input {
        None => Stdio::null(),
        Some(path) => Stdio::from(
            std::fs::File::open(path).map_err(|e| Failure::Failed(format!("{}: {e}", path.display())))?,
        ),
    };
    let start = Instant::now();
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(stdin)
        .process_group(0)
        .spawn()
        .map_err(|e| Failure::Failed(format!("cannot start {program}: {e}")))?;
    let reader = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = reader(Box::new(child.stdout.take().expect("stdout is piped")));
    let stderr = reader(Box::new(child.stderr.take().expect("stderr is piped")));
    let pid =
        libc::pid_t::try_from(child.id()).map_err(|_| Failure::Failed("process id out of range".into()))?;
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let mut timed_out = false;
    let mut pause = Duration::from_micros(200);
    loop {
        // SAFETY: `pid` is our own child, not yet reaped (`Child::wait` is
        // never called, and `Child`'s drop does not reap); `status` and
        // `usage` are valid, writable and live for the call.
        let reaped = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if reaped == pid {
            break;
        }
        if reaped != 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(Failure::Failed(format!("wait4 on {program}: {e}")));
        }
        if !timed_out && start.elapsed() >= limit {
            timed_out = true;
            // SAFETY: kill(2) with a negative pid signals the process group
            // `pid` leads (the child was started with `process_group(0)`);
            // no memory is involved.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
    let process_secs = start.elapsed().as_secs_f64();
    // Grandchildren left behind would hold the pipes open: end the group.
    // SAFETY: as above; a group that no longer exists gives ESRCH, ignored.
    unsafe { libc::kill(-pid, libc::SIGKILL) };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    if timed_out {
        return Err(Failure::Timeout(limit));
    }
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        let how = if libc::WIFEXITED(status) {
            format!("exit code {}", libc::WEXITSTATUS(status))
        } else {
            format!("signal {}", libc::WTERMSIG(status))
        };
        return Err(Failure::Failed(format!("{program} failed ({how}): {}", last_line(&stderr))));
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    let usage = Usage {
        cpu_secs: secs(usage.ru_utime) + secs(usage.ru_stime),
        max_rss_kib: u64::try_from(usage.ru_maxrss).unwrap_or(0),
        process_secs,
    };
    Ok((stdout, usage))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.args(["-c", script]);
        c
    }

    #[test]
    fn output_and_exit_status() {
        let (out, usage) = run(&mut sh("echo 42"), Duration::from_secs(30)).unwrap();
        assert_eq!(out, "42\n");
        assert!(usage.process_secs >= 0.0);
        let err = run(&mut sh("echo oops >&2; exit 3"), Duration::from_secs(30)).unwrap_err();
        assert_eq!(err, Failure::Failed("sh failed (exit code 3): oops".into()));
    }

    #[test]
    fn a_hung_child_and_its_grandchildren_are_killed_at_the_limit() {
        // The grandchild `sleep` holds the pipes; the group kill ends it.
        let err = run(&mut sh("sleep 600 & sleep 600"), Duration::from_millis(300)).unwrap_err();
        assert_eq!(err, Failure::Timeout(Duration::from_millis(300)));
        // A grandchild left running after a normal end does not hold us up.
        let (out, _) = run(&mut sh("sleep 600 & echo done"), Duration::from_secs(30)).unwrap();
        assert_eq!(out, "done\n");
    }
}
