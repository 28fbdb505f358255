//! The review: what a reviewer must check before approving a swap, as checks with stable
//! ids, verdicts, evidence (file, line, values) and a link to the chapter section that
//! explains each one.
//!
//! The companion proof checks that the instructions survived. The review checks what it
//! cannot see: which arguments each remote tool requires; where every id-like argument's
//! value came from before the swap and where it comes from now; prose that still
//! describes a memory read the swap removed; constraints that moved, vanished or can never
//! match; `execute_tool` steps missing a required argument; blocks nothing can reach;
//! tools without an output schema whose result keys the prose branches on; Rasa's
//! start-up failures; project memory the swap stops writing and what depends on it;
//! imported tools left ungated inside a block; and the attack's leaks.
//!
//! A check that could not be made is [`Verdict::NotTested`], never a pass: the attack
//! when the agent does not start, the seed has no other customer, nothing could be
//! probed or a probe's tool body stopped outside the Python subset (the `leak` check).
//! A review with such a check and no failure is [`ReviewOutcome::Incomplete`], and
//! [`Review::passed`] is false for it. Where the scanner could not follow a tool's body
//! (a helper, an import, a construct outside the subset), the `id-source` checks say that
//! Swap Lab could not tell what the tool does to a customer's record, never that it does
//! not touch one.
//!
//! Ids are `<check>` or `<check>:<subject>` (`id-source:list_open_tickets.contact_id`);
//! they stay stable while the subject exists, so a CI job can allow one by id. The
//! `why` links name chapter sections (`/learn/<chapter>#<anchor>`); the content tests
//! check that each resolves.

use serde::Serialize;

use crate::diagnostic::Span;
use crate::python::{ArgOrigin, McpTool, MemoryOp};
use crate::rasa::arguments::validate_arguments;
use crate::rasa::imports::{ImportRef, parse_import};
use crate::rasa::project::ProjectReport;
use crate::rasa::skill::{BodyEntry, GatedTool, Skill, StepKind};
use crate::sim::agent::{Agent, Bound, Target};
use crate::sim::attack::{
    AttackOptions, AttackVerdict, LeakKind, NotTested, Probe, ProbeOutcome, is_id_like,
};
use crate::sim::crm::Access;
use crate::sim::json::JsonValue;
use crate::sim::mcp::McpServer;
use crate::sim::run::{Route, Run};
use crate::sim::{AttackPair, Side, Simulation};
use crate::workspace::{Area, Workspace};

/// A check's outcome, worst first (the order groups are sorted by).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Something a reviewer must not approve.
    Fail,
    /// Worth a look; does not fail the review.
    Warn,
    /// The check could not be made (the attack could not run, a probe's tool body is
    /// outside the Python subset): neither a pass nor a fail. A review with one and no
    /// failure is [`ReviewOutcome::Incomplete`], never a pass.
    NotTested,
    /// Holds.
    Pass,
    /// A fact to know (the arguments a tool requires).
    Info,
}

impl Verdict {
    /// `✗`, `!`, `?`, `✓` or `·`.
    pub fn mark(self) -> &'static str {
        match self {
            Verdict::Fail => "✗",
            Verdict::Warn => "!",
            Verdict::NotTested => "?",
            Verdict::Pass => "✓",
            Verdict::Info => "·",
        }
    }

    /// The class a view styles the verdict with: `fail`, `warn`, `not-tested`, `pass`,
    /// `info`.
    pub fn class(self) -> &'static str {
        match self {
            Verdict::Fail => "fail",
            Verdict::Warn => "warn",
            Verdict::NotTested => "not-tested",
            Verdict::Pass => "pass",
            Verdict::Info => "info",
        }
    }

    /// The verdict as a word for a screen reader: `fails`, `warning`, `not tested`,
    /// `passes`, `note`.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Fail => "fails",
            Verdict::Warn => "warning",
            Verdict::NotTested => "not tested",
            Verdict::Pass => "passes",
            Verdict::Info => "note",
        }
    }
}

/// What a whole review says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewOutcome {
    /// No check failed and every check could be made (warnings and notes allowed).
    Passed,
    /// No check failed, but at least one could not be made: not a pass.
    Incomplete,
    /// At least one check failed.
    Failed,
}

impl Verdict {
    /// Whether a reader is pointed at the chapter that explains the check: a failure, a
    /// warning or a check that could not be made.
    pub fn explained(self) -> bool {
        matches!(self, Verdict::Fail | Verdict::Warn | Verdict::NotTested)
    }
}

/// One piece of evidence: a place in a file and what is there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Evidence {
    /// Which part of the workspace the file is in.
    pub area: Area,
    /// The file's path in that area.
    pub file: String,
    /// Where, when known.
    pub span: Option<Span>,
    /// What it shows.
    pub text: String,
}

impl Evidence {
    /// `after/skills/x/skill.md:12` (the line when known).
    pub fn place(&self) -> String {
        match self.span {
            Some(span) => format!("{}/{}:{}", self.area.prefix(), self.file, span.start.line),
            None => format!("{}/{}", self.area.prefix(), self.file),
        }
    }
}

/// One check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReviewCheck {
    /// Stable id.
    pub id: String,
    /// What the check asks.
    pub title: String,
    /// The outcome.
    pub verdict: Verdict,
    /// The finding in one or two sentences.
    pub summary: String,
    /// Where it shows.
    pub evidence: Vec<Evidence>,
    /// The chapter section that explains it.
    pub why: &'static str,
}

/// The whole review.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Review {
    /// Every check, grouped by kind in a fixed order.
    pub checks: Vec<ReviewCheck>,
    /// The attack behind the `leak` checks.
    pub attack: AttackPair,
}

impl Review {
    /// Failed when any check fails; else incomplete when any could not be made; else
    /// passed.
    pub fn outcome(&self) -> ReviewOutcome {
        if self.count(Verdict::Fail) > 0 {
            ReviewOutcome::Failed
        } else if self.count(Verdict::NotTested) > 0 {
            ReviewOutcome::Incomplete
        } else {
            ReviewOutcome::Passed
        }
    }

