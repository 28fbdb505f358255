//! The tokenizer: names, numbers, strings (any prefix, triple-quoted, f-strings with
//! nested quotes as in Python 3.12), operators, brackets, and NEWLINE/INDENT/DEDENT from
//! indentation. Comments and blank lines produce no tokens.
//!
//! It never fails: an unterminated string or bracket, a stray character or a bad dedent
//! becomes a diagnostic (with CPython's wording) and scanning goes on. It is one pass with
//! no recursion, so deep nesting and long lines cost linear time.

use serde::Serialize;

use super::locate::Findings;
use swaplab_base::diagnostic::Severity;

/// Code of every syntax finding.
pub(crate) const SYNTAX: &str = "swaplab.python.syntax";

/// `close` value of a token that is not an opening bracket or was never closed.
pub(crate) const NO_MATCH: usize = usize::MAX;

/// Deeper bracket nesting than this is reported, as CPython does.
pub const MAX_BRACKETS: usize = 200;

/// More indentation levels than this are reported, as CPython does.
pub const MAX_INDENTS: usize = 100;

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenKind {
    /// An identifier or a keyword.
    Name,
    /// A numeric literal.
    Number,
    /// A string or bytes literal with its prefix and quotes (f-strings included).
    String,
    /// An operator, delimiter or bracket.
    Op,
    /// The end of a logical line.
    Newline,
    /// The start of a deeper indentation level.
    Indent,
    /// The end of an indentation level (zero width).
    Dedent,
    /// A character Python does not allow here (reported).
    Unknown,
}

/// One token: its kind and its byte range in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Byte offset of its first byte.
    pub start: usize,
    /// Byte offset one past its last byte.
    pub end: usize,
}

/// Tokens plus, for each opening bracket, the index of its closing one.
pub(crate) struct Lexed {
    pub(crate) tokens: Vec<Token>,
    pub(crate) close: Vec<usize>,
}

const OPS3: [&str; 5] = ["**=", "//=", ">>=", "<<=", "..."];
const OPS2: [&str; 19] = [
    "**", "//", ">>", "<<", "<=", ">=", "==", "!=", "->", "+=", "-=", "*=", "/=", "%=", "&=", "|=",
    "^=", "@=", ":=",
];
const OPS1: &[u8] = b"+-*/%@&|^~<>,:;.=!";

/// Tokenizes `text`, reporting problems into `findings`.
pub(crate) fn lex(text: &str, findings: &mut Findings<'_>) -> Lexed {
    Lexer {
        text,
        bytes: text.as_bytes(),
        // Python skips a UTF-8 byte order mark at the start of a file.
        pos: if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 },
        tokens: Vec::new(),
        close: Vec::new(),
        open: Vec::new(),
        indents: vec![(0, false)],
        line_start: true,
        too_deep: false,
        too_indented: false,
        findings,
    }
    .run()
}

struct Lexer<'t, 'f, 'a> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    tokens: Vec<Token>,
    close: Vec<usize>,
    /// Token indices of the brackets still open, innermost last.
    open: Vec<usize>,
    /// Indentation columns, and whether an INDENT token was emitted for each.
    indents: Vec<(usize, bool)>,
    line_start: bool,
    too_deep: bool,
    too_indented: bool,
    findings: &'f mut Findings<'a>,
}

