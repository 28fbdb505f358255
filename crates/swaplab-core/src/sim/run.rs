//! The Mantle runtime during a conversation: memory, tool dispatch, gates, the
//! confirmation flow and `execute_tool` steps, with the exact strings the model sees.
//!
//! A [`Run`] is one conversation against a started [`Agent`]. Every tool call the model
//! makes goes through [`Run::model_call`], in Rasa's order (reference §5.4, §6):
//! is the name bound for the active skill (else `Unknown tool … — no handler
//! registered.`), is its `requires` gate open, do the arguments fit the offered schema
//! (the retryable `invalid_arguments` JSON), does it need confirmation (pause), then the
//! MCP route or the local function. [`Run::execute_step`] runs a block's `execute_tool`
//! step (§2.8, §6.7). Memory follows §7: project fields are write-once, reads follow
//! visibility, and only local tools reach memory — an MCP tool gets its arguments and
//! nothing else (§7.5).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use super::agent::{Agent, Bound, Target};
use super::crm::{Crm, CrmRequest, CrmSeed};
use super::host::{ClientCall, MemoryUse, ToolHost, ToolMemory};
use super::json::{self, JsonValue, object, string};
use super::mcp::Exchange;
use crate::python::{Outcome, Process, PyValue};
use crate::rasa::arguments::validate_arguments;
use crate::rasa::condition::{self, Scalar};
use crate::rasa::memory::{MemoryRead, MemorySlot, lookup_get, lookup_set, readable_keys};
use crate::rasa::responses::{Placeholder, render};
use crate::rasa::skill::{GatedTool, StepKind};

/// The framework tool that answers a pending confirmation.
pub const RESOLVE_TOOL: &str = "resolve_tool_confirmation";

/// Who made a call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Caller {
    /// The model, through tool calling.
    Model,
    /// The runtime, running an `execute_tool` step.
    Step {
        /// The block.
        block: String,
        /// The step id.
        step: String,
    },
    /// The runtime, running a confirmed pending call.
    Confirmed,
}

/// How a call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The tool ran.
    Ran,
    /// The runtime refused it before the tool ran; the model sees why.
    Refused,
    /// The call waits for the user's confirmation.
    Paused,
    /// The user said no; nothing ran.
    Declined,
    /// An `execute_tool` step gave control back to the model without running or telling it.
    Yielded,
}

/// Where a call went.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Route {
    /// A Python function in the project, with `ToolContext`.
    Local {
        /// Its module.
        file: String,
        /// Whether the module is shared (`tools/`).
        shared: bool,
    },
    /// An MCP server, with the arguments only.
    Mcp {
        /// The configured server id.
        server: String,
    },
}

/// One tool call, everything about it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallRecord {
    /// The turn it happened in.
    pub turn: u32,
    /// The active skill.
    pub skill: String,
    /// Prose or block.
    pub target: Target,
    /// The tool name as called.
    pub tool: String,
    /// The model, a step, or a confirmed resume.
    pub caller: Caller,
    /// The arguments sent.
    pub args: JsonValue,
    /// Where it went, when it got that far.
    pub route: Option<Route>,
    /// How it ended.
    pub status: Status,
    /// The tool result text the model receives (`json.dumps`), if any.
    pub model_sees: Option<String>,
    /// Whether Rasa counts the result as an error (§5.5 `error_from_tool_payload`).
    pub is_error: bool,
    /// The `tools/call` exchange, for an MCP call.
    pub exchange: Option<Arc<Exchange>>,
    /// CRM client calls the tool body made.
    pub client_calls: Vec<ClientCall>,
    /// Memory the tool body read or wrote.
    pub memory_uses: Vec<MemoryUse>,
    /// What the assistant says because of this call (confirmation ask, denial, outcome
    /// responses).
    pub utterances: Vec<String>,
    /// Runtime log lines the model never sees (`mantle.skill_executor…`).
    pub log: Vec<String>,
    /// Set when a tool body left the Python subset Swap Lab runs.
    pub unsupported: Option<String>,
}

