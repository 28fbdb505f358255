//! Reading a project folder from disk into a `swaplab_core::Project`.
//!
//! Takes every text file under the folder, skipping what is never part of a Rasa
//! project (hidden folders and files, caches, build output) and saying what it skipped;
//! `.env` and `.env.example` are kept, as the project's own set-up reads them. The caps
//! are the web app's import caps, checked before a file is read: 1 MiB per file, 2,000
//! files and 16 MiB of text per folder (`swaplab_core::archive`). Also reads
//! a folder of conversation scripts (`--conversations DIR`) into the CRM area, and lends
//! the built-in tutorial's CRM seed to a workspace without one, describing what it lent
//! so the shell can say so.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use swaplab_core::Project;
use swaplab_core::archive::MAX_TOTAL_BYTES;
use swaplab_core::archive::{Split, split_project};
use swaplab_core::layout::{Swap, VARIANT_DIR, is_conversation, tutorial_layout};
use swaplab_core::rasa::project::MAX_PROJECT_FILES;
use swaplab_core::sim::crm::{CrmSeed, read_seed};
use swaplab_core::sim::{CONVERSATIONS_DIR, CRM_FILE};
use swaplab_core::workspace::{FileRef, Workspace};

/// Files above this size are refused: no skill, config or tool file is this large. The
/// core's cap on a project file (`swaplab_core::rasa::project::MAX_FILE_BYTES`).
pub const MAX_FILE_BYTES: u64 = swaplab_core::rasa::project::MAX_FILE_BYTES as u64;

/// Folders that never hold project files.
const SKIPPED_DIRS: &[&str] =
    &["__pycache__", "node_modules", "target", "models", ".git", ".venv", "venv"];

/// Reads every text file under `dir`, with paths relative to it.
pub fn project(dir: &Path) -> Result<Project> {
    if !dir.is_dir() {
        bail!("{} is not a folder", dir.display());
    }
    let mut files = Vec::new();
    let mut total = 0;
    walk(dir, dir, &mut files, &mut total)?;
    Ok(Project::from_files(files))
}

fn walk(root: &Path, dir: &Path, files: &mut Vec<(String, String)>, total: &mut u64) -> Result<()> {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .collect::<Result<_, _>>()
        .with_context(|| format!("reading {}", dir.display()))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = entry.file_type().with_context(|| format!("reading {}", path.display()))?;
        if kind.is_dir() {
            if !name.starts_with('.') && !SKIPPED_DIRS.contains(&name.as_str()) {
                walk(root, &path, files, total)?;
            }
            continue;
        }
        let kept = swaplab_core::archive::KEPT_DOTFILES.contains(&name.as_str());
        if !kind.is_file() || (name.starts_with('.') && !kept) {
            continue;
        }
        let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
        if size > MAX_FILE_BYTES {
            bail!(
                "{} is {size} bytes, over the {MAX_FILE_BYTES}-byte limit for one project file",
                path.display()
            );
        }
        if files.len() == MAX_PROJECT_FILES {
            bail!(
                "{} holds more than {MAX_PROJECT_FILES} files (hidden folders and caches not \
                 counted), the most Swap Lab reads from one folder; {} is one too many",
                root.display(),
                path.display()
            );
        }
        *total += size;
        if *total > MAX_TOTAL_BYTES as u64 {
            bail!(
                "{} holds more than {} MiB of files, the most Swap Lab reads from one folder; \
                 the limit was passed at {}",
                root.display(),
                MAX_TOTAL_BYTES >> 20,
                path.display()
            );
        }
        let bytes = fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        let Ok(text) = String::from_utf8(bytes) else {
            eprintln!("swaplab: skipping {}: not UTF-8 text", path.display());
            continue;
        };
        let relative = path.strip_prefix(root).expect("walked from root");
        let relative: Vec<String> =
            relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        files.push((relative.join("/"), text));
    }
    Ok(())
}

/// Reads one file as a one-file project named after the file.
pub fn single_file(path: &Path) -> Result<Project> {
    let size = fs::metadata(path).with_context(|| format!("reading {}", path.display()))?.len();
    if size > MAX_FILE_BYTES {
        bail!("{} is {size} bytes, over the {MAX_FILE_BYTES}-byte limit", path.display());
    }
    let text = fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let name = path.file_name().map_or("file".into(), |n| n.to_string_lossy().into_owned());
    Ok(Project::from_files([(name, text)]))
}

