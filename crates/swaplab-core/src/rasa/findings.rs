//! Train-phase findings that compare files (reference §1.1, §2.6–§2.8, §3.2, §6.1, §6.5,
//! §7.2): what `rasa train` / `rasa data validate` would report once every skill, memory
//! file, response and tool module is known.
//!
//! Codes are Rasa's. Messages are Rasa's where the reference quotes them
//! (`unresolved_tool`, the two `import_tools` findings); elsewhere the reference names the
//! rule and the code, and the wording is ours — each such message says what to change.

use std::collections::{BTreeMap, BTreeSet};

use crate::diagnostic::{Diagnostic, Phase, Span};
use crate::rasa::imports::{FRAMEWORK_TOOL_NAMES, ImportRef, parse_import};
use crate::rasa::memory::{SkillMemory, readable_keys};
use crate::rasa::project::ProjectReport;
use crate::rasa::skill::{Skill, StepKind, session_parameter};

/// The bundled default skills (`rasa/mantle/default_skills/`), which alone may set
/// `routing.is_default`.
pub const BUNDLED_DEFAULT_SKILLS: [&str; 7] = [
    "default_completed",
    "default_continue_interrupted",
    "default_customer_satisfaction",
    "default_session_start",
    "default_silence_timeout",
    "default_silence_timeout_hangup",
    "default_unsupported_request_handler",
];

/// Every cross-file train finding of a project.
pub fn train_findings(report: &ProjectReport) -> Vec<Diagnostic> {
    let mut findings = Vec::new();
    let skill_memories: Vec<SkillMemory> = report
        .skills
        .iter()
        .filter(|entry| entry.loaded().is_some())
        .filter_map(|entry| entry.memory.clone())
        .collect();
    // §7.3: project fields and every skill's public fields are readable from any skill;
    // built once, so the check stays linear in the number of skills.
    let shared: BTreeSet<String> =
        crate::order::set_of(readable_keys(None, &report.project_memory, &skill_memories));
    let responses: BTreeSet<&str> = crate::order::set_of(
        report
            .responses
            .iter()
            .chain(report.skills.iter().filter_map(|entry| entry.responses.as_ref()))
            .flat_map(|file| file.responses.iter().map(|response| response.name.as_str())),
    );
    let ids: BTreeSet<&str> =
        crate::order::set_of(report.skills.iter().map(|entry| entry.dir.as_str()));
    // Every skill-local tool name with the skill folders defining it, in folder order;
    // built once, not scanned again for every import of every skill.
    let mut local_owners: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for entry in &report.skills {
        for tool in entry.tools.iter().flat_map(|f| f.module.tools.iter()) {
            let owners = local_owners.entry(tool.name.as_str()).or_default();
            if owners.last() != Some(&entry.dir.as_str()) {
                owners.push(entry.dir.as_str());
            }
        }
    }
    for skill in report.loaded_skills() {
        let file = format!("skills/{}/skill.md", skill.id);
        let mut push = |span: Span, code: &str, message: String| {
            findings.push(Diagnostic::warning(&file, span, Phase::Train, code, message));
        };
        let own = skill_memories.iter().find(|memory| memory.skill_id == skill.id);
        let readable = |key: &str| {
            shared.contains(key)
                || key
                    .strip_prefix(skill.id.as_str())
                    .and_then(|rest| rest.strip_prefix('.'))
                    .is_some_and(|entry| own.is_some_and(|memory| memory.field(entry).is_some()))
        };
        import_findings(report, skill, &local_owners, &mut push);
        let visible = visible_tools(report, skill);
        tool_findings(skill, &visible, &mut push);
        prose_findings(report, skill, &ids, &visible, &readable, &mut push);
        step_findings(report, skill, &readable, &mut push);
        response_findings(skill, &responses, &mut push);
        if skill.is_default && !BUNDLED_DEFAULT_SKILLS.contains(&skill.id.as_str()) {
            push(
                Span::point(crate::diagnostic::Position::START),
                "mantle.validation.skill.is_default_not_allowed",
                format!(
                    "Skill '{}' sets routing.is_default: true, which only the bundled default \
                     skills may set. Remove it.",
                    skill.id
                ),
            );
        }
    }
    findings
}

type Push<'a> = dyn FnMut(Span, &str, String) + 'a;

/// §3.2: `import_tools` entries that are skill-local somewhere, or name no shared tool.
fn import_findings(
    report: &ProjectReport,
    skill: &Skill,
    local_owners: &BTreeMap<&str, Vec<&str>>,
    push: &mut Push<'_>,
) {
    let shared = report.shared_tool_names();
    for (reference, span) in skill.import_tool_names.iter().zip(&skill.import_spans) {
        let Ok(ImportRef::LocalOrShared { name }) = parse_import(reference) else { continue };
        // The skill's own folder when it defines the tool, else the first that does.
        let owner = local_owners.get(name.as_str()).and_then(|owners| {
            owners.iter().find(|dir| **dir == skill.id).or_else(|| owners.first())
        });
        if let Some(owner) = owner {
            push(
                *span,
                "skill.import_tools.local_tool_listed",
                format!(
                    "Skill '{}' lists import_tools entry '{name}', but it is skill-local in \
                     skills/{}/tools/ — remove it from import_tools.",
                    skill.id, owner
                ),
            );
        } else if !shared.contains(name.as_str()) {
            push(
                *span,
                "skill.import_tools.invalid_shared_tool",
                format!(
                    "Skill '{}' lists import_tools entry '{name}', but no shared tool exists in \
                     tools/.",
                    skill.id
                ),
            );
        }
    }
}

