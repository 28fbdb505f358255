//! What the fuzz targets in `fuzz/` found, kept as tests so that `cargo test` guards each
//! fix without the fuzzer. Every input a target crashed on is a file under
//! `fixtures/fuzz-regressions/<target>/` (bytes as libFuzzer wrote them, read as the
//! target reads them: invalid UTF-8 replaced) and is replayed through that target's
//! readers with the target's checks; a named test states each finding.
// Tests read the saved inputs from disk; the core does not.
#![allow(clippy::disallowed_methods)]

use std::path::Path;

use swaplab_core::diagnostic::{Diagnostic, Position};
use swaplab_core::rasa::integrations::read_integrations;
use swaplab_core::rasa::memory::{read_project_memory, read_skill_memory};
use swaplab_core::rasa::responses::read_responses;
use swaplab_core::rasa::skill::compile_skill;
use swaplab_core::sim::conversation::read_script;
use swaplab_core::sim::crm::read_seed;
use swaplab_core::yaml;

use crate::support::list;

/// The saved inputs of one target.
fn inputs(target: &str) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/fuzz-regressions");
    list(&dir.join(target))
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).expect("a saved input");
            String::from_utf8_lossy(&bytes).into_owned()
        })
        .collect()
}

/// The fuzz targets' check (`swaplab_fuzz::check_diagnostics`): a diagnostic about `file`
/// points into `text` — lines end at `\n`, columns count characters, one past a line's
/// end allowed — and its span is not reversed.
fn assert_inside(file: &str, text: &str, diagnostics: &[Diagnostic]) {
    let lines: Vec<&str> = text.split('\n').collect();
    let inside = |at: Position| {
        at.line >= 1
            && at.column >= 1
            && lines
                .get(at.line as usize - 1)
                .is_some_and(|l| at.column as usize <= l.chars().count() + 1)
    };
    for d in diagnostics.iter().filter(|d| d.file == file) {
        assert!(inside(d.span.start) && inside(d.span.end), "{text:?}: outside the text: {d:?}");
        assert!(d.span.start <= d.span.end, "{text:?}: a reversed span: {d:?}");
    }
}

/// Every YAML reader on one text, as the `yaml_config` target runs them.
fn every_yaml_reader(text: &str) {
    let _ = yaml::parse(text, Position::START);
    assert_inside(
        "integrations.yml",
        text,
        &read_integrations("integrations.yml", Some(text)).diagnostics,
    );
    assert_inside("memory.yml", text, &read_project_memory("memory.yml", Some(text)).diagnostics);
    let skill = read_skill_memory("skills/x/memory.yml", "x", text);
    assert_inside("skills/x/memory.yml", text, &skill.diagnostics);
    assert_inside("responses.yml", text, &read_responses("responses.yml", text).diagnostics);
    assert_inside("crm.yml", text, &read_seed("crm.yml", text).diagnostics);
    let script = read_script("conversations/x.yml", text);
    assert_inside("conversations/x.yml", text, &script.diagnostics);
}

#[test]
fn saved_yaml_inputs_give_diagnostics_inside_their_text() {
    let saved = inputs("yaml_config");
    assert!(!saved.is_empty(), "the yaml_config inputs are in fixtures/fuzz-regressions/");
    for text in saved {
        every_yaml_reader(&text);
    }
}

/// Found by `yaml_config`: a block collection that runs to the end of a text without a
/// final line break ended, in saphyr's marker, on the line after the last one, so
/// `memory.yml` holding a list was refused with a span past the end of the file. The
/// span now ends where the text does, as PyYAML's `end_mark` does.
#[test]
fn a_block_collection_at_the_end_of_the_text_ends_there() {
    for (text, end) in [
        ("- a", Position::new(1, 4)),
        ("- a\n- b", Position::new(2, 4)),
        ("x:\n  - 1\n  - 2", Position::new(3, 6)),
        ("- a\n", Position::new(2, 1)),
    ] {
        let node = yaml::parse(text, Position::START).expect("valid YAML").expect("a document");
        assert_eq!(node.span.end, end, "{text:?}");
        every_yaml_reader(text);
    }
    let memory = read_project_memory("memory.yml", Some("- a"));
    let refusal = memory.diagnostics.first().expect("a list is refused");
    assert_eq!(refusal.code, "swaplab.memory.invalid");
    assert_eq!(refusal.span.end, Position::new(1, 4));
}

/// Found by `yaml_config`: in a directive line, an unprintable character after a U+FFFD
/// (`%\u{FFFD}\0`, from the bytes `%\xb4\0`) was reported by saphyr two columns past the
/// end of its line. An error's column now stops one past the line's last character.
#[test]
fn a_yaml_error_never_points_past_the_end_of_its_line() {
    for (text, origin) in [
        ("%\u{FFFD}\0\nu", Position::START),
        ("%\u{FFFD}\0\nu", Position::new(4, 1)),
        ("a: 1\n%\u{FFFD}\0\nu", Position::new(2, 1)),
    ] {
        let error = yaml::parse(text, origin).expect_err("refused");
        let line = text.split('\n').nth((error.at.line - origin.line) as usize).expect("a line");
        let first = if error.at.line == origin.line { origin.column } else { 1 };
        assert!(error.at.column <= first + line.chars().count() as u32, "{text:?}: {error:?}");
        assert!(error.at.line >= origin.line, "{text:?}: {error:?}");
    }
    every_yaml_reader("%\u{FFFD}\0\nu");
}

#[test]
fn saved_skill_inputs_give_diagnostics_inside_their_text() {
    let saved = inputs("skill");
    assert!(!saved.is_empty(), "the skill inputs are in fixtures/fuzz-regressions/");
    for text in saved {
        let compiled = compile_skill("skills/fuzzed/skill.md", "fuzzed", &text);
        assert_inside("skills/fuzzed/skill.md", &text, &compiled.diagnostics);
    }
}

/// Found by `skill` once its position check covered every `skill.md`: the skill reader
/// splits a file as Python's `str.splitlines` does, so a `\x1e` (or `\v`, `\f`, `\x85`,
/// U+2028, U+2029, a lone `\r`) ends a line for it but not for the editor, and the YAML of
/// the frontmatter or of an ordered block then counted one line more than the file shows:
/// a finding could point past the file's end. Such YAML is now read from its own start and
/// every position mapped back through the joined text.
#[test]
fn yaml_in_a_skill_with_splitlines_only_breaks_points_into_the_file() {
    let block = "---\ndescription: Demo.\n---\n\n:::ordered_block id=a\nsteps:\n  - id: one\n    \
                 instructions: |\n      Read it.\x1eThen stop.\n    complete_when: x\n  - id two\n:::\n";
    let compiled = compile_skill("skills/demo/skill.md", "demo", block);
    let error = compiled.error.clone().expect("the block's YAML is refused");
    assert_eq!(error.code, "swaplab.yaml.syntax", "{error:?}");
    // `Then stop.` ends the block scalar (it is not indented) and is no key: the error is
    // on the editor's 10th line, after the `\x1e` at column 15 (for splitlines, line 11).
    assert_eq!(error.span.start.line, 10, "{error:?}");
    assert!(error.span.start.column > 15, "{error:?}");
    assert_inside("skills/demo/skill.md", block, &compiled.diagnostics);
}
