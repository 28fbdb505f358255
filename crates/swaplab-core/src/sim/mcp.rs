//! The MCP server, built from the scanned server file and run in memory: JSON-RPC 2.0
//! `initialize`, `ping`, `tools/list` and `tools/call` with the MCP spec's message shapes,
//! answered the way the MCP Python SDK's FastMCP answers them.
//!
//! Each tool's behaviour is its own body, run by the Python interpreter against the mock
//! CRM. Results carry `content` blocks, plus `structuredContent` only when the tool
//! publishes an `outputSchema` (FastMCP's `convert_result`). A tool that raises becomes an
//! `isError` result whose text is `Error executing tool <name>: <exception>`; an unknown
//! method is a JSON-RPC error. Argument checking follows pydantic's lax mode for the
//! parameter types the scanner knows; its messages are shortened versions of pydantic's
//! (ours, never shown to the model: Rasa sanitises every failure, §5.5).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;

use super::crm::Crm;
use super::host::{ClientCall, ToolHost};
use super::json::{self, JsonValue, object, string};
use crate::python::{
    McpServerModule, McpTool, Outcome, Process, Program, PyValue, Schema, compile_module,
};
use crate::rasa::arguments::offered_mcp_schema;

/// The MCP protocol revisions the server accepts; the last is what it offers by default.
pub const PROTOCOL_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// `serverInfo.version`: FastMCP reports the SDK's version; the reference ran mcp 1.30.
pub const SDK_VERSION: &str = "1.30.0";

/// JSON-RPC error codes used.
pub mod codes {
    /// Not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// Not a request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Bad `params`.
    pub const INVALID_PARAMS: i64 = -32602;
    /// The server failed.
    pub const INTERNAL_ERROR: i64 = -32603;
}

/// The server in memory.
#[derive(Debug)]
pub struct McpServer {
    /// The server file's path.
    pub file: String,
    /// What the scanner read (shared with the workspace report).
    pub module: Arc<McpServerModule>,
    program: Arc<Program>,
    /// Each published name's place in `module.tools` (the first, as FastMCP keeps it).
    index: BTreeMap<String, usize>,
    /// Each tool's schema as offered to the model (§5.2), made when first asked for:
    /// every agent start binds every imported tool, and a schema's JSON is not free.
    offered: Vec<OnceLock<JsonValue>>,
    /// The `tools/list` result, made once: every conversation and every attack probe
    /// starts with that request, and building it means every tool's schema as JSON.
    listed: OnceLock<JsonValue>,
    /// The opening handshake's exchanges by the first request id, made once each: every
    /// run opens with the same three messages, and the `tools/list` answer is large.
    handshakes: Mutex<BTreeMap<i64, Arc<[Arc<Exchange>]>>>,
}

/// What one `tools/call` did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolCall {
    /// The `CallToolResult` as sent.
    pub result: JsonValue,
    /// Whether `isError` is true.
    pub is_error: bool,
    /// The CRM client calls the body made.
    pub client_calls: Vec<ClientCall>,
    /// Set when the body used Python outside the subset Swap Lab runs: the call failed
    /// here, which does not say what the real server would do.
    pub unsupported: Option<String>,
}

/// A JSON-RPC exchange.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Exchange {
    /// The request as received.
    pub request: JsonValue,
    /// The response (none for a notification).
    pub response: Option<JsonValue>,
    /// For `tools/call`, what the tool did.
    pub call: Option<ToolCall>,
}

/// A request's successful answer: its id, the result, and the tool call that made it.
struct Answered {
    id: JsonValue,
    result: JsonValue,
    call: Option<ToolCall>,
}

/// A JSON-RPC request as the client sends it; no id makes a notification, and `Null`
/// params are left out.
pub fn rpc_request(id: Option<i64>, method: &str, params: JsonValue) -> JsonValue {
    let mut entries = vec![("jsonrpc".to_owned(), string("2.0"))];
    if let Some(id) = id {
        entries.push(("id".to_owned(), JsonValue::Int(id)));
    }
    entries.push(("method".to_owned(), string(method)));
    if params != JsonValue::Null {
        entries.push(("params".to_owned(), params));
    }
    JsonValue::Object(entries)
}

fn schema_json(schema: &Schema) -> JsonValue {
    json::parse(&schema.to_json()).unwrap_or(JsonValue::Object(Vec::new()))
}

fn error_response(id: JsonValue, code: i64, message: &str) -> JsonValue {
    object([
        ("jsonrpc", string("2.0")),
        ("id", id),
        ("error", object([("code", JsonValue::Int(code)), ("message", string(message))])),
    ])
}

