//! `skill.md` compile errors and findings, one case per rule of reference §1–§2, each with
//! Rasa's exact code and message and the line it points at.

use swaplab_core::diagnostic::Phase;
use swaplab_core::rasa::skill::{BodyEntry, Next, StepKind, compile_skill};

const FILE: &str = "skills/demo/skill.md";

/// Compiles `text` as skill `demo` and expects a compile error.
fn rejects(text: &str, code: &str, message: &str, line: u32) {
    let compiled = compile_skill(FILE, "demo", text);
    let error = compiled.error.unwrap_or_else(|| panic!("accepted:\n{text}"));
    assert_eq!((error.code.as_str(), error.message.as_str()), (code, message), "\n{text}");
    assert_eq!(error.span.start.line, line, "line of {code} in\n{text}");
    let first = &compiled.diagnostics[0];
    assert_eq!((first.file.as_str(), first.phase), (FILE, Phase::Compile));
}

fn accepts(text: &str) -> swaplab_core::rasa::skill::Skill {
    let compiled = compile_skill(FILE, "demo", text);
    match compiled.compiled {
        Some(skill) => skill,
        None => panic!("rejected: {:?}\n{text}", compiled.error),
    }
}

fn skill(front: &str, body: &str) -> String {
    format!("---\ndescription: Demo.\n{front}---\n{body}")
}

#[test]
fn delimiters_and_the_frontmatter_split() {
    let delimiter = "skill.md must start with YAML frontmatter (--- ... ---)";
    rejects("name: x\n---\nBody\n", "skill.markdown.invalid_frontmatter_delimiter", delimiter, 1);
    rejects("---\nname: x\nBody\n", "skill.markdown.invalid_frontmatter_delimiter", delimiter, 1);
    rejects(
        "\n\n---\n- a\n---\nBody\n",
        "skill.markdown.invalid_frontmatter",
        "skill.md frontmatter must be a YAML mapping.",
        4,
    );
    rejects(
        "---\ndescription: x\n---\n\n",
        "skill.markdown.missing_instructions",
        "skill.md must include prose instructions or ordered blocks.",
        3,
    );
    // Leading blank lines and indentation are stripped; later `---` lines are prose.
    let skill = accepts("\n\n   ---\ndescription: x\n  ---  \nFirst.\n\n---\n\nLast.\n");
    let BodyEntry::Prose { segments } = &skill.body[0] else { panic!("prose") };
    let texts: Vec<&str> = segments.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(texts, ["First.", "---", "Last."]);
    // A YAML syntax error is not wrapped by Rasa; we point at it.
    let compiled = compile_skill(FILE, "demo", "---\nimport_tools: [a, b\n---\nBody\n");
    let error = compiled.error.expect("yaml error");
    assert_eq!(error.code, "swaplab.yaml.syntax");
    assert!(error.span.start.line >= 2, "{error:?}");
}

#[test]
fn frontmatter_findings_point_at_the_line_the_editor_shows() {
    // A form feed ends a line for Python's `splitlines` (so for Rasa) but not for the
    // editor: the frontmatter's YAML has one line more than the file shows.
    let unknown = "---\ndescription: one\x0c\ncolour: red\n---\nBody\n";
    rejects(unknown, "skill.markdown.unknown_frontmatter_key", "Unknown key(s): colour", 3);
    // A YAML error after the form feed, on the line that holds it.
    let broken = "---\ndescription: one\x0cname: [\n---\nBody\n";
    let error = compile_skill(FILE, "demo", broken).error.expect("rejected");
    let line_two = broken.split('\n').nth(1).expect("a second line");
    for at in [error.span.start, error.span.end] {
        assert_eq!(at.line, 2, "{error:?}");
        assert!(
            at.column as usize <= line_two.chars().count() + 1,
            "past the end of line 2: {error:?}"
        );
    }
    // Without such breaks the positions are the YAML reader's own.
    rejects(
        "---\ndescription: one\n\ncolour: red\n---\nBody\n",
        "skill.markdown.unknown_frontmatter_key",
        "Unknown key(s): colour",
        4,
    );
}