/// Reads a project folder: in the tutorial's layout (see `swaplab_core::layout`), its
/// CRM area holds the root's `crm.yml` and `conversations/` scripts, and nothing else
/// (lending the built-in tutorial's seed is [`tutorial_seed`]'s, for the shell to do and
/// say). A folder laid out by area instead, with `before/` and `after/` (and `server/`
/// and `crm/` when present) and no `mcp_variant/`, is what `swaplab export` writes: each
/// folder is its area, as the playground's import reads a zip of it.
pub fn tutorial(dir: &Path) -> Result<Swap> {
    let root = project(dir)?;
    let by_area = |area: &str| root.files().any(|(path, _)| path.starts_with(area));
    if !by_area(VARIANT_DIR) && by_area("before/") && by_area("after/") {
        let files = root.files().map(|(path, text)| (path.to_owned(), text.to_owned()));
        if let Split::Areas { areas, outside } = split_project(files.collect()) {
            if !outside.is_empty() {
                eprintln!(
                    "swaplab: {} is laid out by area; left out the files outside before/, \
                     after/, server/ and crm/: {}",
                    dir.display(),
                    outside.join(", ")
                );
            }
            let mut workspace = Workspace::default();
            for (area, files) in areas {
                for (path, text) in files {
                    workspace.set_file(&FileRef::new(area, path), text);
                }
            }
            return Ok(Swap::unchanged(workspace));
        }
    }
    tutorial_layout(&root).map_err(anyhow::Error::msg)
}

/// Reads `--server`: one file, or a folder holding the server with the project modules
/// it imports (the `server/` folder `swaplab export` writes).
pub fn server(path: &Path) -> Result<Project> {
    if path.is_dir() { project(path) } else { single_file(path) }
}

/// Every `*.yml` (or `*.yaml`) under `dir`, subfolders included, as the CRM area's
/// `conversations/<path>`: (its path in the area, its text, the file it was read from).
/// A folder without one is an error: the reader meant to give scripts.
pub fn conversations(dir: &Path) -> Result<Vec<(String, String, PathBuf)>> {
    let read = project(dir).with_context(|| format!("--conversations {}", dir.display()))?;
    let scripts: Vec<(String, String, PathBuf)> = read
        .files()
        .map(|(path, text)| (format!("{CONVERSATIONS_DIR}{path}"), text, dir.join(path)))
        .filter(|(area_path, _, _)| is_conversation(area_path))
        .map(|(area_path, text, file)| (area_path, text.to_owned(), file))
        .collect();
    if scripts.is_empty() {
        bail!(
            "--conversations {}: the folder holds no conversation script (*.yml); \
             `swaplab --help` shows the format under SCRIPTS",
            dir.display()
        );
    }
    Ok(scripts)
}

/// The built-in tutorial's CRM seed (`crm.yml`), lent to a workspace without one.
pub fn tutorial_seed() -> Result<String> {
    let example = swaplab_content::example(swaplab_content::DEFAULT_EXAMPLE)?
        .with_context(|| format!("the built-in example `{}`", swaplab_content::DEFAULT_EXAMPLE))?;
    let text = example.workspace.crm.file(CRM_FILE).with_context(|| {
        format!("the built-in example `{}` has no {CRM_FILE}", swaplab_content::DEFAULT_EXAMPLE)
    })?;
    Ok(text.to_owned())
}

/// `the built-in tutorial's CRM seed (contacts 701 Dana Okafor, 702 Sam Rivera)`: what a
/// note on stderr names when the seed was borrowed.
pub fn seed_words(seed: &CrmSeed) -> String {
    let contacts: Vec<String> =
        seed.contacts.iter().map(|c| format!("{} {}", c.id, c.full_name())).collect();
    match contacts.as_slice() {
        [] => "the built-in tutorial's CRM seed (no contacts)".to_owned(),
        [one] => format!("the built-in tutorial's CRM seed (contact {one})"),
        many => format!("the built-in tutorial's CRM seed (contacts {})", many.join(", ")),
    }
}

/// [`seed_words`] for a seed's text.
pub fn seed_text_words(text: &str) -> String {
    seed_words(&read_seed(CRM_FILE, text))
}

/// Where a workspace's CRM area came from on disk, for messages that name its files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrmSources {
    /// CRM-area path (`conversations/mine.yml`) → the file it was read from.
    pub files: BTreeMap<String, PathBuf>,
    /// Where the reader's own scripts go, when the workspace came from disk
    /// (`put yours in DIR/conversations/ or give --conversations DIR`).
    pub scripts_go: Option<String>,
}

impl CrmSources {
    /// The file a CRM-area path was read from, as the reader would type it.
    pub fn file(&self, area_path: &str) -> Option<String> {
        self.files.get(area_path).map(|path| path.display().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_keeps_its_env_files_and_leaves_other_hidden_files_out() {
        let dir = std::env::temp_dir().join(format!("swaplab-load-env-{}", std::process::id()));
        fs::create_dir_all(dir.join(".git")).unwrap();
        for (name, text) in [
            (".env", "HUBSPOT_ACCESS_TOKEN=x\n"),
            (".env.example", "HUBSPOT_BASE_URL=http://127.0.0.1:8787\n"),
            (".envrc", "x\n"),
            (".git/config", "x\n"),
            ("agent.yml", "a\n"),
        ] {
            fs::write(dir.join(name), text).unwrap();
        }
        let read = project(&dir).unwrap();
        let paths: Vec<&str> = read.files().map(|(path, _)| path).collect();
        assert_eq!(paths, [".env", ".env.example", "agent.yml"]);
        fs::remove_dir_all(&dir).unwrap();
    }
}
