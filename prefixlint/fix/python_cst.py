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

    before, after, statements = _changed_statements(before, after)
    if _one_literal_rewritten(before, after, statements):
        return
    try:
        old, new = cst.parse_module(before), cst.parse_module(after)
    except (cst.ParserSyntaxError, RecursionError, ValueError) as exc:
        raise CodeChanged(f"the fixed module would not parse ({str(exc).splitlines()[0][:80]})") from None
    old_code, new_code = _skeleton(old), _skeleton(new)
    added = ', ("", "")'  # the one message a fix may add after the conversation (fix/new_message.py)
    if old_code != new_code and not _one_added(old_code, new_code, added):
        raise CodeChanged("the fix would change the module outside its string literals")


def _one_literal_rewritten(before: str, after: str, statements: tuple[list, int] | None = None) -> bool:
    """True when `after` is `before` (which libcst parses) with one string literal's text
    rewritten into another literal of the same prefix and quotes, each one literal on its own:
    the module with its literals emptied is then the same, without building either copy (a
    prompt's fix is one such rewrite; about a third of the time). False decides nothing: the
    whole comparison is made. `statements`: the `ast` statements `before` holds, as parsed in
    their module, and the line it starts at (None: `before` is parsed here)."""
    import ast
    import warnings

    import libcst as cst

    head = _common_prefix(before, after)
    end = len(before) - _common_suffix(before, after, min(len(before), len(after)) - head)
    if statements is None:
        try:
            with warnings.catch_warnings():  # an invalid escape in the module is not ours to report
                warnings.simplefilter("ignore")
                statements = (ast.parse(before).body, 1)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    span = _literal_around(before, statements[0], statements[1], head, end)
    if span is None:
        return False
    start, stop = span
    old_text, new_text = before[start:stop], after[start : stop + len(after) - len(before)]
    try:
        old, new = cst.parse_expression(old_text), cst.parse_expression(new_text)
        cst.parse_module(before)
    except Exception:  # noqa: BLE001 - whatever libcst refuses, the whole comparison says what it means
        return False
    empty = cst.Module(body=[])  # each text must be that one literal and nothing else (no comment after it)
    return (_quoting(old) is not None and _quoting(old) == _quoting(new)
            and empty.code_for_node(old) == old_text and empty.code_for_node(new) == new_text)


def _literal_around(text: str, statements: list, first_line: int, start: int, end: int) -> tuple[int, int] | None:
    """The span of the outermost string literal (str or bytes, f-string included) of the
    `statements` of `text` that holds text[start:end], else None (their positions are a line,
    `first_line` being the first of `text`, and a UTF-8 byte column)."""
    import ast

    lines = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]

    def offset(line: int, column: int) -> int:
        at = lines[line - first_line]
        return at + len(text[at : at + column].encode("utf-8")[:column].decode("utf-8", errors="ignore"))

    stack: list = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.JoinedStr) or isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            if node.end_lineno is None or node.end_col_offset is None:
                continue
            first, last = offset(node.lineno, node.col_offset), offset(node.end_lineno, node.end_col_offset)
            if first <= start and end <= last:
                return first, last
            continue  # the fields of an f-string are inside its literal: not looked at apart
        stack.extend(ast.iter_child_nodes(node))
    return None


def _quoting(node) -> tuple[str, ...] | None:
    """A single literal's prefix and quotes (what `_skeleton` keeps of it); None for anything else."""
    import libcst as cst

    if getattr(node, "lpar", None) or getattr(node, "rpar", None):
        return None  # `("...")`: brackets are code
    if isinstance(node, cst.SimpleString):
        opening = _OPENING.match(node.value)
        return ("simple", opening.group()) if opening else None
    if isinstance(node, cst.FormattedString):
        return ("formatted", node.start, node.end)
    return None


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


def _changed_statements(before: str, after: str) -> tuple[str, str, tuple[list, int] | None]:
    """The run of whole top-level statements of `before` that holds every changed character,
    the same run of `after` (its text outside that run is unchanged), and the run's `ast`
    statements with its first line. Both modules whole (and None) when `before` does not parse
    or the change is not inside a run of statements."""
    head = _common_prefix(before, after)
    tail = _common_suffix(before, after, min(len(before), len(after)) - head)
    try:
        body, nodes, lines = _top_level(before)
    except (SyntaxError, ValueError, RecursionError):
        return before, after, None
    starts, ends = [start for start, _ in body], [end for _, end in body]
    first = bisect_right(starts, head) - 1  # the last statement starting at or before the change
    last = bisect_left(ends, len(before) - tail)  # the first ending at or after it
    if first < 0 or last == len(body) or first > last:
        return before, after, None
    start, end = body[first][0], body[last][1]
    shift = len(after) - len(before)
    statements = (nodes[first : last + 1], lines[first]) if lines else None
    return before[start:end], after[start : end + shift], statements


@lru_cache(maxsize=4)
def _top_level(text: str) -> tuple[list[tuple[int, int]], list, list[int]]:
    """(start, end) character offsets of the module's top-level statements, each from the start
    of its first line (its decorators) to the end of its last line; the statements (`ast`) and
    their first lines, none when a lone `\\r` breaks a line for `ast` and not here. The module
    is parsed once for all the fixes of its prompts."""
    import ast
    import warnings

    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    spans, lines = [], []
    with warnings.catch_warnings():  # an invalid escape in the module is not ours to report
        warnings.simplefilter("ignore")
        body = ast.parse(text).body
    for node in body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        last = node.end_lineno or node.lineno
        spans.append((starts[first - 1], starts[last] if last < len(starts) else len(text)))
        lines.append(first)
    return spans, body, [] if re.search("\r(?!\n)", text) else lines


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
