"""Hashed-block traces (Mooncake FAST'25, AIPerf): one request a line, block ids instead of text.

`{"timestamp": ms, "input_length": tokens, "output_length": tokens, "hash_ids": [int, ...]}`:
`hash_ids` are remapped hashes of consecutive prefix blocks of `block_size` prompt tokens
(512 in Mooncake's release), the last one possibly partial: two requests whose first k ids
are equal share their first k blocks. Optional `cache_salt` and `model` (a LoRA adapter
named by `--lora-modules`) are read as in request logs.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable

from prefixlint.engines.request import Request

TRACE_KEY = "hash_ids"


class TraceError(Exception):
    """A trace line that cannot be replayed."""


def _count(data: dict, key: str, required: bool) -> int:
    value = data.get(key)
    if value is None and not required:
        return 0
    if type(value) is not int or value < 0:
        shown = "missing" if value is None else f"{value!r}"
        raise TraceError(f"`{key}` must be a non-negative integer (tokens), not {shown}")
    return value


def parse_trace(data: dict[str, Any], line: int, block_size: int,
                lora_of: Callable[[Any], Hashable | None] = lambda model: None) -> Request:
    ids = data[TRACE_KEY]
    if not isinstance(ids, list) or not all(type(i) is int for i in ids):
        raise TraceError("`hash_ids` must be a list of integers")
    input_length = _count(data, "input_length", True)
    if len(ids) > -(-input_length // block_size):
        raise TraceError(f"{len(ids)} hash_ids for {input_length} input tokens: more than one per"
                         f" {block_size}-token block (is --trace-block-size right?)")
    stamp = data.get("timestamp")
    if stamp is not None and (not isinstance(stamp, (int, float)) or isinstance(stamp, bool)):
        raise TraceError("`timestamp` must be a number (milliseconds)")
    salt = data.get("cache_salt")
    if salt is not None and not isinstance(salt, str):
        raise TraceError("`cache_salt` must be a string")
    return Request(line, "(trace)", salt=salt or None, lora=lora_of(data.get("model")), block_ids=ids,
                   input_length=input_length, output_length=_count(data, "output_length", False),
                   timestamp=None if stamp is None else stamp / 1000, session=_session(data.get("chat_id")))


def _session(value: Any) -> str | None:
    return str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else None
