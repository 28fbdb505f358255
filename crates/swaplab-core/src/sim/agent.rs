//! Starting an agent: what Rasa does between reading the files and the first turn.
//!
//! [`start`] refuses to start where Rasa refuses (model load errors, then
//! `MCPRuntime.prepare`, reference §3.3 and §5.1), and otherwise binds every skill's tools:
//! skill-local `@tool` functions, the shared tools the skill declares, and its MCP imports
//! (per importing skill, §3.4). The result also answers the questions the runtime asks on
//! every call: which gates apply to a target (§6.2) and which tools the model sees (§6.3).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use super::json::{self, JsonValue};
use super::mcp::McpServer;
use crate::diagnostic::{Diagnostic, Phase, Position, Severity, Span};
use crate::python::{Library, Program, ToolFunction, compile_linked};
use crate::rasa::imports::{ImportRef, parse_import};
use crate::rasa::integrations::ParsedUrl;
use crate::rasa::memory::SkillMemory;
use crate::rasa::project::ProjectReport;
use crate::rasa::skill::{GatedTool, OrderedBlock, Skill};
use crate::sim::cache::SimCache;
use crate::workspace::Project;

/// Code for a server the workspace's server file does not answer for (ours).
pub const CODE_CONNECT: &str = "swaplab.runtime.mcp_connect";
/// Code for `MCPRuntime.prepare`'s `ValueError`s (Rasa raises bare `ValueError`s).
pub const CODE_PREPARE: &str = "swaplab.runtime.mcp_prepare";

/// Why the agent does not start.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StartupFailure {
    /// When: `load` (model load) or `runtime` (connecting to MCP servers).
    pub stage: &'static str,
    /// Rasa's message where the reference has one.
    pub message: String,
    /// The finding that caused it, with its place.
    pub diagnostic: Diagnostic,
}

/// A local tool bound to a skill. It borrows from the project as read; the schema is
/// made once per function and start, and shared by every skill that binds it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LocalTool<'r> {
    /// The module's path.
    pub file: &'r str,
    /// Whether it comes from `tools/` (shared) rather than the skill's folder.
    pub shared: bool,
    /// What the scanner read.
    pub function: &'r ToolFunction,
    /// The schema offered to the model.
    pub schema: Arc<JsonValue>,
}

/// An MCP tool bound to a skill, borrowing from the project and the server.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RemoteTool<'r> {
    /// The configured server id.
    pub server: &'r str,
    /// The tool's name on the server (and its bare name).
    pub tool: &'r str,
    /// The `import_tools` entry.
    pub reference: &'r str,
    /// Where the import is written.
    pub span: Span,
    /// The schema offered to the model (§5.2).
    pub schema: &'r JsonValue,
}

/// A tool as a skill binds it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "route", rename_all = "snake_case")]
pub enum Bound<'r> {
    /// A Python function in the project.
    Local(LocalTool<'r>),
    /// A tool on an MCP server.
    Mcp(RemoteTool<'r>),
}

impl Bound<'_> {
    /// The schema offered to the model.
    pub fn schema(&self) -> &JsonValue {
        match self {
            Bound::Local(tool) => &tool.schema,
            Bound::Mcp(tool) => tool.schema,
        }
    }
}

/// Where the model is working inside a skill.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(tag = "kind", content = "block", rename_all = "snake_case")]
pub enum Target {
    /// The skill's prose (or a skill without blocks).
    Prose,
    /// An ordered block.
    Block(String),
}

/// A started agent: the project, its bindings and the servers it connected to.
#[derive(Debug)]
pub struct Agent<'r> {
    /// The project as read.
    pub report: &'r ProjectReport,
    /// Connected servers by configured id.
    pub servers: BTreeMap<String, &'r McpServer>,
    /// Per skill, tool name → binding (MCP wins over local at dispatch, §5.4).
    pub bindings: BTreeMap<String, BTreeMap<String, Bound<'r>>>,
    /// Compiled tool modules by path.
    pub programs: BTreeMap<String, Arc<Program>>,
    /// Every skill's memory contract, for visibility.
    pub skill_memories: Vec<SkillMemory>,
}

