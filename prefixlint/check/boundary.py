"""The file boundary: whatever checking one file raises becomes that file's one diagnostic.

Below this boundary a problem with the input is a `PrefixlintError`. What else escapes the
pipeline is named for what it is: Python's own limits (`RecursionError`, `MemoryError`), the
compiler Jinja hands its generated code to (`SyntaxError: too many statically nested blocks`),
text no encoder takes (a lone surrogate, `\\ud800`), the `BaseException`s a native extension
raises (pyo3's `PanicException`), and last a bug of prefixlint (`internal error`). Only
KeyboardInterrupt, SystemExit and GeneratorExit pass: they end the run, as asked. A file past
its budget in a worker process (`prefixlint.sandbox.workers.Overrun`) is reported here too.
"""

from __future__ import annotations

import os
import re
import signal
from typing import Any, Callable

from prefixlint.errors import PrefixlintError
from prefixlint.results import FileResult

#: What ends the run rather than a file's check.
PASSING = (KeyboardInterrupt, SystemExit, GeneratorExit)


def guarded(path: str, check: Callable[[], list[FileResult]]) -> list[FileResult]:
    """`check()`, or the one error result of `path`. MemoryError is left to the caller (a worker
    reports it as the file's memory budget)."""
    try:
        return check()
    except PASSING:
        raise
    except MemoryError:
        raise
    except PrefixlintError as exc:
        return [FileResult(path, error=exc.located(path))]
    except BaseException as exc:  # noqa: BLE001 - the boundary: every other failure is the file's
        if os.environ.get("PREFIXLINT_DEBUG"):
            raise
        return [FileResult(path, error=diagnostic(exc, path))]


def diagnostic(exc: BaseException, path: str) -> PrefixlintError:
    """The diagnostic of an exception that is not a PrefixlintError."""
    if isinstance(exc, RecursionError):
        return PrefixlintError("nested too deeply to check (past Python's recursion limit)", path=path,
                               hint="a prompt does not need nesting this deep")
    if isinstance(exc, SyntaxError):  # Jinja compiles a template to Python source
        return PrefixlintError(f"cannot compile the template: {exc.msg}", path=path,
                               hint="Python refuses code nested this deep (about 20 blocks)")
    if isinstance(exc, UnicodeEncodeError) and 0xD800 <= ord(exc.object[exc.start:exc.start + 1] or "a") <= 0xDFFF:
        return PrefixlintError(f"the text holds a lone surrogate (U+{ord(exc.object[exc.start]):04X}), which is"
                               " not Unicode text and cannot be tokenized", path=path,
                               hint="an escape such as \\ud800 alone makes one")
    if isinstance(exc, ValueError) and "integer string conversion" in str(exc):  # a literal Jinja reads with int()
        digits = re.search(r"has (\d+) digits", str(exc))
        return PrefixlintError(f"a number of {int(digits.group(1)) if digits else 4300:,} digits is too large"
                               " (Python converts at most 4,300)", path=path, hint="a prompt does not need numbers this long")
    if not isinstance(exc, Exception):  # pyo3's PanicException: a native library gave up
        return PrefixlintError(f"a native library failed on this file ({type(exc).__name__}: {_short(exc)})",
                               path=path, hint="the file is most likely too large or too deep for it")
    return PrefixlintError(f"internal error: {type(exc).__name__}: {_short(exc)}", path=path,
                           hint="run again with PREFIXLINT_DEBUG=1 for the traceback, and report it")


def _short(exc: BaseException) -> str:
    text = str(exc)
    return text if len(text) <= 200 else text[:200] + "..."


def overrun(path: str, over) -> FileResult:
    """The result of a file whose worker went past its budget or died."""
    if over.kind == "time":  # CPU time: what a loaded machine does not inflate
        message = f"exceeded the time budget of {over.seconds:g} s; checking it was stopped"
        hint = "set PREFIXLINT_FILE_SECONDS to allow more"
    elif over.kind == "wall":
        message = f"ran for {over.seconds:g} s of wall-clock time without finishing; checking it was stopped"
        hint = "set PREFIXLINT_FILE_SECONDS to allow more"
    elif over.kind == "memory" and over.memory_bytes:
        message = f"exceeded the memory budget of {_size(over.memory_bytes)}; checking it was stopped"
        hint = "set PREFIXLINT_FILE_MEMORY_BYTES to allow more"
    elif over.kind == "memory":
        message, hint = "ran out of memory while checking it", None
    elif over.kind == "lost":
        return FileResult(path, error=PrefixlintError(
            f"internal error: the result could not be passed back from the worker ({over.detail})", path=path,
            hint="run again with PREFIXLINT_WORKERS=0 and PREFIXLINT_DEBUG=1, and report it"))
    elif over.signal:  # a native allocation that failed aborts (SIGABRT) or faults (SIGSEGV)
        message = (f"checking it ended abnormally (killed by {_signal_name(over.signal)}), most likely past"
                   f" the memory budget of {_size(over.memory_bytes)}")
        hint = "set PREFIXLINT_FILE_MEMORY_BYTES to allow more"
    else:
        message, hint = f"checking it ended abnormally (the worker exited with status {over.status})", None
    return FileResult(path, error=PrefixlintError(message, path=path, hint=hint))


def _size(count: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:g} {unit}" if count % scale == 0 else f"{count / scale:.1f} {unit}"
    return f"{count} bytes"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class Steps:
    """One template's check (the generator `check.runner._check`) driven a step at a time, each
    step inside this boundary and the file's render budget (`advance` gives (True, the result)
    once it ended, else (False, what it yielded)): the prompts of a module are measured first,
    then their fixes verified together (issue 19 item 9)."""

    def __init__(self, path: str, skip_non_templates: bool, steps) -> None:
        self.path, self.skip, self.steps, self.spent = path, skip_non_templates, steps, 0.0

    def advance(self, value) -> tuple[bool, Any]:
        from prefixlint.load.registry import NotATemplate
        from prefixlint.sandbox import file_budget
        from prefixlint.sandbox.worker_process import in_worker

        path = self.path
        try:
            with file_budget() as budget:  # all of the file's renders together, however many values it has
                budget.spent = self.spent
                try:
                    return False, self.steps.send(value)
                except StopIteration as stop:
                    return True, stop.value
                finally:
                    self.spent = budget.spent
        except NotATemplate as exc:
            return True, None if self.skip else FileResult(path, error=exc.located(path))
        except PrefixlintError as exc:
            return True, FileResult(path, error=exc.located(path))
        except RecursionError:
            return True, FileResult(path, error=PrefixlintError("template nests too deeply to render", path=path))
        except MemoryError:
            if in_worker():  # reported by the pool as the file's memory budget
                raise
            return True, FileResult(path, error=PrefixlintError("ran out of memory while checking it", path=path))
        except PASSING:
            raise
        except BaseException as exc:  # noqa: BLE001 - the file boundary, for every caller
            if os.environ.get("PREFIXLINT_DEBUG"):
                raise
            return True, FileResult(path, error=diagnostic(exc, path))
