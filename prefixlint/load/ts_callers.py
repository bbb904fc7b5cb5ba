"""The calls of an exported TypeScript/JavaScript function in the modules beside it (issue 19 item 5).

A prompt-building function's parameter is often filled in another module:
`buildSystemPrompt(env.PERSON_NAME ?? "...")` in `index.ts`, the prompt in `prompt.ts`.
`calls_elsewhere` looks for them in a bounded neighbourhood: the files of the module's own
folder, of its parent folder and of its own subfolders (at most `MAX_FILES`, each at most
`MAX_BYTES`, inside the repository), keeping those that import the module by its name
(`from "./prompt"`, `require("../lib/prompt")`) and call the function. Each file is parsed
once per process.
"""

from __future__ import annotations

import os
import re
from typing import Any

from prefixlint.load.ts_grammar import SUFFIXES, parse

MAX_FILES = 60
MAX_BYTES = 256 * 1024
_SKIP = frozenset({"node_modules", ".git", "dist", "build", ".next", "coverage"})
_parsed: dict[str, Any] = {}
_found: dict[tuple[str, str], list] = {}


def neighbours(path: str) -> list[str]:
    """The TS/JS files near `path`, nearest first, bounded."""
    from prefixlint.limits import containing_root, inside_root

    here = os.path.dirname(os.path.abspath(path))
    root = containing_root(path)
    folders = [here]
    if os.path.dirname(here) != here and inside_root(os.path.dirname(here), root):
        folders.append(os.path.dirname(here))
    try:
        folders += sorted(os.path.join(here, d) for d in os.listdir(here)
                          if d not in _SKIP and os.path.isdir(os.path.join(here, d)))
    except OSError:
        pass
    found: list[str] = []
    for folder in folders:
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            candidate = os.path.join(folder, name)
            if name.lower().endswith(SUFFIXES) and not name.endswith(".d.ts") and candidate != os.path.abspath(path) \
                    and os.path.isfile(candidate) and inside_root(candidate, root):
                found.append(candidate)
            if len(found) >= MAX_FILES:
                return found
    return found


def calls_elsewhere(values, name: str) -> list:
    """(the other module's FillSites, a call of `name` there) for each call in a module nearby
    that imports `values.path`'s module; looked up once per module and name in a process."""
    if not values.path:
        return []
    key = (os.path.abspath(values.path), name)
    if key not in _found:
        _found[key] = _calls_elsewhere(values, name)
    return _found[key]


def _calls_elsewhere(values, name: str) -> list:
    from prefixlint.load.ts_fill_sites import FillSites, _calls

    stem = os.path.splitext(os.path.basename(values.path))[0]
    imports = re.compile(r"""(?:from|require\(|import\()\s*["'][^"']*/""" + re.escape(stem)
                         + r"""(?:\.[cm]?[jt]sx?)?["']""")
    out: list = []
    for other in neighbours(values.path):
        try:
            if os.path.getsize(other) > MAX_BYTES:
                continue
            with open(other, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except OSError:
            continue
        if name not in text or not imports.search(text):
            continue
        sites = _parsed.get(other)
        if sites is None or getattr(sites, "text", None) != text:
            sites = FillSites(text, other)
            sites.root = parse(other, text)
            for node in FillSites._walk(sites.root):
                if node.type == "variable_declarator":
                    named = node.child_by_field_name("name")
                    if named is not None and named.type == "identifier":
                        sites.declarators.setdefault(named.text.decode(), []).append(node)
            _parsed[other] = sites
        out += [(sites, call) for call in _calls(sites.root, name)]
    return out
