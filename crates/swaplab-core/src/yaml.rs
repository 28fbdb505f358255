//! YAML read the way PyYAML's `yaml.safe_load` reads it, with a position on every node.
//!
//! Rasa loads every YAML file with PyYAML, which implements YAML 1.1: an unquoted `yes`,
//! `on` or `off` is a boolean, `0777` is an octal int, `1e3` is a string (a float needs a
//! dot), `2026-08-11` is a date, a duplicate key silently keeps the last value and `<<`
//! merges mappings. This module parses with `saphyr-parser` (events with spans) and then
//! resolves plain scalars with PyYAML's implicit resolvers, so the values match what Rasa
//! sees and every node knows its line and column.
//!
//! Where YAML 1.2 (and so saphyr) is more permissive than PyYAML, PyYAML wins: a tab
//! outside a quoted or block scalar or a comment "cannot start any token", an empty
//! implicit key (`: value`) is refused, a plain `<<` outside a key cannot be constructed,
//! `-.5` is a string. `tests/it/pyyaml.rs` holds this module to the real PyYAML 6.0.2 on
//! 831 documents (`fixtures/pyyaml/cases.json`): the same values, the same documents
//! refused, the same error line, apart from 12 listed differences.
//!
//! Limits, each refused with a message rather than followed: nesting deeper than
//! [`MAX_DEPTH`], more than [`MAX_NODES`] nodes once aliases are expanded (the
//! "billion laughs" shape), and more than one document in a stream (PyYAML's own rule).
//! Syntax errors carry saphyr's wording, which follows libyaml's; PyYAML's text differs
//! slightly (it adds "while parsing a block mapping" context lines), so they are reported
//! under our code [`SYNTAX_CODE`] with the position, not as Rasa's verbatim message.

use std::collections::HashMap;

use saphyr_parser::{Event, Marker, Parser, ScalarStyle, Tag};
use serde::Serialize;

use crate::diagnostic::{Position, Span};

/// Deepest nesting of sequences and mappings accepted.
pub const MAX_DEPTH: usize = 128;
/// Most nodes one document may hold after aliases are expanded.
pub const MAX_NODES: usize = 200_000;
/// Diagnostic code for YAML that does not parse.
pub const SYNTAX_CODE: &str = "swaplab.yaml.syntax";

/// A value as PyYAML's safe loader builds it: the Python type each YAML scalar, list or
/// mapping becomes, each part a [`Node`] that knows where it was written.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum YamlValue {
    /// `None`: `~`, `null`, or nothing.
    Null,
    /// `bool`, including YAML 1.1's `yes`/`no`/`on`/`off`.
    Bool(bool),
    /// `int` (decimal, `0x`, `0b`, leading-zero octal, `1:30` sexagesimal).
    Int(i64),
    /// `float` (needs a dot, or `.inf`/`.nan`). Ints too large for `i64` land here too.
    Float(f64),
    /// `str`.
    Str(String),
    /// `datetime.date` or `datetime.datetime`, kept as written.
    Timestamp(String),
    /// `bytes`, from a `!!binary` scalar.
    Bytes(Vec<u8>),
    /// `list`.
    Seq(Vec<Node>),
    /// `dict`, in insertion order, keys unique under Python equality.
    Map(Vec<(Node, Node)>),
}

/// A value and where it was written.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Node {
    /// The value.
    pub value: YamlValue,
    /// Where it was written (for a collection, from its first to its last character).
    #[serde(skip)]
    pub span: Span,
    /// Whether it was an unquoted scalar (YAML 1.1 resolution applied).
    #[serde(skip)]
    pub plain: bool,
}

/// YAML that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    /// Where the problem was found.
    pub at: Position,
    /// What went wrong.
    pub message: String,
}

impl YamlValue {
    /// Python's name for the type, as pydantic and Rasa messages print it.
    pub fn type_name(&self) -> &'static str {
        match self {
            YamlValue::Null => "NoneType",
            YamlValue::Bool(_) => "bool",
            YamlValue::Int(_) => "int",
            YamlValue::Float(_) => "float",
            YamlValue::Str(_) => "str",
            YamlValue::Timestamp(text) if text.len() > 10 => "datetime",
            YamlValue::Timestamp(_) => "date",
            YamlValue::Bytes(_) => "bytes",
            YamlValue::Seq(_) => "list",
            YamlValue::Map(_) => "dict",
        }
    }
}