fn result_response(id: JsonValue, result: JsonValue) -> JsonValue {
    object([("jsonrpc", string("2.0")), ("id", id), ("result", result)])
}

impl McpServer {
    /// Builds the server from its file and the scanner's reading of it.
    pub fn new(file: &str, text: &str, module: McpServerModule) -> McpServer {
        McpServer::with_program(file, Arc::new(module), Arc::new(compile_module(file, text)))
    }

    /// [`McpServer::new`] with the source already scanned and compiled.
    pub fn with_program(
        file: &str,
        module: Arc<McpServerModule>,
        program: Arc<Program>,
    ) -> McpServer {
        let mut index = BTreeMap::new();
        for (at, tool) in module.tools.iter().enumerate() {
            index.entry(tool.name.clone()).or_insert(at);
        }
        let offered = module.tools.iter().map(|_| OnceLock::new()).collect();
        McpServer {
            file: file.to_owned(),
            module,
            program,
            index,
            offered,
            listed: OnceLock::new(),
            handshakes: Mutex::new(BTreeMap::new()),
        }
    }

    /// The schema the model is offered for the tool published under `name` (§5.2).
    pub fn offered_schema(&self, name: &str) -> Option<&JsonValue> {
        let at = *self.index.get(name)?;
        let tool = &self.module.tools[at];
        Some(self.offered[at].get_or_init(|| offered_mcp_schema(&schema_json(&tool.input_schema))))
    }

    /// The interpreter's reading of the server file, with the modules it imports.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The name FastMCP was given (`FastMCP("hubspot_crm")`), else `FastMCP`.
    pub fn name(&self) -> &str {
        self.module.server_name.as_deref().unwrap_or("FastMCP")
    }

    /// The tool published under `name`.
    pub fn tool(&self, name: &str) -> Option<&McpTool> {
        self.module.tools.get(*self.index.get(name)?)
    }

    /// One `tools/list` entry.
    pub fn descriptor(tool: &McpTool) -> JsonValue {
        let mut entries = vec![("name".to_owned(), string(&tool.name))];
        if let Some(title) = &tool.title {
            entries.push(("title".into(), string(title)));
        }
        entries.push(("description".into(), string(&tool.description)));
        entries.push(("inputSchema".into(), schema_json(&tool.input_schema)));
        if let Some(output) = &tool.output_schema {
            entries.push(("outputSchema".into(), schema_json(output)));
        }
        JsonValue::Object(entries)
    }

    /// The `tools/list` result: every tool, in registration order (no pagination).
    pub fn tools_list(&self) -> JsonValue {
        self.listed
            .get_or_init(|| {
                object([(
                    "tools",
                    JsonValue::Array(self.module.tools.iter().map(McpServer::descriptor).collect()),
                )])
            })
            .clone()
    }

    /// The `initialize` result for a client asking for `requested` (echoed when supported).
    pub fn initialize_result(&self, requested: Option<&str>) -> JsonValue {
        let version = requested
            .filter(|v| PROTOCOL_VERSIONS.contains(v))
            .unwrap_or(PROTOCOL_VERSIONS[PROTOCOL_VERSIONS.len() - 1]);
        let no = || JsonValue::Bool(false);
        object([
            ("protocolVersion", string(version)),
            (
                "capabilities",
                object([
                    ("experimental", JsonValue::Object(Vec::new())),
                    ("prompts", object([("listChanged", no())])),
                    ("resources", object([("subscribe", no()), ("listChanged", no())])),
                    ("tools", object([("listChanged", no())])),
                ]),
            ),
            (
                "serverInfo",
                object([("name", string(self.name())), ("version", string(SDK_VERSION))]),
            ),
        ])
    }

    /// Answers one JSON-RPC message.
    pub fn handle(&self, request: &JsonValue, crm: &mut Crm) -> Exchange {
        self.answer(request.clone(), Some(crm))
    }

    /// [`McpServer::handle`] for a request the caller no longer needs: the exchange keeps
    /// it without a copy.
    pub fn handle_owned(&self, request: JsonValue, crm: &mut Crm) -> Exchange {
        self.answer(request, Some(crm))
    }

