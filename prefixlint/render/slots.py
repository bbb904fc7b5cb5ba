"""Render a template whose conversation slot is a message of its own (SLOT_ROLE).

The other messages are rendered by the template's own renderer; each slot message renders as
the earlier turns of `prefixlint.render.history` (the same in every render: stable, as the
turns already in a conversation are; the `History` given as the slot variable's value, else
the default one), with one span for its placeholder, which points at the slot as written in
the file (a MessagesPlaceholder, `{{history}}`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Mapping

from prefixlint.load.template import SLOT_ROLE, Template
from prefixlint.render.history import History, slot_text
from prefixlint.render.spans import CompiledTemplate, Placeholder, RenderedMessage, Span


class SlotTemplate:
    def __init__(self, template: Template, inner: CompiledTemplate | None) -> None:
        self.template, self.inner = template, inner
        #: full message index of each inner message, in order
        self._inner_index = [i for i, m in enumerate(template.messages) if m.role != SLOT_ROLE]
        placeholders = [replace(p, message=self._inner_index[p.message]) for p in (inner.placeholders if inner else ())]
        self._slot_placeholder: dict[int, int] = {}
        for number, message in enumerate(template.messages):
            if message.role != SLOT_ROLE:
                continue
            offset = message.file_offset(0)
            line, column = template.position(offset)
            self._slot_placeholder[number] = len(placeholders)
            names: tuple[str, ...] = (template.slot,) if template.slot else ()
            placeholders.append(Placeholder(len(placeholders), number, message.content, offset, line, column, names))
        self.placeholders = tuple(placeholders)
        names = tuple(inner.variables) if inner else ()
        self.variables = names + tuple(n for n in ((template.slot,) if template.slot else ()) if n not in names)
        self.functions = tuple(inner.functions) if inner else ()

    def render(self, values: Mapping[str, Any], functions: Mapping[str, Callable]) -> tuple[RenderedMessage, ...]:
        rendered = list(self.inner.render(values, functions)) if self.inner else []
        out: list[RenderedMessage] = []
        for number, message in enumerate(self.template.messages):
            if message.role == SLOT_ROLE:
                value = values.get(self.template.slot) if self.template.slot else None
                text = slot_text(value if isinstance(value, History) else None)
                out.append(RenderedMessage(SLOT_ROLE, text, (Span(self._slot_placeholder[number], 0, len(text)),)))
            else:
                out.append(rendered.pop(0))
        return tuple(out)
