//! An interpreter for the Python subset tool functions are written in, so the simulation
//! can *run* a scanned tool body against a mock CRM and project memory.
//!
//! [`compile_module`] reads one file into a [`Program`]: every module-level `def` and
//! `async def`, pydantic `BaseModel` classes (fields, defaults, `extra`), exception
//! classes, plain classes and dataclasses, imports and module-level assignments.
//! [`Program::call`] runs one function with keyword arguments; what the body reaches
//! outside itself (the CRM client imported `from hubspot_client import …`,
//! `context.memory`) goes to a [`Host`].
//!
//! The subset (Python 3.12 semantics; anything else stops the run with
//! [`Outcome::Unsupported`] at the token, never a guess):
//!
//! - **The project's own modules** ([`compile_linked`] with a [`Library`]): `from
//!   lib.hubspot import Client as C`, `import lib.hubspot as hs`, `import a.b`, packages
//!   (`__init__.py`, namespace folders) and relative imports, resolved from the
//!   project's roots as Python's path finder does (see `link.rs`). An imported name is
//!   the imported module's binding; its code runs in its own file, so spans and
//!   tracebacks point there. A [`Process`] imports each module once and keeps what its
//!   module-level code computed from one call to the next.
//! - **The network** (`net.rs`): `httpx.Client`/`AsyncClient` requests go to
//!   [`Host::http`], which may hand them to a project's own `http.server` handler class
//!   run in a [`Process`] of its own ([`Process::serve`]); nothing listens by default,
//!   and `httpx.ConnectError` is raised as httpx raises it.
//! - **Signatures**: `*args` and `**kwargs` parameters of a `def` (a tuple and a dict).
//! - **The environment** (`os.rs`): `os.environ` (a dict made once per process from
//!   the environment it was started with), `os.getenv`, `os.path.join`/`dirname`/
//!   `basename`/`abspath` over the project's virtual paths (`__file__` is
//!   `/<path>`), `sys.path`, and `dotenv.load_dotenv` (true). Other names of `os` and
//!   `sys` are outside the subset.
//! - **Module level**: imports (`from __future__ import annotations` and `typing` names
//!   too), assignments to names (`NAME = …`, `NAME: T = …`, `HOST, PORT = …`,
//!   `A = B = …`), each evaluated on first use in a process and reading what was bound
//!   before it in the file, as at import (`X = X + 1` reads the earlier `X`; a name bound
//!   only later is a `NameError`); assignments to items or attributes are not followed.
//!   An `if` whose branches only assign names is followed (its tests are evaluated when
//!   a name it binds is first read); `if __name__ == "__main__":` and `if TYPE_CHECKING:`
//!   blocks must be valid Python but never run. Any other compound statement (`for`,
//!   `try`, `with`, an `if` that calls something) is outside the subset: the names it
//!   binds stop the run where they are used.
//! - **Statements**: expressions, `=` (names, `d[k]`, `obj.attr`, tuple unpacking),
//!   augmented assignment, annotated assignment (`x: T = v`, and `x: T`, which makes
//!   `x` local; annotations are checked for syntax and never evaluated, at module level
//!   too, so `typing` names, `X | None`, `Literal[…]` and `tuple[int, ...]` need no
//!   support), `if`/`elif`/`else`, `for`/`while` with `break`, `continue` and `else`,
//!   `return`, `pass`, `raise` (`raise X from Y` and `from None` set `__cause__` and
//!   `__suppress_context__`; an exception raised or caught while another is handled
//!   gets it as `__context__`), `try`/`except`/`else`/`finally`, `assert`, `del`, and
//!   `with`/`async with` (several items, parenthesized or not) through `__enter__` and
//!   `__exit__` (`__aenter__`/`__aexit__`) of a class of the file, `__exit__` getting
//!   the exception and suppressing it by returning true.
//! - **Expressions**: literals of every string prefix (`b"…"` is `bytes`), numbers as
//!   CPython's tokenizer reads them (`1_000`, `0x_FF`, `1_0.5e1_0`; a misplaced `_` or a
//!   leading zero is its `SyntaxError`), f-strings with conversions and format specs,
//!   names, attributes, subscripts and slices, calls with positional and keyword
//!   arguments (`*iterable` and `**mapping` too; a plain positional argument after a
//!   `*iterable` is outside), `await` (transparent), `not`/`and`/`or`, comparisons (chained, `in`,
//!   `is`), arithmetic and bitwise operators, `a if c else b`, displays (`{**base, "k":
//!   v}` too) and comprehensions (a set is a list without duplicates; a generator
//!   expression is evaluated eagerly into a list, except as the argument of `any()`,
//!   `all()` and `next()`, which make its items only until one decides, as CPython's lazy
//!   generator does), and `lambda` (its defaults evaluated when it is; it sees the scopes
//!   around it live, as CPython's closures do, so it can call itself through its local).
//! - **Builtins**: `len str int float bool list dict tuple set frozenset bytes sorted
//!   reversed min max sum any all isinstance enumerate zip range print abs round repr chr
//!   ord format super`, `type` of one value, `next` (of a generator expression written in
//!   the call, with or without a default), the common methods of `str`, `list` and `dict`
//!   (`dict.items()` and friends return lists; `strip`, `split`, `startswith` (tuples,
//!   offsets), `join`, `replace`, `partition` and their kin take their arguments and fail
//!   with CPython's messages), builtin exception classes with their hierarchy, pydantic
//!   models (`model_dump()`) and Rasa's `ToolResult`.
//! - **Classes** (`classes.rs`): `class C:` or `class C(Base):` (one base, a plain class
//!   of the file) whose body assigns names (class attributes, created with the class on
//!   first use in a process, bases first) and defines methods: instances with their own
//!   attributes, methods bound to the instance, class attributes through the instance and
//!   the class, `super()` (and `super(C, self)`; `super().__init__()` reaches
//!   `object.__init__`), `isinstance`, `type(x)`, `__init__`, `__str__`, `__repr__` and
//!   the context manager methods. Methods may be decorated with `@property` (a getter,
//!   and `@name.setter`; assigning to or deleting one without raises CPython's
//!   `AttributeError`), `@staticmethod` and `@classmethod` (bound to the class it is
//!   reached through, an instance's or a subclass's). Any other decorator, stacked
//!   decorators, several bases, any other special method (`__eq__`, `__len__`…) or
//!   another statement in the body makes the class outside the subset, with a diagnostic
//!   that names it.
//! - **Dataclasses**: `@dataclass`, `@dataclass()` and `@dataclass(frozen=True)` (from
//!   `from dataclasses import dataclass, field` or `import dataclasses`) on a plain
//!   class: its fields are its annotated names in order, inherited dataclass fields first
//!   (`ClassVar` ones are class attributes), with defaults (`= value`,
//!   `field(default=…)`, `field(default_factory=…)` called for each instance,
//!   `field(repr=…, compare=…)`); the generated `__init__` (positional and keyword, with
//!   CPython's `TypeError`s, then `__post_init__`), `__repr__` (`Name(f=value, …)`) and
//!   `__eq__` (the same class, the fields that compare), unless the body defines its
//!   own; methods, properties and class methods of the body. A frozen instance raises
//!   `dataclasses.FrozenInstanceError` (`cannot assign to field 'x'`) on assignment and
//!   deletion, and hashes by its fields; a non-frozen one is unhashable. When the class is
//!   created, a mutable default (`list`, `dict`, a non-frozen dataclass) raises CPython's
//!   `ValueError`, a field without a default after one with its `TypeError`, and so do
//!   frozen and non-frozen dataclasses inheriting from each other. Other options
//!   (`order=`, `slots=`, `kw_only=`, `eq=False`…), other `field()` options (`init=`…),
//!   `InitVar`, `KW_ONLY` and `dataclasses`' other functions (`fields`, `astuple`…) are
//!   outside the subset; `asdict` (a plain class instance inside it is refused, not
//!   deep-copied) and `replace` run.
//! - **Exception classes** deriving from a builtin exception class or one of the
//!   program's, with a body of their own: class attributes, `__init__` (which may call
//!   `super().__init__(…)`: `args` is the constructor's positional arguments until then,
//!   as in CPython), `__str__`, `__repr__` (`super().__str__()` reaches the builtin one),
//!   methods, properties, static and class methods, attributes set on the instance;
//!   caught by any base class, raised bare (`raise E`, constructed without arguments) or
//!   `from` another. Any builtin exception takes attributes too.
//! - **Standard library pieces** (`stdlib.rs`): `contextlib.suppress(*exceptions)` as a
//!   context manager; `urllib.parse`'s `urlparse`, `urlsplit` (a `ParseResult` or
//!   `SplitResult`: fields, `hostname`, `port`, `username`, `password`, `geturl()`,
//!   indexing, unpacking, `len`, `==` a tuple), `parse_qs`, `parse_qsl`
//!   (`keep_blank_values`, `strict_parsing`, `separator`, `max_num_fields`), `urlencode`
//!   (a dict or pairs, `doseq`, `safe`, `quote_via=quote`), `quote`, `quote_plus`,
//!   `unquote` and `unquote_plus`, in UTF-8, with CPython's outputs. `typing` names are
//!   for annotations only: using one at run time is outside the subset.
//! - **`datetime` and `time`** (`datetime.rs`), on a fixed and stated clock: every run
//!   happens at 2026-12-02T09:00:00 UTC, the instant of the network's `Date` header
//!   ([`FIXED_DATE`] is written from it), and local time is UTC. `datetime`, `date`,
//!   `timedelta` and `timezone` (fixed offsets) with CPython 3.11's reprs, `str()`,
//!   arithmetic, comparisons and messages: `now(tz)`, `utcnow()`, `today()`,
//!   `fromisoformat` (the common forms), `fromtimestamp`, `isoformat`, `strftime` (the
//!   directives whose output depends on neither platform nor locale), `timestamp()`,
//!   `replace`, `astimezone(tz)`; `time.time()` is the fixed instant and `time.sleep()`
//!   returns at once. The `time` class, named zones, `fold=1` and `strptime` are outside.
//! - **Bytes**: literals, `len`, `==` and ordering, `+`, `*`, `in`, indexing, slicing,
//!   iteration, `bytes(…)`, `str.encode()`, `bytes.decode()` and `str(b, encoding)` in
//!   UTF-8 (`utf-8-sig` too), ASCII and Latin-1 with the `strict`, `ignore` and
//!   `replace` handlers and CPython's `UnicodeEncodeError`/`UnicodeDecodeError`.
//! - **`json`** (`import json`, `from json import …`): `dumps` (`indent`, `sort_keys`,
//!   `ensure_ascii`, `separators`, `skipkeys`, `allow_nan`, `default`) with CPython's
//!   output and errors, and `loads` of a `str` or UTF-8 `bytes` with its
//!   `JSONDecodeError` messages (`Expecting value: line 1 column 1 (char 0)`).
//! - **`re`** (`import re`, `import re as r`, `from re import …`) on the `regex-lite`
//!   engine: `compile`, `search`, `match`, `fullmatch`, `findall`, `finditer` (a list),
//!   `sub`/`subn` (`\1`, `\g<name>` templates or a function), `split`, `escape`, the
//!   flags (`I`, `M`, `S`, `A`, `X`, combined with `|`, and inline `(?i)`, `(?i:…)`),
//!   `re.error` with CPython's messages and positions, pattern objects (the same
//!   methods with `pos`/`endpos`, `.pattern`, `.flags`, `.groups`) and match objects
//!   (`group()` in all its forms, `groups()`, `groupdict()`, `start()`, `end()`,
//!   `span()`, `expand()`, `m[1]`, `lastindex`, `lastgroup`), with CPython's reprs.
//!   What regex-lite cannot express stops the run at the construct: lookarounds,
//!   backreferences, atomic groups, possessive repeats, conditionals, `\N{…}` and bytes
//!   patterns; so do `\d`, `\w`, `\s`, `\b` and `re.IGNORECASE` without `re.ASCII` on
//!   a `str` with non-ASCII characters (CPython's are Unicode-aware, regex-lite's
//!   ASCII-only), `$` without `re.MULTILINE` on a multi-line `str` ending in a newline,
//!   an empty match where CPython would retry for a longer one at the same place, and
//!   `re.error`'s attributes (`msg`, `pattern`, `pos`, `lineno`, `colno`).
//!
//! Values have Python's reference semantics (a list appended to through one name is
//! changed for every name). Known differences from CPython, all deliberate: integers are
//! 64-bit (a result beyond that stops the run rather than growing); calling an `async
//! def` runs it at once; a `def`'s parameter defaults are evaluated at each call; `/` and
//! `*` markers in a signature are ignored; `ValidationError` messages leave out
//! pydantic's documentation link; dicts are searched linearly (each lookup costs steps in
//! proportion to the dict's size); a set is a list, so `json.dumps` writes it as an
//! array; a `JSONDecodeError` or a `Unicode…Error` has its message and `args` but not its
//! other attributes (`pos`, `lineno`, `start`…); a lone surrogate in a JSON string, JSON
//! bytes in UTF-16 or UTF-32, and codecs other than those above stop the run; `__exit__`
//! gets `None` for the traceback; a function's `repr` has no address, an instance's
//! default `repr` is `<C object>` and a class's `<class 'C'>` (no module, in a
//! dataclass's mutable-default `ValueError` too); a `frozenset` is a list too (it
//! compares as a set and has no list methods; hashing it and its set operators stop the
//! run); instances are always true; a module-level name's value is computed on first use
//! in a process (then kept), not at import (so is a class: an error creating one, such as
//! a dataclass's mutable default, is raised where it is first used), and a module-level
//! statement that binds no name (`sys.path.insert(…)`, `load_dotenv()`) is read but not
//! run; `re`'s flags are plain `int`s (`re.I | re.M` is `10`), and `re.finditer` returns
//! a list; two equal `datetime` values are the same object for `is`.
//!
//! Limits, each reported where it is hit: [`MAX_STEPS`] evaluation steps per call (bulk
//! work such as copying or searching a container costs one step per [`WORK_PER_STEP`]
//! elements; a regular-expression search several elements per byte it may read),
//! [`MAX_CALL_DEPTH`] nested calls (lambdas and methods included), [`MAX_SIZE`] elements
//! or characters per `str`, `bytes`, `list`, `dict` or `range` (a `MemoryError` is raised
//! instead of allocating), [`MAX_NESTING`] levels of expression and block nesting when
//! compiling, [`MAX_VALUE_DEPTH`] levels of nested values, and [`MAX_RECURSION`] nested
//! evaluations in all. No input panics, recurses without bound or runs without end.