impl Lexer<'_, '_, '_> {
    fn run(mut self) -> Lexed {
        loop {
            if self.line_start && self.open.is_empty() {
                if !self.indentation() {
                    break;
                }
                if self.line_start {
                    continue; // a blank or comment-only line
                }
            }
            let Some(&b) = self.bytes.get(self.pos) else { break };
            match b {
                b' ' | b'\t' | b'\x0c' => self.pos += 1,
                b'\n' | b'\r' => self.newline(),
                b'#' => self.pos = self.line_end(self.pos),
                b'\\' => self.backslash(),
                b'\'' | b'"' => self.string(self.pos, self.pos, ""),
                b'0'..=b'9' => self.number(),
                b'.' if self.bytes.get(self.pos + 1).is_some_and(u8::is_ascii_digit) => {
                    self.number();
                }
                b'(' | b'[' | b'{' => self.opening(),
                b')' | b']' | b'}' => self.closing(b),
                _ if b == b'_' || b.is_ascii_alphabetic() => self.name(),
                _ if b >= 0x80 && self.char_at(self.pos).is_some_and(char::is_alphabetic) => {
                    self.name();
                }
                _ => self.operator(),
            }
        }
        self.finish()
    }

    fn push(&mut self, kind: TokenKind, start: usize, end: usize) -> usize {
        self.tokens.push(Token { kind, start, end });
        self.close.push(NO_MATCH);
        self.tokens.len() - 1
    }

    fn char_at(&self, at: usize) -> Option<char> {
        self.text.get(at..)?.chars().next()
    }

    /// The offset of the line break (or end of text) at or after `from`.
    fn line_end(&self, from: usize) -> usize {
        let rest = self.bytes.get(from..).unwrap_or_default();
        from + rest.iter().position(|&b| b == b'\n' || b == b'\r').unwrap_or(rest.len())
    }

    fn newline_len(&self, at: usize) -> usize {
        if self.bytes.get(at) == Some(&b'\r') && self.bytes.get(at + 1) == Some(&b'\n') {
            2
        } else {
            1
        }
    }

    /// Measures the indentation of a new line. Skips blank and comment-only lines.
    /// Returns false at the end of the text.
    fn indentation(&mut self) -> bool {
        let mut column = 0;
        let mut at = self.pos;
        loop {
            match self.bytes.get(at) {
                Some(b' ') => column += 1,
                Some(b'\t') => column = (column / 8 + 1) * 8,
                Some(b'\x0c') => column = 0,
                _ => break,
            }
            at += 1;
        }
        match self.bytes.get(at) {
            None => {
                self.pos = at;
                return false;
            }
            Some(b'\n' | b'\r') => {
                self.pos = at + self.newline_len(at);
                return true;
            }
            Some(b'#') => {
                let end = self.line_end(at);
                self.pos = end + usize::from(end < self.bytes.len()) * self.newline_len(end);
                return true;
            }
            Some(_) => {}
        }
        let top = self.indents.last().map_or(0, |&(c, _)| c);
        if column > top {
            if self.indents.len() > MAX_INDENTS && !self.too_indented {
                self.too_indented = true;
                let span = (self.pos, at);
                self.findings.push(Severity::Error, span, SYNTAX, "too many levels of indentation");
            }
            self.indents.push((column, true));
            self.push(TokenKind::Indent, self.pos, at);
        } else if column < top {
            while let Some(&(c, emitted)) = self.indents.last() {
                if c <= column || self.indents.len() == 1 {
                    break;
                }
                self.indents.pop();
                if emitted {
                    self.push(TokenKind::Dedent, at, at);
                }
            }
            if self.indents.last().map_or(0, |&(c, _)| c) != column {
                let end = self.line_end(at);
                self.findings.push(
                    Severity::Error,
                    (at, end),
                    SYNTAX,
                    "unindent does not match any outer indentation level",
                );
                self.indents.push((column, false));
            }
        }
        self.pos = at;
        self.line_start = false;
        true
    }

    fn newline(&mut self) {
        let len = self.newline_len(self.pos);
        let next = self.pos + len;
        if self.open.is_empty() {
            if self.tokens.last().is_some_and(|t| t.kind != TokenKind::Newline) {
                self.push(TokenKind::Newline, self.pos, next);
            }
            self.line_start = true;
        } else if self.starts_definition(next) {
            // An unclosed bracket would otherwise swallow the rest of the file; a `def`,
            // `class` or decorator at column 0 cannot be inside brackets, so stop there.
            self.never_closed();
            self.open.clear();
            self.push(TokenKind::Newline, self.pos, next);
            self.line_start = true;
        }
        self.pos = next;
    }

    fn starts_definition(&self, at: usize) -> bool {
        let rest = self.text.get(at..).unwrap_or_default();
        let word = |w: &str| {
            rest.strip_prefix(w).is_some_and(|after| after.starts_with([' ', '\t', '(', ':']))
        };
        word("def")
            || word("class")
            || rest.starts_with("async def")
            || rest
                .strip_prefix('@')
                .is_some_and(|after| after.starts_with(|c: char| c == '_' || c.is_alphabetic()))
    }

    fn never_closed(&mut self) {
        if let Some(&index) = self.open.last()
            && let Some(&token) = self.tokens.get(index)
        {
            let bracket = self.text.get(token.start..token.end).unwrap_or_default();
            self.findings.push(
                Severity::Error,
                (token.start, token.end),
                SYNTAX,
                format!("'{bracket}' was never closed"),
            );
        }
    }

    fn backslash(&mut self) {
        let next = self.pos + 1;
        match self.bytes.get(next) {
            Some(b'\n' | b'\r') => self.pos = next + self.newline_len(next),
            None => {
                self.findings.push(
                    Severity::Error,
                    (self.pos, next),
                    SYNTAX,
                    "unexpected EOF while parsing",
                );
                self.pos = next;
            }
            Some(_) => {
                self.findings.push(
                    Severity::Error,
                    (self.pos, next),
                    SYNTAX,
                    "unexpected character after line continuation character",
                );
                self.push(TokenKind::Unknown, self.pos, next);
                self.pos = next;
            }
        }
    }

    fn name(&mut self) {
        let start = self.pos;
        let mut at = start;
        while let Some(&b) = self.bytes.get(at) {
            if b == b'_' || b.is_ascii_alphanumeric() {
                at += 1;
            } else if b >= 0x80 {
                match self.char_at(at) {
                    Some(c) if c.is_alphanumeric() => at += c.len_utf8(),
                    _ => break,
                }
            } else {
                break;
            }
        }
        let word = self.text.get(start..at).unwrap_or_default();
        let quote = matches!(self.bytes.get(at), Some(b'\'' | b'"'));
        if quote && is_string_prefix(word) {
            self.string(start, at, word);
        } else {
            self.push(TokenKind::Name, start, at);
            self.pos = at;
        }
    }

    fn number(&mut self) {
        let start = self.pos;
        let radix =
            matches!(self.bytes.get(start + 1), Some(b'x' | b'X' | b'o' | b'O' | b'b' | b'B'))
                && self.bytes.get(start) == Some(&b'0');
        let mut at = start;
        while let Some(&b) = self.bytes.get(at) {
            let sign = (b == b'+' || b == b'-')
                && !radix
                && at > start
                && matches!(self.bytes.get(at - 1), Some(b'e' | b'E'))
                && self.bytes.get(at + 1).is_some_and(u8::is_ascii_digit);
            if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || sign {
                at += 1;
            } else {
                break;
            }
        }
        self.push(TokenKind::Number, start, at);
        self.pos = at;
    }

    /// Scans a string whose prefix starts at `start` and whose first quote is at `quote`.
    fn string(&mut self, start: usize, quote: usize, prefix: &str) {
        let formatted = prefix.contains(['f', 'F', 't', 'T']);
        let q = self.bytes.get(quote).copied().unwrap_or(b'"');
        let triple = self.bytes.get(quote + 1) == Some(&q) && self.bytes.get(quote + 2) == Some(&q);
        let opening = quote + if triple { 3 } else { 1 };
        let mut at = opening;
        let mut depth = 0usize;
        let end = loop {
            let Some(&b) = self.bytes.get(at) else {
                self.unterminated(start, opening, at, triple);
                break at;
            };
            match b {
                b'\\' => {
                    at += 1;
                    if self.bytes.get(at) == Some(&b'\r') && self.bytes.get(at + 1) == Some(&b'\n')
                    {
                        at += 2;
                    } else if let Some(c) = self.char_at(at) {
                        at += c.len_utf8();
                    }
                }
                b'\n' | b'\r' if !triple => {
                    self.unterminated(start, opening, at, triple);
                    break at;
                }
                b'{' if formatted => {
                    if depth == 0 && self.bytes.get(at + 1) == Some(&b'{') {
                        at += 2;
                    } else {
                        depth += 1;
                        at += 1;
                    }
                }
                b'}' if formatted => {
                    if depth == 0 && self.bytes.get(at + 1) == Some(&b'}') {
                        at += 2;
                    } else {
                        depth = depth.saturating_sub(1);
                        at += 1;
                    }
                }
                b'\'' | b'"' if formatted && depth > 0 => at = self.nested_string(at, triple),
                _ if b == q => {
                    if !triple {
                        break at + 1;
                    }
                    if self.bytes.get(at + 1) == Some(&q) && self.bytes.get(at + 2) == Some(&q) {
                        break at + 3;
                    }
                    at += 1;
                }
                _ => at += 1,
            }
        };
        self.push(TokenKind::String, start, end);
        self.pos = end;
    }

    /// Skips a string inside an f-string's replacement field; returns the offset after it,
    /// or the line break or end of text that stopped it.
    fn nested_string(&self, quote: usize, outer_triple: bool) -> usize {
        let q = self.bytes.get(quote).copied().unwrap_or(b'"');
        let triple = self.bytes.get(quote + 1) == Some(&q) && self.bytes.get(quote + 2) == Some(&q);
        let mut at = quote + if triple { 3 } else { 1 };
        loop {
            match self.bytes.get(at) {
                None => return self.bytes.len(),
                Some(b'\\') => at = (at + 2).min(self.bytes.len()),
                Some(b'\n' | b'\r') if !triple && !outer_triple => return at,
                Some(&b) if b == q => {
                    if !triple {
                        return at + 1;
                    }
                    if self.bytes.get(at + 1) == Some(&q) && self.bytes.get(at + 2) == Some(&q) {
                        return at + 3;
                    }
                    at += 1;
                }
                Some(_) => at += 1,
            }
        }
    }

    fn unterminated(&mut self, start: usize, opening: usize, at: usize, triple: bool) {
        let line = self.findings.locator.position(at).line;
        let what = if triple { "triple-quoted string literal" } else { "string literal" };
        self.findings.push(
            Severity::Error,
            (start, opening),
            SYNTAX,
            format!("unterminated {what} (detected at line {line})"),
        );
    }

    fn opening(&mut self) {
        let index = self.push(TokenKind::Op, self.pos, self.pos + 1);
        self.open.push(index);
        if self.open.len() > MAX_BRACKETS && !self.too_deep {
            self.too_deep = true;
            let span = (self.pos, self.pos + 1);
            self.findings.push(Severity::Error, span, SYNTAX, "too many nested parentheses");
        }
        self.pos += 1;
    }

    fn closing(&mut self, b: u8) {
        let index = self.push(TokenKind::Op, self.pos, self.pos + 1);
        let span = (self.pos, self.pos + 1);
        self.pos += 1;
        let opener = |i: &usize| {
            self.tokens.get(*i).and_then(|t| self.bytes.get(t.start)).copied().unwrap_or(b'(')
        };
        let Some(top) = self.open.last() else {
            let message = format!("unmatched '{}'", char::from(b));
            self.findings.push(Severity::Error, span, SYNTAX, message);
            return;
        };
        let open_byte = opener(top);
        if pair(open_byte) == b {
            if let Some(top) = self.open.pop()
                && let Some(slot) = self.close.get_mut(top)
            {
                *slot = index;
            }
            return;
        }
        let message = format!(
            "closing parenthesis '{}' does not match opening parenthesis '{}'",
            char::from(b),
            char::from(open_byte)
        );
        self.findings.push(Severity::Error, span, SYNTAX, message);
        // Recover by closing the nearest matching bracket, if it is not too far down.
        let floor = self.open.len().saturating_sub(MAX_BRACKETS);
        let found = (floor..self.open.len())
            .rev()
            .find(|&k| self.open.get(k).is_some_and(|i| pair(opener(i)) == b));
        if let Some(k) = found {
            if let Some(&matched) = self.open.get(k)
                && let Some(slot) = self.close.get_mut(matched)
            {
                *slot = index;
            }
            self.open.truncate(k);
        }
    }

    fn operator(&mut self) {
        let rest = self.text.get(self.pos..).unwrap_or_default();
        let len = OPS3
            .iter()
            .chain(OPS2.iter())
            .find(|op| rest.starts_with(*op))
            .map(|op| op.len())
            .or_else(|| self.bytes.get(self.pos).filter(|b| OPS1.contains(b)).map(|_| 1));
        if let Some(len) = len {
            self.push(TokenKind::Op, self.pos, self.pos + len);
            self.pos += len;
            return;
        }
        let c = self.char_at(self.pos).unwrap_or('\u{fffd}');
        let end = self.pos + c.len_utf8();
        let message = format!("invalid character '{}' (U+{:04X})", c.escape_debug(), u32::from(c));
        self.findings.push(Severity::Error, (self.pos, end), SYNTAX, message);
        self.push(TokenKind::Unknown, self.pos, end);
        self.pos = end;
    }

    fn finish(mut self) -> Lexed {
        self.never_closed();
        let end = self.bytes.len();
        if self.tokens.last().is_some_and(|t| t.kind != TokenKind::Newline) {
            self.push(TokenKind::Newline, end, end);
        }
        while let Some((_, emitted)) = self.indents.pop() {
            if emitted {
                self.push(TokenKind::Dedent, end, end);
            }
        }
        Lexed { tokens: self.tokens, close: self.close }
    }
}

/// The closing bracket for an opening one.
fn pair(open: u8) -> u8 {
    match open {
        b'[' => b']',
        b'{' => b'}',
        _ => b')',
    }
}

/// Whether `word` is a string prefix Python accepts (`r`, `b`, `f`, `u`, `t` and pairs).
fn is_string_prefix(word: &str) -> bool {
    matches!(
        word.to_ascii_lowercase().as_str(),
        "r" | "u" | "b" | "f" | "t" | "br" | "rb" | "fr" | "rf" | "tr" | "rt"
    )
}
