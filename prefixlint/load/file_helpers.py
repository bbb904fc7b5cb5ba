"""A prompt file named by its stem through a helper of the repository that builds the file's name
(issue 19 item 5): `load_prompt("CHAT", locale=getenv("LOCALE"), current_time=datetime.now())`
after

    async def load_prompt(name, **kwargs):
        return (await get_prompt(name)).format(**kwargs)      # the keywords reach the fill

    async def get_prompt(name):
        async with aiofiles.open(HERE / f"{name.upper()}.md") as f: ...   # the name, built

A helper is a module-level function of a module that writes the file's suffix after a
formatted value (`f"{name}.md"`, `name + ".md"`) and that passes its `**kwargs` to a fill call
(`.format`, `.render`); each call of it in the repository whose first argument is the file's
stem (in any case, as `.upper()`/`.lower()` make it) fills the file with its keywords.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

from prefixlint.load.template import Variable


def stem_fills(target: Path, root: Path) -> dict[str, Variable]:
    """The keywords of the first call of a name-building helper that names `target` by its stem."""
    from prefixlint.load.file_fills import _keywords, scope_of
    from prefixlint.load.python_modules import module_resolver

    for module, call in stem_calls(target, root):
        resolver = module_resolver(module)
        same = at_position(resolver.tree, call)
        found = _keywords(resolver, scope_of(resolver.tree, same.lineno), same, module.relative_to(root).as_posix()) \
            if same is not None and same.keywords else {}
        if found:
            return found
    return {}


def stem_calls(target: Path, root: Path) -> list[tuple[Path, ast.Call]]:
    """(module, call) for each call of a name-building helper whose first argument is `target`'s
    stem, in the modules of the repository (the call a node of `module_tree(module)`)."""
    stem = target.stem.lower()
    return [(module, call) for module, call in _helper_calls(root, target.suffix.lower()) if call.args
            and isinstance(first := call.args[0], ast.Constant) and isinstance(first.value, str)
            and first.value.lower() == stem]


@lru_cache(maxsize=16)
def _helper_calls(root: Path, suffix: str) -> tuple[tuple[Path, ast.Call], ...]:
    """(module, call) for each call in the repository of a helper that builds names ending in
    `suffix` (`_helpers`): found once per repository, for every prompt file asking."""
    from prefixlint.load.python_callers import repository_calls
    from prefixlint.load.python_index import module_tree
    from prefixlint.load.python_walk import dotted

    found = []
    for helper in _helpers(root, suffix):
        for module in repository_calls(root).get(helper, ()):
            tree = module_tree(module)
            found += [(module, n) for n in (ast.walk(tree) if tree is not None else ())
                      if isinstance(n, ast.Call) and dotted(n.func).rsplit(".", 1)[-1] == helper]
    return tuple(found)


def at_position(tree: ast.Module, call: ast.Call) -> ast.Call | None:
    """The call of `tree` at the place of `call` (a node of another parse of the same module)."""
    return next((n for n in ast.walk(tree) if isinstance(n, ast.Call)
                 and (n.lineno, n.col_offset) == (call.lineno, call.col_offset)), None)


@lru_cache(maxsize=16)
def _helpers(root: Path, suffix: str) -> tuple[str, ...]:
    """The names of the functions that forward `**kwargs` to a fill, in the repository's modules
    that build a file name ending in `suffix` from a formatted value."""
    from prefixlint.load.file_fills import spreads_into_fill
    from prefixlint.load.python_index import module_source, module_tree, repository_modules

    if not suffix:
        return ()
    built = re.compile(r"\}" + re.escape(suffix) + r"[\"']|\+\s*[\"']" + re.escape(suffix) + r"[\"']", re.IGNORECASE)
    names: list[str] = []
    for module in repository_modules(root):
        text = module_source(module)
        tree = module_tree(module) if text is not None and built.search(text) else None
        names += [node.name for node in (tree.body if tree is not None else ())
                  if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and spreads_into_fill(node)]
    return tuple(dict.fromkeys(names))


def named_stems(root: Path, suffix: str) -> dict[str, str] | None:
    """Each stem (lower case) the calls of the repository's name-building helpers pass -> the
    module passing it (the first); None when there is no helper, or a call passes anything but a
    string literal first (then the names the code opens are not all written)."""
    stems: dict[str, str] = {}
    for module, call in _helper_calls(root, suffix.lower()):
        first = call.args[0] if call.args else None
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            return None
        stems.setdefault(first.value.lower(), module.relative_to(root).as_posix())
    return stems or None
