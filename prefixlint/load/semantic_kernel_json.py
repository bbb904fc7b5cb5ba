"""Semantic Kernel prompts kept in an application's JSON settings (`appsettings.json`).

    "Prompts": {                                   // JSON with comments, as .NET reads it
      "SystemDescription": "... Current date: {{TimePlugin.Now}}.",
      "SystemResponse": "Either reply [silence] or answer the last message ...",
      "SystemIntent": "Rewrite the last message ... {{$audience}} ..."
    }

A JSON file (`//` and `/* */` comments allowed) whose string values use Semantic Kernel's
syntax (`{{$var}}`, `{{Plugin.Function}}`) holds prompt pieces that the application joins into
one prompt. prefixlint measures them as that prompt: every text value of each object holding
such a template, in the order they are written, joined by blank lines (Chat Copilot's own
order: the system description first, then the response and intent instructions). Numbers,
booleans and other objects' values are settings, not prompt text.
"""

from __future__ import annotations

import re

from prefixlint.errors import PrefixlintError
from prefixlint.load.base import Loader
from prefixlint.load.json_source import compose_json, looks_like_json, node_offsets
from prefixlint.load.template import Message, Template

FORMAT = "semantic-kernel-json"
_SK = re.compile(r"\{\{\s*(?:\$[A-Za-z_]\w*|[A-Za-z_]\w*\.[A-Za-z_]\w*(?:\s[^{}]*)?)\s*\}\}")
_COMMENT = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*[\s\S]*?\*/')
SEPARATOR = "\n\n"
HINT = "Semantic Kernel settings are JSON whose string values use {{$var}} or {{Plugin.Function}}"


def without_comments(text: str) -> str:
    """The JSON text with `//` and `/* */` comments blanked out (same length, same lines)."""
    return _COMMENT.sub(lambda m: m.group(0) if m.group(0).startswith('"') else re.sub(r"[^\n]", " ", m.group(0)), text)


_LEADING_COMMENTS = re.compile(r"(?:\s*(?://[^\n]*|/\*[\s\S]*?\*/))*")


def _json_like(text: str) -> bool:
    """JSON, or JSON with comments ahead of it (Chat Copilot's appsettings.json opens with `//` lines)."""
    comments = _LEADING_COMMENTS.match(text[:100_000])
    assert comments is not None  # a run of none or more comments matches every text
    return looks_like_json(text[comments.end():])


def sniff(text: str) -> bool:
    return _json_like(text) and _SK.search(text[:1_000_000]) is not None


_WALKED = re.compile(r"\{\{\s*(?:\$[A-Za-z_]\w*|[A-Za-z_]\w*Plugin\.[A-Za-z_]\w*|time\.[A-Za-z_]\w*)[^{}]*\}\}")


def sniff_walked(text: str) -> bool:
    """A directory walk takes a JSON file only for `{{$var}}` or a plugin call (`{{TimePlugin.Now}}`),
    not for any `{{a.b}}` (Vue or i18n message files use that too)."""
    return _json_like(text) and _WALKED.search(text[:1_000_000]) is not None


def load(path: str, text: str) -> Template:
    raw = without_comments(text)
    root = compose_json(raw, path)
    groups: list[list] = []
    _collect(root, groups)
    if not groups:
        raise PrefixlintError("no string value uses Semantic Kernel's {{$var}} or {{Plugin.Function}}", path=path,
                              line=1, hint=HINT)
    content = ""
    offsets: tuple[int, ...] = ()
    for node in (node for group in groups for node in group):
        piece = node_offsets(node, raw)
        if content:
            content += SEPARATOR
            offsets += (piece[0] if piece else node.start_mark.index,) * len(SEPARATOR)
        content += node.value
        offsets += piece
    message = Message(None, content, offsets, groups[0][0].start_mark.index)
    return Template(path=path, format=FORMAT, source=text, messages=(message,), syntax="sk")


def _collect(node, groups: list[list]) -> None:
    """The text values of each mapping that holds a Semantic Kernel template, mapping by mapping."""
    if node is None:
        return
    if node.id == "mapping":
        texts = [value for _, value in node.value
                 if value.id == "scalar" and value.tag.endswith(":str") and value.value.strip()]
        if any(_SK.search(value.value) for value in texts):
            groups.append(texts)
        for _, value in node.value:
            if value.id != "scalar":
                _collect(value, groups)
    elif node.id == "sequence":
        for item in node.value:
            _collect(item, groups)


LOADER = Loader(FORMAT, sniff, load, hint=HINT, walked=sniff_walked, assembled=True)