    /// Whether the review passed: no check failed, and none was left untested.
    pub fn passed(&self) -> bool {
        self.outcome() == ReviewOutcome::Passed
    }

    /// How many checks have this verdict.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.checks.iter().filter(|c| c.verdict == verdict).count()
    }

    /// The check with this id.
    pub fn check(&self, id: &str) -> Option<&ReviewCheck> {
        self.checks.iter().find(|c| c.id == id)
    }

    /// A plain-text report for people.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for check in &self.checks {
            out.push_str(&format!("{} {}  {}\n", check.verdict.mark(), check.id, check.summary));
            for evidence in &check.evidence {
                out.push_str(&format!("    {}  {}\n", evidence.place(), evidence.text));
            }
            if check.verdict.explained() {
                out.push_str(&format!("    why: {}\n", check.why));
            }
        }
        out.push_str(&format!(
            "\n{}: {}\n",
            crate::words::count(self.checks.len(), "check", "checks"),
            self.totals()
        ));
        out
    }

    /// `8 failed, 4 warnings, 5 passed, 3 notes`, with `1 not tested` after the warnings
    /// when a check could not be made (and only then).
    pub fn totals(&self) -> String {
        let not_tested = match self.count(Verdict::NotTested) {
            0 => String::new(),
            n => format!("{n} not tested, "),
        };
        format!(
            "{} failed, {}, {not_tested}{} passed, {}",
            self.count(Verdict::Fail),
            crate::words::count(self.count(Verdict::Warn), "warning", "warnings"),
            self.count(Verdict::Pass),
            crate::words::count(self.count(Verdict::Info), "note", "notes"),
        )
    }
}

/// Chapter sections the checks link to.
pub mod why {
    /// Where an id comes from; the trust boundary.
    pub const TRUST_BOUNDARY: &str = "/learn/where-ids-come-from#the-trust-boundary";
    /// The attack and its leaks.
    pub const ATTACK: &str = "/learn/where-ids-come-from#the-attack";
    /// Prose that describes a memory read the swap removed.
    pub const STALE_PROSE: &str = "/learn/what-breaks#sentences-that-stopped-being-true";
    /// Constraints resolve by name.
    pub const CONSTRAINTS: &str = "/learn/what-survives#constraints-follow-the-name";
    /// Gates inside hybrid blocks.
    pub const BLOCK_GATES: &str = "/learn/what-survives#gates-inside-blocks";
    /// The execute step that can no longer run.
    pub const STEP: &str = "/learn/what-breaks#the-step-that-cannot-run";
    /// Blocks nothing can reach.
    pub const UNREACHABLE: &str = "/learn/what-breaks#blocks-nothing-can-reach";
    /// Project memory that is no longer written.
    pub const PROJECT_MEMORY: &str = "/learn/what-breaks#project-memory-is-no-longer-written";
    /// The output schema finding.
    pub const OUTPUT_SCHEMA: &str = "/learn/the-output-schema#what-the-model-sees";
    /// Start-up failures and the arguments a tool requires.
    pub const CHECK_YOUR_SWAP: &str = "/learn/check-your-swap#what-the-review-checks";

    /// Every link, for the content tests.
    pub const ALL: [&str; 10] = [
        TRUST_BOUNDARY,
        ATTACK,
        STALE_PROSE,
        CONSTRAINTS,
        BLOCK_GATES,
        STEP,
        UNREACHABLE,
        PROJECT_MEMORY,
        OUTPUT_SCHEMA,
        CHECK_YOUR_SWAP,
    ];
}

fn evidence(area: Area, file: &str, span: Option<Span>, text: impl Into<String>) -> Evidence {
    Evidence { area, file: file.to_owned(), span, text: text.into() }
}

fn skill_md(skill: &str) -> String {
    format!("skills/{skill}/skill.md")
}

fn py_list(items: &[String]) -> String {
    format!(
        "[{}]",
        items.iter().map(|i| crate::yaml::python_str_repr(i)).collect::<Vec<_>>().join(", ")
    )
}

/// Reviews a workspace.
pub fn review(workspace: &Workspace, options: &AttackOptions) -> Review {
    let sim = Simulation::new(workspace);
    review_with(&sim, options)
}

/// Reviews with an already read simulation.
pub fn review_with(sim: &Simulation, options: &AttackOptions) -> Review {
    let before = &sim.report.before;
    let after = &sim.report.after;
    let server_file = sim.report.server_file.clone().unwrap_or_default();
    let after_agent = sim.start(Side::After);
    let imports = imported(after, sim);
    let mut checks = Vec::new();
    checks.extend(remote_arguments(&imports, &server_file));
    // The attack runs first: where the reading of a tool's body cannot follow it (the
    // project's own HTTP client), what the attack's probe saw it do is the evidence.
    let attack = sim.attack_started(after_agent.as_ref().map_err(|e| &**e), options);
    checks.extend(id_sources(
        before,
        after,
        &imports,
        sim.server.as_deref(),
        &server_file,
        &attack.after.probes,
    ));
    checks.extend(stale_prose(before, after));
    checks.extend(constraint_drift(before, after));
    checks.extend(step_arguments(after, after_agent.as_ref().ok()));
    checks.extend(unreachable_blocks(after));
    checks.extend(output_schemas(after, sim, &imports, &server_file, after_agent.as_ref().ok()));
    checks.push(startup(after, &after_agent));
    checks.extend(project_memory(before, after));
    checks.extend(ungated_in_blocks(after_agent.as_ref().ok()));
    // Who answered the attack's requests: the project's own mock CRM, or the seed.
    let crm = sim
        .seed
        .network
        .mock
        .as_ref()
        .map_or((Area::Crm, crate::sim::CRM_FILE), |m| (m.area, m.file.as_str()));
    checks.extend(leaks(&attack, &server_file, crm));
    Review { checks, attack }
}

