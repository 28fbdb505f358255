//! Python's format-spec mini-language (`f"{x:>8.2f}"`, `format(x, ",")`) for `str`,
//! `int`, `bool` and `float`, and `str.format` with automatic, numbered and named
//! fields.
//!
//! Widths and precisions beyond [`MAX_SIZE`] raise `MemoryError` before anything is
//! allocated.

use super::MAX_SIZE;
use super::ast::At;
use super::eval::{Interp, R};
use super::runtime::RunValue;
use super::value::repr_float;

/// A parsed format spec: `[[fill]align][sign][z][#][0][width][grouping][.precision][type]`.
#[derive(Default)]
struct Spec {
    fill: Option<char>,
    align: Option<char>,
    sign: Option<char>,
    alternate: bool,
    zero: bool,
    width: usize,
    grouping: Option<char>,
    precision: Option<usize>,
    kind: Option<char>,
}

/// Parses a spec; `Err` carries the `ValueError` message.
fn parse_spec(spec: &str, type_name: &str) -> Result<Spec, String> {
    let chars: Vec<char> = spec.chars().collect();
    let mut out = Spec::default();
    let mut i = 0;
    let is_align = |c: Option<&char>| matches!(c, Some('<' | '>' | '=' | '^'));
    if is_align(chars.get(1)) {
        out.fill = chars.first().copied();
        out.align = chars.get(1).copied();
        i = 2;
    } else if is_align(chars.first()) {
        out.align = chars.first().copied();
        i = 1;
    }
    if let Some(&c @ ('+' | '-' | ' ')) = chars.get(i) {
        out.sign = Some(c);
        i += 1;
    }
    if chars.get(i) == Some(&'z') {
        i += 1;
    }
    if chars.get(i) == Some(&'#') {
        out.alternate = true;
        i += 1;
    }
    if chars.get(i) == Some(&'0') {
        out.zero = true;
        i += 1;
    }
    let number = |i: &mut usize| -> Option<usize> {
        let start = *i;
        while chars.get(*i).is_some_and(char::is_ascii_digit) {
            *i += 1;
        }
        let digits: String = chars.get(start..*i).unwrap_or_default().iter().collect();
        (!digits.is_empty()).then(|| digits.parse().unwrap_or(usize::MAX))
    };
    out.width = number(&mut i).unwrap_or(0);
    if let Some(&c @ (',' | '_')) = chars.get(i) {
        out.grouping = Some(c);
        i += 1;
    }
    if chars.get(i) == Some(&'.') {
        i += 1;
        out.precision = Some(number(&mut i).ok_or("Format specifier missing precision")?);
    }
    if let Some(&c) = chars.get(i) {
        out.kind = Some(c);
        i += 1;
    }
    if i < chars.len() {
        return Err(format!("Invalid format specifier '{spec}' for object of type '{type_name}'"));
    }
    Ok(out)
}

/// Inserts `separator` every `every` digits of an integer part, from the right.
fn group(digits: &str, separator: char, every: usize) -> String {
    let count = digits.chars().count();
    let mut out = String::with_capacity(digits.len() + count / every.max(1));
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (count - i).is_multiple_of(every.max(1)) {
            out.push(separator);
        }
        out.push(c);
    }
    out
}

/// The fill character and alignment a spec pads with.
fn fill_align(spec: &Spec, default_align: char) -> (char, char) {
    match (spec.fill, spec.align) {
        (fill, Some(align)) => (fill.unwrap_or(if spec.zero { '0' } else { ' ' }), align),
        (_, None) if spec.zero => ('0', '='),
        _ => (' ', default_align),
    }
}

/// The integer digits of a number, ready to group: when the spec pads with `0` after the
/// sign, Python pads before grouping, so the zeros are grouped too (`f"{1234:010,}"` is
/// `00,001,234`); `room` is the width left for the grouped digits.
fn zero_padded(digits: &str, spec: &Spec, room: usize, every: usize) -> String {
    let grouped_len = |n: usize| n + n.saturating_sub(1) / every.max(1);
    let mut n = digits.len();
    if fill_align(spec, '>') == ('0', '=') {
        while grouped_len(n) < room {
            n += 1;
        }
    }
    format!("{}{digits}", "0".repeat(n - digits.len()))
}

