//! `swaplab tools`: what the workspace's MCP server publishes.
//!
//! The text form walks the `tools/list` result tool by tool (name, description, the
//! input and output schemas as property lists), then names each tool's required
//! arguments the way the review guide prints them, in Python's list syntax:
//! `find_contact_by_email requires ['email']`. `--json` prints the `tools/list` result
//! itself, exactly as the JSON-RPC answer carries it, indented.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use swaplab_core::Workspace;
use swaplab_core::sim::Simulation;
use swaplab_core::sim::json::{self, JsonValue};
use swaplab_core::sim::mcp::McpServer;
use swaplab_core::yaml::python_str_repr;

use crate::options::Options;
use crate::style::Style;

/// Runs the command: exit 0 with the listing, or an error when there is no server file.
pub fn run(
    workspace: &Workspace,
    options: &Options,
    style: Style,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let simulation = Simulation::new(workspace);
    let Some(server) = &simulation.server else { bail!(no_server_message()) };
    for diagnostic in &server.module.diagnostics {
        eprintln!("swaplab: {diagnostic}");
    }
    if options.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&server.tools_list())?)?;
    } else {
        write_text(server, style, out)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The message for a workspace without a server file (shared with `swaplab mcp`).
pub fn no_server_message() -> String {
    "the workspace has no MCP server file: give one with --server <FILE>, or use a \
     --tutorial folder that holds scripts/mcp_crm_server.py"
        .to_owned()
}

/// The `requires` line of one tool: `<name> requires ['a', 'b']`, the required argument
/// names in schema order, as Python prints a list of strings.
pub fn requires_line(name: &str, required: &[String]) -> String {
    let names: Vec<String> = required.iter().map(|n| python_str_repr(n)).collect();
    format!("{name} requires [{}]", names.join(", "))
}

fn write_text(server: &McpServer, style: Style, out: &mut dyn Write) -> Result<()> {
    let tools = &server.module.tools;
    let count = swaplab_core::words::count(tools.len(), "tool", "tools");
    writeln!(
        out,
        "{} publishes {count} {}",
        style.bold(server.name()),
        style.dim(&format!("(tools/list of {})", server.file))
    )?;
    for tool in tools {
        let descriptor = McpServer::descriptor(tool);
        writeln!(out)?;
        writeln!(out, "{}", style.bold(&tool.name))?;
        if let Some(JsonValue::Str(title)) = json::get(&descriptor, "title") {
            writeln!(out, "  title: {title}")?;
        }
        if let Some(JsonValue::Str(description)) = json::get(&descriptor, "description") {
            for line in description.lines() {
                writeln!(out, "  {line}")?;
            }
            if description.trim().is_empty() {
                writeln!(out, "  {}", style.dim("(no description)"))?;
            }
        }
        match json::get(&descriptor, "inputSchema") {
            Some(schema) => write_schema(out, style, "input ", schema, 1)?,
            None => writeln!(out, "  input  none")?,
        }
        match json::get(&descriptor, "outputSchema") {
            Some(schema) => write_schema(out, style, "output", schema, 1)?,
            None => writeln!(
                out,
                "  output none published: results reach the client as text content only"
            )?,
        }
    }
    if !tools.is_empty() {
        writeln!(out)?;
    }
    for tool in tools {
        writeln!(out, "{}", requires_line(&tool.name, tool.required_args()))?;
    }
    Ok(())
}

/// One schema: a heading (`input  <title>: object`), its description, its properties
/// with their types and whether each is required, then the models it defines.
fn write_schema(
    out: &mut dyn Write,
    style: Style,
    label: &str,
    schema: &JsonValue,
    depth: usize,
) -> Result<()> {
    let pad = "  ".repeat(depth);
    let title = match json::get(schema, "title") {
        Some(JsonValue::Str(title)) => format!("{title}: "),
        _ => String::new(),
    };
    let mut heading = format!("{pad}{label} {title}{}", type_of(schema));
    match json::get(schema, "additionalProperties") {
        Some(JsonValue::Bool(true)) => heading.push_str(", other keys allowed"),
        Some(JsonValue::Bool(false)) => heading.push_str(", no other keys"),
        Some(other @ JsonValue::Object(_)) => {
            heading.push_str(&format!(", other keys: {}", type_of(other)));
        }
        _ => {}
    }
    writeln!(out, "{heading}")?;
    if let Some(JsonValue::Str(description)) = json::get(schema, "description") {
        let mut label = "about: ";
        for line in description.lines() {
            writeln!(out, "{pad}  {label}{}", style.dim(line))?;
            label = "       ";
        }
    }
    let required: Vec<&str> = match json::get(schema, "required") {
        Some(JsonValue::Array(names)) => names
            .iter()
            .filter_map(|n| match n {
                JsonValue::Str(s) => Some(s.as_str()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let properties: &[(String, JsonValue)] = match json::get(schema, "properties") {
        Some(JsonValue::Object(entries)) => entries,
        _ => &[],
    };
    let name_width = properties.iter().map(|(n, _)| n.chars().count()).max().unwrap_or(0);
    let rows: Vec<(String, String)> =
        properties.iter().map(|(name, property)| (name.clone(), type_of(property))).collect();
    let type_width = rows.iter().map(|(_, t)| t.chars().count()).max().unwrap_or(0);
    for ((name, kind), (_, property)) in rows.iter().zip(properties) {
        let mut line = format!("{pad}  {name:<name_width$}  {kind:<type_width$}  ");
        line.push_str(if required.contains(&name.as_str()) { "required" } else { "optional" });
        if let Some(default) = json::get(property, "default") {
            line.push_str(&format!(", default {}", json::compact(default)));
        }
        if let Some(JsonValue::Str(description)) = json::get(property, "description") {
            line.push_str(&format!(" — {}", description.lines().next().unwrap_or_default()));
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    if properties.is_empty() && type_of(schema) == "object" {
        writeln!(out, "{pad}  {}", style.dim("(no properties)"))?;
    }
    if let Some(JsonValue::Object(defs)) = json::get(schema, "$defs") {
        for (name, def) in defs {
            write_schema(out, style, &format!("defines {name}:"), &untitled(def), depth + 1)?;
        }
    }
    Ok(())
}

/// The schema without its `title` (a definition's heading already names it).
fn untitled(schema: &JsonValue) -> JsonValue {
    match schema {
        JsonValue::Object(entries) => {
            JsonValue::Object(entries.iter().filter(|(k, _)| k != "title").cloned().collect())
        }
        other => other.clone(),
    }
}

/// A schema's type in a few words: `string`, `string | null`, `array of Ticket`, `any`.
fn type_of(schema: &JsonValue) -> String {
    if let Some(JsonValue::Str(reference)) = json::get(schema, "$ref") {
        return reference.rsplit('/').next().unwrap_or(reference).to_owned();
    }
    if let Some(JsonValue::Array(branches)) = json::get(schema, "anyOf") {
        return branches.iter().map(type_of).collect::<Vec<_>>().join(" | ");
    }
    if let Some(JsonValue::Array(values)) = json::get(schema, "enum") {
        return values.iter().map(json::compact).collect::<Vec<_>>().join(" | ");
    }
    if let Some(value) = json::get(schema, "const") {
        return json::compact(value);
    }
    let types: Vec<String> = match json::get(schema, "type") {
        Some(JsonValue::Str(t)) => vec![t.clone()],
        Some(JsonValue::Array(ts)) => ts.iter().map(json::plain).collect(),
        _ => return "any".to_owned(),
    };
    types
        .iter()
        .map(|t| match (t.as_str(), json::get(schema, "items")) {
            ("array", Some(items)) => format!("array of {}", type_of(items)),
            _ => t.clone(),
        })
        .collect::<Vec<_>>()
        .join(" | ")
}
