//! Reading the frontmatter: every key checked in Rasa's order, the first error reported.

use super::*;

pub(super) const BOOL_KEYS: [&str; 3] = ["hidden", "disabled", "always_include_in_prompt"];
pub(super) const KNOWN_KEYS: [&str; 12] = [
    "name",
    "description",
    "precondition",
    "hidden",
    "disabled",
    "always_include_in_prompt",
    "complete_when",
    "import_tools",
    "tool_constraints",
    "utter",
    "knowledge_answering",
    "routing",
];

pub(super) fn empty_skill(skill_id: &str) -> Skill {
    Skill {
        id: skill_id.to_owned(),
        name: None,
        description: None,
        precondition: None,
        hidden: false,
        disabled: false,
        always_include_in_prompt: false,
        is_default: false,
        engine_managed: false,
        import_tool_names: Vec::new(),
        tool_constraint_names: Vec::new(),
        tools: Vec::new(),
        verbatim_triggers: Vec::new(),
        complete_when: None,
        knowledge_answering_instructions: None,
        referenced_skills: Vec::new(),
        referenced_blocks: Vec::new(),
        body: Vec::new(),
        import_spans: Vec::new(),
    }
}

pub(super) fn read_frontmatter(skill_id: &str, front: &Node) -> Result<Skill, Failure> {
    let entries = front.as_map().unwrap_or(&[]);
    if let Some((key, _)) = front.entry("requires") {
        return Err(fail(
            "skill.requires.removed",
            "Skill-level requires is no longer supported. Use precondition to park the skill \
             until a resolver runs, or hidden: true to omit it from routing. Tool-level \
             requires under tool_constraints is unchanged.",
            key.span,
        ));
    }
    let unknown: Vec<&Node> = entries
        .iter()
        .map(|(key, _)| key)
        .filter(|key| !key.as_str().is_some_and(|name| KNOWN_KEYS.contains(&name)))
        .collect();
    if let Some(first) = unknown.first() {
        let mut names: Vec<String> = unknown.iter().map(|key| key.key_text()).collect();
        crate::order::sort(&mut names);
        return Err(fail(
            "skill.markdown.unknown_frontmatter_key",
            format!("Unknown key(s): {}", names.join(", ")),
            first.span,
        ));
    }
    let mut skill = empty_skill(skill_id);
    let field = |name: &str| front.entry(name).filter(|(_, value)| !value.is_null());
    for name in ["name", "description"] {
        if let Some((_, value)) = field(name) {
            let Some(text) = value.as_str() else {
                return Err(fail(
                    FRONTMATTER_CODE,
                    format!("{name}: Value error, must be a string"),
                    value.span,
                ));
            };
            if name == "name" {
                skill.name = Some(text.to_owned());
            } else {
                skill.description = Some(text.to_owned());
            }
        }
    }
    if let Some((_, value)) = field("precondition") {
        // Ours: the reference gives the code and the rule, not the message.
        let text =
            value.as_str().map(py_strip).filter(|text| !text.is_empty()).ok_or_else(|| {
                fail(
                    "skill.precondition.invalid",
                    "precondition: Value error, precondition must be a non-empty precondition name",
                    value.span,
                )
            })?;
        skill.precondition = Some(text.to_owned());
    }
    for name in BOOL_KEYS {
        if let Some((_, value)) = field(name) {
            let YamlValue::Bool(flag) = value.value else {
                return Err(fail(
                    "skill.markdown.invalid_boolean_frontmatter",
                    format!("{name}: Value error, '{name}' must be a boolean."),
                    value.span,
                ));
            };
            match name {
                "hidden" => skill.hidden = flag,
                "disabled" => skill.disabled = flag,
                _ => skill.always_include_in_prompt = flag,
            }
        }
    }
    if let Some((_, value)) = field("complete_when") {
        skill.complete_when = Some(read_complete_when(value)?);
    }
    let mut imports_in_file_order = Vec::new();
    if let Some((_, value)) = field("import_tools") {
        imports_in_file_order = read_import_tools(&mut skill, value)?;
    }
    if let Some((_, value)) = field("tool_constraints") {
        let Some(items) = value.as_seq() else {
            return Err(fail(
                CONSTRAINTS_CODE,
                "tool_constraints: Input should be a valid list",
                value.span,
            ));
        };
        for (n, item) in items.iter().enumerate() {
            let gate = read_gate_entry(item, &format!("tool_constraints.{n}"), CONSTRAINTS_CODE)?;
            skill.tool_constraint_names.push(gate.name.clone());
            skill.tools.push(gate);
        }
    }
    if let Some((_, value)) = field("utter") {
        skill.verbatim_triggers = read_utter(value)?;
    }
    if let Some((_, value)) = field("knowledge_answering") {
        let instructions = value.get("instructions").and_then(Node::as_str);
        let only_known = value
            .as_map()
            .is_some_and(|map| map.iter().all(|(key, _)| key.as_str() == Some("instructions")));
        match instructions {
            Some(text) if only_known => {
                skill.knowledge_answering_instructions = Some(text.to_owned());
            }
            // Ours: the reference names the code only.
            _ => {
                return Err(fail(
                    "skill.markdown.invalid_knowledge_answering",
                    "knowledge_answering: Value error, knowledge_answering must be a mapping \
                     with a string 'instructions'",
                    value.span,
                ));
            }
        }
    }
    if let Some((_, value)) = field("routing") {
        let Some(map) = value.as_map() else {
            return Err(fail(
                FRONTMATTER_CODE,
                "routing: Input should be a valid dictionary",
                value.span,
            ));
        };
        for (key, flag) in map {
            let slot = match key.as_str() {
                Some("is_default") => &mut skill.is_default,
                Some("engine_managed") => &mut skill.engine_managed,
                _ => {
                    return Err(fail(
                        "skill.markdown.unknown_frontmatter_key",
                        format!("Unknown key(s): {}", key.key_text()),
                        key.span,
                    ));
                }
            };
            match flag.value {
                YamlValue::Bool(on) => *slot = on,
                YamlValue::Null => *slot = false,
                _ => {
                    return Err(fail(
                        FRONTMATTER_CODE,
                        format!("routing.{}: Input should be a valid boolean", key.key_text()),
                        flag.span,
                    ));
                }
            }
        }
    }
    // Import-only tools follow the constraint gates; a constraint wins on a shared name.
    for (reference, span) in imports_in_file_order {
        let bare = bare_tool_name(&reference).unwrap_or_else(|_| reference.clone());
        if skill.gate(&bare).is_none() {
            skill.tools.push(GatedTool {
                name: bare,
                requires: None,
                requires_confirmation: None,
                on_success: None,
                on_failure: None,
                span,
            });
        }
    }
    Ok(skill)
}

