//! File access for the tests: the core itself reads no files (its `clippy.toml` bans it),
//! but tests read the shared corpus and the examples from disk.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};

/// `fixtures/rasa-corpus`: the shared corpus, kept in the repository so that a clean
/// clone tests against it; `the_fixture_corpus_is_the_shared_corpus` keeps them equal.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/rasa-corpus")
}

/// `../shared/corpus` next to the repository, where the project's sources live.
pub fn shared_corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

/// `content/examples` in this repository.
pub fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../content/examples")
}

/// A file's text; panics with the path when it cannot be read.
pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// A file's text, or `None` when it does not exist.
pub fn read_optional(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// The entries of a directory, sorted.
pub fn list(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .collect();
    paths.sort();
    paths
}

/// Every file under `dir`, sorted.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for path in list(&dir) {
            if path.is_dir() {
                pending.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The corpus projects (directories with a verdict file).
pub fn corpus_projects() -> Vec<PathBuf> {
    list(&corpus_dir())
        .into_iter()
        .filter(|path| path.join("rasa-3.21.0-verdict.json").is_file())
        .collect()
}

/// The built-in `tutorial` example as a workspace, read from `content/examples/tutorial`.
pub fn tutorial_workspace() -> swaplab_core::Workspace {
    let root = examples_dir().join("tutorial");
    let mut workspace = swaplab_core::Workspace::default();
    for path in walk(&root) {
        let relative = path.strip_prefix(&root).unwrap().to_str().unwrap().replace('\\', "/");
        if let Some(file) = swaplab_core::FileRef::parse(&relative) {
            workspace.set_file(&file, read(&path));
        }
    }
    workspace
}

/// The tutorial with its tools and server written against the `hubspot_client.crm`
/// shortcut (`fixtures/hubspot-client/`), for the tests of the shortcut's reading.
pub fn shortcut_workspace() -> swaplab_core::Workspace {
    let mut workspace = tutorial_workspace();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hubspot-client");
    for (area, path) in [
        ("before", "tools/crm.py"),
        ("before", "skills/check_tickets/tools.py"),
        ("before", "skills/log_interaction/tools.py"),
        ("server", "scripts/mcp_crm_server.py"),
    ] {
        let file = swaplab_core::FileRef::parse(&format!("{area}/{path}")).unwrap();
        workspace.set_file(&file, read(&fixture.join(path)));
    }
    workspace
}

/// Replaces the first `from` with `to` in one workspace file (`area/path`).
pub fn edit(workspace: &mut swaplab_core::Workspace, file: &str, from: &str, to: &str) {
    let file = swaplab_core::FileRef::parse(file).unwrap();
    let text = workspace.file(&file).unwrap().to_owned();
    assert!(text.contains(from), "{from:?} is not in {file:?}");
    workspace.set_file(&file, text.replacen(from, to, 1));
}
