//! Reusable pieces of the interface: header, markdown, file tree, editor, diff, notices.

mod diff_view;
mod editor;
mod file_tree;
mod header;
mod markdown;
mod notice;

pub use diff_view::DiffView;
pub use editor::Editor;
pub use file_tree::{FileStatus, FileTree};
pub use header::Header;
pub use markdown::{Markdown, MarkdownProps};
pub use notice::{Notice, NoticeKind};
