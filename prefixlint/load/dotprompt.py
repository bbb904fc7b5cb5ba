"""Dotprompt (`.prompt`, Firebase Genkit): YAML front matter, then a Handlebars body with roles.

    ---
    model: googleai/gemini-2.0-flash
    input:
      schema:                      # Picoschema (`name?: type, description`) or JSON Schema
        customer: string
        question?: string, the user's question
      default:
        customer: Guest
    ---
    {{role "system"}}
    You are ... {{customer}} ...
    {{history}}
    {{role "user"}}
    {{question}}

`{{role "x"}}` starts a message with that role (text before the first one is a user message,
as Dotprompt does); `{{history}}` is the conversation slot: the earlier turns are inserted
there as messages of their own. Variables are the schema's properties, with `input.default`
values as samples. `{{> name}}` partials are read from the `_name.prompt` files beside the file.
The body is Handlebars, rendered with dotpromptz-handlebars.

`.prompt` is also Humanloop's extension. A Humanloop file has front matter with `provider` or
`endpoint` and a body of `<system>` / `<user>` tags; `sniff` rejects it, and
`prefixlint.load.humanloop` reads it.
"""

from __future__ import annotations

import re

from prefixlint.errors import PrefixlintError
from prefixlint.load.base import Loader
from prefixlint.load.files import EmptyBody
from prefixlint.load.front_matter import has_front_matter, python, split, trimmed, variable
from prefixlint.load.template import SLOT_ROLE, Template, Variable
from prefixlint.load.yaml_source import line_of, mapping_get

FORMAT = "dotprompt"
MARKER = re.compile(r"\{\{~?\s*(?:role\s+(?:\"(?P<role>[^\"]+)\"|'(?P<role2>[^']+)')|(?P<history>history))\s*~?\}\}")
_HUMANLOOP = re.compile(r"^\s*<(system|user|assistant)>", re.MULTILINE)
_HUMANLOOP_KEYS = re.compile(r"^(provider|endpoint)\s*:", re.MULTILINE)
_PICO_KEY = re.compile(r"^(?P<name>[A-Za-z_][\w-]*)\??(?:\((?P<type>[^)]*)\))?$")
HINT = "Dotprompt: YAML front matter between `---` lines, then a Handlebars body"


def sniff(text: str) -> bool:
    """Front matter is optional in Dotprompt (partials have none); Humanloop's files are not ours."""
    end = text.find("\n---", 3) if has_front_matter(text) else 0
    return not (_HUMANLOOP_KEYS.search(text[:end]) or _HUMANLOOP.search(text[end:]))


def load(path: str, text: str) -> Template:
    root, body = split(text, path, "Dotprompt") if has_front_matter(text) else (None, 0)
    front = python(root, path) or {}
    input_node = mapping_get(root, "input") if root is not None else None
    spec = front.get("input") or {}
    if not isinstance(spec, dict):
        raise PrefixlintError("`input` must be a mapping with `schema` and `default`", path=path,
                              line=line_of(input_node))
    defaults = spec.get("default") or {}
    if not isinstance(defaults, dict):
        raise PrefixlintError("`input.default` must be a mapping of name -> value", path=path,
                              line=line_of(mapping_get(input_node, "default")))
    line = line_of(input_node) if input_node is not None else None
    names = _schema_names(spec.get("schema"), path, line)
    variables: dict[str, Variable] = {}
    for name in [*names, *(n for n in defaults if n not in names)]:
        default = defaults.get(name)
        variables[name] = variable(name, () if default is None else (default,), line)
    messages = _messages(text, body)
    if not messages:
        raise EmptyBody("the Dotprompt body is empty", path=path, line=text.count("\n", 0, body) + 1)
    slot = "history" if any(m.role == SLOT_ROLE for m in messages) else None
    model = front.get("model")
    return Template(path=path, format=FORMAT, source=text, messages=tuple(messages), syntax="handlebars",
                    variables=variables, is_chat=True, slot=slot, model=str(model) if model else None,
                    partials=_partials(path, text))


def _partials(path: str, text: str) -> dict[str, str]:
    """`{{> name}}` partials: the `_name.prompt` files beside this one (as Dotprompt's prompt
    directory loads them), read only when the template uses a partial."""
    from pathlib import Path

    from prefixlint.load.files import read_text

    if not re.search(r"\{\{~?\s*>", text):
        return {}
    partials = {}
    for candidate in sorted(Path(path).parent.glob("_*.prompt")):
        content = read_text(str(candidate))
        if has_front_matter(content):
            content = content[split(content, str(candidate), "Dotprompt partial")[1]:]
        partials[candidate.stem[1:]] = content
    return partials


def _messages(text: str, body: int) -> list:
    """Cut the body at `{{role "x"}}` (a new message) and `{{history}}` (the slot, a message of its own)."""
    messages = []
    role, cursor = "user", body
    for match in MARKER.finditer(text, body):
        piece = trimmed(role, text, cursor, match.start())
        if piece is not None:
            messages.append(piece)
        if match.group("history"):
            slot = trimmed(SLOT_ROLE, text, match.start(), match.end())
            assert slot is not None  # the `{{history}}` marker itself: never blank
            messages.append(slot)
        else:
            role = (match.group("role") or match.group("role2")).lower()
        cursor = match.end()
    piece = trimmed(role, text, cursor, len(text))
    if piece is not None:
        messages.append(piece)
    return messages


def _schema_names(schema, path: str, line: int | None) -> list[str]:
    if schema is None:
        return []
    if isinstance(schema, dict) and isinstance(schema.get("properties"), dict):  # JSON Schema
        return [str(name) for name in schema["properties"]]
    if not isinstance(schema, dict):
        return []  # a named schema (`schema: Customer`): no properties to read here
    names = []
    for key in schema:
        match = _PICO_KEY.match(str(key))
        if match is None:
            raise PrefixlintError(f"input.schema: {key!r} is not a Picoschema field name", path=path, line=line)
        names.append(match.group("name"))
    return names


LOADER = Loader(FORMAT, sniff, load, hint=HINT)