#[test]
fn frontmatter_keys_and_their_errors() {
    rejects(
        &skill("requires: session.project.ok\n", "Body\n"),
        "skill.requires.removed",
        "Skill-level requires is no longer supported. Use precondition to park the skill until \
         a resolver runs, or hidden: true to omit it from routing. Tool-level requires under \
         tool_constraints is unchanged.",
        3,
    );
    rejects(
        &skill("colour: red\n", "Body\n"),
        "skill.markdown.unknown_frontmatter_key",
        "Unknown key(s): colour",
        3,
    );
    rejects(
        &skill("name: 5\n", "Body\n"),
        "skill.markdown.invalid_frontmatter",
        "name: Value error, must be a string",
        3,
    );
    rejects(
        &skill("hidden: 'yes'\n", "Body\n"),
        "skill.markdown.invalid_boolean_frontmatter",
        "hidden: Value error, 'hidden' must be a boolean.",
        3,
    );
    rejects(
        &skill("disabled: 1\n", "Body\n"),
        "skill.markdown.invalid_boolean_frontmatter",
        "disabled: Value error, 'disabled' must be a boolean.",
        3,
    );
    rejects(
        &skill("complete_when: session.demo.done\n", "Body\n"),
        "skill.complete_when.invalid",
        "complete_when: Value error, complete_when must be a mapping with 'condition' and/or \
         'criteria' (bare strings are not allowed).",
        3,
    );
    rejects(
        &skill("import_tools: crm\n", "Body\n"),
        "skill.markdown.invalid_import_tools",
        "import_tools: Input should be a valid list",
        3,
    );
    rejects(
        &skill("import_tools:\n  - 5\n", "Body\n"),
        "skill.markdown.invalid_import_tools",
        "import_tools: Value error, must be a string",
        4,
    );
    rejects(
        &skill("utter:\n  - utter_hi: {}\n", "Body\n"),
        "skill.markdown.invalid_utter",
        "utter trigger 'utter_hi' must set 'on: activate' or 'when:'.",
        4,
    );
    rejects(
        &skill("routing:\n  priority: 1\n", "Body\n"),
        "skill.markdown.unknown_frontmatter_key",
        "Unknown key(s): priority",
        4,
    );
    // YAML 1.1: an unquoted `yes` is a boolean, so Rasa accepts it; quoted it is refused.
    let yes = accepts(&skill("hidden: yes\nalways_include_in_prompt: on\n", "Body\n"));
    assert!(yes.hidden && yes.always_include_in_prompt);
    // The unquoted `on:` key of an utter trigger is YAML's True; Rasa normalises it.
    let utter = accepts(&skill("utter:\n  - utter_hi:\n      on: activate\n", "Body\n"));
    assert!(utter.verbatim_triggers[0].on_activate);
    // Null means the default.
    let nulls = accepts(&skill("hidden:\nimport_tools:\nname:\n", "Body\n"));
    assert!(!nulls.hidden && nulls.import_tool_names.is_empty() && nulls.name.is_none());
}

#[test]
fn import_tools_grammar() {
    let grammar = |reference: &str| {
        format!("Invalid MCP tool import '{reference}'; expected 'mcp/<server-id>:<tool-name>'.")
    };
    for bad in ["mcp/crm", "mcp/:t", "mcp/crm:", "mcp/crm:a:b", "mcp/_crm:t", "mcp/crm:tö"] {
        rejects(
            &skill(&format!("import_tools:\n  - \"{bad}\"\n"), "Body\n"),
            "skill.markdown.invalid_import_tools",
            &grammar(bad),
            4,
        );
    }
    let long = format!("mcp/crm:{}", "t".repeat(65));
    rejects(
        &skill(&format!("import_tools:\n  - {long}\n"), "Body\n"),
        "skill.markdown.invalid_import_tools",
        &format!(
            "Invalid MCP tool name '{}' in '{long}'; the tool name is sent to the LLM as a \
             function name and may only contain letters, digits, '_', and '-' (at most 64 \
             characters).",
            "t".repeat(65)
        ),
        4,
    );
    rejects(
        &skill("import_tools:\n  - mcp/crm.v2:a.b\n", "Body\n"),
        "skill.markdown.invalid_import_tools",
        "Invalid MCP tool name 'a.b' in 'mcp/crm.v2:a.b'; the tool name is sent to the LLM as a \
         function name and may only contain letters, digits, '_', and '-' (at most 64 \
         characters).",
        4,
    );
    let ok = accepts(&skill(
        &format!(
            "import_tools:\n  - mcp/crm.v2:{}\n  - MCP/crm:x\n  - local_tool\n",
            "t".repeat(64)
        ),
        "Body\n",
    ));
    let names: Vec<&str> = ok.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["t".repeat(64).as_str(), "MCP/crm:x", "local_tool"]);
    assert_eq!(ok.import_tool_names[0], "MCP/crm:x", "import_tool_names are sorted");
}