impl CallRecord {
    /// What became of the call, in words: `ran`, `ran, with an error`, `refused`,
    /// `paused for confirmation`, `declined` or `yielded without running`.
    pub fn status_words(&self) -> &'static str {
        match self.status {
            Status::Ran if !self.is_error => "ran",
            Status::Ran => "ran, with an error",
            Status::Refused => "refused",
            Status::Paused => "paused for confirmation",
            Status::Declined => "declined",
            Status::Yielded => "yielded without running",
        }
    }

    /// Every CRM request the tool body's client calls made, in order.
    pub fn requests(&self) -> impl Iterator<Item = &CrmRequest> {
        self.client_calls.iter().flat_map(|c| c.requests.iter())
    }
}

/// A call waiting for the user's yes or no (§6.6 `PendingToolConfirmation`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Pending {
    /// The tool.
    pub tool: String,
    /// The arguments, frozen.
    pub args: JsonValue,
    /// The rendered ask, when the gate names a response.
    pub ask: Option<String>,
    /// The denial response's name.
    pub denial: Option<String>,
    /// The skill it belongs to.
    pub skill: String,
    /// Where it was called.
    pub target: Target,
    /// The step that paused, for an execute step.
    pub step: Option<(String, String)>,
    /// The turn it paused in.
    pub turn: u32,
}

/// One conversation's runtime state. A clone is the same conversation at the same point,
/// to go on differently (the attack probes every skill from one starting point).
#[derive(Clone)]
pub struct Run<'a, 'r> {
    /// The started agent.
    pub agent: &'a Agent<'r>,
    /// The CRM, with its request log.
    pub crm: Crm,
    /// Memory slots that hold a value, by `ns.entry`.
    pub memory: BTreeMap<String, JsonValue>,
    /// The confirmation waiting for an answer.
    pub pending: Option<Pending>,
    /// The current turn, from 1.
    pub turn: u32,
    /// The active skill and where in it the model works.
    pub active: Option<(String, Target)>,
    /// Every MCP exchange, in order (handshake, pings, calls).
    pub exchanges: Vec<Arc<Exchange>>,
    resolved_this_turn: Vec<String>,
    queued_this_turn: bool,
    next_rpc_id: i64,
}

fn error_json(message: &str) -> String {
    object([("error", string(message))]).to_python_json()
}

fn scalar(value: Option<&JsonValue>) -> Scalar {
    match value {
        None | Some(JsonValue::Null) => Scalar::None,
        Some(JsonValue::Bool(b)) => Scalar::Bool(*b),
        Some(JsonValue::Int(n)) => Scalar::Int(*n),
        Some(JsonValue::Float(f)) => Scalar::Float(*f),
        Some(JsonValue::Str(s)) => Scalar::Str(s.clone()),
        Some(other) => Scalar::Str(other.to_python_json()),
    }
}

/// `error_from_tool_payload`: a dict whose `error` or `errors` is truthy.
fn payload_is_error(payload: &JsonValue) -> bool {
    ["error", "errors"].iter().any(|k| json::get(payload, k).is_some_and(json::truthy))
}

impl<'a, 'r> Run<'a, 'r> {
    /// A new conversation: memory holds the declared initial values, and each connected
    /// server has been through `initialize` and `tools/list`.
    pub fn new(agent: &'a Agent<'r>, seed: CrmSeed) -> Run<'a, 'r> {
        let mut run = Run {
            agent,
            crm: Crm::new(seed),
            memory: BTreeMap::new(),
            pending: None,
            turn: 1,
            active: None,
            exchanges: Vec::new(),
            resolved_this_turn: Vec::new(),
            queued_this_turn: false,
            next_rpc_id: 0,
        };
        for field in &agent.report.project_memory.fields {
            if let Some(value) = &field.initial_value {
                run.memory.insert(format!("project.{}", field.name), yaml_json(value));
            }
        }
        for skill in &agent.skill_memories {
            for (field, _) in skill.all_fields() {
                if let Some(value) = &field.initial_value {
                    run.memory
                        .insert(format!("{}.{}", skill.skill_id, field.name), yaml_json(value));
                }
            }
        }
        for server in agent.servers.values() {
            run.exchanges.extend(server.handshake(run.next_rpc_id).iter().cloned());
            run.next_rpc_id += 2; // `initialize` and `tools/list`; the notification has none
        }
        run
    }

