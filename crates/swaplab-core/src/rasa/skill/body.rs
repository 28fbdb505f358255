//! The body: prose and `:::ordered_block` sections, `if:` segments, block YAML into steps.

use super::*;

pub(super) enum Section {
    Prose { start: usize, end: usize },
    Block { header: (usize, usize), id: Option<String>, body_start: usize, body_end: usize },
}

pub(super) fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Splits the body the way `_ORDERED_BLOCK_PATTERN` does:
/// `:::ordered_block(?:\s+id=(?P<id>[\w-]+))?\s*\n(?P<body>.*?)^:::\s*$` (DOTALL|MULTILINE).
pub(super) fn split_body(body: &str) -> Vec<Section> {
    let mut sections = Vec::new();
    let mut prose_start = 0;
    let mut search = 0;
    while let Some(found) = body[search..].find(":::ordered_block") {
        let at = search + found;
        match match_block(body, at) {
            Some((id, body_start, body_end, end)) => {
                sections.push(Section::Prose { start: prose_start, end: at });
                let header_end = body[at..].find('\n').map_or(body.len(), |n| at + n);
                sections.push(Section::Block {
                    header: (at, header_end),
                    id,
                    body_start,
                    body_end,
                });
                prose_start = end;
                search = end.max(at + 1);
            }
            None => search = at + 1,
        }
        while !body.is_char_boundary(search) {
            search += 1;
        }
    }
    sections.push(Section::Prose { start: prose_start, end: body.len() });
    sections
}

/// Tries the pattern at `at`: `(id, body_start, body_end, match_end)`.
pub(super) fn match_block(body: &str, at: usize) -> Option<(Option<String>, usize, usize, usize)> {
    let after_keyword = at + ":::ordered_block".len();
    // `\s*\n` after position `from`: ends after the last `\n` of the whitespace run.
    let newline_after = |from: usize| -> Option<usize> {
        let run_end = body[from..].find(|c: char| !py_isspace(c)).map_or(body.len(), |n| from + n);
        body[from..run_end].rfind('\n').map(|n| from + n + 1)
    };
    let with_id = (|| {
        let ws_end = body[after_keyword..]
            .find(|c: char| !py_isspace(c))
            .map_or(body.len(), |n| after_keyword + n);
        if ws_end == after_keyword || !body[ws_end..].starts_with("id=") {
            return None;
        }
        let id_start = ws_end + 3;
        let id_end = body[id_start..]
            .find(|c: char| !(is_word(c) || c == '-'))
            .map_or(body.len(), |n| id_start + n);
        if id_end == id_start {
            return None;
        }
        newline_after(id_end).map(|start| (Some(body[id_start..id_end].to_owned()), start))
    })();
    let (id, body_start) =
        with_id.or_else(|| newline_after(after_keyword).map(|start| (None, start)))?;
    // Lazy body up to the first line that is `:::` followed by whitespace reaching a
    // newline or the end.
    let mut line_start = body_start;
    loop {
        let at_line_start = line_start == 0 || body.as_bytes().get(line_start - 1) == Some(&b'\n');
        if at_line_start && body[line_start..].starts_with(":::") {
            let from = line_start + 3;
            let run_end =
                body[from..].find(|c: char| !py_isspace(c)).map_or(body.len(), |n| from + n);
            if run_end == body.len() {
                return Some((id, body_start, line_start, body.len()));
            }
            if let Some(newline) = body[from..run_end].rfind('\n') {
                return Some((id, body_start, line_start, from + newline));
            }
        }
        let next = body[line_start..].find('\n')?;
        line_start += next + 1;
    }
}

