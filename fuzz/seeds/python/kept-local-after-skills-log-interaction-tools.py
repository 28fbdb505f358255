"""Local tool for log_interaction: a note on the identified caller's timeline.

The model passes only the summary; the customer the note lands on is read from
project memory.
"""

from rasa.mantle.tools import ToolContext, ToolResult, tool

from lib import hubspot


@tool(description="Add a note to the identified customer's CRM timeline.")
async def add_timeline_note(summary: str, context: ToolContext = None) -> ToolResult:
    """Write the call summary on the caller's record."""
    contact_id = context.memory.get("project.contact_id") if context else None
    if not contact_id:
        return ToolResult(llm_response={"ok": False, "error": "not_identified"})
    note_id = await hubspot.create_note(contact_id=contact_id, body=summary)
    return ToolResult(llm_response={"ok": True, "note_id": note_id})
