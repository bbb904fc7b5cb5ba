"""Compile a loaded template with the renderer for its placeholder syntax."""

from __future__ import annotations

from prefixlint.load.template import Template
from prefixlint.render.spans import CompiledTemplate


def compile_template(template: Template) -> CompiledTemplate:
    if template.syntax == "jinja":
        from prefixlint.render.jinja_spans import JinjaTemplate

        return JinjaTemplate(template)
    from prefixlint.render.simple_styles import SimpleTemplate

    return SimpleTemplate(template)
