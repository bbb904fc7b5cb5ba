"""The garbage collector during one file's check: its youngest generation collected less often.

A check allocates, in bursts, objects that stay alive together: a module's `ast` tree (some
30,000 nodes for a module of 1,400 lines, twice: the file and its fixed text), libcst's trees of
each fix, every render's token ids. CPython collects its youngest generation every 700
allocations (net of deallocations) and traverses every object allocated since, so those live
trees are traversed again as they age through the generations, for nothing: about 8% of the
check of a module of 44 prompts (`benchmarks/bench_prompts_module.py`). At 20,000 the short-lived
objects are mostly freed by reference counting before a collection looks at them, and a check
spends under a millisecond collecting.

Only cyclic garbage waits longer (at most 20,000 objects more: a few MB, against a file's budget
of `limits.FILE_MEMORY_BYTES`); nothing a check computes depends on when the collector runs. The
thresholds are set in this one place, around the check of one file (`check/runner.py:check_path`,
which every command, worker, the language server and the benchmarks go through), and restored
when the outermost check ends: a long-running process is as before between checks.

A `prefixlint check` process itself (`commands/check.py`, `command_line_run`) collects its
youngest generation every `RUN_YOUNG_THRESHOLD` allocations from the start, as mypy's command
line does: importing the pipeline and reading the catalogs allocate objects that live until the
process ends (modules, functions, the tokenizer's tables), which CPython's 700 has collected
some 60 times by the first file (12-15 ms of a check of samples/, which then allocates fewer
than 200,000 objects: no collection at all).
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator

#: Allocations (net) between two collections of the youngest generation during a check
#: (CPython's default: 700). The older generations keep their thresholds.
YOUNG_THRESHOLD = 20_000
#: The same in a `prefixlint check` process, from its start to its end.
RUN_YOUNG_THRESHOLD = 200_000

_lock = threading.Lock()
_state: dict = {"depth": 0, "saved": None}


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Within it, the youngest generation is collected every `YOUNG_THRESHOLD` allocations;
    nested and concurrent uses share one setting, restored when the last ends."""
    with _lock:
        if _state["depth"] == 0:
            _state["saved"] = gc.get_threshold()
            young, *older = _state["saved"]
            gc.set_threshold(max(young, YOUNG_THRESHOLD), *older)
        _state["depth"] += 1
    try:
        yield
    finally:
        with _lock:
            _state["depth"] -= 1
            if _state["depth"] == 0:
                gc.set_threshold(*_state["saved"])


def command_line_run() -> None:
    """The youngest generation collected every `RUN_YOUNG_THRESHOLD` allocations, for the rest of
    the process (`prefixlint check`, which exits when it is done)."""
    young, *older = gc.get_threshold()
    gc.set_threshold(max(young, RUN_YOUNG_THRESHOLD), *older)
