//! The capped list of findings a scan collects, located with
//! [`swaplab_base::diagnostic::LineIndex`] (whose checkpoints keep a one-megabyte line with many
//! findings linear).

use swaplab_base::diagnostic::{Diagnostic, LineIndex, Phase, Position, Severity, Span};

/// More findings than this are summarised in one last note.
const MAX_FINDINGS: usize = 100;

/// The findings of one scan of one file, in `Phase::Read`, capped at [`MAX_FINDINGS`].
pub(crate) struct Findings<'a> {
    path: &'a str,
    pub(crate) locator: LineIndex<'a>,
    list: Vec<Diagnostic>,
    dropped: usize,
}

impl<'a> Findings<'a> {
    pub(crate) fn new(path: &'a str, text: &'a str) -> Findings<'a> {
        Findings { path, locator: LineIndex::new(text), list: Vec::new(), dropped: 0 }
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
        swaplab_base::order::sort_by(&mut self.list, |a, b| {
            (a.span, &a.code, &a.message).cmp(&(b.span, &b.code, &b.message))
        });
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
