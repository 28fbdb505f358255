//! A tokenized file read as logical lines and blocks, plus the small grammar both scanners
//! share: module-level items (imports, statements, decorated `def`s and `class`es), the
//! statements of a body, call arguments, dotted names and parameter lists.
//!
//! Everything works on token ranges with the bracket matches the tokenizer computed, so
//! nothing here recurses and every token is visited a bounded number of times. Indexing
//! goes through `get`, so a damaged file can only make a range empty, never panic.

use super::lex::{Lexed, NO_MATCH, SYNTAX, Token, TokenKind, lex};
use super::locate::Findings;
use swaplab_base::diagnostic::{Severity, Span};

/// A file's tokens, logical lines and findings.
pub(crate) struct Source<'a> {
    pub(crate) text: &'a str,
    pub(crate) tokens: Vec<Token>,
    /// For each opening bracket, the index of its closing one, else [`NO_MATCH`].
    close: Vec<usize>,
    pub(crate) lines: Vec<Line>,
    pub(crate) findings: Findings<'a>,
    /// Every `lambda` the interpreter's parser read from this file, so that a closure
    /// made in one call of a process can be found again in a later one.
    pub(crate) lambdas: std::cell::RefCell<Vec<std::sync::Arc<crate::interp::LambdaDef>>>,
}

/// One logical line: tokens `start..end` (its NEWLINE excluded) at indentation `depth`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Line {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) depth: usize,
}

/// The body of a `def` or `class`: statements after the header's colon on the same line,
/// then the logical lines `lines.0..lines.1`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Body {
    pub(crate) inline: Option<(usize, usize)>,
    pub(crate) lines: (usize, usize),
}

/// A statement: tokens `start..end`; `header` for the header of a compound statement
/// (`for x in y`, without its colon).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stmt {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) header: bool,
}

/// `@expression` before a `def` or `class`.
#[derive(Clone, Debug)]
pub(crate) struct Decorator {
    /// Tokens of the expression after `@`.
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// The expression when it is a dotted name or a call of one.
    pub(crate) target: Option<Call>,
}

/// `name(args)` or a bare `name`, where name is dotted.
#[derive(Clone, Debug)]
pub(crate) struct Call {
    pub(crate) name: String,
    /// Tokens of the dotted name.
    pub(crate) name_start: usize,
    pub(crate) name_end: usize,
    /// The brackets of the argument list, when called.
    pub(crate) parens: Option<(usize, usize)>,
}

/// A `def` at module level.
#[derive(Clone, Debug)]
pub(crate) struct Def {
    pub(crate) decorators: Vec<Decorator>,
    pub(crate) is_async: bool,
    pub(crate) name: usize,
    pub(crate) parens: (usize, usize),
    pub(crate) returns: Option<(usize, usize)>,
    pub(crate) body: Body,
}

/// A `class` at module level.
#[derive(Clone, Debug)]
pub(crate) struct Class {
    pub(crate) name: usize,
    pub(crate) bases: Option<(usize, usize)>,
    pub(crate) body: Body,
    /// The decorators before it (`@dataclass`), in order.
    pub(crate) decorators: Vec<Decorator>,
}

/// What the module level holds, in order.
#[derive(Clone, Debug)]
pub(crate) enum Item {
    Def(Def),
    Class(Class),
    Statement(Stmt),
    /// The header line of a compound statement (`if`, `else:`, `try:`, `for`, …), by its
    /// index in [`Source::lines`]; the statements after its colon follow as statements.
    Compound(usize),
}

/// One argument of a call: tokens `start..end` of the value.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Arg {
    /// Token of the keyword, for `name=value`.
    pub(crate) keyword: Option<usize>,
    /// 1 for `*value`, 2 for `**value`.
    pub(crate) stars: u8,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// One parameter of a `def`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawParam {
    pub(crate) name: usize,
    /// 1 for `*args`, 2 for `**kwargs`.
    pub(crate) stars: u8,
    /// Token of the first star, for spans.
    pub(crate) first: usize,
    pub(crate) annotation: Option<(usize, usize)>,
    pub(crate) default: Option<(usize, usize)>,
}

