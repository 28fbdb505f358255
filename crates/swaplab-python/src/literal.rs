//! Python literals evaluated the way Python would: string escapes and implicit
//! concatenation, numbers, `True`/`False`/`None`, and lists, tuples and dicts of those;
//! plus the text helpers FastMCP and pydantic apply (docstring cleaning, `str.title`).
//!
//! Anything that is not a literal evaluates to `None`; nesting is capped, never recursed
//! without bound.

use super::lex::TokenKind;
use super::schema::Value;
use super::source::Source;

/// Literal nesting deeper than this is not evaluated.
pub(crate) const MAX_DEPTH: usize = 32;

/// Tokens `start..end` as one `str` literal: plain (not f-, not bytes) string tokens,
/// implicitly concatenated. `None` for anything else.
pub(crate) fn string_literal(source: &Source<'_>, start: usize, end: usize) -> Option<String> {
    if start >= end {
        return None;
    }
    let mut out = String::new();
    for i in start..end {
        if !source.is_kind(i, TokenKind::String) {
            return None;
        }
        out.push_str(&decode_str(source.text(i))?);
    }
    Some(out)
}

/// The value of one string token when it is a plain `str` literal.
pub(crate) fn decode_str(token: &str) -> Option<String> {
    let quote_at = token.find(['\'', '"'])?;
    let (prefix, quoted) = token.split_at(quote_at);
    let prefix = prefix.to_ascii_lowercase();
    if prefix.contains(['b', 'f', 't']) {
        return None;
    }
    let raw = prefix.contains('r');
    let q = quoted.chars().next()?;
    let triple: String = [q; 3].iter().collect();
    let (open, body) = if quoted.starts_with(&triple) {
        (triple.as_str(), quoted.get(3..).unwrap_or_default())
    } else {
        (&quoted[..q.len_utf8()], quoted.get(1..).unwrap_or_default())
    };
    // An unterminated literal keeps what it has; the tokenizer has reported it.
    let body = body.strip_suffix(open).unwrap_or(body);
    Some(if raw { body.to_owned() } else { unescape(body) })
}

/// Python's escape sequences in a non-raw `str` literal. Unknown escapes stay as written.
fn unescape(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            '\n' => {}
            '\r' => {
                chars.next_if_eq(&'\n');
            }
            '\\' | '\'' | '"' => out.push(e),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\u{b}'),
            '0'..='7' => {
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(value).unwrap_or('\u{fffd}'));
            }
            'x' | 'u' | 'U' => {
                let width = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let digits: String = chars.clone().take(width).collect();
                match u32::from_str_radix(&digits, 16) {
                    Ok(value)
                        if digits.len() == width
                            && digits.chars().all(|d| d.is_ascii_hexdigit()) =>
                    {
                        for _ in 0..width {
                            chars.next();
                        }
                        out.push(char::from_u32(value).unwrap_or('\u{fffd}'));
                    }
                    _ => {
                        out.push('\\');
                        out.push(e);
                    }
                }
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

/// Tokens `start..end` as a JSON-able literal, as pydantic would dump it.
pub(crate) fn literal_value(
    source: &Source<'_>,
    start: usize,
    end: usize,
    depth: usize,
) -> Option<Value> {
    if start >= end || depth > MAX_DEPTH {
        return None;
    }
    if let Some(text) = string_literal(source, start, end) {
        return Some(Value::Str(text));
    }
    if end == start + 1 {
        return match source.text(start) {
            "True" if source.is_kind(start, TokenKind::Name) => Some(Value::Bool(true)),
            "False" if source.is_kind(start, TokenKind::Name) => Some(Value::Bool(false)),
            "None" if source.is_kind(start, TokenKind::Name) => Some(Value::Null),
            text if source.is_kind(start, TokenKind::Number) => number(text),
            _ => None,
        };
    }
    if end == start + 2 && source.is_kind(start + 1, TokenKind::Number) {
        let value = number(source.text(start + 1))?;
        return match (source.text(start), value) {
            ("+", value) if source.is_op(start, "+") => Some(value),
            ("-", Value::Int(n)) if source.is_op(start, "-") => n.checked_neg().map(Value::Int),
            ("-", Value::Float(f)) if source.is_op(start, "-") => Some(Value::Float(-f)),
            _ => None,
        };
    }
    let close = source.closing(start, end).filter(|&c| c + 1 == end)?;
    let parts: Vec<(usize, usize)> = source.split(start + 1, close, ",");
    let items = || -> Option<Vec<Value>> {
        parts
            .iter()
            .filter(|(s, e)| s < e)
            .map(|&(s, e)| literal_value(source, s, e, depth + 1))
            .collect()
    };
    if source.is_op(start, "[") {
        return items().map(Value::Array);
    }
    if source.is_op(start, "(") {
        // `(x)` is x; `()`, `(x,)` and `(x, y)` are tuples, dumped as arrays.
        if let [(s, e)] = parts.as_slice() {
            return if s < e {
                literal_value(source, *s, *e, depth + 1)
            } else {
                Some(Value::Array(Vec::new()))
            };
        }
        return items().map(Value::Array);
    }
    if source.is_op(start, "{") {
        let mut entries = Vec::new();
        for (s, e) in parts {
            if s >= e {
                continue;
            }
            let colon = source.find_top(s, e, |i| source.is_op(i, ":"))?;
            let key = string_literal(source, s, colon)?;
            let value = literal_value(source, colon + 1, e, depth + 1)?;
            entries.push((key, value));
        }
        return Some(Value::Object(entries));
    }
    None
}

/// A numeric literal's value; `None` for complex numbers and integers beyond 64 bits.
pub(crate) fn number(text: &str) -> Option<Value> {
    let digits: String =
        text.chars().filter(|&c| c != '_').collect::<String>().to_ascii_lowercase();
    if digits.ends_with('j') {
        return None;
    }
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(rest) = digits.strip_prefix(prefix) {
            return i64::from_str_radix(rest, radix).ok().map(Value::Int);
        }
    }
    if digits.contains(['.', 'e']) {
        return digits.parse::<f64>().ok().map(Value::Float);
    }
    if digits.len() > 1 && digits.starts_with('0') && digits.chars().any(|c| c != '0') {
        return None; // Python rejects leading zeros in a decimal integer.
    }
    digits.parse::<i64>().ok().map(Value::Int)
}

