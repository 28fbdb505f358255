//! `swaplab diff` as a user runs it: the semantic summary, unified and side-by-side
//! diffs, the JSON document, and exit codes.
//!
//! The tutorial's outputs are golden files under `tests/golden/` (`diff.txt`,
//! `diff-side-by-side.txt`, `diff.json`), compared byte for byte. Standard output is a
//! pipe here, so the text is plain. After an intended change to the output, regenerate
//! them with
//!
//! ```text
//! SWAPLAB_BLESS=1 cargo test -p swaplab-cli --test it diff::
//! ```
//!
//! and review the golden files' diff before committing it.

use crate::{golden, scratch, stderr, stdout, swaplab};

#[test]
fn the_tutorial_diff_matches_its_golden_text() {
    let output = swaplab(&["diff", "--example", "tutorial"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(!text.contains('\x1b'), "no colour when stdout is a pipe");
    golden("diff.txt", &text);
    // The summary comes first, then the diffs.
    let summary = text.find("18 semantic changes").expect("summary");
    let first_diff = text.find("--- before/").expect("a diff");
    assert!(summary < first_diff);
    assert!(text.contains(
        "  + `list_open_tickets`: argument `contact_id` added (string, required)  \
         server/scripts/mcp_crm_server.py:49:29\n"
    ));
}

#[test]
fn the_side_by_side_diff_fits_160_columns_and_matches_its_golden_text() {
    let output = swaplab(&["diff", "--example", "tutorial", "--side-by-side"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    golden("diff-side-by-side.txt", &text);
    let diffs = &text[text.find("--- before/").expect("a diff")..];
    for line in diffs.lines() {
        assert!(line.chars().count() <= 160, "{} columns: {line}", line.chars().count());
    }
    assert!(text.contains("…"), "long lines are cut");
    // The rewritten import is one row: old on the left, new on the right.
    let row = diffs
        .lines()
        .find(|l| l.contains("- find_contact_by_email"))
        .expect("the rewritten import");
    assert!(row.contains("│    8 +   - mcp/hubspot_crm:find_contact_by_email"), "{row}");
}

#[test]
fn the_json_document_matches_its_golden_file() {
    let output = swaplab(&["diff", "--example", "tutorial", "--json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    golden("diff.json", &text);
    let document: serde_json::Value = serde_json::from_str(&text).expect("one JSON document");
    assert_eq!(document["view"], "unified");
    let semantic = document["semantic"].as_array().expect("semantic");
    assert_eq!(semantic.len(), 18);
    let rewrite = semantic
        .iter()
        .find(|c| c["kind"] == "import_rewritten_to_mcp")
        .expect("the rewritten import");
    assert_eq!(rewrite["skill"], "identify_customer");
    assert_eq!(rewrite["after"]["file"]["path"], "skills/identify_customer/skill.md");
    assert_eq!(rewrite["after"]["span"]["start"]["line"], 8);
    let files = document["files"].as_array().expect("files");
    let statuses: Vec<(&str, &str)> = files
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["status"].as_str().unwrap()))
        .collect();
    assert!(statuses.contains(&("skills/check_tickets/tools.py", "removed")));
    assert!(statuses.contains(&("integrations.yml", "modified")));
    assert_eq!(files[0]["hunks"][0]["lines"][0]["kind"], "context");
}

#[test]
fn json_with_side_by_side_gives_rows() {
    let output = swaplab(&["diff", "--example", "tutorial", "--json", "--side-by-side"]);
    assert_eq!(output.status.code(), Some(1));
    let document: serde_json::Value =
        serde_json::from_str(&stdout(&output)).expect("one JSON document");
    assert_eq!(document["view"], "side_by_side");
    let identify = document["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "skills/identify_customer/skill.md")
        .expect("identify_customer");
    let rows = identify["hunks"][0]["rows"].as_array().expect("rows");
    let changed = rows.iter().find(|r| r["kind"] == "changed").expect("a changed row");
    assert_eq!(changed["old"]["text"], "  - find_contact_by_email");
    assert_eq!(changed["new"]["text"], "  - mcp/hubspot_crm:find_contact_by_email");
    assert_eq!(changed["old"]["line"], 8);
    assert!(!changed["new"]["emphasis"].as_array().unwrap().is_empty());
}

#[test]
fn a_moved_constraint_is_named_with_its_line() {
    let dir = scratch("diff-moved-constraint");
    let export = swaplab(&["export", "tutorial", dir.to_str().unwrap()]);
    assert_eq!(export.status.code(), Some(0), "{}", stderr(&export));
    let skill = dir.join("after/skills/log_interaction/skill.md");
    let text = std::fs::read_to_string(&skill).expect("skill.md");
    std::fs::write(
        &skill,
        text.replacen("  - add_timeline_note:\n", "  - list_open_tickets:\n", 1),
    )
    .expect("write");
    let output = swaplab(&[
        "diff",
        "--before",
        dir.join("before").to_str().unwrap(),
        "--after",
        dir.join("after").to_str().unwrap(),
        "--server",
        dir.join("server/scripts/mcp_crm_server.py").to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    let line = "  ~ constraint `requires_confirmation` moved from add_timeline_note to \
                list_open_tickets  after/skills/log_interaction/skill.md:9:5\n";
    assert_eq!(text.matches(line).count(), 1, "{text}");
}

#[test]
fn identical_projects_exit_0_in_every_view() {
    let dir = scratch("diff-same");
    assert_eq!(swaplab(&["export", "tutorial", dir.to_str().unwrap()]).status.code(), Some(0));
    let before = dir.join("before");
    let same = ["diff", "--before", before.to_str().unwrap(), "--after", before.to_str().unwrap()];
    let plain = swaplab(&same);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    assert_eq!(stdout(&plain), "");
    let side = swaplab(&[&same[..], &["--side-by-side"]].concat());
    assert_eq!(side.status.code(), Some(0));
    assert_eq!(stdout(&side), "");
    let json = swaplab(&[&same[..], &["--json"]].concat());
    assert_eq!(json.status.code(), Some(0));
    let document: serde_json::Value = serde_json::from_str(&stdout(&json)).expect("JSON");
    assert_eq!(document, serde_json::json!({"view": "unified", "semantic": [], "files": []}));
}

#[test]
fn diff_mistakes_exit_2() {
    for (args, message) in [
        (&["diff", "--side-by-side"][..], "give one of --example <EXAMPLE>"),
        (&["diff", "--example", "tutorial", "--colour"][..], "unknown option `--colour`"),
        (&["diff", "--example", "nope", "--json"][..], "there is no example called `nope`"),
    ] {
        let output = swaplab(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(stderr(&output).contains(message), "{args:?}: {}", stderr(&output));
        assert_eq!(stdout(&output), "", "{args:?}");
    }
}
