//! The options every check command shares: where the workspace comes from, `--json`, and
//! the few command-specific switches. A bare folder argument is a project in the
//! tutorial's layout, like `--tutorial <DIR>`.

use anyhow::{Result, bail};

/// Parsed options of one command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Workspace flags (`--example`, `--tutorial`, `--before`, `--after`, `--server`,
    /// `--crm`), as given.
    pub workspace: Vec<String>,
    /// `--json`: one JSON document on stdout.
    pub json: bool,
    /// `--side-by-side` (diff).
    pub side_by_side: bool,
    /// `--policy <faithful|confused|adversarial>` (attack, review).
    pub policy: Option<String>,
    /// `--caller <CONTACT_ID>` (attack, review).
    pub caller: Option<String>,
    /// `--victim <CONTACT_ID>` (attack, review).
    pub victim: Option<String>,
}

const WORKSPACE_FLAGS: [&str; 6] =
    ["--example", "--tutorial", "--before", "--after", "--server", "--crm"];

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
            "--caller" if allowed.contains(&"--caller") => options.caller = Some(value(arg)?),
            "--victim" if allowed.contains(&"--victim") => options.victim = Some(value(arg)?),
            _ if arg.starts_with('-') => bail!("unknown option `{arg}`; run `swaplab --help`"),
            dir => {
                if !options.workspace.is_empty() {
                    bail!("give the project once: a folder `{dir}` and workspace options together");
                }
                options.workspace.push("--tutorial".to_owned());
                options.workspace.push(dir.to_owned());
            }
        }
    }
    Ok(options)
}
