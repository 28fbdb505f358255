//! Scanners for the Python a reader edits: Rasa tool modules and a FastMCP server.
//!
//! [`scan_tool_module`] reads a Rasa `tools.py`; [`scan_mcp_server`] reads a FastMCP
//! server and derives the `tools/list` entries it would publish. Both return the best
//! value they can plus diagnostics (`Phase::Read`, codes `swaplab.python.*`); no input
//! makes them panic, recurse without bound or take more than linear-ish time.
//!
//! The declared subset (anything else is reported where it stands, never guessed at):
//!
//! - **Tokens**: all of Python's — names, numbers, strings with any prefix (`r`, `b`, `f`,
//!   `rb`, …), triple-quoted, f-strings with nested quotes (3.12), comments, brackets,
//!   backslash and bracket continuation, indentation.
//! - **Module level**: imports, assignments and other statements (read for imports and
//!   `FastMCP(…)` only), `class`es, and `def`/`async def` whose decorators are a dotted
//!   name or a call of one. Definitions nested in other statements are not read.
//! - **Tools**: `@tool(description="…")` (Rasa) and `@<instance>.tool(…)` (FastMCP) on
//!   module-level functions with named parameters (`*args`/`**kwargs` reported).
//! - **Literals**: strings (implicitly concatenated), numbers, `True`/`False`/`None`, and
//!   lists, tuples and dicts of them; descriptions, paths and defaults must be literals.
//! - **Annotations**: `str`, `int`, `float`, `bool`, `bytes`, `None`, `Any`, `list[T]`,
//!   `dict[K, V]` (and `List`, `Dict`), `X | Y`, `Optional[X]`, `Union[…]`,
//!   `Annotated[X, …]`, string forward references, and `BaseModel` classes of the file.
//! - **Models**: `class M(BaseModel)` (or a subclass of one in the file) with annotated
//!   fields, defaults that are literals or `Field(default=…, default_factory=…,
//!   description=…, title=…)`, and `model_config` as a dict literal or `ConfigDict(…)`.
//! - **Bodies**: `context.memory.get/set("<literal path>", …)`, calls of a client imported
//!   with `from hubspot_client import <client>` (`crm.<fn>(…)`), and names bound by `=`,
//!   `for`, `with … as` and `except … as`, followed textually.
//! - **Results**: `return ToolResult(llm_response={…})` (Rasa) and `return Model(key=…)`
//!   or `return {…}` (FastMCP).
//!
//! [`compile_module`] goes further and *runs* that subset: a small, bounded interpreter
//! executes a tool's body against a [`Host`] standing in for the CRM and project memory.

mod annotation;
mod body;
mod interp;
mod lex;
mod literal;
mod locate;
mod mcp;
mod pydantic;
mod schema;
mod source;
mod tools;

pub use body::{
    ArgOrigin, ArgSlot, CallArg, CrmCall, MemoryAccess, MemoryOp, Param, ParamKind, ResultKey,
};
pub use interp::{
    Delivery, FIXED_DATE, Host, HostError, HttpRequest, HttpResponse, Library, Outcome, Process,
    Program, PyValue, compile_linked, compile_module, read_dotenv, reason_phrase,
};
pub use lex::{Token, TokenKind};
pub use mcp::{McpServerModule, McpTool, ModelClass, ModelField, scan_mcp_server};
pub use pydantic::Extra;
pub use schema::{Additional, Entries, JsonValue, Schema};
pub use swaplab_base::pytext::float_repr;
pub use tools::UNSUPPORTED;
pub use tools::{ToolFunction, ToolModule, scan_tool_module};

use serde::Serialize;
use swaplab_base::diagnostic::Diagnostic;

/// The Python readers' caps in one place: the lexer's nesting (reported as CPython
/// reports it) and the interpreter's bounds on what one tool call may do.
pub mod limits {
    pub use super::interp::{
        MAX_CALL_DEPTH, MAX_NESTING, MAX_RECURSION, MAX_SIZE, MAX_STEPS, MAX_VALUE_DEPTH,
    };
    pub use super::lex::{MAX_BRACKETS, MAX_INDENTS};
}

/// A file's tokens and the problems found reading them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Tokens {
    /// The tokens, in order; comments and blank lines produce none.
    pub tokens: Vec<Token>,
    /// Unterminated strings and brackets, stray characters, bad indentation.
    pub diagnostics: Vec<Diagnostic>,
}

/// Tokenizes Python source. Never fails: problems become diagnostics.
pub fn tokenize(path: &str, text: &str) -> Tokens {
    let mut findings = locate::Findings::new(path, text);
    let lexed = lex::lex(text, &mut findings);
    Tokens { tokens: lexed.tokens, diagnostics: findings.finish() }
}
