"""What makes a line of a request log a request the server could have served: its messages
(roles, content parts, tool calls) and its prompt (text, or token ids) checked; a line that
is not one raises `LogError` (read as a bad line by `requestlog.read_log`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from prefixlint.load.tool_calls import tool_call_problem
from prefixlint.replay.media import MEDIA_PARTS, media_content

ROLES = ("system", "developer", "user", "assistant", "tool", "function")
TEXT_PART_TYPES = ("text", "input_text", "output_text")


class LogError(Exception):
    """A line that is not a request (raised and caught inside this module)."""


def check_messages(messages: Any) -> None:
    if not isinstance(messages, list) or not messages:
        raise LogError("`messages` must be a non-empty list")
    for number, message in enumerate(messages, 1):
        if not isinstance(message, Mapping):
            raise LogError(f"message {number} is not an object")
        role = message.get("role")
        if role not in ROLES:
            raise LogError(f"message {number}: unknown role {role!r} (known: {', '.join(ROLES)})")
        _check_tool_calls(number, message.get("tool_calls"))
        content = message.get("content")
        if isinstance(content, list):
            for part in content:
                kind = part.get("type") if isinstance(part, Mapping) else type(part).__name__
                if kind in TEXT_PART_TYPES and not isinstance(part.get("text", ""), str):
                    raise LogError(f"message {number}: a {kind} part's `text` must be a string")
                if isinstance(part, str) or kind in TEXT_PART_TYPES:
                    continue
                if kind in MEDIA_PARTS:
                    if media_content(part) is None:
                        raise LogError(f"message {number}: a {kind!r} part without its content (url or data):"
                                       " its cache key (vLLM's mm_hash) cannot be known")
                    continue
                raise LogError(f"message {number}: content part of type {kind!r} is neither text nor"
                               f" an image or audio part ({', '.join(MEDIA_PARTS)})")
        elif content is not None and not isinstance(content, str):
            raise LogError(f"message {number}: content must be a string or a list of parts")


def _check_tool_calls(number: int, calls: Any) -> None:
    """Tool calls as the chat template renders them: objects with `function: {name, arguments}`,
    whose `arguments` string (parsed, as vLLM does) is JSON."""
    if calls is None:
        return
    if not isinstance(calls, list):
        raise LogError(f"message {number}: `tool_calls` must be a list")
    for call in calls:
        problem = tool_call_problem(call)
        if problem is None:
            continue
        kind, why = problem
        if kind == "shape":
            raise LogError(f"message {number}: each tool call needs `function: {{name, arguments}}`")
        raise LogError(f"message {number}: tool call arguments are not JSON ({why})")


def _token_ids(prompt: list, text: str | None) -> bool:
    """Whether a prompt list is token ids: integers (not booleans) from 0 to 2**31 - 1.

    `text` is the JSON line the list was read from. When it holds no `-`, no number in it is
    negative, and when it holds neither `true` nor `false` (no `e`: neither), no value is a
    boolean; then the list is non-negative integers exactly when `sum` adds it up to an integer
    (a string, null, list or object stops it with a TypeError, a float makes the sum a float),
    and each is below 2**31 when their sum is: one pass in C, without a call per item."""
    if text is not None and "-" not in text and ("e" not in text or ("true" not in text and "false" not in text)):
        try:
            total = sum(prompt)
        except TypeError:
            return False
        return type(total) is int and (total < 1 << 31 or max(prompt) < 1 << 31)
    return set(map(type, prompt)) == {int} and 0 <= min(prompt) and max(prompt) < 1 << 31


def check_prompt(prompt: Any, text: str | None = None) -> None:
    if isinstance(prompt, str):
        return
    if isinstance(prompt, list) and prompt and _token_ids(prompt, text):
        return  # token ids, as the completions endpoint accepts them
    if isinstance(prompt, list):
        raise LogError("`prompt` is a list that is not token ids (non-negative integers);"
                       " batched prompts: one per line, please")
    raise LogError("`prompt` must be a string or a list of token ids")
