//! A whole Rasa project read the way Rasa 3.21 loads it: the skill catalog, project and
//! skill memory, responses, `integrations.yml`, and the Python tool modules, followed by
//! the model-load rules that need more than one file (`parse_mcp_imports`, reference §3.3)
//! and the train findings that compare files (§3.2, §6.5, §2.6).
//!
//! Discovery follows `_load_skills_from_dir`: every directory under `skills/`, sorted,
//! except names starting with `_`; a directory without `skill.md` is a load error; a
//! skill's own `memory.yml` that fails makes the whole skill fail. Shared tools are the
//! `@tool` functions in `tools/*.py`; skill-local ones those in `skills/<id>/tools.py`
//! and `skills/<id>/tools/*.py`.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Serialize;

use crate::diagnostic::{Diagnostic, Phase, Position, Severity, Span};
use crate::python::{ToolFunction, ToolModule, scan_tool_module};
use crate::rasa::cache::ReadCache;
use crate::rasa::findings;
use crate::rasa::imports::{FRAMEWORK_TOOL_NAMES, ImportRef, parse_import};
use crate::rasa::integrations::{Integrations, read_integrations};
use crate::rasa::memory::{ProjectMemory, SkillMemory, read_project_memory, read_skill_memory};
use crate::rasa::responses::{Responses, read_responses};
use crate::rasa::skill::{Skill, SkillFile, StepKind, compile_skill};
use crate::workspace::Project;

/// Largest file of any kind read from a project; larger ones are refused unread.
pub const MAX_FILE_BYTES: usize = 1024 * 1024;
/// Most files one project may hold; the rest are refused unread.
pub const MAX_PROJECT_FILES: usize = 2_000;

/// Code for a model-load error of `parse_mcp_imports` (Rasa raises a bare `ValueError`).
pub const CODE_MCP_IMPORTS: &str = "swaplab.load.mcp_imports";
/// Code for a skill directory Rasa cannot load.
pub const CODE_SKILL_LOAD: &str = "skill.catalog.load_failed";

/// One directory under `skills/`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SkillEntry {
    /// The directory name, which is the skill id.
    pub dir: String,
    /// The compiled or rejected `skill.md` (absent when the file is missing).
    pub skill_md: Option<SkillFile>,
    /// The skill's `memory.yml`, when present.
    pub memory: Option<SkillMemory>,
    /// The skill's `responses.yml`, when present.
    pub responses: Option<Responses>,
    /// Skill-local tool modules (`tools.py`, `tools/*.py`).
    pub tools: Vec<ToolFile>,
    /// Why the catalog does not load this skill, in Rasa's words.
    pub load_error: Option<String>,
}

impl SkillEntry {
    /// The compiled skill, when the catalog loads it.
    pub fn loaded(&self) -> Option<&Skill> {
        if self.load_error.is_some() {
            return None;
        }
        self.skill_md.as_ref()?.compiled.as_ref()
    }
}

/// A scanned Python tool module.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolFile {
    /// Its path in the project.
    pub path: String,
    /// What the scanner found (shared: a memo keeps it between reruns).
    pub module: Arc<ToolModule>,
}

/// One `mcp/<server>:<tool>` import of a loaded skill.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct McpImport {
    /// The importing skill.
    pub skill: String,
    /// The entry, verbatim.
    pub reference: String,
    /// The server name.
    pub server: String,
    /// The tool (and bare) name.
    pub tool: String,
    /// Where the entry was written.
    #[serde(skip)]
    pub span: Span,
}

