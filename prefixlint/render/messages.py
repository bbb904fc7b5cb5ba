"""OpenAI-shaped chat messages prepared the way vLLM's chat endpoint hands them to a template.

vLLM (`vllm/entrypoints/chat_utils.py`) flattens text content parts into one string (joined
with newlines; missing or null content becomes ""), parses each tool call's JSON `arguments` into a dict (`_postprocess_messages`;
empty arguments become `{}`), drops an empty `tool_calls` list, and passes an assistant's
reasoning under both `reasoning` and `reasoning_content`. transformers then also aliases it
as `thinking` (gpt-oss templates read that name). Other keys whose value is None are
dropped, as transformers' `apply_chat_template` does.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from prefixlint.load.transcript import REASONING_KEYS


def flatten_content(content: Any) -> str | None:
    """A message's text: a string, or the text parts of a content list joined by newlines."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "\n".join(parts)
    return str(content)


def reasoning_of(message: Mapping[str, Any]) -> str | None:
    for key in REASONING_KEYS:
        value = message.get(key)
        if isinstance(value, str):
            return value
    return None


def arguments_dict(arguments: Any) -> Any:
    """Tool-call arguments as vLLM gives them to templates: a JSON string parsed to a dict."""
    if not arguments:
        return {}
    if isinstance(arguments, str):
        return json.loads(arguments)  # the transcript loader has checked that it parses
    return arguments


def arguments_text(arguments: Any) -> str:
    """Tool-call arguments as the JSON text a model generates (harmony, approximations)."""
    if arguments is None or arguments == "":
        return "{}"
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False)


def for_template(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Copies of `messages` as a chat template receives them from vLLM and transformers."""
    prepared = []
    for message in messages:
        out = {key: value for key, value in message.items() if value is not None}
        # vLLM parses a missing or null content as no parts, which become the empty string.
        out["content"] = flatten_content(out.get("content")) or ""
        reasoning = reasoning_of(message)
        if reasoning is not None:
            out.update(reasoning=reasoning, reasoning_content=reasoning, thinking=reasoning)
        calls = out.get("tool_calls")
        if isinstance(calls, list) and not calls:
            del out["tool_calls"]
        elif isinstance(calls, list):
            out["tool_calls"] = [_call_for_template(call) for call in calls]
        prepared.append(out)
    return prepared


def _call_for_template(call: Mapping[str, Any]) -> dict[str, Any]:
    call = dict(call)
    function = dict(call.get("function") or {})
    function["arguments"] = arguments_dict(function.get("arguments"))
    call["function"] = function
    call.setdefault("type", "function")
    return call


def text_of(message: Mapping[str, Any]) -> str:
    """The text a person would look for in the render: content, else the tool calls' arguments."""
    content = flatten_content(message.get("content"))
    if content and content.strip():
        return content
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        if function.get("name"):
            return str(function["name"])
    return content or ""
