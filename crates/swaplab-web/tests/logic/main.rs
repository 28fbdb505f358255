//! Native tests for the web crate's pure logic: the draft protocol that keeps the
//! reader's work (`draft`), the marks in the file tree (`file_status`) and the
//! router's reading of paths and queries (`router`), and the chapter widgets as
//! the app renders them natively for the prerendered pages (`prerender`). They run with `cargo test`; the
//! browser-only parts are in `tests/it`, run in headless Chromium.
#![cfg(not(target_arch = "wasm32"))]

mod draft;
mod file_status;
#[cfg(feature = "prerender")]
mod prerender;
mod router;