/// Pads `sign` + `body` to the spec's width.
fn pad(spec: &Spec, sign: &str, body: &str, default_align: char) -> String {
    let len = sign.chars().count() + body.chars().count();
    let (fill, align) = fill_align(spec, default_align);
    if spec.width <= len {
        return format!("{sign}{body}");
    }
    let margin = spec.width - len;
    let fills = |n: usize| std::iter::repeat_n(fill, n).collect::<String>();
    match align {
        '<' => format!("{sign}{body}{}", fills(margin)),
        '^' => format!("{}{sign}{body}{}", fills(margin / 2), fills(margin - margin / 2)),
        '=' => format!("{sign}{}{body}", fills(margin)),
        _ => format!("{}{sign}{body}", fills(margin)),
    }
}

/// The sign to print for a number.
fn sign_of(negative: bool, spec: &Spec) -> &'static str {
    match (negative, spec.sign) {
        (true, _) => "-",
        (false, Some('+')) => "+",
        (false, Some(' ')) => " ",
        _ => "",
    }
}

/// `d.ddde+XX` from Rust's `d.ddde{exp}`.
fn python_exponent(text: &str, upper: bool) -> String {
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let e = if upper { 'E' } else { 'e' };
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}{e}{sign}{:02}", exponent.unsigned_abs())
}

/// The digits of a finite, non-negative float in one presentation type.
fn float_body(x: f64, kind: Option<char>, precision: Option<usize>, alternate: bool) -> String {
    let upper = matches!(kind, Some('F' | 'E' | 'G'));
    if x.is_infinite() {
        return if upper { "INF" } else { "inf" }.to_owned();
    }
    if x.is_nan() {
        return if upper { "NAN" } else { "nan" }.to_owned();
    }
    // The alternate form keeps the point when no digit follows it: `f"{3.0:#.0f}"` is `3.`.
    let point = |mut text: String| {
        if alternate && !text.contains('.') {
            text.insert(text.find(['e', 'E', '%']).unwrap_or(text.len()), '.');
        }
        text
    };
    match kind {
        Some('f' | 'F') => point(format!("{x:.*}", precision.unwrap_or(6))),
        Some('%') => point(format!("{:.*}%", precision.unwrap_or(6), x * 100.0)),
        Some('e' | 'E') => {
            point(python_exponent(&format!("{x:.*e}", precision.unwrap_or(6)), upper))
        }
        Some('g' | 'G' | 'n') | None => {
            if kind.is_none() && precision.is_none() {
                return repr_float(x);
            }
            let p = precision.unwrap_or(6).max(1);
            let exponent: i64 = if x == 0.0 {
                0
            } else {
                let text = format!("{x:.*e}", p - 1);
                text.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0)
            };
            let p_signed = i64::try_from(p).unwrap_or(i64::MAX);
            let mut text = if (-4..p_signed).contains(&exponent) {
                let decimals = usize::try_from(p_signed - 1 - exponent).unwrap_or(0);
                format!("{x:.decimals$}")
            } else {
                python_exponent(&format!("{x:.*e}", p - 1), upper)
            };
            if !alternate {
                let (mantissa, rest) = match text.find(['e', 'E']) {
                    Some(i) => (
                        text.get(..i).unwrap_or_default().to_owned(),
                        text.get(i..).unwrap_or_default().to_owned(),
                    ),
                    None => (text.clone(), String::new()),
                };
                let mantissa = if mantissa.contains('.') {
                    mantissa.trim_end_matches('0').trim_end_matches('.').to_owned()
                } else {
                    mantissa
                };
                text = format!("{mantissa}{rest}");
                if kind.is_none() && !text.contains(['.', 'e', 'E']) {
                    text.push_str(".0");
                }
            }
            point(text)
        }
        _ => repr_float(x),
    }
}

