"""Who renders and tokenizes the log: this process, `--workers N` processes, or Ray Data.

Each gives `prefixlint.replay.driver.replay_log` the records of the log in log order; the
simulation stays in this process.
"""

from __future__ import annotations

from typing import IO, Callable, Iterator

from prefixlint.replay.prepared import Setup, chunks

__all__ = ["Setup", "record_source"]
from prefixlint.replay.driver import Record


def record_source(log: str, workers: int, ray: bool,
                  setup: Setup) -> tuple[Callable[[IO[bytes] | None], Iterator[Record]] | None, bool]:
    """(the source for `replay_log`, None: this process; whether replay_log opens the log)."""
    if ray:
        from prefixlint.replay.ray_source import prepared_with_ray

        return (lambda stream: prepared_with_ray(log, setup)), False
    if workers > 1:
        from prefixlint.replay.parallel import CHUNK_LINES, prepared_in_order

        return (lambda stream: prepared_in_order(chunks(stream, CHUNK_LINES), workers, setup)), True
    return None, True
