//! `responses.yml` (project or skill): `responses:` maps a name such as `utter_confirm_note`
//! to a list of variants, each a mapping with `text:` and optionally `condition`,
//! `metadata` and `buttons`. Keeps every name, text and `{placeholder}` with its place, and
//! fills placeholders from memory values (`{entry}`, `{session.<ns>.<entry>}`, §2.7).
//!
//! The shape findings are ours (Rasa's domain loader words them differently); only
//! `mantle.validation.response.empty_body` is a Rasa code. Nothing here panics.

use serde::Serialize;

use crate::diagnostic::{Diagnostic, Phase, Span};
use crate::rasa::memory::parse_yaml;
use crate::yaml::{Node, YamlValue};

/// Train: a response (or one of its variants) has no text.
pub const CODE_EMPTY_BODY: &str = "mantle.validation.response.empty_body";
/// Train: a part of the file has the wrong shape (ours).
pub const CODE_INVALID_SHAPE: &str = "swaplab.responses.invalid_shape";

/// Keys that give a variant content without `text:`.
const CONTENT_KEYS: [&str; 4] = ["buttons", "custom", "image", "attachment"];

/// One `responses.yml`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Responses {
    /// The file's path in the project.
    pub file: String,
    /// The responses, in file order.
    pub responses: Vec<Response>,
    /// Read and train findings.
    pub diagnostics: Vec<Diagnostic>,
}

impl Responses {
    /// The response named `name`.
    pub fn get(&self, name: &str) -> Option<&Response> {
        self.responses.iter().find(|response| response.name == name)
    }
}

/// One named response.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Response {
    /// `utter_…`.
    pub name: String,
    /// The name as written.
    pub span: Span,
    /// Its variants, in file order.
    pub variants: Vec<ResponseVariant>,
}

impl Response {
    /// The first variant's text: what a response without conditions renders.
    pub fn first_text(&self) -> Option<&str> {
        self.variants.iter().find_map(|variant| variant.text.as_deref())
    }
}

/// One variant of a response.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ResponseVariant {
    /// `text:`, exactly as YAML delivers it (a folded `>` text ends with a line break).
    pub text: Option<String>,
    /// The whole variant.
    pub span: Span,
    /// The `text` value, when present.
    pub text_span: Option<Span>,
    /// The distinct `{…}` placeholder names of `text`, in order of first use.
    pub placeholders: Vec<String>,
    /// `condition:` as written.
    pub condition: Option<YamlValue>,
    /// `metadata:` as written.
    pub metadata: Option<YamlValue>,
    /// `buttons:`.
    pub buttons: Vec<Button>,
}

/// One button of a variant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Button {
    /// `title:`.
    pub title: Option<String>,
    /// `payload:` (for example `/SetSlots(…)` or `set:session.project.x=…`).
    pub payload: Option<String>,
    /// The button.
    pub span: Span,
}

/// Reads one `responses.yml`. A file without `responses:` has no responses.
pub fn read_responses(file: &str, text: &str) -> Responses {
    let mut out =
        Responses { file: file.to_owned(), responses: Vec::new(), diagnostics: Vec::new() };
    let Some(root) = parse_yaml(file, text, &mut out.diagnostics) else { return out };
    let mut shape = |span: Span, message: String| {
        Diagnostic::error(file, span, Phase::Train, CODE_INVALID_SHAPE, message)
    };
    if root.as_map().is_none() {
        let message = format!(
            "'{file}' must be a mapping with a 'responses:' key, but got '{}'.",
            root.value.type_name()
        );
        out.diagnostics.push(shape(root.span, message));
        return out;
    }
    let Some(responses) = root.get("responses").filter(|node| !node.is_null()) else { return out };
    let Some(entries) = responses.as_map() else {
        let message = format!(
            "'responses' must map response names to lists of variants, but got '{}'.",
            responses.value.type_name()
        );
        out.diagnostics.push(shape(responses.span, message));
        return out;
    };
    for (key, value) in entries {
        let name = key.key_text();
        let mut response = Response { name: name.clone(), span: key.span, variants: Vec::new() };
        let Some(items) = value.as_seq() else {
            let message = format!(
                "Response '{name}' must be a list of variants (each with 'text:'), but got '{}'.",
                value.value.type_name()
            );
            out.diagnostics.push(shape(value.span, message));
            out.responses.push(response);
            continue;
        };
        if items.is_empty() {
            out.diagnostics.push(empty_body(file, value.span, &name));
        }
        for item in items {
            if item.as_map().is_none() {
                let message = format!(
                    "Each variant of response '{name}' must be a mapping with 'text:', but got \
                     '{}'.",
                    item.value.type_name()
                );
                out.diagnostics.push(shape(item.span, message));
                continue;
            }
            let variant = read_variant(item, &name, &mut shape, &mut out.diagnostics);
            let has_content = CONTENT_KEYS.iter().any(|key| item.get(key).is_some());
            let blank = variant.text.as_deref().is_none_or(|text| text.trim().is_empty());
            if blank && !(variant.text.is_none() && has_content) {
                out.diagnostics.push(empty_body(
                    file,
                    variant.text_span.unwrap_or(item.span),
                    &name,
                ));
            }
            response.variants.push(variant);
        }
        out.responses.push(response);
    }
    out
}

