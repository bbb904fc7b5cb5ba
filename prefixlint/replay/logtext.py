"""The raw side of reading a log: lines of bounded length, lone surrogates, clocks.

A line longer than MAX_LINE_BYTES is skipped without being read whole (one 200 MB line
cannot fill memory); a timestamp is ISO 8601 text or epoch seconds; a request's duration
is the wrapper's `duration` (seconds), `duration_ms`, or `end_timestamp` less `timestamp`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from typing import IO, Any, Iterator

from prefixlint.limits import MAX_LINE_BYTES
from prefixlint.load import timestamps
from prefixlint.load.timestamps import naive_utc


def parse_timestamp(value: Any) -> datetime | None:
    """ISO 8601 text or epoch seconds (milliseconds when that large), in UTC without an offset;
    None if neither."""
    return naive_utc(timestamps.parse_timestamp(value))


def duration_of(outer: Mapping[str, Any], start: datetime | None) -> float | None:
    for key, scale in (("duration", 1.0), ("duration_ms", 1000.0)):
        value = outer.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
            return value / scale
    end = parse_timestamp(outer.get("end_timestamp"))
    if end is not None and start is not None and end >= start:
        return (end - start).total_seconds()
    return None


SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def has_lone_surrogate(data: Any) -> bool:
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def bounded_lines(stream: IO[bytes]) -> Iterator[bytes | None]:
    """The lines of `stream`, each read at most MAX_LINE_BYTES at a time: a longer line is None
    (and the rest of it is skipped), so one 200 MB line cannot fill memory."""
    while True:
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):
                raw = stream.readline(MAX_LINE_BYTES + 1)
            yield None
            continue
        yield raw