/// Paragraphs of one prose section (`\n[^\S\n]*\n+` splits them) and their `if:` markers.
pub(super) fn prose_segments(
    body: &str,
    start: usize,
    end: usize,
    span_of: &dyn Fn(usize, usize) -> Span,
) -> Result<Vec<ProseSegment>, Failure> {
    let text = &body[start..end];
    let mut paragraphs = Vec::new();
    let mut from = 0;
    let mut i = 0;
    let bytes = text.as_bytes();
    while i < bytes.len() {
        if bytes[i] == b'\n' {
            // [^\S\n]* then \n+
            let mut j = i + 1;
            while let Some(c) = text[j..].chars().next() {
                if c != '\n' && py_isspace(c) {
                    j += c.len_utf8();
                } else {
                    break;
                }
            }
            if bytes.get(j) == Some(&b'\n') {
                while bytes.get(j) == Some(&b'\n') {
                    j += 1;
                }
                paragraphs.push((from, i));
                from = j;
                i = j;
                continue;
            }
        }
        i += 1;
    }
    paragraphs.push((from, text.len()));

    let mut segments = Vec::new();
    for (p_start, p_end) in paragraphs {
        let raw = &text[p_start..p_end];
        let paragraph = py_strip(raw);
        if paragraph.is_empty() {
            continue;
        }
        let offset = start + p_start + (paragraph.as_ptr() as usize - raw.as_ptr() as usize);
        let span = span_of(offset, offset + paragraph.len());
        let (first, rest) = paragraph.split_once('\n').unwrap_or((paragraph, ""));
        let first = py_strip(first);
        let first_span = span_of(offset, offset + first.len());
        // The reference quotes only the start of the else/elif messages; the rest is ours.
        if first.starts_with("else:") {
            return Err(fail(
                "skill.markdown.unsupported_prose_else",
                "'else:' is not allowed in prose. Write a separate 'if:' paragraph with the \
                 opposite condition.",
                first_span,
            ));
        }
        if first.starts_with("elif:") {
            return Err(fail(
                "skill.markdown.unsupported_prose_elif",
                "'elif:' is not allowed in prose. Write a separate 'if:' paragraph for each \
                 condition.",
                first_span,
            ));
        }
        if let Some(condition) = first.strip_prefix("if:") {
            let condition = py_strip(condition);
            if condition.is_empty() {
                return Err(fail(
                    "skill.markdown.empty_prose_if_condition",
                    "Prose 'if:' marker must include a non-empty condition.",
                    first_span,
                ));
            }
            let body_text = py_strip(rest);
            if body_text.is_empty() {
                return Err(fail(
                    "skill.markdown.empty_prose_if_body",
                    "Prose 'if:' marker must be followed by a non-empty paragraph body.",
                    first_span,
                ));
            }
            let body_offset = offset + (body_text.as_ptr() as usize - paragraph.as_ptr() as usize);
            segments.push(ProseSegment {
                scan: ProseScan::of(body_text, Some(condition)),
                condition: Some(condition.to_owned()),
                text: body_text.to_owned(),
                span,
                offset: body_offset,
            });
        } else {
            segments.push(ProseSegment {
                scan: ProseScan::of(paragraph, None),
                condition: None,
                text: paragraph.to_owned(),
                span,
                offset,
            });
        }
    }
    Ok(segments)
}

