//! What the figures were measured on: CPU model, cores, compiler, date.

use std::process::Command;

use serde::Serialize;

/// The host (machine) and toolchain of a run of the suite.
#[derive(Clone, Debug, Serialize)]
pub struct Host {
    /// `lscpu`'s "Model name" (or `/proc/cpuinfo`'s "model name").
    pub cpu_model: String,
    /// Cores available to this process.
    pub cores: usize,
    /// The compiler that built this binary (`rustc --version` at build time).
    pub rustc: String,
    /// The day of the run, UTC, as `YYYY-MM-DD`.
    pub date: String,
    /// Family, model and stepping, which tell apart processors of the same
    /// model name (the host of a virtual machine may change between starts).
    pub processor: Processor,
}

impl Host {
    /// Looks at this machine.
    pub fn detect() -> Host {
        let processor = Processor::detect();
        Host {
            cpu_model: lscpu_model()
                .or_else(|| processor.model_name.clone())
                .unwrap_or_else(|| "unknown".to_owned()),
            cores: processor.cpus,
            rustc: env!("TREELB_BENCH_RUSTC").to_owned(),
            date: today(),
            processor,
        }
    }

    /// A short name for the machine's folder: `epyc-2core` for an "AMD EPYC"
    /// with 2 cores.
    pub fn slug(&self) -> String {
        let vendor_words = ["amd", "intel(r)", "intel", "core(tm)", "(r)", "(tm)", "cpu", "processor"];
        // The clock speed after '@' is no part of the name.
        let model = self.cpu_model.split('@').next().unwrap_or_default();
        let words: Vec<String> = model
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .filter(|w| !vendor_words.contains(&w.as_str()))
            .map(|w| w.chars().filter(char::is_ascii_alphanumeric).collect())
            .filter(|w: &String| !w.is_empty())
            .take(2)
            .collect();
        let name = if words.is_empty() { "machine".to_owned() } else { words.join("-") };
        format!("{name}-{}core", self.cores)
    }
}

/// The processor a process runs on (its model, family, model number and
/// stepping), as every run's report gives it.
pub use treelb_apps::report::Processor;

/// The scheduling priority (nice value) of this process.
pub fn nice() -> i32 {
    // SAFETY: getpriority reads the calling process's nice value; no pointers.
    unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
}

/// `lscpu`'s "Model name", if `lscpu` runs here.
fn lscpu_model() -> Option<String> {
    let out = Command::new("lscpu").output().ok()?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("Model name:").map(|m| m.trim().to_owned()))
}

/// Today's date (UTC) from the system clock, by the civil-from-days
/// algorithm of H. Hinnant.
fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days(i64::try_from(secs / 86_400).unwrap_or(0));
    format!("{y:04}-{m:02}-{d:02}")
}

fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_774), (2026, 11, 17));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn slugs() {
        let m = |cpu_model: &str, cores| Host {
            cpu_model: cpu_model.into(),
            cores,
            rustc: String::new(),
            date: String::new(),
            processor: Processor::default(),
        };
        assert_eq!(m("AMD EPYC", 2).slug(), "epyc-2core");
        assert_eq!(m("Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz", 12).slug(), "i78700-12core");
        assert_eq!(m("", 1).slug(), "machine-1core");
    }
}

/// The load average of `/proc/loadavg` (1, 5 and 15 minutes), where there
/// is one.
pub fn load_average() -> Option<[f64; 3]> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let v: Vec<f64> = text.split_whitespace().take(3).filter_map(|x| x.parse().ok()).collect();
    v.try_into().ok()
}

/// A measurement counts as taken on a loaded machine when other processes
/// took at least this share of the cores while it ran.
pub const LOADED_SHARE: f64 = 0.05;

/// How much of the machine other processes took while a measurement ran:
/// the processors' busy time (`/proc/stat`) less this process's own and its
/// waited-for children's (`/proc/self/stat`), over the cores and the time
/// between [`OthersMeter::start`] and [`OthersMeter::share`].
///
/// The load average cannot tell this: it remembers the minutes before the
/// measurement and counts the measurement's own threads.
///
/// ```
/// let meter = treelb_bench::host::OthersMeter::start();
/// if let Some(share) = meter.and_then(|m| m.share()) {
///     assert!((0.0..=1.0).contains(&share));
/// }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct OthersMeter {
    busy: u64,
    ours: u64,
    at: std::time::Instant,
}

impl OthersMeter {
    /// Starts measuring; `None` where `/proc` is not there (not Linux).
    pub fn start() -> Option<Self> {
        Some(OthersMeter { busy: busy_ticks()?, ours: own_ticks()?, at: std::time::Instant::now() })
    }

    /// The share of all cores (0 to 1) that other processes kept busy since
    /// the start.
    pub fn share(&self) -> Option<f64> {
        let (busy, ours) = (busy_ticks()?, own_ticks()?);
        let ticks = CLOCK_TICKS;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
        let others =
            busy.saturating_sub(self.busy).saturating_sub(ours.saturating_sub(self.ours)) as f64 / ticks;
        let span = self.at.elapsed().as_secs_f64();
        (span > 0.0).then(|| (others / (span * cores)).clamp(0.0, 1.0))
    }
}

/// The clock ticks per second of `/proc`'s times (`getconf CLK_TCK`: 100,
/// fixed by the kernel's user-space interface on every architecture).
const CLOCK_TICKS: f64 = 100.0;

/// The processors' busy time so far, in clock ticks.
fn busy_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let fields: Vec<u64> =
        stat.lines().next()?.split_whitespace().skip(1).map_while(|f| f.parse().ok()).collect();
    let total: u64 = fields.iter().take(8).sum();
    Some(total - fields.get(3)? - fields.get(4).copied().unwrap_or(0))
}

/// This process's CPU time and its waited-for children's, in clock ticks.
fn own_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command's closing parenthesis: state is field 3,
    // utime, stime, cutime, cstime are fields 14 to 17.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    f.get(11..15)?.iter().map(|v| v.parse::<u64>().ok()).sum()
}
