//! The `re` module on the `regex-lite` engine: `compile`, `search`, `match`,
//! `fullmatch`, `findall`, `finditer` (a list), `sub`, `subn`, `split`, `escape`, the
//! flags, `re.error`, and the pattern and match objects with CPython's methods, messages
//! and reprs.
//!
//! A pattern is read as CPython reads it and translated ([`super::re_syntax`]); what
//! regex-lite cannot express stops the run with a diagnostic at the pattern's token (at
//! the construct itself when the pattern is a plain or raw literal). Python's `\d`, `\w`,
//! `\s`, `\b` and `re.IGNORECASE` are Unicode-aware without `re.ASCII` and regex-lite's
//! are ASCII-only: they agree on ASCII subjects, so a non-ASCII subject with one of them
//! stops the run and says why. Iteration follows CPython 3.7's rule for empty matches
//! (one may follow a non-empty match; after an empty one the next must move on); where
//! CPython would then take a longer match at the same place, which regex-lite cannot
//! ask for, the run stops.
//!
//! Compiled patterns are kept in a small cache keyed by pattern and flags (the last
//! [`CACHE_SIZE`], per thread, from one run to the next), as CPython keeps its own. Work
//! is charged the same with or without the cache: translating
//! charges the pattern's length and compiled size, each search the part of the subject
//! it reads times the compiled size (all of what remains when the engine may read past
//! a match), so the step limit bounds every call.

use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

use regex_lite::{Regex, RegexBuilder};

use super::ast::At;
use super::eval::{Interp, R};
use super::re_syntax::{
    self, ASCII, Anchor, DOTALL, Fault, IGNORECASE, LOCALE, MULTILINE, TemplateFault, TemplatePart,
    Translation, UNICODE, VERBOSE,
};
use super::runtime::RunValue;
use super::value::repr_str;

/// The functions of `re` the subset runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReFn {
    Compile,
    Search,
    Match,
    Fullmatch,
    Findall,
    Finditer,
    Sub,
    Subn,
    Split,
    Escape,
}

impl ReFn {
    /// The function's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            ReFn::Compile => "compile",
            ReFn::Search => "search",
            ReFn::Match => "match",
            ReFn::Fullmatch => "fullmatch",
            ReFn::Findall => "findall",
            ReFn::Finditer => "finditer",
            ReFn::Sub => "sub",
            ReFn::Subn => "subn",
            ReFn::Split => "split",
            ReFn::Escape => "escape",
        }
    }

    /// The function named `name`.
    pub(crate) fn named(name: &str) -> Option<ReFn> {
        FUNCTIONS.iter().copied().find(|f| f.name() == name)
    }
}

const FUNCTIONS: [ReFn; 10] = [
    ReFn::Compile,
    ReFn::Search,
    ReFn::Match,
    ReFn::Fullmatch,
    ReFn::Findall,
    ReFn::Finditer,
    ReFn::Sub,
    ReFn::Subn,
    ReFn::Split,
    ReFn::Escape,
];

/// The flags as `re`'s attributes.
const FLAGS: [(&str, i64); 15] = [
    ("IGNORECASE", IGNORECASE),
    ("I", IGNORECASE),
    ("MULTILINE", MULTILINE),
    ("M", MULTILINE),
    ("DOTALL", DOTALL),
    ("S", DOTALL),
    ("ASCII", ASCII),
    ("A", ASCII),
    ("VERBOSE", VERBOSE),
    ("X", VERBOSE),
    ("UNICODE", UNICODE),
    ("U", UNICODE),
    ("LOCALE", LOCALE),
    ("L", LOCALE),
    ("NOFLAG", 0),
];

/// `re`'s other names: known, so using one is outside the subset rather than an
/// `AttributeError`.
const OTHER_NAMES: [&str; 10] = [
    "purge",
    "template",
    "Pattern",
    "Match",
    "RegexFlag",
    "Scanner",
    "DEBUG",
    "T",
    "TEMPLATE",
    "PatternError",
];

/// The attributes of `re.error` beyond `args`, which the subset does not keep.
pub(crate) const ERROR_ATTRS: [&str; 5] = ["msg", "pattern", "pos", "lineno", "colno"];

/// Flags in the order CPython's `Pattern.__repr__` names them.
const REPR_FLAGS: [(&str, i64); 7] = [
    ("re.IGNORECASE", IGNORECASE),
    ("re.LOCALE", LOCALE),
    ("re.MULTILINE", MULTILINE),
    ("re.DOTALL", DOTALL),
    ("re.UNICODE", UNICODE),
    ("re.VERBOSE", VERBOSE),
    ("re.ASCII", ASCII),
];

/// Largest compiled program regex-lite may build for one pattern, in bytes.
const PROGRAM_LIMIT: usize = 1 << 20;

/// Patterns kept compiled between calls.
const CACHE_SIZE: usize = 32;

/// A pattern, translated, with its regex-lite programs compiled on first use: one per
/// anchoring, reading of `$` and emptiness of the subject ([`Translation::source`]).
pub(crate) struct Compiled {
    pub(crate) pattern: Rc<str>,
    pub(crate) translation: Translation,
    programs: [OnceCell<Result<Regex, String>>; 16],
}

/// A `re.Match`: the subject, the bounds searched and each group's span.
pub(crate) struct MatchObj {
    pub(crate) compiled: Rc<Compiled>,
    pub(crate) string: Rc<str>,
    pos: usize,
    endpos: usize,
    /// Each group's span in characters and in bytes; `None` for a group that did not
    /// take part.
    spans: Vec<Option<Span>>,
}

/// Where a group matched, in characters and in bytes.
#[derive(Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    byte_start: usize,
    byte_end: usize,
}

/// A cached pattern: its text and flags, compiled.
type Cached = (Rc<str>, i64, Rc<Compiled>);

/// Each group's byte span in the subject, `None` for a group that did not take part.
type Groups = Vec<Option<(usize, usize)>>;

thread_local! {
    static CACHE: RefCell<Vec<Cached>> = const { RefCell::new(Vec::new()) };
}

/// The byte offset of each character of a subject, for CPython's character positions.
struct Offsets {
    /// `None` for an ASCII subject, where they are the same.
    bytes: Option<Vec<usize>>,
    len: usize,
}