/// MCP tools imported after the swap, each once, with the first skill that imports it,
/// in import order. (Worked out once per review: three checks walk it, and finding the
/// tools already listed by scanning the list was quadratic in imports.)
fn imported<'s>(after: &'s ProjectReport, sim: &'s Simulation) -> Vec<(&'s str, &'s McpTool)> {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for import in &after.mcp_imports {
        if let Some(tool) = sim.server.as_ref().and_then(|s| s.tool(&import.tool))
            && seen.insert(tool.name.as_str())
        {
            out.push((import.skill.as_str(), tool));
        }
    }
    out
}

fn remote_arguments(imports: &[(&str, &McpTool)], server_file: &str) -> Vec<ReviewCheck> {
    imports
        .iter()
        .map(|&(skill, tool)| {
            let required: Vec<String> = tool.required_args().to_vec();
            ReviewCheck {
                id: format!("remote-arguments:{}", tool.name),
                title: "the arguments each remote tool requires".into(),
                verdict: Verdict::Info,
                summary: format!(
                    "{} requires {} (imported by {skill})",
                    tool.name,
                    py_list(&required)
                ),
                evidence: vec![evidence(
                    Area::Server,
                    server_file,
                    Some(tool.name_span),
                    format!("def {}(…)", tool.function),
                )],
                why: why::CHECK_YOUR_SWAP,
            }
        })
        .collect()
}

/// What a tool does to a customer's record, as a clause: from its CRM calls as the
/// scanner read them, and saying so when the reading may have left something out
/// (`unfollowed`, [`crate::sim::mcp::McpServer::unfollowed`]) — "could not tell" is never
/// "does not touch".
///
/// When the reading could not follow the body but the attack's probe of the tool ran,
/// the records its requests touched say what it does (`probed`): a run is evidence of
/// what the body does, though not that it does nothing more.
fn record_access(
    calls: &[crate::python::CrmCall],
    unfollowed: Option<&str>,
    probed: &[&Probe],
) -> String {
    let writes = calls.iter().any(|c| c.function == "create_note");
    let reads = calls.iter().any(|c| c.function != "create_note");
    let verb = |reads: bool, writes: bool| match (reads, writes) {
        (true, true) => Some("reads and writes"),
        (false, true) => Some("writes"),
        (true, false) => Some("reads"),
        (false, false) => None,
    };
    let found = verb(reads, writes);
    if let (None, Some(why)) = (found, unfollowed) {
        let touched: Vec<&crate::sim::crm::Touched> = probed
            .iter()
            .flat_map(|p| p.requests())
            .filter(|r| r.status < 300)
            .flat_map(|r| r.touched.iter())
            .collect();
        let seen = verb(
            touched.iter().any(|t| t.access == Access::Read),
            touched.iter().any(|t| t.access == Access::Write),
        );
        if let Some(verb) = seen {
            return format!(
                "the tool {verb} a customer's record: the attack's run of it did, though Swap \
                 Lab could not follow all of its body, because {why}"
            );
        }
    }
    match (found, unfollowed) {
        (Some(verb), None) => format!("the tool {verb} a customer's record"),
        (None, None) => "the tool does not touch a customer's record".to_owned(),
        (Some(verb), Some(why)) => format!(
            "the tool {verb} a customer's record, and perhaps more: Swap Lab could not follow all of its body, because {why}"
        ),
        (None, Some(why)) => format!(
            "Swap Lab could not tell whether the tool touches a customer's record, because {why}"
        ),
    }
}

fn id_sources(
    before: &ProjectReport,
    after: &ProjectReport,
    imports: &[(&str, &McpTool)],
    server: Option<&McpServer>,
    server_file: &str,
    probes: &[Probe],
) -> Vec<ReviewCheck> {
    let mut checks = Vec::new();
    for &(skill, tool) in imports {
        let unfollowed = server.and_then(|s| s.unfollowed(&tool.name));
        let probed: Vec<&Probe> = probes.iter().filter(|p| p.tool == tool.name).collect();
        let record_access = record_access(&tool.crm_calls, unfollowed.as_deref(), &probed);
        for param in tool.params.iter().filter(|p| !p.injected && is_id_like(&p.name)) {
            let mut evidence_list = Vec::new();
            let before_source = match before.local_tool(&tool.name) {
                Some((file, local)) => {
                    let from_memory = local
                        .crm_calls
                        .iter()
                        .flat_map(|c| c.args.iter())
                        .find_map(|a| match &a.origin {
                            ArgOrigin::Memory { path } => Some(path.clone().unwrap_or_default()),
                            _ => None,
                        })
                        // A body that hands the id to a client of its own, which the
                        // reading does not follow: the id it reads from memory is the
                        // customer it works on (the attack's rule, `memory_id_read`).
                        .or_else(|| {
                            local.memory.iter().find_map(|m| {
                                let path = m.path.as_deref()?;
                                (m.op == MemoryOp::Get
                                    && path.rsplit('.').next().is_some_and(is_id_like))
                                .then(|| path.to_owned())
                            })
                        });
                    let takes = local.params.iter().any(|p| !p.injected && p.name == param.name);
                    match (from_memory, takes) {
                        (_, true) => {
                            evidence_list.push(evidence(
                                Area::Before,
                                file,
                                Some(local.name_span),
                                format!("{}({}…) took it as an argument", local.name, param.name),
                            ));
                            Some("the model")
                        }
                        (Some(path), false) => {
                            let span = local
                                .memory
                                .iter()
                                .find(|m| {
                                    m.op == MemoryOp::Get
                                        && m.path.as_deref() == Some(path.as_str())
                                })
                                .map(|m| m.span);
                            evidence_list.push(evidence(
                                Area::Before,
                                file,
                                span,
                                format!("context.memory.get(\"{path}\") — server-held memory"),
                            ));
                            Some("server-held memory")
                        }
                        _ => None,
                    }
                }
                None => None,
            };
            let step_bound = after.loaded_skills().any(|s| {
                s.blocks().flat_map(|b| b.steps.iter()).any(|step| match &step.kind {
                    StepKind::Execute { execute_tool, parameters } => {
                        execute_tool == &tool.name
                            && parameters
                                .get(&param.name)
                                .and_then(|v| v.as_str())
                                .is_some_and(|v| v.trim().starts_with("session."))
                    }
                    _ => false,
                })
            });
            let after_source = if step_bound {
                "the model (and a runtime-bound step parameter)"
            } else {
                "the model"
            };
            evidence_list.push(evidence(
                Area::Server,
                server_file,
                Some(param.span),
                format!(
                    "{}: {} — an argument whoever calls the tool fills in",
                    param.name,
                    param.annotation.as_deref().unwrap_or("any")
                ),
            ));
            if let Some(import) = after.imports_of(skill).iter().find(|i| i.tool == tool.name) {
                evidence_list.push(evidence(
                    Area::After,
                    &skill_md(skill),
                    Some(import.span),
                    import.reference.clone(),
                ));
            }
            let (verdict, summary) = match before_source {
                Some("server-held memory") => (
                    Verdict::Fail,
                    format!(
                        "`{}` of {} came from server-held memory before the swap; now {} chooses it, and {}",
                        param.name, tool.name, after_source, record_access
                    ),
                ),
                Some(_) => (
                    Verdict::Pass,
                    format!(
                        "`{}` of {} was already filled in by the model before the swap",
                        param.name, tool.name
                    ),
                ),
                None => (
                    Verdict::Warn,
                    format!(
                        "`{}` of {} (new over MCP) is chosen by {}; {}",
                        param.name, tool.name, after_source, record_access
                    ),
                ),
            };
            checks.push(ReviewCheck {
                id: format!("id-source:{}.{}", tool.name, param.name),
                title: "where each id-like argument's value comes from".into(),
                verdict,
                summary,
                evidence: evidence_list,
                why: why::TRUST_BOUNDARY,
            });
        }
    }
    checks
}

