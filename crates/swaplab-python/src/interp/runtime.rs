//! Values while a call runs: Python's reference semantics with `Rc` (a list appended to
//! through one name changes for all), the builtin types and functions as values, and the
//! exception class hierarchy.
//!
//! Containers drop iteratively, so a list nested a million levels deep frees without
//! recursion; cycles are broken when the call ends (see [`super::eval`]).

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

/// A Python value inside a run, live: containers and instances are `Rc`-shared, so a
/// change through one name shows through every other, and functions, classes, modules,
/// exceptions and bound methods are values too. It never leaves the interpreter (a
/// [`super::Process`] keeps its module-level names between calls): the host and the
/// caller get a [`super::PyValue`], an owned plain-data copy made by `py_of`, and what
/// they hand in becomes live with `run_value_of` (both in `eval.rs`).
#[derive(Clone)]
pub(crate) enum RunValue {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Rc<str>),
    Bytes(Rc<[u8]>),
    List(Rc<ListObj>),
    Tuple(Rc<TupleObj>),
    Dict(Rc<DictObj>),
    /// A pydantic model instance or a `ToolResult`.
    Object(Rc<ObjectObj>),
    Exc(Rc<ExcObj>),
    /// `range(start, stop, step)`.
    Range(i64, i64, i64),
    /// Rasa's `ToolContext`.
    Context,
    /// `context.memory`.
    Memory,
    /// The CRM client.
    Client,
    Function(usize),
    /// A `lambda`, with what it closed over.
    Lambda(Rc<Closure>),
    /// A plain class of the file.
    Class(usize),
    /// An instance of one.
    Instance(Rc<InstanceObj>),
    /// A function bound to the instance it was looked up on.
    Method(Rc<MethodObj>),
    /// `super()`: attribute lookup from the class after `class` in `receiver`'s chain.
    Super(Rc<MethodObj>),
    Model(usize),
    ToolResult,
    ExcClass(Rc<str>),
    Type(Ty),
    Builtin(Builtin),
    /// A module of the standard library the subset knows.
    Module(StdModule),
    /// A module of the project itself: its unit in the program.
    Unit(usize),
    /// An `httpx` client or response, headers, or a handler's `rfile`/`wfile`.
    Native(Rc<super::net::Native>),
    /// A method looked up on a value, not called yet.
    Bound(Rc<BoundObj>),
    /// A method `@dataclass` generated for a class (`__init__`, `__repr__`, `__eq__`).
    Generated(Generated),
    /// A compiled regular expression (`re.Pattern`).
    Pattern(Rc<super::re::Compiled>),
    /// A regular-expression match (`re.Match`).
    Match(Rc<super::re::MatchObj>),
    /// A `datetime`, `date`, `timedelta` or `timezone`.
    Temporal(super::datetime::Temporal),
    /// One of those classes.
    TemporalClass(super::datetime::Kind),
    /// Something outside the subset (an imported module or name, a class): using it
    /// stops the run. The text says what it is.
    Foreign(Rc<str>),
}

/// A method `@dataclass` generated: the dataclass whose fields it uses, and which.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Generated {
    pub(crate) class: usize,
    pub(crate) kind: GeneratedKind,
}

/// The methods `@dataclass` generates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GeneratedKind {
    Init,
    Repr,
    Eq,
}

impl GeneratedKind {
    /// The method's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            GeneratedKind::Init => "__init__",
            GeneratedKind::Repr => "__repr__",
            GeneratedKind::Eq => "__eq__",
        }
    }
}

/// A `list` (or a `frozenset`, which is a list without duplicates here).
#[derive(Default)]
pub(crate) struct ListObj {
    pub(crate) items: RefCell<Vec<RunValue>>,
    /// Whether it is a `frozenset`: hashing it is refused, it compares as a set, and it
    /// has none of a list's methods.
    pub(crate) frozen: Cell<bool>,
}

/// A `tuple`.
pub(crate) struct TupleObj {
    pub(crate) items: Vec<RunValue>,
}

