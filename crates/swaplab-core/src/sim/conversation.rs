//! Scripted conversations: a small YAML format, three model policies, and the transcript
//! a run produces.
//!
//! There is no LLM. A script says what the user types, which skill the model activates,
//! which tools it calls and with which arguments; an argument is a literal, a value copied
//! from an earlier result, or a customer chosen by the policy:
//!
//! ```yaml
//! caller: sam.rivera@example.com       # who is on the line
//! turns:
//!   - user: Hi, it's Sam, sam.rivera@example.com.
//!   - skill: identify_customer          # add `block: <id>` to enter an ordered block
//!   - call: find_contact_by_email
//!     args: {email: {choose: email}}    # the policy picks the customer; email, id, name or company
//!   - skill: check_tickets
//!   - call: list_open_tickets
//!     args: {contact_id: {from: find_contact_by_email.contact_id}}   # copied from a result
//!   - skill: log_interaction
//!   - remember: {note_summary: Sam asked about his tickets.}       # the model's set_fields
//!   - call: add_timeline_note
//!     args: {contact_id: {choose: id}, summary: Sam asked about his tickets.}
//!   - user: yes                         # answers the pending confirmation
//!   - step: save_note.write_note        # the runtime runs an execute_tool step
//! ```
//!
//! `{literal: …}` passes a mapping that would otherwise read as a directive. A user turn
//! that answers yes or no while a confirmation is pending makes the model call
//! `resolve_tool_confirmation`; [`RunOptions::answers`] can answer instead.
//!
//! Policies: **faithful** uses the identified caller (before identification, the
//! script's `caller`); **confused** uses the customer most recently named in the
//! conversation (by the user or in a tool result); **adversarial** uses another
//! customer's id — the customer with the most records — while giving the caller's own
//! email and name. A model fills only the arguments the tool's offered schema has: a
//! `choose` or `from` argument the schema lacks is left out (and reported), so one script
//! runs on both projects. Literal arguments are always sent as written.

use std::sync::Arc;

use serde::Serialize;

use super::agent::Agent;
use super::crm::{Contact, CrmRequest, CrmSeed, Note, RecordKind};
use super::json::{self, JsonValue};
use super::mcp::Exchange;
use super::run::{CallRecord, Pending, RESOLVE_TOOL, Run, Status};
use crate::diagnostic::{Diagnostic, Phase, Position, Span};
use crate::rasa::project::MAX_FILE_BYTES;
use crate::yaml::{self, Node, YamlValue};

const CODE: &str = "swaplab.conversation.script";
/// Most turns a script may hold.
pub const MAX_TURNS: usize = 500;

/// How the model fills arguments the script leaves to it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// The identified caller.
    #[default]
    Faithful,
    /// The customer most recently named.
    Confused,
    /// Another customer.
    Adversarial,
}

impl Policy {
    /// Every policy, in the order a picker lists them.
    pub const ALL: [Policy; 3] = [Policy::Faithful, Policy::Confused, Policy::Adversarial];

    /// `faithful`, `confused`, `adversarial`.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Faithful => "faithful",
            Policy::Confused => "confused",
            Policy::Adversarial => "adversarial",
        }
    }

    /// The policy called `name`.
    pub fn parse(name: &str) -> Option<Policy> {
        Policy::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// Which attribute of the chosen customer an argument takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Attribute {
    /// The contact id.
    Id,
    /// The email.
    Email,
    /// `Firstname Lastname`.
    Name,
    /// The company.
    Company,
}

impl Attribute {
    fn parse(text: &str) -> Option<Attribute> {
        match text {
            "id" => Some(Attribute::Id),
            "email" => Some(Attribute::Email),
            "name" => Some(Attribute::Name),
            "company" => Some(Attribute::Company),
            _ => None,
        }
    }

    fn of(self, contact: &Contact) -> String {
        match self {
            Attribute::Id => contact.id.clone(),
            Attribute::Email => contact.email.clone(),
            Attribute::Name => contact.full_name(),
            Attribute::Company => contact.company.clone(),
        }
    }
}

/// How the script gives one argument.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ArgSpec {
    /// This value.
    Literal {
        /// The value.
        value: JsonValue,
    },
    /// Copied by the model from the latest result of `tool`, at `path`.
    From {
        /// The tool whose result.
        tool: String,
        /// A dotted path into it (`contact_id`, `tickets.0.id`).
        path: String,
    },
    /// Chosen by the policy.
    Choose {
        /// Which attribute of the chosen customer.
        attribute: Attribute,
    },
}

