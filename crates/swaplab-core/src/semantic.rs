//! What the swap changes in meaning, not in lines: the *before* and *after* projects
//! compared as Rasa reads them ([`WorkspaceReport`]), with the MCP server's `tools/list`
//! standing in for the tools the *after* skills import.
//!
//! [`semantic_changes`] lists, for each skill and each project-level file:
//!
//! - `import_tools` entries added, removed, or rewritten (`find_contact_by_email` →
//!   `mcp/hubspot_crm:find_contact_by_email`);
//! - tool modules added or set aside, and `@tool` functions added to or removed from a
//!   module present on both sides;
//! - for each tool a skill binds on both sides, unless both bindings are MCP imports (one
//!   server, one schema): the arguments the model fills in (a local function's schema,
//!   injected `context` left out, against the MCP tool's `inputSchema`), the project
//!   memory the body reads and writes, and the result's shape (output schema, result keys);
//! - gate constraints (`requires`, `requires_confirmation`, `on_success`, `on_failure`)
//!   added, removed, changed, or moved intact from one tool to another of the same skill;
//! - `mcp_servers` entries, project and skill memory fields, ordered blocks, steps and
//!   `execute_tool` parameters, the description, and the prose body.
//!
//! Each change has a stable [`ChangeKind`], one sentence for people, and where it applies
//! on each side as a [`Place`]. The list is sorted: project-level files first (by path),
//! then skills by id; within each, by kind, then in the order the files are written.
//! Pure and total: a report of a broken project (skills that do not compile, a missing
//! server) gives fewer changes, never a panic.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::diagnostic::{Position, Span};
use crate::python::{McpServerModule, McpTool, MemoryOp, Param, Schema, ToolFunction};
use crate::rasa::imports::{ImportRef, parse_import};
use crate::rasa::memory::{MemoryField, Visibility};
use crate::rasa::project::{ProjectReport, SkillEntry};
use crate::rasa::skill::{
    Confirmation, GatedTool, OrderedBlock, ProseSegment, Skill, Step, StepKind,
};
use crate::rasa::workspace::WorkspaceReport;
use crate::workspace::{Area, FileRef};

/// What kind of change, in a stable snake_case name (the JSON's `kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// A skill directory only in *after*.
    SkillAdded,
    /// A skill directory only in *before*.
    SkillRemoved,
    /// The skill loads before the swap and not after it.
    SkillNowRefused,
    /// The skill is refused before the swap and loads after it.
    SkillNowLoads,
    /// An `import_tools` entry only in *after*.
    ImportAdded,
    /// An `import_tools` entry only in *before*.
    ImportRemoved,
    /// A local or shared import rewritten as `mcp/<server>:<tool>`.
    ImportRewrittenToMcp,
    /// Another rewrite of an import with the same bare name (MCP to local, another server).
    ImportRewritten,
    /// A tool module only in *after*.
    ToolModuleAdded,
    /// A tool module only in *before*: the swap set it aside.
    ToolModuleRemoved,
    /// A `@tool` function added to a module present on both sides.
    LocalToolAdded,
    /// A `@tool` function removed from a module present on both sides.
    LocalToolRemoved,
    /// The model must now fill in an argument it did not see before.
    ArgumentAdded,
    /// An argument the model filled in is gone.
    ArgumentRemoved,
    /// An argument's JSON type changed.
    ArgumentTypeChanged,
    /// An argument became required or optional.
    ArgumentRequiredChanged,
    /// A tool's arguments could not be compared: its MCP side is unknown.
    ToolSchemaUnknown,
    /// The tool's body no longer reads or writes a project memory path.
    ToolMemoryAccessRemoved,
    /// The tool's body now reads or writes a project memory path.
    ToolMemoryAccessAdded,
    /// The result's shape changed: output schema published or not, result keys.
    ResultShapeChanged,
    /// A constraint a tool did not have.
    ConstraintAdded,
    /// A constraint a tool no longer has.
    ConstraintRemoved,
    /// A constraint kept on the same tool with another value.
    ConstraintChanged,
    /// A constraint taken off one tool and put, unchanged, on another of the same skill.
    ConstraintMoved,
    /// An `mcp_servers` entry only in *after*.
    McpServerAdded,
    /// An `mcp_servers` entry only in *before*.
    McpServerRemoved,
    /// An `mcp_servers` entry whose `url` changed.
    McpServerUrlChanged,
    /// A memory field only in *after*.
    MemoryFieldAdded,
    /// A memory field only in *before*.
    MemoryFieldRemoved,
    /// A memory field whose type, visibility or `llm_settable` changed.
    MemoryFieldChanged,
    /// An ordered block only in *after*.
    BlockAdded,
    /// An ordered block only in *before*.
    BlockRemoved,
    /// A step only in *after*'s block.
    StepAdded,
    /// A step only in *before*'s block.
    StepRemoved,
    /// An `execute_tool` step that runs another tool.
    StepToolChanged,
    /// An `execute_tool` step whose parameters changed.
    StepParametersChanged,
    /// An `execute_tool` step that does not pass an argument its tool now requires.
    StepArgumentMissing,
    /// The routing description changed.
    DescriptionChanged,
    /// The prose instructions changed.
    ProseChanged,
}

/// Whether a change adds, removes or alters something (for a `+`, `-` or `~` mark).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// Something is there after the swap that was not before.
    Added,
    /// Something that was there is gone.
    Removed,
    /// Something is there on both sides, differently.
    Changed,
}

impl Effect {
    /// `+`, `-` or `~`.
    pub fn marker(self) -> char {
        match self {
            Effect::Added => '+',
            Effect::Removed => '-',
            Effect::Changed => '~',
        }
    }
}