impl Interp<'_, '_> {
    /// `format(value, spec)`.
    pub(crate) fn format_value(&mut self, value: &RunValue, spec: &str, at: At) -> R<String> {
        if let RunValue::Temporal(t) = value {
            return self.format_temporal(*t, spec, at);
        }
        if spec.is_empty() {
            return self.str_of(value, at);
        }
        let type_name = self.type_name(value);
        let parsed = parse_spec(spec, &type_name).map_err(|m| self.raise("ValueError", m, at))?;
        if parsed.width > MAX_SIZE || parsed.precision.is_some_and(|p| p > MAX_SIZE) {
            return Err(self.memory_error(at));
        }
        let unknown =
            |kind: char| format!("Unknown format code '{kind}' for object of type '{type_name}'");
        let text = match value {
            RunValue::Str(s) => {
                if let Some(kind) = parsed.kind.filter(|&k| k != 's') {
                    return Err(self.raise("ValueError", unknown(kind), at));
                }
                if parsed.sign.is_some() {
                    return Err(self.raise(
                        "ValueError",
                        "Sign not allowed in string format specifier",
                        at,
                    ));
                }
                if parsed.alternate {
                    let message = "Alternate form (#) not allowed in string format specifier";
                    return Err(self.raise("ValueError", message, at));
                }
                if parsed.align == Some('=') {
                    let message = "'=' alignment not allowed in string format specifier";
                    return Err(self.raise("ValueError", message, at));
                }
                if let Some(g) = parsed.grouping {
                    return Err(self.raise(
                        "ValueError",
                        format!("Cannot specify '{g}' with 's'."),
                        at,
                    ));
                }
                let body: String = match parsed.precision {
                    Some(p) => s.chars().take(p).collect(),
                    None => s.to_string(),
                };
                pad(&parsed, "", &body, '<')
            }
            RunValue::Int(_) | RunValue::Bool(_) => {
                let n = value.as_int().unwrap_or(0);
                match parsed.kind {
                    None | Some('d' | 'n' | 'b' | 'o' | 'x' | 'X' | 'c') => {
                        if parsed.precision.is_some() {
                            let message = "Precision not allowed in integer format specifier";
                            return Err(self.raise("ValueError", message, at));
                        }
                        let magnitude = n.unsigned_abs();
                        let kind = parsed.kind.unwrap_or('d');
                        let (digits, prefix, every) = match kind {
                            'b' => (format!("{magnitude:b}"), "0b", 4),
                            'o' => (format!("{magnitude:o}"), "0o", 4),
                            'x' => (format!("{magnitude:x}"), "0x", 4),
                            'X' => (format!("{magnitude:X}"), "0X", 4),
                            'c' => {
                                let c = u32::try_from(n).ok().and_then(char::from_u32);
                                let Some(c) = c else {
                                    let message = "%c arg not in range(0x110000)";
                                    return Err(self.raise("OverflowError", message, at));
                                };
                                (c.to_string(), "", 3)
                            }
                            _ => (magnitude.to_string(), "", 3),
                        };
                        let prefix = if parsed.alternate { prefix } else { "" };
                        let sign = format!("{}{prefix}", sign_of(n < 0, &parsed));
                        let digits = match parsed.grouping {
                            Some(',') if kind != 'd' && kind != 'n' => {
                                let message = format!("Cannot specify ',' with '{kind}'.");
                                return Err(self.raise("ValueError", message, at));
                            }
                            Some(g) => {
                                let room = parsed.width.saturating_sub(sign.len());
                                group(&zero_padded(&digits, &parsed, room, every), g, every)
                            }
                            None => digits,
                        };
                        pad(&parsed, &sign, &digits, '>')
                    }
                    Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%') => {
                        #[allow(clippy::cast_precision_loss)]
                        let x = n as f64;
                        self.format_float(x, &parsed)
                    }
                    Some(kind) => return Err(self.raise("ValueError", unknown(kind), at)),
                }
            }
            RunValue::Float(x) => match parsed.kind {
                None | Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%' | 'n') => {
                    self.format_float(*x, &parsed)
                }
                Some(kind) => return Err(self.raise("ValueError", unknown(kind), at)),
            },
            other => {
                let message = format!(
                    "unsupported format string passed to {}.__format__",
                    self.type_name(other)
                );
                return Err(self.raise("TypeError", message, at));
            }
        };
        self.charge(text.len(), at)?;
        Ok(text)
    }

    fn format_float(&self, x: f64, spec: &Spec) -> String {
        let negative = x < 0.0 || (x == 0.0 && x.is_sign_negative());
        let sign = sign_of(negative && !x.is_nan(), spec);
        let body = float_body(x.abs(), spec.kind, spec.precision, spec.alternate);
        let body = match spec.grouping {
            Some(g) if body.starts_with(|c: char| c.is_ascii_digit()) => {
                let end = body.find(|c: char| !c.is_ascii_digit()).unwrap_or(body.len());
                let (whole, rest) = body.split_at(end);
                let room = spec.width.saturating_sub(sign.len() + rest.chars().count());
                format!("{}{rest}", group(&zero_padded(whole, spec, room, 3), g, 3))
            }
            _ => body,
        };
        pad(spec, sign, &body, '>')
    }

    /// `template.format(*args, **kwargs)`.
    pub(crate) fn str_format(
        &mut self,
        template: &str,
        args: &[RunValue],
        kwargs: &[(String, RunValue)],
        at: At,
    ) -> R<String> {
        self.str_format_nested(template, args, kwargs, 0, at)
    }

    /// `str.format` of a template, or of a spec inside one (`depth` 1; Python refuses 2).
    fn str_format_nested(
        &mut self,
        template: &str,
        args: &[RunValue],
        kwargs: &[(String, RunValue)],
        depth: usize,
        at: At,
    ) -> R<String> {
        if depth > 1 {
            return Err(self.raise("ValueError", "Max string recursion exceeded", at));
        }
        let mut out = String::new();
        let mut chars = template.char_indices().peekable();
        let mut automatic: Option<usize> = None;
        let mut manual = false;
        while let Some((i, c)) = chars.next() {
            match c {
                '{' if chars.peek().map(|&(_, n)| n) == Some('{') => {
                    chars.next();
                    out.push('{');
                }
                '}' if chars.peek().map(|&(_, n)| n) == Some('}') => {
                    chars.next();
                    out.push('}');
                }
                '}' => {
                    return Err(self.raise(
                        "ValueError",
                        "Single '}' encountered in format string",
                        at,
                    ));
                }
                '{' if chars.peek().is_none() => {
                    let message = "Single '{' encountered in format string";
                    return Err(self.raise("ValueError", message, at));
                }
                '{' => {
                    let mut depth = 0usize;
                    let mut end = None;
                    for (j, d) in chars.by_ref() {
                        match d {
                            '{' => depth += 1,
                            '}' if depth == 0 => {
                                end = Some(j);
                                break;
                            }
                            '}' => depth -= 1,
                            _ => {}
                        }
                    }
                    let Some(end) = end else {
                        let message = "expected '}' before end of string";
                        return Err(self.raise("ValueError", message, at));
                    };
                    let field = template.get(i + 1..end).unwrap_or_default();
                    let (head, spec) = field.split_once(':').unwrap_or((field, ""));
                    let (name, conversion) = match head.split_once('!') {
                        Some((name, conversion)) => (name, Some(conversion)),
                        None => (head, None),
                    };
                    let value = if name.is_empty() {
                        if manual {
                            let message = "cannot switch from manual field specification to automatic field numbering";
                            return Err(self.raise("ValueError", message, at));
                        }
                        let index = automatic.map_or(0, |n| n + 1);
                        automatic = Some(index);
                        self.format_arg(args, index, at)?
                    } else if name.chars().all(|c| c.is_ascii_digit()) {
                        if automatic.is_some() {
                            let message = "cannot switch from automatic field numbering to manual field specification";
                            return Err(self.raise("ValueError", message, at));
                        }
                        manual = true;
                        self.format_arg(args, name.parse().unwrap_or(usize::MAX), at)?
                    } else if name.chars().all(|c| c == '_' || c.is_alphanumeric()) {
                        match kwargs.iter().find(|(k, _)| k == name) {
                            Some((_, value)) => value.clone(),
                            None => {
                                return Err(self.raise_with(
                                    "KeyError",
                                    vec![RunValue::str(name)],
                                    at,
                                ));
                            }
                        }
                    } else {
                        return Err(
                            self.unsupported("a `str.format` field with attributes or indexes", at)
                        );
                    };
                    let value = match conversion {
                        None => value,
                        Some("r") => RunValue::str(&self.repr(&value, at)?),
                        Some("s") => RunValue::str(&self.str_of(&value, at)?),
                        Some(other) => {
                            let message = format!("Unknown conversion specifier {other}");
                            return Err(self.raise("ValueError", message, at));
                        }
                    };
                    let spec = if spec.contains('{') {
                        self.str_format_nested(spec, args, kwargs, depth + 1, at)?
                    } else {
                        spec.to_owned()
                    };
                    let text = self.format_value(&value, &spec, at)?;
                    out.push_str(&text);
                    if out.len() > 4 * MAX_SIZE {
                        return Err(self.memory_error(at));
                    }
                }
                _ => out.push(c),
            }
        }
        self.check_str(&out, at)?;
        Ok(out)
    }

    fn format_arg(&self, args: &[RunValue], index: usize, at: At) -> R<RunValue> {
        args.get(index).cloned().ok_or_else(|| {
            let message =
                format!("Replacement index {index} out of range for positional args tuple");
            self.raise("IndexError", message, at)
        })
    }
}
