//! Whole projects: the corpus catalogs as Rasa loaded them, the tutorial's two projects,
//! the model-load rules of `parse_mcp_imports`, and the tutorial-layout rule.

use std::path::Path;

use swaplab_core::diagnostic::{Phase, Severity};
use swaplab_core::layout::{SERVER_PATH, tutorial_layout};
use swaplab_core::rasa::project::{CODE_MCP_IMPORTS, read_project};
use swaplab_core::{Area, Project, Workspace};

use crate::support::{corpus_projects, examples_dir, read, walk};

fn project_at(dir: &Path) -> Project {
    Project::from_files(walk(dir).into_iter().filter_map(|path| {
        let relative = path.strip_prefix(dir).ok()?.to_string_lossy().replace('\\', "/");
        (!relative.ends_with("verdict.json")).then(|| (relative, read(&path)))
    }))
}

fn tutorial() -> Workspace {
    let root = examples_dir().join("tutorial");
    let mut workspace = Workspace::default();
    for area in Area::ALL {
        for (path, text) in project_at(&root.join(area.prefix())).files() {
            workspace.set_file(&swaplab_core::FileRef::new(area, path), text);
        }
    }
    workspace
}

#[test]
fn the_corpus_catalogs_load_as_rasa_loaded_them() {
    for dir in corpus_projects() {
        let verdict: serde_json::Value =
            serde_json::from_str(&read(&dir.join("rasa-3.21.0-verdict.json"))).expect("json");
        let report = read_project(&project_at(&dir));
        let loaded: Vec<&str> = report.loaded_skills().map(|skill| skill.id.as_str()).collect();
        let expected: Vec<&str> = verdict["catalog"]["loaded_skill_ids"]
            .as_array()
            .expect("ids")
            .iter()
            .filter_map(|id| id.as_str())
            .collect();
        assert_eq!(loaded, expected, "{}", dir.display());
        let errors: Vec<(String, String)> = report
            .skills
            .iter()
            .filter_map(|entry| Some((entry.dir.clone(), entry.load_error.clone()?)))
            .collect();
        let expected: Vec<(String, String)> = verdict["catalog"]["load_errors"]
            .as_array()
            .expect("errors")
            .iter()
            .map(|e| {
                (
                    e["directory"].as_str().unwrap_or("").to_owned(),
                    e["message"].as_str().unwrap_or("").to_owned(),
                )
            })
            .collect();
        assert_eq!(errors, expected, "{}", dir.display());
        assert!(report.mcp_imports.is_empty(), "no corpus project imports over MCP");
    }
}

#[test]
fn the_tutorial_projects_load_and_the_after_imports_three_tools() {
    let workspace = tutorial();
    let before = read_project(&workspace.before);
    let after = read_project(&workspace.after);
    for (name, report) in [("before", &before), ("after", &after)] {
        let errors: Vec<String> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(ToString::to_string)
            .collect();
        assert!(errors.is_empty(), "{name}:\n{}", errors.join("\n"));
        assert_eq!(report.loaded_skills().count(), 3, "{name}");
    }
    assert!(before.mcp_imports.is_empty());
    let imports: Vec<(&str, &str, &str)> = after
        .mcp_imports
        .iter()
        .map(|i| (i.skill.as_str(), i.server.as_str(), i.tool.as_str()))
        .collect();
    assert_eq!(
        imports,
        [
            ("check_tickets", "hubspot_crm", "list_open_tickets"),
            ("identify_customer", "hubspot_crm", "find_contact_by_email"),
            ("log_interaction", "hubspot_crm", "add_timeline_note"),
        ]
    );
    let skill = before.skill("identify_customer").expect("loaded");
    assert!(before.declared_shared_tools(skill).contains("find_contact_by_email"));
    assert_eq!(
        before.local_tool_names("check_tickets").into_iter().collect::<Vec<_>>(),
        ["list_open_tickets"]
    );
}

