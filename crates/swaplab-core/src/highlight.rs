//! Syntax highlighting for the playground's editor: which byte ranges of a YAML file, a
//! markdown file (a Rasa `skill.md`, with its YAML frontmatter and `:::ordered_block`
//! bodies) or a Python module are keys, strings, comments, directives and so on.
//!
//! One small hand-written scanner per language, not a parser. It never fails and never
//! panics, whatever the text. It makes one pass with bounded look-ahead (the state carried
//! from line to line is a block scalar, a quoted or triple-quoted string, a fence, a flow
//! collection's depth), and every search that could repeat remembers where it stopped, so
//! it runs in time linear in the text, cheap enough for every keystroke. It cuts only next
//! to ASCII bytes, and [`highlight`] checks every range before returning it: the tokens are
//! sorted, never overlap, never empty, in bounds and on char boundaries. Text between
//! tokens is plain.

/// The languages the editor colours, picked from a file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Language {
    /// `.yml`, `.yaml`: YAML 1.1 as PyYAML reads it (`yes` and `on` are booleans).
    Yaml,
    /// `.md`: markdown. A frontmatter between the first two `---` lines is YAML, and so
    /// is the body of a `:::ordered_block` section.
    Markdown,
    /// `.py`.
    Python,
    /// Anything else: no colours.
    Plain,
}

impl Language {
    /// The language of a file, from the extension of its path (in any case).
    pub fn for_path(path: &str) -> Language {
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let Some((_, extension)) = name.rsplit_once('.') else { return Language::Plain };
        let is = |candidate: &str| extension.eq_ignore_ascii_case(candidate);
        if is("yml") || is("yaml") {
            Language::Yaml
        } else if is("md") {
            Language::Markdown
        } else if is("py") {
            Language::Python
        } else {
            Language::Plain
        }
    }
}

/// What a highlighted range is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// A mapping key (YAML), an attribute name (`id=` of a directive).
    Key,
    /// A string: quoted, a YAML plain or block scalar value, a Python string or docstring.
    String,
    /// A number.
    Number,
    /// A keyword: Python's, YAML's booleans and nulls, a skill's `if:`, a fence's language.
    Keyword,
    /// A comment.
    Comment,
    /// Structure: YAML indicators, brackets and operators, markdown list and quote markers,
    /// frontmatter and fence delimiters.
    Punctuation,
    /// A markdown heading line.
    Heading,
    /// Markdown code: a code span, a fenced block's lines, an `if:` condition.
    Code,
    /// Markdown emphasis, `*…*`, `_…_`, `**…**`.
    Emphasis,
    /// A markdown link, `[text](url)`.
    Link,
    /// Rasa skill syntax: `:::ordered_block`, `:::`, `@skill.x`, `@block.x`, `@tool.x`,
    /// `@memory.x`.
    Directive,
    /// A Python decorator, `@mcp.tool`.
    Decorator,
    /// A Python function: its name where it is defined, or a name being called.
    Function,
    /// A Python builtin (`len`, `dict`, `isinstance`, `self`…).
    Builtin,
    /// A YAML anchor, alias or tag: `&x`, `*x`, `!!str`.
    Anchor,
}

impl TokenKind {
    /// A short lower-case name, stable, usable as a CSS class.
    pub fn name(self) -> &'static str {
        match self {
            TokenKind::Key => "key",
            TokenKind::String => "string",
            TokenKind::Number => "number",
            TokenKind::Keyword => "keyword",
            TokenKind::Comment => "comment",
            TokenKind::Punctuation => "punctuation",
            TokenKind::Heading => "heading",
            TokenKind::Code => "code",
            TokenKind::Emphasis => "emphasis",
            TokenKind::Link => "link",
            TokenKind::Directive => "directive",
            TokenKind::Decorator => "decorator",
            TokenKind::Function => "function",
            TokenKind::Builtin => "builtin",
            TokenKind::Anchor => "anchor",
        }
    }
}

/// One highlighted range: bytes `start..end` of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Token {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// What it is.
    pub kind: TokenKind,
}

