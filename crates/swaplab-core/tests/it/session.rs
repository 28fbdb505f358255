//! The playground reducer (opening, editing, adding, renaming, deleting, importing) and
//! the draft format.

use std::rc::Rc;

use swaplab_core::rasa::project::{MAX_FILE_BYTES, MAX_PROJECT_FILES};
use swaplab_core::session::{
    Action, DraftError, MAX_DRAFT_BYTES, Session, check, check_all, decode_draft, encode_draft,
    path_problem,
};
use swaplab_core::{Area, FileRef, Project, Workspace};

fn workspace() -> Workspace {
    Workspace {
        before: Project::from_files([("skills/a/skill.md", "---\nname: a\n---\nHi.\n")]),
        after: Project::from_files([(
            "skills/a/skill.md",
            "---\nname: a\nimport_tools: []\n---\nHi.\n",
        )]),
        server: Project::from_files([("server.py", "# s\n")]),
        crm: Project::from_files([("crm.yml", "contacts: []\n")]),
    }
}

fn skill(area: Area) -> FileRef {
    FileRef::new(area, "skills/a/skill.md")
}

#[test]
fn a_new_session_opens_the_first_changed_skill() {
    let session = Session::new(Some("tutorial".into()), workspace());
    assert_eq!(session.open, Some(skill(Area::After)));
    assert_eq!(session.revision, 0);
    assert_eq!(session.open_file().map(|(_, t)| t.len()), Some(37));
}

#[test]
fn edits_count_revisions_only_when_text_changes() {
    let mut session = Session::new(None, workspace());
    session
        .apply(Action::Edit { file: skill(Area::Before), text: "---\nname: a\n---\nHi.\n".into() });
    assert_eq!(session.revision, 0, "same text is not an edit");
    session.apply(Action::Edit { file: skill(Area::Before), text: "changed".into() });
    assert_eq!(session.revision, 1);
    assert_eq!(session.edited_files(&workspace()), [skill(Area::Before)]);
}

#[test]
fn only_changes_to_which_files_exist_count_as_files_revisions() {
    let mut session = Session::new(None, workspace());
    let files_revision_after = |session: &mut Session, action: Action| {
        session.apply(action);
        session.files_revision
    };
    let typed = Action::Edit { file: skill(Area::Before), text: "typed".into() };
    assert_eq!(files_revision_after(&mut session, typed), 0, "typing keeps the paths");
    let open = Action::Open(skill(Area::After));
    assert_eq!(files_revision_after(&mut session, open), 0);
    let new_file = FileRef::new(Area::Server, "tools.py");
    let written = Action::Edit { file: new_file.clone(), text: "x = 1\n".into() };
    assert_eq!(files_revision_after(&mut session, written), 1, "an edit that creates a file");
    let added = Action::AddFile { file: FileRef::new(Area::Crm, "more.yml") };
    assert_eq!(files_revision_after(&mut session, added), 2);
    let renamed = Action::Rename { from: new_file, to: FileRef::new(Area::Server, "t.py") };
    assert_eq!(files_revision_after(&mut session, renamed), 3);
    let deleted = Action::Delete { file: FileRef::new(Area::Server, "t.py") };
    assert_eq!(files_revision_after(&mut session, deleted), 4);
    let imported = Action::Import {
        area: Area::Before,
        files: vec![("notes.md".into(), "n".into())],
        replace: false,
    };
    assert_eq!(files_revision_after(&mut session, imported), 5);
    let loaded = Action::Load { example: None, imported: None, workspace: workspace(), open: None };
    assert_eq!(files_revision_after(&mut session, loaded), 6);
    assert_eq!(session.revision, 7, "every one of them but opening changed the workspace");
}

#[test]
fn opening_a_missing_file_keeps_the_current_one() {
    let mut session = Session::new(None, workspace());
    session.apply(Action::Open(FileRef::new(Area::Before, "nope.md")));
    assert_eq!(session.open, Some(skill(Area::After)));
    session.apply(Action::Open(skill(Area::Before)));
    assert_eq!(session.open, Some(skill(Area::Before)));
}

#[test]
fn edited_files_include_files_the_reader_removed_or_added() {
    let mut session = Session::new(None, workspace());
    let mut changed = workspace();
    changed.remove_file(&FileRef::new(Area::Server, "server.py"));
    changed.set_file(&FileRef::new(Area::Crm, "more.yml"), "x");
    session.apply(Action::Load { example: None, imported: None, workspace: changed, open: None });
    let edited: Vec<String> =
        session.edited_files(&workspace()).iter().map(ToString::to_string).collect();
    assert_eq!(edited, ["server/server.py", "crm/more.yml"]);
}

