//! The tree the interpreter runs: statements and expressions of the subset, each with the
//! byte range of the source it came from, plus the module's functions, models and
//! module-level names.
//!
//! Every expression records its depth, which the parser caps, so that walking, cloning
//! and dropping a tree never recurses deeper than [`super::MAX_NESTING`].

use std::collections::BTreeSet;

use crate::Extra;
use swaplab_base::diagnostic::Diagnostic;

/// A byte range of the file: start, end.
pub(crate) type At = (usize, usize);

/// The key of a dict display's `**mapping` entry: a name no source can spell.
pub(crate) const UNPACK: &str = "**";

/// A literal.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Const {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
}

/// An expression, where it is, and how deep its tree is.
#[derive(Clone, Debug)]
pub(crate) struct Expr {
    pub(crate) kind: ExprKind,
    pub(crate) at: At,
    pub(crate) depth: usize,
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UnOp {
    Not,
    Neg,
    Pos,
    Invert,
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    MatMul,
    BitOr,
    BitXor,
    BitAnd,
    LShift,
    RShift,
}

impl BinOp {
    /// The operator as Python spells it.
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "** or pow()",
            BinOp::MatMul => "@",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::BitAnd => "&",
            BinOp::LShift => "<<",
            BinOp::RShift => ">>",
        }
    }
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Eq,
    NotEq,
    Lt,
    LtE,
    Gt,
    GtE,
    In,
    NotIn,
    Is,
    IsNot,
}

/// What a comprehension builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CompKind {
    List,
    Set,
    Dict,
    /// A generator expression, evaluated eagerly into a list.
    Gen,
}

/// The kinds of expression.
#[derive(Clone, Debug)]
pub(crate) enum ExprKind {
    Const(Const),
    FString(Vec<FPart>),
    Name(String),
    Attr(Box<Expr>, String),
    Subscript(Box<Expr>, Box<Expr>),
    /// `lower:upper:step`, only as the index of a subscript.
    Slice(Option<Box<Expr>>, Option<Box<Expr>>, Option<Box<Expr>>),
    Call(Box<Expr>, Vec<Expr>, Vec<(String, Expr)>),
    Await(Box<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Compare(Box<Expr>, Vec<(CmpOp, Expr)>),
    IfElse {
        test: Box<Expr>,
        body: Box<Expr>,
        orelse: Box<Expr>,
    },
    List(Vec<Expr>),
    Tuple(Vec<Expr>),
    Set(Vec<Expr>),
    /// Entries in order; an entry whose key is the name [`UNPACK`] is `**value`.
    Dict(Vec<(Expr, Expr)>),
    Comp {
        kind: CompKind,
        elt: Box<Expr>,
        value: Option<Box<Expr>>,
        clauses: Vec<Clause>,
    },
    Lambda(std::sync::Arc<LambdaDef>),
}

/// `lambda params: body`.
#[derive(Clone, Debug)]
pub(crate) struct LambdaDef {
    /// The parameters and their defaults (evaluated when the lambda is).
    pub(crate) params: Vec<(String, Option<Expr>)>,
    pub(crate) body: Expr,
}

/// `for target in iter if cond…` of a comprehension.
#[derive(Clone, Debug)]
pub(crate) struct Clause {
    pub(crate) target: Target,
    pub(crate) iter: Expr,
    pub(crate) conds: Vec<Expr>,
}

/// A piece of an f-string.
#[derive(Clone, Debug)]
pub(crate) enum FPart {
    Text(String),
    Field(Box<Field>),
}

/// `{expr!conversion:spec}` in an f-string.
#[derive(Clone, Debug)]
pub(crate) struct Field {
    pub(crate) expr: Expr,
    pub(crate) conversion: Option<char>,
    pub(crate) spec: Vec<FPart>,
}

/// What an assignment, `for` or `del` binds.
#[derive(Clone, Debug)]
pub(crate) enum Target {
    Name(String),
    Subscript(Box<Expr>, Box<Expr>, At),
    /// `object.name`.
    Attr(Box<Expr>, String, At),
    Unpack(Vec<Target>, At),
}

/// A statement and where it is.
#[derive(Clone, Debug)]
pub(crate) struct Stmt {
    pub(crate) kind: StmtKind,
    pub(crate) at: At,
}

/// The kinds of statement.
#[derive(Clone, Debug)]
pub(crate) enum StmtKind {
    Expr(Expr),
    Assign(Vec<Target>, Expr),
    AugAssign(Target, BinOp, Expr),
    If(Vec<(Expr, Vec<Stmt>)>, Vec<Stmt>),
    For(Target, Expr, Vec<Stmt>, Vec<Stmt>),
    While(Expr, Vec<Stmt>, Vec<Stmt>),
    Return(Option<Expr>),
    Pass,
    Break,
    Continue,
    Raise(Option<Expr>, Option<Expr>),
    Try {
        body: Vec<Stmt>,
        handlers: Vec<Handler>,
        orelse: Vec<Stmt>,
        finally: Vec<Stmt>,
    },
    Assert(Expr, Option<Expr>),
    Del(Vec<Target>),
    /// `name: annotation` without a value: makes `name` local, binds nothing.
    Declare(String),
    /// `with manager as target, …:` its block, and whether it is `async with`.
    With(Vec<(Expr, Option<Target>)>, Vec<Stmt>, bool),
}

/// `except [types [as name]]:` and its block.
#[derive(Clone, Debug)]
pub(crate) struct Handler {
    pub(crate) types: Option<Expr>,
    pub(crate) name: Option<String>,
    pub(crate) body: Vec<Stmt>,
}

/// What a parameter receives when the caller does not pass it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ParamKind {
    Plain,
    /// Rasa's `context: ToolContext`.
    RasaContext,
    /// FastMCP's `ctx: Context`.
    McpContext,
}