/// The names a skill can offer the model: its own tools, its MCP imports, and the shared
/// tools it declares.
fn visible_tools(report: &ProjectReport, skill: &Skill) -> BTreeSet<String> {
    let mut visible: BTreeSet<String> =
        crate::order::set_of(report.local_tool_names(&skill.id).into_iter().map(str::to_owned));
    visible.extend(report.imports_of(&skill.id).iter().map(|i| i.tool.clone()));
    visible.extend(report.declared_shared_tools(skill).iter().cloned());
    visible
}

fn unresolved(skill: &str, name: &str, where_: &str) -> String {
    format!(
        "Skill '{skill}' references tool '{name}'{where_}, but it is not visible while this skill \
         is active: it is neither provided by a declared MCP import nor by a matching @tool \
         function in skills/{skill}/tools.py, skills/{skill}/tools/, or the declared shared \
         tools/ folder. Add the tool function (its name must match the reference) or remove the \
         reference."
    )
}

/// §6.5: constraints, block tools and execute steps that name nothing the skill can see.
fn tool_findings(skill: &Skill, visible: &BTreeSet<String>, push: &mut Push<'_>) {
    let constraints =
        skill.tools.iter().filter(|gate| skill.tool_constraint_names.contains(&gate.name));
    let block_gates = skill.blocks().flat_map(|block| block.tools.iter());
    let steps =
        skill.blocks().flat_map(|block| block.steps.iter()).filter_map(|step| match &step.kind {
            StepKind::Execute { execute_tool, .. } => Some((execute_tool.as_str(), step.span)),
            _ => None,
        });
    let named: Vec<(&str, Span)> = constraints
        .chain(block_gates)
        .map(|gate| (gate.name.as_str(), gate.span))
        .chain(steps)
        .collect();
    for (name, span) in named {
        if !visible.contains(name) && !FRAMEWORK_TOOL_NAMES.contains(&name) {
            push(span, "mantle.validation.tools.unresolved_tool", unresolved(&skill.id, name, ""));
        }
    }
}

/// §2.6: `@skill`, `@tool`, `@memory` and lookalikes in prose, and `if:` conditions.
fn prose_findings(
    report: &ProjectReport,
    skill: &Skill,
    ids: &BTreeSet<&str>,
    visible: &BTreeSet<String>,
    readable: &dyn Fn(&str) -> bool,
    push: &mut Push<'_>,
) {
    for segment in skill.segments() {
        let span = segment.span;
        let scan = &segment.scan;
        for target in &scan.skill_refs {
            let target = target.as_str();
            match report.entry(target) {
                None => push(
                    span,
                    "skill.referenced.invalid_target",
                    format!(
                        "Skill '{}' references '@skill.{target}', but no skill '{target}' exists \
                         in skills/.",
                        skill.id
                    ),
                ),
                Some(_) if report.skill(target).is_some_and(|t| t.hidden) => push(
                    span,
                    "skill.prose.hidden_skill_reference",
                    format!(
                        "Skill '{}' references '@skill.{target}', but '{target}' is hidden: the \
                         model cannot start it. Unhide it or remove the reference.",
                        skill.id
                    ),
                ),
                Some(_) => {}
            }
        }
        // Only ids with an underscore: a one-word id such as `goodbye` is ordinary prose
        // far more often than a mention (a narrowing of Rasa's warning, on purpose).
        let mentioned = scan
            .underscored
            .iter()
            .map(String::as_str)
            .filter(|word| *word != skill.id && ids.contains(word));
        for other in mentioned {
            push(
                span,
                "skill.prose.bare_skill_mention",
                format!(
                    "Skill '{}' mentions '{other}' without '@skill.'; write @skill.{other} so the \
                     model can hand over to it.",
                    skill.id
                ),
            );
        }
        for name in &scan.tool_refs {
            let name = name.as_str();
            if !visible.contains(name) && !FRAMEWORK_TOOL_NAMES.contains(&name) {
                push(
                    span,
                    "mantle.validation.tools.unresolved_tool",
                    unresolved(&skill.id, name, " in instruction prose"),
                );
            }
        }
        for token in &scan.incomplete {
            push(
                span,
                "mantle.validation.prose.incomplete_at_reference",
                format!(
                    "Skill '{}' prose has '{token}', which is not a complete reference: write \
                     @skill.<id>, @block.<id> or @tool.<name>.",
                    skill.id
                ),
            );
        }
        for (token, parsed) in &scan.memory_refs {
            match parsed {
                None => push(
                    span,
                    "mantle.validation.prose.incomplete_memory_reference",
                    format!(
                        "Skill '{}' prose has '{token}', which is not a complete memory reference: \
                         write @memory.<skill_id|project>.<entry>.",
                        skill.id
                    ),
                ),
                Some((ns, entry)) if ns == "system" || !readable(&format!("{ns}.{entry}")) => {
                    push(
                        span,
                        "mantle.validation.prose.unknown_memory_reference",
                        format!(
                            "Skill '{}' prose reads {token}, but '{ns}.{entry}' is not readable while \
                         this skill is active; the token would reach the model verbatim.",
                            skill.id
                        ),
                    );
                }
                Some(_) => {}
            }
        }
        for key in scan.condition_keys.iter().filter(|key| !readable(key)) {
            push(
                span,
                "mantle.validation.prose.unknown_memory_key",
                format!(
                    "Skill '{}' prose condition reads 'session.{key}', which is not readable \
                     while this skill is active; it is always None, so the paragraph never shows.",
                    skill.id
                ),
            );
        }
    }
}