/// The highlighted ranges of `text`, sorted, never overlapping, never empty, each on char
/// boundaries. Adjacent ranges of the same kind are merged. Linear in the text's length.
pub fn highlight(language: Language, text: &str) -> Vec<Token> {
    let mut sink = Sink { text, tokens: Vec::new() };
    let bytes = text.as_bytes();
    match language {
        Language::Yaml => {
            let mut yaml = Yaml::default();
            for (start, end) in lines(bytes, 0, bytes.len()) {
                yaml.line(bytes, start, end, &mut sink);
            }
        }
        Language::Markdown => markdown(bytes, &mut sink),
        Language::Python => python(bytes, &mut sink),
        Language::Plain => {}
    }
    sink.tokens
}

/// Collects tokens and holds the promises [`highlight`] makes, whatever a scanner asks.
struct Sink<'t> {
    text: &'t str,
    tokens: Vec<Token>,
}

impl Sink<'_> {
    fn push(&mut self, start: usize, end: usize, kind: TokenKind) {
        let end = end.min(self.text.len());
        let start = start.max(self.tokens.last().map_or(0, |last| last.end));
        if start >= end || !self.text.is_char_boundary(start) || !self.text.is_char_boundary(end) {
            return;
        }
        if let Some(last) = self.tokens.last_mut()
            && last.end == start
            && last.kind == kind
        {
            last.end = end;
            return;
        }
        self.tokens.push(Token { start, end, kind });
    }
}

