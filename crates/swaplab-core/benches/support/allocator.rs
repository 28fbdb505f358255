//! The allocator every benchmark of the core runs on: mimalloc, the one the `swaplab`
//! binary ships with (its `main.rs`), so a native figure here is what the command line
//! gets. glibc's malloc and free were a third of a rerun's instructions; on mimalloc the
//! same work takes 25–50% less time (docs/benchmarks-notes.md). The site is not affected:
//! its wasm keeps Rust's own allocator, and its figures come from Chromium.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
