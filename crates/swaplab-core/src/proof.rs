//! The companion proof, re-implemented: the tutorial's proof script run on the files of a
//! workspace, with its six groups, its checks and its blind spots, printed in its format.
//!
//! The script never runs Rasa's runtime. It compares each skill's `skill.md` before and
//! after, parses `integrations.yml` and the imports with Rasa's own helpers, and calls the
//! MCP server directly. Its first check accepts any changed line that starts with `- `
//! (or is `import_tools:`), wherever it sits — so a confirmation moved to another tool
//! still passes. Everything printed is derived from the files: skill names, byte counts,
//! server names, the contact looked up (the CRM seed's first contact).
//!
//! Output format (from the script's own output): a heading per group, then
//! `  ✓ <label padded to 44> <detail>`, a blank line between groups, and either the
//! closing line or the list of failed checks (that list's wording is ours: the seeds show
//! only passing runs and single failing lines).

use serde::Serialize;

use crate::diff::changed_lines;
use crate::rasa::imports::try_parse_mcp_tool_import;
use crate::rasa::skill::instruction_body;
use crate::rasa::workspace::WorkspaceReport;
use crate::sim::Simulation;
use crate::sim::crm::Crm;
use crate::sim::json::{self, Value, object, string};
use crate::workspace::Workspace;
use crate::yaml::python_str_repr;

/// The label column's width.
pub const LABEL_WIDTH: usize = 44;
/// The last line of a passing proof.
pub const CLOSING: &str = "The transport changed. The instructions did not.";
/// An address no seed holds, for the absent-contact check.
pub const ABSENT_EMAIL: &str = "nobody@example.invalid";

/// One check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProofCheck {
    /// What is checked (`check_tickets: only import_tools differs`).
    pub label: String,
    /// Whether it passed.
    pub passed: bool,
    /// The detail column (`2 changed line(s)`).
    pub detail: String,
}

/// One numbered group.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProofGroup {
    /// 1 to 6.
    pub number: usize,
    /// Its heading.
    pub title: String,
    /// Its checks.
    pub checks: Vec<ProofCheck>,
}

/// The whole proof.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Proof {
    /// The opening lines.
    pub header: Vec<String>,
    /// The six groups.
    pub groups: Vec<ProofGroup>,
}

impl Proof {
    /// Whether every check passed.
    pub fn passed(&self) -> bool {
        self.failed().is_empty()
    }

    /// The checks that failed, in order.
    pub fn failed(&self) -> Vec<&ProofCheck> {
        self.groups.iter().flat_map(|g| g.checks.iter()).filter(|c| !c.passed).collect()
    }

    /// How many checks there are.
    pub fn count(&self) -> usize {
        self.groups.iter().map(|g| g.checks.len()).sum()
    }

    /// The output, as the script prints it.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for line in &self.header {
            out.push_str(&format!("  {line}\n"));
        }
        for group in &self.groups {
            out.push_str(&format!("\n  {}. {}\n", group.number, group.title));
            for check in &group.checks {
                out.push_str(&check_line(check));
                out.push('\n');
            }
        }
        let failed = self.failed();
        if failed.is_empty() {
            out.push_str(&format!("\n  {CLOSING}\n"));
        } else {
            let n = failed.len();
            out.push_str(&format!(
                "\n  {n} of {} failed:\n",
                crate::words::count(self.count(), "check", "checks")
            ));
            for check in failed {
                out.push_str(&format!("    ✗ {}\n", check.label));
            }
        }
        out
    }
}

/// `  ✓ <label> <detail>` with the label padded to [`LABEL_WIDTH`].
pub fn check_line(check: &ProofCheck) -> String {
    let mark = if check.passed { '✓' } else { '✗' };
    format!("  {mark} {:<width$} {}", check.label, check.detail, width = LABEL_WIDTH)
}

fn check(label: impl Into<String>, passed: bool, detail: impl Into<String>) -> ProofCheck {
    ProofCheck { label: label.into(), passed, detail: detail.into() }
}

