//! Benchmark: how the syntax highlighter's cost grows on inputs built to make a careless
//! scanner quadratic (`support/pathological.rs`). Each input is highlighted at 16 KiB and
//! at 256 KiB, as every language, eleven times; the median of each size is reported.
//! Linear time means the large one costs about 16 times the small one; quadratic, 256.
//!
//! Prints one tab-separated line per input and language,
//! `growth<TAB>input<TAB>language<TAB>median ns at 16 KiB<TAB>at 256 KiB<TAB>×ratio`,
//! which `cargo xtask test`'s budget stage reads and holds to `budgets.toml`'s
//! `[growth]` limit. Run by hand: `cargo bench -p swaplab-core --bench highlight_growth`.
#![allow(clippy::disallowed_methods, clippy::disallowed_types, clippy::disallowed_macros)]

#[path = "support/allocator.rs"]
mod allocator;

use std::hint::black_box;
use std::time::Instant;

use swaplab_core::highlight::{Language, highlight};

#[path = "support/pathological.rs"]
mod pathological;

const SMALL: usize = 16 * 1024;
const LARGE: usize = 256 * 1024;
const RUNS: usize = 11;

/// The median of `RUNS` timings of highlighting `text`, in nanoseconds.
fn median_ns(language: Language, text: &str) -> u128 {
    let mut timings: Vec<u128> = (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            black_box(highlight(language, black_box(text)));
            started.elapsed().as_nanos()
        })
        .collect();
    timings.sort_unstable();
    timings[RUNS / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; a filter, if any, picks inputs by name.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let small = pathological::pathological(SMALL);
    let large = pathological::pathological(LARGE);
    println!(
        "highlight growth: input, language, median ns of {RUNS} runs at 16 and 256 KiB, ratio"
    );
    for ((name, small), (_, large)) in small.iter().zip(&large) {
        if filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        for language in [Language::Yaml, Language::Markdown, Language::Python, Language::Plain] {
            let (short, long) = (median_ns(language, small), median_ns(language, large));
            let ratio = long as f64 / short.max(1) as f64;
            println!("growth\t{name}\t{language:?}\t{short}\t{long}\t×{ratio:.1}");
        }
    }
}
