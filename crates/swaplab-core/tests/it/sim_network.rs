//! The CRM as a project's HTTP client reaches it: the seed's data answering HubSpot v3
//! requests at 127.0.0.1:8787, or the project's own `http.server` mock at its address,
//! and the request log naming whose records each request touched.

use std::sync::Arc;

use swaplab_core::Project;
use swaplab_core::python::{Delivery, HttpRequest};
use swaplab_core::sim::attack::AttackVerdict;
use swaplab_core::sim::crm::{Access, Crm, CrmSeed, RecordKind};
use swaplab_core::sim::network::{Network, find_mock, read_environment};

fn request(method: &str, port: u16, path: &str, body: &str, token: bool) -> HttpRequest {
    let mut headers = vec![("Content-Length".to_owned(), body.len().to_string())];
    if token {
        headers.push(("Authorization".to_owned(), "Bearer mock-token".to_owned()));
    }
    HttpRequest {
        method: method.into(),
        host: "127.0.0.1".into(),
        port,
        path: path.into(),
        query: String::new(),
        headers,
        body: body.as_bytes().to_vec(),
    }
}

fn answered(delivery: Delivery) -> (u16, String) {
    match delivery {
        Delivery::Answered(r) => (r.status, String::from_utf8_lossy(&r.body).into_owned()),
        other => panic!("{other:?}"),
    }
}

const SEARCH: &str = r#"{"filterGroups":[{"filters":[{"propertyName":"email","operator":"EQ","value":"sam.rivera@example.com"}]}]}"#;