mod ast;
mod builtins;
mod classes;
mod codec;
mod compile;
mod datetime;
mod eval;
mod follow;
mod format;
mod json;
mod link;
mod net;
mod ops;
mod os;
mod parse;
mod re;
mod re_syntax;
mod runtime;
mod stdlib;
mod value;

use std::collections::BTreeMap;

use serde::Serialize;

use swaplab_base::diagnostic::{Diagnostic, LineTable, Span};

pub(crate) use ast::LambdaDef;
pub use datetime::FIXED_DATE;
pub use link::Library;
pub use net::{Delivery, HttpRequest, HttpResponse, reason_phrase};
pub use os::read_dotenv;
pub use value::PyValue;

/// Evaluation steps one call may take: each statement and expression evaluated is one
/// step, and bulk work costs one step per [`WORK_PER_STEP`] elements touched.
pub const MAX_STEPS: u64 = 100_000;

/// Elements (or characters) of bulk work that cost one evaluation step.
pub(crate) const WORK_PER_STEP: u64 = 64;

/// Nested calls of the file's functions, the called tool included.
pub const MAX_CALL_DEPTH: usize = 32;

/// Largest `str` (in characters), `list`, `tuple`, `dict` or `range` (in elements) a run
/// may build; a larger one raises `MemoryError` instead of being allocated.
pub const MAX_SIZE: usize = 1_000_000;

