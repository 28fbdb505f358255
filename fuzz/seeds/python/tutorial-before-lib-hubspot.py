"""The support desk's HubSpot client: the four CRM v3 requests the agent needs.

The local tools and the MCP server both import this module, so the CRM is
reached the same way on either side of the swap. Where it is reached comes from
the environment: HUBSPOT_BASE_URL (HubSpot itself, or scripts/mock_hubspot.py
as .env.example sets it) and HUBSPOT_ACCESS_TOKEN, a private-app token.
"""

from __future__ import annotations

import os

import httpx

OBJECTS = "/crm/v3/objects"
# HubSpot's own association type for "note attached to a contact".
NOTE_ON_CONTACT = {"associationCategory": "HUBSPOT_DEFINED", "associationTypeId": 202}


class CrmError(Exception):
    """HubSpot refused the request, or nothing answered at HUBSPOT_BASE_URL."""


def _connect() -> httpx.AsyncClient:
    token = os.getenv("HUBSPOT_ACCESS_TOKEN", "")
    return httpx.AsyncClient(
        base_url=os.environ["HUBSPOT_BASE_URL"],
        headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
        timeout=10.0,
    )


async def _send(method: str, path: str, **options) -> dict:
    async with _connect() as http:
        try:
            response = await http.request(method, path, **options)
            response.raise_for_status()
        except httpx.HTTPError as exc:
            raise CrmError(f"{method} {path} failed: {exc}") from exc
        return response.json()


async def search_contact_by_email(email: str) -> dict | None:
    """The contact with this email, as {"id": ..., "firstname": ..., ...}, or None."""
    rule = {"propertyName": "email", "operator": "EQ", "value": email}
    found = await _send(
        "POST",
        f"{OBJECTS}/contacts/search",
        json={
            "filterGroups": [{"filters": [rule]}],
            "properties": ["firstname", "lastname", "email", "company"],
            "limit": 1,
        },
    )
    if not found["results"]:
        return None
    record = found["results"][0]
    return {"id": record["id"], **record["properties"]}


async def list_ticket_ids(contact_id: str) -> list[str]:
    """Ids of the tickets associated with a contact, in HubSpot's order."""
    linked = await _send("GET", f"{OBJECTS}/contacts/{contact_id}/associations/tickets")
    return [link["id"] for link in linked["results"]]


async def get_ticket(ticket_id: str) -> dict:
    """One ticket, reduced to what the agent tells a caller."""
    record = await _send(
        "GET",
        f"{OBJECTS}/tickets/{ticket_id}",
        params={"properties": "subject,hs_pipeline_stage,createdate"},
    )
    fields = record["properties"]
    return {
        "id": record["id"],
        "subject": fields["subject"],
        "stage": fields["hs_pipeline_stage"],
        "created": fields["createdate"][:10],
    }


async def create_note(contact_id: str, body: str) -> str:
    """Puts a note on the contact's timeline and returns the new note's id."""
    created = await _send(
        "POST",
        f"{OBJECTS}/notes",
        json={
            "properties": {"hs_note_body": body},
            "associations": [{"to": {"id": contact_id}, "types": [NOTE_ON_CONTACT]}],
        },
    )
    return created["id"]
