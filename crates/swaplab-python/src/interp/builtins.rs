//! The builtin functions and types of the subset, and the methods of `str`, `list`,
//! `dict` and pydantic models, with CPython's results and error messages where they are
//! short and standard.
//!
//! Sorting is a merge sort that takes a fallible comparison, so comparing a `str` with an
//! `int` raises `TypeError` as in Python instead of upsetting the sort.

use std::rc::Rc;

use super::MAX_SIZE;
use super::ast::{At, BinOp};
use super::eval::{Interp, R, Signal, plural};
use super::runtime::{Builtin, DictObj, ListObj, RunValue, Ty, range_len};

/// The methods the subset runs, by type.
const STR_METHODS: [&str; 40] = [
    "encode",
    "lower",
    "upper",
    "strip",
    "lstrip",
    "rstrip",
    "split",
    "rsplit",
    "join",
    "startswith",
    "endswith",
    "replace",
    "format",
    "find",
    "rfind",
    "index",
    "rindex",
    "count",
    "title",
    "capitalize",
    "casefold",
    "swapcase",
    "isdigit",
    "isdecimal",
    "isnumeric",
    "isalpha",
    "isalnum",
    "isspace",
    "isupper",
    "islower",
    "isascii",
    "zfill",
    "splitlines",
    "center",
    "ljust",
    "rjust",
    "partition",
    "rpartition",
    "removeprefix",
    "removesuffix",
];
const LIST_METHODS: [&str; 11] = [
    "append", "extend", "insert", "pop", "remove", "index", "count", "sort", "reverse", "copy",
    "clear",
];
const DICT_METHODS: [&str; 10] =
    ["get", "items", "keys", "values", "pop", "popitem", "setdefault", "update", "copy", "clear"];

/// Python's other methods of these types: outside the subset rather than missing.
const OTHER_STR_METHODS: [&str; 7] = [
    "expandtabs",
    "format_map",
    "isidentifier",
    "isprintable",
    "istitle",
    "maketrans",
    "translate",
];

/// The methods and attributes of `int` and `float` (both, for short).
const NUMBER_ATTRIBUTES: [&str; 13] = [
    "as_integer_ratio",
    "bit_count",
    "bit_length",
    "conjugate",
    "denominator",
    "from_bytes",
    "fromhex",
    "hex",
    "imag",
    "is_integer",
    "numerator",
    "real",
    "to_bytes",
];

/// Whether the subset runs `<kind>.<name>()`.
pub(crate) fn has_method(kind: &str, name: &str) -> bool {
    match kind {
        "str" => STR_METHODS.contains(&name),
        "list" => LIST_METHODS.contains(&name),
        "dict" => DICT_METHODS.contains(&name),
        _ => false,
    }
}

/// The methods of `frozenset`, which the subset does not run.
const FROZENSET_METHODS: [&str; 8] = [
    "copy",
    "difference",
    "intersection",
    "isdisjoint",
    "issubset",
    "issuperset",
    "symmetric_difference",
    "union",
];

/// Whether Python has `<kind>.<name>` (a method or an attribute) though the subset does
/// not run it.
pub(crate) fn python_has_method(kind: &str, name: &str) -> bool {
    let other = match kind {
        "str" => OTHER_STR_METHODS.contains(&name),
        "dict" => name == "fromkeys",
        "int" | "bool" | "float" => NUMBER_ATTRIBUTES.contains(&name),
        "tuple" => name == "count" || name == "index",
        "range" => matches!(name, "count" | "index" | "start" | "stop" | "step"),
        "frozenset" => FROZENSET_METHODS.contains(&name),
        _ => false,
    };
    other || name.starts_with("__")
}

/// Python's `str.isspace()` for one character.
fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// How a `str` method takes its arguments (all positional), for CPython's messages.
#[derive(Clone, Copy)]
enum Arity {
    /// `METH_NOARGS`: `str.lower() takes no arguments (1 given)`.
    None,
    /// `METH_O`: `str.join() takes exactly one argument (0 given)`.
    One,
    /// Argument Clinic: `strip expected at most 1 argument, got 2`.
    Clinic(usize, usize),
    /// `METH_VARARGS`: `startswith() takes at most 3 arguments (4 given)`.
    VarArgs(usize, usize),
}

/// CPython's `tailmatch`: whether `affix` (of `lens.1` characters) starts (or ends) the
/// part `start:end` of `text` (of `lens.0` characters), the bounds adjusted as a
/// slice's. `offsets` are the byte offsets of a non-ASCII text's characters.
fn tail_match(
    (text, offsets): (&str, Option<&[usize]>),
    affix: &str,
    (len, affix_len): (i64, i64),
    (start, end): (Option<i64>, Option<i64>),
    from_end: bool,
) -> bool {
    let mut start = start.unwrap_or(0);
    let mut end = end.unwrap_or(len);
    if end > len {
        end = len;
    } else if end < 0 {
        end = (end + len).max(0);
    }
    if start < 0 {
        start = (start + len).max(0);
    }
    end -= affix_len;
    if end < start {
        return false;
    }
    if affix_len == 0 {
        return true;
    }
    let offset = usize::try_from(if from_end { end } else { start }).unwrap_or(0);
    let first = match offsets {
        Some(offsets) => offsets.get(offset).copied().unwrap_or(text.len()),
        None => offset,
    };
    text.get(first..).is_some_and(|rest| rest.starts_with(affix))
}

impl Interp<'_, '_> {
    /// The positional arguments of `str.<name>()`, with CPython's messages when they
    /// do not fit `arity` or are given by keyword.
    fn str_args(
        &self,
        name: &str,
        args: Vec<RunValue>,
        kwargs: &[(String, RunValue)],
        arity: Arity,
        at: At,
    ) -> R<Vec<Option<RunValue>>> {
        if !kwargs.is_empty() {
            let message = format!("str.{name}() takes no keyword arguments");
            return Err(self.raise("TypeError", message, at));
        }
        let given = args.len();
        let message = match arity {
            Arity::None if given > 0 => {
                Some(format!("str.{name}() takes no arguments ({given} given)"))
            }
            Arity::One if given != 1 => {
                Some(format!("str.{name}() takes exactly one argument ({given} given)"))
            }
            Arity::Clinic(min, _) if given < min => {
                Some(format!("{name} expected at least {min} argument{}, got {given}", plural(min)))
            }
            Arity::Clinic(_, max) if given > max => {
                Some(format!("{name} expected at most {max} argument{}, got {given}", plural(max)))
            }
            Arity::VarArgs(min, _) if given < min => Some(format!(
                "{name}() takes at least {min} argument{} ({given} given)",
                plural(min)
            )),
            Arity::VarArgs(_, max) if given > max => Some(format!(
                "{name}() takes at most {max} argument{} ({given} given)",
                plural(max)
            )),
            _ => None,
        };
        if let Some(message) = message {
            return Err(self.raise("TypeError", message, at));
        }
        Ok(args.into_iter().map(Some).collect())
    }