/// Deepest nesting of an expression (brackets, operators, trailers) or of blocks that
/// compiles.
pub const MAX_NESTING: usize = 100;

/// Deepest nesting of values (a list in a dict in a list…) that is printed, compared or
/// handed across the boundary; deeper raises `RecursionError`.
pub const MAX_VALUE_DEPTH: usize = 100;

/// Nested evaluations (statements, expressions, calls) in all, so that the native stack
/// stays bounded whatever combination of the other limits a body reaches.
pub const MAX_RECURSION: usize = 400;

/// Code of a construct outside the subset.
pub(crate) const UNSUPPORTED: &str = super::tools::UNSUPPORTED;

/// Code of a limit reached, when compiling or running.
pub(crate) const LIMIT: &str = "swaplab.python.limit";

/// An exception the [`Host`] raises into the tool's body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HostError {
    /// The exception's class name (`RuntimeError`, `MemoryWriteError`); unknown names
    /// are treated as direct subclasses of `Exception`.
    pub exc_type: String,
    /// `str(exc)`.
    pub message: String,
}

impl HostError {
    /// An exception of class `exc_type` with this message.
    pub fn new(exc_type: impl Into<String>, message: impl Into<String>) -> HostError {
        HostError { exc_type: exc_type.into(), message: message.into() }
    }
}