/// Whether a finding stops Rasa from loading the model: errors of reading, compiling and
/// loading Rasa's own files. Our Python scanner's findings are not Rasa's.
fn blocks_load(d: &Diagnostic) -> bool {
    d.severity == Severity::Error
        && matches!(d.phase, Phase::Read | Phase::Compile | Phase::Load)
        && !d.code.starts_with("swaplab.python")
}

/// The interpreter's reading of every tool module of a project, by path.
pub fn compile_tools(report: &ProjectReport, project: &Project) -> BTreeMap<String, Arc<Program>> {
    compile_tools_with(report, project, &mut SimCache::default())
}

/// [`compile_tools`], reusing the modules `memo` compiled before from the same text.
pub fn compile_tools_with(
    report: &ProjectReport,
    project: &Project,
    memo: &mut SimCache,
) -> BTreeMap<String, Arc<Program>> {
    let library = python_library(project);
    crate::order::map_of(
        report.shared_tools.iter().chain(report.skills.iter().flat_map(|e| e.tools.iter())).map(
            |file| {
                let text = project.file(&file.path).unwrap_or_default();
                let compile = || compile_linked(&file.path, text, &library);
                let program = memo.program(&file.path, text, compile);
                // The memo knows the file's own text; a module it imports may have changed.
                let program = if program.is_current(|p| project.file(p)) {
                    program
                } else {
                    Arc::new(compile())
                };
                (file.path.clone(), program)
            },
        ),
    )
}

/// The project's Python files, importable from its top folder: a tool module's
/// `from lib.hubspot import …` runs the project's `lib/hubspot.py`.
pub fn python_library(project: &Project) -> Library<'_> {
    Library::new(project.files().filter(|(path, _)| path.ends_with(".py")), &[""])
}

/// Starts the project against the workspace's server (if any): `Err` with the first
/// failure, as Rasa stops at the first.
pub fn start<'r>(
    report: &'r ProjectReport,
    project: &Project,
    server: Option<&'r McpServer>,
) -> Result<Agent<'r>, Box<StartupFailure>> {
    start_compiled(report, compile_tools(report, project), server)
}

/// [`start`] with the tool modules already compiled ([`compile_tools`]).
pub fn start_compiled<'r>(
    report: &'r ProjectReport,
    programs: BTreeMap<String, Arc<Program>>,
    server: Option<&'r McpServer>,
) -> Result<Agent<'r>, Box<StartupFailure>> {
    if let Some(d) = report.diagnostics.iter().find(|d| blocks_load(d)) {
        return Err(Box::new(StartupFailure {
            stage: "load",
            message: d.message.clone(),
            diagnostic: d.clone(),
        }));
    }
    let mut agent = Agent {
        report,
        servers: BTreeMap::new(),
        bindings: BTreeMap::new(),
        programs,
        skill_memories: report.skills.iter().filter_map(|e| e.memory.clone()).collect(),
    };
    // MCPRuntime.prepare: referenced servers in sorted order.
    let mut referenced: Vec<&str> = report.mcp_imports.iter().map(|i| i.server.as_str()).collect();
    crate::order::sort(&mut referenced);
    referenced.dedup();
    let integrations = &report.integrations;
    for id in referenced {
        let first_import = report.mcp_imports.iter().find(|i| i.server == id);
        let import_place = |message: String| {
            let (file, span) = first_import
                .map(|i| (format!("skills/{}/skill.md", i.skill), i.span))
                .unwrap_or_else(|| (integrations.file.clone(), Span::point(Position::START)));
            StartupFailure {
                stage: "runtime",
                message: message.clone(),
                diagnostic: Diagnostic::error(&file, span, Phase::Load, CODE_PREPARE, message),
            }
        };
        let Some(config) = integrations.server(id) else {
            return Err(Box::new(import_place(format!(
                "MCP server '{id}' is imported by a skill but is missing from integrations.yml."
            ))));
        };
        let answering = server.filter(|s| listens_at(s, &config.parsed_url()));
        let Some(answering) = answering else {
            let message = match server {
                Some(s) => format!(
                    "Could not connect to MCP server '{id}' at {}: the workspace's server ({}) listens on {}.",
                    config.url,
                    s.file,
                    listen_url(s)
                ),
                None => format!(
                    "Could not connect to MCP server '{id}' at {}: the workspace has no server file.",
                    config.url
                ),
            };
            return Err(Box::new(StartupFailure {
                stage: "runtime",
                message: message.clone(),
                diagnostic: Diagnostic::error(
                    &integrations.file,
                    config.url_span,
                    Phase::Load,
                    CODE_CONNECT,
                    message,
                ),
            }));
        };
        for import in report.mcp_imports.iter().filter(|i| i.server == id) {
            if answering.tool(&import.tool).is_none() {
                let message = format!(
                    "MCP server '{id}' does not expose imported tool '{}' for skill '{}'.",
                    import.tool, import.skill
                );
                return Err(Box::new(StartupFailure {
                    stage: "runtime",
                    message: message.clone(),
                    diagnostic: Diagnostic::error(
                        &format!("skills/{}/skill.md", import.skill),
                        import.span,
                        Phase::Load,
                        CODE_PREPARE,
                        message,
                    ),
                }));
            }
        }
        agent.servers.insert(id.to_owned(), answering);
    }
    agent.bind_all();
    Ok(agent)
}

