//! Python literals evaluated the way Python would: string escapes and implicit
//! concatenation, numbers, `True`/`False`/`None`, and lists, tuples and dicts of those;
//! plus the text helpers FastMCP and pydantic apply (docstring cleaning, `str.title`).
//!
//! Anything that is not a literal evaluates to `None`; nesting is capped, never recursed
//! without bound.

use super::lex::TokenKind;
use super::schema::JsonValue;
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

/// The value of one bytes literal token (`b"…"`, `rb"…"`); `Err` carries CPython's
/// `SyntaxError` message.
pub(crate) fn decode_bytes(token: &str) -> Result<Vec<u8>, String> {
    let Some(quote_at) = token.find(['\'', '"']) else { return Ok(Vec::new()) };
    let (prefix, quoted) = token.split_at(quote_at);
    let raw = prefix.to_ascii_lowercase().contains('r');
    let q = quoted.chars().next().unwrap_or('"');
    let triple: String = [q; 3].iter().collect();
    let (open, body) = if quoted.starts_with(&triple) {
        (triple.as_str(), quoted.get(3..).unwrap_or_default())
    } else {
        (&quoted[..q.len_utf8()], quoted.get(1..).unwrap_or_default())
    };
    let body = body.strip_suffix(open).unwrap_or(body);
    if !body.is_ascii() {
        return Err("bytes can only contain ASCII literal characters".to_owned());
    }
    let bytes = body.as_bytes();
    if raw {
        return Ok(bytes.to_vec());
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        i += 1;
        if b != b'\\' {
            out.push(b);
            continue;
        }
        let Some(&e) = bytes.get(i) else {
            out.push(b'\\');
            break;
        };
        i += 1;
        match e {
            b'\n' => {}
            b'\r' => {
                if bytes.get(i) == Some(&b'\n') {
                    i += 1;
                }
            }
            b'\\' | b'\'' | b'"' => out.push(e),
            b'a' => out.push(0x07),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0c),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(0x0b),
            b'0'..=b'7' => {
                let mut value = u32::from(e - b'0');
                for _ in 0..2 {
                    match bytes.get(i).filter(|d| (b'0'..=b'7').contains(d)) {
                        Some(d) => {
                            value = value * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        None => break,
                    }
                }
                out.push(u8::try_from(value & 0xff).unwrap_or(0));
            }
            b'x' => {
                let digits = bytes.get(i..i + 2).unwrap_or_default();
                match std::str::from_utf8(digits).ok().and_then(|d| u8::from_str_radix(d, 16).ok())
                {
                    Some(value) if digits.iter().all(u8::is_ascii_hexdigit) => {
                        out.push(value);
                        i += 2;
                    }
                    _ => {
                        return Err(format!(
                            "(value error) invalid \\x escape at position {}",
                            i - 2
                        ));
                    }
                }
            }
            other => {
                out.push(b'\\');
                out.push(other);
            }
        }
    }
    Ok(out)
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
) -> Option<JsonValue> {
    if start >= end || depth > MAX_DEPTH {
        return None;
    }
    if let Some(text) = string_literal(source, start, end) {
        return Some(JsonValue::Str(text));
    }
    if end == start + 1 {
        return match source.text(start) {
            "True" if source.is_kind(start, TokenKind::Name) => Some(JsonValue::Bool(true)),
            "False" if source.is_kind(start, TokenKind::Name) => Some(JsonValue::Bool(false)),
            "None" if source.is_kind(start, TokenKind::Name) => Some(JsonValue::Null),
            text if source.is_kind(start, TokenKind::Number) => number(text),
            _ => None,
        };
    }
    if end == start + 2 && source.is_kind(start + 1, TokenKind::Number) {
        let value = number(source.text(start + 1))?;
        return match (source.text(start), value) {
            ("+", value) if source.is_op(start, "+") => Some(value),
            ("-", JsonValue::Int(n)) if source.is_op(start, "-") => {
                n.checked_neg().map(JsonValue::Int)
            }
            ("-", JsonValue::Float(f)) if source.is_op(start, "-") => Some(JsonValue::Float(-f)),
            _ => None,
        };
    }
    let close = source.closing(start, end).filter(|&c| c + 1 == end)?;
    let parts: Vec<(usize, usize)> = source.split(start + 1, close, ",");
    let items = || -> Option<Vec<JsonValue>> {
        parts
            .iter()
            .filter(|(s, e)| s < e)
            .map(|&(s, e)| literal_value(source, s, e, depth + 1))
            .collect()
    };
    if source.is_op(start, "[") {
        return items().map(JsonValue::Array);
    }
    if source.is_op(start, "(") {
        // `(x)` is x; `()`, `(x,)` and `(x, y)` are tuples, dumped as arrays.
        if let [(s, e)] = parts.as_slice() {
            return if s < e {
                literal_value(source, *s, *e, depth + 1)
            } else {
                Some(JsonValue::Array(Vec::new()))
            };
        }
        return items().map(JsonValue::Array);
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
        return Some(JsonValue::Object(entries));
    }
    None
}

