//! Native tests for the web crate's pure logic: the draft protocol that keeps the
//! reader's work (`draft`), the marks in the file tree (`file_status`) and the
//! router's reading of paths and queries (`router`). They run with `cargo test`; the
//! browser-only parts are in `tests/it`, run in headless Chromium.
#![cfg(not(target_arch = "wasm32"))]

mod draft;
mod file_status;
mod router;
