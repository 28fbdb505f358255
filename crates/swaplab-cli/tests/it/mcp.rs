//! `swaplab mcp` over the stdio transport, driven through pipes: every answer on the
//! wire is the one the in-process server (what the playground shows) gives for the same
//! message, one CRM lives for the whole session, and nothing but protocol reaches stdout.

use std::io::Write;
use std::process::{Command, Stdio};

use swaplab_core::sim::Simulation;
use swaplab_core::sim::crm::Crm;
use swaplab_core::sim::json::{self, MAX_JSON_BYTES};

use crate::tools::tutorial;

/// The session a client would hold, one message a line.
const SESSION: [&str; 10] = [
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"swaplab-test","version":"0"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"find_contact_by_email","arguments":{"email":"sam.rivera@example.com"}}}"#,
    r#"{"jsonrpc":"2.0","id":"four","method":"tools/call","params":{"name":"list_open_tickets","arguments":{"contact_id":"701"}}}"#,
    r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add_timeline_note","arguments":{"contact_id":"701","summary":"Sam asked to close his account."}}}"#,
    "this is not JSON",
    r#"[{"jsonrpc":"2.0","id":6,"method":"ping"}]"#,
    r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add_timeline_note","arguments":{"contact_id":"701","summary":"A second note."}}}"#,
    r#"{"jsonrpc":"2.0","id":8,"method":"resources/list"}"#,
];

const PARSE_ERROR: &str =
    r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#;

struct Session {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn serve(input: &[u8]) -> Session {
    let mut child = Command::new(env!("CARGO_BIN_EXE_swaplab"))
        .args(["mcp", "--example", "tutorial"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    // Write from another thread so a full stdout pipe cannot stall the test.
    let writer = std::thread::spawn(move || {
        stdin.write_all(&input).expect("write the session");
        // Dropping stdin closes it: EOF ends the session.
    });
    let output = child.wait_with_output().expect("the binary finishes");
    writer.join().expect("the writer finishes");
    Session {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).expect("UTF-8 on stdout"),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn the_stdio_server_answers_as_the_in_process_server_does() {
    let mut input = SESSION.join("\n");
    input.push('\n');
    let session = serve(input.as_bytes());
    assert_eq!(session.code, Some(0), "EOF ends the session with 0: {}", session.stderr);

    // The same messages through McpServer::handle, with one CRM for the session.
    let simulation = Simulation::new(&tutorial());
    let server = simulation.server.as_ref().expect("the tutorial has a server");
    let mut crm = Crm::new(simulation.seed.clone());
    let mut expected = Vec::new();
    for line in SESSION {
        match json::parse(line) {
            Ok(message) => {
                if let Some(response) = server.handle(&message, &mut crm).response {
                    expected.push(json::compact(&response));
                }
            }
            Err(_) => expected.push(PARSE_ERROR.to_owned()),
        }
    }
    let answered: Vec<&str> = session.stdout.lines().collect();
    assert_eq!(answered, expected, "stderr:\n{}", session.stderr);
    // Seven requests, the bad line and the batch; the notification gets no answer.
    assert_eq!(answered.len(), 9);
    for line in &answered {
        let message: serde_json::Value = serde_json::from_str(line).expect("only JSON on stdout");
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
    }

    let by_id = |id: serde_json::Value| -> serde_json::Value {
        answered
            .iter()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json"))
            .find(|m| m["id"] == id)
            .expect("an answer with that id")
    };
    assert_eq!(by_id(1.into())["result"]["serverInfo"]["name"], "hubspot_crm");
    assert_eq!(by_id(1.into())["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(by_id(2.into())["result"]["tools"].as_array().map(Vec::len), Some(3));
    assert_eq!(by_id(3.into())["result"]["structuredContent"]["contact_id"], "702");
    let tickets = &by_id("four".into())["result"]["structuredContent"]["tickets"];
    let ids: Vec<&str> =
        tickets.as_array().expect("tickets").iter().filter_map(|t| t["id"].as_str()).collect();
    assert_eq!(ids, ["9001", "9002"], "Dana's tickets, for anyone who passes 701");
    assert_eq!(by_id(5.into())["result"]["structuredContent"]["note_id"], "10000");
    assert_eq!(
        by_id(7.into())["result"]["structuredContent"]["note_id"],
        "10001",
        "one CRM per session"
    );
    assert_eq!(by_id(8.into())["error"]["code"], -32601);
    assert_eq!(answered[5], PARSE_ERROR);
    assert_eq!(
        answered[6],
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}"#,
        "a batch is refused"
    );

    // The notes land on Dana's record, 701.
    let notes: Vec<(&str, &str)> =
        crm.created_notes().map(|n| (n.id.as_str(), n.contact.as_str())).collect();
    assert_eq!(notes, [("10000", "701"), ("10001", "701")]);
    assert!(session.stderr.contains("tools/call add_timeline_note: POST /crm/v3/objects/notes"));

    let first = session.stderr.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        "swaplab mcp: serving hubspot_crm (scripts/mcp_crm_server.py) over stdio with 3 tools: \
         find_contact_by_email, list_open_tickets, add_timeline_note"
    );
}

#[test]
fn odd_lines_are_answered_or_skipped_and_the_session_goes_on() {
    let huge =
        format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"{}\"}}", "x".repeat(MAX_JSON_BYTES));
    let mut input = Vec::new();
    input.extend_from_slice(b"\n   \n"); // blank lines: nothing to answer
    input.extend_from_slice(huge.as_bytes());
    input.extend_from_slice(b"\n\xff\xfe\n"); // not UTF-8
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n"); // a response: no answer
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\r\n");
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}"); // no final newline
    let session = serve(&input);
    assert_eq!(session.code, Some(0), "{}", session.stderr);
    let answered: Vec<&str> = session.stdout.lines().collect();
    assert_eq!(
        answered,
        [
            PARSE_ERROR,
            PARSE_ERROR,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":4,"result":{}}"#,
        ],
        "{}",
        session.stderr
    );
}