/// Sentences of a skill's prose that describe a tool reading memory: they name project
/// memory, or memory together with reading or looking up, or with one of `tools`. Each
/// with the line it starts on.
fn memory_sentences(skill: &Skill, tools: &[String]) -> Vec<(u32, String)> {
    const MEMORY: &[u8] = b"memory";
    let mut out = Vec::new();
    for segment in skill.segments() {
        let text = segment.text.as_str();
        let mut start = 0;
        let bytes = text.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            let end_of_sentence = (b == b'.' || b == b'!' || b == b'?')
                && bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace());
            if !end_of_sentence && i + 1 != bytes.len() {
                continue;
            }
            let raw = &text[start..=i];
            // Every test below needs the word `memory`; most sentences lack it, so they
            // skip the normalising. (No character outside ASCII lowercases to one of its
            // letters, so an ASCII-case-blind search finds what `to_lowercase` would.)
            if !raw.as_bytes().windows(MEMORY.len()).any(|w| w.eq_ignore_ascii_case(MEMORY)) {
                start = i + 1;
                continue;
            }
            let sentence = raw.split_whitespace().collect::<Vec<_>>().join(" ");
            let lower = sentence.to_lowercase();
            let about_reading = lower.contains("project memory")
                || (lower.contains("memory")
                    && (lower.contains("reads")
                        || lower.contains("looks up")
                        || tools.iter().any(|t| lower.contains(t.as_str()))));
            if about_reading && !lower.contains("@memory") {
                let lead = raw.len() - raw.trim_start().len();
                let line = segment.span.start.line
                    + u32::try_from(text[..start + lead].matches('\n').count()).unwrap_or(0);
                out.push((line, sentence));
            }
            start = i + 1;
        }
    }
    out
}

fn stale_prose(before: &ProjectReport, after: &ProjectReport) -> Vec<ReviewCheck> {
    let mut checks = Vec::new();
    for skill in after.loaded_skills() {
        // Tools this skill now imports over MCP whose local version read memory.
        let moved: Vec<String> = after
            .imports_of(&skill.id)
            .iter()
            .filter(|i| {
                before
                    .local_tool(&i.tool)
                    .is_some_and(|(_, t)| t.memory.iter().any(|m| m.op == MemoryOp::Get))
            })
            .map(|i| i.tool.clone())
            .collect();
        if moved.is_empty() {
            continue;
        }
        let lines = memory_sentences(skill, &moved);
        let file = skill_md(&skill.id);
        let verdict = if lines.is_empty() { Verdict::Pass } else { Verdict::Fail };
        let summary = if lines.is_empty() {
            format!("no sentence in {} describes a memory read by {}", skill.id, moved.join(", "))
        } else {
            format!(
                "{} still describes a memory read that {} no longer does: over MCP the tool gets only its arguments",
                skill.id,
                moved.join(", ")
            )
        };
        checks.push(ReviewCheck {
            id: format!("stale-prose:{}", skill.id),
            title: "prose that still describes a memory read the swap removed".into(),
            verdict,
            summary,
            evidence: lines
                .into_iter()
                .map(|(line, text)| {
                    evidence(Area::After, &file, Some(Span::line(line, &text)), text)
                })
                .collect(),
            why: why::STALE_PROSE,
        });
    }
    checks
}

/// The constraint kinds a gate carries.
fn kinds(gate: &GatedTool) -> Vec<&'static str> {
    let mut out = Vec::new();
    if gate.requires.is_some() {
        out.push("requires");
    }
    if gate.requires_confirmation.as_ref().is_some_and(|c| c.enabled) {
        out.push("requires_confirmation");
    }
    if gate.on_success.is_some() {
        out.push("on_success");
    }
    if gate.on_failure.is_some() {
        out.push("on_failure");
    }
    out
}

