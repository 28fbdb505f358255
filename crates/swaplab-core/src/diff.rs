//! Line diffs between the *before* and *after* projects, with word-level emphasis.
//!
//! Built on `similar`'s Myers algorithm, called one way only (`&str` slices, no
//! deadline) for both lines and words: every other entry point monomorphises the
//! algorithm again and weighs on the wasm, and the clock-reading ones (`timeout`,
//! `deadline`, `iter_inline_changes`) panic in the browser (`clippy.toml` bans them).
//! No `similar` type leaves this module: callers get plain view models.
//!
//! Two views of one [`FileDiff`]: the unified one ([`FileDiff::unified`], `diff -u`'s
//! text) and the side-by-side one ([`side_by_side`]: rows pairing each replaced old line
//! with its new line, blank on the missing side). Both are plain serializable data, so
//! the web app and the command line render the same hunks.

use std::sync::Arc;

use serde::Serialize;
use similar::DiffOp;
use similar::algorithms::{Capture, Compact, Replace, myers};

use crate::workspace::{Area, FileRef, Project};

/// Lines of unchanged context shown around each change, as `diff -u` does.
pub const DEFAULT_CONTEXT: usize = 3;

/// Word-level emphasis is computed only for replaced runs up to this many lines per
/// side, so that one huge rewrite cannot make a diff quadratic.
const INLINE_MAX_LINES: usize = 64;
/// …and up to this many bytes per side.
const INLINE_MAX_BYTES: usize = 8 * 1024;

/// What happened to one line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Segment {
    /// The text, without the line's newline.
    pub text: String,
    /// True for the words that differ from the paired line on the other side.
    pub emphasized: bool,
}

/// One line of a hunk.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
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
    let old_lines = split_lines(old);
    let new_lines = split_lines(new);
    let mut file = FileDiff::default();
    for group in similar::group_diff_ops(diff_slices(&old_lines, &new_lines), context) {
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
            push_op_lines(&old_lines, &new_lines, op, &mut hunk.lines);
        }
        file.added += hunk.lines.iter().filter(|l| l.kind == LineKind::Added).count();
        file.removed += hunk.lines.iter().filter(|l| l.kind == LineKind::Removed).count();
        file.hunks.push(hunk);
    }
    file
}

/// A removed or added line, without word emphasis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangedLine<'t> {
    /// Removed or added.
    pub kind: LineKind,
    /// 1-based: the old line's number for a removed line, the new one's for an added.
    pub line: usize,
    /// The text without its line ending.
    pub text: &'t str,
}

/// The lines [`diff_text`] marks removed or added, in its order, without the word-level
/// emphasis or hunks: what the proof's check and the file list need, at a fraction of
/// the cost (a 300-skill rerun compares every skill file twice).
pub fn changed_lines<'t>(old: &'t str, new: &'t str) -> Vec<ChangedLine<'t>> {
    let old_lines = split_lines(old);
    let new_lines = split_lines(new);
    let mut changed = Vec::new();
    for op in diff_slices(&old_lines, &new_lines) {
        if let DiffOp::Equal { .. } = op {
            continue;
        }
        for (index, text) in op.old_range().map(|i| (i, old_lines[i])) {
            changed.push(ChangedLine {
                kind: LineKind::Removed,
                line: index + 1,
                text: bare(text),
            });
        }
        for (index, text) in op.new_range().map(|i| (i, new_lines[i])) {
            changed.push(ChangedLine { kind: LineKind::Added, line: index + 1, text: bare(text) });
        }
    }
    changed
}

/// A line without its ending (`\n` or `\r\n`), as [`DiffLine::text`] gives it.
fn bare(line: &str) -> &str {
    match line.strip_suffix('\n') {
        Some(rest) => rest.strip_suffix('\r').unwrap_or(rest),
        None => line,
    }
}

/// The one way this module runs Myers: on `&str` slices, with no deadline.
fn diff_slices(old: &[&str], new: &[&str]) -> Vec<DiffOp> {
    let mut hook = Compact::new(Replace::new(Capture::new()), old, new);
    let captured = myers::diff_deadline_raw(&mut hook, old, 0..old.len(), new, 0..new.len(), None);
    match captured {
        Ok(()) => hook.into_inner().into_inner().into_ops(),
        Err(never) => match never {},
    }
}

