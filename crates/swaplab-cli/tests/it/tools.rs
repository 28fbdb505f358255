//! `swaplab tools`: the `tools/list` the server publishes, as text and as JSON, compared
//! with golden files; and the golden-file helper the attack tests share.

use std::path::PathBuf;

use swaplab_core::sim::Simulation;
use swaplab_core::sim::json;

use crate::{golden, stderr, stdout, swaplab};

/// The built-in tutorial, as the binary reads it.
pub fn tutorial() -> swaplab_core::Workspace {
    swaplab_content::example("tutorial").expect("examples load").expect("the tutorial").workspace
}

#[test]
fn tools_text_matches_the_golden_file_and_ends_with_the_guides_requires_lines() {
    let output = swaplab(&["tools", "--example", "tutorial"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.ends_with(
            "\nfind_contact_by_email requires ['email']\n\
             list_open_tickets requires ['contact_id']\n\
             add_timeline_note requires ['contact_id', 'summary']\n"
        ),
        "{text}"
    );
    assert!(!text.contains('\x1b'), "no colour into a pipe");
    golden("tools.txt", &text);
}

#[test]
fn tools_json_is_the_tools_list_result_the_server_sends() {
    let output = swaplab(&["tools", "--example", "tutorial", "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    golden("tools.json", &text);
    let simulation = Simulation::new(&tutorial());
    let server = simulation.server.as_ref().expect("the tutorial has a server");
    let printed = json::parse(&text).expect("one JSON document");
    assert_eq!(printed, server.tools_list(), "the same value, key order included");
    let document: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let names: Vec<&str> = document["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["find_contact_by_email", "list_open_tickets", "add_timeline_note"]);
}

#[test]
fn tools_without_a_server_file_exits_2_and_says_so() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tools-no-server");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    let dir = dir.to_str().expect("utf-8");
    for args in
        [&["tools", "--before", dir, "--after", dir][..], &["mcp", "--before", dir, "--after", dir]]
    {
        let output = swaplab(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).contains("swaplab: the workspace has no MCP server file"),
            "{args:?}: {}",
            stderr(&output)
        );
        assert_eq!(stdout(&output), "", "{args:?}");
    }
}
