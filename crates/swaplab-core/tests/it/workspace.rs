//! The workspace model: addressing files and finding the first one to show.

use swaplab_core::{Area, FileRef, Project, Workspace};

fn workspace() -> Workspace {
    Workspace {
        before: Project::from_files([
            ("skills/a/skill.md", "---\nname: a\n---\nSame.\n"),
            ("skills/b/skill.md", "---\nname: b\n---\nOld.\n"),
            ("memory.yml", "contact_id: {}\n"),
        ]),
        after: Project::from_files([
            ("skills/a/skill.md", "---\nname: a\n---\nSame.\n"),
            ("skills/b/skill.md", "---\nname: b\nimport_tools: [mcp/crm:t]\n---\nOld.\n"),
            ("memory.yml", "contact_id: {}\n"),
        ]),
        server: Project::from_files([("scripts/server.py", "# server\n")]),
        crm: Project::from_files([("crm.yml", "contacts: []\n")]),
    }
}

#[test]
fn file_refs_print_and_parse_as_area_slash_path() {
    for (text, expected) in [
        ("before/skills/a/skill.md", Some(FileRef::new(Area::Before, "skills/a/skill.md"))),
        ("after/memory.yml", Some(FileRef::new(Area::After, "memory.yml"))),
        ("server/scripts/server.py", Some(FileRef::new(Area::Server, "scripts/server.py"))),
        ("crm/crm.yml", Some(FileRef::new(Area::Crm, "crm.yml"))),
        ("elsewhere/x", None),
        ("before/", None),
        ("before", None),
    ] {
        let parsed = FileRef::parse(text);
        assert_eq!(parsed, expected, "{text}");
        if let Some(file) = parsed {
            assert_eq!(file.to_string(), text);
        }
    }
}

#[test]
fn files_come_in_tree_order_by_area_then_path() {
    let order: Vec<String> = workspace().files().map(|(f, _)| f.to_string()).collect();
    assert_eq!(
        order,
        [
            "before/memory.yml",
            "before/skills/a/skill.md",
            "before/skills/b/skill.md",
            "after/memory.yml",
            "after/skills/a/skill.md",
            "after/skills/b/skill.md",
            "server/scripts/server.py",
            "crm/crm.yml",
        ]
    );
    assert_eq!(workspace().len(), 8);
}

#[test]
fn the_first_file_shown_is_the_first_skill_the_swap_changed() {
    assert_eq!(workspace().first_file(), Some(FileRef::new(Area::After, "skills/b/skill.md")));

    let mut unchanged = workspace();
    unchanged.after = unchanged.before.clone();
    assert_eq!(unchanged.first_file(), Some(FileRef::new(Area::Before, "memory.yml")));

    assert_eq!(Workspace::default().first_file(), None);
}

#[test]
fn set_and_remove_touch_only_their_area() {
    let mut ws = workspace();
    let file = FileRef::new(Area::After, "skills/c/skill.md");
    ws.set_file(&file, "new");
    assert_eq!(ws.file(&file), Some("new"));
    assert_eq!(ws.before.file("skills/c/skill.md"), None);
    assert_eq!(ws.remove_file(&file).as_deref(), Some("new"));
    assert_eq!(ws.file(&file), None);
    assert_eq!(file.file_name(), "skill.md");
}
