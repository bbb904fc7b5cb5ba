"""Read JSON for the loaders with node positions: validated by `json`, positioned by PyYAML.

JSON is (in practice) YAML, so PyYAML's composer gives the same node tree with start/end
marks into the file, which `template.align` maps character by character. Two differences are
handled: a JSON syntax error is reported by the `json` module (line and column of the real
problem), and tabs between tokens (legal in JSON, not in YAML) are read as spaces; a tab
inside a JSON string is invalid JSON anyway, so every offset stays the same.
"""

from __future__ import annotations

import json
from typing import Any

from prefixlint.errors import PrefixlintError
from prefixlint.limits import loads_json
from prefixlint.load.yaml_source import compose


def load_json(text: str, path: str | None, what: str = "malformed JSON") -> Any:
    """`json.loads(text)` within the bounds of `limits.loads_json` (integers of at most
    MAX_INT_DIGITS digits, no NaN/Infinity, nesting no deeper than the interpreter allows), a
    syntax error as one diagnostic at its line and column, the message starting with `what`."""
    try:
        return loads_json(text, path)
    except json.JSONDecodeError as exc:
        raise PrefixlintError(f"{what}: {exc.msg}", path=path, line=exc.lineno, column=exc.colno) from None


def compose_json(text: str, path: str):
    """The root node of a JSON document (PyYAML node, marks into `text`)."""
    load_json(text, path)
    return compose(text.replace("\t", " "), path)


def looks_like_json(text: str) -> bool:
    return text.lstrip()[:1] in ("{", "[")


_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def string_offsets(raw: str, quote: int) -> tuple[int, ...]:
    """File offset of each character of the JSON string whose opening quote is at raw[quote].

    Exact, escape by escape: `\\n` is one character at its backslash, `\\uXXXX` one at its
    backslash (a surrogate pair, one character at the first backslash).
    """
    offsets: list[int] = []
    p = quote + 1
    while p < len(raw) and raw[p] != '"':
        if raw[p] != "\\":
            offsets.append(p)
            p += 1
            continue
        offsets.append(p)
        if raw[p + 1 : p + 2] == "u":
            code = int(raw[p + 2 : p + 6], 16)
            p += 6
            if 0xD800 <= code < 0xDC00 and raw[p : p + 2] == "\\u":
                p += 6  # the low surrogate: the pair is one character
        else:
            p += 2
    return tuple(offsets)


def node_offsets(node, raw: str) -> tuple[int, ...]:
    """Offsets for a scalar node of a JSON document: exact for strings, the node's start otherwise."""
    start = node.start_mark.index
    if raw[start : start + 1] == '"':
        offsets = string_offsets(raw, start)
        if len(offsets) == len(node.value):
            return offsets
    from prefixlint.load.template import align

    return align(node.value, raw, start, node.end_mark.index)
