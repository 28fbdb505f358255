//! Semantic changes between the two projects: imports, arguments, memory, constraints,
//! modules, servers, steps and prose, on the tutorial and on small edits of it.

use swaplab_core::diagnostic::Span;
use swaplab_core::rasa::workspace::read_workspace;
use swaplab_core::semantic::{ChangeKind, Effect, SemanticChange, semantic_changes};
use swaplab_core::{Area, FileRef, Project, Workspace};

use crate::support;

fn tutorial() -> Workspace {
    let root = support::examples_dir().join("tutorial");
    let mut workspace = Workspace::default();
    for path in support::walk(&root) {
        let relative = path.strip_prefix(&root).unwrap().to_str().unwrap().replace('\\', "/");
        if let Some(file) = FileRef::parse(&relative) {
            workspace.set_file(&file, support::read(&path));
        }
    }
    workspace
}

fn edit(workspace: &mut Workspace, file: &str, from: &str, to: &str) {
    let file = FileRef::parse(file).unwrap();
    let text = workspace.file(&file).unwrap().to_owned();
    assert!(text.contains(from), "{from:?} is not in {file:?}");
    workspace.set_file(&file, text.replacen(from, to, 1));
}

fn changes(workspace: &Workspace) -> Vec<SemanticChange> {
    semantic_changes(&read_workspace(workspace))
}

/// `skill kind text`, one line per change, for readable assertions.
fn lines(changes: &[SemanticChange]) -> Vec<String> {
    changes
        .iter()
        .map(|c| format!("{} {} {}", c.skill.as_deref().unwrap_or(&c.file), c.kind.name(), c.text))
        .collect()
}

fn find<'c>(changes: &'c [SemanticChange], text: &str) -> &'c SemanticChange {
    changes
        .iter()
        .find(|c| c.text == text)
        .unwrap_or_else(|| panic!("no change reads {text:?}:\n{:#?}", lines(changes)))
}

fn line_of(span: Span) -> u32 {
    span.start.line
}

#[test]
fn the_tutorial_lists_imports_arguments_memory_and_set_aside_modules() {
    let found = changes(&tutorial());
    let expected = [
        "integrations.yml mcp_server_added MCP server `hubspot_crm` added (http://127.0.0.1:8931/mcp)",
        "tools/crm.py tool_module_removed tool module `tools/crm.py` set aside: `find_contact_by_email` now imported over MCP",
        "check_tickets import_added import added: `mcp/hubspot_crm:list_open_tickets` (was a local tool)",
        "check_tickets tool_module_removed tool module `skills/check_tickets/tools.py` set aside: `list_open_tickets` now imported over MCP",
        "check_tickets argument_added `list_open_tickets`: argument `contact_id` added (string, required)",
        "check_tickets tool_memory_access_removed `list_open_tickets` no longer reads `project.contact_id` from project memory (an MCP tool has no project memory)",
        "check_tickets result_shape_changed `list_open_tickets`: result now has an output schema (`CrmResult`): the agent gets structured content",
        "identify_customer import_rewritten_to_mcp `find_contact_by_email` now imported over MCP from `hubspot_crm` (was a shared tool)",
        "identify_customer tool_memory_access_removed `find_contact_by_email` no longer writes `project.contact_id` to project memory (an MCP tool has no project memory)",
        "identify_customer tool_memory_access_removed `find_contact_by_email` no longer writes `project.contact_name` to project memory (an MCP tool has no project memory)",
        "identify_customer tool_memory_access_removed `find_contact_by_email` no longer writes `project.company` to project memory (an MCP tool has no project memory)",
        "identify_customer result_shape_changed `find_contact_by_email`: result now has an output schema (`CrmResult`): the agent gets structured content",
        "log_interaction import_added import added: `mcp/hubspot_crm:add_timeline_note` (was a local tool)",
        "log_interaction tool_module_removed tool module `skills/log_interaction/tools.py` set aside: `add_timeline_note` now imported over MCP",
        "log_interaction argument_added `add_timeline_note`: argument `contact_id` added (string, required)",
        "log_interaction tool_memory_access_removed `add_timeline_note` no longer reads `project.contact_id` from project memory (an MCP tool has no project memory)",
        "log_interaction result_shape_changed `add_timeline_note`: result now has an output schema (`CrmResult`): the agent gets structured content",
        "log_interaction step_argument_missing step `write_note` runs `add_timeline_note` without `contact_id`, which it now requires",
    ];
    assert_eq!(lines(&found), expected);
}