#[test]
fn tool_constraints_grammar() {
    let code = "skill.markdown.invalid_tool_constraints";
    rejects(
        &skill("tool_constraints:\n  - add_note\n", "Body\n"),
        code,
        "tool_constraints.0: Value error, Each tool_constraints entry must be a single-key mapping.",
        4,
    );
    rejects(
        &skill("tool_constraints:\n  - add_note:\n      confirm: true\n", "Body\n"),
        code,
        "tool_constraints.0.add_note: Value error, Unknown key(s): confirm. Allowed keys: \
         requires, requires_confirmation, on_success, on_failure.",
        5,
    );
    rejects(
        &skill("tool_constraints:\n  - add_note:\n      requires_confirmation:\n", "Body\n"),
        code,
        "tool_constraints.0.add_note.requires_confirmation: Value error, requires_confirmation \
         must be a mapping",
        5,
    );
    rejects(
        &skill(
            "tool_constraints:\n  - add_note:\n      requires_confirmation:\n        enabled: 'yes'\n",
            "Body\n",
        ),
        code,
        "tool_constraints.0.add_note.requires_confirmation.enabled: Value error, enabled must be \
         a boolean",
        6,
    );
    rejects(
        &skill(
            "tool_constraints:\n  - add_note:\n      requires_confirmation:\n        ask: utter_x\n",
            "Body\n",
        ),
        code,
        "tool_constraints.0.add_note.requires_confirmation: Value error, Unknown key(s): ask. \
         Allowed keys: enabled, utter_for_confirmation, utter_on_user_denial.",
        6,
    );
    let ok = accepts(&skill(
        "import_tools:\n  - mcp/crm:add_note\ntool_constraints:\n  - mcp/crm:add_note:\n  - \
         add_note:\n      requires: project.x\n      requires_confirmation:\n        enabled: \
         yes\n  - off_gate:\n      requires_confirmation:\n        enabled: false\n",
        "Body\n",
    ));
    // The key is verbatim (an `mcp/…` key never matches the bare name), `requires` is not
    // syntax-checked, unquoted `yes` enables, `enabled: false` compiles to no gate.
    let names: Vec<&str> = ok.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["mcp/crm:add_note", "add_note", "off_gate"]);
    assert_eq!(ok.tools[1].requires.as_deref(), Some("project.x"));
    assert!(ok.tools[1].requires_confirmation.is_some());
    assert!(ok.tools[2].requires_confirmation.is_none());
}