/// One parameter of a function.
#[derive(Clone, Debug)]
pub(crate) struct ParamDef {
    pub(crate) name: String,
    pub(crate) default: Option<Expr>,
    pub(crate) kind: ParamKind,
    /// 1 for `*args`, 2 for `**kwargs`, else 0.
    pub(crate) stars: u8,
}

/// A module-level function.
#[derive(Clone, Debug)]
pub(crate) struct Function {
    pub(crate) name: String,
    pub(crate) params: Vec<ParamDef>,
    /// The body, or why it cannot run.
    pub(crate) body: Result<Vec<Stmt>, Diagnostic>,
    /// Every name the body binds: Python's local variables.
    pub(crate) locals: BTreeSet<String>,
    /// The class of the file it is a method of (its name is then `Class.method`).
    pub(crate) class: Option<usize>,
    /// From `def` to the end of the body.
    pub(crate) range: At,
    /// The file (of [`super::Program`]'s units) it is defined in.
    pub(crate) file: usize,
}

/// How a model field gets its value when the call does not give one.
#[derive(Clone, Debug)]
pub(crate) enum FieldDefault {
    Required,
    Value(Expr),
    Factory(Expr),
    Unsupported(Box<Diagnostic>),
}

/// One field of a model.
#[derive(Clone, Debug)]
pub(crate) struct ModelField {
    pub(crate) name: String,
    pub(crate) default: FieldDefault,
}

/// A pydantic `BaseModel` class of the file.
#[derive(Clone, Debug)]
pub(crate) struct Model {
    pub(crate) name: String,
    /// Indices of the base classes that are models of the file.
    pub(crate) bases: Vec<usize>,
    /// All fields, inherited ones first, as pydantic orders them.
    pub(crate) fields: Vec<ModelField>,
    pub(crate) extra: Extra,
    /// Methods the class defines (not run: calling one is outside the subset).
    pub(crate) methods: Vec<String>,
    /// The file it is defined in.
    pub(crate) file: usize,
}

/// What a module-level name is bound to.
#[derive(Clone, Debug)]
pub(crate) enum Global {
    Function(usize),
    Model(usize),
    ToolResult,
    /// The CRM client (`from hubspot_client import crm`).
    Client,
    /// A module of the standard library the subset knows (`import json`).
    Module(super::runtime::StdModule),
    /// A function of one (`from json import dumps`).
    Builtin(super::runtime::Builtin),
    ExcClass(String),
    /// A plain class of the file (`class C:`), by its index.
    Class(usize),
    /// A name a module-level assignment binds: the index of the assignment in
    /// [`super::Program`]'s list, evaluated on first use in each call.
    Value(usize),
    /// A module of the project itself (`import lib.hubspot as hs`): its unit.
    Unit(usize),
    /// A name of a standard module the subset knows (`from os import environ`), looked
    /// up on the module when it is used.
    StdName(super::runtime::StdModule, String),
    /// An imported module or name, or a class, outside the subset: using it stops the run.
    Other(String),
    /// A binding made in a branch of module-level `if`s: `(conditional, branch)` pairs,
    /// outermost first, that must all be the branch taken.
    Guarded(Vec<(usize, usize)>, Box<Global>),
}