    /// A client's opening: `initialize` with id `first_id`, `notifications/initialized`,
    /// then `tools/list` with id `first_id + 1`. The same requests get the same answers
    /// and touch no record, so they are made once per first id and shared.
    pub fn handshake(&self, first_id: i64) -> Arc<[Arc<Exchange>]> {
        let make = || -> Arc<[Arc<Exchange>]> {
            let requests = [
                rpc_request(
                    Some(first_id),
                    "initialize",
                    object([
                        ("protocolVersion", string(PROTOCOL_VERSIONS[3])),
                        ("capabilities", JsonValue::Object(Vec::new())),
                        (
                            "clientInfo",
                            object([("name", string("mcp")), ("version", string("0.1.0"))]),
                        ),
                    ]),
                ),
                rpc_request(None, "notifications/initialized", JsonValue::Null),
                rpc_request(Some(first_id + 1), "tools/list", JsonValue::Object(Vec::new())),
            ];
            requests.into_iter().map(|r| Arc::new(self.answer(r, None))).collect()
        };
        // A poisoned lock only means another run panicked mid-insert: make it afresh.
        let Ok(mut made) = self.handshakes.lock() else { return make() };
        made.entry(first_id).or_insert_with(make).clone()
    }

    /// [`McpServer::handle`], with no CRM for requests that need none (a `tools/call`
    /// without one is refused as an internal error).
    fn answer(&self, request: JsonValue, crm: Option<&mut Crm>) -> Exchange {
        let no_params = JsonValue::Object(Vec::new());
        match self.respond(&request, &no_params, crm) {
            Ok(Answered { id, result, call }) => {
                Exchange { request, response: Some(result_response(id, result)), call }
            }
            Err(response) => Exchange { request, response, call: None },
        }
    }

    /// The answer to `request`, or (as `Err`) the error response: none for a
    /// notification.
    fn respond(
        &self,
        request: &JsonValue,
        no_params: &JsonValue,
        crm: Option<&mut Crm>,
    ) -> Result<Answered, Option<JsonValue>> {
        let JsonValue::Object(_) = request else {
            return Err(Some(error_response(
                JsonValue::Null,
                codes::INVALID_REQUEST,
                "Invalid Request",
            )));
        };
        let id = json::get(request, "id").cloned();
        let method = json::get(request, "method").and_then(|m| match m {
            JsonValue::Str(s) => Some(s.as_str()),
            _ => None,
        });
        let version_ok = json::get(request, "jsonrpc") == Some(&string("2.0"));
        let (Some(method), true) = (method, version_ok) else {
            return Err(Some(error_response(
                id.unwrap_or(JsonValue::Null),
                codes::INVALID_REQUEST,
                "Invalid Request",
            )));
        };
        let Some(id) = id else {
            // A notification (`notifications/initialized`, …): no answer.
            return Err(None);
        };
        let params = json::get(request, "params").unwrap_or(no_params);
        match method {
            "initialize" => {
                let requested = json::get(params, "protocolVersion").and_then(|v| match v {
                    JsonValue::Str(s) => Some(s.as_str()),
                    _ => None,
                });
                Ok(Answered { id, result: self.initialize_result(requested), call: None })
            }
            "ping" => Ok(Answered { id, result: JsonValue::Object(Vec::new()), call: None }),
            "tools/list" => Ok(Answered { id, result: self.tools_list(), call: None }),
            "tools/call" => {
                let Some(JsonValue::Str(name)) = json::get(params, "name") else {
                    return Err(Some(error_response(
                        id,
                        codes::INVALID_PARAMS,
                        "Invalid request parameters",
                    )));
                };
                let arguments = json::get(params, "arguments").unwrap_or(no_params);
                let Some(crm) = crm else {
                    return Err(Some(error_response(id, codes::INTERNAL_ERROR, "Internal error")));
                };
                let call = self.call_tool(name, arguments, crm);
                Ok(Answered { id, result: call.result.clone(), call: Some(call) })
            }
            _ => Err(Some(error_response(id, codes::METHOD_NOT_FOUND, "Method not found"))),
        }
    }

    /// Why the scanner's reading of a published tool's body may leave something out
    /// ([`Program::unfollowed`]); `None` when it is read whole or there is no such tool.
    pub fn unfollowed(&self, name: &str) -> Option<String> {
        self.program.unfollowed(&self.tool(name)?.function)
    }

