//! `swaplab prove` and `swaplab review` as a user runs them: golden snapshots of their
//! text and JSON output on the built-in tutorial example, and the exit codes of the
//! variants the tutorial's review guide describes.
//!
//! Golden files live in `tests/golden/`. After an intended change, rerun with
//! `SWAPLAB_BLESS=1 cargo test -p swaplab-cli` to rewrite them, and read the diff.

use crate::{golden, stdout, swaplab};
use std::path::{Path, PathBuf};
use std::process::Output;

/// The tutorial exported to a scratch folder, with one edit applied to `area/path`.
fn variant(name: &str, file: &str, from: &str, to: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let export = swaplab(&["export", "tutorial", dir.to_str().unwrap()]);
    assert_eq!(export.status.code(), Some(0));
    let path = dir.join(file);
    let body = std::fs::read_to_string(&path).unwrap();
    assert!(body.contains(from), "{from:?} not in {file}");
    std::fs::write(&path, body.replacen(from, to, 1)).unwrap();
    dir
}

fn flags(dir: &Path) -> Vec<String> {
    let at = |p: &str| dir.join(p).to_string_lossy().into_owned();
    vec![
        "--before".into(),
        at("before"),
        "--after".into(),
        at("after"),
        "--server".into(),
        at("server"),
        "--crm".into(),
        at("crm/crm.yml"),
    ]
}

fn run(command: &str, dir: &Path) -> Output {
    let mut args = vec![command.to_owned()];
    args.extend(flags(dir));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    swaplab(&args)
}

#[test]
fn prove_prints_the_seeds_proof_and_exits_0() {
    let output = swaplab(&["prove", "--example", "tutorial"]);
    assert_eq!(output.status.code(), Some(0));
    golden("prove.txt", &stdout(&output));
    let json = swaplab(&["prove", "--example", "tutorial", "--json"]);
    assert_eq!(json.status.code(), Some(0));
    golden("prove.json", &stdout(&json));
}

#[test]
fn review_of_the_as_shipped_swap_fails_with_its_evidence() {
    let output = swaplab(&["review", "--example", "tutorial"]);
    assert_eq!(output.status.code(), Some(1));
    golden("review.txt", &stdout(&output));
    let json = swaplab(&["review", "--example", "tutorial", "--json"]);
    assert_eq!(json.status.code(), Some(1));
    golden("review.json", &stdout(&json));
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["passed"], false);
    assert_eq!(value["failed"], 8);
}

#[test]
fn the_moved_confirmation_passes_the_proof_and_fails_the_review() {
    let dir = variant(
        "moved",
        "after/skills/log_interaction/skill.md",
        "  - add_timeline_note:\n",
        "  - list_open_tickets:\n",
    );
    assert_eq!(run("prove", &dir).status.code(), Some(0));
    let review = run("review", &dir);
    assert_eq!(review.status.code(), Some(1));
    let out = stdout(&review);
    assert!(
        out.contains(
            "constraint `requires_confirmation` moved from add_timeline_note to list_open_tickets"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "after/skills/log_interaction/skill.md:9  - list_open_tickets: requires_confirmation"
        ),
        "{out}"
    );
}

#[test]
fn a_dict_return_fails_the_proof_and_the_review_says_what_the_model_sees() {
    let dir = variant(
        "dict",
        "server/scripts/mcp_crm_server.py",
        "async def find_contact_by_email(email: str) -> CrmResult:",
        "async def find_contact_by_email(email: str) -> dict:",
    );
    let prove = run("prove", &dir);
    assert_eq!(prove.status.code(), Some(1));
    assert!(stdout(&prove).contains("  ✗ result is structured, not text blocks"));
    let review = stdout(&run("review", &dir));
    assert!(review.contains("find_contact_by_email publishes no outputSchema (`-> dict`), so the model sees `[{\"type\": \"text\""), "{review}");
}

