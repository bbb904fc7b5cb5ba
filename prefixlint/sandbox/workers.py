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
import signal
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

from prefixlint.limits import FILE_MEMORY_BYTES, FILE_SECONDS, WORKERS


@dataclass(frozen=True)
class Overrun:
    """A task that did not end normally: `kind` is "time", "memory" or "crash" (the worker died
    with `signal`, or exited with `status`)."""

    kind: str
    seconds: float = 0.0
    memory_bytes: int = 0
    signal: int | None = None
    status: int | None = None
    detail: str = ""


_state = {"worker": False}


def in_worker() -> bool:
    """Whether this process is a worker (its MemoryError is its task's memory budget)."""
    return _state["worker"]


def forking_available() -> bool:
    return hasattr(os, "fork") and WORKERS > 0


class _Worker:
    """One forked process running `run(task)` for each task it is sent."""

    def __init__(self, run: Callable[[Any], Any], memory_bytes: int) -> None:
        from multiprocessing import Pipe

        parent_end, child_end = Pipe()
        # Every object so far moves to the permanent generation: the worker's collections then
        # never touch (and so never copy) the pages it shares with the run.
        gc.freeze()
        pid = os.fork()
        if pid == 0:  # the worker
            parent_end.close()
            _serve(child_end, run, memory_bytes)  # never returns
        child_end.close()
        self.pid, self.conn = pid, parent_end
        self.task: Any = None
        self.started = 0.0

    def send(self, index: int, task: Any) -> None:
        self.task, self.started = (index, task), time.monotonic()
        self.conn.send(task)

    def stop(self, kill: bool = False) -> tuple[int | None, int | None]:
        """End the worker; (signal, exit status) it ended with."""
        try:
            if kill:
                os.kill(self.pid, signal.SIGKILL)
            else:
                self.conn.close()  # the worker's EOF: it exits
        except OSError:
            pass
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            return None, None
        finally:
            self.conn.close()
        if os.WIFSIGNALED(status):
            return os.WTERMSIG(status), None
        return None, os.WEXITSTATUS(status)


def _serve(conn, run: Callable[[Any], Any], memory_bytes: int) -> None:
    """The worker's loop: tasks in, results out, until the parent closes the pipe."""
    code = 0
    try:
        _state["worker"] = True
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
        _quiet_native_output()
        _limit_memory(memory_bytes)
        while True:
            try:
                task = conn.recv()
            except EOFError:
                break
            try:
                outcome = ("ok", run(task))
            except MemoryError:
                outcome = ("memory", None)
            try:
                data = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
            except MemoryError:
                outcome = ("memory", None)
                data = pickle.dumps(outcome)
            except Exception as exc:  # noqa: BLE001 - reported against the task, not raised
                data = pickle.dumps(("unpicklable", f"{type(exc).__name__}: {exc}"))
            conn.send_bytes(data)
            if outcome[0] == "memory":
                break  # a heap that ran out is not reused: the parent starts a new worker
    except BaseException:  # noqa: BLE001 - nothing of the worker may run the parent's code
        code = 70
    finally:
        os._exit(code)  # no atexit handlers, no teardown of state inherited from the parent


def _quiet_native_output() -> None:
    """What native code writes on the worker's stderr (a Rust panic's message and backtrace
    note, a fault handler's dump) is not the run's output: the parent reports the file's one
    diagnostic. PREFIXLINT_DEBUG keeps it."""
    import faulthandler

    if faulthandler.is_enabled():
        faulthandler.disable()
    if os.environ.get("PREFIXLINT_DEBUG"):
        return
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    os.close(null)


#: Address space a worker may use past what it inherits, whatever the budget: a process that
#: already maps more than the budget (a test runner with every tokenizer loaded) still works.
HEADROOM_BYTES = 256 << 20


def _limit_memory(memory_bytes: int) -> None:
    try:
        import resource
    except ImportError:
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = max(memory_bytes, _mapped_bytes() + HEADROOM_BYTES)
    soft = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    # glibc reserves 64 MiB of address space per malloc arena (one per thread a native library
    # starts); two are plenty for one task at a time and keep the cap about memory actually used.
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt(-8, 2)  # M_ARENA_MAX
    except (OSError, AttributeError):
        pass


def _mapped_bytes() -> int:
    """The address space this process maps now (Linux; 0 elsewhere)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def run_bounded(run: Callable[[Any], Any], tasks: Iterable[Any], *, size: int | None = None,
                seconds: float | None = None, memory_bytes: int | None = None,
                keep: Callable[[int], bool] | None = None,
                warm: Callable[[], None] | None = None) -> Iterator[tuple[int, Any]]:
    """(index, result) for each task, in order: `run(task)`'s result, or an `Overrun`.

    `run` must not raise for a problem with its task (the caller's boundary catches those);
    a MemoryError, a worker killed at its deadline and a worker that died are Overruns.
    `keep(index)`, asked just before a task is handed out, may skip it (no result for it); with
    several workers it is asked ahead of results still to come, so the caller filters too.
    `warm()` runs here once before the first worker starts: what it loads (trusted state, never
    the tasks' input) every worker inherits, so a worker that replaces a killed one is ready at
    once and no task's deadline pays for it.
    Without workers (no fork, `PREFIXLINT_WORKERS=0`), the tasks run here, in order."""
    tasks = list(tasks)
    size = max(1, min(WORKERS if size is None else size, len(tasks) or 1))
    seconds = FILE_SECONDS if seconds is None else seconds
    memory_bytes = FILE_MEMORY_BYTES if memory_bytes is None else memory_bytes
    if not tasks:
        return
    if not forking_available():
        yield from _in_process(run, tasks, keep)
        return
    if warm is not None:
        warm()
    yield from _Pool(run, tasks, size, seconds, memory_bytes, keep).results()


def _in_process(run, tasks, keep) -> Iterator[tuple[int, Any]]:
    for index, task in enumerate(tasks):
        if keep is not None and not keep(index):
            continue
        try:
            yield index, run(task)
        except MemoryError:
            yield index, Overrun("memory")


class _Pool:
    def __init__(self, run, tasks, size, seconds, memory_bytes, keep) -> None:
        self.run, self.tasks, self.size = run, tasks, size
        self.seconds, self.memory_bytes, self.keep = seconds, memory_bytes, keep
        self.idle: list[_Worker] = []
        self.busy: list[_Worker] = []
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
            for worker in self.idle + self.busy:
                worker.stop(kill=worker in self.busy)
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

    def _start(self) -> _Worker | None:
        if self.fork_failed:
            return None
        try:
            return _Worker(self.run, self.memory_bytes)
        except OSError:  # EAGAIN, ENOMEM: a process limit
            self.fork_failed = True
            return None

    def _collect(self) -> None:
        from multiprocessing.connection import wait

        now = time.monotonic()
        timeout = max(0.0, min(w.started + self.seconds for w in self.busy) - now)
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
            elif time.monotonic() - worker.started >= self.seconds:
                self.busy.remove(worker)
                worker.stop(kill=True)
                self.done[index] = Overrun("time", seconds=self.seconds)

