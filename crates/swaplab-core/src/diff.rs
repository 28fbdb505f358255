//! Line diffs between the *before* and *after* projects, with word-level emphasis.
//!
//! Built on `similar`, but no `similar` type leaves this module: callers get plain view
//! models with line numbers. Never call `similar`'s clock-reading entry points
//! (`timeout`, `deadline`, `iter_inline_changes`): the browser has no clock to read and
//! panics (`clippy.toml` bans them).

use similar::{ChangeTag, DiffOp, TextDiff};

use crate::workspace::Project;

/// Lines of unchanged context shown around each change, as `diff -u` does.
pub const DEFAULT_CONTEXT: usize = 3;

/// Word-level emphasis is computed only for replaced runs up to this many lines per
/// side, so that one huge rewrite cannot make a diff quadratic.
const INLINE_MAX_LINES: usize = 64;
/// …and up to this many bytes per side.
const INLINE_MAX_BYTES: usize = 8 * 1024;

/// What happened to one line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineKind {
    /// Present on both sides.
    Context,
    /// Only in the old text.
    Removed,
    /// Only in the new text.
    Added,
}

impl LineKind {
    /// The unified-diff marker: ` `, `-` or `+`.
    pub fn marker(self) -> char {
        match self {
            LineKind::Context => ' ',
            LineKind::Removed => '-',
            LineKind::Added => '+',
        }
    }
}

/// A run of a line's text, emphasised when it is the part of the line that changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// The text, without the line's newline.
    pub text: String,
    /// True for the words that differ from the paired line on the other side.
    pub emphasized: bool,
}

/// One line of a hunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffLine {
    /// Context, removed or added.
    pub kind: LineKind,
    /// 1-based line number in the old text, when the line is there.
    pub old_line: Option<usize>,
    /// 1-based line number in the new text, when the line is there.
    pub new_line: Option<usize>,
    /// The line's text split into emphasised and plain runs.
    pub segments: Vec<Segment>,
    /// True when this is the last line of its text and has no trailing newline.
    pub missing_newline: bool,
}

impl DiffLine {
    /// The line's whole text, without its newline.
    pub fn text(&self) -> String {
        self.segments.iter().map(|s| s.text.as_str()).collect()
    }
}

/// A group of changes with their surrounding context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    /// First old line covered (1-based; the line before the hunk when `old_len` is 0).
    pub old_start: usize,
    /// Old lines covered.
    pub old_len: usize,
    /// First new line covered (1-based; the line before the hunk when `new_len` is 0).
    pub new_start: usize,
    /// New lines covered.
    pub new_len: usize,
    /// The hunk's lines in order.
    pub lines: Vec<DiffLine>,
}

impl Hunk {
    /// The `@@ -6,7 +6,7 @@` header, in the form GNU diff and git write.
    pub fn header(&self) -> String {
        fn range(start: usize, len: usize) -> String {
            if len == 1 { start.to_string() } else { format!("{start},{len}") }
        }
        format!(
            "@@ -{} +{} @@",
            range(self.old_start, self.old_len),
            range(self.new_start, self.new_len)
        )
    }
}

/// The diff of one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileDiff {
    /// Hunks in order; empty when the texts are equal.
    pub hunks: Vec<Hunk>,
    /// Lines only in the new text.
    pub added: usize,
    /// Lines only in the old text.
    pub removed: usize,
}

impl FileDiff {
    /// True when the two texts are identical.
    pub fn is_empty(&self) -> bool {
        self.hunks.is_empty()
    }

    /// The diff as `diff -u` text, with `--- old_name` and `+++ new_name` headers.
    pub fn unified(&self, old_name: &str, new_name: &str) -> String {
        let mut out = String::new();
        if self.is_empty() {
            return out;
        }
        out.push_str(&format!("--- {old_name}\n+++ {new_name}\n"));
        for hunk in &self.hunks {
            out.push_str(&hunk.header());
            out.push('\n');
            for line in &hunk.lines {
                out.push(line.kind.marker());
                out.push_str(&line.text());
                out.push('\n');
                if line.missing_newline {
                    out.push_str("\\ No newline at end of file\n");
                }
            }
        }
        out
    }
}

/// Diffs two texts line by line, keeping `context` unchanged lines around each change.
pub fn diff_text(old: &str, new: &str, context: usize) -> FileDiff {
    let diff = TextDiff::configure().diff_lines(old, new);
    let mut file = FileDiff::default();
    for group in diff.grouped_ops(context) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        let mut hunk = Hunk {
            old_start: hunk_start(old_range.start, old_range.len()),
            old_len: old_range.len(),
            new_start: hunk_start(new_range.start, new_range.len()),
            new_len: new_range.len(),
            lines: Vec::new(),
        };
        for op in &group {
            push_op_lines(&diff, op, &mut hunk.lines);
        }
        file.added += hunk.lines.iter().filter(|l| l.kind == LineKind::Added).count();
        file.removed += hunk.lines.iter().filter(|l| l.kind == LineKind::Removed).count();
        file.hunks.push(hunk);
    }
    file
}