/// `complete_when:`; the reference quotes the bare-string message only, the others are ours.
pub(super) fn read_complete_when(value: &Node) -> Result<CompleteWhen, Failure> {
    let invalid = |message: &str, span: Span| fail("skill.complete_when.invalid", message, span);
    let Some(map) = value.as_map() else {
        return Err(invalid(
            "complete_when: Value error, complete_when must be a mapping with 'condition' and/or \
             'criteria' (bare strings are not allowed).",
            value.span,
        ));
    };
    let mut complete = CompleteWhen { condition: None, criteria: Vec::new() };
    for (key, item) in map {
        match key.as_str() {
            Some("condition") => {
                let Some(text) = item.as_str() else {
                    return Err(invalid(
                        "complete_when.condition: Input should be a valid string",
                        item.span,
                    ));
                };
                if let Err(problem) = condition::parse(text) {
                    return Err(invalid(
                        &format!(
                            "complete_when.condition: Value error, invalid condition: {problem}"
                        ),
                        item.span,
                    ));
                }
                complete.condition = Some(text.to_owned());
            }
            Some("criteria") => {
                let Some(items) = item.as_seq() else {
                    return Err(invalid(
                        "complete_when.criteria: Input should be a valid list",
                        item.span,
                    ));
                };
                for criterion in items {
                    let Some(text) = criterion.as_str().filter(|text| !py_strip(text).is_empty())
                    else {
                        return Err(invalid(
                            "complete_when.criteria: Value error, criteria must be non-empty strings",
                            criterion.span,
                        ));
                    };
                    if complete.criteria.iter().any(|seen| seen == text) {
                        return Err(invalid(
                            &format!(
                                "complete_when.criteria: Value error, duplicate criterion '{text}'"
                            ),
                            criterion.span,
                        ));
                    }
                    complete.criteria.push(text.to_owned());
                }
            }
            _ => {
                return Err(invalid(
                    &format!("complete_when.{}: Extra inputs are not permitted", key.key_text()),
                    key.span,
                ));
            }
        }
    }
    if complete.condition.is_none() && complete.criteria.is_empty() {
        return Err(invalid(
            "complete_when: Value error, complete_when must be a mapping with 'condition' and/or \
             'criteria' (bare strings are not allowed).",
            value.span,
        ));
    }
    Ok(complete)
}

