//! Differential test against CPython: `fixtures/python/cases.json` holds what CPython
//! returned (its `repr`) or raised (type name and `str(exc)`) for each snippet of
//! `fixtures/python/snippets.py` (regenerate with `python3 fixtures/python/generate.py`;
//! the CPython version is in the file). The interpreter must return a value with the same
//! `repr` or raise the same exception with the same message. A snippet it refuses (a
//! compile diagnostic or `Outcome::Unsupported`) or gets wrong is listed in
//! [`KNOWN_DIFFERENCES`] with the reason; the test fails on any other disagreement, and on
//! a listed snippet that agrees now, so the list shrinks as the interpreter grows.
// The test prints how many snippets agree, and why the others differ; the core prints
// nothing.
#![allow(clippy::disallowed_macros)]

use std::collections::BTreeMap;

use serde_json::Value as Json;
use swaplab_core::diagnostic::Span;
use swaplab_core::python::{Host, HostError, Outcome, PyValue, compile_module};

use crate::support::read;

// Why a snippet differs. The first group are the interpreter's deliberate differences (its
// module doc lists them); then CPython 3.11 against 3.12; then what is outside the subset
// (refused with `Outcome::Unsupported` or a compile diagnostic, never guessed); last, gaps
// inside the subset that give another answer than CPython.
const INT64: &str = "integers are 64-bit: a result beyond stops the run (deliberate)";
const SETS: &str = "a set is a list without duplicates, and prints as one (deliberate)";
const EAGER: &str = "a generator expression is evaluated eagerly into a list (deliberate)";
const VIEWS: &str = "dict.keys()/values()/items() return lists, not live views (deliberate)";
const DEFAULTS: &str = "parameter defaults are evaluated at each call (deliberate)";
const MARKERS: &str = "the `*` and `/` markers of a signature are ignored (deliberate)";
const ASYNC: &str = "calling an `async def` runs it at once (deliberate)";
const CALL_DEPTH: &str = "at most 32 nested calls, where CPython allows about 1000 (deliberate)";
const PY311: &str = "the oracle is CPython 3.11; the interpreter follows 3.12's wording";
const JSON: &str = "the `json` module is outside the subset";
const BYTES: &str = "bytes (literals, `bytes()`, `str.encode`) are outside the subset";
const LAMBDA: &str = "`lambda` is outside the subset";
const CLASSES: &str = "a class feature outside the subset: special methods (`__eq__`, `__len__`), \
     decorators other than `@property`/`@staticmethod`/`@classmethod`, property objects, `vars()`";
const DATACLASSES: &str = "a `@dataclass` option or helper outside the subset (`order=`, `slots=`, \
     `kw_only=`, `eq=False`, `field(init=False)`, `fields()`)";
const WITH: &str = "`@contextmanager` and `issubclass` in `__exit__` are outside the subset";
const FROZENSET: &str =
    "a frozenset is a list here: hashing it and its set operators are outside the subset";
const TYPING: &str = "`typing` names are for annotations only: using one at run time is outside";
const DUNDERS: &str =
    "dunder attributes (`__cause__`, `__context__`, `__class__`, `__name__`) are outside";
const BUILTINS: &str = "a builtin function outside the subset";
const METHODS: &str = "a method or attribute outside the subset";
const SYNTAX: &str = "a statement or expression form outside the subset";
const MODULES: &str = "a module other than the CRM client is outside the subset";
const ESCAPES: &str = "a `\\N{…}` or lone-surrogate escape is outside the subset";
const START_END: &str = "the start/end arguments of str.find/count/index/startswith/endswith and \
     list.index are missing (TypeError where CPython answers)";
const ARITY: &str = "wrong-arity calls of builtins and methods are worded generically";
const SORT_ORDER: &str = "the merge sort compares in another order than timsort, so the TypeError \
     names the operands the other way round";
const CASEFOLD: &str = "str.casefold() is str.lower() (no Unicode case-folding table)";
const NUMERIC: &str = "isdigit()/isdecimal() approximate Unicode's numeric types";
const RANGE: &str =
    "`range` is a function here, not a type: a sliced range is a list, isinstance(x, range) raises";
const LENIENT: &str =
    "builtin methods accept keywords where CPython's parameters are positional-only";
const DICT_GROWTH: &str = "adding to a dict while iterating over it does not raise RuntimeError";
const JSON_ERROR_ATTRS: &str =
    "json.JSONDecodeError carries its message only, not `msg`, `pos`, `lineno` and `colno`";
const RE_FLAG_INTS: &str =
    "re's flags are plain ints: `re.I | re.M` prints as 10, not `re.IGNORECASE|re.MULTILINE`";
const RE_CONSTRUCTS: &str = "a regular-expression construct regex-lite cannot express (lookaround, \
     backreference, atomic group, possessive repeat, conditional, `\\N{…}`) is refused";
