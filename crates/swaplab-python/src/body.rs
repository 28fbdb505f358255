//! What a tool's body does with the data the lesson is about: its parameters, the project
//! memory it reads and writes through `context.memory`, the CRM client calls it makes
//! (and where each argument came from), and the keys of the results it returns.
//!
//! Flow is followed textually, not by control flow: a name's origin is its last binding
//! written before the use. Nested functions count as part of the body. Never panics on
//! any token range.

use std::collections::BTreeMap;

use serde::Serialize;

use super::lex::TokenKind;
use super::literal::{literal_value, string_literal};
use super::schema::JsonValue;
use super::source::{Body, RawParam, Source};
use swaplab_base::diagnostic::{Severity, Span};

/// How a parameter is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamKind {
    /// A named parameter (positional, keyword or keyword-only).
    Named,
    /// `*args` (outside the subset: reported).
    VarPositional,
    /// `**kwargs` (outside the subset: reported).
    VarKeyword,
}

/// One parameter of a tool function, as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Param {
    /// The parameter's name.
    pub name: String,
    /// Where the name is.
    pub span: Span,
    /// Named, `*args` or `**kwargs`.
    pub kind: ParamKind,
    /// The annotation's source text (`str`, `list[str]`, `str | None`).
    pub annotation: Option<String>,
    /// Where the annotation is.
    pub annotation_span: Option<Span>,
    /// The default's source text.
    pub default: Option<String>,
    /// Where the default is.
    pub default_span: Option<Span>,
    /// Supplied by the framework, not by the model: left out of the schema (Rasa's
    /// `context` and `tracker_handle`; FastMCP's `Context`-typed parameter).
    pub injected: bool,
}

/// Reading or writing project memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryOp {
    /// `context.memory.get(path, …)`.
    Get,
    /// `context.memory.set(path, value)`.
    Set,
}

/// One `context.memory.get(…)` or `context.memory.set(…)` call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MemoryAccess {
    /// Get or set.
    pub op: MemoryOp,
    /// The memory path (`project.contact_id`) when it is a string literal.
    pub path: Option<String>,
    /// For a set, the source text of the value written.
    pub value: Option<String>,
    /// The whole call, from `context` to its closing bracket.
    pub span: Span,
}

/// Which argument of a call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ArgSlot {
    /// The n-th positional argument, from 0.
    Position(usize),
    /// A keyword argument.
    Keyword(String),
    /// `*xs` or `**kw`.
    Unpacked,
}

/// Where an argument's value comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ArgOrigin {
    /// A bare name that is one of the tool's parameters: the caller (the model) chose it.
    Parameter,
    /// A value read from project memory: a bare name last assigned from
    /// `context.memory.get(…)`, or an expression containing that call.
    Memory {
        /// The memory path read, when it is a literal.
        path: Option<String>,
    },
    /// A bare name bound otherwise in the body (an assignment, a `for` target).
    Local,
    /// A bare name bound nowhere in the function (a global or a builtin).
    Other,
    /// Not a bare name (a literal, `contact["id"]`, …).
    Expression,
}

/// One argument of a CRM call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CallArg {
    /// Positional index or keyword.
    pub slot: ArgSlot,
    /// The argument's source text.
    pub text: String,
    /// Where its value comes from.
    pub origin: ArgOrigin,
    /// Where the argument is (its value, after any `keyword=`).
    pub span: Span,
}

/// One call of a CRM client function: `crm.<function>(…)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CrmCall {
    /// The client object's name as imported (`crm`).
    pub client: String,
    /// The function called (`search_contact_by_email`).
    pub function: String,
    /// The arguments, in order.
    pub args: Vec<CallArg>,
    /// Whether the call is awaited.
    pub awaited: bool,
    /// The whole call, from the client's name to its closing bracket.
    pub span: Span,
}

/// One key of a result the tool returns.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ResultKey {
    /// The key (`ok`, `error`).
    pub key: String,
    /// Its value when that is a literal (`false`, `"not_identified"`).
    pub value: Option<JsonValue>,
    /// The value's source text.
    pub value_text: String,
    /// Where the key is.
    pub span: Span,
}

