"""Where a measured value sits: the substitution of a render at a text offset, the first place a
value is named in a template's source. Pure lookups of `prefixlint.check.measure`."""

from __future__ import annotations

import re

from prefixlint.load.template import Template
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