/// Tool names a skill can bind after the swap: local, declared shared, MCP bare names.
fn bindable(project: &ProjectReport, skill: &Skill) -> Vec<String> {
    let mut names: Vec<String> = project.locally_bound(skill).into_iter().collect();
    for reference in &skill.import_tool_names {
        if let Ok(ImportRef::Mcp { tool, .. }) = parse_import(reference) {
            names.push(tool);
        }
    }
    names
}

fn constraint_drift(before: &ProjectReport, after: &ProjectReport) -> Vec<ReviewCheck> {
    let mut checks = Vec::new();
    for skill in after.loaded_skills() {
        let old = before.skill(&skill.id);
        let file = skill_md(&skill.id);
        let mut findings: Vec<(Verdict, String, Vec<Evidence>)> = Vec::new();
        let bound = bindable(after, skill);
        for gate in skill.tools.iter().filter(|g| !kinds(g).is_empty()) {
            if !bound.contains(&gate.name) {
                let hint = if gate.name.contains(':') || gate.name.contains('/') {
                    " (gates match the bare tool name, never the mcp/<server>:<tool> form)"
                } else {
                    ""
                };
                findings.push((
                    Verdict::Fail,
                    format!("constraint on `{}` is keyed by a name no tool of {} has, so it never matches{hint}", gate.name, skill.id),
                    vec![evidence(Area::After, &file, Some(gate.span), format!("- {}:", gate.name))],
                ));
            }
        }
        if let Some(old) = old {
            for kind in ["requires", "requires_confirmation", "on_success", "on_failure"] {
                let had: Vec<&GatedTool> =
                    old.tools.iter().filter(|g| kinds(g).contains(&kind)).collect();
                let has: Vec<&GatedTool> =
                    skill.tools.iter().filter(|g| kinds(g).contains(&kind)).collect();
                let lost: Vec<&&GatedTool> =
                    had.iter().filter(|g| !has.iter().any(|h| h.name == g.name)).collect();
                let gained: Vec<&&GatedTool> =
                    has.iter().filter(|g| !had.iter().any(|h| h.name == g.name)).collect();
                match (lost.as_slice(), gained.as_slice()) {
                    ([], []) => {}
                    ([from], [to]) => findings.push((
                        Verdict::Fail,
                        format!("constraint `{kind}` moved from {} to {}", from.name, to.name),
                        vec![
                            evidence(
                                Area::Before,
                                &file,
                                Some(from.span),
                                format!("- {}: {kind}", from.name),
                            ),
                            evidence(
                                Area::After,
                                &file,
                                Some(to.span),
                                format!("- {}: {kind}", to.name),
                            ),
                        ],
                    )),
                    _ => {
                        for from in lost {
                            findings.push((
                                Verdict::Fail,
                                format!("constraint `{kind}` on {} disappeared", from.name),
                                vec![evidence(
                                    Area::Before,
                                    &file,
                                    Some(from.span),
                                    format!("- {}: {kind}", from.name),
                                )],
                            ));
                        }
                        for to in gained {
                            findings.push((
                                Verdict::Warn,
                                format!("constraint `{kind}` added on {}", to.name),
                                vec![evidence(
                                    Area::After,
                                    &file,
                                    Some(to.span),
                                    format!("- {}: {kind}", to.name),
                                )],
                            ));
                        }
                    }
                }
            }
        }
        if findings.is_empty() {
            let constrained = |s: &Skill| s.tools.iter().any(|g| !kinds(g).is_empty());
            if !constrained(skill) && old.is_none_or(|o| !constrained(o)) {
                continue;
            }
            checks.push(ReviewCheck {
                id: format!("constraints:{}", skill.id),
                title: "constraints that moved, disappeared, or never match".into(),
                verdict: Verdict::Pass,
                summary: format!(
                    "{}'s constraints are on the same tools as before, and each names a tool the skill binds",
                    skill.id
                ),
                evidence: skill.tools.iter().filter(|g| !kinds(g).is_empty()).map(|g| evidence(Area::After, &file, Some(g.span), format!("- {}: {}", g.name, kinds(g).join(", ")))).collect(),
                why: why::CONSTRAINTS,
            });
            continue;
        }
        let verdict = findings.iter().map(|f| f.0).min().unwrap_or(Verdict::Pass);
        checks.push(ReviewCheck {
            id: format!("constraints:{}", skill.id),
            title: "constraints that moved, disappeared, or never match".into(),
            verdict,
            summary: findings.iter().map(|f| f.1.clone()).collect::<Vec<_>>().join("; "),
            evidence: findings.into_iter().flat_map(|f| f.2).collect(),
            why: why::CONSTRAINTS,
        });
    }
    checks
}

fn step_arguments(after: &ProjectReport, agent: Option<&Agent<'_>>) -> Vec<ReviewCheck> {
    let Some(agent) = agent else { return Vec::new() };
    let mut checks = Vec::new();
    for skill in after.loaded_skills() {
        let file = skill_md(&skill.id);
        for block in skill.blocks() {
            for step in &block.steps {
                let StepKind::Execute { execute_tool, parameters } = &step.kind else { continue };
                let id = format!("step-arguments:{}.{}.{}", skill.id, block.block_id, step.id);
                let title = "execute_tool steps missing a required argument".to_owned();
                let Some(bound) = agent.bound(&skill.id, execute_tool) else {
                    checks.push(ReviewCheck {
                        id,
                        title,
                        verdict: Verdict::Fail,
                        summary: format!("step {} calls {execute_tool}, which {} does not bind: the step stays put (execute_tool_missing)", step.id, skill.id),
                        evidence: vec![evidence(Area::After, &file, Some(step.span), format!("execute_tool: {execute_tool}"))],
                        why: why::STEP,
                    });
                    continue;
                };
                // Placeholders stand for the resolved values: only names matter here.
                let args = JsonValue::Object(
                    parameters.keys().map(|k| (k.clone(), JsonValue::Str("…".into()))).collect(),
                );
                let (verdict, summary) = match validate_arguments(bound.schema(), &args) {
                    Ok(()) => (
                        Verdict::Pass,
                        format!("step {} passes every argument {execute_tool} requires", step.id),
                    ),
                    Err(refused) => (
                        Verdict::Fail,
                        format!(
                            "step {} cannot run {execute_tool}: at run time validation returns {} and the step yields without telling the model",
                            step.id,
                            refused.to_model_json()
                        ),
                    ),
                };
                let mut found = vec![evidence(
                    Area::After,
                    &file,
                    Some(step.span),
                    format!("execute_tool: {execute_tool}"),
                )];
                for (name, span) in &step.parameter_spans {
                    found.push(evidence(
                        Area::After,
                        &file,
                        Some(*span),
                        format!(
                            "{name}: {}",
                            parameters
                                .get(name)
                                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                                .unwrap_or_default()
                        ),
                    ));
                }
                checks.push(ReviewCheck {
                    id,
                    title,
                    verdict,
                    summary,
                    evidence: found,
                    why: why::STEP,
                });
            }
        }
    }
    checks
}

