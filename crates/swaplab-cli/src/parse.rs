//! `swaplab parse <DIR> [--json]`: one Rasa project read the way Rasa 3.21 reads it.
//!
//! The JSON document has one key per skill directory under `skills`, holding either the
//! compiled skill (the shape of the `compiled` objects in the corpus verdict files) or
//! `{"error": {"code": …, "message": …}}`; then `project_memory`, `mcp_servers`, `tools`
//! (shared and skill-local signatures) and every diagnostic with its file, line and column.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Result, bail};
use serde_json::{Map, Value, json};
use swaplab_core::diagnostic::Severity;
use swaplab_core::rasa::project::{ProjectReport, ToolFile, read_project};

use crate::load;

/// Runs the command; exit 1 when a skill is refused or the model would not load.
pub fn run(args: &[String], out: &mut impl Write) -> Result<ExitCode> {
    let (dir, json) = match args {
        [dir] => (dir, false),
        [dir, flag] | [flag, dir] if flag == "--json" => (dir, true),
        _ => bail!("expected: swaplab parse <DIR> [--json]"),
    };
    let project = load::project(Path::new(dir))?;
    let report = read_project(&project);
    if json {
        serde_json::to_writer_pretty(&mut *out, &document(&report))?;
        writeln!(out)?;
    } else {
        human(&report, out)?;
    }
    Ok(if report.has_errors() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The JSON document.
pub fn document(report: &ProjectReport) -> Value {
    let mut skills = Map::new();
    for entry in &report.skills {
        let value = match (entry.loaded(), &entry.skill_md, &entry.load_error) {
            (Some(skill), _, _) => serde_json::to_value(skill).unwrap_or(Value::Null),
            (None, Some(file), _) if file.error.is_some() => {
                let error =
                    file.error.as_ref().map(|e| json!({"code": e.code, "message": e.message}));
                json!({ "error": error })
            }
            (None, _, message) => json!({
                "error": {"code": "skill.catalog.load_failed", "message": message}
            }),
        };
        skills.insert(entry.dir.clone(), value);
    }
    let tool_files = |files: &[ToolFile]| -> Vec<Value> {
        files
            .iter()
            .map(|file| json!({"path": file.path, "tools": serde_json::to_value(&file.module.tools).unwrap_or(Value::Null)}))
            .collect()
    };
    let mut local = Map::new();
    for entry in &report.skills {
        if !entry.tools.is_empty() {
            local.insert(entry.dir.clone(), Value::Array(tool_files(&entry.tools)));
        }
    }
    let memory: Map<String, Value> = report
        .project_memory
        .fields
        .iter()
        .map(|field| (field.name.clone(), serde_json::to_value(field).unwrap_or(Value::Null)))
        .collect();
    json!({
        "skills": skills,
        "project_memory": memory,
        "mcp_servers": {
            "declared": report.integrations.mcp_servers.is_some(),
            "ok": report.integrations.ok,
            "servers": serde_json::to_value(report.integrations.servers()).unwrap_or(Value::Null),
        },
        "mcp_imports": serde_json::to_value(&report.mcp_imports).unwrap_or(Value::Null),
        "tools": {
            "shared": tool_files(&report.shared_tools),
            "local": local,
        },
        "diagnostics": serde_json::to_value(&report.diagnostics).unwrap_or(Value::Null),
    })
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
    let count = |severity| report.diagnostics.iter().filter(|d| d.severity == severity).count();
    for diagnostic in &report.diagnostics {
        writeln!(out, "{diagnostic}")?;
    }
    writeln!(
        out,
        "{} skills, {} loaded; {} errors, {} warnings",
        report.skills.len(),
        report.loaded_skills().count(),
        count(Severity::Error),
        count(Severity::Warning)
    )?;
    Ok(())
}