/// What a tool's return statements build.
#[derive(Clone, Copy)]
pub(crate) enum ResultShape<'r> {
    /// Rasa: `ToolResult(llm_response={…})`.
    ToolResult,
    /// FastMCP: `Model(key=…)` for these model classes, or a dict literal.
    Models(&'r [String]),
}

/// Everything [`analyze`] finds in one body.
pub(crate) struct BodyFacts {
    pub(crate) memory: Vec<MemoryAccess>,
    pub(crate) crm_calls: Vec<CrmCall>,
    pub(crate) result_keys: Vec<ResultKey>,
}

/// Code of the warning for a memory path that is not a literal.
const DYNAMIC_PATH: &str = "swaplab.python.dynamic_memory_path";

/// A memory call found in the tokens: where, and which path.
struct MemoryCall {
    start: usize,
    path: Option<String>,
}

/// Public parameters from parsed ones; `injected` decides which the framework supplies.
pub(crate) fn params(
    source: &Source<'_>,
    raw: &[RawParam],
    injected: impl Fn(&str, Option<&str>) -> bool,
) -> Vec<Param> {
    raw.iter()
        .map(|p| {
            let name = source.text(p.name).to_owned();
            let annotation = p.annotation.map(|(s, e)| source.slice(s, e).to_owned());
            let kind = match p.stars {
                0 => ParamKind::Named,
                1 => ParamKind::VarPositional,
                _ => ParamKind::VarKeyword,
            };
            Param {
                injected: p.stars == 0 && injected(&name, annotation.as_deref()),
                span: source.token_span(p.name),
                kind,
                annotation_span: p.annotation.map(|(s, e)| source.span(s, e)),
                annotation,
                default: p.default.map(|(s, e)| source.slice(s, e).to_owned()),
                default_span: p.default.map(|(s, e)| source.span(s, e)),
                name,
            }
        })
        .collect()
}

/// Reads a body: memory accesses, CRM calls with argument origins, result keys.
pub(crate) fn analyze(
    source: &mut Source<'_>,
    body: &Body,
    params: &[String],
    clients: &[String],
    shape: ResultShape<'_>,
) -> BodyFacts {
    let (start, end) = source.body_tokens(body);
    let (memory, calls) = memory_calls(source, start, end);
    let statements = source.statements(body);

    // Every binding of a name, in token order: (effective from, origin).
    let mut bindings: BTreeMap<&str, Vec<(usize, ArgOrigin)>> = BTreeMap::new();
    for stmt in &statements {
        for (name, origin) in bound_names(source, stmt.start, stmt.end, stmt.header, &calls) {
            bindings.entry(name).or_default().push((stmt.end, origin));
        }
    }
    let origin_of = |name: &str, at: usize| -> ArgOrigin {
        let earlier = bindings.get(name).and_then(|list| {
            let before = list.partition_point(|(from, _)| *from <= at);
            before.checked_sub(1).and_then(|i| list.get(i))
        });
        match earlier {
            Some((_, origin)) => origin.clone(),
            None if params.iter().any(|p| p == name) => ArgOrigin::Parameter,
            None => ArgOrigin::Other,
        }
    };

    let mut crm_calls = Vec::new();
    let mut i = start;
    while i < end {
        let Some(client) = source.identifier(i) else {
            i += 1;
            continue;
        };
        let is_call = clients.iter().any(|c| c == client)
            && !(i > start && source.is_op(i - 1, "."))
            && source.is_op(i + 1, ".")
            && source.identifier(i + 2).is_some()
            && source.is_op(i + 3, "(");
        let close = if is_call { source.closing(i + 3, end) } else { None };
        let Some(close) = close else {
            i += 1;
            continue;
        };
        let mut position = 0;
        let args = source
            .args((i + 3, close))
            .iter()
            .map(|arg| {
                let slot = if arg.stars > 0 {
                    ArgSlot::Unpacked
                } else if let Some(k) = arg.keyword {
                    ArgSlot::Keyword(source.text(k).to_owned())
                } else {
                    position += 1;
                    ArgSlot::Position(position - 1)
                };
                let origin = match source.identifier(arg.start) {
                    Some(name) if arg.end == arg.start + 1 => origin_of(name, i),
                    _ => match first_call_in(&calls, arg.start, arg.end) {
                        Some(call) => ArgOrigin::Memory { path: call.path.clone() },
                        None => ArgOrigin::Expression,
                    },
                };
                CallArg {
                    slot,
                    text: source.slice(arg.start, arg.end).to_owned(),
                    origin,
                    span: source.span(arg.start, arg.end),
                }
            })
            .collect();
        crm_calls.push(CrmCall {
            client: client.to_owned(),
            function: source.text(i + 2).to_owned(),
            args,
            awaited: i > 0 && source.is_name(i - 1, "await"),
            span: source.span(i, close + 1),
        });
        i += 1;
    }

    let mut result_keys = Vec::new();
    for stmt in statements.iter().filter(|s| !s.header && source.is_name(s.start, "return")) {
        result_keys.extend(returned_keys(source, stmt.start + 1, stmt.end, shape));
    }
    BodyFacts { memory, crm_calls, result_keys }
}

