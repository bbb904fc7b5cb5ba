"""`replay --workers N`: render and tokenize the log in N local processes, in log order.

The log is read in chunks of lines by the replay's own process; each chunk is prepared
(parsed, rendered, tokenized) by a worker, and the results come back in the order of the
log to the simulator, which stays in the replay's process (the cache state depends on the
order). At most `2 x N` chunks are out at once, so memory does not grow with the log.
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Iterable, Iterator

from prefixlint.errors import PrefixlintError
from prefixlint.replay.driver import Record
from prefixlint.replay.prepared import Setup, prepare_lines

#: Lines sent to a worker at a time.
CHUNK_LINES = 256

_loaded = None


def _start(setup: Setup) -> None:
    global _loaded
    _loaded = setup


def _prepare(first_line: int, lines: list[bytes]) -> list[Record]:
    assert _loaded is not None  # set in each worker by the pool's initializer (_start)
    return prepare_lines(lines, first_line, _loaded)


def died(what: str) -> PrefixlintError:
    return PrefixlintError(f"{what}: the replay stopped and reports nothing (a partial replay is not the log's)",
                           hint="look for an out-of-memory kill (dmesg), then run again, with fewer --workers")


def prepared_in_order(chunks: Iterable[tuple[int, list[bytes]]], workers: int, setup: Setup) -> Iterator[Record]:
    """Every record of every chunk, in log order, prepared by `workers` processes."""
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_start, initargs=(setup,))
    pending: deque[Future] = deque()
    try:
        for first, lines in chunks:
            pending.append(pool.submit(_prepare, first, lines))
            if len(pending) >= 2 * workers:
                yield from pending.popleft().result()
        while pending:
            yield from pending.popleft().result()
    except BrokenProcessPool:
        raise died("a --workers process died") from None
    finally:
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)
