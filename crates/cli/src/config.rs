//! Checked configuration: what the command line asked for, validated.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use treelb::spec::Rho;
use treelb::{Init, RunSpec, SplitPolicy, Strategy};

use crate::args::RunArgs;

/// A one-line error for the user: what was wrong, and where.
#[derive(Debug)]
pub(crate) struct Error(pub(crate) String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<E: std::error::Error> From<E> for Error {
    fn from(e: E) -> Self {
        Error(e.to_string())
    }
}

/// Builds an [`Error`] from a format string.
macro_rules! err {
    ($($t:tt)*) => { $crate::config::Error(format!($($t)*)) };
}
pub(crate) use err;

/// Parses a number given to `flag`, with the flag's name in the error.
pub(crate) fn number<T: FromStr>(flag: &str, value: &str) -> Result<T, Error> {
    value.trim().parse().map_err(|_| err!("{flag} expects a non-negative integer, got `{value}`"))
}

/// Parses a count of at least 1, as an integer (`1000000`) or in
/// scientific notation (`1e6`, which must be a whole number).
pub(crate) fn count(flag: &str, value: &str) -> Result<u64, Error> {
    let v = value.trim();
    let n = match v.parse::<u64>() {
        Ok(n) => n,
        Err(_) => v
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0 && x.fract() == 0.0 && *x < 1.8e19)
            .map(|x| x as u64)
            .ok_or_else(|| err!("{flag} expects a whole number such as 1000000 or 1e6, got `{value}`"))?,
    };
    if n == 0 {
        return Err(err!("{flag} must be at least 1, got {value}"));
    }
    Ok(n)
}

/// Parses a number that must be at least 1.
pub(crate) fn positive(flag: &str, value: &str) -> Result<u64, Error> {
    match number::<u64>(flag, value)? {
        0 => Err(err!("{flag} must be at least 1, got 0")),
        n => Ok(n),
    }
}

/// `--time-limit 1h30m`: a positive duration, a sequence of numbers each
/// with a unit — `h`, `m` (or `min`), `s`, `ms` — such as `90s`, `5m`,
/// `1h30m`, `250ms` or `1.5s`.
pub(crate) fn duration(flag: &str, value: &str) -> Result<Duration, Error> {
    let bad = || err!("{flag} expects a duration such as 90s, 5m, 1h30m or 250ms, got `{value}`");
    let mut rest = value.trim();
    if rest.is_empty() {
        return Err(bad());
    }
    let mut total = 0.0f64;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let number: f64 = rest[..digits].parse().map_err(|_| bad())?;
        rest = &rest[digits..];
        let letters = rest.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(rest.len());
        let seconds = match &rest[..letters] {
            "h" => 3600.0,
            "m" | "min" => 60.0,
            "s" => 1.0,
            "ms" => 1e-3,
            "" => return Err(err!("{flag} `{value}`: give a unit (h, m, s or ms), e.g. {number}s")),
            unit => return Err(err!("{flag} `{value}`: unknown unit `{unit}` (expected h, m, s or ms)")),
        };
        total += number * seconds;
        rest = &rest[letters..];
    }
    if !(total > 0.0 && total < 1e9) {
        return Err(err!("{flag} must be more than 0 and less than 30 years, got `{value}`"));
    }
    Ok(Duration::from_secs_f64(total))
}

/// `--fanout 4,2`: the fan-outs of the producer tree, each at least 1.
fn fanout(value: &str) -> Result<Vec<usize>, Error> {
    value
        .split(',')
        .map(|d| {
            let d = positive("--fanout", d)?;
            usize::try_from(d).ok().filter(|&d| d <= 4096).ok_or_else(|| err!("--fanout {d} is too wide"))
        })
        .collect()
}

/// `--rho 1.4`: the ratio of lazy load reports.
fn rho(value: &str) -> Result<Rho, Error> {
    let rho: f64 = value.trim().parse().map_err(|_| err!("--rho expects a number, got `{value}`"))?;
    Rho::new(rho).map_err(|_| {
        err!("--rho must lie strictly between 1 and 1.5 (Loui and Sohoni's ρ < 3/2), got {value}")
    })
}

/// The number of PEs: given, or all cores.
pub(crate) fn threads(value: Option<&str>) -> Result<usize, Error> {
    match value {
        Some(v) => {
            let n = positive("--threads", v)?;
            usize::try_from(n)
                .ok()
                .filter(|&n| n <= 4096)
                .ok_or_else(|| err!("--threads {n} is too many (at most 4096)"))
        }
        None => Ok(treelb_threads::Config::default().threads),
    }
}

