"""The containers of a prompt's text that a moved value must not be cut out of (issue 24 item 2):
fenced code blocks, JSON-like examples, XML-like elements, triple-quoted blocks, list items, and
the Markdown or delimited header or `LABEL:` line whose body a unit is. Offsets are of the text with the values blanked
(`prefixlint.match.units.masked`), so that a value's own brackets or tags never count."""

from __future__ import annotations

import re

_FENCE = re.compile(r"^[ \t]*(```|~~~)", re.MULTILINE)
_HEADER = re.compile(r"^[ \t]*(#{1,6})[ \t]+\S")
_LABEL_HEADER = re.compile(r"^[ \t]*[^\s:#<>{}][^:{}<>]{0,60}:[ \t]*$")
_ITEM = re.compile(r"^([ \t]*)(?:[-*+]|\d{1,3}[.)])[ \t]+\S", re.MULTILINE)
_ROLE = re.compile(r"^[ \t]*#?[ \t]*(system|user|assistant|developer|tool|human|ai)[ \t]*:", re.IGNORECASE)
#: A delimited header: `=== REPORT A ===`, `--- Context ---`, `*** Rules ***`.
DELIMITED = re.compile(r"^[ \t]*([=*~#-])\1{2,}[ \t]*(\S(?:.*?\S)?)[ \t]*\1{3,}[ \t]*$")
#: A line introducing what follows it (`Here is the raw content of the webpage:`).
INTRO = re.compile(r"^[ \t]*\S.*:[ \t]*$")
#: An XML-like tag: `<name attr="…">`, `</name>`, `<name/>`.
TAG = re.compile(r"<(/?)([A-Za-z][\w.:-]{0,40})(?:[ \t][^<>\n]{0,200})?(/?)>")


def line_bounds(text: str, at: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, at) + 1
    newline = text.find("\n", at)
    return start, (len(text) if newline < 0 else newline + 1)


def line_ranges(text: str) -> list[tuple[int, int]]:
    out, at = [], 0
    while at < len(text):
        newline = text.find("\n", at)
        end = len(text) if newline < 0 else newline + 1
        out.append((at, end))
        at = end
    return out


def fence(plain: str, start: int, end: int) -> tuple[int, int] | None:
    """The lines of the fenced code block holding [start, end), if any."""
    opened = None
    for line_start, line_end in line_ranges(plain):
        if _FENCE.match(plain, line_start):
            if opened is None:
                opened = line_start
            else:
                if opened <= start and end <= line_end:
                    return opened, line_end
                opened = None
        elif line_start > end and opened is None:
            return None
    return None


def brackets(plain: str, start: int, end: int) -> tuple[int, int] | None:
    """The lines of a JSON-like example (a bracket opened on an earlier line) holding the value."""
    stack: list[int] = []
    stripped = _TAGS_AND_ESCAPES.sub(lambda m: " " * len(m.group()), plain)
    if start >= len(stripped):
        return None
    for bracket in _BRACKET.finditer(stripped, 0, start):  # the brackets open at the value
        if bracket.group() in "{[":
            stack.append(bracket.start())
        elif stack:
            stack.pop()
    multi = [o for o in stack if "\n" in plain[o:start]]
    if not multi:
        return None
    outer = multi[0]
    depth = stack.index(outer)
    for bracket in _BRACKET.finditer(stripped, start):  # ... and the one closing the outermost of them
        i = bracket.start()
        if bracket.group() in "{[":
            stack.append(i)
        elif stack:
            stack.pop()
            if i >= end and len(stack) == depth:
                return line_bounds(plain, outer)[0], line_bounds(plain, i)[1]
    return None


_TAGS_AND_ESCAPES = re.compile(r"\{%.*?%\}|\{#.*?#\}|\{\{|\}\}", re.DOTALL)
_BRACKET = re.compile(r"[{}\[\]]")


def element(plain: str, start: int, end: int) -> tuple[int, int] | None:
    """The XML-like element (`<name …>…</name>`) innermost around the value, tags included."""
    stack: list[tuple[str, int]] = []
    best = None
    for tag in TAG.finditer(plain):
        closing, name, empty = tag.group(1), tag.group(2), tag.group(3)
        if empty:
            continue
        if not closing:
            stack.append((name, tag.start()))
            continue
        for k in range(len(stack) - 1, -1, -1):
            if stack[k][0] == name:
                open_at = stack[k][1]
                del stack[k:]
                if open_at <= start and end <= tag.end() and (best is None or open_at > best[0]):
                    best = (open_at, tag.end())
                break
    return best


