//! Line diffs: hunks, headers, word emphasis, side-by-side rows and project comparisons.

use swaplab_core::diff::{
    Cell, ChangeStatus, DEFAULT_CONTEXT, Emphasis, LineKind, RowKind, changed_lines, diff_text,
    project_changes, side_by_side, swap_marks,
};
use swaplab_core::{Project, Workspace};

fn check(old: &str, new: &str, expected: &str) {
    let diff = diff_text(old, new, DEFAULT_CONTEXT);
    assert_eq!(diff.unified("a", "b"), expected, "old:\n{old}\nnew:\n{new}");
}

const NOTE_SKILL: &str = "---
name: log_interaction
description: |
  Record a short note about the call on the customer's record.
  Use it once the caller's question is handled.
import_tools:
  - mcp/hubspot_crm:add_timeline_note
tool_constraints:
  - add_timeline_note:
      requires_confirmation:
        enabled: true
        utter_for_confirmation: utter_confirm_note
        utter_on_user_denial: utter_note_cancelled
---
Body.
";

#[test]
fn a_moved_constraint_is_one_changed_line_in_a_seven_line_hunk() {
    // The shape of the review guide's diff: the key of the constraint moved to the read tool.
    let moved = NOTE_SKILL.replace("  - add_timeline_note:\n", "  - list_open_tickets:\n");
    check(
        NOTE_SKILL,
        &moved,
        "--- a
+++ b
@@ -6,7 +6,7 @@
 import_tools:
   - mcp/hubspot_crm:add_timeline_note
 tool_constraints:
-  - add_timeline_note:
+  - list_open_tickets:
       requires_confirmation:
         enabled: true
         utter_for_confirmation: utter_confirm_note
",
    );
}

#[test]
fn equal_texts_have_no_hunks() {
    let diff = diff_text(NOTE_SKILL, NOTE_SKILL, DEFAULT_CONTEXT);
    assert!(diff.is_empty());
    assert_eq!(diff.unified("a", "b"), "");
    assert_eq!((diff.added, diff.removed), (0, 0));
}

#[test]
fn headers_follow_gnu_diff_for_empty_and_single_line_ranges() {
    check("", "one\n", "--- a\n+++ b\n@@ -0,0 +1 @@\n+one\n");
    check("one\n", "", "--- a\n+++ b\n@@ -1 +0,0 @@\n-one\n");
    check("a\nb\n", "a\nc\n", "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n");
}

#[test]
fn a_missing_final_newline_is_marked() {
    check("a\n", "a", "--- a\n+++ b\n@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n");
}

#[test]
fn distant_changes_get_separate_hunks_and_near_ones_merge() {
    let old: String = (1..=20).map(|n| format!("{n}\n")).collect();
    let far = old.replace("2\n", "two\n").replace("18\n", "eighteen\n");
    assert_eq!(diff_text(&old, &far, 3).hunks.len(), 2);
    let near = old.replace("2\n", "two\n").replace("8\n", "eight\n");
    assert_eq!(diff_text(&old, &near, 3).hunks.len(), 1);
}

#[test]
fn replaced_lines_emphasise_only_the_words_that_changed() {
    let diff =
        diff_text("  - find_contact_by_email\n", "  - mcp/hubspot_crm:find_contact_by_email\n", 3);
    let lines = &diff.hunks[0].lines;
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0].kind, LineKind::Removed);
    assert_eq!(lines[1].kind, LineKind::Added);
    let emphasised: Vec<&str> =
        lines[1].segments.iter().filter(|s| s.emphasized).map(|s| s.text.as_str()).collect();
    assert!(!emphasised.is_empty());
    assert!(
        emphasised.iter().all(|t| !t.contains("  - ")),
        "the indent did not change: {emphasised:?}"
    );
    assert_eq!(lines[1].text(), "  - mcp/hubspot_crm:find_contact_by_email");
    assert_eq!((lines[0].old_line, lines[0].new_line), (Some(1), None));
    assert_eq!((lines[1].old_line, lines[1].new_line), (None, Some(1)));
}

