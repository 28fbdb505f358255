//! Byte offsets to line and column, and the capped list of findings a scan collects.
//!
//! Columns count characters, as [`crate::diagnostic::LineIndex`] does, but in time
//! independent of the line's length (a checkpoint every 64 bytes), so a one-megabyte
//! line with many findings stays linear. Never slices a string off a char boundary.

use crate::diagnostic::{Diagnostic, Phase, Position, Severity, Span};

/// Bytes between two character-count checkpoints.
const STRIDE: usize = 64;

/// More findings than this are summarised in one last note.
const MAX_FINDINGS: usize = 100;

/// Maps byte offsets to 1-based lines and character columns.
pub(crate) struct Locator<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
    /// `checkpoints[k]`: how many characters start before byte `k * STRIDE`; empty
    /// when the text is ASCII and bytes are characters.
    checkpoints: Vec<usize>,
}

impl<'a> Locator<'a> {
    pub(crate) fn new(text: &'a str) -> Locator<'a> {
        let bytes = text.as_bytes();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(at, _)| at + 1));
        let mut checkpoints = Vec::new();
        if !text.is_ascii() {
            checkpoints.reserve(bytes.len() / STRIDE + 1);
            let mut count = 0;
            checkpoints.push(0);
            for chunk in bytes.chunks(STRIDE) {
                count += char_starts(chunk);
                checkpoints.push(count);
            }
        }
        Locator { text, line_starts, checkpoints }
    }

    fn chars_before(&self, offset: usize) -> usize {
        if self.checkpoints.is_empty() {
            return offset;
        }
        let k = offset / STRIDE;
        let base = self.checkpoints.get(k).copied().unwrap_or(0);
        base + self.text.as_bytes().get(k * STRIDE..offset).map_or(0, char_starts)
    }

    /// The position of byte `offset`, clamped to the text and snapped back to a char.
    pub(crate) fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while offset > 0 && !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&start| start <= offset).saturating_sub(1);
        let line_start = self.line_starts.get(line).copied().unwrap_or(0);
        let column = self.chars_before(offset).saturating_sub(self.chars_before(line_start));
        Position::new(
            u32::try_from(line + 1).unwrap_or(u32::MAX),
            u32::try_from(column + 1).unwrap_or(u32::MAX),
        )
    }

    /// The span between two byte offsets.
    pub(crate) fn span(&self, start: usize, end: usize) -> Span {
        Span { start: self.position(start), end: self.position(end.max(start)) }
    }
}

fn char_starts(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

/// The findings of one scan of one file, in `Phase::Read`, capped at [`MAX_FINDINGS`].
pub(crate) struct Findings<'a> {
    path: &'a str,
    pub(crate) locator: Locator<'a>,
    list: Vec<Diagnostic>,
    dropped: usize,
}

impl<'a> Findings<'a> {
    pub(crate) fn new(path: &'a str, text: &'a str) -> Findings<'a> {
        Findings { path, locator: Locator::new(text), list: Vec::new(), dropped: 0 }
    }

    /// The span between two byte offsets.
    pub(crate) fn span(&self, start: usize, end: usize) -> Span {
        self.locator.span(start, end)
    }

    /// Records a finding at a span already computed.
    pub(crate) fn push_span(
        &mut self,
        severity: Severity,
        span: Span,
        code: &str,
        message: impl Into<String>,
    ) {
        if self.list.len() >= MAX_FINDINGS {
            self.dropped += 1;
            return;
        }
        let diagnostic = Diagnostic::error(self.path, span, Phase::Read, code, message);
        self.list.push(diagnostic.with_severity(severity));
    }

    /// Records a finding about the bytes `start..end`.
    pub(crate) fn push(
        &mut self,
        severity: Severity,
        (start, end): (usize, usize),
        code: &str,
        message: impl Into<String>,
    ) {
        if self.list.len() >= MAX_FINDINGS {
            self.dropped += 1;
            return;
        }
        let span = self.span(start, end);
        self.push_span(severity, span, code, message);
    }

    /// The findings in file order, duplicates removed, with a note for any dropped.
    pub(crate) fn finish(mut self) -> Vec<Diagnostic> {
        self.list.sort_by(|a, b| (a.span, &a.code, &a.message).cmp(&(b.span, &b.code, &b.message)));
        self.list.dedup();
        if self.dropped > 0 {
            let at = self.list.last().map_or(Span::point(Position::START), |d| d.span);
            let message = format!(
                "{} more findings in this file are not shown; fix the ones above first",
                self.dropped
            );
            let note = Diagnostic::error(self.path, at, Phase::Read, TOO_MANY, message);
            self.list.push(note.with_severity(Severity::Info));
        }
        self.list
    }
}

/// Code of the note that stands for findings beyond the cap.
pub(crate) const TOO_MANY: &str = "swaplab.python.too_many_findings";
