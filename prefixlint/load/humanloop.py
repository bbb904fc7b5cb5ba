"""Humanloop `.prompt` files: YAML front matter, then `<system>` / `<user>` / `<assistant>` tags.

    ---
    model: gpt-4o
    temperature: 0.7
    provider: openai
    endpoint: chat
    ---
    <system>
      You are a friendly assistant for {{company}}.
    </system>
    <user>
      {{question}}
    </user>

`.prompt` is also Dotprompt's extension: a file whose front matter has `provider` or
`endpoint`, or whose body has message tags, is Humanloop's (`prefixlint.load.dotprompt`
rejects it). Each tag is a message; its content is dedented as Humanloop dedents it (every
character still points at its place in the file). `endpoint: complete` makes the body one
prompt. Placeholders are `{{ name }}`, rendered as Jinja2 in the sandbox; Humanloop files
declare no variables, so every free name is one.
"""

from __future__ import annotations

import re

from prefixlint.errors import PrefixlintError
from prefixlint.load.base import Loader
from prefixlint.load.front_matter import has_front_matter, python, split, trimmed
from prefixlint.load.template import Message, Template

FORMAT = "humanloop"
_TAG = re.compile(r"<(?P<role>system|user|assistant)>(?P<body>.*?)</(?P=role)>", re.S)
_KEYS = re.compile(r"^(provider|endpoint)\s*:", re.MULTILINE)
HINT = "a Humanloop .prompt file has front matter with `provider`/`endpoint` and `<system>` / `<user>` tags"


def sniff(text: str) -> bool:
    if not has_front_matter(text):
        return False
    end = text.find("\n---", 3)
    return bool(_KEYS.search(text[:end]) or re.search(r"^\s*<(system|user|assistant)>", text[end:], re.MULTILINE))


def _dedented(role: str | None, text: str, start: int, end: int) -> Message | None:
    """text[start:end] without blank lines around it and without the lines' common indentation."""
    message = trimmed(role, text, start, end)
    if message is None:
        return None
    first_line = text.rfind("\n", 0, message.start) + 1
    lines = text[first_line : message.start + len(message.content)].split("\n")
    indent = min((len(line) - len(line.lstrip(" \t")) for line in lines if line.strip()), default=0)
    content: list[str] = []
    offsets: list[int] = []
    position = first_line
    for number, line in enumerate(lines):
        cut = min(indent, len(line) - len(line.lstrip(" \t")))
        content.append(line[cut:])
        offsets.extend(range(position + cut, position + len(line)))
        if number < len(lines) - 1:
            content.append("\n")
            offsets.append(position + len(line))
        position += len(line) + 1
    return Message(role, "".join(content), tuple(offsets), offsets[0])


def load(path: str, text: str) -> Template:
    root, body = split(text, path, "Humanloop")
    front = python(root, path) or {}
    is_chat = str(front.get("endpoint", "chat")).lower() != "complete"
    if is_chat:
        messages = [m for m in (_dedented(match.group("role"), text, match.start("body"), match.end("body"))
                                for match in _TAG.finditer(text, body)) if m is not None]
        if not messages and text[body:].strip():
            raise PrefixlintError("a Humanloop chat prompt holds <system>, <user> or <assistant> tags", path=path,
                                  line=text.count("\n", 0, body) + 1)
    else:
        single = _dedented(None, text, body, len(text))
        messages = [single] if single else []
    if not messages:
        raise PrefixlintError("the Humanloop prompt is empty", path=path, line=text.count("\n", 0, body) + 1)
    model = front.get("model")
    return Template(path=path, format=FORMAT, source=text, messages=tuple(messages), syntax="jinja", is_chat=is_chat,
                    model=str(model) if model else None)


LOADER = Loader(FORMAT, sniff, load, hint=HINT)
