"""Compare two renders of one template: which placeholders changed, and the "fixed" request.

`changed_placeholders` pairs the substitutions of two renders (same placeholder, same order)
and returns the placeholders whose rendered value differs. `move_to_end` builds the fixed
variant the rules suggest: each line holding one of those placeholders is cut from where it
is and appended, in order, to the end of the last user message (of the prompt, for a
single-prompt file), so the stable text ahead of it becomes a shared prefix. When a long text
follows the value on its line (more than MAX_CARRIED_CHARS), only the value itself is moved.
"""

from __future__ import annotations

from typing import Sequence

from prefixlint.match.prefix import shared_prefix
from prefixlint.render.spans import RenderedMessage


#: When more than this many characters follow the value on its line (a one-line prompt, a
#: paragraph), the line is not moved whole: the value alone is.
MAX_CARRIED_CHARS = 48


def first_difference(a: str, b: str) -> int:
    """Index of the first character where `a` and `b` differ (len of the shorter if one is a prefix)."""
    return shared_prefix(a, b)


def changed_placeholders(a: Sequence[RenderedMessage], b: Sequence[RenderedMessage]) -> set[int]:
    changed: set[int] = set()
    for ma, mb in zip(a, b):
        if ma.text == mb.text:
            continue
        if [s.placeholder for s in ma.spans] == [s.placeholder for s in mb.spans]:
            for sa, sb in zip(ma.spans, mb.spans):
                if ma.text[sa.start : sa.end] != mb.text[sb.start : sb.end]:
                    changed.add(sa.placeholder)
            continue
        # Different loops or branches: every placeholder in the region that differs.
        start = first_difference(ma.text, mb.text)
        tail = first_difference(ma.text[::-1], mb.text[::-1])
        for message, end in ((ma, len(ma.text) - tail), (mb, len(mb.text) - tail)):
            changed.update(s.placeholder for s in message.spans if s.end >= start and s.start <= max(end, start))
    return changed


def target_message(messages: Sequence[RenderedMessage]) -> int:
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    return users[-1] if users else len(messages) - 1


def move_to_end(messages: Sequence[RenderedMessage], placeholders: set[int]) -> list[str]:
    """Message texts with every line holding one of `placeholders` moved to the target message's end."""
    target = target_message(messages)
    texts: list[str] = []
    moved: list[str] = []
    for message in messages:
        text = message.text
        regions: list[list[int]] = []
        for span in message.spans:
            if span.placeholder not in placeholders:
                continue
            start = text.rfind("\n", 0, span.start) + 1
            end = text.find("\n", span.end)
            end = len(text) if end < 0 else end + 1
            if end - span.end > MAX_CARRIED_CHARS:
                start, end = span.start, span.end  # more instructions follow on its line: move the value alone
            if regions and start <= regions[-1][1]:
                regions[-1][1] = max(regions[-1][1], end)
            else:
                regions.append([start, end])
        kept, last = [], 0
        for start, end in regions:
            kept.append(text[last:start])
            moved.append(text[start:end])
            last = end
        kept.append(text[last:])
        texts.append("".join(kept))
    if moved:
        body = texts[target]
        if body and not body.endswith("\n"):
            body += "\n"
        combined = body + "".join(moved)
        if not messages[target].text.endswith("\n"):
            combined = combined.rstrip("\n")
        texts[target] = combined
    return texts
