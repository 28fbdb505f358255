//! The leaves every Swap Lab reader stands on, with no Swap Lab dependency of their own:
//! [`diagnostic`] (a finding at `file:line:col`, its severity, phase and code),
//! [`order`] (the one stable sort the wasm links, instead of one per element type) and
//! [`pytext`] (Python's `repr()` of a `str`, one implementation for every reader).
//!
//! `swaplab-python` and `swaplab-core` both build on these; the core re-exports them as
//! `swaplab_core::diagnostic` and `swaplab_core::order`.

pub mod diagnostic;
pub mod order;
pub mod pytext;
