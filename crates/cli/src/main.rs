//! `treelb`: run tree-shaped computations under dynamic load balancing.
//!
//! `main` → `run` → exit code: 0 when the run succeeded (and its answer
//! matched the published one, where one is known), 1 when an answer did not
//! match or is not trustworthy, 2 for bad input, with a one-line error on
//! stderr, 3 when `--max-nodes` stopped the run (its report is partial).

mod args;
mod cmd;
mod config;
mod progress;
mod report;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

use args::{Cli, Command};
use cmd::Status;
use config::Error;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            return ExitCode::from(2);
        }
        Err(e) => {
            // clap's first line says what was wrong; keep the message one line.
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            eprintln!("treelb: {first}");
            return ExitCode::from(2);
        }
    };
    match run(&cli) {
        Ok(Status::Done) => ExitCode::SUCCESS,
        Ok(Status::Failed) => ExitCode::from(1),
        Ok(Status::Interrupted) => ExitCode::from(3),
        // A closed pipe (`treelb … | head`) is not a failure of the run.
        Err(Error(msg)) if msg == io::Error::from(io::ErrorKind::BrokenPipe).to_string() => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("treelb: error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Runs one subcommand; returns how it ended.
fn run(cli: &Cli) -> Result<Status, Error> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let ok = match &cli.command {
        Command::Uts(args) => cmd::uts::run(args, &mut out)?,
        Command::Nqueens(args) => cmd::nqueens::run(args, &mut out)?,
        Command::Bench(args) => cmd::bench::run(args, &mut out)?.into(),
        Command::Compare(args) => cmd::compare::run(args, &mut out)?.into(),
        Command::Sim(args) => cmd::sim::run(args, &mut out)?.into(),
        Command::Clique(args) => cmd::clique::run(args, &mut out)?,
        Command::Knapsack(args) => cmd::knapsack::run(args, &mut out)?,
        Command::Tsp(args) => cmd::tsp::run(args, &mut out)?,
        Command::Mandelbrot(args) => cmd::mandelbrot::run(args, &mut out)?,
        Command::Integrate(args) => cmd::integrate::run(args, &mut out)?,
        Command::PlotTrace(args) => cmd::plot_trace::run(args, &mut out)?.into(),
    };
    out.flush()?;
    Ok(ok)
}
