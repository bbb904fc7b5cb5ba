"""When a request was sent, as a file writes it: ISO 8601 text or epoch seconds.

One parser for request logs (`replay`), transcripts (`transcript`) and `--now`, so the same
text is the same clock everywhere.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any


def parse_timestamp(value: Any) -> datetime | None:
    """ISO 8601 text (`Z` for UTC; the offset kept as written), epoch seconds (milliseconds when
    that large) as UTC, or a datetime YAML already parsed; None if it is none of these."""
    try:
        if isinstance(value, datetime):
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            seconds = value / 1000 if value > 1e11 else value
            return datetime.fromtimestamp(seconds, tz=timezone.utc)
        if isinstance(value, str):
            return datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except (ValueError, OverflowError, OSError):
        return None
    return None


def naive_utc(moment: datetime | None) -> datetime | None:
    """`moment` in UTC without its offset (a naive one is taken as written)."""
    if moment is None or moment.tzinfo is None:
        return moment
    return moment.astimezone(timezone.utc).replace(tzinfo=None)