/// Which runtime runs the PEs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Runtime {
    /// Threads of this process.
    Threads,
    /// MPI ranks (times threads per rank).
    Mpi,
}

impl Runtime {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Runtime::Threads => "threads",
            Runtime::Mpi => "mpi",
        }
    }

    fn parse(value: &str) -> Result<Self, Error> {
        match value {
            "threads" => Ok(Runtime::Threads),
            "mpi" if cfg!(feature = "mpi") => Ok(Runtime::Mpi),
            "mpi" => {
                Err(err!("--runtime mpi: this treelb was built without MPI (build with `--features mpi`)"))
            }
            other => Err(err!("--runtime: unknown runtime `{other}` (expected one of: threads, mpi)")),
        }
    }
}

/// A validated run configuration: the balancing ([`RunSpec`], the same for
/// every runtime) and what each runtime and the report need besides.
#[derive(Clone, Debug)]
pub(crate) struct RunConfig {
    /// Threads or MPI.
    pub(crate) kind: Runtime,
    /// PEs on the threads runtime; threads per rank with MPI.
    pub(crate) threads: usize,
    /// How to balance.
    pub(crate) spec: RunSpec,
    /// `--pin` (threads runtime).
    pub(crate) pin: bool,
    pub(crate) split_policy: SplitPolicy,
    pub(crate) json: bool,
    pub(crate) progress: bool,
    /// `--trace FILE`: where the trace goes.
    pub(crate) trace: Option<String>,
    /// `--max-nodes N`: the run stops after about N units of work.
    pub(crate) max_nodes: Option<u64>,
    /// `--time-limit DURATION`: the run stops after about this long.
    pub(crate) time_limit: Option<Duration>,
    /// `--deterministic`: branch and bound breaks ties by the witness.
    pub(crate) deterministic: bool,
    /// A line for stderr once the threads runtime is about to start (after
    /// every check of the input): what is known of the run's size.
    pub(crate) prelude: Option<String>,
    /// `--checkpoint FILE --checkpoint-every DURATION`, and the state a
    /// resumed run continues from.
    pub(crate) checkpoint: Option<crate::checkpoint::Plan>,
}

impl RunConfig {
    pub(crate) fn from_args(args: &RunArgs) -> Result<Self, Error> {
        let kind = Runtime::parse(&args.runtime)?;
        let threads = match (kind, args.threads.as_deref()) {
            // One PE per rank unless --threads asks for the hybrid mode.
            (Runtime::Mpi, None) => 1,
            (_, t) => threads(t)?,
        };
        let spec = RunSpec {
            budget: positive("--budget", &args.budget)?,
            init: args.init.parse::<Init>().map_err(|e| err!("--init: {e}"))?,
            strategy: args.strategy.parse::<Strategy>().map_err(|e| err!("--strategy: {e}"))?,
            seed: match &args.seed {
                Some(s) => number("--seed", s)?,
                None => RunSpec::default().seed,
            },
            fanout: match &args.fanout {
                Some(f) => fanout(f)?,
                None => Vec::new(),
            },
            rho: rho(&args.rho)?,
        };
        if kind == Runtime::Mpi && args.trace.is_some() {
            return Err(err!("--trace records runs of the threads runtime (not with --runtime mpi)"));
        }
        if kind == Runtime::Mpi && args.pin {
            return Err(err!("--pin pins the threads runtime's PEs (not with --runtime mpi)"));
        }
        if args.trace.is_some() && args.checkpoint.checkpoint.is_some() {
            return Err(err!("--trace records one uninterrupted run; it does not go with --checkpoint"));
        }
        spec.validate().map_err(|e| err!("--strategy: {e}"))?;
        let split_policy = match &args.split_policy {
            Some(p) => p.parse().map_err(|e| err!("--split-policy: {e}"))?,
            None => SplitPolicy::default(),
        };
        Ok(RunConfig {
            kind,
            threads,
            spec,
            pin: args.pin,
            split_policy,
            json: args.json,
            progress: !args.no_progress && !args.json,
            trace: args.trace.clone(),
            max_nodes: args.max_nodes.as_deref().map(|n| count("--max-nodes", n)).transpose()?,
            time_limit: args.time_limit.as_deref().map(|t| duration("--time-limit", t)).transpose()?,
            deterministic: args.deterministic,
            prelude: None,
            checkpoint: crate::checkpoint::Plan::from_args(&args.checkpoint)?,
        })
    }