/// Every `context.memory.get/set(…)` in `start..end`, reported when the path is not a
/// literal; plus the list of calls by token, for origin lookups.
fn memory_calls(
    source: &mut Source<'_>,
    start: usize,
    end: usize,
) -> (Vec<MemoryAccess>, Vec<MemoryCall>) {
    let mut accesses = Vec::new();
    let mut calls = Vec::new();
    let mut problems = Vec::new();
    for i in start..end {
        let matched = source.is_name(i, "context")
            && !(i > start && source.is_op(i - 1, "."))
            && source.is_op(i + 1, ".")
            && source.is_name(i + 2, "memory")
            && source.is_op(i + 3, ".")
            && (source.is_name(i + 4, "get") || source.is_name(i + 4, "set"))
            && source.is_op(i + 5, "(");
        let Some(close) = matched.then(|| source.closing(i + 5, end)).flatten() else {
            continue;
        };
        let op = if source.is_name(i + 4, "get") { MemoryOp::Get } else { MemoryOp::Set };
        let args = source.args((i + 5, close));
        let path_arg = source.arg(&args, "name", Some(0));
        let path = path_arg.and_then(|a| string_literal(source, a.start, a.end));
        if path.is_none() {
            let (at, what) = match path_arg {
                Some(a) => ((a.start, a.end), "is not a string literal"),
                None => ((i, close + 1), "is missing"),
            };
            problems.push((
                at,
                format!(
                    "the memory path {what}: Swap Lab follows only literal paths such as \
                     `context.memory.get(\"project.contact_id\")`"
                ),
            ));
        }
        let value = match op {
            MemoryOp::Set => {
                source.arg(&args, "value", Some(1)).map(|a| source.slice(a.start, a.end).to_owned())
            }
            MemoryOp::Get => None,
        };
        accesses.push(MemoryAccess {
            op,
            path: path.clone(),
            value,
            span: source.span(i, close + 1),
        });
        if op == MemoryOp::Get {
            calls.push(MemoryCall { start: i, path });
        }
    }
    for (at, message) in problems {
        source.report(Severity::Warning, at, DYNAMIC_PATH, message);
    }
    (accesses, calls)
}

/// The first memory read whose call starts in `start..end`.
fn first_call_in(calls: &[MemoryCall], start: usize, end: usize) -> Option<&MemoryCall> {
    let first = calls.partition_point(|c| c.start < start);
    calls.get(first).filter(|c| c.start < end)
}