/// §2.8 and §7.2: execute parameters, collect and set_memory entries.
fn step_findings(
    report: &ProjectReport,
    skill: &Skill,
    readable: &dyn Fn(&str) -> bool,
    push: &mut Push<'_>,
) {
    let own = report.entry(&skill.id).and_then(|entry| entry.memory.as_ref());
    let declared = |entry: &str| {
        own.is_some_and(|memory| memory.field(entry).is_some())
            || report.project_memory.field(entry).is_some()
    };
    for step in skill.blocks().flat_map(|block| block.steps.iter()) {
        match &step.kind {
            StepKind::Execute { parameters, .. } => {
                for (name, value) in parameters {
                    let Some((ns, entry)) = value.as_str().and_then(session_parameter) else {
                        continue;
                    };
                    if !readable(&format!("{ns}.{entry}")) {
                        let span = step
                            .parameter_spans
                            .iter()
                            .find(|(key, _)| key == name)
                            .map_or(step.span, |(_, s)| *s);
                        push(
                            span,
                            "mantle.validation.execute_step.unknown_memory_key",
                            format!(
                                "Parameter '{name}' of step '{}' reads 'session.{ns}.{entry}', which \
                                 is not readable while this skill is active; the tool would get None.",
                                step.id
                            ),
                        );
                    }
                }
            }
            StepKind::Collect { collect, .. } => {
                if report.project_memory.field(collect).is_some()
                    && own.is_none_or(|m| m.field(collect).is_none())
                {
                    push(
                        step.span,
                        "mantle.validation.memory.collect_on_project",
                        format!(
                            "Step '{}' collects project field '{collect}'; only skill fields can be collected.",
                            step.id
                        ),
                    );
                } else if !declared(collect) {
                    push(
                        step.span,
                        "mantle.validation.memory.undeclared_entry",
                        format!(
                            "Step '{}' collects '{collect}', which skills/{}/memory.yml does not declare.",
                            step.id, skill.id
                        ),
                    );
                }
            }
            StepKind::SetMemory { set_memory } => {
                for entry in set_memory.keys() {
                    if !declared(entry) {
                        push(
                            step.span,
                            "mantle.validation.memory.undeclared_entry",
                            format!(
                                "Step '{}' sets '{entry}', which neither skills/{}/memory.yml nor the \
                                 project memory.yml declares.",
                                step.id, skill.id
                            ),
                        );
                    }
                }
            }
            _ => {}
        }
    }
}

/// §6.1: the responses a gate names must exist.
fn response_findings(skill: &Skill, responses: &BTreeSet<&str>, push: &mut Push<'_>) {
    let gates = skill.tools.iter().chain(skill.blocks().flat_map(|block| block.tools.iter()));
    for gate in gates {
        if let Some(confirmation) = &gate.requires_confirmation {
            for name in [&confirmation.utter_for_confirmation, &confirmation.utter_on_user_denial]
                .into_iter()
                .flatten()
            {
                if !responses.contains(name.as_str()) {
                    push(
                        gate.span,
                        "mantle.validation.tool_constraint.unknown_requires_confirmation_response",
                        format!(
                            "Tool '{}' in skill '{}' asks for confirmation with response '{name}', \
                             which no responses.yml defines.",
                            gate.name, skill.id
                        ),
                    );
                }
            }
        }
        for name in [&gate.on_success, &gate.on_failure].into_iter().flatten() {
            if !responses.contains(name.as_str()) {
                push(
                    gate.span,
                    "mantle.validation.tool_constraint.unknown_on_success_or_failure",
                    format!(
                        "Tool '{}' in skill '{}' queues response '{name}', which no responses.yml \
                         defines.",
                        gate.name, skill.id
                    ),
                );
            }
        }
    }
}
