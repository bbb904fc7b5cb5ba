"""What fills a prompt file's placeholders, read in the code that reads the file (issue 19 item 5).

A Markdown, text or Jinja prompt file is filled by the program that opens it:
`open(os.path.join(here, "system.md")).read().format(date=...)`, `Template(path.read_text())
.render(user=...)`, `env.get_template("agent.j2").render(...)`. The Python modules of the
repository that name the file in a string (`python_modules`' bounded index of modules with a
fill call) are read; in the function that names it (else at module level), the fill call's
keyword arguments are classified as the Python loader classifies a `.format()` argument
(`Resolver.declared`): clock, UUID and random calls with their frequency, settings, the
environment and literals stable. A fill that runs only at import (at module level, or in a
function whose only calls are at module level: `SYSTEM_PROMPT = load_system_prompt()`) runs
once per process: its clock values are the same on every request (info at most). A placeholder
no fill site names keeps the name classifier.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from pathlib import Path
from typing import TypeGuard

from prefixlint.load.template import Variable

FILL_METHODS = frozenset({"format", "render", "substitute", "safe_substitute"})


def file_variables(path: str, text: str = "") -> dict[str, Variable]:
    """name -> Variable for the placeholders the code that reads `path` fills, with evidence:
    its fill call, else the `.replace("{{NAME}}", value)` calls that name a placeholder of
    `text` as it is written (`replaced_placeholders`)."""
    from prefixlint.load.python_modules import naming_modules

    try:
        target = Path(path).resolve()
    except (OSError, RuntimeError):
        return {}
    filling = naming_modules(target)
    for module, root in filling:
        found = _fills_in(module, root, target.name)
        if found:
            return found
    for module, root in naming_modules(target, filling=False):  # loaded into a name, filled elsewhere
        found = _rendered_elsewhere(module, root, target.name) if (module, root) not in filling else {}
        found = found or _forwarded(module, root, target.name)
        if found:
            return found
    from prefixlint.load.file_helpers import stem_fills
    from prefixlint.load.python_index import repository_root
    from prefixlint.load.python_replaces import replaced_placeholders

    found = stem_fills(target, repository_root(target.parent))  # `load_prompt("CHAT", ...)` for CHAT.md
    return found or (replaced_placeholders(target, text) if text else {})


def names_file(node: ast.AST, name: str) -> TypeGuard[ast.Constant]:
    """Whether `node` is a string constant naming the file `name` (`"system.j2"`,
    `"prompts/system.j2"`)."""
    return isinstance(node, ast.Constant) and isinstance(node.value, str) \
        and node.value.replace("\\", "/").rsplit("/", 1)[-1] == name


def _fills_in(module: Path, root: Path, name: str) -> dict[str, Variable]:
    from prefixlint.load.python_modules import module_resolver

    resolver = module_resolver(module)
    tree = resolver.tree
    for constant in ast.walk(tree):
        if not names_file(constant, name):
            continue
        scope = scope_of(tree, constant.lineno)
        call = _fill_call(scope, constant.lineno)
        if call is not None:
            return _keywords(resolver, scope, call, module.relative_to(root).as_posix())
    return {}


def _forwarded(module: Path, root: Path, name: str) -> dict[str, Variable]:
    """The keywords of a call that passes the file's name to a function of the repository which
    forwards its keywords to a fill (`render("user_turn.j2", url=...)` after `def render(name,
    **context): return env.get_template(name).render(**context)`)."""
    from prefixlint.load.python_modules import module_resolver
    from prefixlint.load.python_walk import dotted, walked

    resolver = module_resolver(module)
    nodes, parents = walked(resolver.tree)
    for constant in nodes:
        call = parents.get(id(constant))
        if names_file(constant, name) and isinstance(call, ast.Call) and constant in call.args and call.keywords \
                and _forwards_to_fill(resolver.tree, module, root, dotted(call.func)):
            return _keywords(resolver, scope_of(resolver.tree, call.lineno), call, module.relative_to(root).as_posix())
    return {}


def _forwards_to_fill(tree: ast.Module, module: Path, root: Path, called: str) -> bool:
    """Whether the function `called` (`render`, `PromptManager.render`), defined in `module` or in
    the module of the repository it (or its class) is imported from (`from pkg.prompts import
    render`), takes `**kwargs` and passes them to a fill call."""
    from prefixlint.load.python_index import module_tree

    function, imported = called.rsplit(".", 1)[-1], called.split(".")[0]
    trees = [tree]
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and any((a.asname or a.name) == imported for a in node.names):
            parts = node.module.split(".")
            base = module.parent
            for _ in range(max(node.level - 1, 0)):
                base = base.parent
            paths = [base.joinpath(*parts).with_suffix(".py")] if node.level else _under(root, parts)
            trees.extend(t for p in paths if p.is_file() and (t := module_tree(p)) is not None)
    return any(isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef)) and found.name == function
               and spreads_into_fill(found) for searched in trees for found in ast.walk(searched))


def spreads_into_fill(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether `function` takes `**kwargs` and passes them to a fill call (`.format(**kwargs)`)."""
    if not function.args.kwarg:
        return False
    spread = function.args.kwarg.arg
    return any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr in FILL_METHODS
               and any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == spread for k in c.keywords)
               for c in ast.walk(function))