fn empty_body(file: &str, span: Span, name: &str) -> Diagnostic {
    Diagnostic::warning(
        file,
        span,
        Phase::Train,
        CODE_EMPTY_BODY,
        format!("Response '{name}' has an empty text; it would send nothing to the user."),
    )
}

fn read_variant(
    item: &Node,
    name: &str,
    shape: &mut impl FnMut(Span, String) -> Diagnostic,
    out: &mut Vec<Diagnostic>,
) -> ResponseVariant {
    let mut variant = ResponseVariant {
        text: None,
        span: item.span,
        text_span: None,
        placeholders: Vec::new(),
        condition: item.get("condition").map(|node| node.value.clone()),
        metadata: item.get("metadata").map(|node| node.value.clone()),
        buttons: Vec::new(),
    };
    if let Some(text) = item.get("text") {
        variant.text_span = Some(text.span);
        match &text.value {
            YamlValue::Str(body) => {
                variant.placeholders = placeholders(body);
                variant.text = Some(body.clone());
            }
            YamlValue::Null => {}
            other => out.push(shape(
                text.span,
                format!(
                    "The text of response '{name}' must be a string, but got '{}'.",
                    other.type_name()
                ),
            )),
        }
    }
    if let Some(buttons) = item.get("buttons").filter(|node| !node.is_null()) {
        match buttons.as_seq() {
            Some(list) => {
                for button in list {
                    let field =
                        |key: &str| button.get(key).and_then(Node::as_str).map(str::to_owned);
                    variant.buttons.push(Button {
                        title: field("title"),
                        payload: field("payload"),
                        span: button.span,
                    });
                }
            }
            None => out.push(shape(
                buttons.span,
                format!("The buttons of response '{name}' must be a list."),
            )),
        }
    }
    variant
}

/// Where a placeholder reads its value from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Placeholder<'a> {
    /// `{entry}`: a bare entry, resolved as memory's bare names are.
    Entry {
        /// The entry.
        entry: &'a str,
    },
    /// `{session.<ns>.<entry>}`.
    Session {
        /// `project`, `system` or a skill id.
        namespace: &'a str,
        /// The entry.
        entry: &'a str,
    },
    /// Anything else between braces, such as `{a.b}` or `{session.x}`.
    Other {
        /// The text between the braces.
        raw: &'a str,
    },
}

impl<'a> Placeholder<'a> {
    /// Classifies the text between a placeholder's braces.
    pub fn parse(raw: &'a str) -> Placeholder<'a> {
        let word = |s: &str| {
            !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        };
        if let Some(rest) = raw.strip_prefix("session.") {
            if let Some((namespace, entry)) = rest.split_once('.')
                && word(namespace)
                && word(entry)
            {
                return Placeholder::Session { namespace, entry };
            }
        } else if word(raw) {
            return Placeholder::Entry { entry: raw };
        }
        Placeholder::Other { raw }
    }
}

/// The byte ranges of each `{name}` in `text` (brace to brace), as the regex
/// `{([^\n{}]+?)}` of Rasa's response interpolation finds them.
fn placeholder_ranges(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(open) = text[at..].find('{').map(|i| at + i) {
        let inner_start = open + 1;
        let stop = text[inner_start..].find(['{', '}', '\n']).map(|i| inner_start + i);
        match stop {
            Some(close) if text.as_bytes()[close] == b'}' && close > inner_start => {
                out.push((open, close + 1));
                at = close + 1;
            }
            _ => at = inner_start,
        }
    }
    out
}

/// The distinct placeholder names in `text`, in order of first use.
pub fn placeholders(text: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (start, end) in placeholder_ranges(text) {
        let name = &text[start + 1..end - 1];
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    names
}

/// Fills each placeholder of `text` with `value(placeholder)`; a placeholder without a
/// value is left as written, braces and all, so the reader sees what did not resolve.
pub fn render(text: &str, value: impl Fn(Placeholder<'_>) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (start, end) in placeholder_ranges(text) {
        out.push_str(&text[last..start]);
        match value(Placeholder::parse(&text[start + 1..end - 1])) {
            Some(filled) => out.push_str(&filled),
            None => out.push_str(&text[start..end]),
        }
        last = end;
    }
    out.push_str(&text[last..]);
    out
}
