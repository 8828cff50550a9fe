//! `treelb resume FILE`: continue a checkpointed run (see the `checkpoint`
//! module for the protocol and why the answer is exact).

use std::path::Path;

use clap::Parser;

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
    let mut drop_valued: Vec<&str> = vec!["--checkpoint"];
    let mut drop_flags: Vec<&str> = Vec::new();
    if args.threads.is_some() {
        drop_valued.extend(["--threads", "-p"]);
    }
    if args.checkpoint_every.is_some() {
        drop_valued.push("--checkpoint-every");
    }
    if args.json {
        drop_flags.push("--json");
    }
    // What the resumed run shows on stderr is decided anew.
    drop_flags.extend(["--progress", "--quiet", "-q", "--no-progress"]);
    let mut argv = Vec::with_capacity(saved.len() + 6);
    let mut words = saved.iter();
    while let Some(w) = words.next() {
        if drop_flags.contains(&w.as_str()) {
            continue;
        }
        if drop_valued.contains(&w.as_str()) {
            words.next(); // its value
            continue;
        }
        let glued = drop_valued.iter().any(|f| {
            w.strip_prefix(f).is_some_and(|rest| rest.starts_with('=') || (*f == "-p" && !rest.is_empty()))
        });
        if !glued {
            argv.push(w.clone());
        }
    }
    argv.extend(["--checkpoint".to_owned(), args.file.clone()]);
    if let Some(t) = &args.threads {
        argv.extend(["--threads".to_owned(), t.clone()]);
    }
    if let Some(every) = &args.checkpoint_every {
        argv.extend(["--checkpoint-every".to_owned(), every.clone()]);
    }
    argv.extend(args.json.then(|| "--json".to_owned()));
    argv.extend(args.feedback.progress.then(|| "--progress".to_owned()));
    argv.extend(args.feedback.quiet.then(|| "--quiet".to_owned()));
    argv.extend(args.feedback.no_progress.then(|| "--no-progress".to_owned()));
    argv
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
        let keep =
            ResumeArgs { threads: None, json: false, feedback: crate::args::FeedbackArgs::default(), ..args };
        assert_eq!(
            patched(&words("clique g.col --checkpoint=a -p 2"), &keep),
            words("clique g.col -p 2 --checkpoint new.ckpt")
        );
    }
}
