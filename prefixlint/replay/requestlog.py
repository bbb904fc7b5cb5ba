"""Read a request log: JSON Lines, one OpenAI-style request per line, in the order served.

Each line is a chat or completions request body (`messages` or `prompt`, optional `model`,
`cache_salt`, `metadata`), or a wrapper `{"timestamp": ..., "request": {...}, "response":
{...}}` whose response text counts as generated tokens. Lines that are not such a request
come back as `BadLine`s with their line number; blank lines are not requests and are passed
over.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import IO, Any, Callable, Hashable, Iterator, TypeGuard

from prefixlint.engines.request import Request
from prefixlint.errors import PrefixlintError
from prefixlint.load.json_source import load_json
from prefixlint.replay import logtext
from prefixlint.replay.linecheck import LogError, check_messages, check_prompt
from prefixlint.replay.logtext import (
    SURROGATE,
    bounded_lines,
    duration_of,
    fast_json_line,
    has_lone_surrogate,
    parse_timestamp,
)
from prefixlint.replay.trace import TRACE_KEY, TraceError, parse_trace

#: Keys of `metadata` that name the template a request was built from, first found wins.
TEMPLATE_KEYS = ("template", "template_id", "template_name", "prompt_template", "prompt_id", "prompt_name")


def _mapping(value: Any) -> TypeGuard[Mapping]:
    """`isinstance(value, Mapping)` at a dict's speed (JSON gives dicts, and asking the ABC
    about None, the usual other value, is slow)."""
    return type(value) is dict or (value is not None and isinstance(value, Mapping))


@dataclass(slots=True)  # not frozen: a frozen dataclass is built ~9 times slower, once a line
class LoggedRequest:
    line: int
    body: dict[str, Any] = field(repr=False)
    #: `metadata.template` (or a similar key) when the request names one.
    template: str | None
    #: The text the server generated (response), None when the log has no response.
    response_text: str | None = None
    #: A chat response's `choices[0].message` (content, reasoning, tool calls).
    response_message: dict[str, Any] | None = field(default=None, repr=False)
    #: The wrapper's `timestamp`: the clock a chat template saw when the server rendered it.
    timestamp: datetime | None = None
    finish_reason: str | None = None
    #: `usage.prompt_tokens_details.cached_tokens` as the server reported it, if it did.
    reported_cached_tokens: int | None = None
    #: Seconds the request was in flight: the wrapper's `duration` (seconds), `duration_ms`,
    #: or `end_timestamp` less `timestamp`.
    duration: float | None = None
    #: The request's id as the log gives it (`request_id`, `id`, `metadata.request_id`, the
    #: wrapper's or the response's `id`), for `--per-request`.
    request_id: str | None = None

    @property
    def is_chat(self) -> bool:
        return "messages" in self.body

    @property
    def session(self) -> str | None:
        """What a session router keys on: `user`, else `metadata.session_id`."""
        metadata = self.body.get("metadata")
        for value in (self.body.get("user"), metadata.get("session_id") if _mapping(metadata) else None):
            if isinstance(value, (str, int)) and not isinstance(value, bool):
                return str(value)
        return None

    @property
    def cache_salt(self) -> str | None:
        salt = self.body.get("cache_salt")
        return salt if isinstance(salt, str) and salt else None


@dataclass(frozen=True)
class BadLine:
    line: int
    message: str


def _template(*sources: Any) -> str | None:
    for source in sources:
        metadata = source.get("metadata") if source and _mapping(source) else None
        if metadata and _mapping(metadata):
            for key in TEMPLATE_KEYS:
                if isinstance(metadata.get(key), (str, int)):
                    return str(metadata[key])
    return None


def _response(response: Any) -> tuple[str | None, str | None, int | None, dict | None]:
    """(text, finish_reason, reported cached tokens, chat message) of a response."""
    if response is None:
        return None, None, None, None
    if isinstance(response, str):
        return response, None, None, None
    if not isinstance(response, Mapping):
        raise LogError("`response` must be an object or a string")
    reported = None
    usage = response.get("usage")
    if isinstance(usage, Mapping) and isinstance(usage.get("prompt_tokens_details"), Mapping):
        value = usage["prompt_tokens_details"].get("cached_tokens")
        reported = value if isinstance(value, int) else None
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise LogError("`response` has no choices[0] (an OpenAI chat or completions response)")
    choice = choices[0]
    finish = choice.get("finish_reason") if isinstance(choice.get("finish_reason"), str) else None
    if isinstance(choice.get("text"), str):
        return choice["text"], finish, reported, None
    message = choice.get("message")
    if isinstance(message, Mapping):
        content = message.get("content")
        return (content if isinstance(content, str) else ""), finish, reported, {**message, "role": "assistant"}
    raise LogError("`response.choices[0]` has neither `message` nor `text`")


def _json_object(text: str) -> dict:
    try:
        data = load_json(text, None, "not JSON")
    except PrefixlintError as exc:  # not JSON, nested too deeply, an integer of 5,000 digits, NaN
        raise LogError(exc.message + (f" (column {exc.column})" if exc.column else "")) from None
    if "\\u" in text and SURROGATE.search(text) and has_lone_surrogate(data):  # the `in`: a C scan, first
        raise LogError("a lone surrogate (\\ud800-\\udfff) is not text; the request cannot be tokenized")
    if not isinstance(data, dict):
        raise LogError(f"expected a JSON object, not {type(data).__name__}")
    return data


def parse_line(text: str, line: int) -> LoggedRequest:
    return parse_request(_json_object(text), line, text)


def parse_request(data: dict, line: int, text: str | None = None) -> LoggedRequest:
    """The request of a log line's JSON object `data` (`text`: the line itself, which lets
    some checks be made on the text at once)."""
    outer: dict[str, Any] = {}
    response: Any = None
    if isinstance(data.get("request"), dict):
        outer, data, response = data, data["request"], data.get("response")
    if "messages" in data:
        check_messages(data["messages"])
    elif "prompt" in data:
        check_prompt(data["prompt"], text)
    else:
        raise LogError("no `messages` or `prompt`: not a chat or completions request")
    salt = data.get("cache_salt")
    if salt is not None and not isinstance(salt, str):
        raise LogError("`cache_salt` must be a string")
    text, finish, reported, message = _response(response)
    start = parse_timestamp(outer.get("timestamp")) if outer else None
    if not outer and "metadata" not in data and _ID_KEYS.isdisjoint(data):  # a bare request: nothing to name
        return LoggedRequest(line, data, None)
    return LoggedRequest(line, data, _template(data, outer), text, message, start, finish, reported,
                         duration_of(outer, start) if outer else None, _request_id(data, outer, response))


#: The keys `_request_id` reads of a request body.
_ID_KEYS = frozenset(("request_id", "id"))


def _request_id(*sources: Any) -> str | None:
    for source in sources:
        if not source or not _mapping(source):
            continue
        metadata = source.get("metadata")
        for value in (source.get("request_id"), source.get("id"),
                      metadata.get("request_id") if _mapping(metadata) else None):
            if isinstance(value, (str, int)) and not isinstance(value, bool):
                return str(value)
    return None


def read_log(stream: IO[bytes], source: str, block_size: int = 512,
             lora_of: Callable[[Any], Hashable | None] | None = None) -> Iterator[LoggedRequest | Request | BadLine]:
    """Every non-blank line of `stream`, parsed: a request (`LoggedRequest`), a hashed-block
    trace line (`Request`, recognised by `hash_ids`) or a `BadLine`. A log is one or the
    other: a line of the other kind is fatal. Bytes read so far via `stream.tell()`."""
    from prefixlint.replay import sharegpt

    if sharegpt.starts_array(stream):
        yield from sharegpt.read_array(stream, source)
        return
    kind = None
    for number, raw in enumerate(bounded_lines(stream), 1):
        if raw is None:
            yield BadLine(number, f"longer than {logtext.MAX_LINE_BYTES:,} bytes; skipped without reading it whole")
            continue
        data = fast_json_line(raw)  # valid UTF-8 and JSON, within the bounds; None: read with care
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield BadLine(number, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})")
            continue
        if data is None:
            if number == 1:
                text = text.removeprefix("\ufeff")
            if not text or text.isspace():  # `not text.strip()` without copying the line
                continue
        try:
            if type(data) is not dict:
                data = _json_object(text)
            is_trace = TRACE_KEY in data
            if kind is not None and is_trace != kind:
                raise PrefixlintError(
                    "a hashed-block trace line (`hash_ids`) among request lines" if is_trace
                    else "a request line among hashed-block trace lines (`hash_ids`)",
                    path=source, line=number, hint="one log is either a request log or a trace, not both")
            kind = is_trace
            if is_trace:
                yield parse_trace(data, number, block_size, lora_of or _no_lora)
            elif sharegpt.is_conversation(data):
                yield from sharegpt.expand(data, number)
            else:
                yield parse_request(data, number, text)
        except (LogError, TraceError) as exc:
            yield BadLine(number, str(exc))


def _no_lora(model: Any) -> None:
    return None


def open_log(source: str) -> tuple[IO[bytes], int | None]:
    """The log as a binary stream, and its size in bytes when known (None for stdin)."""
    if source == "-":
        return sys.stdin.buffer, None
    try:
        stream = open(source, "rb")  # noqa: SIM115 - closed by the caller
    except OSError as exc:
        from prefixlint.load.files import open_error

        raise open_error(exc, source) from None
    return stream, os.fstat(stream.fileno()).st_size