#[test]
fn a_local_tool_left_beside_its_mcp_import_stops_the_model_load() {
    let workspace = tutorial();
    let mut after = workspace.after.clone();
    let tools = workspace.before.file("skills/check_tickets/tools.py").expect("tools.py");
    after = Project::from_files(
        after
            .files()
            .map(|(p, t)| (p.to_owned(), t.to_owned()))
            .chain([("skills/check_tickets/tools.py".to_owned(), tools.to_owned())]),
    );
    let report = read_project(&after);
    let load: Vec<&str> = report
        .diagnostics
        .iter()
        .filter(|d| d.phase == Phase::Load && d.code == CODE_MCP_IMPORTS)
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        load,
        [
            "Skill 'check_tickets' MCP import 'mcp/hubspot_crm:list_open_tickets' collides with the local/shared tool 'list_open_tickets'."
        ]
    );
    let at = report.diagnostics.iter().find(|d| d.code == CODE_MCP_IMPORTS).expect("found");
    assert_eq!((at.file.as_str(), at.span.start.line), ("skills/check_tickets/skill.md", 7));
}

#[test]
fn imports_that_break_model_load() {
    let skill = |imports: &str| {
        Project::from_files([
            (
                "skills/s/skill.md".to_owned(),
                format!("---\ndescription: S.\nimport_tools:\n{imports}---\nDo it.\n"),
            ),
            (
                "integrations.yml".to_owned(),
                "mcp_servers:\n  - name: crm\n    url: http://127.0.0.1:9/mcp\n".to_owned(),
            ),
        ])
    };
    let messages = |project: &Project| -> Vec<String> {
        read_project(project)
            .diagnostics
            .iter()
            .filter(|d| d.phase == Phase::Load || d.code.contains("not_configured"))
            .map(|d| d.message.clone())
            .collect()
    };
    assert_eq!(
        messages(&skill("  - mcp/crm:t\n  - mcp/other:t\n")),
        [
            "Skill 's' imports more than one MCP tool named 't'.",
            "Skill 's' imports MCP tool 'mcp/other:t', but server 'other' is not configured under mcp_servers in integrations.yml.",
            "MCP server 'other' is imported by a skill but is missing from integrations.yml.",
        ]
    );
    assert_eq!(
        messages(&skill("  - mcp/crm:cancel\n")),
        ["Skill 's' MCP import 'mcp/crm:cancel' reuses reserved framework tool name 'cancel'."]
    );
}

#[test]
fn the_tutorial_layout_rule_rebuilds_the_after_project_and_names_what_it_set_aside() {
    let workspace = tutorial();
    let mut root: Vec<(String, String)> =
        workspace.before.files().map(|(p, t)| (p.to_owned(), t.to_owned())).collect();
    let changes = swaplab_core::diff::project_changes(&workspace.before, &workspace.after);
    for change in &changes {
        if let Some(text) = workspace.after.file(&change.path)
            && workspace.before.file(&change.path) != Some(text)
        {
            root.push((format!("mcp_variant/{}", change.path), text.to_owned()));
        }
    }
    let server = workspace.server.file(SERVER_PATH).expect("server source");
    root.push((SERVER_PATH.to_owned(), server.to_owned()));
    let swap = tutorial_layout(&Project::from_files(root)).expect("tutorial layout");
    let set_aside: Vec<&str> = swap.set_aside.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(
        set_aside,
        ["skills/check_tickets/tools.py", "skills/log_interaction/tools.py", "tools/crm.py"]
    );
    let mut expected_after = workspace.after.clone();
    expected_after = Project::from_files(
        expected_after
            .files()
            .map(|(p, t)| (p.to_owned(), t.to_owned()))
            .chain([(SERVER_PATH.to_owned(), server.to_owned())]),
    );
    assert_eq!(swap.workspace.after, expected_after, "after = before + mcp_variant − moved tools");
    assert_eq!(swap.workspace.server.file(SERVER_PATH), Some(server));
    assert!(tutorial_layout(&workspace.before).is_err(), "no mcp_variant/ is an error");
}

fn findings(files: &[(&str, &str)]) -> Vec<(String, String, u32)> {
    let project =
        Project::from_files(files.iter().map(|(p, t)| ((*p).to_owned(), (*t).to_owned())));
    read_project(&project)
        .diagnostics
        .iter()
        .map(|d| (d.code.clone(), d.message.clone(), d.span.start.line))
        .collect()
}

fn has(found: &[(String, String, u32)], code: &str, message: &str, line: u32) {
    assert!(
        found.iter().any(|(c, m, l)| c == code && m == message && *l == line),
        "no {code} at line {line}: {message}\nfound: {found:#?}"
    );
}