#[test]
fn drafts_round_trip() {
    let mut session = Session::new(Some("tutorial".into()), workspace());
    session
        .apply(Action::Edit { file: skill(Area::After), text: "edited ✓ \"quoted\"\n".into() });
    session.apply(Action::Open(skill(Area::Before)));
    let restored = decode_draft(&encode_draft(&session)).expect("a fresh draft decodes");
    assert_eq!(restored.workspace, session.workspace);
    assert_eq!(restored.open, session.open);
    assert_eq!(restored.example.as_deref(), Some("tutorial"));
}

#[test]
fn damaged_drafts_say_where_and_why() {
    let err = decode_draft("{\"version\": 1,\n \"workspace\": 7}").unwrap_err();
    let DraftError::Malformed { line, column, .. } = &err else { panic!("{err:?}") };
    assert_eq!((*line, *column), (2, 15));
    assert!(
        err.to_string().starts_with("the saved draft is damaged at 2:15: invalid type"),
        "{err}"
    );

    assert!(matches!(
        decode_draft("not json"),
        Err(DraftError::Malformed { line: 1, column: 2, .. })
    ));
    assert_eq!(
        decode_draft("{\"version\": 2}").unwrap_err().to_string(),
        "the saved draft uses format 2, which is newer than this page understands (format 1)"
    );
    let huge = " ".repeat(MAX_DRAFT_BYTES + 1);
    assert_eq!(decode_draft(&huge), Err(DraftError::TooLarge { bytes: MAX_DRAFT_BYTES + 1 }));
}

#[test]
fn an_edit_leaves_the_previous_state_untouched() {
    // Shells keep the previous state (Yew's reducer, undo); an edit copies on write.
    let mut session = Session::new(None, workspace());
    let previous = session.clone();
    session.apply(Action::Edit { file: skill(Area::Before), text: "new".into() });
    assert_eq!(previous.workspace.file(&skill(Area::Before)), Some("---\nname: a\n---\nHi.\n"));
    assert_eq!(session.workspace.file(&skill(Area::Before)), Some("new"));
    session.apply(Action::Open(skill(Area::Before)));
    let opened = session.clone();
    assert!(Rc::ptr_eq(&opened.workspace, &session.workspace), "opening a file copies nothing");
}

// --- adding, renaming, deleting and importing files ---------------------------------------

fn file(text: &str) -> FileRef {
    FileRef::parse(text).expect("area/path")
}

/// Applies an action that must be refused: the reason starts with `reason`, `check`
/// agrees, and the session is unchanged.
fn refused(session: &mut Session, action: Action, reason: &str) {
    let before = session.clone();
    let checked = check(&session.workspace, &action).expect_err("check refuses it");
    assert!(checked.starts_with(reason), "check: {checked:?} does not start with {reason:?}");
    let error = session.try_apply(action.clone()).expect_err("refused");
    assert!(error.starts_with(reason), "{error:?} does not start with {reason:?}");
    assert_eq!(*session, before, "a refused action changes nothing");
    session.apply(action);
    assert_eq!(*session, before, "apply ignores a refused action");
}

#[test]
fn adding_a_file_creates_it_empty_and_opens_it() {
    let mut session = Session::new(None, workspace());
    let new = file("before/skills/a/notes.md");
    assert_eq!(check(&session.workspace, &Action::AddFile { file: new.clone() }), Ok(()));
    session.try_apply(Action::AddFile { file: new.clone() }).unwrap();
    assert_eq!(session.workspace.file(&new), Some(""));
    assert_eq!(session.open, Some(new.clone()));
    assert_eq!(session.revision, 1);
    refused(
        &mut session,
        Action::AddFile { file: new },
        "before/skills/a/notes.md already exists.",
    );
}