#[test]
fn huge_replacements_skip_word_emphasis_but_still_diff() {
    let old: String = (0..200).map(|n| format!("old line {n}\n")).collect();
    let new: String = (0..200).map(|n| format!("new line {n}\n")).collect();
    let diff = diff_text(&old, &new, 3);
    assert_eq!((diff.added, diff.removed), (200, 200));
    assert!(diff.hunks[0].lines.iter().all(|l| l.segments.iter().all(|s| !s.emphasized)));
}

#[test]
fn project_changes_list_every_path_once_with_its_status() {
    let before = Project::from_files([
        ("skills/a/skill.md", "same\n"),
        ("skills/b/skill.md", "one\ntwo\n"),
        ("skills/b/tools.py", "def f(): pass\n"),
    ]);
    let after = Project::from_files([
        ("skills/a/skill.md", "same\n"),
        ("skills/b/skill.md", "one\nthree\nfour\n"),
        ("integrations.yml", "mcp_servers: []\n"),
    ]);
    let summary: Vec<String> = project_changes(&before, &after)
        .iter()
        .map(|c| format!("{} {} +{} -{}", c.status.code(), c.path, c.added, c.removed))
        .collect();
    assert_eq!(
        summary,
        [
            "A integrations.yml +1 -0",
            "  skills/a/skill.md +0 -0",
            "M skills/b/skill.md +2 -1",
            "D skills/b/tools.py +0 -1",
        ]
    );
    assert_eq!(project_changes(&before, &after)[1].status, ChangeStatus::Unchanged);
}

#[test]
fn multi_line_replacements_keep_their_lines_apart() {
    let diff = diff_text("a b\nc d\n", "a x\nc y\nz\n", 3);
    let texts = |kind: LineKind| -> Vec<String> {
        diff.hunks[0].lines.iter().filter(|l| l.kind == kind).map(|l| l.text()).collect()
    };
    assert_eq!(texts(LineKind::Removed), ["a b", "c d"]);
    assert_eq!(texts(LineKind::Added), ["a x", "c y", "z"]);
    let marked = |kind: LineKind| -> Vec<String> {
        diff.hunks[0]
            .lines
            .iter()
            .filter(|l| l.kind == kind)
            .flat_map(|l| l.segments.iter().filter(|s| s.emphasized).map(|s| s.text.clone()))
            .collect()
    };
    assert_eq!(marked(LineKind::Removed), ["b", "d"]);
    assert_eq!(marked(LineKind::Added), ["x", "y", "z"]);
}

#[test]
fn windows_line_endings_stay_out_of_the_text() {
    let diff = diff_text("a\r\nb\r\n", "a\r\nc\r\n", 3);
    let lines: Vec<String> = diff.hunks[0].lines.iter().map(|l| l.text()).collect();
    assert_eq!(lines, ["a", "b", "c"]);
}

#[test]
fn swap_marks_put_each_change_on_the_side_where_the_file_is() {
    let workspace = Workspace {
        before: Project::from_files([("same.md", "x"), ("changed.md", "a"), ("gone.py", "y")]),
        after: Project::from_files([("same.md", "x"), ("changed.md", "b"), ("new.yml", "z")]),
        ..Workspace::default()
    };
    let marks: Vec<String> = swap_marks(&project_changes(&workspace.before, &workspace.after))
        .iter()
        .map(|(file, status)| format!("{} {file}", status.code()))
        .collect();
    assert_eq!(
        marks,
        ["M before/changed.md", "D before/gone.py", "M after/changed.md", "A after/new.yml"]
    );
}

/// A side-by-side view as text: `old# old-text | new# new-text`, `[…]` around emphasis.
fn rows(old: &str, new: &str) -> Vec<String> {
    fn cell(cell: Option<&Cell>) -> String {
        let Some(cell) = cell else { return "·".to_owned() };
        let mut text = String::new();
        let mut at = 0;
        for Emphasis { start, end } in &cell.emphasis {
            text.push_str(&cell.text[at..*start]);
            text.push_str(&format!("[{}]", &cell.text[*start..*end]));
            at = *end;
        }
        text.push_str(&cell.text[at..]);
        format!("{} {text}", cell.line)
    }
    let diff = diff_text(old, new, DEFAULT_CONTEXT);
    let mut out = Vec::new();
    for hunk in side_by_side(&diff) {
        out.push(hunk.header.clone());
        for row in &hunk.rows {
            let mark = match row.kind {
                RowKind::Context => ' ',
                RowKind::Changed => '~',
                RowKind::Removed => '-',
                RowKind::Added => '+',
            };
            out.push(format!("{mark} {} | {}", cell(row.old.as_ref()), cell(row.new.as_ref())));
        }
    }
    out
}

