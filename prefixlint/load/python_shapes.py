"""Shapes of Python expressions the prompt finder recognises: a text expression, a literal, a
function's returned value, lists joined with `+`, and how a text's fields are filled later."""

from __future__ import annotations

import ast
import re

from prefixlint.load.python_walk import dotted

#: Chat roles as Python prompt code spells them, and LangChain's message classes by role.
ROLES = {"system": "system", "developer": "system", "human": "user", "user": "user", "ai": "assistant",
         "assistant": "assistant"}
MESSAGE_CLASSES = {"SystemMessage": "system", "HumanMessage": "user", "AIMessage": "assistant",
                   "SystemMessagePromptTemplate": "system", "HumanMessagePromptTemplate": "user",
                   "AIMessagePromptTemplate": "assistant"}


def returned(function) -> ast.expr | None:
    """The value of a function's last `return` of its own (not of a nested function)."""
    found, stack = None, list(reversed(function.body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return) and node.value is not None:
            found = node.value
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for body in ("body", "orelse", "finalbody", "handlers", "cases"):
                stack.extend(reversed(getattr(node, body, None) or []))
    return found


def concatenated(node: ast.expr, bound) -> list[ast.expr]:
    """The items of lists joined with `+`; an operand that is no list (`history`) is spread in."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return concatenated(node.left, bound) + concatenated(node.right, bound)
    value = bound(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
    if isinstance(node, (ast.List, ast.Tuple)) or isinstance(value, (ast.List, ast.Tuple)):
        return list((node if isinstance(node, (ast.List, ast.Tuple)) else value).elts)  # type: ignore[union-attr]
    return [ast.copy_location(ast.Starred(value=node, ctx=ast.Load()), node)]


def is_text_expression(node: ast.AST) -> bool:
    """A literal, an f-string, or a call or operation on one (`.format`, `dedent`, `+`, `join`)."""
    return any(isinstance(n, ast.JoinedStr) or isinstance(n, ast.Constant) and isinstance(n.value, str)
               and len(n.value) > 1 for n in ast.walk(node))


def is_text_literal(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) or (
        isinstance(node, ast.Call) and dotted(node.func).rsplit(".", 1)[-1] in ("dedent", "strip"))


def fill_style(node: ast.AST, dollar: bool = False) -> str:
    """How a text assigned to a prompt-like name is filled in later, from its fields: `{name}`
    (str.format, LangChain's default), `%(name)s` (printf-style), `${name}` (string.Template,
    asked for a message list: `dollar`), else used as it is."""
    if isinstance(node, ast.JoinedStr):
        return "plain"
    texts = [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    if not texts:
        return "plain"
    field = r"(?<![{$])\{" if dollar else r"(?<!\{)\{"  # in a message list `${x}` is string.Template's
    if any(re.search(field + r"[A-Za-z_][\w.\[\]']*\}", text) for text in texts):
        return "format"
    if any(re.search(r"%\(\w+\)[sdifr]", text) for text in texts):
        return "percent"
    if dollar and any(re.search(r"\$\{[A-Za-z_]\w*\}", text) for text in texts):
        return "dollar"
    return "plain"


def escaped_fields(node: ast.AST) -> bool:
    """An f-string whose doubled braces hold a name (`f"{intro}\\nTime: {{time}}"`): its text has a
    `{time}` field, for the `.format(...)` call that fills it later."""
    return isinstance(node, ast.JoinedStr) and any(
        isinstance(part, ast.Constant) and isinstance(part.value, str) and re.search(r"\{[A-Za-z_]\w*\}", part.value)
        for part in node.values)



def replaced_into_fields(resolver, name: str) -> bool:
    """Whether the module rewrites the text `name` into str.format fields for a later fill
    (`SYSTEM_PROMPT = SYSTEM_PROMPT.replace("{{time}}", "{time}")`); the names it rewrites are
    found once per module (kept on its resolver, as `fill_sites` keeps its index)."""
    names = getattr(resolver, "_replaced_names", None)
    if names is None:
        names = resolver._replaced_names = frozenset(_replaced_names(resolver.statements))
    return name in names


def _replaced_names(statements):
    for node in statements:
        value = node.value if isinstance(node, ast.Assign) else None
        for call in (n for n in ast.walk(value) if isinstance(n, ast.Call)) if value is not None else ():
            if isinstance(call.func, ast.Attribute) and call.func.attr == "replace" \
                    and len(call.args) == 2 and isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str) \
                    and re.fullmatch(r"\{[A-Za-z_]\w*\}", call.args[1].value):
                yield dotted(call.func.value)


def formatted_later(value: ast.AST, call, method: str | None, resolver, name: str) -> bool:
    """Whether the text `value` bound to `name` is a str.format template: a `.format()` call fills
    it (`call`), or the module rewrites it into fields (the module's `resolver`), and it is a
    literal or an f-string whose doubled braces hold names."""
    return (method == "format" or call is None and replaced_into_fields(resolver, name)) and (
        is_text_literal(value) or escaped_fields(value))


def keyword_value(keywords: dict, *keys: str):
    """The value of the first of `keys` a call passes (by keyword), else None."""
    return next((keywords[k] for k in keys if k in keywords), None)


def slot_name(node: ast.AST) -> str:
    """The conversation slot a placeholder message names (`("placeholder", "{history}")`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.strip("{} ") or "history"
    return "history"


def extends_itself(target: ast.expr, value: ast.expr) -> bool:
    """`self.prompt = self.prompt + "..."`: an attribute's text opening with the attribute itself,
    the prompt its object has built so far, in methods whose order the module does not say: a
    step of that prompt, not one of its own (a local name is read in its function's order)."""
    while isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        value = value.left
    return isinstance(target, ast.Attribute) and isinstance(value, ast.Attribute) and dotted(value) == dotted(target)
