"""Shared pieces of the front-matter formats (Prompty, Dotprompt, Humanloop).

`split(text, path)` reads the YAML front matter between a first line `---` and the next `---`
line (with node positions into the file, through `yaml_source.compose`) and returns where the
body starts. `trimmed(...)` is a message of the body without the blank space around it, each
character at its file offset.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from prefixlint.errors import PrefixlintError
from prefixlint.load.template import Message, Variable, identity_message, strip_span
from prefixlint.load.yaml_source import compose, line_of, to_python

_FENCE = re.compile(r"^---[ \t]*\r?$", re.MULTILINE)


def has_front_matter(text: str) -> bool:
    return text.startswith("---") and _FENCE.match(text) is not None and _FENCE.search(text, 3) is not None


def split(text: str, path: str, fmt: str):
    """(front matter root node or None, body offset). The opening `---` is a YAML document start."""
    if not _FENCE.match(text):
        raise PrefixlintError(f"a {fmt} file starts with YAML front matter between `---` lines", path=path, line=1)
    closing = _FENCE.search(text, 3)
    if closing is None:
        raise PrefixlintError(f"the {fmt} front matter has no closing `---` line", path=path, line=1)
    root = compose(text[: closing.start()], path)
    if root is not None and root.id != "mapping":
        raise PrefixlintError(f"the {fmt} front matter must be a YAML mapping", path=path, line=line_of(root))
    body = closing.end() + (1 if text[closing.end() : closing.end() + 1] == "\n" else 0)
    return root, body


def trimmed(role: str | None, text: str, start: int, end: int) -> Message | None:
    """The message text[start:end] without the blank space around it (None when blank)."""
    start, end = strip_span(text, start, end)
    if start == end:
        return None
    return identity_message(role, text[start:end], start)


def variable(name: str, samples: Iterable[Any] = (), line: int | None = None, slot: bool = False) -> Variable:
    return Variable(name, "conversation" if slot else None, () if slot else tuple(samples), line)


def python(node, path: str) -> Any:
    return to_python(node, path) if node is not None else None
