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
#---
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


async def both():
    return [await contact("701"), note("701", "x"), await contact("999")]