/// The URL the server file listens on (FastMCP's defaults: 127.0.0.1, 8000, `/mcp`).
pub fn listen_url(server: &McpServer) -> String {
    let host = server.module.host.as_deref().unwrap_or("127.0.0.1");
    let port = server.module.port.unwrap_or(8000);
    format!("http://{host}:{port}/mcp")
}

fn listens_at(server: &McpServer, url: &ParsedUrl) -> bool {
    let host = server.module.host.as_deref().unwrap_or("127.0.0.1");
    let port = server.module.port.unwrap_or(8000);
    let same_host = url.host == host
        || (is_loopback(&url.host) && is_loopback(host))
        || (host == "0.0.0.0" && is_loopback(&url.host));
    let url_port = url.port.map(i64::from).unwrap_or(if url.scheme == "https" { 443 } else { 80 });
    matches!(url.scheme.as_str(), "http" | "https")
        && same_host
        && url_port == port
        && url.path.trim_end_matches('/') == "/mcp"
}

fn is_loopback(host: &str) -> bool {
    matches!(host, "127.0.0.1" | "localhost" | "::1" | "[::1]")
}

fn schema_value(schema: &crate::python::Schema) -> JsonValue {
    json::parse(&schema.to_json()).unwrap_or(JsonValue::Object(Vec::new()))
}

impl<'r> Agent<'r> {
    fn bind_all(&mut self) {
        let report = self.report;
        // Every shared tool by name, the last definition winning as it does when the
        // loader binds them file by file, built once: scanning the shared modules again
        // for every skill was quadratic in skills.
        let mut shared: BTreeMap<&str, (&str, &ToolFunction)> = BTreeMap::new();
        for file in &report.shared_tools {
            for function in &file.module.tools {
                shared.insert(function.name.as_str(), (file.path.as_str(), function));
            }
        }
        // Each function's offered schema, made once however many skills bind it.
        let mut schemas: BTreeMap<*const ToolFunction, Arc<JsonValue>> = BTreeMap::new();
        let mut local = |path: &'r str, shared: bool, function: &'r ToolFunction| {
            let schema = schemas
                .entry(std::ptr::from_ref(function))
                .or_insert_with(|| Arc::new(schema_value(&function.schema)))
                .clone();
            Bound::Local(LocalTool { file: path, shared, function, schema })
        };
        for skill in report.loaded_skills() {
            let mut tools: BTreeMap<String, Bound<'r>> = BTreeMap::new();
            // Loader precedence: declared shared, then skill-local (later wins).
            for name in report.declared_shared_tools(skill).iter() {
                let Some(&(path, function)) = shared.get(name.as_str()) else { continue };
                if function.name.starts_with("set_") {
                    continue; // dropped with a warning (§3.2)
                }
                tools.insert(function.name.clone(), local(path, true, function));
            }
            if let Some(entry) = report.entry(&skill.id) {
                for file in &entry.tools {
                    for function in &file.module.tools {
                        tools.insert(function.name.clone(), local(&file.path, false, function));
                    }
                }
            }
            for import in report.imports_of(&skill.id) {
                let Some(&server) = self.servers.get(&import.server) else { continue };
                let Some(schema) = server.offered_schema(&import.tool) else { continue };
                tools.insert(
                    import.tool.clone(),
                    Bound::Mcp(RemoteTool {
                        server: &import.server,
                        tool: &import.tool,
                        reference: &import.reference,
                        span: import.span,
                        schema,
                    }),
                );
            }
            self.bindings.insert(skill.id.clone(), tools);
        }
    }

