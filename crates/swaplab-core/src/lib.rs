//! Swap Lab's domain, with no I/O: the workspace a reader edits, diffs between the two
//! projects, safe markdown view models, and the playground's session.
//!
//! Everything here is a pure function of its input: no clock, no randomness, no files,
//! no network, no browser. The web app and the command line are thin shells around it.
//! `clippy.toml` in this crate and a tidy test in `xtask` hold that line.
//!
//! Two crates sit below it and are re-exported under their old paths:
//! `swaplab-base` (`diagnostic`, `order`) and `swaplab-python` (`python`: the Python
//! lexer, scanner and interpreter). Neither depends on the core.

pub mod analysis;
pub mod archive;
pub mod cache;
pub mod crossing;
pub use swaplab_base::diagnostic;
pub mod diff;
pub mod difflib;
pub mod highlight;
pub mod layout;
pub mod markdown;
pub mod memo;
pub use swaplab_base::order;
pub mod permalink;
pub mod proof;
pub use swaplab_python as python;
pub mod rasa;
pub mod review;
pub mod semantic;
pub mod session;
pub mod sim;
pub mod words;
pub mod workspace;
pub mod yaml;

pub use workspace::{Area, FileRef, Project, Workspace};