    /// The arguments of a method that takes them by position or keyword, all optional
    /// (`str.split(sep=None, maxsplit=-1)`, `str.encode(encoding, errors)`), with the
    /// messages of CPython's Argument Clinic.
    fn keyword_args(
        &self,
        name: &str,
        params: &[&str],
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<Vec<Option<RunValue>>> {
        let given = args.len() + kwargs.len();
        if given > params.len() {
            let keyword = if args.is_empty() { "keyword " } else { "" };
            let message = format!(
                "{name}() takes at most {} {keyword}argument{} ({given} given)",
                params.len(),
                plural(params.len())
            );
            return Err(self.raise("TypeError", message, at));
        }
        let mut out: Vec<Option<RunValue>> = args.into_iter().map(Some).collect();
        out.resize(params.len(), None);
        for (key, value) in kwargs {
            let Some(i) = params.iter().position(|n| *n == key) else {
                let message = format!("'{key}' is an invalid keyword argument for {name}()");
                return Err(self.raise("TypeError", message, at));
            };
            match out.get_mut(i) {
                Some(slot @ None) => *slot = Some(value),
                _ => {
                    let message = format!(
                        "argument for {name}() given by name ('{key}') and position ({})",
                        i + 1
                    );
                    return Err(self.raise("TypeError", message, at));
                }
            }
        }
        Ok(out)
    }

    /// An `encoding` or `errors` argument: a str, `utf-8` and `strict` by default.
    fn codec_arg(&self, function: &str, param: &str, value: Option<RunValue>, at: At) -> R<String> {
        match value {
            None => Ok(if param == "encoding" { "utf-8" } else { "strict" }.to_owned()),
            Some(RunValue::Str(s)) => Ok(s.to_string()),
            Some(other) => {
                let message = format!(
                    "{function}() argument '{param}' must be str, not {}",
                    self.type_name(&other)
                );
                Err(self.raise("TypeError", message, at))
            }
        }
    }

    /// `bytes(source, encoding, errors)`.
    fn bytes_of(
        &mut self,
        source: Option<RunValue>,
        encoding: Option<RunValue>,
        errors: Option<RunValue>,
        at: At,
    ) -> R<RunValue> {
        if let Some(RunValue::Str(text)) = &source {
            if encoding.is_none() {
                return Err(self.raise("TypeError", "string argument without an encoding", at));
            }
            let encoding = self.codec_arg("bytes", "encoding", encoding, at)?;
            let errors = self.codec_arg("bytes", "errors", errors, at)?;
            return Ok(RunValue::Bytes(self.encode(text, &encoding, &errors, at)?.into()));
        }
        if encoding.is_some() || errors.is_some() {
            let message = if encoding.is_some() {
                "encoding without a string argument"
            } else {
                "errors without a string argument"
            };
            return Err(self.raise("TypeError", message, at));
        }
        let Some(source) = source else { return Ok(RunValue::Bytes(Rc::from(&[][..]))) };
        match &source {
            RunValue::Bytes(_) => return Ok(source),
            v if v.as_int().is_some() => {
                let Ok(n) = usize::try_from(v.as_int().unwrap_or(0)) else {
                    return Err(self.raise("ValueError", "negative count", at));
                };
                if n > MAX_SIZE {
                    return Err(self.memory_error(at));
                }
                self.charge(n, at)?;
                return Ok(RunValue::Bytes(vec![0; n].into()));
            }
            _ => {}
        }
        if let Err(Signal::Raise(_)) = self.iter(&source, at) {
            let message = format!("cannot convert '{}' object to bytes", self.type_name(&source));
            return Err(self.raise("TypeError", message, at));
        }
        let mut out = Vec::new();
        for item in self.collect(&source, at)? {
            let n = self.int_arg(&item, at)?;
            match u8::try_from(n) {
                Ok(byte) => out.push(byte),
                Err(_) => {
                    return Err(self.raise("ValueError", "bytes must be in range(0, 256)", at));
                }
            }
        }
        Ok(RunValue::Bytes(out.into()))
    }

    /// Binds the arguments of a builtin: `names[i]` is its i-th parameter, the first
    /// `required` must be given.
    fn bind(
        &self,
        function: &str,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        names: &[&str],
        required: usize,
        at: At,
    ) -> R<Vec<Option<RunValue>>> {
        if args.len() > names.len() {
            let message = format!(
                "{function}() takes at most {} argument{} ({} given)",
                names.len(),
                plural(names.len()),
                args.len()
            );
            return Err(self.raise("TypeError", message, at));
        }
        let mut out: Vec<Option<RunValue>> = vec![None; names.len()];
        for (slot, arg) in out.iter_mut().zip(args) {
            *slot = Some(arg);
        }
        for (key, value) in kwargs {
            match names.iter().position(|n| *n == key).and_then(|i| out.get_mut(i)) {
                Some(slot @ None) => *slot = Some(value),
                Some(Some(_)) => {
                    let message = format!("{function}() got multiple values for argument '{key}'");
                    return Err(self.raise("TypeError", message, at));
                }
                None => {
                    let message =
                        format!("{function}() got an unexpected keyword argument '{key}'");
                    return Err(self.raise("TypeError", message, at));
                }
            }
        }
        for (i, name) in names.iter().enumerate().take(required) {
            if out.get(i).is_none_or(Option::is_none) {
                let message =
                    format!("{function}() missing required argument '{name}' (pos {})", i + 1);
                return Err(self.raise("TypeError", message, at));
            }
        }
        Ok(out)
    }

    fn text_arg(&self, function: &str, value: &RunValue, at: At) -> R<Rc<str>> {
        match value {
            RunValue::Str(s) => Ok(s.clone()),
            other => {
                let message =
                    format!("{function}() argument must be str, not {}", self.type_name(other));
                Err(self.raise("TypeError", message, at))
            }
        }
    }

    fn int_arg(&self, value: &RunValue, at: At) -> R<i64> {
        value.as_int().ok_or_else(|| {
            let message =
                format!("'{}' object cannot be interpreted as an integer", self.type_name(value));
            self.raise("TypeError", message, at)
        })
    }

    // ----- types -----

    /// `str(x)`, `int(x)`, `list(x)`…
    pub(crate) fn call_type(
        &mut self,
        ty: Ty,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        let name = ty.name();
        match ty {
            Ty::Str => {
                let [value, encoding, errors] = take(self.bind(
                    name,
                    args,
                    kwargs,
                    &["object", "encoding", "errors"],
                    0,
                    at,
                )?);
                if encoding.is_none() && errors.is_none() {
                    return match value {
                        Some(v) => Ok(RunValue::str(&self.str_of(&v, at)?)),
                        None => Ok(RunValue::str("")),
                    };
                }
                let encoding = self.codec_arg("str", "encoding", encoding, at)?;
                let errors = self.codec_arg("str", "errors", errors, at)?;
                match value.unwrap_or(RunValue::str("")) {
                    RunValue::Bytes(data) => {
                        Ok(RunValue::str(&self.decode(&data, &encoding, &errors, at)?))
                    }
                    RunValue::Str(_) => {
                        Err(self.raise("TypeError", "decoding str is not supported", at))
                    }
                    other => {
                        let message = format!(
                            "decoding to str: need a bytes-like object, {} found",
                            self.type_name(&other)
                        );
                        Err(self.raise("TypeError", message, at))
                    }
                }
            }
            Ty::Bytes => {
                let [value, encoding, errors] = take(self.bind(
                    name,
                    args,
                    kwargs,
                    &["source", "encoding", "errors"],
                    0,
                    at,
                )?);
                self.bytes_of(value, encoding, errors, at)
            }
            Ty::Int => {
                let [value, base] = take(self.bind(name, args, kwargs, &["x", "base"], 0, at)?);
                self.int_of(value, base, at)
            }
            Ty::Float => {
                let [value] = take(self.bind(name, args, kwargs, &["x"], 0, at)?);
                self.float_of(value, at)
            }
            Ty::Bool => {
                let [value] = take(self.bind(name, args, kwargs, &["x"], 0, at)?);
                Ok(RunValue::Bool(value.is_some_and(|v| v.truthy())))
            }
            Ty::List | Ty::Tuple | Ty::Set | Ty::FrozenSet => {
                let [value] = take(self.bind(name, args, kwargs, &["iterable"], 0, at)?);
                let items = match value {
                    Some(v) => self.collect(&v, at)?,
                    None => Vec::new(),
                };
                Ok(match ty {
                    Ty::Tuple => RunValue::tuple(items),
                    Ty::Set | Ty::FrozenSet => {
                        let unique = self.unique(items, at)?;
                        let set = self.new_list(unique);
                        if let (RunValue::List(list), Ty::FrozenSet) = (&set, ty) {
                            list.frozen.set(true);
                        }
                        set
                    }
                    _ => self.new_list(items),
                })
            }
            Ty::Dict => {
                if args.len() > 1 {
                    let message = format!("dict expected at most 1 argument, got {}", args.len());
                    return Err(self.raise("TypeError", message, at));
                }
                let dict = self.new_dict(Vec::new());
                if let RunValue::Dict(d) = &dict {
                    if let Some(source) = args.into_iter().next() {
                        self.update(d, &source, at)?;
                    }
                    for (key, value) in kwargs {
                        self.dict_set(d, RunValue::str(&key), value, at)?;
                    }
                }
                Ok(dict)
            }
        }
    }

    fn int_of(&mut self, value: Option<RunValue>, base: Option<RunValue>, at: At) -> R<RunValue> {
        let Some(value) = value else { return Ok(RunValue::Int(0)) };
        if let Some(base) = base {
            let base = self.int_arg(&base, at)?;
            let RunValue::Str(text) = &value else {
                let message = "int() can't convert non-string with explicit base";
                return Err(self.raise("TypeError", message, at));
            };
            return self.parse_int(text, base, at);
        }
        match &value {
            RunValue::Int(_) | RunValue::Bool(_) => Ok(RunValue::Int(value.as_int().unwrap_or(0))),
            RunValue::Float(x) => {
                self.finite_for_int(*x, at)?;
                if x.abs() >= 9.223_372_036_854_775e18 {
                    return Err(self.overflow(at));
                }
                #[allow(clippy::cast_possible_truncation)]
                Ok(RunValue::Int(x.trunc() as i64))
            }
            RunValue::Str(text) => self.parse_int(text, 10, at),
            other => {
                let message = format!(
                    "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                    self.type_name(other)
                );
                Err(self.raise("TypeError", message, at))
            }
        }
    }

    fn parse_int(&mut self, text: &str, base: i64, at: At) -> R<RunValue> {
        let invalid = |interp: &Self| {
            let mut quoted = String::new();
            super::value::repr_str(text, &mut quoted);
            let message = format!("invalid literal for int() with base {base}: {quoted}");
            interp.raise("ValueError", message, at)
        };
        if base != 0 && !(2..=36).contains(&base) {
            return Err(self.raise("ValueError", "int() base must be >= 2 and <= 36, or 0", at));
        }
        let trimmed = text.trim_matches(is_space);
        let (negative, digits) = match trimmed.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, trimmed.strip_prefix('+').unwrap_or(trimmed)),
        };
        let lower = digits.to_ascii_lowercase();
        let (radix, body) = match (base, lower.get(..2)) {
            (0 | 16, Some("0x")) => (16, lower.get(2..).unwrap_or_default()),
            (0 | 8, Some("0o")) => (8, lower.get(2..).unwrap_or_default()),
            (0 | 2, Some("0b")) => (2, lower.get(2..).unwrap_or_default()),
            (0, _) => (10, lower.as_str()),
            (b, _) => (u32::try_from(b).unwrap_or(10), lower.as_str()),
        };
        let body = body.strip_prefix('_').filter(|_| radix != 10 || base == 0).unwrap_or(body);
        let well_formed = !body.is_empty()
            && !body.starts_with('_')
            && !body.ends_with('_')
            && !body.contains("__")
            && body.chars().all(|c| c == '_' || c.is_digit(radix));
        if !well_formed {
            return Err(invalid(self));
        }
        let clean: String = body.chars().filter(|&c| c != '_').collect();
        let signed = if negative { format!("-{clean}") } else { clean };
        match i64::from_str_radix(&signed, radix) {
            Ok(n) => Ok(RunValue::Int(n)),
            Err(_) => Err(self.overflow(at)),
        }
    }

    fn float_of(&mut self, value: Option<RunValue>, at: At) -> R<RunValue> {
        let Some(value) = value else { return Ok(RunValue::Float(0.0)) };
        match &value {
            RunValue::Float(_) | RunValue::Int(_) | RunValue::Bool(_) => {
                Ok(RunValue::Float(value.as_float().unwrap_or(0.0)))
            }
            RunValue::Str(text) => {
                let trimmed = text.trim_matches(is_space);
                let lower = trimmed.to_ascii_lowercase();
                let unsigned = lower.trim_start_matches(['+', '-']);
                let named = matches!(unsigned, "inf" | "infinity" | "nan");
                let underscores_ok = !lower.contains('_')
                    || lower.as_bytes().windows(3).all(|w| {
                        w.get(1) != Some(&b'_')
                            || (w.first().is_some_and(u8::is_ascii_digit)
                                && w.get(2).is_some_and(u8::is_ascii_digit))
                    }) && !lower.starts_with('_')
                        && !lower.ends_with('_');
                let clean: String = lower.chars().filter(|&c| c != '_').collect();
                let looks_numeric = named
                    || (clean.chars().any(|c| c.is_ascii_digit())
                        && clean.chars().all(|c| c.is_ascii_digit() || "+-.e".contains(c)));
                match clean.parse::<f64>() {
                    Ok(x) if looks_numeric && underscores_ok => Ok(RunValue::Float(x)),
                    _ => {
                        let mut quoted = String::new();
                        super::value::repr_str(text, &mut quoted);
                        let message = format!("could not convert string to float: {quoted}");
                        Err(self.raise("ValueError", message, at))
                    }
                }
            }
            other => {
                let message = format!(
                    "float() argument must be a string or a real number, not '{}'",
                    self.type_name(other)
                );
                Err(self.raise("TypeError", message, at))
            }
        }
    }

    /// Adds a mapping's entries, or an iterable's pairs, to a dict.
    fn update(&mut self, dict: &Rc<DictObj>, source: &RunValue, at: At) -> R<()> {
        if let RunValue::Dict(other) = source {
            let entries = other.entries.borrow().clone();
            self.charge(entries.len(), at)?;
            for (key, value) in entries {
                self.dict_set(dict, key, value, at)?;
            }
            return Ok(());
        }
        let items = self.collect(source, at)?;
        for (i, item) in items.iter().enumerate() {
            let pair = match self.iter(item, at) {
                Ok(_) => self.collect(item, at)?,
                Err(_) => {
                    let message = format!(
                        "cannot convert dictionary update sequence element #{i} to a sequence"
                    );
                    return Err(self.raise("TypeError", message, at));
                }
            };
            let [key, value] = <[RunValue; 2]>::try_from(pair).map_err(|pair| {
                let message = format!(
                    "dictionary update sequence element #{i} has length {}; 2 is required",
                    pair.len()
                );
                self.raise("ValueError", message, at)
            })?;
            self.dict_set(dict, key, value, at)?;
        }
        Ok(())
    }

    // ----- functions -----

    /// A builtin function.
    pub(crate) fn call_builtin(
        &mut self,
        builtin: Builtin,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        let name = builtin.name();
        match builtin {
            Builtin::Len => {
                let [value] = take(self.bind(name, args, kwargs, &["obj"], 1, at)?);
                let value = value.unwrap_or(RunValue::None);
                let len = match &value {
                    RunValue::Str(s) => self.char_count(s, at)?,
                    RunValue::Bytes(b) => b.len(),
                    RunValue::List(l) => l.items.borrow().len(),
                    RunValue::Tuple(t) => t.items.len(),
                    RunValue::Dict(d) => d.entries.borrow().len(),
                    RunValue::Range(a, b, c) => usize::try_from(range_len(*a, *b, *c)).unwrap_or(0),
                    RunValue::Native(native) if matches!(**native, super::net::Native::Url(_)) => {
                        self.collect(&value, at)?.len()
                    }
                    other => {
                        let message =
                            format!("object of type '{}' has no len()", self.type_name(other));
                        return Err(self.raise("TypeError", message, at));
                    }
                };
                Ok(RunValue::Int(i64::try_from(len).unwrap_or(i64::MAX)))
            }
            Builtin::Repr => {
                let [value] = take(self.bind(name, args, kwargs, &["obj"], 1, at)?);
                Ok(RunValue::str(&self.repr(&value.unwrap_or(RunValue::None), at)?))
            }
            Builtin::Format => {
                let [value, spec] =
                    take(self.bind(name, args, kwargs, &["value", "format_spec"], 1, at)?);
                let spec = match spec {
                    Some(s) => self.text_arg(name, &s, at)?,
                    None => Rc::from(""),
                };
                Ok(RunValue::str(&self.format_value(
                    &value.unwrap_or(RunValue::None),
                    &spec,
                    at,
                )?))
            }
            Builtin::Sorted => {
                if args.len() != 1 {
                    let message = format!("sorted expected 1 argument, got {}", args.len());
                    return Err(self.raise("TypeError", message, at));
                }
                let [iterable, key, reverse] =
                    take(self.bind(name, args, kwargs, &["iterable", "key", "reverse"], 1, at)?);
                let items = self.collect(&iterable.unwrap_or(RunValue::None), at)?;
                let sorted = self.sort(items, key, reverse.is_some_and(|r| r.truthy()), at)?;
                Ok(self.new_list(sorted))
            }
            Builtin::Reversed => {
                let [value] = take(self.bind(name, args, kwargs, &["sequence"], 1, at)?);
                let value = value.unwrap_or(RunValue::None);
                if !matches!(
                    value,
                    RunValue::List(_)
                        | RunValue::Tuple(_)
                        | RunValue::Str(_)
                        | RunValue::Range(..)
                        | RunValue::Dict(_)
                ) {
                    let message = format!("'{}' object is not reversible", self.type_name(&value));
                    return Err(self.raise("TypeError", message, at));
                }
                let mut items = self.collect(&value, at)?;
                items.reverse();
                Ok(self.new_list(items))
            }
            Builtin::Min | Builtin::Max => self.min_max(builtin, args, kwargs, at),
            Builtin::Sum => {
                let [iterable, start] =
                    take(self.bind(name, args, kwargs, &["iterable", "start"], 1, at)?);
                let mut total = start.unwrap_or(RunValue::Int(0));
                if let RunValue::Str(_) = total {
                    let message = "sum() can't sum strings [use ''.join(seq) instead]";
                    return Err(self.raise("TypeError", message, at));
                }
                for item in self.collect(&iterable.unwrap_or(RunValue::None), at)? {
                    self.step(at)?;
                    total = self.binary(BinOp::Add, &total, &item, at)?;
                }
                Ok(total)
            }
            Builtin::Any | Builtin::All => {
                let [iterable] = take(self.bind(name, args, kwargs, &["iterable"], 1, at)?);
                let want = builtin == Builtin::Any;
                let items = self.collect(&iterable.unwrap_or(RunValue::None), at)?;
                Ok(RunValue::Bool(if want {
                    items.iter().any(RunValue::truthy)
                } else {
                    items.iter().all(RunValue::truthy)
                }))
            }
            Builtin::Isinstance => {
                let [value, classes] =
                    take(self.bind(name, args, kwargs, &["obj", "class_or_tuple"], 2, at)?);
                let (value, classes) =
                    (value.unwrap_or(RunValue::None), classes.unwrap_or(RunValue::None));
                Ok(RunValue::Bool(self.isinstance(&value, &classes, 0, at)?))
            }
            Builtin::Enumerate => {
                let [iterable, start] =
                    take(self.bind(name, args, kwargs, &["iterable", "start"], 1, at)?);
                let start = match start {
                    Some(s) => self.int_arg(&s, at)?,
                    None => 0,
                };
                let items = self.collect(&iterable.unwrap_or(RunValue::None), at)?;
                let mut pairs = Vec::with_capacity(items.len());
                for (i, item) in items.into_iter().enumerate() {
                    let index = start
                        .checked_add(i64::try_from(i).unwrap_or(i64::MAX))
                        .ok_or_else(|| self.overflow(at))?;
                    pairs.push(RunValue::tuple(vec![RunValue::Int(index), item]));
                }
                Ok(self.new_list(pairs))
            }
            Builtin::Map | Builtin::Filter => {
                if !kwargs.is_empty() {
                    let message = format!("{name}() takes no keyword arguments");
                    return Err(self.raise("TypeError", message, at));
                }
                let mut args = args.into_iter();
                let (Some(function), Some(first)) = (args.next(), args.next()) else {
                    let message = if builtin == Builtin::Map {
                        "map() must have at least two arguments.".to_owned()
                    } else {
                        "filter expected 2 arguments, got 0".to_owned()
                    };
                    return Err(self.raise("TypeError", message, at));
                };
                if builtin == Builtin::Filter {
                    if args.len() > 0 {
                        let message =
                            format!("filter expected 2 arguments, got {}", args.len() + 2);
                        return Err(self.raise("TypeError", message, at));
                    }
                    let mut kept = Vec::new();
                    for item in self.collect(&first, at)? {
                        let keep = match &function {
                            RunValue::None => item.truthy(),
                            f => self
                                .call_value(f.clone(), vec![item.clone()], Vec::new(), at)?
                                .truthy(),
                        };
                        if keep {
                            kept.push(item);
                        }
                    }
                    return Ok(self.new_list(kept));
                }
                let mut columns = vec![self.collect(&first, at)?.into_iter()];
                for arg in args {
                    columns.push(self.collect(&arg, at)?.into_iter());
                }
                let mut out = Vec::new();
                'items: loop {
                    let mut row = Vec::with_capacity(columns.len());
                    for column in &mut columns {
                        match column.next() {
                            Some(item) => row.push(item),
                            None => break 'items,
                        }
                    }
                    out.push(self.call_value(function.clone(), row, Vec::new(), at)?);
                }
                Ok(self.new_list(out))
            }
            Builtin::Zip => {
                if !kwargs.is_empty() {
                    return Err(self.unsupported("`zip()` with keyword arguments", at));
                }
                let mut columns = Vec::with_capacity(args.len());
                for arg in &args {
                    columns.push(self.collect(arg, at)?.into_iter());
                }
                let mut rows = Vec::new();
                if !columns.is_empty() {
                    'rows: loop {
                        let mut row = Vec::with_capacity(columns.len());
                        for column in &mut columns {
                            match column.next() {
                                Some(item) => row.push(item),
                                None => break 'rows,
                            }
                        }
                        self.charge(row.len(), at)?;
                        rows.push(RunValue::tuple(row));
                    }
                }
                Ok(self.new_list(rows))
            }
            Builtin::Range => {
                if !kwargs.is_empty() {
                    return Err(self.raise("TypeError", "range() takes no keyword arguments", at));
                }
                let numbers = args.iter().map(|a| self.int_arg(a, at)).collect::<R<Vec<i64>>>()?;
                let (start, stop, step) = match numbers.as_slice() {
                    [stop] => (0, *stop, 1),
                    [start, stop] => (*start, *stop, 1),
                    [start, stop, step] => (*start, *stop, *step),
                    _ => {
                        let message =
                            format!("range expected at most 3 arguments, got {}", numbers.len());
                        let message = if numbers.is_empty() {
                            "range expected at least 1 argument, got 0".to_owned()
                        } else {
                            message
                        };
                        return Err(self.raise("TypeError", message, at));
                    }
                };
                if step == 0 {
                    return Err(self.raise("ValueError", "range() arg 3 must not be zero", at));
                }
                if range_len(start, stop, step) > MAX_SIZE as u64 {
                    return Err(self.memory_error(at));
                }
                Ok(RunValue::Range(start, stop, step))
            }
            Builtin::Print => Ok(RunValue::None),
            Builtin::Type => {
                let ([value], true) = (args.as_slice(), kwargs.is_empty()) else {
                    return Err(self.unsupported("`type()` other than of one value", at));
                };
                Ok(match value {
                    RunValue::Instance(instance) => RunValue::Class(instance.class),
                    RunValue::Exc(exc) => RunValue::ExcClass(exc.class.clone()),
                    RunValue::Str(_) => RunValue::Type(Ty::Str),
                    RunValue::Int(_) => RunValue::Type(Ty::Int),
                    RunValue::Bool(_) => RunValue::Type(Ty::Bool),
                    RunValue::Float(_) => RunValue::Type(Ty::Float),
                    RunValue::List(list) if list.frozen.get() => RunValue::Type(Ty::FrozenSet),
                    RunValue::List(_) => RunValue::Type(Ty::List),
                    RunValue::Tuple(_) => RunValue::Type(Ty::Tuple),
                    RunValue::Dict(_) => RunValue::Type(Ty::Dict),
                    RunValue::Bytes(_) => RunValue::Type(Ty::Bytes),
                    RunValue::Object(object) => match object.model {
                        Some(model) => RunValue::Model(model),
                        None => RunValue::ToolResult,
                    },
                    RunValue::Temporal(t) => RunValue::TemporalClass(t.kind()),
                    other => {
                        let what = format!("`type()` of a `{}`", self.type_name(other));
                        return Err(self.unsupported(&what, at));
                    }
                })
            }
            Builtin::Super => match args.as_slice() {
                [RunValue::Class(class), receiver] if kwargs.is_empty() => {
                    if let RunValue::Instance(instance) = receiver
                        && self.class_derives(instance.class, *class)
                    {
                        return Ok(RunValue::Super(Rc::new(super::runtime::MethodObj {
                            receiver: receiver.clone(),
                            function: RunValue::Class(*class),
                        })));
                    }
                    let message = "super(type, obj): obj must be an instance or subtype of type";
                    Err(self.raise("TypeError", message, at))
                }
                [RunValue::ExcClass(class), receiver @ RunValue::Exc(exc)] if kwargs.is_empty() => {
                    let Some(def) = self.exc_class_def(class) else {
                        return Err(self.unsupported("`super()` of a builtin exception class", at));
                    };
                    if self.is_subclass(&exc.class, class) {
                        return Ok(RunValue::Super(Rc::new(super::runtime::MethodObj {
                            receiver: receiver.clone(),
                            function: RunValue::Class(def),
                        })));
                    }
                    let message = "super(type, obj): obj must be an instance or subtype of type";
                    Err(self.raise("TypeError", message, at))
                }
                [] => Err(self.raise("RuntimeError", "super(): no arguments", at)),
                _ => Err(self.unsupported("this form of `super()`", at)),
            },
            Builtin::Next => Err(self.unsupported(
                "`next()` of anything but a generator expression written in the call",
                at,
            )),
            Builtin::JsonDumps => self.json_dumps(args, kwargs, at),
            Builtin::JsonLoads => self.json_loads(args, kwargs, at),
            Builtin::Getenv
            | Builtin::LoadDotenv
            | Builtin::PathJoin
            | Builtin::PathDirname
            | Builtin::PathBasename
            | Builtin::PathAbspath => self.call_os(builtin, args, kwargs, at),
            Builtin::Asdict => {
                if kwargs.iter().any(|(k, _)| k == "dict_factory") {
                    return Err(self.unsupported("`asdict(dict_factory=…)`", at));
                }
                let [Some(value)] = take(self.bind(name, args, kwargs, &["obj"], 1, at)?) else {
                    return Ok(RunValue::None);
                };
                if self.dataclass_of(&value).is_none() {
                    let message = "asdict() should be called on dataclass instances";
                    return Err(self.raise("TypeError", message, at));
                }
                self.asdict(&value, 0, at)
            }
            Builtin::Replace => self.dataclass_replace(&args, kwargs, at),
            Builtin::Suppress => {
                if let Some((key, _)) = kwargs.first() {
                    let message = format!("suppress() got an unexpected keyword argument '{key}'");
                    return Err(self.raise("TypeError", message, at));
                }
                Ok(RunValue::Native(Rc::new(super::net::Native::Suppress(args))))
            }
            Builtin::ParseQs
            | Builtin::ParseQsl
            | Builtin::Urlparse
            | Builtin::Urlsplit
            | Builtin::Urlencode
            | Builtin::Quote
            | Builtin::QuotePlus
            | Builtin::Unquote
            | Builtin::UnquotePlus => self.call_urllib(builtin, args, kwargs, at),
            Builtin::RequestsSession => {
                if !args.is_empty() || !kwargs.is_empty() {
                    return Err(self.raise("TypeError", "Session() takes no arguments", at));
                }
                Ok(self.new_session())
            }
            Builtin::HttpxClient => self.new_client(false, &args, kwargs, at),
            Builtin::HttpxAsyncClient => self.new_client(true, &args, kwargs, at),
            Builtin::Re(function) => self.re_call(function, args, kwargs, at),
            Builtin::TimeTime | Builtin::TimeSleep => self.call_time(builtin, args, &kwargs, at),
            Builtin::Abs => {
                let [value] = take(self.bind(name, args, kwargs, &["x"], 1, at)?);
                match value.unwrap_or(RunValue::None) {
                    RunValue::Float(x) => Ok(RunValue::Float(x.abs())),
                    RunValue::Temporal(t) if let Some(value) = self.temporal_abs(t, at)? => {
                        Ok(value)
                    }
                    v if v.as_int().is_some() => v
                        .as_int()
                        .and_then(i64::checked_abs)
                        .map(RunValue::Int)
                        .ok_or_else(|| self.overflow(at)),
                    other => {
                        let message =
                            format!("bad operand type for abs(): '{}'", self.type_name(&other));
                        Err(self.raise("TypeError", message, at))
                    }
                }
            }
            Builtin::Round => {
                let [value, digits] =
                    take(self.bind(name, args, kwargs, &["number", "ndigits"], 1, at)?);
                let digits = match digits {
                    None | Some(RunValue::None) => None,
                    Some(d) => Some(self.int_arg(&d, at)?),
                };
                self.round(&value.unwrap_or(RunValue::None), digits, at)
            }
            Builtin::Chr => {
                let [value] = take(self.bind(name, args, kwargs, &["i"], 1, at)?);
                let code = self.int_arg(&value.unwrap_or(RunValue::None), at)?;
                match u32::try_from(code).ok().and_then(char::from_u32) {
                    Some(c) => Ok(RunValue::str(&c.to_string())),
                    None => Err(self.raise("ValueError", "chr() arg not in range(0x110000)", at)),
                }
            }
            Builtin::Ord => {
                let [value] = take(self.bind(name, args, kwargs, &["c"], 1, at)?);
                let text = self.text_arg(name, &value.unwrap_or(RunValue::None), at)?;
                let mut chars = text.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Ok(RunValue::Int(i64::from(u32::from(c)))),
                    _ => {
                        let count = self.char_count(&text, at)?;
                        let message = format!(
                            "ord() expected a character, but string of length {count} found"
                        );
                        Err(self.raise("TypeError", message, at))
                    }
                }
            }
        }
    }

    fn round(&mut self, value: &RunValue, digits: Option<i64>, at: At) -> R<RunValue> {
        match (value, digits) {
            (RunValue::Float(x), None) => {
                self.finite_for_int(*x, at)?;
                let rounded = x.round_ties_even();
                if rounded.abs() >= 9.223_372_036_854_775e18 {
                    return Err(self.overflow(at));
                }
                #[allow(clippy::cast_possible_truncation)]
                Ok(RunValue::Int(rounded as i64))
            }
            (RunValue::Float(x), Some(d)) => {
                if !x.is_finite() {
                    return Ok(RunValue::Float(*x));
                }
                if d >= 0 {
                    let d = usize::try_from(d.min(320)).unwrap_or(0);
                    let text = format!("{x:.d$}");
                    Ok(RunValue::Float(text.parse().unwrap_or(*x)))
                } else {
                    let scale = 10f64.powi(i32::try_from(-d).unwrap_or(400).min(400));
                    Ok(RunValue::Float(if scale.is_infinite() {
                        0.0
                    } else {
                        (x / scale).round_ties_even() * scale
                    }))
                }
            }
            (v, digits) if v.as_int().is_some() => {
                let n = v.as_int().unwrap_or(0);
                match digits {
                    Some(d) if d < 0 => {
                        let Some(scale) = u32::try_from(-d).ok().and_then(|e| 10i64.checked_pow(e))
                        else {
                            return Ok(RunValue::Int(0));
                        };
                        let (q, r) = (n.div_euclid(scale), n.rem_euclid(scale));
                        let twice = r.saturating_mul(2);
                        let up = twice > scale || (twice == scale && q % 2 != 0);
                        let q = if up { q + 1 } else { q };
                        q.checked_mul(scale).map(RunValue::Int).ok_or_else(|| self.overflow(at))
                    }
                    _ => Ok(RunValue::Int(n)),
                }
            }
            (other, _) => {
                let message =
                    format!("type {} doesn't define __round__ method", self.type_name(other));
                Err(self.raise("TypeError", message, at))
            }
        }
    }

    fn isinstance(
        &mut self,
        value: &RunValue,
        classes: &RunValue,
        depth: usize,
        at: At,
    ) -> R<bool> {
        Ok(match classes {
            RunValue::Type(ty) => match ty {
                Ty::Int => matches!(value, RunValue::Int(_) | RunValue::Bool(_)),
                Ty::Float => matches!(value, RunValue::Float(_)),
                Ty::Bool => matches!(value, RunValue::Bool(_)),
                Ty::Str => matches!(value, RunValue::Str(_)),
                Ty::List => matches!(value, RunValue::List(_)),
                Ty::Tuple => matches!(value, RunValue::Tuple(_)),
                Ty::Dict => matches!(value, RunValue::Dict(_)),
                Ty::Set | Ty::FrozenSet => false,
                Ty::Bytes => matches!(value, RunValue::Bytes(_)),
            },
            RunValue::Model(index) => match value {
                RunValue::Object(object) => {
                    object.model.is_some_and(|m| self.model_derives(m, *index))
                }
                _ => false,
            },
            RunValue::ToolResult => {
                matches!(value, RunValue::Object(o) if o.model.is_none() && &*o.class == "ToolResult")
            }
            RunValue::ExcClass(class) => {
                matches!(value, RunValue::Exc(e) if self.is_subclass(&e.class, class))
            }
            RunValue::Class(class) => {
                matches!(value, RunValue::Instance(i) if self.class_derives(i.class, *class))
            }
            RunValue::TemporalClass(kind) => Self::temporal_isinstance(value, *kind),
            RunValue::Tuple(tuple) if depth < super::MAX_VALUE_DEPTH => {
                for class in &tuple.items {
                    if self.isinstance(value, class, depth + 1, at)? {
                        return Ok(true);
                    }
                }
                false
            }
            RunValue::Foreign(what) => {
                return Err(self.unsupported(&format!("`isinstance` with {what}"), at));
            }
            _ => {
                let message = "isinstance() arg 2 must be a type, a tuple of types, or a union";
                return Err(self.raise("TypeError", message, at));
            }
        })
    }

    /// Whether model `model` is `base` or inherits from it.
    fn model_derives(&self, model: usize, base: usize) -> bool {
        let program = self.program;
        let mut stack = vec![model];
        let mut visited = 0;
        while let Some(m) = stack.pop() {
            visited += 1;
            if m == base {
                return true;
            }
            if visited > 256 {
                return false;
            }
            if let Some(spec) = program.models.get(m) {
                stack.extend(spec.bases.iter().copied());
            }
        }
        false
    }

    fn min_max(
        &mut self,
        builtin: Builtin,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        let name = builtin.name();
        let mut key = None;
        let mut default = None;
        for (k, v) in kwargs {
            match k.as_str() {
                "key" => key = Some(v).filter(|v| !matches!(v, RunValue::None)),
                "default" => default = Some(v),
                _ => {
                    let message = format!("{name}() got an unexpected keyword argument '{k}'");
                    return Err(self.raise("TypeError", message, at));
                }
            }
        }
        let items = match args.len() {
            0 => {
                let message = format!("{name} expected at least 1 argument, got 0");
                return Err(self.raise("TypeError", message, at));
            }
            1 => self.collect(args.first().unwrap_or(&RunValue::None), at)?,
            _ => {
                if default.is_some() {
                    let message = format!(
                        "Cannot specify a default for {name}() with multiple positional arguments"
                    );
                    return Err(self.raise("TypeError", message, at));
                }
                args
            }
        };
        let mut best: Option<(RunValue, RunValue)> = None;
        for item in items {
            let k = match &key {
                Some(f) => self.call_value(f.clone(), vec![item.clone()], Vec::new(), at)?,
                None => item.clone(),
            };
            let better = match &best {
                None => true,
                Some((best_key, _)) if builtin == Builtin::Min => self.less(&k, best_key, at)?,
                Some((best_key, _)) => self.less(best_key, &k, at)?,
            };
            if better {
                best = Some((k, item));
            }
        }
        match (best, default) {
            (Some((_, item)), _) => Ok(item),
            (None, Some(default)) => Ok(default),
            (None, None) => {
                let message = format!("{name}() iterable argument is empty");
                Err(self.raise("ValueError", message, at))
            }
        }
    }

    /// A stable sort by `key` (a callable) with Python's `<`.
    pub(crate) fn sort(
        &mut self,
        items: Vec<RunValue>,
        key: Option<RunValue>,
        reverse: bool,
        at: At,
    ) -> R<Vec<RunValue>> {
        let keys = match key.filter(|k| !matches!(k, RunValue::None)) {
            Some(f) => {
                let mut keys = Vec::with_capacity(items.len());
                for item in &items {
                    keys.push(self.call_value(f.clone(), vec![item.clone()], Vec::new(), at)?);
                }
                keys
            }
            None => items.clone(),
        };
        let n = items.len();
        let mut order: Vec<usize> = (0..n).collect();
        let mut buffer = vec![0usize; n];
        let mut width = 1;
        while width < n {
            let mut start = 0;
            while start < n {
                let mid = (start + width).min(n);
                let end = (start + 2 * width).min(n);
                let (mut i, mut j, mut k) = (start, mid, start);
                while i < mid && j < end {
                    let (Some(&left), Some(&right)) = (order.get(i), order.get(j)) else { break };
                    let (Some(lk), Some(rk)) = (keys.get(left), keys.get(right)) else { break };
                    // Stability: take from the right run only when it strictly comes first.
                    let right_first =
                        if reverse { self.less(lk, rk, at)? } else { self.less(rk, lk, at)? };
                    if let Some(slot) = buffer.get_mut(k) {
                        *slot = if right_first { right } else { left };
                    }
                    if right_first {
                        j += 1;
                    } else {
                        i += 1;
                    }
                    k += 1;
                }
                for source in (i..mid).chain(j..end) {
                    if let (Some(slot), Some(&value)) = (buffer.get_mut(k), order.get(source)) {
                        *slot = value;
                    }
                    k += 1;
                }
                start = end;
            }
            std::mem::swap(&mut order, &mut buffer);
            self.charge(n, at)?;
            width *= 2;
        }
        let mut slots: Vec<Option<RunValue>> = items.into_iter().map(Some).collect();
        Ok(order.into_iter().filter_map(|i| slots.get_mut(i).and_then(Option::take)).collect())
    }

    // ----- methods -----

    /// `receiver.name(…)` for a str, list, dict or model.
    pub(crate) fn call_method(
        &mut self,
        receiver: &RunValue,
        name: &str,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        match receiver {
            RunValue::Native(native) => {
                let native = native.clone();
                self.native_method(receiver, &native, name, args, kwargs, at)
            }
            RunValue::Instance(instance) if self.is_handler(instance.class) => {
                match self.handler_method(receiver, name, &args, &kwargs, at)? {
                    Some(value) => Ok(value),
                    None => Err(self.unsupported(&format!("`BaseHTTPRequestHandler.{name}`"), at)),
                }
            }
            RunValue::Str(s) => self.str_method(s, name, args, kwargs, at),
            RunValue::Exc(exc) => self.exc_method(exc, name, args, &kwargs, at),
            // `object.__init__`, through `super()`.
            RunValue::Instance(_) if name == "__init__" => {
                if args.is_empty() && kwargs.is_empty() {
                    return Ok(RunValue::None);
                }
                let message =
                    "object.__init__() takes exactly one argument (the instance to initialize)";
                Err(self.raise("TypeError", message, at))
            }
            RunValue::Bytes(data) if name == "decode" => {
                let [encoding, errors] =
                    take(self.keyword_args(name, &["encoding", "errors"], args, kwargs, at)?);
                let encoding = self.codec_arg(name, "encoding", encoding, at)?;
                let errors = self.codec_arg(name, "errors", errors, at)?;
                Ok(RunValue::str(&self.decode(data, &encoding, &errors, at)?))
            }
            RunValue::List(list) => self.list_method(list, name, args, kwargs, at),
            RunValue::Dict(dict) => self.dict_method(dict, name, args, kwargs, at),
            RunValue::Pattern(_) | RunValue::Match(_) => {
                self.re_method(receiver, name, args, kwargs, at)
            }
            RunValue::Temporal(t) => self.temporal_method(*t, name, args, kwargs, at),
            RunValue::TemporalClass(kind) => {
                self.temporal_class_method(*kind, name, args, kwargs, at)
            }
            RunValue::Object(_) if name == "model_dump" => {
                let [mode, exclude_none] =
                    take(self.bind(name, args, kwargs, &["mode", "exclude_none"], 0, at)?);
                let exclude_none = exclude_none.is_some_and(|v| v.truthy());
                let dumped = self.dump(receiver, exclude_none, 0, at)?;
                match mode {
                    Some(RunValue::Str(m)) if &*m == "json" => {
                        let py = self.py_of(&dumped, 0, at)?;
                        self.run_value_of(&super::PyValue::from_json(&py.to_json()), 0, at)
                    }
                    Some(RunValue::Str(m)) if &*m == "python" => Ok(dumped),
                    None => Ok(dumped),
                    Some(other) => {
                        let message = format!(
                            "mode must be 'python' or 'json', not {}",
                            self.repr(&other, at)?
                        );
                        Err(self.raise("ValueError", message, at))
                    }
                }
            }
            other => {
                Err(self
                    .unsupported(&format!("the method `{}.{name}()`", self.type_name(other)), at))
            }
        }
    }

    /// pydantic's `model_dump()`: models become dicts, containers are copied.
    fn dump(&mut self, value: &RunValue, exclude_none: bool, depth: usize, at: At) -> R<RunValue> {
        if depth > super::MAX_VALUE_DEPTH {
            let message = "maximum recursion depth exceeded while dumping a model";
            return Err(self.raise("RecursionError", message, at));
        }
        self.charge(1, at)?;
        Ok(match value {
            RunValue::Object(object) if object.model.is_some() => {
                let mut entries = Vec::with_capacity(object.fields.len());
                for (name, field) in &object.fields {
                    if exclude_none && matches!(field, RunValue::None) {
                        continue;
                    }
                    entries.push((
                        RunValue::Str(name.clone()),
                        self.dump(field, exclude_none, depth + 1, at)?,
                    ));
                }
                self.new_dict(entries)
            }
            RunValue::List(list) => {
                let items = list.items.borrow().clone();
                let mut out = Vec::with_capacity(items.len());
                for item in &items {
                    out.push(self.dump(item, exclude_none, depth + 1, at)?);
                }
                self.new_list(out)
            }
            RunValue::Tuple(tuple) => {
                let mut out = Vec::with_capacity(tuple.items.len());
                for item in &tuple.items {
                    out.push(self.dump(item, exclude_none, depth + 1, at)?);
                }
                RunValue::tuple(out)
            }
            RunValue::Dict(dict) => {
                let entries = dict.entries.borrow().clone();
                let mut out = Vec::with_capacity(entries.len());
                for (key, item) in &entries {
                    out.push((key.clone(), self.dump(item, exclude_none, depth + 1, at)?));
                }
                self.new_dict(out)
            }
            other => other.clone(),
        })
    }

    fn str_method(
        &mut self,
        s: &Rc<str>,
        name: &str,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        self.charge(s.len(), at)?;
        let text: &str = s;
        let no_args = |interp: &Self,
                       args: Vec<RunValue>,
                       kwargs: Vec<(String, RunValue)>|
         -> R<()> { interp.bind(name, args, kwargs, &[], 0, at).map(|_| ()) };
        let string = |v: String| RunValue::str(&v);
        let boolean = |pred: &dyn Fn(char) -> bool| {
            RunValue::Bool(!text.is_empty() && text.chars().all(pred))
        };
        match name {
            "lower" | "upper" => {
                self.str_args(name, args, &kwargs, Arity::None, at)?;
                Ok(string(if name == "lower" { text.to_lowercase() } else { text.to_uppercase() }))
            }
            "casefold" => {
                no_args(self, args, kwargs)?;
                Ok(string(text.to_lowercase()))
            }
            "swapcase" => {
                no_args(self, args, kwargs)?;
                Ok(string(
                    text.chars()
                        .flat_map(|c| {
                            if c.is_uppercase() {
                                c.to_lowercase().collect::<Vec<_>>()
                            } else {
                                c.to_uppercase().collect::<Vec<_>>()
                            }
                        })
                        .collect(),
                ))
            }
            "title" => {
                no_args(self, args, kwargs)?;
                let mut out = String::with_capacity(text.len());
                let mut previous_cased = false;
                for c in text.chars() {
                    let cased = c.is_lowercase() || c.is_uppercase();
                    if cased && !previous_cased {
                        out.extend(c.to_uppercase());
                    } else if cased {
                        out.extend(c.to_lowercase());
                    } else {
                        out.push(c);
                    }
                    previous_cased = cased;
                }
                Ok(string(out))
            }
            "capitalize" => {
                no_args(self, args, kwargs)?;
                let mut chars = text.chars();
                let mut out: String =
                    chars.next().map(|c| c.to_uppercase().collect()).unwrap_or_default();
                out.push_str(&chars.as_str().to_lowercase());
                Ok(string(out))
            }
            "strip" | "lstrip" | "rstrip" => {
                let [chars] = take(self.str_args(name, args, &kwargs, Arity::Clinic(0, 1), at)?);
                let set: Option<Rc<str>> = match chars {
                    None | Some(RunValue::None) => None,
                    Some(RunValue::Str(set)) => Some(set),
                    Some(_) => {
                        let message = format!("{name} arg must be None or str");
                        return Err(self.raise("TypeError", message, at));
                    }
                };
                let matcher =
                    |c: char| set.as_ref().map_or_else(|| is_space(c), |set| set.contains(c));
                Ok(RunValue::str(match name {
                    "strip" => text.trim_matches(matcher),
                    "lstrip" => text.trim_start_matches(matcher),
                    _ => text.trim_end_matches(matcher),
                }))
            }
            "split" | "rsplit" => {
                let [sep, maxsplit] =
                    take(self.keyword_args(name, &["sep", "maxsplit"], args, kwargs, at)?);
                let limit = match maxsplit {
                    Some(m) => self.int_arg(&m, at)?,
                    None => -1,
                };
                let limit = usize::try_from(limit).ok();
                let parts = match sep {
                    None | Some(RunValue::None) => split_whitespace(text, limit, name == "rsplit"),
                    Some(RunValue::Str(sep)) => {
                        if sep.is_empty() {
                            return Err(self.raise("ValueError", "empty separator", at));
                        }
                        let mut parts: Vec<String> = match (limit, name == "rsplit") {
                            (None, _) => text.split(&*sep).map(str::to_owned).collect(),
                            (Some(n), false) => {
                                text.splitn(n.saturating_add(1), &*sep).map(str::to_owned).collect()
                            }
                            (Some(n), true) => text
                                .rsplitn(n.saturating_add(1), &*sep)
                                .map(str::to_owned)
                                .collect(),
                        };
                        if name == "rsplit" && limit.is_some() {
                            parts.reverse();
                        }
                        parts
                    }
                    Some(other) => {
                        let message =
                            format!("must be str or None, not {}", self.type_name(&other));
                        return Err(self.raise("TypeError", message, at));
                    }
                };
                let items = parts.iter().map(|p| RunValue::str(p)).collect();
                Ok(self.new_list(items))
            }
            "splitlines" => {
                let [keepends] = take(self.bind(name, args, kwargs, &["keepends"], 0, at)?);
                let keep = keepends.is_some_and(|k| k.truthy());
                let items = split_lines(text, keep).iter().map(|l| RunValue::str(l)).collect();
                Ok(self.new_list(items))
            }
            "join" => {
                let [iterable] = take(self.str_args(name, args, &kwargs, Arity::One, at)?);
                let iterable = iterable.unwrap_or(RunValue::None);
                if let Err(Signal::Raise(_)) = self.iter(&iterable, at) {
                    return Err(self.raise("TypeError", "can only join an iterable", at));
                }
                let items = self.collect(&iterable, at)?;
                let mut total = text.len().saturating_mul(items.len().saturating_sub(1));
                for (i, item) in items.iter().enumerate() {
                    match item {
                        RunValue::Str(part) => total = total.saturating_add(part.len()),
                        other => {
                            let message = format!(
                                "sequence item {i}: expected str instance, {} found",
                                self.type_name(other)
                            );
                            return Err(self.raise("TypeError", message, at));
                        }
                    }
                }
                if total > 4 * MAX_SIZE {
                    return Err(self.memory_error(at));
                }
                self.charge(total, at)?;
                let mut out = String::with_capacity(total);
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(text);
                    }
                    if let RunValue::Str(part) = item {
                        out.push_str(part);
                    }
                }
                self.check_str(&out, at)?;
                Ok(string(out))
            }
            "startswith" | "endswith" => {
                let [affix, start, end] =
                    take(self.str_args(name, args, &kwargs, Arity::VarArgs(1, 3), at)?);
                let index = |interp: &Self, bound: Option<RunValue>| -> R<Option<i64>> {
                    match bound {
                        None | Some(RunValue::None) => Ok(None),
                        Some(v) => v.as_int().map(Some).ok_or_else(|| {
                            let message = "slice indices must be integers or None or have an \
                                           __index__ method";
                            interp.raise("TypeError", message, at)
                        }),
                    }
                };
                let (start, end) = (index(self, start)?, index(self, end)?);
                // Byte offsets of the characters, for a text that is not ASCII.
                let offsets: Option<Vec<usize>> = (!text.is_ascii())
                    .then(|| text.char_indices().map(|(i, _)| i).chain([text.len()]).collect());
                let len = i64::try_from(self.char_count(text, at)?).unwrap_or(i64::MAX);
                let (affixes, in_tuple) = match affix.unwrap_or(RunValue::None) {
                    RunValue::Tuple(t) => (t.items.clone(), true),
                    other => (vec![other], false),
                };
                for affix in &affixes {
                    let affix = match affix {
                        RunValue::Str(a) => a.clone(),
                        other if in_tuple => {
                            let message = format!(
                                "tuple for {name} must only contain str, not {}",
                                self.type_name(other)
                            );
                            return Err(self.raise("TypeError", message, at));
                        }
                        other => {
                            let message = format!(
                                "{name} first arg must be str or a tuple of str, not {}",
                                self.type_name(other)
                            );
                            return Err(self.raise("TypeError", message, at));
                        }
                    };
                    self.charge(affix.len() + 1, at)?;
                    let affix_len = i64::try_from(affix.chars().count()).unwrap_or(i64::MAX);
                    let bounds = (start, end);
                    let from_end = name == "endswith";
                    if tail_match(
                        (text, offsets.as_deref()),
                        &affix,
                        (len, affix_len),
                        bounds,
                        from_end,
                    ) {
                        return Ok(RunValue::Bool(true));
                    }
                }
                Ok(RunValue::Bool(false))
            }
            "replace" => {
                let [old, new, count] =
                    take(self.str_args(name, args, &kwargs, Arity::Clinic(2, 3), at)?);
                let mut texts = Vec::with_capacity(2);
                for (i, value) in [old, new].into_iter().enumerate() {
                    match value.unwrap_or(RunValue::None) {
                        RunValue::Str(s) => texts.push(s),
                        other => {
                            let message = format!(
                                "replace() argument {} must be str, not {}",
                                i + 1,
                                self.type_name(&other)
                            );
                            return Err(self.raise("TypeError", message, at));
                        }
                    }
                }
                let [old, new] = <[Rc<str>; 2]>::try_from(texts)
                    .unwrap_or_else(|_| [Rc::from(""), Rc::from("")]);
                let count = match count {
                    Some(c) => usize::try_from(self.int_arg(&c, at)?).ok(),
                    None => None,
                };
                let occurrences = if old.is_empty() {
                    text.chars().count() + 1
                } else {
                    text.matches(&*old).count()
                };
                let occurrences = count.map_or(occurrences, |c| c.min(occurrences));
                let grown = text.len().saturating_add(occurrences.saturating_mul(new.len()));
                if grown > 4 * MAX_SIZE {
                    return Err(self.memory_error(at));
                }
                self.charge(grown, at)?;
                let out = match count {
                    Some(c) => text.replacen(&*old, &new, c),
                    None => text.replace(&*old, &new),
                };
                self.check_str(&out, at)?;
                Ok(string(out))
            }
            "find" | "rfind" | "index" | "rindex" | "count" => {
                let [sub] = take(self.bind(name, args, kwargs, &["sub"], 1, at)?);
                let sub = self.text_arg(name, &sub.unwrap_or(RunValue::None), at)?;
                if name == "count" {
                    let n = if sub.is_empty() {
                        text.chars().count() + 1
                    } else {
                        text.matches(&*sub).count()
                    };
                    return Ok(RunValue::Int(i64::try_from(n).unwrap_or(i64::MAX)));
                }
                let found =
                    if name.starts_with('r') { text.rfind(&*sub) } else { text.find(&*sub) };
                match found {
                    Some(byte) => {
                        let chars = text.get(..byte).map_or(0, |p| p.chars().count());
                        Ok(RunValue::Int(i64::try_from(chars).unwrap_or(i64::MAX)))
                    }
                    None if name.contains("index") => {
                        Err(self.raise("ValueError", "substring not found", at))
                    }
                    None => Ok(RunValue::Int(-1)),
                }
            }
            "isdigit" | "isdecimal" => {
                no_args(self, args, kwargs)?;
                Ok(boolean(&|c: char| c.is_ascii_digit() || (c.is_numeric() && !c.is_ascii())))
            }
            "isnumeric" => {
                no_args(self, args, kwargs)?;
                Ok(boolean(&char::is_numeric))
            }
            "isalpha" => {
                no_args(self, args, kwargs)?;
                Ok(boolean(&char::is_alphabetic))
            }
            "isalnum" => {
                no_args(self, args, kwargs)?;
                Ok(boolean(&char::is_alphanumeric))
            }
            "isspace" => {
                no_args(self, args, kwargs)?;
                Ok(boolean(&is_space))
            }
            "isascii" => {
                no_args(self, args, kwargs)?;
                Ok(RunValue::Bool(text.is_ascii()))
            }
            "isupper" | "islower" => {
                no_args(self, args, kwargs)?;
                let cased: Vec<char> =
                    text.chars().filter(|c| c.is_uppercase() || c.is_lowercase()).collect();
                let all = if name == "isupper" {
                    cased.iter().all(|c| c.is_uppercase())
                } else {
                    cased.iter().all(|c| c.is_lowercase())
                };
                Ok(RunValue::Bool(!cased.is_empty() && all))
            }
            "zfill" | "center" | "ljust" | "rjust" => {
                let names: &[&str] =
                    if name == "zfill" { &["width"] } else { &["width", "fillchar"] };
                let [width, fill] = take2(self.bind(name, args, kwargs, names, 1, at)?);
                let width = self.int_arg(&width.unwrap_or(RunValue::None), at)?;
                let width = usize::try_from(width).unwrap_or(0);
                if width > MAX_SIZE {
                    return Err(self.memory_error(at));
                }
                let fill = match fill {
                    Some(f) => {
                        let f = self.text_arg(name, &f, at)?;
                        let mut chars = f.chars();
                        match (chars.next(), chars.next()) {
                            (Some(c), None) => c,
                            _ => {
                                let message =
                                    "The fill character must be exactly one character long";
                                return Err(self.raise("TypeError", message, at));
                            }
                        }
                    }
                    None => {
                        if name == "zfill" {
                            '0'
                        } else {
                            ' '
                        }
                    }
                };
                let len = self.char_count(text, at)?;
                Ok(string(pad(text, len, width, fill, name)))
            }
            "encode" => {
                let [encoding, errors] =
                    take(self.keyword_args(name, &["encoding", "errors"], args, kwargs, at)?);
                let encoding = self.codec_arg(name, "encoding", encoding, at)?;
                let errors = self.codec_arg(name, "errors", errors, at)?;
                let data = self.encode(text, &encoding, &errors, at)?;
                Ok(RunValue::Bytes(data.into()))
            }
            "partition" | "rpartition" => {
                let [sep] = take(self.str_args(name, args, &kwargs, Arity::One, at)?);
                let sep = match sep.unwrap_or(RunValue::None) {
                    RunValue::Str(sep) => sep,
                    other => {
                        let message = format!("must be str, not {}", self.type_name(&other));
                        return Err(self.raise("TypeError", message, at));
                    }
                };
                if sep.is_empty() {
                    return Err(self.raise("ValueError", "empty separator", at));
                }
                let found = if name == "partition" { text.find(&*sep) } else { text.rfind(&*sep) };
                let parts = match found {
                    Some(i) => [
                        text.get(..i).unwrap_or_default(),
                        &*sep,
                        text.get(i + sep.len()..).unwrap_or_default(),
                    ],
                    None if name == "partition" => [text, "", ""],
                    None => ["", "", text],
                };
                Ok(RunValue::tuple(parts.iter().map(|p| RunValue::str(p)).collect()))
            }
            "removeprefix" | "removesuffix" => {
                let [affix] = take(self.bind(name, args, kwargs, &["affix"], 1, at)?);
                let affix = self.text_arg(name, &affix.unwrap_or(RunValue::None), at)?;
                let stripped = if name == "removeprefix" {
                    text.strip_prefix(&*affix)
                } else {
                    text.strip_suffix(&*affix)
                };
                Ok(RunValue::str(stripped.unwrap_or(text)))
            }
            "format" => {
                let out = self.str_format(text, &args, &kwargs, at)?;
                Ok(string(out))
            }
            _ => Err(self.unsupported(&format!("`str.{name}()`"), at)),
        }
    }

    fn list_method(
        &mut self,
        list: &Rc<ListObj>,
        name: &str,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        match name {
            "append" => {
                let [item] = take(self.bind(name, args, kwargs, &["object"], 1, at)?);
                self.extend_list(list, vec![item.unwrap_or(RunValue::None)], at)?;
                Ok(RunValue::None)
            }
            "extend" => {
                let [iterable] = take(self.bind(name, args, kwargs, &["iterable"], 1, at)?);
                let items = self.collect(&iterable.unwrap_or(RunValue::None), at)?;
                self.extend_list(list, items, at)?;
                Ok(RunValue::None)
            }
            "insert" => {
                let [index, item] =
                    take(self.bind(name, args, kwargs, &["index", "object"], 2, at)?);
                let index = self.int_arg(&index.unwrap_or(RunValue::None), at)?;
                let mut items = self.list_mut(list, at)?;
                if items.len() >= MAX_SIZE {
                    drop(items);
                    return Err(self.memory_error(at));
                }
                let len = i64::try_from(items.len()).unwrap_or(i64::MAX);
                let position =
                    if index < 0 { (index.saturating_add(len)).max(0) } else { index.min(len) };
                items
                    .insert(usize::try_from(position).unwrap_or(0), item.unwrap_or(RunValue::None));
                Ok(RunValue::None)
            }
            "pop" => {
                let [index] = take(self.bind(name, args, kwargs, &["index"], 0, at)?);
                let index = match index {
                    Some(i) => self.int_arg(&i, at)?,
                    None => -1,
                };
                let mut items = self.list_mut(list, at)?;
                if items.is_empty() {
                    drop(items);
                    return Err(self.raise("IndexError", "pop from empty list", at));
                }
                let len = i64::try_from(items.len()).unwrap_or(i64::MAX);
                let position = if index < 0 { index.saturating_add(len) } else { index };
                match usize::try_from(position).ok().filter(|&p| p < items.len()) {
                    Some(p) => Ok(items.remove(p)),
                    None => {
                        drop(items);
                        Err(self.raise("IndexError", "pop index out of range", at))
                    }
                }
            }
            "remove" | "index" | "count" => {
                let [item] = take(self.bind(name, args, kwargs, &["value"], 1, at)?);
                let item = item.unwrap_or(RunValue::None);
                let snapshot = list.items.borrow().clone();
                let mut matches = Vec::new();
                for (i, candidate) in snapshot.iter().enumerate() {
                    self.charge(1, at)?;
                    if super::ops::identical(candidate, &item) || self.eq(candidate, &item, at)? {
                        matches.push(i);
                        if name != "count" {
                            break;
                        }
                    }
                }
                match (name, matches.first()) {
                    ("count", _) => {
                        Ok(RunValue::Int(i64::try_from(matches.len()).unwrap_or(i64::MAX)))
                    }
                    ("index", Some(&i)) => Ok(RunValue::Int(i64::try_from(i).unwrap_or(i64::MAX))),
                    ("remove", Some(&i)) => {
                        let mut items = self.list_mut(list, at)?;
                        if i < items.len() {
                            items.remove(i);
                        }
                        Ok(RunValue::None)
                    }
                    ("index", None) => {
                        let message = format!("{} is not in list", self.repr(&item, at)?);
                        Err(self.raise("ValueError", message, at))
                    }
                    _ => Err(self.raise("ValueError", "list.remove(x): x not in list", at)),
                }
            }
            "sort" => {
                if !args.is_empty() {
                    return Err(self.raise(
                        "TypeError",
                        "sort() takes no positional arguments",
                        at,
                    ));
                }
                let [key, reverse] =
                    take(self.bind(name, args, kwargs, &["key", "reverse"], 0, at)?);
                let items = list.items.borrow().clone();
                let sorted = self.sort(items, key, reverse.is_some_and(|r| r.truthy()), at)?;
                *self.list_mut(list, at)? = sorted;
                Ok(RunValue::None)
            }
            "reverse" | "clear" | "copy" => {
                self.bind(name, args, kwargs, &[], 0, at)?;
                match name {
                    "copy" => {
                        let items = list.items.borrow().clone();
                        self.charge(items.len(), at)?;
                        Ok(self.new_list(items))
                    }
                    "reverse" => {
                        self.list_mut(list, at)?.reverse();
                        Ok(RunValue::None)
                    }
                    _ => {
                        let taken = std::mem::take(&mut *self.list_mut(list, at)?);
                        drop(taken);
                        Ok(RunValue::None)
                    }
                }
            }
            _ => Err(self.unsupported(&format!("`list.{name}()`"), at)),
        }
    }

    fn dict_method(
        &mut self,
        dict: &Rc<DictObj>,
        name: &str,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        match name {
            "get" => {
                let [key, default] =
                    take(self.bind(name, args, kwargs, &["key", "default"], 1, at)?);
                let key = key.unwrap_or(RunValue::None);
                let entries = dict.entries.borrow();
                match self.find_key(&entries, &key, at)? {
                    Some(i) => Ok(entries.get(i).map_or(RunValue::None, |(_, v)| v.clone())),
                    None => Ok(default.unwrap_or(RunValue::None)),
                }
            }
            "setdefault" => {
                let [key, default] =
                    take(self.bind(name, args, kwargs, &["key", "default"], 1, at)?);
                let key = key.unwrap_or(RunValue::None);
                let found = {
                    let entries = dict.entries.borrow();
                    self.find_key(&entries, &key, at)?
                        .and_then(|i| entries.get(i).map(|(_, v)| v.clone()))
                };
                match found {
                    Some(value) => Ok(value),
                    None => {
                        let value = default.unwrap_or(RunValue::None);
                        self.dict_set(dict, key, value.clone(), at)?;
                        Ok(value)
                    }
                }
            }
            "pop" => {
                let has_default = args.len() > 1 || kwargs.iter().any(|(k, _)| k == "default");
                let [key, default] =
                    take(self.bind(name, args, kwargs, &["key", "default"], 1, at)?);
                let key = key.unwrap_or(RunValue::None);
                let found = {
                    let entries = dict.entries.borrow();
                    self.find_key(&entries, &key, at)?
                };
                match found {
                    Some(i) => {
                        let mut entries = dict.entries.try_borrow_mut().map_err(|_| {
                            self.raise("RuntimeError", "dictionary changed during iteration", at)
                        })?;
                        self.charge(entries.len(), at)?;
                        Ok(if i < entries.len() { entries.remove(i).1 } else { RunValue::None })
                    }
                    None if has_default => Ok(default.unwrap_or(RunValue::None)),
                    None => Err(self.raise_with("KeyError", vec![key], at)),
                }
            }
            "popitem" => {
                self.bind(name, args, kwargs, &[], 0, at)?;
                let popped = dict.entries.try_borrow_mut().ok().and_then(|mut e| e.pop());
                match popped {
                    Some((key, value)) => Ok(RunValue::tuple(vec![key, value])),
                    None => Err(self.raise("KeyError", "popitem(): dictionary is empty", at)),
                }
            }
            "items" | "keys" | "values" | "copy" | "clear" => {
                self.bind(name, args, kwargs, &[], 0, at)?;
                let entries = dict.entries.borrow().clone();
                self.charge(entries.len(), at)?;
                match name {
                    "items" => {
                        let items =
                            entries.into_iter().map(|(k, v)| RunValue::tuple(vec![k, v])).collect();
                        Ok(self.new_list(items))
                    }
                    "keys" => Ok(self.new_list(entries.into_iter().map(|(k, _)| k).collect())),
                    "values" => Ok(self.new_list(entries.into_iter().map(|(_, v)| v).collect())),
                    "copy" => Ok(self.new_dict(entries)),
                    _ => {
                        drop(entries);
                        if let Ok(mut current) = dict.entries.try_borrow_mut() {
                            let taken = std::mem::take(&mut *current);
                            drop(current);
                            drop(taken);
                        }
                        Ok(RunValue::None)
                    }
                }
            }
            "update" => {
                if args.len() > 1 {
                    let message = format!("update expected at most 1 argument, got {}", args.len());
                    return Err(self.raise("TypeError", message, at));
                }
                if let Some(source) = args.into_iter().next() {
                    self.update(dict, &source, at)?;
                }
                for (key, value) in kwargs {
                    self.dict_set(dict, RunValue::str(&key), value, at)?;
                }
                Ok(RunValue::None)
            }
            _ => Err(self.unsupported(&format!("`dict.{name}()`"), at)),
        }
    }
}

