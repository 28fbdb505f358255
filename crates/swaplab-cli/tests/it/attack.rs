//! `swaplab attack`: the tutorial's swap lets the caller read and write another
//! customer's records; the project before it does not. Text and JSON are golden files.

use crate::golden;
use crate::{stderr, stdout, swaplab};

#[test]
fn attack_text_matches_the_golden_file_and_exits_1() {
    let output = swaplab(&["attack", "--example", "tutorial"]);
    assert_eq!(output.status.code(), Some(1), "the swap leaks: {}", stderr(&output));
    let text = stdout(&output);
    for expected in [
        "Caller: Sam Rivera (contact 702, sam.rivera@example.com, Rivera Foods)",
        "Victim: Dana Okafor (contact 701, dana.okafor@example.com, Okafor Logistics)",
        "✗ LEAK 1 — READ: check_tickets · list_open_tickets with contact_id = 701",
        "ticket 9001 of contact 701 (read)",
        "GET /crm/v3/objects/contacts/701/associations/tickets",
        "✗ LEAK 2 — WRITE: log_interaction · add_timeline_note with contact_id = 701",
        "note 10000 of contact 701 (written)",
        "POST /crm/v3/objects/notes",
    ] {
        assert!(text.contains(expected), "{expected}\n{text}");
    }
    let before = &text[text.find("== Before the swap ==").expect("before")
        ..text.find("== After").expect("after")];
    assert!(before.contains("✓ no leak") && !before.contains("LEAK"), "{before}");
    assert!(
        text.ends_with(
            "Summary: before the swap 0 leaks, 2 of 2 probes blocked; after the swap 2 leaks \
             (1 read, 1 write), 0 of 2 probes blocked.\n"
        ),
        "{text}"
    );
    golden("attack.txt", &text);
}

#[test]
fn attack_json_is_the_attack_pair_two_leaks_after_none_before() {
    let output = swaplab(&["attack", "--example", "tutorial", "--json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    golden("attack.json", &text);
    let pair: serde_json::Value = serde_json::from_str(&text).expect("one JSON document");
    assert_eq!(pair["before"]["leaks"], serde_json::json!([]));
    let kinds: Vec<&str> = pair["after"]["leaks"]
        .as_array()
        .expect("leaks")
        .iter()
        .filter_map(|l| l["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["read", "write"]);
    assert_eq!(pair["after"]["caller"]["id"], "702");
    assert_eq!(pair["after"]["victim"]["id"], "701");
    assert!(pair["before"]["startup"].is_null() && pair["after"]["startup"].is_null());
    // The same document the simulation produces in process.
    let workspace = crate::tools::tutorial();
    let simulation = swaplab_core::sim::Simulation::new(&workspace);
    let in_process = simulation.attack(&Default::default());
    assert_eq!(text, format!("{}\n", serde_json::to_string_pretty(&in_process).expect("json")));
}

#[test]
fn an_attack_on_an_agent_that_does_not_start_is_not_tested_and_never_no_leak() {
    let output = swaplab(&["attack", "--example", "renamed-import"]);
    assert_eq!(output.status.code(), Some(1), "a side that does not start fails");
    let text = stdout(&output);
    let after = &text[text.find("== After the swap ==").expect("after")..];
    assert!(after.contains("? not tested: no probe ran"), "{after}");
    assert!(!after.contains("no leak"), "{after}");
    assert!(text.ends_with("after the swap did not start, so not tested.\n"), "{text}");
    golden("attack-not-started.txt", &text);
    let json = swaplab(&["attack", "--example", "renamed-import", "--json"]);
    let pair: serde_json::Value = serde_json::from_slice(&json.stdout).expect("one JSON document");
    assert_eq!(pair["after"]["verdict"]["kind"], "not_tested");
    assert_eq!(pair["after"]["verdict"]["reason"]["why"], "did_not_start");
    assert_eq!(pair["before"]["verdict"], serde_json::json!({"kind": "no_leak", "probes": 2}));
}

#[test]
fn probes_whose_tool_body_could_not_run_are_not_tested_and_exit_3() {
    // The tutorial, with both server tools' bodies stopping outside the Python subset
    // before they touch the CRM: no probe gets to leak or be refused, so nothing is tested.
    let dir = crate::scratch("could-not-run");
    assert_eq!(swaplab(&["export", "tutorial", dir.to_str().unwrap()]).status.code(), Some(0));
    let server = dir.join("server/scripts/mcp_crm_server.py");
    let text = std::fs::read_to_string(&server).unwrap();
    let text = text.replacen("    tickets = []\n", "    tickets = list(vars(str))\n", 1).replacen(
        "    note_id = await crm.create_note(",
        "    summary = getattr(summary, \"strip\")()\n    note_id = await crm.create_note(",
        1,
    );
    std::fs::write(&server, text).unwrap();
    let at = |p: &str| dir.join(p).to_string_lossy().into_owned();
    let (before, after, server, crm) =
        (at("before"), at("after"), at("server/scripts/mcp_crm_server.py"), at("crm/crm.yml"));
    let output = swaplab(&[
        "attack", "--before", &before, "--after", &after, "--server", &server, "--crm", &crm,
    ]);
    assert_eq!(output.status.code(), Some(3), "{}", stdout(&output));
    let text = stdout(&output);
    assert!(text.contains("→ could not run — the tool's body left the Python Swap Lab runs, so this probe tests nothing: "), "{text}");
    let after = &text[text.find("== After the swap ==").expect("after")..];
    assert!(!after.contains("→ blocked") && !after.contains("no leak"), "{after}");
    assert!(after.contains("the caller said yes; its body could not run in Swap Lab"), "{after}");
    assert!(
        text.contains(
            "? not tested: 2 of 2 probes could not run: the bodies of list_open_tickets, add_timeline_note stopped outside the Python subset Swap Lab runs\n"
        ),
        "{text}"
    );
    assert!(
        text.ends_with("after the swap not tested (2 of 2 probes could not run: the bodies of list_open_tickets, add_timeline_note stopped outside the Python subset Swap Lab runs).\n"),
        "{text}"
    );
}

#[test]
fn attack_ids_are_checked_against_the_seed() {
    for (args, message) in [
        (
            &["--caller", "999"][..],
            "--caller 999: there is no contact 999 in crm.yml; its contacts are 701, 702",
        ),
        (&["--caller", "701", "--victim", "701"][..], "--caller and --victim are both 701"),
    ] {
        let mut all = vec!["attack", "--example", "tutorial"];
        all.extend_from_slice(args);
        let output = swaplab(&all);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(stderr(&output).contains(message), "{args:?}: {}", stderr(&output));
    }
    let swapped =
        swaplab(&["attack", "--example", "tutorial", "--caller", "701", "--victim", "702"]);
    assert_eq!(swapped.status.code(), Some(1), "{}", stderr(&swapped));
    assert!(stdout(&swapped).contains("Caller: Dana Okafor (contact 701"), "{}", stdout(&swapped));
}
