//! Integration tests for swaplab-core, through its public API only.
//!
//! One module per core module, each with a `check` helper so that a new case is data.

mod diff;
mod markdown;
mod session;
mod workspace;
