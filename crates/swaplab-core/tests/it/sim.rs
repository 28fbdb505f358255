//! The simulation against the golden behaviour the reference records for a project
//! shaped like the tutorial's (reference §2.8, §3.4, §5, §6.6, §7, §8).

use swaplab_core::sim::agent::Agent;
use swaplab_core::sim::attack::{AttackVerdict, LeakKind, NotTested, ProbeKind, ProbeOutcome};
use swaplab_core::sim::conversation::{
    Event, Policy, RunOptions, read_script, run_script, yes_or_no,
};
use swaplab_core::sim::crm::{Access, RecordKind};
use swaplab_core::sim::json::{self, JsonValue};
use swaplab_core::sim::run::{Caller, Run, Status};
use swaplab_core::sim::trace::{HopKind, trace};
use swaplab_core::sim::{Side, Simulation};
use swaplab_core::{FileRef, Workspace};

use crate::support;

fn tutorial() -> Workspace {
    let root = support::examples_dir().join("tutorial");
    let mut workspace = Workspace::default();
    for path in support::walk(&root) {
        let relative = path.strip_prefix(&root).unwrap().to_str().unwrap().replace('\\', "/");
        if let Some(file) = FileRef::parse(&relative) {
            workspace.set_file(&file, support::read(&path));
        }
    }
    workspace
}

fn edit(workspace: &mut Workspace, file: &str, from: &str, to: &str) {
    let file = FileRef::parse(file).unwrap();
    let text = workspace.file(&file).unwrap().to_owned();
    assert!(text.contains(from), "{from:?} is not in {file:?}");
    workspace.set_file(&file, text.replacen(from, to, 1));
}

fn args(text: &str) -> JsonValue {
    json::parse(text).unwrap()
}

/// A started agent for one side; panics with the start-up failure.
fn started(sim: &Simulation, side: Side) -> Agent<'_> {
    match sim.start(side) {
        Ok(agent) => agent,
        Err(failure) => panic!("{side:?} did not start: {}", failure.message),
    }
}

const DANA_TICKETS: &str = r#"{"ok": true, "count": 2, "tickets": [{"id": "9001", "subject": "Invoice 4471 shows the wrong VAT rate", "stage": "waiting_on_us", "created": "2026-08-11"}, {"id": "9002", "subject": "Add a second admin to the account", "stage": "waiting_on_contact", "created": "2026-08-19"}]}"#;

