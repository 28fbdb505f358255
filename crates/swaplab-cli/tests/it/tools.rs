//! `swaplab tools`: the `tools/list` the server publishes, as text and as JSON, compared
//! with golden files; and the golden-file helper the attack tests share.

use std::path::PathBuf;

use swaplab_core::sim::Simulation;
use swaplab_core::sim::json;

use crate::{stderr, stdout, swaplab};

/// Compares `actual` with `tests/golden/<name>` exactly; with `SWAPLAB_BLESS=1` writes
/// it instead.
pub fn golden(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name);
    if std::env::var_os("SWAPLAB_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("mkdir");
        std::fs::write(&path, actual).expect("write the golden file");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|error| {
        panic!("{}: {error}; run with SWAPLAB_BLESS=1 to write it", path.display())
    });
    if expected != actual {
        let first = expected
            .lines()
            .zip(actual.lines())
            .position(|(e, a)| e != a)
            .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
        panic!(
            "{} differs from the output at line {}:\n  golden: {:?}\n  output: {:?}\n\
             (run with SWAPLAB_BLESS=1 to accept the output)\n--- output ---\n{actual}",
            path.display(),
            first + 1,
            expected.lines().nth(first),
            actual.lines().nth(first),
        );
    }
}

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
