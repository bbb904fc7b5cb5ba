"""Where a measured value sits: the substitution of a render at a text offset, the first place a
value is named in a template's source, the token it merges into. Pure lookups of
`prefixlint.check.measure`."""

from __future__ import annotations

import re

from prefixlint.load.template import Template
from prefixlint.match import variants
from prefixlint.render.spans import Placeholder


def first_use(template: Template, name: str) -> Placeholder:
    """Where a value that no placeholder renders (a call, a name used in a tag) is first named in the source."""
    source = template.source
    for tag in re.finditer(r"\{[{%].*?[}%]\}", source, re.DOTALL):
        if re.search(rf"\b{re.escape(name)}\b", tag.group()):
            line, column = template.position(tag.start())
            return Placeholder(-1, 0, tag.group(), tag.start(), line, column, (name,))
    return Placeholder(-1, 0, name, 0, 1, 1, (name,))


def span_at(request, at: int, moved: set[int]):
    """The innermost changed substitution containing text offset `at` (else the next one)."""
    message = max(i for i, start in enumerate(request.starts) if start <= at or i == 0)
    local = at - request.starts[message]
    spans = [s for s in request.messages[message].spans if s.placeholder in moved]
    inside = [s for s in spans if s.start <= local <= s.end]
    if inside:
        return message, min(inside, key=lambda s: s.end - s.start)
    after = [s for s in spans if s.start >= local]
    return message, (after[0] if after else (spans[-1] if spans else None))


def merged_at(tokenizer, base, varied, message: int, shared: int) -> tuple[str, str]:
    """(stable text, token) when the first differing token of either request starts inside
    the stable text before the changed substitution: the boundary token merged with the value."""
    for request, other in ((base, varied), (varied, base)):
        if shared >= len(request.ids):
            continue
        changed = variants.changed_placeholders(request.messages, other.messages)
        token_start = tokenizer.char_offset(request.text, request.ids, shared)
        token = tokenizer.token_text(request.ids[shared])
        starts = [request.starts[message] + s.start for s in request.messages[message].spans
                  if s.placeholder in changed and request.starts[message] + s.start > token_start]
        if not starts:
            continue
        span_start = min(starts)
        if span_start < token_start + len(token):
            return request.text[token_start:span_start], token
    return "", ""


def unknown_placeholders(placeholders, volatility, template, appended) -> frozenset[int]:
    """Placeholders whose value nothing says is constant (no fill, declaration or name does):
    a run of stable text ends there too (`stable_runs`), as its reuse cannot be counted on."""
    def unknown(name: str) -> bool:
        v = volatility.get(name)
        variable = template.variables.get(name)
        return (v is not None and not v.is_call and v.cls is None and v.signal is None
                and (variable is None or variable.kind is None) and name not in appended and name != template.slot)

    return frozenset(p.index for p in placeholders if p.names and not p.calls and all(unknown(n) for n in p.names))


def stable_runs(messages, starts, volatile, end: int, stop: int | None) -> list[str]:
    """The runs of text after offset `end` (up to `stop`) that no `volatile` placeholder cuts; a
    message's end does not cut a run (its next message goes on with it)."""
    runs: list[list[str]] = [[]]
    for number, message in enumerate(messages):
        offset = starts[number]
        cursor = max(end - offset, 0)
        limit = len(message.text) if stop is None else min(len(message.text), stop - offset)
        if cursor > limit:
            continue
        for span in message.spans:
            if span.placeholder in volatile and span.end > cursor and span.start < limit:
                runs[-1].append(message.text[cursor : max(span.start, cursor)])
                runs.append([])
                cursor = max(cursor, span.end)
        runs[-1].append(message.text[cursor:limit])
    return ["".join(run) for run in runs]
