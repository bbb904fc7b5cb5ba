"""Which turn a prompt a function returns is sent as, by the code that calls the function
(issue 19 item 4): `{"role": "user", "content": build_prompt(...)}`, `prompt = build_prompt(...)`
then `{"role": "user", "content": prompt}` or `HumanMessage(prompt)`, or `ask(client, prompt)`
where `ask` puts that parameter in such a message. Read in the function's module and the modules
beside it that mention its name (`python_modules`); the first turn found is the answer."""

from __future__ import annotations

import ast

from prefixlint.load.python_walk import dotted, walked

_MESSAGE_CLASSES = {"HumanMessage": "user", "SystemMessage": "system"}
_ROLES = {"user": "user", "human": "user", "system": "system", "developer": "system"}


def sent_as(path: str | None, tree: ast.Module, function: str) -> str | None:
    """"user" / "system" when a call of `function` reaches a message of that role, else None."""
    role = _in_module(tree, function)
    if role is None and path is not None:
        from prefixlint.load.python_modules import beside

        for other in beside(path, function):
            role = _in_module(other, function)
            if role is not None:
                break
    return role


def _in_module(tree: ast.Module, function: str) -> str | None:
    parents, defs, calls = _index(tree)
    for call in calls.get(function, ()):
        role = _carried(call, parents, defs, 0)
        if role is not None:
            return role
    return None


def _index(tree: ast.Module) -> tuple[dict, dict, dict[str, list[ast.Call]]]:
    """A module's parent links, first function of each name and calls by the last part of their
    name, built once per tree (kept on it, as `walked` is): a module of n prompt functions asks
    once for each (was n walks)."""
    found = getattr(tree, "_prefixlint_turns", None)
    if found is None:
        nodes, parents = walked(tree)
        defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        calls: dict[str, list[ast.Call]] = {}
        for node in nodes:  # breadth first: the calls in the order they were searched before
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs.setdefault(node.name, node)
            elif isinstance(node, ast.Call):
                calls.setdefault(dotted(node.func).rsplit(".", 1)[-1], []).append(node)
        found = tree._prefixlint_turns = (parents, defs, calls)  # type: ignore[attr-defined]
    return found


def _carried(value: ast.expr, parents: dict, defs: dict, depth: int) -> str | None:
    """The role of the message `value` ends up in: directly, through the name it is assigned to
    in its function, or through the parameter of a module function it is passed to."""
    role = _message_role(value, parents)
    if role is not None or depth > 2:
        return role
    parent = parents.get(id(value))
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        scope: ast.AST | None = parent
        while scope is not None and not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            scope = parents.get(id(scope))
        target = parent.targets[0]
        for use in (n for n in ast.walk(scope or parent) if isinstance(n, ast.Name) and n.id == target.id and n is not target):
            role = _carried(use, parents, defs, depth + 1)
            if role is not None:
                return role
    if isinstance(parent, ast.Call) and value in parent.args:
        called = defs.get(dotted(parent.func).rsplit(".", 1)[-1])
        if called is not None:
            index = parent.args.index(value)
            params = [a.arg for a in called.args.posonlyargs + called.args.args]
            shift = 1 if params[:1] in (["self"], ["cls"]) and isinstance(parent.func, ast.Attribute) else 0
            if index + shift < len(params):
                param = params[index + shift]
                for use in (n for n in ast.walk(called) if isinstance(n, ast.Name) and n.id == param):
                    role = _carried(use, parents, defs, depth + 1)
                    if role is not None:
                        return role
    return None


def _message_role(value: ast.expr, parents: dict) -> str | None:
    """The role of the message whose content `value` is: `{"role": "user", "content": value}`,
    `HumanMessage(value)` / `HumanMessage(content=value)`."""
    parent = parents.get(id(value))
    if isinstance(parent, ast.keyword):
        parent = parents.get(id(parent)) if parent.arg == "content" else None
    if isinstance(parent, ast.Call):
        return _MESSAGE_CLASSES.get(dotted(parent.func).rsplit(".", 1)[-1])
    if isinstance(parent, ast.Dict):
        entries = {k.value: v for k, v in zip(parent.keys, parent.values) if isinstance(k, ast.Constant)}
        role = entries.get("role")
        if entries.get("content") is value and isinstance(role, ast.Constant) and isinstance(role.value, str):
            return _ROLES.get(role.value)
    return None
