"""A fix of Python source checked through libcst's concrete syntax tree (issue 24 item 6).

The edits of a Python fix are made inside string literals (`prefixlint.fix.build` writes the
moved text in the literal's own quoting). libcst parses the fixed module losslessly, and the
module with every string literal's value blanked must be exactly the original's: the fix
changed nothing but the prompts' text (no quote, comment, bracket or line of code moved), and
the fixed file still parses. TypeScript/JavaScript edits are made in the literal's byte range
that tree-sitter found (`prefixlint.load.ts_source`)."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from functools import lru_cache


class CodeChanged(Exception):
    pass


def same_code(before: str, after: str) -> None:
    """CodeChanged unless `after` parses and differs from `before` only inside string literals.
    Only the top-level statements that hold the change are compared: the text around them is
    the same in both (issue 19 item 9: a fix of one prompt of a large module costs that prompt)."""
    import libcst as cst

    before, after = _changed_statements(before, after)
    try:
        old, new = cst.parse_module(before), cst.parse_module(after)
    except (cst.ParserSyntaxError, RecursionError, ValueError) as exc:
        raise CodeChanged(f"the fixed module would not parse ({str(exc).splitlines()[0][:80]})") from None
    old_code, new_code = _skeleton(old), _skeleton(new)
    added = ', ("", "")'  # the one message a fix may add after the conversation (fix/new_message.py)
    if old_code != new_code and not _one_added(old_code, new_code, added):
        raise CodeChanged("the fix would change the module outside its string literals")


def _one_added(old: str, new: str, added: str) -> bool:
    """Is `new` exactly `old` with `added` inserted once?"""
    if len(new) != len(old) + len(added):
        return False
    at = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), len(old))
    return any(new[i : i + len(added)] == added and new[:i] + new[i + len(added):] == old
               for i in range(max(at - len(added), 0), at + 1))


_OPENING = re.compile(r"[rRbBuU]*(\"\"\"|\'\'\'|\"|\')")


def _skeleton(module) -> str:
    """The module's code with every string literal emptied (its prefix and quotes kept)."""
    import libcst as cst

    class Blank(cst.CSTTransformer):
        def leave_SimpleString(self, original, updated):
            opening = _OPENING.match(updated.value)
            return updated.with_changes(value=opening.group() + opening.group(1)) if opening else updated

        def leave_FormattedString(self, original, updated):  # an f-string's text and fields
            return updated.with_changes(parts=[])

    return module.visit(Blank()).code


def _changed_statements(before: str, after: str) -> tuple[str, str]:
    """The run of whole top-level statements of `before` that holds every changed character,
    and the same run of `after` (its text outside that run is unchanged). Both modules whole
    when `before` does not parse or the change is not inside a run of statements."""
    head = _common_prefix(before, after)
    tail = _common_suffix(before, after, min(len(before), len(after)) - head)
    try:
        body = _top_level(before)
    except (SyntaxError, ValueError, RecursionError):
        return before, after
    starts, ends = [start for start, _ in body], [end for _, end in body]
    first = bisect_right(starts, head) - 1  # the last statement starting at or before the change
    last = bisect_left(ends, len(before) - tail)  # the first ending at or after it
    if first < 0 or last == len(body) or first > last:
        return before, after
    start, end = body[first][0], body[last][1]
    shift = len(after) - len(before)
    return before[start:end], after[start : end + shift]


@lru_cache(maxsize=4)
def _top_level(text: str) -> list[tuple[int, int]]:
    """(start, end) character offsets of the module's top-level statements, each from the start
    of its first line (its decorators) to the end of its last line."""
    import ast
    import warnings

    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    spans = []
    with warnings.catch_warnings():  # an invalid escape in the module is not ours to report
        warnings.simplefilter("ignore")
        body = ast.parse(text).body
    for node in body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        last = node.end_lineno or node.lineno
        spans.append((starts[first - 1], starts[last] if last < len(starts) else len(text)))
    return spans


def _common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix, by halving (string comparisons run in C, each
    on the part still in doubt: linear in all)."""
    low, high = 0, min(len(a), len(b))
    while low < high:  # a[:low] == b[:low]
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(a: str, b: str, limit: int) -> int:
    """The length of the longest common suffix, at most `limit`, as `_common_prefix` finds it."""
    low, high = 0, max(limit, 0)
    while low < high:  # a[len(a) - low:] == b[len(b) - low:]
        middle = (low + high + 1) // 2
        if a[len(a) - middle : len(a) - low] == b[len(b) - middle : len(b) - low]:
            low = middle
        else:
            high = middle - 1
    return low