const RE_UNICODE: &str = "`\\w`, `\\d`, `\\s`, `\\b` and re.IGNORECASE without re.ASCII are refused \
     on a str with non-ASCII characters (regex-lite's are ASCII-only)";
const RE_DOLLAR: &str = "`$` without re.MULTILINE is refused on a str of several lines ending in \
     a newline (regex-lite cannot match before the last newline only)";
const RE_EMPTY: &str = "an empty match where CPython's backtracking would retry for a longer match \
     at the same place (findall, finditer, sub, split) is refused";
const RE_BYTES: &str = "`re` with a bytes pattern is outside the subset";
const DATETIME: &str = "a `datetime` feature outside the subset: a strftime directive whose output \
     depends on the locale, the `time` class, a timezone named after the machine's";
const CALLEE_NAME: &str = "a TypeError about a call's `*`/`**` arguments does not name the callee \
     with its module (`snippet.f()`) as CPython's does";

/// The reasons that are refusals: a snippet listed with one must still be refused (a
/// compile diagnostic or `Outcome::Unsupported`), and one listed with any other reason must
/// still answer, so that each reason stays true as the interpreter changes.
const REFUSALS: &[&str] = &[
    INT64,
    CALL_DEPTH,
    JSON,
    BYTES,
    LAMBDA,
    CLASSES,
    DATACLASSES,
    WITH,
    FROZENSET,
    TYPING,
    DUNDERS,
    BUILTINS,
    METHODS,
    SYNTAX,
    MODULES,
    ESCAPES,
    RE_CONSTRUCTS,
    RE_UNICODE,
    RE_DOLLAR,
    RE_EMPTY,
    RE_BYTES,
    DATETIME,
];