/// Everything Swap Lab knows about one project.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProjectReport {
    /// Skill directories, sorted. Shared: an unchanged directory's entry is reused
    /// between reruns (see [`crate::memo`]).
    pub skills: Vec<Arc<SkillEntry>>,
    /// `memory.yml`.
    pub project_memory: ProjectMemory,
    /// `integrations.yml`.
    pub integrations: Integrations,
    /// `responses.yml` at the root, when present.
    pub responses: Option<Responses>,
    /// Shared tool modules (`tools/*.py`).
    pub shared_tools: Vec<ToolFile>,
    /// The MCP imports of loaded skills, skill by skill in sorted order.
    pub mcp_imports: Vec<McpImport>,
    /// Every finding from every file, and the cross-file ones.
    pub diagnostics: Vec<Diagnostic>,
    /// The names of every `@tool` in `shared_tools`, for lookups per skill (scanning the
    /// shared modules for each of every skill's names was quadratic in skills).
    #[serde(skip)]
    shared_tool_names: BTreeSet<String>,
    /// Every `@tool` of the project by name: (skill index or `None` for a shared module,
    /// module index, function index), the first in [`ProjectReport::local_tool`]'s order.
    #[serde(skip)]
    local_tools_by_name: BTreeMap<String, (Option<usize>, usize, usize)>,
    /// [`ProjectReport::declared_shared_tools`] of every loaded skill, by id: the agent's
    /// start, the findings and the semantic summary each ask for every skill's.
    #[serde(skip)]
    declared_shared: BTreeMap<String, BTreeSet<String>>,
}

impl ProjectReport {
    /// The loaded skill `id`.
    pub fn skill(&self, id: &str) -> Option<&Skill> {
        self.entry(id)?.loaded()
    }

    /// The entry for skill directory `id`. A binary search, as `skills` is sorted (every
    /// skill looks others up, so a scan would be quadratic in skills); a scan only when
    /// the search misses, for a report whose skills were put in by hand.
    pub fn entry(&self, id: &str) -> Option<&SkillEntry> {
        self.shared_entry(id).map(|entry| &**entry)
    }

    /// [`ProjectReport::entry`] as shared, for a result that must know it is the very
    /// entry an earlier run read (the memo hands an unchanged directory's back).
    pub fn shared_entry(&self, id: &str) -> Option<&Arc<SkillEntry>> {
        match self.skills.binary_search_by(|entry| entry.dir.as_str().cmp(id)) {
            Ok(at) => self.skills.get(at),
            Err(_) => self.skills.iter().find(|entry| entry.dir == id),
        }
    }

    /// Loaded skills, sorted by id.
    pub fn loaded_skills(&self) -> impl Iterator<Item = &Skill> {
        self.skills.iter().filter_map(|entry| entry.loaded())
    }

    /// Names of the `@tool` functions in `tools/*.py`.
    pub fn shared_tool_names(&self) -> BTreeSet<&str> {
        crate::order::set_of(
            self.shared_tools
                .iter()
                .flat_map(|file| file.module.tools.iter().map(|t| t.name.as_str())),
        )
    }

    /// Names of the skill-local `@tool` functions of `skill_id`.
    pub fn local_tool_names(&self, skill_id: &str) -> BTreeSet<&str> {
        self.entry(skill_id)
            .map(|entry| {
                crate::order::set_of(
                    entry
                        .tools
                        .iter()
                        .flat_map(|file| file.module.tools.iter().map(|t| t.name.as_str())),
                )
            })
            .unwrap_or_default()
    }

    /// Shared tools a skill declares (`SkillCatalog.declared_tool_names`): every gate name
    /// minus bare names that come only from MCP imports, that exist in `tools/`.
    pub fn declared_shared_tools(&self, skill: &Skill) -> Cow<'_, BTreeSet<String>> {
        match self.declared_shared.get(&skill.id) {
            // This report's own skill (one from elsewhere is worked out afresh).
            Some(declared) if self.skill(&skill.id).is_some_and(|own| std::ptr::eq(own, skill)) => {
                Cow::Borrowed(declared)
            }
            _ => Cow::Owned(self.declared_shared_of(skill)),
        }
    }

    fn declared_shared_of(&self, skill: &Skill) -> BTreeSet<String> {
        // Each declared name is looked for in the shared modules: a skill declares a few,
        // and building the set of every shared tool per skill is quadratic in skills.
        crate::order::set_of(
            declared_names(skill).into_iter().filter(|name| self.shared_tool_names.contains(name)),
        )
    }

    /// The first `@tool` named `name`, skill modules (by skill, then module) before the
    /// shared ones, with its module's path.
    pub fn local_tool(&self, name: &str) -> Option<(&str, &ToolFunction)> {
        let &(skill, file, function) = self.local_tools_by_name.get(name)?;
        let file = match skill {
            Some(skill) => &self.skills[skill].tools[file],
            None => &self.shared_tools[file],
        };
        Some((file.path.as_str(), &file.module.tools[function]))
    }

    /// The MCP imports of the skill `id`, in written order.
    pub fn imports_of(&self, id: &str) -> &[McpImport] {
        // `mcp_imports` runs skill by skill in sorted order: one range per skill.
        let start = self.mcp_imports.partition_point(|i| i.skill.as_str() < id);
        let end = start + self.mcp_imports[start..].partition_point(|i| i.skill == id);
        &self.mcp_imports[start..end]
    }

    /// The tools a skill binds locally: its own, then the shared ones it declares.
    pub fn locally_bound(&self, skill: &Skill) -> BTreeSet<String> {
        let mut bound: BTreeSet<String> =
            crate::order::set_of(self.local_tool_names(&skill.id).into_iter().map(str::to_owned));
        bound.extend(self.declared_shared_tools(skill).iter().cloned());
        bound
    }

    /// Whether any finding is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Gate names that are not only MCP import bare names.
