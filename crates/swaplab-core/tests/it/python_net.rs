//! The in-memory network: a project's `httpx` client reaching a project's own
//! `http.server` mock, run in a process of its own, with no sockets.

use std::sync::Arc;

use swaplab_core::diagnostic::Span;
use swaplab_core::python::{
    Delivery, Host, HostError, HttpRequest, Library, Outcome, Process, PyValue, compile_linked,
};

const MOCK: &str = r#"
import json
from http.server import BaseHTTPRequestHandler, HTTPServer

HOST, PORT = "127.0.0.1", 8787
CONTACTS = [
    {"id": "701", "properties": {"email": "dana.okafor@example.com", "firstname": "Dana"}},
    {"id": "702", "properties": {"email": "sam.rivera@example.com", "firstname": "Sam"}},
]
NOTES: list[dict] = []


class Handler(BaseHTTPRequestHandler):
    def _send(self, status, payload):
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        auth = self.headers.get("authorization", "")
        if not (auth.startswith("Bearer ") and auth[7:].strip()):
            self._send(401, {"category": "INVALID_AUTHENTICATION"})
            return
        path = self.path.split("?")[0]
        parts = path.strip("/").split("/")
        if parts[:4] == ["crm", "v3", "objects", "contacts"] and len(parts) == 5:
            for contact in CONTACTS:
                if contact["id"] == parts[4]:
                    self._send(200, contact)
                    return
        self._send(404, {"status": "error", "category": "OBJECT_NOT_FOUND"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        payload = json.loads(self.rfile.read(length) or b"{}")
        note_id = str(10_000 + len(NOTES))
        NOTES.append({"id": note_id, "payload": payload})
        self._send(201, {"id": note_id})

    def log_message(self, *args):
        return


if __name__ == "__main__":
    HTTPServer((HOST, PORT), Handler).serve_forever()
"#;

const CLIENT: &str = r#"
import os
import httpx


class CrmError(Exception):
    pass


async def contact(contact_id):
    headers = {"Authorization": f"Bearer {os.environ.get('HUBSPOT_ACCESS_TOKEN', '')}"}
    async with httpx.AsyncClient(base_url=os.environ["HUBSPOT_BASE_URL"], headers=headers) as http:
        try:
            response = await http.get(f"/crm/v3/objects/contacts/{contact_id}", params={"properties": "firstname,email"})
            response.raise_for_status()
        except httpx.HTTPStatusError as exc:
            return f"{exc.response.status_code}: {exc}"
        except httpx.HTTPError as exc:
            return f"{exc.__class__.__name__}: {exc}"
        return [response.status_code, response.reason_phrase, response.json()["properties"]["firstname"], response.headers["content-type"], str(response.url)]


def note(contact_id, body):
    with httpx.Client(base_url=os.environ["HUBSPOT_BASE_URL"]) as http:
        response = http.post("/crm/v3/objects/notes", json={"properties": {"hs_note_body": body}, "associations": [{"to": {"id": contact_id}}]})
    return [response.status_code, response.json(), response.is_success]


def unsent():
    return httpx.Client().get("127.0.0.1:8787/x")
"#;

/// Routes requests for 127.0.0.1:8787 to the mock's process, and records them.
struct Network {
    mock: Process,
    requests: Vec<(String, String, String)>,
}

impl Host for Network {
    fn crm_call(
        &mut self,
        function: &str,
        _: &[PyValue],
        _: &[(String, PyValue)],
        _: Span,
    ) -> Result<PyValue, HostError> {
        Err(HostError::new("AttributeError", function))
    }

    fn memory_get(&mut self, _: &str, default: PyValue, _: Span) -> PyValue {
        default
    }

    fn memory_set(&mut self, _: &str, _: PyValue, _: Span) -> Result<(), HostError> {
        Ok(())
    }

    fn http(&mut self, request: &HttpRequest, _: Span) -> Delivery {
        let body = String::from_utf8_lossy(&request.body).into_owned();
        self.requests.push((request.method.clone(), request.target(), body));
        if (request.host.as_str(), request.port) != ("127.0.0.1", 8787) {
            return Delivery::Refused;
        }
        let mut quiet = Network {
            mock: Process::new(Arc::new(compile_linked("x.py", "", &Library::default()))),
            requests: Vec::new(),
        };
        self.mock.serve("Handler", request, &mut quiet).0
    }
}

fn network() -> Network {
    let mock = compile_linked("scripts/mock_hubspot.py", MOCK, &Library::default());
    assert!(mock.diagnostics.is_empty(), "{:?}", mock.diagnostics);
    let mock = Process::new(Arc::new(mock));
    assert_eq!(mock.handler_classes(), ["Handler"]);
    Network { mock, requests: Vec::new() }
}

fn client(base: &str, token: &str) -> Process {
    let program = compile_linked("lib/hubspot.py", CLIENT, &Library::default());
    assert!(program.diagnostics.is_empty(), "{:?}", program.diagnostics);
    let env = vec![
        ("HUBSPOT_BASE_URL".to_owned(), base.to_owned()),
        ("HUBSPOT_ACCESS_TOKEN".to_owned(), token.to_owned()),
    ];
    Process::with_environment(Arc::new(program), env)
}

fn returned(outcome: Outcome) -> String {
    match outcome {
        Outcome::Returned(value) => value.repr(),
        other => panic!("{other:?}"),
    }
}

fn arg(name: &str, value: &str) -> (String, PyValue) {
    (name.to_owned(), PyValue::Str(value.to_owned()))
}

#[test]
fn an_httpx_client_reaches_the_projects_mock_and_its_handler_decides() {
    let mut net = network();
    let mut tool = client("http://127.0.0.1:8787", "mock-token");
    assert_eq!(
        returned(tool.call("contact", &[arg("contact_id", "701")], false, &mut net)),
        "[200, 'OK', 'Dana', 'application/json', \
         'http://127.0.0.1:8787/crm/v3/objects/contacts/701?properties=firstname%2Cemail']"
    );
    assert_eq!(
        returned(tool.call("contact", &[arg("contact_id", "999")], false, &mut net)),
        "\"404: Client error '404 Not Found' for url \
         'http://127.0.0.1:8787/crm/v3/objects/contacts/999?properties=firstname%2Cemail'\\n\
         For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/404\""
    );
    let mut tokenless = client("http://127.0.0.1:8787", "");
    let refused = returned(tokenless.call("contact", &[arg("contact_id", "701")], false, &mut net));
    assert!(refused.starts_with("\"401: Client error '401 Unauthorized'"), "{refused}");
}

#[test]
fn the_mocks_state_lives_as_long_as_its_process() {
    let mut net = network();
    let mut tool = client("http://127.0.0.1:8787", "mock-token");
    let first = returned(tool.call(
        "note",
        &[arg("contact_id", "701"), arg("body", "Sam asked to close his account.")],
        false,
        &mut net,
    ));
    assert_eq!(first, "[201, {'id': '10000'}, True]");
    let second =
        returned(tool.call("note", &[arg("contact_id", "702"), arg("body", "é")], false, &mut net));
    assert_eq!(second, "[201, {'id': '10001'}, True]");
    // The body went over the wire as httpx writes it: compact, UTF-8.
    assert_eq!(
        net.requests[1].2,
        r#"{"properties":{"hs_note_body":"é"},"associations":[{"to":{"id":"702"}}]}"#
    );
    let Outcome::Returned(notes) = net.mock.global(
        "NOTES",
        &mut Network {
            mock: Process::new(Arc::new(compile_linked("x.py", "", &Library::default()))),
            requests: Vec::new(),
        },
    ) else {
        panic!()
    };
    assert!(
        notes
            .repr()
            .starts_with("[{'id': '10000', 'payload': {'properties': {'hs_note_body': 'Sam asked"),
        "{}",
        notes.repr()
    );
}

#[test]
fn nothing_listening_raises_what_httpx_raises() {
    let mut net = network();
    let mut tool = client("http://127.0.0.1:9999", "mock-token");
    assert_eq!(
        returned(tool.call("contact", &[arg("contact_id", "701")], false, &mut net)),
        "'ConnectError: All connection attempts failed'"
    );
    let outcome = tool.call("unsent", &[], false, &mut net);
    let Outcome::Raised { exc_type, message, .. } = outcome else { panic!("{outcome:?}") };
    assert_eq!(exc_type, "httpx.UnsupportedProtocol");
    assert_eq!(message, "Request URL is missing an 'http://' or 'https://' protocol.");
}

#[test]
fn a_method_the_handler_lacks_answers_501_and_a_failing_handler_disconnects() {
    let mut net = network();
    let request = HttpRequest {
        method: "PUT".into(),
        host: "127.0.0.1".into(),
        port: 8787,
        path: "/x".into(),
        query: String::new(),
        headers: Vec::new(),
        body: Vec::new(),
    };
    let mut quiet = network();
    let (delivery, _) = net.mock.serve("Handler", &request, &mut quiet);
    let Delivery::Answered(response) = delivery else { panic!("{delivery:?}") };
    assert_eq!((response.status, response.reason.as_str()), (501, "Unsupported method ('PUT')"));
    let broken = HttpRequest {
        method: "POST".into(),
        headers: vec![("Content-Length".into(), "9".into())],
        body: b"{not json".to_vec(),
        ..request
    };
    let (delivery, failure) = net.mock.serve("Handler", &broken, &mut quiet);
    assert_eq!(delivery, Delivery::Disconnected);
    assert!(
        matches!(failure, Some(Outcome::Raised { ref exc_type, .. }) if exc_type == "JSONDecodeError"),
        "{failure:?}"
    );
}

const REQUESTS_CLIENT: &str = r#"
import os

import requests
from requests.exceptions import HTTPError

BASE = os.environ["HUBSPOT_BASE_URL"]


def contact(contact_id):
    session = requests.Session()
    session.headers.update({"Authorization": f"Bearer {os.environ.get('HUBSPOT_ACCESS_TOKEN', '')}"})
    try:
        response = session.get(f"{BASE}/crm/v3/objects/contacts/{contact_id}", params={"properties": "firstname"}, timeout=10)
        response.raise_for_status()
    except HTTPError as exc:
        return f"{exc.response.status_code}: {exc}"
    except requests.RequestException as exc:
        return f"{type(exc).__name__}: {exc}"
    return [response.status_code, response.ok, response.reason, response.json()["properties"]["firstname"]]


def note(contact_id, body):
    response = requests.post(BASE + "/crm/v3/objects/notes", json={"properties": {"hs_note_body": body}, "associations": [{"to": {"id": contact_id}}]})
    return [response.status_code, response.json()]


def no_scheme():
    return requests.get("127.0.0.1:8787/x")
"#;

fn requests_client(base: &str) -> Process {
    let program = compile_linked("lib/crm.py", REQUESTS_CLIENT, &Library::default());
    assert!(program.diagnostics.is_empty(), "{:?}", program.diagnostics);
    let env = vec![
        ("HUBSPOT_BASE_URL".to_owned(), base.to_owned()),
        ("HUBSPOT_ACCESS_TOKEN".to_owned(), "mock-token".to_owned()),
    ];
    Process::with_environment(Arc::new(program), env)
}

#[test]
fn a_requests_client_reaches_the_mock_as_requests_would() {
    let mut net = network();
    let mut tool = requests_client("http://127.0.0.1:8787");
    assert_eq!(
        returned(tool.call("contact", &[arg("contact_id", "701")], false, &mut net)),
        "[200, True, 'OK', 'Dana']"
    );
    assert_eq!(
        returned(tool.call("contact", &[arg("contact_id", "999")], false, &mut net)),
        "'404: 404 Client Error: Not Found for url: \
         http://127.0.0.1:8787/crm/v3/objects/contacts/999?properties=firstname'"
    );
    assert_eq!(
        returned(tool.call("note", &[arg("contact_id", "701"), arg("body", "é")], false, &mut net)),
        "[201, {'id': '10000'}]"
    );
    // requests writes json= as json.dumps does: spaces after separators, ASCII only.
    let sent = &net.requests.last().unwrap().2;
    assert_eq!(
        sent,
        r#"{"properties": {"hs_note_body": "\u00e9"}, "associations": [{"to": {"id": "701"}}]}"#
    );
    let mut nowhere = requests_client("http://127.0.0.1:9999");
    let refused = returned(nowhere.call("contact", &[arg("contact_id", "701")], false, &mut net));
    assert!(refused.starts_with("\"ConnectionError: HTTPConnectionPool(host='127.0.0.1', port=9999): Max retries exceeded with url: /crm/v3/objects/contacts/701?properties=firstname"), "{refused}");
    let outcome = tool.call("no_scheme", &[], false, &mut net);
    let Outcome::Raised { exc_type, message, .. } = outcome else { panic!("{outcome:?}") };
    assert_eq!(exc_type, "requests.MissingSchema");
    assert_eq!(
        message,
        "Invalid URL '127.0.0.1:8787/x': No scheme supplied. Perhaps you meant https://127.0.0.1:8787/x?"
    );
}
