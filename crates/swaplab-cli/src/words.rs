//! Phrases more than one command prints the same way: a tool call's route. A CRM record
//! and its access are the core's (`swaplab_core::crossing`), a counted noun is
//! `swaplab_core::words::count`. Text only.

use swaplab_core::sim::run::{CallRecord, Route};

/// ` → MCP hubspot_crm` or ` → local tools/crm.py`.
pub fn route(call: &CallRecord) -> String {
    match &call.route {
        Some(Route::Mcp { server }) => format!(" → MCP {server}"),
        Some(Route::Local { file, .. }) => format!(" → local {file}"),
        None => String::new(),
    }
}
