//! [`PyValue`]: a Python value as it crosses the interpreter's boundary (arguments in,
//! CRM and memory values both ways, the returned value out), with Python's `repr`, `str`
//! and truthiness, and the JSON view pydantic and `json.dumps` give it. Inside a run the
//! interpreter works on its own `RunValue` (`runtime.rs`) and converts at the boundary.
//!
//! Walking a value is capped at [`MAX_VALUE_DEPTH`] levels: deeper parts print as `...`
//! and dump as `null`, so no value built outside can exhaust the stack.

use crate::JsonValue;
use crate::float_repr;

use super::MAX_VALUE_DEPTH;

/// A Python value on its way into or out of a run: a copy, owned and plain data.
///
/// This is what a [`super::Host`] and a caller see (keyword arguments, CRM and memory
/// values, [`super::Outcome::Returned`]). It has no identity and no sharing: a list held
/// twice in a run's value crosses as two equal lists, and anything without a data form
/// (a function, a class, an exception) crosses as [`PyValue::Opaque`]. Inside the
/// interpreter, values are `RunValue`s instead (`Rc`-shared, so a change through one name
/// shows through every other); each crossing converts one into the other.
#[derive(Clone, Debug, PartialEq)]
pub enum PyValue {
    /// `None`.
    None,
    /// `True` or `False`.
    Bool(bool),
    /// An `int` that fits 64 bits.
    Int(i64),
    /// A `float`.
    Float(f64),
    /// A `str`.
    Str(String),
    /// A `list`.
    List(Vec<PyValue>),
    /// A `tuple`.
    Tuple(Vec<PyValue>),
    /// A `dict`: insertion order, Python key equality.
    Dict(Vec<(PyValue, PyValue)>),
    /// A pydantic model instance (declared fields first, in declaration order, then extras
    /// in the order given) or Rasa's `ToolResult` (class "ToolResult", attrs e.g.
    /// `llm_response`).
    Object {
        /// The class name.
        class: String,
        /// The fields, in order.
        fields: Vec<(String, PyValue)>,
    },
    /// The `ToolContext` a Rasa tool receives; `.memory.get/.set` go to the Host.
    Context,
    /// Anything without a data form (a function, a class, an exception, a range): its
    /// type name, `repr` and `str`.
    Opaque {
        /// `type(x).__name__`.
        type_name: String,
        /// `repr(x)`.
        repr: String,
        /// `str(x)`.
        str: String,
    },
}

impl PyValue {
    /// pydantic `model_dump(mode="json")` / `json.dumps(default=str)` view: objects →
    /// JSON objects of their fields, tuples → arrays, non-str dict keys → `str(key)` like
    /// `json.dumps` does for int/float/bool/None keys, anything else → its `str()`.
    pub fn to_json(&self) -> JsonValue {
        to_json(self, 0)
    }

    /// The Python value of a JSON value: objects become dicts with `str` keys.
    pub fn from_json(value: &JsonValue) -> PyValue {
        from_json(value, 0)
    }

    /// Python's `repr()`.
    pub fn repr(&self) -> String {
        let mut out = String::new();
        write_repr(self, &mut out, 0);
        out
    }