/// The names a statement binds, with their origin.
fn bound_names<'s>(
    source: &Source<'s>,
    start: usize,
    end: usize,
    header: bool,
    calls: &[MemoryCall],
) -> Vec<(&'s str, ArgOrigin)> {
    let mut names = Vec::new();
    if header {
        let keyword = if source.is_name(start, "async") { start + 1 } else { start };
        if source.is_name(keyword, "for") {
            let targets_end =
                source.find_top(keyword + 1, end, |i| source.is_name(i, "in")).unwrap_or(end);
            names.extend(
                (keyword + 1..targets_end)
                    .filter_map(|i| source.identifier(i))
                    .map(|n| (n, ArgOrigin::Local)),
            );
        } else if source.is_name(keyword, "with") || source.is_name(keyword, "except") {
            let mut i = keyword + 1;
            while i < end {
                if source.is_name(i, "as")
                    && let Some(name) = source.identifier(i + 1)
                {
                    names.push((name, ArgOrigin::Local));
                }
                i = source.after(i, end);
            }
        }
        return names;
    }
    let equals: Vec<(usize, usize)> = source.split(start, end, "=");
    if let Some(&(value_start, value_end)) = equals.last()
        && equals.len() > 1
    {
        let memory = first_call_in(calls, value_start, value_end).map(|c| c.path.clone());
        for &(s, e) in equals.iter().take(equals.len() - 1) {
            let e = source.find_top(s, e, |i| source.is_op(i, ":")).unwrap_or(e);
            let parts: Vec<(usize, usize)> =
                source.split(s, e, ",").into_iter().filter(|(a, b)| a < b).collect();
            let single = parts.len() == 1;
            for (a, b) in parts {
                let Some(name) = source.identifier(a).filter(|_| b == a + 1) else { continue };
                let origin = match (&memory, single) {
                    (Some(path), true) => ArgOrigin::Memory { path: path.clone() },
                    _ => ArgOrigin::Local,
                };
                names.push((name, origin));
            }
        }
        return names;
    }
    let augmented = source.token(start + 1).is_some_and(|t| t.kind == TokenKind::Op)
        && source.text(start + 1).len() >= 2
        && source.text(start + 1).ends_with('=')
        && !matches!(source.text(start + 1), "==" | "<=" | ">=" | "!=");
    if augmented && let Some(name) = source.identifier(start) {
        names.push((name, ArgOrigin::Local));
    }
    names
}

/// The keys of what `return` builds in tokens `start..end`.
fn returned_keys(
    source: &Source<'_>,
    start: usize,
    end: usize,
    shape: ResultShape<'_>,
) -> Vec<ResultKey> {
    let call = source.call(start, end);
    match shape {
        ResultShape::ToolResult => {
            let Some(call) = call.filter(|c| c.name.rsplit('.').next() == Some("ToolResult"))
            else {
                return Vec::new();
            };
            let Some(parens) = call.parens else { return Vec::new() };
            let args = source.args(parens);
            source
                .arg(&args, "llm_response", Some(0))
                .map_or_else(Vec::new, |a| dict_keys(source, a.start, a.end))
        }
        ResultShape::Models(models) => {
            let model_call = call.filter(|c| models.contains(&c.name));
            let Some(parens) = model_call.and_then(|c| c.parens) else {
                return dict_keys(source, start, end);
            };
            source
                .args(parens)
                .iter()
                .filter_map(|arg| {
                    let keyword = arg.keyword?;
                    Some(ResultKey {
                        key: source.text(keyword).to_owned(),
                        value: literal_value(source, arg.start, arg.end, 0),
                        value_text: source.slice(arg.start, arg.end).to_owned(),
                        span: source.token_span(keyword),
                    })
                })
                .collect()
        }
    }
}

/// The string keys of a dict literal spanning exactly `start..end`.
fn dict_keys(source: &Source<'_>, start: usize, end: usize) -> Vec<ResultKey> {
    let is_dict =
        source.is_op(start, "{") && source.closing(start, end) == Some(end.saturating_sub(1));
    if !is_dict {
        return Vec::new();
    }
    source
        .split(start + 1, end - 1, ",")
        .into_iter()
        .filter(|(s, e)| s < e && !source.is_op(*s, "**"))
        .filter_map(|(s, e)| {
            let colon = source.find_top(s, e, |i| source.is_op(i, ":"))?;
            let key = string_literal(source, s, colon)?;
            Some(ResultKey {
                key,
                value: literal_value(source, colon + 1, e, 0),
                value_text: source.slice(colon + 1, e).to_owned(),
                span: source.span(s, colon),
            })
        })
        .collect()
}