impl ChangeKind {
    /// The stable snake_case name, as serialized.
    pub fn name(self) -> &'static str {
        use ChangeKind as K;
        match self {
            K::SkillAdded => "skill_added",
            K::SkillRemoved => "skill_removed",
            K::SkillNowRefused => "skill_now_refused",
            K::SkillNowLoads => "skill_now_loads",
            K::ImportAdded => "import_added",
            K::ImportRemoved => "import_removed",
            K::ImportRewrittenToMcp => "import_rewritten_to_mcp",
            K::ImportRewritten => "import_rewritten",
            K::ToolModuleAdded => "tool_module_added",
            K::ToolModuleRemoved => "tool_module_removed",
            K::LocalToolAdded => "local_tool_added",
            K::LocalToolRemoved => "local_tool_removed",
            K::ArgumentAdded => "argument_added",
            K::ArgumentRemoved => "argument_removed",
            K::ArgumentTypeChanged => "argument_type_changed",
            K::ArgumentRequiredChanged => "argument_required_changed",
            K::ToolSchemaUnknown => "tool_schema_unknown",
            K::ToolMemoryAccessRemoved => "tool_memory_access_removed",
            K::ToolMemoryAccessAdded => "tool_memory_access_added",
            K::ResultShapeChanged => "result_shape_changed",
            K::ConstraintAdded => "constraint_added",
            K::ConstraintRemoved => "constraint_removed",
            K::ConstraintChanged => "constraint_changed",
            K::ConstraintMoved => "constraint_moved",
            K::McpServerAdded => "mcp_server_added",
            K::McpServerRemoved => "mcp_server_removed",
            K::McpServerUrlChanged => "mcp_server_url_changed",
            K::MemoryFieldAdded => "memory_field_added",
            K::MemoryFieldRemoved => "memory_field_removed",
            K::MemoryFieldChanged => "memory_field_changed",
            K::BlockAdded => "block_added",
            K::BlockRemoved => "block_removed",
            K::StepAdded => "step_added",
            K::StepRemoved => "step_removed",
            K::StepToolChanged => "step_tool_changed",
            K::StepParametersChanged => "step_parameters_changed",
            K::StepArgumentMissing => "step_argument_missing",
            K::DescriptionChanged => "description_changed",
            K::ProseChanged => "prose_changed",
        }
    }

    /// Whether the change adds, removes or alters.
    pub fn effect(self) -> Effect {
        use ChangeKind as K;
        match self {
            K::SkillAdded
            | K::SkillNowLoads
            | K::ImportAdded
            | K::ToolModuleAdded
            | K::LocalToolAdded
            | K::ArgumentAdded
            | K::ToolMemoryAccessAdded
            | K::ConstraintAdded
            | K::McpServerAdded
            | K::MemoryFieldAdded
            | K::BlockAdded
            | K::StepAdded => Effect::Added,
            K::SkillRemoved
            | K::SkillNowRefused
            | K::ImportRemoved
            | K::ToolModuleRemoved
            | K::LocalToolRemoved
            | K::ArgumentRemoved
            | K::ToolMemoryAccessRemoved
            | K::ConstraintRemoved
            | K::McpServerRemoved
            | K::MemoryFieldRemoved
            | K::BlockRemoved
            | K::StepRemoved => Effect::Removed,
            K::ImportRewrittenToMcp
            | K::ImportRewritten
            | K::ArgumentTypeChanged
            | K::ArgumentRequiredChanged
            | K::ToolSchemaUnknown
            | K::ResultShapeChanged
            | K::ConstraintChanged
            | K::ConstraintMoved
            | K::McpServerUrlChanged
            | K::MemoryFieldChanged
            | K::StepToolChanged
            | K::StepParametersChanged
            | K::StepArgumentMissing
            | K::DescriptionChanged
            | K::ProseChanged => Effect::Changed,
        }
    }
}

/// Where a change applies on one side: a workspace file and a range of it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Place {
    /// The file, with its area (`before`, `after`, or `server` for an MCP tool).
    pub file: FileRef,
    /// The range (a point at the file's start when the whole file is meant).
    pub span: Span,
}

impl Place {
    fn new(area: Area, path: &str, span: Span) -> Place {
        Place { file: FileRef::new(area, path), span }
    }

    fn file_start(area: Area, path: &str) -> Place {
        Place::new(area, path, Span::point(Position::START))
    }

    /// `before/skills/x/skill.md:9:5`, the form terminals and editors link.
    pub fn location(&self) -> String {
        format!("{}:{}:{}", self.file, self.span.start.line, self.span.start.column)
    }
}

/// One change the swap makes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SemanticChange {
    /// What kind of change.
    pub kind: ChangeKind,
    /// The skill it concerns; `None` for project-level files (`integrations.yml`,
    /// `memory.yml`, shared tool modules).
    pub skill: Option<String>,
    /// The project file it concerns (`skills/<id>/skill.md`, `tools/crm.py`, …).
    pub file: String,
    /// The tool it concerns, when it concerns one.
    pub tool: Option<String>,
    /// One sentence for people.
    pub text: String,
    /// Where it applies before the swap.
    pub before: Option<Place>,
    /// Where it applies after the swap (the server file for an MCP tool's schema).
    pub after: Option<Place>,
}

/// Every change from `report.before` to `report.after`, sorted as the module doc says.
pub fn semantic_changes(report: &WorkspaceReport) -> Vec<SemanticChange> {
    let mut out = Vec::new();
    mcp_servers(&report.before, &report.after, &mut out);
    project_memory(&report.before, &report.after, &mut out);
    tool_modules(&report.before, &report.after, &mut out);
    let ids: BTreeSet<&str> = crate::order::set_of(
        report.before.skills.iter().chain(&report.after.skills).map(|entry| entry.dir.as_str()),
    );
    for id in ids {
        skill_changes(report, id, &mut out);
    }
    crate::order::sort_by(&mut out, |x, y| sort_key(x).cmp(&sort_key(y)));
    out
}

fn sort_key(change: &SemanticChange) -> (Option<&str>, &str, ChangeKind) {
    match &change.skill {
        Some(skill) => (Some(skill.as_str()), "", change.kind),
        None => (None, change.file.as_str(), change.kind),
    }
}