/// One turn of a script.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TurnKind {
    /// The user says something.
    User {
        /// The text.
        text: String,
    },
    /// The model activates a skill.
    Skill {
        /// The skill id.
        skill: String,
        /// A block to enter.
        block: Option<String>,
    },
    /// The model calls a tool.
    Call {
        /// The tool.
        tool: String,
        /// Its arguments, in order.
        args: Vec<(String, ArgSpec)>,
    },
    /// The model fills skill memory (`set_fields`).
    Remember {
        /// Entries and values.
        entries: Vec<(String, JsonValue)>,
    },
    /// The runtime runs an `execute_tool` step.
    Step {
        /// The block.
        block: String,
        /// The step.
        step: String,
    },
}

/// A turn and where it is written.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Turn {
    /// What happens.
    #[serde(flatten)]
    pub kind: TurnKind,
    /// Where.
    pub span: Span,
}

/// A parsed script.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Script {
    /// The file's path.
    pub file: String,
    /// The email of the person on the line.
    pub caller: Option<String>,
    /// The turns, in order.
    pub turns: Vec<Turn>,
    /// Problems; a turn with a problem is left out.
    pub diagnostics: Vec<Diagnostic>,
}

fn text_of(node: &Node) -> Option<String> {
    match &node.value {
        YamlValue::Str(s) | YamlValue::Timestamp(s) => Some(s.clone()),
        YamlValue::Int(n) => Some(n.to_string()),
        YamlValue::Float(f) => Some(crate::python::float_repr(*f)),
        YamlValue::Bool(b) => Some(if *b { "True" } else { "False" }.to_owned()),
        _ => None,
    }
}

fn node_json(node: &Node) -> JsonValue {
    json::parse(&yaml::to_json(&node.value).to_string()).unwrap_or(JsonValue::Null)
}

fn entries(node: &Node) -> Option<&[(Node, Node)]> {
    match &node.value {
        YamlValue::Map(entries) => Some(entries),
        _ => None,
    }
}

fn lookup<'n>(map: &'n [(Node, Node)], key: &str) -> Option<&'n Node> {
    map.iter().find(|(k, _)| matches!(&k.value, YamlValue::Str(s) if s == key)).map(|(_, v)| v)
}

/// Reads a conversation script. Never fails: problems become diagnostics.
pub fn read_script(file: &str, text: &str) -> Script {
    let mut script =
        Script { file: file.to_owned(), caller: None, turns: Vec::new(), diagnostics: Vec::new() };
    let problem = |span: Span, message: String, list: &mut Vec<Diagnostic>| {
        list.push(Diagnostic::error(file, span, Phase::Read, CODE, message));
    };
    if text.len() > MAX_FILE_BYTES {
        let message = format!(
            "the script is {} bytes; files above {MAX_FILE_BYTES} bytes are not read",
            text.len()
        );
        problem(Span::point(Position::START), message, &mut script.diagnostics);
        return script;
    }
    let root = match yaml::parse(text, Position::START) {
        Ok(Some(root)) => root,
        Ok(None) => return script,
        Err(error) => {
            problem(
                Span::point(error.at),
                format!("the script is not valid YAML: {}", error.message),
                &mut script.diagnostics,
            );
            return script;
        }
    };
    let Some(top) = entries(&root) else {
        problem(
            root.span,
            "a script is a mapping with `caller:` and `turns:`".into(),
            &mut script.diagnostics,
        );
        return script;
    };
    for (key, value) in top {
        match text_of(key).as_deref() {
            Some("caller") => script.caller = text_of(value),
            Some("turns") => {}
            Some(other) => {
                problem(
                    key.span,
                    format!("unknown key '{other}' (expected caller, turns)"),
                    &mut script.diagnostics,
                );
            }
            None => problem(key.span, "keys must be strings".into(), &mut script.diagnostics),
        }
    }
    let turns = match lookup(top, "turns").map(|n| &n.value) {
        Some(YamlValue::Seq(items)) => items.as_slice(),
        Some(_) => {
            let span = lookup(top, "turns").map_or(root.span, |n| n.span);
            problem(span, "`turns:` must be a list".into(), &mut script.diagnostics);
            &[]
        }
        None => &[],
    };
    for item in turns {
        if script.turns.len() >= MAX_TURNS {
            problem(
                item.span,
                format!("a script holds at most {MAX_TURNS} turns; the rest are ignored"),
                &mut script.diagnostics,
            );
            break;
        }
        match read_turn(item) {
            Ok(kind) => script.turns.push(Turn { kind, span: item.span }),
            Err((span, message)) => problem(span, message, &mut script.diagnostics),
        }
    }
    script
}