/// A numeric literal's value; `None` for complex numbers, integers beyond 64 bits and
/// literals CPython refuses.
pub(crate) fn number(text: &str) -> Option<JsonValue> {
    match read_number(text) {
        Ok(Number::Int(n)) => Some(JsonValue::Int(n)),
        Ok(Number::Float(f)) => Some(JsonValue::Float(f)),
        _ => None,
    }
}

/// A numeric literal as CPython's tokenizer reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Number {
    Int(i64),
    /// An integer that needs more than 64 bits.
    BigInt,
    Float(f64),
    /// An imaginary literal (`1j`).
    Complex,
}

/// Reads a number token: digits grouped by single underscores between digits (PEP 515),
/// `0x`/`0o`/`0b` prefixes (an underscore may follow the prefix), floats with a fraction
/// and/or an exponent, and a `j` suffix. `Err` carries CPython's `SyntaxError` message.
pub(crate) fn read_number(text: &str) -> Result<Number, String> {
    let bytes = text.as_bytes();
    let radix = match (bytes.first(), bytes.get(1).map(u8::to_ascii_lowercase)) {
        (Some(b'0'), Some(b'x')) => Some((16, "hexadecimal")),
        (Some(b'0'), Some(b'o')) => Some((8, "octal")),
        (Some(b'0'), Some(b'b')) => Some((2, "binary")),
        _ => None,
    };
    if let Some((radix, name)) = radix {
        return read_prefixed(bytes.get(2..).unwrap_or_default(), radix, name);
    }
    let decimal = || "invalid decimal literal".to_owned();
    let mut i = 0;
    let whole = digit_part(bytes, &mut i).ok_or_else(decimal)?;
    let mut fraction = String::new();
    let mut exponent = String::new();
    let mut float = false;
    if bytes.get(i) == Some(&b'.') {
        float = true;
        i += 1;
        if bytes.get(i) == Some(&b'_') {
            return Err(decimal());
        }
        fraction = digit_part(bytes, &mut i).ok_or_else(decimal)?;
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        float = true;
        i += 1;
        if let Some(&sign @ (b'+' | b'-')) = bytes.get(i) {
            exponent.push(char::from(sign));
            i += 1;
        }
        let digits = digit_part(bytes, &mut i).ok_or_else(decimal)?;
        if digits.is_empty() {
            return Err(decimal());
        }
        exponent.push_str(&digits);
    }
    if matches!(bytes.get(i), Some(b'j' | b'J')) {
        i += 1;
        if i < bytes.len() {
            return Err("invalid imaginary literal".to_owned());
        }
        return Ok(Number::Complex);
    }
    match bytes.get(i) {
        Some(b'.') => return Err("invalid syntax".to_owned()),
        Some(_) => return Err(decimal()),
        None => {}
    }
    if whole.is_empty() && fraction.is_empty() {
        return Err(decimal());
    }
    if float {
        let whole = if whole.is_empty() { "0" } else { whole.as_str() };
        let fraction = if fraction.is_empty() { "0" } else { fraction.as_str() };
        let exponent = if exponent.is_empty() { "0" } else { exponent.as_str() };
        let value = format!("{whole}.{fraction}e{exponent}").parse::<f64>();
        return value.map(Number::Float).map_err(|_| decimal());
    }
    if whole.len() > 1 && whole.starts_with('0') {
        if whole.bytes().all(|b| b == b'0') {
            return Ok(Number::Int(0));
        }
        return Err("leading zeros in decimal integer literals are not permitted; use an 0o \
                    prefix for octal integers"
            .to_owned());
    }
    Ok(whole.parse::<i64>().map_or(Number::BigInt, Number::Int))
}

/// Decimal digits from `bytes[*i]`, single underscores allowed between them; `None` when
/// an underscore is not followed by a digit. Stops at the first other byte.
fn digit_part(bytes: &[u8], i: &mut usize) -> Option<String> {
    let mut digits = String::new();
    while let Some(&b) = bytes.get(*i) {
        if b.is_ascii_digit() {
            digits.push(char::from(b));
            *i += 1;
        } else if b == b'_' && !digits.is_empty() {
            if !bytes.get(*i + 1).is_some_and(u8::is_ascii_digit) {
                return None;
            }
            *i += 1;
        } else {
            break;
        }
    }
    Some(digits)
}

/// The digits after `0x`, `0o` or `0b`: `(["_"] digit)+`.
fn read_prefixed(rest: &[u8], radix: u32, name: &str) -> Result<Number, String> {
    let mut digits = String::new();
    let mut i = 0;
    loop {
        let mut at = i;
        if rest.get(at) == Some(&b'_') {
            at += 1;
        }
        match rest.get(at) {
            Some(&b) if char::from(b).is_digit(radix) => {
                digits.push(char::from(b));
                i = at + 1;
            }
            None if at == i && !digits.is_empty() => break,
            Some(&b) if b.is_ascii_digit() && radix < 10 => {
                return Err(format!("invalid digit '{}' in {name} literal", char::from(b)));
            }
            _ => return Err(format!("invalid {name} literal")),
        }
    }
    Ok(i64::from_str_radix(&digits, radix).map_or(Number::BigInt, Number::Int))
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