/// Builds changes for one subject (a skill or a project-level file).
struct Subject<'o> {
    out: &'o mut Vec<SemanticChange>,
    skill: Option<String>,
    file: String,
}

impl Subject<'_> {
    fn push(
        &mut self,
        kind: ChangeKind,
        tool: Option<&str>,
        text: String,
        before: Option<Place>,
        after: Option<Place>,
    ) {
        self.out.push(SemanticChange {
            kind,
            skill: self.skill.clone(),
            file: self.file.clone(),
            tool: tool.map(str::to_owned),
            text,
            before,
            after,
        });
    }
}

fn on<'o>(out: &'o mut Vec<SemanticChange>, skill: Option<&str>, file: &str) -> Subject<'o> {
    Subject { out, skill: skill.map(str::to_owned), file: file.to_owned() }
}

/// `a`, `b` and `c` in backticks, or `none`.
fn names<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    let quoted: Vec<String> = items.into_iter().map(|n| format!("`{n}`")).collect();
    if quoted.is_empty() { "none".to_owned() } else { quoted.join(", ") }
}

// ---------------------------------------------------------------------------------------
// Project-level files

fn mcp_servers(before: &ProjectReport, after: &ProjectReport, out: &mut Vec<SemanticChange>) {
    let file = after.integrations.file.clone();
    let mut subject = on(out, None, &file);
    let old = before.integrations.servers();
    let new = after.integrations.servers();
    for server in new {
        let at = Some(Place::new(Area::After, &after.integrations.file, server.name_span));
        match old.iter().find(|s| s.name == server.name) {
            None => subject.push(
                ChangeKind::McpServerAdded,
                None,
                format!("MCP server `{}` added ({})", server.name, server.url),
                None,
                at,
            ),
            Some(was) if was.url != server.url => subject.push(
                ChangeKind::McpServerUrlChanged,
                None,
                format!(
                    "MCP server `{}` url changed from {} to {}",
                    server.name, was.url, server.url
                ),
                Some(Place::new(Area::Before, &before.integrations.file, was.url_span)),
                Some(Place::new(Area::After, &after.integrations.file, server.url_span)),
            ),
            Some(_) => {}
        }
    }
    for server in old.iter().filter(|s| !new.iter().any(|n| n.name == s.name)) {
        subject.push(
            ChangeKind::McpServerRemoved,
            None,
            format!("MCP server `{}` removed (was {})", server.name, server.url),
            Some(Place::new(Area::Before, &before.integrations.file, server.name_span)),
            None,
        );
    }
}

fn project_memory(before: &ProjectReport, after: &ProjectReport, out: &mut Vec<SemanticChange>) {
    let old: Vec<(&MemoryField, Option<Visibility>)> =
        before.project_memory.fields.iter().map(|f| (f, None)).collect();
    let new: Vec<(&MemoryField, Option<Visibility>)> =
        after.project_memory.fields.iter().map(|f| (f, None)).collect();
    let mut subject = on(out, None, &after.project_memory.file);
    let files = (before.project_memory.file.as_str(), after.project_memory.file.as_str());
    memory_fields(&mut subject, "project memory", files, &old, &new);
}

/// Fields compared by name: added, removed, or changed in type, visibility or
/// `llm_settable`.
fn memory_fields(
    subject: &mut Subject<'_>,
    what: &str,
    (old_file, new_file): (&str, &str),
    old: &[(&MemoryField, Option<Visibility>)],
    new: &[(&MemoryField, Option<Visibility>)],
) {
    for (field, visibility) in new {
        let at = Some(Place::new(Area::After, new_file, field.span));
        let Some((was, was_visibility)) = old.iter().find(|(f, _)| f.name == field.name) else {
            subject.push(
                ChangeKind::MemoryFieldAdded,
                None,
                format!("{what} field `{}` added ({})", field.name, field.type_name),
                None,
                at,
            );
            continue;
        };
        let mut differences = Vec::new();
        if was.type_name != field.type_name {
            differences.push(format!("type {} → {}", was.type_name, field.type_name));
        }
        if was_visibility != visibility
            && let (Some(a), Some(b)) = (was_visibility, visibility)
        {
            differences.push(format!("{} → {}", visibility_word(*a), visibility_word(*b)));
        }
        if was.llm_settable != field.llm_settable {
            differences.push(format!("llm_settable {} → {}", was.llm_settable, field.llm_settable));
        }
        if !differences.is_empty() {
            subject.push(
                ChangeKind::MemoryFieldChanged,
                None,
                format!("{what} field `{}` changed: {}", field.name, differences.join(", ")),
                Some(Place::new(Area::Before, old_file, was.span)),
                at,
            );
        }
    }
    for (field, _) in old.iter().filter(|(f, _)| !new.iter().any(|(n, _)| n.name == f.name)) {
        subject.push(
            ChangeKind::MemoryFieldRemoved,
            None,
            format!("{what} field `{}` removed", field.name),
            Some(Place::new(Area::Before, old_file, field.span)),
            None,
        );
    }
}

fn visibility_word(visibility: Visibility) -> &'static str {
    match visibility {
        Visibility::Public => "public",
        Visibility::Private => "private",
    }
}

/// Every tool module of a project: path → (owning skill, its `@tool` names).
fn modules(report: &ProjectReport) -> BTreeMap<&str, (Option<&str>, Vec<&ToolFunction>)> {
    let mut map = BTreeMap::new();
    for file in &report.shared_tools {
        map.insert(file.path.as_str(), (None, file.module.tools.iter().collect()));
    }
    for entry in &report.skills {
        for file in &entry.tools {
            map.insert(
                file.path.as_str(),
                (Some(entry.dir.as_str()), file.module.tools.iter().collect()),
            );
        }
    }
    map
}

