"""The assistant's entry point: its system prompt is the file beside it, its task prompt is here."""

from pathlib import Path

SYSTEM = (Path(__file__).parent / "system.md").read_text(encoding="utf-8")


def summary_prompt(ticket: str) -> str:
    return (
        "Summarise the support ticket below for the next agent on shift: the customer's problem, "
        "what was already tried, and what they were promised, in at most five short lines.\n\n"
        f"Ticket:\n{ticket}"
    )
