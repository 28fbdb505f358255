"""Local tool for check_tickets: the identified caller's open tickets.

The customer id comes from project memory, which the runtime holds; the model
never sees or chooses it.
"""

from rasa.mantle.tools import ToolContext, ToolResult, tool

from lib import hubspot


@tool(description="List the open support tickets of the identified customer.")
async def list_open_tickets(context: ToolContext = None) -> ToolResult:
    """Fetch the caller's tickets from the CRM, newest first."""
    contact_id = context.memory.get("project.contact_id") if context else None
    if not contact_id:
        return ToolResult(llm_response={"ok": False, "error": "not_identified"})
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
    return ToolResult(llm_response={"ok": True, "count": len(tickets), "tickets": tickets})
