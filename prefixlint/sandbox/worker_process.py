"""One worker process: forked from the run, its address space capped, serving tasks over a pipe.

The pool that hands out tasks and enforces deadlines is `prefixlint.sandbox.workers`; this is
the process on the other end: `Worker` forks it (it inherits the parent's state, so only a
task's index and its pickled result cross the pipe), `_serve` is its loop, which caps the
address space (`RLIMIT_AS`), drops what native code writes on stderr, reports a MemoryError as
the task's, and ends with `os._exit` (no teardown of the inherited state).
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import time
from typing import Any, Callable

_state = {"worker": False}
#: The run's ends of the pipes of every live worker. A worker forked later inherits them: it
#: closes them first, or a worker's pipe would never reach end-of-file when the run closes its
#: end (the worker would wait for a task forever, and the run for the worker).
_run_ends: set = set()
#: Seconds a worker has to exit after the run closes its pipe, before it is killed.
STOP_SECONDS = 2.0


def in_worker() -> bool:
    """Whether this process is a worker (its MemoryError is its task's memory budget)."""
    return _state["worker"]


class Worker:
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
            for end in _run_ends:  # other workers' pipes: theirs and the run's, not this one's
                end.close()
            _serve(child_end, run, memory_bytes)  # never returns
        child_end.close()
        self.pid, self.conn = pid, parent_end
        _run_ends.add(parent_end)
        self.task: Any = None
        self.started = 0.0
        self.cpu_at_start: float | None = None

    def send(self, index: int, task: Any) -> None:
        self.task, self.started = (index, task), time.monotonic()
        self.cpu_at_start = _cpu_seconds(self.pid)
        self.conn.send(task)

    def used(self) -> tuple[float, float]:
        """(CPU seconds, wall seconds) the worker spent on its task so far; CPU is wall time
        where the system does not tell a process's CPU time (no /proc)."""
        wall = time.monotonic() - self.started
        cpu = _cpu_seconds(self.pid)
        return (wall if cpu is None or self.cpu_at_start is None else cpu - self.cpu_at_start), wall

    def stop(self, kill: bool = False) -> tuple[int | None, int | None]:
        """End the worker (within STOP_SECONDS when it is asked to, at once when killed); the
        (signal, exit status) it ended with."""
        _run_ends.discard(self.conn)
        try:
            if not kill:
                self.conn.close()  # the worker's EOF: it exits
                status = _reaped(self.pid, STOP_SECONDS)
                if status is not None:
                    return _ended(status)
            os.kill(self.pid, signal.SIGKILL)
        except (OSError, ChildProcessError):
            pass
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            return None, None
        finally:
            self.conn.close()
        return _ended(status)


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_seconds(pid: int) -> float | None:
    """User and system CPU time of process `pid` (Linux's /proc; None elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, IndexError, ValueError):
        return None


def _reaped(pid: int, seconds: float) -> int | None:
    """The wait status of `pid` once it exits within `seconds`, else None (still running)."""
    deadline = time.monotonic() + seconds
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.005)


def _ended(status: int) -> tuple[int | None, int | None]:
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