fn tool_modules(before: &ProjectReport, after: &ProjectReport, out: &mut Vec<SemanticChange>) {
    let old = modules(before);
    let new = modules(after);
    let imported_over_mcp: BTreeSet<&str> =
        crate::order::set_of(after.mcp_imports.iter().map(|import| import.tool.as_str()));
    for (path, (owner, tools)) in &old {
        let mut subject = on(out, *owner, path);
        let tool_names = || names(tools.iter().map(|t| t.name.as_str()));
        let Some((_, new_tools)) = new.get(path) else {
            let moved = !tools.is_empty()
                && tools.iter().all(|t| imported_over_mcp.contains(t.name.as_str()));
            let text = if moved {
                format!("tool module `{path}` set aside: {} now imported over MCP", tool_names())
            } else {
                format!("tool module `{path}` removed (defined {})", tool_names())
            };
            let at = Some(Place::file_start(Area::Before, path));
            subject.push(ChangeKind::ToolModuleRemoved, None, text, at, None);
            continue;
        };
        for tool in tools.iter().filter(|t| !new_tools.iter().any(|n| n.name == t.name)) {
            subject.push(
                ChangeKind::LocalToolRemoved,
                Some(&tool.name),
                format!("`{}` removed from `{path}`", tool.name),
                Some(Place::new(Area::Before, path, tool.name_span)),
                Some(Place::file_start(Area::After, path)),
            );
        }
        for tool in new_tools.iter().filter(|n| !tools.iter().any(|t| t.name == n.name)) {
            subject.push(
                ChangeKind::LocalToolAdded,
                Some(&tool.name),
                format!("`{}` added to `{path}`", tool.name),
                Some(Place::file_start(Area::Before, path)),
                Some(Place::new(Area::After, path, tool.name_span)),
            );
        }
    }
    for (path, (owner, tools)) in new.iter().filter(|(path, _)| !old.contains_key(*path)) {
        let mut subject = on(out, *owner, path);
        subject.push(
            ChangeKind::ToolModuleAdded,
            None,
            format!(
                "tool module `{path}` added (defines {})",
                names(tools.iter().map(|t| t.name.as_str()))
            ),
            None,
            Some(Place::file_start(Area::After, path)),
        );
    }
}

// ---------------------------------------------------------------------------------------
// Skills

fn compiled(entry: &SkillEntry) -> Option<&Skill> {
    entry.skill_md.as_ref()?.compiled.as_ref()
}

fn skill_changes(report: &WorkspaceReport, id: &str, out: &mut Vec<SemanticChange>) {
    let skill_file = format!("skills/{id}/skill.md");
    let (old, new) = (report.before.entry(id), report.after.entry(id));
    let mut subject = on(out, Some(id), &skill_file);
    let (old, new) = match (old, new) {
        (Some(old), Some(new)) => (old, new),
        (None, Some(_)) => {
            let at = Some(Place::file_start(Area::After, &skill_file));
            subject.push(ChangeKind::SkillAdded, None, format!("skill `{id}` added"), None, at);
            return;
        }
        (Some(_), None) => {
            let at = Some(Place::file_start(Area::Before, &skill_file));
            subject.push(ChangeKind::SkillRemoved, None, format!("skill `{id}` removed"), at, None);
            return;
        }
        (None, None) => return,
    };
    load_status(&mut subject, old, new);
    skill_memory(out, id, old, new);
    let mut subject = on(out, Some(id), &skill_file);
    let (Some(old_skill), Some(new_skill)) = (compiled(old), compiled(new)) else { return };
    let sides =
        Sides { report, old: (old, old_skill), new: (new, new_skill), file: skill_file.clone() };
    // Both steps read the skill's bindings before the swap; work them out once.
    let old_bindings = sides.bindings(Area::Before);
    sides.imports(&mut subject, &old_bindings);
    sides.tools(&mut subject, &old_bindings);
    sides.constraints(&mut subject);
    sides.blocks(&mut subject);
    sides.text(&mut subject);
}

fn error_place(area: Area, entry: &SkillEntry, file: &str) -> Place {
    let span = entry.skill_md.as_ref().and_then(|md| md.error.as_ref()).map(|e| e.span);
    Place::new(area, file, span.unwrap_or(Span::point(Position::START)))
}

fn load_status(subject: &mut Subject<'_>, old: &SkillEntry, new: &SkillEntry) {
    let file = subject.file.clone();
    match (&old.load_error, &new.load_error) {
        (None, Some(message)) => subject.push(
            ChangeKind::SkillNowRefused,
            None,
            format!("skill no longer loads: {message}"),
            Some(Place::file_start(Area::Before, &file)),
            Some(error_place(Area::After, new, &file)),
        ),
        (Some(message), None) => subject.push(
            ChangeKind::SkillNowLoads,
            None,
            format!("skill now loads (was refused: {message})"),
            Some(error_place(Area::Before, old, &file)),
            Some(Place::file_start(Area::After, &file)),
        ),
        _ => {}
    }
}

fn skill_fields(entry: &SkillEntry) -> Vec<(&MemoryField, Option<Visibility>)> {
    entry.memory.iter().flat_map(|m| m.all_fields()).map(|(f, v)| (f, Some(v))).collect()
}

fn skill_memory(out: &mut Vec<SemanticChange>, id: &str, old: &SkillEntry, new: &SkillEntry) {
    let path = format!("skills/{id}/memory.yml");
    let mut subject = on(out, Some(id), &path);
    memory_fields(
        &mut subject,
        "skill memory",
        (&path, &path),
        &skill_fields(old),
        &skill_fields(new),
    );
}

/// How a skill binds a tool name on one side.
#[derive(Clone, Copy)]
enum Binding<'r> {
    /// A `@tool` function in the project.
    Local { path: &'r str, function: &'r ToolFunction, shared: bool },
    /// An `mcp/<server>:<tool>` import, with the server's tool when it has one.
    Mcp { server: &'r str, tool: Option<&'r McpTool> },
}

impl Binding<'_> {
    fn description(&self) -> String {
        match self {
            Binding::Local { shared: true, .. } => "a shared tool".to_owned(),
            Binding::Local { shared: false, .. } => "a local tool".to_owned(),
            Binding::Mcp { server, .. } => format!("imported over MCP from `{server}`"),
        }
    }
}

