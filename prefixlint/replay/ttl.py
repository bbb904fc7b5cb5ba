"""Durations for `--ttl`: 300s, 5m, 1h, 1d, or plain seconds; 0 turns expiry off."""

from __future__ import annotations

import re

_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h|d)?\s*", re.IGNORECASE)
_SECONDS = {None: 1, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> float | None:
    """Seconds, or None when `text` is not a duration."""
    match = _DURATION.fullmatch(text)
    if match is None:
        return None
    unit = match.group(2).lower() if match.group(2) else None
    return float(match.group(1)) * _SECONDS[unit]