fn unreachable_blocks(after: &ProjectReport) -> Vec<ReviewCheck> {
    let mut checks = Vec::new();
    for skill in after.loaded_skills() {
        for block in skill.blocks().filter(|b| !b.routable) {
            let target = format!("{}__{}", skill.id, block.block_id);
            if skill.referenced_blocks.contains(&target) {
                continue;
            }
            checks.push(ReviewCheck {
                id: format!("unreachable-block:{}.{}", skill.id, block.block_id),
                title: "ordered blocks nothing can reach".into(),
                verdict: Verdict::Warn,
                summary: format!(
                    "block {} of {} can never run: the skill has prose, and the prose never names @block.{} — the prose alone governs what happens",
                    block.block_id, skill.id, block.block_id
                ),
                evidence: vec![evidence(Area::After, &skill_md(&skill.id), Some(block.span), format!(":::ordered_block id={}", block.block_id))],
                why: why::UNREACHABLE,
            });
        }
    }
    checks
}

fn output_schemas(
    after: &ProjectReport,
    sim: &Simulation,
    imports: &[(&str, &McpTool)],
    server_file: &str,
    agent: Option<&Agent<'_>>,
) -> Vec<ReviewCheck> {
    let mut checks = Vec::new();
    for &(skill_id, tool) in imports {
        let keys: Vec<String> =
            tool.result_keys.iter().map(|k| k.key.clone()).fold(Vec::new(), |mut acc, k| {
                if !acc.contains(&k) {
                    acc.push(k);
                }
                acc
            });
        let Some(skill) = after.skill(skill_id) else { continue };
        let prose: String =
            skill.segments().map(|s| s.text.as_str()).collect::<Vec<_>>().join("\n");
        let branched: Vec<String> =
            keys.iter().filter(|k| prose.contains(&format!("`{k}"))).cloned().collect();
        let id = format!("output-schema:{}", tool.name);
        let title =
            "tools without an output schema whose result keys the prose branches on".to_owned();
        if tool.output_schema.is_some() {
            if !branched.is_empty() {
                checks.push(ReviewCheck {
                    id,
                    title,
                    verdict: Verdict::Pass,
                    summary: format!(
                        "{} publishes an outputSchema, so {} reach the model as keys",
                        tool.name,
                        branched.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
                    ),
                    evidence: vec![evidence(
                        Area::Server,
                        server_file,
                        tool.returns_span,
                        format!("-> {}", tool.returns.as_deref().unwrap_or("?")),
                    )],
                    why: why::OUTPUT_SCHEMA,
                });
            }
            continue;
        }
        if branched.is_empty() {
            continue;
        }
        let example = agent.and_then(|agent| sample_view(agent, sim, skill_id, tool));
        let seen = example.map_or_else(
            || "a list of text blocks, `[{\"type\": \"text\", \"text\": \"{...}\", \"annotations\": null, \"meta\": null}]`".to_owned(),
            |s| format!("`{s}`"),
        );
        checks.push(ReviewCheck {
            id,
            title,
            verdict: Verdict::Fail,
            summary: format!(
                "{} publishes no outputSchema (`-> {}`), so the model sees {seen} instead of an object with {}; the prose of {skill_id} branches on keys it will not find, and an `error` inside a text block does not count as a tool error",
                tool.name,
                tool.returns.as_deref().unwrap_or("?"),
                branched.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
            ),
            evidence: vec![evidence(Area::Server, server_file, tool.returns_span.or(Some(tool.name_span)), format!("-> {}", tool.returns.as_deref().unwrap_or("?")))],
            why: why::OUTPUT_SCHEMA,
        });
    }
    checks
}

/// What the model sees from one call of a lookup tool with the seed's first contact.
fn sample_view(agent: &Agent<'_>, sim: &Simulation, skill: &str, tool: &McpTool) -> Option<String> {
    // A lookup by email, whichever client it goes through: called with the first
    // customer's address, it shows what the model would really see.
    let by_email = tool.crm_calls.iter().any(|c| c.function == "search_contact_by_email")
        || tool.params.iter().any(|p| !p.injected && p.name.to_ascii_lowercase().contains("email"));
    if !by_email {
        return None;
    }
    let param = tool
        .params
        .iter()
        .filter(|p| !p.injected)
        .find(|p| p.name.to_ascii_lowercase().contains("email"))
        .or_else(|| tool.params.iter().find(|p| !p.injected))?;
    let contact = sim.seed.contacts.first()?;
    let mut run = Run::new(agent, sim.seed.clone());
    run.activate(skill, None).ok()?;
    let record = run.model_call(
        &tool.name,
        &JsonValue::Object(vec![(param.name.clone(), JsonValue::Str(contact.email.clone()))]),
    );
    record.model_sees
}