#[test]
fn prose_paragraphs_and_if_segments() {
    let ok = accepts(&skill(
        "",
        "One\nline two.\n\n  \n\nif: session.demo.x == 1\nShown when x.\n\nIF: plain\n",
    ));
    let BodyEntry::Prose { segments } = &ok.body[0] else { panic!("prose") };
    assert_eq!(segments.len(), 3);
    assert_eq!(segments[0].text, "One\nline two.");
    assert_eq!(segments[1].condition.as_deref(), Some("session.demo.x == 1"));
    assert_eq!(segments[1].text, "Shown when x.");
    assert_eq!(segments[1].span.start.line, 9);
    assert_eq!(segments[2].condition, None, "IF: is plain prose");
    rejects(
        &skill("", "Intro.\n\nif:\nBody\n"),
        "skill.markdown.empty_prose_if_condition",
        "Prose 'if:' marker must include a non-empty condition.",
        6,
    );
    rejects(
        &skill("", "if: session.demo.x\n"),
        "skill.markdown.empty_prose_if_body",
        "Prose 'if:' marker must be followed by a non-empty paragraph body.",
        4,
    );
    let compiled = compile_skill(FILE, "demo", &skill("", "if: session.demo.x\nA\n\nelse: B\n"));
    let error = compiled.error.expect("else");
    assert_eq!(error.code, "skill.markdown.unsupported_prose_else");
    assert!(error.message.starts_with("'else:' is not allowed in prose."));
    assert_eq!(error.span.start.line, 7);
    // Conditions are not syntax-checked at compile; train reports them.
    let ok = compile_skill(FILE, "demo", &skill("", "if: project.x == 1\nA\n"));
    assert!(ok.compiled.is_some());
    assert!(
        ok.diagnostics.iter().any(|d| d.code == "mantle.validation.prose.invalid_if_expression"
            && d.phase == Phase::Train)
    );
}

#[test]
fn ordered_blocks_and_their_fallbacks() {
    let block = |header: &str, yaml: &str, close: &str| {
        skill("", &format!("Intro @block.save.\n\n{header}\n{yaml}{close}\n\nOutro.\n"))
    };
    let ok = accepts(&block(
        ":::ordered_block id=save",
        "steps:\n  - id: a\n    instructions: Do.\n  - id: b\n    execute_tool: add_note\n    parameters:\n      summary: session.demo.note\n",
        ":::",
    ));
    assert_eq!(ok.referenced_blocks, ["demo__save"]);
    let blocks: Vec<_> = ok.blocks().collect();
    assert!(!blocks[0].routable, "hybrid skills' blocks are internal");
    assert_eq!(blocks[0].steps[0].next, Some(Next::Step("b".into())));
    assert_eq!(blocks[0].steps[1].next, Some(Next::Step("END".into())));
    let StepKind::Execute { parameters, .. } = &blocks[0].steps[1].kind else { panic!("execute") };
    assert_eq!(parameters["summary"], "session.demo.note");

    // Quoted ids, trailing words and an indented closer silently stay prose.
    for (header, close) in [
        (":::ordered_block id=\"save\"", ":::"),
        (":::ordered_block id=save now", ":::"),
        (":::ordered_block id=save", "  :::"),
    ] {
        let text = skill("", &format!("Intro.\n\n{header}\nsteps: []\n{close}\n"));
        let compiled = accepts(&text);
        assert_eq!(compiled.blocks().count(), 0, "{header} / {close}");
    }
    rejects(
        &skill("", "Intro.\n\n:::ordered_block\nsteps: []\n:::\n"),
        "skill.markdown.invalid_ordered_block",
        "Each :::ordered_block section must declare an id attribute (e.g. :::ordered_block id=verify).",
        6,
    );
    rejects(
        &skill("", ":::ordered_block id=main\n- a\n:::\n"),
        "skill.markdown.invalid_ordered_block",
        "Ordered block 'main' body must be a YAML mapping.",
        4,
    );
    rejects(
        &skill(
            "",
            ":::ordered_block id=main\nsteps: []\n:::\n:::ordered_block id=main\nsteps: []\n:::\n",
        ),
        "skill.markdown.invalid_ordered_block",
        "Duplicate ordered block id 'main'.",
        7,
    );
    rejects(
        &skill("", ":::ordered_block id=main\ndescription: x\nsteps: []\n:::\n"),
        "skill.markdown.ordered_block_description_forbidden",
        "Ordered block 'main' must not set 'description'. Remove it; the orchestrator routes on \
         the skill description.",
        5,
    );
    let routable =
        compile_skill(FILE, "demo", &skill("", ":::ordered_block id=main\nroutable: true\n:::\n"));
    assert_eq!(
        routable.error.expect("routable").code,
        "skill.markdown.ordered_block_routable_forbidden"
    );
    rejects(
        &skill("", "Go to @block.missing now.\n"),
        "skill.markdown.invalid_block_reference",
        "Unknown ordered block 'missing' on skill 'demo'; @block. must reference a block id \
         defined in this skill.",
        4,
    );
    // Other keys (`name:`) are ignored; a blocks-only skill's blocks are routable.
    let only = accepts(&skill("", ":::ordered_block id=main\nname: x\nsteps:\n  - id: END\n:::\n"));
    assert!(only.blocks().all(|b| b.routable));
}