/// A `dict`: entries in insertion order.
#[derive(Default)]
pub(crate) struct DictObj {
    pub(crate) entries: RefCell<Vec<(RunValue, RunValue)>>,
}

/// A model instance (`model` is its index) or a `ToolResult` (`model` is `None`).
pub(crate) struct ObjectObj {
    pub(crate) class: Rc<str>,
    pub(crate) model: Option<usize>,
    pub(crate) fields: Vec<(Rc<str>, RunValue)>,
}

/// An exception instance.
pub(crate) struct ExcObj {
    pub(crate) class: Rc<str>,
    /// `args`: the positional arguments it was made with, until an `__init__` of a
    /// builtin exception class sets them.
    pub(crate) args: RefCell<Vec<RunValue>>,
    /// `__cause__`: set by `raise … from …`.
    pub(crate) cause: RefCell<Option<Rc<ExcObj>>>,
    /// `__context__`: the exception being handled when this one was raised.
    pub(crate) context: RefCell<Option<Rc<ExcObj>>>,
    /// `__suppress_context__`: true after `raise … from …` (`from None` included).
    pub(crate) suppress_context: Cell<bool>,
    /// Attributes of its own (`response` on `httpx.HTTPStatusError`).
    pub(crate) attrs: RefCell<Vec<(Rc<str>, RunValue)>>,
}

impl ExcObj {
    /// An exception of `class` with these arguments, no cause and no context.
    pub(crate) fn new(class: Rc<str>, args: Vec<RunValue>) -> ExcObj {
        ExcObj {
            class,
            args: RefCell::new(args),
            cause: RefCell::new(None),
            context: RefCell::new(None),
            suppress_context: Cell::new(false),
            attrs: RefCell::new(Vec::new()),
        }
    }
}

/// An instance of a plain class of the file: its class and its attributes, in the
/// order they were set.
pub(crate) struct InstanceObj {
    pub(crate) class: usize,
    pub(crate) attrs: RefCell<Vec<(Rc<str>, RunValue)>>,
}

/// A bound method (`function` called with `receiver` first), or for `super()` the
/// class (`RunValue::Class`) the lookup starts after.
pub(crate) struct MethodObj {
    pub(crate) receiver: RunValue,
    pub(crate) function: RunValue,
}

/// `receiver.name`, a method not yet called.
pub(crate) struct BoundObj {
    pub(crate) receiver: RunValue,
    pub(crate) name: Rc<str>,
}

/// The variables of one scope: a call of a function or a lambda, a comprehension, or
/// the module level. Shared (`Rc`) so that a lambda sees its enclosing scopes live, as a
/// Python closure does.
pub(crate) struct Env {
    pub(crate) vars: RefCell<BTreeMap<String, RunValue>>,
    pub(crate) scope: Scope,
    /// The lexically enclosing scope, for a lambda's or a comprehension's free names.
    pub(crate) parent: Option<Rc<Env>>,
}

/// What kind of scope an [`Env`] is.
#[derive(Clone)]
pub(crate) enum Scope {
    Module,
    /// A call of function `index` of the file.
    Function(usize),
    /// A call of a lambda with this `__qualname__`.
    Lambda(Rc<str>),
    /// A comprehension's loop variables (Python 3.12 inlines it in its scope).
    Comprehension,
}

/// A lambda: its definition (an index into the run's table), `__qualname__`, the values
/// of its defaults (evaluated when the lambda was), and the scope it was created in.
pub(crate) struct Closure {
    pub(crate) def: std::sync::Arc<super::ast::LambdaDef>,
    pub(crate) qualname: Rc<str>,
    pub(crate) defaults: Vec<RunValue>,
    pub(crate) env: Option<Rc<Env>>,
    /// The unit it was made in: its free names are that module's.
    pub(crate) file: usize,
}

/// Frees the values on `stack` and everything only they hold, without recursion.
fn dismantle(stack: Vec<RunValue>) {
    dismantle_all(stack, Vec::new());
}

