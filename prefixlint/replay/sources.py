"""Where a replay's records come from: this process, `--workers N` processes, or Ray."""

from __future__ import annotations

from typing import IO, Iterator

from prefixlint.load.requestlog import read_log
from prefixlint.replay.prepared import Record, Setup, chunks, prepare_entry


def records(log: str, stream: IO[bytes] | None, workers: int, ray: bool, setup: Setup, loaded) -> Iterator[Record]:
    """Every non-blank line of the log as a record, in log order. `loaded`: this process's
    (tokenizer, chat settings, template error)."""
    if ray:
        from prefixlint.replay.ray_source import prepared_with_ray

        return prepared_with_ray(log, setup)
    assert stream is not None
    if workers > 1:
        from prefixlint.replay.parallel import CHUNK_LINES, prepared_in_order

        return prepared_in_order(chunks(stream, CHUNK_LINES), workers, setup)
    return (prepare_entry(entry, *loaded) for entry in read_log(stream, log))