impl Offsets {
    fn new(text: &str) -> Offsets {
        if text.is_ascii() {
            return Offsets { bytes: None, len: text.len() };
        }
        let mut bytes: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        let len = bytes.len();
        bytes.push(text.len());
        Offsets { bytes: Some(bytes), len }
    }

    fn byte(&self, char_index: usize) -> usize {
        match &self.bytes {
            None => char_index,
            Some(bytes) => bytes.get(char_index).copied().unwrap_or(usize::MAX),
        }
    }

    fn char(&self, byte: usize) -> usize {
        match &self.bytes {
            None => byte,
            Some(bytes) => bytes.partition_point(|b| *b < byte),
        }
    }
}

/// One subject being searched: its text up to `endpos`, and its offsets.
struct Subject {
    string: Rc<str>,
    /// The byte where the searched text ends (`endpos`).
    end: usize,
    offsets: Offsets,
    /// Read `$` as multi-line for this subject ([`Translation::source`]).
    last_line: bool,
}

impl Subject {
    fn text(&self) -> &str {
        self.string.get(..self.end).unwrap_or_default()
    }
}

/// The subject argument of a call: its value, its place among the arguments, and
/// whether the call has the pattern as an argument too (a function of `re`, where a
/// refusal points into the pattern; a method's points at the subject).
struct Arg {
    value: RunValue,
    index: usize,
    pattern: bool,
}

/// Which regex-lite program: its anchoring, its reading of `$`, and whether the subject
/// is empty ([`Translation::source`]).
fn program_index(anchor: Anchor, last_line: bool, empty: bool) -> usize {
    let kind = match anchor {
        Anchor::None => 0,
        Anchor::Start => 1,
        Anchor::Both => 2,
        Anchor::End => 3,
    };
    kind + if last_line { 4 } else { 0 } + if empty { 8 } else { 0 }
}

/// `re.compile('…', re.FLAGS)` as CPython writes it.
fn pattern_repr(compiled: &Compiled) -> String {
    let mut text = String::new();
    repr_str(&compiled.pattern, &mut text);
    let text = truncate(&text, 200);
    let mut flags = compiled.translation.flags;
    if flags & (LOCALE | UNICODE | ASCII) == UNICODE {
        flags &= !UNICODE;
    }
    let names: Vec<&str> =
        REPR_FLAGS.iter().filter(|(_, bit)| flags & bit != 0).map(|(name, _)| *name).collect();
    let rest = flags & !REPR_FLAGS.iter().fold(0, |all, (_, bit)| all | bit);
    let mut out = format!("re.compile({text}");
    if !names.is_empty() || rest != 0 {
        out.push_str(", ");
        out.push_str(&names.join("|"));
        if rest != 0 {
            if !names.is_empty() {
                out.push('|');
            }
            out.push_str(&format!("0x{rest:x}"));
        }
    }
    out.push(')');
    out
}

/// The first `chars` characters of `text` (CPython's `%.Nr`).
fn truncate(text: &str, chars: usize) -> &str {
    match text.char_indices().nth(chars) {
        Some((i, _)) => text.get(..i).unwrap_or(text),
        None => text,
    }
}

impl Interp<'_, '_> {
    // ----- the module -----

    /// `re.name`, or `None` when `re` has no such attribute.
    pub(crate) fn re_attr(&self, name: &str, at: At) -> R<Option<RunValue>> {
        if let Some(function) = ReFn::named(name) {
            return Ok(Some(RunValue::Builtin(super::runtime::Builtin::Re(function))));
        }
        if let Some((_, bit)) = FLAGS.iter().find(|(n, _)| *n == name) {
            return Ok(Some(RunValue::Int(*bit)));
        }
        if name == "error" {
            return Ok(Some(RunValue::ExcClass(Rc::from("error"))));
        }
        if OTHER_NAMES.contains(&name) || name.starts_with("__") {
            return Err(self.unsupported(&format!("`re.{name}`"), at));
        }
        Ok(None)
    }

    /// A call of one of `re`'s functions.
    pub(crate) fn re_call(
        &mut self,
        function: ReFn,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        let name = function.name();
        let (params, required): (&[&str], usize) = match function {
            ReFn::Compile => (&["pattern", "flags"], 1),
            ReFn::Search | ReFn::Match | ReFn::Fullmatch | ReFn::Findall | ReFn::Finditer => {
                (&["pattern", "string", "flags"], 2)
            }
            ReFn::Sub | ReFn::Subn => (&["pattern", "repl", "string", "count", "flags"], 3),
            ReFn::Split => (&["pattern", "string", "maxsplit", "flags"], 2),
            ReFn::Escape => (&["pattern"], 1),
        };
        let mut values = self.python_args(name, params, required, args, kwargs, at)?;
        let mut take = |param: &str| {
            params.iter().position(|p| *p == param).and_then(|i| values.get_mut(i)?.take())
        };
        if function == ReFn::Escape {
            let pattern = take("pattern").unwrap_or(RunValue::None);
            return match &pattern {
                RunValue::Str(s) => {
                    self.charge(s.len(), at)?;
                    let out = re_syntax::escape(s);
                    self.check_str(&out, at)?;
                    Ok(RunValue::str(&out))
                }
                RunValue::Bytes(_) => Err(self.unsupported("`re.escape()` of bytes", at)),
                other => {
                    let message = format!(
                        "decoding to str: need a bytes-like object, {} found",
                        self.type_name(other)
                    );
                    Err(self.raise("TypeError", message, at))
                }
            };
        }
        let pattern = take("pattern").unwrap_or(RunValue::None);
        let flags = match take("flags") {
            Some(flags) => self.re_int(&flags, at)?,
            None => 0,
        };
        let string = take("string");
        let repl = take("repl");
        let count = match take("count").or_else(|| take("maxsplit")) {
            Some(count) => self.re_int(&count, at)?,
            None => 0,
        };
        let compiled = self.re_compile_arg(&pattern, flags, (0, "pattern"), at)?;
        if function == ReFn::Compile {
            return Ok(RunValue::Pattern(compiled));
        }
        let string_index = if matches!(function, ReFn::Sub | ReFn::Subn) { 2 } else { 1 };
        let string = string.unwrap_or(RunValue::None);
        let subject = Arg { value: string, index: string_index, pattern: true };
        match function {
            ReFn::Search | ReFn::Match | ReFn::Fullmatch => {
                let anchor = match function {
                    ReFn::Search => Anchor::None,
                    ReFn::Match => Anchor::Start,
                    _ => Anchor::Both,
                };
                self.re_one(&compiled, &subject, None, None, anchor, at)
            }
            ReFn::Findall => self.re_findall(&compiled, &subject, None, None, at),
            ReFn::Finditer => self.re_finditer(&compiled, &subject, None, None, at),
            ReFn::Sub | ReFn::Subn => {
                let repl = repl.unwrap_or(RunValue::None);
                self.re_sub(&compiled, &repl, &subject, count, function == ReFn::Subn, at)
            }
            _ => self.re_split(&compiled, &subject, count, at),
        }
    }