    fn request(&mut self, method: &str, params: JsonValue) -> JsonValue {
        let id = self.next_rpc_id;
        self.next_rpc_id += 1;
        super::mcp::rpc_request(Some(id), method, params)
    }

    /// A new user turn: per-turn confirmation bookkeeping starts over.
    pub fn user_turn(&mut self) {
        self.turn += 1;
        self.resolved_this_turn.clear();
        self.queued_this_turn = false;
    }

    /// Makes `skill` the active skill, at its prose or at one of its blocks. `Err` says
    /// why the model could not get there (the wording is ours).
    pub fn activate(&mut self, skill: &str, block: Option<&str>) -> Result<(), String> {
        let Some(compiled) = self.agent.skill(skill) else {
            return Err(format!("There is no loaded skill '{skill}'."));
        };
        let target = match block {
            None => Target::Prose,
            Some(block) => {
                if compiled.blocks().all(|b| b.block_id != block) {
                    return Err(format!("Skill '{skill}' has no ordered block '{block}'."));
                }
                if !self.agent.block_reachable(compiled, block) {
                    return Err(format!(
                        "Block '{block}' of skill '{skill}' cannot be entered: the skill has prose, \
                         and its prose never names @block.{block} (reference §2.9)."
                    ));
                }
                Target::Block(block.to_owned())
            }
        };
        self.active = Some((skill.to_owned(), target));
        Ok(())
    }

    /// The readable `ns.entry` keys while the active skill runs (§7.3).
    pub fn readable(&self) -> Vec<String> {
        let active = self.active.as_ref().map(|(s, _)| s.as_str());
        readable_keys(active, &self.agent.report.project_memory, &self.agent.skill_memories)
    }

    /// Memory as the `### Memory:` section would list it: readable, set entries.
    pub fn memory_lines(&self) -> Vec<(String, JsonValue)> {
        self.readable()
            .into_iter()
            .filter_map(|key| {
                self.memory.get(&key).filter(|v| **v != JsonValue::Null).map(|v| (key, v.clone()))
            })
            .collect()
    }

    fn lookup(&self, key: &str) -> Scalar {
        if self.readable().iter().any(|k| k == key) {
            scalar(self.memory.get(key))
        } else {
            Scalar::None
        }
    }

    /// Whether a gate's `requires` is open (absent, or truthy; errors close it).
    pub fn gate_open(&self, gate: &GatedTool) -> bool {
        let Some(source) = &gate.requires else { return true };
        condition::parse(source)
            .and_then(|expr| expr.evaluate(&|key| self.lookup(key)))
            .is_ok_and(|value| value.truthy())
    }

    /// The tools offered to the model right now.
    pub fn visible_tools(&self) -> Vec<String> {
        let Some((skill, target)) = &self.active else { return Vec::new() };
        let Some(skill) = self.agent.skill(skill) else { return Vec::new() };
        let mut tools = self.agent.visible_tools(skill, target, &|g| self.gate_open(g));
        if self.pending.is_some() {
            tools.push(RESOLVE_TOOL.to_owned());
        }
        tools
    }

    /// Writes a skill entry as the model's `set_fields` would (the script's `remember:`).
    /// Project fields are refused: the model never writes them (§7.4).
    pub fn remember(&mut self, entry: &str, value: JsonValue) -> Result<String, String> {
        let Some((skill, _)) = &self.active else {
            return Err("No skill is active.".to_owned());
        };
        let key = if entry.contains('.') { entry.to_owned() } else { format!("{skill}.{entry}") };
        if key.starts_with("project.") {
            return Err(format!(
                "The model cannot write '{key}': project memory is written by tools, hooks and \
                 session start, never by the LLM (reference §7.4)."
            ));
        }
        let declared = key.split_once('.').is_some_and(|(s, e)| {
            self.agent.skill_memories.iter().any(|m| m.skill_id == s && m.field(e).is_some())
        });
        if !declared {
            return Err(format!("'{key}' is not declared in any skill's memory.yml."));
        }
        self.memory.insert(key.clone(), value);
        Ok(key)
    }

