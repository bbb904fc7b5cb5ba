"""One log line made ready for the simulator: rendered, tokenized and routed, or why not.

The same step runs in the replay's own process, in `--workers` processes and in Ray tasks:
`prepare_lines` takes raw lines and gives back, in order, one record per non-blank line.
"""

from __future__ import annotations

import dataclasses
import io
from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, Iterator, Mapping

from prefixlint.errors import PrefixlintError
from prefixlint.load.requestlog import BadLine, LoggedRequest, read_log
from prefixlint.render.logged import ChatSettings, PreparedRequest, prepare
from prefixlint.replay.cluster import RouteInfo
from prefixlint.tokenize import Tokenizer

EPOCH = datetime(1970, 1, 1)


@dataclass(frozen=True)
class Prepared:
    request: PreparedRequest
    route: RouteInfo
    #: The line names its template (`metadata.template` and the like).
    named: bool


@dataclass(frozen=True)
class Fatal:
    """A chat line when the tokenizer has no chat template: the whole replay stops."""

    line: int
    message: str
    hint: str | None = None


Record = Prepared | BadLine | Fatal


def route_info(entry: LoggedRequest) -> RouteInfo:
    body = entry.body
    metadata = body.get("metadata") if isinstance(body.get("metadata"), Mapping) else {}
    session = None
    for value in (body.get("user"), metadata.get("session_id"), body.get("chat_id")):
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            session = str(value)
            break
    arrival = (entry.timestamp - EPOCH).total_seconds() if entry.timestamp is not None else None
    return RouteInfo(session, arrival, entry.duration)


def prepare_entry(entry: LoggedRequest | BadLine, tokenizer: Tokenizer, settings: ChatSettings,
                  template_error: PrefixlintError | None) -> Record:
    if isinstance(entry, BadLine):
        return entry
    if entry.is_chat and template_error is not None:
        return Fatal(entry.line, template_error.message, template_error.hint)
    try:
        request = prepare(entry, tokenizer, settings)
    except PrefixlintError as exc:
        return BadLine(entry.line, exc.message)
    return Prepared(request, route_info(entry), entry.template is not None)


def read_lines(lines: list[bytes], first_line: int) -> Iterator[LoggedRequest | BadLine]:
    """`read_log` over a slice of the log whose first line is number `first_line`."""
    shift = first_line - 1
    for entry in read_log(io.BytesIO(b"".join(lines)), ""):
        yield dataclasses.replace(entry, line=entry.line + shift)


def prepare_lines(lines: list[bytes], first_line: int, tokenizer: Tokenizer, settings: ChatSettings,
                  template_error: PrefixlintError | None) -> list[Record]:
    return [prepare_entry(e, tokenizer, settings, template_error) for e in read_lines(lines, first_line)]


@dataclass(frozen=True)
class Setup:
    """What a worker process needs to prepare lines as the replay's own process does."""

    tokenizer: str | None
    offline: bool
    chat_template: str | None
    #: The clock for lines without a timestamp, resolved once by the replay (ISO 8601).
    now: str

    def load(self) -> tuple[Tokenizer, ChatSettings, PrefixlintError | None]:
        from prefixlint.commands.replay import _chat_settings
        from prefixlint.tokenize import load_tokenizer

        tokenizer = load_tokenizer(self.tokenizer, offline=self.offline)
        return (tokenizer, *_chat_settings(tokenizer, self.chat_template, self.now))


def chunks(stream: Iterable[bytes], size: int) -> Iterator[tuple[int, list[bytes]]]:
    """(first line number, lines) of `size` lines at a time."""
    batch: list[bytes] = []
    first = 1
    for number, raw in enumerate(stream, 1):
        if not batch:
            first = number
        batch.append(raw)
        if len(batch) >= size:
            yield first, batch
            batch = []
    if batch:
        yield first, batch


