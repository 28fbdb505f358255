//! Browser tests for the web crate, run by `wasm-bindgen-test-runner` in headless
//! Chromium (`cargo xtask test`). They exercise the pieces a native test cannot: code
//! that would read a clock in wasm, the DOM, storage and its failures, and rendering.
//! The pure logic is tested natively, in `tests/logic`.
#![cfg(target_arch = "wasm32")]

mod browser;
mod core_in_wasm;
mod editor;
mod render;
mod scale;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