/// Frees values and scopes, and everything only they hold, without recursion.
fn dismantle_all(mut stack: Vec<RunValue>, mut envs: Vec<Rc<Env>>) {
    loop {
        let Some(value) = stack.pop() else {
            let Some(env) = envs.pop() else { break };
            if let Some(mut env) = Rc::into_inner(env) {
                stack.extend(env.vars.take().into_values());
                envs.extend(env.parent.take());
            }
            continue;
        };
        match value {
            RunValue::Lambda(rc) => {
                if let Some(closure) = Rc::into_inner(rc) {
                    let (defaults, env) = closure.take();
                    stack.extend(defaults);
                    envs.extend(env);
                }
            }
            RunValue::List(rc) => {
                if let Some(list) = Rc::into_inner(rc) {
                    stack.append(&mut list.items.take());
                }
            }
            RunValue::Tuple(rc) => {
                if let Some(mut tuple) = Rc::into_inner(rc) {
                    stack.append(&mut tuple.items);
                }
            }
            RunValue::Dict(rc) => {
                if let Some(dict) = Rc::into_inner(rc) {
                    for (k, v) in dict.entries.take() {
                        stack.push(k);
                        stack.push(v);
                    }
                }
            }
            RunValue::Object(rc) => {
                if let Some(mut object) = Rc::into_inner(rc) {
                    stack.extend(std::mem::take(&mut object.fields).into_iter().map(|(_, v)| v));
                }
            }
            RunValue::Exc(rc) => {
                if let Some(exc) = Rc::into_inner(rc) {
                    stack.append(&mut exc.args.take());
                    stack.extend(exc.cause.take().map(RunValue::Exc));
                    stack.extend(exc.context.take().map(RunValue::Exc));
                    stack.extend(exc.attrs.take().into_iter().map(|(_, v)| v));
                }
            }
            RunValue::Bound(rc) => {
                if let Some(mut bound) = Rc::into_inner(rc) {
                    stack.push(std::mem::replace(&mut bound.receiver, RunValue::None));
                }
            }
            RunValue::Instance(rc) => {
                if let Some(instance) = Rc::into_inner(rc) {
                    stack.extend(instance.attrs.take().into_iter().map(|(_, v)| v));
                }
            }
            RunValue::Method(rc) | RunValue::Super(rc) => {
                if let Some(mut method) = Rc::into_inner(rc) {
                    stack.push(std::mem::replace(&mut method.receiver, RunValue::None));
                    stack.push(std::mem::replace(&mut method.function, RunValue::None));
                }
            }
            _ => {}
        }
    }
}

impl Drop for ListObj {
    fn drop(&mut self) {
        let items = std::mem::take(self.items.get_mut());
        if !items.is_empty() {
            dismantle(items);
        }
    }
}

impl Drop for TupleObj {
    fn drop(&mut self) {
        let items = std::mem::take(&mut self.items);
        if !items.is_empty() {
            dismantle(items);
        }
    }
}

impl Drop for DictObj {
    fn drop(&mut self) {
        let entries = std::mem::take(self.entries.get_mut());
        if !entries.is_empty() {
            dismantle(entries.into_iter().flat_map(|(k, v)| [k, v]).collect());
        }
    }
}

impl Drop for ObjectObj {
    fn drop(&mut self) {
        let fields = std::mem::take(&mut self.fields);
        if !fields.is_empty() {
            dismantle(fields.into_iter().map(|(_, v)| v).collect());
        }
    }
}

impl Drop for ExcObj {
    fn drop(&mut self) {
        let mut held = std::mem::take(self.args.get_mut());
        held.extend(self.cause.take().map(RunValue::Exc));
        held.extend(self.context.take().map(RunValue::Exc));
        held.extend(std::mem::take(self.attrs.get_mut()).into_iter().map(|(_, v)| v));
        if !held.is_empty() {
            dismantle(held);
        }
    }
}

impl Closure {
    /// The defaults and the scope, leaving the closure empty.
    fn take(mut self) -> (Vec<RunValue>, Option<Rc<Env>>) {
        (std::mem::take(&mut self.defaults), self.env.take())
    }
}