    /// Python's `str()`.
    pub fn str(&self) -> String {
        match self {
            PyValue::Str(s) => s.clone(),
            PyValue::Opaque { str, .. } => str.clone(),
            PyValue::Object { class, fields } if class != "ToolResult" => {
                let mut out = String::new();
                for (i, (name, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    out.push_str(name);
                    out.push('=');
                    write_repr(value, &mut out, 1);
                }
                out
            }
            _ => self.repr(),
        }
    }

    /// Python's truthiness: `None`, `False`, zero and empty containers are false.
    pub fn truthy(&self) -> bool {
        match self {
            PyValue::None => false,
            PyValue::Bool(b) => *b,
            PyValue::Int(n) => *n != 0,
            PyValue::Float(f) => *f != 0.0,
            PyValue::Str(s) => !s.is_empty(),
            PyValue::List(items) | PyValue::Tuple(items) => !items.is_empty(),
            PyValue::Dict(entries) => !entries.is_empty(),
            PyValue::Object { .. } | PyValue::Context | PyValue::Opaque { .. } => true,
        }
    }

    /// `type(x).__name__`.
    pub fn type_name(&self) -> &str {
        match self {
            PyValue::None => "NoneType",
            PyValue::Bool(_) => "bool",
            PyValue::Int(_) => "int",
            PyValue::Float(_) => "float",
            PyValue::Str(_) => "str",
            PyValue::List(_) => "list",
            PyValue::Tuple(_) => "tuple",
            PyValue::Dict(_) => "dict",
            PyValue::Object { class, .. } => class,
            PyValue::Context => "ToolContext",
            PyValue::Opaque { type_name, .. } => type_name,
        }
    }
}

fn to_json(value: &PyValue, depth: usize) -> JsonValue {
    if depth > MAX_VALUE_DEPTH {
        return JsonValue::Null;
    }
    match value {
        PyValue::None => JsonValue::Null,
        PyValue::Bool(b) => JsonValue::Bool(*b),
        PyValue::Int(n) => JsonValue::Int(*n),
        PyValue::Float(f) => JsonValue::Float(*f),
        PyValue::Str(s) => JsonValue::Str(s.clone()),
        PyValue::List(items) | PyValue::Tuple(items) => {
            JsonValue::Array(items.iter().map(|v| to_json(v, depth + 1)).collect())
        }
        PyValue::Dict(entries) => JsonValue::Object(
            entries.iter().map(|(k, v)| (json_key(k), to_json(v, depth + 1))).collect(),
        ),
        PyValue::Object { fields, .. } => JsonValue::Object(
            fields.iter().map(|(k, v)| (k.clone(), to_json(v, depth + 1))).collect(),
        ),
        PyValue::Context | PyValue::Opaque { .. } => JsonValue::Str(value.str()),
    }
}

/// A dict key as `json.dumps` writes it.
fn json_key(key: &PyValue) -> String {
    match key {
        PyValue::Str(s) => s.clone(),
        PyValue::Bool(true) => "true".to_owned(),
        PyValue::Bool(false) => "false".to_owned(),
        PyValue::None => "null".to_owned(),
        PyValue::Float(f) => float_repr(*f),
        other => other.str(),
    }
}

fn from_json(value: &JsonValue, depth: usize) -> PyValue {
    if depth > MAX_VALUE_DEPTH {
        return PyValue::None;
    }
    match value {
        JsonValue::Null => PyValue::None,
        JsonValue::Bool(b) => PyValue::Bool(*b),
        JsonValue::Int(n) => PyValue::Int(*n),
        JsonValue::Float(f) => PyValue::Float(*f),
        JsonValue::Str(s) => PyValue::Str(s.clone()),
        JsonValue::Array(items) => {
            PyValue::List(items.iter().map(|v| from_json(v, depth + 1)).collect())
        }
        JsonValue::Object(entries) => PyValue::Dict(
            entries
                .iter()
                .map(|(k, v)| (PyValue::Str(k.clone()), from_json(v, depth + 1)))
                .collect(),
        ),
    }
}

fn write_repr(value: &PyValue, out: &mut String, depth: usize) {
    if depth > MAX_VALUE_DEPTH {
        out.push_str("...");
        return;
    }
    match value {
        PyValue::None => out.push_str("None"),
        PyValue::Bool(true) => out.push_str("True"),
        PyValue::Bool(false) => out.push_str("False"),
        PyValue::Int(n) => out.push_str(&n.to_string()),
        PyValue::Float(f) => out.push_str(&repr_float(*f)),
        PyValue::Str(s) => repr_str(s, out),
        PyValue::List(items) => {
            out.push('[');
            write_items(items, out, depth);
            out.push(']');
        }
        PyValue::Tuple(items) => {
            out.push('(');
            write_items(items, out, depth);
            if items.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        PyValue::Dict(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(k, out, depth + 1);
                out.push_str(": ");
                write_repr(v, out, depth + 1);
            }
            out.push('}');
        }
        PyValue::Object { class, fields } => {
            out.push_str(class);
            out.push('(');
            for (i, (name, v)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(name);
                out.push('=');
                write_repr(v, out, depth + 1);
            }
            out.push(')');
        }
        PyValue::Context => out.push_str("<ToolContext>"),
        PyValue::Opaque { repr, .. } => out.push_str(repr),
    }
}

fn write_items(items: &[PyValue], out: &mut String, depth: usize) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_repr(item, out, depth + 1);
    }
}

/// Python's `repr(float)`: `1.0`, `1e+16`, `nan`, `inf`.
pub(crate) fn repr_float(value: f64) -> String {
    if value.is_nan() {
        "nan".to_owned()
    } else if value.is_infinite() {
        if value > 0.0 { "inf" } else { "-inf" }.to_owned()
    } else {
        float_repr(value)
    }
}

pub(crate) use swaplab_base::pytext::{escape_char, repr_str};