/// Snippets where the interpreter and CPython differ, grouped by reason.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[
    ("call.unpack-not-mapping", CALLEE_NAME),
    ("call.unpack-duplicate-keyword", CALLEE_NAME),
    ("call.unpack-star-not-iterable", CALLEE_NAME),
    ("literal.big-int", INT64),
    ("int.overflow-add", INT64),
    ("int.overflow-mul", INT64),
    ("int.overflow-pow", INT64),
    ("int.min-floordiv-minus-one", INT64),
    ("int.min-negate", INT64),
    ("int.min-abs", INT64),
    ("int.factorial-25", INT64),
    ("int.from-big-str", INT64),
    ("round.big", INT64),
    ("comp.set-repr", SETS),
    ("builtin.set-constructor", SETS),
    ("builtin.set-repr", SETS),
    ("genexp.exhausted", EAGER),
    ("dict.views-repr", VIEWS),
    ("dict.views-live", VIEWS),
    ("dict.keys-set-ops", VIEWS),
    ("module.mutable-default", DEFAULTS),
    ("module.default-evaluated-once", DEFAULTS),
    ("exc.call-missing-keyword-only", MARKERS),
    ("stmt.sync-calls-async", ASYNC),
    ("stmt.recursion-limit", CALL_DEPTH),
    ("exc.valueerror-max-empty", PY311),
    ("exc.valueerror-min-empty", PY311),
    ("json.dumps-set", SETS),
    ("json.dumps-large-int", JSON),
    ("json.loads-big-int", JSON),
    ("json.decode-error-attrs", JSON_ERROR_ATTRS),
    ("bytes.methods", BYTES),
    ("bytes.hex", BYTES),
    ("bytes.bytearray", BYTES),
    ("class.eq-custom", CLASSES),
    ("class.len-bool", CLASSES),
    ("class.getattr-dunder-dict", CLASSES),
    ("class.property-object", CLASSES),
    ("class.decorator-cached-property", CLASSES),
    ("class.decorator-stacked", CLASSES),
    ("dataclass.order", DATACLASSES),
    ("dataclass.post-init", DATACLASSES),
    ("dataclass.fields", DATACLASSES),
    ("dataclass.option-slots", DATACLASSES),
    ("dataclass.option-kw-only", DATACLASSES),
    ("dataclass.eq-false-option", DATACLASSES),
    ("with.suppress", WITH),
    ("with.contextmanager", WITH),
    ("module.function-repr-name", DUNDERS),
    ("int.divmod", BUILTINS),
    ("int.pow-builtin", BUILTINS),
    ("int.hex-bin-oct", BUILTINS),
    ("repr.ascii-builtin", BUILTINS),
    ("exc.issubclass", BUILTINS),
    ("exc.stop-iteration", BUILTINS),
    ("slice.object", BUILTINS),
    ("builtin.isinstance-none-type", BUILTINS),
    ("builtin.getattr-hasattr", BUILTINS),
    ("builtin.type-name", BUILTINS),
    ("builtin.callable", BUILTINS),
    ("builtin.iter-next", BUILTINS),
    ("builtin.id-hash", BUILTINS),
    ("tool.format-money", BUILTINS),
    ("float.is-integer", METHODS),
    ("format.str-method-index-attr", METHODS),
    ("strm.isidentifier", METHODS),
    ("strm.istitle", METHODS),
    ("strm.expandtabs", METHODS),
    ("strm.translate", METHODS),
    ("strm.format-map", METHODS),
    ("strm.unbound-method", METHODS),
    ("builtin.sorted-key-str-lower", METHODS),
    ("builtin.range-index-method", METHODS),
    ("list.tuple-methods", METHODS),
    ("dict.fromkeys", METHODS),
    ("literal.ellipsis", SYNTAX),
    ("literal.complex", SYNTAX),
    ("format.printf-s", SYNTAX),
    ("format.printf-float", SYNTAX),
    ("format.printf-r-percent", SYNTAX),
    ("format.printf-dict", SYNTAX),
    ("stmt.assign-slice", SYNTAX),
    ("stmt.star-assign", SYNTAX),
    ("stmt.del-slice", SYNTAX),
    ("stmt.global", SYNTAX),
    ("stmt.nested-def", SYNTAX),
    ("stmt.closure", SYNTAX),
    ("stmt.walrus", SYNTAX),
    ("stmt.walrus-while", SYNTAX),
    ("stmt.match", SYNTAX),
    ("stmt.yield", SYNTAX),
    ("exc.valueerror-zip-strict", SYNTAX),
    ("comp.walrus-in-filter", SYNTAX),
    ("builtin.zip-strict-ok", SYNTAX),
    ("builtin.isinstance-union", SYNTAX),
    ("builtin.frozenset-as-key", FROZENSET),
    ("typing.cast", TYPING),
    ("typing.name-at-runtime", TYPING),
    ("module.math", MODULES),
    ("module.string-constants", MODULES),
    ("literal.escapes", ESCAPES),
    ("repr.str-lone-surrogate", ESCAPES),
    ("strm.find", START_END),
    ("strm.index", START_END),
    ("strm.count", START_END),
    ("list.index-start", START_END),
    ("exc.typeerror-len-no-args", ARITY),
    ("exc.typeerror-len-two-args", ARITY),
    ("exc.typeerror-get-no-args", ARITY),
    ("compare.sorted-mixed-later", SORT_ORDER),
    ("strm.casefold", CASEFOLD),
    ("strm.predicates", NUMERIC),
    ("strm.predicates-numeric-kinds", NUMERIC),
    ("slice.tuple-range", RANGE),
    ("builtin.isinstance-set-range", RANGE),
    ("dict.get-default-keyword", LENIENT),
    ("dict.modify-during-iteration", DICT_GROWTH),
    ("re.flag-combined", RE_FLAG_INTS),
    ("re.flag-repr", RE_FLAG_INTS),
    ("re.refuse-lookahead", RE_CONSTRUCTS),
    ("re.refuse-lookbehind", RE_CONSTRUCTS),
    ("re.refuse-backreference", RE_CONSTRUCTS),
    ("re.refuse-named-backreference", RE_CONSTRUCTS),
    ("re.refuse-atomic-group", RE_CONSTRUCTS),
    ("re.refuse-possessive", RE_CONSTRUCTS),
    ("re.refuse-conditional", RE_CONSTRUCTS),
    ("re.refuse-named-unicode-escape", RE_CONSTRUCTS),
    ("re.unicode-subject-with-word-class", RE_UNICODE),
    ("re.unicode-subject-with-ignorecase", RE_UNICODE),
    ("re.flag-ignorecase-kelvin-sign", RE_UNICODE),
    ("re.dollar-several-lines", RE_DOLLAR),
    ("re.refuse-lazy-empty-iteration", RE_EMPTY),
    ("re.refuse-bytes-pattern", RE_BYTES),
    ("re.error-attrs", METHODS),
    ("datetime.refuse-strftime-locale", DATETIME),
    ("datetime.refuse-time-class", DATETIME),
    ("datetime.refuse-astimezone-local", DATETIME),
];

/// A host with no CRM and no project memory: the snippets reach neither.
struct Nothing;

impl Host for Nothing {
    fn crm_call(
        &mut self,
        function: &str,
        _args: &[PyValue],
        _kwargs: &[(String, PyValue)],
        _span: Span,
    ) -> Result<PyValue, HostError> {
        Err(HostError::new("RuntimeError", format!("no CRM here (called {function})")))
    }

    fn memory_get(&mut self, _path: &str, default: PyValue, _span: Span) -> PyValue {
        default
    }

    fn memory_set(&mut self, path: &str, _value: PyValue, _span: Span) -> Result<(), HostError> {
        Err(HostError::new("RuntimeError", format!("no memory here (set {path})")))
    }
}