impl Drop for Closure {
    fn drop(&mut self) {
        let defaults = std::mem::take(&mut self.defaults);
        let env = self.env.take();
        if !defaults.is_empty() || env.is_some() {
            dismantle_all(defaults, env.into_iter().collect());
        }
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        let vars = std::mem::take(self.vars.get_mut());
        let parent = self.parent.take();
        if !vars.is_empty() || parent.is_some() {
            dismantle_all(vars.into_values().collect(), parent.into_iter().collect());
        }
    }
}

impl Drop for InstanceObj {
    fn drop(&mut self) {
        let attrs = std::mem::take(self.attrs.get_mut());
        if !attrs.is_empty() {
            dismantle(attrs.into_iter().map(|(_, v)| v).collect());
        }
    }
}

impl Drop for MethodObj {
    fn drop(&mut self) {
        let receiver = std::mem::replace(&mut self.receiver, RunValue::None);
        let function = std::mem::replace(&mut self.function, RunValue::None);
        dismantle(vec![receiver, function]);
    }
}

impl Drop for BoundObj {
    fn drop(&mut self) {
        let receiver = std::mem::replace(&mut self.receiver, RunValue::None);
        dismantle(vec![receiver]);
    }
}

impl RunValue {
    /// A `str`.
    pub(crate) fn str(text: &str) -> RunValue {
        RunValue::Str(Rc::from(text))
    }

    /// A `tuple`.
    pub(crate) fn tuple(items: Vec<RunValue>) -> RunValue {
        RunValue::Tuple(Rc::new(TupleObj { items }))
    }

    /// A method of `receiver`.
    pub(crate) fn bound(receiver: RunValue, name: &str) -> RunValue {
        RunValue::Bound(Rc::new(BoundObj { receiver, name: Rc::from(name) }))
    }

    /// An exception of `class` with these arguments.
    pub(crate) fn exception(class: &str, args: Vec<RunValue>) -> Rc<ExcObj> {
        Rc::new(ExcObj::new(Rc::from(class), args))
    }

    /// Python's truthiness.
    pub(crate) fn truthy(&self) -> bool {
        match self {
            RunValue::None => false,
            RunValue::Bool(b) => *b,
            RunValue::Int(n) => *n != 0,
            RunValue::Float(f) => *f != 0.0,
            RunValue::Str(s) => !s.is_empty(),
            RunValue::Bytes(b) => !b.is_empty(),
            RunValue::List(l) => !l.items.borrow().is_empty(),
            RunValue::Tuple(t) => !t.items.is_empty(),
            RunValue::Dict(d) => !d.entries.borrow().is_empty(),
            RunValue::Range(start, stop, step) => range_len(*start, *stop, *step) > 0,
            RunValue::Temporal(t) => t.truthy(),
            _ => true,
        }
    }

    /// The number as an `i64`, for `int` and `bool`.
    pub(crate) fn as_int(&self) -> Option<i64> {
        match self {
            RunValue::Int(n) => Some(*n),
            RunValue::Bool(b) => Some(i64::from(*b)),
            _ => None,
        }
    }

    /// The number as an `f64`, for `int`, `bool` and `float`.
    pub(crate) fn as_float(&self) -> Option<f64> {
        match self {
            RunValue::Float(f) => Some(*f),
            #[allow(clippy::cast_precision_loss)]
            other => other.as_int().map(|n| n as f64),
        }
    }

    /// Whether this is an `int`, `bool` or `float`.
    pub(crate) fn is_number(&self) -> bool {
        matches!(self, RunValue::Int(_) | RunValue::Bool(_) | RunValue::Float(_))
    }
}

/// How many values `range(start, stop, step)` yields.
pub(crate) fn range_len(start: i64, stop: i64, step: i64) -> u64 {
    let (start, stop, step) = (i128::from(start), i128::from(stop), i128::from(step));
    let len = if step > 0 && start < stop {
        (stop - start - 1) / step + 1
    } else if step < 0 && start > stop {
        (start - stop - 1) / (-step) + 1
    } else {
        0
    };
    u64::try_from(len).unwrap_or(0)
}

