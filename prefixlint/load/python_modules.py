"""Names followed across the modules of a repository (issue 19 item 4): a prompt constant of
one module filled in another (`prompts.SYSTEM.format(date=...)` in agent.py after `import
prompts`), and the modules that mention a prompt (`beside`: how the code sends it).

A small bounded resolver over the modules' own ASTs (jedi and astroid infer far more, at a cost
per name that grows with the repository), on the modules `python_index` reads once per process:
each parsed only when it holds a fill call (or mentions the name asked for). A call counts only
when its module imports the name from the prompt's module, or imports that module and calls
`module.NAME.format(...)`.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from pathlib import Path
from typing import Any

from prefixlint.load.python_index import (
    mentioning,
    module_bytes,
    module_place,
    module_source,
    module_tree,
    repository_modules,
    repository_root,
)

MAX_PACKAGE = 200  # modules of one package searched for another name of a prompt
FILL_METHODS = frozenset({"format", "render", "substitute", "safe_substitute"})
_HINT = re.compile(r"\.(?:format|render|substitute|safe_substitute|kickoff)\(")
#: `_HINT` on a module's bytes (ASCII: where it matches the UTF-8 text): most modules are never decoded.
_HINT_BYTES = re.compile(_HINT.pattern.encode("ascii"))


@dataclass(frozen=True)
class Fill:
    """A fill call of another module: its file (relative to the root), resolver and call."""

    where: str
    resolver: Any
    call: ast.Call

    def declared(self, node: ast.AST, name: str = "value"):
        """The variable an argument of this call declares, read in its module; its evidence names
        that file."""
        from prefixlint.load.template import Variable

        variable = self.resolver.declared(node, name)
        if variable is None or not variable.evidence or not variable.line:
            return variable
        return Variable(variable.name, variable.kind, variable.samples, None,
                        f"{variable.evidence} ({self.where}:{variable.line})")


def fill_elsewhere(path: str, name: str) -> Fill | None:
    """The first call in another module of the repository that fills `name` of the module at
    `path`, when that module imports it; None when there is none (or the path is not a file)."""
    place = module_place(path)
    if place is None:
        return None
    module, root = place
    for other, call in _calls(root).get(name, ()):
        if other != module and _imports(other, module, name, call):
            return Fill(other.relative_to(root).as_posix(), module_resolver(other), call)
    for alias, where in _aliases(root, module, name):  # `system_prompt: str = prompts.SYSTEM_PROMPT`
        for other, call in _calls(root).get(alias, ()):
            if other.parent == where.parent and other != module:  # `config.system_prompt.format(...)` beside it
                return Fill(other.relative_to(root).as_posix(), module_resolver(other), call)
    return None


def beside(path: str, name: str, package: bool = True) -> list[tuple[str, ast.Module]]:
    """(file name, tree) of at most MAX_PACKAGE other modules of the package of `path` that
    mention `name`; of the repository (not `package`) when `name` is prompt-like (`mentioning`)."""
    place = module_place(path)
    if place is None:
        return []
    module, root = place
    wide = None if package else mentioning(root).get(name)  # None: not a prompt-like name, its package then
    listed = [m for m in repository_modules(root) if m.parent == module.parent] if wide is None else wide
    found = (m for m in listed if m != module and name in (module_source(m) or ""))
    return [(m.name, tree) for m in islice(found, MAX_PACKAGE) if (tree := module_tree(m)) is not None]


@lru_cache(maxsize=512)
def _aliases(root: Path, module: Path, name: str) -> tuple[tuple[str, Path], ...]:
    """Other names `name` of `module` is bound to in the modules of its package that import it:
    a field or a variable (`system_prompt: str = prompts.SYSTEM_PROMPT`) or a keyword argument
    (`Config(system_prompt=SYSTEM_PROMPT)`), with the module that binds it."""
    found: list[tuple[str, Path]] = []
    for other in [m for m in repository_modules(root) if m.parent == module.parent][:MAX_PACKAGE]:
        text = module_source(other) if other != module else None
        tree = module_tree(other) if text is not None and name in text else None
        if tree is None or not imports_name(tree, import_name(module), name):
            continue
        for node in ast.walk(tree):
            pairs = [(k.arg, k.value) for k in node.keywords if k.arg] if isinstance(node, ast.Call) else \
                [(_target(node), node.value)] if isinstance(node, (ast.Assign, ast.AnnAssign)) else []
            for alias, value in pairs:
                read = value.id if isinstance(value, ast.Name) else value.attr if isinstance(value, ast.Attribute) else None
                if alias and read == name and alias != name:
                    found.append((alias, other))
    return tuple(found)


def _target(node: ast.Assign | ast.AnnAssign) -> str | None:
    target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else getattr(node, "target", None)
    return target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else None


def stem_imports(statements, stem: str) -> tuple[dict[str, str], set[str]]:
    """What import `statements` bind of the module `stem`: local name -> the name imported from it
    (`from pkg.stem import name as local`), and the names the module itself goes by (`import
    stem`, `from pkg import stem as s`, `import pkg.stem`: `pkg.stem`)."""
    names: dict[str, str] = {}
    modules: set[str] = set()
    for node in statements:
        if isinstance(node, ast.ImportFrom):
            source = (node.module or "").split(".")
            for alias in node.names:
                if source[-1:] == [stem]:
                    names[alias.asname or alias.name] = alias.name
                elif alias.name == stem:
                    modules.add(alias.asname or stem)
        elif isinstance(node, ast.Import):
            modules.update(alias.asname or alias.name for alias in node.names if alias.name.split(".")[-1] == stem)
    return names, modules


def imports_name(tree: ast.Module, stem: str, name: str | None) -> bool:
    """Whether a module imports `name` (any name: None) from the module `stem`, or that module."""
    names, modules = stem_imports(tree.body, stem)
    return bool(modules) or any(name in (None, original) for original in names.values())


@lru_cache(maxsize=8)
def _calls(root: Path) -> dict[str, list[tuple[Path, ast.Call]]]:
    """Fill calls `X.format(...)` (and render/substitute) of the repository, by X's last name."""
    found: dict[str, list[tuple[Path, ast.Call]]] = {}
    for path in repository_modules(root):
        tree = _tree(path)
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "kickoff":
                found.setdefault("(kickoff)", []).append((path, node))  # CrewAI runs (`kickoff_literals`)
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in FILL_METHODS and isinstance(node.func.value, (ast.Name, ast.Attribute))):
                receiver = node.func.value
                last = receiver.id if isinstance(receiver, ast.Name) else receiver.attr
                found.setdefault(last, []).append((path, node))
    return found


