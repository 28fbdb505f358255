//! `swaplab review`: the checks the proof cannot make, with evidence at file:line and a
//! link to the chapter that explains each. Exit 0 when nothing fails and every check
//! could be made (warnings allowed), 1 when any check fails, 3 when none fails but some
//! could not be tested (`?`: the attack could not run, or some of its probes could not):
//! such a review is "incomplete", never "passed".

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;
use swaplab_core::Workspace;
use swaplab_core::analysis::Analysis;
use swaplab_core::review::{Review, ReviewOutcome, Verdict};
use swaplab_core::sim::attack::AttackOptions;

use crate::options::Options;
use crate::style::Style;
use swaplab_core::words::count;

#[derive(Serialize)]
struct Document<'r> {
    /// No check failed and none was left untested.
    passed: bool,
    /// `passed`, `incomplete` (nothing failed, something not tested) or `failed`.
    outcome: ReviewOutcome,
    failed: usize,
    warnings: usize,
    not_tested: usize,
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
    let review = Analysis::with_attack(workspace, &attack).review;
    if options.json {
        let document = Document {
            passed: review.passed(),
            outcome: review.outcome(),
            failed: review.count(Verdict::Fail),
            warnings: review.count(Verdict::Warn),
            not_tested: review.count(Verdict::NotTested),
            review: &review,
        };
        serde_json::to_writer_pretty(&mut *out, &document)?;
        writeln!(out)?;
    } else {
        write_text(&review, style, out)?;
    }
    Ok(match review.outcome() {
        ReviewOutcome::Passed => ExitCode::SUCCESS,
        ReviewOutcome::Failed => ExitCode::from(1),
        ReviewOutcome::Incomplete => ExitCode::from(3),
    })
}

fn write_text(review: &Review, style: Style, out: &mut dyn Write) -> Result<()> {
    let mut title = "";
    for check in &review.checks {
        if check.title != title {
            title = &check.title;
            writeln!(out, "\n{}", style.bold(title))?;
        }
        let symbol = check.verdict.mark();
        let mark = match check.verdict {
            Verdict::Fail => style.fail(symbol),
            Verdict::Warn | Verdict::NotTested => style.warn(symbol),
            Verdict::Pass => style.pass(symbol),
            Verdict::Info => style.dim(symbol),
        };
        writeln!(out, "  {mark} {}", check.summary)?;
        writeln!(out, "    {}", style.dim(&format!("id: {}", check.id)))?;
        for evidence in &check.evidence {
            writeln!(out, "    {}  {}", evidence.place(), evidence.text)?;
        }
        if check.verdict.explained() {
            writeln!(out, "    {}", style.dim(&format!("why: {}", check.why)))?;
        }
    }
    let verdict = match review.outcome() {
        ReviewOutcome::Passed => style.pass("review passed"),
        ReviewOutcome::Failed => style.fail("review failed"),
        ReviewOutcome::Incomplete => {
            style.warn("review incomplete (nothing failed, but not everything was tested)")
        }
    };
    writeln!(
        out,
        "\n{verdict}: {}, {}",
        count(review.checks.len(), "check", "checks"),
        review.totals()
    )?;
    Ok(())
}
