"""The worker pool (prefixlint/sandbox/workers.py): a task past its memory or time budget, or one
that kills its worker, is an Overrun of that task alone; the others run, and results come back in
the order of the tasks, exactly as they do in this process."""

from __future__ import annotations

import os
import signal
import time

import pytest

from prefixlint.sandbox import worker_process, workers
from prefixlint.sandbox.workers import Overrun, run_bounded

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="worker processes need os.fork")


def task(item):
    kind, value = item
    if kind == "sleep":
        time.sleep(value)
        return None
    if kind == "spin":  # CPU time, as a runaway tokenizer spends it
        end = time.process_time() + value
        while time.process_time() < end:
            pass
        return None
    if kind == "allocate":  # a native-sized allocation, as a render bomb makes one
        return len(bytearray(value))
    elif kind == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif kind == "exit":
        os._exit(value)
    elif kind == "pid":
        return os.getpid()
    return value * 2


def test_results_come_in_task_order_whatever_finishes_first():
    tasks = [("sleep", 0.3), ("double", 1), ("sleep", 0.1), ("double", 4)]
    got = list(run_bounded(task, tasks, size=2, seconds=10))
    assert got == [(0, None), (1, 2), (2, None), (3, 8)]


def test_a_task_past_its_deadline_is_killed_and_the_next_one_runs_in_a_new_worker():
    started = time.monotonic()
    got = list(run_bounded(task, [("pid", 0), ("spin", 30), ("pid", 0)], size=1, seconds=1.0))
    assert time.monotonic() - started < 10  # the spinning worker was killed at 1 s of CPU, not waited for
    # past 1 s of CPU time (or, on a machine so loaded that the worker got under a quarter of a
    # CPU, past four seconds of wall-clock time)
    assert got[1] in ((1, Overrun("time", seconds=1.0)), (1, Overrun("wall", seconds=4.0)))
    first, third = got[0][1], got[2][1]
    assert first != os.getpid() and third != os.getpid() and first != third  # a replacement worker


def test_the_budget_is_cpu_time_with_a_wall_clock_bound_for_a_task_that_waits():
    # waiting (as a task on a loaded machine does) is not spending the budget: 1.5 s of sleep
    # in a budget of 1 s ends normally; a task that only waits is stopped at four times the budget
    started = time.monotonic()
    got = list(run_bounded(task, [("sleep", 1.5), ("sleep", 30), ("double", 2)], size=1, seconds=1.0))
    assert got == [(0, None), (1, Overrun("wall", seconds=4.0)), (2, 4)]
    assert time.monotonic() - started < 12


def test_one_worker_is_reused_for_every_task():
    pids = {pid for _, pid in run_bounded(task, [("pid", 0)] * 5, size=1, seconds=10)}
    assert len(pids) == 1 and os.getpid() not in pids


def test_an_allocation_past_the_memory_budget_is_an_overrun_and_the_run_goes_on():
    budget = worker_process._mapped_bytes() + worker_process.HEADROOM_BYTES + (64 << 20)
    got = list(run_bounded(task, [("allocate", budget + (256 << 20)), ("allocate", 1 << 20)], size=1,
                           seconds=20, memory_bytes=budget))
    assert got == [(0, Overrun("memory", memory_bytes=budget)), (1, 1 << 20)]


def test_a_worker_that_dies_is_a_crash_of_its_task_only():
    got = list(run_bounded(task, [("segfault", 0), ("exit", 7), ("double", 5)], size=1, seconds=10))
    assert got[0] == (0, Overrun("crash", memory_bytes=workers.FILE_MEMORY_BYTES, signal=signal.SIGSEGV))
    assert got[1] == (1, Overrun("crash", memory_bytes=workers.FILE_MEMORY_BYTES, status=7))
    assert got[2] == (2, 10)


def test_keep_skips_a_task_and_is_asked_after_the_results_before_it(monkeypatch):
    seen: list[int] = []

    def keep(index: int) -> bool:
        seen.append(index)
        return index != 1

    got = list(run_bounded(task, [("double", 1), ("double", 2), ("double", 3)], size=1, seconds=10, keep=keep))
    assert got == [(0, 2), (2, 6)] and seen == [0, 1, 2]


def test_without_workers_the_tasks_run_here_with_the_same_results(monkeypatch):
    tasks = [("double", 1), ("pid", 0), ("double", 3)]
    monkeypatch.setattr(workers, "WORKERS", 0)
    got = list(run_bounded(task, tasks, seconds=10))
    assert got == [(0, 2), (1, os.getpid()), (2, 6)]


def test_a_worker_started_after_another_does_not_keep_its_pipe_open():
    # The second worker inherits the run's end of the first one's pipe; unless it closes it,
    # closing the run's end never reaches the first worker (which then waits for a task
    # forever, and a run waiting for it hung: the stall of two workers, and of the fuzz).
    first, second = worker_process.Worker(task, 1 << 30), worker_process.Worker(task, 1 << 30)
    started = time.monotonic()
    assert first.stop() == (None, 0)  # ended by end-of-file, on its own, not killed
    assert second.stop() == (None, 0)
    assert time.monotonic() - started < worker_process.STOP_SECONDS


def test_stopping_a_worker_that_does_not_end_kills_it_at_a_deadline(monkeypatch):
    monkeypatch.setattr(worker_process, "STOP_SECONDS", 0.5)
    worker = worker_process.Worker(task, 1 << 30)
    worker.send(0, ("sleep", 60))  # busy: it reads no end-of-file
    started = time.monotonic()
    assert worker.stop() == (signal.SIGKILL, None)
    assert time.monotonic() - started < 5
