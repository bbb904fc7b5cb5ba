"""What the callers of a TypeScript/JavaScript function pass for a parameter (issue 19 item 5).

A prompt-building function's parameter is often filled in another module:
`buildSystemPrompt(env.PERSON_NAME ?? "...")` in `index.ts`, the prompt in `prompt.ts`.
`calls_elsewhere` looks for them in a bounded neighbourhood: the files of the module's own
folder, of its parent folder and of its own subfolders (at most `MAX_FILES`, each at most
`MAX_BYTES`, inside the repository), keeping those that import the module by its name
(`from "./prompt"`, `require("../lib/prompt")`) and call the function. Each file is parsed
once while its text is unchanged; the callers found are kept until a module nearby changes.
"""

from __future__ import annotations

import os
import re
from typing import Any

from prefixlint.errors import PrefixlintError
from prefixlint.load.prompt_evidence import GENERATED_DIRECTORIES
from prefixlint.load.template import Variable
from prefixlint.load.ts_grammar import SUFFIXES, parse
from prefixlint.load.ts_scopes import node_key

MAX_FILES = 60
MAX_BYTES = 256 * 1024
_parsed: dict[str, Any] = {}
_found: dict[tuple, list] = {}


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
                          if d not in GENERATED_DIRECTORIES and os.path.isdir(os.path.join(here, d)))
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
    nearby = neighbours(values.path)
    key = (os.path.abspath(values.path), name, tuple(_stamp(other) for other in nearby))
    if key not in _found:  # a module nearby that changed (an editor's buffer saved) is read again
        if len(_found) > 4096:
            _found.clear()
        _found[key] = _calls_elsewhere(values, name, nearby)
    return _found[key]


def _stamp(path: str) -> tuple:
    try:
        status = os.stat(path)
    except OSError:
        return (path, None)
    return (path, status.st_mtime_ns, status.st_size)


def _calls_elsewhere(values, name: str, nearby: list[str]) -> list:
    return [(sites, call) for sites in _importers(values.path, name, nearby) for call in _calls(sites.root, name)]


def importers(path: str, name: str) -> list:
    """(path, root) of each module nearby that imports the module at `path` and mentions `name`."""
    return [(sites.path, sites.root) for sites in _importers(path, name, neighbours(path))]


def _importers(path: str, name: str, nearby: list[str]) -> list:
    """The FillSites (with their `root`) of the modules in `nearby` that import `path`'s module
    and mention `name`, each parsed once while its text is unchanged."""
    from prefixlint.load.ts_fill_sites import FillSites

    stem = os.path.splitext(os.path.basename(path))[0]
    imports = re.compile(r"""(?:from|require\(|import\()\s*["'][^"']*/""" + re.escape(stem)
                         + r"""(?:\.[cm]?[jt]sx?)?["']""")
    out: list = []
    for other in nearby:
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
            try:
                sites.root = parse(other, text)
            except PrefixlintError:  # nested too deeply: that file's own diagnostic, not this one's
                continue
            if len(_parsed) > 1024:
                _parsed.clear()
            _parsed[other] = sites
        out.append(sites)
    return out


def from_callers(self, name, depth: int) -> Variable | None:
    """The variable of the parameter `name` by what every call of its function passes (`self`:
    the module's FillSites), in the module and in the modules beside it."""
    binding = self.binding(name)
    if binding is None or binding.kind != "parameter":
        return None
    function = binding.holder
    positions = [p is not None and node_key(p) == node_key(binding.node) for p in parameter_nodes(function)]
    index = positions.index(True) if True in positions else None
    called = _function_name(function)
    if called is None or index is None:
        return None
    found: list[Variable] = []
    here: list = [(self, call) for call in _calls(self.root, called)] if self.root is not None else []
    for values, call in here + calls_elsewhere(self, called):
        arguments = call.child_by_field_name("arguments")
        given = list(arguments.named_children) if arguments is not None else []
        if index >= len(given) or any(a.type == "spread_element" for a in given[: index + 1]):
            return None
        variable = values.argument(given[index], depth + 1)
        if variable is None:
            return None
        if values is not self:  # the evidence names the other module; its line is not this file's
            where = f"{values.path.rsplit('/', 1)[-1]}:{variable.line}"
            variable = Variable(variable.name, variable.kind, variable.samples, None,
                                f"{variable.evidence} ({where})")
        found.append(variable)
    volatile = [v for v in found if v.kind != "stable"]
    return (volatile or found)[0] if found else None


def parameter_nodes(function) -> list:
    """The identifier of each parameter of `function` in order (`x`, `x?: T`, `x = 1`); None for
    one destructured or gathered (`{ a, b }`, `...rest`): it is not one argument's value."""
    single = function.child_by_field_name("parameter")
    if single is not None:
        return [single if single.type == "identifier" else None]
    listed = function.child_by_field_name("parameters")
    return [_parameter_node(p) for p in listed.named_children] if listed is not None else []


def _parameter_node(node):
    if node.type in ("required_parameter", "optional_parameter"):
        node = node.child_by_field_name("pattern")
    elif node.type == "assignment_pattern":
        node = node.child_by_field_name("left")
    return node if node is not None and node.type == "identifier" else None


def _function_name(function) -> str | None:
    named = function.child_by_field_name("name")
    if named is not None:
        return named.text.decode()
    holder = function.parent
    if holder is not None and holder.type == "variable_declarator":
        named = holder.child_by_field_name("name")
        return named.text.decode() if named is not None and named.type == "identifier" else None
    return None


def _calls(root, name: str) -> list:
    """The calls `name(...)` and `x.name(...)` under `root`."""
    out = []
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.children))
        if node.type == "call_expression":
            callee = node.child_by_field_name("function")
            if callee is not None and callee.type == "member_expression":
                callee = callee.child_by_field_name("property")
            if callee is not None and callee.text.decode() == name:
                out.append(node)
    return out