#[test]
fn tutorial_changes_point_at_both_sides() {
    let found = changes(&tutorial());
    let rewrite = find(
        &found,
        "`find_contact_by_email` now imported over MCP from `hubspot_crm` (was a shared tool)",
    );
    assert_eq!(rewrite.kind, ChangeKind::ImportRewrittenToMcp);
    assert_eq!(rewrite.tool.as_deref(), Some("find_contact_by_email"));
    let before = rewrite.before.as_ref().expect("before");
    let after = rewrite.after.as_ref().expect("after");
    assert_eq!(before.file, FileRef::new(Area::Before, "skills/identify_customer/skill.md"));
    assert_eq!(after.file, FileRef::new(Area::After, "skills/identify_customer/skill.md"));
    assert_eq!((line_of(before.span), line_of(after.span)), (8, 8));

    // The new argument points at the local function before and the server's parameter after.
    let argument =
        find(&found, "`add_timeline_note`: argument `contact_id` added (string, required)");
    assert_eq!(argument.skill.as_deref(), Some("log_interaction"));
    let before = argument.before.as_ref().expect("before");
    assert_eq!(before.location(), "before/skills/log_interaction/tools.py:13:11");
    let after = argument.after.as_ref().expect("after");
    assert_eq!(after.file, FileRef::new(Area::Server, "scripts/mcp_crm_server.py"));
    let server = tutorial().server.file("scripts/mcp_crm_server.py").unwrap().to_owned();
    let line = server.lines().nth(line_of(after.span) as usize - 1).unwrap();
    assert!(line.contains("add_timeline_note(contact_id: str"), "{line}");

    // A set-aside module is named on the before side only.
    let module = found
        .iter()
        .find(|c| c.kind == ChangeKind::ToolModuleRemoved && c.file == "tools/crm.py")
        .expect("tools/crm.py set aside");
    assert_eq!(module.skill, None);
    assert!(module.after.is_none());
    assert_eq!(module.kind.effect(), Effect::Removed);
}

#[test]
fn a_constraint_moved_to_another_tool_is_one_change_at_that_line() {
    // The one-line change of the tutorial's review: the gate's key names the read tool.
    let mut workspace = tutorial();
    edit(
        &mut workspace,
        "after/skills/log_interaction/skill.md",
        "  - add_timeline_note:\n",
        "  - list_open_tickets:\n",
    );
    let found = changes(&workspace);
    let text =
        "constraint `requires_confirmation` moved from add_timeline_note to list_open_tickets";
    let moved: Vec<&SemanticChange> = found.iter().filter(|c| c.text == text).collect();
    assert_eq!(moved.len(), 1, "{:#?}", lines(&found));
    let moved = moved[0];
    assert_eq!(moved.kind, ChangeKind::ConstraintMoved);
    assert_eq!(moved.skill.as_deref(), Some("log_interaction"));
    assert_eq!(moved.tool.as_deref(), Some("list_open_tickets"));
    let after = moved.after.as_ref().expect("after");
    assert_eq!(after.file, FileRef::new(Area::After, "skills/log_interaction/skill.md"));
    let edited = workspace.after.file("skills/log_interaction/skill.md").unwrap();
    assert_eq!(
        edited.lines().nth(line_of(after.span) as usize - 1),
        Some("  - list_open_tickets:")
    );
    assert_eq!(after.span.start.column, 5);
    let before = moved.before.as_ref().expect("before");
    let original = workspace.before.file("skills/log_interaction/skill.md").unwrap();
    assert_eq!(
        original.lines().nth(line_of(before.span) as usize - 1),
        Some("  - add_timeline_note:")
    );
    // Nothing else about constraints: the move is not also an addition and a removal.
    let constraint_kinds = [
        ChangeKind::ConstraintAdded,
        ChangeKind::ConstraintRemoved,
        ChangeKind::ConstraintChanged,
        ChangeKind::ConstraintMoved,
    ];
    assert_eq!(found.iter().filter(|c| constraint_kinds.contains(&c.kind)).count(), 1);
}