/// What the model sees of a tool, and what its body touches.
struct Signature<'r> {
    place: Place,
    params: &'r [(String, Schema)],
    param_spans: &'r [Param],
    required: &'r [String],
    memory: Vec<(MemoryOp, &'r str, Span)>,
    result_keys: Vec<&'r str>,
    output: Option<&'r Schema>,
    mcp: bool,
}

/// The two sides of one skill.
struct Sides<'r> {
    report: &'r WorkspaceReport,
    old: (&'r SkillEntry, &'r Skill),
    new: (&'r SkillEntry, &'r Skill),
    file: String,
}

impl<'r> Sides<'r> {
    fn bindings(&self, area: Area) -> BTreeMap<&'r str, Binding<'r>> {
        let (project, (entry, skill)) = match area {
            Area::Before => (&self.report.before, self.old),
            _ => (&self.report.after, self.new),
        };
        let mut map = BTreeMap::new();
        for file in &entry.tools {
            for function in &file.module.tools {
                map.entry(function.name.as_str()).or_insert(Binding::Local {
                    path: &file.path,
                    function,
                    shared: false,
                });
            }
        }
        let declared = project.declared_shared_tools(skill);
        for file in &project.shared_tools {
            for function in file.module.tools.iter().filter(|f| declared.contains(&f.name)) {
                map.entry(function.name.as_str()).or_insert(Binding::Local {
                    path: &file.path,
                    function,
                    shared: true,
                });
            }
        }
        // MCP wins over a local tool of the same name at dispatch (§5.4).
        for import in project.imports_of(&skill.id) {
            let tool = server_tool(self.report.server.as_deref(), &import.tool);
            map.insert(import.tool.as_str(), Binding::Mcp { server: &import.server, tool });
        }
        map
    }

    fn place(&self, area: Area, span: Span) -> Option<Place> {
        Some(Place::new(area, &self.file, span))
    }

