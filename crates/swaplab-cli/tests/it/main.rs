//! The `swaplab` binary as a user runs it: arguments in, text and exit codes out.

use std::path::PathBuf;
use std::process::{Command, Output};

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
    assert_eq!(stdout(&from_disk), stdout(&built_in));
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
            "give either --example <EXAMPLE>, or both --before <DIR> and --after <DIR>",
        ),
        (&["diff", "--example"][..], "--example needs a value"),
        (&["export", "tutorial"][..], "expected 2 argument(s)"),
    ] {
        let output = swaplab(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(stderr(&output).contains(message), "{args:?}: {}", stderr(&output));
    }
}