#[test]
fn constraints_added_removed_and_changed_on_the_same_tool() {
    let mut workspace = tutorial();
    edit(
        &mut workspace,
        "after/skills/log_interaction/skill.md",
        "        utter_on_user_denial: utter_note_cancelled\n",
        "        utter_on_user_denial: utter_note_saved\n      on_success: utter_note_saved\n",
    );
    let found = changes(&workspace);
    assert_eq!(
        find(
            &found,
            "constraint `requires_confirmation` of add_timeline_note changed from (asks with \
             `utter_confirm_note`, denial `utter_note_cancelled`) to (asks with \
             `utter_confirm_note`, denial `utter_note_saved`)"
        )
        .kind,
        ChangeKind::ConstraintChanged
    );
    assert_eq!(
        find(&found, "constraint `on_success` added to add_timeline_note: `utter_note_saved`").kind,
        ChangeKind::ConstraintAdded
    );

    let mut workspace = tutorial();
    let gate = "tool_constraints:\n  - add_timeline_note:\n      requires_confirmation:\n        \
                enabled: true\n        utter_for_confirmation: utter_confirm_note\n        \
                utter_on_user_denial: utter_note_cancelled\n";
    edit(&mut workspace, "after/skills/log_interaction/skill.md", gate, "");
    let found = changes(&workspace);
    let removed = find(
        &found,
        "constraint `requires_confirmation` removed from add_timeline_note (was (asks with \
         `utter_confirm_note`, denial `utter_note_cancelled`))",
    );
    assert_eq!(removed.kind, ChangeKind::ConstraintRemoved);
    assert!(removed.after.is_none());
}

#[test]
fn the_same_workspace_on_both_sides_has_no_changes() {
    let mut workspace = tutorial();
    workspace.after = workspace.before.clone();
    assert_eq!(lines(&changes(&workspace)), Vec::<String>::new());
    let mut workspace = tutorial();
    workspace.before = workspace.after.clone();
    assert_eq!(lines(&changes(&workspace)), Vec::<String>::new());
}

#[test]
fn without_a_server_the_arguments_are_not_compared_and_that_is_said() {
    let mut workspace = tutorial();
    workspace.server = Project::default();
    let found = changes(&workspace);
    assert!(!found.iter().any(|c| c.kind == ChangeKind::ArgumentAdded), "{:#?}", lines(&found));
    let unknown: Vec<&str> = found
        .iter()
        .filter(|c| c.kind == ChangeKind::ToolSchemaUnknown)
        .filter_map(|c| c.tool.as_deref())
        .collect();
    assert_eq!(unknown, ["list_open_tickets", "find_contact_by_email", "add_timeline_note"]);
    assert!(found.iter().any(
        |c| c.text == "`list_open_tickets`: arguments not compared: no server source was given"
    ));
}

#[test]
fn a_server_that_changes_a_type_or_drops_an_argument_is_reported() {
    let mut workspace = tutorial();
    edit(
        &mut workspace,
        "server/scripts/mcp_crm_server.py",
        "async def find_contact_by_email(email: str) -> CrmResult:",
        "async def find_contact_by_email(email: int, domain: str = \"\") -> CrmResult:",
    );
    edit(
        &mut workspace,
        "server/scripts/mcp_crm_server.py",
        "async def add_timeline_note(contact_id: str, summary: str) -> CrmResult:",
        "async def add_timeline_note(contact_id: str) -> CrmResult:",
    );
    let found = changes(&workspace);
    let of = |kind: ChangeKind| -> Vec<&str> {
        found.iter().filter(|c| c.kind == kind).map(|c| c.text.as_str()).collect()
    };
    assert_eq!(
        of(ChangeKind::ArgumentTypeChanged),
        ["`find_contact_by_email`: argument `email` type changed from string to integer"]
    );
    assert!(
        of(ChangeKind::ArgumentAdded)
            .contains(&"`find_contact_by_email`: argument `domain` added (string, optional)"),
        "{:#?}",
        lines(&found)
    );
    assert_eq!(
        of(ChangeKind::ArgumentRemoved),
        ["`add_timeline_note`: argument `summary` removed"]
    );
}