    fn imports(&self, subject: &mut Subject<'_>, old_bindings: &BTreeMap<&'r str, Binding<'r>>) {
        let parsed = |skill: &'r Skill| -> Vec<(&'r str, String, Option<String>, Span)> {
            skill
                .import_tool_names
                .iter()
                .enumerate()
                .map(|(i, reference)| {
                    let span =
                        skill.import_spans.get(i).copied().unwrap_or(Span::point(Position::START));
                    match parse_import(reference) {
                        Ok(ImportRef::Mcp { server, tool }) => {
                            (reference.as_str(), tool, Some(server), span)
                        }
                        _ => (reference.as_str(), reference.clone(), None, span),
                    }
                })
                .collect()
        };
        let old = parsed(self.old.1);
        let new = parsed(self.new.1);
        let was = |bare: &str| old_bindings.get(bare).map(Binding::description);
        let mut matched_old = vec![false; old.len()];
        for (reference, bare, server, span) in &new {
            let at = self.place(Area::After, *span);
            if let Some(i) = old.iter().position(|(r, ..)| r == reference) {
                if let Some(flag) = matched_old.get_mut(i) {
                    *flag = true;
                }
                continue;
            }
            let same_name = old
                .iter()
                .enumerate()
                .find(|(i, (r, b, ..))| {
                    b == bare
                        && !matched_old.get(*i).copied().unwrap_or(true)
                        && !new.iter().any(|(n, ..)| n == r)
                })
                .map(|(i, _)| i);
            match same_name.and_then(|i| Some((i, old.get(i)?))) {
                Some((i, (old_reference, _, old_server, old_span))) => {
                    if let Some(flag) = matched_old.get_mut(i) {
                        *flag = true;
                    }
                    let before = self.place(Area::Before, *old_span);
                    match (server, old_server) {
                        (Some(server), None) => {
                            let was = was(bare).map(|w| format!(" (was {w})")).unwrap_or_default();
                            subject.push(
                                ChangeKind::ImportRewrittenToMcp,
                                Some(bare),
                                format!("`{bare}` now imported over MCP from `{server}`{was}"),
                                before,
                                at,
                            );
                        }
                        _ => subject.push(
                            ChangeKind::ImportRewritten,
                            Some(bare),
                            format!(
                                "`{bare}` now imported as `{reference}` (was `{old_reference}`)"
                            ),
                            before,
                            at,
                        ),
                    }
                }
                None => {
                    let was = was(bare).map(|w| format!(" (was {w})")).unwrap_or_default();
                    subject.push(
                        ChangeKind::ImportAdded,
                        Some(bare),
                        format!("import added: `{reference}`{was}"),
                        None,
                        at,
                    );
                }
            }
        }
        for ((reference, bare, _, span), _) in
            old.iter().zip(&matched_old).filter(|(_, matched)| !**matched)
        {
            subject.push(
                ChangeKind::ImportRemoved,
                Some(bare),
                format!("import removed: `{reference}`"),
                self.place(Area::Before, *span),
                None,
            );
        }
    }

    fn signature(&self, area: Area, binding: Binding<'r>) -> Option<Signature<'r>> {
        match binding {
            Binding::Local { path, function, .. } => Some(Signature {
                place: Place::new(area, path, function.name_span),
                params: function.schema.properties(),
                param_spans: &function.params,
                required: function.required_args(),
                memory: function
                    .memory
                    .iter()
                    .filter_map(|m| Some((m.op, m.path.as_deref()?, m.span)))
                    .collect(),
                result_keys: function.result_keys.iter().map(|k| k.key.as_str()).collect(),
                output: None,
                mcp: false,
            }),
            Binding::Mcp { tool, .. } => {
                let tool = tool?;
                let file = self.report.server_file.as_deref().unwrap_or_default();
                Some(Signature {
                    place: Place::new(Area::Server, file, tool.name_span),
                    params: tool.input_schema.properties(),
                    param_spans: &tool.params,
                    required: tool.input_schema.required_names(),
                    memory: Vec::new(),
                    result_keys: tool.result_keys.iter().map(|k| k.key.as_str()).collect(),
                    output: tool.output_schema.as_ref(),
                    mcp: true,
                })
            }
        }
    }

    fn tools(&self, subject: &mut Subject<'_>, old: &BTreeMap<&'r str, Binding<'r>>) {
        let new = self.bindings(Area::After);
        for (name, new_binding) in &new {
            let Some(old_binding) = old.get(name) else { continue };
            if let (Binding::Mcp { .. }, Binding::Mcp { .. }) = (old_binding, new_binding) {
                continue;
            }
            let old_signature = self.signature(Area::Before, *old_binding);
            let new_signature = self.signature(Area::After, *new_binding);
            match (old_signature, new_signature) {
                (Some(a), Some(b)) => {
                    compare_signatures(subject, name, &a, &b);
                    self.step_arguments(subject, name, &a, &b);
                }
                (a, b) => {
                    let why = if self.report.server.is_none() {
                        "no server source was given".to_owned()
                    } else {
                        format!("the server publishes no tool `{name}`")
                    };
                    subject.push(
                        ChangeKind::ToolSchemaUnknown,
                        Some(name),
                        format!("`{name}`: arguments not compared: {why}"),
                        a.map(|s| s.place),
                        b.map(|s| s.place),
                    );
                }
            }
        }
    }

    /// `execute_tool` steps of the *after* skill that run `tool` without an argument it
    /// requires now and did not require before: the runtime calls it with what the step
    /// passes, and nothing else fills the gap.
    fn step_arguments(
        &self,
        subject: &mut Subject<'_>,
        tool: &str,
        old: &Signature<'_>,
        new: &Signature<'_>,
    ) {
        let newly_required: Vec<&str> = new
            .required
            .iter()
            .filter(|name| !old.required.contains(name))
            .map(String::as_str)
            .collect();
        for block in self.new.1.blocks() {
            for step in &block.steps {
                let StepKind::Execute { execute_tool, parameters } = &step.kind else { continue };
                if execute_tool != tool {
                    continue;
                }
                for name in newly_required.iter().filter(|n| !parameters.contains_key(**n)) {
                    subject.push(
                        ChangeKind::StepArgumentMissing,
                        Some(tool),
                        format!(
                            "step `{}` runs `{tool}` without `{name}`, which it now requires",
                            step.id
                        ),
                        Some(old.place.clone()),
                        self.place(Area::After, step.span),
                    );
                }
            }
        }
    }

    fn constraints(&self, subject: &mut Subject<'_>) {
        for kind in ["requires", "requires_confirmation", "on_success", "on_failure"] {
            let values = |skill: &'r Skill| -> Vec<(&'r str, String, Span)> {
                let mut seen = BTreeSet::new();
                skill
                    .tools
                    .iter()
                    .filter(|gate| seen.insert(gate.name.as_str()))
                    .filter_map(|gate| {
                        Some((gate.name.as_str(), constraint(gate, kind)?, gate.span))
                    })
                    .collect()
            };
            let old = values(self.old.1);
            let new = values(self.new.1);
            for (name, value, span) in &new {
                if let Some((_, was, old_span)) = old.iter().find(|(n, ..)| n == name)
                    && was != value
                {
                    subject.push(
                        ChangeKind::ConstraintChanged,
                        Some(name),
                        format!("constraint `{kind}` of {name} changed from {was} to {value}"),
                        self.place(Area::Before, *old_span),
                        self.place(Area::After, *span),
                    );
                }
            }
            let removed: Vec<_> =
                old.iter().filter(|(n, ..)| !new.iter().any(|(m, ..)| m == n)).collect();
            let added: Vec<_> =
                new.iter().filter(|(n, ..)| !old.iter().any(|(m, ..)| m == n)).collect();
            let mut added_used = vec![false; added.len()];
            for (name, value, span) in removed {
                let target = added.iter().enumerate().find(|(i, (_, v, _))| {
                    v == value && !added_used.get(*i).copied().unwrap_or(true)
                });
                match target {
                    Some((i, (to, _, to_span))) => {
                        if let Some(flag) = added_used.get_mut(i) {
                            *flag = true;
                        }
                        subject.push(
                            ChangeKind::ConstraintMoved,
                            Some(to),
                            format!("constraint `{kind}` moved from {name} to {to}"),
                            self.place(Area::Before, *span),
                            self.place(Area::After, *to_span),
                        );
                    }
                    None => subject.push(
                        ChangeKind::ConstraintRemoved,
                        Some(name),
                        format!("constraint `{kind}` removed from {name} (was {value})"),
                        self.place(Area::Before, *span),
                        None,
                    ),
                }
            }
            for ((name, value, span), _) in
                added.iter().zip(&added_used).filter(|(_, used)| !**used)
            {
                subject.push(
                    ChangeKind::ConstraintAdded,
                    Some(name),
                    format!("constraint `{kind}` added to {name}: {value}"),
                    None,
                    self.place(Area::After, *span),
                );
            }
        }
    }

    fn blocks(&self, subject: &mut Subject<'_>) {
        let old: Vec<&OrderedBlock> = self.old.1.blocks().collect();
        let new: Vec<&OrderedBlock> = self.new.1.blocks().collect();
        for block in &new {
            let at = self.place(Area::After, block.span);
            let Some(was) = old.iter().find(|b| b.block_id == block.block_id) else {
                let text = format!("block `{}` added", block.block_id);
                subject.push(ChangeKind::BlockAdded, None, text, None, at);
                continue;
            };
            self.steps(subject, was, block);
        }
        for block in old.iter().filter(|b| !new.iter().any(|n| n.block_id == b.block_id)) {
            let at = self.place(Area::Before, block.span);
            let text = format!("block `{}` removed", block.block_id);
            subject.push(ChangeKind::BlockRemoved, None, text, at, None);
        }
    }

    fn steps(&self, subject: &mut Subject<'_>, old: &OrderedBlock, new: &OrderedBlock) {
        let block = &new.block_id;
        for step in &new.steps {
            let at = self.place(Area::After, step.span);
            let Some(was) = old.steps.iter().find(|s| s.id == step.id) else {
                let text = format!("step `{}` added to block `{block}`", step.id);
                subject.push(ChangeKind::StepAdded, step_tool(step), text, None, at);
                continue;
            };
            let (
                StepKind::Execute { execute_tool: old_tool, parameters: old_params },
                StepKind::Execute { execute_tool: new_tool, parameters: new_params },
            ) = (&was.kind, &step.kind)
            else {
                continue;
            };
            let before = self.place(Area::Before, was.span);
            if old_tool != new_tool {
                subject.push(
                    ChangeKind::StepToolChanged,
                    Some(new_tool),
                    format!("step `{}` now executes `{new_tool}` (was `{old_tool}`)", step.id),
                    before.clone(),
                    at.clone(),
                );
            }
            let param_place = |area: Area, s: &Step, key: &str| {
                let span = s.parameter_spans.iter().find(|(k, _)| k == key).map_or(s.span, |p| p.1);
                self.place(area, span)
            };
            for (key, value) in new_params {
                let text = match old_params.get(key) {
                    None => format!("step `{}`: parameter `{key}` added ({value})", step.id),
                    Some(was_value) if was_value != value => format!(
                        "step `{}`: parameter `{key}` changed from {was_value} to {value}",
                        step.id
                    ),
                    Some(_) => continue,
                };
                let before = if old_params.contains_key(key) {
                    param_place(Area::Before, was, key)
                } else {
                    before.clone()
                };
                let after = param_place(Area::After, step, key);
                subject.push(
                    ChangeKind::StepParametersChanged,
                    Some(new_tool),
                    text,
                    before,
                    after,
                );
            }
            for key in old_params.keys().filter(|k| !new_params.contains_key(*k)) {
                subject.push(
                    ChangeKind::StepParametersChanged,
                    Some(new_tool),
                    format!("step `{}`: parameter `{key}` removed", step.id),
                    param_place(Area::Before, was, key),
                    at.clone(),
                );
            }
        }
        for step in old.steps.iter().filter(|s| !new.steps.iter().any(|n| n.id == s.id)) {
            subject.push(
                ChangeKind::StepRemoved,
                step_tool(step),
                format!("step `{}` removed from block `{block}`", step.id),
                self.place(Area::Before, step.span),
                None,
            );
        }
    }

    fn text(&self, subject: &mut Subject<'_>) {
        let (old, new) = (self.old.1, self.new.1);
        // YAML's chomping leaves a trailing newline or not depending on what follows the
        // key; only a difference in words is a change.
        let words = |skill: &Skill| skill.description.as_deref().map(str::trim).map(str::to_owned);
        if words(old) != words(new) {
            let at = |area| Some(Place::file_start(area, &self.file));
            subject.push(
                ChangeKind::DescriptionChanged,
                None,
                "description changed".to_owned(),
                at(Area::Before),
                at(Area::After),
            );
        }
        let old_segments: Vec<_> = old.segments().collect();
        let new_segments: Vec<_> = new.segments().collect();
        let same =
            |a: &&ProseSegment, b: &&ProseSegment| a.condition == b.condition && a.text == b.text;
        let first_difference = (0..old_segments.len().max(new_segments.len())).find(|&i| {
            match (old_segments.get(i), new_segments.get(i)) {
                (Some(a), Some(b)) => !same(a, b),
                _ => true,
            }
        });
        let Some(i) = first_difference else { return };
        let bytes = |entry: &SkillEntry| entry.skill_md.as_ref().map_or(0, |md| md.body_bytes);
        let place = |area: Area, segments: &[&ProseSegment]| {
            let span = segments
                .get(i)
                .or(segments.last())
                .map_or(Span::point(Position::START), |s| s.span);
            self.place(area, span)
        };
        subject.push(
            ChangeKind::ProseChanged,
            None,
            format!(
                "instructions changed (body {} → {} bytes)",
                bytes(self.old.0),
                bytes(self.new.0)
            ),
            place(Area::Before, &old_segments),
            place(Area::After, &new_segments),
        );
    }
}