#[test]
fn the_seeds_crm_answers_hubspot_v3_and_logs_whose_records() {
    let mut crm = Crm::new(CrmSeed::tutorial());
    let (status, body) =
        answered(crm.http(&request("POST", 8787, "/crm/v3/objects/contacts/search", SEARCH, true)));
    assert_eq!(status, 200);
    assert!(body.contains(r#""id":"702""#), "{body}");
    let (status, body) = answered(crm.http(&request(
        "GET",
        8787,
        "/crm/v3/objects/contacts/701/associations/tickets",
        "",
        true,
    )));
    assert_eq!(
        (status, body.as_str()),
        (
            200,
            r#"{"results":[{"id":"9001","type":"contact_to_ticket"},{"id":"9002","type":"contact_to_ticket"}]}"#
        )
    );
    let (status, _) =
        answered(crm.http(&request("GET", 8787, "/crm/v3/objects/tickets/9001", "", true)));
    assert_eq!(status, 200);
    let note = r#"{"properties":{"hs_note_body":"Sam asked to close his account."},"associations":[{"to":{"id":"701"}}]}"#;
    let (status, body) =
        answered(crm.http(&request("POST", 8787, "/crm/v3/objects/notes", note, true)));
    assert_eq!((status, body.contains(r#""id":"10000""#)), (201, true));
    let (status, _) =
        answered(crm.http(&request("GET", 8787, "/crm/v3/objects/tickets/9001", "", false)));
    assert_eq!(status, 401);
    assert_eq!(crm.http(&request("GET", 9999, "/", "", true)), Delivery::Refused);
    let touched: Vec<(RecordKind, &str, &str, Access)> = crm
        .log
        .iter()
        .flat_map(|r| r.touched.iter())
        .map(|t| (t.kind, t.id.as_str(), t.owner.as_str(), t.access))
        .collect();
    assert_eq!(
        touched,
        [
            (RecordKind::Contact, "702", "702", Access::Read),
            (RecordKind::Associations, "701", "701", Access::Read),
            (RecordKind::Ticket, "9001", "701", Access::Read),
            (RecordKind::Note, "10000", "701", Access::Write),
        ]
    );
    assert_eq!(crm.created_notes().count(), 1);
}

const MOCK: &str = r#"
import json
from http.server import BaseHTTPRequestHandler

HOST, PORT = "127.0.0.1", 8787
TICKETS = {"701": [{"id": "9001"}], "702": []}
NOTES: list[dict] = []


class Handler(BaseHTTPRequestHandler):
    def _send(self, status, payload):
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        parts = self.path.split("?")[0].strip("/").split("/")
        if len(parts) == 7 and parts[5:] == ["associations", "tickets"]:
            links = [{"toObjectId": t["id"], "type": "contact_to_ticket"} for t in TICKETS.get(parts[4], [])]
            self._send(200, {"results": links})
        elif len(parts) == 5 and parts[3] == "tickets":
            self._send(200, {"id": parts[4], "properties": {"subject": "from the mock"}})
        else:
            self._send(404, {"category": "OBJECT_NOT_FOUND"})

    def do_POST(self):
        payload = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        NOTES.append(payload)
        self._send(201, {"id": str(20_000 + len(NOTES))})

    def log_message(self, *args):
        return
"#;

#[test]
fn a_projects_own_mock_is_the_crm_and_a_copy_of_a_run_replays_it() {
    let project = Project::from_files([
        ("scripts/mock_hubspot.py", MOCK),
        (
            ".env.example",
            "HUBSPOT_BASE_URL=http://127.0.0.1:8787\nHUBSPOT_ACCESS_TOKEN=mock-token\n",
        ),
    ]);
    let env = read_environment(&[&project]);
    assert_eq!(env.len(), 2);
    assert_eq!(env[0].from, ".env.example");
    let mock =
        find_mock(&[(swaplab_core::Area::Before, &project)], &[]).expect("the mock is found");
    assert_eq!(
        (mock.file.as_str(), mock.class.as_str(), mock.port),
        ("scripts/mock_hubspot.py", "Handler", 8787)
    );
    let mut seed = CrmSeed::tutorial();
    seed.network = Network { env, mock: Some(Arc::new(mock)) };
    let mut crm = Crm::new(seed);
    let (status, body) = answered(crm.http(&request(
        "GET",
        8787,
        "/crm/v3/objects/contacts/701/associations/tickets",
        "",
        true,
    )));
    assert_eq!(
        (status, body.as_str()),
        (200, r#"{"results": [{"toObjectId": "9001", "type": "contact_to_ticket"}]}"#)
    );
    let (_, body) =
        answered(crm.http(&request("GET", 8787, "/crm/v3/objects/tickets/9001", "", true)));
    assert!(body.contains("from the mock"), "the mock, not the seed, answers: {body}");
    let note = r#"{"properties":{"hs_note_body":"x"},"associations":[{"to":{"id":"702"}}]}"#;
    let (_, body) = answered(crm.http(&request("POST", 8787, "/crm/v3/objects/notes", note, true)));
    assert_eq!(body, r#"{"id": "20001"}"#);
    // A copy goes on from the same point: its mock has served the same requests.
    let mut copy = crm.clone();
    let (_, body) =
        answered(copy.http(&request("POST", 8787, "/crm/v3/objects/notes", note, true)));
    assert_eq!(body, r#"{"id": "20002"}"#);
    let (_, body) = answered(crm.http(&request("POST", 8787, "/crm/v3/objects/notes", note, true)));
    assert_eq!(body, r#"{"id": "20002"}"#);
    let owners: Vec<(&str, &str)> = crm
        .log
        .iter()
        .flat_map(|r| r.touched.iter())
        .map(|t| (t.id.as_str(), t.owner.as_str()))
        .collect();
    assert_eq!(owners, [("701", "701"), ("9001", "701"), ("20001", "702"), ("20002", "702")]);
    // Something else than the mock's address: nothing listens.
    assert_eq!(crm.http(&request("GET", 8931, "/", "", true)), Delivery::Refused);
}

/// A client module of the project's own over httpx, with the five calls the built-in
/// tutorial's tools make, against HubSpot v3's paths.
const CLIENT: &str = r#"
import os

import httpx

BASE_URL = os.environ.get("HUBSPOT_BASE_URL", "http://127.0.0.1:8787")


class CrmError(Exception):
    pass


def _headers():
    return {"Authorization": f"Bearer {os.getenv('HUBSPOT_ACCESS_TOKEN', '')}"}


async def _call(method, path, body=None, params=None):
    async with httpx.AsyncClient(base_url=BASE_URL, headers=_headers(), timeout=10.0) as http:
        try:
            response = await http.request(method, path, json=body, params=params)
            response.raise_for_status()
        except httpx.HTTPError as exc:
            raise CrmError(f"{method} {path}: {exc}") from exc
        return response.json()


async def search_contact_by_email(email):
    query = {"filterGroups": [{"filters": [{"propertyName": "email", "operator": "EQ", "value": email}]}]}
    found = await _call("POST", "/crm/v3/objects/contacts/search", body=query)
    if not found["results"]:
        return None
    record = found["results"][0]
    contact = dict(record["properties"])
    contact["id"] = record["id"]
    return contact


async def list_ticket_ids(contact_id):
    linked = await _call("GET", f"/crm/v3/objects/contacts/{contact_id}/associations/tickets")
    return [link["id"] for link in linked["results"]]


async def get_ticket(ticket_id):
    record = await _call("GET", f"/crm/v3/objects/tickets/{ticket_id}", params={"properties": "subject,hs_pipeline_stage,createdate"})
    props = record["properties"]
    return {"id": record["id"], "subject": props["subject"], "stage": props["hs_pipeline_stage"], "created": props["createdate"]}


async def create_note(contact_id, body):
    payload = {"properties": {"hs_note_body": body}, "associations": [{"to": {"id": contact_id}}]}
    created = await _call("POST", "/crm/v3/objects/notes", body=payload)
    return created["id"]
"#;

/// The built-in tutorial with its CRM reached over HTTP by a client module of its own.
fn over_http() -> swaplab_core::Workspace {
    use swaplab_core::FileRef;
    let mut workspace = crate::support::tutorial_workspace();
    for area in ["before", "after", "server"] {
        workspace.set_file(&FileRef::parse(&format!("{area}/lib/__init__.py")).unwrap(), "");
        workspace.set_file(&FileRef::parse(&format!("{area}/lib/crm_http.py")).unwrap(), CLIENT);
    }
    let env = "HUBSPOT_BASE_URL=http://127.0.0.1:8787\nHUBSPOT_ACCESS_TOKEN=mock-token\n";
    workspace.set_file(&FileRef::parse("before/.env.example").unwrap(), env);
    let python: Vec<FileRef> = workspace
        .files()
        .map(|(file, _)| file)
        .filter(|f| f.path.ends_with(".py") && !f.path.starts_with("lib/"))
        .collect();
    for file in python {
        let text = workspace.file(&file).unwrap_or_default().to_owned();
        if text.contains("from hubspot_client import crm") {
            let text =
                text.replace("from hubspot_client import crm", "from lib import crm_http as crm");
            workspace.set_file(&file, text);
        }
    }
    workspace
}

/// A leak as the test compares it: kind, tool, and each record with its owner.
type LeakSeen<'a> = (swaplab_core::sim::attack::LeakKind, &'a str, Vec<(&'a str, &'a str)>);

#[test]
fn a_project_client_over_httpx_proves_and_leaks_as_the_built_in_client_does() {
    let workspace = over_http();
    let proof = swaplab_core::proof::prove(&workspace);
    assert!(proof.passed() && proof.stop.is_none(), "{}", proof.to_text());
    use swaplab_core::sim::attack::LeakKind;
    let sim = swaplab_core::sim::Simulation::new(&workspace);
    let pair = sim.attack(&Default::default());
    assert!(pair.before.leaks.is_empty(), "{:?}", pair.before.leaks);
    assert!(
        matches!(pair.before.verdict, AttackVerdict::NoLeak { .. }),
        "{:?}",
        pair.before.verdict
    );
    let leaks: Vec<LeakSeen<'_>> = pair
        .after
        .leaks
        .iter()
        .map(|l| {
            let records = l.records.iter().map(|r| (r.id.as_str(), r.owner.as_str())).collect();
            (l.kind, l.tool.as_str(), records)
        })
        .collect();
    assert_eq!(
        leaks,
        [
            (
                LeakKind::Read,
                "list_open_tickets",
                vec![("701", "701"), ("9001", "701"), ("9002", "701")]
            ),
            (LeakKind::Write, "add_timeline_note", vec![("10000", "701")]),
        ]
    );
}

#[test]
fn a_victim_the_projects_mock_does_not_know_is_not_tested_never_no_leak() {
    // crm.yml names Dana Okafor 701; the mock's literals call her 801. The attack's
    // probes send 701, the mock answers 404, and nothing of hers can come back.
    let mut workspace = crate::support::tutorial_workspace();
    let mock = "crm/scripts/mock_hubspot.py";
    for _ in 0..3 {
        crate::support::edit(&mut workspace, mock, "\"701\"", "\"801\"");
    }
    let pair = swaplab_core::sim::Simulation::new(&workspace).attack(&Default::default());
    assert!(pair.after.leaks.is_empty(), "{:?}", pair.after.leaks);
    let AttackVerdict::NotTested { reason } = &pair.after.verdict else {
        panic!("{:?}", pair.after.verdict)
    };
    assert_eq!(
        reason.text(),
        "the CRM does not know Dana Okafor (701): `GET /crm/v3/objects/contacts/701/associations/tickets` got 404, so nothing of theirs could come back (the seed's customers and the CRM's records disagree)"
    );
}