#[test]
fn servers_memory_steps_and_prose_are_compared() {
    let mut workspace = tutorial();
    edit(
        &mut workspace,
        "before/integrations.yml",
        "api_key: ${OPENAI_API_KEY}\n",
        "api_key: ${OPENAI_API_KEY}\nmcp_servers:\n  - name: hubspot_crm\n    url: http://127.0.0.1:9000/mcp\n  - name: old_crm\n    url: http://127.0.0.1:9001/mcp\n",
    );
    edit(&mut workspace, "after/memory.yml", "company:\n  type: text\n", "plan:\n  type: text\n");
    edit(
        &mut workspace,
        "after/skills/log_interaction/memory.yml",
        "      llm_settable: true\n",
        "      llm_settable: false\n",
    );
    edit(
        &mut workspace,
        "after/skills/log_interaction/skill.md",
        "      summary: session.log_interaction.note_summary\n",
        "      summary: session.log_interaction.note_summary\n      contact_id: session.project.contact_id\n",
    );
    edit(
        &mut workspace,
        "after/skills/check_tickets/skill.md",
        "Then offer to note the call.",
        "Then offer to note the call, once.",
    );
    let found = changes(&workspace);
    let expected = [
        "integrations.yml mcp_server_url_changed MCP server `hubspot_crm` url changed from http://127.0.0.1:9000/mcp to http://127.0.0.1:8931/mcp",
        "integrations.yml mcp_server_removed MCP server `old_crm` removed (was http://127.0.0.1:9001/mcp)",
        "memory.yml memory_field_added project memory field `plan` added (text)",
        "memory.yml memory_field_removed project memory field `company` removed",
        "check_tickets prose_changed instructions changed (body 687 → 693 bytes)",
        "log_interaction memory_field_changed skill memory field `note_summary` changed: llm_settable true → false",
        "log_interaction step_parameters_changed step `write_note`: parameter `contact_id` added (\"session.project.contact_id\")",
    ];
    let found_lines = lines(&found);
    for line in expected {
        assert!(found_lines.iter().any(|l| l == line), "{line}\nin {found_lines:#?}");
    }
    // With contact_id passed, the step no longer misses an argument.
    assert!(!found.iter().any(|c| c.kind == ChangeKind::StepArgumentMissing));
    let prose = found.iter().find(|c| c.kind == ChangeKind::ProseChanged).unwrap();
    let after = prose.after.as_ref().unwrap();
    let text = workspace.after.file("skills/check_tickets/skill.md").unwrap();
    assert!(text.lines().nth(line_of(after.span) as usize - 1).unwrap().starts_with("Otherwise"));
}

#[test]
fn skills_added_removed_and_refused_are_changes_of_their_own() {
    let mut workspace = tutorial();
    let check = workspace.after.file("skills/check_tickets/skill.md").unwrap().to_owned();
    workspace.set_file(
        &FileRef::new(Area::After, "skills/escalate/skill.md"),
        check.replace("name: check_tickets", "name: escalate"),
    );
    workspace.remove_file(&FileRef::new(Area::After, "skills/identify_customer/skill.md"));
    edit(&mut workspace, "after/skills/check_tickets/skill.md", "---\nCall", "bogus: 1\n---\nCall");
    let found = changes(&workspace);
    let kinds: Vec<(Option<&str>, ChangeKind)> =
        found.iter().map(|c| (c.skill.as_deref(), c.kind)).collect();
    assert!(kinds.contains(&(Some("escalate"), ChangeKind::SkillAdded)), "{:#?}", lines(&found));
    assert!(kinds.contains(&(Some("identify_customer"), ChangeKind::SkillRemoved)));
    let refused = found.iter().find(|c| c.kind == ChangeKind::SkillNowRefused).unwrap();
    assert_eq!(refused.skill.as_deref(), Some("check_tickets"));
    assert!(refused.text.starts_with("skill no longer loads: "), "{}", refused.text);
    // A refused skill is not compared further: no import or argument changes for it.
    assert_eq!(found.iter().filter(|c| c.skill.as_deref() == Some("check_tickets")).count(), 2);
}