/// One block, from its body's YAML as [`Joined::read_yaml`] read it. Mapping, duplicate
/// and `description` messages are Rasa's; the others ours.
pub(super) fn read_block(
    id: &str,
    yaml: Result<Option<Node>, Failure>,
    header: Span,
) -> Result<OrderedBlock, Failure> {
    let not_mapping =
        || fail(BLOCK_CODE, format!("Ordered block '{id}' body must be a YAML mapping."), header);
    let node = match yaml? {
        Some(node) if node.as_map().is_some() => node,
        _ => return Err(not_mapping()),
    };
    if let Some((key, _)) = node.entry("routable") {
        // Ours: the reference gives the code, not the message.
        return Err(fail(
            "skill.markdown.ordered_block_routable_forbidden",
            format!(
                "Ordered block '{id}' must not set 'routable'. Remove it; routability follows \
                 from whether the skill has prose."
            ),
            key.span,
        ));
    }
    if let Some((key, _)) = node.entry("description") {
        return Err(fail(
            "skill.markdown.ordered_block_description_forbidden",
            format!(
                "Ordered block '{id}' must not set 'description'. Remove it; the orchestrator \
                 routes on the skill description."
            ),
            key.span,
        ));
    }
    let mut block = OrderedBlock {
        block_id: id.to_owned(),
        routable: false,
        complete_when: None,
        tools: Vec::new(),
        steps: Vec::new(),
        span: header,
    };
    if let Some(value) = node.get("complete_when").filter(|value| !value.is_null()) {
        let Some(text) = value.as_str() else {
            return Err(fail(
                BLOCK_CODE,
                format!("Ordered block '{id}' complete_when must be an expression string."),
                value.span,
            ));
        };
        block.complete_when = Some(text.to_owned());
    }
    if let Some(value) = node.get("tools").filter(|value| !value.is_null()) {
        let Some(items) = value.as_seq() else {
            return Err(fail(
                BLOCK_CODE,
                format!("Ordered block '{id}' tools must be a list."),
                value.span,
            ));
        };
        for (n, item) in items.iter().enumerate() {
            block.tools.push(read_block_tool(item, &format!("tools.{n}"))?);
        }
    }
    if let Some(value) = node.get("steps").filter(|value| !value.is_null()) {
        let Some(items) = value.as_seq() else {
            return Err(fail(
                STEP_CODE,
                format!("Ordered block '{id}' steps must be a list."),
                value.span,
            ));
        };
        for item in items {
            block.steps.push(read_step(item)?);
        }
    }
    // A missing `next` links to the following step; the last goes to END.
    let ids: Vec<String> = block.steps.iter().map(|step| step.id.clone()).collect();
    for (n, step) in block.steps.iter_mut().enumerate() {
        if step.next.is_none() && step.kind != StepKind::End {
            step.next =
                Some(Next::Step(ids.get(n + 1).cloned().unwrap_or_else(|| "END".to_owned())));
        }
    }
    Ok(block)
}

/// A block `tools:` entry: a bare name, or a `GatedTool` mapping with `name:`.
pub(super) fn read_block_tool(item: &Node, loc: &str) -> Result<GatedTool, Failure> {
    if let Some(name) = item.as_str() {
        return Ok(GatedTool {
            name: name.to_owned(),
            requires: None,
            requires_confirmation: None,
            on_success: None,
            on_failure: None,
            span: item.span,
        });
    }
    let Some(name_node) = item.get("name") else {
        return read_gate_entry(item, loc, BLOCK_CODE);
    };
    let Some(name) = name_node.as_str() else {
        return Err(fail(
            BLOCK_CODE,
            format!("{loc}.name: Input should be a valid string"),
            name_node.span,
        ));
    };
    let mut gate = GatedTool {
        name: name.to_owned(),
        requires: None,
        requires_confirmation: None,
        on_success: None,
        on_failure: None,
        span: name_node.span,
    };
    let rest: Vec<(Node, Node)> = item
        .as_map()
        .unwrap_or(&[])
        .iter()
        .filter(|(key, _)| key.as_str() != Some("name"))
        .cloned()
        .collect();
    let options = Node { value: YamlValue::Map(rest), span: item.span, plain: false };
    read_gate_options(&mut gate, &options, loc, BLOCK_CODE)?;
    Ok(gate)
}

pub(super) const STEP_KINDS: [&str; 8] =
    ["instructions", "collect", "action", "execute_tool", "set_memory", "call", "link", "noop"];

