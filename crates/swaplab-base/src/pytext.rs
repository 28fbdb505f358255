//! Python's text rules that more than one reader needs: `repr()` of a `str` (the YAML
//! readers quote keys with it, Rasa's and pydantic's messages show values with it, the
//! interpreter prints with it), `str.isprintable()`, which decides what it escapes, and
//! `repr()` of a `float`.
//! One implementation, so a message and the interpreter never quote differently.

/// Whether Python's `str.isprintable()` holds for `c` (approximated: controls,
/// separators other than the space, and common format characters are not printable).
pub fn printable(c: char) -> bool {
    !(c.is_control()
        || (c.is_whitespace() && c != ' ')
        || matches!(
            c,
            '\u{ad}'
                | '\u{600}'..='\u{605}'
                | '\u{61c}'
                | '\u{6dd}'
                | '\u{70f}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{206f}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
                | '\u{e000}'..='\u{f8ff}'
                | '\u{e0001}'
                | '\u{e0020}'..='\u{e007f}'
                | '\u{f0000}'..='\u{10ffff}'
        ))
}

/// Appends Python's `repr(s)`: single quotes unless only double quotes avoid escaping.
pub fn repr_str(s: &str, out: &mut String) {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            _ if c == quote => {
                out.push('\\');
                out.push(c);
            }
            _ if !printable(c) => escape_char(c, out),
            _ => out.push(c),
        }
    }
    out.push(quote);
}

/// `\xNN`, `\uNNNN` or `\UNNNNNNNN`, as Python escapes a character.
pub fn escape_char(c: char, out: &mut String) {
    let code = u32::from(c);
    if code < 0x100 {
        out.push_str(&format!("\\x{code:02x}"));
    } else if code < 0x10000 {
        out.push_str(&format!("\\u{code:04x}"));
    } else {
        out.push_str(&format!("\\U{code:08x}"));
    }
}

/// Python's `repr(s)` as a new string.
pub fn str_repr(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    repr_str(s, &mut out);
    out
}

/// Python's `repr(float)`: the shortest digits that round-trip, fixed notation for
/// exponents from -4 to 15, else `d.ddde+XX`; NaN and the infinities as `json.dumps`
/// writes them (`NaN`, `Infinity`, `-Infinity`), the callers' one use of them.
pub fn float_repr(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_owned();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if (-4..16).contains(&exponent) {
        let point = exponent + 1;
        let body = if point <= 0 {
            let zeros = usize::try_from(-point).unwrap_or(0);
            format!("0.{}{digits}", "0".repeat(zeros))
        } else {
            let point = usize::try_from(point).unwrap_or(0);
            if digits.len() <= point {
                format!("{digits}{}.0", "0".repeat(point - digits.len()))
            } else {
                format!("{}.{}", &digits[..point], &digits[point..])
            }
        };
        format!("{sign}{body}")
    } else {
        let (head, tail) = digits.split_at(1.min(digits.len()));
        let fraction = if tail.is_empty() { String::new() } else { format!(".{tail}") };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        format!("{sign}{head}{fraction}e{exp_sign}{:02}", exponent.unsigned_abs())
    }
}

#[cfg(test)]
mod tests {
    use super::str_repr;

    #[test]
    fn repr_quotes_and_escapes_as_cpython_does() {
        // Each expected value is CPython 3.11's `repr()` of the same string.
        assert_eq!(str_repr("plain"), "'plain'");
        assert_eq!(str_repr("it's"), "\"it's\"");
        assert_eq!(str_repr("both ' and \""), "'both \\' and \"'");
        assert_eq!(str_repr("tab\tnew\nline\r"), "'tab\\tnew\\nline\\r'");
        assert_eq!(str_repr("nul\0 del\x7f"), "'nul\\x00 del\\x7f'");
        // What the YAML readers' copy let through: C1 controls, line separators, format
        // characters.
        assert_eq!(str_repr("a\u{85}b"), "'a\\x85b'");
        assert_eq!(str_repr("a\u{2028}b"), "'a\\u2028b'");
        assert_eq!(str_repr("zero\u{200b}width"), "'zero\\u200bwidth'");
        assert_eq!(str_repr("é ünï 日本"), "'é ünï 日本'");
    }
}
