//! A wasm size probe: the site's engine with no interface, for one measurement: how much
//! of the site's wasm the engine alone weighs. `cargo xtask bench` builds this crate the
//! way Trunk builds the web app (the `wasm-release` profile, `wasm-bindgen --target web`,
//! and `wasm-opt` with the level and parameters `www/index.html` gives Trunk) and reports
//! its brotli size beside the site's.
//!
//! Each export calls what the web app calls in `swaplab-core` and `swaplab-content` —
//! the playground's analysis with its memo, a scripted conversation and its id trace,
//! markdown, highlighting, diffs, permalinks, drafts, imports, exercises, the workshop
//! and its receipts — and returns a number or a string that depends on every result, so
//! the linker keeps the code that computes them. Nothing here is served.

use std::cell::RefCell;
use std::rc::Rc;

use swaplab_content::exercise::Evaluation;
use swaplab_core::analysis::Analysis;
use swaplab_core::diff::{DEFAULT_CONTEXT, diff_text, project_changes, side_by_side, swap_marks};
use swaplab_core::highlight::{Language, highlight};
use swaplab_core::memo::Memo;
use swaplab_core::sim::Side;
use swaplab_core::sim::conversation::{Policy, RunOptions, run_script};
use swaplab_core::sim::trace::trace;
use swaplab_core::{Area, Workspace, archive, permalink, session};
use wasm_bindgen::prelude::wasm_bindgen;

thread_local! {
    /// The memo the playground keeps between edits.
    static MEMO: RefCell<Memo> = RefCell::new(Memo::new());
}

fn example(id: &str) -> Option<Workspace> {
    swaplab_content::example(id).ok().flatten().map(|e| e.workspace)
}

/// The playground's work after an edit of the built-in example `id`, then one scripted
/// conversation on `side` (0 before, else after) under `policy` (0 faithful, 1 confused,
/// else adversarial). Returns how many results it produced.
#[wasm_bindgen]
pub fn analyse(id: &str, side: u8, policy: u8) -> usize {
    let Some(workspace) = example(id) else { return 0 };
    let workspace = Rc::new(workspace);
    MEMO.with(|memo| {
        let Analysis { sim, proof, review, semantic } =
            Analysis::with_memo(&workspace, &mut memo.borrow_mut());
        let mut found = proof.groups.len() + review.checks.len() + semantic.len();
        let side = if side == 0 { Side::Before } else { Side::After };
        let policy = match policy {
            0 => Policy::Faithful,
            1 => Policy::Confused,
            _ => Policy::Adversarial,
        };
        if let (Some(script), Ok(agent)) = (sim.scripts.first(), sim.start(side)) {
            let transcript =
                run_script(&agent, &sim.seed, script, &RunOptions { policy, answers: Vec::new() });
            found += transcript.entries.len() + trace(&agent, &sim.seed, &transcript).len();
        }
        found += project_changes(&workspace.before, &workspace.after).len();
        found
    })
}

/// Markdown rendered with the widget directive, the text highlighted as `language`
/// (0 YAML, 1 markdown, 2 Python, else plain), its diff against `other` side by side,
/// and a widget and a receipt paste read from it. Returns how many parts they have.
#[wasm_bindgen]
pub fn text(markdown: &str, other: &str, language: u8) -> usize {
    let language = match language {
        0 => Language::Yaml,
        1 => Language::Markdown,
        2 => Language::Python,
        _ => Language::Plain,
    };
    let document = swaplab_core::markdown::render_with_directives(
        markdown,
        &[swaplab_content::widget::DIRECTIVE],
    );
    let diff = diff_text(other, markdown, DEFAULT_CONTEXT);
    document.nodes.len()
        + highlight(language, markdown).len()
        + side_by_side(&diff).len()
        + usize::from(swaplab_content::widget::parse_widget(markdown, 1).is_ok())
        + swaplab_content::receipt::read_paste(markdown).codes.len()
}

/// A permalink decoded and encoded again, or why it could not be read.
#[wasm_bindgen]
pub fn relink(fragment: &str) -> String {
    match permalink::decode(fragment, &example) {
        Ok(link) => permalink::encode(&link, link.example.as_deref().and_then(example).as_ref()),
        Err(error) => error.to_string(),
    }
}

/// A draft decoded and encoded again, or why it could not be read.
#[wasm_bindgen]
pub fn redraft(text: &str) -> String {
    match session::decode_draft(text) {
        Ok(draft) => session::encode_draft(&draft),
        Err(error) => error.to_string(),
    }
}

/// A zip archive's files as the import actions for the after project, checked against
/// an empty workspace: how many there are, or why they cannot be applied.
#[wasm_bindgen]
pub fn import_zip(bytes: &[u8]) -> Result<usize, String> {
    let archive = archive::read_zip(bytes).map_err(|e| e.to_string())?;
    let actions = archive::split_project(archive.files).imports(Area::After, true);
    session::check_all(&Workspace::default(), &actions)?;
    Ok(actions.len())
}

/// Exercise `id` checked on its starting files, with how many exercises, examples and
/// workshop steps there are.
#[wasm_bindgen]
pub fn check_exercise(id: &str) -> usize {
    let Ok(Some(exercise)) = swaplab_content::exercise(id) else { return 0 };
    let workspace = Rc::new(exercise.start.clone());
    let Analysis { sim, proof, review, .. } = Analysis::of(&workspace);
    let evaluation = Evaluation::of(&exercise, &workspace, &sim, &proof, &review, None);
    let changes = project_changes(&exercise.start.before, &exercise.solution.before);
    evaluation.results.len()
        + swap_marks(&changes).len()
        + swaplab_content::exercises().map_or(0, |all| all.len())
        + swaplab_content::examples().map_or(0, |all| all.len())
        + swaplab_content::workshop::workshop().map_or(0, |plan| plan.steps.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_export_does_real_work_on_the_built_in_content() {
        let id = swaplab_content::DEFAULT_EXAMPLE;
        assert!(analyse(id, 1, 1) > 10, "the analysis of {id} found too little");
        assert!(text("# Title\n\nSome `code`.\n", "# Title\n", 1) > 2);
        let first = swaplab_content::exercises().unwrap()[0].id;
        assert!(check_exercise(first) > 3);
        assert_eq!(
            redraft("not a draft"),
            session::decode_draft("not a draft").unwrap_err().to_string()
        );
    }
}
