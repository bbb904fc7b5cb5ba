"""Whether a line is inside a function is answered by bisection (`python_runs.FunctionLines`):
what asking every function's span answers, nested functions and lambdas included."""

from __future__ import annotations

import ast

from hypothesis import given
from hypothesis import strategies as st

from prefixlint.load.python_runs import FunctionLines, function_lines


@given(st.lists(st.tuples(st.integers(1, 40), st.integers(0, 12)), max_size=8), st.integers(0, 60))
def test_holds_is_any_span_holding_the_line(spans, line):
    spans = sorted((first, first + length) for first, length in spans)
    assert FunctionLines(spans).holds(line) == any(first <= line <= last for first, last in spans)


def test_the_lines_of_a_module_with_nested_functions():
    tree = ast.parse("x = 1\ndef f():\n    def g():\n        return 2\n    y = lambda: 3\n    return y\nz = 4\n")
    lines = function_lines(tree)
    assert list(lines) == [(2, 6), (3, 4), (5, 5)]
    assert [lines.holds(n) for n in range(1, 8)] == [False, True, True, True, True, True, False]
