//! Reusable pieces of the interface: header, markdown, file tree (with its import
//! panel), editor, diff, notices, QR codes and the workshop receipt.

mod diff_view;
mod editor;
mod file_tree;
mod header;
mod import;
mod markdown;
mod notice;
mod qr;
mod receipt_box;

pub use diff_view::DiffView;
pub use editor::{Editor, EditorDiagnostic, EditorProps};
pub use file_tree::{FileStatus, FileTree, file_statuses};
pub use header::Header;
pub use markdown::{Markdown, MarkdownProps, inline_code, internal_link, site_link};
pub use notice::{NoticeKind, notice};
pub use qr::QrCode;
pub use receipt_box::ReceiptBox;