/// One step. Unknown-property, missing-property, cannot-infer and cross-skill-call
/// messages are Rasa's; type errors and the removed-key migration texts are ours, and
/// for a step without `id` the `{id}` of the missing-property message is left empty.
pub(super) fn read_step(item: &Node) -> Result<Step, Failure> {
    let Some(map) = item.as_map() else {
        return Err(fail(STEP_CODE, "Each step must be a YAML mapping.", item.span));
    };
    let get = |key: &str| item.get(key);
    let id_text = get("id").map(|id| yaml::python_str(&id.value));
    let kind_key = if id_text.as_deref() == Some("END") {
        "END"
    } else if get("noop").is_some_and(|value| value.value == YamlValue::Bool(true)) {
        "noop"
    } else if get("utter").is_some() {
        "utter"
    } else if let Some(key) = STEP_KINDS.iter().take(7).find(|key| get(key).is_some()) {
        key
    } else {
        let keys: Vec<String> = map.iter().map(|(key, _)| python_repr(&key.value)).collect();
        return Err(fail(
            "python.ValueError",
            format!(
                "Cannot infer step kind from YAML keys [{}]. Expected one of: instructions, \
                 collect, action, utter, noop, execute_tool, set_memory, call, link; or id == \
                 'END'.",
                keys.join(", ")
            ),
            item.span,
        ));
    };
    let step_name = id_text.unwrap_or_default();
    let allowed: &[&str] = match kind_key {
        "END" => &["id"],
        "noop" => &["id", "noop", "next"],
        "utter" => &["id", "utter", "next"],
        "instructions" => &["id", "instructions", "complete_when", "optional", "next"],
        "collect" => {
            &["id", "collect", "utterance", "description", "dtmf", "ask_before_filling", "next"]
        }
        "action" => &["id", "action", "next"],
        "execute_tool" => &["id", "execute_tool", "parameters", "next"],
        "set_memory" => &["id", "set_memory", "next"],
        "call" => &["id", "call", "next"],
        _ => &["id", "link", "next"],
    };
    if let Some((key, _)) =
        map.iter().find(|(key, _)| !key.as_str().is_some_and(|k| allowed.contains(&k)))
    {
        let key_name = key.key_text();
        let message = if kind_key == "collect"
            && (key_name == "force_collection" || key_name == "tool")
        {
            // Ours: the reference says these removed keys get migration errors.
            format!(
                "Step '{step_name}' uses removed property '{key_name}'. Remove it; collect steps \
                 no longer take it."
            )
        } else {
            format!(
                "Unknown step property '{key_name}' on step '{step_name}'. Remove it or check for typos."
            )
        };
        return Err(fail(STEP_CODE, message, key.span));
    }
    let Some(id_node) = get("id") else {
        return Err(fail(
            STEP_CODE,
            format!("Step '{step_name}' is missing required property 'id'."),
            item.span,
        ));
    };
    let Some(id) = id_node.as_str().map(str::to_owned) else {
        return Err(fail(
            STEP_CODE,
            format!("Step '{step_name}' property 'id': Input should be a valid string"),
            id_node.span,
        ));
    };
    let text = |key: &str| -> Result<Option<String>, Failure> {
        match get(key) {
            None => Ok(None),
            Some(node) if node.is_null() => Ok(None),
            Some(node) => node.as_str().map(|t| Some(t.to_owned())).ok_or_else(|| {
                fail(
                    STEP_CODE,
                    format!("Step '{id}' property '{key}': Input should be a valid string"),
                    node.span,
                )
            }),
        }
    };
    let required = |key: &str| -> Result<String, Failure> {
        text(key)?.ok_or_else(|| {
            fail(STEP_CODE, format!("Step '{id}' is missing required property '{key}'."), item.span)
        })
    };
    let flag = |key: &str| -> Result<bool, Failure> {
        match get(key).map(|node| (&node.value, node.span)) {
            None | Some((YamlValue::Null, _)) => Ok(false),
            Some((YamlValue::Bool(on), _)) => Ok(*on),
            Some((_, span)) => Err(fail(
                STEP_CODE,
                format!("Step '{id}' property '{key}': Input should be a valid boolean"),
                span,
            )),
        }
    };
    let mapping = |key: &str| -> Result<serde_json::Map<String, serde_json::Value>, Failure> {
        match get(key) {
            None => Ok(serde_json::Map::new()),
            Some(node) if node.is_null() => Ok(serde_json::Map::new()),
            Some(node) => match yaml::to_json(&node.value) {
                serde_json::Value::Object(map) if node.as_map().is_some() => Ok(map),
                _ => Err(fail(
                    STEP_CODE,
                    format!("Step '{id}' property '{key}': Input should be a valid dictionary"),
                    node.span,
                )),
            },
        }
    };
    let mut parameter_spans = Vec::new();
    let kind = match kind_key {
        "END" => StepKind::End,
        "noop" => StepKind::Route,
        "utter" => StepKind::Action { action: required("utter")? },
        "instructions" => {
            if let Some(node) = get("complete_when")
                .filter(|node| node.as_map().is_some() || node.as_seq().is_some())
            {
                return Err(fail(
                    STEP_CODE,
                    format!(
                        "Step '{id}': step complete_when must be an expression string (use session.<ns>.<entry> conditions)."
                    ),
                    node.span,
                ));
            }
            StepKind::Autonomous {
                instructions: required("instructions")?,
                complete_when: text("complete_when")?,
                optional: flag("optional")?,
            }
        }
        "collect" => StepKind::Collect {
            collect: required("collect")?,
            utterance: text("utterance")?,
            description: text("description")?,
            ask_before_filling: flag("ask_before_filling")?,
        },
        "action" => StepKind::Action { action: required("action")? },
        "execute_tool" => {
            if let Some(map) = get("parameters").and_then(Node::as_map) {
                parameter_spans =
                    map.iter().map(|(key, value)| (key.key_text(), value.span)).collect();
            }
            StepKind::Execute {
                execute_tool: required("execute_tool")?,
                parameters: mapping("parameters")?,
            }
        }
        "set_memory" => StepKind::SetMemory { set_memory: mapping("set_memory")? },
        "call" => StepKind::Call { call: call_target(&required("call")?, item.span)? },
        _ => StepKind::Link { link: call_target(&required("link")?, item.span)? },
    };
    let next = match get("next") {
        None => None,
        Some(node) if node.is_null() => None,
        Some(node) => Some(read_next(&id, node)?),
    };
    Ok(Step { id, kind, next, span: item.span, parameter_spans })
}