/// The lines of `bytes[from..to]` as `(start, end)`, without `\n` or a trailing `\r`.
fn lines(bytes: &[u8], from: usize, to: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let to = to.min(bytes.len());
    let mut next = (from <= to).then_some(from);
    std::iter::from_fn(move || {
        let start = next?;
        let newline = bytes[start..to].iter().position(|&b| b == b'\n');
        let end = newline.map_or(to, |n| start + n);
        next = newline.map(|_| end + 1);
        let end = if end > start && bytes[end - 1] == b'\r' { end - 1 } else { end };
        Some((start, end))
    })
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// A byte of a word: ASCII letters, digits, `_`, and any byte of a non-ASCII char (so a
/// word never ends inside a char).
fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

fn count_while(bytes: &[u8], from: usize, to: usize, keep: impl Fn(u8) -> bool) -> usize {
    bytes.get(from..to).map_or(0, |slice| slice.iter().take_while(|&&b| keep(b)).count())
}

// ---------------------------------------------------------------------------------------
// YAML

/// YAML, a line at a time.
#[derive(Default)]
struct Yaml {
    /// Inside a block scalar whose parent node starts at this column.
    block: Option<usize>,
    /// Inside a quoted scalar opened on an earlier line with this quote.
    quote: Option<u8>,
    /// How many `[` and `{` are open.
    flow: usize,
}

impl Yaml {
    /// Highlights `bytes[start..end]`, one line without its newline.
    fn line(&mut self, bytes: &[u8], start: usize, end: usize, sink: &mut Sink<'_>) {
        let line = &bytes[start..end];
        let indent = count_while(line, 0, line.len(), |b| b == b' ');
        if let Some(parent) = self.block {
            if indent > parent || line.iter().all(|&b| is_blank(b)) {
                sink.push(start + indent, end, TokenKind::String);
                return;
            }
            self.block = None;
        }
        let mut i = indent;
        if let Some(quote) = self.quote {
            let (close, closed) = quoted_end(line, 0, quote);
            sink.push(start + indent.min(close), start + close, TokenKind::String);
            if !closed {
                return;
            }
            self.quote = None;
            i = close;
        } else if indent == 0 && self.flow == 0 {
            let marker = line.starts_with(b"---") || line.starts_with(b"...");
            if marker && line.get(3).is_none_or(|&b| is_blank(b)) {
                sink.push(start, start + 3, TokenKind::Punctuation);
                i = 3;
            } else if line.first() == Some(&b'%') {
                sink.push(start, end, TokenKind::Keyword);
                return;
            }
        }
        self.nodes(line, i, indent, start, sink);
    }

    /// The nodes of one line from byte `i`; `node` is the column of the current node.
    fn nodes(
        &mut self,
        line: &[u8],
        mut i: usize,
        mut node: usize,
        at: usize,
        sink: &mut Sink<'_>,
    ) {
        use TokenKind::{Anchor, Key, Punctuation, String};
        while i < line.len() {
            let c = line[i];
            if is_blank(c) {
                i += 1;
                continue;
            }
            let flow = self.flow > 0;
            let blank_after = line.get(i + 1).is_none_or(|&b| is_blank(b));
            if c == b'#' && (i == 0 || is_blank(line[i - 1])) {
                sink.push(at + i, at + line.len(), TokenKind::Comment);
                return;
            }
            if (c == b'-' || c == b'?') && blank_after && !flow {
                sink.push(at + i, at + i + 1, Punctuation);
                node = i;
                i += 1;
                continue;
            }
            if c == b':' && (blank_after || flow) {
                sink.push(at + i, at + i + 1, Punctuation);
                i += 1;
                continue;
            }
            match c {
                b'[' | b'{' => {
                    self.flow = self.flow.saturating_add(1);
                    sink.push(at + i, at + i + 1, Punctuation);
                    i += 1;
                }
                b']' | b'}' => {
                    self.flow = self.flow.saturating_sub(1);
                    sink.push(at + i, at + i + 1, Punctuation);
                    i += 1;
                }
                b',' if flow => {
                    sink.push(at + i, at + i + 1, Punctuation);
                    i += 1;
                }
                b'"' | b'\'' => {
                    let (close, closed) = quoted_end(line, i + 1, c);
                    if !closed {
                        sink.push(at + i, at + close, String);
                        self.quote = Some(c);
                        return;
                    }
                    let after = close + count_while(line, close, line.len(), is_blank);
                    let key = line.get(after) == Some(&b':')
                        && (flow || line.get(after + 1).is_none_or(|&b| is_blank(b)));
                    sink.push(at + i, at + close, if key { Key } else { String });
                    if key {
                        node = i;
                    }
                    i = close;
                }
                b'&' | b'*' | b'!' => {
                    let stop = |b: u8| is_blank(b) || (flow && b"[]{},".contains(&b));
                    let close = i + 1 + count_while(line, i + 1, line.len(), |b| !stop(b));
                    sink.push(at + i, at + close, Anchor);
                    i = close;
                }
                b'|' | b'>' if !flow => {
                    let indicators = |b: u8| b == b'-' || b == b'+' || b.is_ascii_digit();
                    let close = i + 1 + count_while(line, i + 1, line.len(), indicators);
                    sink.push(at + i, at + close, Punctuation);
                    self.block = Some(node);
                    i = close;
                }
                _ => {
                    let (close, key) = plain_end(line, i, flow);
                    let kind = if key { Key } else { scalar_kind(&line[i..close]) };
                    sink.push(at + i, at + close, kind);
                    if key {
                        node = i;
                    }
                    i = close.max(i + 1);
                }
            }
        }
    }
}

/// Where a quoted scalar that starts before `from` ends on this line: one past its
/// closing quote and `true`, or the line's end and `false`.
fn quoted_end(line: &[u8], from: usize, quote: u8) -> (usize, bool) {
    let mut i = from;
    while i < line.len() {
        let c = line[i];
        if quote == b'"' && c == b'\\' {
            i += 2;
            continue;
        }
        if c == quote {
            if quote == b'\'' && line.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            return (i + 1, true);
        }
        i += 1;
    }
    (line.len(), false)
}

/// Where a plain scalar starting at `start` ends (trailing blanks left out), and whether it
/// is a key (a `:` follows it).
fn plain_end(line: &[u8], start: usize, flow: bool) -> (usize, bool) {
    let trim = |mut end: usize| {
        while end > start && is_blank(line[end - 1]) {
            end -= 1;
        }
        end
    };
    let mut i = start;
    while i < line.len() {
        let c = line[i];
        if c == b':' {
            let next = line.get(i + 1).copied();
            if next.is_none_or(is_blank) || (flow && next.is_some_and(|b| b"[]{},".contains(&b))) {
                return (trim(i), true);
            }
        }
        if c == b'#' && i > start && is_blank(line[i - 1]) {
            return (trim(i), false);
        }
        if flow && b"[]{},".contains(&c) && i > start {
            return (trim(i), false);
        }
        i += 1;
    }
    (trim(line.len()), false)
}

/// How PyYAML resolves a plain scalar: a boolean or null, a number, or a string.
fn scalar_kind(scalar: &[u8]) -> TokenKind {
    const WORDS: [&[u8]; 22] = [
        b"yes", b"Yes", b"YES", b"no", b"No", b"NO", b"true", b"True", b"TRUE", b"false", b"False",
        b"FALSE", b"on", b"On", b"ON", b"off", b"Off", b"OFF", b"null", b"Null", b"NULL", b"~",
    ];
    if WORDS.contains(&scalar) {
        TokenKind::Keyword
    } else if is_yaml_number(scalar) {
        TokenKind::Number
    } else {
        TokenKind::String
    }
}

/// YAML 1.1's ints and floats, roughly: `12`, `-1_000`, `0x1F`, `0b101`, `1.5`,
/// `6.02e+23` (an exponent needs a dot and a sign: `1e3` is a string), `1:30`, `.inf`.
fn is_yaml_number(scalar: &[u8]) -> bool {
    let s = scalar.strip_prefix(b"-").or_else(|| scalar.strip_prefix(b"+")).unwrap_or(scalar);
    if s.eq_ignore_ascii_case(b".inf") || s.eq_ignore_ascii_case(b".nan") {
        return true;
    }
    let all = |digits: &[u8], keep: fn(&u8) -> bool| {
        !digits.is_empty() && digits.iter().all(|b| keep(b) || *b == b'_')
    };
    if let Some(hex) = s.strip_prefix(b"0x") {
        return all(hex, u8::is_ascii_hexdigit);
    }
    if let Some(binary) = s.strip_prefix(b"0b") {
        return all(binary, |b| *b == b'0' || *b == b'1');
    }
    let (mantissa, exponent) = match s.iter().position(|&b| b == b'e' || b == b'E') {
        Some(at) => (&s[..at], Some(&s[at + 1..])),
        None => (s, None),
    };
    let dots = mantissa.iter().filter(|&&b| b == b'.').count();
    let mantissa_ok = dots <= 1
        && mantissa.first().is_some_and(|&b| b.is_ascii_digit() || b == b'.')
        && mantissa.iter().any(u8::is_ascii_digit)
        && mantissa.iter().all(|&b| b.is_ascii_digit() || b == b'_' || b == b'.' || b == b':');
    let exponent_ok = exponent.is_none_or(|e| {
        dots == 1
            && matches!(e.first(), Some(b'-' | b'+'))
            && e.len() > 1
            && e[1..].iter().all(u8::is_ascii_digit)
    });
    mantissa_ok && exponent_ok
}

// ---------------------------------------------------------------------------------------
// Markdown

/// What the previous markdown lines opened.
enum Block {
    Prose,
    Fence { fence: u8, len: usize },
    Ordered(Yaml),
}

fn markdown(bytes: &[u8], sink: &mut Sink<'_>) {
    let mut body = 0;
    let is_delimiter = |(s, e): (usize, usize)| trim_blank_end(&bytes[s..e]) == b"---";
    let mut all = lines(bytes, 0, bytes.len());
    if all.next().is_some_and(is_delimiter)
        && let Some((close, _)) = all.find(|&line| is_delimiter(line))
    {
        sink.push(0, 3, TokenKind::Punctuation);
        let first = bytes.iter().position(|&b| b == b'\n').map_or(bytes.len(), |n| n + 1);
        let mut yaml = Yaml::default();
        for (start, end) in lines(bytes, first, close - 1) {
            yaml.line(bytes, start, end, sink);
        }
        sink.push(close, close + 3, TokenKind::Punctuation);
        body =
            bytes[close..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |n| close + n + 1);
    }
    let mut block = Block::Prose;
    let mut paragraph_start = true;
    let mut inline = Inline::default();
    for (start, end) in lines(bytes, body, bytes.len()) {
        let line = &bytes[start..end];
        let indent = count_while(line, 0, line.len(), |b| b == b' ');
        let rest = &line[indent..];
        match &mut block {
            Block::Fence { fence, len } => {
                let run = count_while(rest, 0, rest.len(), |b| b == *fence);
                if indent <= 3 && run >= *len && rest[run..].iter().all(|&b| is_blank(b)) {
                    sink.push(start + indent, end, TokenKind::Punctuation);
                    block = Block::Prose;
                    paragraph_start = true;
                } else {
                    sink.push(start, end, TokenKind::Code);
                }
                continue;
            }
            Block::Ordered(yaml) => {
                if line.starts_with(b":::") && line[3..].iter().all(|&b| is_blank(b)) {
                    sink.push(start, start + 3, TokenKind::Directive);
                    block = Block::Prose;
                    paragraph_start = true;
                } else {
                    yaml.line(bytes, start, end, sink);
                }
                continue;
            }
            Block::Prose => {}
        }
        if rest.iter().all(|&b| is_blank(b)) {
            paragraph_start = true;
            continue;
        }
        let at = start + indent;
        if indent <= 3 && (rest.starts_with(b"```") || rest.starts_with(b"~~~")) {
            let len = count_while(rest, 0, rest.len(), |b| b == rest[0]);
            sink.push(at, at + len, TokenKind::Punctuation);
            sink.push(at + len, start + trim_blank_end(line).len(), TokenKind::Keyword);
            block = Block::Fence { fence: rest[0], len };
            paragraph_start = true;
            continue;
        }
        if rest.starts_with(b":::") {
            let name = 3 + count_while(rest, 3, rest.len(), |b| is_word(b) || b == b'-');
            sink.push(at, at + name, TokenKind::Directive);
            attributes(bytes, at + name, end, sink);
            if &rest[3..name] == b"ordered_block" {
                block = Block::Ordered(Yaml::default());
            }
            paragraph_start = true;
            continue;
        }
        let hashes = count_while(rest, 0, rest.len(), |b| b == b'#');
        if indent <= 3 && (1..=6).contains(&hashes) && rest.get(hashes).is_none_or(|&b| is_blank(b))
        {
            sink.push(at, start + trim_blank_end(line).len(), TokenKind::Heading);
            paragraph_start = true;
            continue;
        }
        if is_thematic_break(rest) {
            sink.push(at, end, TokenKind::Punctuation);
            paragraph_start = true;
            continue;
        }
        if paragraph_start && indent == 0 {
            let marker = [b"if:".as_slice(), b"elif:", b"else:"]
                .into_iter()
                .find(|marker| rest.starts_with(marker));
            if let Some(marker) = marker {
                sink.push(at, at + marker.len(), TokenKind::Keyword);
                let condition =
                    at + marker.len() + count_while(line, marker.len(), line.len(), is_blank);
                sink.push(condition, start + trim_blank_end(line).len(), TokenKind::Code);
                paragraph_start = false;
                continue;
            }
        }
        let mut i = indent;
        while line.get(i) == Some(&b'>') {
            sink.push(start + i, start + i + 1, TokenKind::Punctuation);
            i += 1;
            i += count_while(line, i, line.len(), is_blank);
        }
        i += list_marker(line, i, start, sink);
        inline.line(bytes, start + i, end, sink);
        paragraph_start = false;
    }
}

fn trim_blank_end(line: &[u8]) -> &[u8] {
    let kept = line.len() - line.iter().rev().take_while(|&&b| is_blank(b)).count();
    &line[..kept]
}

fn is_thematic_break(rest: &[u8]) -> bool {
    let Some(&mark) = rest.first() else { return false };
    matches!(mark, b'-' | b'*' | b'_')
        && rest.iter().filter(|&&b| b == mark).count() >= 3
        && rest.iter().all(|&b| b == mark || is_blank(b))
}

/// The length of a list marker (`- `, `* `, `+ `, `1. `, `2) `) at `i`, highlighted.
fn list_marker(line: &[u8], i: usize, at: usize, sink: &mut Sink<'_>) -> usize {
    let digits = count_while(line, i, line.len(), |b| b.is_ascii_digit());
    let len = match line.get(i) {
        Some(b'-' | b'*' | b'+') => 1,
        Some(_)
            if (1..=9).contains(&digits) && matches!(line.get(i + digits), Some(b'.' | b')')) =>
        {
            digits + 1
        }
        _ => return 0,
    };
    if !line.get(i + len).is_none_or(|&b| is_blank(b)) {
        return 0;
    }
    sink.push(at + i, at + i + len, TokenKind::Punctuation);
    len + count_while(line, i + len, line.len(), is_blank)
}

/// `key=value` attributes after a `:::` directive's name.
fn attributes(bytes: &[u8], mut i: usize, end: usize, sink: &mut Sink<'_>) {
    while i < end {
        if is_blank(bytes[i]) {
            i += 1;
            continue;
        }
        let word = i + count_while(bytes, i, end, |b| !is_blank(b) && b != b'=');
        if bytes.get(word) == Some(&b'=') && word < end {
            sink.push(i, word, TokenKind::Key);
            sink.push(word, word + 1, TokenKind::Punctuation);
            let value = word + 1 + count_while(bytes, word + 1, end, |b| !is_blank(b));
            sink.push(word + 1, value, TokenKind::String);
            i = value;
        } else {
            i = word.max(i + 1);
        }
    }
}

/// A run of `` ` ``, `*` or `_` in a line of prose.
#[derive(Clone, Copy)]
struct Run {
    start: usize,
    end: usize,
    mark: u8,
    opens: bool,
    closes: bool,
}

/// Inline markdown, a line at a time, with buffers kept from line to line.
#[derive(Default)]
struct Inline {
    runs: Vec<Run>,
    /// For each run, the next run after it that can close it.
    closer: Vec<Option<usize>>,
    /// While scanning backwards, for each mark and run length, the nearest run that can
    /// close (`usize::MAX`: none yet).
    nearest: [Vec<usize>; 3],
}

/// Whether a backslash at `i` escapes the next byte (ASCII punctuation other than a
/// backtick: inside code spans backslashes are literal).
fn escapes(bytes: &[u8], i: usize, to: usize) -> bool {
    bytes[i] == b'\\' && i + 1 < to && bytes[i + 1].is_ascii_punctuation() && bytes[i + 1] != b'`'
}

impl Inline {
    fn line(&mut self, bytes: &[u8], from: usize, to: usize, sink: &mut Sink<'_>) {
        self.collect_runs(bytes, from, to);
        let mut brackets = NextByte::default();
        let mut parens = NextByte::default();
        let mut p = from;
        let mut r = 0;
        while p < to {
            while r < self.runs.len() && self.runs[r].start < p {
                r += 1;
            }
            if let Some(run) = self.runs.get(r).filter(|run| run.start == p) {
                p = run.end;
                if let Some(close) = self.closer[r].filter(|_| run.opens) {
                    let kind = if run.mark == b'`' { TokenKind::Code } else { TokenKind::Emphasis };
                    sink.push(run.start, self.runs[close].end, kind);
                    p = self.runs[close].end;
                }
                continue;
            }
            match bytes[p] {
                _ if escapes(bytes, p, to) => p += 2,
                b'[' => {
                    let link = brackets
                        .find(bytes, p + 1, to, b']')
                        .filter(|&close| close + 1 < to && bytes[close + 1] == b'(')
                        .and_then(|close| parens.find(bytes, close + 2, to, b')'));
                    match link {
                        Some(paren) => {
                            sink.push(p, paren + 1, TokenKind::Link);
                            p = paren + 1;
                        }
                        None => p += 1,
                    }
                }
                b'@' if p == from || !is_word(bytes[p - 1]) => match at_reference(bytes, p, to) {
                    Some(end) => {
                        sink.push(p, end, TokenKind::Directive);
                        p = end;
                    }
                    None => p += 1,
                },
                _ => {
                    // Nothing starts here: move on to the next byte that could start something.
                    let next_run = self.runs.get(r).map_or(to, |run| run.start).max(p + 1);
                    let special = bytes[p + 1..next_run].iter().position(|b| b"\\[@".contains(b));
                    p = special.map_or(next_run, |n| p + 1 + n);
                }
            }
        }
    }

    /// Finds the runs of the line and, for each, the nearest later run that can close it
    /// (same mark, same length): one pass each way, so the work is linear in the line.
    fn collect_runs(&mut self, bytes: &[u8], from: usize, to: usize) {
        self.runs.clear();
        let mut i = from;
        while i < to {
            let Some(skip) = bytes[i..to].iter().position(|&b| b"\\`*_".contains(&b)) else {
                break;
            };
            i += skip;
            let mark = bytes[i];
            if mark == b'\\' {
                i += if escapes(bytes, i, to) { 2 } else { 1 };
                continue;
            }
            let end = i + count_while(bytes, i, to, |b| b == mark);
            let before = if i > from { bytes[i - 1] } else { b' ' };
            let after = if end < to { bytes[end] } else { b' ' };
            let (opens, closes) = match mark {
                b'`' => (true, true),
                b'*' => (!is_blank(after), !is_blank(before)),
                _ => (!is_blank(after) && !is_word(before), !is_blank(before) && !is_word(after)),
            };
            self.runs.push(Run { start: i, end, mark, opens, closes });
            i = end;
        }
        self.closer.clear();
        self.closer.resize(self.runs.len(), None);
        for nearest in &mut self.nearest {
            nearest.clear();
        }
        for (r, run) in self.runs.iter().enumerate().rev() {
            let nearest =
                &mut self.nearest[usize::from(run.mark != b'`') + usize::from(run.mark == b'_')];
            let len = run.end - run.start;
            if nearest.len() <= len {
                nearest.resize(len + 1, usize::MAX);
            }
            self.closer[r] = Some(nearest[len]).filter(|&close| close != usize::MAX);
            if run.closes {
                nearest[len] = r;
            }
        }
    }
}

/// The next position of a byte, remembered between searches that only move forward.
#[derive(Default)]
struct NextByte(Option<usize>);

impl NextByte {
    fn find(&mut self, bytes: &[u8], from: usize, to: usize, wanted: u8) -> Option<usize> {
        if self.0.is_none_or(|at| at < from) {
            let from = from.min(to);
            let found = bytes[from..to].iter().position(|&b| b == wanted);
            self.0 = Some(found.map_or(to, |n| from + n));
        }
        self.0.filter(|&at| at < to)
    }
}

/// The end of an `@skill.x`, `@block.x`, `@tool.x` or `@memory.x` reference at `at`.
fn at_reference(bytes: &[u8], at: usize, to: usize) -> Option<usize> {
    let rest = bytes.get(at + 1..to)?;
    let kind = [b"skill.".as_slice(), b"block.", b"tool.", b"memory."]
        .into_iter()
        .find(|kind| rest.starts_with(kind))?;
    let name = at + 1 + kind.len();
    let mut end = name + count_while(bytes, name, to, |b| is_word(b) || b == b'-' || b == b'.');
    while end > name && bytes[end - 1] == b'.' {
        end -= 1;
    }
    (end > name).then_some(end)
}

// ---------------------------------------------------------------------------------------
// Python

fn python(bytes: &[u8], sink: &mut Sink<'_>) {
    use TokenKind::{Builtin, Function, Keyword};
    let mut i = 0;
    let mut line_start = true;
    let mut after_dot = false;
    let mut defining = false;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        match c {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' | b'\x0c' | b'\\' => {
                i += 1;
                continue;
            }
            b'#' => {
                i += count_while(bytes, i, bytes.len(), |b| b != b'\n');
                sink.push(start, i, TokenKind::Comment);
            }
            b'"' | b'\'' => {
                i = string_end(bytes, i);
                sink.push(start, i, TokenKind::String);
            }
            b'@' if line_start => {
                i += 1;
                i += count_while(bytes, i, bytes.len(), is_blank);
                i += count_while(bytes, i, bytes.len(), |b| is_word(b) || b == b'.');
                sink.push(start, i, TokenKind::Decorator);
            }
            b'0'..=b'9' => i = number(bytes, i, sink),
            b'.' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => i = number(bytes, i, sink),
            _ if is_word(c) => {
                i += count_while(bytes, i, bytes.len(), is_word);
                let word = &bytes[start..i];
                let quote = bytes.get(i).is_some_and(|&b| b == b'"' || b == b'\'');
                if quote && word.len() <= 2 && word.iter().all(|b| b"rRbBuUfFtT".contains(b)) {
                    i = string_end(bytes, i);
                    sink.push(start, i, TokenKind::String);
                } else {
                    let call =
                        bytes.get(i + count_while(bytes, i, bytes.len(), is_blank)) == Some(&b'(');
                    let kind = if defining {
                        Some(Function)
                    } else if !after_dot && is_python_keyword(word) {
                        Some(Keyword)
                    } else if !after_dot && is_python_builtin(word) {
                        Some(Builtin)
                    } else if call {
                        Some(Function)
                    } else {
                        None
                    };
                    if let Some(kind) = kind {
                        sink.push(start, i, kind);
                    }
                    defining = !after_dot && (word == b"def" || word == b"class");
                    after_dot = false;
                    line_start = false;
                    continue;
                }
            }
            _ if c.is_ascii_punctuation() => {
                i += 1;
                sink.push(start, i, TokenKind::Punctuation);
                after_dot = c == b'.';
                defining = false;
                line_start = false;
                continue;
            }
            _ => i += 1,
        }
        after_dot = false;
        defining = false;
        line_start = false;
    }
}

