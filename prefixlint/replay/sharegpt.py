"""ShareGPT conversations read as the requests a chat client sends: one request per user turn.

A conversation is `{"conversations": [{"from": "human" | "gpt" | "system" | ..., "value": ...}]}`
(`id` optional), one per line (JSON Lines) or all in one JSON array (the file starts with `[`).
Each user turn is a chat request carrying every message before it, and the reply that follows
it is that request's response (its generated tokens are cached, as a server caches them), so
the next turn reuses it. Requests keep the conversation's line (its position in an array).
"""

from __future__ import annotations

from typing import IO, Any, Iterator

from prefixlint.replay.requestlog import BadLine, LoggedRequest

CONVERSATION_KEYS = ("conversations", "conversation")
#: ShareGPT's speakers and their forks' spellings, as chat roles.
ROLES = {"human": "user", "user": "user", "gpt": "assistant", "chatgpt": "assistant", "bard": "assistant",
         "bing": "assistant", "assistant": "assistant", "model": "assistant", "bot": "assistant",
         "system": "system", "tool": "tool", "function": "tool", "observation": "tool"}
#: A JSON-array file is read whole: at most this many bytes.
MAX_ARRAY_BYTES = 1 << 30


def is_conversation(data: dict) -> bool:
    if data.keys().isdisjoint(CONVERSATION_KEYS):  # the usual answer, in C
        return False
    return any(isinstance(data.get(key), list) for key in CONVERSATION_KEYS)


def expand(data: dict, line: int) -> Iterator[LoggedRequest | BadLine]:
    """The requests of one conversation, or one BadLine naming what is wrong with it."""
    turns = next(data[key] for key in CONVERSATION_KEYS if isinstance(data.get(key), list))
    messages: list[dict[str, Any]] = []
    for number, turn in enumerate(turns, 1):
        if not isinstance(turn, dict):
            yield BadLine(line, f"conversation turn {number} is not an object")
            return
        speaker = turn.get("from", turn.get("role"))
        role = ROLES.get(speaker.strip().lower()) if isinstance(speaker, str) else None
        if role is None:
            yield BadLine(line, f"conversation turn {number}: unknown speaker {speaker!r}"
                                f" (known: {', '.join(sorted(ROLES))})")
            return
        value = turn.get("value", turn.get("content"))
        if value is not None and not isinstance(value, str):
            yield BadLine(line, f"conversation turn {number}: `value` must be a string")
            return
        messages.append({"role": role, "content": value or ""})
    name = data.get("id")
    turn_index = 0
    for index, message in enumerate(messages):
        if message["role"] != "user":
            continue
        turn_index += 1
        reply = messages[index + 1] if index + 1 < len(messages) and messages[index + 1]["role"] == "assistant" else None
        yield LoggedRequest(
            line, {"messages": messages[: index + 1]}, None,
            response_text=reply["content"] if reply else None, response_message=dict(reply) if reply else None,
            finish_reason="stop" if reply else None,
            request_id=f"{name}-{turn_index}" if isinstance(name, (str, int)) and not isinstance(name, bool) else None,
        )
    if not turn_index:
        yield BadLine(line, "a conversation without a user turn: no request to replay")


def starts_array(stream: IO[bytes]) -> bool:
    """Whether the log is one JSON array (ShareGPT's usual file), by its first bytes."""
    peek = getattr(stream, "peek", None)
    if peek is None:
        return False
    head = peek(64)[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"[")


def read_array(stream: IO[bytes], source: str) -> Iterator[LoggedRequest | BadLine]:
    """A JSON array of conversations, read whole; entry N is reported as line N."""
    from prefixlint.errors import PrefixlintError
    from prefixlint.load.json_source import load_json

    raw = stream.read(MAX_ARRAY_BYTES + 1)
    if len(raw) > MAX_ARRAY_BYTES:
        raise PrefixlintError(f"a JSON array log over {MAX_ARRAY_BYTES:,} bytes is not read whole", path=source,
                              hint="write it as JSON Lines, one conversation per line")
    try:
        data = load_json(raw.decode("utf-8-sig"), source, "not JSON")
    except UnicodeDecodeError as exc:
        raise PrefixlintError(f"not valid UTF-8 (byte {exc.start})", path=source) from None
    if not isinstance(data, list):
        raise PrefixlintError("expected a JSON array of conversations", path=source)
    for number, item in enumerate(data, 1):
        if isinstance(item, dict) and is_conversation(item):
            yield from expand(item, number)
        else:
            yield BadLine(number, 'entry is not a conversation ({"conversations": [{"from", "value"}, ...]})')
