//! `import_tools` entries: `mcp/<server>:<tool>` references and bare local/shared names.
//!
//! Mirrors `rasa/mantle/tools/mcp_import_spec.py` (reference §3.1): only a string that
//! starts with `mcp/` (case-sensitive) is an MCP reference; it must match the server and
//! tool grammar, and the tool name must be a provider-safe function name of at most 64
//! characters. Anything else is a local or shared tool name, used verbatim.

use serde::Serialize;

/// The framework tools every agent has; no skill tool may reuse these names (§3.2).
pub const FRAMEWORK_TOOL_NAMES: [&str; 10] = [
    "activate",
    "complete",
    "cancel",
    "set_fields",
    "correct",
    "resolve_tool_confirmation",
    "search_knowledge",
    "cannot_help",
    "listen",
    "hangup",
];

/// What one `import_tools` entry refers to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ImportRef {
    /// `mcp/<server>:<tool>`.
    Mcp {
        /// The server's name in `integrations.yml`.
        server: String,
        /// The tool's name on that server (and the bare name the skill binds).
        tool: String,
    },
    /// A skill-local or shared tool, by its function name.
    LocalOrShared {
        /// The name, verbatim.
        name: String,
    },
}

impl ImportRef {
    /// The name the skill binds and the model calls.
    pub fn bare_name(&self) -> &str {
        match self {
            ImportRef::Mcp { tool, .. } => tool,
            ImportRef::LocalOrShared { name } => name,
        }
    }

    /// The MCP server, if this is an MCP reference.
    pub fn server(&self) -> Option<&str> {
        match self {
            ImportRef::Mcp { server, .. } => Some(server),
            ImportRef::LocalOrShared { .. } => None,
        }
    }
}

/// `try_parse_mcp_tool_import`: `Ok(None)` unless `reference` starts with `mcp/`.
pub fn try_parse_mcp_tool_import(reference: &str) -> Result<Option<(String, String)>, String> {
    let Some(rest) = reference.strip_prefix("mcp/") else { return Ok(None) };
    let grammar_error = || {
        format!("Invalid MCP tool import '{reference}'; expected 'mcp/<server-id>:<tool-name>'.")
    };
    let (server, tool) = rest.split_once(':').ok_or_else(grammar_error)?;
    if !is_identifier(server) || !is_identifier(tool) {
        return Err(grammar_error());
    }
    if tool.len() > 64 || !tool.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(format!(
            "Invalid MCP tool name '{tool}' in '{reference}'; the tool name is sent to the LLM as a \
             function name and may only contain letters, digits, '_', and '-' (at most 64 \
             characters)."
        ));
    }
    Ok(Some((server.to_owned(), tool.to_owned())))
}

/// `[A-Za-z0-9][A-Za-z0-9_.-]*`, ASCII only (Python's `re` with `A-Za-z0-9` classes).
fn is_identifier(text: &str) -> bool {
    let mut bytes = text.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphanumeric())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// `get_bare_tool_name` plus the kind: how Rasa reads one `import_tools` entry.
pub fn parse_import(reference: &str) -> Result<ImportRef, String> {
    Ok(match try_parse_mcp_tool_import(reference)? {
        Some((server, tool)) => ImportRef::Mcp { server, tool },
        None => ImportRef::LocalOrShared { name: reference.to_owned() },
    })
}

/// `get_bare_tool_name`: `mcp/<s>:<t>` → `t`, anything else unchanged.
pub fn bare_tool_name(reference: &str) -> Result<String, String> {
    parse_import(reference).map(|parsed| parsed.bare_name().to_owned())
}
