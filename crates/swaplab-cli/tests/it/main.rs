//! The `swaplab` binary as a user runs it: arguments in, text and exit codes out.

use std::path::PathBuf;
use std::process::{Command, Output};

mod attack;
mod caps;
mod checks;
mod converse;
mod diff;
mod mcp;
mod own_scripts;
mod tools;

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

fn swaplab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_swaplab")).args(args).output().expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn help_and_version_succeed() {
    let help = swaplab(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(stdout(&help).contains("swaplab diff"));
    let version = swaplab(&["--version"]);
    assert_eq!(stdout(&version).trim(), format!("swaplab {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn examples_lists_the_tutorial() {
    let output = swaplab(&["examples"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout(&output).starts_with("tutorial"), "{}", stdout(&output));
}

#[test]
fn diff_of_the_tutorial_shows_the_import_lines_and_exits_1() {
    let output = swaplab(&["diff", "--example", "tutorial"]);
    assert_eq!(output.status.code(), Some(1), "differences exit with 1");
    let text = stdout(&output);
    assert!(text.contains(
        "--- before/skills/check_tickets/skill.md\n+++ after/skills/check_tickets/skill.md\n"
    ));
    assert!(text.contains("+import_tools:\n+  - mcp/hubspot_crm:list_open_tickets\n"));
    assert!(
        text.contains("-  - find_contact_by_email\n+  - mcp/hubspot_crm:find_contact_by_email\n")
    );
    assert!(text.contains("+++ /dev/null"), "removed tool files are shown as deleted");
    assert!(stderr(&output).contains("D skills/check_tickets/tools.py"), "{}", stderr(&output));
}

#[test]
fn an_exported_example_diffs_the_same_from_disk() {
    let dir = scratch("export");
    let export = swaplab(&["export", "tutorial", dir.to_str().unwrap()]);
    assert_eq!(export.status.code(), Some(0), "{}", stderr(&export));
    assert!(dir.join("before/skills/check_tickets/tools.py").is_file());
    assert!(dir.join("server/scripts/mcp_crm_server.py").is_file());

    let from_disk = swaplab(&[
        "diff",
        "--before",
        dir.join("before").to_str().unwrap(),
        "--after",
        dir.join("after").to_str().unwrap(),
    ]);
    let built_in = swaplab(&["diff", "--example", "tutorial"]);
    assert_eq!(from_disk.status.code(), Some(1));
    // The file diffs agree; the semantic summary above them differs, because without
    // --server the arguments cannot be compared.
    let diffs = |output: &Output| {
        let text = stdout(output);
        text[text.find("--- before/").unwrap_or(0)..].to_owned()
    };
    assert_eq!(diffs(&from_disk), diffs(&built_in));
}

#[test]
fn a_project_compared_with_itself_exits_0() {
    let dir = scratch("same");
    swaplab(&["export", "tutorial", dir.to_str().unwrap()]);
    let before = dir.join("before");
    let output = swaplab(&[
        "diff",
        "--before",
        before.to_str().unwrap(),
        "--after",
        before.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "");
}

#[test]
fn mistakes_exit_2_with_a_message() {
    for (args, message) in [
        (&["frobnicate"][..], "unknown command `frobnicate`"),
        (
            &["diff", "--example", "nope"][..],
            "there is no example called `nope`; the examples are: tutorial",
        ),
        (
            &["diff", "--before", "/nonexistent/a", "--after", "/nonexistent/b"][..],
            "/nonexistent/a is not a folder",
        ),
        (
            &["diff"][..],
            "give one of --example <EXAMPLE>, --tutorial <DIR>, or --before <DIR> --after <DIR>",
        ),
        (&["diff", "--example"][..], "--example needs a value"),
        (&["export", "tutorial"][..], "expected 2 argument(s)"),
    ] {
        let output = swaplab(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(stderr(&output).contains(message), "{args:?}: {}", stderr(&output));
    }
}

fn corpus(project: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/rasa-corpus").join(project)
}

#[test]
fn parse_json_agrees_with_rasa_on_a_corpus_project() {
    let dir = corpus("maestro-voice-agent");
    let output = swaplab(&["parse", dir.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(1), "a refused skill exits 1: {}", stderr(&output));
    let document: serde_json::Value =
        serde_json::from_str(&stdout(&output)).expect("one JSON document");
    let verdict: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("rasa-3.21.0-verdict.json")).expect("verdict"),
    )
    .expect("json");
    for entry in verdict["skills"].as_array().expect("skills") {
        let id = entry["skill_md"]["skill_id"].as_str().expect("id");
        let ours = &document["skills"][id];
        if entry["skill_md"]["ok"] == true {
            assert_eq!(ours, &entry["skill_md"]["compiled"], "{id}");
        } else {
            assert_eq!(ours["error"]["code"], entry["skill_md"]["error"]["code"], "{id}");
            assert_eq!(ours["error"]["message"], entry["skill_md"]["error"]["message"], "{id}");
        }
    }
    assert_eq!(document["project_memory"]["customer_id"]["initial_value"], "456");
    assert_eq!(document["mcp_servers"]["declared"], false);
    let diagnostics = document["diagnostics"].as_array().expect("diagnostics");
    let refused = diagnostics
        .iter()
        .find(|d| d["code"] == "skill.requires.removed")
        .expect("the refused skill is a diagnostic");
    assert_eq!(refused["file"], "skills/change_booking/skill.md");
    assert_eq!(refused["span"]["start"]["line"], 6);
}

#[test]
fn parse_prints_findings_as_file_line_col() {
    let dir = scratch("parse-human");
    let export = swaplab(&["export", "tutorial", dir.to_str().unwrap()]);
    assert_eq!(export.status.code(), Some(0));
    let after = dir.join("after");
    let output = swaplab(&["parse", after.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}{}", stdout(&output), stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("ok       skills/check_tickets, imports mcp/hubspot_crm:list_open_tickets"),
        "{text}"
    );
    assert!(text.contains("3 skills, 3 loaded; 0 errors"), "{text}");
    // Put the local tool back beside its MCP import: the model would not load.
    std::fs::copy(
        dir.join("before/skills/check_tickets/tools.py"),
        after.join("skills/check_tickets/tools.py"),
    )
    .expect("copy");
    let output = swaplab(&["parse", after.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout(&output).contains(
            "skills/check_tickets/skill.md:7:5: error[swaplab.load.mcp_imports] (load): Skill 'check_tickets' MCP import 'mcp/hubspot_crm:list_open_tickets' collides with the local/shared tool 'list_open_tickets'."
        ),
        "{}",
        stdout(&output)
    );
}

#[test]
fn the_tutorial_layout_is_read_and_its_set_aside_files_are_named() {
    let exported = scratch("layout-export");
    assert_eq!(swaplab(&["export", "tutorial", exported.to_str().unwrap()]).status.code(), Some(0));
    // Build the tutorial's layout: the root is before, mcp_variant/ holds what the swap
    // replaces, the server sits in scripts/.
    let root = scratch("layout-root");
    copy_tree(&exported.join("before"), &root);
    for skill in ["check_tickets", "identify_customer", "log_interaction"] {
        let from = exported.join("after/skills").join(skill).join("skill.md");
        let to = root.join("mcp_variant/skills").join(skill);
        std::fs::create_dir_all(&to).expect("mkdir");
        std::fs::copy(from, to.join("skill.md")).expect("copy");
    }
    std::fs::copy(
        exported.join("after/integrations.yml"),
        root.join("mcp_variant/integrations.yml"),
    )
    .expect("copy");
    copy_tree(&exported.join("server"), &root);
    let output = swaplab(&["layout", root.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    for expected in [
        "set aside: skills/check_tickets/tools.py (defines list_open_tickets; imported over MCP by check_tickets)",
        "set aside: tools/crm.py (defines find_contact_by_email; imported over MCP by identify_customer)",
        "server: scripts/mcp_crm_server.py",
    ] {
        assert!(text.contains(expected), "{expected}\n{text}");
    }
    let from_layout = swaplab(&["diff", "--tutorial", root.to_str().unwrap()]);
    let from_example = swaplab(&["diff", "--example", "tutorial"]);
    assert_eq!(from_layout.status.code(), Some(1));
    assert_eq!(stdout(&from_layout), stdout(&from_example), "the same swap, read from the layout");
}

fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    for entry in std::fs::read_dir(from).expect("readable").filter_map(Result::ok) {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::create_dir_all(to).expect("mkdir");
            std::fs::copy(&path, &target).expect("copy");
        }
    }
}

#[test]
fn parse_of_a_workspace_lists_what_the_server_would_publish() {
    let output = swaplab(&["parse", "--example", "tutorial", "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let document: serde_json::Value = serde_json::from_str(&text).expect("one JSON document");
    let tools = document["server"]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["find_contact_by_email", "list_open_tickets", "add_timeline_note"]);
    assert_eq!(
        tools[1]["inputSchema"],
        serde_json::json!({"properties": {"contact_id": {"title": "Contact Id", "type": "string"}},
            "required": ["contact_id"], "title": "list_open_ticketsArguments", "type": "object"})
    );
    assert_eq!(tools[2]["inputSchema"]["required"], serde_json::json!(["contact_id", "summary"]));
    assert!(tools.iter().all(|t| t["outputSchema"]["title"] == "CrmResult"));
    // Key order survives: properties in parameter order, as FastMCP publishes them.
    let note = text.find("\"add_timeline_noteArguments\"").expect("title");
    let contact = text[..note].rfind("\"contact_id\": {").expect("contact_id");
    let summary = text[..note].rfind("\"summary\": {").expect("summary");
    assert!(contact < summary, "contact_id comes before summary");
    assert_eq!(
        document["before"]["skills"]["identify_customer"]["import_tool_names"],
        serde_json::json!(["find_contact_by_email"])
    );
    assert_eq!(document["after"]["mcp_imports"].as_array().map(Vec::len), Some(3));
}