impl Node {
    /// The string, if this is a `str`.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            YamlValue::Str(text) => Some(text),
            _ => None,
        }
    }

    /// The entries, if this is a mapping.
    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            YamlValue::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The items, if this is a sequence.
    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            YamlValue::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// Whether this is `None`.
    pub fn is_null(&self) -> bool {
        self.value == YamlValue::Null
    }

    /// The value under string key `key`, if this is a mapping that has it.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, value)| value)
    }

    /// The key node and value under string key `key`.
    pub fn entry(&self, key: &str) -> Option<(&Node, &Node)> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(key, value)| (key, value))
    }

    /// The key as Python's `str()` would print it (for `Unknown key(s): …` messages).
    pub fn key_text(&self) -> String {
        python_str(&self.value)
    }
}

/// Python's `str()` of a scalar value; collections in Python's `repr` style.
pub fn python_str(value: &YamlValue) -> String {
    match value {
        YamlValue::Str(text) | YamlValue::Timestamp(text) => text.clone(),
        other => python_repr(other),
    }
}

/// Python's `repr()` of a value.
pub fn python_repr(value: &YamlValue) -> String {
    match value {
        YamlValue::Null => "None".to_owned(),
        YamlValue::Bool(true) => "True".to_owned(),
        YamlValue::Bool(false) => "False".to_owned(),
        YamlValue::Int(number) => number.to_string(),
        YamlValue::Float(number) => python_float(*number),
        YamlValue::Str(text) => python_str_repr(text),
        YamlValue::Timestamp(text) => format!("datetime({text})"),
        YamlValue::Bytes(bytes) => {
            let text: String = bytes
                .iter()
                .map(|&b| match b {
                    b'\\' => "\\\\".to_owned(),
                    b'\'' => "\\'".to_owned(),
                    0x20..=0x7e => char::from(b).to_string(),
                    _ => format!("\\x{b:02x}"),
                })
                .collect();
            format!("b'{text}'")
        }
        YamlValue::Seq(items) => {
            let inner: Vec<String> = items.iter().map(|item| python_repr(&item.value)).collect();
            format!("[{}]", inner.join(", "))
        }
        YamlValue::Map(entries) => {
            let inner: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}: {}", python_repr(&k.value), python_repr(&v.value)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

/// Python's `repr()` of a `str`: the one implementation, in `swaplab_base::pytext`.
pub use swaplab_base::pytext::str_repr as python_str_repr;

/// Python's `repr(float)` (`nan`, `inf`, shortest round-trip digits otherwise).
fn python_float(number: f64) -> String {
    if number.is_nan() {
        "nan".to_owned()
    } else if number.is_infinite() {
        if number > 0.0 { "inf" } else { "-inf" }.to_owned()
    } else {
        swaplab_base::pytext::float_repr(number)
    }
}

/// Parses one YAML document. `origin` is where `text` starts in its file, so spans are
/// file positions. An empty document gives `Ok(None)`, as `safe_load` gives `None`.
pub fn parse(text: &str, origin: Position) -> Result<Option<Node>, YamlError> {
    parse_events(text, origin).map_err(|error| at_stream_end_if_past(text, origin, error))
}

/// The position just after the last character of `text`.
fn end_position(text: &str, origin: Position) -> Position {
    let lines = u32::try_from(text.matches('\n').count()).unwrap_or(u32::MAX);
    let last = text.rsplit('\n').next().unwrap_or("");
    let width = u32::try_from(last.chars().count()).unwrap_or(u32::MAX);
    if lines == 0 {
        Position::new(origin.line, origin.column.saturating_add(width))
    } else {
        Position::new(origin.line.saturating_add(lines), width.saturating_add(1))
    }
}

/// PyYAML reports errors found at the end of the stream (an unclosed quote or bracket)
/// at the stream's end; saphyr sometimes reports them at the construct's start or one
/// line past the end. And saphyr's column can run past the end of the line (an
/// unprintable character after a U+FFFD in a directive): PyYAML's never does, so the
/// column stops one past the line's last character.
fn at_stream_end_if_past(text: &str, origin: Position, error: YamlError) -> YamlError {
    let end = end_position(text, origin);
    if error.at > end || error.message.contains("unexpected end of stream") {
        return YamlError { at: end, ..error };
    }
    let line = error.at.line.saturating_sub(origin.line) as usize;
    let Some(width) = text.split('\n').nth(line).map(|l| l.chars().count()) else {
        return error;
    };
    let width = u32::try_from(width).unwrap_or(u32::MAX);
    let last =
        if line == 0 { origin.column.saturating_add(width) } else { width.saturating_add(1) };
    let at = Position::new(error.at.line, error.at.column.min(last));
    YamlError { at, ..error }
}

fn parse_events(text: &str, origin: Position) -> Result<Option<Node>, YamlError> {
    let source = text;
    // Char ranges of quoted and block scalars, where PyYAML allows tabs.
    let mut protected: Vec<(usize, usize)> = Vec::new();
    let (end, chars) = (end_position(text, origin), text.chars().count());
    let newlines = has_lone_carriage_return(text)
        .then(|| text.chars().enumerate().filter(|&(_, c)| c == '\n').map(|(at, _)| at).collect());
    let mut builder = Builder {
        origin,
        end,
        chars,
        newlines,
        stack: Vec::new(),
        anchors: HashMap::new(),
        nodes: 0,
    };
    let mut documents = 0usize;
    let mut root: Option<Node> = None;
    for event in Parser::new_from_str(text) {
        let (event, span) = match event {
            Ok(event) => event,
            Err(error) => {
                // PyYAML would have stopped at a stray tab before saphyr's complaint.
                if let Some(tab) = stray_tab(source, &protected)
                    && (tab.index() < error.marker().index() || error.info().contains("tab"))
                {
                    return Err(YamlError {
                        at: builder.position(tab),
                        message: "found character '\\t' that cannot start any token".to_owned(),
                    });
                }
                return Err(YamlError {
                    at: builder.position(*error.marker()),
                    message: error.info().to_owned(),
                });
            }
        };
        let start = builder.position(span.start);
        let end = builder.position(span.end);
        let node_span = Span { start, end };
        match event {
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return Err(YamlError {
                        at: start,
                        message: "expected a single document in the stream, but found another \
                                  document"
                            .to_owned(),
                    });
                }
            }
            Event::Scalar(text, style, anchor, tag) => {
                let mut node = scalar(&text, style, tag.as_deref(), node_span)
                    .map_err(|message| YamlError { at: start, message })?;
                if style != ScalarStyle::Plain {
                    protected.push((span.start.index(), span.end.index()));
                }
                if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded)
                    && last_line_unterminated(source, span.end.index())
                    && let YamlValue::Str(content) = &mut node.value
                    && content.ends_with('\n')
                {
                    // PyYAML gives a block scalar on an unterminated last line no final break.
                    content.pop();
                }
                if let Some(done) = builder.push(node, anchor)? {
                    root = Some(done);
                }
            }
            Event::Alias(anchor) => {
                let Some(node) = builder.anchors.get(&anchor).cloned() else {
                    return Err(YamlError {
                        at: start,
                        message: "found undefined alias".to_owned(),
                    });
                };
                builder.count(count_nodes(&node), start)?;
                let node = Node { span: node_span, ..node };
                if let Some(done) = builder.push_counted(node, 0)? {
                    root = Some(done);
                }
            }
            Event::SequenceStart(anchor, tag) => {
                check_collection_tag(tag.as_deref(), "seq")
                    .map_err(|message| YamlError { at: start, message })?;
                builder.open(Frame::Seq(Vec::new()), anchor, start)?;
            }
            Event::MappingStart(anchor, tag) => {
                check_collection_tag(tag.as_deref(), "map")
                    .map_err(|message| YamlError { at: start, message })?;
                builder.open(Frame::Map(Vec::new(), None, Vec::new()), anchor, start)?;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some(done) = builder.close(end)? {
                    root = Some(done);
                }
            }
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => {}
        }
    }
    if let Some(tab) = stray_tab(source, &protected) {
        return Err(YamlError {
            at: builder.position(tab),
            message: "found character '\\t' that cannot start any token".to_owned(),
        });
    }
    Ok(root)
}

