//! The trace: for each customer id in a run, its path from the conversation to the
//! records it touched — typed by the user, returned by a tool, held in server-side
//! memory, carried by an argument, sent over MCP, used in a CRM client call and request,
//! and the record at the end — with the hop where the id stopped being server-held state
//! and became the model's choice marked.

use serde::Serialize;

use super::agent::{Agent, Bound};
use super::conversation::{ArgSource, Event, Transcript};
use super::crm::{Access, CrmSeed, RecordKind, Touched};
use super::json::JsonValue;
use super::run::{CallRecord, Caller, Route};
use crate::diagnostic::Span;

/// What one hop is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HopKind {
    /// The user typed it.
    Typed,
    /// A tool result carried it to the model.
    Returned,
    /// A tool stored it in memory (server-held).
    Stored,
    /// The model wrote it into skill memory.
    Remembered,
    /// A tool read it from memory (server-held).
    ReadFromMemory,
    /// A tool argument carried it.
    Argument,
    /// An `execute_tool` step parameter resolved from memory carried it.
    StepParameter,
    /// An MCP `tools/call` carried it.
    McpCall,
    /// A CRM client call in the tool's body used it.
    ClientCall,
    /// An HTTP request to the CRM used it.
    Request,
    /// A record it touched.
    Record,
}

/// One hop of an id's path.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hop {
    /// The transcript entry.
    pub entry: usize,
    /// What the hop is.
    pub kind: HopKind,
    /// A sentence for people.
    pub text: String,
    /// The file that explains it, when there is one.
    pub file: Option<String>,
    /// Where in that file.
    pub span: Option<Span>,
    /// Whether the model chose this value here.
    pub model_choice: bool,
}

/// One id's path.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IdTrace {
    /// The id.
    pub id: String,
    /// Whose it is (`Dana Okafor`).
    pub owner: Option<String>,
    /// The hops, in order.
    pub hops: Vec<Hop>,
    /// The index (in `hops`) of the hop where the id became the model's choice and then
    /// reached the CRM, if it did.
    pub crossed: Option<usize>,
}

/// Whether `value` holds `id` as a string or a number, at any depth.
pub(crate) fn contains_id(value: &JsonValue, id: &str) -> bool {
    match value {
        JsonValue::Str(s) => s == id,
        JsonValue::Int(n) => n.to_string() == id,
        JsonValue::Array(items) => items.iter().any(|v| contains_id(v, id)),
        JsonValue::Object(entries) => entries.iter().any(|(_, v)| contains_id(v, id)),
        _ => false,
    }
}

/// Whether `text` holds `id` as a whole number (not inside a longer run of digits).
pub(crate) fn mentions(text: &str, id: &str) -> bool {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = text[from..].find(id).map(|i| from + i) {
        let end = at + id.len();
        let digit = |b: Option<&u8>| b.is_some_and(u8::is_ascii_digit);
        if !digit(at.checked_sub(1).and_then(|i| bytes.get(i))) && !digit(bytes.get(end)) {
            return true;
        }
        from = end;
    }
    false
}

/// The file and line that define `param` of the tool a call went to.
fn param_place(
    agent: &Agent<'_>,
    record: &CallRecord,
    param: &str,
) -> (Option<String>, Option<Span>) {
    match agent.bound(&record.skill, &record.tool) {
        Some(Bound::Local(local)) => {
            let span = local.function.params.iter().find(|p| p.name == param).map(|p| p.span);
            (Some(local.file.to_owned()), span.or(Some(local.function.name_span)))
        }
        Some(Bound::Mcp(remote)) => match agent.servers.get(remote.server) {
            Some(server) => {
                let tool = server.tool(remote.tool);
                let span =
                    tool.and_then(|t| t.params.iter().find(|p| p.name == param).map(|p| p.span));
                (Some(server.file.clone()), span.or(tool.map(|t| t.name_span)))
            }
            None => (None, None),
        },
        None => (None, None),
    }
}

fn tool_file(agent: &Agent<'_>, record: &CallRecord) -> Option<String> {
    match &record.route {
        Some(Route::Local { file, .. }) => Some(file.clone()),
        Some(Route::Mcp { server }) => agent.servers.get(server).map(|s| s.file.clone()),
        None => None,
    }
}

/// A record hop in words: whose record, and what happened to it.
pub fn record_text(touched: &Touched) -> String {
    let (owner, id) = (&touched.owner, &touched.id);
    let done = match touched.access {
        Access::Read => "read",
        Access::Write => "written",
    };
    match touched.kind {
        RecordKind::Contact => format!("contact {id} was {done}"),
        RecordKind::Associations => format!("the ticket list of contact {owner} was {done}"),
        RecordKind::Ticket => format!("ticket {id} of contact {owner} was {done}"),
        RecordKind::Note => format!("note {id} on contact {owner}'s timeline was {done}"),
    }
}

