//! Criterion benchmark: reading the three shared corpus projects the way Rasa 3.21 does
//! (every skill compiled, memory, responses, integrations, tool modules, cross-file rules).
//! The files are read from disk once, outside the measured loop.
#![allow(clippy::disallowed_methods)]

#[path = "support/allocator.rs"]
mod allocator;

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, criterion_group, criterion_main};
use swaplab_core::Project;
use swaplab_core::rasa::project::read_project;

fn files_under(root: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("corpus folder").filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                let relative = path.strip_prefix(root).expect("under root");
                found.push((relative.to_string_lossy().replace('\\', "/"), text));
            }
        }
    }
    found
}

fn corpus() -> Vec<Project> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/rasa-corpus");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("shared corpus")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.join("rasa-3.21.0-verdict.json").is_file())
        .collect();
    dirs.sort();
    assert_eq!(dirs.len(), 3, "three corpus projects");
    dirs.iter().map(|dir| Project::from_files(files_under(dir))).collect()
}

fn parse_corpus(c: &mut Criterion) {
    let projects = corpus();
    c.bench_function("read_project: all three corpus projects", |b| {
        b.iter(|| {
            for project in &projects {
                black_box(read_project(black_box(project)));
            }
        });
    });
}

fn train_findings_only(c: &mut Criterion) {
    let reports: Vec<_> = corpus().iter().map(read_project).collect();
    c.bench_function("train_findings: all three corpus projects", |b| {
        b.iter(|| {
            for report in &reports {
                black_box(swaplab_core::rasa::findings::train_findings(black_box(report)));
            }
        });
    });
}

criterion_group!(benches, parse_corpus, train_findings_only);
criterion_main!(benches);
