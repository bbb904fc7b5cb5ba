"""The Jinja2 sandbox templates render in: immutable, strict about undefined names, and bounded.

jinja2's `ImmutableSandboxedEnvironment` already refuses attributes that reach Python
internals (`__class__`, `__globals__` ...) and methods that mutate values. It does not bound
resources, so this environment also refuses, before making it, any result larger than
`MAX_OUTPUT_CHARS` (`prefixlint.sandbox.bounds`): `*`, `**`, `%` and `+` results, padding and
widths (`center`, `ljust`, `indent`, `'{:>N}'.format`, `'%Ns'`), `replace` and `join`, `~`
concatenation (doubling in a loop), and the output itself as it grows, chunk by chunk (a
large string made on every loop pass). Undeclared inputs are stand-ins
(`prefixlint.sandbox.standin.Sample`): attribute and item access, iteration, `|length`, the safe
methods (`items`, `keys`, `values`, `get`, str's) work on them, a method they lack gives their
text back, and their `_` attributes stay refused. `time_limit` stops a render that loops too long, and
`FileBudget` bounds the renders of one file together.
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from functools import lru_cache, update_wrapper
from typing import Any, Iterable, Iterator

from prefixlint.limits import FILE_RENDER_SECONDS, MAX_OUTPUT_CHARS, RENDER_SECONDS
from prefixlint.sandbox import bounds

__all__ = ["MAX_OUTPUT_CHARS", "RENDER_SECONDS", "RenderTimeout", "bounded_concat", "environment", "time_limit"]


def bounded_concat(parts: Iterable[str]) -> str:
    """`"".join(parts)`, stopping as soon as the joined text would pass MAX_OUTPUT_CHARS (the
    render's own output, a macro's, a `{% set %}` block's, and every `~`)."""
    pieces, total = [], 0
    for piece in parts:
        total += len(piece)
        if total > MAX_OUTPUT_CHARS:
            raise output_limit()(f"the output is too large: it grows past {MAX_OUTPUT_CHARS:,} characters")
        pieces.append(piece)
    return "".join(pieces)


class BoundedBuffer(list):
    """The list a macro or a `{% set %}` block collects its output in, refusing to grow past
    MAX_OUTPUT_CHARS (a loop inside a macro would otherwise fill memory before returning)."""

    def __init__(self) -> None:
        super().__init__()
        self.total = 0

    def append(self, item: Any) -> None:
        self._count((item,))
        super().append(item)

    def extend(self, items: Iterable[Any]) -> None:
        items = tuple(items)
        self._count(items)
        super().extend(items)

    def _count(self, items: tuple) -> None:
        self.total += sum(len(item) for item in items if isinstance(item, str))
        if self.total > MAX_OUTPUT_CHARS:
            raise output_limit()(f"the output is too large: it grows past {MAX_OUTPUT_CHARS:,} characters")


@lru_cache(maxsize=1)
def output_limit() -> type[Exception]:
    """The error of a result over MAX_OUTPUT_CHARS: a jinja2 SecurityError, so that every
    renderer's handling of sandbox refusals applies, told apart by its class."""
    from jinja2.exceptions import SecurityError

    class OutputLimit(SecurityError):
        pass

    return OutputLimit


@lru_cache(maxsize=2)
def environment(strict: bool = True):
    """The bounded sandbox; `strict=False` renders a missing name as nothing (LangChain examples)."""
    from jinja2 import StrictUndefined, Undefined

    return bounded_sandbox()(undefined=StrictUndefined if strict else Undefined, keep_trailing_newline=True,
                             autoescape=False)


@lru_cache(maxsize=1)
def bounded_sandbox() -> type:
    """The class of the bounded sandbox: an `ImmutableSandboxedEnvironment` (transformers builds
    its chat-template environment from it too, `prefixlint.render.jinja.compiled_template`)."""
    from jinja2.compiler import CodeGenerator
    from jinja2.exceptions import SecurityError
    from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedFormatter

    def checked(estimate, what: str) -> None:
        try:
            bounds.refuse_over(estimate, what)
        except bounds.TooLarge as exc:
            raise output_limit()(str(exc)) from None

    class BoundedGenerator(CodeGenerator):
        def buffer(self, frame) -> None:  # a macro's or a `{% set %}` block's output, bounded as it grows
            frame.buffer = self.temporary_identifier()
            self.writeline(f"{frame.buffer} = environment.new_buffer()")

        def visit_Concat(self, node, frame) -> None:  # `a ~ b`: bounded like every other join
            self.write("environment.concat(map(str, (")
            for argument in node.nodes:
                self.visit(argument, frame)
                self.write(", ")
            self.write(")))")

    class BoundedFormatter(SandboxedFormatter):
        def format_field(self, value, format_spec: str):
            checked(bounds.spec_width(format_spec) + bounds.size(value), "a format width")
            return super().format_field(value, format_spec)

    class BoundedSandbox(ImmutableSandboxedEnvironment):
        intercepted_binops = frozenset({"*", "**", "%", "+"})
        code_generator_class = BoundedGenerator
        concat = staticmethod(bounded_concat)
        new_buffer = BoundedBuffer

        def __init__(self, **options) -> None:
            super().__init__(**options)
            self.filters = {name: _bounded_filter(name, function) for name, function in self.filters.items()}
            self.globals.pop("lipsum", None)  # lipsum(n=10**9): no prompt needs it

        def call_binop(self, context, operator: str, left: Any, right: Any) -> Any:
            if operator == "**" and isinstance(right, int) and isinstance(left, int) and abs(left) > 1 and right > 64:
                raise SecurityError(f"{left} ** {right} is too large to compute")
            if operator == "*":
                for sized, count in ((left, right), (right, left)):
                    if isinstance(sized, (str, list, tuple)) and isinstance(count, int):
                        checked(bounds.size(sized) * count, "a repetition")
            elif operator == "+":
                checked(bounds.size(left) + bounds.size(right), "a concatenation")
            elif operator == "%" and isinstance(left, str):
                checked(bounds.printf_size(left, right), "a %-format")
            return super().call_binop(context, operator, left, right)

        def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805 - jinja2's own signature
            # An undeclared input is a stand-in (sandbox.standin.Sample): a method the template
            # calls on it that the stand-in lacks (`runtime_info.hosts()`) gives its text back.
            from prefixlint.sandbox.standin import Sample

            if isinstance(__obj, Sample) and not callable(__obj):
                return Sample(str(__obj))
            estimate = bounds.METHODS.get(getattr(__obj, "__name__", ""))
            if estimate is not None and isinstance(getattr(__obj, "__self__", None), str):
                try:
                    size = estimate(__obj.__self__, *args, **kwargs)
                except TypeError:
                    size = 0  # a wrong call: the method itself says so
                checked(size, f"str.{__obj.__name__}")
            return super().call(__context, __obj, *args, **kwargs)

        def wrap_str_format(self, value):
            if super().wrap_str_format(value) is None:  # not a str's format or format_map
                return None
            formatter = BoundedFormatter(self)
            if value.__name__ == "format_map":
                def bounded(*args, **kwargs):
                    if kwargs or len(args) != 1:
                        raise TypeError("format_map() takes exactly one argument and no keyword arguments")
                    return formatter.vformat(value.__self__, (), args[0])
            else:
                def bounded(*args, **kwargs):
                    return formatter.vformat(value.__self__, args, kwargs)
            return update_wrapper(bounded, value)

    def _bounded_filter(name: str, function):
        estimate = bounds.FILTERS.get(name)
        if estimate is None:
            return function
        passes_first = getattr(function, "jinja_pass_arg", None) is not None

        def bounded(*args, **kwargs):
            try:
                size = estimate(*(args[1:] if passes_first else args), **kwargs)
            except TypeError:
                size = 0  # a wrong call: the filter itself says so
            checked(size, f"the filter {name}")
            return function(*args, **kwargs)

        return update_wrapper(bounded, function)

    return BoundedSandbox


class RenderTimeout(Exception):
    pass


class FileBudget:
    """The render seconds one file has left: renders per file grow with its volatile values
    (two per value, and more for the fixed variants), so they are also bounded together.
    Only time spent rendering counts (not loading a tokenizer or tokenizing)."""

    def __init__(self, seconds: float | None = None) -> None:
        self.seconds = FILE_RENDER_SECONDS if seconds is None else seconds
        self.spent = 0.0

    def left(self) -> float:
        left = self.seconds - self.spent
        if left <= 0:
            raise RenderTimeout(f"rendering this file took longer than {self.seconds:g} s in all")
        return left


_budget = threading.local()


@contextmanager
def file_budget(seconds: float | None = None) -> Iterator[FileBudget]:
    """Within the block, every `time_limit` also stops at the file's budget."""
    previous = getattr(_budget, "current", None)
    _budget.current = FileBudget(seconds)
    try:
        yield _budget.current
    finally:
        _budget.current = previous


@contextmanager
def time_limit(seconds: float | None = None) -> Iterator[None]:
    """Raise RenderTimeout if the body runs longer than `seconds` (default RENDER_SECONDS), or
    past the budget of the file being checked (main thread, POSIX only)."""
    seconds = RENDER_SECONDS if seconds is None else seconds
    budget = getattr(_budget, "current", None)
    message = f"rendering took longer than {seconds:g} s"
    if budget is not None and budget.left() < seconds:
        seconds, message = budget.left(), f"rendering this file took longer than {budget.seconds:g} s in all"
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    started = time.monotonic()
    try:
        if not usable:
            yield
        else:
            with _alarm(seconds, message):
                yield
    finally:
        if budget is not None:
            budget.spent += time.monotonic() - started


@contextmanager
def _alarm(seconds: float, message: str) -> Iterator[None]:
    """SIGALRM after `seconds`, raising RenderTimeout(message) wherever the render is."""

    def expire(signum, frame):
        raise RenderTimeout(message)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