/// A module-level `if`: the test of each branch (`None` for one never taken, such as
/// `__name__ == "__main__"`), an `else` being the branch after the last test.
#[derive(Clone, Debug)]
pub(crate) struct Conditional {
    pub(crate) tests: Vec<Option<Expr>>,
    /// Where it stands among the module's bindings: its tests read what is bound before.
    pub(crate) position: usize,
    /// The file it is in.
    pub(crate) file: usize,
}

/// A module-level assignment: `NAME = …`, `A, B = …`, `A = B = …`.
#[derive(Clone, Debug)]
pub(crate) struct Assignment {
    /// The targets: names, or unpackings of names.
    pub(crate) targets: Vec<Target>,
    pub(crate) value: Result<Expr, Diagnostic>,
    /// Where it stands among the module's statements: what it reads is bound before.
    pub(crate) position: usize,
    /// The file it is in.
    pub(crate) file: usize,
}

/// The bindings of a module-level name, in file order: where each is made and what it is.
pub(crate) type Versions = Vec<(usize, Global)>;

/// A plain class of the file: `class C:` or `class C(Base):` with class attributes and
/// methods; a `@dataclass`; or an exception class with a body of its own.
#[derive(Clone, Debug)]
pub(crate) struct ClassDef {
    pub(crate) name: String,
    /// The class of the file it derives from.
    pub(crate) base: Option<usize>,
    /// The assignments of its body, in order (their `position` is the class's).
    pub(crate) attrs: Vec<Assignment>,
    /// Its methods and properties, by name.
    pub(crate) methods: Vec<(String, ClassMember)>,
    /// Whether its base is `http.server.BaseHTTPRequestHandler` (then `base` is `None`).
    pub(crate) handler: bool,
    /// What `@dataclass` made of it.
    pub(crate) dataclass: Option<Dataclass>,
    /// Whether it is an exception class: its instances are exceptions named after it, and
    /// its chain ends in a builtin exception class.
    pub(crate) exception: bool,
    /// The file it is defined in.
    pub(crate) file: usize,
}

/// A function defined in a class body, as the class holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ClassMember {
    /// A method: bound to the instance it is looked up on.
    Method(usize),
    /// `@staticmethod`: the function itself, through the class or an instance.
    Static(usize),
    /// `@classmethod`: bound to the class it is looked up through.
    ClassMethod(usize),
    /// `@property`, with its `@name.setter`.
    Property { getter: usize, setter: Option<usize> },
}

/// `@dataclass` or `@dataclass(frozen=True)` on a class.
#[derive(Clone, Debug)]
pub(crate) struct Dataclass {
    pub(crate) frozen: bool,
    /// The fields its own body annotates, in order (inherited ones come from its bases).
    pub(crate) fields: Vec<DataField>,
    /// `field(default_factory=…)` arguments: evaluated when the class is created, before
    /// the body's assignment of that index (or after them all), for the field of that index.
    pub(crate) factories: Vec<(usize, usize, Expr)>,
    /// Where the decorator is.
    pub(crate) at: At,
    /// Where the class stands among the module's statements (its factories read what is
    /// bound before).
    pub(crate) position: usize,
}

/// One field a dataclass's body annotates.
#[derive(Clone, Debug)]
pub(crate) struct DataField {
    pub(crate) name: String,
    /// Whether its default is the class attribute of its name when the class is created,
    /// if it has one (its own or a base's): not for `field()` without `default=`.
    pub(crate) class_default: bool,
    /// Whether `field(default_factory=…)` makes its value.
    pub(crate) factory: bool,
    /// `field(repr=…)`, `field(compare=…)`.
    pub(crate) repr: bool,
    pub(crate) compare: bool,
}
