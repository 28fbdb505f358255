//! The examples gallery replayed: every example's proof, review and attack against its
//! `expect:`, the derived examples against their base, and the errors an edit that does
//! not apply reports.

use swaplab_content::{
    DEFAULT_EXAMPLE, Edit, Expectation, Outcome, example, example_in, examples, examples_in, files,
};
use swaplab_core::sim::json::{self, JsonValue};
use swaplab_core::sim::run::Run;
use swaplab_core::sim::{Side, Simulation};
use swaplab_core::{Area, FileRef, Workspace};

fn workspace(id: &str) -> Workspace {
    example(id).expect("loads").unwrap_or_else(|| panic!("no example {id}")).workspace
}

/// The files that differ between two workspaces, as `area/path`.
fn changed_files(a: &Workspace, b: &Workspace) -> Vec<String> {
    let mut out: Vec<String> = a
        .files()
        .filter(|(file, text)| b.file(file) != Some(*text))
        .map(|(file, _)| file.to_string())
        .chain(b.files().filter(|(file, _)| a.file(file).is_none()).map(|(f, _)| f.to_string()))
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn every_example_gets_the_verdicts_its_expect_records() {
    let infos = examples().expect("every example loads");
    assert!(infos.len() >= 9, "the gallery has {} examples", infos.len());
    let mut failures = Vec::new();
    for info in &infos {
        let Some(expected) = &info.expect else {
            failures.push(format!("{}: example.yml has no `expect:`", info.id));
            continue;
        };
        let observed = Expectation::observe(&workspace(info.id));
        let differences = expected.differences(&observed);
        if !differences.is_empty() {
            failures.push(format!(
                "{}: the verdicts differ from content/examples/{}/example.yml:\n  {}\nobserved:\n{}",
                info.id,
                info.id,
                differences.join("\n  "),
                observed.to_yaml()
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn a_leak_count_from_an_attack_that_did_not_run_says_so() {
    // Every example whose agent does not start after the swap says its attack there did
    // not run: its `leaks_after: 0` is not "no leak".
    for info in examples().unwrap() {
        let expect = info.expect.as_ref().unwrap();
        if !expect.starts {
            assert!(!expect.tested_after, "{}: `tested_after: false` is missing", info.id);
        }
        assert!(expect.tested_before, "{}", info.id);
    }
    // Leaving it out is a difference the replay reports.
    let mut claimed = example("renamed-import").unwrap().unwrap().info.expect.unwrap();
    claimed.tested_after = true;
    let observed = Expectation::observe(&workspace("renamed-import"));
    assert!(!observed.tested_after && observed.leaks_after == 0);
    assert_eq!(claimed.differences(&observed), ["tested_after: expected true, got false"]);
    assert!(observed.to_yaml().contains("  leaks_after: 0\n  tested_after: false\n"));
    assert!(!Expectation::observe(&workspace(DEFAULT_EXAMPLE)).to_yaml().contains("tested_"));
}

#[test]
fn the_gallery_opens_with_the_default_example_and_uses_kebab_case_ids() {
    let infos = examples().unwrap();
    assert_eq!(infos[0].id, DEFAULT_EXAMPLE);
    assert!(infos[1..].windows(2).all(|w| w[0].id < w[1].id), "the rest are sorted by id");
    for info in &infos {
        let kebab = info.id.split('-').all(|part| {
            !part.is_empty() && part.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        });
        assert!(kebab, "{} is not kebab-case", info.id);
        let sentences = info.summary.matches(". ").count() + 1;
        assert!((2..=4).contains(&sentences), "{}: {sentences} sentences", info.id);
    }
    for id in [
        "tutorial",
        "confirmation-moved",
        "dict-return",
        "renamed-import",
        "step-without-id",
        "stdio-server",
        "headers-config",
        "kept-local",
        "looks-fixed",
    ] {
        assert!(infos.iter().any(|i| i.id == id), "{id} is missing");
    }
}

#[test]
fn derived_examples_are_their_base_plus_their_edits() {
    let tutorial = workspace(DEFAULT_EXAMPLE);
    let info = example("confirmation-moved").unwrap().unwrap().info;
    assert_eq!(info.base.as_deref(), Some("tutorial"));
    assert_eq!(
        info.edits,
        [Edit::Replace {
            file: FileRef::new(Area::After, "skills/log_interaction/skill.md"),
            text: "  - add_timeline_note:\n".into(),
            with: "  - list_open_tickets:\n".into(),
        }]
    );
    assert_eq!(example(DEFAULT_EXAMPLE).unwrap().unwrap().info.base, None);

    let moved = workspace("confirmation-moved");
    assert_eq!(changed_files(&tutorial, &moved), ["after/skills/log_interaction/skill.md"]);
    let skill = moved.after.file("skills/log_interaction/skill.md").unwrap();
    assert!(skill.contains("  - list_open_tickets:\n      requires_confirmation:"), "{skill}");

    let stdio = workspace("stdio-server");
    assert!(
        stdio.after.file("integrations.yml").unwrap().contains(
            "  - name: hubspot_crm\n    type: stdio\n    command: python scripts/mcp_crm_server.py\n"
        ),
        "the block scalar keeps the server entry's indentation"
    );

    // The fix: the after area is a copy of the before area, with the server configured.
    let kept = workspace("kept-local");
    let mut after_files: Vec<&str> = kept.after.files().map(|(p, _)| p).collect();
    let before_files: Vec<&str> = kept.before.files().map(|(p, _)| p).collect();
    after_files.sort_unstable();
    assert_eq!(after_files, before_files);
    assert!(kept.after.file("skills/check_tickets/tools.py").is_some());
    assert!(kept.after.file("integrations.yml").unwrap().contains("mcp_servers:"));
    for (path, text) in tutorial.before.files().filter(|(p, _)| *p != "integrations.yml") {
        assert_eq!(kept.after.file(path), Some(text), "after/{path}");
    }
    assert_eq!(kept.before, tutorial.before);
    assert_eq!(kept.server, tutorial.server);
}

#[test]
fn the_looks_fixed_check_refuses_mismatched_ids_and_still_leaks() {
    let workspace = workspace("looks-fixed");
    let sim = Simulation::new(&workspace);
    let agent = sim.start(Side::After).unwrap_or_else(|f| panic!("{}", f.message));
    let mut run = Run::new(&agent, sim.seed.clone());
    run.activate("identify_customer", None).unwrap();
    run.model_call(
        "find_contact_by_email",
        &json::parse(r#"{"email": "sam.rivera@example.com"}"#).unwrap(),
    );
    run.user_turn();
    run.activate("check_tickets", None).unwrap();
    let call = |run: &mut Run<'_, '_>, contact: &str, caller: &str| {
        let args = JsonValue::Object(vec![
            ("contact_id".into(), JsonValue::Str(contact.into())),
            ("caller_id".into(), JsonValue::Str(caller.into())),
        ]);
        run.model_call("list_open_tickets", &args).model_sees.unwrap_or_default()
    };
    // The check does what it says: Dana's id with Sam's is refused …
    let refused = call(&mut run, "701", "702");
    assert!(refused.contains("not_your_account"), "{refused}");
    // … but both ids are the model's to fill in, and Dana's twice goes through.
    let leaked = call(&mut run, "701", "701");
    assert!(leaked.contains("Invoice 4471 shows the wrong VAT rate"), "{leaked}");
}

/// The embedded files plus `extra` ones, as a content set of its own.
fn content_with(extra: &[(&str, &str)]) -> &'static [(&'static str, &'static str)] {
    let mut all: Vec<(&'static str, &'static str)> = files().to_vec();
    for (path, text) in extra {
        let path: &'static str = Box::leak(path.to_string().into_boxed_str());
        let text: &'static str = Box::leak(text.to_string().into_boxed_str());
        all.push((path, text));
    }
    all.sort_unstable();
    all.leak()
}

/// The error loading example `broken` from an `example.yml` gives, from both entry points.
fn broken(manifest: &str, other: &[(&str, &str)]) -> String {
    let mut extra = vec![("examples/broken/example.yml", manifest)];
    extra.extend_from_slice(other);
    let content = content_with(&extra);
    let error = example_in(content, "broken").expect_err("the example must not load");
    assert_eq!(examples_in(content).expect_err("listing fails too"), error);
    error.to_string()
}

const HEAD: &str = "title: Broken\nsummary: A test.\nbase: tutorial\n";

#[test]
fn a_replace_that_does_not_match_names_the_example_the_edit_and_the_file() {
    let message = broken(
        &format!(
            "{HEAD}edits:\n  - file: after/integrations.yml\n    replace: \"url: http://127.0.0.1:8931/mcp\"\n    with: \"url: http://127.0.0.1:9000/mcp\"\n  - file: after/skills/check_tickets/skill.md\n    replace: mcp/hubspot_crm:list_every_ticket\n    with: mcp/hubspot_crm:list_tickets\n"
        ),
        &[],
    );
    assert_eq!(
        message,
        "content/examples/broken/example.yml: example `broken`, edit 2 (line 8) on \
         after/skills/check_tickets/skill.md: the text to replace does not occur in the file \
         (\"mcp/hubspot_crm:list_every_ticket\")"
    );
}

#[test]
fn edits_that_cannot_apply_or_parse_are_reported() {
    let cases: [(String, &str); 12] = [
        (
            format!("{HEAD}edits:\n  - {{file: after/agent.yml, replace: \"  \", with: \"\"}}\n"),
            "edit 1 (line 5) on after/agent.yml: the text to replace occurs ",
        ),
        (
            format!("{HEAD}edits:\n  - {{file: after/tools/gone.py, delete: true}}\n"),
            "on after/tools/gone.py: there is no such file to delete",
        ),
        (
            format!("{HEAD}edits:\n  - {{file: after/nope.yml, replace: a, with: b}}\n"),
            "on after/nope.yml: there is no such file to replace text in",
        ),
        (
            format!("{HEAD}edits:\n  - {{file: elsewhere/x.yml, write: hi}}\n"),
            "`file: elsewhere/x.yml` must start with one of before/, after/, server/, crm/",
        ),
        (
            format!("{HEAD}edits:\n  - {{file: after/x.yml, write: hi, with: b}}\n"),
            "`with` does not go with `write` in one edit",
        ),
        (
            format!("{HEAD}edits:\n  - {{area: after, from: nowhere}}\n"),
            "`from: nowhere` is not an area",
        ),
        (
            "title: Broken\nsummary: A test.\nbase: missing\n".to_owned(),
            "`base: missing` is not an example",
        ),
        (
            "title: Broken\nsummary: A test.\nbase: broken\n".to_owned(),
            "`base: broken` makes a cycle (broken → broken)",
        ),
        (
            format!(
                "{HEAD}expect:\n  proof: pass\n  review: pass\n  review_failed: [startup]\n  leaks_before: 0\n  leaks_after: 0\n  starts: true\n"
            ),
            "`expect.review` is pass but `review_failed` lists checks",
        ),
        (
            format!(
                "{HEAD}expect:\n  proof: pass\n  review: fail\n  review_failed: [leak]\n  leaks_before: 0\n  leaks_after: 2\n  tested_after: false\n  starts: true\n"
            ),
            "`expect.leaks_after` is 2 but `tested_after` is false",
        ),
        (
            format!(
                "{HEAD}expect:\n  proof: pass\n  review: incomplete\n  review_failed: []\n  leaks_before: 0\n  leaks_after: 0\n  tested_after: maybe\n  starts: true\n"
            ),
            "`expect.tested_after` must be `true` or `false`",
        ),
        (
            format!(
                "{HEAD}expect:\n  proof: incomplete\n  review: pass\n  review_failed: []\n  leaks_before: 0\n  leaks_after: 0\n  starts: true\n"
            ),
            "`expect.proof` must be `pass` or `fail`",
        ),
    ];
    for (manifest, wanted) in cases {
        let message = broken(&manifest, &[]);
        assert!(message.starts_with("content/examples/broken/example.yml: "), "{message}");
        assert!(message.contains(wanted), "{message}\nshould contain: {wanted}");
    }
    let message = broken(HEAD, &[("examples/broken/after/agent.yml", "agent: {}\n")]);
    assert!(message.contains("holds no files of its own (found after/agent.yml)"), "{message}");
}

#[test]
fn edits_apply_in_order_and_area_copies_take_the_area_as_it_stands() {
    let content = content_with(&[(
        "examples/layered/example.yml",
        "title: Layered\nsummary: A test.\nbase: tutorial\nedits:\n  - file: before/notes.md\n    write: |\n      first\n  - area: after\n    from: before\n  - file: after/notes.md\n    replace: first\n    with: second\n  - file: before/notes.md\n    delete: true\n",
    )]);
    let layered = example_in(content, "layered").unwrap().unwrap();
    assert_eq!(layered.workspace.before.file("notes.md"), None);
    assert_eq!(layered.workspace.after.file("notes.md"), Some("second\n"));
    assert!(layered.workspace.file(&FileRef::new(Area::After, "tools/crm.py")).is_some());
    assert_eq!(layered.info.expect, None);
    let infos = examples_in(content).unwrap();
    assert_eq!(infos[0].id, DEFAULT_EXAMPLE);
    assert!(infos.iter().any(|i| i.id == "layered"));
}

#[test]
fn expectations_compare_field_by_field() {
    let expected = example(DEFAULT_EXAMPLE).unwrap().unwrap().info.expect.unwrap();
    assert_eq!(expected.proof, Outcome::Pass);
    assert_eq!(expected.differences(&expected), Vec::<String>::new());
    let mut other = expected.clone();
    other.starts = false;
    other.leaks_after = 0;
    other.review_failed.remove(0);
    let found = expected.differences(&other);
    assert_eq!(found.len(), 3, "{found:#?}");
    assert!(found[0].starts_with("review_failed: expected [\"id-source:"), "{}", found[0]);
    assert_eq!(found[1], "leaks_after: expected 2, got 0");
    assert_eq!(found[2], "starts: expected true, got false");
    // What `to_yaml` writes reads back as the same expectation.
    let content = content_with(&[(
        "examples/round-trip/example.yml",
        &format!("title: Round trip\nsummary: A test.\nbase: tutorial\n{}", expected.to_yaml()),
    )]);
    let info = example_in(content, "round-trip").unwrap().unwrap().info;
    let mut written = expected;
    written.proof_failed.get_or_insert_with(Vec::new);
    assert_eq!(info.expect, Some(written));
}