def list_item(plain: str, start: int) -> tuple[int, int] | None:
    """The list item holding the value: its line and the more-indented lines after it."""
    lines = line_ranges(plain)
    index = next(k for k, (a, b) in enumerate(lines) if a <= start < b or b == len(plain) and start == b)
    for k in range(index, -1, -1):
        found = _ITEM.match(plain, lines[k][0])
        if found:
            indent = len(found.group(1))
            if k < index and any(len(plain[a:b]) - len(plain[a:b].lstrip(" \t")) <= indent
                                 for a, b in lines[k + 1 : index + 1] if plain[a:b].strip()):
                return None
            stop = index + 1
            while stop < len(lines):
                a, b = lines[stop]
                body = plain[a:b]
                if not body.strip() or len(body) - len(body.lstrip(" \t")) <= indent:
                    break
                stop += 1
            return lines[k][0], lines[stop - 1][1]
        if k < index and not plain[lines[k][0]:lines[k][1]].strip():
            return None
        if k == index and not plain[lines[k][0]:lines[k][1]].startswith((" ", "\t")):
            return None
    return None


def is_header(line: str) -> bool:
    """A Markdown header or a delimited one (`=== REPORT ===`)."""
    return bool(_HEADER.match(line) or DELIMITED.match(line))


def with_header(plain: str, start: int, end: int, container: bool = False) -> int:
    """`start`, or the start of the header line above when [start, end) is that header's whole
    body (a Markdown or delimited section, or a `LABEL:` line introducing it): no header
    without its body. A longer line introducing the body (`… the report:`) is not a header to
    move (`introduction` names its kind)."""
    found = introduction(plain, start, end, container)
    return found[0] if found is not None and found[1] != "intro" else start


def introduction(plain: str, start: int, end: int, container: bool = False) -> tuple[int, str] | None:
    """(the start of the header line above, its kind: "markdown", "delimited", "label" or
    "intro") when [start, end) is that line's whole body, else None."""
    above = start
    while above > 0:  # blank lines between a Markdown header and its body
        line_start = plain.rfind("\n", 0, above - 1) + 1
        if plain[line_start:above].strip():
            break
        above = line_start
    if above == 0:
        return None
    header_start = plain.rfind("\n", 0, above - 1) + 1
    header = plain[header_start:above]
    markdown = _HEADER.match(header)
    delimited = DELIMITED.match(header)
    if _ROLE.match(header):
        return None
    kind = ("markdown" if markdown else "delimited" if delimited else "label" if _LABEL_HEADER.match(header)
            else "intro" if INTRO.match(header) else None)
    if kind is None:
        return None
    if kind == "label" and re.search(r"[.!?][ \t]+\S", header):  # sentences, not a label's phrase
        kind = "intro"
    rest = plain[end:].split("\n")
    following = next((line for line in rest if line.strip()), None)
    if markdown:
        next_header = _HEADER.match(following) if following is not None else None
        ends = following is None or (next_header is not None and len(next_header.group(1)) <= len(markdown.group(1)))
    else:  # a `LABEL:` line's (a delimited header's) body is the container under it, or runs to the next blank line
        ends = container or plain[end:] == "" or not rest[0].strip() or is_header(rest[0])
    return (header_start, kind) if ends else None


def end_marker(plain: str, end: int) -> int:
    """`end`, or the end of the line after it (past blank lines) when that line closes the
    delimited sections above (`=== END REPORT ===`): a section moved last takes its closing."""
    at = end
    while at < len(plain):
        line_end = line_bounds(plain, at)[1]
        line = plain[at:line_end]
        if line.strip():
            match = DELIMITED.match(line.rstrip("\n"))
            return line_end if match and match.group(2).upper().startswith("END") else end
        at = line_end
    return end


_TRIPLE = re.compile(r'"""|\'\'\'')


def triple_quoted(plain: str, start: int, end: int) -> tuple[int, int] | None:
    """The lines of a triple-quoted block (three quotes opening it, three closing it, on other
    lines) holding the value: the quotes are what marks the value off, and a value taken from
    between them leaves them quoting nothing."""
    opened = None
    for quote in _TRIPLE.finditer(plain):
        if opened is None:
            opened = quote
        elif quote.group() == opened.group():
            if opened.end() <= start and end <= quote.start() and "\n" in plain[opened.end() : quote.start()]:
                return line_bounds(plain, opened.start())[0], line_bounds(plain, quote.start())[1]
            opened = None
    return None


def enclosing(plain: str, start: int, end: int) -> tuple[int, int] | None:
    found = [c for c in (fence(plain, start, end), brackets(plain, start, end), element(plain, start, end),
                         triple_quoted(plain, start, end)) if c]
    return max(found, key=lambda c: c[0]) if found else None