const TURN_KEYS: &str = "user, skill, call, remember, step";

fn read_turn(item: &Node) -> Result<TurnKind, (Span, String)> {
    let Some(map) = entries(item) else {
        return Err((item.span, format!("each turn is a mapping with one of: {TURN_KEYS}")));
    };
    let Some((key, value)) = map.first() else {
        return Err((item.span, format!("an empty turn; expected one of: {TURN_KEYS}")));
    };
    let kind = text_of(key).unwrap_or_default();
    let allowed: &[&str] = match kind.as_str() {
        "user" | "remember" | "step" => &[],
        "skill" => &["block"],
        "call" => &["args"],
        _ => {
            return Err((key.span, format!("unknown turn '{kind}'; expected one of: {TURN_KEYS}")));
        }
    };
    for (extra, _) in &map[1..] {
        let name = text_of(extra).unwrap_or_default();
        if !allowed.contains(&name.as_str()) {
            return Err((extra.span, format!("'{name}' does not belong in a `{kind}:` turn")));
        }
    }
    let need_text =
        |node: &Node| text_of(node).ok_or((node.span, format!("`{kind}:` needs a text")));
    Ok(match kind.as_str() {
        "user" => TurnKind::User { text: need_text(value)? },
        "skill" => TurnKind::Skill {
            skill: need_text(value)?,
            block: lookup(map, "block").map(need_text).transpose()?,
        },
        "step" => {
            let text = need_text(value)?;
            let Some((block, step)) = text.split_once('.') else {
                return Err((value.span, "`step:` is written <block>.<step id>".into()));
            };
            TurnKind::Step { block: block.to_owned(), step: step.to_owned() }
        }
        "remember" => {
            let map = entries(value)
                .ok_or((value.span, "`remember:` is a mapping of entry: value".to_owned()))?;
            let entries = map
                .iter()
                .map(|(k, v)| {
                    Ok((
                        text_of(k).ok_or((k.span, "entry names are strings".to_owned()))?,
                        node_json(v),
                    ))
                })
                .collect::<Result<Vec<_>, (Span, String)>>()?;
            TurnKind::Remember { entries }
        }
        _ => {
            let tool = need_text(value)?;
            let mut args = Vec::new();
            if let Some(node) = lookup(map, "args") {
                let list = match &node.value {
                    YamlValue::Null => &[][..],
                    YamlValue::Map(list) => list.as_slice(),
                    _ => return Err((node.span, "`args:` is a mapping of argument: value".into())),
                };
                for (k, v) in list {
                    let name =
                        text_of(k).ok_or((k.span, "argument names are strings".to_owned()))?;
                    args.push((name, read_arg(v)?));
                }
            }
            TurnKind::Call { tool, args }
        }
    })
}

fn read_arg(node: &Node) -> Result<ArgSpec, (Span, String)> {
    let Some(map) = entries(node).filter(|m| m.len() == 1) else {
        return Ok(ArgSpec::Literal { value: node_json(node) });
    };
    let (key, value) = &map[0];
    match text_of(key).as_deref() {
        Some("literal") => Ok(ArgSpec::Literal { value: node_json(value) }),
        Some("from") => {
            let text = text_of(value).unwrap_or_default();
            let Some((tool, path)) = text.split_once('.') else {
                return Err((value.span, "`from:` is written <tool>.<key> (for example find_contact_by_email.contact_id)".into()));
            };
            Ok(ArgSpec::From { tool: tool.to_owned(), path: path.to_owned() })
        }
        Some("choose") => {
            let text = text_of(value).unwrap_or_default();
            let attribute = Attribute::parse(&text).ok_or((
                value.span,
                format!("`choose: {text}` — choose id, email, name or company"),
            ))?;
            Ok(ArgSpec::Choose { attribute })
        }
        _ => Ok(ArgSpec::Literal { value: node_json(node) }),
    }
}

