//! Criterion benchmark: syntax highlighting as the editor runs it on every keystroke.
//! First every file of the built-in tutorial (23 files, 18 KB), each in its own language;
//! then a 1 MiB file of each language, made by repeating the tutorial's files of that
//! language (the cap on one file in a permalink or a project is 1 MiB). The files are
//! read from disk once, outside the measured loop.
#![allow(clippy::disallowed_methods)]

#[path = "support/allocator.rs"]
mod allocator;

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use swaplab_core::highlight::{Language, highlight};

/// Every file of the tutorial example, with its language.
fn tutorial() -> Vec<(Language, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../content/examples/tutorial");
    let mut found = Vec::new();
    let mut pending = vec![root];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("example folder").filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                found.push((Language::for_path(&path.to_string_lossy()), text));
            }
        }
    }
    found.sort_by(|a, b| a.1.cmp(&b.1));
    found
}

/// The tutorial's files of one language, repeated to 1 MiB.
fn mebibyte(files: &[(Language, String)], language: Language) -> String {
    let mut text = String::new();
    while text.len() < 1024 * 1024 {
        for (_, file) in files.iter().filter(|(l, _)| *l == language) {
            text.push_str(file);
            text.push('\n');
        }
    }
    text
}

fn highlighting(c: &mut Criterion) {
    let files = tutorial();
    assert!(files.len() > 20, "{} tutorial files", files.len());
    c.bench_function("highlight every tutorial file", |b| {
        b.iter(|| {
            for (language, text) in &files {
                black_box(highlight(*language, black_box(text)));
            }
        });
    });
    for (name, language) in
        [("yaml", Language::Yaml), ("markdown", Language::Markdown), ("python", Language::Python)]
    {
        let text = mebibyte(&files, language);
        c.bench_function(&format!("highlight 1 MiB of {name}"), |b| {
            b.iter(|| black_box(highlight(language, black_box(&text))));
        });
    }
}

criterion_group!(benches, highlighting);
criterion_main!(benches);
