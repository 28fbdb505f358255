//! JSON Schema as typed data, serialized in pydantic's key order: every object's keys
//! sorted, except the entries of `properties` (parameter order) and of `default` values
//! (as written). Rendering with [`Schema::to_python_json`] gives the exact text Python's
//! `json.dumps` prints, separators and ASCII escapes included.
//!
//! This is not `serde_json::Value`: its map sorts keys, and `properties` must not be.

use std::io;

use swaplab_base::pytext::float_repr;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

/// A JSON value, as a Python literal dumps to it. Objects keep their written order (a
/// `serde_json::Value` would sort them), and [`JsonValue::to_python_json`] prints what
/// Python's `json.dumps` prints.
#[derive(Clone, Debug, PartialEq)]
pub enum JsonValue {
    /// `None`.
    Null,
    /// `True` or `False`.
    Bool(bool),
    /// An integer that fits 64 bits.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string.
    Str(String),
    /// A list or tuple.
    Array(Vec<JsonValue>),
    /// A dict with string keys, in written order.
    Object(Vec<(String, JsonValue)>),
}

impl JsonValue {
    /// The value as Python's `json.dumps` prints it.
    pub fn to_python_json(&self) -> String {
        python_json(self)
    }
}

impl Serialize for JsonValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            JsonValue::Null => serializer.serialize_unit(),
            JsonValue::Bool(b) => serializer.serialize_bool(*b),
            JsonValue::Int(n) => serializer.serialize_i64(*n),
            JsonValue::Float(f) => serializer.serialize_f64(*f),
            JsonValue::Str(s) => serializer.serialize_str(s),
            JsonValue::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            JsonValue::Object(entries) => serialize_entries(entries, serializer),
        }
    }
}

fn serialize_entries<T: Serialize, S: Serializer>(
    entries: &[(String, T)],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(entries.len()))?;
    for (key, value) in entries {
        map.serialize_entry(key, value)?;
    }
    map.end()
}

/// Entries of a JSON object kept in the order given (`properties`, `$defs`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Entries(pub Vec<(String, Schema)>);

impl Serialize for Entries {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_entries(&self.0, serializer)
    }
}

/// `additionalProperties`: a yes/no or the schema of the extra values.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Additional {
    /// `true` (anything goes) or `false` (nothing extra).
    Allowed(bool),
    /// Extra values must match this.
    Schema(Box<Schema>),
}

/// A JSON Schema in the subset pydantic and Rasa produce here. Fields are declared in
/// sorted key order, so serializing writes pydantic's order.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Schema {
    /// Models referenced from inside, by class name (sorted).
    #[serde(rename = "$defs", skip_serializing_if = "Option::is_none")]
    pub defs: Option<Entries>,
    /// `#/$defs/<Model>`.
    #[serde(rename = "$ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// Whether (or how) keys beyond `properties` are allowed.
    #[serde(rename = "additionalProperties", skip_serializing_if = "Option::is_none")]
    pub additional_properties: Option<Additional>,
    /// Alternatives (a union, or `X | None`).
    #[serde(rename = "anyOf", skip_serializing_if = "Option::is_none")]
    pub any_of: Option<Vec<Schema>>,
    /// The default value of a field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<JsonValue>,
    /// A description (a model's docstring, a `Field(description=…)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A string format (`binary` for bytes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// The schema of an array's items (`{}` for any).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Box<Schema>>,
    /// An object's properties, in declaration order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<Entries>,
    /// Names of the properties that must be present, in declaration order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
    /// A title (a model's class name, a field's titled name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The JSON type: `string`, `integer`, `number`, `boolean`, `array`, `object`, `null`.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub json_type: Option<String>,
}

impl Schema {
    /// A schema with just a `type`.
    pub fn of_type(json_type: &str) -> Schema {
        Schema { json_type: Some(json_type.to_owned()), ..Schema::default() }
    }

    /// The schema as Python's `json.dumps` prints it: `", "` and `": "` separators,
    /// non-ASCII escaped.
    pub fn to_python_json(&self) -> String {
        python_json(self)
    }

    /// The schema as compact JSON, as it travels on the wire.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Names of the required properties (empty when none are).
    pub fn required_names(&self) -> &[String] {
        self.required.as_deref().unwrap_or_default()
    }

    /// The properties, in order.
    pub fn properties(&self) -> &[(String, Schema)] {
        self.properties.as_ref().map_or(&[], |p| p.0.as_slice())
    }

    /// The schema of property `name`.
    pub fn property(&self, name: &str) -> Option<&Schema> {
        self.properties().iter().find(|(n, _)| n == name).map(|(_, s)| s)
    }

    /// The JSON types a value may have under this schema (`anyOf` branches included);
    /// empty when any value is accepted or a branch is a `$ref`.
    pub fn json_types(&self) -> Vec<&str> {
        let mut types: Vec<&str> = self.json_type.as_deref().into_iter().collect();
        for branch in self.any_of.iter().flatten() {
            match branch.json_type.as_deref() {
                Some(t) => types.push(t),
                None => return Vec::new(),
            }
        }
        types
    }

    /// Each property with its accepted JSON types, in order.
    pub fn property_types(&self) -> Vec<(&str, Vec<&str>)> {
        self.properties().iter().map(|(name, s)| (name.as_str(), s.json_types())).collect()
    }
}

/// `json.dumps(value)` with Python's defaults.
fn python_json<T: Serialize>(value: &T) -> String {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, PythonFormatter);
    if value.serialize(&mut serializer).is_err() {
        return String::new();
    }
    String::from_utf8(out).unwrap_or_default()
}

/// Python's `json.dumps` defaults: `", "` and `": "`, `ensure_ascii`, `repr` floats.
struct PythonFormatter;

impl serde_json::ser::Formatter for PythonFormatter {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn write_f64<W: ?Sized + io::Write>(&mut self, w: &mut W, value: f64) -> io::Result<()> {
        w.write_all(float_repr(value).as_bytes())
    }

    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        for c in fragment.chars() {
            if (' '..='~').contains(&c) {
                w.write_all(&[c as u8])?;
            } else {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(w, "\\u{unit:04x}")?;
                }
            }
        }
        Ok(())
    }
}
