"""The template as written, seen as the fix engine sees it: each message's content with the
span of every placeholder in it, and the file offset of each content character.

`SourceMessage` has the shape of a rendered message (role, text, spans), so the one move plan
of `prefixlint.match.variants` is applied alike to the renders (to measure the fixed variant)
and to the file (to write it). A file whose roles are marked by lines in one text (Prompty,
Prompt flow) is split into its role sections the way the renderer splits it.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

from prefixlint.load.template import Message, Template
from prefixlint.match.units import LINE, UNSAFE_MARK, NoUnit, choose
from prefixlint.render.conversation import role_sections
from prefixlint.render.spans import RenderedMessage, Span


@dataclass(frozen=True)
class SourceMessage(RenderedMessage):
    """A message as the file writes it: a rendered message with the file offset of each character."""

    #: files[i]: the file offset of text[i]; `end`: the file offset just after the text.
    files: tuple[int, ...]
    end: int


def locate(message: Message, offset: int, length: int) -> tuple[int, int] | None:
    """[start, end) in the message's content of the file range [offset, offset + length)."""
    offsets = message.offsets
    if not offsets or length <= 0:
        return None
    start = _index(offsets, offset)
    if start is None:
        return None
    run = start
    while run + 1 < len(offsets) and offsets[run + 1] == offset:
        run += 1
    if run > start:  # a placeholder rewritten in the template's syntax, every character at its offset
        return start, run + 1
    last = _index(offsets, offset + length - 1)
    return (start, last + 1) if last is not None and last >= start else None


def _index(offsets: tuple[int, ...], offset: int) -> int | None:
    k = bisect_left(offsets, offset)
    if k < len(offsets) and offsets[k] == offset:
        return k
    try:  # offsets not in file order (a text bound to a name, inlined where it is used)
        return offsets.index(offset)
    except ValueError:
        return None


def source_messages(template: Template, placeholders) -> list[SourceMessage]:
    """The template's messages (role sections for role-marked texts) with placeholder spans."""
    out: list[SourceMessage] = []
    for message in template.messages:
        spans = []
        for p in placeholders:
            found = locate(message, p.offset, len(p.text))
            if found is not None:
                spans.append(Span(p.index, *found))
        spans.sort(key=lambda s: s.start)
        files = message.offsets
        end = message.file_offset(len(message.content))
        if files:  # past the last character as the file spells it (`\\n` in a JSON string is two)
            end = files[-1] + (spelled_length(template.source, files, message.content, len(files) - 1) or 1)
        whole = SourceMessage(message.role, message.content, tuple(spans), files, end)
        out += _split(whole, template.role_line) if template.role_markers else [whole]
    return out


#: A backslash escape of a quoted string (JSON, YAML, Python, JavaScript).
ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}|\r\n|.)", re.DOTALL)


def spelled_length(source: str, files, text: str, index: int) -> int | None:
    """How many file characters spell text[index] (`files[index]` its offset): 1 as written,
    2 for `\\n` or a doubled brace, 6 for `\\u00e9` ...; None when the file spells it some other way."""
    at, char = files[index], text[index]
    if _doubled_brace(source, files, text, index):
        return 2
    if index > 0 and files[index - 1] == at and index + 1 < len(files):
        return files[index + 1] - at  # the end of a placeholder rewritten at one offset
    if source[at : at + 1] == char and not (
            char == "\\" and source[at + 1 : at + 2] == "\\"
            and not (index + 1 < len(files) and files[index + 1] == at + 1)):  # `\\\\`, not a raw `\\`
        return 1
    escape = ESCAPE.match(source, at)
    if escape:
        return escape.end() - at
    if char == "'" and source.startswith("''", at):
        return 2
    return None


def _doubled_brace(source: str, files, text: str, index: int) -> bool:
    """Is text[index] the second of a `{{`/`}}` that the loader mapped, both characters, to
    the one offset of a brace the file writes doubled (a `.format` template's escape)?"""
    if index < 1 or files[index - 1] != files[index] or text[index] not in "{}":
        return False
    return source.startswith(text[index] * 2, files[index])


def _split(message: SourceMessage, role_line: str | None) -> list[SourceMessage]:
    """Role sections as `prefixlint.render.conversation.split_roles` cuts a rendered text."""
    text = message.text
    out = []
    for role, start, end in role_sections(text, role_line):
        spans = tuple(Span(s.placeholder, s.start - start, s.end - start)
                      for s in message.spans if s.start >= start and s.end <= end)
        files = message.files[start:end]
        if end > start:
            after = message.files[end - 1] + 1
        else:
            after = message.files[start] if start < len(message.files) else message.end
        out.append(SourceMessage(role, text[start:end], spans, files, after))
    return out or [message]


def placements(template: Template, placeholders, leads: dict[int, str] | None = None
               ) -> tuple[dict[int, str], dict[int, str]]:
    """How every placeholder found in the template's content moves (`prefixlint.match.units`),
    decided once, and why a placeholder cannot be cut out cleanly (its mode is then the line,
    so that the promise of moving it by hand can still be measured)."""
    modes: dict[int, str] = {}
    reasons: dict[int, str] = {}
    for message in source_messages(template, placeholders):
        for span in message.spans:
            if span.placeholder in modes:
                continue
            try:
                modes[span.placeholder] = choose(message.text, message.spans, span.start, span.end,
                                                 (leads or {}).get(span.placeholder))
            except NoUnit as exc:
                modes[span.placeholder], reasons[span.placeholder] = LINE + UNSAFE_MARK, str(exc)
    return modes, reasons
