//! `swaplab diff`: what the swap changes — first in meaning, then file by file.
//!
//! The semantic summary comes first (`swaplab_core::semantic`: imports rewritten to MCP,
//! arguments the model now fills in, constraints moved, modules set aside…), one line per
//! change, grouped by skill or project file, each with the place it applies. Then every
//! changed file as a unified diff, or with `--side-by-side` as two columns that fit in 160
//! (long lines cut with `…`). `--json` prints one document instead:
//! `{"view", "semantic": [...], "files": [{path, status, added, removed, hunks}]}`, where
//! `hunks` are unified hunks (lines) or, with `--side-by-side`, side-by-side hunks (rows).
//!
//! Colour comes only from [`Style`], so piped output is plain. A one-line-per-file summary
//! goes to standard error. Exit 0 when the projects are identical, 1 when anything differs.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;
use swaplab_core::Workspace;
use swaplab_core::analysis::Analysis;
use swaplab_core::diff::{
    Cell, ChangeStatus, DEFAULT_CONTEXT, FileChange, FileDiff, Hunk, LineKind, RowKind,
    SideBySideHunk, diff_text, project_changes, side_by_side,
};
use swaplab_core::semantic::{Effect, SemanticChange};

use crate::options::Options;
use crate::style::Style;

/// The widest side-by-side line, in characters.
const WIDTH: usize = 160;
/// Between the two columns.
const SEPARATOR: &str = " │ ";
/// Columns a tab stands for in the side-by-side view.
const TAB: &str = "    ";