/// Lines with their line endings, so that a missing final newline is a difference: what
/// `text.split_inclusive('\n')` gives, found with `memchr` (already linked through
/// pulldown-cmark and serde_json) into a vector sized once. The iterator's per-line
/// search and the vector's regrowth were most of a 300-skill rerun's diffing, which
/// splits every skill file twice.
fn split_lines(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut lines = Vec::with_capacity(memchr::memchr_iter(b'\n', bytes).count() + 1);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', bytes) {
        // `\n` is ASCII, so both ends are character boundaries.
        lines.push(&text[start..=end]);
        start = end + 1;
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// Words (runs of letters, digits and `_`), runs of spaces, and single other characters.
fn split_words(text: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut start = 0;
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            0
        } else if c == ' ' || c == '\t' {
            1
        } else {
            2
        }
    };
    let mut previous: Option<u8> = None;
    for (i, c) in text.char_indices() {
        let current = class(c);
        if i > start && (previous != Some(current) || current == 2) {
            words.push(&text[start..i]);
            start = i;
        }
        previous = Some(current);
    }
    if start < text.len() {
        words.push(&text[start..]);
    }
    words
}

fn hunk_start(index: usize, len: usize) -> usize {
    if len == 0 { index } else { index + 1 }
}

fn push_op_lines(old: &[&str], new: &[&str], op: &DiffOp, lines: &mut Vec<DiffLine>) {
    let old_range = op.old_range();
    let new_range = op.new_range();
    let old_run = &old[old_range.clone()];
    let new_run = &new[new_range.clone()];
    if let DiffOp::Equal { .. } = op {
        for (offset, text) in old_run.iter().enumerate() {
            let (o, n) = (old_range.start + offset, new_range.start + offset);
            lines.push(diff_line(
                LineKind::Context,
                Some(o),
                Some(n),
                plain(text),
                o + 1 == old.len(),
            ));
        }
        return;
    }
    let small = |run: &[&str]| {
        run.len() <= INLINE_MAX_LINES
            && run.iter().map(|l| l.len()).sum::<usize>() <= INLINE_MAX_BYTES
    };
    let (old_segments, new_segments) =
        if matches!(op, DiffOp::Replace { .. }) && small(old_run) && small(new_run) {
            emphasise(old_run, new_run)
        } else {
            (old_run.iter().map(|t| plain(t)).collect(), new_run.iter().map(|t| plain(t)).collect())
        };
    push_side(lines, LineKind::Removed, old_range.start, old.len(), old_segments);
    push_side(lines, LineKind::Added, new_range.start, new.len(), new_segments);
}

fn plain(text: &str) -> Vec<Segment> {
    vec![Segment { text: text.to_owned(), emphasized: false }]
}

/// Pushes one side of a change: removed lines carry old numbers, added lines new ones.
fn push_side(
    lines: &mut Vec<DiffLine>,
    kind: LineKind,
    start: usize,
    total: usize,
    segments: Vec<Vec<Segment>>,
) {
    for (offset, segments) in segments.into_iter().enumerate() {
        let index = start + offset;
        let (old_line, new_line) =
            if kind == LineKind::Removed { (Some(index), None) } else { (None, Some(index)) };
        lines.push(diff_line(kind, old_line, new_line, segments, index + 1 == total));
    }
}

/// Splits two runs of replaced lines into per-line segments, marking the words that
/// differ between them.
fn emphasise(old: &[&str], new: &[&str]) -> (Vec<Vec<Segment>>, Vec<Vec<Segment>>) {
    let old_joined: String = old.concat();
    let new_joined: String = new.concat();
    let old_words = split_words(&old_joined);
    let new_words = split_words(&new_joined);
    let mut old_marks = vec![false; old_words.len()];
    let mut new_marks = vec![false; new_words.len()];
    for op in diff_slices(&old_words, &new_words) {
        if !matches!(op, DiffOp::Equal { .. }) {
            old_marks[op.old_range()].fill(true);
            new_marks[op.new_range()].fill(true);
        }
    }
    (by_line(&old_words, &old_marks), by_line(&new_words, &new_marks))
}

/// Regroups marked words into lines of segments, merging neighbours with the same mark.
fn by_line(words: &[&str], marks: &[bool]) -> Vec<Vec<Segment>> {
    let mut lines = vec![Vec::new()];
    for (word, &emphasized) in words.iter().zip(marks) {
        let line: &mut Vec<Segment> = lines.last_mut().expect("starts with one line");
        match line.last_mut() {
            Some(last) if last.emphasized == emphasized && *word != "\n" => {
                last.text.push_str(word);
            }
            _ => line.push(Segment {
                text: (*word).to_owned(),
                emphasized: emphasized && *word != "\n",
            }),
        }
        if *word == "\n" {
            lines.push(Vec::new());
        }
    }
    if lines.last().is_some_and(Vec::is_empty) {
        lines.pop();
    }
    lines
}