#[test]
fn a_renamed_import_fails_the_proof_and_the_review_shows_the_start_up_error() {
    let dir = variant(
        "renamed",
        "after/skills/check_tickets/skill.md",
        "mcp/hubspot_crm:list_open_tickets",
        "mcp/hubspot_crm:list_tickets",
    );
    let prove = run("prove", &dir);
    assert_eq!(prove.status.code(), Some(1));
    assert!(stdout(&prove).contains(
        "  ✗ check_tickets imports list_open_tickets      reference not found in skill.md"
    ));
    let review = stdout(&run("review", &dir));
    assert!(review.contains(
        "Rasa would not start the agent (runtime): MCP server 'hubspot_crm' does not expose imported tool 'list_tickets' for skill 'check_tickets'."
    ));
    // The attack could not run: not a ✓, and counted apart from the passes.
    assert!(
        review.contains("  ? the attack could not run: the agent does not start (MCP server"),
        "{review}"
    );
    assert!(!review.contains("✓ the attack could not run"), "{review}");
    assert!(
        review.contains(
            "review failed: 13 checks, 4 failed, 3 warnings, 1 not tested, 3 passed, 2 notes"
        ),
        "{review}"
    );
}

/// The kept-local fix exported, with Sam Rivera gone from the CRM seed.
fn one_customer(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let export = swaplab(&["export", "kept-local", dir.to_str().unwrap()]);
    assert_eq!(export.status.code(), Some(0));
    let seed = dir.join("crm/crm.yml");
    let text = std::fs::read_to_string(&seed).unwrap();
    let sam = "  - id: \"702\"\n    firstname: Sam\n    lastname: Rivera\n    company: Rivera Foods\n    email: sam.rivera@example.com\n";
    assert!(text.contains(sam));
    std::fs::write(&seed, text.replacen(sam, "", 1)).unwrap();
    dir
}

#[test]
fn a_review_whose_attack_tested_nothing_is_incomplete_and_exits_3() {
    // The same fix passes with two customers in the seed …
    let passed = swaplab(&["review", "--example", "kept-local"]);
    assert_eq!(passed.status.code(), Some(0));
    assert!(
        stdout(&passed)
            .contains("\nreview passed: 5 checks, 0 failed, 1 warning, 4 passed, 0 notes\n"),
        "{}",
        stdout(&passed)
    );
    // … and with one, nothing fails but the attack has no one to attack with.
    let dir = one_customer("one-customer-review");
    let output = run("review", &dir);
    assert_eq!(output.status.code(), Some(3), "{}", stdout(&output));
    let text = stdout(&output);
    assert!(text.contains("  ? the attack could not run: the CRM seed has fewer than two contacts, so there is no other customer's id to pass\n"), "{text}");
    assert!(text.contains("\nreview incomplete (nothing failed, but not everything was tested): 5 checks, 0 failed, 1 warning, 1 not tested, 3 passed, 0 notes\n"), "{text}");
    let mut args = vec!["review".to_owned()];
    args.extend(flags(&dir));
    args.push("--json".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let json = swaplab(&args);
    assert_eq!(json.status.code(), Some(3));
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["passed"], false, "an untested review does not pass");
    assert_eq!(value["outcome"], "incomplete");
    assert_eq!((value["failed"].as_u64(), value["not_tested"].as_u64()), (Some(0), Some(1)));
    assert_eq!(value["attack"]["after"]["verdict"]["reason"]["why"], "no_other_customer");
}

#[test]
fn errors_exit_2_with_a_message() {
    let output = swaplab(&["review", "--example", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("there is no example called `nope`"));
    let output = swaplab(&["prove", "--frobnicate"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn parse_of_the_tutorial_workspace_matches_its_snapshots() {
    let output = swaplab(&["parse", "--example", "tutorial"]);
    golden("parse.txt", &stdout(&output));
    let json = swaplab(&["parse", "--example", "tutorial", "--json"]);
    golden("parse.json", &stdout(&json));
    assert_eq!(output.status.code(), json.status.code());
}

#[test]
fn an_exported_example_reads_back_as_a_folder_with_the_same_results() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("exported-as-folder");
    let _ = std::fs::remove_dir_all(&dir);
    let export = swaplab(&["export", "--example", "tutorial", dir.to_str().unwrap()]);
    assert_eq!(export.status.code(), Some(0));
    assert!(dir.join("before/.env.example").is_file(), "the set-up's dotfile is written");
    assert!(dir.join("crm/scripts/mock_hubspot.py").is_file());
    for command in ["prove", "review", "attack"] {
        let from_folder = swaplab(&[command, dir.to_str().unwrap()]);
        let built_in = swaplab(&[command, "--example", "tutorial"]);
        assert_eq!(from_folder.status.code(), built_in.status.code(), "{command}");
        assert_eq!(stdout(&from_folder), stdout(&built_in), "{command}");
    }
}
