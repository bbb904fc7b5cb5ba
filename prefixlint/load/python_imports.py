"""A prompt constant, or a value, imported from another module of the repository (issue 19 item 4).

`from config import SYSTEM_PROMPT` (`from .prompts import SYSTEM`, `from app import prompts` then
`prompts.SYSTEM`, `import settings` then `settings.MODEL`) and then `f"{SYSTEM_PROMPT}\\n..."`: the
text is the other module's module-level binding, read by that module's own `Resolver` (its `+`,
`.join()`, `dedent`, its own constants). The module is found as Python finds it: a relative import
from the importing module's package folder; an absolute one from the importing file's folder or a
folder above it inside the repository (a script's folder and a project's root are on `sys.path`);
`name.py`, else `name/__init__.py`. Each module at most `python_index.MAX_BYTES`, read again when
its text changes, parsed once per process while unchanged, through at most `MAX_HOPS` modules.

A module-level binding is evaluated once per process, at import: the text's own fields, and a
value that is not text (`MAX_TURNS = 5`, `settings = Settings()`), are the same on every request
(stable, their evidence naming the other module) unless that module rebinds the name in a
function (`global`). The imported text has no place in the checked file: each character is placed
at the name where it is used, so a finding points at the use and no fix edits the other module
(`source_prompts.foreign`, as `ts_imports` does for TypeScript).
"""

from __future__ import annotations

import ast
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from prefixlint.load.python_index import module_bytes, parse_module
from prefixlint.load.source_prompts import Text, foreign
from prefixlint.load.template import Variable

MAX_HOPS = 3
_resolvers: dict[str, tuple[bytes, Any]] = {}  # path -> (bytes, Resolver of that module)


def imported_text(resolver, node: ast.expr, depth: int, at: int | None = None) -> list | None:
    """The pieces of the text an imported name (or `module.NAME`) is bound to in its module,
    placed at the use (`at`, else the node's place); None when it is not a repository module's
    module-level text."""
    found = _binding(resolver, node)
    if found is None:
        return None
    other, value, where = found
    with _hop(other, resolver.hops):
        pieces = other.text(value, "plain", depth + 1)
    if pieces is None or not any(isinstance(p, Text) and p.chars.strip() for p in pieces):
        return None
    offset = resolver.offset(node.lineno, node.col_offset) if at is None else at
    return foreign(pieces, where, offset)


def imported_value(resolver, node: ast.expr, name: str) -> Variable | None:
    """A stable variable for a value imported from a repository module, where it is bound at
    module level and never rebound by a function: evaluated once per process."""
    found = _binding(resolver, node, exact=False)
    if found is None:
        return None
    other, value, where = found
    written = " ".join((ast.get_source_segment(other.source, value) or "a value").split())
    written = written if len(written) <= 40 else written[:37] + "..."
    return Variable(name, "stable", (written,), None,
                    f"{written}, imported from {where}:{value.lineno}, set once per process, at import")


def _binding(resolver, node: ast.expr, exact: bool = True):
    """(the other module's Resolver, the expression bound there, its file name) for an imported
    name or `module.NAME`; not `exact`: also for `obj.attr` of an imported object (its value)."""
    if not resolver.path or resolver.hops >= MAX_HOPS:
        return None
    chain: list[str] = []
    while isinstance(node, ast.Attribute):
        chain.insert(0, node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or not resolver.scopes.module_reads(
            node.id, resolver.offset(node.lineno, node.col_offset)):
        return None
    return _follow(resolver, node.id, chain, exact)


def _follow(resolver, name: str, chain: list[str], exact: bool):
    source = _imports(resolver).get(name)
    if source is None:
        return None
    module, level, original = source
    folder = os.path.dirname(os.path.abspath(resolver.path))
    if original is not None:  # `from module import original`: a name bound there, or a submodule
        loaded = _load(folder, module, level)
        if loaded is not None and (found := _at(loaded[0], original, loaded[1], resolver.hops)):
            return found if not chain or not exact else None
        module = f"{module}.{original}" if module else original
    loaded = _load(folder, module, level)
    if loaded is None or not chain or (exact and len(chain) != 1):
        return None
    return _at(loaded[0], chain[0], loaded[1], resolver.hops)


def _load(folder: str, module: str, level: int):
    """(the Resolver, the file) of the repository's module `module`, or None."""
    target = _module(folder, module, level)
    other = _other(target) if target is not None else None
    return (other, target) if other is not None else None


def _at(other, name: str, target: str, hops: int):
    """The binding of `name` at the top level of the module `other`, or where it imports it from."""
    value = other.scopes.module_constants().get(name)
    if value is not None:
        return other, value, os.path.basename(target)
    if name not in _imports(other) or hops + 1 >= MAX_HOPS:
        return None
    with _hop(other, hops):  # a package's `__init__.py` re-exporting `from .prompts import SYSTEM`
        return _follow(other, name, [], True)


@contextmanager
def _hop(other, hops: int):
    """`other` read one module further than `hops` (its own count restored after: a module
    can be on the way twice)."""
    previous, other.hops = other.hops, hops + 1
    try:
        yield
    finally:
        other.hops = previous


def _imports(resolver) -> dict[str, tuple[str, int, str | None]]:
    """The module's top-level imports: local name -> (module, level, name imported or None)."""
    known = getattr(resolver, "_imported", None)
    if known is not None:
        return known
    found: dict[str, tuple[str, int, str | None]] = {}
    for statement in _top_level(resolver.tree.body):
        if isinstance(statement, ast.ImportFrom):
            for alias in statement.names:
                if alias.name != "*":
                    found[alias.asname or alias.name] = (statement.module or "", statement.level, alias.name)
        elif isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname or "." not in alias.name:
                    found[alias.asname or alias.name] = (alias.name, 0, None)
    resolver._imported = found
    return found


def _top_level(body: list[ast.stmt]):
    for statement in body:
        yield statement
        if isinstance(statement, ast.Try):  # `try: from .config import X` / `except ImportError:`
            yield from _top_level(statement.body)


def _module(folder: str, dotted: str, level: int) -> str | None:
    """The file of module `dotted` imported from a module in `folder` (relative at `level`)."""
    from prefixlint.limits import directory_root, inside_root

    if not dotted:
        return None
    root = directory_root(folder)
    parts = dotted.split(".")
    if level:
        base = Path(folder).joinpath(*[".."] * (level - 1)).resolve()
        bases = [base]
    else:
        here = Path(folder)
        bases = [here, *[p for p in here.parents if inside_root(p, root)]]
    for base in bases[:12]:
        stem = base.joinpath(*parts)
        for candidate in (stem.with_name(stem.name + ".py"), stem / "__init__.py"):
            if candidate.is_file() and inside_root(candidate, root):
                return str(candidate)
        if not inside_root(base, root) or str(base) == root:
            break
    return None


def _other(target: str):
    """The Resolver of the module at `target`, read again when its bytes change."""
    from prefixlint.load.python_values import Resolver

    data = module_bytes(Path(target))
    if data is None:
        return None
    known = _resolvers.get(target)
    if known is not None and known[0] == data:
        return known[1]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    tree = parse_module(text)
    if tree is None:
        return None
    other = Resolver(text, tree, target)
    if len(_resolvers) > 256:
        _resolvers.clear()
    _resolvers[target] = (data, other)
    return other
