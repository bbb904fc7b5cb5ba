"""The raw side of reading a log: lines of bounded length, lines parsed fast within the bounds,
lone surrogates, clocks.

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


#: A run of this many digits may be an integer past 64 bits, which orjson reads as a float.
_I64_RUN = b"0" * 19
#: A line with no more brackets than this is nested less deeply than `json` can read (orjson
#: reads 1,024 levels, `json` about 1,000: the lines between are left to `loads_json`).
_SHALLOW = 900
#: Digits made 0 and `{` made `[`: one translated copy answers both questions.
_ZERO_AND_BRACKET = bytes.maketrans(b"123456789{", b"000000000[")


def fast_json_line(raw: bytes) -> Any:
    """A JSON line parsed by orjson (a core dependency), or None when the careful path
    (`limits.loads_json`) must decide: orjson missing, a run of 19 digits or more (orjson reads
    an integer past 64 bits as a float, `json` as an int within MAX_INT_DIGITS), more than
    _SHALLOW brackets, or anything orjson refuses (not JSON, invalid UTF-8, a BOM, a lone
    surrogate, NaN, 1e400), whose diagnostic is `loads_json`'s. Where it answers, it answers
    what `loads_json` does, within the same bounds, about three times faster."""
    parser = _orjson if _orjson is not None else _load_orjson()
    if parser is False:
        return None
    marked = raw.translate(_ZERO_AND_BRACKET)  # one pass for both bounds
    if _I64_RUN in marked or marked.count(b"[") > _SHALLOW:
        return None
    try:
        return parser.loads(raw)
    except parser.JSONDecodeError:
        return None


_orjson: Any = None


def _load_orjson() -> Any:
    """orjson, imported at the first line read (not at start-up); False when not installed."""
    global _orjson
    try:
        import orjson
    except ImportError:  # no orjson for this platform: `loads_json` reads every line
        _orjson = False
    else:
        _orjson = orjson
    return _orjson
