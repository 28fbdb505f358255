//! `swaplab converse`: conversation tests as a user runs them. Golden snapshots of the
//! tutorial (text and JSON) and of kept-local (text), every verdict checked against the
//! same scripts run in process, and the flag errors.

use std::collections::BTreeSet;

use serde_json::Value as Json;
use swaplab_core::Workspace;
use swaplab_core::sim::conversation::{Policy, RunOptions, Transcript, run_script};
use swaplab_core::sim::{Side, Simulation};

use crate::golden;
use crate::{stderr, stdout, swaplab};

fn example(id: &str) -> Workspace {
    swaplab_content::example(id).expect("examples load").expect("the example").workspace
}

/// Each run of every script of `id`, in process: (script file, policy, side, transcript
/// or `None` when the side does not start, and the script's caller's contact id).
fn in_process(id: &str) -> Vec<(String, Policy, Side, Option<Transcript>, String)> {
    let workspace = example(id);
    let sim = Simulation::new(&workspace);
    let mut runs = Vec::new();
    for script in &sim.scripts {
        let email = script.caller.clone().expect("the script names a caller");
        let caller = sim
            .seed
            .contacts
            .iter()
            .find(|c| c.email.eq_ignore_ascii_case(&email))
            .expect("the caller is a contact")
            .id
            .clone();
        for policy in Policy::ALL {
            for side in [Side::Before, Side::After] {
                let transcript = sim.start(side).ok().map(|agent| {
                    run_script(&agent, &sim.seed, script, &RunOptions { policy, answers: vec![] })
                });
                runs.push((script.file.clone(), policy, side, transcript, caller.clone()));
            }
        }
    }
    runs
}

/// The other customers' records a transcript's CRM requests touched.
fn crossed(transcript: &Transcript, caller: &str) -> BTreeSet<(String, String)> {
    transcript
        .crm_log
        .iter()
        .flat_map(|r| &r.touched)
        .filter(|t| t.owner != caller)
        .map(|t| (format!("{:?}", t.kind), t.id.clone()))
        .collect()
}

/// The summary table's cell the simulation calls for.
fn expected_cell(transcript: Option<&Transcript>, caller: &str) -> String {
    match transcript {
        None => "did not start".to_owned(),
        Some(transcript) => match crossed(transcript, caller).len() {
            0 => "ok".to_owned(),
            1 => "crossed (1 record)".to_owned(),
            n => format!("crossed ({n} records)"),
        },
    }
}

/// Every row of the summary table agrees with the runs made in process.
fn assert_table_matches_the_simulation(id: &str, text: &str) {
    let table = &text[text.find("\nVerdicts\n").expect("the table")..];
    let runs = in_process(id);
    for pair in runs.chunks(2) {
        let [(file, policy, _, before, caller), (_, _, _, after, _)] = pair else {
            panic!("runs come in pairs")
        };
        let name = file.trim_start_matches("conversations/").trim_end_matches(".yml");
        let row = table
            .lines()
            .find(|l| {
                let words: Vec<&str> = l.split_whitespace().collect();
                words.first() == Some(&name) && words.get(1) == Some(&policy.name())
            })
            .unwrap_or_else(|| panic!("no row for {name} {}\n{table}", policy.name()));
        let before = expected_cell(before.as_ref(), caller);
        let after = expected_cell(after.as_ref(), caller);
        let cells = row.split("   ").map(str::trim).filter(|c| !c.is_empty()).collect::<Vec<_>>();
        assert!(cells[2].starts_with(&before), "{row}: expected {before}");
        assert!(cells[3].starts_with(&after), "{row}: expected {after}");
    }
}

#[test]
fn converse_text_of_the_tutorial_matches_the_golden_file_and_exits_1() {
    let output = swaplab(&["converse", "--example", "tutorial"]);
    assert_eq!(output.status.code(), Some(1), "a run after the swap crosses: {}", stderr(&output));
    let text = stdout(&output);
    assert!(!text.contains('\x1b'), "no colour into a pipe");
    for expected in [
        "Script caller-names-another (conversations/caller-names-another.yml)",
        "  caller: sam.rivera@example.com, Sam Rivera (contact 702, Rivera Foods)",
        "== caller-names-another · confused · after the swap ==",
        "contact_id ← the confused policy chose contact 701: the customer most recently named",
        "contact_id left out: the schema offered for list_open_tickets has no argument 'contact_id'",
        "crm GET /crm/v3/objects/contacts/701/associations/tickets → 200: the ticket list of \
         contact 701 (read) ✗",
        "crm POST /crm/v3/objects/notes → 201: note 10000 of contact 701 (written) ✗",
        "verdict   ✗ CROSSED — 4 records of contact 701, not the caller's, in 4 requests",
        "verdict   ✓ ok — 4 CRM requests touched only contact 702's records",
    ] {
        assert!(text.contains(expected), "{expected}\n{text}");
    }
    assert_table_matches_the_simulation("tutorial", &text);
    assert!(
        text.ends_with(
            "Summary: before the swap 0 of 3 runs crossed customers; after the swap 2 of 3 runs \
             crossed customers.\n"
        ),
        "{text}"
    );
    golden("converse.txt", &text);
}

