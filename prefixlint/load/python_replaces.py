"""A prompt file's placeholders filled by `.replace()` in the repository's Python code (issue 19
item 5): `text.replace("{{DATE}}", today).replace("{{USER_NAME}}", user_name)` after the file
is read by a helper that never names it (`load_prompt("system")`).

The placeholder as the file writes it (`{{DATE}}`, `{date}`, `${date}`) is the evidence: a
`.replace()` call whose first argument is exactly that text fills it. The repository's modules
(`python_index`) are searched once per process for such calls (their bytes first, so only the
modules that have one are parsed); the value each call passes is classified as a `.format()`
argument is (`Resolver.declared`: clocks with their frequency, settings and the environment
stable, ...), once per process when the call runs only at import (`file_fills.placed`). Calls
that disagree (one fills the date from the clock, another from a setting) leave the name
classifier to decide, as does a placeholder no call names.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

from prefixlint.load.python_index import module_bytes, module_tree, repository_modules, repository_root
from prefixlint.load.template import Variable

#: `.replace("{{NAME}}", ...)` in a module's bytes: the modules worth parsing.
_REPLACE = re.compile(rb"""\.replace\(\s*["']((?:\{\{\s*\$?\w+\s*\}\}|\$\{\w+\}|\{\w+\}))["']""")
#: A placeholder as a file writes it, and its name: `{{ DATE }}`, `{{$date}}`, `${date}`, `{date}`.
_WRITTEN = re.compile(r"\{\{\s*\$?(\w+)\s*\}\}|\$\{(\w+)\}|(?<![{$])\{(\w+)\}(?!\})")


def replaced_placeholders(target: Path, text: str) -> dict[str, Variable]:
    """name -> Variable of each placeholder of `text` (the file `target`) that the code fills with
    `.replace(<the placeholder as written>, value)`, when every such call agrees on its kind."""
    root = repository_root(target.parent)
    replacing = _replacing(root)
    out: dict[str, Variable] = {}
    for match in _WRITTEN.finditer(text):
        written, name = match.group(0), next(g for g in match.groups() if g)
        if name in out or written not in replacing:
            continue
        found = [_classified(module, root, call) for module in replacing[written] for call in _calls(module, written)]
        kinds = {v.kind for v in found if v is not None}
        if found and None not in found and len(kinds) == 1:
            out[name] = Variable(name, found[0].kind, found[0].samples, None, found[0].evidence)  # type: ignore[union-attr]
    return out


@lru_cache(maxsize=8)
def _replacing(root: Path) -> dict[str, tuple[Path, ...]]:
    """Each placeholder text a `.replace()` call names -> the repository's modules holding such a
    call, by their bytes (parsed only when a file has that placeholder)."""
    found: dict[str, list[Path]] = {}
    for module in repository_modules(root):
        for written in set(_REPLACE.findall(module_bytes(module) or b"")):
            found.setdefault(written.decode("utf-8", "replace"), []).append(module)
    return {written: tuple(modules) for written, modules in found.items()}


def _calls(module: Path, written: str) -> list[ast.Call]:
    """The module's `.replace(written, value)` calls."""
    tree = module_tree(module)
    return [node for node in (ast.walk(tree) if tree is not None else ())
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "replace"
            and len(node.args) == 2 and isinstance(node.args[0], ast.Constant) and node.args[0].value == written]


def _classified(module: Path, root: Path, call: ast.Call) -> Variable | None:
    from prefixlint.load.file_fills import fill_value, scope_of
    from prefixlint.load.python_modules import module_resolver

    resolver = module_resolver(module)
    return fill_value(resolver, call.args[1], scope_of(resolver.tree, call.lineno), module.relative_to(root).as_posix())