#[test]
fn changes_are_sorted_by_skill_then_kind_with_project_files_first() {
    let found = changes(&tutorial());
    let keys: Vec<(Option<&str>, &str, ChangeKind)> = found
        .iter()
        .map(|c| match &c.skill {
            Some(skill) => (Some(skill.as_str()), "", c.kind),
            None => (None, c.file.as_str(), c.kind),
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert_eq!(found.first().map(|c| c.skill.clone()), Some(None));
}

#[test]
fn kinds_serialize_as_their_stable_names() {
    for change in changes(&tutorial()) {
        let json = serde_json::to_value(&change).unwrap();
        assert_eq!(json["kind"], change.kind.name());
    }
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        usize::try_from(self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % (n.max(1) as u64)).unwrap_or(0)
    }
}

#[test]
fn mutated_workspaces_never_panic() {
    let base = tutorial();
    let files: Vec<(FileRef, String)> =
        base.files().map(|(file, text)| (file, text.to_owned())).collect();
    let mut rng = Rng(0x5eed_d1ff);
    for (file, text) in &files {
        let bytes = text.as_bytes();
        for round in 0..6 {
            let mut mutated = bytes.to_vec();
            match round % 3 {
                0 => mutated.truncate(rng.below(bytes.len() + 1)),
                1 => {
                    let at = rng.below(mutated.len());
                    if let Some(byte) = mutated.get_mut(at) {
                        *byte ^= 1 << rng.below(8);
                    }
                }
                _ => {
                    let at = rng.below(mutated.len() + 1);
                    let junk: &[u8] =
                        [&b":\n- "[..], b"\t", b"---\n", b"mcp/", b"(", b"\""][rng.below(6)];
                    mutated.splice(at..at, junk.iter().copied());
                }
            }
            let mut workspace = base.clone();
            workspace.set_file(file, String::from_utf8_lossy(&mutated).into_owned());
            let _ = changes(&workspace);
        }
        let mut workspace = base.clone();
        workspace.set_file(file, String::new());
        let _ = changes(&workspace);
    }
    // Swapped sides and empty sides too.
    let swapped =
        Workspace { before: base.after.clone(), after: base.before.clone(), ..base.clone() };
    assert!(!changes(&swapped).is_empty());
    let _ = changes(&Workspace::default());
    let _ = changes(&Workspace { after: Project::default(), ..base });
}

#[test]
fn the_swap_undone_reads_the_other_way() {
    let base = tutorial();
    let undone = Workspace { before: base.after.clone(), after: base.before.clone(), ..base };
    let found = changes(&undone);
    let of = |kind: ChangeKind| -> Vec<&str> {
        found.iter().filter(|c| c.kind == kind).map(|c| c.text.as_str()).collect()
    };
    assert_eq!(
        of(ChangeKind::ImportRewritten),
        ["`find_contact_by_email` now imported as `find_contact_by_email` (was \
          `mcp/hubspot_crm:find_contact_by_email`)"]
    );
    assert_eq!(
        of(ChangeKind::ImportRemoved),
        [
            "import removed: `mcp/hubspot_crm:list_open_tickets`",
            "import removed: `mcp/hubspot_crm:add_timeline_note`"
        ]
    );
    assert_eq!(
        of(ChangeKind::ArgumentRemoved),
        [
            "`list_open_tickets`: argument `contact_id` removed",
            "`add_timeline_note`: argument `contact_id` removed"
        ]
    );
    assert_eq!(of(ChangeKind::McpServerRemoved).len(), 1);
    assert_eq!(of(ChangeKind::ToolModuleAdded).len(), 3);
    assert_eq!(of(ChangeKind::ToolMemoryAccessAdded).len(), 5);
}