pub(super) fn call_target(target: &str, span: Span) -> Result<String, Failure> {
    if let Some((skill, _)) = target.split_once("__") {
        return Err(fail(
            STEP_CODE,
            format!(
                "Cross-skill call target '{target}' must be a skill id, not a compiled target id. \
                 Use the callee skill's id (e.g. '{skill}')."
            ),
            span,
        ));
    }
    Ok(target.to_owned())
}

/// `next:`; `parse_next_branches`' own messages are not in the reference, these are ours.
pub(super) fn read_next(id: &str, node: &Node) -> Result<Next, Failure> {
    if let Some(target) = node.as_str() {
        return Ok(Next::Step(target.to_owned()));
    }
    let invalid = |span: Span| {
        fail(
            STEP_CODE,
            format!(
                "Step '{id}' next must be a step id or a list of {{if: <condition>, then: <step>}} \
                 / {{else: <step>}} branches."
            ),
            span,
        )
    };
    let Some(items) = node.as_seq() else { return Err(invalid(node.span)) };
    let mut branches = Vec::new();
    for item in items {
        let target = |key: &str| item.get(key).and_then(Node::as_str).map(str::to_owned);
        match (target("if"), target("then"), target("else")) {
            (Some(condition), Some(then), None) => {
                branches.push(Branch { condition: Some(condition), target: then });
            }
            (None, None, Some(otherwise)) => {
                branches.push(Branch { condition: None, target: otherwise });
            }
            _ => return Err(invalid(item.span)),
        }
    }
    Ok(Next::Branches(branches))
}
