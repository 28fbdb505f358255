"""A small stand-in for HubSpot's CRM v3 API, standard library only.

Start it with `python scripts/mock_hubspot.py` before the agent or the MCP
server, and point HUBSPOT_BASE_URL at it (.env.example does). It knows two
customers, Dana Okafor with two open tickets and Sam Rivera with none, answers
the four requests lib/hubspot.py sends, and keeps every note it is sent in NOTES
until it stops. Any bearer token will do; a request without one gets a 401.
"""

import json
import re
from http.server import BaseHTTPRequestHandler, HTTPServer

HOST, PORT = "127.0.0.1", 8787

CONTACTS = {
    "701": {
        "firstname": "Dana",
        "lastname": "Okafor",
        "company": "Okafor Logistics",
        "email": "dana.okafor@example.com",
    },
    "702": {
        "firstname": "Sam",
        "lastname": "Rivera",
        "company": "Rivera Foods",
        "email": "sam.rivera@example.com",
    },
}

TICKETS = {
    "9001": {
        "owner": "701",
        "subject": "Invoice 4471 shows the wrong VAT rate",
        "hs_pipeline_stage": "waiting_on_us",
        "createdate": "2026-08-11T08:30:00Z",
    },
    "9002": {
        "owner": "701",
        "subject": "Add a second admin to the account",
        "hs_pipeline_stage": "waiting_on_contact",
        "createdate": "2026-08-19T13:45:00Z",
    },
}

NOTES = []
FIRST_NOTE_ID = 10000


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if not self.signed_in():
            return
        path = self.path.split("?")[0]
        linked = re.fullmatch(r"/crm/v3/objects/contacts/(\d+)/associations/tickets", path)
        if linked and linked.group(1) in CONTACTS:
            owner = linked.group(1)
            ids = [ticket_id for ticket_id, ticket in TICKETS.items() if ticket["owner"] == owner]
            return self.answer(200, {"results": [{"id": i, "type": "contact_to_ticket"} for i in ids]})
        one = re.fullmatch(r"/crm/v3/objects/tickets/(\d+)", path)
        if one and one.group(1) in TICKETS:
            ticket = TICKETS[one.group(1)]
            fields = {k: v for k, v in ticket.items() if k != "owner"}
            return self.answer(200, {"id": one.group(1), "properties": fields})
        self.answer(404, {"status": "error", "message": f"No record at {path}"})

    def do_POST(self):
        if not self.signed_in():
            return
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length) or b"{}")
        if self.path == "/crm/v3/objects/contacts/search":
            rules = [rule for group in body.get("filterGroups", []) for rule in group["filters"]]
            wanted = [rule["value"].lower() for rule in rules if rule["propertyName"] == "email"]
            hits = [
                {"id": contact_id, "properties": contact}
                for contact_id, contact in CONTACTS.items()
                if contact["email"] in wanted
            ]
            return self.answer(200, {"total": len(hits), "results": hits[: body.get("limit", 10)]})
        if self.path == "/crm/v3/objects/notes":
            targets = [link["to"]["id"] for link in body.get("associations", [])]
            unknown = [target for target in targets if target not in CONTACTS]
            if unknown:
                return self.answer(404, {"status": "error", "message": f"No contact {unknown[0]}"})
            note_id = str(FIRST_NOTE_ID + len(NOTES))
            NOTES.append({"id": note_id, **body})
            return self.answer(201, {"id": note_id, "properties": body.get("properties", {})})
        self.answer(404, {"status": "error", "message": f"No record at {self.path}"})

    def signed_in(self):
        if self.headers.get("Authorization", "").startswith("Bearer "):
            return True
        self.answer(401, {"status": "error", "message": "Authentication credentials not found."})
        return False

    def answer(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


if __name__ == "__main__":
    HTTPServer((HOST, PORT), Handler).serve_forever()