/// Prints the semantic summary and the diffs of every changed file (or one JSON
/// document with `--json`); exit 1 when anything differs.
pub fn run(
    workspace: &Workspace,
    options: &Options,
    style: Style,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let changes = project_changes(&workspace.before, &workspace.after);
    let changed: Vec<&FileChange> =
        changes.iter().filter(|c| c.status != ChangeStatus::Unchanged).collect();
    let semantic = Analysis::of(workspace).semantic;
    let files: Vec<ChangedFile<'_>> = changed
        .iter()
        .map(|change| {
            let old = workspace.before.file(&change.path).unwrap_or("");
            let new = workspace.after.file(&change.path).unwrap_or("");
            ChangedFile { change, diff: diff_text(old, new, DEFAULT_CONTEXT) }
        })
        .collect();
    let differs = !changed.is_empty() || !semantic.is_empty();

    if options.json {
        write_json(out, &semantic, &files, options.side_by_side)?;
    } else if differs {
        write_semantic(out, &semantic, style)?;
        for file in &files {
            let (old_name, new_name) = file.names();
            let text = if options.side_by_side {
                render_side_by_side(&file.diff, &old_name, &new_name, style)
            } else {
                render_unified(&file.diff, &old_name, &new_name, style)
            };
            write!(out, "{text}")?;
        }
    }
    out.flush()?;

    let summary: Vec<String> = changed
        .iter()
        .map(|c| format!("{} {} (+{} -{})", c.status.code(), c.path, c.added, c.removed))
        .collect();
    eprintln!(
        "{} of {} paths differ{}{}",
        changed.len(),
        changes.len(),
        if summary.is_empty() { "" } else { ":\n  " },
        summary.join("\n  ")
    );
    Ok(if differs { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// One changed path and its diff.
struct ChangedFile<'c> {
    change: &'c FileChange,
    diff: FileDiff,
}

impl ChangedFile<'_> {
    /// `before/<path>` and `after/<path>`, `/dev/null` for the missing side.
    fn names(&self) -> (String, String) {
        let path = &self.change.path;
        let old = match self.change.status {
            ChangeStatus::Added => "/dev/null".to_owned(),
            _ => format!("before/{path}"),
        };
        let new = match self.change.status {
            ChangeStatus::Removed => "/dev/null".to_owned(),
            _ => format!("after/{path}"),
        };
        (old, new)
    }
}

// ---------------------------------------------------------------------------------------
// The semantic summary

fn write_semantic(out: &mut dyn Write, semantic: &[SemanticChange], style: Style) -> Result<()> {
    let count = match semantic.len() {
        0 => "No semantic changes found".to_owned(),
        1 => "1 semantic change".to_owned(),
        n => format!("{n} semantic changes"),
    };
    writeln!(out, "{}", style.bold(&count))?;
    let mut group: Option<String> = None;
    for change in semantic {
        let heading = match &change.skill {
            Some(skill) => format!("skill {skill}"),
            None => change.file.clone(),
        };
        if group.as_ref() != Some(&heading) {
            writeln!(out, "{}", style.bold(&heading))?;
            group = Some(heading);
        }
        let effect = change.kind.effect();
        let marker = effect.marker().to_string();
        let marker = match effect {
            Effect::Added => style.added(&marker),
            Effect::Removed => style.removed(&marker),
            Effect::Changed => style.warn(&marker),
        };
        // Where to look: the old place for what is gone, else the new one.
        let place = match effect {
            Effect::Removed => change.before.as_ref().or(change.after.as_ref()),
            Effect::Added | Effect::Changed => change.after.as_ref().or(change.before.as_ref()),
        };
        match place {
            Some(place) => {
                writeln!(out, "  {marker} {}  {}", change.text, style.dim(&place.location()))?;
            }
            None => writeln!(out, "  {marker} {}", change.text)?,
        }
    }
    writeln!(out)?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Unified diffs

/// [`FileDiff::unified`]'s text, coloured through `style` (identical when plain).
fn render_unified(diff: &FileDiff, old_name: &str, new_name: &str, style: Style) -> String {
    let mut text = String::new();
    if diff.is_empty() {
        return text;
    }
    text.push_str(&style.bold(&format!("--- {old_name}")));
    text.push('\n');
    text.push_str(&style.bold(&format!("+++ {new_name}")));
    text.push('\n');
    for hunk in &diff.hunks {
        push_hunk(&mut text, hunk, style);
    }
    text
}

fn push_hunk(text: &mut String, hunk: &Hunk, style: Style) {
    text.push_str(&style.dim(&hunk.header()));
    text.push('\n');
    for line in &hunk.lines {
        let paint = |s: &str| match line.kind {
            LineKind::Context => s.to_owned(),
            LineKind::Removed => style.removed(s),
            LineKind::Added => style.added(s),
        };
        text.push_str(&paint(&line.kind.marker().to_string()));
        for segment in &line.segments {
            if segment.emphasized {
                text.push_str(&style.bold(&paint(&segment.text)));
            } else {
                text.push_str(&paint(&segment.text));
            }
        }
        text.push('\n');
        if line.missing_newline {
            text.push_str(&style.dim("\\ No newline at end of file"));
            text.push('\n');
        }
    }
}

// ---------------------------------------------------------------------------------------
// Side by side

/// Two columns of `(WIDTH - SEPARATOR) / 2` characters each: a right-aligned line number,
/// a marker and the text, cut with `…` when it does not fit. Characters count as one
/// column each (wide characters are not measured).
fn render_side_by_side(diff: &FileDiff, old_name: &str, new_name: &str, style: Style) -> String {
    let mut text = String::new();
    let hunks = side_by_side(diff);
    if hunks.is_empty() {
        return text;
    }
    let column = (WIDTH - SEPARATOR.chars().count()) / 2;
    let largest = hunks
        .iter()
        .map(|h| (h.old_start + h.old_len).max(h.new_start + h.new_len))
        .max()
        .unwrap_or(0);
    let digits = largest.to_string().len().max(4);
    let layout = Layout { column, digits, text: column.saturating_sub(digits + 3), style };

    let left = layout.pad(&style.bold(&fit(&format!("--- {old_name}"), column)), column);
    let right = style.bold(&fit(&format!("+++ {new_name}"), column));
    text.push_str(&format!("{left}{SEPARATOR}{right}\n"));
    for hunk in &hunks {
        push_rows(&mut text, hunk, &layout);
    }
    text
}

/// Widths of one side-by-side file.
struct Layout {
    /// Characters per column.
    column: usize,
    /// Characters for the line number.
    digits: usize,
    /// Characters for the line's text.
    text: usize,
    style: Style,
}

impl Layout {
    /// `visible` padded with spaces to `width` characters (escapes are not counted).
    fn pad(&self, painted: &str, width: usize) -> String {
        let visible = strip_escapes(painted).chars().count();
        format!("{painted}{}", " ".repeat(width.saturating_sub(visible)))
    }

    /// One side of a row: number, marker, text. `None` is a blank cell.
    fn cell(&self, cell: Option<&Cell>, marker: char, added: bool) -> String {
        let Some(cell) = cell else { return String::new() };
        let style = self.style;
        let paint = |s: &str| match (marker, added) {
            (' ', _) => s.to_owned(),
            (_, true) => style.added(s),
            (_, false) => style.removed(s),
        };
        let number = style.dim(&format!("{:>width$}", cell.line, width = self.digits));
        let mut out = format!("{number} {} ", paint(&marker.to_string()));
        for (run, emphasized) in runs(cell, self.text) {
            if emphasized {
                out.push_str(&style.bold(&paint(&run)));
            } else {
                out.push_str(&paint(&run));
            }
        }
        out
    }

    /// The `\ No newline at end of file` note in one column.
    fn note(&self, missing: bool) -> String {
        if missing {
            let indent = " ".repeat(self.digits + 3);
            self.style.dim(&fit(&format!("{indent}\\ No newline at end of file"), self.column))
        } else {
            String::new()
        }
    }

    fn row(&self, left: &str, right: &str) -> String {
        let line = format!("{}{SEPARATOR}{right}", self.pad(left, self.column));
        format!("{}\n", line.trim_end())
    }
}

fn push_rows(text: &mut String, hunk: &SideBySideHunk, layout: &Layout) {
    text.push_str(&layout.style.dim(&hunk.header));
    text.push('\n');
    for row in &hunk.rows {
        let (old_marker, new_marker) = match row.kind {
            RowKind::Context => (' ', ' '),
            RowKind::Changed | RowKind::Removed | RowKind::Added => ('-', '+'),
        };
        let left = layout.cell(row.old.as_ref(), old_marker, false);
        let right = layout.cell(row.new.as_ref(), new_marker, true);
        text.push_str(&layout.row(&left, &right));
        let old_missing = row.old.as_ref().is_some_and(|c| c.missing_newline);
        let new_missing = row.new.as_ref().is_some_and(|c| c.missing_newline);
        if old_missing || new_missing {
            text.push_str(&layout.row(&layout.note(old_missing), &layout.note(new_missing)));
        }
    }
}

/// The cell's text as runs of (text, emphasised), tabs expanded and control characters
/// shown as `�`, cut to `width` characters with a final `…`.
fn runs(cell: &Cell, width: usize) -> Vec<(String, bool)> {
    let mut chars: Vec<(char, bool)> = Vec::new();
    for (at, c) in cell.text.char_indices() {
        let emphasized = cell.emphasis.iter().any(|e| e.start <= at && at < e.end);
        match c {
            '\t' => chars.extend(TAB.chars().map(|t| (t, emphasized))),
            c if c.is_control() => chars.push(('\u{fffd}', emphasized)),
            c => chars.push((c, emphasized)),
        }
    }
    if chars.len() > width {
        chars.truncate(width.saturating_sub(1));
        chars.push(('…', false));
    }
    let mut runs: Vec<(String, bool)> = Vec::new();
    for (c, emphasized) in chars {
        match runs.last_mut() {
            Some((run, flag)) if *flag == emphasized => run.push(c),
            _ => runs.push((c.to_string(), emphasized)),
        }
    }
    runs
}

/// `text` cut to `width` characters, the last one `…` when cut.
fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// `text` without ANSI SGR escapes (`ESC [ … m`).
fn strip_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for d in chars.by_ref() {
                if d == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// JSON

#[derive(Serialize)]
struct Document<'a> {
    view: &'static str,
    semantic: &'a [SemanticChange],
    files: Vec<JsonFile<'a>>,
}

#[derive(Serialize)]
struct JsonFile<'a> {
    path: &'a str,
    status: ChangeStatus,
    added: usize,
    removed: usize,
    hunks: JsonHunks<'a>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum JsonHunks<'a> {
    Unified(&'a [Hunk]),
    SideBySide(Vec<SideBySideHunk>),
}

fn write_json(
    out: &mut dyn Write,
    semantic: &[SemanticChange],
    files: &[ChangedFile<'_>],
    side: bool,
) -> Result<()> {
    let document = Document {
        view: if side { "side_by_side" } else { "unified" },
        semantic,
        files: files
            .iter()
            .map(|file| JsonFile {
                path: &file.change.path,
                status: file.change.status,
                added: file.change.added,
                removed: file.change.removed,
                hunks: if side {
                    JsonHunks::SideBySide(side_by_side(&file.diff))
                } else {
                    JsonHunks::Unified(&file.diff.hunks)
                },
            })
            .collect(),
    };
    serde_json::to_writer_pretty(&mut *out, &document)?;
    writeln!(out)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "keep\n\tname: a\nkeep\nlast";
    const NEW: &str = "keep\n\tname: b\nkeep\nlast\n";

    #[test]
    fn coloured_output_is_the_plain_output_plus_escapes() {
        let diff = diff_text(OLD, NEW, DEFAULT_CONTEXT);
        let plain = Style { color: false };
        let color = Style { color: true };
        let unified = render_unified(&diff, "a", "b", color);
        assert!(unified.contains('\x1b'));
        assert_eq!(strip_escapes(&unified), render_unified(&diff, "a", "b", plain));
        assert_eq!(render_unified(&diff, "a", "b", plain), diff.unified("a", "b"));
        let side = render_side_by_side(&diff, "a", "b", color);
        assert!(side.contains('\x1b'));
        assert_eq!(strip_escapes(&side), render_side_by_side(&diff, "a", "b", plain));
    }

    #[test]
    fn side_by_side_lines_fit_and_long_ones_are_cut() {
        let long = "x".repeat(300);
        let diff = diff_text("short\n", &format!("{long}\n"), DEFAULT_CONTEXT);
        let text = render_side_by_side(&diff, "a", "b", Style { color: false });
        for line in text.lines() {
            assert!(line.chars().count() <= WIDTH, "{} > {WIDTH}: {line}", line.chars().count());
        }
        assert!(text.contains("x…"), "{text}");
        let tabs = render_side_by_side(
            &diff_text(OLD, NEW, DEFAULT_CONTEXT),
            "a",
            "b",
            Style { color: false },
        );
        assert!(!tabs.contains('\t'));
        assert!(tabs.contains("\\ No newline at end of file"), "{tabs}");
    }
}
