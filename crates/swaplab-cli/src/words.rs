//! Phrases more than one command prints the same way: a tool call's route, an agent that
//! does not start. A CRM record
//! and its access are the core's (`swaplab_core::crossing`), a counted noun is
//! `swaplab_core::words::count`. Text only.

use std::io::{self, Write};

use swaplab_core::sim::agent::StartupFailure;
use swaplab_core::sim::run::{CallRecord, Route};

use crate::style::Style;

/// ` → MCP hubspot_crm` or ` → local tools/crm.py`.
pub fn route(call: &CallRecord) -> String {
    match &call.route {
        Some(Route::Mcp { server }) => format!(" → MCP {server}"),
        Some(Route::Local { file, .. }) => format!(" → local {file}"),
        None => String::new(),
    }
}

/// `✗ START-UP FAILURE: the agent does not start (<stage> stage): <message>`, then the
/// diagnostic, indented.
pub fn startup_failure(
    out: &mut dyn Write,
    style: Style,
    failure: &StartupFailure,
) -> io::Result<()> {
    writeln!(
        out,
        "{} the agent does not start ({} stage): {}",
        style.fail("✗ START-UP FAILURE:"),
        failure.stage,
        failure.message
    )?;
    writeln!(out, "  {}", failure.diagnostic)
}
