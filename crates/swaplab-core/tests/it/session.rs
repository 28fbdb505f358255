//! The playground reducer and the draft format.

use swaplab_core::session::{
    Action, DraftError, MAX_DRAFT_BYTES, Session, decode_draft, encode_draft,
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
    session.apply(Action::Load { example: None, workspace: changed, open: None });
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
    assert!(
        std::rc::Rc::ptr_eq(&opened.workspace, &session.workspace),
        "opening a file copies nothing"
    );
}