    /// Refuses `--deterministic` for `app`, which is not branch and bound.
    pub(crate) fn refuse_deterministic(&self, app: &str) -> Result<(), Error> {
        if self.deterministic {
            return Err(err!(
                "--deterministic applies to branch and bound (clique, knapsack, tsp), not to {app}, whose answer does not depend on the schedule"
            ));
        }
        Ok(())
    }

    /// The configuration of the threads runtime.
    pub(crate) fn threads_config(&self) -> treelb_threads::Config {
        treelb_threads::Config {
            threads: self.threads,
            spec: self.spec.clone(),
            pin: self.pin,
            trace: self.trace.is_some(),
            record_decisions: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args() -> RunArgs {
        RunArgs {
            threads: Some("2".into()),
            runtime: "threads".into(),
            budget: "64".into(),
            split_policy: Some("bottom".into()),
            init: "selective".into(),
            strategy: "random-polling".into(),
            seed: Some("9".into()),
            fanout: None,
            rho: "1.4".into(),
            pin: false,
            json: false,
            no_progress: false,
            trace: None,
            max_nodes: None,
            time_limit: None,
            deterministic: false,
            checkpoint: Default::default(),
        }
    }

    #[test]
    fn good_arguments_become_a_config() {
        let c = RunConfig::from_args(&args()).unwrap();
        assert_eq!(c.threads, 2);
        assert_eq!(c.spec.budget, 64);
        assert_eq!(c.spec.init, Init::Selective);
        assert_eq!(c.spec.seed, 9);
        assert_eq!(c.split_policy, SplitPolicy::Bottom);
        assert_eq!(c.max_nodes, None);
        for (given, n) in [("1000", 1000), ("1e6", 1_000_000), ("2.5e3", 2500)] {
            let c = RunConfig::from_args(&RunArgs { max_nodes: Some(given.into()), ..args() }).unwrap();
            assert_eq!(c.max_nodes, Some(n), "{given}");
        }
    }

    #[test]
    fn durations_parse_with_their_units() {
        for (given, ms) in
            [("90s", 90_000), ("5m", 300_000), ("1h30m", 5_400_000), ("250ms", 250), ("1.5s", 1500)]
        {
            assert_eq!(duration("--time-limit", given).unwrap(), Duration::from_millis(ms), "{given}");
        }
        for (given, message) in [
            ("", "--time-limit expects a duration such as 90s"),
            ("5", "--time-limit `5`: give a unit (h, m, s or ms), e.g. 5s"),
            ("3d", "--time-limit `3d`: unknown unit `d`"),
            ("0s", "--time-limit must be more than 0"),
            ("s", "--time-limit expects a duration"),
            ("1x5s", "--time-limit `1x5s`: unknown unit `x`"),
            ("-1s", "--time-limit expects a duration"),
        ] {
            let e = duration("--time-limit", given).unwrap_err().to_string();
            assert!(e.starts_with(message), "{given}: {e}");
        }
    }

    #[test]
    fn each_bad_argument_names_its_flag() {
        type Breaker = fn(&mut RunArgs);
        let cases: [(Breaker, &str); 12] = [
            (|a| a.max_nodes = Some("0".into()), "--max-nodes must be at least 1, got 0"),
            (|a| a.max_nodes = Some("1.5e3x".into()), "--max-nodes expects a whole number"),
            (|a| a.fanout = Some("4,0".into()), "--fanout must be at least 1, got 0"),
            (|a| a.rho = "1.5".into(), "--rho must lie strictly between 1 and 1.5"),
            (|a| a.rho = "x".into(), "--rho expects a number, got `x`"),
            (|a| a.threads = Some("0".into()), "--threads must be at least 1, got 0"),
            (|a| a.threads = Some("two".into()), "--threads expects a non-negative integer, got `two`"),
            (|a| a.threads = Some("100000".into()), "--threads 100000 is too many (at most 4096)"),
            (|a| a.budget = "0".into(), "--budget must be at least 1, got 0"),
            (|a| a.init = "all".into(), "--init: unknown initialization `all`"),
            (|a| a.split_policy = Some("top".into()), "--split-policy: unknown split policy `top`"),
            (|a| a.strategy = "guess".into(), "--strategy: unknown strategy `guess`"),
        ];
        for (break_it, message) in cases {
            let mut a = args();
            break_it(&mut a);
            let e = RunConfig::from_args(&a).unwrap_err().to_string();
            assert!(e.starts_with(message), "{e}");
            assert!(!e.contains('\n'));
        }
    }
}