/// What the tool's body can reach outside itself.
pub trait Host {
    /// `<client>.<function>(…)` where `<client>` was imported with
    /// `from hubspot_client import <client>` (any alias). `span` is the whole call.
    fn crm_call(
        &mut self,
        function: &str,
        args: &[PyValue],
        kwargs: &[(String, PyValue)],
        span: Span,
    ) -> Result<PyValue, HostError>;

    /// `context.memory.get(path, default=None)`.
    fn memory_get(&mut self, path: &str, default: PyValue, span: Span) -> PyValue;

    /// `context.memory.set(path, value)`; `Err` raises in the body (the Rasa runtime turns
    /// `MemoryWriteError` into the tool's result — that is the caller's business).
    fn memory_set(&mut self, path: &str, value: PyValue, span: Span) -> Result<(), HostError>;

    /// An HTTP request the body's `httpx` client sends (`span` is the call). By default
    /// nothing listens anywhere.
    fn http(&mut self, request: &HttpRequest, span: Span) -> Delivery {
        let _ = (request, span);
        Delivery::Refused
    }
}

/// How a call ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The function returned this value (`None` when it fell off its end).
    Returned(PyValue),
    /// An exception escaped the function. `str(exc)` is `message`.
    Raised {
        /// The exception's class name.
        exc_type: String,
        /// `str(exc)`.
        message: String,
        /// Where it was raised.
        span: Span,
        /// The file `span` is in: the called function's, or a project module's it
        /// imports.
        path: String,
    },
    /// The body used something outside the supported subset, or hit a limit; the
    /// diagnostic points at the token (code `swaplab.python.unsupported` or
    /// `swaplab.python.limit`, `Phase::Read`, `Severity::Error`) and says what.
    Unsupported(Diagnostic),
}