fn declared_names(skill: &Skill) -> BTreeSet<String> {
    let mcp_only: BTreeSet<String> = crate::order::set_of(
        skill
            .import_tool_names
            .iter()
            .filter_map(|reference| match parse_import(reference) {
                Ok(ImportRef::Mcp { tool, .. }) => Some(tool),
                _ => None,
            })
            .filter(|tool| {
                !skill.tool_constraint_names.contains(tool)
                    && !skill
                        .blocks()
                        .any(|block| block.tools.iter().any(|gate| &gate.name == tool))
                    && !skill.import_tool_names.contains(tool)
            }),
    );
    crate::order::set_of(
        skill.tools.iter().map(|gate| gate.name.clone()).filter(|name| !mcp_only.contains(name)),
    )
}

/// Reads a project. Never fails: problems are diagnostics.
pub fn read_project(project: &Project) -> ProjectReport {
    Arc::unwrap_or_clone(read_project_with(project, &mut ReadCache::default()))
}

/// [`read_project`], reusing what `memo` kept from the last run: the whole report when
/// no file of the project changed (a reader's edit on one side leaves the other as it
/// was), else each skill directory and tool module whose files did not change.
pub fn read_project_with(project: &Project, memo: &mut ReadCache) -> Arc<ProjectReport> {
    let mut diagnostics = Vec::new();
    let total = project.len();
    // Path order, so a folder's files are one range of the map.
    let mut files: BTreeMap<&str, &str> = BTreeMap::new();
    for (index, (path, text)) in project.files().enumerate() {
        if index == MAX_PROJECT_FILES {
            diagnostics.push(Diagnostic::error(
                path,
                Span::point(Position::START),
                Phase::Read,
                "swaplab.limits.too_many_files",
                format!(
                    "The project has {}; Swap Lab reads the first {MAX_PROJECT_FILES} in path \
                     order and skipped the other {}, from this one on.",
                    crate::words::count(total, "file", "files"),
                    total - MAX_PROJECT_FILES
                ),
            ));
            break;
        }
        if text.len() > MAX_FILE_BYTES {
            diagnostics.push(Diagnostic::error(
                path,
                Span::point(Position::START),
                Phase::Read,
                "swaplab.limits.file_too_large",
                format!(
                    "{path} is {} bytes; Swap Lab reads project files up to {MAX_FILE_BYTES} \
                     bytes and skipped it.",
                    text.len()
                ),
            ));
            continue;
        }
        files.insert(path, text);
    }
    // The parts come from the memo first, hit or miss, so that a report reused whole
    // still leaves them kept for the run in which one of its files changes.
    let shared_tools = tool_files(&files, "tools/", &mut |path, text| {
        memo.tool_module(path, text, || scan_tool_module(path, text))
    });
    let dirs: BTreeSet<&str> = crate::order::set_of(
        files
            .keys()
            .filter_map(|path| path.strip_prefix("skills/")?.split_once('/').map(|(dir, _)| dir))
            .filter(|dir| !dir.starts_with('_') && !dir.is_empty()),
    );
    let entries: Vec<(&str, Arc<SkillEntry>)> = dirs
        .into_iter()
        .map(|dir| {
            let prefix = format!("skills/{dir}/");
            let inputs: Vec<(&str, &str)> = files
                .range(prefix.as_str()..)
                .take_while(|(path, _)| path.starts_with(&prefix))
                .map(|(path, text)| (*path, *text))
                .collect();
            (dir, memo.skill_dir(&inputs, || read_skill_dir(dir, &files)))
        })
        .collect();
    if !diagnostics.is_empty() {
        // Over a limit: the findings depend on the files left out, which no key holds.
        return Arc::new(assemble(&files, diagnostics, shared_tools, entries));
    }
    let inputs: Vec<(&str, &str)> = files.iter().map(|(path, text)| (*path, *text)).collect();
    memo.project(&inputs, || assemble(&files, diagnostics, shared_tools, entries))
}