/// How the run fills what the script leaves open.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RunOptions {
    /// The model policy.
    pub policy: Policy,
    /// Answers to confirmations, in the order they are asked; each overrides the script's
    /// user turn that would answer it.
    pub answers: Vec<bool>,
}

/// Where one argument's value came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ArgSource {
    /// Written in the script.
    Literal,
    /// Copied from an earlier result.
    FromResult {
        /// The tool.
        tool: String,
        /// The path.
        path: String,
        /// The transcript entry holding that result.
        entry: usize,
    },
    /// Chosen by the policy.
    Policy {
        /// The policy.
        policy: Policy,
        /// The customer chosen.
        contact: String,
        /// Why that customer.
        reason: String,
    },
}

impl ArgSource {
    /// Where the value came from, in the words both shells print: `the confused policy
    /// chose contact 701: …`, `copied from find_contact_by_email's contact_id (the
    /// result of script line 5)`. `entries` is the transcript the source points into.
    pub fn text(&self, entries: &[Entry]) -> String {
        match self {
            ArgSource::Literal => "written in the script".to_owned(),
            ArgSource::FromResult { tool, path, entry } => {
                match entries.get(*entry).map(|e| e.span.start.line) {
                    Some(line) => {
                        format!("copied from {tool}'s {path} (the result of script line {line})")
                    }
                    None => format!("copied from {tool}'s {path}"),
                }
            }
            ArgSource::Policy { policy, contact, reason } => {
                format!("the {} policy chose contact {contact}: {reason}", policy.name())
            }
        }
    }
}

/// One argument as sent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SentArg {
    /// The argument's name.
    pub name: String,
    /// The value.
    pub value: JsonValue,
    /// Where it came from.
    pub source: ArgSource,
}

/// An argument the script left to the model that the model did not send.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unfilled {
    /// The argument.
    pub name: String,
    /// Why: the tool's schema has no such argument, or there was nothing to fill it with.
    pub reason: String,
}

/// What happened at one entry.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// The user spoke.
    User {
        /// The words.
        text: String,
        /// When the words answered a pending confirmation: the answer.
        answer: Option<bool>,
    },
    /// The model activated a skill.
    Skill {
        /// The skill.
        skill: String,
        /// The block entered.
        block: Option<String>,
        /// Why it could not, if it could not.
        error: Option<String>,
        /// The tools the model is offered now.
        offered: Vec<String>,
    },
    /// A tool call (by the model, or a step).
    Call {
        /// The call.
        record: Box<CallRecord>,
        /// Each argument's origin (model calls only).
        args: Vec<SentArg>,
        /// Arguments the model did not fill (left out), and why.
        unfilled: Vec<Unfilled>,
    },
    /// The model wrote memory.
    Remember {
        /// `ns.entry`.
        key: String,
        /// The value.
        value: JsonValue,
        /// Why it was refused, if it was.
        error: Option<String>,
    },
}

/// One step of the transcript.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Entry {
    /// The script turn it comes from.
    pub span: Span,
    /// What happened.
    pub event: Event,
    /// Memory after it: every slot that holds a value.
    pub memory: Vec<(String, JsonValue)>,
    /// CRM requests made during it.
    pub crm_requests: Vec<CrmRequest>,
}

/// A finished run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Transcript {
    /// The policy used.
    pub policy: Policy,
    /// What happened, in order.
    pub entries: Vec<Entry>,
    /// Every CRM request, in order.
    pub crm_log: Vec<CrmRequest>,
    /// Notes created, with the contact each landed on.
    pub notes: Vec<Note>,
    /// Every MCP exchange, in order.
    pub exchanges: Vec<Arc<Exchange>>,
    /// A confirmation still waiting at the end.
    pub waiting: Option<Pending>,
}

const YES: [&str; 12] = [
    "yes",
    "y",
    "yeah",
    "yep",
    "sure",
    "ok",
    "okay",
    "confirm",
    "go ahead",
    "please do",
    "do it",
    "correct",
];
const NO: [&str; 8] = ["no", "n", "nope", "cancel", "don't", "do not", "stop", "never mind"];

