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
