//! The companion proof, re-implemented: the tutorial repository's
//! `scripts/prove_mcp_swap.py` run on the files of a workspace, with its six groups, its
//! checks, its fixed names and its blind spots, printed in its format.
//!
//! The script never runs Rasa's runtime. It diffs each skill's `skill.md` before and after
//! with `difflib`, parses `integrations.yml` with Rasa's own helper, looks for the import
//! references as text, starts the mock CRM and the MCP server, and calls the server over
//! MCP. What it hard-codes, this copy hard-codes too:
//! - the three skills and their tools ([`SKILLS`]), the server id [`SERVER_ID`] and the
//!   URL [`MCP_URL`];
//! - the contact it looks up ([`KNOWN_EMAIL`], expecting [`KNOWN_NAME`]) and the address
//!   nobody has ([`ABSENT_EMAIL`]);
//! - its header lines and its words on failure.
//!
//! What it computes — every pass or fail, every count and every detail — is computed here
//! from the files, by the script's rules: a changed line passes if it is `import_tools:`
//! or starts with `- `, wherever it sits (so a confirmation moved to another tool still
//! passes); a body is the text after the second `---\n`, counted in characters; an import
//! "parses" when the text `mcp/hubspot_crm:<tool>` appears anywhere in the skill file.
//!
//! Where the script would stop — a file it cannot open, a configuration Rasa's parser
//! raises on, a server that does not listen where it waits — the proof stops there too
//! ([`Stop`]), after the groups the script would have printed.

use serde::Serialize;

use crate::diagnostic::{Phase, Severity};
use crate::difflib::{splitlines, unified_changes, universal_newlines};
use crate::rasa::skill::py_strip;
use crate::sim::Simulation;
use crate::sim::crm::Crm;
use crate::sim::json::{self, JsonValue, object, string};
use crate::workspace::Workspace;
use crate::yaml::python_str_repr;

/// The label column's width.
pub const LABEL_WIDTH: usize = 44;
/// The last line of a passing proof.
pub const CLOSING: &str = "The transport changed. The instructions did not.";
/// The script's fixed map of skills to the tools they import, in the order it checks them
/// (`sorted(SKILLS)`).
pub const SKILLS: [(&str, &str); 3] = [
    ("check_tickets", "list_open_tickets"),
    ("identify_customer", "find_contact_by_email"),
    ("log_interaction", "add_timeline_note"),
];
/// The server id the script expects under `mcp_servers:`.
pub const SERVER_ID: &str = "hubspot_crm";
/// The URL the script expects that server at, and connects to.
pub const MCP_URL: &str = "http://127.0.0.1:8931/mcp";
/// Where the script waits for the MCP server to listen.
pub const MCP_PORT: u16 = 8931;
/// The server script the script starts.
pub const MCP_SCRIPT: &str = "scripts/mcp_crm_server.py";
/// The tool group 6 calls.
pub const LOOKUP_TOOL: &str = "find_contact_by_email";
/// The address group 6 looks up.
pub const KNOWN_EMAIL: &str = "dana.okafor@example.com";
/// The name group 6 expects back.
pub const KNOWN_NAME: &str = "Dana Okafor";
/// An address no seed holds, for the absent-contact check.
pub const ABSENT_EMAIL: &str = "nobody@example.com";
/// The script's header, printed as it is whatever the files hold.
pub const HEADER: [&str; 3] = [
    "Proving: the same three skills keep their instructions while",
    "tools/crm.py is replaced by import_tools: mcp/<server>:<tool>.",
    "No licence, no API key, no HubSpot account, loopback only.",
];

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

/// Why the script ended before its last group.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Stop {
    /// An exception escaped: the script prints a traceback ending in this line, and exits 1.
    Raised {
        /// `FileNotFoundError: [Errno 2] No such file or directory: '…'`, say.
        exception: String,
    },
    /// A server it started did not listen where it waits for it (`SystemExit`).
    NotUp {
        /// The script it started (`scripts/mcp_crm_server.py`).
        script: String,
        /// The port it waited on.
        port: u16,
        /// Why, in Swap Lab's words (the script does not say).
        reason: String,
    },
    /// Swap Lab cannot tell what the script would do: the server module is outside the
    /// Python it runs. Neither a pass nor a fail.
    CouldNotRun {
        /// Where and what, from the interpreter's diagnostic.
        reason: String,
    },
}

