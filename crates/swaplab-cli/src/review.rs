//! `swaplab review`: the checks the proof cannot make, with evidence at file:line and a
//! link to the chapter that explains each. Exit 0 when nothing fails (warnings allowed),
//! 1 when any check fails.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;
use swaplab_core::Workspace;
use swaplab_core::review::{Review, Verdict, review};
use swaplab_core::sim::attack::AttackOptions;

use crate::options::Options;
use crate::style::Style;

#[derive(Serialize)]
struct Document<'r> {
    passed: bool,
    failed: usize,
    warnings: usize,
    #[serde(flatten)]
    review: &'r Review,
}

/// Reviews the workspace.
pub fn run(
    workspace: &Workspace,
    options: &Options,
    style: Style,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let attack = AttackOptions { caller: options.caller.clone(), victim: options.victim.clone() };
    let review = review(workspace, &attack);
    if options.json {
        let document = Document {
            passed: review.passed(),
            failed: review.count(Verdict::Fail),
            warnings: review.count(Verdict::Warn),
            review: &review,
        };
        serde_json::to_writer_pretty(&mut *out, &document)?;
        writeln!(out)?;
    } else {
        write_text(&review, style, out)?;
    }
    Ok(if review.passed() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn write_text(review: &Review, style: Style, out: &mut dyn Write) -> Result<()> {
    let mut title = "";
    for check in &review.checks {
        if check.title != title {
            title = &check.title;
            writeln!(out, "\n{}", style.bold(title))?;
        }
        let mark = match check.verdict {
            Verdict::Fail => style.fail("✗"),
            Verdict::Warn => style.warn("!"),
            Verdict::Pass => style.pass("✓"),
            Verdict::Info => style.dim("·"),
        };
        writeln!(out, "  {mark} {}", check.summary)?;
        writeln!(out, "    {}", style.dim(&format!("id: {}", check.id)))?;
        for evidence in &check.evidence {
            writeln!(out, "    {}  {}", evidence.place(), evidence.text)?;
        }
        if matches!(check.verdict, Verdict::Fail | Verdict::Warn) {
            writeln!(out, "    {}", style.dim(&format!("why: {}", check.why)))?;
        }
    }
    let (failed, warnings) = (review.count(Verdict::Fail), review.count(Verdict::Warn));
    let verdict =
        if failed == 0 { style.pass("review passed") } else { style.fail("review failed") };
    writeln!(
        out,
        "\n{verdict}: {} checks, {failed} failed, {warnings} warnings, {} passed, {} notes",
        review.checks.len(),
        review.count(Verdict::Pass),
        review.count(Verdict::Info)
    )?;
    Ok(())
}
