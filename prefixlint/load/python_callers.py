"""A function's callers in the other modules of the repository (issue 19 item 5): a prompt
built in `prompts.py` by `def system_prompt(today): ...` and called as `system_prompt(date.today())`
in `agent.py` after `from prompts import system_prompt` (or `prompts.system_prompt(...)` after
`import prompts` / `from pkg import prompts`) is filled by what that call passes.

Only a module-level function the other module imports is followed: a method is called through
objects no module names, and a `_private` function is its own module's business. Which modules
call a name is read once per repository from their bytes (`repository_calls`), so each prompt
function asks only the few modules that could call it, each parsed once (`python_index`).
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from prefixlint.load.python_index import module_bytes, module_place, module_tree, repository_modules
from prefixlint.load.python_walk import dotted

MAX_MODULES = 50  # modules whose calls of one function are read
#: An identifier followed by `(`, or imported under another name (`import f as g`): the names
#: a module may call, as bytes.
_CALLED = re.compile(rb"([A-Za-z_]\w*)(?:\s*\(|\s+as\s+[A-Za-z_])")


def callers_elsewhere(resolver, function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[Any, ast.Call, str]]:
    """(the other module's Resolver, the call, its file relative to the root) for each call of the
    module-level public `function` of `resolver`'s module in another module importing it."""
    from prefixlint.load.python_modules import import_name, module_resolver

    if function.name.startswith("_") or function not in resolver.tree.body or not resolver.path:
        return []
    place = module_place(resolver.path)
    if place is None:
        return []
    module, root = place
    stem = import_name(module)
    found: list[tuple[Any, ast.Call, str]] = []
    for other in [m for m in repository_calls(root).get(function.name, ()) if m != module][:MAX_MODULES]:
        tree = module_tree(other)
        callees = _callees(tree, stem, function.name) if tree is not None else set()
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and dotted(n.func) in callees] \
            if tree is not None and callees else []
        if calls:
            other_resolver = module_resolver(other)
            where = other.relative_to(root).as_posix()
            found += [(other_resolver, call, where) for call in calls]
    return found


def _callees(tree: ast.Module, stem: str, name: str) -> set[str]:
    """How the module calls `name` of the module `stem`: `name` (or its alias) after `from ...stem
    import name`, `stem.name` after `import stem` / `from pkg import stem` (or their aliases)."""
    from prefixlint.load.python_modules import stem_imports

    names, modules = stem_imports(ast.walk(tree), stem)
    return {local for local, original in names.items() if original == name} | {f"{m}.{name}" for m in modules}


@lru_cache(maxsize=8)
def repository_calls(root: Path) -> dict[str, tuple[Path, ...]]:
    """Each name the repository's modules call (or import under another name) -> those modules,
    read from their bytes once: a module that never writes `name(` is never parsed for its calls."""
    found: dict[str, list[Path]] = {}
    for module in repository_modules(root):
        for name in set(_CALLED.findall(module_bytes(module) or b"")):
            found.setdefault(name.decode("ascii"), []).append(module)
    return {name: tuple(modules) for name, modules in found.items()}


#: An argument a call passes through `*args` or `**kwargs`: which value it is is not written.
UNKNOWN = object()


def argument(function, parameter: str, call: ast.Call) -> ast.expr | object | None:
    """The expression `call` passes for `parameter` of `function`, None when it passes none (the
    default applies), UNKNOWN when it may pass it through `*args` or `**kwargs`."""
    keyword = next((k.value for k in call.keywords if k.arg == parameter), None)
    if keyword is not None:
        return keyword
    positional = [a.arg for a in function.args.posonlyargs + function.args.args]
    if parameter in positional:
        index = positional.index(parameter)
        shift = 1 if isinstance(call.func, ast.Attribute) and index > 0 and \
            function.args.args[:1] and function.args.args[0].arg in ("self", "cls") else 0
        starred = next((i for i, a in enumerate(call.args) if isinstance(a, ast.Starred)), None)
        if starred is not None and starred <= index - shift:
            return UNKNOWN
        if index - shift < len(call.args):
            return call.args[index - shift]
    if any(k.arg is None for k in call.keywords):
        return UNKNOWN
    return None


def default(function, parameter: str) -> ast.expr | None:
    """The default value `function` declares for `parameter`, or None."""
    args = function.args
    positional = args.posonlyargs + args.args
    names = [a.arg for a in positional]
    if parameter in names:
        index = names.index(parameter) - (len(positional) - len(args.defaults))
        return args.defaults[index] if index >= 0 else None
    keywords = [a.arg for a in args.kwonlyargs]
    return args.kw_defaults[keywords.index(parameter)] if parameter in keywords else None
