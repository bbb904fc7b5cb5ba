"""Semantic Kernel prompt YAML: `template`, `template_format`, `input_variables`; roles as `<message>`.

    name: SupportChat
    template_format: semantic-kernel     # or handlebars, jinja2
    template: |
      <message role="system">You are ... Today is {{time.today}}. ...</message>
      {{$history}}
      <message role="user">{{$request}}</message>
    input_variables:
      - {name: request, description: The user's question, is_required: true}
      - {name: history, description: The conversation so far}
    execution_settings: {default: {temperature: 0.2}}

`<message role="x">...</message>` (and Handlebars' `{{#message role="x"}}...{{/message}}`)
blocks are the messages; without any, the template is one user message, as Semantic Kernel
sends it. A placeholder between messages whose variable is a conversation name (history,
chat_history, messages...) is the conversation slot; other text between messages is dropped,
as Semantic Kernel's chat prompt parser drops it. `input_variables[].default` values are
samples. Semantic Kernel's own syntax has no Python renderer outside the SDK, so `{{$x}}` and
`{{plugin.function $arg}}` are substituted directly (with spans); Handlebars and Jinja2
templates are rendered by their engines.
"""

from __future__ import annotations

import re

from prefixlint.errors import PrefixlintError
from prefixlint.load.base import Loader
from prefixlint.load.template import SLOT_NAMES, SLOT_ROLE, Message, Template, Variable, align, strip_span
from prefixlint.load.yaml_source import compose, line_of, mapping_get, to_python

FORMAT = "semantic-kernel"
SYNTAX = {"semantic-kernel": "sk", "handlebars": "handlebars", "jinja2": "jinja"}
_MESSAGE = re.compile(r"<message\s+role\s*=\s*[\"'](?P<role>\w+)[\"']\s*>(?P<body>.*?)</message\s*>"
                      r"|\{\{#message\s+role\s*=\s*[\"'](?P<hrole>\w+)[\"']\s*\}\}(?P<hbody>.*?)\{\{/message\}\}", re.S)
_OUTSIDE = re.compile(r"\{\{\s*\$?(?P<name>[A-Za-z_]\w*)\s*\}\}")
_SNIFF = re.compile(r"^template\s*:", re.MULTILINE)
_SIGNS = re.compile(r"^(template_format|input_variables|execution_settings)\s*:", re.MULTILINE)
HINT = "a Semantic Kernel prompt has a top-level `template` and `template_format` or `input_variables`"


def sniff(text: str) -> bool:
    return bool(_SNIFF.search(text) and _SIGNS.search(text))


def _slot(message: Message, start: int, end: int) -> Message:
    """The conversation slot at a `{{history}}`-like marker (never blank: the marker is text)."""
    slot = _piece(message, SLOT_ROLE, start, end)
    assert slot is not None
    return slot


def _piece(message: Message, role: str | None, start: int, end: int) -> Message | None:
    """message.content[start:end] without the blank space around it."""
    start, end = strip_span(message.content, start, end)
    if start == end:
        return None
    return Message(role, message.content[start:end], message.offsets[start:end], message.offsets[start])


def load(path: str, text: str) -> Template:
    root = compose(text, path)
    if root is None or root.id != "mapping":
        raise PrefixlintError("a Semantic Kernel prompt is a YAML mapping", path=path, line=1)
    node = mapping_get(root, "template")
    if node is None or node.id != "scalar" or node.tag.endswith(":null"):
        raise PrefixlintError("`template` must be text", path=path, line=line_of(node or root))
    whole = Message(None, node.value, align(node.value, text, node.start_mark.index, node.end_mark.index),
                    node.start_mark.index)
    format_node = mapping_get(root, "template_format")
    name = format_node.value if format_node is not None else "semantic-kernel"
    if name not in SYNTAX:
        raise PrefixlintError(f"unknown template_format {name!r}", path=path, line=line_of(format_node),
                              hint=f"use one of: {', '.join(SYNTAX)}")
    variables, slot = _variables(mapping_get(root, "input_variables"), path, SLOT_NAMES)
    messages: list[Message] = []
    cursor = 0
    matches = list(_MESSAGE.finditer(whole.content))
    for match in matches:
        for outside in _OUTSIDE.finditer(whole.content, cursor, match.start()):
            if outside.group("name") in SLOT_NAMES:
                slot = slot or outside.group("name")
                variables.setdefault(slot, Variable(slot, "conversation"))
                messages.append(_slot(whole, outside.start(), outside.end()))
        body = "body" if match.group("role") else "hbody"
        piece = _piece(whole, (match.group("role") or match.group("hrole")).lower(), match.start(body), match.end(body))
        if piece is not None:
            messages.append(piece)
        cursor = match.end()
    for outside in _OUTSIDE.finditer(whole.content, cursor) if matches else ():
        if outside.group("name") in SLOT_NAMES:
            messages.append(_slot(whole, outside.start(), outside.end()))
    if not matches:
        single = _piece(whole, "user", 0, len(whole.content))
        messages = [single] if single else []
    if not messages:
        raise PrefixlintError("the template is empty", path=path, line=line_of(node))
    return Template(path=path, format=FORMAT, source=text, messages=tuple(messages), syntax=SYNTAX[name],
                    variables=variables, is_chat=True, slot=slot, model=_model(root, path))


def _model(root, path: str) -> str | None:
    """The first `model_id` under `execution_settings` (one entry per service)."""
    settings = mapping_get(root, "execution_settings")
    values = to_python(settings, path) if settings is not None else None
    for entry in (values or {}).values() if isinstance(values, dict) else ():
        if isinstance(entry, dict) and entry.get("model_id"):
            return str(entry["model_id"])
    return None


def _variables(node, path: str, slot_names) -> tuple[dict[str, Variable], str | None]:
    variables: dict[str, Variable] = {}
    slot = None
    if node is None:
        return variables, slot
    if node.id != "sequence":
        raise PrefixlintError("`input_variables` must be a list of {name, default, description}", path=path,
                              line=line_of(node))
    for item in node.value:
        value = to_python(item, path)
        if not isinstance(value, dict) or not value.get("name"):
            raise PrefixlintError("each input variable needs a `name`", path=path, line=line_of(item))
        name = str(value["name"])
        if name in slot_names:
            slot = slot or name
            variables[name] = Variable(name, "conversation", (), line_of(item))
            continue
        default = value.get("default")
        variables[name] = Variable(name, None, () if default in (None, "") else (default,), line_of(item))
    return variables, slot


LOADER = Loader(FORMAT, sniff, load, hint=HINT)
