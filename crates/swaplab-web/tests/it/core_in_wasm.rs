//! Core code paths that behave differently in a browser: anything that might read the
//! clock (`similar`'s inline diff panics there when it does) and the draft format.

use swaplab_core::diff::{DEFAULT_CONTEXT, diff_text};
use swaplab_core::session::{Action, Session, decode_draft, encode_draft};
use swaplab_core::{Area, FileRef};
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn word_level_diff_runs_without_a_clock() {
    let old = "import_tools:\n  - find_contact_by_email\n";
    let new = "import_tools:\n  - mcp/hubspot_crm:find_contact_by_email\n";
    let diff = diff_text(old, new, DEFAULT_CONTEXT);
    let added = diff.hunks[0].lines.iter().find(|l| l.new_line == Some(2)).expect("the added line");
    assert!(added.segments.iter().any(|s| s.emphasized), "the changed words are marked");
    assert_eq!((diff.added, diff.removed), (1, 1));
}

#[wasm_bindgen_test]
fn the_default_example_round_trips_through_a_draft() {
    let example = swaplab_content::example(swaplab_content::DEFAULT_EXAMPLE).unwrap().unwrap();
    let mut session = Session::new(Some("tutorial".into()), example.workspace);
    let file = FileRef::new(Area::After, "skills/check_tickets/skill.md");
    session.apply(Action::Edit { file: file.clone(), text: "edited in wasm ✓".into() });
    let restored = decode_draft(&encode_draft(&session)).expect("decodes");
    assert_eq!(restored.workspace.file(&file), Some("edited in wasm ✓"));
}
