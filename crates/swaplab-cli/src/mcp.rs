//! `swaplab mcp`: the workspace's MCP server, simulated, over the MCP stdio transport.
//!
//! Each line of standard input is one JSON-RPC message; each request gets one line of
//! compact JSON on standard output, in order; notifications (and responses, which this
//! server never asks for) get none. A line that is not JSON is answered with a JSON-RPC
//! parse error (`-32700`, id `null`); a batch (a JSON array) is answered with
//! `-32600 Invalid Request`, as the server the simulation copies does. Standard output
//! carries nothing but protocol messages: the log (a line on start naming the server
//! and its tools, a line per tool call with the CRM requests it made) goes to standard
//! error.
//!
//! One mock CRM, seeded from the workspace, lives for the whole session: a note written
//! by one call is there for the next. End of input ends the session with exit 0.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use swaplab_core::Workspace;
use swaplab_core::sim::Simulation;
use swaplab_core::sim::crm::Crm;
use swaplab_core::sim::json::{self, JsonValue, MAX_JSON_BYTES, object, string};
use swaplab_core::sim::mcp::{McpServer, codes};
use swaplab_core::words::count;

/// Serves the workspace's MCP server over stdio until `input` ends.
pub fn run(
    workspace: &Workspace,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    log: &mut dyn Write,
) -> Result<ExitCode> {
    let simulation = Simulation::new(workspace);
    let Some(server) = &simulation.server else { bail!(crate::tools::no_server_message()) };
    let mut crm = Crm::new(simulation.seed.clone());
    let names: Vec<&str> = server.module.tools.iter().map(|t| t.name.as_str()).collect();
    // The log is for people; a closed standard error must not end the session.
    let _ = writeln!(
        log,
        "swaplab mcp: serving {} ({}) over stdio with {}: {}",
        server.name(),
        server.file,
        count(names.len(), "tool", "tools"),
        if names.is_empty() { "none".to_owned() } else { names.join(", ") }
    );
    loop {
        let response = match read_line(input).context("reading standard input")? {
            Line::End => break,
            Line::TooLong => {
                let _ = writeln!(log, "swaplab mcp: a message over {MAX_JSON_BYTES} bytes");
                parse_error()
            }
            Line::Text(bytes) => match answer(server, &bytes, &mut crm, log) {
                Some(response) => response,
                None => continue,
            },
        };
        let sent = writeln!(out, "{}", json::compact(&response)).and_then(|()| out.flush());
        match sent {
            Ok(()) => {}
            // The client hung up: the session is over.
            Err(error) if error.kind() == io::ErrorKind::BrokenPipe => break,
            Err(error) => return Err(error).context("writing to standard output"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The answer to one line, if it needs one.
fn answer(
    server: &McpServer,
    bytes: &[u8],
    crm: &mut Crm,
    log: &mut dyn Write,
) -> Option<JsonValue> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        let _ = writeln!(log, "swaplab mcp: a line that is not UTF-8");
        return Some(parse_error());
    };
    if text.trim().is_empty() {
        return None;
    }
    let message = match json::parse(text) {
        Ok(message) => message,
        Err(error) => {
            let _ = writeln!(log, "swaplab mcp: a line that is not JSON: {error}");
            return Some(parse_error());
        }
    };
    // A response from the client (to a request this server never sends): no answer.
    let is_response = json::get(&message, "method").is_none()
        && json::get(&message, "id").is_some()
        && (json::get(&message, "result").is_some() || json::get(&message, "error").is_some());
    if is_response {
        return None;
    }
    let exchange = server.handle(&message, crm);
    if let Some(call) = &exchange.call {
        let name = json::get(&message, "params").and_then(|p| json::get(p, "name"));
        let requests: Vec<String> =
            call.client_calls.iter().flat_map(|c| c.requests.iter().map(|r| r.line())).collect();
        let _ = writeln!(
            log,
            "swaplab mcp: tools/call {}{}: {}",
            name.map(json::plain).unwrap_or_default(),
            if call.is_error { " (isError)" } else { "" },
            if requests.is_empty() { "no CRM request".to_owned() } else { requests.join(", ") }
        );
        if let Some(note) = &call.unsupported {
            let _ = writeln!(log, "swaplab mcp: outside the Python Swap Lab runs: {note}");
        }
    }
    exchange.response
}

fn parse_error() -> JsonValue {
    object([
        ("jsonrpc", string("2.0")),
        ("id", JsonValue::Null),
        (
            "error",
            object([
                ("code", JsonValue::Int(codes::PARSE_ERROR)),
                ("message", string("Parse error")),
            ]),
        ),
    ])
}

enum Line {
    Text(Vec<u8>),
    TooLong,
    End,
}

/// One line without its `\n` (and `\r`), read at most [`MAX_JSON_BYTES`] into memory:
/// the rest of a longer line is skipped.
fn read_line(input: &mut dyn BufRead) -> io::Result<Line> {
    let mut line = Vec::new();
    let mut too_long = false;
    let mut saw_any = false;
    loop {
        let buffer = match input.fill_buf() {
            Ok(buffer) => buffer,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if buffer.is_empty() {
            break;
        }
        saw_any = true;
        let (chunk, used, done) = match buffer.iter().position(|&b| b == b'\n') {
            Some(at) => (&buffer[..at], at + 1, true),
            None => (buffer, buffer.len(), false),
        };
        if !too_long {
            if line.len() + chunk.len() > MAX_JSON_BYTES {
                too_long = true;
                line.clear();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        input.consume(used);
        if done {
            break;
        }
    }
    if !saw_any {
        return Ok(Line::End);
    }
    if too_long {
        return Ok(Line::TooLong);
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Ok(Line::Text(line))
}
