"""A list of prompt sections a Python function builds, then joins (issue 19 item 4).

    parts = [BASE_IDENTITY, RULES]
    if assessment.emotions:
        parts.append(f"Affect: {', '.join(assessment.emotions)}.")
    return "\\n\\n".join(parts)

`joined_items` gives the items `"sep".join(x)` joins, in order: a list written there, or a local
list the function starts with a literal and grows with `append`, `extend([...])` and `+= [...]`
before the join. A section added under an `if` is taken as present (the request with every
section: where each value sits among the stable text is the same in every smaller one). A list
grown inside a loop, changed any other way (`insert`, `pop`, `sort`, an item assigned) or passed
to a call before the join is not read: its order is not the code's order.
"""

from __future__ import annotations

import ast

from prefixlint.load.python_arguments import enclosing_function

_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def joined_items(resolver, node: ast.AST | None) -> list[ast.expr] | None:
    """The items `"sep".join(node)` joins, in order, or None when the code does not say."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return list(node.elts)
    if not isinstance(node, ast.Name):
        return None
    start = resolver.bound(node)
    if not isinstance(start, ast.List):
        return None
    function = enclosing_function(resolver, start.lineno, node.lineno)
    if function is None:
        return None
    begin, end = (start.end_lineno or start.lineno, start.end_col_offset or 0), (node.lineno, node.col_offset)
    added: list[tuple[tuple[int, int], list[ast.expr]]] = []
    if not _grown(function, node.id, begin, end, added, in_loop=False):
        return None
    return list(start.elts) + [item for _, items in sorted(added, key=lambda a: a[0]) for item in items]


def _grown(node: ast.AST, name: str, begin, end, added: list, in_loop: bool) -> bool:
    """Collect the sections added to the list `name` between `begin` and `end` (positions) under
    `node` into `added`; False when the list changes in a way its order cannot be read from."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue  # another scope: its `name` is another list
        at = (getattr(child, "lineno", 0), getattr(child, "col_offset", 0))
        if isinstance(child, ast.stmt) and not begin < at < end and not _spans(child, begin):
            continue
        grown = _growth(child, name)
        if grown is False:
            return False
        if grown is not None:
            if in_loop:
                return False  # grown once per item of a loop: how many sections, the code does not say
            added.append((at, grown))
            continue
        if isinstance(child, ast.Name) and child.id == name and begin < at < end and _escapes(node, child):
            return False
        if not _grown(child, name, begin, end, added, in_loop or isinstance(child, _LOOPS)):
            return False
    return True


def _spans(statement: ast.stmt, position) -> bool:
    """Whether a compound statement's lines hold `position` (the join inside an `if` block)."""
    return statement.lineno <= position[0] <= (statement.end_lineno or statement.lineno)


def _growth(node: ast.AST, name: str):
    """The items a statement adds to `name` (`append(x)`, `extend([...])`, `+= [...]`), False
    for another change of it, None when the statement does not change it."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        call = node.value
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == name:
            if func.attr == "append" and len(call.args) == 1 and not call.keywords:
                return [call.args[0]]
            if func.attr == "extend" and len(call.args) == 1 and isinstance(call.args[0], (ast.List, ast.Tuple)):
                return list(call.args[0].elts)
            return False
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
        return list(node.value.elts) if isinstance(node.op, ast.Add) and isinstance(node.value, (ast.List, ast.Tuple)) \
            else False
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name for t in targets):
            return False  # `parts[0] = ...`
    return None


def _escapes(parent: ast.AST, use: ast.Name) -> bool:
    """The list passed to a call or bound to another name before the join: changed out of sight."""
    return isinstance(parent, ast.Call) and use in parent.args or isinstance(parent, ast.Assign) and use is parent.value
