//! `swaplab prove`: the companion proof, printed as the tutorial's script prints it.
//! Exit 0 when every check passes, 1 when any fails.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;
use swaplab_core::Workspace;
use swaplab_core::proof::{Proof, prove};

use crate::options::Options;
use crate::style::Style;

#[derive(Serialize)]
struct Document<'p> {
    passed: bool,
    checks: usize,
    failed: usize,
    #[serde(flatten)]
    proof: &'p Proof,
}

/// Runs the proof on the workspace.
pub fn run(
    workspace: &Workspace,
    options: &Options,
    style: Style,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let proof = prove(workspace);
    if options.json {
        let document = Document {
            passed: proof.passed(),
            checks: proof.count(),
            failed: proof.failed().len(),
            proof: &proof,
        };
        serde_json::to_writer_pretty(&mut *out, &document)?;
        writeln!(out)?;
    } else {
        let text = proof.to_text();
        let painted = if style.color {
            text.lines()
                .map(|line| {
                    if let Some(rest) = line.strip_prefix("  ✓ ") {
                        format!("  {} {rest}", style.pass("✓"))
                    } else if let Some(rest) = line.strip_prefix("  ✗ ") {
                        format!("  {} {rest}", style.fail("✗"))
                    } else if line.starts_with("  ")
                        && line.chars().nth(2).is_some_and(|c| c.is_ascii_digit())
                    {
                        style.bold(line)
                    } else {
                        line.to_owned()
                    }
                })
                .collect::<Vec<_>>()
                .join("\n")
                + "\n"
        } else {
            text
        };
        write!(out, "{painted}")?;
    }
    Ok(if proof.passed() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
