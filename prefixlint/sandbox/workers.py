"""Worker processes with a hard memory and time budget per task, enforced from outside the work.

The sandbox's own bounds (`prefixlint.sandbox`, `bounds.py`) work out sizes before making them
and stop a render with a signal; both depend on the work being Python code that cooperates.
A native extension allocating 4 GB, or a C-level loop that never returns to the interpreter,
is stopped only from outside: each task runs in a worker process started with `os.fork`
(it inherits the parent's state, so nothing but the task's index and its result crosses the
pipe), whose address space is capped with `RLIMIT_AS`, and the parent kills a worker that is
past its deadline and starts a new one for the next task. Workers are started lazily, on the
first task, and reused; the parent only hands out tasks and collects results, in order.

Where there is no `os.fork` (Windows), or `PREFIXLINT_WORKERS=0`, or a worker cannot be
started, the tasks run in this process: the same results, with only the sandbox's own bounds.
"""

from __future__ import annotations

import gc
import os
import pickle
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

from prefixlint.limits import FILE_MEMORY_BYTES, FILE_SECONDS, WORKERS
from prefixlint.sandbox.worker_process import Worker

#: A task's wall-clock time, in multiples of its (CPU) time budget, past which it is stopped
#: too: one that waits without computing. Generous: on a machine so loaded that the worker
#: gets less than a quarter of a CPU, a file's work is stopped by it too.
WALL_FACTOR = 4.0


@dataclass(frozen=True)
class Overrun:
    """A task that did not end normally: `kind` is "time" (past its CPU time), "wall" (past
    WALL_FACTOR times that of wall-clock time), "memory" or "crash" (the worker died with
    `signal`, or exited with `status`)."""

    kind: str
    seconds: float = 0.0
    memory_bytes: int = 0
    signal: int | None = None
    status: int | None = None
    detail: str = ""


def forking_available() -> bool:
    return hasattr(os, "fork") and WORKERS > 0


def run_bounded(run: Callable[[Any], Any], tasks: Iterable[Any], *, size: int | None = None,
                seconds: float | None = None, memory_bytes: int | None = None,
                keep: Callable[[int], bool] | None = None,
                warm: Callable[[], None] | None = None, in_process: bool = False) -> Iterator[tuple[int, Any]]:
    """(index, result) for each task, in order: `run(task)`'s result, or an `Overrun`.

    `run` must not raise for a problem with its task (the caller's boundary catches those);
    a MemoryError, a worker killed at its deadline and a worker that died are Overruns.
    `keep(index)`, asked just before a task is handed out, may skip it (no result for it); with
    several workers it is asked ahead of results still to come, so the caller filters too.
    `warm()` runs here once, before the first worker that replaces a killed one starts: what it
    loads (trusted state, never the tasks' input) that worker and every later one inherit, so
    a replacement is ready at once and no task's deadline pays for it. (The first workers load
    what they need themselves: warming before them would cost the run that work twice.)
    Without workers (no fork, `PREFIXLINT_WORKERS=0`, or `in_process`: a caller whose threads
    must not be forked), the tasks run here, in order."""
    tasks = list(tasks)
    size = max(1, min(WORKERS if size is None else size, len(tasks) or 1))
    seconds = FILE_SECONDS if seconds is None else seconds
    memory_bytes = FILE_MEMORY_BYTES if memory_bytes is None else memory_bytes
    if not tasks:
        return
    if in_process or not forking_available():
        yield from _in_process(run, tasks, keep)
        return
    yield from _Pool(run, tasks, size, seconds, memory_bytes, keep, warm).results()


class Session:
    """One worker kept across calls, for a caller that has its tasks one at a time (`report`
    measures each file at the base and in the working tree as it goes): `call(task)` is
    `run(task)`'s result or an Overrun, with the same budgets as `run_bounded`."""

    def __init__(self, run: Callable[[Any], Any], *, seconds: float | None = None,
                 memory_bytes: int | None = None, warm: Callable[[], None] | None = None) -> None:
        self.run, self.warm = run, warm
        self.pool: _Pool | None = None
        self.seconds = FILE_SECONDS if seconds is None else seconds
        self.memory_bytes = FILE_MEMORY_BYTES if memory_bytes is None else memory_bytes

    def call(self, task: Any) -> Any:
        if not forking_available():
            return next(_in_process(self.run, [task], None))[1]
        if self.pool is None:
            self.pool = _Pool(self.run, [], 1, self.seconds, self.memory_bytes, None, self.warm)
        pool = self.pool
        pool.tasks.append(task)
        index = len(pool.tasks) - 1
        pool._dispatch(index)
        while index not in pool.done and pool.busy:
            pool._collect()
        pool.tasks[index] = None  # nothing kept of a finished task
        return pool.done.pop(index)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    def __del__(self) -> None:
        self.close()


