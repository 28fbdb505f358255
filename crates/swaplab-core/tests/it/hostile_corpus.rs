//! The hostile-payload corpus (`fixtures/hostile/xss-payloads.txt`) and the browser's
//! reading of a URL's scheme: one oracle for the core's hostile tests and the content
//! crate's, which includes this file by path. The scheme is found here independently of
//! `markdown::allowed_url`, the way the WHATWG URL parser finds it.
// The corpus is read from disk, which tests may do.
#![allow(clippy::disallowed_methods)]

use std::path::Path;

/// The corpus, escapes decoded (the file's header says how).
pub fn payloads() -> Vec<String> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hostile/xss-payloads.txt");
    let text = std::fs::read_to_string(&path).expect("the payload corpus");
    let payloads: Vec<String> = text
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with(";;"))
        .map(unescape)
        .collect();
    assert!(payloads.len() >= 100, "the corpus lost payloads: {}", payloads.len());
    payloads
}

fn unescape(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some('x') => {
                chars.next();
                let hex: String = chars.by_ref().take(2).collect();
                let code = u32::from_str_radix(&hex, 16).expect("\\xHH");
                out.push(char::from_u32(code).expect("a character"));
                continue;
            }
            Some('u') => {
                chars.next();
                assert_eq!(chars.next(), Some('{'), "\\u{{…}} in {line}");
                let hex: String = chars.by_ref().take_while(|&c| c != '}').collect();
                let code = u32::from_str_radix(&hex, 16).expect("\\u{HHHH}");
                out.push(char::from_u32(code).expect("a character"));
                continue;
            }
            _ => {
                out.push('\\');
                continue;
            }
        }
        chars.next();
    }
    out
}

/// The scheme a browser reads in `url`, lowercased, or `None` for a relative URL: leading
/// and trailing C0 controls and spaces are dropped, tabs and newlines anywhere are
/// removed, and a scheme is an ASCII letter then letters, digits, `+`, `-` or `.` up to
/// the first `:`.
pub fn browser_scheme(url: &str) -> Option<String> {
    let cleaned: String = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let mut chars = cleaned.chars();
    let first = chars.next()?;
    if !first.is_ascii_alphabetic() {
        return None;
    }
    let rest: String =
        chars.take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')).collect();
    cleaned[1 + rest.len()..]
        .starts_with(':')
        .then(|| format!("{first}{rest}").to_ascii_lowercase())
}

/// Whether a browser would follow `url` only as http, https, mailto or a relative link.
pub fn url_is_safe(url: &str) -> bool {
    browser_scheme(url).is_none_or(|scheme| matches!(scheme.as_str(), "http" | "https" | "mailto"))
}

/// Every element the markdown renderer may produce (`swaplab_core::markdown::Tag`): the
/// oracle for anything rendered from a payload.
pub const MARKDOWN_TAGS: [&str; 29] = [
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "pre",
    "code",
    "ul",
    "ol",
    "li",
    "em",
    "strong",
    "del",
    "sup",
    "sub",
    "a",
    "img",
    "hr",
    "br",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "span",
];