/// One file, compiled, with the project's modules it imports: its functions, models and
/// module-level names, ready to call.
#[derive(Clone, Debug)]
pub struct Program {
    /// Syntax errors and constructs outside the subset in the file itself, in file
    /// order. A function whose body has one is kept; calling it returns
    /// [`Outcome::Unsupported`]. (An imported module's problems are reported where it
    /// is read as a file of its own.)
    pub diagnostics: Vec<Diagnostic>,
    /// The file (`units[0]`) and the project's modules it imports, in the order they
    /// were first imported.
    units: Vec<Unit>,
    functions: Vec<ast::Function>,
    models: Vec<ast::Model>,
    classes: Vec<ast::ClassDef>,
    assignments: Vec<ast::Assignment>,
    conditionals: Vec<ast::Conditional>,
    /// User-defined exception classes and their base class.
    exc_parents: BTreeMap<String, String>,
    /// The class of each user exception class, by name.
    exc_classes: BTreeMap<String, usize>,
    /// Every `lambda` of the files.
    lambdas: Vec<std::sync::Arc<LambdaDef>>,
}

/// One file of a [`Program`]: its text and its module-level names.
#[derive(Clone, Debug)]
pub(crate) struct Unit {
    pub(crate) path: String,
    /// The dotted name it is imported by.
    pub(crate) module: String,
    pub(crate) text: String,
    /// `text`'s lines, indexed once for every call's spans.
    pub(crate) lines: LineTable,
    /// Every binding of each module-level name, in file order.
    pub(crate) globals: BTreeMap<String, ast::Versions>,
}

