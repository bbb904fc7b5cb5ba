"""One OpenAI-style tool call as a chat template renders it, checked the same way for
transcripts and request logs: `function: {name, arguments}`, whose `arguments` string (parsed,
as vLLM does) is JSON."""

from __future__ import annotations

from typing import Any, Mapping

from prefixlint.errors import PrefixlintError
from prefixlint.load.json_source import load_json


def tool_call_problem(call: Any) -> tuple[str, str] | None:
    """None for a good call; else ("shape", "") when it lacks `function: {name, ...}`, or
    ("arguments", why) when its arguments string is not JSON."""
    function = call.get("function") if isinstance(call, Mapping) else None
    if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
        return "shape", ""
    arguments = function.get("arguments")
    if isinstance(arguments, str) and arguments.strip():
        try:
            load_json(arguments, None, "not JSON")
        except PrefixlintError as exc:
            return "arguments", exc.message.removeprefix("not JSON: ")
    return None