/// One past the end of the string literal whose first quote is at `at` (the text's end
/// for an unterminated triple-quoted string, the line's end for a single-quoted one).
fn string_end(bytes: &[u8], at: usize) -> usize {
    let quote = bytes[at];
    let triple = bytes.get(at..at + 3) == Some(&[quote, quote, quote][..]);
    let mut i = at + if triple { 3 } else { 1 };
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'\\' {
            i += 2;
            continue;
        }
        if c == quote {
            if !triple {
                return i + 1;
            }
            if bytes.get(i..i + 3) == Some(&[quote, quote, quote][..]) {
                return i + 3;
            }
        } else if c == b'\n' && !triple {
            return i;
        }
        i += 1;
    }
    bytes.len()
}

/// Highlights the number at `at` (`12`, `0x1f`, `1_000.5e-3j`) and returns its end.
fn number(bytes: &[u8], at: usize, sink: &mut Sink<'_>) -> usize {
    let hex = bytes.get(at + 1).is_some_and(|&b| b == b'x' || b == b'X');
    let mut i = at;
    while let Some(&b) = bytes.get(i) {
        let sign = (b == b'+' || b == b'-') && !hex && matches!(bytes[i - 1], b'e' | b'E');
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || sign {
            i += 1;
        } else {
            break;
        }
    }
    sink.push(at, i, TokenKind::Number);
    i
}