#[test]
fn catalog_discovery_and_train_findings_across_files() {
    let tool = "from rasa.mantle.tools import tool\n\n@tool(description=\"Look.\")\nasync def look(context=None):\n    return None\n";
    let found = findings(&[
        ("skills/_draft/skill.md", "not read"),
        ("skills/empty/notes.md", "no skill.md here"),
        ("skills/project/skill.md", "---\n---\nBody.\n"),
        ("skills/a.b/skill.md", "---\ndescription: x\n---\nBody.\n"),
        (
            "skills/s/skill.md",
            "---\ndescription: S.\nimport_tools:\n  - look\n  - ghost\n  - mcp/crm:t\ntool_constraints:\n  - mcp/crm:t:\n---\nAsk @skill.nobody.\n",
        ),
        ("skills/owner/skill.md", "---\ndescription: O.\n---\nBody.\n"),
        ("skills/owner/tools.py", tool),
        ("integrations.yml", "mcp_servers:\n  - name: crm\n    url: http://127.0.0.1:9/mcp\n"),
    ]);
    assert!(
        !found.iter().any(|(_, m, _)| m.contains("_draft")),
        "directories starting with _ are skipped"
    );
    has(
        &found,
        "skill.catalog.load_failed",
        "Skill directory 'skills/empty' must contain skill.md.",
        1,
    );
    has(&found, "mantle.validation.skill.reserved_id", "Skill id 'project' is reserved.", 1);
    has(
        &found,
        "mantle.validation.skill.missing_description",
        "Skill 'project' has no description; the orchestrator routes on it.",
        1,
    );
    has(&found, "mantle.validation.skill.invalid_id", "Skill id 'a.b' must not contain '.'.", 1);
    has(
        &found,
        "skill.import_tools.local_tool_listed",
        "Skill 's' lists import_tools entry 'look', but it is skill-local in skills/owner/tools/ — remove it from import_tools.",
        4,
    );
    has(
        &found,
        "skill.import_tools.invalid_shared_tool",
        "Skill 's' lists import_tools entry 'ghost', but no shared tool exists in tools/.",
        5,
    );
    // A constraint keyed by the `mcp/…` form never matches the bare name the model calls.
    has(
        &found,
        "mantle.validation.tools.unresolved_tool",
        "Skill 's' references tool 'mcp/crm:t', but it is not visible while this skill is active: it is neither provided by a declared MCP import nor by a matching @tool function in skills/s/tools.py, skills/s/tools/, or the declared shared tools/ folder. Add the tool function (its name must match the reference) or remove the reference.",
        8,
    );
    has(
        &found,
        "skill.referenced.invalid_target",
        "Skill 's' references '@skill.nobody', but no skill 'nobody' exists in skills/.",
        10,
    );
}

