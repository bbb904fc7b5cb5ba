"""The Jinja2 sandbox templates render in: immutable, strict about undefined names, and bounded.

jinja2's `ImmutableSandboxedEnvironment` already refuses attributes that reach Python
internals (`__class__`, `__globals__` ...) and methods that mutate values. Undeclared inputs
are stand-ins (`prefixlint.render.values.Sample`): attribute and item access, iteration,
`|length` and the safe methods (`items`, `keys`, `values`, `get`, str's) work on them, and a
method they lack, called, gives their text back; their `_` attributes stay refused. It does not bound
resources, so this environment also refuses `*` and `**` results larger than
`MAX_OUTPUT_CHARS` (`{{ 'x' * 10**9 }}`), and `time_limit` stops a render that loops too long.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Iterator

#: No prompt needs more than this many characters (about 2.5 million tokens).
MAX_OUTPUT_CHARS = 10 * 1024 * 1024
#: Seconds one render may take.
RENDER_SECONDS = 10.0


@lru_cache(maxsize=1)
def environment():
    from jinja2 import StrictUndefined
    from jinja2.exceptions import SecurityError
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class BoundedSandbox(ImmutableSandboxedEnvironment):
        intercepted_binops = frozenset({"*", "**"})

        def call_binop(self, context, operator: str, left: Any, right: Any) -> Any:
            if operator == "**" and isinstance(right, int) and isinstance(left, int) and abs(left) > 1 and right > 64:
                raise SecurityError(f"{left} ** {right} is too large to compute")
            if operator == "*":
                for sized, count in ((left, right), (right, left)):
                    if isinstance(sized, (str, list, tuple)) and isinstance(count, int):
                        if len(sized) * count > MAX_OUTPUT_CHARS:
                            raise SecurityError(f"a repetition of {len(sized) * count:,} items is too large")
            return super().call_binop(context, operator, left, right)

        def call(__self, __context, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
            # An undeclared input is a stand-in (values.Sample): a method the template calls on
            # it that the stand-in does not have (`runtime_info.hosts()`) returns its text.
            from prefixlint.render.values import Sample

            if isinstance(__obj, Sample) and not callable(__obj):
                return Sample(str(__obj))
            return super().call(__context, __obj, *args, **kwargs)

    return BoundedSandbox(undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False)


class RenderTimeout(Exception):
    pass


@contextmanager
def time_limit(seconds: float | None = None) -> Iterator[None]:
    """Raise RenderTimeout if the body runs longer than `seconds` (default RENDER_SECONDS;
    main thread, POSIX only)."""
    seconds = RENDER_SECONDS if seconds is None else seconds
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def expire(signum, frame):
        raise RenderTimeout(f"rendering took longer than {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
