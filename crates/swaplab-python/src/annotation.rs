//! Type annotations read as a small tree: dotted names, subscripts (`list[str]`,
//! `dict[str, Any]`, `Optional[X]`), unions with `|`, `None`, and string forward
//! references. Anything else is kept as `Unsupported` with its text.
//!
//! Nesting is capped at [`MAX_DEPTH`](super::literal::MAX_DEPTH) levels.

use super::lex::TokenKind;
use super::literal::{MAX_DEPTH, string_literal};
use super::source::Source;

/// A parsed annotation.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TypeExpr {
    /// `str`, `typing.Any`: the last segment, and the whole dotted name.
    Name { name: String, dotted: String },
    /// `list[str]`, `typing.Optional[int]`.
    Generic { name: String, dotted: String, args: Vec<TypeExpr> },
    /// `A | B` (flattened).
    Union(Vec<TypeExpr>),
    /// `None`.
    None,
    /// Outside the subset, with its source text.
    Unsupported(String),
}

impl TypeExpr {
    /// The last segment of a name or generic.
    pub(crate) fn base(&self) -> Option<&str> {
        match self {
            TypeExpr::Name { name, .. } | TypeExpr::Generic { name, .. } => Some(name),
            _ => None,
        }
    }

    /// Strips `Annotated[X, …]` down to `X`.
    pub(crate) fn unannotated(&self) -> &TypeExpr {
        let mut t = self;
        for _ in 0..MAX_DEPTH {
            match t {
                TypeExpr::Generic { name, args, .. } if name == "Annotated" => match args.first() {
                    Some(inner) => t = inner,
                    None => break,
                },
                _ => break,
            }
        }
        t
    }
}

/// Parses the annotation in tokens `start..end`.
pub(crate) fn parse_type(source: &Source<'_>, start: usize, end: usize) -> TypeExpr {
    parse_union(source, start, end, 0)
}

fn parse_union(source: &Source<'_>, start: usize, end: usize, depth: usize) -> TypeExpr {
    if depth > MAX_DEPTH {
        return TypeExpr::Unsupported(source.slice(start, end).to_owned());
    }
    let parts = source.split(start, end, "|");
    if parts.len() == 1 {
        return parse_primary(source, start, end, depth);
    }
    let mut members = Vec::new();
    for (s, e) in parts {
        match parse_primary(source, s, e, depth + 1) {
            TypeExpr::Union(inner) => members.extend(inner),
            other => members.push(other),
        }
    }
    TypeExpr::Union(members)
}

fn parse_primary(source: &Source<'_>, start: usize, end: usize, depth: usize) -> TypeExpr {
    let unsupported = || TypeExpr::Unsupported(source.slice(start, end).to_owned());
    if start >= end || depth > MAX_DEPTH {
        return unsupported();
    }
    if end == start + 1 && source.is_name(start, "None") {
        return TypeExpr::None;
    }
    if source.is_kind(start, TokenKind::String) {
        // A forward reference: the annotation inside the string.
        let Some(inner) = string_literal(source, start, end) else { return unsupported() };
        let nested = Source::parse("", &inner);
        let tokens =
            nested.tokens.iter().take_while(|t| !matches!(t.kind, TokenKind::Newline)).count();
        return parse_union(&nested, 0, tokens, depth + 1);
    }
    if source.is_op(start, "(") && source.closing(start, end) == Some(end - 1) {
        return parse_union(source, start + 1, end - 1, depth + 1);
    }
    let Some((dotted, after)) = source.dotted(start, end) else { return unsupported() };
    let name = dotted.rsplit('.').next().unwrap_or_default().to_owned();
    if after == end {
        return TypeExpr::Name { name, dotted };
    }
    if !(source.is_op(after, "[") && source.closing(after, end) == Some(end - 1)) {
        return unsupported();
    }
    let args: Vec<TypeExpr> = source
        .split(after + 1, end - 1, ",")
        .into_iter()
        .filter(|(s, e)| s < e)
        .map(|(s, e)| parse_union(source, s, e, depth + 1))
        .collect();
    match name.as_str() {
        "Optional" => TypeExpr::Union(flatten(args.into_iter().chain([TypeExpr::None]))),
        "Union" => TypeExpr::Union(flatten(args)),
        _ => TypeExpr::Generic { name, dotted, args },
    }
}

fn flatten(members: impl IntoIterator<Item = TypeExpr>) -> Vec<TypeExpr> {
    let mut out = Vec::new();
    for member in members {
        match member {
            TypeExpr::Union(inner) => out.extend(inner),
            other => out.push(other),
        }
    }
    out
}
