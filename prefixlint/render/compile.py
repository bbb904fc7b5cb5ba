"""Compile a loaded template with the renderer for its placeholder syntax.

Jinja2 (and Nunjucks) render in jinja2's sandbox, Mustache with pystache and Handlebars with
dotpromptz-handlebars (`prefixlint.render.engine_spans`); str.format, `${x}` and Semantic
Kernel's `{{$x}}` are substituted directly (`prefixlint.render.simple_styles`). Messages that
are the conversation slot (`SLOT_ROLE`) are rendered by `prefixlint.render.slots`.
"""

from __future__ import annotations

from dataclasses import replace

from prefixlint.load.template import SLOT_ROLE, Template
from prefixlint.render.spans import CompiledTemplate


def compile_template(template: Template) -> CompiledTemplate:
    if any(message.role == SLOT_ROLE for message in template.messages):
        from prefixlint.render.slots import SlotTemplate

        inner = replace(template, messages=tuple(m for m in template.messages if m.role != SLOT_ROLE))
        return SlotTemplate(template, _compile(inner) if inner.messages else None)
    return _compile(template)


def _compile(template: Template) -> CompiledTemplate:
    if template.syntax == "jinja":
        from prefixlint.render.jinja_spans import JinjaTemplate

        return JinjaTemplate(template)
    if template.syntax in ("mustache", "handlebars"):
        from prefixlint.render.engine_spans import EngineTemplate

        return EngineTemplate(template)
    from prefixlint.render.simple_styles import SimpleTemplate

    return SimpleTemplate(template)
