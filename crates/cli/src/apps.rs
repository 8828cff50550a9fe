//! Which runtime runs the PEs, and the options an application refuses
//! ([`treelb_apps::catalog`] says which, and why).

pub(crate) use treelb_apps::catalog::{APPS, App, Defaults as AppDefaults};

use crate::error::{Error, err};

/// Which runtime runs the PEs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Runtime {
    /// Threads of this process.
    Threads,
    /// MPI ranks (times threads per rank); needs a build with `--features mpi`.
    Mpi,
}

impl Runtime {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Runtime::Threads => "threads",
            Runtime::Mpi => "mpi",
        }
    }

    /// The runtime, if this build has it.
    pub(crate) fn available(self) -> Result<Self, Error> {
        match self {
            Runtime::Mpi if !cfg!(feature = "mpi") => {
                Err(err!("--runtime mpi: this treelb was built without MPI (build with `--features mpi`)"))
            }
            r => Ok(r),
        }
    }
}

/// The application `name` of [`APPS`].
pub(crate) fn app(name: &str) -> &'static App {
    App::named(name).unwrap_or_else(|| panic!("`{name}` is not in APPS"))
}

/// Refuses the options of `matches` (the subcommand of `app`) that `app`
/// does not take and that the command line gave.
pub(crate) fn refuse_given(app: &App, matches: &clap::ArgMatches) -> Result<(), Error> {
    for (id, why) in app.refused {
        let given = matches.try_contains_id(id).is_ok_and(|present| present)
            && matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine);
        if given {
            let flag = format!("--{}", id.replace('_', "-"));
            return Err(err!("{flag} does not apply to {}: {why}", app.name));
        }
    }
    Ok(())
}