/// The report from the files as read (within the limits, with the limit findings so far)
/// and the parts read from them: the root files, then every cross-file index and check.
fn assemble(
    files: &BTreeMap<&str, &str>,
    mut diagnostics: Vec<Diagnostic>,
    shared_tools: Vec<ToolFile>,
    entries: Vec<(&str, Arc<SkillEntry>)>,
) -> ProjectReport {
    let get = |path: &str| files.get(path).copied();

    let project_memory = read_project_memory("memory.yml", get("memory.yml"));
    diagnostics.extend(project_memory.diagnostics.iter().cloned());
    diagnostics.extend(project_memory.train_findings());
    let integrations = read_integrations("integrations.yml", get("integrations.yml"));
    diagnostics.extend(integrations.diagnostics.iter().cloned());
    let responses = get("responses.yml").map(|text| read_responses("responses.yml", text));
    if let Some(responses) = &responses {
        diagnostics.extend(responses.diagnostics.iter().cloned());
    }

    for file in &shared_tools {
        diagnostics.extend(file.module.diagnostics.iter().cloned());
    }

    let mut skills = Vec::new();
    for (dir, entry) in entries {
        for file in &entry.tools {
            diagnostics.extend(file.module.diagnostics.iter().cloned());
        }
        if let Some(skill_md) = &entry.skill_md {
            diagnostics.extend(skill_md.diagnostics.iter().cloned());
        }
        if let Some(memory) = &entry.memory {
            diagnostics.extend(memory.diagnostics.iter().cloned());
            let collect_owned = entry.loaded().map(collect_owned).unwrap_or_default();
            let owned: Vec<&str> = collect_owned.iter().map(String::as_str).collect();
            diagnostics.extend(memory.train_findings(&owned));
        }
        if let Some(responses) = &entry.responses {
            diagnostics.extend(responses.diagnostics.iter().cloned());
        }
        if let (Some(message), None) =
            (&entry.load_error, entry.skill_md.as_ref().and_then(|s| s.error.as_ref()))
            && entry.memory.as_ref().is_none_or(|memory| memory.ok)
        {
            diagnostics.push(Diagnostic::error(
                &format!("skills/{dir}"),
                Span::point(Position::START),
                Phase::Compile,
                CODE_SKILL_LOAD,
                message.clone(),
            ));
        }
        skills.push(entry);
    }

    let shared_tool_names = crate::order::set_of(
        shared_tools.iter().flat_map(|file| file.module.tools.iter().map(|tool| tool.name.clone())),
    );
    let mut local_tools_by_name = BTreeMap::new();
    let skill_modules = skills.iter().enumerate().flat_map(|(s, entry)| {
        entry.tools.iter().enumerate().map(move |(f, file)| (Some(s), f, file))
    });
    let shared_modules = shared_tools.iter().enumerate().map(|(f, file)| (None, f, file));
    for (skill, f, file) in skill_modules.chain(shared_modules) {
        for (n, function) in file.module.tools.iter().enumerate() {
            local_tools_by_name.entry(function.name.clone()).or_insert((skill, f, n));
        }
    }
    let mut report = ProjectReport {
        shared_tool_names,
        local_tools_by_name,
        skills,
        project_memory,
        integrations,
        responses,
        shared_tools,
        mcp_imports: Vec::new(),
        diagnostics,
        declared_shared: BTreeMap::new(),
    };
    report.declared_shared = crate::order::map_of(
        report.loaded_skills().map(|skill| (skill.id.clone(), report.declared_shared_of(skill))),
    );
    let (imports, findings) = mcp_imports(&report);
    debug_assert!(imports.is_sorted_by(|a, b| a.skill <= b.skill), "imports_of needs this");
    report.mcp_imports = imports;
    report.diagnostics.extend(findings);
    let findings = tool_name_findings(&report);
    report.diagnostics.extend(findings);
    let findings = findings::train_findings(&report);
    report.diagnostics.extend(findings);
    // Train findings stop `rasa train`, not the files from loading: Swap Lab shows them one
    // step below compile and load errors.
    for diagnostic in &mut report.diagnostics {
        if diagnostic.phase == Phase::Train && diagnostic.severity == Severity::Error {
            diagnostic.severity = Severity::Warning;
        }
    }
    // File by file, then by position: the order a reader scans them in.
    crate::order::sort_by(&mut report.diagnostics, |a, b| {
        (&a.file, a.span.start).cmp(&(&b.file, b.span.start))
    });
    report
}

