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
use crate::sim::attack::{AttackOptions, LeakKind, is_id_like};
use crate::sim::json::Value;
use crate::sim::run::Run;
use crate::sim::{AttackPair, Side, Simulation};
use crate::workspace::{Area, Workspace};

/// A check's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Something a reviewer must not approve.
    Fail,
    /// Worth a look; does not fail the review.
    Warn,
    /// Holds.
    Pass,
    /// A fact to know (the arguments a tool requires).
    Info,
}

impl Verdict {
    /// `✗`, `!`, `✓` or `·`.
    pub fn mark(self) -> &'static str {
        match self {
            Verdict::Fail => "✗",
            Verdict::Warn => "!",
            Verdict::Pass => "✓",
            Verdict::Info => "·",
        }
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
    /// Whether no check failed.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.verdict != Verdict::Fail)
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
            if check.verdict == Verdict::Fail || check.verdict == Verdict::Warn {
                out.push_str(&format!("    why: {}\n", check.why));
            }
        }
        out.push_str(&format!(
            "\n{} checks: {} failed, {} warnings, {} passed, {} notes\n",
            self.checks.len(),
            self.count(Verdict::Fail),
            self.count(Verdict::Warn),
            self.count(Verdict::Pass),
            self.count(Verdict::Info)
        ));
        out
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
    checks.extend(id_sources(before, after, &imports, &server_file));
    checks.extend(stale_prose(before, after));
    checks.extend(constraint_drift(before, after));
    checks.extend(step_arguments(after, after_agent.as_ref().ok()));
    checks.extend(unreachable_blocks(after));
    checks.extend(output_schemas(after, sim, &imports, &server_file, after_agent.as_ref().ok()));
    checks.push(startup(after, &after_agent));
    checks.extend(project_memory(before, after));
    checks.extend(ungated_in_blocks(after_agent.as_ref().ok()));
    let attack = sim.attack_started(after_agent.as_ref().map_err(|e| &**e), options);
    checks.extend(leaks(&attack, &server_file));
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

/// Whether a tool's CRM calls read or write a customer's record.
fn access(calls: &[crate::python::CrmCall]) -> &'static str {
    let writes = calls.iter().any(|c| c.function == "create_note");
    let reads = calls.iter().any(|c| c.function != "create_note");
    match (reads, writes) {
        (_, true) if reads => "reads and writes",
        (_, true) => "writes",
        (true, false) => "reads",
        _ => "does not touch",
    }
}

fn id_sources(
    before: &ProjectReport,
    after: &ProjectReport,
    imports: &[(&str, &McpTool)],
    server_file: &str,
) -> Vec<ReviewCheck> {
    let mut checks = Vec::new();
    for &(skill, tool) in imports {
        let record_access = access(&tool.crm_calls);
        for param in tool.params.iter().filter(|p| !p.injected && is_id_like(&p.name)) {
            let mut evidence_list = Vec::new();
            let before_source = match before.local_tool(&tool.name) {
                Some((file, local)) => {
                    let from_memory =
                        local.crm_calls.iter().flat_map(|c| c.args.iter()).find_map(|a| {
                            match &a.origin {
                                ArgOrigin::Memory { path } => {
                                    Some(path.clone().unwrap_or_default())
                                }
                                _ => None,
                            }
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
                        "`{}` of {} came from server-held memory before the swap; now {} chooses it, and the tool {} a customer's record",
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
                        "`{}` of {} (new over MCP) is chosen by {}; the tool {} a customer's record",
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
                let args = Value::Object(
                    parameters.keys().map(|k| (k.clone(), Value::Str("…".into()))).collect(),
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
    if !tool.crm_calls.iter().any(|c| c.function == "search_contact_by_email") {
        return None;
    }
    let param = tool.params.iter().find(|p| !p.injected)?;
    let contact = sim.seed.contacts.first()?;
    let mut run = Run::new(agent, sim.seed.clone());
    run.activate(skill, None).ok()?;
    let record = run.model_call(
        &tool.name,
        &Value::Object(vec![(param.name.clone(), Value::Str(contact.email.clone()))]),
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

fn leaks(attack: &AttackPair, server_file: &str) -> Vec<ReviewCheck> {
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
            leak.requests.iter().map(|r| evidence(Area::Crm, "crm.yml", None, r.clone())).collect();
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
    if after.leaks.is_empty() {
        let summary = match &after.startup {
            Some(failure) => {
                format!("the attack could not run: the agent does not start ({})", failure.message)
            }
            None => format!(
                "{} probe(s) with {victim}'s id on a call from {caller}: no record of theirs reached the conversation",
                after.probes.len()
            ),
        };
        checks.push(ReviewCheck {
            id: "leak".into(),
            title: "the attack: another customer's id through every reachable id-like argument"
                .into(),
            verdict: Verdict::Pass,
            summary,
            evidence: Vec::new(),
            why: why::ATTACK,
        });
    }
    checks
}
