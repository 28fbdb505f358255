//! From a project folder laid out like the tutorial to a [`Workspace`]: which files are
//! *before*, which are *after*, and which the swap sets aside.
//!
//! The tutorial keeps one Rasa project and puts the files its MCP swap replaces under
//! `mcp_variant/`, with the server at `scripts/mcp_crm_server.py`. The rule:
//!
//! 1. *before* is the project root, without `mcp_variant/`.
//! 2. *after* is *before* with every `mcp_variant/<path>` written over `<path>`.
//! 3. Then, as the tutorial's swap does, *after* loses each local or shared tool module
//!    whose `@tool` functions are **all** imported over MCP by the *after* skills that
//!    would bind them (a skill-local module: by its own skill; a shared module in
//!    `tools/`: by any skill). Left in place, Rasa would refuse to load the model with
//!    `Skill '…' MCP import '…' collides with the local/shared tool '…'.` A module that
//!    still defines a tool nobody imports over MCP stays, and the reader is told.
//! 4. The server is `scripts/mcp_crm_server.py`, with the project's other Python
//!    modules outside `skills/` and `tools/` (the client it imports). The CRM area is what the root holds of
//!    it, at the same paths: the seed `crm.yml` and the conversation scripts
//!    `conversations/*.yml` (or `.yaml`, subfolders included). Like every root file they
//!    also stay in *before* and *after*, where Rasa never reads them. Without a seed the
//!    shells fall back to the built-in example's and say so; they never lend its scripts.
//!
//! Pure: the shells read the folder into a [`Project`] and print the [`SetAside`] list.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::python::scan_tool_module;
use crate::rasa::imports::{ImportRef, parse_import};
use crate::rasa::skill::compile_skill;
use crate::workspace::{Project, Workspace};

/// The folder holding the files the swap replaces.
pub const VARIANT_DIR: &str = "mcp_variant/";
/// Where the tutorial keeps its MCP server.
pub const SERVER_PATH: &str = "scripts/mcp_crm_server.py";
/// Where a CRM seed may sit at the root.
pub const CRM_SEED_PATH: &str = "crm.yml";
/// Where conversation scripts may sit at the root: the CRM area's own folder for them.
pub const CONVERSATIONS_PATH: &str = crate::sim::CONVERSATIONS_DIR;

/// Whether `path`, relative to the root, is a conversation script of the CRM area.
pub fn is_conversation(path: &str) -> bool {
    path.starts_with(CONVERSATIONS_PATH) && (path.ends_with(".yml") || path.ends_with(".yaml"))
}

/// A file the swap took out of *after*.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SetAside {
    /// Its path in the project.
    pub path: String,
    /// The `@tool` functions it defined.
    pub tools: Vec<String>,
    /// Which skills import those names over MCP now.
    pub imported_by: Vec<String>,
}

/// A module left in *after* that defines a name some skill now imports over MCP.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KeptModule {
    /// Its path.
    pub path: String,
    /// Tools it defines that are imported over MCP.
    pub imported: Vec<String>,
    /// Tools it defines that nothing imports over MCP (why it stays).
    pub still_local: Vec<String>,
}

/// The workspace and what the rule did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Swap {
    /// The four areas.
    #[serde(skip)]
    pub workspace: Workspace,
    /// Paths `mcp_variant/` replaced or added in *after*.
    pub replaced: Vec<String>,
    /// Tool modules removed from *after*.
    pub set_aside: Vec<SetAside>,
    /// Tool modules kept although some of their tools moved to MCP.
    pub kept: Vec<KeptModule>,
}

impl Swap {
    /// A workspace already split into its areas: the rule had nothing to do.
    pub fn unchanged(workspace: Workspace) -> Swap {
        Swap { workspace, replaced: Vec::new(), set_aside: Vec::new(), kept: Vec::new() }
    }
}

/// Applies the tutorial-layout rule to a project root. `Err` explains what is missing.
pub fn tutorial_layout(root: &Project) -> Result<Swap, String> {
    let variant: Vec<(&str, &str)> = root
        .files()
        .filter_map(|(path, text)| Some((path.strip_prefix(VARIANT_DIR)?, text)))
        .collect();
    if variant.is_empty() {
        return Err(format!(
            "no {VARIANT_DIR} folder: the tutorial layout keeps the files the swap replaces there \
             (or give --before DIR --after DIR --server FILE)"
        ));
    }
    let before = Project::from_files(
        root.files()
            .filter(|(path, _)| !path.starts_with(VARIANT_DIR))
            .map(|(p, t)| (p.to_owned(), t.to_owned())),
    );
    let mut after_files: BTreeMap<String, String> =
        crate::order::map_of(before.files().map(|(p, t)| (p.to_owned(), t.to_owned())));
    let mut replaced = Vec::new();
    for (path, text) in variant {
        after_files.insert(path.to_owned(), text.to_owned());
        replaced.push(path.to_owned());
    }
    let (after, set_aside, kept) = without_imported_tools(&Project::from_files(after_files));
    // The server's process imports the project's own modules (its HTTP client under
    // `lib/`, say): they come with it. Rasa's tool modules stay with the agent.
    let mut server = Project::default();
    if let Some(text) = before.file(SERVER_PATH) {
        let modules = before.files().filter(|(path, _)| {
            path.ends_with(".py")
                && *path != SERVER_PATH
                && !path.starts_with("skills/")
                && !path.starts_with("tools/")
        });
        server = Project::from_files(std::iter::once((SERVER_PATH, text)).chain(modules));
    }
    let seed = before.file(CRM_SEED_PATH).map(|text| (CRM_SEED_PATH, text));
    let scripts = before.files().filter(|(path, _)| is_conversation(path));
    let crm = Project::from_files(seed.into_iter().chain(scripts));
    Ok(Swap { workspace: Workspace { before, after, server, crm }, replaced, set_aside, kept })
}

