//! The `json` module's `dumps` and `loads`, with the output of CPython's encoder (its
//! separators, indentation, `ensure_ascii` escapes, `sort_keys`, key conversion) and the
//! messages of its decoder (`Expecting value: line 1 column 1 (char 0)`).
//!
//! Both walk nested values at most [`MAX_VALUE_DEPTH`] levels deep (deeper raises
//! `RecursionError`, as CPython does past its recursion limit) and charge their work.

use std::rc::Rc;

use super::ast::At;
use super::eval::{Interp, R, Signal};
use super::runtime::RunValue;
use super::value::repr_float;
use super::{MAX_SIZE, MAX_VALUE_DEPTH};

/// A value read from a JSON document and the index after it, or the message and
/// position of a `JSONDecodeError`.
type Scanned = Result<(RunValue, usize), Failure>;

/// Why a JSON document cannot be read: `JSONDecodeError`'s message and position.
type Failure = (&'static str, usize);

/// `json.dumps`'s options.
struct Encoder {
    indent: Option<String>,
    item_separator: String,
    key_separator: String,
    sort_keys: bool,
    ensure_ascii: bool,
    allow_nan: bool,
    skip_keys: bool,
    default: Option<RunValue>,
}

/// `json.dumps`'s keyword arguments, all passed on to `JSONEncoder`.
const DUMPS_KEYWORDS: [&str; 10] = [
    "obj",
    "skipkeys",
    "ensure_ascii",
    "check_circular",
    "allow_nan",
    "cls",
    "indent",
    "separators",
    "default",
    "sort_keys",
];

/// `json.loads`'s keyword arguments, passed on to `JSONDecoder` (only `s` is run).
const LOADS_KEYWORDS: [&str; 7] =
    ["s", "cls", "object_hook", "parse_float", "parse_int", "parse_constant", "object_pairs_hook"];

impl Interp<'_, '_> {
    /// `json.dumps(obj, **options)`.
    pub(crate) fn json_dumps(
        &mut self,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        let mut options =
            self.json_args("dumps", "obj", "JSONEncoder", &DUMPS_KEYWORDS, args, kwargs, at)?;
        let obj = options.remove(0).unwrap_or(RunValue::None);
        let option = |name: &str| {
            DUMPS_KEYWORDS
                .iter()
                .position(|k| *k == name)
                .and_then(|i| options.get(i - 1))
                .cloned()
                .flatten()
        };
        if option("cls").is_some_and(|c| !matches!(c, RunValue::None)) {
            return Err(self.unsupported("`json.dumps(cls=…)`", at));
        }
        let indent = match option("indent") {
            None | Some(RunValue::None) => None,
            Some(RunValue::Str(s)) => Some(s.to_string()),
            Some(v) if v.as_int().is_some() => {
                let n = usize::try_from(v.as_int().unwrap_or(0)).unwrap_or(0);
                if n > MAX_SIZE {
                    return Err(self.memory_error(at));
                }
                Some(" ".repeat(n))
            }
            Some(other) => {
                let message = format!(
                    "can't multiply sequence by non-int of type '{}'",
                    self.type_name(&other)
                );
                return Err(self.raise("TypeError", message, at));
            }
        };
        let (item_separator, key_separator) = match option("separators") {
            None | Some(RunValue::None) => {
                (if indent.is_some() { "," } else { ", " }.to_owned(), ": ".to_owned())
            }
            Some(separators) => {
                let pair = self.unpack(&separators, 2, at)?;
                let mut texts = Vec::with_capacity(2);
                for part in pair {
                    texts.push(self.str_of(&part, at)?);
                }
                let key = texts.pop().unwrap_or_default();
                (texts.pop().unwrap_or_default(), key)
            }
        };
        let flag = |name: &str, default: bool| option(name).map_or(default, |v| v.truthy());
        let encoder = Encoder {
            indent,
            item_separator,
            key_separator,
            sort_keys: flag("sort_keys", false),
            ensure_ascii: flag("ensure_ascii", true),
            allow_nan: flag("allow_nan", true),
            skip_keys: flag("skipkeys", false),
            default: option("default").filter(|d| !matches!(d, RunValue::None)),
        };
        let mut out = String::new();
        self.json_encode(&encoder, &obj, 0, &mut Vec::new(), &mut out, at)?;
        self.check_str(&out, at)?;
        Ok(RunValue::str(&out))
    }

    /// Binds `json.dumps`/`json.loads` arguments: one positional (`first`), the rest by
    /// keyword, as the Python functions and the classes they pass them to do.
    #[allow(clippy::too_many_arguments)]
    fn json_args(
        &self,
        function: &str,
        first: &str,
        class: &str,
        keywords: &[&str],
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<Vec<Option<RunValue>>> {
        if args.len() > 1 {
            let given = if args.len() == 1 { "was" } else { "were" };
            let message = format!(
                "{function}() takes 1 positional argument but {} {given} given",
                args.len()
            );
            return Err(self.raise("TypeError", message, at));
        }
        let mut slots: Vec<Option<RunValue>> = vec![None; keywords.len()];
        if let (Some(slot), Some(value)) = (slots.first_mut(), args.into_iter().next()) {
            *slot = Some(value);
        }
        for (key, value) in kwargs {
            match keywords.iter().position(|k| *k == key).and_then(|i| slots.get_mut(i)) {
                Some(slot @ None) => *slot = Some(value),
                Some(Some(_)) => {
                    let message = format!("{function}() got multiple values for argument '{key}'");
                    return Err(self.raise("TypeError", message, at));
                }
                None => {
                    let message =
                        format!("{class}.__init__() got an unexpected keyword argument '{key}'");
                    return Err(self.raise("TypeError", message, at));
                }
            }
        }
        if slots.first().is_none_or(Option::is_none) {
            let message = format!("{function}() missing 1 required positional argument: '{first}'");
            return Err(self.raise("TypeError", message, at));
        }
        Ok(slots)
    }

    fn json_encode(
        &mut self,
        encoder: &Encoder,
        value: &RunValue,
        depth: usize,
        markers: &mut Vec<*const ()>,
        out: &mut String,
        at: At,
    ) -> R<()> {
        if depth > MAX_VALUE_DEPTH {
            let message = "maximum recursion depth exceeded while encoding a JSON object";
            return Err(self.raise("RecursionError", message, at));
        }
        if out.len() > 4 * MAX_SIZE {
            return Err(self.memory_error(at));
        }
        self.charge(1, at)?;
        match value {
            RunValue::None => out.push_str("null"),
            RunValue::Bool(true) => out.push_str("true"),
            RunValue::Bool(false) => out.push_str("false"),
            RunValue::Int(n) => out.push_str(&n.to_string()),
            RunValue::Float(x) => out.push_str(&self.json_float(encoder, *x, at)?),
            RunValue::Str(s) => {
                self.charge(s.len(), at)?;
                json_string(s, encoder.ensure_ascii, out);
            }
            RunValue::List(list) => {
                let items = list.items.borrow().clone();
                let id = Rc::as_ptr(list).cast::<()>();
                self.json_items(encoder, &items, Some(id), depth, markers, out, at)?;
            }
            RunValue::Tuple(tuple) => {
                self.json_items(encoder, &tuple.items, None, depth, markers, out, at)?;
            }
            RunValue::Dict(dict) => {
                let entries = dict.entries.borrow().clone();
                let id = Rc::as_ptr(dict).cast::<()>();
                self.json_object(encoder, entries, id, depth, markers, out, at)?;
            }
            other => {
                let Some(default) = encoder.default.clone() else {
                    // `o.__class__.__name__`: `datetime`, not `datetime.datetime`.
                    let name = match other {
                        RunValue::Temporal(t) => t.kind().name().to_owned(),
                        _ => self.type_name(other),
                    };
                    let message = format!("Object of type {name} is not JSON serializable");
                    return Err(self.raise("TypeError", message, at));
                };
                let replaced = self.call_value(default, vec![other.clone()], Vec::new(), at)?;
                self.json_encode(encoder, &replaced, depth + 1, markers, out, at)?;
            }
        }
        Ok(())
    }

    fn json_float(&self, encoder: &Encoder, x: f64, at: At) -> R<String> {
        if x.is_finite() {
            return Ok(repr_float(x));
        }
        if !encoder.allow_nan {
            let message = "Out of range float values are not JSON compliant";
            return Err(self.raise("ValueError", message, at));
        }
        Ok(if x.is_nan() {
            "NaN"
        } else if x > 0.0 {
            "Infinity"
        } else {
            "-Infinity"
        }
        .to_owned())
    }

    /// Where an item starts: after the separator, on a new indented line if indenting.
    fn json_newline(encoder: &Encoder, level: usize, out: &mut String) {
        if let Some(indent) = &encoder.indent {
            out.push('\n');
            for _ in 0..level {
                out.push_str(indent);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn json_items(
        &mut self,
        encoder: &Encoder,
        items: &[RunValue],
        id: Option<*const ()>,
        depth: usize,
        markers: &mut Vec<*const ()>,
        out: &mut String,
        at: At,
    ) -> R<()> {
        if items.is_empty() {
            out.push_str("[]");
            return Ok(());
        }
        if let Some(id) = id {
            if markers.contains(&id) {
                return Err(self.raise("ValueError", "Circular reference detected", at));
            }
            markers.push(id);
        }
        out.push('[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(&encoder.item_separator);
            }
            Self::json_newline(encoder, depth + 1, out);
            self.json_encode(encoder, item, depth + 1, markers, out, at)?;
        }
        Self::json_newline(encoder, depth, out);
        out.push(']');
        if id.is_some() {
            markers.pop();
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn json_object(
        &mut self,
        encoder: &Encoder,
        entries: Vec<(RunValue, RunValue)>,
        id: *const (),
        depth: usize,
        markers: &mut Vec<*const ()>,
        out: &mut String,
        at: At,
    ) -> R<()> {
        if entries.is_empty() {
            out.push_str("{}");
            return Ok(());
        }
        if markers.contains(&id) {
            return Err(self.raise("ValueError", "Circular reference detected", at));
        }
        markers.push(id);
        let entries = if encoder.sort_keys {
            let pairs = entries.into_iter().map(|(k, v)| RunValue::tuple(vec![k, v])).collect();
            let sorted = self.sort(pairs, None, false, at)?;
            sorted
                .into_iter()
                .map(|pair| match pair {
                    RunValue::Tuple(t) => (
                        t.items.first().cloned().unwrap_or(RunValue::None),
                        t.items.get(1).cloned().unwrap_or(RunValue::None),
                    ),
                    other => (other, RunValue::None),
                })
                .collect()
        } else {
            entries
        };
        out.push('{');
        let mut first = true;
        for (key, value) in &entries {
            let key = match key.clone() {
                RunValue::Str(s) => s.to_string(),
                RunValue::Float(x) => self.json_float(encoder, x, at)?,
                RunValue::Bool(true) => "true".to_owned(),
                RunValue::Bool(false) => "false".to_owned(),
                RunValue::Int(n) => n.to_string(),
                RunValue::None => "null".to_owned(),
                _ if encoder.skip_keys => continue,
                other => {
                    let message = format!(
                        "keys must be str, int, float, bool or None, not {}",
                        self.type_name(&other)
                    );
                    return Err(self.raise("TypeError", message, at));
                }
            };
            if !first {
                out.push_str(&encoder.item_separator);
            }
            first = false;
            Self::json_newline(encoder, depth + 1, out);
            json_string(&key, encoder.ensure_ascii, out);
            out.push_str(&encoder.key_separator);
            self.json_encode(encoder, value, depth + 1, markers, out, at)?;
        }
        Self::json_newline(encoder, depth, out);
        out.push('}');
        markers.pop();
        Ok(())
    }

    /// `json.loads(s)`.
    pub(crate) fn json_loads(
        &mut self,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        let options =
            self.json_args("loads", "s", "JSONDecoder", &LOADS_KEYWORDS, args, kwargs, at)?;
        if options.iter().skip(1).any(|o| o.as_ref().is_some_and(|v| !matches!(v, RunValue::None)))
        {
            return Err(self.unsupported("`json.loads` with a hook or `cls`", at));
        }
        let text = match options.into_iter().next().flatten().unwrap_or(RunValue::None) {
            RunValue::Str(s) => {
                if s.starts_with('\u{feff}') {
                    let message =
                        "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)";
                    return Err(self.raise("JSONDecodeError", message, at));
                }
                s
            }
            RunValue::Bytes(b) => {
                let utf16_or_32 = b.starts_with(&[0xff, 0xfe])
                    || b.starts_with(&[0xfe, 0xff])
                    || b.get(..4).is_some_and(|head| head.contains(&0));
                if utf16_or_32 && !b.starts_with(&[0xef, 0xbb, 0xbf]) {
                    return Err(self.unsupported("JSON bytes in UTF-16 or UTF-32", at));
                }
                Rc::from(self.decode(&b, "utf-8-sig", "strict", at)?.as_str())
            }
            other => {
                let message = format!(
                    "the JSON object must be str, bytes or bytearray, not {}",
                    self.type_name(&other)
                );
                return Err(self.raise("TypeError", message, at));
            }
        };
        self.charge(text.len(), at)?;
        let chars: Vec<char> = text.chars().collect();
        let mut decoder = Decoder { chars: &chars };
        let start = decoder.whitespace(0);
        let (value, end) = match self.json_value(&mut decoder, start, 0, at)? {
            Ok(found) => found,
            Err(failure) => return Err(self.json_error(&chars, failure, at)),
        };
        let end = decoder.whitespace(end);
        if end != chars.len() {
            return Err(self.json_error(&chars, ("Extra data", end), at));
        }
        Ok(value)
    }

    /// `JSONDecodeError("msg: line L column C (char P)")`.
    fn json_error(&self, chars: &[char], (message, pos): Failure, at: At) -> Signal {
        let before = chars.get(..pos).unwrap_or(chars);
        let line = before.iter().filter(|&&c| c == '\n').count() + 1;
        let column = match before.iter().rposition(|&c| c == '\n') {
            Some(newline) => pos - newline,
            None => pos + 1,
        };
        let message = format!("{message}: line {line} column {column} (char {pos})");
        self.raise("JSONDecodeError", message, at)
    }

    /// The value at `idx` (CPython's `scan_once`): the value and the index after it, or
    /// the message and position of a `JSONDecodeError`.
    fn json_value(
        &mut self,
        decoder: &mut Decoder<'_>,
        idx: usize,
        depth: usize,
        at: At,
    ) -> R<Scanned> {
        self.charge(1, at)?;
        let chars = decoder.chars;
        let Some(&c) = chars.get(idx) else { return Ok(Err(("Expecting value", idx))) };
        let word = |w: &str| {
            let n = w.chars().count();
            chars.get(idx..idx + n).is_some_and(|s| s.iter().copied().eq(w.chars()))
        };
        if matches!(c, '{' | '[') && depth >= MAX_VALUE_DEPTH {
            let what = if c == '{' { "object" } else { "array" };
            let message = format!(
                "maximum recursion depth exceeded while decoding a JSON {what} from a unicode string"
            );
            return Err(self.raise("RecursionError", message, at));
        }
        Ok(Ok(match c {
            '"' => match decoder.string(idx + 1) {
                Ok((text, end)) => (self.json_text(text, at)?, end),
                Err(failure) => return Ok(Err(failure)),
            },
            '{' => return self.json_object_value(decoder, idx + 1, depth, at),
            '[' => return self.json_array_value(decoder, idx + 1, depth, at),
            'n' if word("null") => (RunValue::None, idx + 4),
            't' if word("true") => (RunValue::Bool(true), idx + 4),
            'f' if word("false") => (RunValue::Bool(false), idx + 5),
            'N' if word("NaN") => (RunValue::Float(f64::NAN), idx + 3),
            'I' if word("Infinity") => (RunValue::Float(f64::INFINITY), idx + 8),
            '-' if word("-Infinity") => (RunValue::Float(f64::NEG_INFINITY), idx + 9),
            _ => match decoder.number(idx) {
                Some((text, end, float)) => {
                    let value = if float {
                        RunValue::Float(text.parse().unwrap_or(f64::NAN))
                    } else {
                        RunValue::Int(text.parse().map_err(|_| self.overflow(at))?)
                    };
                    (value, end)
                }
                None => return Ok(Err(("Expecting value", idx))),
            },
        }))
    }

    fn json_text(&self, text: Result<String, ()>, at: At) -> R<RunValue> {
        match text {
            Ok(text) => Ok(RunValue::str(&text)),
            Err(()) => Err(self.unsupported("a lone surrogate (`\\ud800`…) in a JSON string", at)),
        }
    }

    fn json_object_value(
        &mut self,
        decoder: &mut Decoder<'_>,
        mut end: usize,
        depth: usize,
        at: At,
    ) -> R<Scanned> {
        let chars = decoder.chars;
        let dict = self.new_dict(Vec::new());
        let RunValue::Dict(d) = &dict else { return Ok(Ok((dict, end))) };
        let name_expected = "Expecting property name enclosed in double quotes";
        let mut next = chars.get(end).copied();
        if next != Some('"') {
            end = decoder.whitespace(end);
            next = chars.get(end).copied();
            if next == Some('}') {
                return Ok(Ok((dict, end + 1)));
            }
            if next != Some('"') {
                return Ok(Err((name_expected, end)));
            }
        }
        end += 1;
        loop {
            let (key, after) = match decoder.string(end) {
                Ok(found) => found,
                Err(failure) => return Ok(Err(failure)),
            };
            let key = self.json_text(key, at)?;
            end = after;
            if chars.get(end) != Some(&':') {
                end = decoder.whitespace(end);
                if chars.get(end) != Some(&':') {
                    return Ok(Err(("Expecting ':' delimiter", end)));
                }
            }
            end = decoder.whitespace(end + 1);
            let (value, after) = match self.json_value(decoder, end, depth + 1, at)? {
                Ok(found) => found,
                Err(failure) => return Ok(Err(failure)),
            };
            self.dict_set(d, key, value, at)?;
            end = decoder.whitespace(after);
            let next = chars.get(end).copied();
            end += 1;
            match next {
                Some('}') => return Ok(Ok((dict, end))),
                Some(',') => {}
                _ => return Ok(Err(("Expecting ',' delimiter", end - 1))),
            }
            end = decoder.whitespace(end);
            let next = chars.get(end).copied();
            end += 1;
            if next != Some('"') {
                return Ok(Err((name_expected, end - 1)));
            }
        }
    }

    fn json_array_value(
        &mut self,
        decoder: &mut Decoder<'_>,
        end: usize,
        depth: usize,
        at: At,
    ) -> R<Scanned> {
        let chars = decoder.chars;
        let mut items = Vec::new();
        let mut end = decoder.whitespace(end);
        if chars.get(end) == Some(&']') {
            return Ok(Ok((self.new_list(items), end + 1)));
        }
        loop {
            let (value, after) = match self.json_value(decoder, end, depth + 1, at)? {
                Ok(found) => found,
                Err(failure) => return Ok(Err(failure)),
            };
            if items.len() >= MAX_SIZE {
                return Err(self.memory_error(at));
            }
            items.push(value);
            end = decoder.whitespace(after);
            let next = chars.get(end).copied();
            end += 1;
            match next {
                Some(']') => return Ok(Ok((self.new_list(items), end))),
                Some(',') => {}
                _ => return Ok(Err(("Expecting ',' delimiter", end - 1))),
            }
            end = decoder.whitespace(end);
        }
    }
}

/// The characters of a JSON document, read as CPython's C scanner reads them.
struct Decoder<'c> {
    chars: &'c [char],
}

impl Decoder<'_> {
    /// The index after the JSON whitespace at `idx`.
    fn whitespace(&self, mut idx: usize) -> usize {
        while self.chars.get(idx).is_some_and(|c| matches!(c, ' ' | '\t' | '\n' | '\r')) {
            idx += 1;
        }
        idx
    }

    /// A number at `idx` (`-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?`): its text, the index
    /// after it, and whether it is a float.
    fn number(&self, start: usize) -> Option<(String, usize, bool)> {
        let chars = self.chars;
        let digit = |i: usize| chars.get(i).is_some_and(char::is_ascii_digit);
        let mut idx = start;
        if chars.get(idx) == Some(&'-') {
            idx += 1;
        }
        match chars.get(idx) {
            Some('1'..='9') => {
                idx += 1;
                while digit(idx) {
                    idx += 1;
                }
            }
            Some('0') => idx += 1,
            _ => return None,
        }
        let mut float = false;
        if chars.get(idx) == Some(&'.') && digit(idx + 1) {
            float = true;
            idx += 2;
            while digit(idx) {
                idx += 1;
            }
        }
        if matches!(chars.get(idx), Some('e' | 'E')) {
            let e_start = idx;
            idx += 1;
            if matches!(chars.get(idx), Some('-' | '+')) {
                idx += 1;
            }
            let digits = idx;
            while digit(idx) {
                idx += 1;
            }
            if idx > digits {
                float = true;
            } else {
                idx = e_start;
            }
        }
        Some((chars.get(start..idx).unwrap_or_default().iter().collect(), idx, float))
    }

    /// The string whose opening quote is before `end` (CPython's `scanstring`): its text
    /// (`Err(())` if it holds a lone surrogate) and the index after its closing quote.
    #[allow(clippy::type_complexity)]
    fn string(&self, mut end: usize) -> Result<(Result<String, ()>, usize), Failure> {
        let chars = self.chars;
        let begin = end.saturating_sub(1);
        let unterminated = ("Unterminated string starting at", begin);
        let mut out = String::new();
        let mut lone_surrogate = false;
        loop {
            let mut next = end;
            let mut terminator = None;
            while let Some(&c) = chars.get(next) {
                if c == '"' || c == '\\' {
                    terminator = Some(c);
                    break;
                }
                if u32::from(c) <= 0x1f {
                    return Err(("Invalid control character at", next));
                }
                next += 1;
            }
            let Some(terminator) = terminator else { return Err(unterminated) };
            out.extend(chars.get(end..next).unwrap_or_default());
            next += 1;
            if terminator == '"' {
                end = next;
                break;
            }
            let Some(&c) = chars.get(next) else { return Err(unterminated) };
            if c != 'u' {
                end = next + 1;
                out.push(match c {
                    '"' => '"',
                    '\\' => '\\',
                    '/' => '/',
                    'b' => '\u{8}',
                    'f' => '\u{c}',
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    _ => return Err(("Invalid \\escape", end - 2)),
                });
                continue;
            }
            next += 1;
            end = next + 4;
            if end >= chars.len() {
                return Err(("Invalid \\uXXXX escape", next - 1));
            }
            let hex = |from: usize| -> Option<u32> {
                let digits: String = chars.get(from..from + 4)?.iter().collect();
                if digits.chars().all(|d| d.is_ascii_hexdigit()) {
                    u32::from_str_radix(&digits, 16).ok()
                } else {
                    None
                }
            };
            let Some(mut code) = hex(next) else { return Err(("Invalid \\uXXXX escape", end - 5)) };
            if (0xd800..0xdc00).contains(&code)
                && end + 6 < chars.len()
                && chars.get(end) == Some(&'\\')
                && chars.get(end + 1) == Some(&'u')
            {
                let Some(low) = hex(end + 2) else {
                    return Err(("Invalid \\uXXXX escape", end + 6 - 5));
                };
                if (0xdc00..0xe000).contains(&low) {
                    code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
                    end += 6;
                }
            }
            match char::from_u32(code) {
                Some(c) => out.push(c),
                None => lone_surrogate = true,
            }
        }
        Ok((if lone_surrogate { Err(()) } else { Ok(out) }, end))
    }
}

/// A JSON string literal, escaped as CPython's encoder escapes it.
fn json_string(text: &str, ensure_ascii: bool, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if u32::from(c) < 0x20 || (ensure_ascii && u32::from(c) >= 0x7f) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}
