//! Diagnostics: what a reader is told about a file, and exactly where.
//!
//! Every reader in this crate returns the best value it could build plus a list of
//! [`Diagnostic`]s. Each one names a file, a 1-based line and column (in characters, as
//! an editor counts them), a severity, the phase of Rasa's lifecycle that would report it,
//! a stable code (Rasa's own code where Rasa has one) and the message (Rasa's exact text
//! where Rasa has one).

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Rasa refuses the file (compile), the model (load) or the training run (train).
    Error,
    /// Rasa accepts it but reports it, or it will misbehave at runtime.
    Warning,
    /// Worth knowing; nothing fails.
    Info,
}

impl Severity {
    /// The lower-case word used in messages.
    pub fn word(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// When Rasa 3.21 would report a finding (reference, lifecycle table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Reading a file at all: YAML syntax, size caps, the Python subset.
    Read,
    /// Skill load (`compile_markdown_skill`): the skill is refused.
    Compile,
    /// `rasa train` / `rasa data validate` findings.
    Train,
    /// Model load and runtime start-up (`parse_mcp_imports`, `MCPRuntime.prepare`).
    Load,
}

impl Phase {
    /// The word used in messages.
    pub fn word(self) -> &'static str {
        match self {
            Phase::Read => "read",
            Phase::Compile => "compile",
            Phase::Train => "train",
            Phase::Load => "load",
        }
    }
}

/// A place in a text file: 1-based line, 1-based column counted in characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Position {
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1, in Unicode scalar values.
    pub column: u32,
}

impl Position {
    /// The first character of a file.
    pub const START: Position = Position { line: 1, column: 1 };

    /// A position from a 1-based line and column.
    pub fn new(line: u32, column: u32) -> Position {
        Position { line: line.max(1), column: column.max(1) }
    }
}

/// A half-open range of a file, `start` inclusive, `end` exclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Span {
    /// First character.
    pub start: Position,
    /// One past the last character (may equal `start` for a point).
    pub end: Position,
}

impl Span {
    /// A zero-width span at `at`.
    pub fn point(at: Position) -> Span {
        Span { start: at, end: at }
    }

    /// The span of a whole line, given its text.
    pub fn line(line: u32, text: &str) -> Span {
        let width = u32::try_from(text.chars().count()).unwrap_or(u32::MAX);
        Span { start: Position::new(line, 1), end: Position::new(line, width.saturating_add(1)) }
    }
}

/// One finding about one place in one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// The file's path inside its project, such as `skills/check_tickets/skill.md`.
    pub file: String,
    /// Where in the file.
    pub span: Span,
    /// How bad it is.
    pub severity: Severity,
    /// When Rasa would report it.
    pub phase: Phase,
    /// Rasa's code (`skill.markdown.invalid_frontmatter`) or ours (`swaplab.…`).
    pub code: String,
    /// Rasa's exact message where Rasa has one.
    pub message: String,
}

impl Diagnostic {
    /// An error.
    pub fn error(
        file: &str,
        span: Span,
        phase: Phase,
        code: impl Into<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            file: file.to_owned(),
            span,
            severity: Severity::Error,
            phase,
            code: code.into(),
            message: message.into(),
        }
    }

    /// A warning.
    pub fn warning(
        file: &str,
        span: Span,
        phase: Phase,
        code: impl Into<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(file, span, phase, code, message)
        }
    }

    /// The same finding with another severity.
    pub fn with_severity(self, severity: Severity) -> Diagnostic {
        Diagnostic { severity, ..self }
    }

    /// Whether this finding stops Rasa (an error in any phase).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    /// `file:line:col: error[code] (compile): message`, the shape editors and terminals link.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}[{}] ({}): {}",
            self.file,
            self.span.start.line,
            self.span.start.column,
            self.severity.word(),
            self.code,
            self.phase.word(),
            self.message
        )
    }
}

