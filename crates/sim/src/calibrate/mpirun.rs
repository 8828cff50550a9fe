//! Real runs of the MPI runtime: the `treelb` program under `mpirun`.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use treelb::{RunSpec, Strategy};

use super::apps::app_args;
use super::{Error, Measured, Runtime};

/// How the calibration starts MPI runs: `mpirun --oversubscribe -np N` on
/// a `treelb` program built with the MPI runtime — `treelb sim ping-pong`
/// for [`Mpirun::ping_pong`], an application with `--runtime mpi --json`
/// for [`Mpirun::measure`].
#[derive(Clone, Debug)]
pub struct Mpirun {
    /// The `treelb` program every rank runs; `None`: the running program.
    pub program: Option<PathBuf>,
    /// The longest one `mpirun` may take; it is killed after that.
    pub limit: Duration,
    /// Messages through TCP on the loopback interface instead of Open
    /// MPI's choice (shared memory on one host): `mpirun` gets
    /// [`Mpirun::TCP_ARGS`].
    pub tcp: bool,
}

impl Default for Mpirun {
    /// The running program, five minutes a run, Open MPI's transport.
    fn default() -> Self {
        Mpirun { program: None, limit: Duration::from_secs(300), tcp: false }
    }
}

/// What `treelb sim ping-pong` prints on rank 0, as JSON: the MPI
/// runtime's message and probe costs between two ranks.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PingPong {
    /// One message between two ranks, in nanoseconds: half the round trip
    /// of the runtime's `MPI_Isend` + `MPI_Improbe` + `MPI_Mrecv`.
    pub t_rout: f64,
    /// One `MPI_Improbe` that finds nothing, in nanoseconds.
    pub t_probe: f64,
    /// Nanoseconds per byte: the difference of the half round trips of a
    /// large and a one-word message over the difference of their sizes,
    /// if measured.
    #[serde(default)]
    pub gap_per_byte: Option<f64>,
}

/// The parts of `treelb … --runtime mpi --json`'s report a measured run
/// needs.
#[derive(Deserialize)]
struct RunReport {
    #[serde(default)]
    work_units: u64,
    wall_secs: Option<f64>,
    #[serde(default)]
    pes: Vec<PeReport>,
}

/// One PE of that report.
#[derive(Deserialize)]
struct PeReport {
    #[serde(default)]
    busy: f64,
    #[serde(default)]
    requests_sent: u64,
    #[serde(default)]
    pieces_received: u64,
}

impl Mpirun {
    /// Open MPI's options that send every message between ranks through
    /// TCP sockets on the loopback interface: the `ob1` messaging layer
    /// (the UCX one would bypass the transports named), the `tcp` transport
    /// (and `self` for a rank's messages to itself), and `lo`, which the
    /// `tcp` transport excludes by default.
    pub const TCP_ARGS: [&'static str; 9] =
        ["--mca", "pml", "ob1", "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "lo"];

    /// The options before `-np` as a command line shows them: the TCP
    /// ones and a space, or nothing.
    fn shown(&self) -> String {
        if self.tcp { format!("{} ", Self::TCP_ARGS.join(" ")) } else { String::new() }
    }

    /// This launcher for `runtime`'s runs: over TCP for
    /// [`Runtime::MpiTcp`], as it is otherwise.
    pub fn over(&self, runtime: Runtime) -> Mpirun {
        Mpirun { tcp: runtime == Runtime::MpiTcp, ..self.clone() }
    }

    /// Runs `mpirun --oversubscribe -np NP` on the program with `args`;
    /// returns rank 0's standard output. Fails with a message naming the
    /// command if it fails or runs past [`Mpirun::limit`] (it is then
    /// killed).
    pub fn run(&self, np: usize, args: &[String]) -> Result<String, Error> {
        let fail = |command: &str, message: String| Error::Mpirun { command: command.to_owned(), message };
        let exe = match &self.program {
            Some(p) => p.clone(),
            None => std::env::current_exe()
                .map_err(|e| fail("mpirun", format!("cannot find this program: {e}")))?,
        };
        let tcp: &[&str] = if self.tcp { &Self::TCP_ARGS } else { &[] };
        let shown = format!("mpirun {}-np {np} treelb {}", self.shown(), args.join(" "));
        let mut child = Command::new("mpirun")
            .arg("--oversubscribe")
            .args(tcp)
            .args(["-np", &np.to_string()])
            .arg(&exe)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| fail(&shown, format!("cannot start mpirun: {e}")))?;
        let mut stdout = child.stdout.take().expect("piped");
        let mut stderr = child.stderr.take().expect("piped");
        let reader = std::thread::spawn(move || {
            let (mut o, mut e) = (String::new(), String::new());
            let _ = stdout.read_to_string(&mut o);
            let _ = stderr.read_to_string(&mut e);
            (o, e)
        });
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().map_err(|e| fail(&shown, e.to_string()))? {
                break status;
            }
            if start.elapsed() > self.limit {
                let _ = child.kill();
                let _ = child.wait();
                return Err(fail(&shown, format!("ran past {} s and was killed", self.limit.as_secs())));
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let (o, e) = reader.join().unwrap_or_default();
        if !status.success() {
            // Open MPI frames its messages in lines of dashes: the last line
            // with words in it.
            let last = e.lines().rev().find(|l| l.chars().any(char::is_alphanumeric)).unwrap_or("");
            return Err(fail(&shown, format!("failed ({status}): {last}")));
        }
        Ok(o)
    }

    /// T_rout and the cost of an empty probe between two MPI ranks: `treelb
    /// sim ping-pong` under `mpirun -np 2`.
    pub fn ping_pong(&self) -> Result<PingPong, Error> {
        let o = self.run(2, &["sim".into(), "ping-pong".into()])?;
        serde_json::from_str(o.trim()).map_err(|e| Error::Mpirun {
            command: format!("mpirun {}-np 2 treelb sim ping-pong", self.shown()),
            message: format!("no result on rank 0 ({e}): {o}"),
        })
    }

    /// One run of `app` (`uts:T1`, `nqueens:12`, `clique:FILE`, a file
    /// looked up in `instances` as for [`super::calibrate`]) on `np` ranks
    /// of the MPI runtime with `strategy`, oldest-half splitting and the
    /// default budget: its units of work, wall time, and its PEs' busy
    /// time, requests and transfers summed.
    pub fn measure(
        &self,
        app: &str,
        np: usize,
        strategy: Strategy,
        instances: Option<&Path>,
    ) -> Result<Measured, Error> {
        let mut args = app_args(app, instances)?;
        args.extend(
            [
                "--runtime",
                "mpi",
                "--no-progress",
                "--json",
                "--strategy",
                strategy.name(),
                "--split-policy",
                "oldest-half",
                "--budget",
                &RunSpec::default().budget.to_string(),
            ]
            .map(str::to_owned),
        );
        let o = self.run(np, &args)?;
        let r: RunReport = serde_json::from_str(o.trim()).map_err(|e| Error::Mpirun {
            command: format!("mpirun {}-np {np} treelb {}", self.shown(), args.join(" ")),
            message: format!("no JSON report ({e})"),
        })?;
        Ok(Measured {
            nodes: r.work_units,
            wall: r.wall_secs.unwrap_or(f64::NAN),
            busy: r.pes.iter().map(|p| p.busy).sum(),
            requests: r.pes.iter().map(|p| p.requests_sent).sum(),
            transfers: r.pes.iter().map(|p| p.pieces_received).sum(),
        })
    }
}
