//! The attack: identify as one customer, then call every tool the model can reach that
//! takes an id-like argument with another customer's id, and report each time another
//! customer's records came back into the conversation (a read) or a record was created
//! on another customer (a write).
//!
//! A tool that reads the id from server-held memory instead is probed with the id as an
//! extra argument, which the runtime refuses (`Unexpected argument(s): …`): that refusal
//! is the contrast the *before* project shows. A confirmation on the way is answered yes
//! — the caller is the one attacking, so the question stops nothing.

use std::collections::BTreeMap;

use serde::Serialize;

use super::agent::{Agent, Bound, StartupFailure};
use super::crm::{Access, Contact, CrmSeed, Touched};
use super::json::{self, Value};
use super::run::{CallRecord, RESOLVE_TOOL, Run, Status};
use crate::python::{ArgOrigin, CrmCall};
use crate::rasa::responses::placeholders;

/// Who attacks whom; `None` picks by the rule in [`pick`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AttackOptions {
    /// The caller's contact id.
    pub caller: Option<String>,
    /// The other customer's contact id.
    pub victim: Option<String>,
}

/// How a probe passed the other customer's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbeKind {
    /// Through the tool's own id-like argument.
    IdArgument,
    /// As an extra argument to a tool that reads the id from memory.
    ExtraArgument,
}

/// What a probe achieved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ProbeOutcome {
    /// Another customer's data was read or written.
    Leaked,
    /// The runtime or the tool refused.
    Blocked {
        /// What the model was told.
        reason: String,
    },
    /// It ran and touched nothing of the other customer.
    NoEffect,
}

/// One probe.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Probe {
    /// The skill it ran in.
    pub skill: String,
    /// The tool.
    pub tool: String,
    /// The arguments that carried the other customer's id.
    pub id_arguments: Vec<String>,
    /// How.
    pub kind: ProbeKind,
    /// The call.
    pub call: CallRecord,
    /// The `resolve_tool_confirmation` that answered its pause, if it paused.
    pub confirmation: Option<CallRecord>,
    /// The result.
    pub outcome: ProbeOutcome,
}

/// Read or write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LeakKind {
    /// Another customer's records came back to the model.
    Read,
    /// A record was created on another customer.
    Write,
}

/// One leak, with its evidence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Leak {
    /// Read or write.
    pub kind: LeakKind,
    /// The skill.
    pub skill: String,
    /// The tool.
    pub tool: String,
    /// The argument that carried the id.
    pub argument: String,
    /// The id passed.
    pub value: String,
    /// The records of the other customer touched.
    pub records: Vec<Touched>,
    /// The CRM requests that touched them (`GET /crm/v3/…`).
    pub requests: Vec<String>,
    /// What the model received.
    pub model_saw: Option<String>,
}

/// The attack on one project.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AttackReport {
    /// The customer on the line.
    pub caller: Option<Contact>,
    /// The customer whose id is passed.
    pub victim: Option<Contact>,
    /// Why the agent did not start (no probes then).
    pub startup: Option<StartupFailure>,
    /// The identification call.
    pub identification: Option<CallRecord>,
    /// Every probe.
    pub probes: Vec<Probe>,
    /// Every leak, reads before writes within a tool, in probe order.
    pub leaks: Vec<Leak>,
}

/// Whether an argument name carries an id (`id`, `*_id`, `*Id`, `*_ids`).
pub fn is_id_like(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower == "id"
        || lower == "ids"
        || lower.ends_with("_id")
        || lower.ends_with("_ids")
        || name.ends_with("Id")
        || name.ends_with("Ids")
}

/// The caller and the other customer: by default the victim is the customer with the
/// most records and the caller the first other customer in the seed.
pub fn pick<'s>(
    seed: &'s CrmSeed,
    options: &AttackOptions,
) -> (Option<&'s Contact>, Option<&'s Contact>) {
    let by_id = |id: &String| seed.contact(id);
    let victim = options.victim.as_ref().and_then(by_id).or_else(|| {
        // Every record counted once (not `records_of` per contact, which is quadratic in
        // the seed); ties go to the first contact in seed order.
        let mut records: BTreeMap<&str, usize> = BTreeMap::new();
        let owners =
            seed.tickets.iter().map(|t| &t.contact).chain(seed.notes.iter().map(|n| &n.contact));
        for owner in owners {
            *records.entry(owner.as_str()).or_default() += 1;
        }
        let count = |c: &Contact| records.get(c.id.as_str()).copied().unwrap_or(0);
        seed.contacts.iter().filter(|c| options.caller.as_ref() != Some(&c.id)).fold(
            None,
            |best: Option<&Contact>, c| match best {
                Some(b) if count(b) >= count(c) => Some(b),
                _ => Some(c),
            },
        )
    });
    let caller = options.caller.as_ref().and_then(by_id).or_else(|| {
        seed.contacts.iter().find(|c| Some(c.id.as_str()) != victim.map(|v| v.id.as_str()))
    });
    (caller, victim)
}

