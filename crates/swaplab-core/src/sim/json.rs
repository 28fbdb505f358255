//! Ordered JSON for the simulation: JSON-RPC messages, tool arguments and results keep
//! the key order they were written in, as Python's dicts do.
//!
//! The value type is [`JsonValue`] (the Python scanner's, re-exported), whose
//! `to_python_json` prints exactly what Python's `json.dumps` prints. This module reads
//! JSON text into it and offers a few constructors that keep the simulation's code short.

use std::fmt;

use serde::Deserializer;
use serde::de::{self, MapAccess, SeqAccess, Visitor};

pub use crate::python::JsonValue;

/// Bytes of JSON text read at most (the inflated size of anything a reader can send).
pub const MAX_JSON_BYTES: usize = 1 << 20;
/// Nesting of arrays and objects read at most.
pub const MAX_JSON_DEPTH: usize = 64;

/// Reads JSON text, keeping object keys in order. Errors say where, in serde_json's words.
pub fn parse(text: &str) -> Result<JsonValue, String> {
    if text.len() > MAX_JSON_BYTES {
        return Err(format!("the JSON is {} bytes; at most {MAX_JSON_BYTES} are read", text.len()));
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = deserializer.deserialize_any(Ordered { depth: 0 }).map_err(|e| e.to_string())?;
    deserializer.end().map_err(|e| e.to_string())?;
    Ok(value)
}

struct Ordered {
    depth: usize,
}

impl<'de> de::DeserializeSeed<'de> for Ordered {
    type Value = JsonValue;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<JsonValue, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Ordered {
    type Value = JsonValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<JsonValue, E> {
        Ok(JsonValue::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<JsonValue, E> {
        Ok(JsonValue::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<JsonValue, E> {
        Ok(i64::try_from(v).map_or(JsonValue::Float(v as f64), JsonValue::Int))
    }
    fn visit_f64<E>(self, v: f64) -> Result<JsonValue, E> {
        Ok(JsonValue::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<JsonValue, E> {
        Ok(JsonValue::Str(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<JsonValue, E> {
        Ok(JsonValue::Str(v))
    }
    fn visit_unit<E>(self) -> Result<JsonValue, E> {
        Ok(JsonValue::Null)
    }
    fn visit_none<E>(self) -> Result<JsonValue, E> {
        Ok(JsonValue::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<JsonValue, A::Error> {
        let depth = self.depth + 1;
        if depth > MAX_JSON_DEPTH {
            return Err(de::Error::custom(format!("nested deeper than {MAX_JSON_DEPTH} levels")));
        }
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Ordered { depth })? {
            items.push(item);
        }
        Ok(JsonValue::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<JsonValue, A::Error> {
        let depth = self.depth + 1;
        if depth > MAX_JSON_DEPTH {
            return Err(de::Error::custom(format!("nested deeper than {MAX_JSON_DEPTH} levels")));
        }
        let mut entries: Vec<(String, JsonValue)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Ordered { depth })?;
            // A repeated key keeps its first place and its last value, as Python's dict does.
            match entries.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = value,
                None => entries.push((key, value)),
            }
        }
        Ok(JsonValue::Object(entries))
    }
}

/// Compact JSON (`{"a":1}`), as it travels on the wire.
pub fn compact(value: &JsonValue) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// An object from `(key, value)` pairs.
pub fn object<const N: usize>(entries: [(&str, JsonValue); N]) -> JsonValue {
    JsonValue::Object(entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// A string value.
pub fn string(text: impl Into<String>) -> JsonValue {
    JsonValue::Str(text.into())
}

/// The value under `key` when `value` is an object.
pub fn get<'v>(value: &'v JsonValue, key: &str) -> Option<&'v JsonValue> {
    match value {
        JsonValue::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
        _ => None,
    }
}

/// The value at a dotted path (`tickets.0.id`): object keys and array indexes.
pub fn at_path<'v>(value: &'v JsonValue, path: &str) -> Option<&'v JsonValue> {
    let mut here = value;
    for part in path.split('.').filter(|p| !p.is_empty()) {
        here = match here {
            JsonValue::Object(_) => get(here, part)?,
            JsonValue::Array(items) => items.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(here)
}

/// Whether Python would call the value true (`bool(x)`).
pub fn truthy(value: &JsonValue) -> bool {
    match value {
        JsonValue::Null => false,
        JsonValue::Bool(b) => *b,
        JsonValue::Int(n) => *n != 0,
        JsonValue::Float(f) => *f != 0.0,
        JsonValue::Str(s) => !s.is_empty(),
        JsonValue::Array(items) => !items.is_empty(),
        JsonValue::Object(entries) => !entries.is_empty(),
    }
}

/// The text a value reads as in a sentence: strings bare, everything else as JSON.
pub fn plain(value: &JsonValue) -> String {
    match value {
        JsonValue::Str(s) => s.clone(),
        other => other.to_python_json(),
    }
}
