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

/// The processor a process runs on, read from `/proc/cpuinfo` (Linux; the
/// fields are absent elsewhere). Cheap enough for every run's report: a
/// run carried over several starts of a virtual machine by checkpoints may
/// run its segments on different hosts, and the model name alone ("AMD
/// EPYC") does not tell them apart — the family, model and stepping do.
///
/// ```
/// let p = treelb_bench::host::Processor::parse("model name\t: AMD EPYC\ncpu family\t: 26\nmodel\t\t: 2\n", 2);
/// assert_eq!(p.to_string(), "AMD EPYC (family 26, model 2), 2 CPUs");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Processor {
    /// "model name" of the first processor listed.
    pub model_name: Option<String>,
    /// "cpu family" (x86).
    pub family: Option<u32>,
    /// "model" (x86).
    pub model: Option<u32>,
    /// "stepping" (x86).
    pub stepping: Option<u32>,
    /// Logical CPUs available to this process.
    pub cpus: usize,
}

impl Processor {
    /// The processor of this process.
    pub fn detect() -> Processor {
        use std::io::BufRead;
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        // The first processor's block only: the kernel produces the file as
        // it is read, a block per CPU, so on a machine of many CPUs reading
        // it whole costs every run's report far more than this one block.
        let mut first = String::new();
        if let Ok(file) = std::fs::File::open("/proc/cpuinfo") {
            for line in std::io::BufReader::with_capacity(4096, file).lines().map_while(Result::ok) {
                if line.trim().is_empty() {
                    break;
                }
                first.push_str(&line);
                first.push('\n');
            }
        }
        Processor::parse(&first, cpus)
    }

    /// The fields of the first processor in the text of `/proc/cpuinfo`.
    pub fn parse(cpuinfo: &str, cpus: usize) -> Processor {
        let mut p = Processor { cpus, ..Processor::default() };
        // The first block only: one processor's lines, up to a blank line.
        for line in cpuinfo.lines().take_while(|l| !l.trim().is_empty()) {
            let Some((key, value)) = line.split_once(':') else { continue };
            let value = value.trim();
            match key.trim() {
                "model name" if !value.is_empty() => p.model_name = Some(value.to_owned()),
                "cpu family" => p.family = value.parse().ok(),
                "model" => p.model = value.parse().ok(),
                "stepping" => p.stepping = value.parse().ok(),
                _ => {}
            }
        }
        p
    }

    /// "family 26, model 2, stepping 1": the fields present, or `None`.
    pub fn ids(&self) -> Option<String> {
        let ids: Vec<String> = [("family", self.family), ("model", self.model), ("stepping", self.stepping)]
            .into_iter()
            .filter_map(|(name, v)| v.map(|v| format!("{name} {v}")))
            .collect();
        (!ids.is_empty()).then(|| ids.join(", "))
    }
}

impl std::fmt::Display for Processor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.model_name.as_deref().unwrap_or("unknown processor"))?;
        if let Some(ids) = self.ids() {
            write!(f, " ({ids})")?;
        }
        write!(f, ", {} CPU{}", self.cpus, if self.cpus == 1 { "" } else { "s" })
    }
}

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
    fn processor_from_the_first_block_of_cpuinfo() {
        let cpuinfo = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n\
                       model name\t: AMD EPYC\nstepping\t: 1\n\nprocessor\t: 1\nmodel name\t: Other\n";
        let p = Processor::parse(cpuinfo, 2);
        assert_eq!(p.model_name.as_deref(), Some("AMD EPYC"));
        assert_eq!((p.family, p.model, p.stepping), (Some(26), Some(2), Some(1)));
        assert_eq!(p.to_string(), "AMD EPYC (family 26, model 2, stepping 1), 2 CPUs");
        // No /proc/cpuinfo, or an architecture without these fields.
        let none = Processor::parse("", 1);
        assert_eq!(none, Processor { cpus: 1, ..Processor::default() });
        assert_eq!(none.to_string(), "unknown processor, 1 CPU");
        // A field that is not a number is left out, not guessed.
        assert_eq!(
            Processor::parse("cpu family\t: x86\nmodel\t: 85\n", 4).to_string(),
            "unknown processor (model 85), 4 CPUs"
        );
    }

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
