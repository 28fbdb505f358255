//! The playground's result panes, one file each. Later panes (proof, review, tools,
//! conversation, attack, trace) join the diff here.

mod diff;

pub use diff::DiffPane;
