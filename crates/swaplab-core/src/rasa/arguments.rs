//! Tool arguments as Rasa checks them at call time (reference §5.2–§5.3): the schema the
//! model is offered for an MCP tool, and `validate_tool_arguments` with the retryable
//! JSON the model gets back when the arguments do not fit.
//!
//! Schemas and arguments are ordered JSON ([`JsonValue`]) so that the offered schema
//! prints with Rasa's key order (`additionalProperties` appended last). The validator
//! covers the JSON Schema keywords pydantic and Rasa produce (`type`, `properties`,
//! `required`, `additionalProperties`, `items`, `enum`, `const`, `anyOf`/`oneOf`/`allOf`,
//! local `$ref`, numeric and length bounds); other keywords are ignored, as `jsonschema`
//! ignores keywords it does not know. Messages are Rasa's where the reference quotes
//! them; the path form for nested arguments (`a.b`) is ours.

use crate::python::JsonValue;

/// The text Rasa returns when a schema cannot be used (§5.3).
pub const SCHEMA_INVALID: &str = "The tool argument schema is invalid; the tool was not executed.";

/// Arguments that do not fit the schema: the messages, in Rasa's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidArguments {
    /// `Missing required argument(s): …`, `Unexpected argument(s): …`, then one per
    /// other violation.
    pub messages: Vec<String>,
}

impl InvalidArguments {
    /// `Invalid tool arguments: <messages joined by a space>`.
    pub fn error_text(&self) -> String {
        format!("Invalid tool arguments: {}", self.messages.join(" "))
    }

    /// What the model sees (`format_retryable_error_as_json`, `json.dumps`).
    pub fn to_model_json(&self) -> String {
        JsonValue::Object(vec![
            ("error".into(), JsonValue::Str(self.error_text())),
            ("retryable".into(), JsonValue::Bool(true)),
            ("code".into(), JsonValue::Str("invalid_arguments".into())),
        ])
        .to_python_json()
    }
}

/// Why arguments were refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgumentsRefused {
    /// The arguments do not fit.
    Invalid(InvalidArguments),
    /// The schema itself is unusable ([`SCHEMA_INVALID`]).
    SchemaInvalid,
}

impl ArgumentsRefused {
    /// What the model sees. The schema-invalid payload's shape is ours (the reference
    /// quotes only the sentence).
    pub fn to_model_json(&self) -> String {
        match self {
            ArgumentsRefused::Invalid(invalid) => invalid.to_model_json(),
            ArgumentsRefused::SchemaInvalid => {
                JsonValue::Object(vec![("error".into(), JsonValue::Str(SCHEMA_INVALID.into()))])
                    .to_python_json()
            }
        }
    }
}

/// `AgentToolSchema.from_mcp_tool`'s `_validate_and_fix_parameters` (§5.2): the server's
/// `inputSchema` with `additionalProperties: false` and `required: []` added when absent,
/// `type: "string"` given to every property without a type (and without `$ref`, `anyOf`,
/// `oneOf`, `allOf` or `enum`), and `additionalProperties: false` on nested object
/// properties. A non-object schema is returned unchanged (the call is refused later).
pub fn offered_mcp_schema(input_schema: &JsonValue) -> JsonValue {
    let JsonValue::Object(_) = input_schema else { return input_schema.clone() };
    let mut schema = input_schema.clone();
    fix_object(&mut schema, true);
    schema
}

fn fix_object(schema: &mut JsonValue, top: bool) {
    let JsonValue::Object(entries) = schema else { return };
    if let Some((_, JsonValue::Object(properties))) =
        entries.iter_mut().find(|(k, _)| k == "properties")
    {
        for (_, property) in properties.iter_mut() {
            let JsonValue::Object(keys) = property else { continue };
            let typed = keys.iter().any(|(k, _)| {
                matches!(k.as_str(), "type" | "$ref" | "anyOf" | "oneOf" | "allOf" | "enum")
            });
            if !typed {
                keys.push(("type".into(), JsonValue::Str("string".into())));
            }
            let is_object =
                keys.iter().any(|(k, v)| k == "type" && *v == JsonValue::Str("object".into()));
            if is_object {
                fix_object(property, false);
            }
        }
    }
    let JsonValue::Object(entries) = schema else { return };
    if top && !entries.iter().any(|(k, _)| k == "required") {
        entries.push(("required".into(), JsonValue::Array(Vec::new())));
    }
    if !entries.iter().any(|(k, _)| k == "additionalProperties") {
        entries.push(("additionalProperties".into(), JsonValue::Bool(false)));
    }
}

