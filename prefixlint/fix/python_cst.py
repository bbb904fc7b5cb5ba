"""A fix of Python source checked through libcst's concrete syntax tree (issue 24 item 6).

The edits of a Python fix are made inside string literals (`prefixlint.fix.build` writes the
moved text in the literal's own quoting). libcst parses the fixed module losslessly, and the
module with every string literal's value blanked must be exactly the original's: the fix
changed nothing but the prompts' text (no quote, comment, bracket or line of code moved), and
the fixed file still parses. TypeScript/JavaScript edits are made in the literal's byte range
that tree-sitter found (`prefixlint.load.ts_source`)."""

from __future__ import annotations

import re


class CodeChanged(Exception):
    pass


def same_code(before: str, after: str) -> None:
    """CodeChanged unless `after` parses and differs from `before` only inside string literals."""
    import libcst as cst

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
