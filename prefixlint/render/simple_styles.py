"""Render str.format `{x}`, JavaScript `${x}` and Semantic Kernel `{{$x}}` templates, with spans.

These styles have no logic, so rendering is a single left-to-right scan: template text is
copied, `{{`/`}}` (str.format escapes) become one brace, and each placeholder is replaced by
its value. `{user.name}`/`${user.name}` and `{items[0]}` look into mapping and list samples;
attribute names starting with `_` are refused, as Python's own str.format would reach
object internals with them. In Semantic Kernel's own syntax, `{{$x}}` is a variable and
`{{plugin.function $arg "literal"}}` a function call (`{{time.now}}`, `{{TimePlugin.Today}}`):
the call's name is classified like any function a template calls.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from prefixlint.errors import PrefixlintError
from prefixlint.load.template import Template
from prefixlint.render.spans import Placeholder, RenderedMessage, Span

_PATTERNS = {
    "format": re.compile(
        r"(?P<escape>\{\{|\}\})|\{(?P<name>[A-Za-z_]\w*)(?P<path>(?:\.\w+|\[\w+\])*)(?:![rsa])?(?::(?P<spec>[^{}]*))?\}"
    ),
    "dollar": re.compile(r"\$\{(?P<name>[A-Za-z_]\w*)(?P<path>(?:\.\w+|\[\w+\])*)\}"),
    "sk": re.compile(r"\{\{\s*(?:\$(?P<name>[A-Za-z_]\w*)(?P<path>)|(?P<call>[A-Za-z_][\w.-]*)(?P<args>[^{}]*?))\s*\}\}"),
}
_SK_ARG = re.compile(r"\$(\w+)|\"([^\"]*)\"|'([^']*)'")
_STEP = re.compile(r"\.(\w+)|\[(\w+)\]")


def _finditer(pattern: re.Pattern, text: str, braces: bool):
    """`pattern.finditer(text)`; with `braces` (every match starts with `{` or `}`: str.format's),
    tried only where a brace is, found by `str.find` (the regular expression starts with a group,
    so the engine would try it at every character: most of the compile of a long prompt)."""
    if not braces:
        yield from pattern.finditer(text)
        return
    position, opening, closing = 0, text.find("{"), text.find("}")
    while True:
        if 0 <= opening < position:
            opening = text.find("{", position)
        if 0 <= closing < position:
            closing = text.find("}", position)
        at = min(opening, closing) if opening >= 0 and closing >= 0 else max(opening, closing)
        if at < 0:
            return
        match = pattern.match(text, at)
        if match:
            yield match
        position = match.end() if match else at + 1


class SimpleTemplate:
    def __init__(self, template: Template) -> None:
        self.template = template
        self.pattern = _PATTERNS[template.syntax]
        placeholders: list[Placeholder] = []
        texts = getattr(template, "placeholder_texts", {})  # SourceTemplate (prefixlint.load.source_prompts)
        self._pieces: list[list[tuple[str, Any]]] = []  # per message: ("text", s) | ("field", (index, match))
        for number, message in enumerate(template.messages):
            pieces: list[tuple[str, Any]] = []
            last = 0
            for match in _finditer(self.pattern, message.content, template.syntax == "format"):
                pieces.append(("text", message.content[last : match.start()]))
                last = match.end()
                if match.groupdict().get("escape"):
                    pieces.append(("text", match.group("escape")[0]))
                    continue
                path = match.group("path") or ""
                if any(step.startswith("_") for step in re.findall(r"\w+", path)):
                    line, column = template.position(message.file_offset(match.start()))
                    raise PrefixlintError(f"placeholder {match.group(0)} reaches a private attribute",
                                          path=template.path, line=line, column=column)
                offset = message.file_offset(match.start())
                line, column = template.position(offset)
                index = len(placeholders)
                written = texts.get(offset, match.group(0))  # as written in program source
                call = match.groupdict().get("call")
                if call:  # Semantic Kernel function call: names are its $arguments
                    args = _SK_ARG.findall(match.group("args") or "")
                    placeholders.append(Placeholder(index, number, match.group(0), offset, line, column,
                                                    tuple(a[0] for a in args if a[0]), (call,),
                                                    tuple(a[1] or a[2] for a in args if not a[0])))
                else:
                    placeholders.append(Placeholder(index, number, written, offset, line, column,
                                                    (match.group("name"),)))
                pieces.append(("field", (index, match)))
            pieces.append(("text", message.content[last:]))
            self._pieces.append(pieces)
        self.placeholders = tuple(placeholders)
        self.variables = tuple(dict.fromkeys(name for p in placeholders for name in p.names))
        self.functions = tuple(dict.fromkeys(call for p in placeholders for call in p.calls))

    def render(self, values: Mapping[str, Any], functions: Mapping[str, Callable]) -> tuple[RenderedMessage, ...]:
        rendered = []
        for message, pieces in zip(self.template.messages, self._pieces):
            out: list[str] = []
            spans: list[Span] = []
            length = 0
            for kind, piece in pieces:
                if kind == "text":
                    out.append(piece)
                    length += len(piece)
                    continue
                index, match = piece
                placeholder = self.placeholders[index]
                if placeholder.calls:
                    arguments = [values[a[0]] if a[0] else (a[1] or a[2]) for a in _SK_ARG.findall(match.group("args"))]
                    text = str(functions[placeholder.calls[0]](*arguments))
                else:
                    text = self._value(values, match, placeholder)
                spans.append(Span(index, length, length + len(text)))
                out.append(text)
                length += len(text)
            rendered.append(RenderedMessage(message.role, "".join(out), tuple(spans)))
        return tuple(rendered)

    def _value(self, values: Mapping[str, Any], match: re.Match, placeholder: Placeholder) -> str:
        value = values[match.group("name")]
        for attribute, key in _STEP.findall(match.group("path") or ""):
            step = attribute or key
            try:
                value = value[int(step)] if step.isdigit() and isinstance(value, list) else value[step]
            except (KeyError, IndexError, TypeError):
                raise PrefixlintError(f"cannot render {placeholder.text}: the sample has no {step!r}",
                                      path=self.template.path, line=placeholder.line,
                                      column=placeholder.column) from None
        spec = match.groupdict().get("spec")
        if spec:
            from prefixlint.sandbox.bounds import TooLarge, refuse_over, spec_width

            try:
                refuse_over(spec_width(spec), "the format width")
            except TooLarge as exc:  # `{x:>3000000000}` would pad to 3 GB
                raise PrefixlintError(f"cannot render {placeholder.text}: {exc}", path=self.template.path,
                                      line=placeholder.line, column=placeholder.column) from None
            try:
                return format(value, spec)
            except (ValueError, TypeError):
                return str(value)
        return str(value)