/// Maps byte offsets in a text to [`Position`]s.
///
/// Columns count characters. A checkpoint every [`CHECKPOINT_STRIDE`] bytes records how
/// many characters start before it, so a position costs the same on a one-megabyte line
/// as on a short one (none are kept for ASCII text, where bytes are characters).
#[derive(Clone, Debug)]
pub struct LineIndex<'a> {
    text: &'a str,
    table: Cow<'a, LineTable>,
}

/// What a [`LineIndex`] knows about its text, kept without the text: a text read many
/// times (a compiled program's source, at every call) is indexed once, not per read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineTable {
    /// Byte offset of the start of each line.
    starts: Vec<usize>,
    /// `checkpoints[k]`: characters that start before byte `k * CHECKPOINT_STRIDE`.
    checkpoints: Vec<usize>,
}

impl LineTable {
    /// Indexes `text`. Lines end at `\n`; a `\r` before it belongs to the line.
    pub fn new(text: &str) -> LineTable {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(at, _)| at + 1));
        let mut checkpoints = Vec::new();
        if !text.is_ascii() {
            let bytes = text.as_bytes();
            checkpoints.reserve(bytes.len() / CHECKPOINT_STRIDE + 2);
            checkpoints.push(0);
            let mut count = 0;
            for chunk in bytes.chunks(CHECKPOINT_STRIDE) {
                count += char_starts(chunk);
                checkpoints.push(count);
            }
        }
        LineTable { starts, checkpoints }
    }
}

/// Bytes between two character-count checkpoints of a [`LineIndex`].
const CHECKPOINT_STRIDE: usize = 64;

fn char_starts(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

impl<'a> LineIndex<'a> {
    /// Indexes `text`. Lines end at `\n`; a `\r` before it belongs to the line.
    pub fn new(text: &'a str) -> LineIndex<'a> {
        LineIndex { text, table: Cow::Owned(LineTable::new(text)) }
    }

    /// Indexes `text` with the table [`LineTable::new`] built from this same text.
    pub fn with_table(text: &'a str, table: &'a LineTable) -> LineIndex<'a> {
        LineIndex { text, table: Cow::Borrowed(table) }
    }

    /// Characters that start before byte `offset`.
    fn chars_before(&self, offset: usize) -> usize {
        if self.table.checkpoints.is_empty() {
            return offset;
        }
        let k = offset / CHECKPOINT_STRIDE;
        let base = self.table.checkpoints.get(k).copied().unwrap_or(0);
        base + self.text.as_bytes().get(k * CHECKPOINT_STRIDE..offset).map_or(0, char_starts)
    }

    /// The position of byte `offset` (clamped to the text, snapped back to a char).
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while offset > 0 && !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.table.starts.partition_point(|&start| start <= offset).saturating_sub(1);
        let line_start = self.table.starts.get(line).copied().unwrap_or(0);
        let column = self.chars_before(offset).saturating_sub(self.chars_before(line_start));
        Position::new(
            u32::try_from(line + 1).unwrap_or(u32::MAX),
            u32::try_from(column + 1).unwrap_or(u32::MAX),
        )
    }

    /// The span between two byte offsets.
    pub fn span(&self, start: usize, end: usize) -> Span {
        Span { start: self.position(start), end: self.position(end.max(start)) }
    }

    /// The text of 1-based line `line`, without its line break.
    pub fn line_text(&self, line: u32) -> &'a str {
        let Some(&start) = self.table.starts.get((line as usize).saturating_sub(1)) else {
            return "";
        };
        let end = self.table.starts.get(line as usize).map_or(self.text.len(), |&next| next - 1);
        self.text[start..end].trim_end_matches('\r')
    }

    /// The span of the whole of 1-based line `line`.
    pub fn line_span(&self, line: u32) -> Span {
        Span::line(line, self.line_text(line))
    }

    /// How many lines the text has (a final line break does not start a new one).
    pub fn line_count(&self) -> u32 {
        let starts = &self.table.starts;
        let count = if self.text.ends_with('\n') { starts.len() - 1 } else { starts.len() };
        u32::try_from(count.max(1)).unwrap_or(u32::MAX)
    }
}
