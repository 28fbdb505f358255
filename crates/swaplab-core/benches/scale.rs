//! Criterion benchmarks of how the playground's work per edit grows with the workspace:
//! `Simulation::new`, `prove_with`, `review_with` (which runs the attack on both
//! projects), `semantic_changes`, one scripted conversation (`run_script` and its id
//! `trace`, confused policy, *after* project) and `project_changes`, on workspaces
//! generated from the tutorial (`support/scale.rs`, built outside the measured loops):
//!
//! - 3, 30 and 300 skills (copies of the tutorial's three, each with its own tools and
//!   server tools, so the attack probes every copy);
//! - 10, 1,000 and 100,000 CRM records (contacts and tickets). `crm.yml` holds at most
//!   `MAX_CRM_RECORDS` (10,000) records and 1 MiB, so the 100,000-record seed is built
//!   in memory and put in place of the tutorial's after `Simulation::new` (its clone is
//!   inside the loop, as reading it would be); 10 and 1,000 go through `crm.yml`;
//! - one `skill.md` of about 1 MB of prose, on both sides.
//!
//! Then the diff alone: `project_changes` on the tutorial, and `diff_text` of the 1 MB
//! skill against a copy with a few lines edited and a paragraph inserted.
#![allow(clippy::disallowed_methods)]

#[path = "support/allocator.rs"]
mod allocator;

use std::hint::black_box;
use std::time::Duration;

#[path = "support/tutorial.rs"]
mod tutorial;

#[path = "support/scale.rs"]
mod scale;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use swaplab_core::Workspace;
use swaplab_core::diff::{DEFAULT_CONTEXT, diff_text, project_changes};
use swaplab_core::memo::Memo;
use swaplab_core::proof::prove_with;
use swaplab_core::review::review_with;
use swaplab_core::semantic::semantic_changes;
use swaplab_core::sim::conversation::{Policy, RunOptions, run_script};
use swaplab_core::sim::crm::CrmSeed;
use swaplab_core::sim::trace::trace;
use swaplab_core::sim::{Side, Simulation};

/// Puts `seed`'s records in place of the workspace's, keeping what the workspace says of
/// its network (the environment, the mock CRM): a seed built on its own has none, and
/// without it the server's HTTP client reaches no CRM, so the attack had nothing to leak.
fn replace_records(sim: &mut Simulation, seed: &CrmSeed) {
    let network = std::mem::take(&mut sim.seed.network);
    sim.seed = seed.clone();
    sim.seed.network = network;
}

/// What the playground computes after an edit, everything from nothing (a memo that
/// keeps nothing, as the command line reads a workspace).
fn pipeline(workspace: &Workspace, seed: Option<&CrmSeed>) {
    let mut sim = Simulation::new(workspace);
    if let Some(seed) = seed {
        replace_records(&mut sim, seed);
    }
    after_reading(workspace, &sim);
}

/// [`pipeline`] with a memo kept from the previous run, as the playground keeps one.
#[inline(never)] // one symbol for profilers (callgrind --toggle-collect)
fn pipeline_with(workspace: &Workspace, seed: Option<&CrmSeed>, memo: &mut Memo) {
    let mut sim = Simulation::with_memo(workspace, memo);
    if let Some(seed) = seed {
        replace_records(&mut sim, seed);
    }
    after_reading(workspace, &sim);
}

/// Everything after reading: the proof, the review, the semantic summary, a scripted
/// conversation with its trace, and the project diff.
fn after_reading(workspace: &Workspace, sim: &Simulation) {
    black_box(prove_with(workspace, sim));
    black_box(review_with(sim, &Default::default()));
    black_box(semantic_changes(&sim.report));
    let agent = sim.start(Side::After).expect("the after project starts");
    let options = RunOptions { policy: Policy::Confused, answers: Vec::new() };
    let transcript = run_script(&agent, &sim.seed, &sim.scripts[0], &options);
    black_box(trace(&agent, &sim.seed, &transcript));
    black_box(project_changes(&workspace.before, &workspace.after));
}

/// Checks, outside the loop, that a generated workspace is what it claims: both agents
/// start, the attack probes every copy's id-taking tools after the swap and finds two
/// leaks per copy, and the seed holds every record.
fn check(workspace: &Workspace, seed: Option<&CrmSeed>, copies: usize, records: usize) {
    let mut sim = Simulation::new(workspace);
    if let Some(seed) = seed {
        replace_records(&mut sim, seed);
    }
    assert!(sim.seed.diagnostics.is_empty(), "{:?}", sim.seed.diagnostics);
    assert_eq!(sim.seed.contacts.len() + sim.seed.tickets.len(), records);
    let attack = sim.attack(&Default::default());
    assert!(attack.before.startup.is_none(), "{:?}", attack.before.startup);
    assert!(attack.after.startup.is_none(), "{:?}", attack.after.startup);
    assert_eq!(attack.after.probes.len(), 2 * copies);
    assert_eq!(attack.after.leaks.len(), 2 * copies);
    assert_eq!(attack.before.leaks.len(), 0);
    assert_eq!(attack.before.probes.len(), 2 * copies);
}