/// The first tab PyYAML's scanner would trip on. It skips only spaces between tokens and
/// ends a plain scalar at a tab, so a tab is fine only inside a quoted or block scalar
/// (`protected`, char ranges) or a comment; anywhere else it "cannot start any token".
/// YAML 1.2, and so saphyr, allows tabs as separation space.
fn stray_tab(source: &str, protected: &[(usize, usize)]) -> Option<Marker> {
    if !source.contains('\t') {
        return None;
    }
    let (mut line, mut col) = (1, 0);
    let mut in_comment = false;
    let mut previous: Option<char> = None;
    let mut ranges = protected.iter().peekable();
    for (index, c) in source.chars().enumerate() {
        while ranges.peek().is_some_and(|&&(_, end)| end <= index) {
            ranges.next();
        }
        let inside = ranges.peek().is_some_and(|&&(start, end)| start <= index && index < end);
        match c {
            '\n' => {
                line += 1;
                col = 0;
                in_comment = false;
                previous = Some(c);
                continue;
            }
            '#' if !inside && previous.is_none_or(|p| p == ' ' || p == '\t' || p == '\n') => {
                in_comment = true;
            }
            '\t' if !inside && !in_comment => return Some(Marker::new(index, line, col)),
            _ => {}
        }
        previous = Some(c);
        col += 1;
    }
    None
}

