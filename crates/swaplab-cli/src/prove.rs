//! `swaplab prove`: the companion proof, printed as the tutorial's script prints it.
//! Exit 0 when every check passes, 1 when any fails or the script would stop early, 3
//! when nothing failed but Swap Lab could not run the rest (a tool body outside its
//! Python).

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;
use swaplab_core::Workspace;
use swaplab_core::analysis::Analysis;
use swaplab_core::proof::Proof;

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
    let proof = Analysis::of(workspace).proof;
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
    // 3, as `review` and `attack` use it: nothing failed, but the proof could not run to
    // its end in Swap Lab, so it proved nothing either way.
    Ok(if proof.passed() {
        ExitCode::SUCCESS
    } else if proof.could_not_run() && proof.failed().is_empty() {
        ExitCode::from(3)
    } else {
        ExitCode::from(1)
    })
}