#[test]
fn steps_and_their_errors() {
    let step = |yaml: &str| skill("", &format!(":::ordered_block id=main\nsteps:\n{yaml}:::\n"));
    rejects(
        &step("  - id: a\n    instructions: x\n    params: {}\n"),
        "skill.step.invalid",
        "Unknown step property 'params' on step 'a'. Remove it or check for typos.",
        8,
    );
    rejects(
        &step("  - id: a\n    foo: 1\n"),
        "python.ValueError",
        "Cannot infer step kind from YAML keys ['id', 'foo']. Expected one of: instructions, \
         collect, action, utter, noop, execute_tool, set_memory, call, link; or id == 'END'.",
        6,
    );
    rejects(
        &step("  - instructions: x\n"),
        "skill.step.invalid",
        "Step '' is missing required property 'id'.",
        6,
    );
    rejects(
        &step("  - id: a\n    call: other__blk\n"),
        "skill.step.invalid",
        "Cross-skill call target 'other__blk' must be a skill id, not a compiled target id. Use \
         the callee skill's id (e.g. 'other').",
        6,
    );
    let kinds = accepts(&step(
        "  - id: a\n    collect: email\n  - id: b\n    utter: utter_hi\n  - id: c\n    noop: true\n    next:\n      - if: session.main.x\n        then: a\n      - else: END\n  - id: d\n    set_memory: {x: 1}\n  - id: e\n    link: other\n  - id: END\n",
    ));
    let kinds: Vec<&StepKind> =
        kinds.blocks().flat_map(|b| b.steps.iter().map(|s| &s.kind)).collect();
    assert!(matches!(kinds[0], StepKind::Collect { .. }));
    assert!(matches!(kinds[1], StepKind::Action { .. }));
    assert!(matches!(kinds[2], StepKind::Route));
    assert!(matches!(kinds[3], StepKind::SetMemory { .. }));
    assert!(matches!(kinds[4], StepKind::Link { .. }));
    assert!(matches!(kinds[5], StepKind::End));
}

#[test]
fn references_in_prose() {
    let ok = accepts(&skill(
        "",
        "Hand over to @skill.human_handoff. Or @skill.billing, then @skill.human_handoff.\n\n\
         Not these: x@skill.a, @skill.a.b, @skill.\n",
    ));
    assert_eq!(ok.referenced_skills, ["human_handoff", "billing"]);
}

macro_rules! tutorial {
    ($side:literal, $id:literal) => {
        (
            $id,
            include_str!(concat!(
                "../../../../content/examples/tutorial/",
                $side,
                "/skills/",
                $id,
                "/skill.md"
            )),
        )
    };
}

#[test]
fn the_tutorial_skills_compile_and_differ_only_in_imports() {
    let files = [
        tutorial!("before", "identify_customer"),
        tutorial!("before", "check_tickets"),
        tutorial!("before", "log_interaction"),
        tutorial!("after", "identify_customer"),
        tutorial!("after", "check_tickets"),
        tutorial!("after", "log_interaction"),
    ];
    for (id, text) in files {
        let compiled = compile_skill(&format!("skills/{id}/skill.md"), id, text);
        assert!(compiled.compiled.is_some(), "{id}: {:?}", compiled.error);
        assert!(!compiled.diagnostics.iter().any(|d| d.is_error()), "{:?}", compiled.diagnostics);
    }
    let bytes: Vec<usize> = files[3..]
        .iter()
        .map(|(id, text)| compile_skill("skill.md", id, text).body_bytes)
        .collect();
    assert_eq!(
        bytes,
        [804, 687, 1226],
        "Rasa's instruction bodies; the proof counts the text after the second `---\\n`, one character more each"
    );
    let (id, after) = files[5];
    let skill = compile_skill("skills/log_interaction/skill.md", id, after).compiled.expect("ok");
    assert_eq!(skill.import_tool_names, ["mcp/hubspot_crm:add_timeline_note"]);
    let gate = skill.gate("add_timeline_note").expect("gate on the bare name");
    assert!(gate.requires_confirmation.is_some());
    assert!(skill.referenced_blocks.is_empty(), "the save_note block is never referenced");
}