#[test]
fn side_by_side_pairs_the_moved_constraint_line_with_its_replacement() {
    let moved = NOTE_SKILL.replace("  - add_timeline_note:\n", "  - list_open_tickets:\n");
    assert_eq!(
        rows(NOTE_SKILL, &moved),
        [
            "@@ -6,7 +6,7 @@",
            "  6 import_tools: | 6 import_tools:",
            "  7   - mcp/hubspot_crm:add_timeline_note | 7   - mcp/hubspot_crm:add_timeline_note",
            "  8 tool_constraints: | 8 tool_constraints:",
            "~ 9   - [add_timeline_note]: | 9   - [list_open_tickets]:",
            "  10       requires_confirmation: | 10       requires_confirmation:",
            "  11         enabled: true | 11         enabled: true",
            "  12         utter_for_confirmation: utter_confirm_note | 12         utter_for_confirmation: utter_confirm_note",
        ]
    );
}

#[test]
fn side_by_side_leaves_the_missing_side_blank_for_inserts_and_deletes() {
    assert_eq!(
        rows("a\nb\n", "a\nx\nb\n"),
        ["@@ -1,2 +1,3 @@", "  1 a | 1 a", "+ · | 2 x", "  2 b | 3 b"]
    );
    assert_eq!(
        rows("a\nb\nc\n", "a\nc\n"),
        ["@@ -1,3 +1,2 @@", "  1 a | 1 a", "- 2 b | ·", "  3 c | 2 c"]
    );
    assert_eq!(rows("", "one\n"), ["@@ -0,0 +1 @@", "+ · | 1 one"]);
    assert!(rows("same\n", "same\n").is_empty());
}

#[test]
fn side_by_side_pairs_uneven_replacements_in_order() {
    assert_eq!(
        rows("keep\na b\nc d\nkeep\n", "keep\na x\nc y\nz\nkeep\n"),
        [
            "@@ -1,4 +1,5 @@",
            "  1 keep | 1 keep",
            "~ 2 a [b] | 2 a [x]",
            "~ 3 c [d] | 3 c [y]",
            "+ · | 4 [z]",
            "  4 keep | 5 keep",
        ]
    );
    assert_eq!(
        rows("a\nb\nc\n", "x\n"),
        ["@@ -1,3 +1 @@", "~ 1 [a] | 1 [x]", "- 2 [b] | ·", "- 3 [c] | ·"]
    );
}

#[test]
fn side_by_side_keeps_hunks_line_numbers_and_the_missing_newline() {
    let old: String = (1..=20).map(|n| format!("{n}\n")).collect();
    let new = old.replace("2\n", "two\n").replace("18\n", "eighteen\n");
    let diff = diff_text(&old, &new, 3);
    let hunks = side_by_side(&diff);
    assert_eq!(hunks.len(), diff.hunks.len());
    for (side, unified) in hunks.iter().zip(&diff.hunks) {
        assert_eq!(side.header, unified.header());
        assert_eq!((side.old_start, side.old_len), (unified.old_start, unified.old_len));
        assert_eq!((side.new_start, side.new_len), (unified.new_start, unified.new_len));
        let old_count = side.rows.iter().filter(|r| r.old.is_some()).count();
        let new_count = side.rows.iter().filter(|r| r.new.is_some()).count();
        assert_eq!((old_count, new_count), (unified.old_len, unified.new_len));
    }
    let last = diff_text("a\n", "a", 3);
    let rows = &side_by_side(&last)[0].rows;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].kind, RowKind::Changed);
    assert!(!rows[0].old.as_ref().unwrap().missing_newline);
    assert!(rows[0].new.as_ref().unwrap().missing_newline);
}