#[test]
fn paths_follow_the_file_ref_rules() {
    let mut session = Session::new(None, workspace());
    for (path, reason) in [
        ("", "“” is empty."),
        ("../x", "“../x” climbs out of its folder with “..”."),
        ("a/../../x", "“a/../../x” climbs out"),
        ("/etc/passwd", "“/etc/passwd” starts with “/”."),
        ("a//b", "“a//b” has an empty folder name"),
        ("dir/", "“dir/” ends with “/”"),
        ("./x", "“./x” has a “.” folder"),
        ("a\\b", "“a\\b” contains “\\”"),
        ("tab\there", "“tab\there” contains a control character"),
    ] {
        refused(&mut session, Action::AddFile { file: FileRef::new(Area::Crm, path) }, reason);
    }
    refused(
        &mut session,
        Action::AddFile { file: FileRef::new(Area::Crm, "x".repeat(1025)) },
        "“xxx",
    );
    assert_eq!(path_problem("skills/a/skill.md"), None);
    assert_eq!(path_problem("a name with spaces/ünïcode.yml"), None);
}

#[test]
fn a_file_and_a_folder_cannot_share_a_name() {
    let mut session = Session::new(None, workspace());
    refused(
        &mut session,
        Action::AddFile { file: file("before/skills/a") },
        "before/skills/a is a folder already.",
    );
    refused(
        &mut session,
        Action::AddFile { file: file("before/skills/a/skill.md/more.md") },
        "before/skills/a/skill.md is a file, so it cannot hold more.md.",
    );
    // The same path in another area is another file.
    session.apply(Action::AddFile { file: file("crm/skills/a") });
    assert_eq!(session.workspace.file(&file("crm/skills/a")), Some(""));
}

#[test]
fn an_area_holds_at_most_the_project_cap() {
    let mut full = workspace();
    for i in 1..MAX_PROJECT_FILES {
        full.set_file(&FileRef::new(Area::Crm, format!("seed{i}.yml")), "");
    }
    let mut session = Session::new(None, full);
    refused(
        &mut session,
        Action::AddFile { file: file("crm/one-more.yml") },
        "Mock CRM already holds 2000 files, the most an area can hold.",
    );
    // Renaming inside a full area is fine; moving a file into it is not.
    session
        .try_apply(Action::Rename { from: file("crm/crm.yml"), to: file("crm/seed.yml") })
        .unwrap();
    refused(
        &mut session,
        Action::Rename { from: file("server/server.py"), to: file("crm/server.py") },
        "Mock CRM already holds 2000 files",
    );
}

#[test]
fn renaming_moves_the_text_and_the_open_file_follows() {
    let mut session = Session::new(None, workspace());
    let (from, to) = (skill(Area::After), file("after/skills/b/skill.md"));
    let text = session.workspace.file(&from).unwrap().to_owned();
    session.try_apply(Action::Rename { from: from.clone(), to: to.clone() }).unwrap();
    assert_eq!(session.workspace.file(&from), None);
    assert_eq!(session.workspace.file(&to), Some(text.as_str()));
    assert_eq!(session.open, Some(to.clone()), "the open file follows");
    assert_eq!(session.revision, 1);

    // A file that is not open moves without changing what is open.
    session.apply(Action::Rename { from: file("server/server.py"), to: file("server/app.py") });
    assert_eq!(session.open, Some(to.clone()));
    assert_eq!(session.workspace.file(&file("server/app.py")), Some("# s\n"));

    // Onto itself: nothing happens, nothing is refused.
    session.try_apply(Action::Rename { from: to.clone(), to: to.clone() }).unwrap();
    assert_eq!(session.revision, 2);
    // A file can become a folder of the same name.
    session
        .try_apply(Action::Rename {
            from: file("server/app.py"),
            to: file("server/app.py/main.py"),
        })
        .unwrap();

    refused(
        &mut session,
        Action::Rename { from: to.clone(), to: skill(Area::Before) },
        "before/skills/a/skill.md already exists.",
    );
    refused(&mut session, Action::Rename { from: to, to: file("after/../x") }, "“../x” climbs out");
    refused(
        &mut session,
        Action::Rename { from: file("after/nope"), to: file("after/x") },
        "after/nope does not exist.",
    );
}