def _in_process(run, tasks, keep) -> Iterator[tuple[int, Any]]:
    for index, task in enumerate(tasks):
        if keep is not None and not keep(index):
            continue
        try:
            yield index, run(task)
        except MemoryError:
            yield index, Overrun("memory")


class _Pool:
    def __init__(self, run, tasks, size, seconds, memory_bytes, keep, warm=None) -> None:
        self.run, self.tasks, self.size = run, tasks, size
        self.seconds, self.memory_bytes, self.keep = seconds, memory_bytes, keep
        self.warm, self.started = warm, 0
        self.idle: list[Worker] = []
        self.busy: list[Worker] = []
        self.done: dict[int, Any] = {}
        self.fork_failed = False

    def results(self) -> Iterator[tuple[int, Any]]:
        pending = deque(range(len(self.tasks)))
        following = 0  # the next index to yield
        skipped: set[int] = set()
        try:
            while following < len(self.tasks):
                while following in self.done or following in skipped:
                    if following in self.done:
                        yield following, self.done.pop(following)
                    following += 1
                if following >= len(self.tasks):
                    break
                # Hand out work. `keep` is asked as a task is handed out: with one worker, once
                # every result before it has been yielded (the order of an in-process run).
                while pending and len(self.busy) < self.size:
                    index = pending.popleft()
                    if self.keep is not None and not self.keep(index):
                        skipped.add(index)
                        continue
                    self._dispatch(index)
                    if index in self.done:  # it ran here: yield it before handing out more
                        break
                if self.busy:
                    self._collect()
                elif following not in self.done and following not in skipped:
                    break  # cannot happen: every task is handed out, skipped or done
        finally:
            self.close()

    def close(self) -> None:
        for worker in self.idle + self.busy:
            worker.stop(kill=worker in self.busy)
        self.idle, self.busy = [], []
        gc.unfreeze()

    def _dispatch(self, index: int) -> None:
        worker = self.idle.pop() if self.idle else self._start()
        if worker is None:  # no process could be started: this task runs here
            try:
                self.done[index] = self.run(self.tasks[index])
            except MemoryError:
                self.done[index] = Overrun("memory")
            return
        try:
            worker.send(index, self.tasks[index])
        except OSError:  # the worker is gone: a new one
            worker.stop(kill=True)
            self._dispatch(index)
            return
        self.busy.append(worker)

    def _start(self) -> Worker | None:
        if self.fork_failed:
            return None
        if self.started == self.size and self.warm is not None:
            # A worker replaces one that was killed: warm the parent once, so that this one and
            # every later one inherit what the first loaded itself (and no deadline pays for it).
            self.warm()
            self.warm = None
        self.started += 1
        try:
            return Worker(self.run, self.memory_bytes)
        except OSError:  # EAGAIN, ENOMEM: a process limit
            self.fork_failed = True
            return None

    def _collect(self) -> None:
        from multiprocessing.connection import wait

        # The budget is the task's CPU time (a loaded machine does not make a file overrun), and
        # WALL_FACTOR times it of wall time, for a task that waits without computing.
        used = [w.used() for w in self.busy]
        timeout = max(0.01, min(min(self.seconds - cpu, WALL_FACTOR * self.seconds - wall) for cpu, wall in used))
        ready = wait([w.conn for w in self.busy], timeout=timeout)
        for worker in list(self.busy):
            index = worker.task[0]
            if worker.conn in ready:
                self.busy.remove(worker)
                try:
                    kind, value = pickle.loads(worker.conn.recv_bytes())
                except (EOFError, OSError, pickle.UnpicklingError):
                    sig, status = worker.stop(kill=True)
                    self.done[index] = Overrun("crash", memory_bytes=self.memory_bytes, signal=sig, status=status)
                    continue
                if kind == "ok":
                    self.done[index] = value
                    self.idle.append(worker)
                    continue
                worker.stop(kill=True)
                if kind == "memory":
                    self.done[index] = Overrun("memory", memory_bytes=self.memory_bytes)
                else:  # the result could not cross the pipe (a bug: results are plain data)
                    self.done[index] = Overrun("lost", detail=str(value))
            else:
                cpu, wall = worker.used()
                if cpu >= self.seconds or wall >= WALL_FACTOR * self.seconds:
                    self.busy.remove(worker)
                    worker.stop(kill=True)
                    self.done[index] = (Overrun("time", seconds=self.seconds) if cpu >= self.seconds
                                        else Overrun("wall", seconds=WALL_FACTOR * self.seconds))