    /// Runs one tool as FastMCP does: validate and coerce the arguments, run the body,
    /// convert the return value.
    pub fn call_tool(&self, name: &str, arguments: &JsonValue, crm: &mut Crm) -> ToolCall {
        let Some(tool) = self.tool(name) else {
            return error_call(format!("Unknown tool: {name}"), Vec::new(), None);
        };
        let kwargs = match coerce_arguments(tool, arguments) {
            Ok(kwargs) => kwargs,
            Err(problems) => {
                let text = format!(
                    "Error executing tool {name}: {} validation error{} for {name}Arguments\n{}",
                    problems.len(),
                    if problems.len() == 1 { "" } else { "s" },
                    problems.join("\n")
                );
                return error_call(text, Vec::new(), None);
            }
        };
        let env = crm.data.network.env_pairs();
        let mut host = ToolHost::new(crm, None);
        let mut process = Process::with_environment(self.program.clone(), env);
        let outcome = process.call(&tool.function, &kwargs, false, &mut host);
        let calls = host.calls;
        match outcome {
            Outcome::Returned(value) => {
                let (content, structured) = convert_result(tool, &value);
                let mut entries = vec![("content".to_owned(), JsonValue::Array(content))];
                if let Some(structured) = structured {
                    entries.push(("structuredContent".into(), structured));
                }
                entries.push(("isError".into(), JsonValue::Bool(false)));
                ToolCall {
                    result: JsonValue::Object(entries),
                    is_error: false,
                    client_calls: calls,
                    unsupported: None,
                }
            }
            Outcome::Raised { message, .. } => {
                error_call(format!("Error executing tool {name}: {message}"), calls, None)
            }
            Outcome::Unsupported(diagnostic) => {
                let note = diagnostic.to_string();
                error_call(
                    format!("Error executing tool {name}: {}", diagnostic.message),
                    calls,
                    Some(note),
                )
            }
        }
    }
}

fn error_call(
    text: String,
    client_calls: Vec<ClientCall>,
    unsupported: Option<String>,
) -> ToolCall {
    let result = object([
        (
            "content",
            JsonValue::Array(vec![object([("type", string("text")), ("text", string(text))])]),
        ),
        ("isError", JsonValue::Bool(true)),
    ]);
    ToolCall { result, is_error: true, client_calls, unsupported }
}

/// pydantic's lax mode for the scanned parameter types: extra keys are dropped, missing
/// required ones and values of the wrong type are reported.
fn coerce_arguments(
    tool: &McpTool,
    arguments: &JsonValue,
) -> Result<Vec<(String, PyValue)>, Vec<String>> {
    let JsonValue::Object(given) = arguments else {
        return Err(vec![pydantic_error(
            "arguments",
            "Input should be a valid dictionary",
            "dict_type",
            arguments,
        )]);
    };
    let schema = &tool.input_schema;
    let mut kwargs = Vec::new();
    let mut problems = Vec::new();
    for (name, property) in schema.properties() {
        let Some((_, value)) = given.iter().find(|(k, _)| k == name) else {
            if schema.required_names().contains(name) {
                problems.push(pydantic_error(name, "Field required", "missing", arguments));
            }
            continue;
        };
        match lax(property, value) {
            Some(value) => kwargs.push((name.clone(), PyValue::from_json(&value))),
            None => {
                let wanted = property.json_types().first().copied().unwrap_or("value");
                let message = format!("Input should be a valid {}", pydantic_word(wanted));
                let kind = format!("{}_type", pydantic_type(wanted));
                problems.push(pydantic_error(name, &message, &kind, value));
            }
        }
    }
    if problems.is_empty() { Ok(kwargs) } else { Err(problems) }
}

/// Where pydantic's messages send the reader: the error's page for pydantic 2.14, the
/// version `mcp` 1.30 installs (recorded with `fixtures/realistic/generate.py`).
const PYDANTIC_DOCS: &str = "https://errors.pydantic.dev/2.14/v/";

/// One line of a pydantic v2 `ValidationError`, as FastMCP puts it in the tool's error:
/// the field, the message, the error type and the input (`repr` and type name), then
/// the documentation link.
fn pydantic_error(field: &str, message: &str, kind: &str, input: &JsonValue) -> String {
    let value = PyValue::from_json(input);
    let type_name = match input {
        JsonValue::Null => "NoneType",
        JsonValue::Bool(_) => "bool",
        JsonValue::Int(_) => "int",
        JsonValue::Float(_) => "float",
        JsonValue::Str(_) => "str",
        JsonValue::Array(_) => "list",
        JsonValue::Object(_) => "dict",
    };
    format!(
        "{field}\n  {message} [type={kind}, input_value={}, input_type={type_name}]\n    \
         For further information visit {PYDANTIC_DOCS}{kind}",
        value.repr()
    )
}

/// pydantic's name for the type behind a JSON type (`string_type`, `int_type`…).
fn pydantic_type(json_type: &str) -> &str {
    match json_type {
        "string" => "string",
        "integer" => "int",
        "number" => "float",
        "boolean" => "bool",
        "array" => "list",
        "object" => "dict",
        other => other,
    }
}

fn pydantic_word(json_type: &str) -> &str {
    match json_type {
        "string" => "string",
        "integer" => "integer",
        "number" => "number",
        "boolean" => "boolean",
        "array" => "list",
        "object" => "dictionary",
        other => other,
    }
}