/// The builtin types, callable and usable with `isinstance`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    Str,
    Int,
    Float,
    Bool,
    List,
    Tuple,
    Dict,
    /// `set`: a list without duplicates here.
    Set,
    /// `frozenset`: a `set` here.
    FrozenSet,
    Bytes,
}

impl Ty {
    /// The type's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Ty::Str => "str",
            Ty::Int => "int",
            Ty::Float => "float",
            Ty::Bool => "bool",
            Ty::List => "list",
            Ty::Tuple => "tuple",
            Ty::Dict => "dict",
            Ty::Set => "set",
            Ty::FrozenSet => "frozenset",
            Ty::Bytes => "bytes",
        }
    }
}

/// The builtin functions the subset has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Builtin {
    Len,
    Repr,
    Sorted,
    Reversed,
    Min,
    Max,
    Sum,
    Any,
    All,
    Isinstance,
    Enumerate,
    Zip,
    Range,
    Print,
    Abs,
    Round,
    Chr,
    Ord,
    Format,
    /// `next()`, of a generator expression only.
    Next,
    /// `super()`.
    Super,
    /// `type(x)`, with one argument.
    Type,
    /// `json.dumps`.
    JsonDumps,
    /// `json.loads`.
    JsonLoads,
    /// `os.getenv`.
    Getenv,
    /// `dotenv.load_dotenv`.
    LoadDotenv,
    /// `os.path.join`.
    PathJoin,
    /// `os.path.dirname`.
    PathDirname,
    /// `os.path.basename`.
    PathBasename,
    /// `os.path.abspath`.
    PathAbspath,
    /// `map(function, iterable, …)`, made eagerly into a list.
    Map,
    /// `filter(function or None, iterable)`, made eagerly into a list.
    Filter,
    /// `requests.Session`.
    RequestsSession,
    /// `httpx.Client`.
    HttpxClient,
    /// `httpx.AsyncClient`.
    HttpxAsyncClient,
    /// `dataclasses.asdict`.
    Asdict,
    /// `dataclasses.replace`.
    Replace,
    /// `contextlib.suppress`.
    Suppress,
    /// `urllib.parse.parse_qs`.
    ParseQs,
    /// `urllib.parse.parse_qsl`.
    ParseQsl,
    /// `urllib.parse.urlparse`.
    Urlparse,
    /// `urllib.parse.urlsplit`.
    Urlsplit,
    /// `urllib.parse.urlencode`.
    Urlencode,
    /// `urllib.parse.quote`.
    Quote,
    /// `urllib.parse.quote_plus`.
    QuotePlus,
    /// `urllib.parse.unquote`.
    Unquote,
    /// `urllib.parse.unquote_plus`.
    UnquotePlus,
    /// A function of `re`.
    Re(super::re::ReFn),
    /// `time.time`.
    TimeTime,
    /// `time.sleep`.
    TimeSleep,
}

/// The modules of the standard library the subset knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StdModule {
    Json,
    /// `json.decoder`.
    JsonDecoder,
    /// `os`.
    Os,
    /// `os.path`.
    OsPath,
    /// `sys`.
    Sys,
    /// python-dotenv's `dotenv`.
    Dotenv,
    /// `httpx`.
    Httpx,
    /// `http`, the package.
    Http,
    /// `http.server`.
    HttpServer,
    /// `dataclasses`: its decorator and `field` are read when compiling.
    Dataclasses,
    /// `contextlib`.
    Contextlib,
    /// `urllib`, the package.
    Urllib,
    /// `urllib.parse`.
    UrllibParse,
    Re,
    /// `requests`.
    Requests,
    /// `requests.exceptions`.
    RequestsExceptions,
    /// `datetime`.
    Datetime,
    /// `time`.
    Time,
}

