//! `swaplab`: Swap Lab on the command line.
//!
//! A thin shell: it parses arguments, reads and writes files, and prints what
//! `swaplab-core` computes. Exit codes follow ripgrep's habit: 0 when all is well,
//! 1 when a comparison found a difference, 2 on an error.

mod load;

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use swaplab_core::Workspace;
use swaplab_core::diff::{ChangeStatus, DEFAULT_CONTEXT, diff_text, project_changes};

const USAGE: &str = "\
swaplab — is an MCP server a drop-in replacement for your agent's local tools?

USAGE:
    swaplab examples
        List the built-in examples.
    swaplab export <EXAMPLE> <DIR>
        Write a built-in example's files under DIR, one folder per area:
        before/ and after/ (the two Rasa projects), server/ and crm/.
    swaplab diff (--example <EXAMPLE> | --before <DIR> --after <DIR>)
        Show what the swap changes, file by file, as unified diffs.
    swaplab --help | --version

EXIT STATUS:
    0  success (for diff: the projects are identical)
    1  diff found differences
    2  an error, with a message saying what to fix
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("swaplab: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<ExitCode> {
    let mut out = io::stdout().lock();
    match args.first().map(String::as_str) {
        None | Some("--help" | "-h" | "help") => {
            write!(out, "{USAGE}")?;
            Ok(ExitCode::SUCCESS)
        }
        Some("--version" | "-V") => {
            writeln!(out, "swaplab {}", env!("CARGO_PKG_VERSION"))?;
            Ok(ExitCode::SUCCESS)
        }
        Some("examples") => {
            expect_args(&args[1..], 0, "swaplab examples")?;
            for info in swaplab_content::examples()? {
                writeln!(out, "{:<12} {}", info.id, info.title)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Some("export") => {
            expect_args(&args[1..], 2, "swaplab export <EXAMPLE> <DIR>")?;
            let workspace = example_workspace(&args[1])?;
            let written = export(&workspace, Path::new(&args[2]))?;
            writeln!(out, "wrote {written} files under {}", args[2])?;
            Ok(ExitCode::SUCCESS)
        }
        Some("diff") => {
            let workspace = workspace_from_flags(&args[1..])?;
            diff(&workspace, &mut out)
        }
        Some(other) => bail!("unknown command `{other}`; run `swaplab --help` to see the commands"),
    }
}

fn expect_args(args: &[String], count: usize, usage: &str) -> Result<()> {
    if args.len() != count {
        bail!("expected {count} argument(s): {usage}");
    }
    Ok(())
}

fn example_workspace(id: &str) -> Result<Workspace> {
    match swaplab_content::example(id)? {
        Some(example) => Ok(example.workspace),
        None => {
            let known: Vec<&str> = swaplab_content::examples()?.into_iter().map(|i| i.id).collect();
            bail!("there is no example called `{id}`; the examples are: {}", known.join(", "))
        }
    }
}

fn workspace_from_flags(args: &[String]) -> Result<Workspace> {
    let mut example = None;
    let mut before = None;
    let mut after = None;
    let mut iter = args.iter();
    while let Some(flag) = iter.next() {
        let value = iter.next().with_context(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--example" => example = Some(value.clone()),
            "--before" => before = Some(PathBuf::from(value)),
            "--after" => after = Some(PathBuf::from(value)),
            other => bail!("unknown option `{other}`; run `swaplab --help`"),
        }
    }
    match (example, before, after) {
        (Some(id), None, None) => example_workspace(&id),
        (None, Some(before), Some(after)) => Ok(Workspace {
            before: load::project(&before)?,
            after: load::project(&after)?,
            ..Workspace::default()
        }),
        _ => bail!("give either --example <EXAMPLE>, or both --before <DIR> and --after <DIR>"),
    }
}

fn export(workspace: &Workspace, dir: &Path) -> Result<usize> {
    let mut written = 0;
    for (file, text) in workspace.files() {
        let path = dir.join(file.area.prefix()).join(&file.path);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        written += 1;
    }
    Ok(written)
}

fn diff(workspace: &Workspace, out: &mut impl Write) -> Result<ExitCode> {
    let changes = project_changes(&workspace.before, &workspace.after);
    let changed: Vec<_> = changes.iter().filter(|c| c.status != ChangeStatus::Unchanged).collect();
    for change in &changed {
        let old = workspace.before.file(&change.path).unwrap_or("");
        let new = workspace.after.file(&change.path).unwrap_or("");
        let old_name = match change.status {
            ChangeStatus::Added => "/dev/null".to_owned(),
            _ => format!("before/{}", change.path),
        };
        let new_name = match change.status {
            ChangeStatus::Removed => "/dev/null".to_owned(),
            _ => format!("after/{}", change.path),
        };
        write!(out, "{}", diff_text(old, new, DEFAULT_CONTEXT).unified(&old_name, &new_name))?;
    }
    let summary: Vec<String> = changed
        .iter()
        .map(|c| format!("{} {} (+{} -{})", c.status.code(), c.path, c.added, c.removed))
        .collect();
    eprintln!(
        "{} of {} paths differ{}{}",
        changed.len(),
        changes.len(),
        if summary.is_empty() { "" } else { ":\n  " },
        summary.join("\n  ")
    );
    Ok(if changed.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
