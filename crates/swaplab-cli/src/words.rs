//! Phrases more than one command prints the same way: a CRM record, an access, a tool
//! call's route (a counted noun is `swaplab_core::words::count`). Text only.

use swaplab_core::sim::crm::{Access, RecordKind};
use swaplab_core::sim::run::{CallRecord, Route};

/// `ticket 9001 of contact 701`, `the ticket list of contact 701`.
pub fn record_name(kind: RecordKind, id: &str, owner: &str) -> String {
    match kind {
        RecordKind::Contact if id == owner => format!("contact {id}"),
        RecordKind::Contact => format!("contact {id} (of contact {owner})"),
        RecordKind::Associations => format!("the ticket list of contact {owner}"),
        RecordKind::Ticket => format!("ticket {id} of contact {owner}"),
        RecordKind::Note => format!("note {id} of contact {owner}"),
    }
}

/// `read` or `written`.
pub fn access_word(access: Access) -> &'static str {
    match access {
        Access::Read => "read",
        Access::Write => "written",
    }
}

/// ` → MCP hubspot_crm` or ` → local tools/crm.py`.
pub fn route(call: &CallRecord) -> String {
    match &call.route {
        Some(Route::Mcp { server }) => format!(" → MCP {server}"),
        Some(Route::Local { file, .. }) => format!(" → local {file}"),
        None => String::new(),
    }
}