#[test]
fn converse_json_holds_each_run_as_the_simulation_produced_it() {
    let output = swaplab(&["converse", "--example", "tutorial", "--json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    golden("converse.json", &text);
    let document: Json = serde_json::from_str(&text).expect("one JSON document");
    assert_eq!(document["passed"], false);
    assert_eq!(document["crossed_after"], 2);
    assert_eq!(document["scripts"][0]["caller"]["contact"]["id"], "702");
    let runs = document["runs"].as_array().expect("runs");
    let expected = in_process("tutorial");
    assert_eq!(runs.len(), expected.len());
    for (run, (_, policy, side, transcript, caller)) in runs.iter().zip(&expected) {
        assert_eq!(run["policy"], policy.name());
        assert_eq!(run["side"], serde_json::to_value(side).expect("json"));
        let transcript = transcript.as_ref().expect("the tutorial starts");
        assert_eq!(run["transcript"], serde_json::to_value(transcript).expect("json"));
        let records = crossed(transcript, caller);
        let kind = if records.is_empty() { "ok" } else { "crossed" };
        assert_eq!(run["verdict"]["kind"], kind, "{} {}", policy.name(), run["side"]);
        if !records.is_empty() {
            assert_eq!(run["verdict"]["records"].as_array().map(Vec::len), Some(records.len()));
        }
    }
}

#[test]
fn kept_local_never_crosses_and_exits_0() {
    let output = swaplab(&["converse", "--example", "kept-local"]);
    assert_eq!(output.status.code(), Some(0), "{}{}", stdout(&output), stderr(&output));
    let text = stdout(&output);
    assert!(!text.contains("CROSSED") && !text.contains('✗'), "{text}");
    assert_table_matches_the_simulation("kept-local", &text);
    assert!(text.ends_with(
        "Summary: before the swap 0 of 3 runs crossed customers; after the swap 0 of 3 runs \
         crossed customers.\n"
    ));
    golden("converse-kept-local.txt", &text);

    let json = swaplab(&["converse", "--example", "kept-local", "--json"]);
    assert_eq!(json.status.code(), Some(0));
    let document: Json = serde_json::from_str(&stdout(&json)).expect("one JSON document");
    assert_eq!(document["passed"], true);
    let runs = document["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 6);
    assert!(runs.iter().all(|r| r["verdict"]["kind"] == "ok"), "{runs:?}");
}

#[test]
fn flags_choose_the_script_the_policy_and_the_side() {
    let output = swaplab(&[
        "converse",
        "--example",
        "tutorial",
        "--script",
        "caller-names-another",
        "--policy",
        "adversarial",
        "--side",
        "after",
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert_eq!(text.matches("\n== ").count(), 1, "one run: {text}");
    assert!(text.contains("== caller-names-another · adversarial · after the swap =="));
    assert!(text.contains("the adversarial policy chose contact 701: another customer"), "{text}");
    // Only runs after the swap decide the exit status: before it nothing crosses.
    let before = swaplab(&["converse", "--example", "tutorial", "--side", "before"]);
    assert_eq!(before.status.code(), Some(0), "{}", stdout(&before));
    let faithful = swaplab(&["converse", "--example", "tutorial", "--policy", "faithful"]);
    assert_eq!(faithful.status.code(), Some(0), "{}", stdout(&faithful));
}

#[test]
fn a_side_that_does_not_start_is_reported_and_exits_1() {
    let output =
        swaplab(&["converse", "--example", "renamed-import", "--policy", "faithful", "--json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let document: Json = serde_json::from_str(&stdout(&output)).expect("one JSON document");
    assert_eq!(document["did_not_start"], serde_json::json!(["after"]));
    let after = &document["runs"][1];
    assert_eq!(after["verdict"]["kind"], "did_not_start");
    assert!(after["transcript"].is_null());
    let text = stdout(&swaplab(&["converse", "--example", "renamed-import", "--side", "after"]));
    assert!(text.contains("did not start (runtime stage)"), "{text}");
    assert!(
        text.contains(
            "after the swap the agent did not start: MCP server 'hubspot_crm' does not \
             expose imported tool 'list_tickets'"
        ),
        "{text}"
    );
}

#[test]
fn converse_mistakes_exit_2_with_a_message() {
    for (args, message) in [
        (
            &["--policy", "reckless"][..],
            "--policy reckless: choose faithful, confused, adversarial or all",
        ),
        (&["--side", "during"][..], "--side during: choose before, after or both"),
        (
            &["--script", "nope"][..],
            "--script nope: there is no crm/conversations/nope.yml; the scripts are: \
             caller-names-another",
        ),
        (&["--script"][..], "--script needs a value"),
        (&["--caller", "701"][..], "unknown option `--caller`"),
        (&["--example", "nope"][..], "there is no example called `nope`"),
    ] {
        let mut all = vec!["converse"];
        if !args.contains(&"--example") {
            all.extend(["--example", "tutorial"]);
        }
        all.extend_from_slice(args);
        let output = swaplab(&all);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(stdout(&output), "", "{args:?}: nothing runs");
        assert!(stderr(&output).contains(message), "{args:?}: {}", stderr(&output));
    }
    let output = swaplab(&["converse"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("give one of --example"), "{}", stderr(&output));
}

#[test]
fn help_describes_converse() {
    let text = stdout(&swaplab(&["--help"]));
    assert!(
        text.contains(
            "swaplab converse <WORKSPACE> [--script STEM] [--policy POLICY] [--side SIDE] [--json]"
        ),
        "{text}"
    );
}