#[test]
fn deleting_the_open_file_opens_its_neighbour() {
    let mut ws = workspace();
    for path in ["a.yml", "b.yml", "c.yml"] {
        ws.set_file(&FileRef::new(Area::Crm, path), path);
    }
    let mut session = Session::new(None, ws);
    session.apply(Action::Open(file("crm/b.yml")));
    session.try_apply(Action::Delete { file: file("crm/b.yml") }).unwrap();
    assert_eq!(session.open, Some(file("crm/c.yml")), "the next file");
    session.apply(Action::Open(file("crm/crm.yml")));
    session.apply(Action::Delete { file: file("crm/crm.yml") });
    assert_eq!(session.open, Some(file("crm/c.yml")), "the previous one at the end");
    session.apply(Action::Delete { file: file("crm/a.yml") });
    assert_eq!(session.open, Some(file("crm/c.yml")), "deleting another file keeps it open");
    session.apply(Action::Delete { file: file("crm/c.yml") });
    assert_eq!(session.open, Some(skill(Area::After)), "an empty area: the workspace's first file");
    assert!(session.workspace.crm.is_empty());
    assert_eq!(session.revision, 4);
    refused(&mut session, Action::Delete { file: file("crm/c.yml") }, "crm/c.yml does not exist.");

    let mut last = Session::new(None, Workspace::default());
    last.apply(Action::AddFile { file: file("server/only.py") });
    last.apply(Action::Delete { file: file("server/only.py") });
    assert_eq!(last.open, None);
}

fn files(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(p, t)| ((*p).to_owned(), (*t).to_owned())).collect()
}

#[test]
fn importing_replaces_or_merges_one_area() {
    let mut session = Session::new(None, workspace());
    let project = files(&[("skills/b/skill.md", "b"), ("config.yml", "c")]);
    session
        .try_apply(Action::Import { area: Area::Before, files: project.clone(), replace: true })
        .unwrap();
    let before: Vec<&str> = session.workspace.before.files().map(|(p, _)| p).collect();
    assert_eq!(before, ["config.yml", "skills/b/skill.md"]);
    assert_eq!(session.workspace.after, workspace().after, "other areas are untouched");
    assert_eq!(session.revision, 1);

    session
        .try_apply(Action::Import {
            area: Area::After,
            files: files(&[("skills/a/skill.md", "new"), ("extra.yml", "e")]),
            replace: false,
        })
        .unwrap();
    let after: Vec<(&str, &str)> = session.workspace.after.files().collect();
    assert_eq!(after, [("extra.yml", "e"), ("skills/a/skill.md", "new")], "imported files win");

    // The same import again changes nothing.
    session.apply(Action::Import { area: Area::Before, files: project, replace: true });
    assert_eq!(session.revision, 2);
}

#[test]
fn an_import_names_the_workspace_until_the_next_load() {
    let mut session = Session::new(Some("tutorial".into()), workspace());
    assert_eq!(session.imported, None);
    let project = files(&[("skills/b/skill.md", "b")]);
    session.apply(Action::Import { area: Area::Before, files: project, replace: true });
    session.apply(Action::Imported { source: "my-project.zip".into() });
    assert_eq!(session.imported.as_deref(), Some("my-project.zip"));
    assert_eq!(session.example.as_deref(), Some("tutorial"), "the draft stays the example's");
    assert_eq!(session.revision, 2, "naming it is a change to save");
    // Edits keep the name; the draft keeps it across a reload.
    session.apply(Action::Edit { file: file("before/skills/b/skill.md"), text: "bb".into() });
    let restored = decode_draft(&encode_draft(&session)).unwrap();
    assert_eq!(restored.imported.as_deref(), Some("my-project.zip"));
    // A draft from before the name existed reads as not imported, and a draft that was
    // not imported over is written as it was.
    let plain = Session::new(Some("tutorial".into()), workspace());
    assert!(!encode_draft(&plain).contains("imported"));
    assert_eq!(decode_draft(&encode_draft(&plain)).unwrap().imported, None);
    // Going back to the example clears it.
    session.apply(Action::Load {
        example: Some("tutorial".into()),
        imported: None,
        workspace: workspace(),
        open: None,
    });
    assert_eq!(session.imported, None);
}

#[test]
fn an_import_that_drops_the_open_file_opens_the_first_one() {
    let mut session = Session::new(None, workspace());
    session.apply(Action::Open(file("server/server.py")));
    session.apply(Action::Import {
        area: Area::Server,
        files: files(&[("app.py", "x")]),
        replace: true,
    });
    assert_eq!(session.open, Some(skill(Area::After)));
    let mut empty = Session::new(None, Workspace::default());
    empty.apply(Action::Import {
        area: Area::Crm,
        files: files(&[("crm.yml", "")]),
        replace: true,
    });
    assert_eq!(empty.open, Some(file("crm/crm.yml")));
}