fn step_tool(step: &Step) -> Option<&str> {
    match &step.kind {
        StepKind::Execute { execute_tool, .. } => Some(execute_tool),
        _ => None,
    }
}

fn server_tool<'r>(server: Option<&'r McpServerModule>, name: &str) -> Option<&'r McpTool> {
    server?.tools.iter().find(|tool| tool.name == name)
}

/// A gate's constraint of `kind`, described; `None` when the gate has none.
fn constraint(gate: &GatedTool, kind: &str) -> Option<String> {
    let quoted = |text: &Option<String>| text.as_ref().map(|t| format!("`{t}`"));
    match kind {
        "requires" => quoted(&gate.requires),
        "on_success" => quoted(&gate.on_success),
        "on_failure" => quoted(&gate.on_failure),
        _ => gate.requires_confirmation.as_ref().map(confirmation),
    }
}

fn confirmation(gate: &Confirmation) -> String {
    let ask = gate.utter_for_confirmation.as_deref().unwrap_or("the default question");
    let deny = gate.utter_on_user_denial.as_deref().unwrap_or("the default reply");
    format!("(asks with `{ask}`, denial `{deny}`)")
}

/// A property's JSON types for people: `string`, `string | null`, a model name, or `any`.
fn type_word(schema: &Schema) -> String {
    let types = schema.json_types();
    if !types.is_empty() {
        return types.join(" | ");
    }
    match &schema.reference {
        Some(reference) => reference.rsplit('/').next().unwrap_or(reference).to_owned(),
        None => "any".to_owned(),
    }
}

fn param_place(signature: &Signature<'_>, name: &str) -> Place {
    let span = signature.param_spans.iter().find(|p| p.name == name).map(|p| p.span);
    Place { file: signature.place.file.clone(), span: span.unwrap_or(signature.place.span) }
}

