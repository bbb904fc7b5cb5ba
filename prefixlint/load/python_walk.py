"""Which parts of a Python module's AST the prompt finder looks at: every statement of every
body, and the calls of the statements that span a line naming a prompt call (a module is mostly
other code, so only those have their expressions walked); every node once, for the indexes
that read a whole module (`walked`)."""

from __future__ import annotations

import ast
import re
from bisect import bisect_left, bisect_right

from prefixlint.load.template import line_starts

#: Keyword arguments that take the system prompt: OpenAI (`instructions`), Anthropic (`system`),
#: pydantic-ai and other agent frameworks (`system_prompt`, `system_message`).
SYSTEM_KEYWORDS = ("system", "instructions", "system_prompt", "system_message")
#: Keyword arguments that take the user's prompt (completions' `prompt`, an agent's `input`).
USER_KEYWORDS = ("prompt", "input")


def walked(tree: ast.AST) -> tuple[list[ast.AST], dict[int, ast.AST]]:
    """Every node of `tree` in `ast.walk`'s order (breadth first) and each node's parent by its
    id, worked out once per tree: the indexes of one module read it, one walk for them all. Kept
    on the tree itself, so it goes when the tree goes (a weak-keyed table would keep every tree
    alive: its value refers to the tree)."""
    found = getattr(tree, "_prefixlint_walked", None)
    if found is None:
        nodes: list[ast.AST] = [tree]
        parents: dict[int, ast.AST] = {}
        for node in nodes:  # grows as it goes: each node's children after the nodes before it
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
                nodes.append(child)
        found = tree._prefixlint_walked = (nodes, parents)  # type: ignore[attr-defined]
    return found


def dotted(node: ast.AST) -> str:
    """`client.messages.create` for the function of a call (`?` for what is not a name)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return dotted(node.func)
    return "?"


#: Lines that may hold a call where a prompt goes, or a `.format(...)` of one: only statements
#: spanning such a line have their expressions walked (a module is mostly other code).
_CALL_NAMES = r"from_messages|PromptTemplate|from_template|Message|\.format\(|substitute|\.render\(|Template\("
_KEYWORDS = ("system", "instructions", "system_prompt", "system_message", "messages", "prompt", "input", "content",
             "backstory", "expected_output")  # the last two: CrewAI's Agent and Task objects
_CALL_HINT = re.compile(rf"{_CALL_NAMES}|\b(?:{'|'.join(_KEYWORDS)})\s*=|[\"']role[\"']")
#: `_CALL_HINT` in three parts, none tried at every character (the whole pattern, led by `\b`, is: a
#: third of a module's load): the names, each found by `str.find`; `role` followed by a quote (the
#: quote before it checked apart); and `keyword =` found in the reversed text, where it starts with `=`.
_NAMES = tuple(name.replace("\\", "") for name in _CALL_NAMES.split("|"))  # as `str.find` looks for them
_ROLE = re.compile(r"role[\"']")
_KEYWORD_REVERSED = re.compile(rf"=\s*(?:{'|'.join(k[::-1] for k in _KEYWORDS)})\b")


def hint_offsets(text: str) -> list[int]:
    """Where a match of `_CALL_HINT` may start: every line holding one of these offsets holds a
    match of `_CALL_HINT`, and the other way round (no part of it starts with a blank or `=`, so
    no match of one part hides another part's match of a different line)."""
    found: list[int] = []
    for name in _NAMES:  # each found by `str.find` (one also inside another adds a line already there)
        at = text.find(name)
        while at >= 0:
            found.append(at)
            at = text.find(name, at + 1)
    found += [m.start() - 1 for m in _ROLE.finditer(text) if m.start() and text[m.start() - 1] in "\"'"]
    found += [len(text) - m.end() for m in _KEYWORD_REVERSED.finditer(text[::-1])]
    return found


_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def statements(tree: ast.Module):
    """Every statement of the module, in every body (functions, classes, branches, loops)."""
    stack = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        if hasattr(node, "lineno"):  # a `match` statement's cases are no statements (no position)
            yield node
        for name in _BODIES:
            children = getattr(node, name, None)
            if children:
                stack.extend(reversed(children))


def calls(text: str, tree: ast.Module) -> list[ast.Call]:
    """The calls of the statements that span a line naming a prompt call (see _CALL_HINT)."""
    starts = line_starts(text)
    lines = sorted({bisect_right(starts, at) for at in hint_offsets(text)})
    found: list[ast.Call] = []
    for statement in statements(tree):
        end = getattr(statement, "end_lineno", statement.lineno)
        at = bisect_left(lines, statement.lineno)
        if at == len(lines) or lines[at] > end:
            continue
        own = [value for name, value in ast.iter_fields(statement) if name not in _BODIES]
        for value in own:
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, ast.AST):
                    found += [n for n in ast.walk(item) if isinstance(n, ast.Call)]
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def segments_of(node: ast.AST) -> tuple[list[str], bool]:
    """The names a value is reached by (`self.user.name`, `state['date']`, `state.get('date')`)."""
    if isinstance(node, ast.Name):
        return [node.id], False
    if isinstance(node, ast.Attribute):
        inner, keyed = segments_of(node.value)
        return inner + [node.attr], keyed
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        inner, _ = segments_of(node.value)
        return inner + [str(node.slice.value)], True
    if isinstance(node, ast.Call):
        key = node.args[0] if node.args else None
        if (isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                and isinstance(key, ast.Constant) and isinstance(key.value, str)):
            return segments_of(node.func.value)[0] + [key.value], True
        return segments_of(node.args[0]) if node.args else ([dotted(node.func).replace("?", "value")], False)
    names = [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]
    return (names[:1] or ["value"]), False


def store_counts(tree: ast.AST) -> dict[str, int]:
    """How many times the module binds each name anywhere (`x = ...`, `x += ...`, `for x in`):
    a name bound only by the assignments read is bound by nothing else."""
    counts: dict[str, int] = {}
    for found in ast.walk(tree):
        if isinstance(found, ast.Name) and isinstance(found.ctx, ast.Store):
            counts[found.id] = counts.get(found.id, 0) + 1
    return counts