fn number_word(n: usize) -> String {
    const WORDS: [&str; 13] = [
        "no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve",
    ];
    WORDS.get(n).map_or_else(|| n.to_string(), |w| (*w).to_owned())
}

fn py_list(items: &[String]) -> String {
    format!("[{}]", items.iter().map(|i| python_str_repr(i)).collect::<Vec<_>>().join(", "))
}

fn skill_md(skill: &str) -> String {
    format!("skills/{skill}/skill.md")
}

/// Runs the proof on a workspace.
pub fn prove(workspace: &Workspace) -> Proof {
    let sim = Simulation::new(workspace);
    prove_with(workspace, &sim)
}

/// Runs the proof with an already read simulation.
pub fn prove_with(workspace: &Workspace, sim: &Simulation) -> Proof {
    let report = &sim.report;
    let skills = common_skills(report);
    // The header names the shared tool modules the swap removes (`tools/*.py`), or every
    // removed tool module when no shared one is.
    let removed: Vec<String> = workspace
        .before
        .files()
        .map(|(p, _)| p)
        .filter(|p| p.ends_with(".py") && workspace.after.file(p).is_none())
        .map(str::to_owned)
        .collect();
    let shared: Vec<String> = removed.iter().filter(|p| p.starts_with("tools/")).cloned().collect();
    let replaced = if shared.is_empty() { removed } else { shared };
    let replaced_text = match replaced.as_slice() {
        [] => "no tool module".to_owned(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    };
    let verb = if replaced.len() > 1 { "are" } else { "is" };
    let header = vec![
        format!(
            "Proving: the same {} skill{} keep their instructions while",
            number_word(skills.len()),
            if skills.len() == 1 { "" } else { "s" }
        ),
        format!("{replaced_text} {verb} replaced by import_tools: mcp/<server>:<tool>."),
        "No licence, no API key, no HubSpot account, loopback only.".to_owned(),
    ];
    let groups = vec![
        ProofGroup {
            number: 1,
            title: "skill instructions are unchanged by the swap".into(),
            checks: group_instructions(workspace, &sim.report, &skills),
        },
        ProofGroup {
            number: 2,
            title: "integrations.yml parses as MCP server configuration".into(),
            checks: group_integrations(report),
        },
        ProofGroup {
            number: 3,
            title: "each skill's import parses as mcp/<server>:<tool>".into(),
            checks: group_imports(report),
        },
        ProofGroup {
            number: 4,
            title: "every imported server is configured".into(),
            checks: group_configured(report),
        },
        ProofGroup {
            number: 5,
            title: "the MCP server exposes the imported tools".into(),
            checks: group_exposed(report),
        },
        ProofGroup {
            number: 6,
            title: "a tool call over MCP returns the CRM fact".into(),
            checks: group_call(sim),
        },
    ];
    Proof { header, groups }
}

/// Skills with a `skill.md` on both sides, sorted.
fn common_skills(report: &WorkspaceReport) -> Vec<String> {
    report
        .after
        .skills
        .iter()
        .filter(|e| e.skill_md.is_some())
        .filter(|e| report.before.entry(&e.dir).is_some_and(|b| b.skill_md.is_some()))
        .map(|e| e.dir.clone())
        .collect()
}

fn group_instructions(
    workspace: &Workspace,
    report: &WorkspaceReport,
    skills: &[String],
) -> Vec<ProofCheck> {
    // The body as the skill's reading made it (a memo keeps it for an unchanged file).
    let body = |project: &crate::rasa::project::ProjectReport, text: &str, skill: &str| {
        project
            .entry(skill)
            .and_then(|entry| entry.skill_md.as_ref())
            .map_or_else(|| instruction_body(text), |md| md.instruction_body.clone())
    };
    let mut checks = Vec::new();
    for skill in skills {
        let path = skill_md(skill);
        let old = workspace.before.file(&path).unwrap_or_default();
        let new = workspace.after.file(&path).unwrap_or_default();
        let changed: Vec<(usize, String)> =
            changed_lines(old, new).into_iter().map(|l| (l.line, l.text.to_owned())).collect();
        // The script's loose rule: a changed line passes if it is an import_tools key or
        // starts with "- ", whatever it sits under.
        let other: Vec<usize> = changed
            .iter()
            .filter(|(_, text)| {
                let t = text.trim();
                !(t.starts_with("- ") || t.starts_with("import_tools:"))
            })
            .map(|(line, _)| *line)
            .collect();
        let detail = if other.is_empty() {
            format!("{} changed line(s)", changed.len())
        } else {
            format!(
                "{} other changed line(s), at line {}",
                other.len(),
                other.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
            )
        };
        checks.push(check(format!("{skill}: only import_tools differs"), other.is_empty(), detail));
        let (a, b) = (body(&report.before, old, skill), body(&report.after, new, skill));
        let (passed, detail) = match (&a, &b) {
            (Some(a), Some(b)) if a == b => (true, format!("{} bytes", b.len())),
            (Some(a), Some(b)) => (false, format!("{} bytes before, {} after", a.len(), b.len())),
            _ => (false, "no frontmatter delimiters".to_owned()),
        };
        checks.push(check(format!("{skill}: instruction body byte-identical"), passed, detail));
    }
    checks
}

fn group_integrations(report: &WorkspaceReport) -> Vec<ProofCheck> {
    let integrations = &report.after.integrations;
    let mut checks = Vec::new();
    let config_errors: Vec<&str> = integrations
        .diagnostics
        .iter()
        .filter(|d| d.is_error() && d.phase != crate::diagnostic::Phase::Train)
        .map(|d| d.message.as_str())
        .collect();
    let servers: Vec<String> = integrations.servers().iter().map(|s| s.name.clone()).collect();
    let parsed = integrations.declared() && integrations.ok;
    let detail = if parsed {
        format!("servers: {}", py_list(&servers))
    } else if !integrations.declared() {
        "no mcp_servers: in integrations.yml".to_owned()
    } else {
        config_errors.first().map_or_else(|| "refused".to_owned(), |m| (*m).to_owned())
    };
    checks.push(check("parse_mcp_servers accepts the file", parsed, detail));
    if servers.is_empty() {
        checks.push(check("server url is loopback http", false, "no server configured"));
    }
    for server in integrations.servers() {
        checks.push(check(
            "server url is loopback http",
            server.is_loopback_http(),
            server.url.clone(),
        ));
    }
    checks
}

/// Every `import_tools` entry of every skill after the swap, sorted by skill.
fn imports(report: &WorkspaceReport) -> Vec<(String, String)> {
    report
        .after
        .loaded_skills()
        .flat_map(|s| s.import_tool_names.iter().map(move |i| (s.id.clone(), i.clone())))
        .collect()
}

fn group_imports(report: &WorkspaceReport) -> Vec<ProofCheck> {
    let found = imports(report);
    if found.is_empty() {
        return vec![check("a skill imports an MCP tool", false, "no import_tools entries")];
    }
    found
        .into_iter()
        .map(|(skill, reference)| match try_parse_mcp_tool_import(&reference) {
            Ok(Some((server, tool))) => check(
                format!("{skill} imports {tool}"),
                true,
                format!("server={server} llm sees '{tool}'"),
            ),
            Ok(None) => check(
                format!("{skill} imports {reference}"),
                false,
                "not an mcp/<server>:<tool> import",
            ),
            Err(message) => check(format!("{skill} imports {reference}"), false, message),
        })
        .collect()
}

fn group_configured(report: &WorkspaceReport) -> Vec<ProofCheck> {
    let mut imported: Vec<String> =
        report.after.mcp_imports.iter().map(|i| i.server.clone()).collect();
    crate::order::sort(&mut imported);
    imported.dedup();
    let configured: Vec<String> =
        report.after.integrations.servers().iter().map(|s| s.name.clone()).collect();
    let passed = imported.iter().all(|s| configured.contains(s));
    vec![check(
        "no skill imports an unconfigured server",
        passed,
        format!("{} ⊆ {}", py_list(&imported), py_list(&configured)),
    )]
}

fn group_exposed(report: &WorkspaceReport) -> Vec<ProofCheck> {
    let listed: Vec<&str> =
        report.server.iter().flat_map(|s| s.tools.iter().map(|t| t.name.as_str())).collect();
    let mut checks: Vec<ProofCheck> = report
        .after
        .mcp_imports
        .iter()
        .map(|i| {
            check(
                format!("server exposes {}", i.tool),
                listed.contains(&i.tool.as_str()),
                format!("imported by {}", i.skill),
            )
        })
        .collect();
    if report.server.is_none() {
        checks.push(check("the server file is there", false, "no server file in the workspace"));
    }
    checks
}

fn group_call(sim: &Simulation) -> Vec<ProofCheck> {
    let Some(server) = &sim.server else {
        return vec![check("a tool call over MCP", false, "no server file in the workspace")];
    };
    // The lookup tool: the one whose body searches contacts by email.
    let tool = server
        .module
        .tools
        .iter()
        .find(|t| t.crm_calls.iter().any(|c| c.function == "search_contact_by_email"))
        .or_else(|| server.tool("find_contact_by_email"));
    let Some(tool) = tool else {
        return vec![check(
            "a lookup tool over MCP",
            false,
            "the server has no tool that searches contacts by email",
        )];
    };
    let argument = tool.params.iter().find(|p| !p.injected).map_or("email", |p| p.name.as_str());
    let mut crm = Crm::new(sim.seed.clone());
    let init = object([
        ("jsonrpc", string("2.0")),
        ("id", Value::Int(0)),
        ("method", string("initialize")),
        (
            "params",
            object([
                ("protocolVersion", string("2025-06-18")),
                ("capabilities", Value::Object(Vec::new())),
                ("clientInfo", object([("name", string("proof")), ("version", string("1"))])),
            ]),
        ),
    ]);
    server.handle(&init, &mut crm);
    let mut call = |id: i64, email: &str| {
        let request = object([
            ("jsonrpc", string("2.0")),
            ("id", Value::Int(id)),
            ("method", string("tools/call")),
            (
                "params",
                object([
                    ("name", string(&tool.name)),
                    ("arguments", Value::Object(vec![(argument.to_owned(), string(email))])),
                ]),
            ),
        ]);
        server.handle(&request, &mut crm).response.and_then(|r| json::get(&r, "result").cloned())
    };
    let known = sim.seed.contacts.first();
    let found = known.and_then(|c| call(1, &c.email));
    let structured = |result: &Option<Value>| {
        result
            .as_ref()
            .and_then(|r| json::get(r, "structuredContent").cloned())
            .filter(|v| *v != Value::Null)
    };
    let mut checks = Vec::new();
    let published = tool.output_schema.is_some();
    let structured_found = structured(&found);
    checks.push(check(
        "result is structured, not text blocks",
        published && structured_found.is_some(),
        if published {
            "outputSchema published"
        } else {
            "no outputSchema: the result comes back as text blocks"
        },
    ));
    let field = |value: &Option<Value>, key: &str| {
        value
            .as_ref()
            .and_then(|v| json::get(v, key))
            .filter(|v| **v != Value::Null)
            .map_or_else(|| "None".to_owned(), json::plain)
    };
    let (name, company) = (field(&structured_found, "name"), field(&structured_found, "company"));
    let expected = known.map(|c| (c.full_name(), c.company.clone()));
    checks.push(check(
        format!("{} over MCP", tool.name),
        expected.as_ref().is_some_and(|(n, c)| *n == name && *c == company),
        format!("{name} at {company}"),
    ));
    let absent = call(2, ABSENT_EMAIL);
    let absent_structured = structured(&absent);
    let is_error =
        absent.as_ref().and_then(|r| json::get(r, "isError")) == Some(&Value::Bool(true));
    let error = field(&absent_structured, "error");
    checks.push(check(
        "absent contact is not an error",
        !is_error && error == "contact_not_found",
        format!("error={error}"),
    ));
    checks
}
