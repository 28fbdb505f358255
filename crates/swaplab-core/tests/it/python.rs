//! The Python scanners: the tutorial's Rasa tool modules and FastMCP server read through
//! the public API, the `tools/list` schemas FastMCP would publish, diagnostics at exact
//! positions, and robustness on damaged and hostile input.

use swaplab_core::diagnostic::{Diagnostic, LineIndex, Severity};
use swaplab_core::python::{
    ArgOrigin, ArgSlot, CrmCall, JsonValue, McpServerModule, MemoryOp, Schema, TokenKind,
    ToolFunction, ToolModule, scan_mcp_server, scan_tool_module, tokenize,
};

const CRM_TOOL: &str = include_str!("../../../../fixtures/hubspot-client/tools/crm.py");
const CHECK_TICKETS: &str =
    include_str!("../../../../fixtures/hubspot-client/skills/check_tickets/tools.py");
const LOG_INTERACTION: &str =
    include_str!("../../../../fixtures/hubspot-client/skills/log_interaction/tools.py");
const SERVER: &str = include_str!("../../../../fixtures/hubspot-client/scripts/mcp_crm_server.py");

/// Scans a tool module that must read cleanly and hold exactly one tool.
fn only_tool(path: &str, text: &str) -> ToolFunction {
    let module = scan_tool_module(path, text);
    assert_eq!(module.diagnostics, [], "{path}");
    assert_eq!(module.tools.len(), 1, "{path}");
    module.tools.into_iter().next().expect("one tool")
}

/// A call as `function(slot=text<origin>, …)`, compact enough to compare as data.
fn call_summary(call: &CrmCall) -> String {
    let args: Vec<String> = call
        .args
        .iter()
        .map(|arg| {
            let slot = match &arg.slot {
                ArgSlot::Position(i) => format!("#{i}"),
                ArgSlot::Keyword(k) => k.clone(),
                ArgSlot::Unpacked => "*".to_owned(),
            };
            let origin = match &arg.origin {
                ArgOrigin::Parameter => "parameter".to_owned(),
                ArgOrigin::Memory { path } => format!("memory {}", path.as_deref().unwrap_or("?")),
                ArgOrigin::Local => "local".to_owned(),
                ArgOrigin::Other => "other".to_owned(),
                ArgOrigin::Expression => "expression".to_owned(),
            };
            format!("{slot}={}<{origin}>", arg.text)
        })
        .collect();
    format!("{}.{}({})", call.client, call.function, args.join(", "))
}

fn result_summary(tool_keys: &[swaplab_core::python::ResultKey]) -> Vec<String> {
    tool_keys
        .iter()
        .map(|k| match &k.value {
            Some(value) => format!("{}={}", k.key, value.to_python_json()),
            None => format!("{}~{}", k.key, k.value_text),
        })
        .collect()
}

fn at(d: &Diagnostic) -> String {
    format!("{}:{} {}", d.span.start.line, d.span.start.column, d.code)
}