fn startup(
    after: &ProjectReport,
    agent: &Result<Agent<'_>, Box<crate::sim::agent::StartupFailure>>,
) -> ReviewCheck {
    match agent {
        Ok(agent) => {
            let remote: usize = agent
                .bindings
                .values()
                .map(|b| b.values().filter(|t| matches!(t, Bound::Mcp(_))).count())
                .sum();
            ReviewCheck {
                id: "startup".into(),
                title: "imports the server does not expose, and other start-up failures".into(),
                verdict: Verdict::Pass,
                summary: format!(
                    "the agent starts: {} loaded, {} over MCP, every import exposed by its server",
                    crate::words::count(after.loaded_skills().count(), "skill", "skills"),
                    crate::words::count(remote, "tool binding", "tool bindings")
                ),
                evidence: Vec::new(),
                why: why::CHECK_YOUR_SWAP,
            }
        }
        Err(failure) => ReviewCheck {
            id: "startup".into(),
            title: "imports the server does not expose, and other start-up failures".into(),
            verdict: Verdict::Fail,
            summary: format!(
                "Rasa would not start the agent ({}): {}",
                failure.stage, failure.message
            ),
            evidence: vec![evidence(
                if failure.diagnostic.file.ends_with(".py") { Area::Server } else { Area::After },
                &failure.diagnostic.file,
                Some(failure.diagnostic.span),
                failure.diagnostic.message.clone(),
            )],
            why: why::CHECK_YOUR_SWAP,
        },
    }
}

/// Every `project.<field>` a project's tools write, with the file and place.
fn project_writes(project: &ProjectReport) -> Vec<(String, String, Span)> {
    let mut out = Vec::new();
    for file in
        project.skills.iter().flat_map(|e| e.tools.iter()).chain(project.shared_tools.iter())
    {
        for tool in &file.module.tools {
            for access in tool.memory.iter().filter(|m| m.op == MemoryOp::Set) {
                if let Some(field) = access.path.as_deref().and_then(|p| p.strip_prefix("project."))
                {
                    out.push((field.to_owned(), file.path.clone(), access.span));
                }
            }
        }
    }
    out
}

fn project_memory(before: &ProjectReport, after: &ProjectReport) -> Vec<ReviewCheck> {
    let written_after: Vec<String> = project_writes(after).into_iter().map(|(f, _, _)| f).collect();
    let mut checks = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for (field, file, span) in project_writes(before) {
        if seen.contains(&field) {
            continue;
        }
        seen.push(field.clone());
        if written_after.contains(&field) {
            continue;
        }
        let key = format!("session.project.{field}");
        let mut dependents = vec![evidence(
            Area::Before,
            &file,
            Some(span),
            format!("context.memory.set(\"project.{field}\", …) — written before the swap"),
        )];
        let reference = format!("@memory.project.{field}");
        for skill in after.loaded_skills() {
            for segment in skill.segments() {
                if segment.condition.as_deref().is_some_and(|c| c.contains(&key))
                    || segment.text.contains(&reference)
                {
                    dependents.push(evidence(
                        Area::After,
                        &skill_md(&skill.id),
                        Some(segment.span),
                        "a prose paragraph that depends on it".to_owned(),
                    ));
                }
            }
            for gate in skill
                .tools
                .iter()
                .filter(|g| g.requires.as_deref().is_some_and(|r| r.contains(&key)))
            {
                dependents.push(evidence(
                    Area::After,
                    &skill_md(&skill.id),
                    Some(gate.span),
                    format!("{} requires {key}: never true", gate.name),
                ));
            }
            for entry in &skill.body {
                let BodyEntry::OrderedBlock(block) = entry else { continue };
                for step in &block.steps {
                    if let StepKind::Execute { parameters, .. } = &step.kind
                        && parameters.values().any(|v| v.as_str().is_some_and(|s| s.trim() == key))
                    {
                        dependents.push(evidence(
                            Area::After,
                            &skill_md(&skill.id),
                            Some(step.span),
                            format!("step {} passes {key}: None", step.id),
                        ));
                    }
                }
            }
        }
        for file in
            after.skills.iter().flat_map(|e| e.tools.iter()).chain(after.shared_tools.iter())
        {
            for tool in &file.module.tools {
                for access in tool.memory.iter().filter(|m| {
                    m.op == MemoryOp::Get && m.path.as_deref() == Some(&format!("project.{field}"))
                }) {
                    dependents.push(evidence(
                        Area::After,
                        &file.path,
                        Some(access.span),
                        format!("{} reads project.{field}: always unset", tool.name),
                    ));
                }
            }
        }
        let depending = dependents.len() - 1;
        checks.push(ReviewCheck {
            id: format!("project-memory:{field}"),
            title: "project memory the swap stops writing, and what depends on it".into(),
            verdict: if depending > 0 { Verdict::Fail } else { Verdict::Warn },
            summary: format!(
                "project.{field} is no longer written: the tool that wrote it moved to MCP, and an MCP tool cannot write memory; {}",
                match depending {
                    0 => "nothing in the after project reads it, but the model can only learn the value from a tool result now".to_owned(),
                    1 => "1 place still depends on it and never sees it set".to_owned(),
                    n => format!("{n} places still depend on it and never see it set"),
                }
            ),
            evidence: dependents,
            why: why::PROJECT_MEMORY,
        });
    }
    checks
}