    fn record(&self, tool: &str, caller: Caller, args: JsonValue) -> CallRecord {
        let (skill, target) = self.active.clone().unwrap_or((String::new(), Target::Prose));
        CallRecord {
            turn: self.turn,
            skill,
            target,
            tool: tool.to_owned(),
            caller,
            args,
            route: None,
            status: Status::Refused,
            model_sees: None,
            is_error: false,
            exchange: None,
            client_calls: Vec::new(),
            memory_uses: Vec::new(),
            utterances: Vec::new(),
            log: Vec::new(),
            unsupported: None,
        }
    }

    fn refuse(mut record: CallRecord, message: &str) -> CallRecord {
        record.model_sees = Some(error_json(message));
        record.is_error = true;
        record.status = Status::Refused;
        record
    }

    /// The model calls `tool` with `args` in the active skill.
    pub fn model_call(&mut self, tool: &str, args: &JsonValue) -> CallRecord {
        let record = self.record(tool, Caller::Model, args.clone());
        let Some((skill_id, target)) = self.active.clone() else {
            return Run::refuse(record, "No skill is active.");
        };
        if tool == RESOLVE_TOOL {
            return self.resolve(record, args);
        }
        let Some(bound) = self.agent.bound(&skill_id, tool) else {
            return Run::refuse(
                record,
                &format!("Unknown tool '{tool}' \u{2014} no handler registered."),
            );
        };
        let Some(skill) = self.agent.skill(&skill_id) else {
            return Run::refuse(record, &format!("There is no loaded skill '{skill_id}'."));
        };
        let gate = self.agent.dispatch_gates(skill, &target).into_iter().find(|g| g.name == tool);
        if let Some(gate) = gate
            && !self.gate_open(gate)
        {
            return Run::refuse(
                record,
                &format!("Tool '{tool}' gating condition not met for the current skill state."),
            );
        }
        if let Err(refused) = validate_arguments(bound.schema(), args) {
            let mut record = record;
            record.model_sees = Some(refused.to_model_json());
            record.is_error = true;
            return record;
        }
        if let Some(gate) =
            gate.filter(|g| g.requires_confirmation.as_ref().is_some_and(|c| c.enabled))
        {
            return self.pause(record, gate, None);
        }
        self.invoke(record, gate)
    }

    fn pause(
        &mut self,
        mut record: CallRecord,
        gate: &GatedTool,
        step: Option<(String, String)>,
    ) -> CallRecord {
        let tool = record.tool.clone();
        let rejection = match &self.pending {
            Some(p) if p.tool == tool => Some(format!(
                "Tool '{tool}' is awaiting confirmation; call resolve_tool_confirmation with confirmed=true or confirmed=false."
            )),
            _ if self.resolved_this_turn.contains(&tool) => Some(format!(
                "Confirmation for tool '{tool}' was already resolved this turn; do not re-call the tool or ask for confirmation again."
            )),
            Some(_) => Some(format!(
                "Tool '{tool}' cannot run: another tool confirmation is already pending."
            )),
            None if self.queued_this_turn => Some(format!(
                "Tool '{tool}' cannot run: another tool confirmation is already pending."
            )),
            None => None,
        };
        if let Some(message) = rejection {
            return Run::refuse(record, &message);
        }
        let confirmation = gate.requires_confirmation.clone().unwrap_or_default();
        let ask = match &confirmation.utter_for_confirmation {
            Some(name) => {
                let text = self.response_text(&record.skill, name).unwrap_or_default();
                if text.trim().is_empty() {
                    // The reference quotes this message up to its first clause.
                    return Run::refuse(
                        record,
                        &format!(
                            "Tool '{tool}' requires_confirmation.utter_for_confirmation ('{name}') resolved to empty text; \
                             the tool was not run."
                        ),
                    );
                }
                Some(text)
            }
            None => None,
        };
        let message = ask
            .clone()
            .unwrap_or_else(|| format!("Ask the user to confirm before running tool '{tool}'."));
        if let Some(text) = &ask {
            record.utterances.push(text.clone());
            self.queued_this_turn = true;
        }
        self.pending = Some(Pending {
            tool,
            args: record.args.clone(),
            ask,
            denial: confirmation.utter_on_user_denial,
            skill: record.skill.clone(),
            target: record.target.clone(),
            step,
            turn: self.turn,
        });
        record.status = Status::Paused;
        record.model_sees = Some(
            object([("status", string("awaiting_confirmation")), ("message", string(message))])
                .to_python_json(),
        );
        record
    }