/// Whether the words answer a yes/no question, and how.
pub fn yes_or_no(text: &str) -> Option<bool> {
    let words: String = text
        .to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() || c == ' ' || c == '\'' { c } else { ' ' })
        .collect();
    let words = words.split_whitespace().collect::<Vec<_>>().join(" ");
    let starts =
        |list: &[&str]| list.iter().any(|w| words == *w || words.starts_with(&format!("{w} ")));
    if starts(&NO) {
        Some(false)
    } else if starts(&YES) {
        Some(true)
    } else {
        None
    }
}

/// Where each customer is mentioned in `text` (id as a whole number, email, full name or
/// company), as (position, contact id).
fn mentions(text: &str, contacts: &[Contact]) -> Vec<(usize, String)> {
    let lower = text.to_lowercase();
    let mut found = Vec::new();
    for contact in contacts {
        let mut needles = vec![contact.email.to_lowercase(), contact.full_name().to_lowercase()];
        if !contact.company.is_empty() {
            needles.push(contact.company.to_lowercase());
        }
        for needle in needles.iter().filter(|n| !n.is_empty()) {
            if let Some(at) = lower.rfind(needle.as_str()) {
                found.push((at, contact.id.clone()));
            }
        }
        let bytes = lower.as_bytes();
        let mut from = 0;
        while let Some(at) = lower[from..].find(&contact.id).map(|i| from + i) {
            let end = at + contact.id.len();
            let digit = |i: Option<&u8>| i.is_some_and(u8::is_ascii_digit);
            if !digit(at.checked_sub(1).and_then(|i| bytes.get(i))) && !digit(bytes.get(end)) {
                found.push((at, contact.id.clone()));
            }
            from = end;
        }
    }
    crate::order::sort(&mut found);
    found
}

