"""What a logged request's messages hold, for explaining its misses: `Context`, read from the
request body as the log is read (light: the replay imports it for every request)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Context:
    """What a request's messages hold (to tell content from what the template wrote)."""

    #: (role, text) of each message, reasoning included.
    messages: tuple[tuple[str, str], ...] = ()
    tools_text: str = ""
    request_id: str | None = None
    #: The tools with sorted keys, ordered: equal for the same schemas in another order.
    tools_canonical: str = ""
    #: The prompt was logged as token ids (a completions `prompt` list), not as text.
    token_ids: bool = False

    @property
    def last_user(self) -> str | None:
        return next((text for role, text in reversed(self.messages) if role == "user" and text), None)

    def holds(self, value: str) -> bool:
        return bool(value) and (any(value in text for _, text in self.messages) or value in self.tools_text)


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p if isinstance(p, str) else str(p.get("text", "")) for p in content if isinstance(p, (str, dict)))
    return ""


#: The context of a completions request without tools or an id, by whether its prompt is token ids.
_BARE = {False: Context(), True: Context(token_ids=True)}


def context_of(body: dict, request_id: str | None = None) -> Context:
    """The `Context` of a chat request body (a completions prompt has no messages)."""
    if request_id is None and "messages" not in body and "tools" not in body:
        prompt = body.get("prompt")
        return _BARE[isinstance(prompt, list) and bool(prompt) and isinstance(prompt[0], int)]
    messages = []
    for message in body.get("messages") or ():
        if not isinstance(message, dict):
            continue
        role = str(message.get("role"))
        text = _texts(message.get("content"))
        for key in ("reasoning_content", "reasoning", "thinking"):
            if isinstance(message.get(key), str):
                text = message[key] + "\n" + text
        messages.append((role, text))
    tools = body.get("tools")
    tools_text = json.dumps(tools, ensure_ascii=False) if isinstance(tools, list) else ""
    canonical = json.dumps(sorted(_canonical(t) for t in tools)) if isinstance(tools, list) else ""
    prompt = body.get("prompt")
    token_ids = isinstance(prompt, list) and bool(prompt) and isinstance(prompt[0], int)
    return Context(tuple(messages), tools_text, request_id, canonical, token_ids)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)