#[test]
fn conditions_follow_the_reference_grammar() {
    use swaplab_core::rasa::condition::{Expr, Scalar, parse};
    let unknown = |name: &str| {
        format!(
            "Unknown name '{name}' in condition expression. Memory must be referenced via the \
             namespaced form 'session.<skill_id|project|system>.<entry_name>'."
        )
    };
    assert_eq!(parse("project.x == 1"), Err(unknown("project")));
    assert_eq!(parse("session.x"), Err(unknown("session")));
    assert_eq!(parse("contact_id"), Err(unknown("contact_id")));
    assert!(parse("len(session.a.b) > 1").is_err(), "calls are outside the language");
    assert!(parse("session.a.b in ['x']").is_err());
    assert!(parse("session.a.b + 1 == 2").is_err());
    let expr =
        parse("session.project.contact_id and not (session.s.v == \"x\" or 0 < session.s.n <= 3)")
            .expect("valid");
    fn memory(values: Vec<(&'static str, Scalar)>) -> impl Fn(&str) -> Scalar {
        move |key: &str| {
            values.iter().find(|(k, _)| *k == key).map_or(Scalar::None, |(_, v)| v.clone())
        }
    }
    let lookup = memory(vec![("project.contact_id", Scalar::Str(String::new()))]);
    assert_eq!(expr.evaluate(&lookup).map(|v| v.truthy()), Ok(false), "empty string is falsy");
    let lookup = memory(vec![("project.contact_id", Scalar::Str(String::from("701")))]);
    assert!(expr.evaluate(&lookup).is_err(), "unset reads None, and `0 < None` is a TypeError");
    let lookup = memory(vec![
        ("project.contact_id", Scalar::Str(String::from("701"))),
        ("s.n", Scalar::Int(5)),
    ]);
    assert_eq!(expr.evaluate(&lookup).map(|v| v.truthy()), Ok(true), "chained comparison");
    let typed = parse("session.s.n >= 1").expect("valid");
    let lookup = memory(vec![("s.n", Scalar::Str(String::from("2")))]);
    assert!(typed.evaluate(&lookup).is_err(), "str >= int is a ConditionEvaluationError");
    assert!(matches!(parse("True").expect("constant"), Expr::Constant(Scalar::Bool(true))));
}

#[test]
fn prose_steps_and_responses_are_checked_against_the_other_files() {
    let skill = "---\ndescription: S.\nrouting:\n  is_default: true\ntool_constraints:\n  - look:\n      requires_confirmation:\n        enabled: true\n        utter_for_confirmation: utter_missing\n      on_success: utter_done\n---\n\
Read @memory.project.contact_id and @memory.s.secret and @memory.system.x and @memory.project.\n\n\
Hand over to @skill.hidden_one, or mention other_skill, or call @tool.ghost, or @tool.a.b here.\n\n\
if: session.project.nope == 1\nShown never.\n\n\
:::ordered_block id=b\nsteps:\n  - id: run\n    execute_tool: look\n    parameters:\n      q: session.s.unknown\n  - id: ask\n    collect: contact_id\n  - id: set\n    set_memory: {undeclared: 1}\n:::\n";
    let found = findings(&[
        ("skills/s/skill.md", skill),
        (
            "skills/s/tools.py",
            "from rasa.mantle.tools import tool\n\n@tool(description=\"L.\")\nasync def look(q: str, context=None):\n    return None\n",
        ),
        ("skills/hidden_one/skill.md", "---\ndescription: H.\nhidden: true\n---\nBody.\n"),
        ("skills/other_skill/skill.md", "---\ndescription: O.\n---\nBody.\n"),
        ("memory.yml", "contact_id:\n  type: text\n"),
        ("responses.yml", "responses:\n  utter_done:\n    - text: Done.\n"),
    ]);
    let codes: Vec<&str> = found.iter().map(|(code, _, _)| code.as_str()).collect();
    for expected in [
        "mantle.validation.skill.is_default_not_allowed",
        "mantle.validation.tool_constraint.unknown_requires_confirmation_response",
        "mantle.validation.prose.unknown_memory_reference",
        "mantle.validation.prose.incomplete_memory_reference",
        "skill.prose.hidden_skill_reference",
        "skill.prose.bare_skill_mention",
        "mantle.validation.tools.unresolved_tool",
        "mantle.validation.prose.incomplete_at_reference",
        "mantle.validation.prose.unknown_memory_key",
        "mantle.validation.execute_step.unknown_memory_key",
        "mantle.validation.memory.collect_on_project",
        "mantle.validation.memory.undeclared_entry",
    ] {
        assert!(codes.contains(&expected), "{expected} missing from {found:#?}");
    }
    assert!(
        !codes.contains(&"mantle.validation.tool_constraint.unknown_on_success_or_failure"),
        "utter_done exists"
    );
    let memory: Vec<&str> = found
        .iter()
        .filter(|(code, _, _)| code == "mantle.validation.prose.unknown_memory_reference")
        .map(|(_, message, _)| message.as_str())
        .collect();
    assert_eq!(
        memory.len(),
        2,
        "@memory.s.secret and @memory.system.x; project.contact_id is readable: {memory:?}"
    );
    let tool = found
        .iter()
        .find(|(code, message, _)| {
            code == "mantle.validation.tools.unresolved_tool" && message.contains("'ghost'")
        })
        .expect("@tool.ghost");
    assert!(tool.1.contains("in instruction prose"), "{}", tool.1);
}

#[test]
fn tool_modules_with_reserved_names() {
    let module = |name: &str| {
        format!(
            "from rasa.mantle.tools import tool\n\n@tool(description=\"T.\")\nasync def {name}(context=None):\n    return None\n"
        )
    };
    let found = findings(&[
        ("skills/s/skill.md", "---\ndescription: S.\n---\nBody.\n"),
        ("skills/s/tools.py", &module("cancel")),
        ("tools/shared.py", &module("set_mood")),
    ]);
    has(
        &found,
        "swaplab.load.framework_tool_name",
        "Tool 'cancel' reuses a reserved framework tool name; Rasa refuses to load the model. Rename the function.",
        4,
    );
    assert!(
        found
            .iter()
            .any(|(code, _, line)| code == "swaplab.load.shared_set_tool_dropped" && *line == 4)
    );
}