/// `str.expandtabs()` with Python's default tab size of 8.
fn expand_tabs(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut column = 0usize;
    for c in text.chars() {
        match c {
            '\t' => {
                let spaces = 8 - column % 8;
                out.extend(std::iter::repeat_n(' ', spaces));
                column += spaces;
            }
            '\n' | '\r' => {
                out.push(c);
                column = 0;
            }
            _ => {
                out.push(c);
                column += 1;
            }
        }
    }
    out
}

/// The smallest indentation (in spaces) of the non-blank lines after the first.
fn margin(lines: &[&str]) -> usize {
    lines
        .iter()
        .skip(1)
        .filter_map(|line| {
            let content = line.trim_start_matches(' ');
            (!content.is_empty()).then(|| line.len() - content.len())
        })
        .min()
        .unwrap_or(0)
}

fn strip_spaces(line: &str, count: usize) -> &str {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    line.get(spaces.min(count)..).unwrap_or_default()
}

/// A docstring as CPython 3.13+ stores it in `__doc__`: tabs expanded, leading spaces
/// of the first line and the common indentation of the others removed.
pub(crate) fn compiled_docstring(raw: &str) -> String {
    let expanded = expand_tabs(raw);
    let lines: Vec<&str> = expanded.split('\n').collect();
    let margin = margin(&lines);
    let mut out = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        out.push(if i == 0 { line.trim_start_matches(' ') } else { strip_spaces(line, margin) });
    }
    out.join("\n")
}

/// `inspect.cleandoc` (Python 3.13): as [`compiled_docstring`], then leading and trailing
/// blank lines dropped.
pub(crate) fn cleandoc(doc: &str) -> String {
    let compiled = compiled_docstring(doc);
    let mut lines: Vec<&str> = compiled.split('\n').collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    let first = lines.iter().position(|l| !l.is_empty()).unwrap_or(lines.len());
    lines.get(first..).unwrap_or_default().join("\n")
}

/// pydantic's default field title: `name.title().replace("_", " ").strip()`.
pub(crate) fn field_title(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut previous_cased = false;
    for c in name.chars() {
        let cased = c.is_lowercase() || c.is_uppercase();
        if cased && !previous_cased {
            out.extend(c.to_uppercase());
        } else if cased {
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
        previous_cased = cased;
    }
    out.replace('_', " ").trim().to_owned()
}