impl Unit {
    fn new(path: &str, text: &str, module: String) -> Unit {
        Unit {
            path: path.to_owned(),
            module,
            text: text.to_owned(),
            lines: LineTable::new(text),
            globals: BTreeMap::new(),
        }
    }
}

/// Compiles every module-level `def`/`async def` (tools and plain helpers) and every
/// pydantic `BaseModel` class of one file. Never panics; problems become
/// [`Program::diagnostics`].
pub fn compile_module(path: &str, text: &str) -> Program {
    compile::compile(path, text, &Library::default())
}

/// [`compile_module`], with the project's own modules importable from `library`: a
/// `from lib.hubspot import HubSpotClient` in the file runs `lib/hubspot.py`'s code.
pub fn compile_linked(path: &str, text: &str, library: &Library<'_>) -> Program {
    compile::compile(path, text, library)
}

impl Program {
    /// Whether the file defines a module-level function named `name`.
    pub fn has_function(&self, name: &str) -> bool {
        self.function_index(name).is_some()
    }

    /// The names of the module-level functions, in file order (a redefined name once,
    /// where it was last defined).
    pub fn function_names(&self) -> Vec<&str> {
        self.functions
            .iter()
            .enumerate()
            .filter(|(i, f)| {
                f.class.is_none() && f.file == 0 && self.function_index(&f.name) == Some(*i)
            })
            .map(|(_, f)| f.name.as_str())
            .collect()
    }

    /// Calls `function` with keyword arguments (the model's arguments, already validated
    /// by the caller). Parameters missing from `kwargs` take their default or raise
    /// `TypeError`. With `with_context`, a parameter named `context` (or annotated
    /// `ToolContext`) receives [`PyValue::Context`]; otherwise it gets its default or
    /// `None`. A FastMCP `Context`-annotated parameter gets `None`.
    pub fn call(
        &self,
        function: &str,
        kwargs: &[(String, PyValue)],
        with_context: bool,
        host: &mut dyn Host,
    ) -> Outcome {
        match self.function_index(function) {
            Some(index) => {
                eval::run(self, &mut eval::State::default(), index, kwargs, with_context, host)
            }
            None => Outcome::Raised {
                exc_type: "NameError".to_owned(),
                message: format!("name '{function}' is not defined"),
                span: Span::point(swaplab_base::diagnostic::Position::START),
                path: self.path().to_owned(),
            },
        }
    }

    /// Why the scanner's textual reading of `function`'s body (its CRM calls, memory
    /// accesses and result keys) may leave something out: the body is outside the subset,
    /// or it calls another function of the file, or it uses something the subset does
    /// not have. The words follow "because "; `None` when the body is read whole, or
    /// when the file defines no such function.
    pub fn unfollowed(&self, function: &str) -> Option<String> {
        let function = self.functions.get(self.function_index(function)?)?;
        follow::unfollowed(self, function)
    }

    /// The function that `name` refers to at module level (the last definition wins).
    pub(crate) fn function_at(&self, name: &str) -> Option<usize> {
        self.function_index(name)
    }

    /// The function that `name` refers to at module level of the file itself (the last
    /// definition wins).
    fn function_index(&self, name: &str) -> Option<usize> {
        self.functions.iter().rposition(|f| f.class.is_none() && f.file == 0 && f.name == name)
    }

    /// The file's path.
    pub fn path(&self) -> &str {
        self.units.first().map_or("", |u| u.path.as_str())
    }