/// The `*.py` files directly in `folder` (a prefix ending in `/`), scanned as tool modules
/// by `scan`.
fn tool_files(
    files: &BTreeMap<&str, &str>,
    folder: &str,
    scan: &mut dyn FnMut(&str, &str) -> Arc<ToolModule>,
) -> Vec<ToolFile> {
    files
        .range(folder..)
        .take_while(|(path, _)| path.starts_with(folder))
        .filter(|(path, _)| {
            path.strip_prefix(folder)
                .is_some_and(|rest| !rest.contains('/') && rest.ends_with(".py"))
        })
        .map(|(path, text)| ToolFile { path: (*path).to_owned(), module: scan(path, text) })
        .collect()
}

fn read_skill_dir(dir: &str, files: &BTreeMap<&str, &str>) -> SkillEntry {
    let get = |path: &str| files.get(path).copied();
    let skill_path = format!("skills/{dir}/skill.md");
    let mut entry = SkillEntry {
        dir: dir.to_owned(),
        skill_md: None,
        memory: None,
        responses: None,
        tools: Vec::new(),
        load_error: None,
    };
    match get(&skill_path) {
        Some(text) => {
            let compiled = compile_skill(&skill_path, dir, text);
            entry.load_error = compiled.error.as_ref().map(|error| error.message.clone());
            entry.skill_md = Some(compiled);
        }
        None => {
            entry.load_error =
                Some(format!("Skill directory 'skills/{dir}' must contain skill.md."));
        }
    }
    let memory_path = format!("skills/{dir}/memory.yml");
    if let Some(text) = get(&memory_path) {
        let memory = read_skill_memory(&memory_path, dir, text);
        if !memory.ok && entry.load_error.is_none() {
            let first = memory.diagnostics.iter().find(|d| d.is_error()).map(|d| d.message.clone());
            entry.load_error = Some(first.unwrap_or_else(|| format!("{memory_path} is invalid.")));
        }
        entry.memory = Some(memory);
    }
    let responses_path = format!("skills/{dir}/responses.yml");
    entry.responses = get(&responses_path).map(|text| read_responses(&responses_path, text));
    let single = format!("skills/{dir}/tools.py");
    if let Some(text) = get(&single) {
        entry
            .tools
            .push(ToolFile { module: Arc::new(scan_tool_module(&single, text)), path: single });
    }
    entry.tools.extend(tool_files(files, &format!("skills/{dir}/tools/"), &mut |path, text| {
        Arc::new(scan_tool_module(path, text))
    }));
    entry
}

/// Memory entries a skill's collect steps own.
fn collect_owned(skill: &Skill) -> Vec<String> {
    skill
        .blocks()
        .flat_map(|block| block.steps.iter())
        .filter_map(|step| match &step.kind {
            StepKind::Collect { collect, .. } => Some(collect.clone()),
            _ => None,
        })
        .collect()
}

