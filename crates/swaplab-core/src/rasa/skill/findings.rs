//! Train-phase findings that need only this file.

use super::*;

pub(super) fn train_findings(
    file: &str,
    skill: &Skill,
    span_of: &dyn Fn(usize, usize) -> Span,
    findings: &mut Vec<Diagnostic>,
) {
    let mut warn = |span: Span, code: &str, message: String| {
        findings.push(Diagnostic::warning(file, span, Phase::Train, code, message));
    };
    let top = Span::point(Position::START);
    if skill.id == "project" || skill.id == "system" {
        warn(
            top,
            "mantle.validation.skill.reserved_id",
            format!("Skill id '{}' is reserved.", skill.id),
        );
    }
    if skill.id.contains('.') {
        warn(
            top,
            "mantle.validation.skill.invalid_id",
            format!("Skill id '{}' must not contain '.'.", skill.id),
        );
    }
    if skill.description.as_deref().is_none_or(|text| py_strip(text).is_empty()) {
        warn(
            top,
            "mantle.validation.skill.missing_description",
            format!("Skill '{}' has no description; the orchestrator routes on it.", skill.id),
        );
    }
    for segment in skill.segments() {
        if let Some(condition) = &segment.condition
            && let Err(problem) = condition::parse(condition)
        {
            warn(
                Span::line(segment.span.start.line, ""),
                "mantle.validation.prose.invalid_if_expression",
                format!("Prose 'if:' condition '{condition}' is not a valid expression: {problem}"),
            );
        }
        for (at, ns, entry) in session_references(&segment.text) {
            let start = segment.offset + at;
            let span = span_of(start, start + 10 + ns.len() + entry.len());
            warn(
                span,
                "mantle.validation.prose.session_reference_in_instructions",
                format!(
                    "Skill '{}' prose mentions 'session.{ns}.{entry}'; memory conditions belong in \
                     an 'if:' line, and prose reads memory with @memory.{ns}.{entry}.",
                    skill.id
                ),
            );
        }
    }
    for tool in &skill.tools {
        if let Some(requires) = &tool.requires
            && let Err(problem) = condition::parse(requires)
        {
            warn(
                tool.span,
                "swaplab.requires.invalid_expression",
                format!(
                    "requires '{requires}' on tool '{}' is not a valid condition ({problem}); Rasa \
                     does not check it, and at run time the gate stays closed, hiding the tool.",
                    tool.name
                ),
            );
        }
    }
    for block in skill.blocks() {
        for step in &block.steps {
            if let StepKind::Execute { parameters, .. } = &step.kind {
                for (name, value) in parameters {
                    let Some(text) = value.as_str() else { continue };
                    let trimmed = text.trim();
                    if trimmed.starts_with("session.") && session_parameter(trimmed).is_none() {
                        let span = step
                            .parameter_spans
                            .iter()
                            .find(|(key, _)| key == name)
                            .map_or(step.span, |(_, span)| *span);
                        warn(
                            span,
                            "mantle.validation.execute_step.invalid_session_parameter",
                            format!(
                                "Parameter '{name}' of step '{}' looks like a memory reference but \
                                 is not 'session.<ns>.<entry>'; it is passed as the literal string.",
                                step.id
                            ),
                        );
                    }
                }
            }
        }
    }
}

/// `session.<ns>.<entry>` exactly (what `resolve_parameter_map` resolves): `(ns, entry)`.
pub fn session_parameter(value: &str) -> Option<(&str, &str)> {
    let rest = value.trim().strip_prefix("session.")?;
    let (ns, entry) = rest.split_once('.')?;
    let ident = |part: &str| {
        part.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
            && part.chars().all(is_word)
    };
    (ident(ns) && ident(entry)).then_some((ns, entry))
}

/// `(?<![\w.])session\.([\w-]+)\.([\w-]+)` in prose text.
pub(super) fn session_references(text: &str) -> Vec<(usize, &str, &str)> {
    let mut found = Vec::new();
    let mut search = 0;
    while let Some(n) = text[search..].find("session.") {
        let at = search + n;
        search = at + 1;
        if text[..at].chars().next_back().is_some_and(|c| is_word(c) || c == '.') {
            continue;
        }
        let rest = &text[at + 8..];
        let part = |s: &str| s.find(|c: char| !(is_word(c) || c == '-')).unwrap_or(s.len());
        let ns_len = part(rest);
        if ns_len == 0 || rest.as_bytes().get(ns_len) != Some(&b'.') {
            continue;
        }
        let entry_rest = &rest[ns_len + 1..];
        let entry_len = part(entry_rest);
        if entry_len == 0 {
            continue;
        }
        found.push((at, &rest[..ns_len], &entry_rest[..entry_len]));
    }
    found
}