#[test]
fn the_remaining_frontmatter_and_body_errors() {
    rejects(
        &skill("precondition: '  '\n", "Body\n"),
        "skill.precondition.invalid",
        "precondition: Value error, precondition must be a non-empty precondition name",
        3,
    );
    rejects(
        &skill("knowledge_answering: look it up\n", "Body\n"),
        "skill.markdown.invalid_knowledge_answering",
        "knowledge_answering: Value error, knowledge_answering must be a mapping with a string \
         'instructions'",
        3,
    );
    rejects(
        &skill(
            "complete_when:\n  condition: session.demo.done\n",
            ":::ordered_block id=a\nsteps: []\n:::\n",
        ),
        "skill.complete_when.requires_prose",
        "complete_when requires prose instructions; a skill made only of ordered blocks \
         completes when its blocks end.",
        5,
    );
    rejects(
        &skill(
            "utter:\n  - utter_hi:\n      on: activate\n  - utter_hi:\n      when: session.demo.x\n",
            "Body\n",
        ),
        "skill.markdown.invalid_utter",
        "Duplicate utter trigger 'utter_hi'.",
        6,
    );
    let compiled = compile_skill(
        FILE,
        "demo",
        &skill("", "if: session.demo.x\nA\n\nelif: session.demo.y\nB\n"),
    );
    let error = compiled.error.expect("elif");
    assert_eq!(error.code, "skill.markdown.unsupported_prose_elif");
    assert!(error.message.starts_with("'elif:' is not allowed in prose."));
    assert_eq!(error.span.start.line, 7);
    let compiled = compile_skill(
        FILE,
        "demo",
        &skill(
            "",
            ":::ordered_block id=a\nsteps:\n  - id: s\n    instructions: x\n    complete_when:\n      condition: y\n:::\n",
        ),
    );
    let error = compiled.error.expect("mapping complete_when");
    assert_eq!(error.code, "skill.step.invalid");
    assert!(
        error.message.contains("step complete_when must be an expression string"),
        "{}",
        error.message
    );
    assert_eq!(error.span.start.line, 9);
    // A complete_when mapping compiles; its condition is syntax-checked at compile.
    let ok = accepts(&skill(
        "complete_when:\n  condition: session.demo.done\n  criteria: [Asked]\n",
        "Body\n",
    ));
    assert_eq!(ok.complete_when.map(|c| c.criteria), Some(vec!["Asked".to_owned()]));
    let compiled =
        compile_skill(FILE, "demo", &skill("complete_when:\n  condition: len(x)\n", "Body\n"));
    assert_eq!(
        compiled.error.map(|e| (e.code, e.span.start.line)),
        Some(("skill.complete_when.invalid".into(), 4))
    );
}

#[test]
fn findings_inside_repeated_paragraphs_point_at_each_one() {
    let compiled = compile_skill(
        FILE,
        "demo",
        &skill("", "Read session.demo.x now.\n\nRead session.demo.x now.\n"),
    );
    let lines: Vec<(u32, u32)> = compiled
        .diagnostics
        .iter()
        .filter(|d| d.code == "mantle.validation.prose.session_reference_in_instructions")
        .map(|d| (d.span.start.line, d.span.start.column))
        .collect();
    assert_eq!(lines, [(4, 6), (6, 6)]);
}