    /// Binds the arguments of a function of `re` (Python functions, with their messages).
    fn python_args(
        &self,
        name: &str,
        params: &[&str],
        required: usize,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<Vec<Option<RunValue>>> {
        if args.len() > params.len() {
            let message = if required == params.len() {
                format!(
                    "{name}() takes {} positional argument{} but {} {} given",
                    params.len(),
                    super::eval::plural(params.len()),
                    args.len(),
                    if args.len() == 1 { "was" } else { "were" }
                )
            } else {
                format!(
                    "{name}() takes from {required} to {} positional arguments but {} were given",
                    params.len(),
                    args.len()
                )
            };
            return Err(self.raise("TypeError", message, at));
        }
        let mut values: Vec<Option<RunValue>> = args.into_iter().map(Some).collect();
        values.resize(params.len(), None);
        for (key, value) in kwargs {
            let Some(i) = params.iter().position(|p| *p == key) else {
                let message = format!("{name}() got an unexpected keyword argument '{key}'");
                return Err(self.raise("TypeError", message, at));
            };
            match values.get_mut(i) {
                Some(slot @ None) => *slot = Some(value),
                _ => {
                    let message = format!("{name}() got multiple values for argument '{key}'");
                    return Err(self.raise("TypeError", message, at));
                }
            }
        }
        let missing: Vec<String> = params
            .iter()
            .zip(&values)
            .take(required)
            .filter(|(_, v)| v.is_none())
            .map(|(p, _)| format!("'{p}'"))
            .collect();
        if !missing.is_empty() {
            let list = match missing.as_slice() {
                [one] => one.clone(),
                [a, b] => format!("{a} and {b}"),
                [rest @ .., last] => format!("{}, and {last}", rest.join(", ")),
                [] => String::new(),
            };
            let message = format!(
                "{name}() missing {} required positional argument{}: {list}",
                missing.len(),
                super::eval::plural(missing.len())
            );
            return Err(self.raise("TypeError", message, at));
        }
        Ok(values)
    }

    /// Binds the arguments of a method of a pattern or match (Argument Clinic's rules and
    /// messages).
    fn method_args(
        &self,
        name: &str,
        params: &[&str],
        required: usize,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<Vec<Option<RunValue>>> {
        let given = args.len() + kwargs.len();
        if given > params.len() {
            let message = format!(
                "{name}() takes at most {} argument{} ({given} given)",
                params.len(),
                super::eval::plural(params.len())
            );
            return Err(self.raise("TypeError", message, at));
        }
        let mut values: Vec<Option<RunValue>> = args.into_iter().map(Some).collect();
        values.resize(params.len(), None);
        for (key, value) in kwargs {
            let Some(i) = params.iter().position(|p| *p == key) else {
                let message = format!("'{key}' is an invalid keyword argument for {name}()");
                return Err(self.raise("TypeError", message, at));
            };
            match values.get_mut(i) {
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
        for (i, param) in params.iter().enumerate().take(required) {
            if values.get(i).is_none_or(Option::is_none) {
                let message =
                    format!("{name}() missing required argument '{param}' (pos {})", i + 1);
                return Err(self.raise("TypeError", message, at));
            }
        }
        Ok(values)
    }

    fn re_int(&self, value: &RunValue, at: At) -> R<i64> {
        value.as_int().ok_or_else(|| {
            let message =
                format!("'{}' object cannot be interpreted as an integer", self.type_name(value));
            self.raise("TypeError", message, at)
        })
    }

    /// The compiled pattern of a `pattern` argument: a pattern object, or a `str`
    /// translated (through the cache). `arg` is the argument's place in the call, for the
    /// diagnostics.
    fn re_compile_arg(
        &mut self,
        pattern: &RunValue,
        flags: i64,
        arg: (usize, &str),
        at: At,
    ) -> R<Rc<Compiled>> {
        match pattern {
            RunValue::Pattern(compiled) => {
                if flags != 0 {
                    let message = "cannot process flags argument with a compiled pattern";
                    return Err(self.raise("ValueError", message, at));
                }
                Ok(compiled.clone())
            }
            RunValue::Str(text) => self.re_compile(text, flags, arg, at),
            RunValue::Bytes(_) => Err(self.unsupported("a bytes pattern", self.arg_at(at, arg))),
            _ => Err(self.raise(
                "TypeError",
                "first argument must be string or compiled pattern",
                at,
            )),
        }
    }

    fn re_compile(
        &mut self,
        text: &Rc<str>,
        flags: i64,
        arg: (usize, &str),
        at: At,
    ) -> R<Rc<Compiled>> {
        self.charge(text.len(), at)?;
        if flags & re_syntax::DEBUG != 0 {
            return Err(self.unsupported("`re.DEBUG` (it prints)", at));
        }
        let cached = CACHE.with(|cache| {
            cache
                .borrow()
                .iter()
                .find(|(p, f, _)| *f == flags && **p == **text)
                .map(|(_, _, compiled)| compiled.clone())
        });
        if let Some(compiled) = cached {
            self.charge(compiled.translation.weight, at)?;
            return Ok(compiled);
        }
        let translation = match re_syntax::translate(text, flags) {
            Ok(translation) => translation,
            Err(Fault::Error(message)) => return Err(self.raise("error", message, at)),
            Err(Fault::Raise(class, message)) => return Err(self.raise(class, message, at)),
            Err(Fault::Refused { what, start, len }) => {
                let place = self.construct_at(self.arg_at(at, arg), start, len);
                let what = format!("{what} in a regular expression (regex-lite has none)");
                return Err(self.unsupported(&what, place));
            }
            Err(Fault::TooDeep(start)) => {
                let place = self.construct_at(self.arg_at(at, arg), start, 1);
                let message = format!(
                    "a regular expression with groups nested more than {} deep is beyond what \
                     Swap Lab runs",
                    re_syntax::MAX_GROUP_NESTING
                );
                return Err(self.stop(super::LIMIT, message, place));
            }
        };
        self.charge(translation.weight, at)?;
        let compiled =
            Rc::new(Compiled { pattern: text.clone(), translation, programs: Default::default() });
        CACHE.with(|cache| {
            let mut cache = cache.borrow_mut();
            if cache.len() >= CACHE_SIZE {
                cache.remove(0);
            }
            cache.push((text.clone(), flags, compiled.clone()));
        });
        Ok(compiled)
    }

    /// The regex-lite program for this anchoring and reading of `$`, compiled once.
    fn re_program<'c>(
        &self,
        compiled: &'c Compiled,
        anchor: Anchor,
        (last_line, empty): (bool, bool),
        at: At,
    ) -> R<&'c Regex> {
        let index = program_index(anchor, last_line, empty);
        let Some(cell) = compiled.programs.get(index) else {
            return Err(self.unsupported("this regular expression", at));
        };
        let program = cell.get_or_init(|| {
            let source = compiled.translation.source(last_line, empty, anchor);
            RegexBuilder::new(&source)
                .size_limit(PROGRAM_LIMIT)
                .nest_limit(4 * u32::try_from(re_syntax::MAX_GROUP_NESTING).unwrap_or(50) + 20)
                .build()
                .map_err(|e| e.to_string())
        });
        program.as_ref().map_err(|error| {
            let message = format!(
                "this regular expression is beyond what regex-lite compiles ({error}); Swap Lab \
                 cannot run it"
            );
            self.stop(super::LIMIT, message, at)
        })
    }

    // ----- searching -----

    /// Checks a subject against what the pattern can match on it, and prepares it:
    /// `value` must be a `str`; `pos` and `endpos` bound it (in characters).
    fn re_subject(
        &mut self,
        compiled: &Compiled,
        value: &Arg,
        pos: Option<i64>,
        endpos: Option<i64>,
        at: At,
    ) -> R<(Subject, usize)> {
        let string = match &value.value {
            RunValue::Str(s) => s.clone(),
            RunValue::Bytes(_) => {
                let message = "cannot use a string pattern on a bytes-like object";
                return Err(self.raise("TypeError", message, at));
            }
            other => {
                let message = format!(
                    "expected string or bytes-like object, got '{}'",
                    self.type_name(other)
                );
                return Err(self.raise("TypeError", message, at));
            }
        };
        self.charge(string.len(), at)?;
        let offsets = Offsets::new(&string);
        let clamp = |n: i64| usize::try_from(n.max(0)).unwrap_or(usize::MAX).min(offsets.len);
        let end = clamp(endpos.unwrap_or(i64::MAX));
        let start = clamp(pos.unwrap_or(0));
        let end_byte = offsets.byte(end);
        let text = string.get(..end_byte).unwrap_or_default();
        let translation = &compiled.translation;
        if !text.is_ascii() {
            let sensitive =
                translation.unicode_class.as_ref().or(translation.fold_unicode.as_ref());
            if let Some(sensitive) = sensitive {
                let what = if sensitive.what.starts_with('\\') {
                    format!(
                        "`{}` without re.ASCII on a str with non-ASCII characters (CPython's \
                         `{0}` is Unicode-aware, regex-lite's ASCII-only)",
                        sensitive.what
                    )
                } else {
                    format!(
                        "`{}` without re.ASCII on a str with non-ASCII characters (CPython \
                         folds Unicode case, regex-lite only ASCII)",
                        sensitive.what
                    )
                };
                let place = if value.pattern {
                    self.construct_at(
                        self.arg_at(at, (0, "pattern")),
                        sensitive.start,
                        sensitive.len,
                    )
                } else {
                    self.arg_at(at, (value.index, "string"))
                };
                return Err(self.unsupported(&what, place));
            }
        }
        if let Some(fold) = &translation.fold_unicode
            && translation.folds_to_ascii
        {
            let what = format!(
                "`{}` without re.ASCII with `İ`, `ı`, `ſ` or the Kelvin sign in the pattern \
                 (CPython folds them to ASCII letters, regex-lite does not)",
                fold.what
            );
            return Err(self.unsupported(&what, at));
        }
        let last_line = translation.has_dollar() && text.ends_with('\n');
        if last_line && text.bytes().filter(|b| *b == b'\n').count() > 1 {
            let what = "`$` without re.MULTILINE on a str of several lines that ends with a \
                        newline (CPython matches it before the last newline; use `\\Z` or \
                        re.MULTILINE)";
            return Err(self.unsupported(what, self.arg_at(at, (value.index, "string"))));
        }
        let start_byte = offsets.byte(start).min(end_byte);
        Ok((Subject { string, end: end_byte, offsets, last_line }, start_byte))
    }

    /// One search from `start` (a byte offset), anchored as asked. With `must_advance`,
    /// an empty match at `start` does not count (CPython's rule after an empty match).
    /// Returns each group's byte span.
    fn re_search(
        &mut self,
        compiled: &Compiled,
        subject: &Subject,
        start: usize,
        anchor: Anchor,
        must_advance: bool,
        at: At,
    ) -> R<Option<Groups>> {
        let text = subject.text();
        if start > text.len() {
            return Ok(None);
        }
        let translation = &compiled.translation;
        let (program_anchor, check_start) = match anchor {
            Anchor::Start if start == 0 => (Anchor::Start, false),
            Anchor::Both if start == 0 => (Anchor::Both, false),
            Anchor::Start => (Anchor::None, true),
            Anchor::Both | Anchor::End => (Anchor::End, true),
            Anchor::None => (Anchor::None, false),
        };
        let reading = (subject.last_line, text.is_empty());
        let program = self.re_program(compiled, program_anchor, reading, at)?;
        // The engine's work per byte grows with the program; a few elements each, as it
        // costs several times a copy's.
        let per_byte = 4 + translation.weight / 8;
        let mut from = start;
        loop {
            // Without groups, the cheaper search that reports only the match.
            let found: Option<Groups> = if translation.groups == 0 {
                program.find_at(text, from).map(|m| vec![Some((m.start(), m.end()))])
            } else {
                program.captures_at(text, from).map(|caps| {
                    (0..caps.len()).map(|i| caps.get(i).map(|m| (m.start(), m.end()))).collect()
                })
            };
            let whole = found.as_ref().and_then(|spans| spans.first().copied().flatten());
            let read = match whole {
                Some((_, end)) if !translation.may_overrun => end - from,
                _ => text.len() - from,
            };
            self.charge(read.saturating_mul(per_byte).saturating_add(1), at)?;
            let Some(spans) = found else { return Ok(None) };
            if check_start && whole.is_some_and(|(s, _)| s != start) {
                return Ok(None);
            }
            if must_advance && whole == Some((from, from)) && from == start {
                if translation.ambiguous_empty {
                    return Err(self.unsupported(
                        "an empty match where CPython would look for a longer one at the \
                         same place (a lazy repeat, or a branch or repeated group that may \
                         match empty, in findall, finditer, sub or split)",
                        at,
                    ));
                }
                match text.get(from..).and_then(|rest| rest.chars().next()) {
                    Some(c) => {
                        from += c.len_utf8();
                        continue;
                    }
                    None => return Ok(None),
                }
            }
            return Ok(Some(spans));
        }
    }

    fn re_match_obj(
        &self,
        compiled: &Rc<Compiled>,
        subject: &Subject,
        spans: &[Option<(usize, usize)>],
        bounds: (usize, usize),
    ) -> RunValue {
        let spans = spans
            .iter()
            .map(|span| {
                span.map(|(byte_start, byte_end)| Span {
                    start: subject.offsets.char(byte_start),
                    end: subject.offsets.char(byte_end),
                    byte_start,
                    byte_end,
                })
            })
            .collect();
        RunValue::Match(Rc::new(MatchObj {
            compiled: compiled.clone(),
            string: subject.string.clone(),
            pos: bounds.0,
            endpos: bounds.1,
            spans,
        }))
    }

    /// `search`, `match` or `fullmatch`.
    fn re_one(
        &mut self,
        compiled: &Rc<Compiled>,
        value: &Arg,
        pos: Option<i64>,
        endpos: Option<i64>,
        anchor: Anchor,
        at: At,
    ) -> R<RunValue> {
        let (subject, start) = self.re_subject(compiled, value, pos, endpos, at)?;
        let found = self.re_search(compiled, &subject, start, anchor, false, at)?;
        Ok(match found {
            Some(spans) => {
                let bounds = (subject.offsets.char(start), subject.offsets.char(subject.end));
                self.re_match_obj(compiled, &subject, &spans, bounds)
            }
            None => RunValue::None,
        })
    }

    /// Every match from `start`, as CPython's iteration finds them, up to `limit` (0 for
    /// all); `each` gets the group spans of each.
    fn re_each(
        &mut self,
        compiled: &Compiled,
        subject: &Subject,
        start: usize,
        limit: i64,
        at: At,
        each: &mut dyn FnMut(&mut Self, Groups) -> R<()>,
    ) -> R<usize> {
        let mut from = start;
        let mut must_advance = false;
        let mut count = 0usize;
        while limit <= 0 || i64::try_from(count).unwrap_or(i64::MAX) < limit {
            self.step(at)?;
            let Some(spans) =
                self.re_search(compiled, subject, from, Anchor::None, must_advance, at)?
            else {
                break;
            };
            let (s, e) = spans.first().copied().flatten().unwrap_or((from, from));
            each(self, spans)?;
            count += 1;
            must_advance = s == e;
            from = e;
            if from > subject.end {
                break;
            }
        }
        Ok(count)
    }

    /// `findall`: the matches, the one group, or tuples of the groups.
    fn re_findall(
        &mut self,
        compiled: &Rc<Compiled>,
        value: &Arg,
        pos: Option<i64>,
        endpos: Option<i64>,
        at: At,
    ) -> R<RunValue> {
        let (subject, start) = self.re_subject(compiled, value, pos, endpos, at)?;
        let groups = compiled.translation.groups;
        let mut items = Vec::new();
        let text = subject.string.clone();
        let piece = |span: Option<(usize, usize)>| {
            RunValue::str(span.and_then(|(s, e)| text.get(s..e)).unwrap_or_default())
        };
        self.re_each(compiled, &subject, start, 0, at, &mut |interp, spans| {
            interp.charge(groups + 1, at)?;
            let item = match groups {
                0 => piece(spans.first().copied().flatten()),
                1 => piece(spans.get(1).copied().flatten()),
                _ => RunValue::tuple(spans.iter().skip(1).map(|s| piece(*s)).collect()),
            };
            if items.len() >= super::MAX_SIZE {
                return Err(interp.memory_error(at));
            }
            items.push(item);
            Ok(())
        })?;
        Ok(self.new_list(items))
    }

    /// `finditer`, as a list of match objects.
    fn re_finditer(
        &mut self,
        compiled: &Rc<Compiled>,
        value: &Arg,
        pos: Option<i64>,
        endpos: Option<i64>,
        at: At,
    ) -> R<RunValue> {
        let (subject, start) = self.re_subject(compiled, value, pos, endpos, at)?;
        let bounds = (subject.offsets.char(start), subject.offsets.char(subject.end));
        let mut items = Vec::new();
        self.re_each(compiled, &subject, start, 0, at, &mut |interp, spans| {
            if items.len() >= super::MAX_SIZE {
                return Err(interp.memory_error(at));
            }
            items.push(interp.re_match_obj(compiled, &subject, &spans, bounds));
            Ok(())
        })?;
        Ok(self.new_list(items))
    }

    /// `split`: the pieces between matches, and the groups of each match.
    fn re_split(
        &mut self,
        compiled: &Rc<Compiled>,
        value: &Arg,
        maxsplit: i64,
        at: At,
    ) -> R<RunValue> {
        let (subject, start) = self.re_subject(compiled, value, None, None, at)?;
        if maxsplit < 0 {
            return Ok(self.new_list(vec![RunValue::Str(subject.string.clone())]));
        }
        let text = subject.string.clone();
        let mut items = Vec::new();
        let mut last = start;
        self.re_each(compiled, &subject, start, maxsplit, at, &mut |interp, spans| {
            interp.charge(spans.len(), at)?;
            let (s, e) = spans.first().copied().flatten().unwrap_or((last, last));
            items.push(RunValue::str(text.get(last..s).unwrap_or_default()));
            for span in spans.iter().skip(1) {
                items.push(match span {
                    Some((a, b)) => RunValue::str(text.get(*a..*b).unwrap_or_default()),
                    None => RunValue::None,
                });
            }
            if items.len() >= super::MAX_SIZE {
                return Err(interp.memory_error(at));
            }
            last = e;
            Ok(())
        })?;
        items.push(RunValue::str(text.get(last..).unwrap_or_default()));
        Ok(self.new_list(items))
    }

    /// `sub` and `subn`: each match replaced by the template's expansion or by what
    /// the function returns.
    fn re_sub(
        &mut self,
        compiled: &Rc<Compiled>,
        repl: &RunValue,
        value: &Arg,
        count: i64,
        with_count: bool,
        at: At,
    ) -> R<RunValue> {
        let template = match repl {
            RunValue::Str(text) => Some(self.re_template(compiled, text, at)?),
            RunValue::Bytes(_) => return Err(self.unsupported("a bytes replacement", at)),
            RunValue::Function(_)
            | RunValue::Lambda(_)
            | RunValue::Method(_)
            | RunValue::Builtin(_)
            | RunValue::Bound(_) => None,
            other => {
                let message = format!(
                    "decoding to str: need a bytes-like object, {} found",
                    self.type_name(other)
                );
                return Err(self.raise("TypeError", message, at));
            }
        };
        let (subject, start) = self.re_subject(compiled, value, None, None, at)?;
        if count < 0 {
            // CPython replaces nothing for a negative count.
            let result = RunValue::Str(subject.string.clone());
            return Ok(if with_count {
                RunValue::tuple(vec![result, RunValue::Int(0)])
            } else {
                result
            });
        }
        let bounds = (0, subject.offsets.len);
        let text = subject.string.clone();
        let mut out = String::new();
        let mut last = 0;
        // CPython joins the pieces at the end: a callable's non-str result raises then,
        // naming its place among them.
        let mut pieces = 0usize;
        let mut wrong: Option<(usize, String)> = None;
        let replaced =
            self.re_each(compiled, &subject, start, count, at, &mut |interp, spans| {
                let (s, e) = spans.first().copied().flatten().unwrap_or((last, last));
                if last < s {
                    out.push_str(text.get(last..s).unwrap_or_default());
                    pieces += 1;
                }
                match &template {
                    Some(parts) => {
                        for part in parts {
                            match part {
                                TemplatePart::Text(t) => out.push_str(t),
                                TemplatePart::Group(g) => {
                                    if let Some(Some((a, b))) = spans.get(*g) {
                                        out.push_str(text.get(*a..*b).unwrap_or_default());
                                    }
                                }
                            }
                        }
                    }
                    None => {
                        let found = interp.re_match_obj(compiled, &subject, &spans, bounds);
                        match interp.call_value(repl.clone(), vec![found], Vec::new(), at)? {
                            RunValue::Str(piece) => {
                                out.push_str(&piece);
                                pieces += 1;
                            }
                            RunValue::None => {}
                            other => {
                                if wrong.is_none() {
                                    wrong = Some((pieces, interp.type_name(&other)));
                                }
                                pieces += 1;
                            }
                        }
                    }
                }
                interp.charge(out.len().saturating_sub(s), at)?;
                interp.check_str(&out, at)?;
                last = e;
                Ok(())
            })?;
        if let Some((index, kind)) = wrong {
            let message = format!("sequence item {index}: expected str instance, {kind} found");
            return Err(self.raise("TypeError", message, at));
        }
        out.push_str(text.get(last..).unwrap_or_default());
        self.check_str(&out, at)?;
        let result = RunValue::str(&out);
        Ok(if with_count {
            RunValue::tuple(vec![
                result,
                RunValue::Int(i64::try_from(replaced).unwrap_or(i64::MAX)),
            ])
        } else {
            result
        })
    }

    /// A replacement template, parsed (its errors are CPython's).
    fn re_template(&mut self, compiled: &Compiled, text: &str, at: At) -> R<Vec<TemplatePart>> {
        self.charge(text.len(), at)?;
        let translation = &compiled.translation;
        match re_syntax::parse_template(text, translation.groups, &translation.names) {
            Ok(parts) => Ok(parts),
            Err(TemplateFault::Error(message)) => Err(self.raise("error", message, at)),
            Err(TemplateFault::Index(message)) => Err(self.raise("IndexError", message, at)),
        }
    }

    // ----- pattern objects -----

    /// `pattern.name`.
    pub(crate) fn re_pattern_attr(&self, value: &RunValue, name: &str, at: At) -> R<RunValue> {
        let RunValue::Pattern(compiled) = value else { return Ok(RunValue::None) };
        let translation = &compiled.translation;
        match name {
            "pattern" => Ok(RunValue::Str(compiled.pattern.clone())),
            "flags" => Ok(RunValue::Int(translation.flags)),
            "groups" => Ok(RunValue::Int(i64::try_from(translation.groups).unwrap_or(0))),
            "search" | "match" | "fullmatch" | "findall" | "finditer" | "sub" | "subn"
            | "split" => Ok(RunValue::bound(value.clone(), name)),
            "groupindex" | "scanner" | "__copy__" | "__deepcopy__" => {
                Err(self.unsupported(&format!("`Pattern.{name}`"), at))
            }
            _ => {
                let message = format!("'re.Pattern' object has no attribute '{name}'");
                Err(self.raise("AttributeError", message, at))
            }
        }
    }

    /// `pattern.name(…)`.
    fn re_pattern_method(
        &mut self,
        compiled: &Rc<Compiled>,
        name: &str,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        let (params, required): (&[&str], usize) = match name {
            "sub" | "subn" => (&["repl", "string", "count"], 2),
            "split" => (&["string", "maxsplit"], 1),
            _ => (&["string", "pos", "endpos"], 1),
        };
        let mut values = self.method_args(name, params, required, args, kwargs, at)?;
        let mut int = |interp: &Self, i: usize| -> R<Option<i64>> {
            match values.get_mut(i).and_then(Option::take) {
                Some(v) => interp.re_int(&v, at).map(Some),
                None => Ok(None),
            }
        };
        match name {
            "sub" | "subn" => {
                let count = int(self, 2)?.unwrap_or(0);
                let repl = values.first_mut().and_then(Option::take).unwrap_or(RunValue::None);
                let string = values.get_mut(1).and_then(Option::take).unwrap_or(RunValue::None);
                let subject = Arg { value: string, index: 1, pattern: false };
                self.re_sub(compiled, &repl, &subject, count, name == "subn", at)
            }
            "split" => {
                let maxsplit = int(self, 1)?.unwrap_or(0);
                let string = values.first_mut().and_then(Option::take).unwrap_or(RunValue::None);
                let subject = Arg { value: string, index: 0, pattern: false };
                self.re_split(compiled, &subject, maxsplit, at)
            }
            _ => {
                let pos = int(self, 1)?;
                let endpos = int(self, 2)?;
                let string = values.first_mut().and_then(Option::take).unwrap_or(RunValue::None);
                let subject = Arg { value: string, index: 0, pattern: false };
                match name {
                    "search" => self.re_one(compiled, &subject, pos, endpos, Anchor::None, at),
                    "match" => self.re_one(compiled, &subject, pos, endpos, Anchor::Start, at),
                    "fullmatch" => self.re_one(compiled, &subject, pos, endpos, Anchor::Both, at),
                    "findall" => self.re_findall(compiled, &subject, pos, endpos, at),
                    _ => self.re_finditer(compiled, &subject, pos, endpos, at),
                }
            }
        }
    }

    // ----- match objects -----

    /// `match.name`.
    pub(crate) fn re_match_attr(&self, value: &RunValue, name: &str, at: At) -> R<RunValue> {
        let RunValue::Match(found) = value else { return Ok(RunValue::None) };
        match name {
            "string" => Ok(RunValue::Str(found.string.clone())),
            "re" => Ok(RunValue::Pattern(found.compiled.clone())),
            "pos" => Ok(RunValue::Int(i64::try_from(found.pos).unwrap_or(0))),
            "endpos" => Ok(RunValue::Int(i64::try_from(found.endpos).unwrap_or(0))),
            "lastindex" => Ok(found
                .last_index()
                .map_or(RunValue::None, |i| RunValue::Int(i64::try_from(i).unwrap_or(0)))),
            "lastgroup" => Ok(found
                .last_index()
                .and_then(|i| found.compiled.translation.names.iter().find(|(_, g)| *g == i))
                .map_or(RunValue::None, |(n, _)| RunValue::str(n))),
            "group" | "groups" | "groupdict" | "start" | "end" | "span" | "expand" => {
                Ok(RunValue::bound(value.clone(), name))
            }
            "regs" | "__copy__" | "__deepcopy__" => {
                Err(self.unsupported(&format!("`Match.{name}`"), at))
            }
            _ => {
                let message = format!("'re.Match' object has no attribute '{name}'");
                Err(self.raise("AttributeError", message, at))
            }
        }
    }

    /// The group a `group()`, `start()`… argument names.
    fn re_group_index(&self, found: &MatchObj, key: &RunValue, at: At) -> R<usize> {
        let index = match key {
            RunValue::Str(name) => {
                found.compiled.translation.names.iter().find(|(n, _)| **n == **name).map(|g| g.1)
            }
            other => other.as_int().and_then(|i| usize::try_from(i).ok()),
        };
        match index {
            Some(i) if i <= found.compiled.translation.groups => Ok(i),
            _ => Err(self.raise("IndexError", "no such group", at)),
        }
    }

    fn re_group_value(&self, found: &MatchObj, group: usize, default: &RunValue) -> RunValue {
        match found.spans.get(group).copied().flatten() {
            Some(span) => {
                RunValue::str(found.string.get(span.byte_start..span.byte_end).unwrap_or_default())
            }
            None => default.clone(),
        }
    }

    /// `match[key]`.
    pub(crate) fn re_match_item(
        &mut self,
        found: &MatchObj,
        key: &RunValue,
        at: At,
    ) -> R<RunValue> {
        let group = self.re_group_index(found, key, at)?;
        Ok(self.re_group_value(found, group, &RunValue::None))
    }

    /// `match.name(…)`.
    fn re_match_method(
        &mut self,
        found: &Rc<MatchObj>,
        name: &str,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        if name == "group" {
            if !kwargs.is_empty() {
                return Err(self.raise("TypeError", "group() takes no keyword arguments", at));
            }
            return match args.as_slice() {
                [] => Ok(self.re_group_value(found, 0, &RunValue::None)),
                [one] => self.re_match_item(found, one, at),
                many => {
                    let mut items = Vec::with_capacity(many.len());
                    for key in many {
                        let group = self.re_group_index(found, key, at)?;
                        items.push(self.re_group_value(found, group, &RunValue::None));
                    }
                    Ok(RunValue::tuple(items))
                }
            };
        }
        let params: &[&str] = match name {
            "groups" | "groupdict" => &["default"],
            "expand" => &["template"],
            _ => &["group"],
        };
        let required = usize::from(name == "expand");
        let mut values = self.method_args(name, params, required, args, kwargs, at)?;
        let arg = values.first_mut().and_then(Option::take);
        match name {
            "groups" => {
                let default = arg.unwrap_or(RunValue::None);
                let groups = found.compiled.translation.groups;
                self.charge(groups, at)?;
                Ok(RunValue::tuple(
                    (1..=groups).map(|g| self.re_group_value(found, g, &default)).collect(),
                ))
            }
            "groupdict" => {
                let default = arg.unwrap_or(RunValue::None);
                let names = &found.compiled.translation.names;
                self.charge(names.len(), at)?;
                let entries = names
                    .iter()
                    .map(|(n, g)| (RunValue::str(n), self.re_group_value(found, *g, &default)))
                    .collect();
                Ok(self.new_dict(entries))
            }
            "expand" => {
                let template = match arg {
                    Some(RunValue::Str(text)) => text,
                    Some(other) => {
                        let message = format!(
                            "decoding to str: need a bytes-like object, {} found",
                            self.type_name(&other)
                        );
                        return Err(self.raise("TypeError", message, at));
                    }
                    None => Rc::from(""),
                };
                let parts = self.re_template(&found.compiled, &template, at)?;
                let mut out = String::new();
                for part in &parts {
                    match part {
                        TemplatePart::Text(t) => out.push_str(t),
                        TemplatePart::Group(g) => {
                            if let Some(span) = found.spans.get(*g).copied().flatten() {
                                out.push_str(
                                    found
                                        .string
                                        .get(span.byte_start..span.byte_end)
                                        .unwrap_or_default(),
                                );
                            }
                        }
                    }
                }
                self.check_str(&out, at)?;
                Ok(RunValue::str(&out))
            }
            _ => {
                let group = match arg {
                    Some(key) => self.re_group_index(found, &key, at)?,
                    None => 0,
                };
                let (start, end) =
                    found.spans.get(group).copied().flatten().map_or((-1, -1), |s| {
                        (i64::try_from(s.start).unwrap_or(-1), i64::try_from(s.end).unwrap_or(-1))
                    });
                Ok(match name {
                    "start" => RunValue::Int(start),
                    "end" => RunValue::Int(end),
                    _ => RunValue::tuple(vec![RunValue::Int(start), RunValue::Int(end)]),
                })
            }
        }
    }

    /// A method of a pattern or match object.
    pub(crate) fn re_method(
        &mut self,
        receiver: &RunValue,
        name: &str,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        match receiver {
            RunValue::Pattern(compiled) => self.re_pattern_method(compiled, name, args, kwargs, at),
            RunValue::Match(found) => self.re_match_method(found, name, args, kwargs, at),
            _ => Err(self.unsupported(&format!("the method `{name}()`"), at)),
        }
    }

    /// The repr of a pattern or match object.
    pub(crate) fn re_repr(&self, value: &RunValue) -> String {
        match value {
            RunValue::Pattern(compiled) => pattern_repr(compiled),
            RunValue::Match(found) => {
                let (start, end) =
                    found.spans.first().copied().flatten().map_or((0, 0), |s| (s.start, s.end));
                let mut text = String::new();
                repr_str(&self.re_group_text(found), &mut text);
                format!("<re.Match object; span=({start}, {end}), match={}>", truncate(&text, 50))
            }
            _ => String::new(),
        }
    }

    fn re_group_text(&self, found: &MatchObj) -> String {
        found
            .spans
            .first()
            .copied()
            .flatten()
            .and_then(|s| found.string.get(s.byte_start..s.byte_end))
            .unwrap_or_default()
            .to_owned()
    }

    // ----- where diagnostics point -----

    /// The text of the file whose code is running.
    fn unit_text(&self) -> &str {
        self.program.units.get(self.file).map_or("", |u| u.text.as_str())
    }

    /// The source of argument `index` (or of the keyword argument `name`) of the call
    /// at `at`; the whole call when it cannot be told.
    fn arg_at(&self, at: At, (index, name): (usize, &str)) -> At {
        let Some(call) = self.unit_text().get(at.0..at.1) else { return at };
        let mut findings = crate::locate::Findings::new(self.path(), call);
        let lexed = crate::lex::lex(call, &mut findings);
        let tokens = &lexed.tokens;
        let Some(last) = tokens.iter().rposition(|t| call.get(t.start..t.end) == Some(")")) else {
            return at;
        };
        let is = |i: usize, op: &str| {
            tokens.get(i).is_some_and(|t| call.get(t.start..t.end) == Some(op))
        };
        let Some(open) =
            (0..tokens.len()).find(|i| lexed.close.get(*i) == Some(&last) && is(*i, "("))
        else {
            return at;
        };
        let mut args: Vec<(usize, usize)> = Vec::new();
        let mut i = open + 1;
        let mut first = i;
        while i < last {
            if is(i, ",") {
                args.push((first, i));
                first = i + 1;
            } else if let Some(&close) = lexed.close.get(i).filter(|c| **c != crate::lex::NO_MATCH)
            {
                i = close;
            }
            i += 1;
        }
        if first < last {
            args.push((first, last));
        }
        let keyword = |(s, _): &(usize, usize)| {
            is(s + 1, "=").then(|| tokens.get(*s).and_then(|t| call.get(t.start..t.end))).flatten()
        };
        let chosen = args
            .iter()
            .find(|a| keyword(a) == Some(name))
            .map(|(s, e)| (s + 2, *e))
            .or_else(|| args.get(index).filter(|a| keyword(a).is_none()).copied());
        match chosen {
            Some((s, e)) if s < e => match (tokens.get(s), tokens.get(e - 1)) {
                (Some(a), Some(b)) => (at.0 + a.start, at.0 + b.end),
                _ => at,
            },
            _ => at,
        }
    }

    /// The span of the characters `start..start + len` of a pattern written at `arg`:
    /// exact when the argument is one plain or raw string literal, else `arg` itself.
    fn construct_at(&self, arg: At, start: usize, len: usize) -> At {
        if len == 0 {
            return arg;
        }
        let Some(literal) = self.unit_text().get(arg.0..arg.1) else { return arg };
        let prefix = literal.find(['\'', '"']).unwrap_or(0);
        let flags = literal.get(..prefix).unwrap_or_default().to_ascii_lowercase();
        if flags.contains('f')
            || flags.contains('b')
            || !flags.chars().all(|c| c == 'r' || c == 'u')
        {
            return arg;
        }
        let rest = literal.get(prefix..).unwrap_or_default();
        let quote = if rest.starts_with("\"\"\"") || rest.starts_with("'''") { 3 } else { 1 };
        let Some(body) = literal.get(prefix + quote..literal.len().saturating_sub(quote)) else {
            return arg;
        };
        let Some(open) = rest.get(..quote) else { return arg };
        if !literal.ends_with(open)
            || body.contains(open)
            || (!flags.contains('r') && body.contains('\\'))
        {
            return arg;
        }
        let mut offsets = body.char_indices().map(|(i, _)| i).chain([body.len()]);
        let Some(from) = offsets.nth(start) else { return arg };
        let to = offsets.nth(len.saturating_sub(1)).unwrap_or(body.len());
        let base = arg.0 + prefix + quote;
        (base + from, base + to)
    }
}

impl MatchObj {
    /// `lastindex`: the group that closed last, the one whose `)` stands later among
    /// those ending at the same place.
    fn last_index(&self) -> Option<usize> {
        let closes = &self.compiled.translation.closes;
        self.spans
            .iter()
            .enumerate()
            .skip(1)
            .filter_map(|(i, span)| {
                span.map(|s| (s.end, closes.get(i - 1).copied().unwrap_or(0), i))
            })
            .max()
            .map(|(_, _, i)| i)
    }
}

/// What `from re import name` binds.
pub(crate) fn import_from(name: &str) -> super::ast::Global {
    use super::ast::Global;
    match ReFn::named(name) {
        Some(function) => Global::Builtin(super::runtime::Builtin::Re(function)),
        None if name == "error" => Global::ExcClass(name.to_owned()),
        None => Global::Other(format!("`{name}` (imported from `re`)")),
    }
}
