//! The file tree's marks: which files the reader edited, and what the swap did to each.

use swaplab_core::diff::project_changes;
use swaplab_core::session::{Action, Session};
use swaplab_core::{Area, FileRef};
use swaplab_web::components::{FileStatus, file_statuses};

fn status_of(statuses: &[(FileRef, FileStatus)], file: &FileRef) -> FileStatus {
    statuses.iter().find(|(f, _)| f == file).map(|(_, s)| *s).unwrap()
}

#[test]
fn the_tutorial_marks_the_swap_and_then_the_readers_edits() {
    let example = swaplab_content::example("tutorial").unwrap().unwrap().workspace;
    let mut session = Session::new(Some("tutorial".to_owned()), example.clone());
    let changes = project_changes(&session.workspace.before, &session.workspace.after);
    let statuses = file_statuses(&session.workspace, &changes, &example);
    assert_eq!(statuses.len(), session.workspace.files().count(), "one entry per file");
    // The tree finds each row's marks by binary search.
    assert!(statuses.windows(2).all(|w| w[0].0 < w[1].0), "sorted by file");
    assert!(statuses.iter().all(|(_, s)| !s.edited), "nothing edited yet");

    // The swap rewrote the tools' configuration on both sides, added the MCP server's
    // config after it, and removed the local tools' code.
    let marks: Vec<(String, char)> =
        statuses.iter().filter_map(|(file, s)| s.swap.map(|c| (file.to_string(), c))).collect();
    assert!(marks.iter().any(|(_, c)| *c == 'M'), "{marks:?}");
    for (file, mark) in &marks {
        match mark {
            'A' => assert!(file.starts_with("after/"), "{file}"),
            'D' => assert!(file.starts_with("before/"), "{file}"),
            'M' => assert!(file.starts_with("before/") || file.starts_with("after/"), "{file}"),
            other => panic!("unknown mark {other} on {file}"),
        }
    }
    assert!(
        statuses
            .iter()
            .filter(|(f, _)| matches!(f.area, Area::Server | Area::Crm))
            .all(|(_, s)| s.swap.is_none()),
        "the server and the CRM are not part of the swap"
    );

    // An edit marks the file it touched, and only that one.
    let (file, text) = session
        .workspace
        .files()
        .find(|(f, _)| f.area == Area::After)
        .map(|(f, t)| (f, t.to_owned()))
        .unwrap();
    session.apply(Action::Edit { file: file.clone(), text: format!("{text}\n# edited\n") });
    let changes = project_changes(&session.workspace.before, &session.workspace.after);
    let statuses = file_statuses(&session.workspace, &changes, &example);
    assert!(status_of(&statuses, &file).edited);
    assert_eq!(statuses.iter().filter(|(_, s)| s.edited).count(), 1);

    // A new file is edited, and added by the swap when it is on the after side.
    let new = FileRef::new(Area::After, "skills/new_skill/skill.md");
    session
        .apply(Action::Edit { file: new.clone(), text: "---\ndescription: x\n---\n".to_owned() });
    let changes = project_changes(&session.workspace.before, &session.workspace.after);
    let statuses = file_statuses(&session.workspace, &changes, &example);
    assert_eq!(status_of(&statuses, &new), FileStatus { edited: true, swap: Some('A') });
}