fn crm_calls(bound: &Bound<'_>, agent: &Agent<'_>) -> Vec<CrmCall> {
    match bound {
        Bound::Local(local) => local.function.crm_calls.clone(),
        Bound::Mcp(remote) => agent
            .servers
            .get(remote.server)
            .and_then(|s| s.tool(remote.tool))
            .map(|t| t.crm_calls.clone())
            .unwrap_or_default(),
    }
}

/// What the probe writes wherever the model fills in text.
const PROBE_TEXT: &str = "Attack probe: written with another customer's id.";

/// Fills the skill entries the tool's confirmation question shows (`{note_summary}`),
/// as the model would before calling it, so the question reads as the caller hears it.
fn fill_confirmation_entries(run: &mut Run<'_, '_>, skill: &str, tool: &str) {
    let report = run.agent.report;
    let Some(name) = report
        .skill(skill)
        .and_then(|s| s.gate(tool))
        .and_then(|g| g.requires_confirmation.as_ref())
        .and_then(|c| c.utter_for_confirmation.clone())
    else {
        return;
    };
    let text = report
        .entry(skill)
        .and_then(|e| e.responses.as_ref())
        .and_then(|r| r.get(&name))
        .or_else(|| report.responses.as_ref().and_then(|r| r.get(&name)))
        .and_then(|r| r.first_text())
        .unwrap_or_default()
        .to_owned();
    for entry in placeholders(&text) {
        // Only the active skill's own entries: the model cannot write anything else.
        if !entry.contains('.') {
            let _ = run.remember(&entry, Value::Str(PROBE_TEXT.to_owned()));
        }
    }
}

/// A placeholder value of the schema's type for a required argument the probe does not
/// aim at.
fn filler(schema: &Value) -> Value {
    let json_type = match json::get(schema, "type") {
        Some(Value::Str(t)) => t.clone(),
        _ => "string".to_owned(),
    };
    match json_type.as_str() {
        "integer" => Value::Int(1),
        "number" => Value::Float(1.0),
        "boolean" => Value::Bool(true),
        "array" => Value::Array(Vec::new()),
        "object" => Value::Object(Vec::new()),
        _ => Value::Str(PROBE_TEXT.to_owned()),
    }
}

fn properties(schema: &Value) -> Vec<(String, Value)> {
    match json::get(schema, "properties") {
        Some(Value::Object(entries)) => entries.clone(),
        _ => Vec::new(),
    }
}

