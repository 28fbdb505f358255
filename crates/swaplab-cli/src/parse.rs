//! `swaplab parse`: one Rasa project, or a whole workspace, read the way Rasa 3.21 and
//! FastMCP read them.
//!
//! For a project the JSON document has one key per skill directory under `skills`,
//! holding either the compiled skill (the shape of the `compiled` objects in the corpus
//! verdict files) or `{"error": {"code": …, "message": …}}`; then `project_memory`,
//! `mcp_servers`, `mcp_imports`, `tools` (shared and skill-local signatures) and every
//! diagnostic with its file, line and column. For a workspace it holds `before` and
//! `after` in that shape and `server`: the `tools/list` entries the server would publish.
//! The document is serialised from structs, so keys keep their meaningful order
//! (schema properties in parameter order).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;
use swaplab_core::Workspace;
use swaplab_core::diagnostic::{Diagnostic, Severity};
use swaplab_core::rasa::integrations::McpServer;
use swaplab_core::rasa::memory::MemoryField;
use swaplab_core::rasa::project::{McpImport, ProjectReport, ToolFile, read_project};
use swaplab_core::rasa::skill::Skill;
use swaplab_core::rasa::workspace::{ListedTool, WorkspaceReport, read_workspace};

use crate::load;

/// Runs the command; exit 1 when a skill is refused or a model would not load.
pub fn run(
    args: &[String],
    out: &mut impl Write,
    workspace_from_flags: impl Fn(&[String]) -> Result<Workspace>,
) -> Result<ExitCode> {
    let json = args.iter().any(|arg| arg == "--json");
    let rest: Vec<String> = args.iter().filter(|arg| *arg != "--json").cloned().collect();
    let has_errors = if let [dir] = rest.as_slice()
        && !dir.starts_with("--")
    {
        let report = read_project(&load::project(Path::new(dir))?);
        if json {
            write_json(out, &ProjectDocument::new(&report))?;
        } else {
            human(&report, out)?;
        }
        report.has_errors()
    } else {
        let report = read_workspace(&workspace_from_flags(&rest)?);
        if json {
            write_json(out, &WorkspaceDocument::new(&report))?;
        } else {
            for (name, project) in [("before", &report.before), ("after", &report.after)] {
                writeln!(out, "== {name} ==")?;
                human(project, out)?;
            }
            human_server(&report, out)?;
        }
        report.before.has_errors()
            || report.after.has_errors()
            || report.server.iter().any(|s| s.diagnostics.iter().any(Diagnostic::is_error))
    };
    Ok(if has_errors { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn write_json(out: &mut impl Write, document: &impl Serialize) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, document)?;
    writeln!(out)?;
    Ok(())
}

/// A skill directory: compiled, or why not.
#[derive(Serialize)]
#[serde(untagged)]
enum SkillDocument<'a> {
    Compiled(&'a Skill),
    Refused { error: ErrorDocument<'a> },
}

#[derive(Serialize)]
struct ErrorDocument<'a> {
    code: &'a str,
    message: &'a str,
}

#[derive(Serialize)]
struct McpServersDocument<'a> {
    declared: bool,
    ok: bool,
    servers: &'a [McpServer],
}

#[derive(Serialize)]
struct ToolsDocument<'a> {
    shared: &'a [ToolFile],
    local: BTreeMap<&'a str, &'a [ToolFile]>,
}

/// One project.
#[derive(Serialize)]
pub struct ProjectDocument<'a> {
    skills: BTreeMap<&'a str, SkillDocument<'a>>,
    project_memory: BTreeMap<&'a str, &'a MemoryField>,
    mcp_servers: McpServersDocument<'a>,
    mcp_imports: &'a [McpImport],
    tools: ToolsDocument<'a>,
    diagnostics: &'a [Diagnostic],
}