def _under(root: Path, parts: list[str]) -> list[Path]:
    """The modules `a/b/c.py` of the repository for an absolute import `a.b.c` (under any folder)."""
    from prefixlint.load.python_index import repository_modules

    tail = "/".join(parts) + ".py"
    return [m for m in repository_modules(root) if m.as_posix().endswith("/" + tail)][:2]


def _keywords(resolver, scope: ast.AST, call: ast.Call, where: str) -> dict[str, Variable]:
    """The variable of each keyword a fill call passes, placed in its module (`where`)."""
    out: dict[str, Variable] = {}
    pairs = [(keyword.arg, keyword.value) for keyword in call.keywords if keyword.arg is not None]
    for keyword in call.keywords:
        if keyword.arg is None:  # `render(**values)`: the keys of the dict written for it
            pairs += _spread(resolver, keyword.value)
    for name, value in pairs:
        variable = fill_value(resolver, value, scope, where)
        if variable is not None:
            out.setdefault(name, variable)
    return out


def _spread(resolver, value: ast.expr) -> list[tuple[str, ast.expr]]:
    """(key, value) of the dict a `**` argument spreads: a dict display, or the one dict display
    its local name is assigned in the function (`vars_ = {"battery_soc_pct": ...}`); its own
    spreads (`**context.model_dump()`) and computed keys say nothing."""
    if isinstance(value, ast.Name):
        assigned = resolver.scopes.assigned(value.id, resolver.offset(value.lineno, value.col_offset))
        value = assigned[0] if len(assigned) == 1 else value
    if not isinstance(value, ast.Dict):
        return []
    return [(key.value, item) for key, item in zip(value.keys, value.values)
            if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.isidentifier()]


def fill_value(resolver, value: ast.expr, scope: ast.AST, where: str) -> Variable | None:
    """The variable of a value a fill passes (`Resolver.declared`), placed in its module
    (`where`): once per process when its `scope` runs only at import."""
    variable = resolver.declared(value)
    if variable is None:
        return None
    tree = resolver.tree
    once = scope is tree or (isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef))
                             and only_at_import(resolver, tree, scope.name))
    return placed(variable, where, once)


def _rendered_elsewhere(module: Path, root: Path, name: str) -> dict[str, Variable]:
    """The keywords of the fill call another module makes on the module-level name the file
    `name` is loaded into (`conversation_prompt = _Template("conversation.j2")`, then
    `conversation_prompt.render(...)` where it is imported: `python_modules.fill_elsewhere`)."""
    from prefixlint.load.python_index import mentioning, module_source, module_tree
    from prefixlint.load.python_modules import fill_elsewhere

    if not re.search(r"^(\w+)\s*=.*[\"'/]" + re.escape(name) + r"[\"']", module_source(module) or "", re.M):
        return {}  # no module-level `NAME = ...("file")` line: nothing to follow (most modules naming it)
    for statement in (module_tree(module) or ast.Module(body=[], type_ignores=[])).body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name) \
                and any(names_file(n, name) for n in ast.walk(statement.value)):
            bound = statement.targets[0].id
            filled = re.compile(re.escape(bound) + r"\.(?:render|format|substitute|safe_substitute)\(")
            if not any(filled.search(module_source(other) or "") for other in mentioning(root).get(bound, ())):
                return {}  # a name no module fills (or not named like a prompt): nothing to follow
            found = fill_elsewhere(str(module), bound)
            if found is not None and any(k.arg for k in found.call.keywords):
                return _keywords(found.resolver, scope_of(found.resolver.tree, found.call.lineno), found.call, found.where)
    return {}


def placed(variable: Variable, where: str, once: bool) -> Variable:
    evidence = f"{variable.evidence} ({where}:{variable.line})" if variable.evidence and variable.line \
        else variable.evidence or f"filled in {where}"
    if once and variable.kind not in (None, "stable"):
        return Variable(variable.name, "stable", variable.samples[:1], None,
                        f"{evidence.split(' (')[0]} once per process, at import ({where})")
    return replace(variable, line=None, evidence=evidence)


def scope_of(tree: ast.Module, line: int) -> ast.AST:
    """The innermost function holding `line`, else the module."""
    best: ast.AST = tree
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                node.lineno <= line <= (node.end_lineno or node.lineno):
            if best is tree or node.lineno >= best.lineno:  # type: ignore[attr-defined]
                best = node
    return best


def _fill_call(scope: ast.AST, line: int) -> ast.Call | None:
    """The first fill call (`.format(...)`, `.render(...)`) with keywords at or after `line` in `scope`."""
    calls = [node for node in ast.walk(scope) if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
             and node.func.attr in FILL_METHODS and node.keywords and (node.end_lineno or node.lineno) >= line]
    return min(calls, key=lambda c: (c.lineno, c.col_offset), default=None)


def only_at_import(resolver, tree: ast.Module, function: str) -> bool:
    """Whether every call of `function` in its module is at module level (at import)."""
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name) and node.func.id == function]
    return bool(calls) and not any(resolver.in_function(call.lineno) for call in calls)