/// Whether `text` has a `\r` not followed by `\n`: a line break to YAML, not to the
/// editor.
fn has_lone_carriage_return(text: &str) -> bool {
    text.match_indices('\r').any(|(at, _)| text.as_bytes().get(at + 1) != Some(&b'\n'))
}

/// Whether the input has no final line break and char `index` is on its last line.
fn last_line_unterminated(text: &str, index: usize) -> bool {
    if text.ends_with('\n') || text.ends_with('\r') {
        return false;
    }
    let at = text.char_indices().nth(index).map_or(text.len(), |(at, _)| at);
    !text[at..].contains('\n')
}

enum Frame {
    Seq(Vec<Node>),
    /// Entries as written, the key waiting for its value, and `<<` sources in order.
    Map(Vec<(Node, Node)>, Option<Node>, Vec<Node>),
}

struct Open {
    frame: Frame,
    anchor: usize,
    start: Position,
}

struct Builder {
    origin: Position,
    /// Just after the text's last character, and how many characters come before it.
    end: Position,
    chars: usize,
    /// The char index of every `\n`, for a text with a lone `\r`: YAML ends a line
    /// there and the editor does not, so positions come from saphyr's char index.
    newlines: Option<Vec<usize>>,
    stack: Vec<Open>,
    anchors: HashMap<usize, Node>,
    nodes: usize,
}

impl Builder {
    /// A saphyr marker as a file position. At the end of a text without a final line
    /// break, saphyr puts the end of an open block collection on the line after the last;
    /// a marker at the end is the text's end, where PyYAML puts it.
    fn position(&self, marker: Marker) -> Position {
        if marker.index() >= self.chars {
            return self.end;
        }
        let (line, col) = match &self.newlines {
            None => (marker.line().max(1) - 1, marker.col()),
            Some(newlines) => {
                let at = marker.index();
                let line = newlines.partition_point(|&newline| newline < at);
                (line, if line == 0 { at } else { at - newlines[line - 1] - 1 })
            }
        };
        let line = u32::try_from(line).unwrap_or(u32::MAX);
        let col = u32::try_from(col).unwrap_or(u32::MAX);
        if line == 0 {
            Position::new(self.origin.line, self.origin.column.saturating_add(col))
        } else {
            Position::new(self.origin.line.saturating_add(line), col.saturating_add(1))
        }
    }

    fn count(&mut self, nodes: usize, at: Position) -> Result<(), YamlError> {
        self.nodes = self.nodes.saturating_add(nodes);
        if self.nodes > MAX_NODES {
            return Err(YamlError {
                at,
                message: format!(
                    "the document holds more than {MAX_NODES} values once aliases are expanded; \
                     Swap Lab refuses it"
                ),
            });
        }
        Ok(())
    }

