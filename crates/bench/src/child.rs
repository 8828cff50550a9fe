//! Each measured run is a child process, so that its peak resident set and
//! its CPU time are its own: `getrusage` of one process mixes every run it
//! ever did, and `ru_maxrss` never goes down.

use std::io::Read;
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use crate::workload::Answer;

/// What the kernel accounted to one child process (`wait4`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// User plus system CPU time of all the child's threads, in seconds.
    pub cpu_secs: f64,
    /// Peak resident set size, in KiB (`ru_maxrss`).
    pub max_rss_kib: u64,
}

/// What a child reports on its standard output: one JSON line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChildReport {
    /// Wall time of the traversal alone, in seconds.
    pub wall_secs: f64,
    /// The answer it found.
    pub answer: Answer,
}

/// Runs `command` to its end; returns its standard output and its resource
/// usage. Its standard error passes through. A non-zero exit is an error.
pub fn run(command: &mut Command) -> Result<(String, Usage), String> {
    let mut child = command
        .stdout(Stdio::piped())
        .stdin(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {command:?}: {e}"))?;
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .expect("stdout is piped")
        .read_to_string(&mut stdout)
        .map_err(|e| format!("reading the output of {command:?}: {e}"))?;
    let pid = libc::pid_t::try_from(child.id()).map_err(|_| "process id out of range".to_owned())?;
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet reaped (`Child::wait` was never
    // called, and `Child`'s drop does not reap); `status` and `usage` are
    // valid, writable and live for the call.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if reaped != pid {
        return Err(format!("wait4 on {command:?}: {}", std::io::Error::last_os_error()));
    }
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        return Err(format!("{command:?} failed (wait status {status:#x})"));
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    let usage = Usage {
        cpu_secs: secs(usage.ru_utime) + secs(usage.ru_stime),
        max_rss_kib: u64::try_from(usage.ru_maxrss).unwrap_or(0),
    };
    Ok((stdout, usage))
}
