"""Shared CRM tool: identify the caller by email and remember who they are.

A shared tool is bound to a skill that declares its name (here identify_customer,
through import_tools). It receives a ToolContext, so it can write project memory.
"""

from rasa.mantle.tools import ToolContext, ToolResult, tool

from lib import hubspot


@tool(description="Find a customer in the CRM by the email address on their account.")
async def find_contact_by_email(email: str, context: ToolContext = None) -> ToolResult:
    """Look the caller up and store their id for the skills that follow."""
    contact = await hubspot.search_contact_by_email(email)
    if contact is None:
        return ToolResult(llm_response={"ok": False, "error": "contact_not_found"})
    name = f"{contact['firstname']} {contact['lastname']}"
    if context:
        # Project memory is write-once: the first identification of a call sticks.
        context.memory.set("project.contact_id", contact["id"])
        context.memory.set("project.contact_name", name)
        context.memory.set("project.company", contact["company"])
    return ToolResult(
        llm_response={
            "ok": True,
            "contact_id": contact["id"],
            "name": name,
            "company": contact["company"],
        }
    )
