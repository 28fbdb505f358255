//! The options every check command shares: where the workspace comes from, `--json`, and
//! the few command-specific switches. A bare folder argument is a project in the
//! tutorial's layout, like `--tutorial <DIR>`.

use anyhow::{Result, bail};

/// Parsed options of one command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Workspace flags (`--example`, `--tutorial`, `--before`, `--after`, `--server`,
    /// `--crm`, `--conversations`), as given.
    pub workspace: Vec<String>,
    /// `--json`: one JSON document on stdout.
    pub json: bool,
    /// `--side-by-side` (diff).
    pub side_by_side: bool,
    /// `--policy <faithful|confused|adversarial|all>` (converse).
    pub policy: Option<String>,
    /// `--script <STEM>` (converse).
    pub script: Option<String>,
    /// `--side <before|after|both>` (converse).
    pub side: Option<String>,
    /// `--caller <CONTACT_ID>` (attack, review).
    pub caller: Option<String>,
    /// `--victim <CONTACT_ID>` (attack, review).
    pub victim: Option<String>,
}

const WORKSPACE_FLAGS: [&str; 7] =
    ["--example", "--tutorial", "--before", "--after", "--server", "--crm", "--conversations"];

/// Splits a command's arguments; `allowed` lists the command-specific switches it takes.
pub fn parse(args: &[String], allowed: &[&str]) -> Result<Options> {
    let mut options = Options::default();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let arg = arg.as_str();
        let mut value = |name: &str| -> Result<String> {
            match iter.next() {
                Some(v) => Ok(v.clone()),
                None => bail!("{name} needs a value"),
            }
        };
        match arg {
            _ if WORKSPACE_FLAGS.contains(&arg) => {
                let v = value(arg)?;
                options.workspace.push(arg.to_owned());
                options.workspace.push(v);
            }
            "--json" if allowed.contains(&"--json") => options.json = true,
            "--side-by-side" if allowed.contains(&"--side-by-side") => options.side_by_side = true,
            "--policy" if allowed.contains(&"--policy") => options.policy = Some(value(arg)?),
            "--script" if allowed.contains(&"--script") => options.script = Some(value(arg)?),
            "--side" if allowed.contains(&"--side") => options.side = Some(value(arg)?),
            "--caller" if allowed.contains(&"--caller") => options.caller = Some(value(arg)?),
            "--victim" if allowed.contains(&"--victim") => options.victim = Some(value(arg)?),
            _ if arg.starts_with('-') => bail!("unknown option `{arg}`; run `swaplab --help`"),
            dir => {
                if options.workspace.chunks(2).any(|pair| pair[0] != "--conversations") {
                    bail!("give the project once: a folder `{dir}` and workspace options together");
                }
                options.workspace.push("--tutorial".to_owned());
                options.workspace.push(dir.to_owned());
            }
        }
    }
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|a| (*a).to_owned()).collect()
    }

    #[test]
    fn a_bare_folder_goes_with_conversations_on_either_side() {
        let expected = args(&["--conversations", "mine", "--tutorial", "proj"]);
        let first = parse(&args(&["--conversations", "mine", "proj"]), &[]).expect("parses");
        assert_eq!(first.workspace, expected);
        let last = parse(&args(&["proj", "--conversations", "mine"]), &[]).expect("parses");
        assert_eq!(last.workspace, args(&["--tutorial", "proj", "--conversations", "mine"]));
    }

    #[test]
    fn a_bare_folder_with_another_workspace_flag_is_refused() {
        let error = parse(&args(&["--example", "tutorial", "proj"]), &[]).expect_err("twice");
        assert!(error.to_string().contains("give the project once"), "{error}");
        let error = parse(&args(&["a", "b"]), &[]).expect_err("two folders");
        assert!(error.to_string().contains("give the project once"), "{error}");
    }
}