    /// The paths of the project's files it imports (not its own), in import order; a
    /// namespace package is its folder, with a trailing `/`.
    pub fn imported_paths(&self) -> impl Iterator<Item = &str> {
        self.units.iter().skip(1).map(|u| u.path.as_str())
    }

    /// Whether every file it was compiled from still has the text it had: `text_of`
    /// gives a path's text now (`None` when it is gone).
    pub fn is_current<'t>(&self, text_of: impl Fn(&str) -> Option<&'t str>) -> bool {
        self.units
            .iter()
            .all(|u| u.path.ends_with('/') || text_of(&u.path).is_some_and(|t| t == u.text))
    }
}

/// A program running as a process: its modules are imported once, and what their code
/// computes at module level (a `NOTES = []` a handler appends to, a client built once)
/// stays from one call to the next, as in a Python process that serves many requests.
/// [`Program::call`] is a process that ends after one call.
pub struct Process {
    program: std::sync::Arc<Program>,
    state: eval::State,
}

impl Process {
    /// A new process running `program`, nothing imported yet, with an empty
    /// environment.
    pub fn new(program: std::sync::Arc<Program>) -> Process {
        Process::with_environment(program, Vec::new())
    }

    /// A new process whose `os.environ` starts as `env` (name, value), in order.
    pub fn with_environment(
        program: std::sync::Arc<Program>,
        env: Vec<(String, String)>,
    ) -> Process {
        let mut state = eval::State::default();
        state.env = env.into();
        Process { program, state }
    }

    /// The program it runs.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// [`Program::call`], in this process: module-level values computed by earlier calls
    /// are kept.
    pub fn call(
        &mut self,
        function: &str,
        kwargs: &[(String, PyValue)],
        with_context: bool,
        host: &mut dyn Host,
    ) -> Outcome {
        match self.program.function_at(function) {
            Some(index) => {
                eval::run(&self.program, &mut self.state, index, kwargs, with_context, host)
            }
            None => self.program.call(function, kwargs, with_context, host),
        }
    }
}

impl Process {
    /// The classes of the file that derive from `http.server.BaseHTTPRequestHandler`,
    /// by name, in file order.
    pub fn handler_classes(&self) -> Vec<&str> {
        let program = &*self.program;
        program
            .classes
            .iter()
            .filter(|c| c.file == 0)
            .enumerate()
            .filter(|(_, c)| {
                let mut current = Some(*c);
                let mut hops = 0;
                while let Some(class) = current {
                    if class.handler {
                        return true;
                    }
                    hops += 1;
                    current = class.base.filter(|_| hops < 64).and_then(|b| program.classes.get(b));
                }
                false
            })
            .map(|(_, c)| c.name.as_str())
            .collect()
    }

    /// Module-level `name` of the file, computed in this process (a server's `HOST` and
    /// `PORT`).
    pub fn global(&mut self, name: &str, host: &mut dyn Host) -> Outcome {
        eval::global_value(&self.program, &mut self.state, name, host)
    }

    /// Serves one request with the file's handler class `class`, as `http.server` would
    /// in this process: the answer, or [`Delivery::Disconnected`] when the handler raised
    /// or wrote no response, or [`Delivery::Stopped`] when it used something outside the
    /// subset. The handler's own failure, if any, comes second.
    pub fn serve(
        &mut self,
        class: &str,
        request: &HttpRequest,
        host: &mut dyn Host,
    ) -> (Delivery, Option<Outcome>) {
        let Some(index) = self.program.classes.iter().rposition(|c| c.file == 0 && c.name == class)
        else {
            return (Delivery::Refused, None);
        };
        match eval::serve(&self.program, &mut self.state, index, request, host) {
            Ok(response) => (Delivery::Answered(response), None),
            Err(Outcome::Unsupported(diagnostic)) => {
                (Delivery::Stopped(diagnostic.clone()), Some(Outcome::Unsupported(diagnostic)))
            }
            Err(Outcome::Returned(_)) => (Delivery::Disconnected, None),
            Err(outcome) => (Delivery::Disconnected, Some(outcome)),
        }
    }
}

impl std::fmt::Debug for Process {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Process").field("program", &self.program.path()).finish_non_exhaustive()
    }
}