impl StdModule {
    /// The module's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            StdModule::Json => "json",
            StdModule::JsonDecoder => "json.decoder",
            StdModule::Os => "os",
            StdModule::OsPath => "posixpath",
            StdModule::Sys => "sys",
            StdModule::Dotenv => "dotenv",
            StdModule::Httpx => "httpx",
            StdModule::Http => "http",
            StdModule::HttpServer => "http.server",
            StdModule::Requests => "requests",
            StdModule::RequestsExceptions => "requests.exceptions",
            StdModule::Dataclasses => "dataclasses",
            StdModule::Contextlib => "contextlib",
            StdModule::Urllib => "urllib",
            StdModule::UrllibParse => "urllib.parse",
            StdModule::Re => "re",
            StdModule::Datetime => "datetime",
            StdModule::Time => "time",
        }
    }
}

impl Builtin {
    /// The function's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Builtin::Len => "len",
            Builtin::Repr => "repr",
            Builtin::Sorted => "sorted",
            Builtin::Reversed => "reversed",
            Builtin::Min => "min",
            Builtin::Max => "max",
            Builtin::Sum => "sum",
            Builtin::Any => "any",
            Builtin::All => "all",
            Builtin::Isinstance => "isinstance",
            Builtin::Enumerate => "enumerate",
            Builtin::Zip => "zip",
            Builtin::Range => "range",
            Builtin::Print => "print",
            Builtin::Abs => "abs",
            Builtin::Round => "round",
            Builtin::Chr => "chr",
            Builtin::Ord => "ord",
            Builtin::Format => "format",
            Builtin::Next => "next",
            Builtin::Super => "super",
            Builtin::Type => "type",
            Builtin::JsonDumps => "dumps",
            Builtin::JsonLoads => "loads",
            Builtin::Getenv => "getenv",
            Builtin::LoadDotenv => "load_dotenv",
            Builtin::PathJoin => "join",
            Builtin::PathDirname => "dirname",
            Builtin::PathBasename => "basename",
            Builtin::PathAbspath => "abspath",
            Builtin::Map => "map",
            Builtin::Filter => "filter",
            Builtin::RequestsSession => "Session",
            Builtin::HttpxClient => "Client",
            Builtin::HttpxAsyncClient => "AsyncClient",
            Builtin::Asdict => "asdict",
            Builtin::Replace => "replace",
            Builtin::Suppress => "suppress",
            Builtin::ParseQs => "parse_qs",
            Builtin::ParseQsl => "parse_qsl",
            Builtin::Urlparse => "urlparse",
            Builtin::Urlsplit => "urlsplit",
            Builtin::Urlencode => "urlencode",
            Builtin::Quote => "quote",
            Builtin::QuotePlus => "quote_plus",
            Builtin::Unquote => "unquote",
            Builtin::UnquotePlus => "unquote_plus",
            Builtin::Re(function) => function.name(),
            Builtin::TimeTime => "time",
            Builtin::TimeSleep => "sleep",
        }
    }
}

/// The value of a builtin name, if the subset has it.
pub(crate) fn builtin_value(name: &str) -> Option<RunValue> {
    const TYPES: [Ty; 10] = [
        Ty::Str,
        Ty::Int,
        Ty::Float,
        Ty::Bool,
        Ty::List,
        Ty::Tuple,
        Ty::Dict,
        Ty::Set,
        Ty::FrozenSet,
        Ty::Bytes,
    ];
    const FUNCTIONS: [Builtin; 24] = [
        Builtin::Map,
        Builtin::Filter,
        Builtin::Len,
        Builtin::Repr,
        Builtin::Sorted,
        Builtin::Reversed,
        Builtin::Min,
        Builtin::Max,
        Builtin::Sum,
        Builtin::Any,
        Builtin::All,
        Builtin::Isinstance,
        Builtin::Enumerate,
        Builtin::Zip,
        Builtin::Range,
        Builtin::Print,
        Builtin::Abs,
        Builtin::Round,
        Builtin::Chr,
        Builtin::Ord,
        Builtin::Format,
        Builtin::Next,
        Builtin::Super,
        Builtin::Type,
    ];
    if let Some(ty) = TYPES.iter().find(|t| t.name() == name) {
        return Some(RunValue::Type(*ty));
    }
    if let Some(function) = FUNCTIONS.iter().find(|f| f.name() == name) {
        return Some(RunValue::Builtin(*function));
    }
    if is_builtin_exception(name) && !NOT_BUILTINS.contains(&name) {
        return Some(RunValue::ExcClass(Rc::from(name)));
    }
    OTHER_BUILTINS
        .contains(&name)
        .then(|| RunValue::Foreign(Rc::from(format!("the builtin `{name}`").as_str())))
}