fn diff_line(
    kind: LineKind,
    old_index: Option<usize>,
    new_index: Option<usize>,
    mut segments: Vec<Segment>,
    last_of_text: bool,
) -> DiffLine {
    // The line's own ending (`\n` or `\r\n`) belongs to the line, not to its text. In
    // emphasised lines the `\n` is a segment of its own, so strip across segments.
    let mut had_newline = false;
    for ending in ['\n', '\r'] {
        segments.retain(|s| !s.text.is_empty());
        let Some(last) = segments.last_mut() else { break };
        if last.text.ends_with(ending) && (ending == '\n' || had_newline) {
            last.text.pop();
            had_newline = true;
        }
    }
    segments.retain(|s| !s.text.is_empty());
    DiffLine {
        kind,
        old_line: old_index.map(|i| i + 1),
        new_line: new_index.map(|i| i + 1),
        segments,
        missing_newline: last_of_text && !had_newline,
    }
}

/// How the two cells of a side-by-side row relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RowKind {
    /// The same line on both sides.
    Context,
    /// An old line replaced by the new line beside it.
    Changed,
    /// An old line with nothing beside it.
    Removed,
    /// A new line with nothing beside it.
    Added,
}

/// A byte range of a cell's text that differs from the cell beside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Emphasis {
    /// First byte (on a character boundary).
    pub start: usize,
    /// One past the last byte (on a character boundary).
    pub end: usize,
}

/// One side of a side-by-side row: a line of one text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cell {
    /// 1-based line number in its text.
    pub line: usize,
    /// The line's text, without its newline.
    pub text: String,
    /// The parts of `text` that changed, in order and not overlapping.
    pub emphasis: Vec<Emphasis>,
    /// True when this is the last line of its text and has no trailing newline.
    pub missing_newline: bool,
}

impl Cell {
    fn from_line(line: &DiffLine, number: usize) -> Cell {
        let mut text = String::new();
        let mut emphasis: Vec<Emphasis> = Vec::new();
        for segment in &line.segments {
            let start = text.len();
            text.push_str(&segment.text);
            if segment.emphasized && !segment.text.is_empty() {
                match emphasis.last_mut() {
                    Some(last) if last.end == start => last.end = text.len(),
                    _ => emphasis.push(Emphasis { start, end: text.len() }),
                }
            }
        }
        Cell { line: number, text, emphasis, missing_newline: line.missing_newline }
    }
}

/// One row of the side-by-side view: the old line on the left, the new on the right.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Row {
    /// Context, changed, removed or added.
    pub kind: RowKind,
    /// The old line (`None` beside a pure insertion).
    pub old: Option<Cell>,
    /// The new line (`None` beside a pure deletion).
    pub new: Option<Cell>,
}

/// A hunk of the side-by-side view: the same lines and context as the unified hunk.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SideBySideHunk {
    /// The unified hunk's `@@ -6,7 +6,7 @@` header.
    pub header: String,
    /// First old line covered (as in [`Hunk::old_start`]).
    pub old_start: usize,
    /// Old lines covered.
    pub old_len: usize,
    /// First new line covered (as in [`Hunk::new_start`]).
    pub new_start: usize,
    /// New lines covered.
    pub new_len: usize,
    /// The rows in order.
    pub rows: Vec<Row>,
}

/// The side-by-side view of a diff: in each hunk, every run of removed lines is paired
/// line by line with the run of added lines that follows it (a replacement); the longer
/// run's extra lines, and pure insertions and deletions, get a blank cell opposite.
pub fn side_by_side(diff: &FileDiff) -> Vec<SideBySideHunk> {
    diff.hunks
        .iter()
        .map(|hunk| SideBySideHunk {
            header: hunk.header(),
            old_start: hunk.old_start,
            old_len: hunk.old_len,
            new_start: hunk.new_start,
            new_len: hunk.new_len,
            rows: hunk_rows(&hunk.lines),
        })
        .collect()
}

fn hunk_rows(lines: &[DiffLine]) -> Vec<Row> {
    let mut rows = Vec::with_capacity(lines.len());
    let mut removed: Vec<Cell> = Vec::new();
    let mut added: Vec<Cell> = Vec::new();
    for line in lines {
        match (line.kind, line.old_line, line.new_line) {
            (LineKind::Removed, Some(old), _) => {
                // A removed line after added ones starts a new change.
                if !added.is_empty() {
                    flush_change(&mut rows, &mut removed, &mut added);
                }
                removed.push(Cell::from_line(line, old));
            }
            (LineKind::Added, _, Some(new)) => added.push(Cell::from_line(line, new)),
            (LineKind::Context, Some(old), Some(new)) => {
                flush_change(&mut rows, &mut removed, &mut added);
                rows.push(Row {
                    kind: RowKind::Context,
                    old: Some(Cell::from_line(line, old)),
                    new: Some(Cell::from_line(line, new)),
                });
            }
            // A line without the number its kind needs is not built by `diff_text`.
            _ => {}
        }
    }
    flush_change(&mut rows, &mut removed, &mut added);
    rows
}