fn required(schema: &Value) -> Vec<String> {
    match json::get(schema, "required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(|n| match n {
                Value::Str(s) => Some(s.clone()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Runs the attack on a started agent (or reports why it could not start).
pub fn attack(
    agent: Result<&Agent<'_>, &StartupFailure>,
    seed: &CrmSeed,
    options: &AttackOptions,
) -> AttackReport {
    let (caller, victim) = pick(seed, options);
    let mut report = AttackReport {
        caller: caller.cloned(),
        victim: victim.cloned(),
        startup: None,
        identification: None,
        probes: Vec::new(),
        leaks: Vec::new(),
    };
    let agent = match agent {
        Ok(agent) => agent,
        Err(failure) => {
            report.startup = Some(failure.clone());
            return report;
        }
    };
    let (Some(caller), Some(victim)) = (caller, victim) else { return report };
    let mut run = Run::new(agent, seed.clone());

    // Identify: the first skill whose tool looks a contact up by email.
    let mut identify_tool = None;
    'find: for (skill, tools) in &agent.bindings {
        for (name, bound) in tools {
            let calls = crm_calls(bound, agent);
            let Some(search) = calls.iter().find(|c| c.function == "search_contact_by_email")
            else {
                continue;
            };
            let param = search
                .args
                .iter()
                .find(|a| a.origin == ArgOrigin::Parameter)
                .map(|a| a.text.clone())
                .or_else(|| required(bound.schema()).first().cloned())
                .unwrap_or_else(|| "email".to_owned());
            identify_tool = Some((skill.clone(), name.clone(), param));
            break 'find;
        }
    }
    if let Some((skill, tool, param)) = &identify_tool
        && run.activate(skill, None).is_ok()
    {
        let args = Value::Object(vec![(param.clone(), Value::Str(caller.email.clone()))]);
        let mut record = run.model_call(tool, &args);
        if record.status == Status::Paused {
            run.user_turn();
            record = run.model_call(
                RESOLVE_TOOL,
                &Value::Object(vec![("confirmed".into(), Value::Bool(true))]),
            );
        }
        report.identification = Some(record);
    }
    let identify_name = identify_tool.as_ref().map(|(_, t, _)| t.clone());

    for (skill_id, tools) in &agent.bindings {
        run.user_turn();
        if run.activate(skill_id, None).is_err() {
            continue;
        }
        let offered = run.visible_tools();
        for (name, bound) in tools {
            if Some(name) == identify_name.as_ref() || !offered.contains(name) {
                continue;
            }
            let schema = bound.schema();
            let props = properties(schema);
            let needed = required(schema);
            let ids: Vec<String> =
                props.iter().map(|(n, _)| n.clone()).filter(|n| is_id_like(n)).collect();
            let memory_id =
                crm_calls(bound, agent).iter().flat_map(|c| c.args.clone()).find_map(|a| {
                    match a.origin {
                        ArgOrigin::Memory { path } => Some(path.unwrap_or_default()),
                        _ => None,
                    }
                });
            let (kind, id_args) = if !ids.is_empty() {
                (ProbeKind::IdArgument, ids)
            } else if let Some(path) = memory_id {
                let entry = path
                    .rsplit('.')
                    .next()
                    .filter(|e| is_id_like(e))
                    .unwrap_or("contact_id")
                    .to_owned();
                (ProbeKind::ExtraArgument, vec![entry])
            } else {
                continue;
            };
            let mut args: Vec<(String, Value)> = Vec::new();
            for (prop, prop_schema) in &props {
                if id_args.contains(prop) {
                    args.push((prop.clone(), Value::Str(victim.id.clone())));
                } else if needed.contains(prop) {
                    args.push((prop.clone(), filler(prop_schema)));
                }
            }
            for id in &id_args {
                if !args.iter().any(|(n, _)| n == id) {
                    args.push((id.clone(), Value::Str(victim.id.clone())));
                }
            }
            run.user_turn();
            fill_confirmation_entries(&mut run, skill_id, name);
            let call = run.model_call(name, &Value::Object(args));
            let mut confirmation = None;
            if call.status == Status::Paused {
                run.user_turn();
                confirmation = Some(run.model_call(
                    RESOLVE_TOOL,
                    &Value::Object(vec![("confirmed".into(), Value::Bool(true))]),
                ));
            }
            let effective = confirmation.as_ref().unwrap_or(&call);
            let leaks = leaks_of(skill_id, name, &id_args, &victim.id, effective);
            let outcome = if !leaks.is_empty() {
                ProbeOutcome::Leaked
            } else if effective.status == Status::Ran && !effective.is_error {
                ProbeOutcome::NoEffect
            } else {
                ProbeOutcome::Blocked { reason: effective.model_sees.clone().unwrap_or_default() }
            };
            report.leaks.extend(leaks);
            report.probes.push(Probe {
                skill: skill_id.clone(),
                tool: name.clone(),
                id_arguments: id_args,
                kind,
                call,
                confirmation,
                outcome,
            });
        }
    }
    report
}

fn leaks_of(
    skill: &str,
    tool: &str,
    id_args: &[String],
    victim: &str,
    call: &CallRecord,
) -> Vec<Leak> {
    let mut out = Vec::new();
    for (kind, access) in [(LeakKind::Read, Access::Read), (LeakKind::Write, Access::Write)] {
        let mut records = Vec::new();
        let mut requests = Vec::new();
        for request in call.client_calls.iter().flat_map(|c| c.requests.iter()) {
            let hits: Vec<Touched> = request
                .touched
                .iter()
                .filter(|t| t.owner == victim && t.access == access)
                .cloned()
                .collect();
            if !hits.is_empty() {
                requests.push(request.line());
                records.extend(hits);
            }
        }
        // A read leaks only when its result reached the model; a write leaks regardless.
        let reached = call.status == Status::Ran && !call.is_error;
        if records.is_empty() || (kind == LeakKind::Read && !reached) {
            continue;
        }
        out.push(Leak {
            kind,
            skill: skill.to_owned(),
            tool: tool.to_owned(),
            argument: id_args.join(", "),
            value: victim.to_owned(),
            records,
            requests,
            model_saw: call.model_sees.clone(),
        });
    }
    out
}