fn skills(c: &mut Criterion) {
    let mut group = c.benchmark_group("pipeline: skills");
    group.sample_size(30);
    for skills in [3, 30, 300] {
        let workspace = scale::workspace(skills);
        check(&workspace, None, skills / 3, 4);
        group.bench_with_input(BenchmarkId::from_parameter(skills), &workspace, |b, ws| {
            b.iter(|| pipeline(black_box(ws), None));
        });
    }
    group.finish();
}

/// A reader's keystroke on a big project: one `skill.md` edited, every other file as it
/// was, with the memo the previous run left. Two versions of the workspace take turns, so
/// every iteration is a real edit (the edited skill is read and compiled again; the rest
/// comes from the memo).
fn one_edit(c: &mut Criterion) {
    let mut group = c.benchmark_group("pipeline: one skill.md edited, memo kept");
    group.sample_size(30);
    for skills in [3, 30, 300] {
        let workspace = scale::workspace(skills);
        let edited = scale::with_one_skill_edited(&workspace);
        assert_ne!(workspace, edited);
        check(&edited, None, skills / 3, 4);
        let versions = [workspace, edited];
        // The same results with and without the memo, on both versions.
        let mut memo = Memo::new();
        for version in versions.iter().chain(&versions) {
            let with = Simulation::with_memo(version, &mut memo);
            let without = Simulation::new(version);
            assert_eq!(with.report, without.report);
            assert_eq!(
                review_with(&with, &Default::default()),
                review_with(&without, &Default::default())
            );
        }
        group.bench_with_input(BenchmarkId::from_parameter(skills), &versions, |b, versions| {
            let mut turn = 0;
            b.iter(|| {
                turn += 1;
                pipeline_with(black_box(&versions[turn % 2]), None, &mut memo);
            });
        });
    }
    group.finish();
}

fn records(c: &mut Criterion) {
    let mut group = c.benchmark_group("pipeline: CRM records");
    group.sample_size(30);
    for records in [10, 1_000] {
        let workspace = scale::workspace_with_records(records);
        check(&workspace, None, 1, records);
        group.bench_with_input(BenchmarkId::from_parameter(records), &workspace, |b, ws| {
            b.iter(|| pipeline(black_box(ws), None));
        });
    }
    let workspace = tutorial::tutorial();
    let seed = scale::seed(100_000);
    check(&workspace, Some(&seed), 1, 100_000);
    group.bench_with_input(BenchmarkId::from_parameter("100000 (in memory)"), &seed, |b, seed| {
        b.iter(|| pipeline(black_box(&workspace), Some(seed)));
    });
    group.finish();
}

fn large_skill(c: &mut Criterion) {
    let workspace = scale::workspace_with_large_skill();
    check(&workspace, None, 1, 4);
    let mut group = c.benchmark_group("pipeline: 1 MB skill.md");
    group.sample_size(30);
    group.bench_function("tutorial with one 1 MB skill", |b| {
        b.iter(|| pipeline(black_box(&workspace), None));
    });
    group.finish();
}

fn diff(c: &mut Criterion) {
    let workspace = tutorial::tutorial();
    c.bench_function("diff: project_changes, tutorial", |b| {
        b.iter(|| black_box(project_changes(black_box(&workspace.before), &workspace.after)));
    });
    let old = scale::prose(1_000_000);
    let mut new = old.replace("Case 100: ", "Case 100 (edited): ");
    new = new.replace("Case 1000: ", "Case 1000 (edited): ");
    new = new.replace("Case 2000: ", "Case 2000 (edited): ");
    let middle = new.find("Case 1500: ").expect("a paragraph in the middle");
    new.insert_str(middle, "An inserted paragraph.\nOn two lines.\n\n");
    let diff = diff_text(&old, &new, DEFAULT_CONTEXT);
    assert!(diff.added >= 5 && diff.removed >= 3, "+{} -{}", diff.added, diff.removed);
    c.bench_function("diff: diff_text, 1 MB of prose against an edited copy", |b| {
        b.iter(|| black_box(diff_text(black_box(&old), black_box(&new), DEFAULT_CONTEXT)));
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1));
    targets = skills, one_edit, records, large_skill, diff
}
criterion_main!(benches);