    /// The skill `id`, when loaded.
    pub fn skill(&self, id: &str) -> Option<&'r Skill> {
        self.report.skill(id)
    }

    /// The tool `name` as `skill` binds it.
    pub fn bound(&self, skill: &str, name: &str) -> Option<&Bound<'r>> {
        self.bindings.get(skill)?.get(name)
    }

    /// The gates that apply to an LLM call at `target` (§6.2 `resolve_tool_gates`).
    pub fn dispatch_gates(&self, skill: &'r Skill, target: &Target) -> Vec<&'r GatedTool> {
        match target {
            Target::Prose => skill.tools.iter().collect(),
            Target::Block(id) => {
                let Some(block) = skill.blocks().find(|b| &b.block_id == id) else {
                    return skill.tools.iter().collect();
                };
                if block.routable {
                    let mut gates: Vec<&GatedTool> = block.tools.iter().collect();
                    gates.extend(
                        skill
                            .tools
                            .iter()
                            .filter(|g| !block.tools.iter().any(|b| b.name == g.name)),
                    );
                    gates
                } else {
                    block.tools.iter().collect()
                }
            }
        }
    }

    /// The gate for an execute step's tool (§6.2 `effective_tool_gate`): the skill's gate
    /// by name first, else the block's.
    pub fn step_gate(
        &self,
        skill: &'r Skill,
        block: &'r OrderedBlock,
        tool: &str,
    ) -> Option<&'r GatedTool> {
        skill.gate(tool).or_else(|| block.tools.iter().find(|g| g.name == tool))
    }

    /// The tools the model is offered at `target` (§6.3), sorted, given whether each gate
    /// is open.
    pub fn visible_tools(
        &self,
        skill: &'r Skill,
        target: &Target,
        open: &dyn Fn(&GatedTool) -> bool,
    ) -> Vec<String> {
        let Some(bound) = self.bindings.get(&skill.id) else { return Vec::new() };
        let gates = self.dispatch_gates(skill, target);
        let imported: Vec<String> = skill
            .import_tool_names
            .iter()
            .map(|r| match parse_import(r) {
                Ok(ImportRef::Mcp { tool, .. }) => tool,
                _ => r.clone(),
            })
            .collect();
        let constrained = |name: &str| {
            skill.tool_constraint_names.iter().any(|n| n == name)
                || skill.blocks().any(|b| b.tools.iter().any(|g| g.name == name))
        };
        bound
            .keys()
            .filter(|name| {
                let gate = gates.iter().find(|g| &g.name == *name);
                if imported.iter().any(|i| i == *name) {
                    gate.is_none_or(|g| open(g))
                } else if constrained(name) {
                    gate.is_some_and(|g| open(g))
                } else {
                    true
                }
            })
            .cloned()
            .collect()
    }

    /// Whether the model can enter `block` of `skill`: a blocks-only skill's blocks are
    /// routable; a hybrid skill's only through `@block.<id>` in its prose (§2.9).
    pub fn block_reachable(&self, skill: &Skill, block: &str) -> bool {
        match skill.blocks().find(|b| b.block_id == block) {
            Some(b) if b.routable => true,
            Some(_) => skill.referenced_blocks.contains(&format!("{}__{block}", skill.id)),
            None => false,
        }
    }
}
