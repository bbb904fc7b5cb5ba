"""Where a Jinja syntax error is, and the hint that fixes it: an unclosed `{{` / `{%` at the
line and column that opens it (`close it with }}`), a block never closed or closed by the
wrong end tag at the line of the tag that opens it (Jinja reports the line where it gave up)."""

from __future__ import annotations

import re

#: Tags that open a block closed by `end<name>` (`set` only without `=`: `{% set x %}...`).
BLOCK_TAGS = frozenset({"if", "for", "block", "macro", "call", "filter", "with", "autoescape", "trans", "raw",
                        "set"})
_TAG = re.compile(r"\{%[-+]?\s*(\w+)([^%]*(?:%(?!\})[^%]*)*)%\}")
_INNERMOST = re.compile(r"innermost block that needs to be closed is '(\w+)'")
_UNKNOWN_TAG = re.compile(r"Encountered unknown tag '(\w+)'")


def syntax_location(source: str, exc, locate=None) -> tuple[int | None, int | None, str | None]:
    """(line, column, hint) to report the TemplateSyntaxError `exc` of `source` at; the column
    and hint are None where there is nothing better than Jinja's own line and message. Lines
    are `source`'s; `locate(line, column) -> (line, column)` gives the file's for the hint's
    words (a YAML message's content starts lines into its file)."""
    def file_line(at: int, column: int = 1) -> int:
        return locate(at, column)[0] if locate else at

    lines = source.splitlines()
    line = exc.lineno if exc.lineno and 0 < exc.lineno <= max(len(lines), 1) else None
    message = exc.message or ""
    innermost = _INNERMOST.search(message)
    if innermost:
        opened = _open_block(source, line, innermost.group(1))
        if opened is not None:
            at, column = opened
            name = innermost.group(1)
            stray = _UNKNOWN_TAG.search(message)
            where = file_line(at, column)
            if stray and stray.group(1).startswith("end") and line:
                return at, column, (f"the `{{% {name} %}}` opened on line {where} is closed by"
                                    f" `{{% {stray.group(1)} %}}` on line {file_line(line)}: close it with `{{% end{name} %}}`")
            return at, column, f"the `{{% {name} %}}` opened on line {where} is never closed: add `{{% end{name} %}}`"
    unclosed = _unclosed_delimiter(lines, line)
    if unclosed is not None:
        at, column, opening, closing = unclosed
        return at, column, f"`{opening}` is not closed: close it with `{closing}`"
    return line, None, None


def _open_block(source: str, line: int | None, name: str) -> tuple[int, int] | None:
    """(line, column) of the innermost `{% name %}` still open where Jinja stopped (the end of
    the error's line; the whole source for an unexpected end of template)."""
    lines = source.splitlines(keepends=True)
    end = sum(len(text) for text in lines[:line]) if line else len(source)
    stack: list[tuple[str, int]] = []
    for tag in _TAG.finditer(source, 0, end):
        word, rest = tag.group(1), tag.group(2)
        if word in BLOCK_TAGS and not (word == "set" and "=" in rest):
            stack.append((word, tag.start()))
        elif word.startswith("end") and stack and stack[-1][0] == word[3:]:
            stack.pop()
    opened = next((start for word, start in reversed(stack) if word == name), None)
    if opened is None:
        return None
    before = source[:opened]
    return before.count("\n") + 1, opened - (before.rfind("\n") + 1) + 1


_DELIMITER = re.compile(r"\{\{|\}\}|\{%|%\}|\{#|#\}")
_CLOSES = {"{{": "}}", "{%": "%}", "{#": "#}"}


def _unclosed_delimiter(lines: list[str], line: int | None) -> tuple[int, int, str, str] | None:
    """The first `{{` or `{%` up to the end of the error's line that another opening or the
    end comes before its closing (an expression may run over several lines: Jinja then
    reports a later line than the one that opens it)."""
    if line is None:
        return None
    text = "\n".join(lines[:line])
    inside: tuple[str, int] | None = None
    unclosed = None
    for match in _DELIMITER.finditer(text):
        mark = match.group()
        if inside is None:
            if mark in _CLOSES:
                inside = (mark, match.start())
        elif mark == _CLOSES[inside[0]]:
            inside = None
        elif mark in _CLOSES and inside[0] != "{#":
            unclosed = inside
            break
    unclosed = unclosed or inside
    if unclosed is None or unclosed[0] == "{#":
        return None
    opening, start = unclosed
    before = text[:start]
    return before.count("\n") + 1, start - (before.rfind("\n") + 1) + 1, opening, _CLOSES[opening]