#[test]
fn shared_tool_identifies_the_caller_and_writes_project_memory() {
    let tool = only_tool("tools/crm.py", CRM_TOOL);
    assert_eq!(tool.name, "find_contact_by_email");
    assert_eq!((tool.name_span.start.line, tool.name_span.start.column), (13, 11));
    assert_eq!((tool.name_span.end.line, tool.name_span.end.column), (13, 32));
    assert!(tool.is_async);
    assert_eq!(
        tool.description.as_deref(),
        Some("Find a customer in the CRM by the email address on their account.")
    );
    let params: Vec<_> = tool
        .params
        .iter()
        .map(|p| (p.name.as_str(), p.annotation.as_deref(), p.default.as_deref(), p.injected))
        .collect();
    assert_eq!(
        params,
        [("email", Some("str"), None, false), ("context", Some("ToolContext"), Some("None"), true)]
    );
    assert_eq!(
        tool.schema.to_python_json(),
        r#"{"additionalProperties": false, "properties": {"email": {"type": "string"}}, "required": ["email"], "type": "object"}"#
    );
    assert_eq!(tool.required_args(), ["email"]);
    let writes: Vec<_> =
        tool.memory.iter().map(|m| (m.op, m.path.as_deref(), m.value.as_deref())).collect();
    assert_eq!(
        writes,
        [
            (MemoryOp::Set, Some("project.contact_id"), Some(r#"contact["id"]"#)),
            (MemoryOp::Set, Some("project.contact_name"), Some("name")),
            (MemoryOp::Set, Some("project.company"), Some(r#"contact["company"]"#)),
        ]
    );
    let first = &tool.memory[0].span;
    assert_eq!((first.start.line, first.start.column, first.end.column), (21, 9, 64));
    let calls: Vec<String> = tool.crm_calls.iter().map(call_summary).collect();
    assert_eq!(calls, ["crm.search_contact_by_email(#0=email<parameter>)"]);
    assert!(tool.crm_calls[0].awaited);
    assert_eq!(
        result_summary(&tool.result_keys),
        [
            "ok=false",
            r#"error="contact_not_found""#,
            "ok=true",
            r#"contact_id~contact["id"]"#,
            "name~name",
            r#"company~contact["company"]"#,
        ]
    );
}

#[test]
fn local_tools_read_the_customer_from_memory_not_from_the_model() {
    let tickets = only_tool("skills/check_tickets/tools.py", CHECK_TICKETS);
    assert_eq!(tickets.name, "list_open_tickets");
    assert_eq!(tickets.params.len(), 1);
    assert!(tickets.params[0].injected);
    assert_eq!(
        tickets.schema.to_python_json(),
        r#"{"additionalProperties": false, "properties": {}, "required": [], "type": "object"}"#
    );
    let reads: Vec<_> = tickets.memory.iter().map(|m| (m.op, m.path.as_deref())).collect();
    assert_eq!(reads, [(MemoryOp::Get, Some("project.contact_id"))]);
    let calls: Vec<String> = tickets.crm_calls.iter().map(call_summary).collect();
    assert_eq!(
        calls,
        [
            "crm.list_ticket_ids(#0=contact_id<memory project.contact_id>)",
            "crm.get_ticket(#0=ticket_id<local>)",
        ]
    );
    assert_eq!(
        result_summary(&tickets.result_keys),
        [
            "ok=false",
            r#"error="not_identified""#,
            "ok=true",
            "count~len(tickets)",
            "tickets~tickets"
        ]
    );

    let note = only_tool("skills/log_interaction/tools.py", LOG_INTERACTION);
    assert_eq!(note.name, "add_timeline_note");
    assert_eq!(note.required_args(), ["summary"]);
    assert_eq!(
        note.schema.to_python_json(),
        r#"{"additionalProperties": false, "properties": {"summary": {"type": "string"}}, "required": ["summary"], "type": "object"}"#
    );
    let calls: Vec<String> = note.crm_calls.iter().map(call_summary).collect();
    assert_eq!(
        calls,
        [
            "crm.create_note(contact_id=contact_id<memory project.contact_id>, body=summary<parameter>)"
        ]
    );
    assert_eq!(
        result_summary(&note.result_keys),
        ["ok=false", r#"error="not_identified""#, "ok=true", "note_id~note_id"]
    );
}

fn server() -> McpServerModule {
    let module = scan_mcp_server("server/scripts/mcp_crm_server.py", SERVER);
    assert_eq!(module.diagnostics, []);
    module
}

const CRM_RESULT_SCHEMA: &str = concat!(
    r#"{"additionalProperties": true, "description": "Every tool returns this model, so each one "#,
    r#"publishes an output schema and\nthe result reaches the agent as structured content with "#,
    r#"`ok` and `error`.", "properties": {"ok": {"title": "Ok", "type": "boolean"}}, "#,
    r#""required": ["ok"], "title": "CrmResult", "type": "object"}"#
);

#[test]
fn server_publishes_three_tools_with_pydantic_schemas() {
    let module = server();
    assert_eq!(module.server_name.as_deref(), Some("hubspot_crm"));
    assert_eq!(module.instance.as_deref(), Some("mcp"));
    assert_eq!(module.host.as_deref(), Some("127.0.0.1"));
    assert_eq!(module.port, Some(8931));
    let names: Vec<&str> = module.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["find_contact_by_email", "list_open_tickets", "add_timeline_note"]);
    let required: Vec<&[String]> = module.tools.iter().map(|t| t.required_args()).collect();
    assert_eq!(required, [&["email"][..], &["contact_id"][..], &["contact_id", "summary"][..]]);
    let inputs: Vec<String> =
        module.tools.iter().map(|t| t.input_schema().to_python_json()).collect();
    assert_eq!(
        inputs,
        [
            r#"{"properties": {"email": {"title": "Email", "type": "string"}}, "required": ["email"], "title": "find_contact_by_emailArguments", "type": "object"}"#,
            r#"{"properties": {"contact_id": {"title": "Contact Id", "type": "string"}}, "required": ["contact_id"], "title": "list_open_ticketsArguments", "type": "object"}"#,
            r#"{"properties": {"contact_id": {"title": "Contact Id", "type": "string"}, "summary": {"title": "Summary", "type": "string"}}, "required": ["contact_id", "summary"], "title": "add_timeline_noteArguments", "type": "object"}"#,
        ]
    );
    for tool in &module.tools {
        assert_eq!(tool.returns.as_deref(), Some("CrmResult"));
        let output = tool.output_schema().map(Schema::to_python_json);
        assert_eq!(output.as_deref(), Some(CRM_RESULT_SCHEMA), "{}", tool.name);
    }
    // The wire form is compact JSON with the same key order.
    assert_eq!(
        module.tools[1].input_schema.to_json(),
        r#"{"properties":{"contact_id":{"title":"Contact Id","type":"string"}},"required":["contact_id"],"title":"list_open_ticketsArguments","type":"object"}"#
    );
    let types = module.tools[2].input_schema.property_types();
    assert_eq!(types, [("contact_id", vec!["string"]), ("summary", vec!["string"])]);
    assert_eq!(
        module.tools[0].description,
        "Find a customer in the CRM by the email address on their account."
    );
}

#[test]
fn server_tools_take_the_customer_as_an_argument() {
    let module = server();
    let calls: Vec<Vec<String>> =
        module.tools.iter().map(|t| t.crm_calls.iter().map(call_summary).collect()).collect();
    assert_eq!(
        calls,
        [
            vec!["crm.search_contact_by_email(#0=email<parameter>)".to_owned()],
            vec![
                "crm.list_ticket_ids(#0=contact_id<parameter>)".to_owned(),
                "crm.get_ticket(#0=ticket_id<local>)".to_owned(),
            ],
            vec![
                "crm.create_note(contact_id=contact_id<parameter>, body=summary<parameter>)"
                    .to_owned(),
            ],
        ]
    );
    assert_eq!(
        result_summary(&module.tools[0].result_keys),
        [
            "ok=false",
            r#"error="contact_not_found""#,
            "ok=true",
            r#"contact_id~contact["id"]"#,
            r#"name~f"{contact['firstname']} {contact['lastname']}""#,
            r#"company~contact["company"]"#,
        ]
    );
    let model = &module.models[0];
    assert_eq!(model.name, "CrmResult");
    assert_eq!(model.extra, swaplab_core::python::Extra::Allow);
    let fields: Vec<_> =
        model.fields.iter().map(|f| (f.name.as_str(), f.annotation.as_str())).collect();
    assert_eq!(fields, [("ok", "bool")]);
}

/// The tutorial server with every `-> CrmResult` replaced.
fn server_returning(annotation: &str) -> McpServerModule {
    scan_mcp_server("server.py", &SERVER.replace("-> CrmResult:", annotation))
}

#[test]
fn output_schema_follows_the_return_annotation() {
    let unstructured = server_returning("-> dict:");
    assert_eq!(unstructured.diagnostics, []);
    assert_eq!(unstructured.tools.len(), 3);
    assert!(unstructured.tools.iter().all(|t| t.output_schema().is_none()));
    for (annotation, expected) in [
        ("-> dict:", None),
        ("-> list:", None),
        ("-> Any:", None),
        (":", None),
        (
            "-> str:",
            Some(
                r#"{"properties": {"result": {"title": "Result", "type": "string"}}, "required": ["result"], "title": "list_open_ticketsOutput", "type": "object"}"#,
            ),
        ),
        (
            "-> list[str]:",
            Some(
                r#"{"properties": {"result": {"items": {"type": "string"}, "title": "Result", "type": "array"}}, "required": ["result"], "title": "list_open_ticketsOutput", "type": "object"}"#,
            ),
        ),
        (
            "-> None:",
            Some(
                r#"{"properties": {"result": {"title": "Result", "type": "null"}}, "required": ["result"], "title": "list_open_ticketsOutput", "type": "object"}"#,
            ),
        ),
        (
            "-> int | None:",
            Some(
                r#"{"properties": {"result": {"anyOf": [{"type": "integer"}, {"type": "null"}], "title": "Result"}}, "required": ["result"], "title": "list_open_ticketsOutput", "type": "object"}"#,
            ),
        ),
        (
            "-> dict[str, Any]:",
            Some(
                r#"{"additionalProperties": true, "title": "list_open_ticketsDictOutput", "type": "object"}"#,
            ),
        ),
        (
            "-> Dict[str, int]:",
            Some(
                r#"{"properties": {"result": {"additionalProperties": {"type": "integer"}, "title": "Result", "type": "object"}}, "required": ["result"], "title": "list_open_ticketsOutput", "type": "object"}"#,
            ),
        ),
        (
            "-> list[CrmResult]:",
            Some(concat!(
                r#"{"$defs": {"CrmResult": {"additionalProperties": true, "description": "Every tool returns this model, so each one "#,
                r#"publishes an output schema and\nthe result reaches the agent as structured content with "#,
                r#"`ok` and `error`.", "properties": {"ok": {"title": "Ok", "type": "boolean"}}, "#,
                r##""required": ["ok"], "title": "CrmResult", "type": "object"}}, "properties": {"result": {"items": {"$ref": "#/$defs/CrmResult"}, "title": "Result", "type": "array"}}, "required": ["result"], "title": "list_open_ticketsOutput", "type": "object"}"##
            )),
        ),
        ("-> \"CrmResult\":", Some(CRM_RESULT_SCHEMA)),
    ] {
        let module = server_returning(annotation);
        let tool = &module.tools[1];
        let output = tool.output_schema().map(Schema::to_python_json);
        assert_eq!(output.as_deref(), expected, "{annotation}");
        // The input schema does not depend on the return annotation.
        assert_eq!(tool.required_args(), ["contact_id"], "{annotation}");
    }
}

/// A server with one tool whose signature is `signature`; its inputSchema as Python prints it.
fn input_schema(signature: &str) -> (String, Vec<String>) {
    let text = format!(
        "from typing import Annotated, Any, Optional\n\
         from mcp.server.fastmcp import Context, FastMCP\n\
         from pydantic import BaseModel, Field\n\
         mcp = FastMCP(\"t\")\n\
         class Address(BaseModel):\n    city: str\n    zip: str | None = None\n\
         @mcp.tool()\n\
         def f({signature}) -> str:\n    return \"x\"\n"
    );
    let module = scan_mcp_server("s.py", &text);
    let tool = module.tools.first().expect("the tool");
    (tool.input_schema.to_python_json(), module.diagnostics.iter().map(at).collect())
}

#[test]
fn input_schema_maps_annotations_and_defaults_as_pydantic_does() {
    for (signature, properties, required) in [
        ("n: int", r#""n": {"title": "N", "type": "integer"}"#, r#"["n"]"#),
        ("x: float = 0.5", r#""x": {"default": 0.5, "title": "X", "type": "number"}"#, ""),
        (
            "flag: bool = True",
            r#""flag": {"default": true, "title": "Flag", "type": "boolean"}"#,
            "",
        ),
        (
            "tags: list[str]",
            r#""tags": {"items": {"type": "string"}, "title": "Tags", "type": "array"}"#,
            r#"["tags"]"#,
        ),
        ("tags: list", r#""tags": {"items": {}, "title": "Tags", "type": "array"}"#, r#"["tags"]"#),
        (
            "data: dict",
            r#""data": {"additionalProperties": true, "title": "Data", "type": "object"}"#,
            r#"["data"]"#,
        ),
        (
            "data: dict[str, Any]",
            r#""data": {"additionalProperties": true, "title": "Data", "type": "object"}"#,
            r#"["data"]"#,
        ),
        (
            "note: str | None = None",
            r#""note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "title": "Note"}"#,
            "",
        ),
        (
            "limit: Optional[int] = 10",
            r#""limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 10, "title": "Limit"}"#,
            "",
        ),
        ("anything: Any", r#""anything": {"title": "Anything"}"#, r#"["anything"]"#),
        ("raw", r#""raw": {"title": "raw", "type": "string"}"#, r#"["raw"]"#),
        (
            "tiny: float = 1e-05",
            r#""tiny": {"default": 1e-05, "title": "Tiny", "type": "number"}"#,
            "",
        ),
        (
            "city: str = \"Zürich\"",
            r#""city": {"default": "Z\u00fcrich", "title": "City", "type": "string"}"#,
            "",
        ),
        (
            "email: str = Field(description=\"The caller's address.\")",
            r#""email": {"description": "The caller's address.", "title": "Email", "type": "string"}"#,
            r#"["email"]"#,
        ),
        (
            "email: Annotated[str, Field(description=\"x\")]",
            r#""email": {"description": "x", "title": "Email", "type": "string"}"#,
            r#"["email"]"#,
        ),
        (
            "n: Annotated[int, Field(default=3, title=\"Count\")]",
            r#""n": {"default": 3, "title": "Count", "type": "integer"}"#,
            "",
        ),
        (
            "ids: list[str] = Field(default_factory=list)",
            r#""ids": {"items": {"type": "string"}, "title": "Ids", "type": "array"}"#,
            "",
        ),
        (
            "contact_id: str, ctx: Context",
            r#""contact_id": {"title": "Contact Id", "type": "string"}"#,
            r#"["contact_id"]"#,
        ),
        (
            "ids: list[int] = [1, 2]",
            r#""ids": {"default": [1, 2], "items": {"type": "integer"}, "title": "Ids", "type": "array"}"#,
            "",
        ),
    ] {
        let (schema, diagnostics) = input_schema(signature);
        let required =
            if required.is_empty() { String::new() } else { format!(", \"required\": {required}") };
        let expected = format!(
            r#"{{"properties": {{{properties}}}{required}, "title": "fArguments", "type": "object"}}"#
        );
        assert_eq!(schema, expected, "{signature}");
        assert_eq!(diagnostics, Vec::<String>::new(), "{signature}");
    }
}

#[test]
fn model_parameters_become_refs_into_defs() {
    let (schema, diagnostics) = input_schema("address: Address, backup: Address | None = None");
    assert_eq!(diagnostics, Vec::<String>::new());
    assert_eq!(
        schema,
        concat!(
            r#"{"$defs": {"Address": {"properties": {"city": {"title": "City", "type": "string"}, "#,
            r#""zip": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "title": "Zip"}}, "#,
            r#""required": ["city"], "title": "Address", "type": "object"}}, "#,
            r##""properties": {"address": {"$ref": "#/$defs/Address"}, "##,
            r##""backup": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}], "default": null}}, "##,
            r#""required": ["address"], "title": "fArguments", "type": "object"}"#
        )
    );
}

#[test]
fn models_inherit_fields_and_config() {
    let text = "from mcp.server.fastmcp import FastMCP\n\
                from pydantic import BaseModel, ConfigDict\n\
                mcp = FastMCP(\"s\")\n\
                class Base(BaseModel):\n    ok: bool\n    error: str | None = None\n\
                class Found(Base):\n    model_config = ConfigDict(extra=\"forbid\")\n    \
                contact_id: str\n    ok: bool = True\n    _cache: dict = {}\n\n    \
                def helper(self) -> int:\n        x: int = 1\n        return x\n\
                @mcp.tool()\n\
                def find() -> Found:\n    return Found(contact_id=\"701\")\n";
    let module = scan_mcp_server("s.py", text);
    assert_eq!(module.diagnostics, []);
    let found = &module.models[1];
    assert_eq!(found.extra, swaplab_core::python::Extra::Forbid);
    let fields: Vec<&str> = found.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(fields, ["contact_id", "ok"]);
    assert_eq!(
        module.tools[0].output_schema().map(Schema::to_python_json).as_deref(),
        Some(concat!(
            r#"{"additionalProperties": false, "properties": {"ok": {"default": true, "title": "Ok", "#,
            r#""type": "boolean"}, "error": {"anyOf": [{"type": "string"}, {"type": "null"}], "#,
            r#""default": null, "title": "Error"}, "contact_id": {"title": "Contact Id", "#,
            r#""type": "string"}}, "required": ["contact_id"], "title": "Found", "type": "object"}"#
        ))
    );
    assert_eq!(result_summary(&module.tools[0].result_keys), [r#"contact_id="701""#]);
}

#[test]
fn tool_names_descriptions_and_docstrings_follow_fastmcp() {
    let text = "from mcp.server.fastmcp import FastMCP\n\
                server = FastMCP(name=\"crm\")\n\
                @server.tool(name=\"lookup\", title=\"Look up\")\n\
                def find(email: str) -> bool:\n    \"\"\"Find a contact.\n\n    Args:\n        email: the address.\n    \"\"\"\n    return True\n\
                @server.tool(description=\"\")\n\
                async def bare():\n    return 1\n";
    let module = scan_mcp_server("s.py", text);
    assert_eq!(module.diagnostics, []);
    assert_eq!(module.instance.as_deref(), Some("server"));
    assert_eq!(module.server_name.as_deref(), Some("crm"));
    let tool = &module.tools[0];
    assert_eq!((tool.name.as_str(), tool.function.as_str()), ("lookup", "find"));
    assert_eq!(tool.title.as_deref(), Some("Look up"));
    // `description or fn.__doc__`, the docstring as Python 3.13 compiles it.
    assert_eq!(tool.description, "Find a contact.\n\nArgs:\n    email: the address.\n");
    assert_eq!(
        tool.input_schema.to_python_json(),
        r#"{"properties": {"email": {"title": "Email", "type": "string"}}, "required": ["email"], "title": "findArguments", "type": "object"}"#
    );
    let bare = &module.tools[1];
    assert_eq!(bare.description, "");
    assert_eq!(
        bare.input_schema.to_python_json(),
        r#"{"properties": {}, "title": "bareArguments", "type": "object"}"#
    );
    assert_eq!(bare.output_schema, None);
}

#[test]
fn clients_follow_the_import_and_memory_paths_must_be_literals() {
    let text = "from hubspot_client import crm as client\n\
                from rasa.mantle.tools import tool as rasa_tool\n\
                @rasa_tool(description=\"A\" \"B\")\n\
                def t(key: str, n: int = 3, context=None):\n    \
                    value = context.memory.get(key)\n    \
                    client.update(value, n, client.x, *rest)\n    \
                    crm.ignored(key)\n    \
                    return ToolResult(llm_response={\"ok\": True})\n";
    let module = scan_tool_module("tools/t.py", text);
    let tool = &module.tools[0];
    assert_eq!(tool.description.as_deref(), Some("AB"));
    assert_eq!(
        tool.schema.to_python_json(),
        r#"{"additionalProperties": false, "properties": {"key": {"type": "string"}, "n": {"type": "integer"}}, "required": ["key"], "type": "object"}"#
    );
    assert_eq!(tool.memory[0].path, None);
    let calls: Vec<String> = tool.crm_calls.iter().map(call_summary).collect();
    assert_eq!(
        calls,
        [
            "client.update(#0=value<memory ?>, #1=n<parameter>, #2=client.x<expression>, *=rest<other>)",
            "crm.ignored(#0=key<parameter>)",
        ]
    );
    let found: Vec<String> = module.diagnostics.iter().map(at).collect();
    assert_eq!(found, ["5:32 swaplab.python.dynamic_memory_path"]);
}

/// Diagnostics of a scan as `line:column code`.
fn check(found: &[Diagnostic], expected: &[&str]) {
    let found: Vec<String> = found.iter().map(at).collect();
    assert_eq!(found, expected);
}

#[test]
fn constructs_outside_the_subset_are_reported_at_their_token() {
    let tools = "from helpers import *\n\
                 import hubspot_client\n\
                 @registry[0]\n\
                 @tool(description=DESCRIPTION)\n\
                 def a(x: str, *args, **kwargs):\n    return None\n\
                 @tool\n\
                 def b():\n    pass\n\
                 @tool(\"positional\")\n\
                 def c():\n    pass\n\
                 @tool(name=\"no description\")\n\
                 def d():\n    pass\n";
    let module = scan_tool_module("tools.py", tools);
    check(
        &module.diagnostics,
        &[
            "1:21 swaplab.python.unsupported",
            "2:8 swaplab.python.unsupported",
            "3:2 swaplab.python.unsupported",
            "4:19 swaplab.python.unsupported",
            "5:15 swaplab.python.unsupported",
            "5:22 swaplab.python.unsupported",
            "7:1 swaplab.python.tool_description",
            "10:7 swaplab.python.tool_description",
            "13:1 swaplab.python.tool_description",
        ],
    );
    let names: Vec<&str> = module.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c", "d"]);
    assert_eq!(module.tools[0].required_args(), ["x"]);
    assert!(
        module
            .diagnostics
            .iter()
            .all(|d| d.message.contains('`') || d.message.contains("description"))
    );

    let server = "from mcp.server.fastmcp import FastMCP\n\
                  from datetime import datetime\n\
                  mcp = FastMCP(\"s\")\n\
                  @mcp.tool\n\
                  def bare(): pass\n\
                  @mcp.tool()\n\
                  def when(at: datetime, _secret: str, n: int = LIMIT) -> datetime:\n    return at\n\
                  @mcp.tool()\n\
                  def when(x: int): pass\n\
                  @other.tool()\n\
                  def elsewhere(): pass\n";
    let module = scan_mcp_server("server.py", server);
    check(
        &module.diagnostics,
        &[
            "4:1 swaplab.python.fastmcp_signature",
            "7:14 swaplab.python.unsupported",
            "7:24 swaplab.python.fastmcp_signature",
            "7:47 swaplab.python.unsupported",
            "7:57 swaplab.python.unsupported",
            "10:5 swaplab.python.duplicate_tool",
            "11:2 swaplab.python.fastmcp_instance",
        ],
    );
    let names: Vec<&str> = module.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["when"]);
    assert_eq!(module.tools[0].required_args(), ["at", "_secret"]);
    assert_eq!(module.tools[0].output_schema, None);
    let unmapped = &module.diagnostics[1];
    assert_eq!(unmapped.severity, Severity::Warning);
    assert!(unmapped.message.contains("`datetime`"), "{}", unmapped.message);
    assert!(unmapped.message.contains("str, int, float, bool"), "{}", unmapped.message);
    assert_eq!(module.diagnostics[2].message, "Parameter _secret of when cannot start with '_'");
}

#[test]
fn syntax_errors_are_reported_with_cpython_wording_and_scanning_goes_on() {
    let text = "x = 'unterminated\n\
                y = (1, [2)\n\
                z = ]\n\
                s = \"h\u{e9}llo\" $ 1\n\
                def ok():\n\
                \x20   a = 1\n\
                \x20     b = 2\n\
                \x20 c = 3\n\
                if x:\n\
                w = 1\n\
                @tool(description=\"still found\")\n\
                def later(q: str):\n    return q\n\
                call(\n\
                @tool(description=\"after an unclosed bracket\")\n\
                def last(): pass\n";
    let module = scan_tool_module("t.py", text);
    let found: Vec<String> =
        module.diagnostics.iter().map(|d| format!("{} {}", at(d), d.message)).collect();
    assert_eq!(
        found,
        [
            "1:5 swaplab.python.syntax unterminated string literal (detected at line 1)",
            "2:11 swaplab.python.syntax closing parenthesis ')' does not match opening parenthesis '['",
            "3:5 swaplab.python.syntax unmatched ']'",
            "4:13 swaplab.python.syntax invalid character '$' (U+0024)",
            "7:7 swaplab.python.syntax unexpected indent",
            "8:3 swaplab.python.syntax unindent does not match any outer indentation level",
            "10:1 swaplab.python.syntax expected an indented block after line 9",
            "14:5 swaplab.python.syntax '(' was never closed",
        ]
    );
    let names: Vec<&str> = module.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["later", "last"]);
}

#[test]
fn columns_count_characters_as_the_editor_does() {
    let line = format!("x = '{}' + \"\u{1f600}\" {}", "\u{e9}".repeat(70), "\u{fc}".repeat(3));
    for text in [
        format!("\u{feff}{line} $\n"),
        format!("# {}\n{line}\n{line} $\n", "\u{2014}".repeat(40)),
        format!("y = 1\r\n{line}\r\n{line}?\r\n"),
    ] {
        let diagnostics = tokenize("t.py", &text).diagnostics;
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        let offset = text.rfind(['$', '?']).expect("a stray character");
        let expected = LineIndex::new(&text).span(offset, offset + 1);
        assert_eq!(diagnostics[0].span, expected);
    }
}

#[test]
fn tokens_cover_prefixes_triple_quotes_continuations_and_indentation() {
    let text = "if a:\n    s = rb'\\x' + f\"{d[\"k\"]}\" + '''x\n''' \\\n      + (1,\n 2)\n# c\nt = 0x_1f\n";
    let tokens = tokenize("t.py", text);
    assert_eq!(tokens.diagnostics, []);
    let shown: Vec<String> = tokens
        .tokens
        .iter()
        .map(|t| match t.kind {
            TokenKind::Newline => "NL".to_owned(),
            TokenKind::Indent => "IN".to_owned(),
            TokenKind::Dedent => "DE".to_owned(),
            _ => text[t.start..t.end].to_owned(),
        })
        .collect();
    assert_eq!(
        shown,
        [
            "if",
            "a",
            ":",
            "NL",
            "IN",
            "s",
            "=",
            "rb'\\x'",
            "+",
            "f\"{d[\"k\"]}\"",
            "+",
            "'''x\n'''",
            "+",
            "(",
            "1",
            ",",
            "2",
            ")",
            "NL",
            "DE",
            "t",
            "=",
            "0x_1f",
            "NL",
        ]
    );
}

#[test]
fn values_print_as_python_json_dumps() {
    for (value, expected) in [
        (JsonValue::Float(1e16), "1e+16"),
        (JsonValue::Float(1.5e-7), "1.5e-07"),
        (JsonValue::Float(0.0001), "0.0001"),
        (JsonValue::Float(100.0), "100.0"),
        (JsonValue::Float(-2.5), "-2.5"),
        (JsonValue::Float(123_456_789_012_345_680.0), "1.2345678901234568e+17"),
        (
            JsonValue::Str("caf\u{e9} \u{1f600} \"q\"\n\u{7f}".to_owned()),
            r#""caf\u00e9 \ud83d\ude00 \"q\"\n\u007f""#,
        ),
        (
            JsonValue::Object(vec![
                ("b".to_owned(), JsonValue::Null),
                ("a".to_owned(), JsonValue::Array(vec![JsonValue::Int(1), JsonValue::Bool(false)])),
            ]),
            r#"{"b": null, "a": [1, false]}"#,
        ),
    ] {
        assert_eq!(value.to_python_json(), expected);
    }
}

/// Every diagnostic points inside the text (lines from 1, start before end).
fn assert_sane(diagnostics: &[Diagnostic], text: &str) {
    let lines = u32::try_from(text.split('\n').count()).unwrap_or(u32::MAX);
    for d in diagnostics {
        assert!(d.span.start <= d.span.end, "{d}");
        assert!(d.span.start.line >= 1 && d.span.end.line <= lines, "{d}");
        assert!(d.span.start.column >= 1, "{d}");
    }
    assert!(diagnostics.len() <= 101);
}

fn scan_all(text: &str) {
    let tools = scan_tool_module("t.py", text);
    assert_sane(&tools.diagnostics, text);
    let server = scan_mcp_server("s.py", text);
    assert_sane(&server.diagnostics, text);
    for tool in &server.tools {
        let _ = tool.input_schema.to_python_json();
        let _ = tool.output_schema.as_ref().map(Schema::to_python_json);
    }
    assert_sane(&tokenize("t.py", text).diagnostics, text);
}

#[test]
fn every_truncation_of_the_tutorial_files_reads_without_panicking() {
    for text in [CRM_TOOL, CHECK_TICKETS, LOG_INTERACTION, SERVER] {
        for (end, _) in text.char_indices().step_by(3) {
            scan_all(&text[..end]);
        }
        scan_all(text);
    }
}

#[test]
fn hostile_input_returns_quickly_with_diagnostics() {
    let deep_brackets = "(".repeat(10_000);
    let mismatched = format!("{}{}", "[".repeat(10_000), ")".repeat(10_000));
    let long_line = "a".repeat(1 << 20);
    let many_calls = format!(
        "from hubspot_client import crm\n@tool(description='d')\ndef f(x):\n    {}\n",
        "crm.f(x);".repeat(100_000)
    );
    let nested_type = format!(
        "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('s')\n@mcp.tool()\ndef f(x: {}str{}): pass\n",
        "list[".repeat(5_000),
        "]".repeat(5_000)
    );
    let nested_default = format!(
        "@tool(description='d')\ndef f(x={}1{}): pass\n",
        "[".repeat(5_000),
        "]".repeat(5_000)
    );
    let model_chain: String = (0..2_000)
        .map(|i| format!("class M{i}(BaseModel):\n    next: M{}\n", i + 1))
        .chain(["from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('s')\n@mcp.tool()\ndef f(m: M0) -> M0: pass\n".to_owned()])
        .collect();
    let inheritance: String = ["from pydantic import BaseModel\nclass M0(BaseModel):\n    f: int\n".to_owned()]
        .into_iter()
        .chain((1..20_000_u32).map(|i| format!("class M{i}(M{}, M{}):\n    f{i}: int\n", i - 1, i.saturating_sub(2))))
        .chain(["from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('s')\n@mcp.tool()\ndef f(m: M19999) -> M19999: pass\n".to_owned()])
        .collect();
    let wide = format!(
        "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('s')\n{}class W(BaseModel):\n{}\
         @mcp.tool()\ndef f(x: {}, {}) -> W:\n    return {{{}}}\n",
        (0..3_000).map(|i| format!("class V{i}(BaseModel):\n    v: int\n")).collect::<String>(),
        (0..3_000).map(|i| format!("    f{i}: V{i} | None = None\n")).collect::<String>(),
        vec!["int | str"; 5_000].join(" | "),
        (0..5_000).map(|i| format!("p{i}: W")).collect::<Vec<_>>().join(", "),
        (0..20_000).map(|i| format!("'k{i}': {i}")).collect::<Vec<_>>().join(", "),
    );
    let indents: String = (0..300).map(|i| format!("{}if x:\n", " ".repeat(i))).collect();
    let quotes = "\"\"\"".repeat(1001);
    let fstring = format!("f\"{}\n", "{".repeat(10_000));
    for text in [
        deep_brackets.as_str(),
        &mismatched,
        &long_line,
        &many_calls,
        &nested_type,
        &nested_default,
        &model_chain,
        &inheritance,
        &wide,
        &indents,
        &quotes,
        &fstring,
        "\\",
        "\r\r\n\u{0}\u{feff}\t\x0c@",
        "@\n@\n",
        "def",
        "class A(BaseModel",
        "x = '''",
        "@mcp.tool()\nasync def",
    ] {
        scan_all(text);
    }
    let module = scan_tool_module("t.py", &many_calls);
    assert_eq!(module.tools[0].crm_calls.len(), 100_000);
}

#[test]
fn random_python_like_input_never_panics() {
    const PIECES: [&str; 48] = [
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "\"",
        "'",
        "\"\"\"",
        "\n",
        "    ",
        "\t",
        "@",
        "def ",
        "class ",
        "async ",
        "tool",
        "mcp.tool",
        "(description=",
        "context.memory.get(",
        "crm.",
        ":",
        "->",
        "=",
        ",",
        "*",
        "**",
        "\\",
        "#",
        "f\"{",
        "é",
        "\r",
        "x",
        "1",
        "return ",
        "ToolResult(llm_response={",
        "BaseModel",
        "model_config",
        "Field(",
        "|",
        "None",
        "list[",
        "Optional[",
        "FastMCP(",
        "mcp = ",
        "from hubspot_client import crm\n",
        ";",
        "\u{1f600}",
    ];
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..400 {
        let mut text = String::new();
        for _ in 0..150 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            text.push_str(PIECES[(state % PIECES.len() as u64) as usize]);
        }
        scan_all(&text);
    }
}

#[test]
fn tool_modules_serialize_for_the_command_line() {
    let module: ToolModule = scan_tool_module("tools/crm.py", CRM_TOOL);
    let json = serde_json::to_string(&module).expect("serializes");
    assert!(json.contains(r#""schema":{"additionalProperties":false,"properties":{"email":{"type":"string"}},"required":["email"],"type":"object"}"#));
    let server = serde_json::to_string(&server()).expect("serializes");
    assert!(server.contains(r#""output_schema":{"additionalProperties":true,"description":"#));
}

#[test]
fn fastmcp_host_and_port_may_be_module_level_constants() {
    let read = |text: &str| {
        let module = scan_mcp_server("s.py", text);
        (module.host, module.port)
    };
    let import = "from mcp.server.fastmcp import FastMCP\n";
    assert_eq!(
        read(&format!(
            "{import}HOST, PORT = \"127.0.0.1\", 8931\nmcp = FastMCP(\"crm\", host=HOST, port=PORT)\n"
        )),
        (Some("127.0.0.1".to_owned()), Some(8931))
    );
    assert_eq!(
        read(&format!(
            "{import}HOST = PUBLIC = \"0.0.0.0\"\nPORT: int = 9000\nmcp = FastMCP(\"crm\", host=PUBLIC, port=PORT)\n"
        )),
        (Some("0.0.0.0".to_owned()), Some(9000))
    );
    // A name rebound to something that is not a literal, or bound after, is not read.
    assert_eq!(
        read(&format!(
            "{import}PORT = 9000\nPORT = int(PORT)\nmcp = FastMCP(\"crm\", host=HOST, port=PORT)\nHOST = \"x\"\n"
        )),
        (None, None)
    );
    assert_eq!(
        read(&format!("{import}(A, B) = [1, 2]\nmcp = FastMCP(\"crm\", port=B)\n")),
        (None, Some(2))
    );
}