#[test]
fn side_by_side_emphasis_ranges_are_char_boundaries_of_the_text() {
    let diff = diff_text("größe: 1 €\n", "größe: 2 €\n", 3);
    let hunk = &side_by_side(&diff)[0];
    let cell = hunk.rows[0].new.as_ref().unwrap();
    // `größe: ` is 9 bytes: ö and ß take two each.
    assert_eq!(cell.emphasis, [Emphasis { start: 9, end: 10 }]);
    assert_eq!(&cell.text[9..10], "2");
    let json = serde_json::to_value(hunk).unwrap();
    assert_eq!(json["rows"][0]["kind"], "changed");
    assert_eq!(json["rows"][0]["new"]["emphasis"][0]["start"], 9);
}

#[test]
fn changed_lines_are_the_full_diffs_changed_lines_without_emphasis() {
    // Every pair of the tutorial's files before and after the swap (and each against an
    // empty file), plus endings and replacements the word emphasis splits differently.
    let workspace = crate::support::tutorial_workspace();
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (path, before) in workspace.before.files() {
        let after = workspace.after.file(path).unwrap_or_default();
        pairs.push((before.to_owned(), after.to_owned()));
        pairs.push((before.to_owned(), String::new()));
        pairs.push((String::new(), after.to_owned()));
    }
    for (old, new) in [
        ("a\r\nb\r\nc", "a\r\nB\r\nc\r\n"),
        ("one two\nthree\n", "one 2\nthree\nfour"),
        ("x\r", "x\r\n"),
        ("same\n", "same\n"),
        ("", "only\n\n\n"),
    ] {
        pairs.push((old.to_owned(), new.to_owned()));
    }
    assert!(pairs.len() > 20);
    for (old, new) in &pairs {
        let full: Vec<(LineKind, usize, String)> = diff_text(old, new, 0)
            .hunks
            .iter()
            .flat_map(|h| h.lines.iter())
            .map(|l| (l.kind, l.new_line.or(l.old_line).unwrap_or(0), l.text()))
            .collect();
        let quick: Vec<(LineKind, usize, String)> = changed_lines(old, new)
            .into_iter()
            .map(|l| (l.kind, l.line, l.text.to_owned()))
            .collect();
        assert_eq!(quick, full, "old:\n{old}\nnew:\n{new}");
    }
}

/// The memo gives what a comparison from nothing gives, revision after revision: after
/// an edit, after a file added and one removed, and after an edit back to the old text.
#[test]
fn project_changes_with_a_memo_match_a_fresh_comparison() {
    use swaplab_core::diff::{ChangesMemo, project_changes_with};
    use swaplab_core::{Area, FileRef};

    let mut workspace = Workspace::default();
    let before = FileRef::new(Area::Before, "skills/a/skill.md");
    let after = FileRef::new(Area::After, "skills/a/skill.md");
    workspace.set_file(&before, "one\ntwo\n");
    workspace.set_file(&after, "one\n2\n");
    workspace.set_file(&FileRef::new(Area::Before, "gone.yml"), "x: 1\n");
    let mut memo = ChangesMemo::default();
    let mut check = |workspace: &Workspace| {
        let memoised = project_changes_with(&workspace.before, &workspace.after, &mut memo);
        assert_eq!(memoised, project_changes(&workspace.before, &workspace.after));
        memoised
    };
    let first = check(&workspace);
    assert_eq!(first.len(), 2);

    let mut next = workspace.clone();
    next.set_file(&after, "one\n2\nthree\n");
    next.set_file(&FileRef::new(Area::After, "new.yml"), "y: 2\n");
    let second = check(&next);
    assert_eq!(second.len(), 3, "{second:?}");
    assert_ne!(first, second);

    next.remove_file(&FileRef::new(Area::Before, "gone.yml"));
    next.set_file(&after, "one\ntwo\n");
    let third = check(&next);
    assert_eq!(
        third.iter().find(|c| c.path == "skills/a/skill.md").unwrap().status,
        ChangeStatus::Unchanged
    );
}