/// `validate_tool_arguments` (§5.3): `Ok` when `args` fit `schema`.
pub fn validate_arguments(schema: &JsonValue, args: &JsonValue) -> Result<(), ArgumentsRefused> {
    let JsonValue::Object(_) = schema else { return Err(ArgumentsRefused::SchemaInvalid) };
    if !schema_usable(schema, 0) {
        return Err(ArgumentsRefused::SchemaInvalid);
    }
    let mut found = Violations::default();
    check(schema, schema, args, "", &mut found, 0);
    if found.missing.is_empty() && found.unexpected.is_empty() && found.other.is_empty() {
        return Ok(());
    }
    let mut messages = Vec::new();
    let quote = |names: &mut Vec<String>| {
        crate::order::sort(names);
        names.dedup();
        names.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ")
    };
    if !found.missing.is_empty() {
        messages.push(format!("Missing required argument(s): {}.", quote(&mut found.missing)));
    }
    if !found.unexpected.is_empty() {
        messages.push(format!("Unexpected argument(s): {}.", quote(&mut found.unexpected)));
    }
    crate::order::sort(&mut found.other);
    found.other.dedup();
    messages.extend(found.other);
    Err(ArgumentsRefused::Invalid(InvalidArguments { messages }))
}

/// Deepest schema nesting followed.
const MAX_SCHEMA_DEPTH: usize = 64;

const TYPES: [&str; 7] = ["string", "integer", "number", "boolean", "array", "object", "null"];

fn schema_usable(schema: &JsonValue, depth: usize) -> bool {
    if depth > MAX_SCHEMA_DEPTH {
        return false;
    }
    match schema {
        JsonValue::Bool(_) => true,
        JsonValue::Object(entries) => entries.iter().all(|(k, v)| match k.as_str() {
            "$schema" => matches!(v, JsonValue::Str(s) if s.contains("draft-07") || s.contains("draft/2020-12")),
            "type" => match v {
                JsonValue::Str(t) => TYPES.contains(&t.as_str()),
                JsonValue::Array(ts) => ts.iter().all(|t| matches!(t, JsonValue::Str(t) if TYPES.contains(&t.as_str()))),
                _ => false,
            },
            "required" => matches!(v, JsonValue::Array(names) if names.iter().all(|n| matches!(n, JsonValue::Str(_)))),
            "properties" | "$defs" | "definitions" => match v {
                JsonValue::Object(props) => props.iter().all(|(_, s)| schema_usable(s, depth + 1)),
                _ => false,
            },
            "items" | "additionalProperties" | "not" => schema_usable(v, depth + 1),
            "anyOf" | "oneOf" | "allOf" => {
                matches!(v, JsonValue::Array(items) if !items.is_empty() && items.iter().all(|s| schema_usable(s, depth + 1)))
            }
            _ => true,
        }),
        _ => false,
    }
}

#[derive(Default)]
struct Violations {
    missing: Vec<String>,
    unexpected: Vec<String>,
    other: Vec<String>,
}

fn field<'v>(schema: &'v JsonValue, key: &str) -> Option<&'v JsonValue> {
    match schema {
        JsonValue::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
        _ => None,
    }
}

fn resolve<'v>(root: &'v JsonValue, reference: &str) -> Option<&'v JsonValue> {
    let path = reference.strip_prefix("#/")?;
    let mut here = root;
    for part in path.split('/') {
        here = field(here, &part.replace("~1", "/").replace("~0", "~"))?;
    }
    Some(here)
}

fn type_matches(name: &str, value: &JsonValue) -> bool {
    match name {
        "string" => matches!(value, JsonValue::Str(_)),
        "integer" => match value {
            JsonValue::Int(_) => true,
            JsonValue::Float(f) => f.fract() == 0.0 && f.is_finite(),
            _ => false,
        },
        "number" => matches!(value, JsonValue::Int(_) | JsonValue::Float(_)),
        "boolean" => matches!(value, JsonValue::Bool(_)),
        "array" => matches!(value, JsonValue::Array(_)),
        "object" => matches!(value, JsonValue::Object(_)),
        "null" => matches!(value, JsonValue::Null),
        _ => false,
    }
}

fn number(value: &JsonValue) -> Option<f64> {
    match value {
        JsonValue::Int(n) => Some(*n as f64),
        JsonValue::Float(f) => Some(*f),
        _ => None,
    }
}

fn is_valid(root: &JsonValue, schema: &JsonValue, value: &JsonValue, depth: usize) -> bool {
    let mut found = Violations::default();
    check(root, schema, value, "", &mut found, depth);
    found.missing.is_empty() && found.unexpected.is_empty() && found.other.is_empty()
}

fn constraint(found: &mut Violations, path: &str, keyword: &str) {
    found.other.push(format!(
        "Argument '{}' must satisfy the '{keyword}' schema constraint.",
        display(path)
    ));
}

