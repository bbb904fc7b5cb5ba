"""Join rendered messages into the one text a server tokenizes, keeping each message's offset.

This is the approximation `check` uses where the tokenizer has no public chat format
(o200k_base, cl100k_base, a tokenizer without a chat template); otherwise the model's own
template frames the messages (`prefixlint.render.framing`).

A single prompt is its own text. A conversation is framed as `transcript` and `replay` frame
it for a tokenizer without a chat format (`<|im_start|>role<|im_sep|>...<|im_end|>`, then the
generation prompt `<|im_start|>assistant<|im_sep|>`): the framing is stable text, so it moves
no finding; each marker is tokenized on its own, as ordinary text (the server has one special
token for each), so nothing merges across it. A conversation slot (`SLOT_ROLE`) renders as earlier turns
already framed as messages, so it is joined as it is.
"""

from __future__ import annotations

import re
from typing import Sequence

from prefixlint.load.template import ROLE_LINE, SLOT_ROLE
from prefixlint.render.spans import RenderedMessage, Span


def split_roles(message: RenderedMessage, role_line: str | None = None) -> tuple[RenderedMessage, ...]:
    """The messages of a rendered text whose roles are marked by role lines.

    Text before the first role line, when not blank, is a system message. Each message's text
    runs from after its role line to the next one, without surrounding blank lines; spans are
    re-based to it (a span cut by the trimming is dropped).
    """
    text = message.text
    messages = []
    for role, start, end in role_sections(text, role_line):
        spans = tuple(Span(s.placeholder, s.start - start, s.end - start)
                      for s in message.spans if s.start >= start and s.end <= end)
        messages.append(RenderedMessage(role, text[start:end], spans))
    return tuple(messages) or (message,)


def role_sections(text: str, role_line: str | None = None) -> list[tuple[str, int, int]]:
    """(role, start, end) of each message of a text whose roles are marked by role lines, each
    without its role line and the blank lines around it (the fix engine cuts the file alike)."""
    pattern = re.compile(role_line, re.MULTILINE | re.IGNORECASE) if role_line else ROLE_LINE
    marks = list(pattern.finditer(text))
    pieces: list[tuple[str, int, int]] = []
    if marks and text[: marks[0].start()].strip():
        pieces.append(("system", 0, marks[0].start()))
    for number, mark in enumerate(marks):
        end = marks[number + 1].start() if number + 1 < len(marks) else len(text)
        pieces.append((mark.group(1).lower(), mark.end(), end))
    trimmed = []
    for role, start, end in pieces:
        while start < end and text[start] in "\r\n":
            start += 1
        while end > start and text[end - 1] in "\r\n \t":
            end -= 1
        trimmed.append((role, start, end))
    return trimmed


def split_json(message: RenderedMessage, path: str) -> tuple[RenderedMessage, ...]:
    """The messages of a rendered text that is a JSON list of `{role, content}` (promptfoo's
    Nunjucks JSON prompts: JSON only once rendered). Each content is decoded; a span keeps the
    characters whose JSON text it covered."""
    from bisect import bisect_left

    from prefixlint.errors import PrefixlintError
    from prefixlint.load.json_source import compose_json, node_offsets
    from prefixlint.load.yaml_source import mapping_get

    try:
        root = compose_json(message.text, path)
    except PrefixlintError as exc:
        raise PrefixlintError(f"once rendered, the prompt is not JSON: {exc.message}", path=path, line=1) from None
    items = root.value if root is not None and root.id == "sequence" else []
    messages = []
    for item in items:
        role = mapping_get(item, "role") if item.id == "mapping" else None
        content = mapping_get(item, "content") if item.id == "mapping" else None
        if role is None or content is None or content.id != "scalar":
            raise PrefixlintError("once rendered, the prompt must be a JSON list of {role, content}", path=path, line=1)
        offsets = node_offsets(content, message.text)
        spans = []
        for span in message.spans:
            first, last = bisect_left(offsets, span.start), bisect_left(offsets, span.end)
            if last > first:
                spans.append(Span(span.placeholder, first, last))
        messages.append(RenderedMessage(str(role.value), str(content.value), tuple(spans)))
    if not messages:
        raise PrefixlintError("once rendered, the prompt must be a non-empty JSON list of messages", path=path, line=1)
    return tuple(messages)


#: The ChatML markers of the approximation; tokenized each on its own (`encode_chatml`).
CHATML_MARKERS = re.compile(r"(<\|im_start\|>|<\|im_sep\|>|<\|im_end\|>)")


def join(messages: Sequence[RenderedMessage], is_chat: bool) -> tuple[str, tuple[int, ...]]:
    """The request text and the offset in it where each message's text starts: the framing of
    `prefixlint.render.templates.CHATML_TEMPLATE`, which `transcript` and `replay` render."""
    if not is_chat:
        return messages[0].text, (0,)
    parts: list[str] = []
    starts: list[int] = []
    length = 0
    for message in messages:
        framed = message.role != SLOT_ROLE
        head = f"<|im_start|>{message.role}<|im_sep|>" if framed else ""
        starts.append(length + len(head))
        piece = f"{head}{message.text}<|im_end|>" if framed else message.text
        parts.append(piece)
        length += len(piece)
    parts.append("<|im_start|>assistant<|im_sep|>")
    return "".join(parts), tuple(starts)


def encode_chatml(encode, text: str) -> list[int]:
    """The ChatML approximation tokenized as if its markers were special tokens: each marker
    and each piece of text between them on its own, so that nothing merges across a marker."""
    ids: list[int] = []
    for piece in CHATML_MARKERS.split(text):
        if piece:
            ids += encode(piece)
    return ids