#: A quoted file name in a module (`"system.md"`, `'prompts/agent.j2'`): the name after the last `/`.
_FILE_NAME = re.compile(r"[\"']([^\"'\s]{0,200}?)([\w.-]+\.[A-Za-z]\w{0,9})[\"']")


def naming_modules(target: Path, filling: bool = True) -> list[tuple[Path, Path]]:
    """(module, root) for each module of `target`'s repository that has a fill call (any module:
    not `filling`) and names the file `target` in a string (`file_fills`: the code that reads
    and fills a prompt file)."""
    root = repository_root(target.parent)
    return [(module, root) for module in _named_files(root, filling).get(target.name, ())]


@lru_cache(maxsize=8)
def _named_files(root: Path, filling: bool) -> dict[str, list[Path]]:
    """File name -> the modules (with a fill call: `filling`) that name it in a string."""
    found: dict[str, list[Path]] = {}
    for module in repository_modules(root):
        text = module_source(module) if not filling or _fill_hinted(module) else None
        if text is None or filling and not _HINT.search(text):
            continue
        for name in dict.fromkeys(match.group(2) for match in _FILE_NAME.finditer(text)):
            found.setdefault(name, []).append(module)
    return found


def _fill_hinted(path: Path) -> bool:
    """Whether the module's bytes hold `_HINT` (False for a file `module_source` does not read)."""
    return _HINT_BYTES.search(module_bytes(path) or b"") is not None