    fn resolve(&mut self, mut record: CallRecord, args: &JsonValue) -> CallRecord {
        let Some(pending) = self.pending.clone() else {
            return Run::refuse(record, "No tool confirmation is pending; nothing to resolve.");
        };
        if pending.turn == self.turn {
            return Run::refuse(
                record,
                "Cannot resolve tool confirmation in the same turn as the pause; ask the user (if needed) and wait for their reply.",
            );
        }
        let Some(JsonValue::Bool(confirmed)) = json::get(args, "confirmed").cloned() else {
            return Run::refuse(
                record,
                "resolve_tool_confirmation requires a boolean 'confirmed' argument.",
            );
        };
        let tool = pending.tool.clone();
        if !confirmed {
            self.pending = None;
            self.resolved_this_turn.push(tool.clone());
            record.status = Status::Declined;
            record.model_sees = Some(
                object([
                    ("status", string("declined")),
                    (
                        "message",
                        string(format!(
                            "User declined confirmation for tool '{tool}'; the call was cancelled."
                        )),
                    ),
                ])
                .to_python_json(),
            );
            if let Some(text) =
                pending.denial.as_deref().and_then(|name| self.response_text(&pending.skill, name))
                && !text.trim().is_empty()
            {
                record.utterances.push(text);
                self.queued_this_turn = true;
            }
            return record;
        }
        let Some(bound) = self.agent.bound(&pending.skill, &tool) else {
            return Run::refuse(
                record,
                &format!("Confirmed tool '{tool}' is no longer registered."),
            );
        };
        if let Err(refused) = validate_arguments(bound.schema(), &pending.args) {
            record.model_sees = Some(refused.to_model_json());
            record.is_error = true;
            return record;
        }
        self.pending = None;
        self.resolved_this_turn.push(tool.clone());
        let mut inner = self.record(&tool, Caller::Confirmed, pending.args.clone());
        inner.skill = pending.skill.clone();
        inner.target = pending.target.clone();
        let skill = self.agent.skill(&pending.skill);
        let gate = skill.and_then(|s| s.gate(&tool));
        let ran = self.invoke(inner, gate);
        // The tool's result becomes resolve_tool_confirmation's result.
        record.route = ran.route;
        record.status = ran.status;
        record.model_sees = ran.model_sees;
        record.is_error = ran.is_error;
        record.exchange = ran.exchange;
        record.client_calls = ran.client_calls;
        record.memory_uses = ran.memory_uses;
        record.utterances.extend(ran.utterances);
        record.log.push(format!("ran the confirmed call {tool} {}", pending.args.to_python_json()));
        record.log.extend(ran.log);
        record.unsupported = ran.unsupported;
        if let Some((block, step)) = pending.step {
            record.log.push(format!("advanced past step '{step}' of block '{block}'"));
        }
        record
    }