/// The bound arguments as an array of the expected length.
fn take<const N: usize>(values: Vec<Option<RunValue>>) -> [Option<RunValue>; N] {
    let mut out: [Option<RunValue>; N] = std::array::from_fn(|_| None);
    for (slot, value) in out.iter_mut().zip(values) {
        *slot = value;
    }
    out
}

/// Two bound arguments, the second optional in the parameter list.
fn take2(values: Vec<Option<RunValue>>) -> [Option<RunValue>; 2] {
    take(values)
}

/// `str.split()` / `str.rsplit()` without a separator.
fn split_whitespace(text: &str, limit: Option<usize>, from_right: bool) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    if from_right {
        let mut rest = text.trim_end_matches(is_space);
        loop {
            if rest.is_empty() {
                break;
            }
            if limit.is_some_and(|l| parts.len() >= l) {
                parts.push(rest.to_owned());
                break;
            }
            match rest.rfind(is_space) {
                Some(i) => {
                    let c = rest.get(i..).and_then(|s| s.chars().next()).map_or(1, char::len_utf8);
                    parts.push(rest.get(i + c..).unwrap_or_default().to_owned());
                    rest = rest.get(..i).unwrap_or_default().trim_end_matches(is_space);
                }
                None => {
                    parts.push(rest.to_owned());
                    break;
                }
            }
        }
        parts.reverse();
        return parts;
    }
    let mut rest = text.trim_start_matches(is_space);
    loop {
        if rest.is_empty() {
            break;
        }
        if limit.is_some_and(|l| parts.len() >= l) {
            parts.push(rest.to_owned());
            break;
        }
        match rest.find(is_space) {
            Some(i) => {
                parts.push(rest.get(..i).unwrap_or_default().to_owned());
                rest = rest.get(i..).unwrap_or_default().trim_start_matches(is_space);
            }
            None => {
                parts.push(rest.to_owned());
                break;
            }
        }
    }
    parts
}