/// Pairs a run of removed lines with the added run after it, and empties both.
fn flush_change(rows: &mut Vec<Row>, removed: &mut Vec<Cell>, added: &mut Vec<Cell>) {
    let mut old = removed.drain(..);
    let mut new = added.drain(..);
    loop {
        let row = match (old.next(), new.next()) {
            (None, None) => break,
            (Some(o), Some(n)) => Row { kind: RowKind::Changed, old: Some(o), new: Some(n) },
            (Some(o), None) => Row { kind: RowKind::Removed, old: Some(o), new: None },
            (None, Some(n)) => Row { kind: RowKind::Added, old: None, new: Some(n) },
        };
        rows.push(row);
    }
}

/// How a path differs between two projects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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
    project_changes_with(old, new, &mut ChangesMemo::default())
}

/// What [`project_changes_with`] compared last time: each path's two texts (shared, so
/// a text the reader did not touch is the same allocation in the next revision) and
/// what the comparison found.
#[derive(Debug, Default)]
pub struct ChangesMemo {
    kept: Vec<Compared>,
}

/// One path's texts before and after (shared), and what comparing them found.
type Compared = (Option<Arc<str>>, Option<Arc<str>>, FileChange);

/// [`project_changes`], reusing `memo`'s result for every path whose two texts are the
/// ones it compared last time: a keystroke in one file of a swap that changed hundreds
/// diffs one file, not hundreds. Same result as [`project_changes`].
pub fn project_changes_with(
    old: &Project,
    new: &Project,
    memo: &mut ChangesMemo,
) -> Vec<FileChange> {
    let mut paths: Vec<&str> =
        old.files().map(|(p, _)| p).chain(new.files().map(|(p, _)| p)).collect();
    crate::order::sort(&mut paths);
    paths.dedup();
    let same = |a: Option<&Arc<str>>, b: &Option<Arc<str>>| match (a, b) {
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    };
    let kept = std::mem::take(&mut memo.kept);
    memo.kept = paths
        .into_iter()
        .map(|path| {
            let (a, b) = (old.shared_file(path), new.shared_file(path));
            let earlier = kept
                .binary_search_by(|(_, _, change)| change.path.as_str().cmp(path))
                .ok()
                .map(|at| &kept[at])
                .filter(|(was_a, was_b, _)| same(a, was_a) && same(b, was_b));
            let change = match earlier {
                Some((_, _, change)) => change.clone(),
                None => compare_file(path, a.map(|t| &**t), b.map(|t| &**t)),
            };
            (a.cloned(), b.cloned(), change)
        })
        .collect();
    memo.kept.iter().map(|(_, _, change)| change.clone()).collect()
}

/// How one path differs between two projects: its texts on each side, if any.
fn compare_file(path: &str, old: Option<&str>, new: Option<&str>) -> FileChange {
    let (status, added, removed) = match (old, new) {
        (Some(a), Some(b)) if a == b => (ChangeStatus::Unchanged, 0, 0),
        (Some(a), Some(b)) => {
            let changed = changed_lines(a, b);
            let added = changed.iter().filter(|l| l.kind == LineKind::Added).count();
            (ChangeStatus::Modified, added, changed.len() - added)
        }
        (None, Some(b)) => (ChangeStatus::Added, line_count(b), 0),
        (Some(a), None) => (ChangeStatus::Removed, 0, line_count(a)),
        (None, None) => unreachable!("every path comes from one of the two projects"),
    };
    FileChange { path: path.to_owned(), status, added, removed }
}

fn line_count(text: &str) -> usize {
    text.lines().count()
}

/// What the swap did to each file of the two projects (from [`project_changes`]),
/// addressed as workspace files: a modified path is marked on both sides, an added one
/// on the *after* side, a removed one on the *before* side. Unchanged files are left out.
pub fn swap_marks(changes: &[FileChange]) -> Vec<(FileRef, ChangeStatus)> {
    let mut marks = Vec::new();
    for change in changes {
        let areas: &[Area] = match change.status {
            ChangeStatus::Modified => &[Area::Before, Area::After],
            ChangeStatus::Added => &[Area::After],
            ChangeStatus::Removed => &[Area::Before],
            ChangeStatus::Unchanged => &[],
        };
        marks.extend(
            areas.iter().map(|area| (FileRef::new(*area, change.path.clone()), change.status)),
        );
    }
    crate::order::sort(&mut marks);
    marks
}

#[cfg(test)]
mod tests {
    use super::split_lines;

    #[test]
    fn lines_split_as_split_inclusive_splits_them() {
        for text in [
            "",
            "\n",
            "\n\n",
            "a",
            "a\n",
            "a\nb",
            "a\nb\n",
            "a\r\nb\r\n",
            "\r\n",
            "é\nü\n✓",
            "\u{2028}x\ny",
            "no newline at all\r",
        ] {
            let expected: Vec<&str> = text.split_inclusive('\n').collect();
            assert_eq!(split_lines(text), expected, "{text:?}");
        }
    }
}
