"""How often a line of a Python module runs (issue 19 item 5): code outside every function runs
once per process, at import; so does the body of a function whose result is cached for the
process (`@lru_cache`/`@cache` with no parameters, `@cached_property`, Streamlit's
`@st.cache_resource`/`@st.cache_data`): a clock read there is the same on every request served.
"""

from __future__ import annotations

import ast
from bisect import bisect_right
from itertools import accumulate

from prefixlint.load.python_walk import dotted, walked

#: Decorators that keep a function's first result for the process, by their last name.
_CACHING = frozenset({"lru_cache", "cache", "cached_property", "cache_resource", "cache_data"})


def function_lines(tree: ast.Module) -> FunctionLines:
    """(first, last) line of every function and lambda: code outside them runs once, at import;
    and the functions among them whose result is cached for the process."""
    functions = [n for n in walked(tree)[0] if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    lines = FunctionLines(sorted((n.lineno, n.end_lineno or n.lineno) for n in functions))
    lines.cached = [(n.lineno, n.end_lineno or n.lineno, n.name) for n in functions
                    if not isinstance(n, ast.Lambda) and _cached_once(n)]
    return lines


def _cached_once(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the function takes nothing (but `self`) and a decorator caches its result."""
    args = function.args
    taken = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs if a.arg not in ("self", "cls")]
    if taken or args.vararg or args.kwarg:
        return False
    for decorator in function.decorator_list:
        called = decorator.func if isinstance(decorator, ast.Call) else decorator
        if dotted(called).rsplit(".", 1)[-1] in _CACHING:
            return True
    return False


class FunctionLines(list):
    """`function_lines`, in order; `holds(line)`: whether one of them holds the line, found by
    bisection (each value of a module asks: a module of n prompt functions asks n times)."""

    def __init__(self, spans) -> None:
        super().__init__(spans)
        self._firsts = [first for first, _ in self]
        self._reach = list(accumulate((last for _, last in self), max))  # the last line the first k reach
        self.cached: list[tuple[int, int, str]] = []

    def holds(self, line: int) -> bool:
        k = bisect_right(self._firsts, line)  # the spans starting at or before the line
        return k > 0 and self._reach[k - 1] >= line

    def once(self, line: int) -> str | None:
        """The name of the cached function holding the line (innermost first), else None: a
        function nested inside it runs on each call again, so it does not count."""
        holding = [(first, name) for first, last, name in self.cached if first <= line <= last]
        if not holding:
            return None
        first, name = max(holding)
        inner = [span for span in self if first < span[0] <= line <= span[1]]
        return None if inner else name
