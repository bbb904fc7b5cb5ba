"""CrewAI agents and tasks written as Python objects (`Agent(role=..., goal=..., backstory=...)`,
`Task(description=..., expected_output=...)`), measured as CrewAI assembles them: an agent is a
system prompt, a task the user's turn, in the slices of `load/crewai.py` (the same text as its
`agents.yaml`/`tasks.yaml` form). CrewAI's fixed text points at the call. As in the YAML form, a
`{name}` field of a text is filled by CrewAI from `crew.kickoff(inputs={...})`: a new value each
run, unless every kickoff of the project passes it as a literal (a program constant)."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

from prefixlint.load.crewai import NO_TOOLS, ROLE_PLAYING, TASK
from prefixlint.load.python_modules import kickoff_literals
from prefixlint.load.python_shapes import fill_style
from prefixlint.load.python_walk import dotted
from prefixlint.load.source_prompts import Field, PromptMessage, SourcePrompt, Text
from prefixlint.load.template import Variable

#: The class name -> the keywords it needs, CrewAI's slices for it and the message's role.
OBJECTS = {"Agent": (("role", "goal", "backstory"), ROLE_PLAYING + (NO_TOOLS,), "system"),
           "Task": (("description", "expected_output"), TASK, "user")}


def crewai_prompt(resolve, call: ast.Call, path: str | None = None) -> SourcePrompt | None:
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
            pieces += [_kickoff_input(resolve, piece, path) if isinstance(piece, Field) else piece for piece in text]
        else:
            pieces.append(Text(piece, (at,) * len(piece)))
    return SourcePrompt(f"{name}({keys[0]}=...)", [PromptMessage(role, pieces, at)], is_chat=True)


def _kickoff_input(resolve, field: Field, path: str | None) -> Field:
    """A `{name}` field the module leaves to CrewAI: per run, or the literal every kickoff passes."""
    if field.variable is not None or field.text != "{" + field.name + "}":
        return field  # an f-string's value, or a text the module fills itself
    literals = _literals(resolve, path)
    line = resolve.source.count("\n", 0, field.offset) + 1
    if field.name in literals:
        value, site = literals[field.name]
        return replace(field, variable=Variable(field.name, "stable", (value,), line,
                                                f"filled by the literal {value!r} passed to kickoff ({site})"))
    return replace(field, variable=Variable(field.name, "per_request", (), line,
                                            "filled by CrewAI from kickoff(inputs=...) on each run"))


def _literals(resolve, path: str | None) -> dict:
    """The kickoff literals of the project the module is in: its folder, else the folder above
    (a `tasks/` or `agents/` package of the crew)."""
    found = getattr(resolve, "_kickoff_literals", None)
    if found is None:
        found = (kickoff_literals(path) if path else None)
        if found is None and path:
            found = kickoff_literals(str(Path(path).parent))
        found = resolve._kickoff_literals = found or {}
    return found


def _imports_crewai(resolve) -> bool:
    found = getattr(resolve, "_imports_crewai", None)
    if found is None:
        found = resolve._imports_crewai = any(
            isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "crewai"
            or isinstance(node, ast.Import) and any(a.name.split(".")[0] == "crewai" for a in node.names)
            for node in resolve.tree.body)
    return found