    /// Runs the tool: the MCP route when the active skill imports it, else the local
    /// function (§5.4).
    fn invoke(&mut self, mut record: CallRecord, gate: Option<&GatedTool>) -> CallRecord {
        let Some(bound) = self.agent.bound(&record.skill, &record.tool) else {
            let message = format!("Unknown tool '{}' \u{2014} no handler registered.", record.tool);
            return Run::refuse(record, &message);
        };
        record.status = Status::Ran;
        let payload: Option<JsonValue> = match bound {
            Bound::Mcp(remote) => {
                record.route = Some(Route::Mcp { server: remote.server.to_owned() });
                let Some(server) = self.agent.servers.get(remote.server).copied() else {
                    let message = format!("Tool '{}' encountered an error.", record.tool);
                    return Run::refuse(record, &message);
                };
                let ping = self.request("ping", JsonValue::Object(Vec::new()));
                let exchange = server.handle_owned(ping, &mut self.crm);
                self.exchanges.push(Arc::new(exchange));
                let call = self.request(
                    "tools/call",
                    object([("name", string(remote.tool)), ("arguments", record.args.clone())]),
                );
                let exchange = Arc::new(server.handle_owned(call, &mut self.crm));
                self.exchanges.push(exchange.clone());
                if let Some(call) = &exchange.call {
                    record.client_calls.clone_from(&call.client_calls);
                    record.unsupported.clone_from(&call.unsupported);
                }
                let payload =
                    mcp_payload(exchange.response.as_ref().and_then(|r| json::get(r, "result")));
                record.exchange = Some(exchange);
                match payload {
                    None => {
                        record.model_sees = Some(error_json(&format!(
                            "Tool '{}' encountered an error.",
                            record.tool
                        )));
                        record.is_error = true;
                        None
                    }
                    Some(payload) => {
                        record.model_sees = Some(payload.to_python_json());
                        Some(payload)
                    }
                }
            }
            Bound::Local(local) => {
                record.route =
                    Some(Route::Local { file: local.file.to_owned(), shared: local.shared });
                let Some(program) = self.agent.programs.get(local.file) else {
                    let message =
                        format!("Unknown tool '{}' \u{2014} no handler registered.", record.tool);
                    return Run::refuse(record, &message);
                };
                let kwargs: Vec<(String, PyValue)> = match &record.args {
                    JsonValue::Object(entries) => {
                        entries.iter().map(|(k, v)| (k.clone(), PyValue::from_json(v))).collect()
                    }
                    _ => Vec::new(),
                };
                let mut view = MemoryView {
                    memory: &mut self.memory,
                    agent: self.agent,
                    skill: record.skill.clone(),
                };
                let env = self.crm.data.network.env_pairs();
                let mut host = ToolHost::new(&mut self.crm, Some(&mut view));
                let mut process = Process::with_environment(program.clone(), env);
                let outcome = process.call(&local.function.name, &kwargs, true, &mut host);
                record.client_calls = host.calls;
                record.memory_uses = host.memory_uses;
                match outcome {
                    Outcome::Returned(PyValue::Object { class, fields })
                        if class == "ToolResult" =>
                    {
                        let payload = fields
                            .iter()
                            .find(|(k, _)| k == "llm_response")
                            .map_or(JsonValue::Null, |(_, v)| v.to_json());
                        record.model_sees = Some(payload.to_python_json());
                        Some(payload)
                    }
                    Outcome::Returned(other) => {
                        // `type(result).__name__`: a class of the project's says its name.
                        let type_name = other.type_name();
                        record.model_sees = Some(error_json(&format!(
                            "Tool '{}' must return a ToolResult, got {type_name}.",
                            record.tool
                        )));
                        record.is_error = true;
                        None
                    }
                    Outcome::Raised { message, .. } => {
                        record.model_sees = Some(error_json(&message));
                        record.is_error = true;
                        None
                    }
                    Outcome::Unsupported(diagnostic) => {
                        record.unsupported = Some(diagnostic.to_string());
                        record.model_sees = Some(error_json(&format!(
                            "Swap Lab cannot run this tool: {}",
                            diagnostic.message
                        )));
                        record.is_error = true;
                        None
                    }
                }
            }
        };
        if let Some(payload) = &payload {
            record.is_error = payload_is_error(payload);
        }
        if let Some(gate) = gate {
            let response = if record.is_error { &gate.on_failure } else { &gate.on_success };
            if let Some(text) =
                response.as_deref().and_then(|name| self.response_text(&record.skill, name))
            {
                record.utterances.push(text);
            }
        }
        record
    }