impl<'a> ProjectDocument<'a> {
    /// The document for `report`.
    pub fn new(report: &'a ProjectReport) -> ProjectDocument<'a> {
        let skills = report
            .skills
            .iter()
            .map(|entry| {
                let document = match (entry.loaded(), &entry.skill_md) {
                    (Some(skill), _) => SkillDocument::Compiled(skill),
                    (None, Some(file)) if file.error.is_some() => {
                        let error = file.error.as_ref().map_or(("", ""), |e| (&e.code, &e.message));
                        SkillDocument::Refused {
                            error: ErrorDocument { code: error.0, message: error.1 },
                        }
                    }
                    (None, _) => SkillDocument::Refused {
                        error: ErrorDocument {
                            code: swaplab_core::rasa::project::CODE_SKILL_LOAD,
                            message: entry.load_error.as_deref().unwrap_or(""),
                        },
                    },
                };
                (entry.dir.as_str(), document)
            })
            .collect();
        ProjectDocument {
            skills,
            project_memory: report
                .project_memory
                .fields
                .iter()
                .map(|f| (f.name.as_str(), f))
                .collect(),
            mcp_servers: McpServersDocument {
                declared: report.integrations.mcp_servers.is_some(),
                ok: report.integrations.ok,
                servers: report.integrations.servers(),
            },
            mcp_imports: &report.mcp_imports,
            tools: ToolsDocument {
                shared: &report.shared_tools,
                local: report
                    .skills
                    .iter()
                    .filter(|entry| !entry.tools.is_empty())
                    .map(|entry| (entry.dir.as_str(), entry.tools.as_slice()))
                    .collect(),
            },
            diagnostics: &report.diagnostics,
        }
    }
}

#[derive(Serialize)]
struct ServerDocument<'a> {
    file: Option<&'a str>,
    name: Option<&'a str>,
    tools: Vec<ListedTool<'a>>,
    diagnostics: &'a [Diagnostic],
}

/// A whole workspace.
#[derive(Serialize)]
pub struct WorkspaceDocument<'a> {
    before: ProjectDocument<'a>,
    after: ProjectDocument<'a>,
    server: ServerDocument<'a>,
}

impl<'a> WorkspaceDocument<'a> {
    /// The document for `report`.
    pub fn new(report: &'a WorkspaceReport) -> WorkspaceDocument<'a> {
        WorkspaceDocument {
            before: ProjectDocument::new(&report.before),
            after: ProjectDocument::new(&report.after),
            server: ServerDocument {
                file: report.server_file.as_deref(),
                name: report.server.as_ref().and_then(|s| s.server_name.as_deref()),
                tools: report.tools_list(),
                diagnostics: report.server.as_ref().map_or(&[], |s| s.diagnostics.as_slice()),
            },
        }
    }
}

fn human(report: &ProjectReport, out: &mut impl Write) -> Result<()> {
    for entry in &report.skills {
        match (entry.loaded(), &entry.load_error) {
            (Some(skill), _) => {
                let imports = if skill.import_tool_names.is_empty() {
                    String::new()
                } else {
                    format!(", imports {}", skill.import_tool_names.join(" "))
                };
                writeln!(out, "ok       skills/{}{imports}", entry.dir)?;
            }
            (None, message) => {
                let message = message.as_deref().unwrap_or("not loaded");
                writeln!(out, "refused  skills/{}: {message}", entry.dir)?;
            }
        }
    }
    let with = |severity| report.diagnostics.iter().filter(|d| d.severity == severity).count();
    let count = swaplab_core::words::count;
    for diagnostic in &report.diagnostics {
        writeln!(out, "{diagnostic}")?;
    }
    writeln!(
        out,
        "{}, {} loaded; {}, {}",
        count(report.skills.len(), "skill", "skills"),
        report.loaded_skills().count(),
        count(with(Severity::Error), "error", "errors"),
        count(with(Severity::Warning), "warning", "warnings")
    )?;
    Ok(())
}

fn human_server(report: &WorkspaceReport, out: &mut impl Write) -> Result<()> {
    writeln!(out, "== server ==")?;
    let (Some(file), Some(server)) = (&report.server_file, &report.server) else {
        writeln!(out, "no server file")?;
        return Ok(());
    };
    let name = server.server_name.as_deref().unwrap_or("?");
    let tools = swaplab_core::words::count(server.tools.len(), "tool", "tools");
    writeln!(out, "{file}: FastMCP server '{name}', {tools}")?;
    for tool in &server.tools {
        let output =
            if tool.output_schema.is_some() { "structured output" } else { "no outputSchema" };
        writeln!(
            out,
            "  {} requires {:?}; {output}",
            tool.name,
            tool.input_schema.required_names()
        )?;
    }
    for diagnostic in &server.diagnostics {
        writeln!(out, "{diagnostic}")?;
    }
    Ok(())
}
