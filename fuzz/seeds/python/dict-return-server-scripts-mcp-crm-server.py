"""The CRM tools as an MCP server (streamable HTTP on 127.0.0.1:8931).

An MCP tool gets only the arguments in the call: there is no ToolContext and no
project memory here, so the customer id has to arrive as an argument.
"""

import os
import sys

from mcp.server.fastmcp import FastMCP
from pydantic import BaseModel

# `python scripts/mcp_crm_server.py` puts scripts/ on the import path; the client
# module lives in lib/, one folder up.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from lib import hubspot  # noqa: E402

mcp = FastMCP("hubspot_crm", host="127.0.0.1", port=8931)


class CrmResult(BaseModel):
    """Every tool returns this model, so each one publishes an output schema and
    the result reaches the agent as structured content with `ok` and `error`."""

    model_config = {"extra": "allow"}
    ok: bool


@mcp.tool(description="Find a customer in the CRM by the email address on their account.")
async def find_contact_by_email(email: str) -> dict:
    """Look the caller up by email.

    Args:
        email: The address the caller gave.
    """
    contact = await hubspot.search_contact_by_email(email)
    if contact is None:
        return CrmResult(ok=False, error="contact_not_found")
    return CrmResult(
        ok=True,
        contact_id=contact["id"],
        name=f"{contact['firstname']} {contact['lastname']}",
        company=contact["company"],
    )


@mcp.tool(description="List the open support tickets of the identified customer.")
async def list_open_tickets(contact_id: str) -> CrmResult:
    """Fetch a customer's tickets, newest first.

    Args:
        contact_id: CRM contact id of the identified customer.
    """
    # An argument, not a memory read: whoever fills in the call chooses the customer.
    if not contact_id:
        return CrmResult(ok=False, error="not_identified")
    tickets = []
    for ticket_id in await hubspot.list_ticket_ids(contact_id):
        ticket = await hubspot.get_ticket(ticket_id)
        tickets.append(
            {
                "id": ticket["id"],
                "subject": ticket["subject"],
                "stage": ticket["stage"],
                "created": ticket["created"],
            }
        )
    return CrmResult(ok=True, count=len(tickets), tickets=tickets)


@mcp.tool(description="Add a note to the identified customer's CRM timeline.")
async def add_timeline_note(contact_id: str, summary: str) -> CrmResult:
    """Write a call summary on a customer's record.

    Args:
        contact_id: CRM contact id of the identified customer.
        summary: One or two sentences about the call.
    """
    if not contact_id:
        return CrmResult(ok=False, error="not_identified")
    note_id = await hubspot.create_note(contact_id=contact_id, body=summary)
    return CrmResult(ok=True, note_id=note_id)


if __name__ == "__main__":
    mcp.run(transport="streamable-http")