fn compare_signatures(
    subject: &mut Subject<'_>,
    tool: &str,
    old: &Signature<'_>,
    new: &Signature<'_>,
) {
    let required = |s: &Signature<'_>, name: &str| s.required.iter().any(|r| r == name);
    let word = |yes: bool| if yes { "required" } else { "optional" };
    for (name, schema) in new.params {
        let at = Some(param_place(new, name));
        let Some((_, was)) = old.params.iter().find(|(n, _)| n == name) else {
            subject.push(
                ChangeKind::ArgumentAdded,
                Some(tool),
                format!(
                    "`{tool}`: argument `{name}` added ({}, {})",
                    type_word(schema),
                    word(required(new, name))
                ),
                Some(old.place.clone()),
                at,
            );
            continue;
        };
        let before = Some(param_place(old, name));
        let (was_type, now_type) = (type_word(was), type_word(schema));
        if was_type != now_type {
            subject.push(
                ChangeKind::ArgumentTypeChanged,
                Some(tool),
                format!("`{tool}`: argument `{name}` type changed from {was_type} to {now_type}"),
                before.clone(),
                at.clone(),
            );
        }
        let (was_required, now_required) = (required(old, name), required(new, name));
        if was_required != now_required {
            subject.push(
                ChangeKind::ArgumentRequiredChanged,
                Some(tool),
                format!("`{tool}`: argument `{name}` is now {}", word(now_required)),
                before,
                at,
            );
        }
    }
    for (name, _) in old.params.iter().filter(|(n, _)| !new.params.iter().any(|(m, _)| m == n)) {
        subject.push(
            ChangeKind::ArgumentRemoved,
            Some(tool),
            format!("`{tool}`: argument `{name}` removed"),
            Some(param_place(old, name)),
            Some(new.place.clone()),
        );
    }
    memory_accesses(subject, tool, old, new);
    result_shape(subject, tool, old, new);
}

fn memory_accesses(
    subject: &mut Subject<'_>,
    tool: &str,
    old: &Signature<'_>,
    new: &Signature<'_>,
) {
    let verb = |op: MemoryOp, now: bool| match (op, now) {
        (MemoryOp::Get, true) => "now reads",
        (MemoryOp::Get, false) => "no longer reads",
        (MemoryOp::Set, true) => "now writes",
        (MemoryOp::Set, false) => "no longer writes",
    };
    let preposition = |op: MemoryOp| if op == MemoryOp::Get { "from" } else { "to" };
    let why = if new.mcp && !old.mcp { " (an MCP tool has no project memory)" } else { "" };
    let mut seen = BTreeSet::new();
    for (op, path, span) in &old.memory {
        if !seen.insert((*op == MemoryOp::Get, *path)) {
            continue;
        }
        if new.memory.iter().any(|(o, p, _)| o == op && p == path) {
            continue;
        }
        subject.push(
            ChangeKind::ToolMemoryAccessRemoved,
            Some(tool),
            format!(
                "`{tool}` {} `{path}` {} project memory{why}",
                verb(*op, false),
                preposition(*op)
            ),
            Some(Place { file: old.place.file.clone(), span: *span }),
            Some(new.place.clone()),
        );
    }
    let mut seen = BTreeSet::new();
    for (op, path, span) in &new.memory {
        if !seen.insert((*op == MemoryOp::Get, *path)) {
            continue;
        }
        if old.memory.iter().any(|(o, p, _)| o == op && p == path) {
            continue;
        }
        subject.push(
            ChangeKind::ToolMemoryAccessAdded,
            Some(tool),
            format!("`{tool}` {} `{path}` {} project memory", verb(*op, true), preposition(*op)),
            Some(old.place.clone()),
            Some(Place { file: new.place.file.clone(), span: *span }),
        );
    }
}

fn result_shape(subject: &mut Subject<'_>, tool: &str, old: &Signature<'_>, new: &Signature<'_>) {
    let title = |schema: &Schema| schema.title.clone().unwrap_or_else(|| "untitled".to_owned());
    let text = match (old.output, new.output) {
        (None, Some(schema)) => Some(format!(
            "`{tool}`: result now has an output schema (`{}`): the agent gets structured content",
            title(schema)
        )),
        (Some(_), None) if new.mcp => Some(format!(
            "`{tool}`: result no longer has an output schema: the agent gets text content"
        )),
        (Some(_), None) => Some(format!("`{tool}`: result no longer has an output schema")),
        (Some(a), Some(b)) if a != b => {
            Some(format!("`{tool}`: output schema changed (`{}` → `{}`)", title(a), title(b)))
        }
        _ => None,
    };
    let places = || (Some(old.place.clone()), Some(new.place.clone()));
    if let Some(text) = text {
        let (before, after) = places();
        subject.push(ChangeKind::ResultShapeChanged, Some(tool), text, before, after);
    }
    let unique = |keys: &[&'_ str]| -> Vec<String> {
        let mut seen = BTreeSet::new();
        keys.iter().filter(|k| seen.insert(**k)).map(|k| (*k).to_owned()).collect()
    };
    let (old_keys, new_keys) = (unique(&old.result_keys), unique(&new.result_keys));
    // A body whose results the scanner did not read says nothing about its keys.
    if old_keys.is_empty() || new_keys.is_empty() {
        return;
    }
    let gone: Vec<&str> =
        old_keys.iter().filter(|k| !new_keys.contains(k)).map(String::as_str).collect();
    let came: Vec<&str> =
        new_keys.iter().filter(|k| !old_keys.contains(k)).map(String::as_str).collect();
    if !gone.is_empty() {
        let (before, after) = places();
        let text = format!("`{tool}`: result keys no longer returned: {}", names(gone));
        subject.push(ChangeKind::ResultShapeChanged, Some(tool), text, before, after);
    }
    if !came.is_empty() {
        let (before, after) = places();
        let text = format!("`{tool}`: result keys now returned: {}", names(came));
        subject.push(ChangeKind::ResultShapeChanged, Some(tool), text, before, after);
    }
}