/// Python's keywords (and soft keywords), and the builtins worth colouring: tables
/// rather than `match`es, which keeps the wasm small.
const PYTHON_KEYWORDS: [&[u8]; 37] = [
    b"False",
    b"None",
    b"True",
    b"and",
    b"as",
    b"assert",
    b"async",
    b"await",
    b"break",
    b"case",
    b"class",
    b"continue",
    b"def",
    b"del",
    b"elif",
    b"else",
    b"except",
    b"finally",
    b"for",
    b"from",
    b"global",
    b"if",
    b"import",
    b"in",
    b"is",
    b"lambda",
    b"match",
    b"nonlocal",
    b"not",
    b"or",
    b"pass",
    b"raise",
    b"return",
    b"try",
    b"while",
    b"with",
    b"yield",
];
const PYTHON_BUILTINS: [&[u8]; 43] = [
    b"abs",
    b"all",
    b"any",
    b"bool",
    b"bytes",
    b"callable",
    b"cls",
    b"dict",
    b"enumerate",
    b"Exception",
    b"filter",
    b"float",
    b"getattr",
    b"hasattr",
    b"int",
    b"isinstance",
    b"iter",
    b"KeyError",
    b"len",
    b"list",
    b"map",
    b"max",
    b"min",
    b"next",
    b"object",
    b"open",
    b"print",
    b"range",
    b"repr",
    b"reversed",
    b"round",
    b"self",
    b"set",
    b"setattr",
    b"sorted",
    b"str",
    b"sum",
    b"super",
    b"tuple",
    b"type",
    b"TypeError",
    b"ValueError",
    b"zip",
];

fn is_python_keyword(word: &[u8]) -> bool {
    PYTHON_KEYWORDS.contains(&word)
}

fn is_python_builtin(word: &[u8]) -> bool {
    PYTHON_BUILTINS.contains(&word)
}
