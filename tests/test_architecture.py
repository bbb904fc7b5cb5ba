"""The package's shape: imports go down the documented layers (docs/architecture.md), no import
cycle between its packages, and no module over 300 lines.

Every import counts, those inside functions too (a lazy import is the same dependency, only
later), except those under `if TYPE_CHECKING:` (annotations only, never run). A node is a
subpackage of prefixlint (`prefixlint.check`) or a top-level module
(`prefixlint.config`); an import of `prefixlint.check.runner` from `prefixlint.commands.check`
is the edge commands -> check.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "prefixlint"
MAX_LINES = 300


def modules() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imported(module: str, path: Path) -> set[str]:
    """Every prefixlint module or name `module` imports, anywhere in its body."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(inner) for node in ast.walk(tree) if isinstance(node, ast.If) and _is_type_checking(node.test)
                   for statement in node.body for inner in ast.walk(statement)}
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names.add(target)
            names.update(f"{target}.{alias.name}" for alias in node.names)  # `from pkg import module`
    return {name for name in names if name == "prefixlint" or name.startswith("prefixlint.")}


def _is_type_checking(test: ast.expr) -> bool:
    """`TYPE_CHECKING` or `typing.TYPE_CHECKING`."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


#: The layers, lowest first: a node imports only nodes of lower layers (docs/architecture.md).
#: The data flows load -> render -> tokenize -> match -> engines -> rules -> report; tokenize sits
#: below load and render in the imports because both read a tokenizer's files (its chat
#: template, harmony's encoding). Configuration sits above the rules (it names their codes).
LAYERS = [
    {"errors"},
    {"confine"},
    {"limits", "numbers", "package_data", "results"},
    {"sandbox"},
    {"tokenize"},
    {"load"},
    {"render"},
    {"match"},
    {"engines", "explain"},
    {"rules"},
    {"fix"},
    {"config_keys"},
    {"config_files"},
    {"config"},
    {"report"},
    {"check", "kv"},
    {"transcript", "prreport", "server"},
    {"replay"},
    {"commands"},
    {"cli"},
    {"__main__"},
]


def node_of(name: str, known: set[str]) -> str | None:
    """prefixlint.check.runner -> check; prefixlint.config -> config; None for the package root."""
    parts = name.split(".")
    if len(parts) < 2 or f"prefixlint.{parts[1]}" not in known:
        return None
    return parts[1]


def package_graph() -> dict[str, dict[str, set[str]]]:
    """node -> {node it imports -> the `module -> import` lines behind that edge}."""
    found = modules()
    known = set(found)
    graph: dict[str, dict[str, set[str]]] = {}
    for module, path in found.items():
        source = node_of(module, known)
        for name in imported(module, path):
            target = node_of(name, known)
            if source and target and target != source:
                graph.setdefault(source, {}).setdefault(target, set()).add(f"{module} -> {name}")
    return graph


def find_cycle(graph: dict[str, dict[str, set[str]]]) -> list[str] | None:
    """One cycle of the graph as a path [a, b, ..., a], or None (depth-first search)."""
    state: dict[str, str] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        stack.append(node)
        for target in sorted(graph.get(node, {})):
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state and (cycle := visit(target)):
                return cycle
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_find_cycle_finds_one_and_only_one_that_exists():
    assert find_cycle({"a": {"b": set()}, "b": {"c": set()}}) is None
    assert find_cycle({"a": {"b": set()}, "b": {"c": set()}, "c": {"a": set()}}) == ["a", "b", "c", "a"]


def test_imported_counts_imports_inside_functions_and_relative_ones(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text("from prefixlint.match import prefix\ndef f():\n    from ..render.chat import x\n    import os\n")
    assert imported("prefixlint.rules.mod", path) == {
        "prefixlint.match", "prefixlint.match.prefix", "prefixlint.render.chat", "prefixlint.render.chat.x"}


def test_the_packages_import_each_other_without_a_cycle():
    graph = package_graph()
    cycle = find_cycle(graph)
    if cycle:
        edges = [sorted(graph[a][b])[0] for a, b in zip(cycle, cycle[1:])]
        raise AssertionError(f"import cycle {' -> '.join(cycle)}: " + "; ".join(edges))
    assert "check" in graph["commands"] and "rules" in graph["check"]  # the graph is not empty


def layer_violations(graph: dict[str, dict[str, set[str]]]) -> list[str]:
    """Each import of a node at its own layer or above: `a -> b (module -> import)`."""
    layer = {node: number for number, nodes in enumerate(LAYERS) for node in nodes}
    return [f"{a} -> {b} ({sorted(lines)[0]})" for a, targets in sorted(graph.items())
            for b, lines in sorted(targets.items()) if layer[b] >= layer[a]]


def test_every_node_has_a_layer():
    nodes = {node_of(name, set(modules())) for name in modules()} - {None}
    assert nodes - set().union(*LAYERS) == set() and set().union(*LAYERS) - nodes == set()


def test_imports_go_down_the_layers():
    assert layer_violations(package_graph()) == []


def test_layer_violations_and_type_checking_imports(tmp_path):
    assert layer_violations({"match": {"rules": {"prefixlint.match.x -> prefixlint.rules.y"}}}) == [
        "match -> rules (prefixlint.match.x -> prefixlint.rules.y)"]
    assert layer_violations({"rules": {"match": {"prefixlint.rules.y -> prefixlint.match.x"}}}) == []
    path = tmp_path / "mod.py"
    path.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from prefixlint.rules import x\n"
                    "import typing\nif typing.TYPE_CHECKING:\n    import prefixlint.report\nfrom prefixlint.load import y\n")
    assert imported("prefixlint.match.mod", path) == {"prefixlint.load", "prefixlint.load.y"}


def test_no_module_over_300_lines():
    long = {module: n for module, path in modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_every_package_is_installed():
    """pyproject.toml lists the packages: a new one missing there works from the checkout only."""
    listed = set(tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    packages = {module for module, path in modules().items() if path.name == "__init__.py"}
    assert packages - listed == set()