fn display(path: &str) -> &str {
    if path.is_empty() { "<root>" } else { path }
}

fn check(
    root: &JsonValue,
    schema: &JsonValue,
    value: &JsonValue,
    path: &str,
    found: &mut Violations,
    depth: usize,
) {
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    let entries = match schema {
        JsonValue::Bool(true) => return,
        JsonValue::Bool(false) => return constraint(found, path, "false"),
        JsonValue::Object(entries) => entries,
        _ => return,
    };
    for (keyword, rule) in entries {
        match keyword.as_str() {
            "$ref" => {
                if let Some(target) = rule_str(rule).and_then(|r| resolve(root, r)) {
                    check(root, target, value, path, found, depth + 1);
                }
            }
            "type" => {
                let names: Vec<&str> = match rule {
                    JsonValue::Str(t) => vec![t.as_str()],
                    JsonValue::Array(ts) => ts.iter().filter_map(rule_str).collect(),
                    _ => Vec::new(),
                };
                if !names.iter().any(|t| type_matches(t, value)) {
                    found.other.push(format!(
                        "Argument '{}' must match type '{}'.",
                        display(path),
                        names.join(", ")
                    ));
                }
            }
            "required" => {
                if let (JsonValue::Object(given), JsonValue::Array(names)) = (value, rule) {
                    for name in names.iter().filter_map(rule_str) {
                        if !given.iter().any(|(k, _)| k == name) {
                            if path.is_empty() {
                                found.missing.push(name.to_owned());
                            } else {
                                constraint(found, path, "required");
                            }
                        }
                    }
                }
            }
            "properties" => {
                if let (JsonValue::Object(given), JsonValue::Object(props)) = (value, rule) {
                    for (name, sub) in props {
                        if let Some((_, v)) = given.iter().find(|(k, _)| k == name) {
                            check(root, sub, v, &join(path, name), found, depth + 1);
                        }
                    }
                }
            }
            "additionalProperties" => {
                if let JsonValue::Object(given) = value {
                    let declared = field(schema, "properties");
                    for (name, v) in given {
                        if declared.and_then(|p| field(p, name)).is_some() {
                            continue;
                        }
                        match rule {
                            JsonValue::Bool(false) if path.is_empty() => {
                                found.unexpected.push(name.clone());
                            }
                            JsonValue::Bool(false) => {
                                constraint(found, path, "additionalProperties");
                            }
                            JsonValue::Object(_) => {
                                check(root, rule, v, &join(path, name), found, depth + 1);
                            }
                            _ => {}
                        }
                    }
                }
            }
            "items" => {
                if let JsonValue::Array(items) = value {
                    for (i, item) in items.iter().enumerate() {
                        check(root, rule, item, &join(path, &i.to_string()), found, depth + 1);
                    }
                }
            }
            "enum" => {
                if let JsonValue::Array(options) = rule
                    && !options.iter().any(|o| o == value)
                {
                    constraint(found, path, "enum");
                }
            }
            "const" if rule != value => constraint(found, path, "const"),
            "anyOf" | "oneOf" | "allOf" => {
                let JsonValue::Array(branches) = rule else { continue };
                let passing =
                    branches.iter().filter(|b| is_valid(root, b, value, depth + 1)).count();
                let ok = match keyword.as_str() {
                    "anyOf" => passing > 0,
                    "oneOf" => passing == 1,
                    _ => passing == branches.len(),
                };
                if !ok {
                    constraint(found, path, keyword);
                }
            }
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                if let (Some(v), Some(limit)) = (number(value), number(rule)) {
                    let ok = match keyword.as_str() {
                        "minimum" => v >= limit,
                        "maximum" => v <= limit,
                        "exclusiveMinimum" => v > limit,
                        _ => v < limit,
                    };
                    if !ok {
                        constraint(found, path, keyword);
                    }
                }
            }
            "minLength" | "maxLength" | "minItems" | "maxItems" => {
                let length = match value {
                    JsonValue::Str(s) if keyword.ends_with("Length") => Some(s.chars().count()),
                    JsonValue::Array(items) if keyword.ends_with("Items") => Some(items.len()),
                    _ => None,
                };
                if let (Some(length), Some(limit)) = (length, number(rule)) {
                    let ok = if keyword.starts_with("min") {
                        length as f64 >= limit
                    } else {
                        length as f64 <= limit
                    };
                    if !ok {
                        constraint(found, path, keyword);
                    }
                }
            }
            _ => {}
        }
    }
}

fn rule_str(value: &JsonValue) -> Option<&str> {
    match value {
        JsonValue::Str(s) => Some(s),
        _ => None,
    }
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() { name.to_owned() } else { format!("{path}.{name}") }
}