/// The value pydantic's lax mode accepts for this property, converted; `None` if refused.
fn lax(property: &Schema, value: &JsonValue) -> Option<JsonValue> {
    let types = property.json_types();
    if types.is_empty() {
        return Some(value.clone());
    }
    types.iter().find_map(|t| match (*t, value) {
        ("string", JsonValue::Str(_))
        | ("integer", JsonValue::Int(_))
        | ("number", JsonValue::Int(_) | JsonValue::Float(_))
        | ("boolean", JsonValue::Bool(_))
        | ("array", JsonValue::Array(_))
        | ("object", JsonValue::Object(_))
        | ("null", JsonValue::Null) => Some(value.clone()),
        ("integer", JsonValue::Float(f)) if f.fract() == 0.0 && f.is_finite() => {
            Some(JsonValue::Int(*f as i64))
        }
        ("integer", JsonValue::Str(s)) => s.trim().parse::<i64>().ok().map(JsonValue::Int),
        ("number", JsonValue::Str(s)) => s.trim().parse::<f64>().ok().map(JsonValue::Float),
        ("boolean", JsonValue::Int(n)) if *n == 0 || *n == 1 => Some(JsonValue::Bool(*n == 1)),
        ("boolean", JsonValue::Str(s)) => match s.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" | "t" | "y" => Some(JsonValue::Bool(true)),
            "false" | "0" | "no" | "off" | "f" | "n" => Some(JsonValue::Bool(false)),
            _ => None,
        },
        _ => None,
    })
}

/// FastMCP's `convert_result`: unstructured content always; structured content when the
/// tool publishes an output schema (wrapped as `{"result": …}` for non-object returns).
fn convert_result(tool: &McpTool, value: &PyValue) -> (Vec<JsonValue>, Option<JsonValue>) {
    let content = to_content(value);
    let Some(output) = &tool.output_schema else { return (content, None) };
    let title = output.title.as_deref().unwrap_or_default();
    let wrapped = title.ends_with("Output")
        && !title.ends_with("DictOutput")
        && output.properties().len() == 1
        && output.property("result").is_some();
    let json = value.to_json();
    let structured = if wrapped { object([("result", json)]) } else { json };
    (content, Some(structured))
}

/// `_convert_to_content`: `None` → no blocks; a list or tuple → one block per item; a
/// string → itself; anything else → `pydantic_core.to_json(…, indent=2)`.
fn to_content(value: &PyValue) -> Vec<JsonValue> {
    match value {
        PyValue::None => Vec::new(),
        PyValue::List(items) | PyValue::Tuple(items) => items.iter().flat_map(to_content).collect(),
        PyValue::Str(text) => vec![text_block(text.clone())],
        other => vec![text_block(indented_json(&other.to_json(), 0))],
    }
}

fn text_block(text: String) -> JsonValue {
    object([("type", string("text")), ("text", string(text))])
}

/// JSON as `pydantic_core.to_json(indent=2)` writes it: two-space indent, `": "`, UTF-8
/// kept (not escaped), empty containers as `[]`/`{}`.
pub fn indented_json(value: &JsonValue, depth: usize) -> String {
    let mut out = String::new();
    write_indented(&mut out, value, depth);
    out
}

/// [`indented_json`] into one buffer: each result a tool returns is printed this way,
/// so it builds no string per value.
fn write_indented(out: &mut String, value: &JsonValue, depth: usize) {
    let pad = |out: &mut String, d: usize| {
        for _ in 0..d {
            out.push_str("  ");
        }
    };
    match value {
        JsonValue::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (at, item) in items.iter().enumerate() {
                if at > 0 {
                    out.push_str(",\n");
                }
                pad(out, depth + 1);
                write_indented(out, item, depth + 1);
            }
            out.push('\n');
            pad(out, depth);
            out.push(']');
        }
        JsonValue::Object(entries) if !entries.is_empty() => {
            out.push_str("{\n");
            for (at, (key, item)) in entries.iter().enumerate() {
                if at > 0 {
                    out.push_str(",\n");
                }
                pad(out, depth + 1);
                out.push_str(&serde_json::to_string(key).unwrap_or_default());
                out.push_str(": ");
                write_indented(out, item, depth + 1);
            }
            out.push('\n');
            pad(out, depth);
            out.push('}');
        }
        JsonValue::Float(f) if f.is_finite() => out.push_str(&crate::python::float_repr(*f)),
        JsonValue::Float(_) => out.push_str("null"),
        other => out.push_str(&serde_json::to_string(other).unwrap_or_default()),
    }
}
