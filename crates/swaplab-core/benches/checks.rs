//! Criterion benchmarks of the checks on the built-in tutorial workspace: the companion
//! proof, the review (which runs the attack on both projects) and the attack alone, each
//! from the workspace's files (read from `content/examples/tutorial` once, outside the
//! loop), plus all three sharing one read of the workspace.
#![allow(clippy::disallowed_methods)]

#[path = "support/allocator.rs"]
mod allocator;

use std::hint::black_box;

#[path = "support/tutorial.rs"]
mod tutorial;

use criterion::{Criterion, criterion_group, criterion_main};
use swaplab_core::proof::{prove, prove_with};
use swaplab_core::review::{review, review_with};
use swaplab_core::sim::Simulation;

fn checks(c: &mut Criterion) {
    let workspace = tutorial::tutorial();
    c.bench_function("prove + review + attack: default workspace, each from the files", |b| {
        b.iter(|| {
            black_box(prove(black_box(&workspace)));
            black_box(review(black_box(&workspace), &Default::default()));
            black_box(Simulation::new(black_box(&workspace)).attack(&Default::default()));
        });
    });
    c.bench_function("prove + review (with its attack): one read of the workspace", |b| {
        b.iter(|| {
            let sim = Simulation::new(black_box(&workspace));
            black_box(prove_with(&workspace, &sim));
            black_box(review_with(&sim, &Default::default()));
        });
    });
    c.bench_function("prove: default workspace", |b| {
        b.iter(|| black_box(prove(black_box(&workspace))));
    });
    c.bench_function("review: default workspace", |b| {
        b.iter(|| black_box(review(black_box(&workspace), &Default::default())));
    });
}

criterion_group!(benches, checks);
criterion_main!(benches);