fn ungated_in_blocks(agent: Option<&Agent<'_>>) -> Vec<ReviewCheck> {
    let Some(agent) = agent else { return Vec::new() };
    let mut checks = Vec::new();
    for skill in agent.report.loaded_skills() {
        for block in skill.blocks().filter(|b| !b.routable) {
            let target = Target::Block(block.block_id.clone());
            let offered = agent.visible_tools(skill, &target, &|_| true);
            let gates = agent.dispatch_gates(skill, &target);
            for name in offered {
                // An entry without any constraint (an import, say) has nothing to lose.
                let Some(outer) = skill.gate(&name).filter(|g| !kinds(g).is_empty()) else {
                    continue;
                };
                if gates.iter().any(|g| g.name == name)
                    || !matches!(agent.bound(&skill.id, &name), Some(Bound::Mcp(_)))
                {
                    continue;
                }
                let reachable = agent.block_reachable(skill, &block.block_id);
                checks.push(ReviewCheck {
                    id: format!("ungated-in-block:{}.{}.{name}", skill.id, block.block_id),
                    title: "imported tools left ungated inside a block".into(),
                    verdict: if reachable { Verdict::Fail } else { Verdict::Warn },
                    summary: format!(
                        "inside block {}, {name} is offered with no gate: the skill's {} applies only at the prose{}",
                        block.block_id,
                        kinds(outer).join(" and "),
                        if reachable { "" } else { " (moot while the block is unreachable)" }
                    ),
                    evidence: vec![
                        evidence(Area::After, &skill_md(&skill.id), Some(outer.span), format!("- {name}: {}", kinds(outer).join(", "))),
                        evidence(Area::After, &skill_md(&skill.id), Some(block.span), format!(":::ordered_block id={}", block.block_id)),
                    ],
                    why: why::BLOCK_GATES,
                });
            }
        }
    }
    checks
}

fn leaks(attack: &AttackPair, server_file: &str, crm: (Area, &str)) -> Vec<ReviewCheck> {
    let mut checks = Vec::new();
    let after = &attack.after;
    let (caller, victim) = (
        after
            .caller
            .as_ref()
            .map_or_else(|| "?".to_owned(), |c| format!("{} ({})", c.full_name(), c.id)),
        after
            .victim
            .as_ref()
            .map_or_else(|| "?".to_owned(), |c| format!("{} ({})", c.full_name(), c.id)),
    );
    for leak in &after.leaks {
        let what = match leak.kind {
            LeakKind::Read => format!("{victim}'s records came back to a call from {caller}"),
            LeakKind::Write => {
                format!("a record was written on {victim} during a call from {caller}")
            }
        };
        let mut found: Vec<Evidence> =
            leak.requests.iter().map(|r| evidence(crm.0, crm.1, None, r.clone())).collect();
        if let Some(seen) = &leak.model_saw {
            let shown: String = seen.chars().take(240).collect();
            found.push(evidence(
                Area::Server,
                server_file,
                None,
                format!(
                    "the model saw {shown}{}",
                    if seen.chars().count() > 240 { "…" } else { "" }
                ),
            ));
        }
        let records: Vec<String> =
            leak.records.iter().map(crate::sim::trace::record_text).collect();
        checks.push(ReviewCheck {
            id: format!("leak:{}.{}", leak.tool, leak.argument),
            title: "the attack: another customer's id through every reachable id-like argument"
                .into(),
            verdict: Verdict::Fail,
            summary: format!(
                "{} {}: {what} ({}={}: {})",
                match leak.kind {
                    LeakKind::Read => "READ",
                    LeakKind::Write => "WRITE",
                },
                leak.tool,
                leak.argument,
                leak.value,
                records.join("; "),
            ),
            evidence: found,
            why: why::ATTACK,
        });
    }
    // The attack as a whole: a pass only when every probe ran to its end; when it could
    // not say (or some probes beside the leaks could not run), not tested, with why.
    let stopped: Vec<&Probe> = after
        .probes
        .iter()
        .filter(|p| matches!(p.outcome, ProbeOutcome::CouldNotRun { .. }))
        .collect();
    let whole = match &after.verdict {
        AttackVerdict::Leaked { .. } if stopped.is_empty() => None,
        AttackVerdict::Leaked { .. } => Some((
            Verdict::NotTested,
            format!(
                "besides the leaks, {} of {} could not run: {} stopped outside the Python subset Swap Lab runs, so what {} would do with {victim}'s id is not tested",
                stopped.len(),
                crate::words::count(after.probes.len(), "probe", "probes"),
                tool_list(&stopped),
                if stopped.len() == 1 { "it" } else { "they" },
            ),
        )),
        AttackVerdict::NoLeak { probes } => Some((
            Verdict::Pass,
            format!(
                "{} with {victim}'s id on a call from {caller}, each run to its end: no record of theirs reached the conversation",
                crate::words::count(*probes, "probe", "probes")
            ),
        )),
        AttackVerdict::NotTested {
            reason: NotTested::CouldNotRun { could_not_run, probes, .. },
        } => {
            let ran = probes - could_not_run;
            Some((
                Verdict::NotTested,
                format!(
                    "not tested: {} of {} could not run ({} stopped outside the Python subset Swap Lab runs){}",
                    could_not_run,
                    crate::words::count(*probes, "probe", "probes"),
                    tool_list(&stopped),
                    match ran {
                        0 => String::new(),
                        _ => format!("; the other {ran} reached no record of {victim}'s"),
                    }
                ),
            ))
        }
        AttackVerdict::NotTested { reason } => {
            Some((Verdict::NotTested, format!("the attack could not run: {}", reason.text())))
        }
    };
    if let Some((verdict, summary)) = whole {
        let evidence = stopped
            .iter()
            .map(|probe| {
                let call = probe.confirmation.as_ref().unwrap_or(&probe.call);
                let (area, file) = match &call.route {
                    Some(Route::Local { file, .. }) => (Area::After, file.as_str()),
                    _ => (Area::Server, server_file),
                };
                let reason = match &probe.outcome {
                    ProbeOutcome::CouldNotRun { reason } => reason.as_str(),
                    _ => "",
                };
                evidence(area, file, None, format!("{} could not run: {reason}", probe.tool))
            })
            .collect();
        checks.push(ReviewCheck {
            id: "leak".into(),
            title: "the attack: another customer's id through every reachable id-like argument"
                .into(),
            verdict,
            summary,
            evidence,
            why: why::ATTACK,
        });
    }
    checks
}

/// `add_timeline_note` or `a, b`: each tool once, in probe order.
fn tool_list(probes: &[&Probe]) -> String {
    let mut tools: Vec<&str> = Vec::new();
    for probe in probes {
        if !tools.contains(&probe.tool.as_str()) {
            tools.push(&probe.tool);
        }
    }
    tools.join(", ")
}
