//! Criterion benchmark: a permalink of the built-in tutorial with one edited line, encoded
//! against the pristine example (the example form) and decoded back (the lookup clones the
//! pristine workspace, as the web app's does); then the same workspace in the full form.
//! The workspace is read from `content/examples/tutorial` once, outside the measured loop.
#![allow(clippy::disallowed_methods)]

#[path = "support/allocator.rs"]
mod allocator;

use std::hint::black_box;

#[path = "support/tutorial.rs"]
mod tutorial;

use criterion::{Criterion, criterion_group, criterion_main};
use swaplab_core::FileRef;
use swaplab_core::permalink::{Link, decode, encode};

fn permalink(c: &mut Criterion) {
    let pristine = tutorial::tutorial();
    let mut workspace = pristine.clone();
    let file = FileRef::parse("after/skills/log_interaction/skill.md").expect("a file ref");
    let text = workspace.file(&file).expect("the tutorial's skill").replacen(
        "  - add_timeline_note:\n",
        "  - list_open_tickets:\n",
        1,
    );
    workspace.set_file(&file, text);
    let link = Link { example: Some("tutorial".into()), workspace, open: Some(file) };
    let encoded = encode(&link, Some(&pristine));
    let lookup = |id: &str| (id == "tutorial").then(|| pristine.clone());
    assert_eq!(decode(&encoded, &lookup).expect("decodes"), link);

    c.bench_function("permalink encode: tutorial, one edited line", |b| {
        b.iter(|| black_box(encode(black_box(&link), Some(black_box(&pristine)))));
    });
    c.bench_function("permalink decode: tutorial, one edited line", |b| {
        b.iter(|| black_box(decode(black_box(&encoded), &lookup)));
    });
}

fn permalink_full(c: &mut Criterion) {
    let mut workspace = tutorial::tutorial();
    let file = FileRef::parse("after/skills/log_interaction/skill.md").expect("a file ref");
    let text = workspace.file(&file).expect("the tutorial's skill").replacen("short", "brief", 1);
    workspace.set_file(&file, text);
    let link = Link { example: Some("tutorial".into()), workspace, open: Some(file) };
    let encoded = encode(&link, None);
    let lookup = |_: &str| None;
    assert_eq!(decode(&encoded, &lookup).expect("decodes"), link);

    c.bench_function("permalink encode: tutorial, full form", |b| {
        b.iter(|| black_box(encode(black_box(&link), None)));
    });
    c.bench_function("permalink decode: tutorial, full form", |b| {
        b.iter(|| black_box(decode(black_box(&encoded), &lookup)));
    });
}

criterion_group!(benches, permalink, permalink_full);
criterion_main!(benches);
