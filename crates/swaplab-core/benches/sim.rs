//! Criterion benchmarks of the simulation on the tutorial-shaped default workspace: the
//! attack on both projects (agents started, every probe run), and one scripted
//! conversation. The workspace is read from `content/examples/tutorial` and parsed once,
//! outside the measured loop.
#![allow(clippy::disallowed_methods)]

#[path = "support/allocator.rs"]
mod allocator;

use std::hint::black_box;

#[path = "support/tutorial.rs"]
mod tutorial;

use criterion::{Criterion, criterion_group, criterion_main};
use swaplab_core::sim::attack::attack;
use swaplab_core::sim::conversation::{Policy, RunOptions, run_script};
use swaplab_core::sim::{Side, Simulation};

fn attack_default_workspace(c: &mut Criterion) {
    let workspace = tutorial::tutorial();
    let sim = Simulation::new(&workspace);
    c.bench_function("attack: before and after, default workspace (agents started)", |b| {
        b.iter(|| black_box(sim.attack(&Default::default())));
    });
    let after = sim.start(Side::After).expect("starts");
    c.bench_function("attack: after only, agent already started", |b| {
        b.iter(|| black_box(attack(Ok(black_box(&after)), &sim.seed, &Default::default())));
    });
}

fn conversation(c: &mut Criterion) {
    let workspace = tutorial::tutorial();
    let sim = Simulation::new(&workspace);
    let after = sim.start(Side::After).expect("starts");
    let options = RunOptions { policy: Policy::Confused, answers: Vec::new() };
    c.bench_function("conversation: caller-names-another, confused, after", |b| {
        b.iter(|| black_box(run_script(&after, &sim.seed, black_box(&sim.scripts[0]), &options)));
    });
    c.bench_function("Simulation::new: read the default workspace", |b| {
        b.iter(|| black_box(Simulation::new(black_box(&workspace))));
    });
}

criterion_group!(benches, attack_default_workspace, conversation);
criterion_main!(benches);