/// Traces every contact id of the seed that appears in the run.
pub fn trace(agent: &Agent<'_>, seed: &CrmSeed, transcript: &Transcript) -> Vec<IdTrace> {
    let mut out = Vec::new();
    for contact in &seed.contacts {
        let id = contact.id.as_str();
        let mut hops: Vec<Hop> = Vec::new();
        let mut crossed = None;
        for (index, entry) in transcript.entries.iter().enumerate() {
            let hop =
                |kind, text: String, file: Option<String>, span: Option<Span>, model_choice| Hop {
                    entry: index,
                    kind,
                    text,
                    file,
                    span,
                    model_choice,
                };
            match &entry.event {
                Event::User { text, .. } => {
                    if mentions(text, id) {
                        hops.push(hop(
                            HopKind::Typed,
                            format!("the user typed {id}"),
                            None,
                            None,
                            false,
                        ));
                    }
                }
                Event::Remember { key, value, error: None } if contains_id(value, id) => {
                    hops.push(hop(
                        HopKind::Remembered,
                        format!("the model wrote {id} into {key}"),
                        None,
                        None,
                        true,
                    ));
                }
                Event::Call { record, args, .. } => {
                    let file = tool_file(agent, record);
                    let mut chosen_here = None;
                    for uses in record
                        .memory_uses
                        .iter()
                        .filter(|u| u.op == "get" && contains_id(&u.value, id))
                    {
                        hops.push(hop(
                            HopKind::ReadFromMemory,
                            format!(
                                "{} read {id} from server-held memory ({})",
                                record.tool, uses.path
                            ),
                            file.clone(),
                            Some(uses.span),
                            false,
                        ));
                    }
                    let sent: Vec<(String, Option<&ArgSource>)> = match &record.args {
                        JsonValue::Object(entries) => entries
                            .iter()
                            .filter(|(_, v)| contains_id(v, id))
                            .map(|(k, _)| {
                                (k.clone(), args.iter().find(|a| &a.name == k).map(|a| &a.source))
                            })
                            .collect(),
                        _ => Vec::new(),
                    };
                    for (name, source) in sent {
                        let (param_file, span) = param_place(agent, record, &name);
                        let (kind, model, how) = match (&record.caller, source) {
                            (Caller::Step { step, .. }, _) => (
                                HopKind::StepParameter,
                                false,
                                format!("step '{step}' bound it from memory"),
                            ),
                            (_, Some(ArgSource::Policy { policy, reason, .. })) => (
                                HopKind::Argument,
                                true,
                                format!("the model chose it ({}: {reason})", policy.name()),
                            ),
                            (_, Some(ArgSource::FromResult { tool, path, .. })) => (
                                HopKind::Argument,
                                true,
                                format!("the model copied it from {tool}'s {path}"),
                            ),
                            _ => (HopKind::Argument, true, "the model filled it in".to_owned()),
                        };
                        if model {
                            chosen_here = Some(hops.len());
                        }
                        hops.push(hop(
                            kind,
                            format!("argument {name} of {} carried {id}: {how}", record.tool),
                            param_file,
                            span,
                            model,
                        ));
                    }
                    if let Some(exchange) = &record.exchange
                        && contains_id(&exchange.request, id)
                    {
                        let name = super::json::at_path(&exchange.request, "params.name")
                            .map_or_else(|| record.tool.clone(), super::json::plain);
                        hops.push(hop(
                            HopKind::McpCall,
                            format!("tools/call {name} sent {id} to the MCP server"),
                            file.clone(),
                            None,
                            false,
                        ));
                    }
                    let mut reached_crm = false;
                    for call in &record.client_calls {
                        if call.args.iter().any(|(_, v)| v == id) {
                            reached_crm = true;
                            hops.push(hop(
                                HopKind::ClientCall,
                                format!(
                                    "crm.{}({}) used {id}",
                                    call.function,
                                    call.args
                                        .iter()
                                        .map(|(k, v)| format!("{k}={v:?}"))
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                ),
                                file.clone(),
                                Some(call.span),
                                false,
                            ));
                        }
                        for request in &call.requests {
                            let in_request = mentions(&request.path, id)
                                || request.body.as_ref().is_some_and(|b| contains_id(b, id));
                            if in_request {
                                // A project's own HTTP client sends the id in the request
                                // itself: that is where it reaches the CRM.
                                reached_crm = true;
                                hops.push(hop(HopKind::Request, request.line(), None, None, false));
                            }
                            for touched in request.touched.iter().filter(|t| t.owner == id) {
                                hops.push(hop(
                                    HopKind::Record,
                                    record_text(touched),
                                    None,
                                    None,
                                    false,
                                ));
                            }
                        }
                    }
                    if let (Some(at), true, None) = (chosen_here, reached_crm, crossed) {
                        crossed = Some(at);
                    }
                    for set in record
                        .memory_uses
                        .iter()
                        .filter(|u| u.op == "set" && contains_id(&u.value, id))
                    {
                        hops.push(hop(
                            HopKind::Stored,
                            format!(
                                "{} stored {id} in server-held memory ({})",
                                record.tool, set.path
                            ),
                            file.clone(),
                            Some(set.span),
                            false,
                        ));
                    }
                    if record.model_sees.as_deref().is_some_and(|t| mentions(t, id)) {
                        hops.push(hop(
                            HopKind::Returned,
                            format!("the result of {} showed {id} to the model", record.tool),
                            None,
                            None,
                            false,
                        ));
                    }
                }
                Event::Skill { .. } | Event::Remember { .. } => {}
            }
        }
        if !hops.is_empty() {
            out.push(IdTrace {
                id: id.to_owned(),
                owner: Some(contact.full_name()),
                hops,
                crossed,
            });
        }
    }
    out
}
