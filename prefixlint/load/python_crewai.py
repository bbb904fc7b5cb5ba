"""CrewAI agents and tasks written as Python objects (`Agent(role=..., goal=..., backstory=...)`,
`Task(description=..., expected_output=...)`), measured as CrewAI assembles them: an agent is a
system prompt, a task the user's turn, in the slices of `load/crewai.py` (the same text as its
`agents.yaml`/`tasks.yaml` form). CrewAI's fixed text points at the call."""

from __future__ import annotations

import ast

from prefixlint.load.crewai import NO_TOOLS, ROLE_PLAYING, TASK
from prefixlint.load.python_shapes import fill_style
from prefixlint.load.python_walk import dotted
from prefixlint.load.source_prompts import PromptMessage, SourcePrompt, Text

#: The class name -> the keywords it needs, CrewAI's slices for it and the message's role.
OBJECTS = {"Agent": (("role", "goal", "backstory"), ROLE_PLAYING + (NO_TOOLS,), "system"),
           "Task": (("description", "expected_output"), TASK, "user")}


def crewai_prompt(resolve, call: ast.Call) -> SourcePrompt | None:
    """The prompt of a CrewAI `Agent(...)` or `Task(...)` call whose fields are all texts, in a
    module that imports crewai; None for any other call."""
    name = dotted(call.func).rsplit(".", 1)[-1]
    if name not in OBJECTS or not _imports_crewai(resolve):
        return None
    keys, slices, role = OBJECTS[name]
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    if not all(key in keywords for key in keys):
        return None
    at = resolve.offset(call.lineno, call.col_offset)
    pieces: list = []
    for piece in slices:
        key = piece[1:-1] if piece.startswith("{") and piece.endswith("}") else None
        if key in keys:
            text = resolve.text(keywords[key], fill_style(keywords[key]))
            if text is None:
                return None  # a field the code computes: not a text we can read
            pieces += text
        else:
            pieces.append(Text(piece, (at,) * len(piece)))
    return SourcePrompt(f"{name}({keys[0]}=...)", [PromptMessage(role, pieces, at)], is_chat=True)


def _imports_crewai(resolve) -> bool:
    found = getattr(resolve, "_imports_crewai", None)
    if found is None:
        found = resolve._imports_crewai = any(
            isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "crewai"
            or isinstance(node, ast.Import) and any(a.name.split(".")[0] == "crewai" for a in node.names)
            for node in resolve.tree.body)
    return found
