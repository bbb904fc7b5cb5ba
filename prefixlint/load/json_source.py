"""Read JSON for the loaders with node positions: validated by `json`, positioned by PyYAML.

JSON is (in practice) YAML, so PyYAML's composer gives the same node tree with start/end
marks into the file, which `template.align` maps character by character. Two differences are
handled: a JSON syntax error is reported by the `json` module (line and column of the real
problem), and tabs between tokens (legal in JSON, not in YAML) are read as spaces; a tab
inside a JSON string is invalid JSON anyway, so every offset stays the same.
"""

from __future__ import annotations

import json

from prefixlint.errors import PrefixlintError
from prefixlint.load.yaml_source import compose


def compose_json(text: str, path: str):
    """The root node of a JSON document (PyYAML node, marks into `text`)."""
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise PrefixlintError(f"malformed JSON: {exc.msg}", path=path, line=exc.lineno, column=exc.colno) from None
    except RecursionError:
        raise PrefixlintError("JSON nests too deeply", path=path, line=1) from None
    return compose(text.replace("\t", " "), path)


def looks_like_json(text: str) -> bool:
    return text.lstrip()[:1] in ("{", "[")
