//! The `swaplab` binary as a whole process, the way CI runs it: start, read the built-in
//! tutorial example, run the check, print, exit. Criterion times each spawn-to-exit.

use std::hint::black_box;
use std::process::Command;

use criterion::{Criterion, criterion_group, criterion_main};

fn run(args: &[&str]) {
    let output =
        Command::new(env!("CARGO_BIN_EXE_swaplab")).args(args).output().expect("the binary runs");
    black_box(output);
}

fn process(c: &mut Criterion) {
    c.bench_function("process: swaplab review --example tutorial", |b| {
        b.iter(|| run(&["review", "--example", "tutorial"]));
    });
    c.bench_function("process: swaplab prove --example tutorial", |b| {
        b.iter(|| run(&["prove", "--example", "tutorial"]));
    });
    c.bench_function("process: swaplab --version (start-up alone)", |b| {
        b.iter(|| run(&["--version"]));
    });
}

criterion_group!(benches, process);
criterion_main!(benches);