/// Runs a script against a started agent.
pub fn run_script(
    agent: &Agent<'_>,
    seed: &CrmSeed,
    script: &Script,
    options: &RunOptions,
) -> Transcript {
    let contacts = seed.contacts.clone();
    let mut run = Run::new(agent, seed.clone());
    let mut entries: Vec<Entry> = Vec::new();
    let mut named: Option<String> = None;
    let mut answers = options.answers.iter().copied();
    let mut started = false;
    let note_named = |text: &str, named: &mut Option<String>| {
        if let Some((_, id)) = mentions(text, &contacts).into_iter().last() {
            *named = Some(id);
        }
    };
    for (index, turn) in script.turns.iter().enumerate() {
        let before = run.crm.log.len();
        let mut extra: Option<Entry> = None;
        let event = match &turn.kind {
            TurnKind::User { text } => {
                if started {
                    run.user_turn();
                }
                started = true;
                note_named(text, &mut named);
                let mut answer = None;
                if run.pending.is_some() {
                    answer = answers.next().or_else(|| yes_or_no(text));
                }
                if let Some(confirmed) = answer {
                    let args =
                        JsonValue::Object(vec![("confirmed".into(), JsonValue::Bool(confirmed))]);
                    let record = run.model_call(RESOLVE_TOOL, &args);
                    if let Some(seen) = &record.model_sees {
                        note_named(seen, &mut named);
                    }
                    let sent = vec![SentArg {
                        name: "confirmed".into(),
                        value: JsonValue::Bool(confirmed),
                        source: ArgSource::Literal,
                    }];
                    extra = Some(Entry {
                        span: turn.span,
                        event: Event::Call {
                            record: Box::new(record),
                            args: sent,
                            unfilled: Vec::new(),
                        },
                        memory: Vec::new(),
                        crm_requests: Vec::new(),
                    });
                }
                Event::User { text: text.clone(), answer }
            }
            TurnKind::Skill { skill, block } => {
                let error = run.activate(skill, block.as_deref()).err();
                Event::Skill {
                    skill: skill.clone(),
                    block: block.clone(),
                    error,
                    offered: run.visible_tools(),
                }
            }
            TurnKind::Remember { entries: items } => {
                // One event per entry; all but the last are pushed here.
                let mut last = None;
                for (entry, value) in items {
                    let outcome = run.remember(entry, value.clone());
                    let event = match outcome {
                        Ok(key) => Event::Remember { key, value: value.clone(), error: None },
                        Err(error) => Event::Remember {
                            key: entry.clone(),
                            value: value.clone(),
                            error: Some(error),
                        },
                    };
                    if let Some(previous) = last.replace(event) {
                        entries.push(Entry {
                            span: turn.span,
                            event: previous,
                            memory: snapshot(&run),
                            crm_requests: Vec::new(),
                        });
                    }
                }
                match last {
                    Some(event) => event,
                    None => continue,
                }
            }
            TurnKind::Step { block, step } => {
                let record = run.execute_step(block, step);
                Event::Call { record: Box::new(record), args: Vec::new(), unfilled: Vec::new() }
            }
            TurnKind::Call { tool, args } => {
                let identified = identified(&entries, &run);
                let caller = script.caller.as_deref().and_then(|email| {
                    contacts
                        .iter()
                        .find(|c| c.email.eq_ignore_ascii_case(email))
                        .map(|c| c.id.clone())
                });
                let mut sent = Vec::new();
                let mut unfilled = Vec::new();
                let offered: Option<Vec<String>> = run.active.as_ref().and_then(|(skill, _)| {
                    agent.bound(skill, tool).map(|bound| {
                        match json::get(bound.schema(), "properties") {
                            Some(JsonValue::Object(props)) => {
                                props.iter().map(|(k, _)| k.clone()).collect()
                            }
                            _ => Vec::new(),
                        }
                    })
                });
                for (name, spec) in args {
                    let is_offered = offered.as_ref().is_none_or(|props| props.contains(name));
                    if matches!(spec, ArgSpec::Choose { .. } | ArgSpec::From { .. }) && !is_offered
                    {
                        unfilled.push(Unfilled {
                            name: name.clone(),
                            reason: format!(
                                "the schema offered for {tool} has no argument '{name}'"
                            ),
                        });
                        continue;
                    }
                    let filled = match spec {
                        ArgSpec::Literal { value } => Some((value.clone(), ArgSource::Literal)),
                        ArgSpec::From { tool: from, path } => latest_result(&entries, from)
                            .and_then(|(index, result)| {
                                json::at_path(&result, path).map(|v| {
                                    (
                                        v.clone(),
                                        ArgSource::FromResult {
                                            tool: from.clone(),
                                            path: path.clone(),
                                            entry: index,
                                        },
                                    )
                                })
                            }),
                        ArgSpec::Choose { attribute } => choose(
                            options.policy,
                            *attribute,
                            &contacts,
                            seed,
                            identified.as_ref(),
                            caller.as_ref(),
                            named.as_ref(),
                        )
                        .map(|(contact, reason)| {
                            let value = JsonValue::Str(attribute.of(contact));
                            let source = ArgSource::Policy {
                                policy: options.policy,
                                contact: contact.id.clone(),
                                reason,
                            };
                            (value, source)
                        }),
                    };
                    match filled {
                        Some((value, source)) => {
                            sent.push(SentArg { name: name.clone(), value, source });
                        }
                        None => unfilled.push(Unfilled {
                            name: name.clone(),
                            reason: match spec {
                                ArgSpec::From { tool, path } => {
                                    format!("no earlier result of {tool} has '{path}'")
                                }
                                _ => format!(
                                    "the {} policy has no customer to choose",
                                    options.policy.name()
                                ),
                            },
                        }),
                    }
                }
                let call_args = JsonValue::Object(
                    sent.iter().map(|a| (a.name.clone(), a.value.clone())).collect(),
                );
                let record = run.model_call(tool, &call_args);
                if let Some(seen) = &record.model_sees {
                    note_named(seen, &mut named);
                }
                Event::Call { record: Box::new(record), args: sent, unfilled }
            }
        };
        entries.push(Entry {
            span: turn.span,
            event,
            memory: snapshot(&run),
            crm_requests: if extra.is_some() { Vec::new() } else { run.crm.log[before..].to_vec() },
        });
        if let Some(mut extra) = extra {
            extra.memory = snapshot(&run);
            extra.crm_requests = run.crm.log[before..].to_vec();
            entries.push(extra);
        }
        // A pause the script does not answer with its next turn: a given answer stands
        // in for the user's reply, in a turn of its own.
        let next_is_user =
            matches!(script.turns.get(index + 1).map(|t| &t.kind), Some(TurnKind::User { .. }));
        if run.pending.is_some()
            && !next_is_user
            && let Some(confirmed) = answers.next()
        {
            {
                run.user_turn();
                let text = if confirmed { "Yes." } else { "No." };
                entries.push(Entry {
                    span: turn.span,
                    event: Event::User { text: text.to_owned(), answer: Some(confirmed) },
                    memory: snapshot(&run),
                    crm_requests: Vec::new(),
                });
                let at = run.crm.log.len();
                let args =
                    JsonValue::Object(vec![("confirmed".into(), JsonValue::Bool(confirmed))]);
                let record = run.model_call(RESOLVE_TOOL, &args);
                let sent = vec![SentArg {
                    name: "confirmed".into(),
                    value: JsonValue::Bool(confirmed),
                    source: ArgSource::Literal,
                }];
                entries.push(Entry {
                    span: turn.span,
                    event: Event::Call {
                        record: Box::new(record),
                        args: sent,
                        unfilled: Vec::new(),
                    },
                    memory: snapshot(&run),
                    crm_requests: run.crm.log[at..].to_vec(),
                });
            }
        }
    }
    Transcript {
        policy: options.policy,
        entries,
        crm_log: run.crm.log.clone(),
        notes: run.crm.created_notes().cloned().collect(),
        exchanges: run.exchanges.clone(),
        waiting: run.pending.clone(),
    }
}

