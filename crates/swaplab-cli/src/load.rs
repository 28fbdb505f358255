//! Reading a project folder from disk into a `swaplab_core::Project`.
//!
//! Takes every text file under the folder, skipping what is never part of a Rasa
//! project (hidden folders, caches, build output) and saying what it skipped.

use std::fs;
use std::path::Path;

use anyhow::{Context, Result, bail};
use swaplab_core::layout::{Swap, tutorial_layout};
use swaplab_core::{Area, Project};

/// Files above this size are refused: no skill, config or tool file is this large.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Folders that never hold project files.
const SKIPPED_DIRS: &[&str] =
    &["__pycache__", "node_modules", "target", "models", ".git", ".venv", "venv"];

/// Reads every text file under `dir`, with paths relative to it.
pub fn project(dir: &Path) -> Result<Project> {
    if !dir.is_dir() {
        bail!("{} is not a folder", dir.display());
    }
    let mut files = Vec::new();
    walk(dir, dir, &mut files)?;
    Ok(Project::from_files(files))
}

fn walk(root: &Path, dir: &Path, files: &mut Vec<(String, String)>) -> Result<()> {
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
                walk(root, &path, files)?;
            }
            continue;
        }
        if !kind.is_file() || name.starts_with('.') {
            continue;
        }
        let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
        if size > MAX_FILE_BYTES {
            bail!(
                "{} is {size} bytes, over the {MAX_FILE_BYTES}-byte limit for one project file",
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

/// Reads a folder in the tutorial's layout (see `swaplab_core::layout`). Without a
/// `crm.yml` at its root, the built-in tutorial's seed stands in.
pub fn tutorial(dir: &Path) -> Result<Swap> {
    let root = project(dir)?;
    let mut swap = tutorial_layout(&root).map_err(anyhow::Error::msg)?;
    if swap.workspace.crm.is_empty()
        && let Some(example) = swaplab_content::example(swaplab_content::DEFAULT_EXAMPLE)?
    {
        swap.workspace.crm = example.workspace.area(Area::Crm).clone();
    }
    Ok(swap)
}
