//! The playground's whole per-edit computation (`Analysis::of`, the scripted run and
//! the project diff) on generated workspaces, timed in Chromium: the browser half of
//! the scaling benchmark. The workspaces are the native `scale` bench's, built from
//! the embedded tutorial. Ignored by `cargo xtask test` (a timing is not a test);
//! `cargo xtask bench` runs it in release mode with `--include-ignored` and reads the
//! `scale-browser:` lines it prints.

use std::rc::Rc;

use swaplab_core::diff::project_changes;
use swaplab_core::memo::Memo;
use swaplab_core::sim::Side;
use swaplab_core::sim::conversation::{RunOptions, run_script};
use swaplab_web::panes::Analysis;
use wasm_bindgen_test::{console_log, wasm_bindgen_test};

#[path = "../../../swaplab-core/benches/support/scale.rs"]
mod generated;

/// What the generator builds on: the tutorial, here from the embedded content.
mod tutorial {
    use swaplab_core::Workspace;

    pub fn tutorial() -> Workspace {
        swaplab_content::example("tutorial")
            .ok()
            .flatten()
            .expect("the tutorial is embedded")
            .workspace
    }
}

fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// One edit's work, as the playground does it, returning a figure that depends on all
/// of it so none of it can be skipped.
fn per_edit(workspace: &Rc<swaplab_core::Workspace>, memo: &mut Memo) -> usize {
    let analysis = Analysis::with_memo(workspace, 1, memo);
    let changes = project_changes(&workspace.before, &workspace.after);
    let conversation = analysis.sim.scripts.first().and_then(|script| {
        let agent = analysis.sim.start(Side::After).ok()?;
        Some(run_script(&agent, &analysis.sim.seed, script, &RunOptions::default()).entries.len())
    });
    analysis.review.checks.len() + changes.len() + conversation.unwrap_or(0)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

#[wasm_bindgen_test]
#[ignore = "a timing, run by `cargo xtask bench`"]
fn per_edit_work_on_generated_workspaces() {
    for skills in [3, 30, 300] {
        let workspace = Rc::new(generated::workspace(skills));
        let found = per_edit(&workspace, &mut Memo::new());
        assert!(found > skills, "{skills} skills: {found}");
        let runs = if skills >= 300 { 7 } else { 15 };
        // Everything from nothing: a fresh memo per run.
        let times: Vec<f64> = (0..runs)
            .map(|_| {
                let start = now();
                std::hint::black_box(per_edit(&workspace, &mut Memo::new()));
                now() - start
            })
            .collect();
        report(skills, "", &times);
        // One keystroke's case: two versions a `skill.md` apart, taking turns, with the
        // memo the previous run left.
        let versions = [workspace.clone(), Rc::new(generated::with_one_skill_edited(&workspace))];
        let mut memo = Memo::new();
        per_edit(&versions[1], &mut memo);
        let times: Vec<f64> = (0..15)
            .map(|turn| {
                let start = now();
                std::hint::black_box(per_edit(&versions[turn % 2], &mut memo));
                now() - start
            })
            .collect();
        report(skills, " one-edit", &times);
    }
}

/// Prints one `scale-browser:` line for `cargo xtask bench` to read.
fn report(skills: usize, kind: &str, times: &[f64]) {
    let (min, max) =
        (times.iter().copied().fold(f64::MAX, f64::min), times.iter().copied().fold(0.0, f64::max));
    console_log!(
        "scale-browser: {skills} skills{kind} median {:.2} ms min {min:.2} max {max:.2} runs {}",
        median(times.to_vec()),
        times.len()
    );
}
