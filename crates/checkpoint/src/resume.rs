//! The command line of a resumed run: the one its checkpoint saved
//! ([`Saved::description`](crate::Saved::description)), with what the
//! resumed run changes (the checkpoint file, the PEs, the interval)
//! replaced: [`CommandLine`].

/// A saved command line and the changes a resumed run makes to it: options
/// replaced (with their values, in any of the forms `--threads 4`,
/// `--threads=4`, `-p4`), flags set or cleared. The changes are appended in
/// the order they were made.
///
/// ```
/// use treelb_checkpoint::CommandLine;
///
/// let saved: Vec<String> = "uts --tree T1 -p4 --checkpoint old.ckpt --json".split(' ').map(String::from).collect();
/// let argv = CommandLine::new(&saved)
///     .replace(&["--checkpoint"], Some("new.ckpt"))
///     .replace(&["--threads", "-p"], Some("2"))
///     .switch(&["--json"], false)
///     .finish();
/// assert_eq!(argv.join(" "), "uts --tree T1 --json --checkpoint new.ckpt --threads 2");
/// ```
#[derive(Clone, Debug)]
pub struct CommandLine<'s> {
    saved: &'s [String],
    /// Options whose values go with them.
    valued: Vec<&'s str>,
    /// Flags dropped.
    flags: Vec<&'s str>,
    /// What comes after the saved words that remain.
    appended: Vec<String>,
}

impl<'s> CommandLine<'s> {
    /// The command line `saved`, unchanged so far.
    pub fn new(saved: &'s [String]) -> Self {
        CommandLine { saved, valued: Vec::new(), flags: Vec::new(), appended: Vec::new() }
    }

    /// If `value` is given, drops the option of `names` (its long name
    /// first, then any other, e.g. its short one) with its value, and
    /// appends `names[0] value`.
    pub fn replace(mut self, names: &[&'s str], value: Option<&str>) -> Self {
        if let Some(value) = value {
            self.valued.extend(names);
            self.appended.extend([names[0].to_owned(), value.to_owned()]);
        }
        self
    }

    /// If `on`, drops the flag of `names` and appends `names[0]`.
    pub fn switch(mut self, names: &[&'s str], on: bool) -> Self {
        if on {
            self.flags.extend(names);
            self.appended.push(names[0].to_owned());
        }
        self
    }

    /// Drops the flags `names`, whatever comes after.
    pub fn clear(mut self, names: &[&'s str]) -> Self {
        self.flags.extend(names);
        self
    }

    /// The command line of the resumed run.
    pub fn finish(self) -> Vec<String> {
        let mut argv = Vec::with_capacity(self.saved.len() + self.appended.len());
        let mut words = self.saved.iter();
        while let Some(w) = words.next() {
            if self.flags.contains(&w.as_str()) {
                continue;
            }
            if self.valued.contains(&w.as_str()) {
                words.next(); // its value
                continue;
            }
            let short = |f: &str| f.len() == 2 && !f.starts_with("--");
            let joined = self.valued.iter().any(|f| {
                w.strip_prefix(f).is_some_and(|rest| rest.starts_with('=') || (short(f) && !rest.is_empty()))
            });
            if !joined {
                argv.push(w.clone());
            }
        }
        argv.extend(self.appended);
        argv
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn the_saved_command_line_gets_the_new_file_and_threads() {
        let saved = words(
            "uts --tree T1 -p 2 --checkpoint old.ckpt --checkpoint-every 50ms --json --threads=4 -p7 --no-progress",
        );
        let argv = CommandLine::new(&saved)
            .replace(&["--checkpoint"], Some("new.ckpt"))
            .replace(&["--threads", "-p"], Some("3"))
            .replace(&["--checkpoint-every"], None)
            .switch(&["--json"], true)
            .clear(&["--progress", "--quiet", "-q", "--no-progress"])
            .switch(&["--quiet"], true)
            .finish();
        assert_eq!(
            argv,
            words("uts --tree T1 --checkpoint-every 50ms --checkpoint new.ckpt --threads 3 --json --quiet")
        );
        let saved = words("clique g.col --checkpoint=a -p 2");
        let argv = CommandLine::new(&saved).replace(&["--checkpoint"], Some("new.ckpt")).finish();
        assert_eq!(argv, words("clique g.col -p 2 --checkpoint new.ckpt"));
    }
}