#[test]
fn a_bad_import_is_refused_whole() {
    let mut session = Session::new(None, workspace());
    let import = |list: &[(&str, &str)], replace| Action::Import {
        area: Area::Before,
        files: files(list),
        replace,
    };
    refused(
        &mut session,
        import(&[("ok.yml", ""), ("../x", "")], true),
        "The import's path “../x” climbs out",
    );
    refused(&mut session, import(&[], true), "There is nothing to import.");
    refused(
        &mut session,
        import(&[("a", ""), ("a/b", "")], true),
        "before/a would be both a file and a folder",
    );
    refused(
        &mut session,
        import(&[("skills/a/skill.md/x", "")], false),
        "before/skills/a/skill.md would be both",
    );
    let big = "x".repeat(MAX_FILE_BYTES + 1);
    refused(
        &mut session,
        Action::Import { area: Area::Before, files: vec![("big".into(), big)], replace: true },
        "The import's file big is 1048577 bytes, over the 1048576-byte limit",
    );
    let many: Vec<(String, String)> =
        (0..=MAX_PROJECT_FILES).map(|i| (format!("f{i}"), String::new())).collect();
    refused(
        &mut session,
        Action::Import { area: Area::Before, files: many.clone(), replace: true },
        "Before the swap would hold 2001 files, over the limit of 2000",
    );
    // Merged: the area's own file counts too.
    let at_cap = many[..MAX_PROJECT_FILES].to_vec();
    refused(
        &mut session,
        Action::Import { area: Area::Before, files: at_cap.clone(), replace: false },
        "Before the swap would hold 2001 files",
    );
    session.try_apply(Action::Import { area: Area::Before, files: at_cap, replace: true }).unwrap();
}

#[test]
fn several_actions_are_checked_together_on_a_copy() {
    let session = Session::new(None, workspace());
    let add = |path: &str| Action::AddFile { file: file(path) };
    assert_eq!(check_all(&session.workspace, &[add("crm/a.yml"), add("crm/b.yml")]), Ok(()));
    // The second refusal only exists once the first action has applied.
    assert_eq!(
        check_all(&session.workspace, &[add("crm/a.yml"), add("crm/a.yml")]),
        Err("crm/a.yml already exists.".to_owned())
    );
    assert_eq!(session.workspace, Rc::new(workspace()), "nothing is applied");
}

#[test]
fn a_load_or_an_edit_with_a_bad_path_is_refused_in_the_editors_words() {
    let mut session = Session::new(None, Workspace::default());
    let mut sneaky = Workspace::default();
    sneaky.set_file(&FileRef::new(Area::Before, "skills\\x\\skill.md"), "x");
    let load = Action::Load { example: None, imported: None, workspace: sneaky, open: None };
    assert_eq!(
        session.try_apply(load),
        Err("“skills\\x\\skill.md” contains “\\”: folders are separated by “/”.".to_owned())
    );
    assert!(session.workspace.is_empty(), "nothing was loaded");
    // The same words the editor gives when a reader adds that file.
    let add = Action::AddFile { file: FileRef::new(Area::Before, "skills\\x\\skill.md") };
    assert_eq!(
        check(&session.workspace, &add),
        check(
            &session.workspace,
            &Action::Load {
                example: None,
                imported: None,
                workspace: {
                    let mut w = Workspace::default();
                    w.set_file(&FileRef::new(Area::Before, "skills\\x\\skill.md"), "x");
                    w
                },
                open: None,
            }
        )
    );
    // An edit that would create a file is held to the rule; one of an existing file is not
    // a new path.
    let edit = Action::Edit { file: FileRef::new(Area::Crm, "a//b.yml"), text: "x".into() };
    assert_eq!(
        session.try_apply(edit),
        Err("“a//b.yml” has an empty folder name (“//”).".to_owned())
    );
    // An open file outside the loaded files is held to it too.
    let open = Action::Load {
        example: None,
        imported: None,
        workspace: Workspace::default(),
        open: Some(FileRef::new(Area::After, "/etc/passwd")),
    };
    assert_eq!(session.try_apply(open), Err("“/etc/passwd” starts with “/”.".to_owned()));
    // A stored draft is held to it when it is read back, with the same words.
    let mut old = Workspace::default();
    old.set_file(&FileRef::new(Area::Crm, "notes\\a.yml"), "x");
    let err = decode_draft(&encode_draft(&Session::new(None, old))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the saved draft holds a file whose path is refused: “notes\\a.yml” contains “\\”: folders are separated by “/”."
    );
}
