"""PFX008 unstable-schema-order: tool or JSON schemas serialized into a prompt without a stable order.

In a program that builds prompts (Python), a `json.dumps(...)` of tools, schemas, functions or
parameters without `sort_keys=True` writes their keys in whatever order each dict was built in
(clients and serializers differ: sglang#34553, dspy#10216); a list or dict built from a set
(`set(...)`, `{...}`, a set comprehension) changes order between processes (string hashing is
seeded per process). Either way two requests render the same schema as different text, and the
prefix cache stops at the first moved key. The finding is at the call, its text the placeholder.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from typing import Iterator

from prefixlint.load.classify import name_words
from prefixlint.results import Finding
from prefixlint.rules.catalog import Rule
from prefixlint.rules.measured import Measured

#: Words of a name that make a serialized value a schema (tools, their parameters, JSON schemas).
SCHEMA_WORDS = frozenset({"tool", "tools", "schema", "schemas", "function", "functions", "parameters",
                          "properties", "json_schema", "definitions", "defs"})


def _is_dumps(func: ast.expr) -> bool:
    if isinstance(func, ast.Attribute):
        return func.attr == "dumps" and isinstance(func.value, ast.Name) and func.value.id in ("json", "orjson", "ujson")
    return isinstance(func, ast.Name) and func.id == "dumps"


def _names(node: ast.AST) -> Iterator[str]:
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            yield child.id
        elif isinstance(child, ast.Attribute):
            yield child.attr
        elif isinstance(child, ast.Constant) and isinstance(child.value, str) and len(child.value) < 40:
            yield child.value


def _set_names(tree: ast.AST) -> frozenset[str]:
    """Names assigned a set anywhere in the file (`FIELDS = {"name", "email"}`)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and _unordered(node.value, frozenset()):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.update(t.id for t in targets if isinstance(t, ast.Name))
    return frozenset(found)


def _unordered(node: ast.AST, sets: frozenset[str]) -> bool:
    """A set somewhere in the value: a literal, a set comprehension, `set(...)`/`frozenset(...)`,
    or a name the file assigns a set to."""
    for child in ast.walk(node):
        if isinstance(child, (ast.Set, ast.SetComp)) or (isinstance(child, ast.Name) and child.id in sets):
            return True
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and child.func.id in ("set", "frozenset"):
            return True
    return False


def _sorted_keys(call: ast.Call) -> bool:
    return any(kw.arg == "sort_keys" and isinstance(kw.value, ast.Constant) and kw.value.value is True
               for kw in call.keywords)


def _problem(call: ast.Call, sets: frozenset[str]) -> str | None:
    value = call.args[0]
    if _unordered(value, sets):
        return "builds the serialized value from a set, whose order changes from process to process"
    if _sorted_keys(call):
        return None
    words = {w for name in _names(value) for w in (name.lower(), *name_words(name))}
    if words & SCHEMA_WORDS:
        return "serializes tool or JSON schemas without sort_keys=True: their key order is the order each dict was built in"
    return None


def unstable_schema_order(rule: Rule, data: Measured) -> Iterator[Finding]:
    template = data.template
    if template is None or template.format != "python":
        return
    for line, column, end_line, end_column, text, problem in _problems(template.source):
        yield Finding(
            path=data.path, line=line, column=column + 1, code=rule.code, name=rule.name,
            severity=rule.severity, message=f"`{text.split(chr(10))[0]}` {problem}; two requests render the same"
            " schema as different text and the prefix cache stops at the first moved key"
            " (json.dumps(..., sort_keys=True), and sort lists built from sets)",
            end_line=end_line, end_column=end_column + 1,
            extra={"placeholder": text.split("\n")[0]},
        )


@lru_cache(maxsize=4)
def _problems(source: str) -> tuple[tuple[int, int, int, int, str, str], ...]:
    """The module's unstable serializations, found once per module text (a module holding many
    prompts is checked once per prompt: issue 19 item 9)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return ()
    lines = source.split("\n")
    sets = _set_names(tree)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _is_dumps(node.func) and node.args):
            continue
        problem = _problem(node, sets)
        if problem is None:
            continue
        line = lines[node.lineno - 1]
        column = len(line.encode("utf-8")[: node.col_offset].decode("utf-8", "ignore"))  # ast counts bytes
        text = ast.get_source_segment(source, node) or ""
        found.append((node.lineno, column, node.end_lineno or node.lineno, node.end_col_offset or 0, text, problem))
    return tuple(found)
