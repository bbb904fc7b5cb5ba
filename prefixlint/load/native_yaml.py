"""prefixlint's native template format: a YAML file with messages (or a prompt) and variables.

    tokenizer: o200k_base          # optional: overrides --tokenizer for this file
    engine: vllm                   # optional: overrides --engine for this file
    variables:
      now: {kind: per_request, samples: ["2025-03-14T09:26:53Z", "2025-03-14T09:27:10Z"]}
      user_name: {kind: per_user}
    messages:                      # or `prompt: |` for a single prompt
      - role: system
        content: |
          You are ... {{ now }} ...

Placeholders are Jinja2. Every variable a message uses must be declared under `variables`
(`name: {}` is enough); its `kind` (stable, per_day, per_user, per_request, or conversation for
the chat history: see prefixlint.render.history) wins over the
classification from the catalog.
"""

from __future__ import annotations

import re
from typing import Any

from prefixlint.errors import PrefixlintError
from prefixlint.load.base import Loader
from prefixlint.load.template import KINDS, Message, Template, Variable, align
from prefixlint.load.yaml_source import compose, line_of, mapping_get, to_python

FORMAT = "native-yaml"
_TOP_KEY = re.compile(r"^(messages|prompt)\s*:", re.MULTILINE)
#: A top-level `prompt:` whose value is a mapping (`prompt:` then indented `key:` lines, or a
#: `{...}` flow): settings of some tool (a REPL's prompt character), not a prompt's text.
_PROMPT_MAPPING = re.compile(
    r"^prompt\s*:[ \t]*(?:\{|(?:#[^\n]*)?\n(?:[ \t]*(?:#[^\n]*)?\n)*[ \t]+[\w\"'-][^\n:]*:(?:[ \t]|$))", re.MULTILINE)


def sniff(text: str) -> bool:
    """True when a YAML file looks like the native format: a top-level `messages`, or a top-level
    `prompt` holding text (a `prompt:` of settings is another tool's configuration)."""
    return any(m.group(1) == "messages" or not _PROMPT_MAPPING.match(text, m.start()) for m in _TOP_KEY.finditer(text))


def load(path: str, text: str) -> Template:
    root = compose(text, path)
    if root is None or not _is_mapping(root):
        line = line_of(root) if root is not None else 1
        raise PrefixlintError("expected a YAML mapping with `messages` or `prompt`", path=path, line=line)
    messages_node, prompt_node = mapping_get(root, "messages"), mapping_get(root, "prompt")
    if (messages_node is None) == (prompt_node is None):
        raise PrefixlintError("give either `messages` (a list of {role, content}) or `prompt`, not both or neither",
                              path=path, line=line_of(root))
    if prompt_node is not None:
        messages: tuple[Message, ...] = (_scalar_message(None, prompt_node, text, path),)
    else:
        messages = _messages(messages_node, text, path)
    variables_node = mapping_get(root, "variables")
    return Template(
        path=path, format=FORMAT, source=text, messages=messages, syntax="jinja",
        variables=_variables(variables_node, path) if variables_node is not None else {},
        declares_variables=variables_node is not None,
        tokenizer=_optional_str(root, "tokenizer", path), engine=_optional_str(root, "engine", path),
        is_chat=messages_node is not None,
    )


def _is_mapping(node) -> bool:
    return node.id == "mapping"


def _scalar_message(role: str | None, node, text: str, path: str) -> Message:
    if node.id != "scalar" or node.tag.endswith(":null"):
        raise PrefixlintError("expected text (a string)", path=path, line=line_of(node))
    start, end = node.start_mark.index, node.end_mark.index
    content = node.value
    return Message(role, content, align(content, text, start, end, node.style), start)


def _messages(node, text: str, path: str) -> tuple[Message, ...]:
    if node.id != "sequence" or not node.value:
        raise PrefixlintError("`messages` must be a non-empty list of {role, content}", path=path, line=line_of(node))
    messages = []
    for item in node.value:
        if not _is_mapping(item):
            raise PrefixlintError("each message must be a mapping with `role` and `content`", path=path,
                                  line=line_of(item))
        role_node, content_node = mapping_get(item, "role"), mapping_get(item, "content")
        if role_node is None or content_node is None:
            missing = "role" if role_node is None else "content"
            raise PrefixlintError(f"message without `{missing}`", path=path, line=line_of(item))
        if role_node.id != "scalar":
            raise PrefixlintError("`role` must be a string", path=path, line=line_of(role_node))
        messages.append(_scalar_message(role_node.value, content_node, text, path))
    return tuple(messages)


def _variables(node, path: str) -> dict[str, Variable]:
    if not _is_mapping(node):
        if node.id == "scalar" and node.tag.endswith(":null"):
            return {}
        raise PrefixlintError("`variables` must be a mapping of name -> {kind, samples}", path=path,
                              line=line_of(node))
    variables: dict[str, Variable] = {}
    for key_node, value_node in node.value:
        name = str(key_node.value)
        line = line_of(key_node)
        value = to_python(value_node, path)
        kind = None
        samples: tuple[Any, ...] = ()
        if isinstance(value, dict):
            kind = value.get("kind")
            raw = value.get("samples", value.get("sample", ()))
            samples = tuple(raw) if isinstance(raw, list) else ((raw,) if raw not in ((), None) else ())
        elif isinstance(value, list):
            samples = tuple(value)
        elif value is not None:
            samples = (value,)
        if kind is not None and kind not in KINDS:
            raise PrefixlintError(f"variable {name!r}: unknown kind {kind!r}", path=path, line=line,
                                  hint=f"use one of: {', '.join(KINDS)}")
        variables[name] = Variable(name, kind, samples, line)
    return variables


def _optional_str(root, key: str, path: str) -> str | None:
    node = mapping_get(root, key)
    if node is None:
        return None
    if node.id != "scalar" or not node.value:
        raise PrefixlintError(f"`{key}` must be a name", path=path, line=line_of(node))
    return str(node.value)


#: Named in the "not a recognised template" hint of every YAML file, beside the other formats.
HINT = ("prefixlint's own YAML format has a top-level `messages:` (a list of {role, content}) or `prompt:`"
        " text, with optional `variables:` (docs/formats.md)")
LOADER = Loader(FORMAT, sniff, load, hint=HINT)
