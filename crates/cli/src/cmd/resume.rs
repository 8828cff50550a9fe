//! `treelb resume FILE`: continue a checkpointed run (see the `checkpoint`
//! module for the protocol and why the answer is exact).

use std::path::Path;

use clap::Parser;
use treelb_checkpoint::CommandLine;

use crate::args::ResumeArgs;
use crate::args::{Cli, Command};
use crate::checkpoint;
use crate::config::{Error, err};

/// The saved command line of the checkpoint `args.file`, patched by
/// `args` and parsed, with the run set to continue from the saved state:
/// the caller runs the command it returns.
pub(crate) fn prepare(args: &ResumeArgs) -> Result<Cli, Error> {
    let saved = treelb_checkpoint::read(Path::new(&args.file))?;
    let argv = patched(&saved.description, args);
    let cli = Cli::try_parse_from(std::iter::once("treelb".to_owned()).chain(argv.iter().cloned())).map_err(
        |e| {
            let first = e.render().to_string();
            err!(
                "{}: the saved command line does not parse: {}",
                args.file,
                first.lines().next().unwrap_or("")
            )
        },
    )?;
    if matches!(cli.command, Command::Resume(_)) {
        return Err(err!("{}: the saved command line is itself a resume", args.file));
    }
    checkpoint::set_resuming(saved, argv);
    Ok(cli)
}

/// The saved command line with the checkpoint file, and whatever `resume`
/// was told to change, replaced.
fn patched(saved: &[String], args: &ResumeArgs) -> Vec<String> {
    let feedback = args.feedback;
    CommandLine::new(saved)
        .replace(&["--checkpoint"], Some(&args.file))
        .replace(&["--threads", "-p"], args.threads.as_deref())
        .replace(&["--checkpoint-every"], args.checkpoint_every.as_deref())
        .switch(&["--json"], args.json)
        // What the resumed run shows on stderr is decided anew.
        .clear(&["--progress", "--quiet", "-q", "--no-progress"])
        .switch(&["--progress"], feedback.progress)
        .switch(&["--quiet"], feedback.quiet)
        .switch(&["--no-progress"], feedback.no_progress)
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn the_saved_command_line_gets_the_new_file_and_threads() {
        let args = ResumeArgs {
            file: "new.ckpt".into(),
            threads: Some("3".into()),
            checkpoint_every: None,
            json: true,
            feedback: crate::args::FeedbackArgs { progress: false, quiet: true, no_progress: false },
        };
        let saved = words(
            "uts --tree T1 -p 2 --checkpoint old.ckpt --checkpoint-every 50ms --json --threads=4 -p7 --no-progress",
        );
        assert_eq!(
            patched(&saved, &args),
            words("uts --tree T1 --checkpoint-every 50ms --checkpoint new.ckpt --threads 3 --json --quiet")
        );
    }
}