/// Step 3 of the rule on its own: *after* without the tool modules its MCP imports replace.
pub fn without_imported_tools(after: &Project) -> (Project, Vec<SetAside>, Vec<KeptModule>) {
    // skill id -> bare names it imports over MCP
    let mut imported: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, text) in after.files() {
        let Some(dir) =
            path.strip_prefix("skills/").and_then(|rest| rest.strip_suffix("/skill.md"))
        else {
            continue;
        };
        if dir.contains('/') {
            continue;
        }
        let Some(skill) = compile_skill(path, dir, text).compiled else { continue };
        let names =
            skill.import_tool_names.iter().filter_map(|reference| match parse_import(reference) {
                Ok(ImportRef::Mcp { tool, .. }) => Some(tool),
                _ => None,
            });
        imported.entry(dir.to_owned()).or_default().extend(names);
    }
    let mut set_aside = Vec::new();
    let mut kept = Vec::new();
    let mut keep: BTreeMap<String, String> = BTreeMap::new();
    for (path, text) in after.files() {
        let Some(owners) = tool_module_owners(path, &imported) else {
            keep.insert(path.to_owned(), text.to_owned());
            continue;
        };
        let tools: Vec<String> =
            scan_tool_module(path, text).tools.into_iter().map(|tool| tool.name).collect();
        let importers = |tool: &str| -> Vec<String> {
            owners
                .iter()
                .filter(|(_, names)| names.contains(tool))
                .map(|(skill, _)| (*skill).clone())
                .collect()
        };
        let (moved, still_local): (Vec<String>, Vec<String>) =
            tools.iter().cloned().partition(|tool| !importers(tool).is_empty());
        if !tools.is_empty() && still_local.is_empty() {
            let mut imported_by: Vec<String> =
                moved.iter().flat_map(|tool| importers(tool)).collect();
            crate::order::sort(&mut imported_by);
            imported_by.dedup();
            set_aside.push(SetAside { path: path.to_owned(), tools, imported_by });
            continue;
        }
        if !moved.is_empty() {
            kept.push(KeptModule { path: path.to_owned(), imported: moved, still_local });
        }
        keep.insert(path.to_owned(), text.to_owned());
    }
    (Project::from_files(keep), set_aside, kept)
}

/// For a tool module, the skills whose MCP imports could replace it: its own skill for a
/// skill-local module, every skill for a shared one. `None` for other files.
fn tool_module_owners<'a>(
    path: &str,
    imported: &'a BTreeMap<String, BTreeSet<String>>,
) -> Option<Vec<(&'a String, &'a BTreeSet<String>)>> {
    if !path.ends_with(".py") {
        return None;
    }
    if let Some(rest) = path.strip_prefix("tools/") {
        return (!rest.contains('/')).then(|| imported.iter().collect());
    }
    let rest = path.strip_prefix("skills/")?;
    let (dir, file) = rest.split_once('/')?;
    let local =
        file == "tools.py" || file.strip_prefix("tools/").is_some_and(|name| !name.contains('/'));
    if !local {
        return None;
    }
    Some(imported.iter().filter(|(skill, _)| skill.as_str() == dir).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A root with one file the swap replaces, and what else the test adds.
    fn root(extra: &[(&str, &str)]) -> Project {
        let mut files = vec![("agent.yml", "a\n"), ("mcp_variant/agent.yml", "b\n")];
        files.extend_from_slice(extra);
        Project::from_files(files)
    }

    fn crm_paths(swap: &Swap) -> Vec<&str> {
        swap.workspace.crm.files().map(|(path, _)| path).collect()
    }

    #[test]
    fn the_crm_area_takes_the_seed_and_the_scripts_at_their_own_paths() {
        let swap = tutorial_layout(&root(&[
            ("crm.yml", "contacts: []\n"),
            ("conversations/mine.yml", "caller: a@example.com\n"),
            ("conversations/team/theirs.yaml", "caller: b@example.com\n"),
            ("conversations/README.md", "not a script\n"),
            ("data/conversations/other.yml", "not here\n"),
        ]))
        .expect("the layout");
        assert_eq!(
            crm_paths(&swap),
            ["conversations/mine.yml", "conversations/team/theirs.yaml", "crm.yml"]
        );
        assert_eq!(
            swap.workspace.crm.file("conversations/mine.yml"),
            Some("caller: a@example.com\n")
        );
        // They stay in the projects, as crm.yml always did.
        assert!(swap.workspace.before.file("conversations/mine.yml").is_some());
        assert!(swap.workspace.after.file("conversations/mine.yml").is_some());
    }

    #[test]
    fn scripts_without_a_seed_fill_the_crm_area_alone() {
        let swap = tutorial_layout(&root(&[("conversations/mine.yml", "caller: a@example.com\n")]))
            .expect("the layout");
        assert_eq!(crm_paths(&swap), ["conversations/mine.yml"]);
        let swap = tutorial_layout(&root(&[])).expect("the layout");
        assert!(swap.workspace.crm.is_empty(), "nothing of the CRM: an empty area");
    }

    #[test]
    fn only_yaml_files_under_conversations_are_scripts() {
        assert!(is_conversation("conversations/a.yml"));
        assert!(is_conversation("conversations/team/a.yaml"));
        assert!(!is_conversation("conversations/a.md"));
        assert!(!is_conversation("crm/conversations/a.yml"));
        assert!(!is_conversation("conversations.yml"));
    }
}
