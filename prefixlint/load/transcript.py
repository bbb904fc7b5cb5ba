"""Read a chat transcript (YAML or JSON, OpenAI chat shape) into the requests a server received.

Two shapes are accepted:

    messages: [...]          one conversation; every assistant message is the reply to a
    tools: [...]             request made of the messages before it, and a conversation
                             ending on a user or tool message is one more request
    requests:                requests as they were sent (an application may have edited or
      - messages: [...]      trimmed history between them); each request's reply is its
        tools: [...]         `response`, else the assistant message the next request has
        response: {...}      at the position right after this one's messages

A bare list is read as `messages`. Messages are OpenAI chat messages: `role` (system,
developer, user, assistant, tool), `content` (a string or a list of text parts), assistant
`tool_calls` (`function.arguments` as a JSON string or an object) and `reasoning_content`,
`reasoning` or `thinking`; tool `tool_call_id`. An optional `timestamp` (ISO 8601 or epoch
seconds) on a message sets the clock the template sees for the request it ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from prefixlint.errors import PrefixlintError
from prefixlint.load.timestamps import parse_timestamp
from prefixlint.load.tool_calls import tool_call_problem

ROLES = ("system", "developer", "user", "assistant", "tool")
REASONING_KEYS = ("reasoning_content", "reasoning", "thinking")
CLOCK_KEYS = ("timestamp",)


@dataclass
class Request:
    """One request: the messages sent, the reply it produced (if known), and source lines."""

    messages: list[dict[str, Any]]
    reply: dict[str, Any] | None
    tools: list[dict[str, Any]] | None
    lines: list[int | None]  # the line of each message in the transcript file
    reply_line: int | None = None
    now: datetime | None = None  # from the latest `timestamp` among its messages


@dataclass
class Transcript:
    path: str
    requests: list[Request] = field(default_factory=list)


def _compose(text: str, path: str, is_json: bool):
    """(the data, its YAML node tree for line numbers), read by the one safe YAML reader."""
    from prefixlint.load.json_source import compose_json, load_json
    from prefixlint.load.yaml_source import compose, to_python

    if is_json:
        data = load_json(text, path, "not valid JSON")
        try:
            return data, compose_json(text, path)
        except PrefixlintError:
            return data, None  # valid JSON that YAML reads differently: no line numbers
    node = compose(text, path, "not valid YAML")
    return (None if node is None else to_python(node, path, "not valid YAML")), node


def _child(node, key):
    """The YAML node under `key` (a string key of a mapping, or an index of a sequence)."""
    if node is None:
        return None
    if isinstance(key, int):
        items = getattr(node, "value", None)
        return items[key] if isinstance(items, list) and key < len(items) else None
    for k, v in getattr(node, "value", []) if node.id == "mapping" else []:
        if getattr(k, "value", None) == key:
            return v
    return None


def _line(node) -> int | None:
    return node.start_mark.line + 1 if node is not None else None


def load_transcript(path: str) -> Transcript:
    from prefixlint.load.files import read_text

    text = read_text(path)
    data, root = _compose(text, path, path.lower().endswith(".json"))
    if isinstance(data, list):
        messages, lines = _messages(data, root, path)
        return Transcript(path, split_conversation(messages, lines, None))
    if not isinstance(data, dict):
        raise PrefixlintError("expected a mapping with `messages` (or `requests`), or a list of messages", path=path, line=1)
    if "requests" in data:
        return Transcript(path, _requests(data["requests"], _child(root, "requests"), path))
    if "messages" not in data:
        raise PrefixlintError("no `messages` in this transcript", path=path, line=1,
                              hint="write the conversation as `messages: [{role: user, content: ...}, ...]`")
    messages, lines = _messages(data["messages"], _child(root, "messages"), path)
    tools = _tools(data.get("tools"), _child(root, "tools"), path)
    return Transcript(path, split_conversation(messages, lines, tools))


def split_conversation(messages, lines, tools) -> list[Request]:
    """One conversation into requests: one before each assistant message, and a last one."""
    requests = []
    for index, message in enumerate(messages):
        if message["role"] == "assistant" and index > 0:
            requests.append(Request(messages[:index], message, tools, lines[:index], lines[index]))
    if messages and messages[-1]["role"] != "assistant":
        requests.append(Request(messages, None, tools, lines))
    for request in requests:
        request.now = _clock(request.messages)
    return requests


def _requests(value, node, path) -> list[Request]:
    if not isinstance(value, list) or not value:
        raise PrefixlintError("`requests` must be a non-empty list", path=path, line=_line(node))
    requests = []
    for index, item in enumerate(value):
        item_node = _child(node, index)
        if not isinstance(item, dict) or "messages" not in item:
            raise PrefixlintError(f"request {index + 1} needs `messages`", path=path, line=_line(item_node))
        messages, lines = _messages(item["messages"], _child(item_node, "messages"), path)
        tools = _tools(item.get("tools"), _child(item_node, "tools"), path)
        reply, reply_line = None, None
        if item.get("response") is not None:
            reply_node = _child(item_node, "response")
            reply = _message(item["response"], reply_node, path, 0)
            reply_line = _line(reply_node)
            if reply["role"] != "assistant":
                raise PrefixlintError("a `response` must be an assistant message", path=path, line=reply_line)
        requests.append(Request(messages, reply, tools, lines, reply_line, _clock(messages)))
    for current, following in zip(requests, requests[1:]):
        position = len(current.messages)
        if current.reply is None and position < len(following.messages):
            candidate = following.messages[position]
            if candidate["role"] == "assistant":
                current.reply, current.reply_line = candidate, following.lines[position]
    return requests


def _messages(value, node, path) -> tuple[list[dict[str, Any]], list[int | None]]:
    if not isinstance(value, list) or not value:
        raise PrefixlintError("`messages` must be a non-empty list", path=path, line=_line(node))
    messages = [_message(item, _child(node, i), path, i) for i, item in enumerate(value)]
    return messages, [_line(_child(node, i)) for i in range(len(value))]


def _message(item, node, path, index) -> dict[str, Any]:
    line = _line(node)
    where = f"message {index}"
    if not isinstance(item, dict):
        raise PrefixlintError(f"{where} is not a mapping with `role` and `content`", path=path, line=line)
    role = item.get("role")
    if role not in ROLES:
        raise PrefixlintError(
            f"{where} has {'no role' if role is None else f'an unknown role {role!r}'}",
            path=path, line=_line(_child(node, "role")) or line, hint=f"use one of: {', '.join(ROLES)}",
        )
    content = item.get("content")
    if content is not None and not isinstance(content, (str, list)):
        raise PrefixlintError(f"{where}: `content` must be a string or a list of text parts",
                              path=path, line=_line(_child(node, "content")) or line)
    has_reasoning = any(isinstance(item.get(k), str) for k in REASONING_KEYS)
    if content is None and not (role == "assistant" and (item.get("tool_calls") or has_reasoning)):
        raise PrefixlintError(f"{where} ({role}) has no `content`", path=path, line=line,
                              hint="every message needs `content` (an assistant message may have `tool_calls` instead)")
    for key in CLOCK_KEYS:
        if key in item and parse_timestamp(item[key]) is None:
            raise PrefixlintError(f"{where}: `{key}` is not an ISO 8601 date-time or epoch seconds",
                                  path=path, line=_line(_child(node, key)) or line)
    calls = item.get("tool_calls")
    if calls is not None:
        _check_calls(calls, _child(node, "tool_calls"), path, where, line)
    return dict(item)


def _check_calls(calls, node, path, where, line) -> None:
    if not isinstance(calls, list):
        raise PrefixlintError(f"{where}: `tool_calls` must be a list", path=path, line=_line(node) or line)
    for i, call in enumerate(calls):
        call_line = _line(_child(node, i)) or line
        problem = tool_call_problem(call)
        if problem is None:
            continue
        kind, why = problem
        if kind == "shape":
            raise PrefixlintError(f"{where}: tool call {i} needs `function: {{name, arguments}}`", path=path, line=call_line)
        raise PrefixlintError(f"{where}: tool call {i} arguments are not JSON: {why}", path=path, line=call_line)


def _tools(value, node, path) -> list[dict[str, Any]] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
        raise PrefixlintError("`tools` must be a list of tool definitions", path=path, line=_line(node))
    return value


def _clock(messages) -> datetime | None:
    """The latest `timestamp` among `messages`: when the request was sent."""
    found = None
    for message in messages:
        for key in CLOCK_KEYS:
            if key in message:
                found = parse_timestamp(message[key]) or found
    return found


def for_rendering(message: dict[str, Any]) -> dict[str, Any]:
    """A message without the keys prefixlint reads itself (`timestamp`)."""
    return {k: v for k, v in message.items() if k not in CLOCK_KEYS}
