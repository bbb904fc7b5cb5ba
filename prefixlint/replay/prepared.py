"""Slices of a log made ready for the simulator in another process (`--workers`, `--ray`).

A worker gets raw lines and the number of the first one, parses them as `read_log` does,
renders and tokenizes the requests with the replay's own `prepare`, and gives back one
record per non-blank line (`prefixlint.replay.driver.records`), numbered as in the whole log.
"""

from __future__ import annotations

import dataclasses
import io
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Iterable, Iterator

from prefixlint.replay.driver import Record, Rendered, records
from prefixlint.replay.requestlog import read_log


@dataclass(frozen=True)
class Setup:
    """What a worker needs: the replay's `prepare` (it loads the tokenizer at its first
    request) and how trace lines are read."""

    prepare: Callable
    trace_block_size: int
    lora_of: Callable[[Any], Hashable | None] | None = None


def renumber(record: Record, shift: int) -> Record:
    if isinstance(record, Rendered):
        return Rendered(dataclasses.replace(record.request, line=record.request.line + shift), record.named, record.context)
    return dataclasses.replace(record, line=record.line + shift) if record.line else record


def prepare_lines(lines: list[bytes], first_line: int, setup: Setup) -> list[Record]:
    items = read_log(io.BytesIO(b"".join(lines)), "", setup.trace_block_size, setup.lora_of)
    return [renumber(r, first_line - 1) for r in records(items, setup.prepare)]


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