    fn open(&mut self, frame: Frame, anchor: usize, start: Position) -> Result<(), YamlError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(YamlError {
                at: start,
                message: format!(
                    "collections nest deeper than {MAX_DEPTH} levels; Swap Lab refuses it"
                ),
            });
        }
        self.stack.push(Open { frame, anchor, start });
        Ok(())
    }

    fn close(&mut self, end: Position) -> Result<Option<Node>, YamlError> {
        let Some(open) = self.stack.pop() else { return Ok(None) };
        let value = match open.frame {
            Frame::Seq(items) => YamlValue::Seq(items),
            Frame::Map(entries, _, merges) => YamlValue::Map(flatten(entries, &merges)?),
        };
        let end = end.max(open.start);
        let node = Node { value, span: Span { start: open.start, end }, plain: false };
        self.push_counted(node, open.anchor)
    }

    fn push(&mut self, node: Node, anchor: usize) -> Result<Option<Node>, YamlError> {
        self.count(1, node.span.start)?;
        self.push_counted(node, anchor)
    }

    /// Adds a finished node to the open collection, or returns it as the document.
    fn push_counted(&mut self, node: Node, anchor: usize) -> Result<Option<Node>, YamlError> {
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
        let Some(open) = self.stack.last_mut() else {
            reject_merge_value(&node)?;
            return Ok(Some(node));
        };
        match &mut open.frame {
            Frame::Seq(items) => {
                reject_merge_value(&node)?;
                items.push(node);
            }
            Frame::Map(entries, pending, merges) => match pending.take() {
                None => {
                    if matches!(node.value, YamlValue::Seq(_) | YamlValue::Map(_)) {
                        return Err(YamlError {
                            at: node.span.start,
                            message: "while constructing a mapping: found unhashable key"
                                .to_owned(),
                        });
                    }
                    if node.plain && node.is_null() && node.span.start == node.span.end {
                        // An empty implicit key (`: value`): YAML 1.2 allows it, PyYAML not.
                        return Err(YamlError {
                            at: node.span.start,
                            message: "expected <block end>, but found ':'".to_owned(),
                        });
                    }
                    *pending = Some(node);
                }
                Some(key) if is_merge_key(&key) => merges.push(node),
                Some(key) => {
                    reject_merge_value(&node)?;
                    entries.push((key, node));
                }
            },
        }
        Ok(None)
    }
}

fn is_merge_key(node: &Node) -> bool {
    node.plain && node.value == YamlValue::Str("<<".to_owned())
}

/// A plain `<<` anywhere but a mapping key resolves to the merge tag, which
/// `safe_load` cannot construct.
fn reject_merge_value(node: &Node) -> Result<(), YamlError> {
    if is_merge_key(node) {
        return Err(YamlError {
            at: node.span.start,
            message: format!(
                "could not determine a constructor for the tag '{CORE_TAG_PREFIX}merge'"
            ),
        });
    }
    Ok(())
}

/// PyYAML's `flatten_mapping`: the pairs of every `<<` source come first (a list of
/// sources in reverse, so the first listed wins), then the written pairs; building the
/// `dict` keeps each key's first place and its last value.
fn flatten(written: Vec<(Node, Node)>, merges: &[Node]) -> Result<Vec<(Node, Node)>, YamlError> {
    let mut pairs: Vec<(Node, Node)> = Vec::new();
    for source in merges {
        let maps: Vec<&Node> = match &source.value {
            YamlValue::Map(_) => vec![source],
            YamlValue::Seq(items) => items.iter().rev().collect(),
            _ => {
                return Err(YamlError {
                    at: source.span.start,
                    message: "while constructing a mapping: expected a mapping or list of \
                              mappings for merging"
                        .to_owned(),
                });
            }
        };
        for map in maps {
            let Some(entries) = map.as_map() else {
                return Err(YamlError {
                    at: map.span.start,
                    message: "while constructing a mapping: expected a mapping for merging"
                        .to_owned(),
                });
            };
            pairs.extend(entries.iter().cloned());
        }
    }
    pairs.extend(written);
    let mut entries = Vec::with_capacity(pairs.len());
    for (key, value) in pairs {
        insert(&mut entries, key, value);
    }
    Ok(entries)
}

/// A Python `dict` assignment: a repeated key keeps its first place and takes the new value.
fn insert(entries: &mut Vec<(Node, Node)>, key: Node, value: Node) {
    match entries.iter_mut().find(|(existing, _)| same_key(&existing.value, &key.value)) {
        Some(slot) => slot.1 = value,
        None => entries.push((key, value)),
    }
}