/// Reads `import_tools`; returns the entries in file order (the order of `Skill.tools`).
pub(super) fn read_import_tools(
    skill: &mut Skill,
    value: &Node,
) -> Result<Vec<(String, Span)>, Failure> {
    const CODE: &str = "skill.markdown.invalid_import_tools";
    let Some(items) = value.as_seq() else {
        return Err(fail(CODE, "import_tools: Input should be a valid list", value.span));
    };
    for item in items {
        let Some(reference) = item.as_str() else {
            return Err(fail(CODE, "import_tools: Value error, must be a string", item.span));
        };
        skill.import_tool_names.push(reference.to_owned());
        skill.import_spans.push(item.span);
    }
    for (reference, span) in skill.import_tool_names.iter().zip(&skill.import_spans) {
        if let Err(message) = bare_tool_name(reference) {
            return Err(fail(CODE, message, *span));
        }
    }
    // Rasa keeps the entries sorted (and deduplicated).
    let in_file_order: Vec<(String, Span)> =
        skill.import_tool_names.drain(..).zip(skill.import_spans.drain(..)).collect();
    let mut pairs = in_file_order.clone();
    crate::order::sort_by(&mut pairs, |a, b| a.0.cmp(&b.0));
    pairs.dedup_by(|a, b| a.0 == b.0);
    (skill.import_tool_names, skill.import_spans) = pairs.into_iter().unzip();
    Ok(in_file_order)
}

/// `- <tool>: <options|null>` (frontmatter) or a block `tools:` entry.
pub(super) fn read_gate_entry(item: &Node, loc: &str, code: &str) -> Result<GatedTool, Failure> {
    let single = item.as_map().filter(|map| map.len() == 1);
    let Some([(key, options)]) = single else {
        return Err(fail(
            code,
            format!(
                "{loc}: Value error, Each tool_constraints entry must be a single-key mapping."
            ),
            item.span,
        ));
    };
    let name = key.key_text();
    let mut gate = GatedTool {
        name: name.clone(),
        requires: None,
        requires_confirmation: None,
        on_success: None,
        on_failure: None,
        span: key.span,
    };
    let loc = format!("{loc}.{name}");
    read_gate_options(&mut gate, options, &loc, code)?;
    Ok(gate)
}

pub(super) fn read_gate_options(
    gate: &mut GatedTool,
    options: &Node,
    loc: &str,
    code: &str,
) -> Result<(), Failure> {
    if options.is_null() {
        return Ok(());
    }
    let Some(map) = options.as_map() else {
        return Err(fail(code, format!("{loc}: Input should be a valid dictionary"), options.span));
    };
    const ALLOWED: [&str; 4] = ["requires", "requires_confirmation", "on_success", "on_failure"];
    if let Some((key, _)) =
        map.iter().find(|(key, _)| !key.as_str().is_some_and(|k| ALLOWED.contains(&k)))
    {
        return Err(fail(
            code,
            format!(
                "{loc}: Value error, Unknown key(s): {}. Allowed keys: requires, \
                 requires_confirmation, on_success, on_failure.",
                key.key_text()
            ),
            key.span,
        ));
    }
    for (key, value) in map {
        let key_name = key.key_text();
        if key_name == "requires_confirmation" {
            gate.requires_confirmation =
                read_confirmation(value, &format!("{loc}.{key_name}"), code)?;
            continue;
        }
        let text = match &value.value {
            YamlValue::Null => None,
            YamlValue::Str(text) => Some(text.clone()),
            _ => {
                return Err(fail(
                    code,
                    format!("{loc}.{key_name}: Input should be a valid string"),
                    value.span,
                ));
            }
        };
        match key_name.as_str() {
            "requires" => gate.requires = text,
            "on_success" => gate.on_success = text,
            _ => gate.on_failure = text,
        }
    }
    Ok(())
}