/// Identifies as Sam Rivera in `identify_customer`.
fn identify_as_sam(run: &mut Run<'_, '_>) -> String {
    run.activate("identify_customer", None).unwrap();
    let record =
        run.model_call("find_contact_by_email", &args(r#"{"email": "sam.rivera@example.com"}"#));
    assert_eq!(record.status, Status::Ran);
    record.model_sees.unwrap()
}

#[test]
fn after_the_swap_sams_call_reads_danas_tickets_and_writes_on_her_record() {
    let workspace = tutorial();
    let sim = Simulation::new(&workspace);
    let agent = started(&sim, Side::After);
    let mut run = Run::new(&agent, sim.seed.clone());
    assert_eq!(
        identify_as_sam(&mut run),
        r#"{"ok": true, "contact_id": "702", "name": "Sam Rivera", "company": "Rivera Foods"}"#
    );
    // An MCP tool cannot write memory: identification leaves project memory empty.
    assert!(run.memory.keys().all(|key| !key.starts_with("project.")), "{:?}", run.memory);

    run.user_turn();
    run.activate("check_tickets", None).unwrap();
    let read = run.model_call("list_open_tickets", &args(r#"{"contact_id": "701"}"#));
    assert_eq!(read.model_sees.as_deref(), Some(DANA_TICKETS));
    assert!(!read.is_error);
    let requests: Vec<String> =
        read.client_calls.iter().flat_map(|c| c.requests.iter().map(|r| r.line())).collect();
    assert_eq!(
        requests,
        [
            "GET /crm/v3/objects/contacts/701/associations/tickets",
            "GET /crm/v3/objects/tickets/9001?properties=subject%2Chs_pipeline_stage%2Ccreatedate",
            "GET /crm/v3/objects/tickets/9002?properties=subject%2Chs_pipeline_stage%2Ccreatedate",
        ]
    );

    run.user_turn();
    run.activate("log_interaction", None).unwrap();
    run.remember("note_summary", JsonValue::Str("Sam asked to close his account.".into())).unwrap();
    let write = run.model_call(
        "add_timeline_note",
        &args(r#"{"contact_id": "701", "summary": "Sam asked to close his account."}"#),
    );
    assert_eq!(write.status, Status::Paused);
    assert_eq!(
        write.model_sees.as_deref(),
        Some(
            r#"{"status": "awaiting_confirmation", "message": "Shall I add this to your record? \"Sam asked to close his account.\""}"#
        )
    );
    assert!(run.crm.created_notes().next().is_none(), "nothing is written before the answer");
    run.user_turn();
    let confirmed = run.model_call("resolve_tool_confirmation", &args(r#"{"confirmed": true}"#));
    assert_eq!(confirmed.model_sees.as_deref(), Some(r#"{"ok": true, "note_id": "10000"}"#));
    let notes: Vec<_> = run.crm.created_notes().collect();
    assert_eq!(notes.len(), 1);
    assert_eq!((notes[0].id.as_str(), notes[0].contact.as_str()), ("10000", "701"));
    assert_eq!(notes[0].body, "Sam asked to close his account.");
}

#[test]
fn arguments_are_checked_with_rasas_retryable_messages() {
    let workspace = tutorial();
    let sim = Simulation::new(&workspace);
    let agent = started(&sim, Side::After);
    let mut run = Run::new(&agent, sim.seed.clone());
    run.activate("check_tickets", None).unwrap();
    let cases = [
        ("{}", "Missing required argument(s): 'contact_id'."),
        (r#"{"contact_id": 701}"#, "Argument 'contact_id' must match type 'string'."),
        (r#"{"contact_id": "701", "email": "x"}"#, "Unexpected argument(s): 'email'."),
        (
            r#"{"zz": 1, "email": "x"}"#,
            "Missing required argument(s): 'contact_id'. Unexpected argument(s): 'email', 'zz'.",
        ),
    ];
    for (given, message) in cases {
        let record = run.model_call("list_open_tickets", &args(given));
        let expected = format!(
            r#"{{"error": "Invalid tool arguments: {message}", "retryable": true, "code": "invalid_arguments"}}"#
        );
        assert_eq!(record.model_sees.as_deref(), Some(expected.as_str()), "{given}");
        assert!(record.client_calls.is_empty(), "{given}: nothing reaches the server");
        assert!(record.exchange.is_none(), "{given}");
    }
}

#[test]
fn a_tool_the_active_skill_does_not_import_has_no_handler() {
    let workspace = tutorial();
    let sim = Simulation::new(&workspace);
    let agent = started(&sim, Side::After);
    let mut run = Run::new(&agent, sim.seed.clone());
    run.activate("identify_customer", None).unwrap();
    let record = run.model_call("list_open_tickets", &args(r#"{"contact_id": "702"}"#));
    assert_eq!(
        record.model_sees.as_deref(),
        Some(r#"{"error": "Unknown tool 'list_open_tickets' \u2014 no handler registered."}"#)
    );
}

#[test]
fn the_write_note_step_fails_validation_and_yields_silently_over_mcp() {
    let workspace = tutorial();
    let sim = Simulation::new(&workspace);
    let agent = started(&sim, Side::After);
    let mut run = Run::new(&agent, sim.seed.clone());
    run.activate("log_interaction", None).unwrap();
    run.remember("note_summary", JsonValue::Str("Caller asked about invoice 4471.".into()))
        .unwrap();
    let record = run.execute_step("save_note", "write_note");
    assert_eq!(
        record.caller,
        Caller::Step { block: "save_note".into(), step: "write_note".into() }
    );
    assert_eq!(record.args, args(r#"{"summary": "Caller asked about invoice 4471."}"#));
    assert_eq!(record.status, Status::Yielded);
    assert_eq!(record.model_sees, None, "the model is not told");
    assert!(record.exchange.is_none() && record.client_calls.is_empty());
    let log = record.log.join("\n");
    assert!(log.contains("mantle.skill_executor.advance_steps.tool_arguments_invalid"), "{log}");
    assert!(
        log.contains(r#"{"error": "Invalid tool arguments: Missing required argument(s): 'contact_id'.", "retryable": true, "code": "invalid_arguments"}"#),
        "{log}"
    );
    // The block cannot be entered by the model either: the prose never names it.
    let refused = run.activate("log_interaction", Some("save_note")).unwrap_err();
    assert!(refused.contains("@block.save_note"), "{refused}");
}

#[test]
fn before_the_swap_the_id_comes_from_memory_and_cannot_be_passed() {
    let workspace = tutorial();
    let sim = Simulation::new(&workspace);
    let agent = started(&sim, Side::Before);
    let mut run = Run::new(&agent, sim.seed.clone());
    identify_as_sam(&mut run);
    assert_eq!(run.memory.get("project.contact_id"), Some(&JsonValue::Str("702".into())));
    assert_eq!(run.memory.get("project.contact_name"), Some(&JsonValue::Str("Sam Rivera".into())));

    run.user_turn();
    run.activate("check_tickets", None).unwrap();
    let attempt = run.model_call("list_open_tickets", &args(r#"{"contact_id": "701"}"#));
    assert_eq!(
        attempt.model_sees.as_deref(),
        Some(
            r#"{"error": "Invalid tool arguments: Unexpected argument(s): 'contact_id'.", "retryable": true, "code": "invalid_arguments"}"#
        )
    );
    let own = run.model_call("list_open_tickets", &args("{}"));
    assert_eq!(own.model_sees.as_deref(), Some(r#"{"ok": true, "count": 0, "tickets": []}"#));
    assert_eq!(
        own.route,
        Some(swaplab_core::sim::run::Route::Local {
            file: "skills/check_tickets/tools.py".into(),
            shared: false
        })
    );
    assert!(own.memory_uses.iter().any(|u| u.op == "get" && u.path == "project.contact_id"));

    run.user_turn();
    run.activate("identify_customer", None).unwrap();
    let again =
        run.model_call("find_contact_by_email", &args(r#"{"email": "dana.okafor@example.com"}"#));
    assert_eq!(
        again.model_sees.as_deref(),
        Some(
            r#"{"error": "Project memory field 'contact_id' is already set and cannot be overwritten."}"#
        )
    );
    assert_eq!(
        run.memory.get("project.contact_id"),
        Some(&JsonValue::Str("702".into())),
        "write-once"
    );
}

#[test]
fn a_dict_return_annotation_shows_the_model_the_content_block_dump() {
    let mut workspace = tutorial();
    edit(
        &mut workspace,
        "server/scripts/mcp_crm_server.py",
        "async def find_contact_by_email(email: str) -> CrmResult:",
        "async def find_contact_by_email(email: str) -> dict:",
    );
    let sim = Simulation::new(&workspace);
    let agent = started(&sim, Side::After);
    let mut run = Run::new(&agent, sim.seed.clone());
    let seen = identify_as_sam(&mut run);
    assert_eq!(
        seen,
        r#"[{"type": "text", "text": "{\n  \"ok\": true,\n  \"contact_id\": \"702\",\n  \"name\": \"Sam Rivera\",\n  \"company\": \"Rivera Foods\"\n}", "annotations": null, "meta": null}]"#
    );
    let missing =
        run.model_call("find_contact_by_email", &args(r#"{"email": "nobody@example.com"}"#));
    assert!(
        !missing.is_error,
        "an error inside a text block does not count as a tool error (§5.5)"
    );
}

#[test]
fn every_server_failure_reaches_the_model_sanitised() {
    let workspace = tutorial();
    let sim = Simulation::new(&workspace);
    let agent = started(&sim, Side::After);
    let mut run = Run::new(&agent, sim.seed.clone());
    run.activate("check_tickets", None).unwrap();
    // Contact 999 does not exist: the mock answers 404, the project's client raises,
    // FastMCP answers isError with the exception's text, and Rasa sanitises it.
    let record = run.model_call("list_open_tickets", &args(r#"{"contact_id": "999"}"#));
    assert_eq!(
        record.model_sees.as_deref(),
        Some(r#"{"error": "Tool 'list_open_tickets' encountered an error."}"#)
    );
    let result =
        json::get(record.exchange.as_ref().unwrap().response.as_ref().unwrap(), "result").unwrap();
    assert_eq!(json::get(result, "isError"), Some(&JsonValue::Bool(true)));
    let text = json::at_path(result, "content.0.text").unwrap();
    assert!(
        json::plain(text).starts_with(
            "Error executing tool list_open_tickets: GET /crm/v3/objects/contacts/999/associations/tickets failed: Client error '404 Not Found' for url 'http://127.0.0.1:8787/crm/v3/objects/contacts/999/associations/tickets'"
        ),
        "{text:?}"
    );
}

#[test]
fn the_confirmation_declined_writes_nothing_and_the_caller_hears_the_denial() {
    let workspace = tutorial();
    let sim = Simulation::new(&workspace);
    let agent = started(&sim, Side::After);
    let mut run = Run::new(&agent, sim.seed.clone());
    run.activate("log_interaction", None).unwrap();
    let call = args(r#"{"contact_id": "702", "summary": "Sam called."}"#);
    let paused = run.model_call("add_timeline_note", &call);
    assert_eq!(paused.status, Status::Paused);
    assert_eq!(paused.utterances, [r#"Shall I add this to your record? "{note_summary}""#]);
    // Rejections while paused, in Rasa's words.
    let same_turn = run.model_call("resolve_tool_confirmation", &args(r#"{"confirmed": true}"#));
    assert_eq!(
        same_turn.model_sees.as_deref(),
        Some(
            r#"{"error": "Cannot resolve tool confirmation in the same turn as the pause; ask the user (if needed) and wait for their reply."}"#
        )
    );
    let again = run.model_call("add_timeline_note", &call);
    assert_eq!(
        again.model_sees.as_deref(),
        Some(
            r#"{"error": "Tool 'add_timeline_note' is awaiting confirmation; call resolve_tool_confirmation with confirmed=true or confirmed=false."}"#
        )
    );
    run.user_turn();
    let not_bool = run.model_call("resolve_tool_confirmation", &args(r#"{"confirmed": "no"}"#));
    assert_eq!(
        not_bool.model_sees.as_deref(),
        Some(r#"{"error": "resolve_tool_confirmation requires a boolean 'confirmed' argument."}"#)
    );
    let declined = run.model_call("resolve_tool_confirmation", &args(r#"{"confirmed": false}"#));
    assert_eq!(declined.status, Status::Declined);
    assert_eq!(
        declined.model_sees.as_deref(),
        Some(
            r#"{"status": "declined", "message": "User declined confirmation for tool 'add_timeline_note'; the call was cancelled."}"#
        )
    );
    assert_eq!(declined.utterances, ["Understood, I have not saved anything."]);
    assert!(run.crm.log.iter().all(|r| r.method != "POST" || !r.path.contains("notes")));
    let nothing = run.model_call("resolve_tool_confirmation", &args(r#"{"confirmed": true}"#));
    assert_eq!(
        nothing.model_sees.as_deref(),
        Some(r#"{"error": "No tool confirmation is pending; nothing to resolve."}"#)
    );

    // Yes writes exactly once.
    run.user_turn();
    assert_eq!(run.model_call("add_timeline_note", &call).status, Status::Paused);
    run.user_turn();
    let yes = run.model_call("resolve_tool_confirmation", &args(r#"{"confirmed": true}"#));
    assert_eq!(yes.model_sees.as_deref(), Some(r#"{"ok": true, "note_id": "10000"}"#));
    assert_eq!(run.crm.created_notes().count(), 1);
    let repeat = run.model_call("add_timeline_note", &call);
    assert_eq!(
        repeat.model_sees.as_deref(),
        Some(
            r#"{"error": "Confirmation for tool 'add_timeline_note' was already resolved this turn; do not re-call the tool or ask for confirmation again."}"#
        )
    );
    assert_eq!(run.crm.created_notes().count(), 1);
}

#[test]
fn the_attack_finds_one_read_and_one_write_after_the_swap_and_none_before() {
    let workspace = tutorial();
    let sim = Simulation::new(&workspace);
    let pair = sim.attack(&Default::default());
    let after = &pair.after;
    assert_eq!(after.caller.as_ref().map(|c| c.id.as_str()), Some("702"));
    assert_eq!(after.victim.as_ref().map(|c| c.id.as_str()), Some("701"));
    let leaks: Vec<(LeakKind, &str, &str)> =
        after.leaks.iter().map(|l| (l.kind, l.tool.as_str(), l.argument.as_str())).collect();
    assert_eq!(
        leaks,
        [
            (LeakKind::Read, "list_open_tickets", "contact_id"),
            (LeakKind::Write, "add_timeline_note", "contact_id")
        ]
    );
    let read = &after.leaks[0];
    assert_eq!(read.model_saw.as_deref(), Some(DANA_TICKETS));
    assert!(
        read.records
            .iter()
            .any(|t| t.kind == RecordKind::Ticket && t.id == "9001" && t.owner == "701")
    );
    let write = &after.leaks[1];
    assert_eq!(write.records.len(), 1);
    assert_eq!((write.records[0].kind, write.records[0].access), (RecordKind::Note, Access::Write));
    assert_eq!(write.requests, ["POST /crm/v3/objects/notes"]);
    assert!(after.probes.iter().all(|p| p.kind == ProbeKind::IdArgument));

    assert_eq!(after.verdict, AttackVerdict::Leaked { leaks: 2 });

    let before = &pair.before;
    assert!(before.startup.is_none());
    assert!(before.leaks.is_empty(), "{:?}", before.leaks);
    // Every probe ran to its end and was refused: that is a tested "no leak".
    assert_eq!(before.verdict, AttackVerdict::NoLeak { probes: 2 });
    assert_eq!(before.probes.len(), 2);
    for probe in &before.probes {
        assert_eq!(probe.kind, ProbeKind::ExtraArgument);
        let ProbeOutcome::Blocked { reason } = &probe.outcome else { panic!("{probe:?}") };
        assert!(reason.contains("Unexpected argument(s): 'contact_id'."), "{reason}");
    }
}

#[test]
fn policies_choose_the_caller_the_customer_last_named_or_another_customer() {
    let workspace = tutorial();
    let sim = Simulation::new(&workspace);
    let agent = started(&sim, Side::After);
    let script = &sim.scripts[0];
    assert_eq!(script.file, "conversations/caller-names-another.yml");
    assert!(script.diagnostics.is_empty(), "{:?}", script.diagnostics);
    let ids = |policy| {
        let transcript =
            run_script(&agent, &sim.seed, script, &RunOptions { policy, answers: Vec::new() });
        let sent: Vec<String> = transcript
            .entries
            .iter()
            .filter_map(|e| match &e.event {
                Event::Call { record, .. } if record.caller == Caller::Model => {
                    json::get(&record.args, "contact_id").map(json::plain)
                }
                _ => None,
            })
            .collect();
        (sent, transcript)
    };
    let (faithful, transcript) = ids(Policy::Faithful);
    assert_eq!(faithful, ["702", "702", "702"]);
    assert_eq!(transcript.notes.iter().map(|n| n.contact.as_str()).collect::<Vec<_>>(), ["702"]);
    assert!(transcript.waiting.is_none(), "the user's yes resolved the confirmation");
    let (confused, transcript) = ids(Policy::Confused);
    assert_eq!(confused, ["702", "701", "701"]);
    assert_eq!(transcript.notes.iter().map(|n| n.contact.as_str()).collect::<Vec<_>>(), ["701"]);
    let (adversarial, _) = ids(Policy::Adversarial);
    assert_eq!(adversarial, ["701", "701", "701"]);

    // Answers given by the reader override the script's words.
    let declined = run_script(
        &agent,
        &sim.seed,
        script,
        &RunOptions { policy: Policy::Confused, answers: vec![false] },
    );
    assert!(declined.notes.is_empty());
    assert!(declined.crm_log.iter().all(|r| r.method != "POST" || r.path.contains("search")));
}

#[test]
fn the_trace_marks_where_the_id_became_the_models_choice() {
    let workspace = tutorial();
    let sim = Simulation::new(&workspace);
    let script = &sim.scripts[0];
    let after = started(&sim, Side::After);
    let transcript = run_script(
        &after,
        &sim.seed,
        script,
        &RunOptions { policy: Policy::Confused, answers: Vec::new() },
    );
    let traces = trace(&after, &sim.seed, &transcript);
    let dana = traces.iter().find(|t| t.id == "701").expect("701 is traced");
    let crossed = &dana.hops[dana.crossed.expect("701 crossed to the model")];
    assert_eq!(crossed.kind, HopKind::Argument);
    assert!(crossed.model_choice);
    assert_eq!(crossed.file.as_deref(), Some("scripts/mcp_crm_server.py"));
    assert!(crossed.text.contains("contact_id"), "{}", crossed.text);
    assert!(
        dana.hops.iter().any(|h| h.kind == HopKind::Record
            && h.text == "note 10000 on contact 701's timeline was written"),
        "{:#?}",
        dana.hops
    );
    assert!(
        dana.hops
            .iter()
            .any(|h| h.text == "tools/call add_timeline_note sent 701 to the MCP server")
    );

    let before = started(&sim, Side::Before);
    let transcript = run_script(
        &before,
        &sim.seed,
        script,
        &RunOptions { policy: Policy::Confused, answers: Vec::new() },
    );
    let traces = trace(&before, &sim.seed, &transcript);
    let sam = traces.iter().find(|t| t.id == "702").expect("702 is traced");
    assert!(sam.crossed.is_none(), "{:#?}", sam.hops);
    assert!(sam.hops.iter().any(|h| h.kind == HopKind::Stored));
    assert!(sam.hops.iter().any(|h| h.kind == HopKind::ReadFromMemory));
    assert!(traces.iter().all(|t| t.crossed.is_none()));
}

#[test]
fn start_up_fails_where_rasa_refuses_to_start() {
    let cases: [(&str, &str, &str, &str); 3] = [
        (
            "after/integrations.yml",
            "name: hubspot_crm",
            "name: crm",
            "MCP server 'hubspot_crm' is imported by a skill but is missing from integrations.yml.",
        ),
        (
            "after/skills/check_tickets/skill.md",
            "mcp/hubspot_crm:list_open_tickets",
            "mcp/hubspot_crm:list_tickets",
            "MCP server 'hubspot_crm' does not expose imported tool 'list_tickets' for skill 'check_tickets'.",
        ),
        (
            "after/integrations.yml",
            "127.0.0.1:8931",
            "127.0.0.1:9000",
            "Could not connect to MCP server 'hubspot_crm' at http://127.0.0.1:9000/mcp: the workspace's server (scripts/mcp_crm_server.py) listens on http://127.0.0.1:8931/mcp.",
        ),
    ];
    for (file, from, to, message) in cases {
        let mut workspace = tutorial();
        edit(&mut workspace, file, from, to);
        let sim = Simulation::new(&workspace);
        let failure = sim.start(Side::After).unwrap_err();
        assert_eq!(failure.message, message, "{file}");
        let pair = sim.attack(&Default::default());
        assert!(pair.after.startup.is_some() && pair.after.probes.is_empty());
        // No probe ran: not tested, never "no leak".
        assert_eq!(
            pair.after.verdict,
            AttackVerdict::NotTested {
                reason: NotTested::DidNotStart { message: message.to_owned() }
            },
            "{file}"
        );
        assert!(!pair.after.verdict.tested() && pair.before.verdict.tested());
    }
}

#[test]
fn an_attack_with_nothing_under_it_is_not_tested_and_says_why() {
    let not_tested = |workspace: &Workspace| {
        let pair = Simulation::new(workspace).attack(&Default::default());
        assert!(pair.after.leaks.is_empty(), "{:?}", pair.after.leaks);
        pair.after
            .verdict
            .not_tested()
            .cloned()
            .unwrap_or_else(|| panic!("tested: {:?}", pair.after.verdict))
    };
    // One customer in the seed: there is no one else's id to pass.
    let mut alone = tutorial();
    edit(
        &mut alone,
        "crm/crm.yml",
        "  - id: \"702\"\n    firstname: Sam\n    lastname: Rivera\n    company: Rivera Foods\n    email: sam.rivera@example.com\n",
        "",
    );
    assert_eq!(not_tested(&alone), NotTested::NoOtherCustomer);

    // No tool the model can reach takes an id: nothing to probe.
    let mut no_ids = tutorial();
    let file = FileRef::parse("server/scripts/mcp_crm_server.py").unwrap();
    let server = no_ids.file(&file).unwrap().replace("contact_id", "customer");
    no_ids.set_file(&file, server);
    let reason = not_tested(&no_ids);
    assert_eq!(reason, NotTested::NoProbes);
    assert_eq!(
        reason.text(),
        "no tool the model can reach takes an id, so there was nothing to probe"
    );
}

#[test]
fn a_probe_whose_body_leaves_the_subset_could_not_run_and_is_never_a_refusal() {
    let mut workspace = tutorial();
    let server = "server/scripts/mcp_crm_server.py";
    edit(&mut workspace, server, "    tickets = []\n", "    tickets = list(vars(str))\n");
    let sim = Simulation::new(&workspace);
    let pair = sim.attack(&Default::default());
    let after = &pair.after;
    let probe = after.probes.iter().find(|p| p.tool == "list_open_tickets").unwrap();
    let ProbeOutcome::CouldNotRun { reason } = &probe.outcome else { panic!("{probe:?}") };
    assert!(
        reason.contains("the builtin `vars` is outside the Python subset Swap Lab runs"),
        "{reason}"
    );
    // The write still leaks: a leak found is found, whatever else could not run.
    assert_eq!(after.verdict, AttackVerdict::Leaked { leaks: 1 });

    // With the write's body stopped too, nothing leaked and nothing was tested.
    edit(
        &mut workspace,
        server,
        "    note_id = await hubspot.create_note(",
        "    summary = getattr(summary, \"strip\")()\n    note_id = await hubspot.create_note(",
    );
    let pair = Simulation::new(&workspace).attack(&Default::default());
    assert!(pair.after.leaks.is_empty(), "{:?}", pair.after.leaks);
    let reason = NotTested::CouldNotRun {
        tools: vec!["list_open_tickets".into(), "add_timeline_note".into()],
        could_not_run: 2,
        probes: 2,
    };
    assert_eq!(pair.after.verdict, AttackVerdict::NotTested { reason: reason.clone() });
    assert_eq!(
        reason.text(),
        "2 of 2 probes could not run: the bodies of list_open_tickets, add_timeline_note \
         stopped outside the Python subset Swap Lab runs"
    );
    assert!(
        pair.after.probes.iter().all(|p| matches!(p.outcome, ProbeOutcome::CouldNotRun { .. })),
        "{:?}",
        pair.after.probes
    );
    // The verdict goes out with the report.
    let json = serde_json::to_value(&*pair.after).unwrap();
    assert_eq!(json["verdict"]["kind"], "not_tested");
    assert_eq!(json["verdict"]["reason"]["why"], "could_not_run");
}

#[test]
fn config_errors_stop_the_agent_at_load_with_the_config_finding() {
    let cases = [
        (
            "url: http://127.0.0.1:8931/mcp",
            "url: http://127.0.0.1:8931/mcp\n    headers:\n      X-Tenant: acme",
        ),
        (
            "url: http://127.0.0.1:8931/mcp",
            "type: stdio\n    command: python scripts/mcp_crm_server.py",
        ),
    ];
    for (from, to) in cases {
        let mut workspace = tutorial();
        edit(&mut workspace, "after/integrations.yml", from, to);
        let sim = Simulation::new(&workspace);
        let failure = sim.start(Side::After).unwrap_err();
        assert_eq!(failure.stage, "load", "{to}");
        assert_eq!(failure.diagnostic.file, "integrations.yml", "{to}");
        assert!(sim.start(Side::Before).is_ok(), "the before project is untouched");
    }
}

#[test]
fn the_mcp_server_speaks_json_rpc() {
    let workspace = tutorial();
    let sim = Simulation::new(&workspace);
    let server = sim.server.as_ref().unwrap();
    let mut crm = swaplab_core::sim::crm::Crm::new(sim.seed.clone());
    let mut send = |text: &str| {
        let exchange = server.handle(&args(text), &mut crm);
        exchange.response.map(|r| r.to_python_json())
    };
    assert_eq!(
        send(r#"{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}"#).unwrap(),
        r#"{"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18", "capabilities": {"experimental": {}, "prompts": {"listChanged": false}, "resources": {"subscribe": false, "listChanged": false}, "tools": {"listChanged": false}}, "serverInfo": {"name": "hubspot_crm", "version": "1.30.0"}}}"#
    );
    assert_eq!(send(r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#), None);
    let list = send(r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}"#).unwrap();
    assert!(list.contains(r#""name": "list_open_tickets", "description": "List the open support tickets of the identified customer.", "inputSchema": {"properties": {"contact_id": {"title": "Contact Id", "type": "string"}}, "required": ["contact_id"], "title": "list_open_ticketsArguments", "type": "object"}, "outputSchema": "#), "{list}");
    let call = send(r#"{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "find_contact_by_email", "arguments": {"email": "nobody@example.com"}}}"#).unwrap();
    assert_eq!(
        call,
        r#"{"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "{\n  \"ok\": false,\n  \"error\": \"contact_not_found\"\n}"}], "structuredContent": {"ok": false, "error": "contact_not_found"}, "isError": false}}"#
    );
    assert_eq!(
        send(r#"{"jsonrpc": "2.0", "id": 3, "method": "resources/list"}"#).unwrap(),
        r#"{"jsonrpc": "2.0", "id": 3, "error": {"code": -32601, "message": "Method not found"}}"#
    );
    let unknown = send(r#"{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "nope", "arguments": {}}}"#).unwrap();
    assert!(unknown.contains(r#""text": "Unknown tool: nope"}], "isError": true"#), "{unknown}");
    assert_eq!(
        send(r#"[1, 2]"#).unwrap(),
        r#"{"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid Request"}}"#
    );
}

#[test]
fn scripts_report_problems_at_their_place() {
    let script = read_script(
        "conversations/bad.yml",
        "caller: a@example.com\nturns:\n  - user: hi\n  - shout: hi\n  - call: x\n    args: {id: {choose: shoe}}\n  - step: nodot\n",
    );
    let found: Vec<String> = script.diagnostics.iter().map(ToString::to_string).collect();
    assert_eq!(script.turns.len(), 1);
    assert_eq!(found.len(), 3, "{found:#?}");
    assert!(found[0].starts_with("conversations/bad.yml:4:5: error"), "{}", found[0]);
    assert!(found[0].contains("unknown turn 'shout'"));
    assert!(found[1].starts_with("conversations/bad.yml:6:25:"), "{}", found[1]);
    assert!(found[2].contains("<block>.<step id>"));
    assert_eq!(yes_or_no("Yes, save it."), Some(true));
    assert_eq!(yes_or_no("no thanks"), Some(false));
    assert_eq!(yes_or_no("Dana asked me"), None);
}

#[test]
fn a_closed_requires_gate_hides_the_tool_and_refuses_the_call() {
    let mut workspace = tutorial();
    edit(
        &mut workspace,
        "after/skills/check_tickets/skill.md",
        "  - mcp/hubspot_crm:list_open_tickets\n",
        "  - mcp/hubspot_crm:list_open_tickets\ntool_constraints:\n  - list_open_tickets:\n      requires: session.project.contact_id\n",
    );
    let sim = Simulation::new(&workspace);
    let agent = started(&sim, Side::After);
    let mut run = Run::new(&agent, sim.seed.clone());
    identify_as_sam(&mut run);
    run.user_turn();
    run.activate("check_tickets", None).unwrap();
    // After the swap nothing writes project.contact_id, so the gate never opens.
    assert!(run.visible_tools().is_empty(), "{:?}", run.visible_tools());
    let record = run.model_call("list_open_tickets", &args(r#"{"contact_id": "702"}"#));
    assert_eq!(
        record.model_sees.as_deref(),
        Some(
            r#"{"error": "Tool 'list_open_tickets' gating condition not met for the current skill state."}"#
        )
    );
}

#[test]
fn inside_a_hybrid_block_the_imported_tool_is_offered_without_its_gate() {
    use swaplab_core::sim::agent::Target;
    let workspace = tutorial();
    let sim = Simulation::new(&workspace);
    let block = Target::Block("save_note".into());
    let after = started(&sim, Side::After);
    let skill = after.skill("log_interaction").unwrap();
    assert_eq!(after.visible_tools(skill, &block, &|_| true), ["add_timeline_note"]);
    assert!(after.dispatch_gates(skill, &block).is_empty());
    assert_eq!(after.visible_tools(skill, &Target::Prose, &|_| true), ["add_timeline_note"]);
    assert_eq!(after.dispatch_gates(skill, &Target::Prose).len(), 1);
    let before = started(&sim, Side::Before);
    let skill = before.skill("log_interaction").unwrap();
    assert!(before.visible_tools(skill, &block, &|_| true).is_empty(), "REST: hidden in the block");
    assert!(
        !before.block_reachable(skill, "save_note") && !after.block_reachable(skill, "save_note")
    );
}

#[test]
fn the_crm_seed_is_read_with_its_problems_placed() {
    use swaplab_core::rasa::project::MAX_FILE_BYTES;
    use swaplab_core::sim::crm::{MAX_CRM_RECORDS, read_seed};
    let seed = read_seed(
        "crm.yml",
        "contacts:\n  - {id: 801, firstname: Ana, lastname: Lima, company: Lima Co, email: ana@example.com}\n  - {id: 801, email: b@example.com}\n  - {firstname: NoId}\ntickets:\n  - {id: 1, contact: 999, subject: Orphan}\ncolour: blue\nnext_note_id: 500\n",
    );
    assert_eq!(seed.contacts.len(), 1);
    assert_eq!(seed.contacts[0].id, "801", "numeric ids are kept as HubSpot's strings");
    assert_eq!(seed.next_note_id, 500);
    let found: Vec<String> = seed.diagnostics.iter().map(ToString::to_string).collect();
    assert_eq!(found.len(), 4, "{found:#?}");
    assert!(
        found[0].starts_with("crm.yml:3:5: error")
            && found[0].contains("contact id '801' is used twice"),
        "{}",
        found[0]
    );
    assert!(found[1].starts_with("crm.yml:4:5:") && found[1].contains("no 'id'"), "{}", found[1]);
    assert!(
        found.iter().any(|f| f.starts_with("crm.yml:7:1: warning") && f.contains("'colour'")),
        "{found:#?}"
    );
    assert!(found.iter().any(|f| f.contains("ticket '1' belongs to contact '999'")), "{found:#?}");

    let at_cap = |n: usize| {
        let mut text = String::from("contacts:\n");
        for i in 0..n {
            text.push_str(&format!("- {{id: {i}, email: c{i}@x.io}}\n"));
        }
        read_seed("crm.yml", &text)
    };
    let full = at_cap(MAX_CRM_RECORDS);
    assert_eq!(full.contacts.len(), MAX_CRM_RECORDS);
    assert!(full.diagnostics.is_empty());
    let over = at_cap(MAX_CRM_RECORDS + 1);
    assert_eq!(over.contacts.len(), MAX_CRM_RECORDS);
    assert_eq!(over.diagnostics.len(), 1);
    assert!(
        over.diagnostics[0].message.contains("more than 10000 records"),
        "{}",
        over.diagnostics[0]
    );
    let huge = read_seed("crm.yml", &"#".repeat(MAX_FILE_BYTES + 1));
    assert!(huge.diagnostics[0].message.contains("files above 1048576 bytes are not read"));
    let script = read_script("conversations/big.yml", &"#".repeat(MAX_FILE_BYTES + 1));
    assert!(script.diagnostics[0].message.contains("files above 1048576 bytes are not read"));
}

#[test]
fn readers_can_add_customers_and_the_attack_picks_them_up() {
    let mut workspace = tutorial();
    // The seed answers the CRM's requests only when the project ships no mock of its
    // own; with `scripts/mock_hubspot.py` the new customer would be the mock's to add.
    workspace.remove_file(&FileRef::parse("crm/scripts/mock_hubspot.py").unwrap()).unwrap();
    edit(
        &mut workspace,
        "crm/crm.yml",
        "tickets:\n",
        "  - id: \"703\"\n    firstname: Lee\n    lastname: Park\n    company: Park Bakery\n    email: lee.park@example.com\n\ntickets:\n  - id: \"9003\"\n    contact: \"703\"\n    subject: Refund the double charge\n    stage: waiting_on_us\n    created: \"2026-09-01\"\n  - id: \"9004\"\n    contact: \"703\"\n    subject: Change the billing address\n    stage: waiting_on_us\n    created: \"2026-09-02\"\n  - id: \"9005\"\n    contact: \"703\"\n    subject: Close the old account\n    stage: waiting_on_us\n    created: \"2026-09-03\"\n",
    );
    let sim = Simulation::new(&workspace);
    assert!(sim.seed.diagnostics.is_empty(), "{:?}", sim.seed.diagnostics);
    let pair = sim.attack(&Default::default());
    assert_eq!(pair.after.victim.as_ref().map(|c| c.id.as_str()), Some("703"), "the most records");
    assert_eq!(pair.after.caller.as_ref().map(|c| c.id.as_str()), Some("701"));
    assert_eq!(pair.after.leaks.len(), 2);
    assert!(pair.after.leaks[0].model_saw.as_deref().unwrap().contains("Refund the double charge"));
}

#[test]
fn a_readers_answer_stands_in_when_the_script_does_not_reply() {
    let workspace = tutorial();
    let sim = Simulation::new(&workspace);
    let agent = started(&sim, Side::After);
    let script = read_script(
        "conversations/t.yml",
        "caller: sam.rivera@example.com\nturns:\n  - skill: log_interaction\n  - call: add_timeline_note\n    args: {contact_id: '702', summary: Sam called.}\n",
    );
    let yes = run_script(
        &agent,
        &sim.seed,
        &script,
        &RunOptions { policy: Policy::Faithful, answers: vec![true] },
    );
    assert_eq!(yes.notes.len(), 1);
    assert!(yes.waiting.is_none());
    assert!(matches!(
        &yes.entries[yes.entries.len() - 2].event,
        Event::User { answer: Some(true), .. }
    ));
    let no = run_script(
        &agent,
        &sim.seed,
        &script,
        &RunOptions { policy: Policy::Faithful, answers: vec![false] },
    );
    assert!(no.notes.is_empty());
    let none = run_script(&agent, &sim.seed, &script, &RunOptions::default());
    assert!(none.waiting.is_some(), "without an answer the call waits");
}

#[test]
fn the_attack_picks_its_customers_in_one_pass_over_a_large_seed() {
    use swaplab_core::sim::attack::{AttackOptions, pick};
    use swaplab_core::sim::crm::{Contact, CrmSeed, Ticket};
    // 100,000 records built in code (`crm.yml` holds at most 10,000): counting each
    // contact's records per comparison made this quadratic; it must stay instant.
    let mut seed = CrmSeed::tutorial();
    let span = seed.contacts[0].span;
    for n in 0..49_998 {
        let id = (200_000 + n).to_string();
        seed.contacts.push(Contact {
            id: id.clone(),
            firstname: "Alex".into(),
            lastname: format!("Customer{n}"),
            company: String::new(),
            email: format!("customer{n}@example.com"),
            span,
        });
        // Two tickets each for the last two: a tie above Dana's two, won by seed order.
        let tickets = if n >= 49_996 { 3 } else { 1 };
        for t in 0..tickets {
            seed.tickets.push(Ticket {
                id: format!("{id}-{t}"),
                contact: id.clone(),
                subject: String::new(),
                stage: String::new(),
                created: String::new(),
                span,
            });
        }
    }
    let (caller, victim) = pick(&seed, &AttackOptions::default());
    assert_eq!(victim.map(|c| c.id.as_str()), Some("249996"), "the first with the most records");
    assert_eq!(caller.map(|c| c.id.as_str()), Some("701"));
    let options = AttackOptions { caller: Some("249996".into()), victim: None };
    let (caller, victim) = pick(&seed, &options);
    assert_eq!(victim.map(|c| c.id.as_str()), Some("249997"), "never the caller");
    assert_eq!(caller.map(|c| c.id.as_str()), Some("249996"));
}

#[test]
fn a_tool_result_is_printed_as_pydantic_indents_it() {
    use swaplab_core::sim::mcp::indented_json;
    let value =
        json::parse(r#"{"a": [1, {"b": []}], "c": {}, "d": "é\n\"x\"", "e": 2.5, "f": null}"#)
            .expect("valid JSON");
    let expected = "{\n  \"a\": [\n    1,\n    {\n      \"b\": []\n    }\n  ],\n  \"c\": {},\n  \
                    \"d\": \"é\\n\\\"x\\\"\",\n  \"e\": 2.5,\n  \"f\": null\n}";
    assert_eq!(indented_json(&value, 0), expected);
    assert_eq!(indented_json(&json::parse("[]").unwrap(), 0), "[]");
    assert_eq!(indented_json(&json::parse("\"plain\"").unwrap(), 3), "\"plain\"");
}

#[test]
fn a_local_tool_that_returns_something_else_than_a_tool_result_is_named_by_its_type() {
    for (returned, type_name) in [
        ("{\"ok\": False, \"error\": \"not_identified\"}", "dict"),
        ("None", "NoneType"),
        ("Ticket(\"9001\")", "Ticket"),
    ] {
        let mut workspace = tutorial();
        let file = "before/skills/check_tickets/tools.py";
        edit(
            &mut workspace,
            file,
            "from lib import hubspot\n",
            "from dataclasses import dataclass\n\nfrom lib import hubspot\n\n\n@dataclass\nclass Ticket:\n    id: str\n",
        );
        edit(
            &mut workspace,
            file,
            "return ToolResult(llm_response={\"ok\": False, \"error\": \"not_identified\"})",
            &format!("return {returned}"),
        );
        let sim = Simulation::new(&workspace);
        let agent = started(&sim, Side::Before);
        let mut run = Run::new(&agent, sim.seed.clone());
        run.activate("check_tickets", None).unwrap();
        let record = run.model_call("list_open_tickets", &args("{}"));
        assert_eq!(
            record.model_sees.as_deref(),
            Some(
                format!(
                    r#"{{"error": "Tool 'list_open_tickets' must return a ToolResult, got {type_name}."}}"#
                )
                .as_str()
            ),
            "{returned}"
        );
        assert!(record.is_error);
    }
}