/// `load_tools_for_skill_catalog` (§3.2): a local or shared `@tool` named like a framework
/// tool stops the load; a shared tool named `set_*` is dropped with a warning. The
/// reference states both rules without quoting messages; the wording is ours.
fn tool_name_findings(report: &ProjectReport) -> Vec<Diagnostic> {
    let mut findings = Vec::new();
    let modules =
        report.shared_tools.iter().map(|file| (file, true)).chain(
            report.skills.iter().flat_map(|entry| entry.tools.iter().map(|file| (file, false))),
        );
    for (file, shared) in modules {
        for tool in &file.module.tools {
            if FRAMEWORK_TOOL_NAMES.contains(&tool.name.as_str()) {
                findings.push(Diagnostic::error(
                    &file.path,
                    tool.name_span,
                    Phase::Load,
                    "swaplab.load.framework_tool_name",
                    format!(
                        "Tool '{}' reuses a reserved framework tool name; Rasa refuses to load \
                         the model. Rename the function.",
                        tool.name
                    ),
                ));
            } else if shared && tool.name.starts_with("set_") {
                findings.push(Diagnostic::warning(
                    &file.path,
                    tool.name_span,
                    Phase::Load,
                    "swaplab.load.shared_set_tool_dropped",
                    format!(
                        "Shared tool '{}' is named set_*; Rasa drops shared tools with that prefix \
                         (it keeps the name for memory setters), so no skill can use it.",
                        tool.name
                    ),
                ));
            }
        }
    }
    findings
}

/// `parse_mcp_imports` (model load) and its train mirror for unconfigured servers.
fn mcp_imports(report: &ProjectReport) -> (Vec<McpImport>, Vec<Diagnostic>) {
    let mut imports = Vec::new();
    let mut findings = Vec::new();
    for skill in report.loaded_skills() {
        let file = format!("skills/{}/skill.md", skill.id);
        let bound = report.locally_bound(skill);
        let mut seen: BTreeSet<String> = BTreeSet::new();
        for (reference, span) in skill.import_tool_names.iter().zip(&skill.import_spans) {
            let Ok(ImportRef::Mcp { server, tool }) = parse_import(reference) else { continue };
            let load_error = |message: String| {
                Diagnostic::error(&file, *span, Phase::Load, CODE_MCP_IMPORTS, message)
            };
            if !seen.insert(tool.clone()) {
                findings.push(load_error(format!(
                    "Skill '{}' imports more than one MCP tool named '{tool}'.",
                    skill.id
                )));
            } else if FRAMEWORK_TOOL_NAMES.contains(&tool.as_str()) {
                findings.push(load_error(format!(
                    "Skill '{}' MCP import '{reference}' reuses reserved framework tool name '{tool}'.",
                    skill.id
                )));
            } else if bound.contains(&tool) {
                findings.push(load_error(format!(
                    "Skill '{}' MCP import '{reference}' collides with the local/shared tool '{tool}'.",
                    skill.id
                )));
            }
            if report.integrations.server(&server).is_none() {
                findings.push(Diagnostic::error(
                    &file,
                    *span,
                    Phase::Train,
                    "mantle.validation.tools.mcp_server_not_configured",
                    format!(
                        "Skill '{}' imports MCP tool '{reference}', but server '{server}' is not configured under mcp_servers in integrations.yml.",
                        skill.id
                    ),
                ));
            }
            imports.push(McpImport {
                skill: skill.id.clone(),
                reference: reference.clone(),
                server,
                tool,
                span: *span,
            });
        }
    }
    // MCPRuntime.prepare: each referenced server, in sorted order, must be configured.
    let servers: BTreeSet<&str> =
        crate::order::set_of(imports.iter().map(|import| import.server.as_str()));
    for server in servers {
        if report.integrations.server(server).is_none()
            && let Some(first) = imports.iter().find(|import| import.server == server)
        {
            findings.push(Diagnostic::error(
                &format!("skills/{}/skill.md", first.skill),
                first.span,
                Phase::Load,
                "swaplab.load.mcp_server_missing",
                format!("MCP server '{server}' is imported by a skill but is missing from integrations.yml."),
            ));
        }
    }
    (imports, findings)
}