/// The snippets of `snippets.py` as `generate.py` cuts them: from each `# %% <id>` line
/// to the next, blank lines around trimmed.
fn snippets(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, Vec<&str>)> = Vec::new();
    for line in text.split('\n') {
        if let Some(id) = line.strip_prefix("# %% ") {
            out.push((id.trim().to_owned(), Vec::new()));
        } else if let Some((_, lines)) = out.last_mut() {
            lines.push(line);
        }
    }
    out.into_iter()
        .map(|(id, lines)| (id, format!("{}\n", lines.join("\n").trim_matches('\n'))))
        .collect()
}

/// What CPython did, in the form [`ours`] describes the interpreter's outcome.
fn theirs(case: &Json) -> String {
    match (case.get("returned"), case.get("raised")) {
        (Some(repr), _) => format!("= {}", repr.as_str().expect("repr")),
        (None, Some(raised)) => format!(
            "! {}: {}",
            raised[0].as_str().expect("type"),
            raised[1].as_str().expect("message")
        ),
        _ => panic!("malformed case {case}"),
    }
}

/// What the interpreter does with one snippet: `= repr`, `! Type: message`, or `?` and
/// why it refused.
fn ours(id: &str, source: &str) -> String {
    let program = compile_module(&format!("{id}.py"), source);
    if let Some(d) = program.diagnostics.first() {
        return format!("? compile {}:{} {}", d.span.start.line, d.span.start.column, d.message);
    }
    match program.call("snippet", &[], false, &mut Nothing) {
        Outcome::Returned(value) => format!("= {}", value.repr()),
        Outcome::Raised { exc_type, message, .. } => format!("! {exc_type}: {message}"),
        Outcome::Unsupported(d) => {
            format!("? run {}:{} {}", d.span.start.line, d.span.start.column, d.message)
        }
    }
}

#[test]
fn snippets_agree_with_cpython() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/python");
    let fixture: Json = serde_json::from_str(&read(&dir.join("cases.json"))).expect("cases.json");
    let cases = fixture["cases"].as_array().expect("cases");
    let listed: Vec<(String, String)> = cases
        .iter()
        .map(|c| {
            (
                c["id"].as_str().expect("id").to_owned(),
                c["source"].as_str().expect("source").to_owned(),
            )
        })
        .collect();
    assert!(
        snippets(&read(&dir.join("snippets.py"))) == listed,
        "cases.json is not what snippets.py holds: run `python3 fixtures/python/generate.py`"
    );

    let mut known: BTreeMap<&str, &str> = BTreeMap::new();
    for (id, why) in KNOWN_DIFFERENCES {
        assert!(known.insert(id, why).is_none(), "{id} is listed twice");
        assert!(listed.iter().any(|(case, _)| case == id), "{id} is listed but is no snippet");
    }
    let mut failures = Vec::new();
    let mut agree = 0;
    for case in cases {
        let id = case["id"].as_str().expect("id");
        let source = case["source"].as_str().expect("source");
        let expected = theirs(case);
        let found = ours(id, source);
        match (found == expected, known.get(id)) {
            (true, None) => agree += 1,
            (true, Some(why)) => {
                failures.push(format!("{id}: listed as a known difference ({why}) but agrees now"));
            }
            (false, Some(why)) => {
                let refused = found.starts_with("? ");
                if refused != REFUSALS.contains(why) {
                    let now = if refused { "is refused" } else { "answers" };
                    failures.push(format!("{id}: listed as \"{why}\" but now {now}: {found}"));
                }
            }
            (false, None) => {
                failures.push(format!("{id}:\n{source}  cpython: {expected}\n  ours:    {found}"));
            }
        }
    }
    let refused = KNOWN_DIFFERENCES.iter().filter(|(_, why)| REFUSALS.contains(why)).count();
    eprintln!(
        "python table: {} snippets, {agree} agree with CPython {}, {} known differences \
         ({refused} refused, {} answered otherwise)",
        cases.len(),
        fixture["python"].as_str().unwrap_or("?"),
        KNOWN_DIFFERENCES.len(),
        KNOWN_DIFFERENCES.len() - refused
    );
    let mut reasons: Vec<(&str, usize)> = Vec::new();
    for (_, why) in KNOWN_DIFFERENCES {
        match reasons.iter_mut().find(|(reason, _)| reason == why) {
            Some((_, count)) => *count += 1,
            None => reasons.push((why, 1)),
        }
    }
    for (why, count) in reasons {
        eprintln!("  {count:4}  {why}");
    }
    assert!(cases.len() >= 450, "{} snippets", cases.len());
    assert!(
        failures.is_empty(),
        "{} of {} snippets disagree with CPython:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