impl Stop {
    /// The lines the script ends with, as printed.
    pub fn text(&self) -> String {
        match self {
            Stop::Raised { exception } => {
                format!("Traceback (most recent call last):\n  …\n{exception}\n")
            }
            Stop::NotUp { script, port, .. } => format!("  {script} did not come up on {port}\n"),
            Stop::CouldNotRun { reason } => {
                format!("  Swap Lab could not run the rest of the proof: {reason}\n")
            }
        }
    }

    /// The script's last line: the exception, or the port it waited on.
    pub fn headline(&self) -> String {
        self.text().trim_end().lines().last().unwrap_or_default().trim().to_owned()
    }

    /// One line for a badge or a summary.
    pub fn summary(&self) -> String {
        match self {
            Stop::Raised { exception } => format!("the script raised {exception}"),
            Stop::NotUp { script, port, reason } => {
                format!("{script} did not come up on {port}: {reason}")
            }
            Stop::CouldNotRun { reason } => format!("could not run: {reason}"),
        }
    }
}

/// The whole proof.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Proof {
    /// The opening lines.
    pub header: Vec<String>,
    /// The groups the script got to print.
    pub groups: Vec<ProofGroup>,
    /// Where it stopped early, if it did.
    pub stop: Option<Stop>,
}

impl Proof {
    /// Whether the script would exit 0: every check passed and nothing stopped it.
    pub fn passed(&self) -> bool {
        self.stop.is_none() && self.failed().is_empty()
    }

    /// The checks that failed, in order.
    pub fn failed(&self) -> Vec<&ProofCheck> {
        self.groups.iter().flat_map(|g| g.checks.iter()).filter(|c| !c.passed).collect()
    }

    /// How many checks ran.
    pub fn count(&self) -> usize {
        self.groups.iter().map(|g| g.checks.len()).sum()
    }

    /// Whether Swap Lab could not tell the outcome (never reads as a pass or a fail).
    pub fn could_not_run(&self) -> bool {
        matches!(self.stop, Some(Stop::CouldNotRun { .. }))
    }