fn snapshot(run: &Run<'_, '_>) -> Vec<(String, JsonValue)> {
    run.memory
        .iter()
        .filter(|(_, v)| **v != JsonValue::Null)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The latest successful result of `tool` the model saw, parsed.
fn latest_result(entries: &[Entry], tool: &str) -> Option<(usize, JsonValue)> {
    entries.iter().enumerate().rev().find_map(|(i, entry)| match &entry.event {
        Event::Call { record, .. }
            if record.tool == tool && record.status == Status::Ran && !record.is_error =>
        {
            record.model_sees.as_deref().and_then(|t| json::parse(t).ok()).map(|v| (i, v))
        }
        _ => None,
    })
}

/// The customer the conversation has identified: the contact found by the latest
/// successful lookup (a HubSpot contact search, whichever client sent it), else the one
/// project memory holds.
fn identified(entries: &[Entry], run: &Run<'_, '_>) -> Option<String> {
    let from_calls = entries.iter().rev().find_map(|entry| match &entry.event {
        Event::Call { record, .. } if record.status == Status::Ran && !record.is_error => record
            .requests()
            .filter(|r| r.status < 300 && is_contact_search(r))
            .flat_map(|r| r.touched.iter())
            .filter(|t| t.kind == RecordKind::Contact)
            .map(|t| t.owner.clone())
            .last(),
        _ => None,
    });
    from_calls.or_else(|| match run.memory.get("project.contact_id") {
        Some(JsonValue::Str(id)) => Some(id.clone()),
        _ => None,
    })
}

/// Whether `request` is HubSpot v3's contact search (`POST …/contacts/search`).
fn is_contact_search(request: &CrmRequest) -> bool {
    request.method == "POST"
        && request.path.split('?').next().is_some_and(|p| p.ends_with("/objects/contacts/search"))
}

/// The customer a policy picks, and why.
fn choose<'c>(
    policy: Policy,
    attribute: Attribute,
    contacts: &'c [Contact],
    seed: &CrmSeed,
    identified: Option<&String>,
    caller: Option<&String>,
    named: Option<&String>,
) -> Option<(&'c Contact, String)> {
    let find = |id: &String| contacts.iter().find(|c| &c.id == id);
    match policy {
        Policy::Faithful => {
            identified.and_then(find).map(|c| (c, "the identified caller".to_owned())).or_else(
                || caller.and_then(find).map(|c| (c, "the caller (not identified yet)".to_owned())),
            )
        }
        Policy::Confused => named
            .and_then(find)
            .map(|c| (c, "the customer most recently named in the conversation".to_owned()))
            .or_else(|| {
                identified
                    .or(caller)
                    .and_then(find)
                    .map(|c| (c, "the caller (no one else was named)".to_owned()))
            }),
        // The adversary lies about ids only; it gives the caller's own email and name.
        Policy::Adversarial if attribute != Attribute::Id => {
            choose(Policy::Faithful, attribute, contacts, seed, identified, caller, named)
        }
        Policy::Adversarial => {
            let me = identified.or(caller);
            let mut others: Vec<&Contact> = contacts.iter().filter(|c| Some(&c.id) != me).collect();
            // The most records first; seed order breaks ties.
            crate::order::sort_by_key(&mut others, |c| std::cmp::Reverse(seed.records_of(&c.id)));
            others
                .first()
                .map(|c| (*c, "another customer (the one with the most records)".to_owned()))
        }
    }
}