pub(super) fn read_confirmation(
    value: &Node,
    loc: &str,
    code: &str,
) -> Result<Option<Confirmation>, Failure> {
    let Some(map) = value.as_map() else {
        return Err(fail(
            code,
            format!("{loc}: Value error, requires_confirmation must be a mapping"),
            value.span,
        ));
    };
    const ALLOWED: [&str; 3] = ["enabled", "utter_for_confirmation", "utter_on_user_denial"];
    if let Some((key, _)) =
        map.iter().find(|(key, _)| !key.as_str().is_some_and(|k| ALLOWED.contains(&k)))
    {
        return Err(fail(
            code,
            format!(
                "{loc}: Value error, Unknown key(s): {}. Allowed keys: enabled, \
                 utter_for_confirmation, utter_on_user_denial.",
                key.key_text()
            ),
            key.span,
        ));
    }
    let mut confirmation =
        Confirmation { enabled: false, utter_for_confirmation: None, utter_on_user_denial: None };
    for (key, item) in map {
        let key_name = key.key_text();
        if key_name == "enabled" {
            match item.value {
                YamlValue::Bool(flag) => confirmation.enabled = flag,
                YamlValue::Null => confirmation.enabled = false,
                _ => {
                    return Err(fail(
                        code,
                        format!("{loc}.enabled: Value error, enabled must be a boolean"),
                        item.span,
                    ));
                }
            }
            continue;
        }
        let text = match &item.value {
            YamlValue::Null => None,
            YamlValue::Str(text) => Some(text.clone()),
            _ => {
                return Err(fail(
                    code,
                    format!("{loc}.{key_name}: Input should be a valid string"),
                    item.span,
                ));
            }
        };
        if key_name == "utter_for_confirmation" {
            confirmation.utter_for_confirmation = text;
        } else {
            confirmation.utter_on_user_denial = text;
        }
    }
    Ok(confirmation.enabled.then_some(confirmation))
}

/// `utter:`; the reference quotes the missing-trigger message only, the others are ours.
pub(super) fn read_utter(value: &Node) -> Result<Vec<VerbatimTrigger>, Failure> {
    const CODE: &str = "skill.markdown.invalid_utter";
    let Some(items) = value.as_seq() else {
        return Err(fail(CODE, "utter: Input should be a valid list", value.span));
    };
    let mut triggers: Vec<VerbatimTrigger> = Vec::new();
    for (n, item) in items.iter().enumerate() {
        let single = item.as_map().filter(|map| map.len() == 1);
        let Some([(key, options)]) = single else {
            return Err(fail(
                CODE,
                format!("utter.{n}: Value error, Each utter entry must be a single-key mapping."),
                item.span,
            ));
        };
        let name = key.key_text();
        let mut on_activate = false;
        let mut when = None;
        if let Some(map) = options.as_map() {
            for (option, setting) in map {
                // YAML 1.1 reads an unquoted `on` key as True; Rasa normalises it back.
                let option_name = match &option.value {
                    YamlValue::Bool(true) => "on".to_owned(),
                    other => yaml::python_str(other),
                };
                match option_name.as_str() {
                    "on" => match setting.as_str() {
                        Some("activate") => on_activate = true,
                        None if setting.is_null() => {}
                        _ => {
                            return Err(fail(
                                CODE,
                                format!(
                                    "utter.{n}.{name}.on: Value error, on must be 'activate', got {}",
                                    python_repr(&setting.value)
                                ),
                                setting.span,
                            ));
                        }
                    },
                    "when" => match &setting.value {
                        YamlValue::Null => {}
                        YamlValue::Str(text) => when = Some(text.clone()),
                        _ => {
                            return Err(fail(
                                CODE,
                                format!("utter.{n}.{name}.when: Input should be a valid string"),
                                setting.span,
                            ));
                        }
                    },
                    other => {
                        return Err(fail(
                            CODE,
                            format!(
                                "utter.{n}.{name}: Unknown key(s): {other}. Allowed keys: on, when."
                            ),
                            option.span,
                        ));
                    }
                }
            }
        } else if !options.is_null() {
            return Err(fail(
                CODE,
                format!("utter.{n}.{name}: Input should be a valid dictionary"),
                options.span,
            ));
        }
        if !on_activate && when.is_none() {
            return Err(fail(
                CODE,
                format!("utter trigger '{name}' must set 'on: activate' or 'when:'."),
                key.span,
            ));
        }
        if triggers.iter().any(|trigger| trigger.response_name == name) {
            return Err(fail(CODE, format!("Duplicate utter trigger '{name}'."), key.span));
        }
        triggers.push(VerbatimTrigger { response_name: name, on_activate, when_condition: when });
    }
    Ok(triggers)
}