    /// The output, as the script prints it (its traceback cut to the last line).
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
        if let Some(stop) = &self.stop {
            out.push_str(&stop.text());
            return out;
        }
        let failed = self.failed();
        if failed.is_empty() {
            out.push_str(&format!("\n  {CLOSING}\n"));
        } else {
            out.push_str(&format!("\n  {} check(s) failed:\n", failed.len()));
            for check in failed {
                out.push_str(&format!("    - {}\n", check.label));
            }
            out.push('\n');
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

/// Python's `repr()` of a list of strings.
fn py_list<S: AsRef<str>>(items: &[S]) -> String {
    format!(
        "[{}]",
        items.iter().map(|i| python_str_repr(i.as_ref())).collect::<Vec<_>>().join(", ")
    )
}

/// Python's `str()` of a JSON value as `json.loads` gives it.
fn py_str(value: Option<&JsonValue>) -> String {
    match value {
        None | Some(JsonValue::Null) => "None".to_owned(),
        Some(JsonValue::Str(s)) => s.clone(),
        Some(other) => py_repr(other),
    }
}

fn py_repr(value: &JsonValue) -> String {
    match value {
        JsonValue::Null => "None".to_owned(),
        JsonValue::Bool(true) => "True".to_owned(),
        JsonValue::Bool(false) => "False".to_owned(),
        JsonValue::Str(s) => python_str_repr(s),
        JsonValue::Array(items) => {
            format!("[{}]", items.iter().map(py_repr).collect::<Vec<_>>().join(", "))
        }
        JsonValue::Object(entries) => format!(
            "{{{}}}",
            entries
                .iter()
                .map(|(k, v)| format!("{}: {}", python_str_repr(k), py_repr(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        number => number.to_python_json(),
    }
}

fn skill_md(skill: &str) -> String {
    format!("skills/{skill}/skill.md")
}

/// `open(path).read()`, or the exception the script would die of.
fn read(project: &crate::workspace::Project, area: &str, path: &str) -> Result<String, Stop> {
    project.file(path).map(|text| universal_newlines(text).into_owned()).ok_or_else(|| {
        Stop::Raised {
            exception: format!(
                "FileNotFoundError: [Errno 2] No such file or directory: '{area}/{path}'"
            ),
        }
    })
}

/// Runs the proof on a workspace.
pub fn prove(workspace: &Workspace) -> Proof {
    let sim = Simulation::new(workspace);
    prove_with(workspace, &sim)
}

/// Runs the proof with an already read simulation.
pub fn prove_with(workspace: &Workspace, sim: &Simulation) -> Proof {
    let mut proof = Proof {
        header: HEADER.iter().map(|line| (*line).to_owned()).collect(),
        groups: Vec::new(),
        stop: None,
    };
    if let Err(stop) = run(workspace, sim, &mut proof.groups) {
        proof.stop = Some(stop);
    }
    proof
}

/// The script's `main()`: each group is pushed before its checks run, as the script
/// prints its heading first.
fn run(workspace: &Workspace, sim: &Simulation, groups: &mut Vec<ProofGroup>) -> Result<(), Stop> {
    groups.push(heading(1, "skill instructions are unchanged by the swap"));
    prose_unchanged(workspace, &mut last(groups).checks)?;

    groups.push(heading(2, "integrations.yml parses as MCP server configuration"));
    let configured = integrations(workspace, sim, &mut last(groups).checks)?;

    groups.push(heading(3, "each skill's import parses as mcp/<server>:<tool>"));
    imports(workspace, &mut last(groups).checks)?;

    groups.push(heading(4, "every imported server is configured"));
    let missing = !configured.iter().any(|s| s == SERVER_ID);
    last(groups).checks.push(check(
        "no skill imports an unconfigured server",
        !missing,
        if missing {
            format!("missing from integrations.yml: {}", py_list(&[SERVER_ID]))
        } else {
            format!("{} ⊆ {}", py_list(&[SERVER_ID]), py_list(&configured))
        },
    ));

    let server = server_up(sim)?;

    groups.push(heading(5, "the MCP server exposes the imported tools"));
    let listed: Vec<&str> = server.module.tools.iter().map(|t| t.name.as_str()).collect();
    for (skill, tool) in SKILLS {
        let offered = listed.contains(&tool);
        last(groups).checks.push(check(
            format!("server exposes {tool}"),
            offered,
            if offered {
                format!("imported by {skill}")
            } else {
                "not offered by the server".into()
            },
        ));
    }

    groups.push(heading(6, "a tool call over MCP returns the CRM fact"));
    lookup(sim, server, &mut last(groups).checks)
}

fn heading(number: usize, title: &str) -> ProofGroup {
    ProofGroup { number, title: title.to_owned(), checks: Vec::new() }
}

fn last(groups: &mut [ProofGroup]) -> &mut ProofGroup {
    groups.last_mut().expect("a group was just pushed")
}

/// Group 1: every changed line is an import line, and the bodies are identical.
fn prose_unchanged(workspace: &Workspace, checks: &mut Vec<ProofCheck>) -> Result<(), Stop> {
    for (skill, _) in SKILLS {
        let path = skill_md(skill);
        let rest = read(&workspace.before, "before", &path)?;
        let mcp = read(&workspace.after, "after", &path)?;
        let (rest_lines, mcp_lines) = (splitlines(&rest), splitlines(&mcp));
        // `unified_diff` lines that start with `+`/`-` but not `+++`/`---`: so a removed
        // line that itself starts with `--` (a `---` delimiter) is dropped, as there.
        let changed: Vec<&str> = unified_changes(&rest_lines, &mcp_lines)
            .into_iter()
            .filter(|(mark, line)| !line.starts_with(if *mark == '+' { "++" } else { "--" }))
            .map(|(_, line)| py_strip(line))
            .collect();
        let offending: Vec<&str> = changed
            .iter()
            .copied()
            .filter(|line| *line != "import_tools:" && !line.starts_with("- "))
            .collect();
        checks.push(check(
            format!("{skill}: only import_tools differs"),
            offending.is_empty(),
            if offending.is_empty() {
                format!("{} changed line(s)", changed.len())
            } else {
                format!("prose changed: {}", py_list(&offending))
            },
        ));
        let body = |text: &str| text.splitn(3, "---\n").last().unwrap_or_default().to_owned();
        let (rest_body, mcp_body) = (body(&rest), body(&mcp));
        let same = rest_body == mcp_body;
        checks.push(check(
            format!("{skill}: instruction body byte-identical"),
            same,
            if same {
                format!("{} bytes", rest_body.chars().count())
            } else {
                "bodies differ".to_owned()
            },
        ));
    }
    Ok(())
}

/// Group 2: `parse_mcp_servers` on the after project's `integrations.yml`. Returns the
/// configured server ids, sorted.
fn integrations(
    workspace: &Workspace,
    sim: &Simulation,
    checks: &mut Vec<ProofCheck>,
) -> Result<Vec<String>, Stop> {
    let integrations = &sim.report.after.integrations;
    let file = "integrations.yml";
    let text = read(&workspace.after, "after", file)?;
    // `read_yaml_file` raises on a syntax error; `raw.get(…)` on a file that is not a
    // mapping; `parse_mcp_servers` on a server list it refuses.
    if let Some(error) = integrations
        .diagnostics
        .iter()
        .find(|d| !integrations.ok && d.severity == Severity::Error && d.phase != Phase::Train)
    {
        let line = error.span.start.line;
        return Err(Stop::Raised { exception: format!("{} (after/{file}:{line})", error.message) });
    }
    if let Some(kind) = root_type(&text).filter(|kind| *kind != "dict") {
        return Err(Stop::Raised {
            exception: format!("AttributeError: '{kind}' object has no attribute 'get'"),
        });
    }
    let mut configured: Vec<String> =
        integrations.servers().iter().map(|s| s.name.clone()).collect();
    crate::order::sort(&mut configured);
    configured.dedup();
    checks.push(check(
        "parse_mcp_servers accepts the file",
        configured == [SERVER_ID],
        format!("servers: {}", py_list(&configured)),
    ));
    let server = integrations.server(SERVER_ID);
    checks.push(check(
        "server url is loopback http",
        server.is_some_and(|s| s.url == MCP_URL),
        match server {
            Some(server) => server.url.clone(),
            None => format!("no server named {}", python_str_repr(SERVER_ID)),
        },
    ));
    Ok(configured)
}

/// The Python type of a YAML file's top node, as `read_yaml_file` returns it (`None` for
/// a file with no document, which `raw.get` also fails on).
fn root_type(text: &str) -> Option<&'static str> {
    match crate::yaml::parse(text, crate::diagnostic::Position::new(1, 1)) {
        Ok(Some(node)) => Some(node.value.type_name()),
        Ok(None) => Some("NoneType"),
        Err(_) => None,
    }
}

/// Group 3: the fixed reference appears in each skill file, as text.
fn imports(workspace: &Workspace, checks: &mut Vec<ProofCheck>) -> Result<(), Stop> {
    for (skill, tool) in SKILLS {
        let text = read(&workspace.after, "after", &skill_md(skill))?;
        let declared = text.contains(&format!("mcp/{SERVER_ID}:{tool}"));
        checks.push(check(
            format!("{skill} imports {tool}"),
            declared,
            if declared {
                format!("server={SERVER_ID} llm sees '{tool}'")
            } else {
                "reference not found in skill.md".to_owned()
            },
        ));
    }
    Ok(())
}

/// The script starts the mock CRM on 8787 and the MCP server on 8931, and waits for both
/// ports. Swap Lab's mock CRM always listens; the MCP server listens where its file's
/// `FastMCP(…, host=…, port=…)` says (FastMCP's defaults are `127.0.0.1` and 8000).
fn server_up(sim: &Simulation) -> Result<&crate::sim::mcp::McpServer, Stop> {
    let not_up =
        |reason: String| Stop::NotUp { script: MCP_SCRIPT.to_owned(), port: MCP_PORT, reason };
    let Some(server) = sim.server.as_deref() else {
        return Err(not_up("the workspace has no MCP server file".to_owned()));
    };
    let module = &server.module;
    // A construct outside the Python Swap Lab runs is Swap Lab's limit, not the server's:
    // `tools/list` comes from the scanner either way, and a call that reaches the
    // construct stops the proof in group 6 as "could not run". Any other error (a syntax
    // error, a signature FastMCP refuses) would stop the real server at import.
    let error = module
        .diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error && d.code != crate::python::UNSUPPORTED);
    if let Some(error) = error {
        return Err(not_up(format!(
            "it stops at {}:{}: {}",
            server.file, error.span.start.line, error.message
        )));
    }
    if module.instance.is_none() {
        return Err(not_up("the file creates no FastMCP instance".to_owned()));
    }
    let host = module.host.as_deref().unwrap_or("127.0.0.1");
    let port = module.port.unwrap_or(8000);
    let reaches_loopback = matches!(host, "127.0.0.1" | "localhost" | "0.0.0.0" | "" | "::");
    if !reaches_loopback || port != i64::from(MCP_PORT) {
        return Err(not_up(format!("the server listens on {host}:{port}")));
    }
    Ok(server)
}

/// Group 6: `find_contact_by_email` over MCP, for a known address and for an absent one.
/// A call whose tool body leaves the Python Swap Lab runs stops the proof as "could not
/// run": what the real server would answer is unknown, so neither a pass nor a fail.
fn lookup(
    sim: &Simulation,
    server: &crate::sim::mcp::McpServer,
    checks: &mut Vec<ProofCheck>,
) -> Result<(), Stop> {
    // The script starts both servers with these, unless the environment has them.
    let mut seed = sim.seed.clone();
    let from = "the proof's default";
    seed.network.setdefault("HUBSPOT_BASE_URL", "http://127.0.0.1:8787", from);
    seed.network.setdefault("HUBSPOT_ACCESS_TOKEN", "mock-token", from);
    let mut crm = Crm::new(seed);
    let init = object([
        ("jsonrpc", string("2.0")),
        ("id", JsonValue::Int(0)),
        ("method", string("initialize")),
        (
            "params",
            object([
                ("protocolVersion", string("2025-06-18")),
                ("capabilities", JsonValue::Object(Vec::new())),
                ("clientInfo", object([("name", string("proof")), ("version", string("1"))])),
            ]),
        ),
    ]);
    server.handle(&init, &mut crm);
    let mut call = |id: i64, email: &str| {
        let request = object([
            ("jsonrpc", string("2.0")),
            ("id", JsonValue::Int(id)),
            ("method", string("tools/call")),
            (
                "params",
                object([
                    ("name", string(LOOKUP_TOOL)),
                    ("arguments", object([("email", string(email))])),
                ]),
            ),
        ]);
        let exchange = server.handle(&request, &mut crm);
        if let Some(note) = exchange.call.as_ref().and_then(|c| c.unsupported.clone()) {
            return Err(Stop::CouldNotRun { reason: format!("{LOOKUP_TOOL}: {note}") });
        }
        // `result.structuredContent`, `None` when absent or null.
        Ok(exchange
            .response
            .and_then(|r| json::get(&r, "result").cloned())
            .and_then(|r| json::get(&r, "structuredContent").cloned())
            .filter(|v| *v != JsonValue::Null))
    };
    let found = call(1, KNOWN_EMAIL)?;
    checks.push(check(
        "result is structured, not text blocks",
        found.is_some(),
        if found.is_some() {
            "outputSchema published"
        } else {
            "structuredContent is None — tool has no outputSchema"
        },
    ));
    let get = |payload: &Option<JsonValue>, key: &str| {
        payload.as_ref().and_then(|p| json::get(p, key)).cloned()
    };
    let ok = get(&found, "ok") == Some(JsonValue::Bool(true));
    let name = get(&found, "name");
    checks.push(check(
        format!("{LOOKUP_TOOL} over MCP"),
        ok && name == Some(string(KNOWN_NAME)),
        format!("{} at {}", py_str(name.as_ref()), py_str(get(&found, "company").as_ref())),
    ));
    let absent = call(2, ABSENT_EMAIL)?;
    let error = get(&absent, "error");
    checks.push(check(
        "absent contact is not an error",
        error == Some(string("contact_not_found")),
        format!("error={}", py_str(error.as_ref())),
    ));
    Ok(())
}