    /// Runs the `execute_tool` step `step` of `block` in the active skill (§2.8, §6.7).
    pub fn execute_step(&mut self, block: &str, step: &str) -> CallRecord {
        let Some((skill_id, _)) = self.active.clone() else {
            return Run::refuse(
                self.record("", Caller::Model, JsonValue::Null),
                "No skill is active.",
            );
        };
        let caller = Caller::Step { block: block.to_owned(), step: step.to_owned() };
        let skill = self.agent.skill(&skill_id);
        let found = skill.and_then(|s| s.blocks().find(|b| b.block_id == block).map(|b| (s, b)));
        let Some((skill, ordered)) = found else {
            let mut record = self.record("", caller, JsonValue::Null);
            record.status = Status::Yielded;
            record.log.push(format!("skill '{skill_id}' has no block '{block}'"));
            return record;
        };
        let Some(StepKind::Execute { execute_tool, parameters }) =
            ordered.steps.iter().find(|s| s.id == step).map(|s| &s.kind)
        else {
            let mut record = self.record("", caller, JsonValue::Null);
            record.status = Status::Yielded;
            record.log.push(format!("block '{block}' has no execute_tool step '{step}'"));
            return record;
        };
        let args = self.resolve_parameters(parameters);
        let mut record = self.record(execute_tool, caller, args.clone());
        record.target = Target::Block(block.to_owned());
        let Some(bound) = self.agent.bound(&skill_id, execute_tool) else {
            record.status = Status::Yielded;
            record.log.push(format!(
                "mantle.skill_executor.advance_steps.execute_tool_missing: no tool '{execute_tool}' is registered for skill '{skill_id}'; the step stays"
            ));
            return record;
        };
        let gate = self.agent.step_gate(skill, ordered, execute_tool);
        if let Some(gate) = gate
            && !self.gate_open(gate)
        {
            record.status = Status::Yielded;
            record
                .log
                .push("requires is closed: control yields to the model, no message".to_owned());
            return record;
        }
        if let Err(refused) = validate_arguments(bound.schema(), &args) {
            record.status = Status::Yielded;
            record.log.push(format!(
                "mantle.skill_executor.advance_steps.tool_arguments_invalid: {} (not shown to the model; the step yields and no tool event is recorded)",
                refused.to_model_json()
            ));
            return record;
        }
        if let Some(gate) =
            gate.filter(|g| g.requires_confirmation.as_ref().is_some_and(|c| c.enabled))
        {
            let mut paused = self.pause(record, gate, Some((block.to_owned(), step.to_owned())));
            if paused.status == Status::Paused {
                // The step's pause reaches the model only as the ask (or as a hand-back).
                paused.model_sees = None;
            }
            return paused;
        }
        let mut ran = self.invoke(record, gate);
        ran.model_sees = None;
        ran.log
            .push(format!("recorded as an execute-step tool event; advanced past step '{step}'"));
        ran
    }

    /// `resolve_parameter_map`: values that are exactly `session.<ns>.<entry>` become the
    /// memory value (`None` when unset); everything else passes through (§2.8).
    fn resolve_parameters(
        &self,
        parameters: &serde_json::Map<String, serde_json::Value>,
    ) -> JsonValue {
        let entries = parameters
            .iter()
            .map(|(name, raw)| {
                let value = json::parse(&raw.to_string()).unwrap_or(JsonValue::Null);
                let resolved = match &value {
                    JsonValue::Str(text) => match session_reference(text) {
                        Some(key) => self
                            .readable()
                            .contains(&key)
                            .then(|| self.memory.get(&key).cloned())
                            .flatten()
                            .unwrap_or(JsonValue::Null),
                        None => value.clone(),
                    },
                    _ => value.clone(),
                };
                (name.clone(), resolved)
            })
            .collect();
        JsonValue::Object(entries)
    }

    /// A response's first text, placeholders filled from memory.
    pub fn response_text(&self, skill: &str, name: &str) -> Option<String> {
        let report = self.agent.report;
        let response = report
            .entry(skill)
            .and_then(|e| e.responses.as_ref())
            .and_then(|r| r.get(name))
            .or_else(|| report.responses.as_ref().and_then(|r| r.get(name)))?;
        let text = response.first_text()?;
        Some(render(text, |placeholder| {
            let key = match placeholder {
                Placeholder::Entry { entry } => match self.memory_key_for(skill, entry) {
                    Some(key) => key,
                    None => return None,
                },
                Placeholder::Session { namespace, entry } => format!("{namespace}.{entry}"),
                Placeholder::Other { .. } => return None,
            };
            self.memory.get(&key).filter(|v| **v != JsonValue::Null).map(json::plain)
        }))
    }

