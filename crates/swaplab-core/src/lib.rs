//! Swap Lab's domain, with no I/O: the workspace a reader edits, diffs between the two
//! projects, safe markdown view models, and the playground's session.
//!
//! Everything here is a pure function of its input: no clock, no randomness, no files,
//! no network, no browser. The web app and the command line are thin shells around it.
//! `clippy.toml` in this crate and a tidy test in `xtask` hold that line.

pub mod archive;
pub mod diagnostic;
pub mod diff;
pub mod difflib;
pub mod highlight;
pub mod layout;
pub mod markdown;
pub mod memo;
pub mod order;
pub mod permalink;
pub mod proof;
pub mod python;
pub mod rasa;
pub mod review;
pub mod semantic;
pub mod session;
pub mod sim;
pub mod words;
pub mod workspace;
pub mod yaml;

pub use workspace::{Area, FileRef, Project, Workspace};