/// `str.splitlines()`.
fn split_lines(text: &str, keep_ends: bool) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let is_break = matches!(
            c,
            '\n' | '\r'
                | '\u{b}'
                | '\u{c}'
                | '\u{1c}'
                | '\u{1d}'
                | '\u{1e}'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        );
        if !is_break {
            current.push(c);
            continue;
        }
        let mut ending = c.to_string();
        if c == '\r' && chars.peek() == Some(&'\n') {
            chars.next();
            ending.push('\n');
        }
        if keep_ends {
            current.push_str(&ending);
        }
        lines.push(std::mem::take(&mut current));
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

/// `zfill`, `center`, `ljust`, `rjust` of a text of `len` characters.
fn pad(text: &str, len: usize, width: usize, fill: char, how: &str) -> String {
    if width <= len {
        return text.to_owned();
    }
    let margin = width - len;
    let fills = |n: usize| std::iter::repeat_n(fill, n).collect::<String>();
    match how {
        "ljust" => format!("{text}{}", fills(margin)),
        "rjust" => format!("{}{text}", fills(margin)),
        "center" => {
            let left = margin / 2 + (margin & width & 1);
            format!("{}{text}{}", fills(left), fills(margin - left))
        }
        _ => {
            let (sign, digits) = match text.chars().next() {
                Some(c @ ('+' | '-')) => (c.to_string(), text.get(1..).unwrap_or_default()),
                _ => (String::new(), text),
            };
            format!("{sign}{}{digits}", fills(margin))
        }
    }
}