@lru_cache(maxsize=256)
def _tree(path: Path) -> ast.Module | None:
    """The module's tree when it holds a fill call (else None: not parsed)."""
    text = module_source(path) if _fill_hinted(path) else None
    return module_tree(path) if text is not None and _HINT.search(text) else None


@lru_cache(maxsize=64)
def module_resolver(path: Path):
    """The module's `Resolver` (its whole tree), built once per module while cached."""
    from prefixlint.load.python_values import Resolver

    return Resolver(module_source(path) or "", module_tree(path) or ast.Module(body=[], type_ignores=[]), str(path))


def import_name(module: Path) -> str:
    """The name other modules import `module` by: its stem, a package's `__init__.py` its folder's."""
    return module.parent.name if module.name == "__init__.py" else module.stem


def _imports(other: Path, module: Path, name: str, call: ast.Call) -> bool:
    """Does `other` import `name` from `module` (`from pkg.prompts import NAME`), or `module`
    itself with the call reading `module.NAME` (`import prompts` / `from pkg import prompts`)?"""
    tree = _tree(other)
    stem = import_name(module)
    receiver = call.func.value  # type: ignore[attr-defined]
    through = receiver.value.id if isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) else None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.ImportFrom):
            source = (node.module or "").split(".")
            for alias in node.names:
                local = alias.asname or alias.name
                if source[-1:] == [stem] and alias.name == name and isinstance(receiver, ast.Name) and local == name:
                    return True
                if alias.name == stem and through == local:  # from pkg import prompts; prompts.NAME
                    return True
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[-1] == stem and through is not None and \
                        through == (alias.asname or alias.name.split(".")[0]) and (alias.asname or "." not in alias.name):
                    return True
    return False


def kickoff_literals(path: str) -> dict[str, tuple[str, str]] | None:
    """The inputs every `crew.kickoff(inputs={...})` of the crew of `path` (a CrewAI config
    file: the modules beside its `config/` folder and below) passes as a literal: name ->
    (value, "main.py:7"). A name some kickoff fills otherwise (a variable, a request field,
    inputs not written as a dict) is left out; None when the crew has no kickoff call."""
    try:
        root = Path(path).resolve().parent
    except (OSError, RuntimeError):
        return None
    root = root.parent if root.name == "config" else root
    found: dict[str, tuple[str, str]] = {}
    other: set[str] = set()
    calls = 0
    for module, call in _calls(root).get("(kickoff)", ()):
        calls += 1
        inputs: ast.AST | None = next((k.value for k in call.keywords if k.arg == "inputs"),
                                      call.args[0] if call.args else None)
        if isinstance(inputs, ast.Name):
            inputs = _bound_dict(module, inputs.id, call)
        if not isinstance(inputs, ast.Dict) or None in inputs.keys:
            return {}  # inputs built otherwise: no name is known to be a literal
        for key, value in zip(inputs.keys, inputs.values):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return {}
            if isinstance(value, ast.Constant) and isinstance(value.value, (str, int, float)):
                found.setdefault(key.value, (str(value.value), f"{module.relative_to(root).as_posix()}:{value.lineno}"))
            else:
                other.add(key.value)
    return {name: site for name, site in found.items() if name not in other} if calls else None


def _bound_dict(module: Path, name: str, call: ast.Call) -> ast.AST | None:
    """The value last bound to `name` before `call` in the scope the call reads it from
    (`inputs = {...}` in its function, else at module level; `python_scopes`)."""
    resolver = module_resolver(module)
    values = resolver.scopes.assigned(name, resolver.offset(call.lineno, call.col_offset), module=True)
    return next((value for value in reversed(values) if value.lineno <= call.lineno), None)
