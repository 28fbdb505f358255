//! Runs `review` on the built-in tutorial workspace as many times as its one argument
//! says (after reading the workspace once), for the budget stage of `cargo xtask test`:
//! run under callgrind with 0 and with N reviews, the difference over N is one review's
//! instruction count, the same on any machine, however fast or busy.
#![allow(clippy::disallowed_methods)]

#[path = "../benches/support/allocator.rs"]
mod allocator;
#[path = "../benches/support/tutorial.rs"]
mod tutorial;

use std::hint::black_box;

use swaplab_core::review::review;

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|n| n.parse().ok()).unwrap_or(1);
    let workspace = tutorial::tutorial();
    for _ in 0..runs {
        black_box(review(black_box(&workspace), &Default::default()));
    }
}
