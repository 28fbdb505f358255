//! Running other programs: announced before they start, with output shown live, and
//! failures that name the command.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::process::{Command, ExitStatus, Stdio};

use anyhow::{Context, Result, bail};

/// Prints a step heading.
pub fn step(text: &str) {
    println!("\n==> {text}");
}

/// Prints a line under a step.
pub fn note(text: &str) {
    println!("    {text}");
}

/// The command as a shell-like line, for messages.
pub fn describe(command: &Command) -> String {
    let mut parts = vec![command.get_program().to_string_lossy().into_owned()];
    parts.extend(command.get_args().map(quote));
    parts.join(" ")
}

fn quote(arg: &OsStr) -> String {
    let arg = arg.to_string_lossy();
    if arg.is_empty() || arg.contains([' ', '"', '\'', '$']) {
        format!("'{}'", arg.replace('\'', "'\\''"))
    } else {
        arg.into_owned()
    }
}

/// Runs a command with its output going straight to the terminal; fails unless it
/// exits with 0.
pub fn run(command: &mut Command) -> Result<()> {
    let line = describe(command);
    println!("    $ {line}");
    let status = command.status().with_context(|| format!("could not start `{line}`"))?;
    if !status.success() {
        bail!("`{line}` failed ({})", exit_text(status));
    }
    Ok(())
}

/// Runs a command, showing its output live and also returning its standard output.
/// The caller decides what a failing exit status means.
pub fn run_capturing(command: &mut Command) -> Result<(ExitStatus, String)> {
    let line = describe(command);
    println!("    $ {line}");
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("could not start `{line}`"))?;
    let stdout = child.stdout.take().expect("stdout was piped");
    let mut captured = String::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.context("reading the command's output")?;
        println!("{line}");
        captured.push_str(&line);
        captured.push('\n');
    }
    let status = child.wait().with_context(|| format!("waiting for `{line}`"))?;
    Ok((status, captured))
}

/// Runs a command quietly and returns its standard output, or `None` when it cannot
/// start or fails. For probing versions.
pub fn probe(program: impl AsRef<OsStr>, args: &[&str], path: &OsStr) -> Option<String> {
    let output = Command::new(program.as_ref())
        .args(args)
        .env("PATH", path)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// "exit code 3" or "killed by a signal".
pub fn exit_text(status: ExitStatus) -> String {
    match status.code() {
        Some(code) => format!("exit code {code}"),
        None => "killed by a signal".to_owned(),
    }
}