/// Python's `==` on hashable keys: `True == 1 == 1.0`.
fn same_key(a: &YamlValue, b: &YamlValue) -> bool {
    fn number(value: &YamlValue) -> Option<f64> {
        match value {
            YamlValue::Bool(flag) => Some(f64::from(u8::from(*flag))),
            #[allow(clippy::cast_precision_loss)]
            YamlValue::Int(number) => Some(*number as f64),
            YamlValue::Float(number) => Some(*number),
            _ => None,
        }
    }
    match (number(a), number(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

fn count_nodes(node: &Node) -> usize {
    match &node.value {
        YamlValue::Seq(items) => 1 + items.iter().map(count_nodes).sum::<usize>(),
        YamlValue::Map(entries) => {
            1 + entries.iter().map(|(k, v)| count_nodes(k) + count_nodes(v)).sum::<usize>()
        }
        _ => 1,
    }
}

const CORE_TAG_PREFIX: &str = "tag:yaml.org,2002:";

/// The core-schema suffix of a `!!x` tag, or an error for a tag `safe_load` cannot build.
fn core_tag(tag: &Tag) -> Result<Option<String>, String> {
    if tag.handle == "!!" || tag.handle == CORE_TAG_PREFIX {
        return Ok(Some(tag.suffix.clone()));
    }
    if tag.handle == "!" && tag.suffix.is_empty() {
        return Ok(None);
    }
    if let Some(suffix) = tag.suffix.strip_prefix(CORE_TAG_PREFIX) {
        return Ok(Some(suffix.to_owned()));
    }
    Err(format!("could not determine a constructor for the tag '{}{}'", tag.handle, tag.suffix))
}

fn check_collection_tag(tag: Option<&Tag>, kind: &str) -> Result<(), String> {
    let Some(tag) = tag else { return Ok(()) };
    match core_tag(tag)? {
        None => Ok(()),
        Some(suffix) if suffix == kind || (kind == "map" && suffix == "omap") => Ok(()),
        Some(suffix) => Err(format!(
            "could not determine a constructor for the tag '{CORE_TAG_PREFIX}{suffix}'"
        )),
    }
}

fn scalar(text: &str, style: ScalarStyle, tag: Option<&Tag>, span: Span) -> Result<Node, String> {
    let plain = style == ScalarStyle::Plain;
    let explicit = match tag {
        Some(tag) => core_tag(tag)?,
        None => None,
    };
    let value = match explicit.as_deref() {
        Some("str") => YamlValue::Str(text.to_string()),
        Some("binary") => YamlValue::Bytes(
            decode_base64(text)
                .ok_or_else(|| "failed to convert base64 data: Incorrect padding".to_owned())?,
        ),
        Some("null") => YamlValue::Null,
        Some("bool") => resolve_bool(text)
            .map(YamlValue::Bool)
            .ok_or_else(|| format!("invalid boolean: {}", python_str_repr(text)))?,
        Some("int") => resolve_int(text).ok_or_else(|| {
            format!("invalid literal for int() with base 10: {}", python_str_repr(text))
        })?,
        Some("float") => resolve_float(text)
            .or_else(|| text.trim().parse::<f64>().ok().map(YamlValue::Float))
            .ok_or_else(|| {
                format!("could not convert string to float: {}", python_str_repr(text))
            })?,
        Some("timestamp") => YamlValue::Timestamp(text.to_string()),
        Some(other) => {
            return Err(format!(
                "could not determine a constructor for the tag '{CORE_TAG_PREFIX}{other}'"
            ));
        }
        None if plain && tag.is_none() => resolve_plain(text)?,
        None => YamlValue::Str(text.to_string()),
    };
    Ok(Node { value, span, plain })
}

/// `base64.decodebytes` as PyYAML calls it: characters outside the alphabet are
/// skipped; a length that cannot be padded is an error.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let sextets: Vec<u8> = text
        .bytes()
        .take_while(|&b| b != b'=')
        .filter_map(|b| match b {
            b'A'..=b'Z' => Some(b - b'A'),
            b'a'..=b'z' => Some(b - b'a' + 26),
            b'0'..=b'9' => Some(b - b'0' + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        })
        .collect();
    if sextets.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(sextets.len() * 3 / 4);
    for chunk in sextets.chunks(4) {
        let word =
            chunk.iter().enumerate().fold(0u32, |acc, (i, &v)| acc | u32::from(v) << (18 - 6 * i));
        let bytes = word.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

/// PyYAML's implicit resolvers, in its order, for an unquoted scalar.
fn resolve_plain(text: &str) -> Result<YamlValue, String> {
    if matches!(text, "" | "~" | "null" | "Null" | "NULL") {
        return Ok(YamlValue::Null);
    }
    if let Some(flag) = resolve_bool(text) {
        return Ok(YamlValue::Bool(flag));
    }
    if let Some(number) = resolve_int(text) {
        return Ok(number);
    }
    if let Some(number) = resolve_float(text) {
        return Ok(number);
    }
    if is_timestamp(text) {
        return Ok(YamlValue::Timestamp(text.to_owned()));
    }
    if text == "=" {
        return Err(format!(
            "could not determine a constructor for the tag '{CORE_TAG_PREFIX}value'"
        ));
    }
    Ok(YamlValue::Str(text.to_owned()))
}

fn resolve_bool(text: &str) -> Option<bool> {
    match text {
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => Some(true),
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => Some(false),
        _ => None,
    }
}

fn split_sign(text: &str) -> (i64, &str) {
    match text.as_bytes().first() {
        Some(b'-') => (-1, &text[1..]),
        Some(b'+') => (1, &text[1..]),
        _ => (1, text),
    }
}

fn all(text: &str, allowed: impl Fn(u8) -> bool) -> bool {
    !text.is_empty() && text.bytes().all(allowed)
}

/// PyYAML's int regex and `construct_yaml_int`.
fn resolve_int(text: &str) -> Option<YamlValue> {
    let (sign, body) = split_sign(text);
    let digits = |s: &str, radix: u32| -> Option<YamlValue> {
        let cleaned: String = s.chars().filter(|&c| c != '_').collect();
        if cleaned.is_empty() {
            return Some(YamlValue::Int(0));
        }
        match i64::from_str_radix(&cleaned, radix) {
            Ok(number) => Some(YamlValue::Int(sign * number)),
            Err(_) => {
                let mut value = 0f64;
                for c in cleaned.chars() {
                    value = value * f64::from(radix) + f64::from(c.to_digit(radix)?);
                }
                #[allow(clippy::cast_precision_loss)]
                Some(YamlValue::Float(sign as f64 * value))
            }
        }
    };
    if let Some(rest) = body.strip_prefix("0b") {
        return all(rest, |b| matches!(b, b'0' | b'1' | b'_')).then(|| digits(rest, 2)).flatten();
    }
    if let Some(rest) = body.strip_prefix("0x") {
        return all(rest, |b| b.is_ascii_hexdigit() || b == b'_')
            .then(|| digits(rest, 16))
            .flatten();
    }
    if body == "0" {
        return Some(YamlValue::Int(0));
    }
    if let Some(rest) = body.strip_prefix('0') {
        return all(rest, |b| matches!(b, b'0'..=b'7' | b'_')).then(|| digits(rest, 8)).flatten();
    }
    let first = body.bytes().next()?;
    if !(b'1'..=b'9').contains(&first) {
        return None;
    }
    if body.contains(':') {
        let mut parts = body.split(':');
        let head = parts.next()?;
        if !all(head, |b| b.is_ascii_digit() || b == b'_') {
            return None;
        }
        let mut total: i64 = head.replace('_', "").parse().ok()?;
        for part in parts {
            if part.is_empty() || part.len() > 2 || !all(part, |b| b.is_ascii_digit()) {
                return None;
            }
            if part.len() == 2 && part.as_bytes()[0] > b'5' {
                return None;
            }
            total = total.checked_mul(60)?.checked_add(part.parse::<i64>().ok()?)?;
        }
        return Some(YamlValue::Int(sign * total));
    }
    all(body, |b| b.is_ascii_digit() || b == b'_').then(|| digits(body, 10)).flatten()
}

/// PyYAML's float regex (a dot is required; an exponent needs a sign) and its constructor.
fn resolve_float(text: &str) -> Option<YamlValue> {
    let (sign, body) = split_sign(text);
    #[allow(clippy::cast_precision_loss)]
    let signed = |value: f64| Some(YamlValue::Float(sign as f64 * value));
    match body {
        ".inf" | ".Inf" | ".INF" => return signed(f64::INFINITY),
        ".nan" | ".NaN" | ".NAN" if sign == 1 && body.len() == text.len() => {
            return Some(YamlValue::Float(f64::NAN));
        }
        _ => {}
    }
    let cleaned: String = body.chars().filter(|&c| c != '_').collect();
    if body.contains(':') {
        // [-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*
        let (whole, fraction) = body.split_once('.')?;
        if !all(fraction, |b| b.is_ascii_digit() || b == b'_') && !fraction.is_empty() {
            return None;
        }
        let mut parts = whole.split(':');
        let head = parts.next()?;
        if !head.as_bytes().first()?.is_ascii_digit()
            || !all(head, |b| b.is_ascii_digit() || b == b'_')
        {
            return None;
        }
        let mut total: f64 = head.replace('_', "").parse().ok()?;
        for part in parts {
            if part.is_empty() || part.len() > 2 || !all(part, |b| b.is_ascii_digit()) {
                return None;
            }
            if part.len() == 2 && part.as_bytes()[0] > b'5' {
                return None;
            }
            total = total * 60.0 + part.parse::<f64>().ok()?;
        }
        let fraction: String = fraction.chars().filter(|&c| c != '_').collect();
        let fraction: f64 = format!("0.{fraction}0").parse().ok()?;
        return signed(total + fraction);
    }
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    if let Some(exponent) = exponent {
        let rest = exponent.strip_prefix(['+', '-'])?;
        if !all(rest, |b| b.is_ascii_digit()) {
            return None;
        }
    }
    let (whole, fraction) = mantissa.split_once('.')?;
    let whole_ok = whole.is_empty()
        || (whole.as_bytes()[0].is_ascii_digit()
            && all(whole, |b| b.is_ascii_digit() || b == b'_'));
    let fraction_ok = fraction.bytes().all(|b| b.is_ascii_digit() || b == b'_');
    if !whole_ok || !fraction_ok {
        return None;
    }
    // `.5` needs a digit right after the dot and takes no sign (`-.5` is a string in
    // PyYAML's regex); `1.` is fine.
    if whole.is_empty()
        && (!fraction.as_bytes().first()?.is_ascii_digit() || body.len() != text.len())
    {
        return None;
    }
    let parsed: f64 = cleaned.parse().or_else(|_| format!("0{cleaned}").parse()).ok()?;
    signed(parsed)
}

/// PyYAML's timestamp regex: `YYYY-MM-DD`, or a date and time.
fn is_timestamp(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digit = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    if bytes.len() == 10 {
        return (0..4).all(digit)
            && bytes[4] == b'-'
            && digit(5)
            && digit(6)
            && bytes[7] == b'-'
            && digit(8)
            && digit(9);
    }
    // YYYY-M?M-D?D[Tt ]H?H:MM:SS(.frac)?(Z|±H?H(:MM)?)?
    let mut i = 0;
    let take_digits = |i: &mut usize, min: usize, max: usize| -> bool {
        let start = *i;
        while *i < bytes.len() && bytes[*i].is_ascii_digit() && *i - start < max {
            *i += 1;
        }
        *i - start >= min
    };
    let expect = |i: &mut usize, c: u8| -> bool {
        if bytes.get(*i) == Some(&c) {
            *i += 1;
            true
        } else {
            false
        }
    };
    if !(take_digits(&mut i, 4, 4)
        && expect(&mut i, b'-')
        && take_digits(&mut i, 1, 2)
        && expect(&mut i, b'-')
        && take_digits(&mut i, 1, 2))
    {
        return false;
    }
    match bytes.get(i) {
        Some(b'T' | b't') => i += 1,
        Some(b' ' | b'\t') => {
            while matches!(bytes.get(i), Some(b' ' | b'\t')) {
                i += 1;
            }
        }
        _ => return false,
    }
    if !(take_digits(&mut i, 1, 2)
        && expect(&mut i, b':')
        && take_digits(&mut i, 2, 2)
        && expect(&mut i, b':')
        && take_digits(&mut i, 2, 2))
    {
        return false;
    }
    if expect(&mut i, b'.') {
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    while matches!(bytes.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    match bytes.get(i) {
        None => true,
        Some(b'Z') => i + 1 == bytes.len(),
        Some(b'+' | b'-') => {
            i += 1;
            if !take_digits(&mut i, 1, 2) {
                return false;
            }
            if expect(&mut i, b':') && !take_digits(&mut i, 2, 2) {
                return false;
            }
            i == bytes.len()
        }
        _ => false,
    }
}

/// The value as JSON (mapping keys as Python's `str()`; dates as strings).
pub fn to_json(value: &YamlValue) -> serde_json::Value {
    match value {
        YamlValue::Null => serde_json::Value::Null,
        YamlValue::Bool(flag) => serde_json::Value::Bool(*flag),
        YamlValue::Int(number) => serde_json::Value::from(*number),
        YamlValue::Float(number) => serde_json::Number::from_f64(*number)
            .map_or(serde_json::Value::Null, serde_json::Value::Number),
        YamlValue::Str(text) | YamlValue::Timestamp(text) => {
            serde_json::Value::String(text.clone())
        }
        YamlValue::Bytes(bytes) => {
            serde_json::Value::String(String::from_utf8_lossy(bytes).into_owned())
        }
        YamlValue::Seq(items) => items.iter().map(|item| to_json(&item.value)).collect(),
        YamlValue::Map(entries) => {
            // Inserted one by one: `collect` would link a sort of its own (`order`).
            let mut object = serde_json::Map::new();
            object
                .extend(entries.iter().map(|(key, value)| (key.key_text(), to_json(&value.value))));
            serde_json::Value::Object(object)
        }
    }
}