fn hunk_start(index: usize, len: usize) -> usize {
    if len == 0 { index } else { index + 1 }
}

fn push_op_lines(diff: &TextDiff<'_, '_, str>, op: &DiffOp, lines: &mut Vec<DiffLine>) {
    let emphasise = match *op {
        DiffOp::Replace { old_index, old_len, new_index, new_len } => {
            let bytes = |range: std::ops::Range<usize>, old: bool| -> usize {
                range
                    .filter_map(|i| if old { diff.old_slice(i) } else { diff.new_slice(i) })
                    .map(str::len)
                    .sum()
            };
            old_len <= INLINE_MAX_LINES
                && new_len <= INLINE_MAX_LINES
                && bytes(old_index..old_index + old_len, true) <= INLINE_MAX_BYTES
                && bytes(new_index..new_index + new_len, false) <= INLINE_MAX_BYTES
        }
        _ => false,
    };
    if emphasise {
        // No deadline: the size limits above bound the work instead of a clock.
        for change in diff.iter_inline_changes_deadline(op, None) {
            let segments = change
                .iter_strings_lossy()
                .map(|(emphasized, text)| Segment { text: text.into_owned(), emphasized })
                .collect();
            lines.push(diff_line(
                change.tag(),
                change.old_index(),
                change.new_index(),
                segments,
                change.missing_newline(),
            ));
        }
    } else {
        for change in diff.iter_changes(op) {
            let segments = vec![Segment { text: change.value().to_owned(), emphasized: false }];
            lines.push(diff_line(
                change.tag(),
                change.old_index(),
                change.new_index(),
                segments,
                change.missing_newline(),
            ));
        }
    }
}

fn diff_line(
    tag: ChangeTag,
    old_index: Option<usize>,
    new_index: Option<usize>,
    mut segments: Vec<Segment>,
    missing_newline: bool,
) -> DiffLine {
    // The line's own newline belongs to the line, not to its text.
    if let Some(last) = segments.last_mut()
        && last.text.ends_with('\n')
    {
        last.text.pop();
        if last.text.ends_with('\r') {
            last.text.pop();
        }
    }
    segments.retain(|s| !s.text.is_empty());
    let kind = match tag {
        ChangeTag::Equal => LineKind::Context,
        ChangeTag::Delete => LineKind::Removed,
        ChangeTag::Insert => LineKind::Added,
    };
    DiffLine {
        kind,
        old_line: old_index.map(|i| i + 1),
        new_line: new_index.map(|i| i + 1),
        segments,
        missing_newline,
    }
}

/// How a path differs between two projects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeStatus {
    /// Only in the new project.
    Added,
    /// Only in the old project.
    Removed,
    /// In both, with different text.
    Modified,
    /// In both, byte-identical.
    Unchanged,
}

impl ChangeStatus {
    /// A one-letter code in the style of `git status --short`.
    pub fn code(self) -> char {
        match self {
            ChangeStatus::Added => 'A',
            ChangeStatus::Removed => 'D',
            ChangeStatus::Modified => 'M',
            ChangeStatus::Unchanged => ' ',
        }
    }
}

/// One path of a project-to-project comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileChange {
    /// The path, relative to the project root.
    pub path: String,
    /// Added, removed, modified or unchanged.
    pub status: ChangeStatus,
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
}

/// Compares every path of two projects, sorted by path.
pub fn project_changes(old: &Project, new: &Project) -> Vec<FileChange> {
    let mut paths: Vec<&str> =
        old.files().map(|(p, _)| p).chain(new.files().map(|(p, _)| p)).collect();
    paths.sort_unstable();
    paths.dedup();
    paths
        .into_iter()
        .map(|path| {
            let (status, added, removed) = match (old.file(path), new.file(path)) {
                (Some(a), Some(b)) if a == b => (ChangeStatus::Unchanged, 0, 0),
                (Some(a), Some(b)) => {
                    let diff = diff_text(a, b, 0);
                    (ChangeStatus::Modified, diff.added, diff.removed)
                }
                (None, Some(b)) => (ChangeStatus::Added, line_count(b), 0),
                (Some(a), None) => (ChangeStatus::Removed, 0, line_count(a)),
                (None, None) => unreachable!("every path comes from one of the two projects"),
            };
            FileChange { path: path.to_owned(), status, added, removed }
        })
        .collect()
}

fn line_count(text: &str) -> usize {
    text.lines().count()
}
