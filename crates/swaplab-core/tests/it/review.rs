//! The review on the tutorial-shaped example and its broken and fixed variants: what it
//! must catch that the proof passes, with ids, verdicts and evidence at the line.

use swaplab_core::FileRef;
use swaplab_core::review::{Review, ReviewOutcome, Verdict, review, why};
use swaplab_core::workspace::Area;

use crate::support::{edit, shortcut_workspace, tutorial_workspace};

fn failing(review: &Review) -> Vec<&str> {
    review.checks.iter().filter(|c| c.verdict == Verdict::Fail).map(|c| c.id.as_str()).collect()
}

#[test]
fn the_as_shipped_swap_fails_the_review_on_everything_the_guide_lists() {
    let review = review(&tutorial_workspace(), &Default::default());
    assert!(!review.passed());
    assert_eq!(
        failing(&review),
        [
            "id-source:list_open_tickets.contact_id",
            "id-source:add_timeline_note.contact_id",
            "stale-prose:check_tickets",
            "stale-prose:log_interaction",
            "step-arguments:log_interaction.save_note.write_note",
            "project-memory:contact_id",
            "leak:list_open_tickets.contact_id",
            "leak:add_timeline_note.contact_id",
        ]
    );
    let read = review.check("id-source:list_open_tickets.contact_id").unwrap();
    assert!(read.summary.contains(
        "came from server-held memory before the swap; now the model chooses it, and the tool reads"
    ));
    assert_eq!(read.evidence[0].place(), "before/skills/check_tickets/tools.py:15");
    assert_eq!(read.why, why::TRUST_BOUNDARY);
    let write = review.check("id-source:add_timeline_note.contact_id").unwrap();
    assert!(write.summary.contains("the tool writes a customer's record"), "{}", write.summary);

    let stale = review.check("stale-prose:check_tickets").unwrap();
    assert_eq!(stale.evidence.len(), 1);
    assert_eq!(stale.evidence[0].place(), "after/skills/check_tickets/skill.md:9");
    assert!(stale.evidence[0].text.contains("in project memory by itself"));

    let step = review.check("step-arguments:log_interaction.save_note.write_note").unwrap();
    assert!(step.summary.contains(r#"{"error": "Invalid tool arguments: Missing required argument(s): 'contact_id'.", "retryable": true, "code": "invalid_arguments"}"#));
    let block = review.check("unreachable-block:log_interaction.save_note").unwrap();
    assert_eq!(block.verdict, Verdict::Warn);
    assert!(block.summary.contains("@block.save_note"));
    let memory = review.check("project-memory:contact_id").unwrap();
    assert!(memory.summary.contains("project.contact_id is no longer written"));
    assert_eq!(review.check("project-memory:company").unwrap().verdict, Verdict::Warn);
    let leak = review.check("leak:add_timeline_note.contact_id").unwrap();
    assert!(leak.summary.starts_with("WRITE add_timeline_note: a record was written on Dana Okafor (701) during a call from Sam Rivera (702)"), "{}", leak.summary);
    assert!(review.check("leak:list_open_tickets.contact_id").unwrap().summary.starts_with("READ"));
    assert_eq!(
        review.check("remote-arguments:add_timeline_note").unwrap().summary,
        "add_timeline_note requires ['contact_id', 'summary'] (imported by log_interaction)"
    );
    assert_eq!(review.check("startup").unwrap().verdict, Verdict::Pass);
    assert_eq!(review.check("constraints:log_interaction").unwrap().verdict, Verdict::Pass);
    // Every link goes to a known chapter section.
    assert!(review.checks.iter().all(|c| why::ALL.contains(&c.why)));
}

#[test]
fn a_confirmation_moved_to_the_read_tool_is_constraint_drift() {
    let mut workspace = tutorial_workspace();
    edit(
        &mut workspace,
        "after/skills/log_interaction/skill.md",
        "  - add_timeline_note:\n",
        "  - list_open_tickets:\n",
    );
    let review = review(&workspace, &Default::default());
    let drift = review.check("constraints:log_interaction").unwrap();
    assert_eq!(drift.verdict, Verdict::Fail);
    assert!(
        drift.summary.contains(
            "constraint `requires_confirmation` moved from add_timeline_note to list_open_tickets"
        ),
        "{}",
        drift.summary
    );
    assert!(
        drift.summary.contains(
            "constraint on `list_open_tickets` is keyed by a name no tool of log_interaction has"
        ),
        "{}",
        drift.summary
    );
    let places: Vec<String> = drift.evidence.iter().map(|e| e.place()).collect();
    assert!(places.contains(&"after/skills/log_interaction/skill.md:9".to_owned()), "{places:?}");
    assert!(places.contains(&"before/skills/log_interaction/skill.md:7".to_owned()), "{places:?}");
}

#[test]
fn a_dict_return_is_explained_by_what_the_model_would_see() {
    let mut workspace = tutorial_workspace();
    edit(
        &mut workspace,
        "server/scripts/mcp_crm_server.py",
        "async def find_contact_by_email(email: str) -> CrmResult:",
        "async def find_contact_by_email(email: str) -> dict:",
    );
    let review = review(&workspace, &Default::default());
    let check = review.check("output-schema:find_contact_by_email").unwrap();
    assert_eq!(check.verdict, Verdict::Fail);
    assert!(
        check.summary.contains(
            r#"[{"type": "text", "text": "{\n  \"ok\": true,\n  \"contact_id\": \"701\""#
        ),
        "{}",
        check.summary
    );
    assert!(check.summary.contains("`ok`, `error`"), "{}", check.summary);
    assert_eq!(check.evidence[0].place(), "server/scripts/mcp_crm_server.py:31");
}

#[test]
fn a_renamed_import_shows_rasas_start_up_error() {
    let mut workspace = tutorial_workspace();
    edit(
        &mut workspace,
        "after/skills/check_tickets/skill.md",
        "mcp/hubspot_crm:list_open_tickets",
        "mcp/hubspot_crm:list_tickets",
    );
    let review = review(&workspace, &Default::default());
    let startup = review.check("startup").unwrap();
    assert_eq!(startup.verdict, Verdict::Fail);
    assert_eq!(
        startup.summary,
        "Rasa would not start the agent (runtime): MCP server 'hubspot_crm' does not expose imported tool 'list_tickets' for skill 'check_tickets'."
    );
    assert_eq!(startup.evidence[0].place(), "after/skills/check_tickets/skill.md:7");
    // The attack could not run: that is not a pass.
    let leak = review.check("leak").unwrap();
    assert_eq!(leak.verdict, Verdict::NotTested);
    assert_eq!(
        leak.summary,
        "the attack could not run: the agent does not start (MCP server 'hubspot_crm' does not expose imported tool 'list_tickets' for skill 'check_tickets'.)"
    );
    assert!(review.to_text().contains("? leak  the attack could not run"), "{}", review.to_text());
}

#[test]
fn keeping_the_id_bound_tools_local_passes_the_review() {
    let tutorial = tutorial_workspace();
    let mut fixed = tutorial.clone();
    // The fix: the after project keeps every tool that reads or writes the caller's id
    // local; only the server configuration is new.
    fixed.after = tutorial.before.clone();
    let config = tutorial.file(&FileRef::new(Area::After, "integrations.yml")).unwrap().to_owned();
    fixed.set_file(&FileRef::new(Area::After, "integrations.yml"), config);
    let review = review(&fixed, &Default::default());
    assert!(review.passed(), "{}", review.to_text());
    assert!(review.checks.iter().all(|c| c.verdict != Verdict::Fail));
    assert_eq!(review.check("leak").unwrap().verdict, Verdict::Pass);
    assert!(
        review
            .attack
            .after
            .probes
            .iter()
            .all(|p| matches!(p.outcome, swaplab_core::sim::attack::ProbeOutcome::Blocked { .. }))
    );
}

/// The kept-local fix: the after project is the before project plus the server config.
fn kept_local() -> swaplab_core::Workspace {
    let tutorial = tutorial_workspace();
    let mut fixed = tutorial.clone();
    fixed.after = tutorial.before.clone();
    let config = tutorial.file(&FileRef::new(Area::After, "integrations.yml")).unwrap().to_owned();
    fixed.set_file(&FileRef::new(Area::After, "integrations.yml"), config);
    fixed
}

#[test]
fn a_review_whose_attack_tested_nothing_is_incomplete_not_passed() {
    // The kept-local fix passes — but with one customer in the seed there is no one
    // else's id to pass, and nothing else fails.
    let mut alone = kept_local();
    edit(
        &mut alone,
        "crm/crm.yml",
        "  - id: \"702\"\n    firstname: Sam\n    lastname: Rivera\n    company: Rivera Foods\n    email: sam.rivera@example.com\n",
        "",
    );
    let incomplete = review(&alone, &Default::default());
    assert_eq!(incomplete.count(Verdict::Fail), 0, "{}", incomplete.to_text());
    assert_eq!(incomplete.outcome(), ReviewOutcome::Incomplete);
    assert!(!incomplete.passed(), "a review that tested nothing does not pass");
    let leak = incomplete.check("leak").unwrap();
    assert_eq!(leak.verdict, Verdict::NotTested);
    assert_eq!(
        leak.summary,
        "the attack could not run: the CRM seed has fewer than two contacts, so there is no other customer's id to pass"
    );
    let text = incomplete.to_text();
    assert!(text.contains("    why: /learn/where-ids-come-from#the-attack\n"), "{text}");
    assert!(text.contains(": 0 failed, ") && text.contains(", 1 not tested, "), "{text}");
    // The same fix with both customers is a pass, every probe run to its end.
    let fixed = review(&kept_local(), &Default::default());
    assert_eq!(fixed.outcome(), ReviewOutcome::Passed);
    assert_eq!(
        fixed.check("leak").unwrap().summary,
        "2 probes with Dana Okafor (701)'s id on a call from Sam Rivera (702), each run to its end: no record of theirs reached the conversation"
    );
    assert!(!fixed.to_text().contains("not tested"));
}

#[test]
fn probes_that_could_not_run_and_bodies_it_could_not_follow_are_said_so() {
    let server = "server/scripts/mcp_crm_server.py";
    // add_timeline_note writes through a helper the textual reading does not follow
    // (the shortcut client, which the reading knows, behind a function of the file).
    let mut helper = shortcut_workspace();
    edit(
        &mut helper,
        server,
        "    note_id = await crm.create_note(contact_id=contact_id, body=summary)\n",
        "    note_id = await _write(contact_id, summary)\n",
    );
    edit(
        &mut helper,
        server,
        "\nif __name__",
        "\nasync def _write(contact_id, body):\n    return await crm.create_note(contact_id=contact_id, body=body)\n\n\nif __name__",
    );
    let helped = review(&helper, &Default::default());
    let write = helped.check("id-source:add_timeline_note.contact_id").unwrap();
    assert!(
        write.summary.ends_with(
            "now the model chooses it, and the tool writes a customer's record: the attack's run of it did, though Swap Lab could not follow all of its body, because it calls `_write`, a function of the file the reading does not follow (line 75)"
        ),
        "{}",
        write.summary
    );
    assert!(!write.summary.contains("does not touch"), "{}", write.summary);
    // The interpreter follows the helper: the attack still finds the write.
    assert!(helped.check("leak:add_timeline_note.contact_id").is_some());

    // list_open_tickets's body stops outside the subset: its probe could not run.
    let mut stopped = shortcut_workspace();
    edit(&mut stopped, server, "    tickets = []\n", "    tickets = list(vars(str))\n");
    let stopped = review(&stopped, &Default::default());
    assert!(stopped.check("leak:list_open_tickets.contact_id").is_none());
    let read = stopped.check("id-source:list_open_tickets.contact_id").unwrap();
    assert!(
        read.summary.contains(
            "the tool reads a customer's record, and perhaps more: Swap Lab could not follow all of its body, because it uses the builtin `vars`"
        ),
        "{}",
        read.summary
    );
    let leak = stopped.check("leak").unwrap();
    assert_eq!(leak.verdict, Verdict::NotTested);
    assert_eq!(
        leak.summary,
        "besides the leaks, 1 of 2 probes could not run: list_open_tickets stopped outside the Python subset Swap Lab runs, so what it would do with Dana Okafor (701)'s id is not tested"
    );
    assert_eq!(leak.evidence[0].place(), "server/scripts/mcp_crm_server.py");
    assert!(leak.evidence[0].text.starts_with("list_open_tickets could not run: "));
}

#[test]
fn a_body_on_the_projects_own_client_is_judged_by_what_its_run_did_or_not_at_all() {
    // The tutorial's server calls lib/hubspot.py, which the textual reading does not
    // follow: the attack's runs are the evidence of what each tool touches.
    let shipped = review(&tutorial_workspace(), &Default::default());
    let read = shipped.check("id-source:list_open_tickets.contact_id").unwrap();
    assert_eq!(read.verdict, Verdict::Fail);
    assert!(read.summary.contains("the tool reads a customer's record: the attack's run of it did, though Swap Lab could not follow all of its body, because it uses `hubspot`"), "{}", read.summary);
    // When the probe cannot run there is no run to go by: "could not tell", never "does
    // not touch".
    let mut stopped = tutorial_workspace();
    let server = "server/scripts/mcp_crm_server.py";
    edit(&mut stopped, server, "    tickets = []\n", "    tickets = list(vars(str))\n");
    let stopped = review(&stopped, &Default::default());
    let read = stopped.check("id-source:list_open_tickets.contact_id").unwrap();
    assert!(
        read.summary.ends_with("Swap Lab could not tell whether the tool touches a customer's record, because it uses the builtin `vars`, outside the Python subset Swap Lab reads (line 58)"),
        "{}",
        read.summary
    );
}

#[test]
fn the_review_text_lists_each_check_with_its_evidence_and_a_summary() {
    let text = review(&tutorial_workspace(), &Default::default()).to_text();
    assert!(text.contains("✗ id-source:list_open_tickets.contact_id  `contact_id` of list_open_tickets came from server-held memory"));
    assert!(text.contains("    before/skills/check_tickets/tools.py:15  context.memory.get(\"project.contact_id\") — server-held memory\n"));
    assert!(text.contains("    why: /learn/where-ids-come-from#the-trust-boundary\n"));
    assert!(text.ends_with("20 checks: 8 failed, 4 warnings, 5 passed, 3 notes\n"), "{text}");
}