/// `import a.b as c` or `from m import x as y` (or `*`).
#[derive(Clone, Debug)]
pub(crate) struct Import {
    pub(crate) from: Option<String>,
    /// (name, alias, token of the name); for `import a.b` without `as`, the alias is
    /// the whole dotted name, as code spells it.
    pub(crate) names: Vec<(String, String, usize)>,
    /// Token of `*` in `from m import *`.
    pub(crate) star: Option<usize>,
}

/// Words that open a compound statement.
const COMPOUND: [&str; 13] = [
    "if", "elif", "else", "for", "while", "with", "try", "except", "finally", "def", "class",
    "async", "match",
];

/// Python's keywords: never a variable.
pub(crate) const KEYWORDS: [&str; 35] = [
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

impl<'a> Source<'a> {
    /// Tokenizes `text` and splits it into logical lines.
    pub(crate) fn parse(path: &'a str, text: &'a str) -> Source<'a> {
        let mut findings = Findings::new(path, text);
        let Lexed { tokens, close } = lex(text, &mut findings);
        let mut source = Source {
            text,
            tokens,
            close,
            lines: Vec::new(),
            findings,
            lambdas: std::cell::RefCell::default(),
        };
        source.lines = source.logical_lines();
        source
    }

    fn logical_lines(&mut self) -> Vec<Line> {
        let mut lines = Vec::new();
        let mut depth = 0usize;
        let mut start = None;
        let mut saw_indent = false;
        // The colon ending the previous line, which asks for an indented block.
        let mut expects_block: Option<usize> = None;
        let mut problems = Vec::new();
        for (i, token) in self.tokens.iter().enumerate() {
            match token.kind {
                TokenKind::Indent => {
                    depth += 1;
                    saw_indent = true;
                }
                TokenKind::Dedent => depth = depth.saturating_sub(1),
                TokenKind::Newline => {
                    if let Some(s) = start.take() {
                        lines.push(Line { start: s, end: i, depth });
                        expects_block = i.checked_sub(1).filter(|&last| self.is_op(last, ":"));
                    }
                    saw_indent = false;
                }
                _ => {
                    if start.is_none() {
                        match (expects_block, saw_indent) {
                            (Some(colon), false) => problems.push((i, Some(colon))),
                            (None, true) => problems.push((i, None)),
                            _ => {}
                        }
                        expects_block = None;
                        start = Some(i);
                    }
                }
            }
        }
        if let Some(colon) = expects_block {
            problems.push((colon, Some(colon)));
        }
        for (at, colon) in problems {
            let message = match colon {
                Some(colon) => format!(
                    "expected an indented block after line {}",
                    self.token_span(colon).start.line
                ),
                None => "unexpected indent".to_owned(),
            };
            let span = self.token_span(at);
            self.findings.push_span(Severity::Error, span, SYNTAX, message);
        }
        lines
    }

    /// The token at `i`, if any.
    pub(crate) fn token(&self, i: usize) -> Option<Token> {
        self.tokens.get(i).copied()
    }

    /// The text of token `i` ("" past the end).
    pub(crate) fn text(&self, i: usize) -> &'a str {
        self.token(i).and_then(|t| self.text.get(t.start..t.end)).unwrap_or_default()
    }

    /// Whether token `i` is the operator `op`.
    pub(crate) fn is_op(&self, i: usize, op: &str) -> bool {
        self.token(i).is_some_and(|t| t.kind == TokenKind::Op) && self.text(i) == op
    }

    /// Whether token `i` is the name or keyword `word`.
    pub(crate) fn is_name(&self, i: usize, word: &str) -> bool {
        self.token(i).is_some_and(|t| t.kind == TokenKind::Name) && self.text(i) == word
    }

    /// The text of token `i` when it is a name that is not a keyword.
    pub(crate) fn identifier(&self, i: usize) -> Option<&'a str> {
        let token = self.token(i)?;
        let text = self.text(i);
        (token.kind == TokenKind::Name && !KEYWORDS.contains(&text)).then_some(text)
    }

    /// Whether token `i` has kind `kind`.
    pub(crate) fn is_kind(&self, i: usize, kind: TokenKind) -> bool {
        self.token(i).is_some_and(|t| t.kind == kind)
    }

    /// The index of the bracket closing the opener at `i`, if it closes before `end`.
    pub(crate) fn closing(&self, i: usize, end: usize) -> Option<usize> {
        self.close.get(i).copied().filter(|&c| c != NO_MATCH && c < end)
    }

    /// The index after the atom at `i`: past a whole bracketed group when `i` opens one
    /// (to `end` when it is not closed before `end`).
    pub(crate) fn after(&self, i: usize, end: usize) -> usize {
        if self.is_op(i, "(") || self.is_op(i, "[") || self.is_op(i, "{") {
            self.closing(i, end).map_or(end, |c| c + 1)
        } else {
            i + 1
        }
    }

    /// The first token in `start..end` outside brackets that satisfies `hit`.
    pub(crate) fn find_top(
        &self,
        start: usize,
        end: usize,
        mut hit: impl FnMut(usize) -> bool,
    ) -> Option<usize> {
        let mut i = start;
        while i < end {
            if hit(i) {
                return Some(i);
            }
            i = self.after(i, end);
        }
        None
    }

    /// `start..end` split at the operator `sep` outside brackets (empty parts kept).
    pub(crate) fn split(&self, start: usize, end: usize, sep: &str) -> Vec<(usize, usize)> {
        let mut parts = Vec::new();
        let mut from = start;
        let mut i = start;
        while i < end {
            if self.is_op(i, sep) {
                parts.push((from, i));
                from = i + 1;
            }
            i = self.after(i, end);
        }
        parts.push((from, end.max(from)));
        parts
    }

    /// `start..end` split at the `=` of assignments outside brackets: an `=` between
    /// `lambda` and its colon gives a parameter its default and does not split.
    pub(crate) fn split_assignment(&self, start: usize, end: usize) -> Vec<(usize, usize)> {
        let mut parts = Vec::new();
        let mut from = start;
        let mut lambdas = 0usize;
        let mut i = start;
        while i < end {
            if self.is_name(i, "lambda") {
                lambdas += 1;
            } else if lambdas > 0 && self.is_op(i, ":") {
                lambdas -= 1;
            } else if lambdas == 0 && self.is_op(i, "=") {
                parts.push((from, i));
                from = i + 1;
            }
            i = self.after(i, end);
        }
        parts.push((from, end.max(from)));
        parts
    }

    /// The source text of tokens `start..end`, verbatim.
    pub(crate) fn slice(&self, start: usize, end: usize) -> &'a str {
        let (Some(first), Some(last)) =
            (self.token(start), end.checked_sub(1).and_then(|e| self.token(e)))
        else {
            return "";
        };
        if end <= start {
            return "";
        }
        self.text.get(first.start..last.end.max(first.start)).unwrap_or_default()
    }

    /// The byte range of tokens `start..end`.
    pub(crate) fn bytes(&self, start: usize, end: usize) -> (usize, usize) {
        let first = self.token(start).map_or(self.text.len(), |t| t.start);
        let last = end.checked_sub(1).and_then(|e| self.token(e)).map_or(first, |t| t.end);
        (first, last.max(first))
    }

    /// The span of tokens `start..end`.
    pub(crate) fn span(&self, start: usize, end: usize) -> Span {
        let (from, to) = self.bytes(start, end.max(start + 1));
        self.findings.span(from, to)
    }

    /// The span of token `i`.
    pub(crate) fn token_span(&self, i: usize) -> Span {
        self.span(i, i + 1)
    }

    /// Reports a finding about tokens `start..end`.
    pub(crate) fn report(
        &mut self,
        severity: Severity,
        (start, end): (usize, usize),
        code: &str,
        message: impl Into<String>,
    ) {
        let range = self.bytes(start, end.max(start + 1));
        self.findings.push(severity, range, code, message);
    }

    /// The index of the first line after the block of line `li` (its deeper lines).
    pub(crate) fn block_end(&self, li: usize) -> usize {
        let depth = self.lines.get(li).map_or(0, |l| l.depth);
        let mut next = li + 1;
        while self.lines.get(next).is_some_and(|l| l.depth > depth) {
            next += 1;
        }
        next
    }

    /// The colon ending a compound statement's header in `start..end`.
    pub(crate) fn header_colon(&self, start: usize, end: usize) -> Option<usize> {
        let mut lambdas = 0usize;
        self.find_top(start, end, |i| {
            if self.is_name(i, "lambda") {
                lambdas += 1;
            } else if self.is_op(i, ":") {
                if lambdas == 0 {
                    return true;
                }
                lambdas -= 1;
            }
            false
        })
    }

    /// A dotted name starting at `start`: its text and the index after it.
    pub(crate) fn dotted(&self, start: usize, end: usize) -> Option<(String, usize)> {
        let mut name = self.identifier(start)?.to_owned();
        let mut i = start + 1;
        while i + 1 < end && self.is_op(i, ".") {
            let Some(part) = self.identifier(i + 1) else { break };
            name.push('.');
            name.push_str(part);
            i += 2;
        }
        Some((name, i))
    }

    /// `start..end` read as a dotted name or a call of one, exactly.
    pub(crate) fn call(&self, start: usize, end: usize) -> Option<Call> {
        let (name, after) = self.dotted(start, end)?;
        let parens = if after == end {
            None
        } else if self.is_op(after, "(") && self.closing(after, end) == Some(end - 1) {
            Some((after, end - 1))
        } else {
            return None;
        };
        Some(Call { name, name_start: start, name_end: after, parens })
    }

    /// The arguments between the brackets `open` and `close`.
    pub(crate) fn args(&self, (open, close): (usize, usize)) -> Vec<Arg> {
        self.split(open + 1, close, ",")
            .into_iter()
            .filter(|(s, e)| s < e)
            .map(|(s, e)| {
                if self.is_op(s, "*") || self.is_op(s, "**") {
                    let stars = if self.is_op(s, "*") { 1 } else { 2 };
                    Arg { keyword: None, stars, start: s + 1, end: e }
                } else if self.identifier(s).is_some() && self.is_op(s + 1, "=") {
                    Arg { keyword: Some(s), stars: 0, start: s + 2, end: e }
                } else {
                    Arg { keyword: None, stars: 0, start: s, end: e }
                }
            })
            .collect()
    }

    /// The argument given by keyword `name`, else the positional one at `index`.
    pub(crate) fn arg<'v>(
        &self,
        args: &'v [Arg],
        name: &str,
        index: Option<usize>,
    ) -> Option<&'v Arg> {
        args.iter()
            .find(|a| a.keyword.is_some_and(|k| self.text(k) == name))
            .or_else(|| args.iter().filter(|a| a.keyword.is_none() && a.stars == 0).nth(index?))
    }

    /// The statements of a body, in order: headers of compound statements and the simple
    /// statements, split at `;`, nested blocks included.
    pub(crate) fn statements(&self, body: &Body) -> Vec<Stmt> {
        let mut out = Vec::new();
        let ranges = body.inline.into_iter().chain(
            (body.lines.0..body.lines.1)
                .filter_map(|li| self.lines.get(li).map(|l| (l.start, l.end))),
        );
        for (start, end) in ranges {
            self.line_statements(start, end, &mut out);
        }
        out
    }

    pub(crate) fn line_statements(&self, start: usize, end: usize, out: &mut Vec<Stmt>) {
        let first = self.text(start);
        let compound = self.is_kind(start, TokenKind::Name)
            && COMPOUND.contains(&first)
            && (first != "match" || self.is_op(end.saturating_sub(1), ":"));
        let mut rest = start;
        if compound {
            let colon = self.header_colon(start, end).unwrap_or(end);
            out.push(Stmt { start, end: colon, header: true });
            rest = (colon + 1).min(end);
        }
        for (s, e) in self.split(rest, end, ";") {
            if s < e {
                out.push(Stmt { start: s, end: e, header: false });
            }
        }
    }

    /// The first and one-past-last token of a body.
    pub(crate) fn body_tokens(&self, body: &Body) -> (usize, usize) {
        let first_line = self.lines.get(body.lines.0).filter(|_| body.lines.0 < body.lines.1);
        let last_line = body.lines.1.checked_sub(1).and_then(|li| self.lines.get(li));
        let start = body.inline.map(|(s, _)| s).or(first_line.map(|l| l.start)).unwrap_or(0);
        let end = match (first_line, last_line) {
            (Some(_), Some(last)) => last.end,
            _ => body.inline.map_or(start, |(_, e)| e),
        };
        (start, end.max(start))
    }

    /// The module-level items, in order. Reports decorators that decorate nothing and
    /// definitions this grammar cannot read.
    pub(crate) fn items(&mut self) -> Vec<Item> {
        let mut items = Vec::new();
        let mut decorators: Vec<Decorator> = Vec::new();
        let mut li = 0;
        while let Some(&line) = self.lines.get(li) {
            let next = self.block_end(li);
            if line.depth != 0 {
                li = next;
                continue;
            }
            if self.is_op(line.start, "@") {
                let (start, end) = (line.start + 1, line.end);
                decorators.push(Decorator { start, end, target: self.call(start, end) });
                li = next;
                continue;
            }
            let colon = self.header_colon(line.start, line.end);
            let inline = colon.filter(|&c| c + 1 < line.end).map(|c| (c + 1, line.end));
            let body = Body { inline, lines: (li + 1, next) };
            let is_def = self.is_name(line.start, "def")
                || (self.is_name(line.start, "async") && self.is_name(line.start + 1, "def"));
            if is_def {
                let decorators = std::mem::take(&mut decorators);
                if let Some(def) = self.def(line, colon, body, decorators) {
                    items.push(Item::Def(def));
                }
            } else if self.is_name(line.start, "class") {
                let decorators = std::mem::take(&mut decorators);
                if let Some(mut class) = self.class(line, colon, body) {
                    class.decorators = decorators;
                    items.push(Item::Class(class));
                }
            } else {
                if let Some(first) = decorators.first() {
                    let at = first.start.saturating_sub(1);
                    self.report(
                        Severity::Error,
                        (at, first.end),
                        SYNTAX,
                        "a decorator must be followed by `def` or `class`",
                    );
                    decorators.clear();
                }
                let mut statements = Vec::new();
                self.line_statements(line.start, line.end, &mut statements);
                if statements.first().is_some_and(|s| s.header) {
                    items.push(Item::Compound(li));
                }
                items.extend(statements.into_iter().filter(|s| !s.header).map(Item::Statement));
            }
            li = next;
        }
        if let Some(first) = decorators.first() {
            let at = first.start.saturating_sub(1);
            self.report(
                Severity::Error,
                (at, first.end),
                SYNTAX,
                "a decorator must be followed by `def` or `class`",
            );
        }
        items
    }

    /// The `def` or `async def` on line `li` (a method in a class body), without
    /// decorators; reports it when it is not a valid definition.
    pub(crate) fn def_at(&mut self, li: usize) -> Option<Def> {
        let line = self.lines.get(li).copied()?;
        let colon = self.header_colon(line.start, line.end);
        let inline = colon.filter(|&c| c + 1 < line.end).map(|c| (c + 1, line.end));
        let body = Body { inline, lines: (li + 1, self.block_end(li)) };
        self.def(line, colon, body, Vec::new())
    }

    fn def(
        &mut self,
        line: Line,
        colon: Option<usize>,
        body: Body,
        decorators: Vec<Decorator>,
    ) -> Option<Def> {
        let is_async = self.is_name(line.start, "async");
        let def = line.start + usize::from(is_async);
        let name = def + 1;
        let open = def + 2;
        let parsed = (|| {
            self.identifier(name)?;
            if !self.is_op(open, "(") {
                return None;
            }
            let close = self.closing(open, line.end)?;
            let colon = colon.filter(|&c| c > close)?;
            let returns = if self.is_op(close + 1, "->") {
                Some((close + 2, colon)).filter(|(s, e)| s < e)?.into()
            } else if close + 1 == colon {
                None
            } else {
                return None;
            };
            Some(Def { decorators, is_async, name, parens: (open, close), returns, body })
        })();
        if parsed.is_none() {
            self.report(
                Severity::Error,
                (line.start, line.end),
                SYNTAX,
                "invalid function definition: expected `def name(parameters):`",
            );
        }
        parsed
    }

    fn class(&mut self, line: Line, colon: Option<usize>, body: Body) -> Option<Class> {
        let name = line.start + 1;
        let parsed = (|| {
            self.identifier(name)?;
            let colon = colon?;
            let bases = if self.is_op(name + 1, "(") {
                let close = self.closing(name + 1, line.end)?;
                (close + 1 == colon).then_some(Some((name + 1, close)))?
            } else if name + 1 == colon {
                None
            } else {
                return None;
            };
            Some(Class { name, bases, body, decorators: Vec::new() })
        })();
        if parsed.is_none() {
            self.report(
                Severity::Error,
                (line.start, line.end),
                SYNTAX,
                "invalid class definition: expected `class Name(Bases):`",
            );
        }
        parsed
    }

    /// The parameters between a `def`'s brackets. Reports what is not a parameter.
    pub(crate) fn params(&mut self, (open, close): (usize, usize)) -> Vec<RawParam> {
        let mut params = Vec::new();
        for (s, e) in self.split(open + 1, close, ",") {
            if s >= e {
                continue;
            }
            if (self.is_op(s, "*") || self.is_op(s, "/")) && e == s + 1 {
                continue; // the keyword-only and positional-only markers
            }
            let stars = if self.is_op(s, "*") {
                1
            } else if self.is_op(s, "**") {
                2
            } else {
                0
            };
            let name = s + usize::from(stars > 0);
            let equals = self.find_top(name, e, |i| self.is_op(i, "="));
            let value_end = equals.unwrap_or(e);
            let colon = self.find_top(name, value_end, |i| self.is_op(i, ":"));
            let name_ok = self.identifier(name).is_some()
                && (name + 1 == value_end || colon == Some(name + 1));
            if !name_ok {
                self.report(
                    Severity::Error,
                    (s, e),
                    SYNTAX,
                    "invalid parameter: expected `name`, `name: annotation` or `name = default`",
                );
                continue;
            }
            let annotation = colon.map(|c| (c + 1, value_end)).filter(|(a, b)| a < b);
            let default = equals.map(|q| (q + 1, e)).filter(|(a, b)| a < b);
            params.push(RawParam { name, stars, first: s, annotation, default });
        }
        params
    }

    /// An `import` or `from … import …` statement.
    pub(crate) fn import(&self, stmt: Stmt) -> Option<Import> {
        let (start, end) = (stmt.start, stmt.end);
        if self.is_name(start, "import") {
            let names = self
                .split(start + 1, end, ",")
                .into_iter()
                .filter_map(|(s, e)| {
                    let (name, after) = self.dotted(s, e)?;
                    let alias = if self.is_name(after, "as") {
                        self.identifier(after + 1)?.to_owned()
                    } else {
                        name.clone()
                    };
                    Some((name, alias, s))
                })
                .collect();
            return Some(Import { from: None, names, star: None });
        }
        if !self.is_name(start, "from") {
            return None;
        }
        let mut i = start + 1;
        let mut module = String::new();
        while self.is_op(i, ".") || self.is_op(i, "...") {
            module.push_str(self.text(i));
            i += 1;
        }
        if let Some((name, after)) = self.dotted(i, end) {
            module.push_str(&name);
            i = after;
        }
        if !self.is_name(i, "import") {
            return None;
        }
        i += 1;
        if self.is_op(i, "*") {
            return Some(Import { from: Some(module), names: Vec::new(), star: Some(i) });
        }
        let (list_start, list_end) = if self.is_op(i, "(") {
            (i + 1, self.closing(i, end).unwrap_or(end))
        } else {
            (i, end)
        };
        let names = self
            .split(list_start, list_end, ",")
            .into_iter()
            .filter_map(|(s, _)| {
                let name = self.identifier(s)?.to_owned();
                let alias = if self.is_name(s + 1, "as") {
                    self.identifier(s + 2)?.to_owned()
                } else {
                    name.clone()
                };
                Some((name, alias, s))
            })
            .collect();
        Some(Import { from: Some(module), names, star: None })
    }

    /// The docstring of a body: its first statement when that is a plain string literal.
    pub(crate) fn docstring(&self, body: &Body) -> Option<String> {
        let first = self.statements(body).into_iter().next()?;
        if first.header {
            return None;
        }
        super::literal::string_literal(self, first.start, first.end)
    }
}