    fn memory_key_for(&self, skill: &str, entry: &str) -> Option<String> {
        match lookup_get(
            entry,
            Some(skill),
            &self.agent.report.project_memory,
            &self.agent.skill_memories,
        ) {
            MemoryRead::Field { slot } => Some(slot.key()),
            MemoryRead::Verbatim { key } => Some(key),
            MemoryRead::Unreadable => None,
        }
    }
}

/// What the runtime makes of a `tools/call` result (§5.5): `None` for an error (no
/// result, or `isError`), else `structuredContent` when present, else the content blocks
/// as `model_dump()` gives them.
pub fn mcp_payload(result: Option<&JsonValue>) -> Option<JsonValue> {
    let result = result?;
    if json::get(result, "isError") == Some(&JsonValue::Bool(true)) {
        return None;
    }
    Some(match json::get(result, "structuredContent") {
        Some(structured) if *structured != JsonValue::Null => structured.clone(),
        _ => JsonValue::Array(
            match json::get(result, "content") {
                Some(JsonValue::Array(blocks)) => blocks.clone(),
                _ => Vec::new(),
            }
            .into_iter()
            .map(content_model_dump)
            .collect(),
        ),
    })
}

/// The text the model receives for a `tools/call` result of `tool`.
pub fn mcp_model_view(tool: &str, result: Option<&JsonValue>) -> String {
    match mcp_payload(result) {
        Some(payload) => payload.to_python_json(),
        None => error_json(&format!("Tool '{tool}' encountered an error.")),
    }
}

/// `session.<ns>.<entry>` exactly (after strip), as `_try_parse_session_reference` accepts.
pub fn session_reference(text: &str) -> Option<String> {
    let rest = text.trim().strip_prefix("session.")?;
    let (namespace, entry) = rest.split_once('.')?;
    let word = |s: &str| {
        !s.is_empty()
            && !s.starts_with(|c: char| c.is_ascii_digit())
            && s.chars().all(|c| c.is_alphanumeric() || c == '_')
    };
    (word(namespace) && word(entry)).then(|| format!("{namespace}.{entry}"))
}

/// A content block as `content.model_dump()` gives it (`annotations` and `meta` as null).
fn content_model_dump(block: JsonValue) -> JsonValue {
    let mut entries = match block {
        JsonValue::Object(entries) => entries,
        other => return other,
    };
    for key in ["annotations", "meta"] {
        if !entries.iter().any(|(k, _)| k == key) {
            entries.push((key.to_owned(), JsonValue::Null));
        }
    }
    JsonValue::Object(entries)
}

fn yaml_json(value: &crate::yaml::YamlValue) -> JsonValue {
    json::parse(&crate::yaml::to_json(value).to_string()).unwrap_or(JsonValue::Null)
}

/// `ToolContext.memory` for a local tool of `skill` (§7.4).
struct MemoryView<'m, 'r> {
    memory: &'m mut BTreeMap<String, JsonValue>,
    agent: &'m Agent<'r>,
    skill: String,
}

impl ToolMemory for MemoryView<'_, '_> {
    fn get(&mut self, path: &str, default: PyValue) -> PyValue {
        let report = self.agent.report;
        let key = match lookup_get(
            path,
            Some(&self.skill),
            &report.project_memory,
            &self.agent.skill_memories,
        ) {
            MemoryRead::Field { slot } => slot.key(),
            MemoryRead::Verbatim { key } => key,
            MemoryRead::Unreadable => return default,
        };
        match self.memory.get(&key) {
            Some(JsonValue::Null) | None => default,
            Some(value) => PyValue::from_json(value),
        }
    }

    fn set(&mut self, path: &str, value: &JsonValue) -> Result<(), String> {
        let report = self.agent.report;
        let slot = lookup_set(
            path,
            Some(&self.skill),
            &report.project_memory,
            &self.agent.skill_memories,
        )?;
        let key = slot.key();
        if let MemorySlot::Project { entry } = &slot
            && self.memory.get(&key).is_some_and(|v| *v != JsonValue::Null)
        {
            return Err(format!(
                "Project memory field '{entry}' is already set and cannot be overwritten."
            ));
        }
        self.memory.insert(key, value.clone());
        Ok(())
    }
}