/// Python's other builtins: known, so using one is reported as outside the subset rather
/// than as an undefined name.
const OTHER_BUILTINS: [&str; 36] = [
    "getattr",
    "setattr",
    "hasattr",
    "delattr",
    "open",
    "eval",
    "exec",
    "id",
    "hash",
    "iter",
    "vars",
    "dir",
    "globals",
    "locals",
    "input",
    "divmod",
    "pow",
    "hex",
    "oct",
    "bin",
    "callable",
    "issubclass",
    "bytearray",
    "object",
    "property",
    "staticmethod",
    "classmethod",
    "compile",
    "__import__",
    "slice",
    "memoryview",
    "complex",
    "ascii",
    "aiter",
    "anext",
    "help",
];

/// The exception classes of [`EXCEPTIONS`] that are not builtins, but a module's.
const NOT_BUILTINS: [&str; 3] = ["ValidationError", "JSONDecodeError", "FrozenInstanceError"];

/// The builtin exception classes and their bases (`ValidationError` is pydantic's,
/// `JSONDecodeError` is `json`'s, `FrozenInstanceError` is `dataclasses`').
const EXCEPTIONS: [(&str, &str); 37] = [
    ("BaseException", ""),
    ("Exception", "BaseException"),
    ("KeyboardInterrupt", "BaseException"),
    ("SystemExit", "BaseException"),
    ("GeneratorExit", "BaseException"),
    ("ArithmeticError", "Exception"),
    ("ZeroDivisionError", "ArithmeticError"),
    ("OverflowError", "ArithmeticError"),
    ("FloatingPointError", "ArithmeticError"),
    ("LookupError", "Exception"),
    ("KeyError", "LookupError"),
    ("IndexError", "LookupError"),
    ("ValueError", "Exception"),
    ("UnicodeError", "ValueError"),
    ("UnicodeDecodeError", "UnicodeError"),
    ("UnicodeEncodeError", "UnicodeError"),
    ("JSONDecodeError", "ValueError"),
    ("ValidationError", "ValueError"),
    ("TypeError", "Exception"),
    ("AttributeError", "Exception"),
    ("FrozenInstanceError", "AttributeError"),
    ("NameError", "Exception"),
    ("UnboundLocalError", "NameError"),
    ("AssertionError", "Exception"),
    ("MemoryError", "Exception"),
    ("RuntimeError", "Exception"),
    ("RecursionError", "RuntimeError"),
    ("NotImplementedError", "RuntimeError"),
    ("StopIteration", "Exception"),
    ("ImportError", "Exception"),
    ("ModuleNotFoundError", "ImportError"),
    ("OSError", "Exception"),
    ("ConnectionError", "OSError"),
    ("TimeoutError", "OSError"),
    ("PermissionError", "OSError"),
    ("FileNotFoundError", "OSError"),
    ("Warning", "Exception"),
];

/// Whether `name` is a builtin exception class.
pub(crate) fn is_builtin_exception(name: &str) -> bool {
    EXCEPTIONS
        .iter()
        .chain(super::net::HTTPX_EXCEPTIONS.iter())
        .chain(super::net::REQUESTS_EXCEPTIONS.iter())
        .any(|(n, _)| *n == name)
}

/// The base class of a builtin exception class; unknown classes derive from `Exception`.
pub(crate) fn builtin_exception_parent(name: &str) -> Option<&'static str> {
    let all = EXCEPTIONS
        .iter()
        .chain(super::net::HTTPX_EXCEPTIONS.iter())
        .chain(super::net::REQUESTS_EXCEPTIONS.iter());
    match all.clone().find(|(n, _)| *n == name) {
        Some((_, "")) => None,
        Some((_, parent)) => Some(parent),
        None => Some("Exception"),
    }
}
