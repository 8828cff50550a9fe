//! `treelb`: run tree-shaped computations under dynamic load balancing.
//!
//! `main` → `run` → exit code: 0 when the run succeeded (and its answer
//! matched the published one, where one is known), 1 when an answer did not
//! match or is not trustworthy, 2 for bad input, with a one-line error on
//! stderr, 3 when `--max-nodes`, `--time-limit` or a signal stopped the
//! run (its report is partial), 4 when the report was printed but an output
//! file (`--trace`, `--out`, …) could not be written after it (see
//! [`outputs`]).

mod apps;
mod args;
mod checkpoint;
mod cmd;
mod config;
mod error;
mod outputs;
mod progress;
mod report;
mod run;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::error::ErrorKind;
use treelb_apps::input::escape_text;

use args::{Cli, Command};
use cmd::Status;
use config::Error;

fn main() -> ExitCode {
    let matches = args::command().try_get_matches().and_then(|m| {
        let cli = <Cli as clap::FromArgMatches>::from_arg_matches(&m)?;
        Ok((m, cli))
    });
    let cli = match matches {
        Ok((matches, cli)) => {
            // An option the application does not take (hidden from its help).
            let refused = matches
                .subcommand()
                .and_then(|(name, sub)| config::App::named(name).map(|app| apps::refuse_given(app, sub)));
            if let Some(Err(e)) = refused {
                eprintln!("treelb: error: {}", escape_text(&e.to_string()));
                return ExitCode::from(2);
            }
            cli
        }
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("treelb: {}", escape_text(&one_line(&e.render().to_string())));
            return ExitCode::from(2);
        }
    };
    match run(&cli) {
        Ok(Status::Done) => ExitCode::SUCCESS,
        Ok(Status::Failed) => ExitCode::from(1),
        Ok(Status::Interrupted) => ExitCode::from(3),
        // A closed pipe (`treelb … | head`) is not a failure of the run.
        Err(e) if e.io_kind() == Some(io::ErrorKind::BrokenPipe) => ExitCode::SUCCESS,
        Err(e @ Error::Unwritten(_)) => {
            eprintln!("treelb: error: {}", escape_text(&e.to_string()));
            ExitCode::from(outputs::UNWRITTEN)
        }
        // Escaped whatever the message holds: a path or a name from a
        // file cannot reach the terminal raw through an error.
        Err(e) => {
            eprintln!("treelb: error: {}", escape_text(&e.to_string()));
            ExitCode::from(2)
        }
    }
}

/// clap's message in one line: its first line, the indented lines under it
/// (the arguments that are missing), and the usage line.
///
/// ```text
/// error: the following required arguments were not provided:
///   <FILE>
///
/// Usage: treelb tsp <FILE|--random <N>>
/// ```
///
/// becomes `error: the following required arguments were not provided:
/// <FILE> (usage: treelb tsp <FILE|--random <N>>)`.
fn one_line(text: &str) -> String {
    let mut lines = text.lines();
    let mut message = lines.next().unwrap_or("error: invalid arguments").trim_end().to_owned();
    let named: Vec<&str> =
        lines.take_while(|l| l.starts_with("  ") && !l.trim().is_empty()).map(str::trim).collect();
    if !named.is_empty() {
        message.push(' ');
        message.push_str(&named.join(", "));
    }
    if let Some(usage) = text.lines().find_map(|l| l.strip_prefix("Usage: ")) {
        message.push_str(&format!(" (usage: {})", usage.trim()));
    }
    message
}

/// Runs one subcommand; returns how it ended. The output files it queued
/// are written once its report is on stdout: a file that cannot be written
/// is an error line each (the last one's error is returned, for `main` to
/// print).
fn run(cli: &Cli) -> Result<Status, Error> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let ok = dispatch(&cli.command, &mut out);
    let flushed = out.flush();
    let ok = ok?;
    flushed?;
    let mut unwritten = outputs::write_pending();
    match unwritten.pop() {
        None => Ok(ok),
        Some(last) => {
            for e in unwritten {
                eprintln!("treelb: error: {}", escape_text(&e.to_string()));
            }
            Err(last)
        }
    }
}

/// Runs one subcommand, writing its report to `out`.
fn dispatch(command: &Command, mut out: &mut dyn Write) -> Result<Status, Error> {
    let ok = match command {
        Command::Uts(args) => cmd::uts::run(args, &mut out)?,
        Command::Nqueens(args) => cmd::nqueens::run(args, &mut out)?,
        Command::Bench(args) => cmd::bench::run(args, &mut out)?.into(),
        Command::Compare(args) => cmd::compare::run(args, &mut out)?.into(),
        Command::Sim(args) => cmd::sim::run(args, &mut out)?.into(),
        Command::Clique(args) => cmd::clique::run(args, &mut out)?,
        Command::Connect4(args) => cmd::connect4::run(args, &mut out)?,
        Command::Gametree(args) => cmd::connect4::run_gametree(args, &mut out)?,
        Command::Knapsack(args) => cmd::knapsack::run(args, &mut out)?,
        Command::Tsp(args) => cmd::tsp::run(args, &mut out)?,
        Command::Mandelbrot(args) => cmd::mandelbrot::run(args, &mut out)?,
        Command::Integrate(args) => cmd::integrate::run(args, &mut out)?,
        Command::PlotTrace(args) => cmd::plot_trace::run(args, &mut out)?.into(),
        Command::Resume(args) => {
            let resumed = cmd::resume::prepare(args)?;
            return dispatch(&resumed.command, out);
        }
        Command::Completions(args) => {
            let mut command = args::command();
            clap_complete::generate(args.shell, &mut command, "treelb", &mut out);
            Status::Done
        }
    };
    Ok(ok)
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn clap_messages_become_one_line_with_the_usage() {
        let text = "error: the following required arguments were not provided:\n  <FILE>\n  <N>\n\n\
                    Usage: treelb tsp <FILE|--random <N>>\n\nFor more information, try '--help'.\n";
        assert_eq!(
            one_line(text),
            "error: the following required arguments were not provided: <FILE>, <N> \
             (usage: treelb tsp <FILE|--random <N>>)"
        );
        assert_eq!(
            one_line("error: unexpected argument '-x' found\n"),
            "error: unexpected argument '-x' found"
        );
    }
}
