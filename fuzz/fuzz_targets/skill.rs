//! Fuzz target `skill`: any bytes as a `skill.md` — the skill compiler
//! (`rasa::skill::compile_skill`: delimiters, frontmatter, `tool_constraints`, prose and
//! `if:` segments, ordered blocks, steps, references), the project reader around it
//! (`rasa::project::read_project` with the file as a skill beside the tutorial's project,
//! so the cross-file train findings see it) and the editor's markdown highlighter.
//! The compiler must answer with a skill or an error, never both, and every diagnostic
//! about the file must point into it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use swaplab_core::highlight::{Language, highlight};
use swaplab_core::rasa::project::read_project;
use swaplab_core::rasa::skill::compile_skill;
use swaplab_fuzz::{check_diagnostics, check_tokens};

const FILE: &str = "skills/fuzzed/skill.md";

fuzz_target!(|data: &[u8]| {
    let text = swaplab_fuzz::text(data);
    let result = compile_skill(FILE, "fuzzed", &text);
    assert!(result.compiled.is_some() != result.error.is_some(), "a skill or an error");
    if let Some(error) = &result.error {
        assert!(!error.code.is_empty() && !error.message.is_empty());
        assert!(error.span.start.line >= 1 && error.span.start.column >= 1);
    }
    check_diagnostics(FILE, &text, &result.diagnostics);
    check_tokens(&text, &highlight(Language::Markdown, &text));

    let mut project = swaplab_fuzz::tutorial().after.clone();
    let files = project.files().map(|(p, t)| (p.to_owned(), t.to_owned()));
    let files = files.chain([(FILE.to_owned(), text.to_string())]);
    project = swaplab_core::Project::from_files(files.collect::<Vec<_>>());
    let report = read_project(&project);
    assert!(report.diagnostics.iter().all(|d| !d.message.is_empty()));
    check_diagnostics(FILE, &text, &report.diagnostics);
});
